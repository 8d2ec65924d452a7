// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include "unit.h"
#include "prng.h"
#include "stats.h"

/* Hand-computed: n = 10, z sqrt(n) = 6.198: floor(1.901) = 1,
 * ceil(1 + 8.099) = 10. n = 30: 10.735 -> floor(9.63) = 9,
 * ceil(1 + 20.37) = 22. n = 100: 19.6 -> 40, ceil(60.8) = 61.
 * n = 1000: 61.98 -> 469, ceil(1 + 530.99) = 532. n = 6: 4.80 ->
 * floor(0.6) = 0 -> 1, ceil(6.4) = 7 -> 6. */
START_TEST(ci_ranks)
{
	static const size_t cases[][3] = {
		{ 10, 1, 10 }, { 30, 9, 22 }, { 100, 40, 61 }, { 1000, 469, 532 },
		{ 6, 1, 6 }, { 1, 1, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t lo, hi;

		stats_ci_ranks(cases[i][0], STATS_Z95, &lo, &hi);
		ck_assert_msg(lo == cases[i][1] && hi == cases[i][2],
			      "n=%zu: [%zu, %zu]", cases[i][0], lo, hi);
	}
}
END_TEST

START_TEST(median_and_ci_values)
{
	/* 1..30 shuffled: median 15.5, CI values 9 and 22. */
	double v[30];
	struct stats_summary s;

	for (int i = 0; i < 30; i++)
		v[i] = (double)((i * 7) % 30 + 1);
	ck_assert_int_eq(stats_summarize(v, 30, 1, 1, &s), 0);
	ck_assert_double_eq(s.median, 15.5);
	ck_assert_double_eq(s.ci_lo, 9);
	ck_assert_double_eq(s.ci_hi, 22);
	ck_assert_int_eq(s.ci_exact, 1);
	ck_assert_double_eq_tol(s.mean, 15.5, 1e-12);
	ck_assert_double_eq_tol(s.sd, sqrt(77.5), 1e-9);
	/* Odd n, small n: whole range, flagged. */
	double w[3] = { 5, 1, 3 };

	ck_assert_int_eq(stats_summarize(w, 3, 1, 1, &s), 0);
	ck_assert_double_eq(s.median, 3);
	ck_assert_double_eq(s.ci_lo, 1);
	ck_assert_double_eq(s.ci_hi, 5);
	ck_assert_int_eq(s.ci_exact, 0);
	ck_assert_int_eq(stats_summarize(w, 0, 1, 1, &s), -EINVAL);
}
END_TEST

/* Parametric estimate: (100 z s / (r mean))^2 by hand. */
START_TEST(parametric_reps)
{
	double v[] = { 98, 102, 99, 101, 100 };	/* mean 100, s^2 = 2.5 */
	struct stats_summary s;

	stats_summarize(v, 5, 1, 1, &s);
	ck_assert_double_eq_tol(s.reps_param, pow(100 * 1.96 * sqrt(2.5) / 100, 2), 1e-9);
	ck_assert_double_eq_tol(s.reps_param, 9.604, 1e-9);
}
END_TEST

/* CONFIRM: a tight distribution needs few repetitions, a wide one many,
 * and the answer grows as the target tightens. */
START_TEST(confirm_estimates)
{
	double tight[60], wide[60];
	struct stats_summary a, b, c;
	struct prng p;

	prng_seed(&p, 9);
	for (int i = 0; i < 60; i++) {
		tight[i] = 100 + 0.5 * (2 * prng_uniform(&p) - 1);	/* +-0.5 % */
		wide[i] = 100 + 30 * (2 * prng_uniform(&p) - 1);	/* +-30 % */
	}
	stats_summarize(tight, 60, 1, 3, &a);
	stats_summarize(wide, 60, 1, 3, &b);
	stats_summarize(wide, 60, 10, 3, &c);
	ck_assert_int_gt(a.reps_confirm, 0);
	ck_assert_int_le(a.reps_confirm, 10);
	ck_assert(b.reps_confirm == -1 || b.reps_confirm > 100);
	ck_assert_int_gt(c.reps_confirm, 0);
	ck_assert(b.reps_confirm == -1 || c.reps_confirm < b.reps_confirm);
	ck_assert_int_ge(c.reps_confirm, a.reps_confirm);
	ck_assert(stats_overlap(1, 2, 2, 3));
	ck_assert(!stats_overlap(1, 2, 2.5, 3));
}
END_TEST

Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ci_ranks);
	tcase_add_test(tc, median_and_ci_values);
	tcase_add_test(tc, parametric_reps);
	tcase_add_test(tc, confirm_estimates);
	suite_add_tcase(s, tc);
	return s;
}
