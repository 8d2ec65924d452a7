// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csvread.h"
#include "reqlog.h"

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
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (getline(line, cap, f) < 0 ||
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
	ssize_t len = getline(line, cap, f);
	int n;

	if (len < 0)
		return 0;
	++*lineno;
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

int reqlog_read_server(const char *path, struct attr_msg **msgs, size_t *n,
		       char *err, size_t errlen)
{
	char *line = NULL, *hdr = NULL, *names[MAX_FIELDS], *fields[MAX_FIELDS];
	size_t cap = 0, hcap = 0, ncap = 0;
	unsigned int lineno = 1;
	int ncols, c_seq, c_type, c_recv, c_send, r, ret = 0;
	FILE *f = open_csv(path, &hdr, &hcap, names, &ncols, err, errlen);

	*msgs = NULL;
	*n = 0;
	if (!f) {
		free(hdr);
		return -EINVAL;
	}
	c_seq = csvr_col(names, ncols, "seq");
	c_type = csvr_col(names, ncols, "type");
	c_recv = csvr_col(names, ncols, "recv_ns");
	c_send = csvr_col(names, ncols, "send_ns");
	if (c_seq != 0 || c_type != 1 || c_recv != 2 || c_send != 3) {
		ret = fail(err, errlen, "%s is not a server log (seq,type,recv_ns,send_ns,...)",
			   path);
		goto out;
	}
	while ((r = next_row(f, path, &lineno, &line, &cap, fields, ncols, err,
			     errlen)) > 0) {
		struct attr_msg m = { 0 };
		const char *type = fields[c_type];

		if (field_u64(path, lineno, fields, names, c_seq, 0, &m.seq, err, errlen) ||
		    field_u64(path, lineno, fields, names, c_recv, 0, &m.recv_ns, err, errlen) ||
		    field_u64(path, lineno, fields, names, c_send, 1, &m.send_ns, err, errlen)) {
			ret = -EINVAL;
			goto out;
		}
		if (!strcmp(type, "prequery")) {
			m.prequery = 1;
		} else if (strcmp(type, "request")) {
			ret = fail(err, errlen, "%s:%u: column 'type': '%.40s' is neither request nor prequery",
				   path, lineno, type);
			goto out;
		}
		if (*n == ncap) {
			size_t nc = ncap ? 2 * ncap : 1024;
			struct attr_msg *nv = realloc(*msgs, nc * sizeof(*nv));

			if (!nv) {
				ret = -ENOMEM;
				snprintf(err, errlen, "%s: out of memory", path);
				goto out;
			}
			*msgs = nv;
			ncap = nc;
		}
		(*msgs)[(*n)++] = m;
	}
	if (r < 0)
		ret = r;
out:
	if (ret) {
		free(*msgs);
		*msgs = NULL;
		*n = 0;
	}
	free(line);
	free(hdr);
	fclose(f);
	return ret;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct cli_row *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_time(const void *a, const void *b)
{
	const struct cli_row *x = a, *y = b;

	if (x->srv_recv_ns != y->srv_recv_ns)
		return (x->srv_recv_ns > y->srv_recv_ns) - (x->srv_recv_ns < y->srv_recv_ns);
	return (x->srv_send_ns > y->srv_send_ns) - (x->srv_send_ns < y->srv_send_ns);
}

int reqlog_read_client(const char *path, struct cli_rows *c, char *err,
		       size_t errlen)
{
	char *line = NULL, *hdr = NULL, *names[MAX_FIELDS], *fields[MAX_FIELDS];
	size_t cap = 0, hcap = 0, ncap = 0;
	unsigned int lineno = 1;
	int ncols, c_seq, c_lat, c_recv, c_send, c_lead, r, ret = 0;
	FILE *f = open_csv(path, &hdr, &hcap, names, &ncols, err, errlen);

	memset(c, 0, sizeof(*c));
	if (!f) {
		free(hdr);
		return -EINVAL;
	}
	c_seq = csvr_col(names, ncols, "seq");
	c_lat = csvr_col(names, ncols, "latency_ns");
	c_recv = csvr_col(names, ncols, "server_recv_ns");
	c_send = csvr_col(names, ncols, "server_send_ns");
	c_lead = csvr_col(names, ncols, "prequery_lead_ns");	/* optional */
	if (c_seq != 0 || c_lat < 0 || c_recv < 0 || c_send < 0) {
		ret = fail(err, errlen, "%s is not a client requests.csv (seq,...,latency_ns,...,server_recv_ns,server_send_ns)",
			   path);
		goto out;
	}
	while ((r = next_row(f, path, &lineno, &line, &cap, fields, ncols, err,
			     errlen)) > 0) {
		struct cli_row row = { .line = lineno };

		if (field_u64(path, lineno, fields, names, c_seq, 0, &row.seq, err, errlen) ||
		    field_u64(path, lineno, fields, names, c_lat, 1, &row.latency_ns, err, errlen) ||
		    field_u64(path, lineno, fields, names, c_recv, 1, &row.srv_recv_ns, err, errlen) ||
		    field_u64(path, lineno, fields, names, c_send, 1, &row.srv_send_ns, err, errlen) ||
		    (c_lead >= 0 &&
		     field_u64(path, lineno, fields, names, c_lead, 1, &row.pq_lead_ns, err, errlen))) {
			ret = -EINVAL;
			goto out;
		}
		if (c->n == ncap) {
			size_t nc = ncap ? 2 * ncap : 1024;
			struct cli_row *nv = realloc(c->by_seq, nc * sizeof(*nv));

			if (!nv) {
				ret = -ENOMEM;
				snprintf(err, errlen, "%s: out of memory", path);
				goto out;
			}
			c->by_seq = nv;
			ncap = nc;
		}
		c->by_seq[c->n++] = row;
	}
	if (r < 0) {
		ret = r;
		goto out;
	}
	c->by_time = malloc((c->n ? c->n : 1) * sizeof(*c->by_time));
	if (!c->by_time) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	if (c->n)
		memcpy(c->by_time, c->by_seq, c->n * sizeof(*c->by_time));
	if (c->n) {	/* qsort of a NULL array is undefined (fuzzing) */
		qsort(c->by_seq, c->n, sizeof(*c->by_seq), cmp_seq);
		qsort(c->by_time, c->n, sizeof(*c->by_time), cmp_time);
	}
	for (size_t i = 1; i < c->n; i++) {
		const struct cli_row *a = &c->by_seq[i - 1], *b = &c->by_seq[i];

		if (a->seq == b->seq) {
			ret = fail(err, errlen, "%s:%u: seq %llu again (first on line %u)",
				   path, a->line > b->line ? a->line : b->line,
				   (unsigned long long)a->seq,
				   a->line < b->line ? a->line : b->line);
			goto out;
		}
	}
out:
	if (ret)
		reqlog_client_free(c);
	free(line);
	free(hdr);
	fclose(f);
	return ret;
}

void reqlog_client_free(struct cli_rows *c)
{
	free(c->by_seq);
	free(c->by_time);
	memset(c, 0, sizeof(*c));
}

const struct cli_row *reqlog_by_seq(const struct cli_rows *c, uint64_t seq)
{
	struct cli_row key = { .seq = seq };

	if (!c->n)
		return NULL;
	return bsearch(&key, c->by_seq, c->n, sizeof(key), cmp_seq);
}

const struct cli_row *reqlog_by_times(const struct cli_rows *c,
				      uint64_t recv_ns, uint64_t send_ns)
{
	struct cli_row key = { .srv_recv_ns = recv_ns, .srv_send_ns = send_ns };
	const struct cli_row *r;

	if (!c->n || !recv_ns || !send_ns)
		return NULL;
	r = bsearch(&key, c->by_time, c->n, sizeof(key), cmp_time);
	/* Two rows with the same times: no way to tell them apart. */
	if (r && ((r > c->by_time && !cmp_time(r - 1, r)) ||
		  (r + 1 < c->by_time + c->n && !cmp_time(r + 1, r))))
		return NULL;
	return r;
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
