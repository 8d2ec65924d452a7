// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include "unit.h"
#include "prng.h"
#include "pareto.h"
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
	ck_assert_double_eq_tol(s.ci_coverage, 0.75, 1e-12);	/* 6/8 */
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

/* CONFIRM: a tight distribution needs few repetitions; a wide one (+-30 %)
 * cannot reach +-1 % with the 60 values there are, but reaches +-20 %
 * with more than the minimum 6. */
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
	stats_summarize(wide, 60, 20, 3, &c);
	ck_assert_int_gt(a.reps_confirm, 0);
	ck_assert_int_le(a.reps_confirm, 10);
	ck_assert_int_eq(b.reps_confirm, STATS_REPS_MORE);
	ck_assert_int_gt(c.reps_confirm, 6);
	ck_assert_int_le(c.reps_confirm, 60);
	ck_assert_int_ge(c.reps_confirm, a.reps_confirm);
	ck_assert(stats_overlap(1, 2, 2, 3));
	ck_assert(!stats_overlap(1, 2, 2.5, 3));
}
END_TEST

/* Exact coverage of the order-statistic interval: sum_{i=lo}^{hi-1}
 * C(n,i) / 2^n. n = 5, [1, 5]: 30/32; n = 10, [1, 10]: 1022/1024;
 * n = 6, [1, 6]: 62/64; n = 30, [9, 22]: 0.98388 (summed by hand in Python). */
START_TEST(ci_coverage_exact)
{
	struct stats_summary s;
	double v[5] = { 3, 1, 4, 1.5, 9 };
	char lab[64];

	ck_assert_double_eq_tol(stats_ci_coverage(5, 1, 5), 0.9375, 1e-12);
	ck_assert_double_eq_tol(stats_ci_coverage(10, 1, 10), 1022.0 / 1024, 1e-12);
	ck_assert_double_eq_tol(stats_ci_coverage(6, 1, 6), 62.0 / 64, 1e-12);
	ck_assert_double_eq_tol(stats_ci_coverage(30, 9, 22), 0.983875198, 1e-8);
	ck_assert_double_eq_tol(stats_ci_coverage(2, 1, 2), 0.5, 1e-12);
	ck_assert_double_eq(stats_ci_coverage(1, 1, 1), 0);
	ck_assert_double_eq(stats_ci_coverage(5, 3, 2), 0);
	ck_assert_double_eq(stats_ci_coverage(5, 0, 5), 0);
	/* Large n stays a probability and is near 95 %. */
	for (size_t n = 6; n <= 5000; n = n * 3 / 2) {
		size_t lo, hi;
		double c;

		stats_ci_ranks(n, STATS_Z95, &lo, &hi);
		c = stats_ci_coverage(n, lo, hi);
		ck_assert_msg(c >= 0.95 && c <= 1, "n=%zu: %g", n, c);
	}
	ck_assert_int_eq(stats_summarize(v, 5, 1, 1, &s), 0);
	ck_assert_double_eq_tol(s.ci_coverage, 0.9375, 1e-12);
	ck_assert_int_eq(s.ci_exact, 0);
	stats_ci_label(&s, lab, sizeof(lab));
	ck_assert_str_eq(lab, "93.8 % CI (min-max of n=5)");
}
END_TEST

/* The repro from issue 13: five values spread over four decades cannot
 * say how many repetitions +-1 % needs; the old resampling said 196. */
START_TEST(confirm_spread_is_more_than_n)
{
	double v[5] = { 1, 10, 100, 1000, 10000 };
	struct stats_summary s;
	char buf[16];

	ck_assert_int_eq(stats_summarize(v, 5, 1, 1, &s), 0);
	ck_assert_int_eq(s.reps_confirm, STATS_REPS_MORE);
	stats_reps_confirm_str(&s, buf, sizeof(buf));
	ck_assert_str_eq(buf, ">5");
	ck_assert_double_eq_tol(s.reps_param, 148429, 1);
	/* More values of the same spread still do not get there. */
	double w[40];

	for (int i = 0; i < 40; i++)
		w[i] = pow(10, i % 5);
	ck_assert_int_eq(stats_summarize(w, 40, 1, 1, &s), 0);
	ck_assert_int_eq(s.reps_confirm, STATS_REPS_MORE);
	stats_reps_confirm_str(&s, buf, sizeof(buf));
	ck_assert_str_eq(buf, ">40");
}
END_TEST

/* Tightly clustered values: a small k <= n; the same seed, the same k;
 * the answer never exceeds n. */
START_TEST(confirm_tight_small_k)
{
	double v[30];
	struct stats_summary a, b;
	struct prng p;

	prng_seed(&p, 5);
	for (int i = 0; i < 30; i++)
		v[i] = 1000 * (1 + 0.001 * (2 * prng_uniform(&p) - 1));
	ck_assert_int_eq(stats_summarize(v, 30, 1, 7, &a), 0);
	ck_assert_int_ge(a.reps_confirm, 6);
	ck_assert_int_le(a.reps_confirm, 8);
	ck_assert_int_eq(stats_summarize(v, 30, 1, 7, &b), 0);
	ck_assert_int_eq(a.reps_confirm, b.reps_confirm);
	/* +-0.05 %: within n, larger, and deterministic for a seed. */
	ck_assert_int_eq(stats_summarize(v, 30, 0.05, 7, &a), 0);
	ck_assert_int_eq(stats_summarize(v, 30, 0.05, 7, &b), 0);
	ck_assert_int_eq(a.reps_confirm, b.reps_confirm);
	ck_assert(a.reps_confirm == STATS_REPS_MORE ||
		  (a.reps_confirm > 6 && a.reps_confirm <= 30));
	/* Fewer than 6 values never support a 95 % CI. */
	ck_assert_int_eq(stats_summarize(v, 5, 1, 7, &a), 0);
	ck_assert_int_eq(a.reps_confirm, STATS_REPS_MORE);
}
END_TEST

/* The paired effect: ranks of the median's CI are the tightest with
 * binomial coverage >= 95 % (summed exactly in Python: n = 9: [2, 8],
 * 492/512; n = 20: [6, 15], 0.958610535; n = 5: none, min-max 30/32). */
START_TEST(paired_ranks_and_verdicts)
{
	/* n = 9: 8 pairs 2.5-3.3x, one stalled pair 0.5x: faster */
	double b9[9] = { 100, 100, 100, 100, 100, 100, 100, 100, 100 };
	double p9[9] = { 40, 200, 35, 38, 32, 30.303, 36, 34, 33 };
	double b20[20], p20[20], b5[5] = { 3, 3, 3, 3, 3 }, p5[5] = { 1, 1, 1, 1, 1 };
	struct stats_paired r;
	char buf[64];

	ck_assert_int_eq(stats_paired(b9, p9, 9, &r), 0);
	ck_assert_uint_eq(r.n, 9);
	ck_assert_uint_eq(r.rank_lo, 2);
	ck_assert_uint_eq(r.rank_hi, 8);
	ck_assert_double_eq_tol(r.coverage, 492.0 / 512, 1e-12);
	/* sorted ratios: 0.5, 2.5, 2.632, 2.778, 2.857, 2.941, 3.030, 3.125, 3.3 */
	ck_assert_double_eq_tol(r.lo, 2.5, 1e-12);
	ck_assert_double_eq_tol(r.hi, 100 / 32.0, 1e-12);
	ck_assert_double_eq_tol(r.median, 100 / 35.0, 1e-12);
	ck_assert_int_eq(r.verdict, STATS_FASTER);
	ck_assert_str_eq(stats_verdict_name(r.verdict), "faster");
	stats_paired_str(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2.857 [2.500, 3.125] faster");
	ck_assert_int_eq(stats_verdict_parse("faster"), STATS_FASTER);
	ck_assert_int_eq(stats_verdict_parse("slower"), STATS_SLOWER);
	ck_assert_int_eq(stats_verdict_parse("undecided"), STATS_UNDECIDED);
	ck_assert_int_eq(stats_verdict_parse("fast"), -1);
	/* n = 20, ratios 0.6 .. 1.55: the CI [r6, r15] holds 1 */
	for (int i = 0; i < 20; i++) {
		b20[i] = 10 * (0.6 + 0.05 * ((i * 7) % 20));
		p20[i] = 10;
	}
	ck_assert_int_eq(stats_paired(b20, p20, 20, &r), 0);
	ck_assert_uint_eq(r.rank_lo, 6);
	ck_assert_uint_eq(r.rank_hi, 15);
	ck_assert_double_eq_tol(r.coverage, 0.958610535, 1e-9);
	ck_assert_double_eq_tol(r.lo, 0.85, 1e-12);
	ck_assert_double_eq_tol(r.hi, 1.30, 1e-12);
	ck_assert_int_eq(r.verdict, STATS_UNDECIDED);
	ck_assert_str_eq(stats_verdict_name(r.verdict), "undecided");
	/* the same pairs the other way round: 1/1.30 .. 1/0.85 holds 1 too;
	 * with every ratio below 1 they are slower */
	for (int i = 0; i < 20; i++)
		b20[i] = 10 * (0.5 + 0.02 * i);	/* 0.50 .. 0.88 */
	ck_assert_int_eq(stats_paired(b20, p20, 20, &r), 0);
	ck_assert_double_eq_tol(r.hi, 0.78, 1e-12);	/* r15 */
	ck_assert_int_eq(r.verdict, STATS_SLOWER);
	ck_assert_str_eq(stats_verdict_name(r.verdict), "slower");
	/* n = 5: every pair 3x, yet no 95 % interval: undecided */
	ck_assert_int_eq(stats_paired(b5, p5, 5, &r), 0);
	ck_assert_uint_eq(r.n, 5);
	ck_assert_double_eq(r.median, 3);
	ck_assert_uint_eq(r.rank_lo, 0);
	ck_assert(isnan(r.lo) && isnan(r.hi));
	ck_assert_double_eq_tol(r.coverage, 30.0 / 32, 1e-12);
	ck_assert_int_eq(r.verdict, STATS_UNDECIDED);
	stats_paired_str(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "3.000 [-] undecided at n=5");
	/* a zero latency has no ratio: left out and counted */
	p9[4] = 0;
	ck_assert_int_eq(stats_paired(b9, p9, 9, &r), 0);
	ck_assert_uint_eq(r.n, 8);
	ck_assert_uint_eq(r.n_bad, 1);
	ck_assert_int_eq(stats_paired(b9, p9, 0, &r), 0);
	ck_assert_uint_eq(r.n, 0);
	ck_assert(isnan(r.median));
	ck_assert_int_eq(r.verdict, STATS_UNDECIDED);
	stats_paired_str(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "- undecided at n=0");
}
END_TEST

/* Pairing by rep: behind runs drop their pair (counted) unless included;
 * a rep on one side only (failed, missing) is unmatched; the first of a
 * repeated rep pairs. */
START_TEST(paired_by_rep)
{
	const char *a[] = { "1", "2", "3", "4", "5", "1" };
	const char *b[] = { "2", "1", "3", "5", "6" };
	int ab[] = { 0, -1, 1, 0, 0, 0 }, bb[] = { 0, 0, 0, 1, 0 };
	struct stats_pairs p;

	ck_assert_int_eq(stats_pair_reps(a, ab, 6, b, bb, 5, 0, &p), 0);
	ck_assert_uint_eq(p.n, 2);
	ck_assert_uint_eq(p.a[0], 0);
	ck_assert_uint_eq(p.b[0], 1);
	ck_assert_uint_eq(p.a[1], 1);
	ck_assert_uint_eq(p.b[1], 0);
	ck_assert_uint_eq(p.n_behind, 2);	/* rep 3 (A), rep 5 (B) */
	ck_assert_uint_eq(p.n_unmatched, 3);	/* A's 4 and second 1, B's 6 */
	stats_pairs_free(&p);
	ck_assert_int_eq(stats_pair_reps(a, ab, 6, b, bb, 5, 1, &p), 0);
	ck_assert_uint_eq(p.n, 4);
	ck_assert_uint_eq(p.n_behind, 0);
	ck_assert_uint_eq(p.a[2], 2);
	ck_assert_uint_eq(p.b[2], 2);
	ck_assert_uint_eq(p.a[3], 4);
	ck_assert_uint_eq(p.b[3], 3);
	stats_pairs_free(&p);
	ck_assert_int_eq(stats_pair_reps(a, ab, 0, b, bb, 5, 0, &p), 0);
	ck_assert_uint_eq(p.n, 0);
	ck_assert_uint_eq(p.n_unmatched, 5);
	stats_pairs_free(&p);
}
END_TEST

/* Within-run intervals: the median relative half-width over the bounded
 * runs, and the unbounded ones counted. */
START_TEST(within_run_width)
{
	double v[5] = { 100, 100, 200, 100, 100 };
	double lo[5] = { 90, 80, NAN, 50, 99 }, hi[5] = { 110, 120, NAN, 150, 101 };
	double rel;
	size_t unb;

	/* half-widths 10 %, 20 %, 50 %, 1 %: median 15 % */
	ck_assert_int_eq(stats_within_rel(v, lo, hi, 5, &rel, &unb), 0);
	ck_assert_double_eq_tol(rel, 0.15, 1e-12);
	ck_assert_uint_eq(unb, 1);
	ck_assert_int_eq(stats_within_rel(v, lo, hi, 3, &rel, &unb), 0);
	ck_assert_double_eq_tol(rel, 0.15, 1e-12);
	ck_assert_int_eq(stats_within_rel(v + 2, lo + 2, hi + 2, 1, &rel, &unb), 0);
	ck_assert(isnan(rel));
	ck_assert_uint_eq(unb, 1);
}
END_TEST

/* The latency-cost plane's front (issue 35): ties, one point, chains,
 * missing costs. */
START_TEST(pareto_marks)
{
	enum pareto_mark m[6];
	size_t out = 9;

	/* one point: on the front */
	double c1[] = { 5 }, l1[] = { 100 };

	ck_assert_int_eq(pareto_front(c1, l1, 1, m, &out), 1);
	ck_assert_int_eq(m[0], PARETO_FRONT);
	ck_assert_uint_eq(out, 0);
	/* a dominated chain: each beaten by the one before */
	double c2[] = { 1, 2, 3, 4 }, l2[] = { 10, 20, 30, 40 };

	ck_assert_int_eq(pareto_front(c2, l2, 4, m, NULL), 1);
	ck_assert_int_eq(m[0], PARETO_FRONT);
	for (int i = 1; i < 4; i++)
		ck_assert_int_eq(m[i], PARETO_BEATEN);
	/* a trade-off: cheaper but slower, dearer but faster: both on it */
	double c3[] = { 1, 5, 6 }, l3[] = { 100, 20, 50 };

	ck_assert_int_eq(pareto_front(c3, l3, 3, m, NULL), 2);
	ck_assert_int_eq(m[0], PARETO_FRONT);
	ck_assert_int_eq(m[1], PARETO_FRONT);
	ck_assert_int_eq(m[2], PARETO_BEATEN);
	/* ties: equal on both -> both on the front; tied on cost and
	 * slower -> beaten; tied on latency and dearer -> beaten */
	double c4[] = { 2, 2, 2, 3 }, l4[] = { 10, 10, 11, 10 };

	ck_assert_int_eq(pareto_front(c4, l4, 4, m, NULL), 2);
	ck_assert_int_eq(m[0], PARETO_FRONT);
	ck_assert_int_eq(m[1], PARETO_FRONT);
	ck_assert_int_eq(m[2], PARETO_BEATEN);
	ck_assert_int_eq(m[3], PARETO_BEATEN);
	/* a missing cost (NAN, negative) or latency is left out, counted,
	 * and beats nobody: the dearer point stays on the front */
	double c5[] = { NAN, 10, -1, 20, 0 }, l5[] = { 1, 50, 1, 40, NAN };

	ck_assert_int_eq(pareto_front(c5, l5, 5, m, &out), 2);
	ck_assert_uint_eq(out, 3);
	ck_assert_int_eq(m[0], PARETO_OUT);
	ck_assert_int_eq(m[2], PARETO_OUT);
	ck_assert_int_eq(m[4], PARETO_OUT);
	ck_assert_int_eq(m[1], PARETO_FRONT);
	ck_assert_int_eq(m[3], PARETO_FRONT);
	ck_assert_str_eq(pareto_mark_name(m[0]), "");
	ck_assert_str_eq(pareto_mark_name(PARETO_FRONT), "yes");
	ck_assert_str_eq(pareto_mark_name(PARETO_BEATEN), "no");
	/* none, and bad arguments */
	ck_assert_int_eq(pareto_front(NULL, NULL, 0, NULL, &out), 0);
	ck_assert_uint_eq(out, 0);
	ck_assert_int_eq(pareto_front(NULL, l1, 1, m, NULL), -EINVAL);
	ck_assert_int_eq(pareto_dominates(1, 1, 1, 1), 0);
	ck_assert_int_eq(pareto_dominates(1, 1, 1, 2), 1);
	ck_assert_int_eq(pareto_dominates(0, 0, INFINITY, 2), 0);
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
	tcase_add_test(tc, ci_coverage_exact);
	tcase_add_test(tc, confirm_spread_is_more_than_n);
	tcase_add_test(tc, confirm_tight_small_k);
	tcase_add_test(tc, paired_ranks_and_verdicts);
	tcase_add_test(tc, paired_by_rep);
	tcase_add_test(tc, within_run_width);
	tcase_add_test(tc, pareto_marks);
	suite_add_tcase(s, tc);
	return s;
}
