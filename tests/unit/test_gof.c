// SPDX-License-Identifier: GPL-2.0
/*
 * lib/specfun, lib/qci and lib/gof against reference values computed
 * once with Debian's python3-scipy 1.10.1 (scipy.special, scipy.stats:
 * goodness_of_fit, spearmanr, kruskal, chi2, binom) on the same inputs,
 * which both sides draw from one 64-bit LCG (Knuth's MMIX constants, the
 * top 53 bits plus a half as the uniform), and written in below. The
 * qci ranks are also those of a brute-force search over every rank pair.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "unit.h"
#include "gof.h"
#include "qci.h"
#include "specfun.h"
#include "validity.h"

static uint64_t lcg_state;

static double lcg_uniform(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(lcg_state >> 11) + 0.5) / 9007199254740992.0;
}

/* 500 exponential gaps of mean 1000 (seed 1): sum 496919.38134135894. */
static void exp_gaps(double *x)
{
	lcg_state = 1;
	for (int i = 0; i < 500; i++)
		x[i] = -1000.0 * log(1 - lcg_uniform());
}

static void rel_eq(double got, double want, double tol, const char *what)
{
	ck_assert_msg(fabs(got - want) <= tol * fabs(want),
		      "%s: %.17g, scipy %.17g", what, got, want);
}

START_TEST(specfun_values)
{
	rel_eq(specfun_chi2_sf(3.84, 1), 0.05004352124870519, 1e-12, "chi2 1");
	rel_eq(specfun_chi2_sf(150, 120), 0.03307348091130466, 1e-12,
	       "chi2 120");
	rel_eq(specfun_gamma_q(0.5, 0.01), 0.887537083981715, 1e-12, "Q");
	rel_eq(specfun_t_sf2(2.0, 10), 0.07338803477074039, 1e-12, "t 10");
	rel_eq(specfun_t_sf2(0.3, 998), 0.7642396290974176, 1e-11, "t 998");
	rel_eq(specfun_beta_inc(2.5, 3.5, 0.7), 0.9228190654779194, 1e-12,
	       "I");
	ck_assert(isnan(specfun_gamma_q(-1, 1)));
	ck_assert(isnan(specfun_beta_inc(1, 1, 1.5)));
	ck_assert_double_eq(specfun_chi2_sf(0, 3), 1);
}
END_TEST

/* The classic asymptotic critical values of A^2 (case 0): 10 %, 5 %, 1 %. */
START_TEST(ad_asymptotic_cdf)
{
	ck_assert_double_eq_tol(gof_ad_cdf_inf(1.933), 0.90, 5e-4);
	ck_assert_double_eq_tol(gof_ad_cdf_inf(2.492), 0.95, 5e-4);
	ck_assert_double_eq_tol(gof_ad_cdf_inf(3.857), 0.99, 5e-4);
	ck_assert_double_eq(gof_ad_cdf_inf(0), 0);
}
END_TEST

START_TEST(ad_exponential)
{
	double x[500], sum = 0;
	struct gof_result r;

	exp_gaps(x);
	for (int i = 0; i < 500; i++)
		sum += x[i];
	rel_eq(sum, 496919.38134135894, 1e-14, "the inputs");
	/* goodness_of_fit(expon, known scale): A^2 exact, p by Monte Carlo
	 * (20000 samples, so within about 0.01). */
	ck_assert_int_eq(gof_ad_exp(x, 500, 1000, &r), 0);
	rel_eq(r.stat, 0.5516622935104465, 1e-9, "A2");
	ck_assert_double_eq_tol(r.p, 0.6937653117344132, 0.01);
	ck_assert_int_eq(gof_ad_exp(x, 500, 1200, &r), 0);
	rel_eq(r.stat, 6.605789619831626, 1e-9, "A2 wrong mean");
	ck_assert(r.p < 0.002);
	/* A gap of 0 (F = 0) weighs as F = DBL_MIN: finite, and larger. */
	x[17] = 0;
	ck_assert_int_eq(gof_ad_exp(x, 500, 1000, &r), 0);
	ck_assert(isfinite(r.stat) && r.stat > 0.5516622935104465 + 1);
	ck_assert_int_eq(gof_ad_exp(x, 7, 1000, &r), -EINVAL);
	ck_assert_int_eq(gof_ad_exp(x, 500, 0, &r), -EINVAL);
}
END_TEST

START_TEST(chi2_poisson)
{
	static double k[2000];
	struct gof_result r;
	double sum = 0;

	/* 2000 Poisson(100) values by inversion (seed 2): sum 200162. */
	lcg_state = 2;
	for (int i = 0; i < 2000; i++) {
		double u = lcg_uniform(), p = exp(-100.0), c = p;
		int n = 0;

		while (c < u) {
			n++;
			p = p * 100.0 / n;
			c += p;
		}
		k[i] = n;
		sum += n;
	}
	ck_assert_double_eq(sum, 200162);
	/* Cells K <= 73, 74..128, K >= 129: 57 cells, 56 df. */
	ck_assert_int_eq(gof_chi2_poisson(k, 2000, 100, &r), 0);
	ck_assert_int_eq(r.df, 56);
	rel_eq(r.stat, 62.29103455147996, 1e-9, "chi2");
	rel_eq(r.p, 0.26238170746043615, 1e-8, "chi2 p");
	for (int i = 0; i < 2000; i++)
		k[i] += 3;
	ck_assert_int_eq(gof_chi2_poisson(k, 2000, 100, &r), 0);
	rel_eq(r.stat, 260.50354053451014, 1e-9, "chi2 shifted");
	rel_eq(r.p, 3.9297382882287847e-28, 1e-6, "chi2 shifted p");
	ck_assert_int_eq(gof_chi2_poisson(k, 19, 100, &r), -EINVAL);
}
END_TEST

START_TEST(spearman_lags)
{
	static const double want[][2] = {
		{ -0.09151662360866311, 0.041004008798947895 },
		{ -0.010605536301081474, 0.8133673902336828 },
	};
	double x[500], y[499];
	struct gof_result r;

	exp_gaps(x);
	for (int lag = 1; lag <= 2; lag++) {
		ck_assert_int_eq(gof_spearman_lag(x, 500, lag, &r), 0);
		rel_eq(r.stat, want[lag - 1][0], 1e-9, "rho");
		rel_eq(r.p, want[lag - 1][1], 1e-9, "rho p");
	}
	ck_assert_int_eq(gof_spearman_lag(x, 500, 5, &r), 0);
	rel_eq(r.stat, 0.0367616678737222, 1e-9, "rho lag 5");
	rel_eq(r.p, 0.4144409078176239, 1e-9, "rho lag 5 p");
	/* Moving sums of two: dependent neighbours. */
	for (int i = 1; i < 500; i++)
		y[i - 1] = x[i] + x[i - 1];
	ck_assert_int_eq(gof_spearman_lag(y, 499, 1, &r), 0);
	rel_eq(r.stat, 0.427914810008371, 1e-9, "rho dependent");
	rel_eq(r.p, 1.3653387303544917e-23, 1e-6, "rho dependent p");
	ck_assert_int_eq(gof_spearman_lag(x, 3, 1, &r), -EINVAL);
}
END_TEST

START_TEST(kruskal_windows)
{
	double x[500], d[500], t[500];
	struct gof_result r;

	exp_gaps(x);
	ck_assert_int_eq(gof_kruskal(x, 500, 10, &r), 0);
	ck_assert_int_eq(r.df, 9);
	rel_eq(r.stat, 5.297174610778484, 1e-9, "H");
	rel_eq(r.p, 0.8076715909961963, 1e-9, "H p");
	for (int i = 0; i < 500; i++) {
		d[i] = x[i] + 2.0 * i;		/* drifts */
		t[i] = floor(x[i] / 300);	/* many ties */
	}
	ck_assert_int_eq(gof_kruskal(d, 500, 10, &r), 0);
	rel_eq(r.stat, 92.14310323353311, 1e-9, "H drift");
	rel_eq(r.p, 6.043172341461621e-16, 1e-6, "H drift p");
	ck_assert_int_eq(gof_kruskal(t, 500, 5, &r), 0);
	rel_eq(r.stat, 1.0865656834701578, 1e-9, "H ties");
	rel_eq(r.p, 0.8963978112419486, 1e-9, "H ties p");
	ck_assert_int_eq(gof_kruskal(x, 49, 10, &r), -EINVAL);
}
END_TEST

/* The drift's size: window medians of the same windows as gof_kruskal. */
START_TEST(window_medians)
{
	double x[53], lo, hi;

	for (int i = 0; i < 53; i++)	/* windows of 10 or 11: 0-9, 10-20 ... */
		x[i] = i % 2 ? 1000 + i : i;
	ck_assert_int_eq(gof_window_medians(x, 53, 5, &lo, &hi), 0);
	/* x[10..20]: 6 even values 10-20, 5 odd ones past 1000: median 20;
	 * x[31..41]: 6 odd ones 1031-1041, 5 even: median 1031 */
	ck_assert_double_eq_tol(lo, 20, 1e-12);
	ck_assert_double_eq_tol(hi, 1031, 1e-12);
	ck_assert_int_eq(gof_window_medians(x, 24, 5, &lo, &hi), -EINVAL);
}
END_TEST

START_TEST(spread_fixed)
{
	double v[4] = { 99, 101, 99, 101 };
	struct gof_result r;

	ck_assert_int_eq(gof_spread(v, 4, &r), 0);
	/* sd = sqrt(4 / 3), mean 100 */
	ck_assert_double_eq_tol(r.stat, sqrt(4.0 / 3) / 100, 1e-15);
	ck_assert(isnan(r.p));
	ck_assert_int_eq(gof_spread(v, 1, &r), -EINVAL);
}
END_TEST

struct qci_case {
	uint64_t n;
	double p;
	uint64_t lo, hi;
	double cov;
};

/* Brute force over every rank pair (scipy.stats.binom) gave these. */
START_TEST(qci_tightest_ranks)
{
	static const struct qci_case c[] = {
		{ 20, 0.5, 6, 15, 0.9586105346679688 },
		{ 50, 0.5, 18, 32, 0.9511261076817297 },
		{ 30, 0.75, 18, 28, 0.9678104884367237 },
		{ 100, 0.5, 40, 60, 0.9539559330706572 },
		{ 100, 0.9, 84, 96, 0.955690107191223 },
		{ 1000, 0.9, 881, 919, 0.9549071811148261 },
		{ 1000, 0.99, 984, 997, 0.9635363098183776 },
		{ 10000, 0.999, 9984, 9997, 0.9627139012489605 },
	};
	/* n = 10^6: the narrowest width reaching 95 % and its best pair,
	 * found by scipy.stats.binom.cdf around n p (the width one less
	 * reaches at most 0.94989, 0.94999 and 0.94835) */
	static const struct qci_case m[] = {
		{ 1000000, 0.5, 499020, 500980, 0.95000414940742 },
		{ 1000000, 0.99, 989805, 990196, 0.9505711243554504 },
		{ 1000000, 0.999, 998938, 999062, 0.9502066318459009 },
	};
	struct qci q5;

	/* n = 5: no pair reaches 95 % for the median; the best, [X(1), X(5)],
	 * covers 1 - 2 / 2^5 */
	ck_assert_int_eq(qci_ranks(5, 0.5, QCI_LEVEL95, &q5), -ERANGE);
	ck_assert_double_eq_tol(q5.coverage, 0.9375, 1e-12);
	ck_assert_int_eq(qci_ranks(5, 0.5, 0.9, &q5), 0);
	ck_assert(q5.lo == 1 && q5.hi == 5);
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct qci q;

		ck_assert_int_eq(qci_ranks(m[i].n, m[i].p, QCI_LEVEL95, &q), 0);
		ck_assert_msg(q.hi - q.lo == m[i].hi - m[i].lo,
			      "n=%llu p=%g: width %llu",
			      (unsigned long long)m[i].n, m[i].p,
			      (unsigned long long)(q.hi - q.lo));
		rel_eq(q.coverage, m[i].cov, 1e-9, "coverage at 10^6");
		ck_assert(q.lo == m[i].lo && q.hi == m[i].hi);
	}

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct qci q;

		ck_assert_int_eq(qci_ranks(c[i].n, c[i].p, QCI_LEVEL95, &q), 0);
		ck_assert_msg(q.lo == c[i].lo && q.hi == c[i].hi,
			      "n=%llu p=%g: [%llu, %llu]",
			      (unsigned long long)c[i].n, c[i].p,
			      (unsigned long long)q.lo,
			      (unsigned long long)q.hi);
		rel_eq(q.coverage, c[i].cov, 1e-11, "coverage");
		rel_eq(qci_coverage(c[i].n, c[i].p, q.lo, q.hi), c[i].cov,
		       1e-11, "qci_coverage");
	}
}
END_TEST

START_TEST(qci_cannot_bound)
{
	struct qci q;

	/* p99.9 of 1000: even [X(1), X(1000)] covers 1 - 0.999^1000 - 1e-3000. */
	ck_assert_int_eq(qci_ranks(1000, 0.999, QCI_LEVEL95, &q), -ERANGE);
	ck_assert(q.lo == 0 && q.hi == 0);
	ck_assert_double_eq_tol(q.coverage, 1 - pow(0.999, 1000), 1e-9);
	ck_assert_int_eq(qci_ranks(100, 0.99, QCI_LEVEL95, &q), -ERANGE);
	ck_assert_int_eq(qci_ranks(1, 0.5, QCI_LEVEL95, &q), -ERANGE);
	ck_assert_int_eq(qci_ranks(100, 1.0, QCI_LEVEL95, &q), -EINVAL);
	ck_assert_int_eq(qci_ranks(100, 0.5, 1.0, &q), -EINVAL);
}
END_TEST

/* Large n stays cheap and near the level: p99.99 of 1e8 samples. */
START_TEST(qci_large_n)
{
	struct qci q;

	ck_assert_int_eq(qci_ranks(100000000, 0.9999, QCI_LEVEL95, &q), 0);
	ck_assert(q.lo < 99990000 && q.hi > 99990000);
	ck_assert(q.coverage >= 0.95 && q.coverage < 0.951);
	rel_eq(qci_coverage(100000000, 0.9999, q.lo, q.hi), q.coverage, 1e-9,
	       "large n");
}
END_TEST

/* 2000 requests at exponential gaps of 1 ms, logged out of order. */
static struct validity_log *exp_run(double stall_every_ns, double stall_ns,
				    double drift_ns)
{
	struct validity_log *l = validity_log_new(1 << 20);
	static uint64_t sent[2000];
	double t = 0, free_at = 0;

	lcg_state = 5;
	for (int i = 0; i < 2000; i++) {
		t += -1e6 * log(1 - lcg_uniform());
		/* a stalled generator sends what fell due at the stall's end */
		if (stall_every_ns > 0 && fmod(t, stall_every_ns) < stall_ns)
			free_at = t - fmod(t, stall_every_ns) + stall_ns;
		sent[i] = (uint64_t)(t > free_at ? t : free_at);
	}
	for (int i = 0; i < 2000; i++) {
		int k = (i * 7) % 2000;	/* 7 is prime to 2000: a shuffle */

		ck_assert_int_eq(validity_log_add(l, sent[k],
			(uint64_t)(50000 + 20000 * lcg_uniform() + drift_ns * k)), 0);
	}
	return l;
}

START_TEST(validity_verdicts)
{
	struct validity_cfg c = { .dist = ARRIVAL_EXP, .mean_ns = 1e6 };
	struct validity v;
	struct validity_log *l = exp_run(0, 0, 0);

	ck_assert_int_eq(validity_run(l, &c, &v), 0);
	ck_assert(v.gaps.ran && v.indep.ran && v.stationary.ran);
	ck_assert_msg(v.pass, "a clean run failed: gaps p %g, indep p %g, "
		      "stationary p %g", v.gaps.p, v.indep.p, v.stationary.p);
	ck_assert_int_eq(v.gaps.n, 1999);
	validity_log_free(l);
	/* Stopped 5 ms every 50 ms: the sends pile up after each stop. */
	l = exp_run(50e6, 5e6, 0);
	ck_assert_int_eq(validity_run(l, &c, &v), 0);
	ck_assert_msg(!v.gaps.pass && v.gaps.p < 1e-4, "stalls: p %g", v.gaps.p);
	validity_log_free(l);
	/* Latency growing 20 ns a request (40 us over the run): drifts. */
	l = exp_run(0, 0, 20);
	ck_assert_int_eq(validity_run(l, &c, &v), 0);
	ck_assert(v.gaps.pass && !v.stationary.pass && v.stationary.p < 1e-6);
	ck_assert(!v.pass);
	/* Closed loop: no schedule to test. */
	c.closed = 1;
	ck_assert_int_eq(validity_run(l, &c, &v), 0);
	ck_assert(!v.gaps.ran && !v.indep.ran && v.stationary.ran);
	ck_assert(strstr(v.gaps.why, "closed loop"));
	validity_log_free(l);
}
END_TEST

/*
 * The laws of issue 36 (lib/arrival): lognormal gaps fit their law and
 * not one of another mean; pareto has no fit test, a burst neither a fit
 * nor an independence test.
 */
START_TEST(validity_laws)
{
	struct validity_cfg c = { .dist = ARRIVAL_LOGNORMAL, .par = { 1 },
				  .mean_ns = 1e6 };
	struct validity_log *l = validity_log_new(1 << 20);
	struct arrival_law law = { .dist = ARRIVAL_LOGNORMAL, .par = { 1 } };
	struct validity v;
	struct arrival a;
	uint64_t t = 0;

	arrival_init_law(&a, &law, 1e6, 3);
	lcg_state = 7;
	for (int i = 0; i < 3000; i++) {
		t += arrival_next_ns(&a);
		ck_assert_int_eq(validity_log_add(l, t,
			(uint64_t)(50000 + 20000 * lcg_uniform())), 0);
	}
	ck_assert_int_eq(validity_run(l, &c, &v), 0);
	ck_assert_msg(v.gaps.ran && v.gaps.pass, "lognormal: p %g", v.gaps.p);
	ck_assert_ptr_nonnull(strstr(v.gaps.what, "vs lognormal:1, mean 1000 us"));
	c.mean_ns = 1.2e6;
	ck_assert_int_eq(validity_run(l, &c, &v), 0);
	ck_assert_msg(v.gaps.ran && !v.gaps.pass, "20 %% off: p %g", v.gaps.p);
	c.dist = ARRIVAL_PARETO;
	c.par[0] = 2.5;
	ck_assert_int_eq(validity_run(l, &c, &v), 0);
	ck_assert(!v.gaps.ran && strstr(v.gaps.why, "no fit test for pareto"));
	c.dist = ARRIVAL_ONOFF;
	c.varying = 1;
	ck_assert_int_eq(validity_run(l, &c, &v), 0);
	ck_assert(!v.gaps.ran && !v.indep.ran && v.stationary.ran);
	validity_log_free(l);
}
END_TEST

START_TEST(validity_fixed_and_bounds)
{
	struct validity_cfg c = { .dist = ARRIVAL_FIXED, .mean_ns = 1e5 };
	struct validity_log *a = validity_log_new(100), *b = validity_log_new(80);
	struct validity v;

	/* nothing measured (the server was down): every test says why */
	ck_assert_int_eq(validity_run(a, &c, &v), 0);
	ck_assert(!v.gaps.ran && !v.indep.ran && !v.stationary.ran && v.pass);
	ck_assert(strstr(v.stationary.why, "too few"));

	for (int i = 0; i < 150; i++)
		ck_assert_int_eq(validity_log_add(a, 100000ull * (uint64_t)i,
			i % 3 ? 1000 : VALIDITY_NO_REPLY), i < 100 ? 0 : 1);
	ck_assert_int_eq(validity_log_count(a), 100);
	ck_assert_int_eq(validity_log_left_out(a), 50);
	ck_assert_int_eq(validity_run(a, &c, &v), 0);
	/* exact gaps: CV 0 fits; a constant series shows no dependence;
	 * 66 replies of equal latency: no drift */
	ck_assert(v.gaps.ran && v.gaps.pass && v.gaps.stat == 0);
	ck_assert(v.indep.pass && v.stationary.pass);
	ck_assert_int_eq(v.left_out, 50);
	/* Merging into a smaller log: what does not fit is left out. */
	ck_assert_int_eq(validity_log_merge(b, a), 0);
	ck_assert_int_eq(validity_log_count(b), 80);
	ck_assert_int_eq(validity_log_left_out(b), 70);
	ck_assert_int_eq(validity_log_count(a), 0);
	/* Gaps 2 % apart around the mean: not fixed. */
	validity_log_free(a);
	a = validity_log_new(1000);
	for (int i = 0; i < 100; i++)
		validity_log_add(a, (uint64_t)i * 100000 + (i % 2) * 2000, 1000);
	ck_assert_int_eq(validity_run(a, &c, &v), 0);
	ck_assert(!v.gaps.pass && v.gaps.stat > VALIDITY_FIXED_CV);
	validity_log_free(a);
	validity_log_free(b);
}
END_TEST

Suite *gof_suite(void)
{
	Suite *s = suite_create("gof");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, specfun_values);
	tcase_add_test(tc, ad_asymptotic_cdf);
	tcase_add_test(tc, ad_exponential);
	tcase_add_test(tc, chi2_poisson);
	tcase_add_test(tc, spearman_lags);
	tcase_add_test(tc, kruskal_windows);
	tcase_add_test(tc, window_medians);
	tcase_add_test(tc, spread_fixed);
	tcase_add_test(tc, qci_tightest_ranks);
	tcase_add_test(tc, qci_cannot_bound);
	tcase_add_test(tc, qci_large_n);
	tcase_add_test(tc, validity_verdicts);
	tcase_add_test(tc, validity_fixed_and_bounds);
	tcase_add_test(tc, validity_laws);
	suite_add_tcase(s, tc);
	return s;
}
