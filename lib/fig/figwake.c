// SPDX-License-Identifier: GPL-2.0
/* figwake: the report's figures of wake result directories (figwake.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csvread.h"
#include "csvtable.h"
#include "errmsg.h"
#include "figgp.h"
#include "figwake.h"
#include "rfile.h"

#define MAXCOL 64
#define LINE_MAX_LEN 4096
#define CDF_POINTS 400
#define SCATTER_POINTS 3000
#define MAX_SMALL (64u << 20)

static const char *const srcname[] = { "timer", "ipi", "packet" };

struct curve {			/* figure 12: one (dir, state, source) */
	int dir, state, src;
	double *v;
	size_t n, cap;
};

struct pt {
	double silent, lat;
	int state;
};

struct spanel {			/* figure 13: one (dir, source) */
	int dir, src;
	struct pt *p;
	size_t n, cap;
};

struct kstate {			/* a state of a directory, in order seen */
	int dir;
	char name[48];
	double lat, res;
};

struct wk {
	struct curve *c;
	size_t nc, capc;
	struct spanel *s;
	size_t ns, caps;
	struct kstate *k;
	size_t nk, capk;
	int any_silent;
	char *err;
	size_t errlen;
};

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *np;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 16;
	np = realloc(*p, ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static int state_of(struct wk *w, int dir, const char *name)
{
	for (size_t i = 0; i < w->nk; i++)
		if (w->k[i].dir == dir && !strcmp(w->k[i].name, name))
			return (int)i;
	if (grow((void **)&w->k, &w->capk, w->nk, sizeof(*w->k)))
		return -ENOMEM;
	w->k[w->nk] = (struct kstate){ .dir = dir, .lat = NAN, .res = NAN };
	snprintf(w->k[w->nk].name, sizeof(w->k[w->nk].name), "%s", name);
	return (int)w->nk++;
}

/* One datapoint into its curve and its panel. */
static int add_point(struct wk *w, int dir, int state, int src, double lat,
		     double silent)
{
	struct curve *c = NULL;
	struct spanel *s = NULL;

	for (size_t i = 0; i < w->nc && !c; i++)
		if (w->c[i].state == state && w->c[i].src == src)
			c = &w->c[i];
	if (!c) {
		if (grow((void **)&w->c, &w->capc, w->nc, sizeof(*w->c)))
			return -ENOMEM;
		c = &w->c[w->nc++];
		*c = (struct curve){ .dir = dir, .state = state, .src = src };
	}
	if (grow((void **)&c->v, &c->cap, c->n, sizeof(*c->v)))
		return -ENOMEM;
	c->v[c->n++] = lat;
	for (size_t i = 0; i < w->ns && !s; i++)
		if (w->s[i].dir == dir && w->s[i].src == src)
			s = &w->s[i];
	if (!s) {
		if (grow((void **)&w->s, &w->caps, w->ns, sizeof(*w->s)))
			return -ENOMEM;
		s = &w->s[w->ns++];
		*s = (struct spanel){ .dir = dir, .src = src };
	}
	if (grow((void **)&s->p, &s->cap, s->n, sizeof(*s->p)))
		return -ENOMEM;
	s->p[s->n++] = (struct pt){ silent, lat, state };
	w->any_silent |= silent > 0;
	return 0;
}

/* The columns of wake.csv that the figures read. */
enum { C_SOURCE, C_STATE, C_LAT, C_SILENT, C_BUSY, NC };

/* One row of wake.csv (fields fl, nf of them). */
static int take_row(struct wk *w, int dir, char **fl, int nf, const int *col,
		    const char *path, size_t line)
{
	uint64_t lat, silent;
	int src = -1, st;

	for (int k = 0; k < NC; k++) {
		if (col[k] >= nf) {
			errmsg_set(w->err, w->errlen, "%s:%zu: a short row", path, line);
			return -EINVAL;
		}
	}
	if (!strcmp(fl[col[C_STATE]], "busy") || !strcmp(fl[col[C_STATE]], "mixed") ||
	    !strcmp(fl[col[C_BUSY]], "1"))
		return 0;
	for (int k = 0; k < 3; k++)
		if (!strcmp(fl[col[C_SOURCE]], srcname[k]))
			src = k;
	if (src < 0) {
		errmsg_set(w->err, w->errlen, "%s:%zu: source '%s' is not timer, ipi or packet",
			   path, line, fl[col[C_SOURCE]]);
		return -EINVAL;
	}
	if (csvr_u64(fl[col[C_LAT]], UINT64_MAX, &lat, w->err, w->errlen) ||
	    csvr_u64(fl[col[C_SILENT]], UINT64_MAX, &silent, w->err, w->errlen)) {
		char why[256];

		snprintf(why, sizeof(why), "%s", w->err);
		errmsg_set(w->err, w->errlen, "%s:%zu: %s", path, line, why);
		return -EINVAL;
	}
	st = state_of(w, dir, fl[col[C_STATE]]);
	if (st < 0)
		return st;
	return add_point(w, dir, st, src, (double)lat / 1e3, (double)silent / 1e3);
}

/* DIR/wake.csv, streamed. -ENOENT: none. */
static int read_wake(struct wk *w, int dir, const char *d)
{
	static const char *const names[NC] = {
		"source", "state", "latency_ns", "silent_ns", "busy",
	};
	char path[4096], *line = NULL, *fl[MAXCOL];
	size_t cap = 0, lineno = 0;
	int col[NC], nf, ret = 0;
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/wake.csv", d);
	/* a result directory is input: no link followed, a regular file only */
	f = rfile_fopen_quiet(path);
	if (!f) {
		int e = errno ? errno : EINVAL;

		if (e == ENOENT)
			return -ENOENT;
		errmsg_set(w->err, w->errlen, "%s: %s", path, rfile_strerror(e));
		return -e;
	}
	while (!ret && (len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (len > LINE_MAX_LEN) {
			errmsg_set(w->err, w->errlen, "%s:%zu: a line too long", path, lineno);
			ret = -EINVAL;
			break;
		}
		line[strcspn(line, "\r\n")] = 0;
		nf = csvr_split(line, fl, MAXCOL);
		if (lineno > 1) {
			ret = take_row(w, dir, fl, nf, col, path, lineno);
			continue;
		}
		for (int k = 0; k < NC && !ret; k++) {
			col[k] = csvr_col(fl, nf, names[k]);
			if (col[k] < 0) {
				errmsg_set(w->err, w->errlen, "%s: no column %s", path, names[k]);
				ret = -EINVAL;
			}
		}
	}
	free(line);
	fclose(f);
	return ret;
}

/* The kernel's exit latency and target residency of dir's states, from
 * its summary.csv (rows without them leave NaN). */
static int read_kernel(struct wk *w, int dir, const char *d)
{
	char path[4096];
	struct csvtable t;
	int cs, cl, cr, ret;

	snprintf(path, sizeof(path), "%s/summary.csv", d);
	ret = csvtable_read(path, MAX_SMALL, &t, w->err, w->errlen);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	cs = csvtable_col(&t, "state");
	cl = csvtable_col(&t, "kernel_latency_us");
	cr = csvtable_col(&t, "kernel_residency_us");
	for (size_t r = 0; r < t.n && cs >= 0 && !ret; r++) {
		for (size_t i = 0; i < w->nk; i++) {
			struct kstate *k = &w->k[i];
			double v;

			if (k->dir != dir || strcmp(k->name, csvtable_get(&t, r, cs)))
				continue;
			if (csvtable_getnum(&t, r, cl, &v, w->err, w->errlen) > 0)
				k->lat = v;
			if (csvtable_getnum(&t, r, cr, &v, w->err, w->errlen) > 0)
				k->res = v;
		}
	}
	csvtable_free(&t);
	return 0;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int curve_cmp(const void *a, const void *b)
{
	const struct curve *x = a, *y = b;

	return x->state != y->state ? x->state - y->state : x->src - y->src;
}

/* A panel's title: the state, after the directory's label when several. */
static void title(const struct figwake_src *src, size_t n, int dir,
		  const char *what, char *buf, size_t len)
{
	if (n > 1)
		snprintf(buf, len, "%s: %s", src[dir].label, what);
	else
		snprintf(buf, len, "%s", what);
}

/* Figure 12's data and variables. */
static int write_cdf(struct wk *w, const struct figwake_src *src, size_t n,
		     FILE *dat, FILE *vars)
{
	char buf[256];
	size_t np = 0;

	qsort(w->c, w->nc, sizeof(*w->c), curve_cmp);
	figgp_array(vars, "pname", w->nk);
	figgp_array(vars, "plat", w->nk);
	figgp_array(vars, "pfirst", w->nk);
	figgp_array(vars, "plast", w->nk);
	figgp_array(vars, "cpanel", w->nc);
	figgp_array(vars, "csrc", w->nc);
	figgp_array(vars, "cname", w->nc);
	for (size_t i = 0; i < w->nc; i++) {
		struct curve *c = &w->c[i];
		size_t k = c->n < CDF_POINTS ? c->n : CDF_POINTS;

		if (!i || c->state != w->c[i - 1].state) {
			np++;
			title(src, n, c->dir, w->k[c->state].name, buf, sizeof(buf));
			figgp_elem_str(vars, "pname", np, buf);
			figgp_elem_num(vars, "plat", np, w->k[c->state].lat);
			figgp_elem_num(vars, "pfirst", np, (double)i + 1);
		}
		/* a panel's curves are consecutive: first .. last */
		figgp_elem_num(vars, "plast", np, (double)i + 1);
		qsort(c->v, c->n, sizeof(*c->v), dcmp);
		if (i)
			fputs("\n\n", dat);
		for (size_t j = 0; j < k; j++) {
			size_t idx = k > 1 ? j * (c->n - 1) / (k - 1) : c->n - 1;

			figgp_num(dat, c->v[idx]);
			fputc(' ', dat);
			figgp_num(dat, (double)(idx + 1) / (double)c->n);
			fputc('\n', dat);
		}
		figgp_elem_num(vars, "cpanel", i + 1, (double)np);
		figgp_elem_num(vars, "csrc", i + 1, c->src + 1);
		snprintf(buf, sizeof(buf), "%s (n=%zu)", srcname[c->src], c->n);
		figgp_elem_str(vars, "cname", i + 1, buf);
	}
	figgp_var_num(vars, "npanels", (double)np);
	figgp_var_num(vars, "ncurves", (double)w->nc);
	return (int)w->nc;
}

/* Figure 13's data and variables. */
static int write_silent(struct wk *w, const struct figwake_src *src, size_t n,
			FILE *dat, FILE *vars)
{
	char buf[256];
	size_t points = 0;
	double smax = 0;

	figgp_array(vars, "pname", w->ns);
	figgp_array(vars, "pdir", w->ns);
	figgp_array(vars, "sname", w->nk);
	figgp_array(vars, "sdir", w->nk);
	figgp_array(vars, "slat", w->nk);
	figgp_array(vars, "sres", w->nk);
	for (size_t i = 0; i < w->nk; i++) {
		figgp_elem_str(vars, "sname", i + 1, w->k[i].name);
		figgp_elem_num(vars, "sdir", i + 1, w->k[i].dir + 1);
		figgp_elem_num(vars, "slat", i + 1, w->k[i].lat);
		figgp_elem_num(vars, "sres", i + 1, w->k[i].res);
	}
	for (size_t i = 0; i < w->ns; i++) {
		struct spanel *s = &w->s[i];
		size_t step = (s->n + SCATTER_POINTS - 1) / SCATTER_POINTS;

		title(src, n, s->dir, srcname[s->src], buf, sizeof(buf));
		figgp_elem_str(vars, "pname", i + 1, buf);
		figgp_elem_num(vars, "pdir", i + 1, s->dir + 1);
		if (i)
			fputs("\n\n", dat);
		for (size_t j = 0; j < s->n; j++)
			smax = s->p[j].silent > smax ? s->p[j].silent : smax;
		for (size_t j = 0; j < s->n; j += step ? step : 1, points++) {
			figgp_num(dat, s->p[j].silent);
			fputc(' ', dat);
			figgp_num(dat, s->p[j].lat);
			fprintf(dat, " %d\n", s->p[j].state + 1);
		}
	}
	figgp_var_num(vars, "npanels", (double)w->ns);
	figgp_var_num(vars, "nstates", (double)w->nk);
	figgp_var_num(vars, "smax", smax);
	return (int)points;
}

static void wk_free(struct wk *w)
{
	for (size_t i = 0; i < w->nc; i++)
		free(w->c[i].v);
	for (size_t i = 0; i < w->ns; i++)
		free(w->s[i].p);
	free(w->c);
	free(w->s);
	free(w->k);
}

int figwake_figures(const struct figwake_src *src, size_t n, FILE *dat12,
		    FILE *vars12, FILE *dat13, FILE *vars13, int *n12, int *n13,
		    char *err, size_t errlen)
{
	struct wk w = { .err = err, .errlen = errlen };
	int ret = 0;

	*n12 = *n13 = 0;
	for (size_t i = 0; i < n && !ret; i++) {
		ret = read_wake(&w, (int)i, src[i].dir);
		if (ret == -ENOENT)
			ret = 0;
		else if (!ret)
			ret = read_kernel(&w, (int)i, src[i].dir);
	}
	if (ret == -ENOMEM)
		errmsg_set(err, errlen, "out of memory");
	if (!ret) {
		*n12 = write_cdf(&w, src, n, dat12, vars12);
		*n13 = w.any_silent ? write_silent(&w, src, n, dat13, vars13) : 0;
	}
	wk_free(&w);
	return ret;
}
