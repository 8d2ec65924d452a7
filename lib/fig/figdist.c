// SPDX-License-Identifier: GPL-2.0
/* figdist: the report's latency and gap distribution figures (figdist.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arrival.h"
#include "csvread.h"
#include "csvtable.h"
#include "errmsg.h"
#include "figcfg.h"
#include "figdist.h"
#include "figgp.h"
#include "stats.h"
#include "sweepcsv.h"
#include "rfile.h"

#define MAXCOL 64
#define MAX_SUMMARY (64u << 20)
/* a curve's rows: 200 linear levels and 0.02 steps of nines */
#define LINEAR_LEVELS 200
#define NINES_STEP 0.02
/* figure 4's bins per panel, about */
#define GAP_BINS 50

int figdist_read_col(const char *path, const char *col, int ok_only, double **v,
		     size_t *n, char *err, size_t errlen)
{
	FILE *f = rfile_fopen_quiet(path);
	char *line = NULL, *fl[MAXCOL];
	size_t cap = 0, vcap = 0, lineno = 1;
	int c = -1, cs = -1, ret = 0, nf;
	double *out = NULL;

	*v = NULL;
	*n = 0;
	if (!f) {
		ret = -errno;
		errmsg_set(err, errlen, "cannot read %s: %s", path, rfile_strerror(errno));
		return ret;
	}
	if (rfile_getline(f, &line, &cap, RFILE_LINE_MAX) <= 0 ||
	    (nf = csvr_split(line, fl, MAXCOL)) < 0 || (c = csvr_col(fl, nf, col)) < 0) {
		errmsg_set(err, errlen, "%s: no header with a %s column", path, col);
		ret = -EINVAL;
		goto out;
	}
	cs = ok_only ? csvr_col(fl, nf, "status") : -1;
	for (;;) {
		/* bounded before it is held: a 2 GB line would cost 2 GB */
		ssize_t got = rfile_getline(f, &line, &cap, RFILE_LINE_MAX);
		uint64_t x;
		char e[128];

		lineno++;
		if (!got)
			break;
		if (got < 0) {
			errmsg_set(err, errlen, "%s:%zu: %s", path, lineno,
				   got == -E2BIG ? "a line longer than 64 KiB" :
				   strerror((int)-got));
			ret = (int)got;
			goto out;
		}
		nf = csvr_split(line, fl, MAXCOL);
		if (nf < 0) {
			errmsg_set(err, errlen, "%s:%zu: not a CSV row", path, lineno);
			ret = -EINVAL;
			goto out;
		}
		if (nf == 1 && !*fl[0])
			continue;
		if (c >= nf || !*fl[c] || (cs >= 0 && (cs >= nf || strcmp(fl[cs], "ok"))))
			continue;
		if (csvr_u64(fl[c], UINT64_MAX, &x, e, sizeof(e))) {
			errmsg_set(err, errlen, "%s:%zu: %s: %s", path, lineno, col, e);
			ret = -EINVAL;
			goto out;
		}
		if (*n == vcap) {
			size_t nc = vcap ? 2 * vcap : 4096;
			double *nv = realloc(out, nc * sizeof(*nv));

			if (!nv) {
				errmsg_set(err, errlen, "out of memory");
				ret = -ENOMEM;
				goto out;
			}
			out = nv;
			vcap = nc;
		}
		out[(*n)++] = (double)x / 1e3;
	}
	if (ferror(f)) {
		errmsg_set(err, errlen, "reading %s failed", path);
		ret = -EIO;
	}
out:
	free(line);
	fclose(f);
	if (ret) {
		free(out);
		*n = 0;
	} else {
		*v = out;
	}
	return ret;
}

double figdist_rank(const double *v, size_t n, double p)
{
	/* the epsilon keeps 0.99 * 100 at rank 99, not 100 */
	double r = ceil(p * (double)n - 1e-9);
	size_t i = r < 1 ? 0 : (size_t)r - 1;

	return v[i < n ? i : n - 1];
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One row of a curve at level P. */
static void curve_row(FILE *f, double *const *reps, const size_t *n, size_t nrep,
		      double *tmp, double p)
{
	for (size_t i = 0; i < nrep; i++)
		tmp[i] = figdist_rank(reps[i], n[i], p);
	qsort(tmp, nrep, sizeof(*tmp), dcmp);
	figgp_num(f, stats_median_sorted(tmp, nrep));
	fprintf(f, " %.6g %.4f\n", p, p > 0 ? -log10(1 - p) : 0.0);
}

double figdist_curve(FILE *f, double *const *reps, const size_t *n, size_t nrep)
{
	size_t nmin = SIZE_MAX;
	double *tmp, last, x;

	for (size_t i = 0; i < nrep; i++)
		if (n[i] < nmin)
			nmin = n[i];
	if (!nrep || nmin < 2)
		return 0;
	tmp = malloc(nrep * sizeof(*tmp));
	if (!tmp)
		return -1;
	last = 1 - 1 / (double)nmin;
	for (int k = 0; k < LINEAR_LEVELS; k++) {
		double p = (double)k / LINEAR_LEVELS;

		if (p >= last)
			break;
		curve_row(f, reps, n, nrep, tmp, p);
	}
	for (x = -log10(1.0 / LINEAR_LEVELS) + NINES_STEP; 1 - pow(10, -x) < last - 1e-12;
	     x += NINES_STEP)
		curve_row(f, reps, n, nrep, tmp, 1 - pow(10, -x));
	curve_row(f, reps, n, nrep, tmp, last);
	free(tmp);
	return log10((double)nmin);
}

/* A curve or a histogram's series: the runs of one run or sweep point. */
struct series {
	struct figcfg cfg;
	int side;
	const char *name;	/* a run's; NULL for a sweep point */
	char **paths;		/* requests.csv of each repetition */
	size_t npaths;
	int behind;		/* drawn from runs behind their schedule */
	int varying;		/* a client run with --rate-profile */
};

struct set {
	struct series *s;
	size_t n, cap;
	const char **side;	/* the sources' side names, distinct */
	int nsides;
	size_t behind;		/* sweep runs left out */
};

static void set_free(struct set *st)
{
	for (size_t i = 0; i < st->n; i++) {
		for (size_t k = 0; k < st->s[i].npaths; k++)
			free(st->s[i].paths[k]);
		free(st->s[i].paths);
	}
	free(st->s);
	free(st->side);
}

static struct series *set_new(struct set *st)
{
	if (st->n == st->cap) {
		size_t nc = st->cap ? 2 * st->cap : 16;
		struct series *ns = realloc(st->s, nc * sizeof(*ns));

		if (!ns)
			return NULL;
		st->s = ns;
		st->cap = nc;
	}
	memset(&st->s[st->n], 0, sizeof(st->s[0]));
	return &st->s[st->n++];
}

static int add_path(struct series *s, const char *fmt, const char *a,
		    const char *b, const char *c)
{
	char p[4096], **np;

	if ((size_t)snprintf(p, sizeof(p), fmt, a, b, c) >= sizeof(p))
		return -ENAMETOOLONG;
	np = realloc(s->paths, (s->npaths + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	s->paths = np;
	s->paths[s->npaths] = strdup(p);
	if (!s->paths[s->npaths])
		return -ENOMEM;
	s->npaths++;
	return 0;
}

static int side_of(struct set *st, const char *name)
{
	const char **ns;

	for (int i = 0; i < st->nsides; i++)
		if (!strcmp(st->side[i], name))
			return i;
	ns = realloc(st->side, (size_t)(st->nsides + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	st->side = ns;
	st->side[st->nsides] = name;
	return st->nsides++;
}

/*
 * The series of a sweep directory: one per point, from its runs. Runs
 * behind their schedule are left out (counted) unless INCLUDE_BEHIND;
 * a point whose every run fell behind is drawn from them all, its label
 * saying so (as a single run behind is): an empty figure tells nothing.
 */
static int add_sweep(struct set *st, const struct figdist_src *src, int side,
		     int include_behind, char *err, size_t errlen)
{
	char path[4096];
	struct sweepcsv csv;
	FILE *f;
	size_t first = st->n;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/sweep.csv", src->path) >= sizeof(path))
		return -ENAMETOOLONG;
	f = rfile_fopen_quiet(path);
	/* a summary without its sweep.csv: no runs to draw, not an error */
	if (!f && errno == ENOENT)
		return 0;
	if (!f) {
		ret = -errno;
		errmsg_set(err, errlen, "cannot read %s: %s", path, rfile_strerror(errno));
		return ret;
	}
	ret = sweepcsv_read(f, path, &csv, err, errlen);
	fclose(f);
	if (ret == -ENODATA)
		return 0;
	if (ret)
		return ret;
	for (int pass = 0; pass < 2 && !ret; pass++) {
		/* pass 0: the runs in time; pass 1: the late ones of the
		 * points that have no other */
		for (size_t i = 0; i < csv.n && !ret; i++) {
			const struct sweepcsv_run *r = &csv.run[i];
			struct series *s = NULL;
			struct figcfg c;
			int late = r->behind > 0 && !include_behind;

			if (late != pass)
				continue;
			figcfg_from_params(&c, r->param);
			for (size_t k = first; k < st->n && !s; k++)
				if (figcfg_same_except(&st->s[k].cfg, &c, -1))
					s = &st->s[k];
			if (s && late && !s->behind) {
				st->behind++;
				continue;
			}
			if (!s) {
				s = set_new(st);
				if (!s) {
					ret = -ENOMEM;
					break;
				}
				s->cfg = c;
				s->side = side;
				s->behind = late;
			}
			ret = add_path(s, "%s/%s/rep-%s/client/requests.csv", src->path,
				       r->point, r->rep);
		}
	}
	sweepcsv_free(&csv);
	if (ret == -ENOMEM)
		errmsg_set(err, errlen, "out of memory");
	else if (ret)
		errmsg_set(err, errlen, "%s: a run's path is too long", src->path);
	return ret;
}

/* A client run: its summary's configuration. A run behind its schedule
 * is drawn all the same (it is the only one of its kind), marked. */
static int add_run(struct set *st, const struct figdist_src *src, int side,
		   char *err, size_t errlen)
{
	char path[4096];
	struct csvtable t;
	struct series *s;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/summary.csv", src->path) >= sizeof(path))
		return -ENAMETOOLONG;
	s = set_new(st);
	if (!s) {
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->side = side;
	s->name = src->name;
	/* without a summary the run is still drawn, unnamed by parameters */
	if (!csvtable_read(path, MAX_SUMMARY, &t, err, errlen)) {
		if (t.n) {
			figcfg_from_client_row(&s->cfg, &t, 0);
			s->behind = !strcmp(csvtable_get(&t, 0,
					csvtable_col(&t, "behind_schedule")), "1");
			s->varying = *csvtable_get(&t, 0,
					csvtable_col(&t, "rate_profile")) != '\0';
		}
		csvtable_free(&t);
	}
	ret = add_path(s, "%s/requests.csv%s%s", src->path, "", "");
	if (ret)
		errmsg_set(err, errlen, ret == -ENOMEM ? "out of memory" :
			   "%s: path too long", src->path);
	return ret;
}

static int build(struct set *st, const struct figdist_src *src, size_t nsrc,
		 int include_behind, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < nsrc; i++) {
		int side = side_of(st, src[i].side), ret;

		if (side < 0) {
			errmsg_set(err, errlen, "out of memory");
			return side;
		}
		ret = src[i].sweep ? add_sweep(st, &src[i], side, include_behind, err, errlen) :
		      add_run(st, &src[i], side, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

static int series_cmp(const void *a, const void *b)
{
	const struct series *x = a, *y = b;
	int d = x->side - y->side;

	if (!d)
		d = figcfg_cmp(&x->cfg, &y->cfg);
	if (!d)
		d = strcmp(x->name ? x->name : "", y->name ? y->name : "");
	return d;
}

/* The parameters that vary among the series, but the pre-query. */
static int set_mask(const struct set *st, unsigned char *mask)
{
	struct figcfg *c = malloc((st->n + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < st->n; i++)
		c[i] = st->s[i].cfg;
	figcfg_varying(c, st->n, mask);
	mask[figcfg_pq_param(&c[0])] = 0;
	mask[FIGCFG_PREQUERY] = 0;
	free(c);
	return 0;
}

static void series_label(const struct set *st, const struct series *s,
			 const unsigned char *mask, int flags, char *buf, size_t len)
{
	char w[512];
	size_t off = 0;

	figcfg_words(&s->cfg, mask, flags | FIGCFG_W_PQ, w, sizeof(w));
	if (st->nsides > 1)
		off = (size_t)snprintf(buf, len, "%s: ", st->side[s->side]);
	if (s->name && off < len)
		off += (size_t)snprintf(buf + off, len - off, "%s: ", s->name);
	if (off < len)
		snprintf(buf + off, len - off, "%s%s", w, s->behind ? " (behind schedule)" : "");
}

/* Reads every repetition of S (column COL, sorted when SORT). */
static int read_reps(const struct series *s, const char *col, int sort,
		     double ***reps, size_t **n, char *err, size_t errlen)
{
	int ret = 0;

	*reps = calloc(s->npaths + 1, sizeof(**reps));
	*n = calloc(s->npaths + 1, sizeof(**n));
	if (!*reps || !*n) {
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t k = 0; k < s->npaths && !ret; k++) {
		/* a latency of an ok request; any request's send time */
		ret = figdist_read_col(s->paths[k], col, sort, &(*reps)[k], &(*n)[k], err,
				       errlen);
		if (!ret && sort)
			qsort((*reps)[k], (*n)[k], sizeof(double), dcmp);
	}
	return ret;
}

static void free_reps(double **reps, size_t *n, size_t nrep)
{
	for (size_t k = 0; reps && k < nrep; k++)
		free(reps[k]);
	free(reps);
	free(n);
}

int figdist_cdf(const struct figdist_src *src, size_t nsrc, int include_behind,
		FILE *dat, FILE *vars, char *err, size_t errlen)
{
	struct set st;
	unsigned char mask[FIGCFG_NPARAMS];
	size_t ncurves = 0, ncolor = 0, npq = 0, maxlab = 0;
	double maxnines = 0;
	char lab[1024];
	int ret = build(&st, src, nsrc, include_behind, err, errlen);
	int *color = NULL, *dash = NULL;
	struct figcfg *ckey = NULL, *pqkey = NULL;

	if (ret)
		goto out;
	if (st.n)
		qsort(st.s, st.n, sizeof(st.s[0]), series_cmp);
	color = calloc(st.n + 1, sizeof(*color));
	dash = calloc(st.n + 1, sizeof(*dash));
	ckey = calloc(st.n + 1, sizeof(*ckey));
	pqkey = calloc(st.n + 1, sizeof(*pqkey));
	if (!color || !dash || !ckey || !pqkey || set_mask(&st, mask)) {
		ret = -ENOMEM;
		errmsg_set(err, errlen, "out of memory");
		goto out;
	}
	figgp_array(vars, "names", st.n);
	for (size_t i = 0; i < st.n; i++) {
		struct series *s = &st.s[i];
		double **reps, nines;
		size_t *n, k;
		struct figcfg c = s->cfg;
		int pq = figcfg_pq_param(&c);

		ret = read_reps(s, "latency_ns", 1, &reps, &n, err, errlen);
		if (ret) {
			free_reps(reps, n, s->npaths);
			goto out;
		}
		for (k = 0; k < s->npaths && n[k] >= 2; k++)
			;
		/* a run with fewer than two answers has no curve */
		if (!s->npaths || k < s->npaths) {
			free_reps(reps, n, s->npaths);
			continue;
		}
		if (ncurves)
			fputs("\n\n", dat);
		nines = figdist_curve(dat, reps, n, s->npaths);
		free_reps(reps, n, s->npaths);
		if (nines < 0) {
			ret = -ENOMEM;
			errmsg_set(err, errlen, "out of memory");
			goto out;
		}
		if (nines > maxnines)
			maxnines = nines;
		series_label(&st, s, mask, 0, lab, sizeof(lab));
		figgp_elem_str(vars, "names", ncurves + 1, lab);
		if (figgp_chars(lab) > maxlab)
			maxlab = figgp_chars(lab);
		/* colour: the configuration but the pre-query (and side) */
		c.v[pq][0] = '\0';
		snprintf(c.v[FIGCFG_REQUESTS], FIGCFG_VLEN, "%d", s->side);
		for (k = 0; k < ncolor && !figcfg_same_except(&ckey[k], &c, -1); k++)
			;
		if (k == ncolor)
			ckey[ncolor++] = c;
		color[ncurves] = (int)k;
		/* dash: the pre-query setting */
		memset(&c, 0, sizeof(c));
		snprintf(c.v[0], FIGCFG_VLEN, "%s", s->cfg.v[pq]);
		for (k = 0; k < npq && !figcfg_same_except(&pqkey[k], &c, -1); k++)
			;
		if (k == npq)
			pqkey[npq++] = c;
		dash[ncurves] = (int)k;
		ncurves++;
	}
	figgp_array(vars, "color", ncurves);
	figgp_array(vars, "dash", ncurves);
	for (size_t i = 0; i < ncurves; i++) {
		figgp_elem_num(vars, "color", i + 1, color[i] + 1);
		figgp_elem_num(vars, "dash", i + 1, dash[i] + 1);
	}
	figgp_var_num(vars, "ncurves", (double)ncurves);
	figgp_var_num(vars, "maxnines", maxnines);
	figgp_var_num(vars, "behind", (double)st.behind);
	figgp_var_num(vars, "maxlab", (double)maxlab);
	ret = (int)ncurves;
out:
	free(color);
	free(dash);
	free(ckey);
	free(pqkey);
	set_free(&st);
	return ret;
}

/*
 * DIST of mean MEAN us as the client draws it (lib/arrival); -EINVAL for
 * what has no single law: a burst (onoff, mmpp), a replayed trace, a
 * name the client does not know.
 */
static int target_law(const char *dist, double mean, struct arrival *a)
{
	struct arrival_law l;
	char e[160];

	if (arrival_law_parse(dist, &l, e, sizeof(e)) || !arrival_law_renewal(l.dist))
		return -EINVAL;
	return arrival_init_law(a, &l, mean * 1e3, 1);
}

double figdist_expected(const char *dist, double mean, double a, double b)
{
	struct arrival law;

	if (target_law(dist, mean, &law))
		return NAN;
	return arrival_law_cdf(&law, b * 1e3) - arrival_law_cdf(&law, a * 1e3);
}

/* A bin width of 1, 2, 2.5 or 5 times a power of ten, at least W. */
static double nice(double w)
{
	double e = pow(10, floor(log10(w))), m = w / e;

	return e * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10);
}

/* Panels: series of one distribution and mean (and rate, varying or not). */
struct panel {
	const char *dist;
	double mean;
	int varying;		/* a rate profile: no single law */
	size_t *idx, n;		/* series */
};

/*
 * The panel of each series (a series without a numeric mean gap has no
 * target, and no panel); 0 or -ENOMEM. *npn counts the panels made.
 */
static int make_panels(const struct set *st, struct panel *pn, size_t *npn)
{
	for (size_t i = 0; i < st->n; i++) {
		const struct figcfg *c = &st->s[i].cfg;
		double m;
		size_t k;

		if (csvtable_num(c->v[FIGCFG_INTERVAL], &m) || m <= 0)
			continue;
		for (k = 0; k < *npn; k++)
			if (!strcmp(pn[k].dist, c->v[FIGCFG_DIST]) && pn[k].mean == m &&
			    pn[k].varying == st->s[i].varying)
				break;
		if (k == *npn) {
			pn[*npn].dist = c->v[FIGCFG_DIST];
			pn[*npn].mean = m;
			pn[*npn].varying = st->s[i].varying;
			pn[*npn].idx = calloc(st->n, sizeof(size_t));
			if (!pn[(*npn)++].idx)
				return -ENOMEM;
		}
		pn[k].idx[pn[k].n++] = i;
	}
	return 0;
}

/* Each series' gaps in panel P (g[i], gn[i] of them): its repetitions' send gaps pooled. */
static int panel_gaps(const struct set *st, const struct panel *p, double **g,
		      size_t *gn, char *err, size_t errlen)
{
	int ret = 0;

	for (size_t i = 0; i < p->n && !ret; i++) {
		const struct series *s = &st->s[p->idx[i]];
		double **reps;
		size_t *n, tot = 0;

		ret = read_reps(s, "sent_ns", 0, &reps, &n, err, errlen);
		for (size_t r = 0; !ret && r < s->npaths; r++)
			tot += n[r] > 1 ? n[r] - 1 : 0;
		if (!ret && !(g[i] = malloc((tot + 1) * sizeof(double))))
			ret = -ENOMEM;
		for (size_t r = 0; !ret && r < s->npaths; r++)
			for (size_t j = 1; j < n[r]; j++)
				/* sent out of order (several
				 * connections): not a gap */
				if (reps[r][j] >= reps[r][j - 1])
					g[i][gn[i]++] = reps[r][j] - reps[r][j - 1];
		free_reps(reps, n, s->npaths);
	}
	return ret;
}

/* A panel's x axis: its bins and the gaps that fall outside them. */
struct gap_axis {
	double lo, w;
	size_t nb, outside;
};

/*
 * The target's range, widened to 99.8 % of what was sent, in bins of a
 * nice width; 0 or -ENOMEM.
 */
static int panel_axis(const struct panel *p, double *const *g, const size_t *gn,
		      struct gap_axis *ax)
{
	double *all, lo, hi, w, q0, q1;
	size_t nall = 0, nb, outside = 0;

	for (size_t i = 0; i < p->n; i++)
		nall += gn[i];
	all = malloc((nall + 1) * sizeof(double));
	if (!all)
		return -ENOMEM;
	nall = 0;
	for (size_t i = 0; i < p->n; i++) {
		memcpy(all + nall, g[i], gn[i] * sizeof(double));
		nall += gn[i];
	}
	qsort(all, nall, sizeof(double), dcmp);
	q0 = nall ? figdist_rank(all, nall, 0.001) : p->mean;
	q1 = nall ? figdist_rank(all, nall, 0.999) : p->mean;
	if (!strcmp(p->dist, "exp")) {
		lo = 0;
		hi = 5 * p->mean;
	} else if (!strcmp(p->dist, "poisson")) {
		lo = p->mean - 5 * sqrt(p->mean);
		hi = p->mean + 5 * sqrt(p->mean);
	} else if (!strcmp(p->dist, "fixed")) {
		lo = hi = p->mean;
	} else {		/* another law, or none: what was sent */
		lo = 0;
		hi = p->mean;
	}
	lo = fmin(lo, q0);
	hi = fmax(hi, q1);
	if (hi - lo < p->mean * 0.01) {
		lo = fmin(lo, p->mean * 0.995);
		hi = fmax(hi, p->mean * 1.005);
	}
	if (lo < 0)
		lo = 0;
	w = nice((hi - lo) / GAP_BINS);
	if (!strcmp(p->dist, "poisson") && w < 1)
		w = 1;
	lo = floor(lo / w) * w;
	/* Poisson gaps are whole µs: bins centred on them */
	if (!strcmp(p->dist, "poisson") && w == floor(w))
		lo -= 0.5;
	/* the last bin holds hi itself */
	nb = (size_t)floor((hi - lo) / w) + 1;
	for (size_t j = 0; j < nall; j++)
		outside += all[j] < lo || all[j] >= lo + (double)nb * w;
	free(all);
	*ax = (struct gap_axis){ .lo = lo, .w = w, .nb = nb, .outside = outside };
	return 0;
}

/*
 * Why panel P has no target law, or NULL when it has one: its gaps
 * follow a burst, a rate that changes or a recorded trace.
 */
static const char *no_law(const struct panel *p)
{
	struct arrival law;

	if (p->varying)
		return "a rate profile";
	if (!target_law(p->dist, p->mean, &law))
		return NULL;
	return !strcmp(p->dist, "replay") ? "a replayed trace" :
	       !strncmp(p->dist, "onoff:", 6) || !strncmp(p->dist, "mmpp:", 5) ?
	       "bursts" : "an unknown law";
}

/* "exp, mean 1 ms: bins of 50 us", and the gaps off the axis. */
static void panel_title(const struct panel *p, const struct gap_axis *ax, char *t,
			size_t len)
{

	char m[32], b[32], us[64], lab[1024];

	snprintf(m, sizeof(m), "%.10g", p->mean);
	figcfg_us_words(m, us, sizeof(us));
	snprintf(b, sizeof(b), "%.10g", ax->w);
	figcfg_us_words(b, lab, sizeof(lab));
	snprintf(t, len, "%s%s, mean %s: bins of %s", p->dist,
		 p->varying ? " (rate profile)" : "", us, lab);
	if (ax->outside)
		snprintf(t + strlen(t), len - strlen(t),
			 " (%zu gaps outside the axis)", ax->outside);
}

/* The target block: the share of the law's gaps in each bin (NaN where
 * the panel has no single law). */
static void write_target(FILE *dat, const struct panel *p, const struct gap_axis *ax)
{
	int nolaw = no_law(p) != NULL;

	for (size_t b = 0; b < ax->nb; b++) {
		double a = ax->lo + (double)b * ax->w;

		figgp_num(dat, a + ax->w / 2);
		fputc(' ', dat);
		figgp_num(dat, nolaw ? NAN : figdist_expected(p->dist, p->mean, a, a + ax->w));
		fputc('\n', dat);
	}
}

/* A series' block: the share of its GN gaps G in each bin; 0 or -ENOMEM. */
static int write_series(FILE *dat, const double *g, size_t gn, const struct gap_axis *ax)
{
	size_t *cnt = calloc(ax->nb, sizeof(*cnt));

	if (!cnt)
		return -ENOMEM;
	for (size_t j = 0; j < gn; j++) {
		double x = (g[j] - ax->lo) / ax->w;

		if (x >= 0 && x < (double)ax->nb)
			cnt[(size_t)x]++;
	}
	fputs("\n\n", dat);
	for (size_t b = 0; b < ax->nb; b++) {
		figgp_num(dat, ax->lo + ((double)b + 0.5) * ax->w);
		fputc(' ', dat);
		figgp_num(dat, gn ? (double)cnt[b] / (double)gn : NAN);
		fputc('\n', dat);
	}
	free(cnt);
	return 0;
}

/*
 * Panel K (from 0): its title and bins in VARS, its target block and a
 * block per series in DAT, NBLOCKS and MAXLAB kept up to date. 0,
 * -ENOMEM, or the -errno of a series that could not be read (ERR).
 */
static int gaps_panel(const struct set *st, const struct panel *p, size_t k,
		      const unsigned char *mask, FILE *dat, FILE *vars,
		      size_t *nblocks, size_t *maxlab, char *err, size_t errlen)
{
	double **g = calloc(p->n, sizeof(*g));
	size_t *gn = calloc(p->n, sizeof(*gn));
	struct gap_axis ax;
	char lab[1024], t[1200];
	int ret = -ENOMEM;

	if (!g || !gn)
		goto out;
	ret = panel_gaps(st, p, g, gn, err, errlen);
	if (!ret)
		ret = panel_axis(p, g, gn, &ax);
	if (ret)
		goto out;
	panel_title(p, &ax, t, sizeof(t));
	figgp_elem_str(vars, "ptitle", k + 1, t);
	figgp_elem_num(vars, "pfirst", k + 1, (double)*nblocks);
	figgp_elem_num(vars, "pcount", k + 1, (double)p->n);
	figgp_elem_num(vars, "pbinw", k + 1, ax.w);
	figgp_elem_num(vars, "pnolaw", k + 1, no_law(p) != NULL);
	if (*nblocks)
		fputs("\n\n", dat);
	write_target(dat, p, &ax);
	if (no_law(p))
		snprintf(t, sizeof(t), "no single target law (%s)", no_law(p));
	else
		snprintf(t, sizeof(t), "target: %s", p->dist);
	figgp_elem_str(vars, "names", ++*nblocks, t);
	for (size_t i = 0; i < p->n; i++) {
		ret = write_series(dat, g[i], gn[i], &ax);
		if (ret)
			goto out;
		series_label(st, &st->s[p->idx[i]], mask, FIGCFG_W_NOGAP, lab, sizeof(lab));
		snprintf(t, sizeof(t), "%s (%zu gaps)", lab, gn[i]);
		figgp_elem_str(vars, "names", ++*nblocks, t);
		if (figgp_chars(t) > *maxlab)
			*maxlab = figgp_chars(t);
	}
out:
	for (size_t i = 0; g && i < p->n; i++)
		free(g[i]);
	free(g);
	free(gn);
	return ret;
}

int figdist_gaps(const struct figdist_src *src, size_t nsrc, int include_behind,
		 FILE *dat, FILE *vars, char *err, size_t errlen)
{
	struct set st;
	struct panel *pn = NULL;
	size_t npn = 0, nblocks = 0, maxlab = 0;
	unsigned char mask[FIGCFG_NPARAMS];
	int ret = build(&st, src, nsrc, include_behind, err, errlen);

	if (ret)
		goto out;
	if (st.n)
		qsort(st.s, st.n, sizeof(st.s[0]), series_cmp);
	pn = calloc(st.n + 1, sizeof(*pn));
	if (!pn || set_mask(&st, mask) || make_panels(&st, pn, &npn)) {
		ret = -ENOMEM;
		goto oom;
	}
	/* the names of the series in the panels: what varies, but the
	 * distribution and the gap the panel says */
	mask[FIGCFG_DIST] = mask[FIGCFG_INTERVAL] = 0;
	figgp_var_num(vars, "npanels", (double)npn);
	figgp_array(vars, "ptitle", npn);
	figgp_array(vars, "pfirst", npn);
	figgp_array(vars, "pcount", npn);
	figgp_array(vars, "pbinw", npn);
	figgp_array(vars, "pnolaw", npn);
	figgp_array(vars, "names", st.n + npn);
	for (size_t k = 0; k < npn; k++) {
		ret = gaps_panel(&st, &pn[k], k, mask, dat, vars, &nblocks, &maxlab,
				 err, errlen);
		if (ret == -ENOMEM)
			goto oom;
		if (ret)
			goto out;
	}
	figgp_var_num(vars, "nblocks", (double)nblocks);
	figgp_var_num(vars, "maxlab", (double)maxlab);
	ret = (int)npn;
	goto out;
oom:
	errmsg_set(err, errlen, "out of memory");
out:
	for (size_t k = 0; pn && k < npn; k++)
		free(pn[k].idx);
	free(pn);
	set_free(&st);
	return ret;
}
