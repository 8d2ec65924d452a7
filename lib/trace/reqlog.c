// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csvread.h"
#include "reqlog.h"
#include "rfile.h"

#define MAX_FIELDS 64

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Opens path and splits its header; returns the FILE or NULL (err set). */
static FILE *open_csv(const char *path, char **line, size_t *cap,
		      char **cols, int *ncols, char *err, size_t errlen)
{
	FILE *f = rfile_fopen_quiet(path);

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, rfile_strerror(errno));
		return NULL;
	}
	if (rfile_getline(f, line, cap, RFILE_LINE_MAX) <= 0 ||
	    (*ncols = csvr_split(*line, cols, MAX_FIELDS)) < 1) {
		snprintf(err, errlen, "%s:1: no CSV header", path);
		fclose(f);
		return NULL;
	}
	return f;
}

/* The next data row, split into exactly ncols fields. 1, 0 at end, or
 * -EINVAL (err set). */
static int next_row(FILE *f, const char *path, unsigned int *lineno,
		    char **line, size_t *cap, char **fields, int ncols,
		    char *err, size_t errlen)
{
	/* bounded before it is held: a 2 GB line would cost 2 GB */
	ssize_t len = rfile_getline(f, line, cap, RFILE_LINE_MAX);
	int n;

	if (!len)
		return 0;
	++*lineno;
	if (len == -E2BIG)
		return fail(err, errlen, "%s:%u: a line longer than 64 KiB", path, *lineno);
	if (len < 0)
		return fail(err, errlen, "%s:%u: %s", path, *lineno, strerror((int)-len));
	if ((size_t)len != strlen(*line))
		return fail(err, errlen, "%s:%u: NUL byte in the line", path, *lineno);
	n = csvr_split(*line, fields, MAX_FIELDS);
	if (n == -EINVAL)
		return fail(err, errlen, "%s:%u: bad quoting", path, *lineno);
	if (n != ncols)
		return fail(err, errlen, "%s:%u: %s%d fields, the header has %d", path,
			    *lineno, n < 0 ? "more than " : "",
			    n < 0 ? MAX_FIELDS : n, ncols);
	return 1;
}

/* Field col as a number; empty gives 0 when may_be_empty. */
static int field_u64(const char *path, unsigned int lineno, char **fields,
		     char **names, int col, int may_be_empty, uint64_t *out,
		     char *err, size_t errlen)
{
	char why[128];

	if (may_be_empty && !fields[col][0]) {
		*out = 0;
		return 0;
	}
	if (csvr_u64(fields[col], UINT64_MAX, out, why, sizeof(why)))
		return fail(err, errlen, "%s:%u: column '%s': %s", path, lineno,
			    names[col], why);
	return 0;
}

/* An open CSV file and its header. */
struct csvin {
	const char *path;
	FILE *f;
	char *line, *hdr;
	size_t cap, hcap;
	char *names[MAX_FIELDS], *fields[MAX_FIELDS];
	int ncols;
	unsigned int lineno;
};

static int csvin_open(struct csvin *c, const char *path, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->lineno = 1;
	c->f = open_csv(path, &c->hdr, &c->hcap, c->names, &c->ncols, err, errlen);
	if (c->f)
		return 0;
	free(c->hdr);
	c->hdr = NULL;
	return -EINVAL;
}

static void csvin_close(struct csvin *c)
{
	if (c->f)
		fclose(c->f);
	free(c->line);
	free(c->hdr);
	c->f = NULL;
}

static int csvin_row(struct csvin *c, char *err, size_t errlen)
{
	return next_row(c->f, c->path, &c->lineno, &c->line, &c->cap, c->fields,
			c->ncols, err, errlen);
}

static int csvin_u64(struct csvin *c, int col, int may_be_empty, uint64_t *out,
		     char *err, size_t errlen)
{
	return field_u64(c->path, c->lineno, c->fields, c->names, col,
			 may_be_empty, out, err, errlen);
}

/* ---- the server's log -------------------------------------------------- */

struct srv_row {
	struct attr_msg m;
	unsigned int line;
};

struct reqlog_server {
	struct csvin in;
	int c_seq, c_type, c_recv, c_send;
	struct srv_row heap[REQLOG_REORDER];	/* by (recv_ns, line) */
	size_t n;
	int eof;
	uint64_t out_recv;	/* the last handed out */
	int out_any;
};

static int srv_less(const struct srv_row *a, const struct srv_row *b)
{
	return a->m.recv_ns != b->m.recv_ns ? a->m.recv_ns < b->m.recv_ns :
	       a->line < b->line;
}

static void srv_push(struct reqlog_server *s, const struct srv_row *r)
{
	size_t i = s->n++;

	while (i && srv_less(r, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = *r;
}

static struct srv_row srv_pop(struct reqlog_server *s)
{
	struct srv_row top = s->heap[0], last = s->heap[--s->n];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= s->n)
			break;
		if (l + 1 < s->n && srv_less(&s->heap[l + 1], &s->heap[l]))
			m = l + 1;
		if (!srv_less(&s->heap[m], &last))
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (s->n)
		s->heap[i] = last;
	return top;
}

int reqlog_server_open(const char *path, struct reqlog_server **out, char *err,
		       size_t errlen)
{
	struct reqlog_server *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	ret = csvin_open(&s->in, path, err, errlen);
	if (ret) {
		free(s);
		return ret;
	}
	s->c_seq = csvr_col(s->in.names, s->in.ncols, "seq");
	s->c_type = csvr_col(s->in.names, s->in.ncols, "type");
	s->c_recv = csvr_col(s->in.names, s->in.ncols, "recv_ns");
	s->c_send = csvr_col(s->in.names, s->in.ncols, "send_ns");
	if (s->c_seq != 0 || s->c_type != 1 || s->c_recv != 2 || s->c_send != 3) {
		ret = fail(err, errlen, "%s is not a server log (seq,type,recv_ns,send_ns,...)",
			   path);
		reqlog_server_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

/* The next row of the file: 1, 0 at its end, -EINVAL. */
static int srv_read(struct reqlog_server *s, struct srv_row *r, char *err,
		    size_t errlen)
{
	struct csvin *c = &s->in;
	const char *type;
	int ret = csvin_row(c, err, errlen);

	if (ret <= 0)
		return ret;
	*r = (struct srv_row){ .line = c->lineno };
	if (csvin_u64(c, s->c_seq, 0, &r->m.seq, err, errlen) ||
	    csvin_u64(c, s->c_recv, 0, &r->m.recv_ns, err, errlen) ||
	    csvin_u64(c, s->c_send, 1, &r->m.send_ns, err, errlen))
		return -EINVAL;
	type = c->fields[s->c_type];
	if (!strcmp(type, "prequery"))
		r->m.prequery = 1;
	else if (strcmp(type, "request"))
		return fail(err, errlen, "%s:%u: column 'type': '%.40s' is neither request nor prequery",
			    c->path, c->lineno, type);
	return 1;
}

int reqlog_server_next(struct reqlog_server *s, struct attr_msg *m, char *err,
		       size_t errlen)
{
	struct srv_row r;

	while (!s->eof && s->n < REQLOG_REORDER) {
		int ret = srv_read(s, &r, err, errlen);

		if (ret < 0)
			return ret;
		if (!ret) {
			s->eof = 1;
			break;
		}
		if (s->out_any && r.m.recv_ns < s->out_recv)
			return fail(err, errlen, "%s:%u: received at %llu ns, before a row more than %d lines earlier (%llu ns): not a log in receive order",
				    s->in.path, r.line, (unsigned long long)r.m.recv_ns,
				    REQLOG_REORDER, (unsigned long long)s->out_recv);
		srv_push(s, &r);
	}
	if (!s->n)
		return 0;
	r = srv_pop(s);
	s->out_recv = r.m.recv_ns;
	s->out_any = 1;
	*m = r.m;
	return 1;
}

void reqlog_server_close(struct reqlog_server *s)
{
	if (!s)
		return;
	csvin_close(&s->in);
	free(s);
}

int reqlog_read_server(const char *path, struct attr_msg **msgs, size_t *n,
		       char *err, size_t errlen)
{
	struct reqlog_server *s;
	struct attr_msg m;
	size_t cap = 0;
	int ret = reqlog_server_open(path, &s, err, errlen);

	*msgs = NULL;
	*n = 0;
	if (ret)
		return ret;
	while ((ret = reqlog_server_next(s, &m, err, errlen)) > 0) {
		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 1024;
			struct attr_msg *nv = realloc(*msgs, nc * sizeof(*nv));

			if (!nv) {
				ret = -ENOMEM;
				snprintf(err, errlen, "%s: out of memory", path);
				break;
			}
			*msgs = nv;
			cap = nc;
		}
		(*msgs)[(*n)++] = m;
	}
	reqlog_server_close(s);
	if (ret) {
		free(*msgs);
		*msgs = NULL;
		*n = 0;
	}
	return ret;
}

/* ---- the client's rows, joined ------------------------------------------ */

struct reqlog_join {
	struct csvin in;
	int by_seq;
	int c_seq, c_lat, c_recv, c_send, c_lead, c_sent;
	/* rows read ahead, in file order, from seq head to tail */
	struct cli_row *rows;
	uint8_t *state;		/* per row: 0 waiting, 1 taken, 2 ambiguous */
	size_t cap;
	uint64_t head, tail;
	/* open addressing over row seqs (UINT64_MAX: empty) */
	uint64_t *slot;
	size_t nslots;
	int eof;
	uint64_t horizon;	/* the latest server receive read */
	uint64_t now;		/* the latest receive looked for */
	uint64_t late;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static uint64_t row_key(const struct reqlog_join *j, const struct cli_row *r)
{
	return j->by_seq ? mix(r->seq) : mix(r->srv_recv_ns ^ mix(r->srv_send_ns));
}

static int same_key(const struct reqlog_join *j, const struct cli_row *a,
		    uint64_t seq, uint64_t recv, uint64_t send)
{
	return j->by_seq ? a->seq == seq :
	       a->srv_recv_ns == recv && a->srv_send_ns == send;
}

static struct cli_row *jrow(struct reqlog_join *j, uint64_t i)
{
	return &j->rows[i % j->cap];
}

/* The slot holding row i, or the empty one where it would go. */
static size_t slot_of(struct reqlog_join *j, uint64_t key, uint64_t i)
{
	size_t mask = j->nslots - 1, k = key & mask;

	while (j->slot[k] != UINT64_MAX && j->slot[k] != i)
		k = (k + 1) & mask;
	return k;
}

static void slot_remove(struct reqlog_join *j, uint64_t i)
{
	size_t mask = j->nslots - 1, k = slot_of(j, row_key(j, jrow(j, i)), i);

	if (j->slot[k] != i)
		return;
	/* backward shift: no tombstones, probes stay short */
	for (size_t n = (k + 1) & mask; j->slot[n] != UINT64_MAX; n = (n + 1) & mask) {
		size_t home = row_key(j, jrow(j, j->slot[n])) & mask;

		if ((n > k && (home <= k || home > n)) ||
		    (n < k && home <= k && home > n)) {
			j->slot[k] = j->slot[n];
			k = n;
		}
	}
	j->slot[k] = UINT64_MAX;
}

static int slot_insert(struct reqlog_join *j, uint64_t i)
{
	size_t mask, k;

	if (2 * (j->tail - j->head + 1) > j->nslots) {
		size_t n = j->nslots ? 2 * j->nslots : 1024;
		uint64_t *ns = malloc(n * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		free(j->slot);
		j->slot = ns;
		j->nslots = n;
		for (size_t s = 0; s < n; s++)
			ns[s] = UINT64_MAX;
		for (uint64_t r = j->head; r < j->tail; r++)
			if (j->state[r % j->cap] != 1)
				j->slot[slot_of(j, row_key(j, jrow(j, r)), UINT64_MAX)] = r;
	}
	mask = j->nslots - 1;
	k = row_key(j, jrow(j, i)) & mask;
	while (j->slot[k] != UINT64_MAX)
		k = (k + 1) & mask;
	j->slot[k] = i;
	return 0;
}

/* The waiting row with this key, or UINT64_MAX. */
static uint64_t lookup(struct reqlog_join *j, uint64_t seq, uint64_t recv,
		       uint64_t send)
{
	struct cli_row key = { .seq = seq, .srv_recv_ns = recv, .srv_send_ns = send };
	size_t mask = j->nslots - 1, k;

	if (!j->nslots)
		return UINT64_MAX;
	for (k = row_key(j, &key) & mask; j->slot[k] != UINT64_MAX; k = (k + 1) & mask)
		if (same_key(j, jrow(j, j->slot[k]), seq, recv, send))
			return j->slot[k];
	return UINT64_MAX;
}

int reqlog_join_open(const char *path, int by_seq, struct reqlog_join **out,
		     char *err, size_t errlen)
{
	struct reqlog_join *j = calloc(1, sizeof(*j));
	struct csvin *c;
	int ret;

	*out = NULL;
	if (!j) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	j->by_seq = by_seq;
	ret = csvin_open(&j->in, path, err, errlen);
	if (ret) {
		free(j);
		return ret;
	}
	c = &j->in;
	j->c_seq = csvr_col(c->names, c->ncols, "seq");
	j->c_lat = csvr_col(c->names, c->ncols, "latency_ns");
	j->c_recv = csvr_col(c->names, c->ncols, "server_recv_ns");
	j->c_send = csvr_col(c->names, c->ncols, "server_send_ns");
	j->c_lead = csvr_col(c->names, c->ncols, "prequery_lead_ns");	/* optional */
	j->c_sent = csvr_col(c->names, c->ncols, "sent_ns");	/* optional */
	if (j->c_seq != 0 || j->c_lat < 0 || j->c_recv < 0 || j->c_send < 0) {
		ret = fail(err, errlen, "%s is not a client requests.csv (seq,...,latency_ns,...,server_recv_ns,server_send_ns)",
			   path);
		reqlog_join_close(j);
		return ret;
	}
	*out = j;
	return 0;
}

/* Reads one more row into the window: 1, 0 at the end, -errno. */
static int join_read(struct reqlog_join *j, char *err, size_t errlen)
{
	struct csvin *c = &j->in;
	struct cli_row row;
	uint64_t dup;
	int ret = csvin_row(c, err, errlen);

	if (ret <= 0) {
		if (!ret)
			j->eof = 1;
		return ret;
	}
	row = (struct cli_row){ .line = c->lineno };
	if (csvin_u64(c, j->c_seq, 0, &row.seq, err, errlen) ||
	    csvin_u64(c, j->c_lat, 1, &row.latency_ns, err, errlen) ||
	    csvin_u64(c, j->c_recv, 1, &row.srv_recv_ns, err, errlen) ||
	    csvin_u64(c, j->c_send, 1, &row.srv_send_ns, err, errlen) ||
	    (j->c_lead >= 0 &&
	     csvin_u64(c, j->c_lead, 1, &row.pq_lead_ns, err, errlen)) ||
	    (j->c_sent >= 0 &&
	     csvin_u64(c, j->c_sent, 1, &row.sent_ns, err, errlen)))
		return -EINVAL;
	if (row.srv_recv_ns > j->horizon)
		j->horizon = row.srv_recv_ns;
	if (!j->by_seq && (!row.srv_recv_ns || !row.srv_send_ns))
		return 1;	/* no server times: nothing joins it */
	if (!j->by_seq && row.srv_recv_ns < j->now) {
		j->late++;	/* its message went by already */
		return 1;
	}
	if (j->tail - j->head == j->cap) {
		size_t ncap = j->cap ? 2 * j->cap : 1024;
		struct cli_row *nr;
		uint8_t *ns;

		if (j->cap == REQLOG_WINDOW)
			return 1;	/* full: read on without holding */
		nr = malloc(ncap * sizeof(*nr));
		ns = malloc(ncap);
		if (!nr || !ns) {
			free(nr);
			free(ns);
			snprintf(err, errlen, "%s: out of memory", c->path);
			return -ENOMEM;
		}
		for (uint64_t i = j->head; i < j->tail; i++) {
			nr[i % ncap] = *jrow(j, i);
			ns[i % ncap] = j->state[i % j->cap];
		}
		free(j->rows);
		free(j->state);
		j->rows = nr;
		j->state = ns;
		j->cap = ncap;
		/* slots hold row sequence numbers: still valid */
	}
	dup = lookup(j, row.seq, row.srv_recv_ns, row.srv_send_ns);
	if (dup != UINT64_MAX) {
		if (j->by_seq)
			return fail(err, errlen, "%s:%u: seq %llu again (first on line %u)",
				    c->path, row.line, (unsigned long long)row.seq,
				    jrow(j, dup)->line);
		j->state[dup % j->cap] = 2;	/* two rows, one time: neither */
		return 1;
	}
	*jrow(j, j->tail) = row;
	j->state[j->tail % j->cap] = 0;
	if (slot_insert(j, j->tail)) {
		snprintf(err, errlen, "%s: out of memory", c->path);
		return -ENOMEM;
	}
	j->tail++;
	return 1;
}

/* Lets go of the rows at the head the server's time has passed. */
static void join_evict(struct reqlog_join *j, uint64_t before)
{
	while (j->head < j->tail) {
		struct cli_row *r = jrow(j, j->head);
		uint8_t st = j->state[j->head % j->cap];

		if (st != 1 && r->srv_recv_ns >= before)
			break;
		if (st != 1)
			slot_remove(j, j->head);
		j->head++;
	}
}

int reqlog_join_find(struct reqlog_join *j, uint64_t seq, uint64_t recv_ns,
		     uint64_t send_ns, struct cli_row *row, char *err,
		     size_t errlen)
{
	uint64_t i;

	if (recv_ns > j->now)
		j->now = recv_ns;
	while (!j->eof && j->horizon <= recv_ns + REQLOG_HORIZON_NS &&
	       j->tail - j->head < REQLOG_WINDOW) {
		int ret = join_read(j, err, errlen);

		if (ret < 0)
			return ret;
	}
	i = lookup(j, seq, recv_ns, send_ns);
	if (j->by_seq)
		join_evict(j, recv_ns > REQLOG_HORIZON_NS ? recv_ns - REQLOG_HORIZON_NS : 0);
	else
		join_evict(j, recv_ns);
	if (i == UINT64_MAX || i < j->head || j->state[i % j->cap] == 2)
		return 0;
	*row = *jrow(j, i);
	if (j->state[i % j->cap] == 0) {
		slot_remove(j, i);
		j->state[i % j->cap] = 1;
	}
	return 1;
}

uint64_t reqlog_join_late(const struct reqlog_join *j)
{
	return j->late;
}

void reqlog_join_close(struct reqlog_join *j)
{
	if (!j)
		return;
	csvin_close(&j->in);
	free(j->rows);
	free(j->state);
	free(j->slot);
	free(j);
}

int reqlog_marker(const char *text, uint64_t *seq, int *prequery, char *err,
		  size_t errlen)
{
	const char *num;
	char why[128];

	if (!strncmp(text, "wb recv ", 8)) {
		*prequery = 0;
		num = text + 8;
	} else if (!strncmp(text, "wb pqrecv ", 10)) {
		*prequery = 1;
		num = text + 10;
	} else {
		return 0;
	}
	if (csvr_u64(num, UINT64_MAX, seq, why, sizeof(why)))
		return fail(err, errlen, "marker '%.60s': %s", text, why);
	return 1;
}
