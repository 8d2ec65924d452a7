// SPDX-License-Identifier: GPL-2.0
/*
 * Generators are checked the way a reviewer would: means over 1e6 draws,
 * then goodness of fit (Kolmogorov-Smirnov for exp, chi-square on the PMF
 * for poisson). Seeds are fixed, so the tests are deterministic; each
 * fit test is also shown to reject a slightly wrong distribution, so it
 * has teeth.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "unit.h"
#include "arrival.h"

static double mean_of(enum arrival_dist d, double mean_ns, int n, uint64_t seed)
{
	struct arrival a;
	double sum = 0;

	ck_assert_int_eq(arrival_init(&a, d, mean_ns, seed), 0);
	for (int i = 0; i < n; i++)
		sum += (double)arrival_next_ns(&a);
	return sum / n;
}

START_TEST(means_within_one_percent)
{
	static const struct { enum arrival_dist d; double mean_ns; } cases[] = {
		{ ARRIVAL_FIXED, 1e6 }, { ARRIVAL_FIXED, 333.3 },
		{ ARRIVAL_EXP, 1e5 }, { ARRIVAL_EXP, 5e6 },
		{ ARRIVAL_POISSON, 1e3 }, { ARRIVAL_POISSON, 5e3 },
		{ ARRIVAL_POISSON, 1e4 }, { ARRIVAL_POISSON, 1e5 },
		{ ARRIVAL_POISSON, 1e7 }, { ARRIVAL_POISSON, 1e10 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double m = mean_of(cases[i].d, cases[i].mean_ns, 1000000, i + 1);
		double want = cases[i].d == ARRIVAL_FIXED ?
			      llround(cases[i].mean_ns) : cases[i].mean_ns;

		ck_assert_msg(fabs(m - want) <= 0.01 * want,
			      "case %zu: mean %f want %f", i, m, want);
	}
}
END_TEST

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* KS statistic of samples against Exponential(mean). */
static double ks_exp(double *x, int n, double mean)
{
	double d = 0;

	qsort(x, (size_t)n, sizeof(*x), cmp_double);
	for (int i = 0; i < n; i++) {
		double f = 1 - exp(-x[i] / mean);
		double lo = f - (double)i / n, hi = (double)(i + 1) / n - f;

		d = fmax(d, fmax(lo, hi));
	}
	return d;
}

START_TEST(exp_kolmogorov_smirnov)
{
	const int n = 100000;
	const double crit = 1.63 / sqrt(n);	/* alpha = 0.01 */
	double *x = malloc(n * sizeof(*x));
	struct arrival a;

	for (uint64_t seed = 1; seed <= 3; seed++) {
		arrival_init(&a, ARRIVAL_EXP, 5e6, seed);
		for (int i = 0; i < n; i++)
			x[i] = (double)arrival_next_ns(&a);
		ck_assert_msg(ks_exp(x, n, 5e6) < crit, "seed %llu",
			      (unsigned long long)seed);
		/* Teeth: the same sample against a mean 2 % off is rejected. */
		ck_assert(ks_exp(x, n, 5.1e6) > crit);
	}
	/* Fixed gaps are not exponential. */
	arrival_init(&a, ARRIVAL_FIXED, 5e6, 1);
	for (int i = 0; i < n; i++)
		x[i] = (double)arrival_next_ns(&a);
	ck_assert(ks_exp(x, n, 5e6) > crit);
	free(x);
}
END_TEST

/* Upper regularized incomplete gamma Q(s, x) (Numerical Recipes gammq). */
static double gammq(double s, double x)
{
	double gln = lgamma(s);

	if (x <= 0)
		return 1;
	if (x < s + 1) {
		double ap = s, sum = 1 / s, del = sum;

		for (int i = 0; i < 100000; i++) {
			ap += 1;
			del *= x / ap;
			sum += del;
			if (fabs(del) < fabs(sum) * 1e-15)
				break;
		}
		return 1 - sum * exp(-x + s * log(x) - gln);
	}
	double b = x + 1 - s, c = 1 / 1e-300, d = 1 / b, h = d;

	for (int i = 1; i < 100000; i++) {
		double an = -i * (i - s), del;

		b += 2;
		d = an * d + b;
		if (fabs(d) < 1e-300)
			d = 1e-300;
		c = b + an / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return exp(-x + s * log(x) - gln) * h;
}

static double pois_pmf(double k, double l)
{
	return exp(k * log(l) - l - lgamma(k + 1));
}

/*
 * Chi-square p-value of n draws of Poisson(lambda_draw) (in us) against
 * the Poisson(lambda_ref) PMF; bins of expected count >= 5, tails pooled.
 */
static double chi2_poisson(double lambda_draw, double lambda_ref, int n,
			   uint64_t seed)
{
	double sd = sqrt(lambda_ref);
	long lo = (long)fmax(0, floor(lambda_ref - 8 * sd - 10));
	long hi = (long)ceil(lambda_ref + 8 * sd + 10);
	long nb = hi - lo + 1;
	double *obs = calloc((size_t)nb + 2, sizeof(double));
	struct arrival a;
	double chi2 = 0, e_acc = 0, o_acc = 0, cdf_lo;
	int dof = -1;

	ck_assert_int_eq(arrival_init(&a, ARRIVAL_POISSON, lambda_draw * 1e3,
				      seed), 0);
	for (int i = 0; i < n; i++) {
		long k = (long)(arrival_next_ns(&a) / 1000);

		obs[k < lo ? 0 : k > hi ? nb + 1 : k - lo + 1]++;
	}
	/* Probability below lo, pooled into the first bin. */
	cdf_lo = 0;
	for (long k = 0; k < lo; k++)
		cdf_lo += pois_pmf((double)k, lambda_ref);
	e_acc = cdf_lo * n;
	o_acc = obs[0];
	double p_seen = cdf_lo;

	for (long k = lo; k <= hi; k++) {
		double p = pois_pmf((double)k, lambda_ref);

		p_seen += p;
		e_acc += p * n;
		o_acc += obs[k - lo + 1];
		if (e_acc >= 5 && (1 - p_seen) * n >= 5) {
			chi2 += (o_acc - e_acc) * (o_acc - e_acc) / e_acc;
			dof++;
			e_acc = o_acc = 0;
		}
	}
	/* Upper tail (and what is left of the last bins). */
	e_acc += fmax(0, 1 - p_seen) * n;
	o_acc += obs[nb + 1];
	chi2 += (o_acc - e_acc) * (o_acc - e_acc) / e_acc;
	dof++;
	free(obs);
	return gammq(dof / 2.0, chi2 / 2.0);
}

START_TEST(poisson_chi_square)
{
	static const double lambdas[] = { 1, 3, 10, 50, 1000, 1e7 };

	for (size_t i = 0; i < sizeof(lambdas) / sizeof(lambdas[0]); i++) {
		double p = chi2_poisson(lambdas[i], lambdas[i], 200000, i + 11);

		ck_assert_msg(p > 0.001, "lambda %g: p = %g", lambdas[i], p);
	}
	/* Teeth: a 2 % larger lambda is rejected against the reference PMF. */
	ck_assert(chi2_poisson(1020, 1000, 200000, 5) < 0.001);
	ck_assert(chi2_poisson(11, 10, 200000, 5) < 0.001);
}
END_TEST

START_TEST(poisson_variance)
{
	static const double lambdas[] = { 2, 10, 1000, 1e6 };

	for (size_t i = 0; i < sizeof(lambdas) / sizeof(lambdas[0]); i++) {
		struct arrival a;
		double sum = 0, sum2 = 0, var, mean;
		const int n = 200000;

		arrival_init(&a, ARRIVAL_POISSON, lambdas[i] * 1e3, 99);
		for (int k = 0; k < n; k++) {
			double x = (double)(arrival_next_ns(&a) / 1000);

			sum += x;
			sum2 += x * x;
		}
		mean = sum / n;
		var = sum2 / n - mean * mean;
		ck_assert_msg(fabs(var - lambdas[i]) < 0.03 * lambdas[i],
			      "lambda %g: variance %g", lambdas[i], var);
	}
}
END_TEST

START_TEST(whole_microseconds)
{
	struct arrival a;

	arrival_init(&a, ARRIVAL_POISSON, 250e3, 3);
	for (int i = 0; i < 10000; i++)
		ck_assert_uint_eq(arrival_next_ns(&a) % 1000, 0);
}
END_TEST

START_TEST(rejects_bad_parameters)
{
	struct arrival a;
	enum arrival_dist d;

	ck_assert_int_eq(arrival_init(&a, ARRIVAL_EXP, 0, 1), -EINVAL);
	ck_assert_int_eq(arrival_init(&a, ARRIVAL_EXP, -5, 1), -EINVAL);
	ck_assert_int_eq(arrival_init(&a, ARRIVAL_FIXED, NAN, 1), -EINVAL);
	ck_assert_int_eq(arrival_init(&a, ARRIVAL_FIXED, INFINITY, 1), -EINVAL);
	ck_assert_int_eq(arrival_init(&a, ARRIVAL_POISSON, 1500, 1), -EINVAL);
	ck_assert_int_eq(arrival_init(&a, ARRIVAL_POISSON, 500, 1), -EINVAL);
	ck_assert_int_eq(arrival_init(&a, ARRIVAL_POISSON, 1e10 + 1e3, 1), -EINVAL);
	ck_assert_int_eq(arrival_init(&a, ARRIVAL_POISSON, 1e10, 1), 0);
	ck_assert_int_eq(arrival_dist_parse("foo", &d), -1);
	ck_assert_int_eq(arrival_dist_parse("exponential", &d), 0);
	ck_assert_int_eq(d, ARRIVAL_EXP);
	ck_assert_int_eq(arrival_dist_parse("poisson", &d), 0);
	ck_assert_str_eq(arrival_dist_name(d), "poisson");
}
END_TEST

START_TEST(same_seed_same_gaps)
{
	for (int d = ARRIVAL_FIXED; d <= ARRIVAL_POISSON; d++) {
		struct arrival a, b, c;
		int differ = 0;

		arrival_init(&a, (enum arrival_dist)d, 100e3, 5);
		arrival_init(&b, (enum arrival_dist)d, 100e3, 5);
		arrival_init(&c, (enum arrival_dist)d, 100e3, 6);
		for (int i = 0; i < 1000; i++) {
			uint64_t x = arrival_next_ns(&a);

			ck_assert_uint_eq(x, arrival_next_ns(&b));
			differ += x != arrival_next_ns(&c);
		}
		if (d != ARRIVAL_FIXED)
			ck_assert_int_gt(differ, 900);
	}
}
END_TEST

Suite *arrival_suite(void)
{
	Suite *s = suite_create("arrival");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, means_within_one_percent);
	tcase_add_test(tc, exp_kolmogorov_smirnov);
	tcase_add_test(tc, poisson_chi_square);
	tcase_add_test(tc, poisson_variance);
	tcase_add_test(tc, whole_microseconds);
	tcase_add_test(tc, rejects_bad_parameters);
	tcase_add_test(tc, same_seed_same_gaps);
	suite_add_tcase(s, tc);
	return s;
}
