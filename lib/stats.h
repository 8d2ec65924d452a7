/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats: across-repetition statistics (DESIGN.md "Sweeps, statistics").
 *
 * The median of n repetitions with a 95 % non-parametric confidence
 * interval from order statistics: the values at ranks
 * floor((n - z sqrt(n)) / 2) and ceil(1 + (n + z sqrt(n)) / 2), z = 1.96
 * (Le Boudec, "Performance Evaluation of Computer and Communication
 * Systems"), clamped to [1, n]; with n < 6 the interval is the whole
 * range and is flagged as such. Repetitions needed for +-r % at 95 %:
 * the parametric n = (100 z s / (r mean))^2, and a CONFIRM-style
 * estimate (Maricq et al., OSDI 2018) that resamples subsets of each
 * size and takes the smallest whose median CI stays within +-r %.
 */
#ifndef WB_STATS_H
#define WB_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_Z95 1.96

struct stats_summary {
	size_t n;
	double median, ci_lo, ci_hi;	/* ci over the whole range when n < 6 */
	int ci_exact;			/* 0: n too small for a 95 % CI */
	double mean, sd;
	double reps_param;		/* parametric repetitions for +-1 % */
	long reps_confirm;		/* CONFIRM estimate; -1: more than tried */
};

/* 1-based ranks of the CI bounds for n samples. */
void stats_ci_ranks(size_t n, double z, size_t *lo, size_t *hi);
/* Median of sorted v[n] (mean of the middle two when n is even). */
double stats_median_sorted(const double *v, size_t n);
/*
 * Fills s from v[n] (any order; v is not modified). r_pct is the target
 * half-width in percent for the repetition estimates; seed drives the
 * CONFIRM resampling. Returns 0, -EINVAL for n = 0, -ENOMEM.
 */
int stats_summarize(const double *v, size_t n, double r_pct, uint64_t seed,
		    struct stats_summary *s);
/* 1 when [a_lo, a_hi] and [b_lo, b_hi] overlap. */
static inline int stats_overlap(double a_lo, double a_hi, double b_lo,
				double b_hi)
{
	return a_lo <= b_hi && b_lo <= a_hi;
}

#endif
