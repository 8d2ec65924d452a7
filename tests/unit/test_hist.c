// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "unit.h"
#include "hist.h"
#include "prng.h"

/* Inserts 1..n in a shuffled order. */
static struct hist *hist_1_to_n(uint64_t n, int keep)
{
	struct hist *h = hist_new(keep);
	uint64_t *v = malloc(n * sizeof(*v));
	struct prng p;

	prng_seed(&p, n);
	for (uint64_t i = 0; i < n; i++)
		v[i] = i + 1;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = prng_next(&p) % (i + 1), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
	for (uint64_t i = 0; i < n; i++)
		ck_assert_int_eq(hist_add(h, v[i]), 0);
	free(v);
	return h;
}

START_TEST(rank_exact)
{
	static const struct { double p; uint64_t n, rank; } cases[] = {
		{ 0.5, 1, 1 }, { 0.99, 1, 1 }, { 0.5, 2, 1 }, { 0.51, 2, 2 },
		{ 0.99, 2, 2 }, { 0.5, 100, 50 }, { 0.99, 100, 99 },
		{ 0.999, 100, 100 }, { 0.5, 1000, 500 }, { 0.99, 1000, 990 },
		{ 0.999, 1000, 999 }, { 0.9999, 1000, 1000 }, { 1.0, 7, 7 },
		{ 0.1, 10, 1 }, { 0.7, 10, 7 }, { 0.999, 1000000000, 999000000 },
		{ 1e-12, 5, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(hist_rank(cases[i].p, cases[i].n) == cases[i].rank,
			      "p=%g n=%llu: %llu", cases[i].p,
			      (unsigned long long)cases[i].n,
			      (unsigned long long)hist_rank(cases[i].p, cases[i].n));
	ck_assert_uint_eq(hist_rank(0.5, 0), 0);
}
END_TEST

/* Nearest rank on 1..n: the value at rank ceil(p n) is that rank. */
START_TEST(percentile_edge_cases)
{
	static const uint64_t ns[] = { 1, 2, 100, 1000 };
	static const double ps[] = { 0.5, 0.99, 0.999 };
	static const uint64_t want[4][3] = {
		{ 1, 1, 1 }, { 1, 2, 2 }, { 50, 99, 100 }, { 500, 990, 999 },
	};

	for (int i = 0; i < 4; i++) {
		struct hist *h = hist_1_to_n(ns[i], 1);

		for (int j = 0; j < 3; j++)
			ck_assert_msg(hist_percentile_exact(h, ps[j]) == want[i][j],
				      "n=%llu p=%g", (unsigned long long)ns[i], ps[j]);
		ck_assert_uint_eq(hist_min(h), 1);
		ck_assert_uint_eq(hist_max(h), ns[i]);
		hist_free(h);
	}
}
END_TEST

START_TEST(percentile_duplicates)
{
	struct hist *h = hist_new(1);

	/* 10 x 5, 80 x 7, 10 x 100 */
	for (int i = 0; i < 100; i++)
		hist_add(h, i < 10 ? 5 : i < 90 ? 7 : 100);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.1), 5);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.11), 7);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.9), 7);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.91), 100);
	/* Adding after a percentile re-sorts. */
	hist_add(h, 1);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.001), 1);
	hist_free(h);
}
END_TEST

START_TEST(empty_and_moments)
{
	struct hist *h = hist_new(1);

	ck_assert_uint_eq(hist_count(h), 0);
	ck_assert_uint_eq(hist_min(h), 0);
	ck_assert_uint_eq(hist_max(h), 0);
	ck_assert_double_eq(hist_mean(h), 0);
	ck_assert_double_eq(hist_stddev(h), 0);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.5), 0);
	ck_assert_uint_eq(hist_percentile(h, 0.5), 0);
	for (uint64_t v = 2; v <= 8; v += 2)	/* 2 4 6 8 */
		hist_add(h, v);
	ck_assert_double_eq_tol(hist_mean(h), 5, 1e-12);
	ck_assert_double_eq_tol(hist_stddev(h), sqrt(20.0 / 3), 1e-12);
	ck_assert_uint_eq(hist_min(h), 2);
	ck_assert_uint_eq(hist_max(h), 8);
	hist_reset(h);
	ck_assert_uint_eq(hist_count(h), 0);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.5), 0);
	hist_add(h, 3);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.5), 3);
	ck_assert_uint_eq(hist_percentile(h, 0.5), 3);
	hist_free(h);
}
END_TEST

/* Log-uniform values from 1 ns to 10 s: histogram within 1 % of exact. */
START_TEST(histogram_relative_error)
{
	struct hist *exact = hist_new(1), *approx = hist_new(0);
	struct prng p;

	prng_seed(&p, 3);
	for (int i = 0; i < 1000000; i++) {
		uint64_t v = (uint64_t)exp(prng_uniform(&p) * log(1e10));

		hist_add(exact, v);
		hist_add(approx, v);
	}
	for (double q = 0.001; q < 1; q += 0.0137) {
		double e = (double)hist_percentile_exact(exact, q);
		double a = (double)hist_percentile(approx, q);
		double a2 = (double)hist_percentile_exact(approx, q);

		ck_assert_msg(fabs(a - e) <= 0.01 * e, "q=%g exact %g hist %g",
			      q, e, a);
		ck_assert_double_eq(a, a2);	/* no samples: falls back */
	}
	ck_assert_uint_eq(hist_count(approx), 1000000);
	ck_assert_uint_eq(hist_min(approx), hist_min(exact));
	ck_assert_uint_eq(hist_max(approx), hist_max(exact));
	hist_free(exact);
	hist_free(approx);
}
END_TEST

struct walk {
	uint64_t count, last_hi, n;
	int ordered;
	uint64_t probe;
	int probe_found;
};

static void walk_fn(uint64_t lo, uint64_t hi, uint64_t count, void *arg)
{
	struct walk *w = arg;

	if (w->n && lo <= w->last_hi)
		w->ordered = 0;
	if (lo > hi)
		w->ordered = 0;
	/* Width bound: at most 1/128 of the bucket's values. */
	if (lo >= 128 && (hi - lo + 1) * 128 > lo)
		w->ordered = 0;
	if (w->probe >= lo && w->probe <= hi)
		w->probe_found = 1;
	w->last_hi = hi;
	w->count += count;
	w->n++;
}

START_TEST(bucket_boundaries)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 129, 255, 256, 1000,
					 1ull << 40, UINT64_MAX - 1, UINT64_MAX };

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		struct hist *h = hist_new(0);
		struct walk w = { .ordered = 1, .probe = vals[i] };

		hist_add(h, vals[i]);
		hist_foreach_bucket(h, walk_fn, &w);
		ck_assert_msg(w.probe_found && w.ordered && w.n == 1,
			      "value %llu", (unsigned long long)vals[i]);
		ck_assert_uint_eq(hist_percentile(h, 0.5), vals[i]);
		hist_free(h);
	}
}
END_TEST

START_TEST(foreach_sums_and_orders)
{
	struct hist *h = hist_new(0);
	struct walk w = { .ordered = 1, .probe = UINT64_MAX };
	struct prng p;

	prng_seed(&p, 11);
	for (int i = 0; i < 100000; i++)
		hist_add(h, prng_next(&p) >> (prng_next(&p) % 64));
	hist_foreach_bucket(h, walk_fn, &w);
	ck_assert(w.ordered);
	ck_assert_uint_eq(w.count, 100000);
	hist_free(h);
}
END_TEST

/* The thesis' rule: sorted value at index floor(p * n). */
START_TEST(floor_index_rule)
{
	struct hist *h = hist_new(1);

	/* n = 100: p99 is rank 99 nearest, index 99 (rank 100) floor */
	ck_assert_uint_eq(hist_rank_rule(HIST_NEAREST_RANK, 0.99, 100), 99);
	ck_assert_uint_eq(hist_rank_rule(HIST_FLOOR_INDEX, 0.99, 100), 100);
	/* p * n not whole: the same rank both ways */
	ck_assert_uint_eq(hist_rank_rule(HIST_NEAREST_RANK, 0.99, 150), 149);
	ck_assert_uint_eq(hist_rank_rule(HIST_FLOOR_INDEX, 0.99, 150), 149);
	/* p50 of 4: rank 2 vs index 2 (rank 3); clamped at n; small p */
	ck_assert_uint_eq(hist_rank_rule(HIST_FLOOR_INDEX, 0.5, 4), 3);
	ck_assert_uint_eq(hist_rank_rule(HIST_FLOOR_INDEX, 1.0, 4), 4);
	ck_assert_uint_eq(hist_rank_rule(HIST_FLOOR_INDEX, 0.999, 1), 1);
	ck_assert_uint_eq(hist_rank_rule(HIST_FLOOR_INDEX, 0.001, 10), 1);
	for (uint64_t v = 1; v <= 100; v++)
		hist_add(h, v * 10);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.99), 990);
	hist_set_rule(h, HIST_FLOOR_INDEX);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.99), 1000);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.5), 510);
	/* the rule survives a reset */
	hist_reset(h);
	for (uint64_t v = 1; v <= 4; v++)
		hist_add(h, v);
	ck_assert_uint_eq(hist_percentile_exact(h, 0.5), 3);
	hist_free(h);
}
END_TEST

/*
 * A bounded recorder: exact up to the bound, then the histogram alone
 * (within HIST_REL_ERROR of the exact value) on a long synthetic run
 * whose values span six decades.
 */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

START_TEST(bounded_exact_then_histogram)
{
	enum { N = 300000, MAX = 1000 };
	struct hist *h = hist_new(1);
	uint64_t *v = malloc(N * sizeof(*v)), x = 88172645463325252ull;
	static const double ps[] = { 0.01, 0.5, 0.9, 0.99, 0.999, 0.9999, 1 };

	ck_assert_ptr_nonnull(h);
	ck_assert_ptr_nonnull(v);
	hist_set_exact_max(h, MAX);
	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* log-uniform over 100 ns .. 100 ms */
		v[i] = (uint64_t)(100.0 * pow(10.0, (double)(x % 1000000) / 1000000.0 * 6));
		ck_assert_int_eq(hist_add(h, v[i]), 0);
		if (i + 1 == MAX) {
			/* at the bound: still exact */
			uint64_t s[MAX];

			memcpy(s, v, sizeof(s));
			qsort(s, MAX, sizeof(*s), cmp_u64);
			ck_assert(hist_exact(h));
			ck_assert_uint_eq(hist_percentile_exact(h, 0.5), s[hist_rank(0.5, MAX) - 1]);
		}
	}
	ck_assert(!hist_exact(h));
	ck_assert_uint_eq(hist_count(h), N);
	qsort(v, N, sizeof(*v), cmp_u64);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		double exact = (double)v[hist_rank(ps[k], N) - 1];
		double got = (double)hist_percentile_exact(h, ps[k]);

		ck_assert_msg(fabs(got - exact) <= exact * HIST_REL_ERROR + 0.5,
			      "p%g: %g against exact %g", ps[k] * 100, got, exact);
	}
	ck_assert_uint_eq(hist_min(h), v[0]);
	ck_assert_uint_eq(hist_max(h), v[N - 1]);
	/* reset: exact again up to the bound */
	hist_reset(h);
	hist_add(h, 5);
	ck_assert(hist_exact(h));
	ck_assert_uint_eq(hist_percentile_exact(h, 0.5), 5);
	hist_free(h);
	free(v);
}
END_TEST

/*
 * The threads of one client merge their histograms: the merged one is
 * the histogram of all their samples (exact percentiles when every part
 * was exact, the same buckets and moments), and a part past its bound
 * makes the whole histogram-only.
 */
START_TEST(merge_threads)
{
	enum { N = 20000, K = 3 };
	struct hist *all = hist_new(1), *dst = hist_new(1), *part[K];
	static const double ps[] = { 0.001, 0.5, 0.9, 0.99, 0.999, 1 };
	uint64_t x = 2463534242ull;

	for (int k = 0; k < K; k++)
		part[k] = hist_new(1);
	for (int i = 0; i < N; i++) {
		uint64_t v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = 1000 + x % 5000000;
		ck_assert_int_eq(hist_add(all, v), 0);
		ck_assert_int_eq(hist_add(part[i % K], v), 0);	/* k, k+K, ... */
	}
	for (int k = 0; k < K; k++) {
		ck_assert_int_eq(hist_merge(dst, part[k]), 0);
		/* the part gave its samples away */
		ck_assert(!hist_exact(part[k]));
	}
	ck_assert(hist_exact(dst));
	ck_assert_uint_eq(hist_count(dst), N);
	ck_assert_uint_eq(hist_min(dst), hist_min(all));
	ck_assert_uint_eq(hist_max(dst), hist_max(all));
	ck_assert(fabs(hist_mean(dst) - hist_mean(all)) < 1e-6 * hist_mean(all));
	ck_assert(fabs(hist_stddev(dst) - hist_stddev(all)) < 1e-6 * hist_stddev(all));
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		ck_assert_uint_eq(hist_percentile_exact(dst, ps[i]),
				  hist_percentile_exact(all, ps[i]));
		ck_assert_uint_eq(hist_percentile(dst, ps[i]),
				  hist_percentile(all, ps[i]));
	}
	for (int k = 0; k < K; k++)
		hist_free(part[k]);
	/* an empty part changes nothing */
	part[0] = hist_new(1);
	ck_assert_int_eq(hist_merge(dst, part[0]), 0);
	ck_assert(hist_exact(dst));
	ck_assert_uint_eq(hist_count(dst), N);
	hist_free(part[0]);
	hist_free(dst);

	/* a part past its bound: the merged percentiles from the buckets */
	dst = hist_new(1);
	for (int k = 0; k < 2; k++) {
		part[k] = hist_new(1);
		hist_set_exact_max(part[k], k ? 10 : 100000);
	}
	for (int i = 0; i < 100; i++) {
		hist_add(part[0], 1000 + (uint64_t)i);
		hist_add(part[1], 5000 + (uint64_t)i);
	}
	ck_assert(hist_exact(part[0]));
	ck_assert(!hist_exact(part[1]));
	ck_assert_int_eq(hist_merge(dst, part[0]), 0);
	ck_assert(hist_exact(dst));
	ck_assert_int_eq(hist_merge(dst, part[1]), 0);
	ck_assert(!hist_exact(dst));
	ck_assert_uint_eq(hist_count(dst), 200);
	ck_assert_uint_eq(hist_percentile_exact(dst, 0.5),
			  hist_percentile(dst, 0.5));
	for (int k = 0; k < 2; k++)
		hist_free(part[k]);
	hist_free(dst);

	/* the merged histogram's own bound holds too */
	dst = hist_new(1);
	hist_set_exact_max(dst, 150);
	part[0] = hist_new(1);
	part[1] = hist_new(1);
	for (int i = 0; i < 100; i++) {
		hist_add(part[0], (uint64_t)i);
		hist_add(part[1], (uint64_t)i);
	}
	ck_assert_int_eq(hist_merge(dst, part[0]), 0);
	ck_assert(hist_exact(dst));
	ck_assert_int_eq(hist_merge(dst, part[1]), 0);
	ck_assert(!hist_exact(dst));
	hist_free(part[0]);
	hist_free(part[1]);
	hist_free(dst);
	hist_free(all);
}
END_TEST

/* The exact percentiles sort in place: every rank right whatever the
 * order the samples came in (sorted, reversed, equal, few values, organ
 * pipe, random, sizes around the small-part cut-off). */
START_TEST(sort_patterns)
{
	static const size_t sizes[] = { 1, 2, 3, 15, 16, 17, 33, 100, 1000, 4099 };
	uint64_t x = 7;

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t n = sizes[si];

		for (int pat = 0; pat < 6; pat++) {
			struct hist *h = hist_new(1);
			uint64_t *ref = malloc(n * sizeof(*ref));

			for (size_t i = 0; i < n; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				ref[i] = pat == 0 ? i : pat == 1 ? n - i : pat == 2 ? 42 :
					 pat == 3 ? x % 3 : pat == 4 ? (i < n / 2 ? i : n - i) :
					 x % 1000000007;
				hist_add(h, ref[i]);
			}
			qsort(ref, n, sizeof(*ref), cmp_u64);
			for (size_t k = 1; k <= n; k++)
				ck_assert_uint_eq(hist_percentile_exact(h, (double)k / (double)n),
						  ref[hist_rank((double)k / (double)n, n) - 1]);
			hist_free(h);
			free(ref);
		}
	}
}
END_TEST

/* Room made first changes nothing but where the samples live. */
START_TEST(reserve_then_add)
{
	struct hist *h = hist_new(1), *g = hist_new(0);

	hist_set_exact_max(h, 5000);
	ck_assert_int_eq(hist_reserve(h, 1000000), 0);	/* clamped to 5000 */
	for (uint64_t i = 0; i < 5000; i++)
		ck_assert_int_eq(hist_add(h, 5000 - i), 0);
	ck_assert(hist_exact(h));
	ck_assert_uint_eq(hist_percentile_exact(h, 0.5), 2500);
	ck_assert_int_eq(hist_add(h, 1), 0);	/* past the bound */
	ck_assert(!hist_exact(h));
	/* a histogram without samples keeps none */
	ck_assert_int_eq(hist_reserve(g, 100), 0);
	hist_add(g, 3);
	ck_assert(!hist_exact(g));
	hist_free(h);
	hist_free(g);
}
END_TEST

/* An order statistic's bounds: the value on exact samples; on the
 * histogram alone, a bucket that holds the exact value, every rank. */
START_TEST(rank_bounds)
{
	struct hist *e = hist_new(1), *b = hist_new(0);
	uint64_t v[5000], lo, hi;
	struct prng p;

	prng_seed(&p, 7);
	for (int i = 0; i < 5000; i++) {
		v[i] = 1000 + prng_next(&p) % 1000000;
		ck_assert_int_eq(hist_add(e, v[i]), 0);
		ck_assert_int_eq(hist_add(b, v[i]), 0);
	}
	hist_sort_u64(v, 5000);
	for (uint64_t r = 1; r <= 5000; r++) {
		ck_assert_int_eq(hist_rank_bounds(e, r, &lo, &hi), 0);
		ck_assert(lo == v[r - 1] && hi == v[r - 1]);
		ck_assert_int_eq(hist_rank_bounds(b, r, &lo, &hi), 0);
		ck_assert_msg(lo <= v[r - 1] && v[r - 1] <= hi,
			      "rank %llu: %llu not in [%llu, %llu]",
			      (unsigned long long)r,
			      (unsigned long long)v[r - 1],
			      (unsigned long long)lo, (unsigned long long)hi);
		ck_assert(hi - lo <= (uint64_t)((double)lo / 64));
	}
	ck_assert_int_eq(hist_rank_bounds(e, 0, &lo, &hi), -EINVAL);
	ck_assert_int_eq(hist_rank_bounds(e, 5001, &lo, &hi), -EINVAL);
	hist_free(e);
	hist_free(b);
}
END_TEST

Suite *hist_suite(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, rank_exact);
	tcase_add_test(tc, percentile_edge_cases);
	tcase_add_test(tc, percentile_duplicates);
	tcase_add_test(tc, empty_and_moments);
	tcase_add_test(tc, histogram_relative_error);
	tcase_add_test(tc, bucket_boundaries);
	tcase_add_test(tc, foreach_sums_and_orders);
	tcase_add_test(tc, floor_index_rule);
	tcase_add_test(tc, bounded_exact_then_histogram);
	tcase_add_test(tc, merge_threads);
	tcase_add_test(tc, reserve_then_add);
	tcase_add_test(tc, sort_patterns);
	tcase_add_test(tc, rank_bounds);
	suite_add_tcase(s, tc);
	return s;
}
