// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gof.h"
#include "specfun.h"
#include "stats.h"

double gof_ad_cdf_inf(double z)
{
	if (!(z > 0))
		return 0;
	if (z < 2)
		return exp(-1.2337141 / z) / sqrt(z) *
		       (2.00012 + (0.247105 - (0.0649821 - (0.0347962 -
		       (0.011672 - 0.00168691 * z) * z) * z) * z) * z);
	return exp(-exp(1.0776 - (2.30695 - (0.43424 - (0.082433 -
		   (0.008056 - 0.0003146 * z) * z) * z) * z) * z));
}

int gof_ad_law(const double *x, size_t n,
	       void (*logcdf)(const void *arg, double x, double *lnf,
			      double *lnsf),
	       const void *arg, struct gof_result *r)
{
	double *s, sum = 0;

	if (n < 8)
		return -EINVAL;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, x, n * sizeof(*s));
	stats_sort(s, n);
	for (size_t i = 0; i < n; i++) {
		double lnf, lnsf, unused;

		logcdf(arg, s[i], &lnf, &unused);
		logcdf(arg, s[n - 1 - i], &unused, &lnsf);
		sum += (2.0 * (double)i + 1) * (lnf + lnsf);
	}
	free(s);
	r->stat = -(double)n - sum / (double)n;
	r->p = 1 - gof_ad_cdf_inf(r->stat);
	r->n = n;
	r->df = 0;
	return 0;
}

/*
 * ln F(x) and ln(1 - F(x)), F = 1 - e^(-x/mean); a gap of 0 (or below)
 * has F = 0: clamped so that the statistic is huge, not infinite.
 */
static void exp_log_cdf(const void *arg, double x, double *lnf, double *lnsf)
{
	double mean = *(const double *)arg;

	*lnf = log(fmax(-expm1(-fmax(x, 0) / mean), DBL_MIN));
	*lnsf = -fmax(x, 0) / mean;
}

int gof_ad_exp(const double *x, size_t n, double mean, struct gof_result *r)
{
	if (!(mean > 0))
		return -EINVAL;
	return gof_ad_law(x, n, exp_log_cdf, &mean, r);
}

/* P(K = k) for K ~ Poisson(lambda), by logs (lambda up to 1e7). */
static double poisson_pmf(double lambda, double k)
{
	return exp(k * log(lambda) - lambda - lgamma(k + 1));
}

int gof_chi2_poisson(const double *x, size_t n, double lambda,
		     struct gof_result *r)
{
	/* Cells: k in [lo, hi] one each, the tails below lo and above hi
	 * merged into the end cells until each expects >= 5. */
	double sd = sqrt(lambda), need = 5.0 / (double)n, stat = 0;
	double klo = floor(fmax(0, lambda - 12 * sd - 20));
	double khi = ceil(lambda + 12 * sd + 20), cum;
	size_t cells, *obs = NULL;
	double *expct = NULL, lo_edge, hi_edge;
	int ret = 0;

	if (n < 20 || !(lambda > 0) || lambda > 1e9)
		return -EINVAL;
	/* Lower edge: the smallest k whose cumulative mass P(K <= k) reaches
	 * need; the first cell is K <= lo_edge. */
	cum = 0;
	for (lo_edge = klo; lo_edge < khi; lo_edge++) {
		cum += poisson_pmf(lambda, lo_edge);
		if (cum >= need)
			break;
	}
	/* Upper edge: the largest k with P(K >= k) >= need. */
	cum = 0;
	for (hi_edge = khi; hi_edge > lo_edge; hi_edge--) {
		cum += poisson_pmf(lambda, hi_edge);
		if (cum >= need)
			break;
	}
	if (hi_edge <= lo_edge + 1)
		return -EINVAL;	/* too few values for two cells */
	cells = (size_t)(hi_edge - lo_edge) + 1;
	obs = calloc(cells, sizeof(*obs));
	expct = calloc(cells, sizeof(*expct));
	if (!obs || !expct) {
		ret = -ENOMEM;
		goto out;
	}
	/* Cell 0: K <= lo_edge; cell c: K = lo_edge + c; last: K >= hi_edge. */
	for (size_t c = 1; c + 1 < cells; c++)
		expct[c] = poisson_pmf(lambda, lo_edge + (double)c);
	cum = 0;
	for (double k = lo_edge; k >= 0 && k >= klo; k--)
		cum += poisson_pmf(lambda, k);
	expct[0] = cum;
	cum = 0;
	for (double k = hi_edge; k <= khi; k++)
		cum += poisson_pmf(lambda, k);
	expct[cells - 1] = cum;
	for (size_t i = 0; i < n; i++) {
		double k = nearbyint(x[i]);

		if (k <= lo_edge)
			obs[0]++;
		else if (k >= hi_edge)
			obs[cells - 1]++;
		else
			obs[(size_t)(k - lo_edge)]++;
	}
	for (size_t c = 0; c < cells; c++) {
		double e = expct[c] * (double)n, d = (double)obs[c] - e;

		stat += d * d / e;
	}
	r->stat = stat;
	r->df = (int)cells - 1;
	r->p = specfun_chi2_sf(stat, r->df);
	r->n = n;
out:
	free(obs);
	free(expct);
	return ret;
}

int gof_spread(const double *x, size_t n, struct gof_result *r)
{
	double mean = 0, m2 = 0;

	if (n < 2)
		return -EINVAL;
	/* Welford: one pass, no cancellation. */
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;

		mean += d / (double)(i + 1);
		m2 += d * (x[i] - mean);
	}
	if (!(mean > 0))
		return -EINVAL;
	r->stat = sqrt(m2 / (double)(n - 1)) / mean;
	r->p = NAN;
	r->n = n;
	r->df = 0;
	return 0;
}

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->v != y->v)
		return (x->v > y->v) - (x->v < y->v);
	return (x->i > y->i) - (x->i < y->i);
}

/*
 * rank[i] = the 1-based average rank of x[i] among x[0..n-1]; returns
 * the tie term sum(t^3 - t) over groups of t equal values, or -1 when out
 * of memory.
 */
static double rank_avg(const double *x, size_t n, double *rank)
{
	struct ranked *s = malloc(n * sizeof(*s));
	double ties = 0;

	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++)
		s[i] = (struct ranked){ x[i], i };
	qsort(s, n, sizeof(*s), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		double avg, t;

		while (j < n && s[j].v == s[i].v)
			j++;
		avg = ((double)i + 1 + (double)j) / 2;
		for (size_t k = i; k < j; k++)
			rank[s[k].i] = avg;
		t = (double)(j - i);
		ties += t * t * t - t;
		i = j;
	}
	free(s);
	return ties;
}

int gof_spearman_lag(const double *x, size_t n, size_t lag,
		     struct gof_result *r)
{
	size_t m;
	double *ra = NULL, *rb = NULL, ma = 0, mb = 0, sab = 0, saa = 0,
	       sbb = 0, rho, t;
	int ret = 0;

	if (lag < 1 || n < lag + 3)
		return -EINVAL;
	m = n - lag;
	ra = malloc(m * sizeof(*ra));
	rb = malloc(m * sizeof(*rb));
	if (!ra || !rb || rank_avg(x, m, ra) < 0 ||
	    rank_avg(x + lag, m, rb) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < m; i++) {
		ma += ra[i];
		mb += rb[i];
	}
	ma /= (double)m;
	mb /= (double)m;
	for (size_t i = 0; i < m; i++) {
		double da = ra[i] - ma, db = rb[i] - mb;

		sab += da * db;
		saa += da * da;
		sbb += db * db;
	}
	rho = saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
	r->stat = rho;
	r->n = m;
	r->df = (int)(m - 2);
	if (isnan(rho)) {
		r->p = NAN;	/* a constant series: no correlation to test */
	} else if (fabs(rho) >= 1) {
		r->p = 0;
	} else {
		t = rho * sqrt((double)(m - 2) / ((1 - rho) * (1 + rho)));
		r->p = specfun_t_sf2(t, (double)(m - 2));
	}
out:
	free(ra);
	free(rb);
	return ret;
}

int gof_kruskal(const double *x, size_t n, size_t k, struct gof_result *r)
{
	double *rank, ties, h = 0, dn = (double)n;

	if (k < 2 || n / k < 5)
		return -EINVAL;
	rank = malloc(n * sizeof(*rank));
	if (!rank)
		return -ENOMEM;
	ties = rank_avg(x, n, rank);
	if (ties < 0) {
		free(rank);
		return -ENOMEM;
	}
	/* Window w holds x[w n / k .. (w + 1) n / k - 1]: sizes differ by at
	 * most one. */
	for (size_t w = 0; w < k; w++) {
		size_t a = w * n / k, b = (w + 1) * n / k;
		double sum = 0;

		for (size_t i = a; i < b; i++)
			sum += rank[i];
		h += sum * sum / (double)(b - a);
	}
	free(rank);
	h = 12 / (dn * (dn + 1)) * h - 3 * (dn + 1);
	if (ties > 0)
		h /= 1 - ties / (dn * dn * dn - dn);
	r->stat = h;
	r->df = (int)k - 1;
	r->p = specfun_chi2_sf(h, (double)(k - 1));
	r->n = n;
	return 0;
}

int gof_window_medians(const double *x, size_t n, size_t k, double *lo,
		       double *hi)
{
	double *w;

	if (k < 2 || n / k < 5)
		return -EINVAL;
	w = malloc((n / k + 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	*lo = INFINITY;
	*hi = -INFINITY;
	/* The windows of gof_kruskal. */
	for (size_t i = 0; i < k; i++) {
		size_t a = i * n / k, m = (i + 1) * n / k - a;
		double med;

		memcpy(w, x + a, m * sizeof(*w));
		stats_sort(w, m);
		med = stats_median_sorted(w, m);
		*lo = fmin(*lo, med);
		*hi = fmax(*hi, med);
	}
	free(w);
	return 0;
}
