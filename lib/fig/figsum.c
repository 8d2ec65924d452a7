// SPDX-License-Identifier: GPL-2.0
/* figsum: the report's figures drawn from summaries (see figsum.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "csvtable.h"
#include "errmsg.h"
#include "figgp.h"
#include "figref.h"
#include "figsum.h"
#include "stats.h"

#define MAX_SUMMARY (64u << 20)

/* a sweep summary's columns and a client summary's, per metric */
static const char *const sweep_metric[FIGSUM_NM] = {
	"avg", "p50", "p99", "energy_per_request", "power",
};
static const char *const sweep_unit[FIGSUM_NM] = { "us", "us", "us", "uj", "w" };
static const char *const run_col[FIGSUM_NM] = {
	"lat_avg_us", "lat_p50_us", "lat_p99_us", "energy_per_request_uj", "power_w",
};

void figsum_init(struct figsum *s)
{
	memset(s, 0, sizeof(*s));
}

void figsum_free(struct figsum *s)
{
	for (int i = 0; i < s->nsides; i++)
		free(s->side[i]);
	for (size_t i = 0; i < s->n; i++)
		free(s->p[i].point);
	free(s->side);
	free(s->p);
	memset(s, 0, sizeof(*s));
}

int figsum_side(struct figsum *s, const char *name)
{
	char **ns, *c;

	for (int i = 0; i < s->nsides; i++)
		if (!strcmp(s->side[i], name))
			return i;
	ns = realloc(s->side, (size_t)(s->nsides + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	s->side = ns;
	c = strdup(name);
	if (!c)
		return -ENOMEM;
	s->side[s->nsides] = c;
	return s->nsides++;
}

static struct figsum_point *new_point(struct figsum *s)
{
	struct figsum_point *p;

	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 32;

		p = realloc(s->p, nc * sizeof(*p));
		if (!p)
			return NULL;
		s->p = p;
		s->cap = nc;
	}
	p = &s->p[s->n++];
	memset(p, 0, sizeof(*p));
	for (int m = 0; m < FIGSUM_NM; m++)
		p->med[m] = p->lo[m] = p->hi[m] = NAN;
	return p;
}

/*
 * Row R's paired effect into P (n = 0 without one). Only against the
 * baseline figure 2 pairs with (pre-query off, delay off with three
 * tiers): a summary made with another --baseline has effects of another
 * comparison.
 */
static int read_paired(const struct csvtable *t, size_t r, struct figsum_paired *p,
		       char *err, size_t errlen)
{
	const char *bl = csvtable_get(t, r, csvtable_col(t, "baseline"));
	int ret;

	memset(p, 0, sizeof(*p));
	if (strcmp(bl, "prequery=off") && strcmp(bl, "delay=off"))
		return 0;
	ret = csvtable_getnum_nan(t, r, "paired_n", &p->n, err, errlen);
	ret = ret ? ret : csvtable_getnum_nan(t, r, "paired_ci_coverage", &p->coverage, err, errlen);
	for (int m = FIGSUM_AVG; m <= FIGSUM_P99 && !ret; m++) {
		char c[64];

		snprintf(c, sizeof(c), "paired_speedup_%s", sweep_metric[m]);
		ret = csvtable_getnum_nan(t, r, c, &p->med[m], err, errlen);
		snprintf(c, sizeof(c), "paired_speedup_%s_lo", sweep_metric[m]);
		ret = ret ? ret : csvtable_getnum_nan(t, r, c, &p->lo[m], err, errlen);
		snprintf(c, sizeof(c), "paired_speedup_%s_hi", sweep_metric[m]);
		ret = ret ? ret : csvtable_getnum_nan(t, r, c, &p->hi[m], err, errlen);
		snprintf(c, sizeof(c), "paired_verdict_%s", sweep_metric[m]);
		p->verdict[m] = stats_verdict_parse(csvtable_get(t, r, csvtable_col(t, c)));
	}
	if (ret || !isfinite(p->n))
		p->n = 0;
	return ret;
}

/* Column NAME of row R as a number into *v (NAN when empty); -EINVAL. */
int figsum_add_sweep(struct figsum *s, const char *path, int side, char *err,
		     size_t errlen)
{
	struct csvtable t;
	int ret = csvtable_read(path, MAX_SUMMARY, &t, err, errlen);

	if (ret)
		return ret;
	if (csvtable_col(&t, "dist") < 0 || csvtable_col(&t, "interval_us") < 0 ||
	    csvtable_col(&t, "prequery") < 0 || csvtable_col(&t, "p50_median_us") < 0) {
		errmsg_set(err, errlen, "%s has no dist, interval_us, prequery or "
			   "p50_median_us column (not a wakebench stats summary)", path);
		ret = -EINVAL;
		goto out;
	}
	for (size_t r = 0; r < t.n; r++) {
		struct figsum_point *p;
		double n;
		char c[80];

		ret = csvtable_getnum_nan(&t, r, "n", &n, err, errlen);
		if (ret)
			goto out;
		/* a point without a run in its medians has nothing to draw */
		if (n == 0) {
			double nb = 0;

			ret = csvtable_getnum_nan(&t, r, "n_behind", &nb, err, errlen);
			if (ret)
				goto out;
			s->behind_points += nb > 0;
			continue;
		}
		p = new_point(s);
		if (!p) {
			errmsg_set(err, errlen, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		figcfg_from_sweep_row(&p->cfg, &t, r);
		/* the name a reference file gives (figref) */
		if (csvtable_col(&t, "point") >= 0) {
			p->point = strdup(csvtable_get(&t, r, csvtable_col(&t, "point")));
			if (!p->point) {
				errmsg_set(err, errlen, "out of memory");
				ret = -ENOMEM;
				goto out;
			}
		}
		p->side = side;
		p->src = s->nsrc;
		p->n = n;
		ret = csvtable_getnum_nan(&t, r, "n_behind", &p->n_behind, err, errlen);
		ret = ret ? ret : read_paired(&t, r, &p->paired, err, errlen);
		for (int m = 0; m < FIGSUM_NM && !ret; m++) {
			snprintf(c, sizeof(c), "%s_median_%s", sweep_metric[m], sweep_unit[m]);
			ret = csvtable_getnum_nan(&t, r, c, &p->med[m], err, errlen);
			snprintf(c, sizeof(c), "%s_ci_lo_%s", sweep_metric[m], sweep_unit[m]);
			ret = ret ? ret : csvtable_getnum_nan(&t, r, c, &p->lo[m], err, errlen);
			snprintf(c, sizeof(c), "%s_ci_hi_%s", sweep_metric[m], sweep_unit[m]);
			ret = ret ? ret : csvtable_getnum_nan(&t, r, c, &p->hi[m], err, errlen);
		}
		if (ret)
			goto out;
		if (!isfinite(p->n_behind))
			p->n_behind = 0;
		snprintf(p->ci_label, sizeof(p->ci_label), "%s",
			 csvtable_get(&t, r, csvtable_col(&t, "ci_label")));
		/* an older summary has no label: the interval wakebench
		 * stats makes of n runs, named as it names it */
		if (!*p->ci_label && n >= 2 && n == floor(n) && n < 1e9) {
			struct stats_summary ss = { .n = (size_t)n };

			stats_ci_ranks(ss.n, STATS_Z95, &ss.ci_rank_lo, &ss.ci_rank_hi);
			ss.ci_coverage = stats_ci_coverage(ss.n, ss.ci_rank_lo, ss.ci_rank_hi);
			stats_ci_label(&ss, p->ci_label, sizeof(p->ci_label));
		}
	}
out:
	s->nsrc++;
	csvtable_free(&t);
	return ret;
}

int figsum_add_run(struct figsum *s, const char *path, int side,
		   int include_behind, char *err, size_t errlen)
{
	struct csvtable t;
	struct figsum_point *p;
	const char *st;
	int behind, ret = csvtable_read(path, MAX_SUMMARY, &t, err, errlen);

	if (ret)
		return ret;
	if (t.n < 1 || csvtable_col(&t, "lat_p50_us") < 0) {
		errmsg_set(err, errlen, "%s has no row with lat_p50_us (not a client summary)",
			   path);
		ret = -EINVAL;
		goto out;
	}
	st = csvtable_get(&t, 0, csvtable_col(&t, "status"));
	if (*st && strcmp(st, "ok")) {
		errmsg_set(err, errlen, "its status is '%.40s'", st);
		ret = 1;
		goto out;
	}
	behind = !strcmp(csvtable_get(&t, 0, csvtable_col(&t, "behind_schedule")), "1");
	if (behind && !include_behind) {
		errmsg_set(err, errlen, "it fell behind its schedule");
		ret = 1;
		goto out;
	}
	p = new_point(s);
	if (!p) {
		errmsg_set(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	figcfg_from_client_row(&p->cfg, &t, 0);
	p->side = side;
	p->src = s->nsrc++;
	p->single = 1;
	p->n = 1;
	/* kept all the same: marked as a sweep's point is */
	p->n_behind = behind;
	for (int m = 0; m < FIGSUM_NM && !ret; m++) {
		ret = csvtable_getnum_nan(&t, 0, run_col[m], &p->med[m], err, errlen);
		p->lo[m] = p->hi[m] = p->med[m];
	}
	if (ret)
		s->n--;
out:
	csvtable_free(&t);
	return ret;
}

struct pair {
	const struct figsum_point *off, *on;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int d = figcfg_cmp(&x->on->cfg, &y->on->cfg);

	return d ? d : x->on->side - y->on->side;
}

/* The pairs, sorted; *np of them. NULL with *np 0 when there are none
 * (or no memory: *oom set). */
static struct pair *make_pairs(const struct figsum *s, size_t *np, int *oom)
{
	struct pair *pp = NULL;
	size_t n = 0;

	*oom = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct figsum_point *on = &s->p[i], *off = NULL, *other = NULL;
		int pq = figcfg_pq_param(&on->cfg), ambiguous = 0;

		if (figcfg_is_off(&on->cfg))
			continue;
		for (size_t j = 0; j < s->n; j++) {
			const struct figsum_point *c = &s->p[j];

			if (!figcfg_is_off(&c->cfg) || !figcfg_baseline_of(&on->cfg, &c->cfg, pq))
				continue;
			/* the last one of a side wins, as the row of a file would */
			if (c->side == on->side) {
				off = c;
			} else {
				if (other && other->side != c->side)
					ambiguous = 1;
				other = c;
			}
		}
		/* another side's baseline only when just one side has it */
		if (!off && !ambiguous)
			off = other;
		if (!off)
			continue;
		if (n % 32 == 0) {
			struct pair *x = realloc(pp, (n + 32) * sizeof(*x));

			if (!x) {
				free(pp);
				*oom = 1;
				*np = 0;
				return NULL;
			}
			pp = x;
		}
		pp[n].off = off;
		pp[n++].on = on;
	}
	if (n)
		qsort(pp, n, sizeof(*pp), pair_cmp);
	*np = n;
	return pp;
}

/* The label of a pair: "[SIDE: ]words, pre-query[ [!N_behind]]" where
 * the words name what varies among MASK. */
static void pair_label(const struct figsum *s, const struct pair *p,
		       const unsigned char *mask, char *buf, size_t len)
{
	char w[512];
	size_t off = 0;
	double nb = p->off->n_behind + p->on->n_behind;

	figcfg_words(&p->on->cfg, mask, FIGCFG_W_PQ, w, sizeof(w));
	if (s->nsides > 1 && p->on->side == p->off->side)
		off = (size_t)snprintf(buf, len, "%s: ", s->side[p->on->side]);
	else if (s->nsides > 1)
		off = (size_t)snprintf(buf, len, "%s vs %s: ", s->side[p->on->side],
				       s->side[p->off->side]);
	if (off >= len)
		off = len - 1;
	snprintf(buf + off, len - off, nb > 0 ? "%s [!%g_behind]" : "%s", w, nb);
}

/* The parameters that vary among the points (the pre-query's never
 * named by the mask: the label adds it itself). */
static int mask_of(const struct figsum *s, unsigned char *mask)
{
	struct figcfg *c = s->n ? malloc(s->n * sizeof(*c)) : NULL;

	if (s->n && !c)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		c[i] = s->p[i].cfg;
	figcfg_varying(c, s->n, mask);
	free(c);
	mask[FIGCFG_PREQUERY] = 0;
	return 0;
}

/* The distinct CI labels of points P[0..N), "; "-joined; *minmax when
 * an interval is the min-max of fewer than 6 runs. */
static void ci_labels(const struct figsum_point *const *p, size_t n, char *buf,
		      size_t len, int *minmax)
{
	size_t off = 0;
	int single = 0;

	buf[0] = '\0';
	*minmax = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i]->single) {
			single = 1;
			continue;
		}
		if (p[i]->n < 6)
			*minmax = 1;
		if (!*p[i]->ci_label || strstr(buf, p[i]->ci_label))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "; " : "",
					p[i]->ci_label);
		if (off >= len)
			off = len - 1;
	}
	if (single)
		snprintf(buf + off, len - off, "%ssingle runs, no interval", off ? "; " : "");
	else if (!off)
		snprintf(buf, len, "CI (coverage unknown: a summary from an older wakebench stats)");
}

/* ci_labels of the pairs' points; -ENOMEM. */
static int pair_ci_labels(const struct pair *pp, size_t np, char *buf, size_t len,
			  int *minmax)
{
	const struct figsum_point **p = malloc((2 * np + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < np; i++) {
		p[2 * i] = pp[i].off;
		p[2 * i + 1] = pp[i].on;
	}
	ci_labels(p, 2 * np, buf, len, minmax);
	free(p);
	return 0;
}

static void stat6(FILE *f, const struct figsum_point *a, const struct figsum_point *b, int m)
{
	const struct figsum_point *x[2] = { a, b };

	for (int k = 0; k < 2; k++) {
		fputc(' ', f);
		figgp_num(f, x[k]->med[m]);
		fputc(' ', f);
		figgp_num(f, x[k]->lo[m]);
		fputc(' ', f);
		figgp_num(f, x[k]->hi[m]);
	}
}

/*
 * The paired effect of a pair: its point's against the baseline of its
 * own sweep (stats pairs within one sweep.csv), else NULL.
 */
static const struct figsum_paired *pair_paired(const struct pair *p)
{
	if (p->on->single || p->off->single || p->on->src != p->off->src ||
	    !p->on->paired.n)
		return NULL;
	return &p->on->paired;
}

/* Figure 2's paired columns of pair P; 1 when it has an interval. */
static int paired_cols(FILE *f, const struct pair *p)
{
	const struct figsum_paired *e = pair_paired(p);
	int ci = 0;

	for (int m = FIGSUM_AVG; m <= FIGSUM_P99; m++) {
		fputc(' ', f);
		figgp_num(f, e ? e->med[m] : NAN);
		fputc(' ', f);
		figgp_num(f, e ? e->lo[m] : NAN);
		fputc(' ', f);
		figgp_num(f, e ? e->hi[m] : NAN);
		ci |= e && isfinite(e->lo[m]);
	}
	return ci;
}

/*
 * Figure 2's reference columns of pair P (the values S->ref gives its
 * point, marked used); how many it has.
 */
static int ref_cols(FILE *f, const struct figsum *s, const struct pair *p)
{
	int k = 0;

	for (int m = FIGSUM_AVG; m <= FIGSUM_P99; m++) {
		struct figref_row *x = figref_find(s->ref, p->on->point, m);

		fputc(' ', f);
		figgp_num(f, x ? x->value : NAN);
		if (x) {
			x->used = 1;
			k++;
		}
	}
	return k;
}

/* fig1.vars' reference variables: nref, refsrc */
static void ref_vars(FILE *vars, const struct figsum *s, size_t nref)
{
	char src[1024];

	figref_sources(s->ref, 1, src, sizeof(src));
	figgp_var_num(vars, "nref", (double)nref);
	figgp_var_str(vars, "refsrc", src);
}

int figsum_write_pairs(const struct figsum *s, FILE *bars, FILE *speedup,
		       FILE *vars)
{
	unsigned char mask[FIGCFG_NPARAMS];
	char lab[1024], ci[512];
	size_t np, maxlab = 0, npaired = 0, nref = 0;
	int oom, minmax;
	struct pair *pp = make_pairs(s, &np, &oom);

	if (oom || mask_of(s, mask)) {
		free(pp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < np; i++) {
		const struct figsum_point *a = pp[i].off, *b = pp[i].on;

		pair_label(s, &pp[i], mask, lab, sizeof(lab));
		if (figgp_chars(lab) > maxlab)
			maxlab = figgp_chars(lab);
		fprintf(bars, "%zu ", i);
		figgp_label(bars, lab);
		fprintf(bars, " %g %g", a->n, b->n);
		for (int m = FIGSUM_AVG; m <= FIGSUM_P99; m++)
			stat6(bars, a, b, m);
		fputc('\n', bars);
		fprintf(speedup, "%zu ", i);
		figgp_label(speedup, lab);
		for (int m = FIGSUM_AVG; m <= FIGSUM_P99; m++) {
			fputc(' ', speedup);
			figgp_num(speedup, b->med[m] > 0 ? a->med[m] / b->med[m] : NAN);
		}
		for (int m = FIGSUM_AVG; m <= FIGSUM_P99; m++) {
			int ov = -1;

			if (!a->single && !b->single && isfinite(a->lo[m]) && isfinite(b->lo[m]))
				ov = !(a->lo[m] > b->hi[m] || b->lo[m] > a->hi[m]);
			fprintf(speedup, " %d", ov);
		}
		npaired += paired_cols(speedup, &pp[i]);
		if (s->ref)
			nref += (size_t)ref_cols(speedup, s, &pp[i]);
		fputc('\n', speedup);
	}
	if (pair_ci_labels(pp, np, ci, sizeof(ci), &minmax)) {
		free(pp);
		return -ENOMEM;
	}
	figgp_var_num(vars, "npairs", (double)np);
	figgp_var_str(vars, "cilabel", ci);
	figgp_var_num(vars, "minmax", minmax);
	figgp_var_num(vars, "maxlab", (double)maxlab);
	figgp_var_num(vars, "npaired", (double)npaired);
	if (s->ref)
		ref_vars(vars, s, nref);
	free(pp);
	return (int)np;
}

/*
 * The reference cell of point P: its values grouped by source, "avg
 * 1.967, p99 1.099: SOURCE", groups "; "-joined ("" without any).
 */
static void ref_cell(const struct figsum *s, const struct figsum_point *p,
		     char *buf, size_t len)
{
	const struct figref_row *x[FIGSUM_P99 + 1];
	size_t off = 0;

	buf[0] = '\0';
	for (int m = FIGSUM_AVG; m <= FIGSUM_P99; m++)
		x[m] = figref_find(s->ref, p->point, m);
	for (int m = FIGSUM_AVG; m <= FIGSUM_P99; m++) {
		int first = 1;

		/* a group starts at the first metric of its source */
		for (int k = FIGSUM_AVG; x[m] && k < m && first; k++)
			first = !x[k] || strcmp(x[k]->source, x[m]->source);
		if (!first)
			continue;
		for (int k = m; x[m] && k <= FIGSUM_P99 && off < len; k++) {
			if (!x[k] || strcmp(x[k]->source, x[m]->source))
				continue;
			off += (size_t)snprintf(buf + off, len - off, "%s%s %g",
						k == m ? (off ? "; " : "") : ", ",
						figref_metric_name(k), x[k]->value);
		}
		if (x[m] && off < len)
			off += (size_t)snprintf(buf + off, len - off, ": %s", x[m]->source);
	}
}

int figsum_write_paired(const struct figsum *s, struct csv *out)
{
	unsigned char mask[FIGCFG_NPARAMS];
	char lab[1024], cell[96], rc[1024];
	size_t np, k = 0;
	int oom;
	struct pair *pp = make_pairs(s, &np, &oom);

	if (oom || mask_of(s, mask)) {
		free(pp);
		return -ENOMEM;
	}
	csv_header(out, s->ref ? "configuration,pairs,coverage,avg,p50,p99,reference" :
		   "configuration,pairs,coverage,avg,p50,p99");
	for (size_t i = 0; i < np; i++) {
		const struct figsum_paired *e = pair_paired(&pp[i]);

		if (!e)
			continue;
		pair_label(s, &pp[i], mask, lab, sizeof(lab));
		csv_str(out, lab);
		csv_double(out, e->n, 0);
		csv_double(out, isfinite(e->lo[FIGSUM_P50]) ? e->coverage : NAN, 4);
		for (int m = FIGSUM_AVG; m <= FIGSUM_P99; m++) {
			struct stats_paired sp = {
				.n = (size_t)e->n, .median = e->med[m], .lo = e->lo[m],
				.hi = e->hi[m], .rank_lo = isfinite(e->lo[m]),
				.verdict = e->verdict[m] > 0 ?
					   (enum stats_verdict)e->verdict[m] : STATS_UNDECIDED,
			};

			stats_paired_str(&sp, cell, sizeof(cell));
			csv_str(out, cell);
		}
		if (s->ref) {
			ref_cell(s, pp[i].on, rc, sizeof(rc));
			csv_str(out, rc);
		}
		csv_end_row(out);
		k++;
	}
	free(pp);
	return (int)k;
}

int figsum_write_energy(const struct figsum *s, FILE *dat, FILE *vars)
{
	unsigned char mask[FIGCFG_NPARAMS];
	char lab[1024], ci[512];
	size_t np, k = 0, maxlab = 0;
	int oom, minmax;
	struct pair *pp = make_pairs(s, &np, &oom);

	if (oom || mask_of(s, mask)) {
		free(pp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < np; i++) {
		const struct figsum_point *a = pp[i].off, *b = pp[i].on;

		if (!isfinite(a->med[FIGSUM_EPR]) || !isfinite(b->med[FIGSUM_EPR]))
			continue;
		pair_label(s, &pp[i], mask, lab, sizeof(lab));
		if (figgp_chars(lab) > maxlab)
			maxlab = figgp_chars(lab);
		fprintf(dat, "%zu ", k);
		figgp_label(dat, lab);
		fprintf(dat, " %g %g", a->n, b->n);
		stat6(dat, a, b, FIGSUM_EPR);
		stat6(dat, a, b, FIGSUM_POWER);
		fputc('\n', dat);
		pp[k++] = pp[i];
	}
	if (pair_ci_labels(pp, k, ci, sizeof(ci), &minmax)) {
		free(pp);
		return -ENOMEM;
	}
	figgp_var_num(vars, "npairs", (double)k);
	figgp_var_str(vars, "cilabel", ci);
	figgp_var_num(vars, "maxlab", (double)maxlab);
	free(pp);
	return (int)k;
}

/* Points by series (side, configuration but gap and requests), then load. */
static int series_cmp(const void *a, const void *b)
{
	const struct figsum_point *x = *(const struct figsum_point *const *)a;
	const struct figsum_point *y = *(const struct figsum_point *const *)b;
	struct figcfg cx = x->cfg, cy = y->cfg;
	double lx, ly;
	int d;

	/* the series key: no gap, no request count */
	cx.v[FIGCFG_INTERVAL][0] = cy.v[FIGCFG_INTERVAL][0] = '\0';
	cx.v[FIGCFG_REQUESTS][0] = cy.v[FIGCFG_REQUESTS][0] = '\0';
	d = x->side - y->side;
	if (!d)
		d = figcfg_cmp(&cx, &cy);
	if (d)
		return d;
	lx = atof(x->cfg.v[FIGCFG_INTERVAL]);
	ly = atof(y->cfg.v[FIGCFG_INTERVAL]);
	return (lx < ly) - (lx > ly);	/* longer gap: lower load first */
}

static int same_series(const struct figsum_point *x, const struct figsum_point *y)
{
	if (x->side != y->side)
		return 0;
	for (int k = 0; k < FIGCFG_NPARAMS; k++)
		if (k != FIGCFG_INTERVAL && k != FIGCFG_REQUESTS && strcmp(x->cfg.v[k], y->cfg.v[k]))
			return 0;
	return 1;
}

/*
 * A load series' name: its side when there are several, then what
 * varies but the gap and the count (the distribution stays in it; the
 * gap is the x axis).
 */
static void load_label(const struct figsum *s, const struct figsum_point *p0,
		       const unsigned char *mask, char *lab, size_t len)
{
	char w[512];
	size_t off = 0;

	if (s->nsides > 1)
		off = (size_t)snprintf(lab, len, "%s: ", s->side[p0->side]);
	figcfg_words(&p0->cfg, mask, FIGCFG_W_PQ | FIGCFG_W_NOGAP, w, sizeof(w));
	snprintf(lab + off, len - off, "%s%s%s", p0->cfg.v[FIGCFG_DIST],
		 *p0->cfg.v[FIGCFG_DIST] && *w ? ", " : "", w);
}

/* A series' N points: the load, its shifted x, p50 to p99 with their CIs, n. */
static void load_block(FILE *dat, const struct figsum_point *const *v, size_t n,
		       double shift)
{
	for (size_t i = 0; i < n; i++) {
		const struct figsum_point *p = v[i];
		double l = 1e6 / atof(p->cfg.v[FIGCFG_INTERVAL]);

		figgp_num(dat, l);
		fputc(' ', dat);
		figgp_num(dat, l * shift);
		for (int m = FIGSUM_P50; m <= FIGSUM_P99; m++) {
			fputc(' ', dat);
			figgp_num(dat, p->med[m]);
			fputc(' ', dat);
			figgp_num(dat, p->lo[m]);
			fputc(' ', dat);
			figgp_num(dat, p->hi[m]);
		}
		fprintf(dat, " %g\n", p->n);
	}
}

/* The x axis: the loads, with room either side for the shifted series on a log axis. */
static void load_axis(FILE *vars, const double *loads, size_t nloads)
{
	double lo = INFINITY, hi = 0;

	for (size_t k = 0; k < nloads; k++) {
		lo = fmin(lo, loads[k]);
		hi = fmax(hi, loads[k]);
	}
	figgp_var_num(vars, "xmin", nloads ? lo / 1.5 : 1);
	figgp_var_num(vars, "xmax", nloads ? hi * 1.5 : 10);
}

int figsum_write_load(const struct figsum *s, FILE *dat, FILE *vars,
		      size_t *nloads_out)
{
	const struct figsum_point **v = s->n ? malloc(s->n * sizeof(*v)) : NULL;
	unsigned char mask[FIGCFG_NPARAMS];
	size_t n = 0, nseries = 0, nloads = 0, *start, maxlab = 0;
	double *loads;
	char lab[1024], ci[512];

	loads = s->n ? malloc(s->n * sizeof(*loads)) : NULL;
	start = malloc((s->n + 1) * sizeof(*start));
	if ((s->n && (!v || !loads)) || !start || mask_of(s, mask)) {
		free(v);
		free(loads);
		free(start);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n; i++) {
		double iv;

		/* a point without a numeric gap has no load */
		if (csvtable_num(s->p[i].cfg.v[FIGCFG_INTERVAL], &iv) || iv <= 0)
			continue;
		v[n++] = &s->p[i];
	}
	if (n)
		qsort(v, n, sizeof(*v), series_cmp);
	for (size_t i = 0; i < n; i++) {
		double l = 1e6 / atof(v[i]->cfg.v[FIGCFG_INTERVAL]);
		size_t k;

		if (!i || !same_series(v[i - 1], v[i]))
			start[nseries++] = i;
		for (k = 0; k < nloads && loads[k] != l; k++)
			;
		if (k == nloads)
			loads[nloads++] = l;
	}
	start[nseries] = n;
	/* the series' names say what varies but the gap and the count */
	mask[FIGCFG_INTERVAL] = mask[FIGCFG_REQUESTS] = 0;
	figgp_var_num(vars, "nseries", (double)nseries);
	figgp_var_num(vars, "nloads", (double)nloads);
	figgp_array(vars, "names", nseries);
	for (size_t k = 0; k < nseries; k++) {
		const struct figsum_point *p0 = v[start[k]];
		/* shifts of a few % either side of the load, on a log axis */
		double shift = pow(10, 0.015 * ((double)k - (double)(nseries - 1) / 2));
		load_label(s, p0, mask, lab, sizeof(lab));
		figgp_elem_str(vars, "names", k + 1, lab);
		if (figgp_chars(lab) > maxlab)
			maxlab = figgp_chars(lab);
		if (k)
			fputs("\n\n", dat);
		load_block(dat, v + start[k], start[k + 1] - start[k], shift);
	}
	{
		int minmax;

		ci_labels(v, n, ci, sizeof(ci), &minmax);
		figgp_var_str(vars, "cilabel", ci);
	}
	load_axis(vars, loads, nloads);
	figgp_var_num(vars, "maxlab", (double)maxlab);
	*nloads_out = nloads;
	free(v);
	free(loads);
	free(start);
	return (int)nseries;
}
