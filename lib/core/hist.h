/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist: latency recording.
 *
 * Two views of the same samples:
 *  - exact: every sample kept; percentiles are nearest-rank, the value at
 *    rank ceil(p * n) of the sorted set (hist_percentile_exact()), or
 *    with HIST_FLOOR_INDEX the value at 0-based index floor(p * n) (the
 *    thesis' client: one rank higher whenever p * n is whole).
 *  - log-linear histogram: 128 linear sub-buckets per power of two, so a
 *    bucket's width is at most 1/128 (< 1 %) of its values; fixed memory
 *    whatever the run length (hist_percentile()).
 */
#ifndef WB_HIST_H
#define WB_HIST_H

#include <stddef.h>
#include <stdint.h>

struct hist;

/* Which sorted value a percentile is (see above). */
enum hist_rule {
	HIST_NEAREST_RANK = 0,
	HIST_FLOOR_INDEX,
};

/* keep_samples: also keep every sample for exact percentiles. */
struct hist *hist_new(int keep_samples);
void hist_free(struct hist *h);
void hist_reset(struct hist *h);
/* The percentile rule of every percentile taken from h (default nearest rank). */
void hist_set_rule(struct hist *h, enum hist_rule rule);
enum hist_rule hist_get_rule(const struct hist *h);
/* Sorts a[n] ascending in place (the introsort the exact percentiles use:
 * no buffer, no recursion deeper than log n). */
void hist_sort_u64(uint64_t *a, size_t n);
/*
 * Keeps at most max exact samples (0: no bound): past them the samples
 * are let go and every percentile comes from the histogram, within
 * HIST_REL_ERROR of the exact value, so memory stays flat however long
 * the run. hist_exact() says which the percentiles are.
 */
void hist_set_exact_max(struct hist *h, size_t max);
int hist_exact(const struct hist *h);
/*
 * Room for n exact samples (at most the bound) in one allocation, so that
 * adding them never copies the array: a client records as it sends, and
 * a realloc of megabytes would stall a send. The pages are touched only
 * as samples come. 0, or -ENOMEM (then it grows as it goes).
 */
int hist_reserve(struct hist *h, size_t n);
/* The histogram's bound on a percentile's relative error: half a bucket,
 * a bucket being at most 1/128 of its values. */
#define HIST_REL_ERROR (1.0 / 256)
/* Returns 0, or -ENOMEM when the exact sample array cannot grow. */
int hist_add(struct hist *h, uint64_t v);
/*
 * Adds src's samples to dst (count, min, max, mean and variance, the
 * buckets) and empties src of its exact samples, which dst takes without
 * a copy when it has none of its own: the threads of one client merge so.
 * dst stays exact when both were (and dst's bound, if any, holds them
 * all); otherwise dst lets its samples go and its percentiles come from
 * the histogram. src is left for its counts only (not exact). Returns 0,
 * or -ENOMEM (dst then lets its samples go too: still a valid histogram).
 */
int hist_merge(struct hist *dst, struct hist *src);

uint64_t hist_count(const struct hist *h);
uint64_t hist_min(const struct hist *h);	/* 0 when empty */
uint64_t hist_max(const struct hist *h);	/* 0 when empty */
double hist_mean(const struct hist *h);		/* 0 when empty */
double hist_stddev(const struct hist *h);	/* sample stddev, 0 when n < 2 */

/*
 * Nearest-rank percentile, 0 < p <= 1, on the exact samples (sorts them
 * once, lazily). Falls back to the histogram when samples are not kept.
 * 0 when empty.
 */
uint64_t hist_percentile_exact(struct hist *h, double p);
/* Percentile from the histogram buckets: within 1 % of the exact value. */
uint64_t hist_percentile(const struct hist *h, double p);

/*
 * Bounds on the value of the order statistic of 1-based rank (1 <= rank
 * <= count): the value itself twice on the exact samples, else the edges
 * of the histogram bucket holding that rank (clamped to min and max), so
 * an interval between two ranks stays an interval that holds the exact
 * one. 0, or -EINVAL for a rank out of range.
 */
int hist_rank_bounds(struct hist *h, uint64_t rank, uint64_t *lo,
		     uint64_t *hi);

/* 1-based nearest rank ceil(p * n) clamped to [1, n]; exact for p given to 1e-9. */
uint64_t hist_rank(double p, uint64_t n);
/* The 1-based rank under rule: nearest rank, or floor(p * n) + 1 clamped to n. */
uint64_t hist_rank_rule(enum hist_rule rule, double p, uint64_t n);

/* Bucket iteration for reports: calls fn(lo, hi, count) for non-empty buckets. */
void hist_foreach_bucket(const struct hist *h,
			 void (*fn)(uint64_t lo, uint64_t hi, uint64_t count,
				    void *arg),
			 void *arg);

#endif
