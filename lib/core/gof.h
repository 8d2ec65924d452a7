/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gof: tests of the workload a run really sent and of the latency it
 * measured (DESIGN.md "Valid runs"; Lancet, ATC 2019).
 *
 * - gof_ad_exp: Anderson-Darling of gaps against the exponential law of
 *   the target mean (fully specified: the mean is the configured one, not
 *   estimated, so a generator that drifts from it fails too); p-value from
 *   the asymptotic distribution of A^2 (Marsaglia & Marsaglia, J. Stat.
 *   Softw. 9(2), 2004), within 0.005 of the exact one from n = 8 on.
 * - gof_chi2_poisson: chi-square of gaps rounded to whole microseconds
 *   against Poisson(lambda), the cells merged from the tails in until each
 *   expects at least 5.
 * - gof_spread: the coefficient of variation of gaps meant to be fixed.
 * - gof_spearman_lag: Spearman's rank correlation of x[i] and x[i + lag]
 *   (independence), two-sided p-value from Student's t with n - 2 df, as
 *   scipy.stats.spearmanr.
 * - gof_kruskal: Kruskal-Wallis H of x cut into k equal windows in time
 *   order (stationarity), tie-corrected, p from chi-square with k - 1 df,
 *   as scipy.stats.kruskal.
 * Each returns 0 and fills its result, -EINVAL when there are too few
 * values for the test to mean anything (stated per function), -ENOMEM.
 * The input is never modified.
 */
#ifndef WB_GOF_H
#define WB_GOF_H

#include <stddef.h>

struct gof_result {
	double stat;	/* A^2, chi^2, CV, rho or H */
	double p;	/* NAN for gof_spread, which has none */
	size_t n;	/* values used */
	int df;		/* degrees of freedom where the test has them */
};

/* P(A^2 <= z) as n grows (the asymptotic CDF), z >= 0. */
double gof_ad_cdf_inf(double z);
/* n >= 8 gaps > 0 expected, mean > 0. */
int gof_ad_exp(const double *x, size_t n, double mean, struct gof_result *r);
/*
 * Anderson-Darling of x against any fully specified continuous law, given
 * by logcdf(arg, x, &ln F(x), &ln(1 - F(x))) (finite values): the same
 * statistic and p as gof_ad_exp. n >= 8.
 */
int gof_ad_law(const double *x, size_t n,
	       void (*logcdf)(const void *arg, double x, double *lnf,
			      double *lnsf),
	       const void *arg, struct gof_result *r);
/* n >= 20, lambda > 0; x in microseconds. */
int gof_chi2_poisson(const double *x, size_t n, double lambda,
		     struct gof_result *r);
/* n >= 2, mean of x > 0. */
int gof_spread(const double *x, size_t n, struct gof_result *r);
/* n >= lag + 3, lag >= 1. */
int gof_spearman_lag(const double *x, size_t n, size_t lag,
		     struct gof_result *r);
/* k >= 2 windows of at least 5 values each. */
int gof_kruskal(const double *x, size_t n, size_t k, struct gof_result *r);
/*
 * The size of what gof_kruskal detects: the lowest and highest median of
 * its k windows. With thousands of values a shift of a few percent is
 * "significant"; the range says whether it matters. 0, -EINVAL (as
 * gof_kruskal), -ENOMEM.
 */
int gof_window_medians(const double *x, size_t n, size_t k, double *lo,
		       double *hi);

#endif
