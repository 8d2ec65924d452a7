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

#define SWEEPPLAN_COL_(id, opt, col, ...) col,
const char *const sweepplan_dims[SWEEPPLAN_NDIMS] = {
	SWEEPDIM_TABLE(SWEEPPLAN_COL_)
};
#undef SWEEPPLAN_COL_

int sweepplan_dim(const char *name)
{
	for (int d = 0; d < SWEEPPLAN_NDIMS; d++)
		if (sweepspec_same_key(sweepdim_table[d].col, name))
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

/*
 * Whether dimension D is in point names: the six first ones always;
 * another one when it applies and its spec list is not its single
 * default (one that follows another's value when empty: when it is
 * given at all).
 */
static int in_name(const struct sweepspec *s, int d, const char *v)
{
	const struct sweepdim *t = &sweepdim_table[d];

	if (d < SWEEPPLAN_NLEGACY)
		return 1;
	if (!strcmp(v, t->gone))
		return 0;
	if (t->follows)
		return *s->val[t->key] != '\0';
	return strcmp(s->val[t->key], t->def) != 0;
}

/*
 * V as a part of a directory name: a gap law's parameters ("onoff:20,80",
 * "gev:0.1,0.5") would not be a plain name, so ':' reads '-' and ','
 * reads '_'; other values are copied as they are, so the names of sweeps
 * made before laws had parameters do not change. Two values that would
 * read alike are refused by sweepplan_build (-ENOTUNIQ).
 */
static size_t name_part(char *b, const char *v)
{
	size_t n = 0;

	for (; *v; v++)
		b[n++] = *v == ':' ? '-' : *v == ',' ? '_' : *v;
	b[n] = '\0';
	return n;
}

/* The point's name and values, in one allocation owned by the plan. */
static char *point_new(const struct sweepspec *s, const char **v)
{
	size_t len = 0, off;
	char *b;

	for (int d = 0; d < SWEEPPLAN_NDIMS; d++)
		len += strlen(sweepdim_table[d].abbr) + 2 * strlen(v[d]) + 4;
	b = malloc(len + 1);
	if (!b)
		return NULL;
	off = 0;
	for (int d = 0; d < SWEEPPLAN_NDIMS; d++) {
		if (!in_name(s, d, v[d]))
			continue;
		off += (size_t)sprintf(b + off, "%s%s-", off ? "_" : "",
				       sweepdim_table[d].abbr);
		off += name_part(b + off, v[d]);
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

/* Whether two points of one name are one point (collapsed alike), not
 * two values that read alike in a name ("a:b" and "a-b"). */
static int same_values(const struct point *x, const struct point *y)
{
	for (int d = 0; d < SWEEPPLAN_NDIMS; d++)
		if (strcmp(x->v[d], y->v[d]))
			return 0;
	return 1;
}

/* Each run owns copies of its point's name and values. */
int sweepplan_build(const struct sweepspec *s, unsigned long from,
		    unsigned long to, struct sweepplan *p)
{
	struct words ws[SWEEPPLAN_NDIMS];
	size_t idx[SWEEPPLAN_NDIMS] = { 0 }, npts = 1, k = 0;
	struct point *pts = NULL;
	struct sweepdim_rules rules;
	int ret = -ENOMEM;

	memset(ws, 0, sizeof(ws));
	/* a table row whose rules cannot be read: a build mistake */
	if (sweepdim_rules(&rules, NULL, 0))
		return -EINVAL;
	for (int d = 0; d < SWEEPPLAN_NDIMS; d++) {
		if (split(s->val[sweepdim_table[d].key], &ws[d]))
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
		sweepdim_collapse(&rules, pts[k].v);
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
	for (k = 1; k < npts; k++) {
		pts[k].dup = !strcmp(pts[k].name, pts[k - 1].name);
		if (pts[k].dup && !same_values(&pts[k], &pts[k - 1])) {
			ret = -ENOTUNIQ;
			goto out;
		}
	}
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
		double gap = strtod(r->val[SWEEPDIM_INTERVAL_US], NULL) / 1e6, wu;

		if (!strcmp(r->val[SWEEPDIM_PREQUERY_AT], "sleep-after"))
			gap += strtod(r->val[SWEEPDIM_PREQUERY], NULL) / 1e6;
		e->measure_s += *dur ? strtod(dur, NULL) : reqs * gap;
		wu = strtod(r->val[SWEEPDIM_WARMUP], NULL);
		if (strcmp(r->val[SWEEPDIM_WARMUP_MODE], "burst"))
			e->warmup_s += wu * (*wgap ? strtod(wgap, NULL) / 1e6 : gap);
		e->overhead_s += strcmp(r->val[SWEEPDIM_BACKEND], "memcached") &&
				 strcmp(r->val[SWEEPDIM_BACKEND], "redis") ?
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
			fprintf(f, " %s=%s", sweepdim_table[d].col, p->run[i].val[d]);
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

/* ---- points this machine cannot apply (--skip-unsupported) ---- */

static int skip_find(const struct sweepplan_skips *sk, const char *point)
{
	for (size_t i = 0; i < sk->n; i++)
		if (!strcmp(sk->v[i].point, point))
			return 1;
	return 0;
}

/* POINT (LEN bytes) and WHY into SK, WHY on one line; 0 or -ENOMEM */
static int skip_add(struct sweepplan_skips *sk, const char *point, size_t len,
		    const char *why)
{
	struct sweepplan_skip *k;

	if (sk->n == sk->cap) {
		size_t ncap = sk->cap ? 2 * sk->cap : 8;

		k = realloc(sk->v, ncap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		sk->v = k;
		sk->cap = ncap;
	}
	k = &sk->v[sk->n];
	k->point = strndup(point, len);
	k->why = strdup(why);
	if (!k->point || !k->why) {
		free(k->point);
		free(k->why);
		return -ENOMEM;
	}
	for (char *c = k->why; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	sk->n++;
	return 0;
}

void sweepplan_drop_skipped(struct sweepplan *p, size_t from,
			    const struct sweepplan_skips *sk)
{
	size_t w = from;

	for (size_t i = from; i < p->n; i++) {
		if (!skip_find(sk, p->run[i].point)) {
			p->run[w++] = p->run[i];
			continue;
		}
		free(p->run[i].point);
		for (int d = 0; d < SWEEPPLAN_NDIMS; d++)
			free(p->run[i].val[d]);
	}
	p->n = w;
}

int sweepplan_skip_unsupported(const struct sweepspec *s, struct sweepplan *p,
			       size_t from, struct sweepplan_skips *sk)
{
	char why[512];

	/* every point has a run of the range's first repetition */
	for (size_t i = from; i < p->n; i++) {
		const struct sweepplan_run *r = &p->run[i];

		if (r->rep != p->run[from].rep || skip_find(sk, r->point) ||
		    !sweepspec_here_point(s, (const char *const *)r->val, why,
					  sizeof(why)))
			continue;
		if (skip_add(sk, r->point, strlen(r->point), why))
			return -ENOMEM;
	}
	sweepplan_drop_skipped(p, from, sk);
	return 0;
}

int sweepplan_write_skips(const struct sweepplan_skips *sk, FILE *f)
{
	for (size_t i = 0; i < sk->n; i++)
		fprintf(f, SWEEPPLAN_SKIP_TAG "%s: %s\n", sk->v[i].point, sk->v[i].why);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

int sweepplan_read_skips(const char *text, size_t len,
			 struct sweepplan_skips *sk)
{
	const size_t tl = strlen(SWEEPPLAN_SKIP_TAG);

	for (const char *l = text, *end = text + len; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = nl ? (size_t)(nl - l) : (size_t)(end - l);
		const char *colon = memchr(l, ':', n);

		if (n > tl && !memcmp(l, SWEEPPLAN_SKIP_TAG, tl) && colon &&
		    colon > l + tl) {
			char why[512];
			size_t wl = n - (size_t)(colon - l) - 1;

			wl = wl < sizeof(why) ? wl : sizeof(why) - 1;
			memcpy(why, colon + 1, wl);
			why[wl] = '\0';
			if (skip_add(sk, l + tl, (size_t)(colon - l) - tl,
				     why + (why[0] == ' ')))
				return -ENOMEM;
		}
		l += n + 1;
	}
	return 0;
}

void sweepplan_skips_free(struct sweepplan_skips *sk)
{
	for (size_t i = 0; i < sk->n; i++) {
		free(sk->v[i].point);
		free(sk->v[i].why);
	}
	free(sk->v);
	memset(sk, 0, sizeof(*sk));
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

	return n && n < 256 &&
	       strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789._-=+:,") == n;
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
			    name, lineno, sweepdim_table[d].col, v);
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
	/* a '#' line is a note (a point skipped), not a run */
	for (t = strtok_r(*buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
		if (*t != '#')
			l[(*n)++] = t;
	qsort(l, *n, sizeof(*l), cmp_str);
	return l;
}

int sweepplan_check(const struct sweepspec *s, const char *text, size_t len,
		    const char *name, char *err, size_t errlen)
{
	struct sweepplan p = { 0 };
	struct sweepplan_skips sk = { 0 };
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
	/* the points it skipped are not its runs */
	if (sweepplan_read_skips(text, len, &sk))
		goto out;
	sweepplan_drop_skipped(&p, 0, &sk);
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
	if (ret == -ENOTUNIQ)
		errmsg_set(err, errlen, "%s", SWEEPPLAN_NOTUNIQ_MSG);
	free(lw);
	free(lg);
	free(bw);
	free(bg);
	free(want);
	sweepplan_free(&p);
	sweepplan_skips_free(&sk);
	return ret;
}
