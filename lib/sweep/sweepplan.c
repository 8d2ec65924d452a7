// SPDX-License-Identifier: GPL-2.0
/*
 * sweepplan: the runs of a sweep (see sweepplan.h). Values come from a
 * resolved, type-checked spec; plan lines read back are data from disk
 * and checked word by word.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "prng.h"
#include "sweepplan.h"

/* More runs than this is a spec mistake, not a sweep anyone will wait for. */
#define MAX_POINTS 100000ul
#define MAX_RUNS 1000000ul

enum {
	D_DIST, D_INTERVAL, D_PREQUERY, D_WARMUP, D_CSTATES, D_SERVICE,
	D_TIERS, D_CLOSED, D_AT, D_ACK, D_RECEIVER, D_WUMODE, D_SLACK,
	D_SCS, D_CCS, D_MCS, D_CPU, D_DELAY, D_WORK, D_HELPER, D_BACKEND,
};

struct dimdef {
	const char *name;	/* plan key and sweep.csv column */
	int key;		/* enum sweepspec_key */
	const char *abbr;	/* in point names */
};

static const struct dimdef dims[SWEEPPLAN_NDIMS] = {
	[D_DIST] = { "dist", SK_DIST, "dist" },
	[D_INTERVAL] = { "interval_us", SK_INTERVAL_US, "int" },
	[D_PREQUERY] = { "prequery", SK_PREQUERY, "pq" },
	[D_WARMUP] = { "warmup", SK_WARMUP, "wu" },
	[D_CSTATES] = { "cstates", SK_CSTATES, "cs" },
	[D_SERVICE] = { "service_us", SK_SERVICE_US, "svc" },
	[D_TIERS] = { "tiers", SK_TIERS, "tiers" },
	[D_CLOSED] = { "closed", SK_CLOSED, "closed" },
	[D_AT] = { "prequery_at", SK_PREQUERY_AT, "at" },
	[D_ACK] = { "prequery_ack", SK_PREQUERY_ACK, "ack" },
	[D_RECEIVER] = { "prequery_receiver", SK_PREQUERY_RECEIVER, "rcv" },
	[D_WUMODE] = { "warmup_mode", SK_WARMUP_MODE, "wum" },
	[D_SLACK] = { "timer_slack_ns", SK_TIMER_SLACK_NS, "slack" },
	[D_SCS] = { "server_cstates", SK_SERVER_CSTATES, "scs" },
	[D_CCS] = { "client_cstates", SK_CLIENT_CSTATES, "ccs" },
	[D_MCS] = { "midtier_cstates", SK_MIDTIER_CSTATES, "mcs" },
	[D_CPU] = { "cpu", SK_CPU, "cpu" },
	[D_DELAY] = { "delay", SK_DELAY, "delay" },
	[D_WORK] = { "work_us", SK_WORK_US, "work" },
	[D_HELPER] = { "helper_wait", SK_HELPER_WAIT, "hw" },
	[D_BACKEND] = { "backend", SK_BACKEND, "be" },
};

const char *const sweepplan_dims[SWEEPPLAN_NDIMS] = {
	"dist", "interval_us", "prequery", "warmup", "cstates", "service_us",
	"tiers", "closed", "prequery_at", "prequery_ack", "prequery_receiver",
	"warmup_mode", "timer_slack_ns", "server_cstates", "client_cstates",
	"midtier_cstates", "cpu", "delay", "work_us", "helper_wait",
	"backend",
};

int sweepplan_dim(const char *name)
{
	for (int d = 0; d < SWEEPPLAN_NDIMS; d++)
		if (sweepspec_same_key(dims[d].name, name))
			return d;
	return -1;
}

/* A spec value's words, split in place in a copy. */
struct words {
	char *buf;
	char **w;
	size_t n;
};

static int split(const char *v, struct words *ws)
{
	size_t cap = 1;
	char *save = NULL, *t;

	ws->buf = strdup(v);
	for (const char *p = v; *p; p++)
		cap += *p == ' ' || *p == '\t' || *p == '\n';
	ws->w = calloc(cap, sizeof(*ws->w));
	ws->n = 0;
	if (!ws->buf || !ws->w)
		return -ENOMEM;
	for (t = strtok_r(ws->buf, " \t\n", &save); t;
	     t = strtok_r(NULL, " \t\n", &save))
		ws->w[ws->n++] = t;
	return 0;
}

static void words_free(struct words *ws)
{
	free(ws->buf);
	free(ws->w);
}

/* Whether dimension D's spec list is its single default value. */
static int is_default(const struct sweepspec *s, int d)
{
	const char *v = s->val[dims[d].key];

	return !strcmp(v, sweepspec_default(dims[d].key));
}

/* The values of one point after the collapse rules (sweepplan.h). */
static void collapse(const char **v)
{
	int three = !strcmp(v[D_TIERS], "3");

	if (three)
		v[D_PREQUERY] = "off";
	if (!strcmp(v[D_PREQUERY], "off"))
		v[D_AT] = v[D_ACK] = v[D_RECEIVER] = "-";
	if (!three)
		v[D_DELAY] = v[D_WORK] = v[D_HELPER] = v[D_MCS] = "-";
	else if (!strcmp(v[D_DELAY], "off"))
		v[D_HELPER] = "-";
	if (!strcmp(v[D_WARMUP], "0"))
		v[D_WUMODE] = "-";
	/* a real server: no service time to ask for, every pre-query is
	 * answered, and pre-queries go to its own port */
	if (strcmp(v[D_BACKEND], "wakebench")) {
		v[D_SERVICE] = "-";
		if (strcmp(v[D_PREQUERY], "off"))
			v[D_ACK] = v[D_RECEIVER] = "-";
	}
	/* an empty per-side list: that side follows cstates */
	if (!*v[D_SCS])
		v[D_SCS] = v[D_CSTATES];
	if (!*v[D_CCS])
		v[D_CCS] = v[D_CSTATES];
	if (three && !*v[D_MCS])
		v[D_MCS] = v[D_CSTATES];
	/* unpinned, a tier's setting would apply to every CPU: the
	 * server's alone applies */
	if (!strcmp(v[D_CPU], "none")) {
		v[D_CCS] = "-";
		if (three)
			v[D_MCS] = "-";
	}
}

/*
 * Whether dimension D is in point names: the six original ones always;
 * another one when it applies and its spec list is not its single
 * default (for a per-side C-state key: when it is given at all).
 */
static int in_name(const struct sweepspec *s, int d, const char *v)
{
	if (d < SWEEPPLAN_NLEGACY)
		return 1;
	if (!strcmp(v, "-"))
		return 0;
	if (d == D_SCS || d == D_CCS || d == D_MCS)
		return *s->val[dims[d].key] != '\0';
	return !is_default(s, d);
}

/* The point's name and values, in one allocation owned by the plan. */
static char *point_new(const struct sweepspec *s, const char **v)
{
	size_t len = 0, off;
	char *b;

	for (int d = 0; d < SWEEPPLAN_NDIMS; d++)
		len += strlen(dims[d].abbr) + 2 * strlen(v[d]) + 4;
	b = malloc(len + 1);
	if (!b)
		return NULL;
	off = 0;
	for (int d = 0; d < SWEEPPLAN_NDIMS; d++) {
		if (!in_name(s, d, v[d]))
			continue;
		off += (size_t)sprintf(b + off, "%s%s-%s", off ? "_" : "",
				       dims[d].abbr, v[d]);
	}
	b[off++] = '\0';
	return b;
}

static int grow(struct sweepplan *p)
{
	struct sweepplan_run *r;
	size_t cap;

	if (p->n < p->cap)
		return 0;
	cap = p->cap ? 2 * p->cap : 64;
	r = realloc(p->run, cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	p->run = r;
	p->cap = cap;
	return 0;
}

/* a point of the matrix: its name (owned by the plan) and values */
struct point {
	char *name;
	const char *v[SWEEPPLAN_NDIMS];
	size_t idx;
	int dup;
};

static int by_name(const void *a, const void *b)
{
	const struct point *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int by_idx(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Each run owns copies of its point's name and values. */
int sweepplan_build(const struct sweepspec *s, unsigned long from,
		    unsigned long to, struct sweepplan *p)
{
	struct words ws[SWEEPPLAN_NDIMS];
	size_t idx[SWEEPPLAN_NDIMS] = { 0 }, npts = 1, k = 0;
	struct point *pts = NULL;
	int ret = -ENOMEM;

	memset(ws, 0, sizeof(ws));
	for (int d = 0; d < SWEEPPLAN_NDIMS; d++) {
		if (split(s->val[dims[d].key], &ws[d]))
			goto out;
		if (!ws[d].n) {	/* an empty per-side list: follows cstates */
			ws[d].w[0] = ws[d].buf;
			ws[d].n = 1;
		}
		npts *= ws[d].n;
		if (npts > MAX_POINTS) {
			ret = -E2BIG;
			goto out;
		}
	}
	if (to >= from && to - from >= MAX_RUNS / npts) {
		ret = -E2BIG;
		goto out;
	}
	pts = calloc(npts, sizeof(*pts));
	if (!pts)
		goto out;
	/* every combination, the last dimension fastest */
	for (k = 0; k < npts; k++) {
		size_t rem = k;

		for (int d = SWEEPPLAN_NDIMS - 1; d >= 0; d--) {
			idx[d] = rem % ws[d].n;
			rem /= ws[d].n;
			pts[k].v[d] = ws[d].w[idx[d]];
		}
		collapse(pts[k].v);
		pts[k].idx = k;
		pts[k].name = point_new(s, pts[k].v);
		if (!pts[k].name)
			goto out;
		/* a directory name: NAME_MAX */
		if (strlen(pts[k].name) > SWEEPPLAN_NAME_MAX) {
			ret = -ENAMETOOLONG;
			k++;
			goto out;
		}
	}
	/* collapsed duplicates: the first in matrix order stays */
	qsort(pts, npts, sizeof(*pts), by_name);
	for (k = 1; k < npts; k++)
		pts[k].dup = !strcmp(pts[k].name, pts[k - 1].name);
	qsort(pts, npts, sizeof(*pts), by_idx);
	for (k = 0; k < npts; k++) {
		if (pts[k].dup)
			continue;
		for (unsigned long r = from; r <= to && to >= from; r++) {
			struct sweepplan_run *run;

			if (grow(p))
				goto out;
			run = &p->run[p->n];
			memset(run, 0, sizeof(*run));
			run->point = strdup(pts[k].name);
			if (!run->point)
				goto out;
			run->rep = r;
			p->n++;
			for (int d = 0; d < SWEEPPLAN_NDIMS; d++) {
				run->val[d] = strdup(pts[k].v[d]);
				if (!run->val[d])
					goto out;
			}
		}
	}
	ret = 0;
out:
	if (pts)
		for (size_t i = 0; i < npts; i++)
			free(pts[i].name);
	free(pts);
	for (int d = 0; d < SWEEPPLAN_NDIMS; d++)
		words_free(&ws[d]);
	return ret;
}

void sweepplan_estimate(const struct sweepspec *s, const struct sweepplan *p,
			size_t from, struct sweepplan_estimate *e)
{
	const char *dur = s->val[SK_DURATION], *wgap = s->val[SK_WARMUP_INTERVAL_US];
	double reqs = strtod(s->val[SK_REQUESTS], NULL);
	int agents = sweepspec_agents(s);

	memset(e, 0, sizeof(*e));
	for (size_t i = from; i < p->n; i++) {
		const struct sweepplan_run *r = &p->run[i];
		double gap = strtod(r->val[D_INTERVAL], NULL) / 1e6, wu;

		if (!strcmp(r->val[D_AT], "sleep-after"))
			gap += strtod(r->val[D_PREQUERY], NULL) / 1e6;
		e->measure_s += *dur ? strtod(dur, NULL) : reqs * gap;
		wu = strtod(r->val[D_WARMUP], NULL);
		if (strcmp(r->val[D_WUMODE], "burst"))
			e->warmup_s += wu * (*wgap ? strtod(wgap, NULL) / 1e6 : gap);
		e->overhead_s += strcmp(r->val[D_BACKEND], "memcached") &&
				 strcmp(r->val[D_BACKEND], "redis") ?
				 SWEEPPLAN_OVERHEAD_S : SWEEPPLAN_OVERHEAD_KV_S;
		/* auto: timed before each run; about 1 s over a fast ssh */
		if (agents > 1)
			e->margin_s += strcmp(s->val[SK_START_MARGIN_MS], "auto") ?
				       strtod(s->val[SK_START_MARGIN_MS], NULL) / 1e3 :
				       SWEEPPLAN_AUTO_MARGIN_S;
		e->runs++;
	}
	e->total_s = e->measure_s + e->warmup_s + e->overhead_s + e->margin_s;
}

void sweepplan_shuffle(struct sweepplan *p, size_t from, uint64_t seed)
{
	struct prng g;

	prng_seed(&g, seed);
	for (size_t i = p->n; i > from + 1; i--) {
		size_t j = from + (size_t)(prng_next(&g) % (i - from));
		struct sweepplan_run t = p->run[i - 1];

		p->run[i - 1] = p->run[j];
		p->run[j] = t;
	}
}

/* A run's place in the pairs order: its repetition, then its place in
 * P, read backwards in even repetitions. */
struct pair_key {
	unsigned long rep;
	size_t pos;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair_key *x = a, *y = b;

	if (x->rep != y->rep)
		return x->rep < y->rep ? -1 : 1;
	if (x->rep % 2)
		return x->pos < y->pos ? -1 : x->pos > y->pos;
	return x->pos > y->pos ? -1 : x->pos < y->pos;
}

int sweepplan_pairs(struct sweepplan *p, size_t from)
{
	size_t n = from < p->n ? p->n - from : 0;
	struct pair_key *k;
	struct sweepplan_run *r;

	if (n < 2)
		return 0;
	k = calloc(n, sizeof(*k));
	r = calloc(n, sizeof(*r));
	if (!k || !r) {
		free(k);
		free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = (struct pair_key){ p->run[from + i].rep, i };
	qsort(k, n, sizeof(*k), pair_cmp);
	for (size_t i = 0; i < n; i++)
		r[i] = p->run[from + k[i].pos];
	memcpy(p->run + from, r, n * sizeof(*r));
	free(k);
	free(r);
	return 0;
}

int sweepplan_write(const struct sweepplan *p, size_t from, FILE *f)
{
	for (size_t i = from; i < p->n; i++) {
		fprintf(f, "%s %lu", p->run[i].point, p->run[i].rep);
		for (int d = 0; d < SWEEPPLAN_NDIMS; d++)
			fprintf(f, " %s=%s", dims[d].name, p->run[i].val[d]);
		fputc('\n', f);
	}
	return fflush(f) || ferror(f) ? -EIO : 0;
}

void sweepplan_free(struct sweepplan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->run[i].point);
		for (int d = 0; d < SWEEPPLAN_NDIMS; d++)
			free(p->run[i].val[d]);
	}
	free(p->run);
	memset(p, 0, sizeof(*p));
}

/* a directory name: letters, digits and . _ - = + */
static int plain_name(const char *w)
{
	size_t n = strlen(w);

	return n && n <= SWEEPPLAN_NAME_MAX && w[0] != '.' && w[0] != '-' &&
	       strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789._-=+") == n;
}

static int plain_value(const char *w)
{
	size_t n = strlen(w);

	return n && n < 256 && !strpbrk(w, ",\"/\\") &&
	       strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789._-=+") == n;
}

int sweepplan_parse_line(char *line, struct sweepplan_run *r,
			 const char *name, unsigned long lineno, char *err,
			 size_t errlen)
{
	char *w[SWEEPPLAN_NDIMS + 3], *save = NULL, *t, *end;
	size_t n = 0;
	int keyed;

	memset(r, 0, sizeof(*r));
	for (int d = 0; d < SWEEPPLAN_NDIMS; d++)
		r->val[d] = "";
	for (t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (n == SWEEPPLAN_NDIMS + 2) {
			errmsg_set(err, errlen, "%s:%lu: more than %d words", name, lineno,
			    SWEEPPLAN_NDIMS + 2);
			return -EINVAL;
		}
		w[n++] = t;
	}
	keyed = n > 2 && strchr(w[2], '=');
	if (n < 2 || (!keyed && n != 2 + SWEEPPLAN_NLEGACY)) {
		errmsg_set(err, errlen, "%s:%lu: expected 'POINT REP key=value...'", name,
		    lineno);
		return -EINVAL;
	}
	if (!plain_name(w[0])) {
		errmsg_set(err, errlen, "%s:%lu: point '%.64s' is not a plain name", name,
		    lineno, w[0]);
		return -EINVAL;
	}
	errno = 0;
	r->rep = strtoul(w[1], &end, 10);
	if (!isdigit((unsigned char)w[1][0]) || *end || errno || r->rep < 1 ||
	    r->rep > 999999999ul) {
		errmsg_set(err, errlen, "%s:%lu: rep '%.32s' is not a whole number", name,
		    lineno, w[1]);
		return -EINVAL;
	}
	r->point = w[0];
	for (size_t i = 2; i < n; i++) {
		char *v = w[i];
		int d = (int)i - 2;

		if (keyed) {
			char *eq = strchr(w[i], '=');

			if (!eq) {
				errmsg_set(err, errlen, "%s:%lu: '%.64s' is not key=value",
				    name, lineno, w[i]);
				return -EINVAL;
			}
			*eq = '\0';
			v = eq + 1;
			d = sweepplan_dim(w[i]);
			if (d < 0 || *r->val[d]) {
				errmsg_set(err, errlen, "%s:%lu: %s key '%.64s'", name,
				    lineno, d < 0 ? "unknown" : "repeated", w[i]);
				return -EINVAL;
			}
		}
		if (!plain_value(v)) {
			errmsg_set(err, errlen, "%s:%lu: %s value '%.64s' is not a plain word",
			    name, lineno, dims[d].name, v);
			return -EINVAL;
		}
		r->val[d] = v;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* TEXT's lines (a copy, split), sorted; NULL when out of memory */
static char **sorted_lines(const char *text, size_t len, size_t *n, char **buf)
{
	size_t cap = 1;
	char **l, *save = NULL, *t;

	*buf = malloc(len + 1);
	if (!*buf)
		return NULL;
	memcpy(*buf, text, len);
	(*buf)[len] = '\0';
	for (size_t i = 0; i < len; i++)
		cap += text[i] == '\n';
	l = calloc(cap, sizeof(*l));
	if (!l)
		return NULL;
	*n = 0;
	for (t = strtok_r(*buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
		l[(*n)++] = t;
	qsort(l, *n, sizeof(*l), cmp_str);
	return l;
}

int sweepplan_check(const struct sweepspec *s, const char *text, size_t len,
		    const char *name, char *err, size_t errlen)
{
	struct sweepplan p = { 0 };
	char *want = NULL, *bw = NULL, *bg = NULL, **lw = NULL, **lg = NULL;
	size_t wlen = 0, nw = 0, ng = 0;
	unsigned long reps = strtoul(s->val[SK_REPS], NULL, 10);
	FILE *f;
	int ret = -ENOMEM;

	if (memchr(text, '\0', len)) {
		errmsg_set(err, errlen, "%s holds a NUL byte", name);
		return -EINVAL;
	}
	/* every line ends in a newline, and none is empty: what is appended
	 * to the plan starts a line of its own, and every line is a run */
	if (!len || text[len - 1] != '\n' || text[0] == '\n' ||
	    memmem(text, len, "\n\n", 2)) {
		errmsg_set(err, errlen, "%s has an empty line or no final newline", name);
		return -EINVAL;
	}
	ret = sweepplan_build(s, 1, reps, &p);
	if (ret)
		goto out;
	ret = -ENOMEM;
	f = open_memstream(&want, &wlen);
	if (!f)
		goto out;
	sweepplan_write(&p, 0, f);
	if (fclose(f))
		goto out;
	lw = sorted_lines(want, wlen, &nw, &bw);
	lg = sorted_lines(text, len, &ng, &bg);
	if (!lw || !lg)
		goto out;
	ret = 0;
	for (size_t i = 0; i < nw || i < ng; i++) {
		if (i < nw && i < ng && !strcmp(lw[i], lg[i]))
			continue;
		errmsg_set(err, errlen, "%s is not the plan of its spec: %zu runs planned, %zu expected%s%.200s",
		    name, ng, nw, i < ng ? "; first that differs: " : "",
		    i < ng ? lg[i] : "");
		ret = -EINVAL;
		break;
	}
out:
	if (ret == -E2BIG)
		errmsg_set(err, errlen, "the sweep has too many runs (over %lu)", MAX_RUNS);
	if (ret == -ENAMETOOLONG)
		errmsg_set(err, errlen, "a point's name would be longer than %d bytes",
		    SWEEPPLAN_NAME_MAX);
	free(lw);
	free(lg);
	free(bw);
	free(bg);
	free(want);
	sweepplan_free(&p);
	return ret;
}
