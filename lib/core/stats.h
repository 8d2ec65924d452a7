/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats: across-repetition statistics (DESIGN.md "Sweeps, statistics").
 *
 * The median of n repetitions with a non-parametric confidence interval
 * from order statistics: the values at ranks floor((n - z sqrt(n)) / 2)
 * and ceil(1 + (n + z sqrt(n)) / 2), z = 1.96 (Le Boudec, "Performance
 * Evaluation of Computer and Communication Systems"), clamped to [1, n].
 * Its real coverage is computed exactly (stats_ci_coverage): about 95 %
 * for large n, but with n < 6 the clamped interval is the min-max range,
 * which covers the median only 93.75 % of the time for n = 5 (50 % for
 * n = 2); callers print the real figure, never "95 %".
 *
 * Repetitions needed for +-r %: the parametric n = (100 z s / (r mean))^2,
 * and CONFIRM (Maricq et al., "Taming Performance Variability", OSDI
 * 2018): for growing subset sizes k <= n, many random subsets of the
 * measured values drawn WITHOUT replacement; the median CI bounds are
 * averaged across the subsets of a size, and the answer is the smallest
 * k whose averaged bounds lie within +-r % of the median of all n values.
 * When no k <= n gets there the answer is "more than n"
 * (STATS_REPS_MORE): CONFIRM cannot extrapolate beyond the data.
 */
#ifndef WB_STATS_H
#define WB_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_Z95 1.96
/* reps_confirm when no subset size k <= n reaches the target. */
#define STATS_REPS_MORE (-1L)
/* CONFIRM: random subsets drawn per subset size. */
#define STATS_CONFIRM_SUBSETS 200

struct stats_summary {
	size_t n;
	double median, ci_lo, ci_hi;	/* order statistics ci_rank_lo/hi */
	size_t ci_rank_lo, ci_rank_hi;	/* 1-based */
	double ci_coverage;		/* P(ci_lo <= true median <= ci_hi) */
	int ci_exact;			/* ci_coverage >= 0.95 */
	double mean, sd;
	double reps_param;		/* parametric repetitions for +-r % */
	long reps_confirm;		/* CONFIRM; STATS_REPS_MORE: > n */
};

/* 1-based ranks of the CI bounds for n samples. */
void stats_ci_ranks(size_t n, double z, size_t *lo, size_t *hi);
/*
 * Exact coverage of the interval between the order statistics of 1-based
 * ranks lo < hi of n samples for the median of a continuous
 * distribution: sum_{i=lo}^{hi-1} C(n, i) / 2^n. 0 when lo >= hi or the
 * ranks are outside [1, n].
 */
double stats_ci_coverage(size_t n, size_t lo, size_t hi);
/*
 * Writes a label for the interval, e.g. "93.8 % CI (min-max, n=5)" or
 * "95.7 % CI (n=30)", into buf.
 */
void stats_ci_label(const struct stats_summary *s, char *buf, size_t len);
/* Median of sorted v[n] (mean of the middle two when n is even). */
double stats_median_sorted(const double *v, size_t n);
/* Sorts v[n] ascending (NaN-free input). */
void stats_sort(double *v, size_t n);
/*
 * CONFIRM estimate for sorted[n] (see above) at +-r_pct %, seeded.
 * Returns k, STATS_REPS_MORE, or -ENOMEM.
 */
long stats_confirm(const double *sorted, size_t n, double r_pct,
		   uint64_t seed);
/*
 * Fills s from v[n] (any order; v is not modified). r_pct is the target
 * half-width in percent for the repetition estimates; seed drives the
 * CONFIRM subsets. Returns 0, -EINVAL for n = 0, -ENOMEM.
 */
int stats_summarize(const double *v, size_t n, double r_pct, uint64_t seed,
		    struct stats_summary *s);
/* Writes reps_confirm as text: "12", or ">5" when more than n. */
void stats_reps_confirm_str(const struct stats_summary *s, char *buf,
			    size_t len);
/* 1 when [a_lo, a_hi] and [b_lo, b_hi] overlap. */
static inline int stats_overlap(double a_lo, double a_hi, double b_lo,
				double b_hi)
{
	return a_lo <= b_hi && b_lo <= a_hi;
}

/*
 * The paired effect (issue 31). Runs of two points with the same rep share
 * the generator's seed (the same send gaps), so their ratio leaves out
 * what the rep's schedule does to both. Per pair the ratio
 * base / point (above 1: the point is faster); the effect is the median
 * of the ratios, with the exact distribution-free CI of a median from
 * their order statistics (lib/qci, p = 0.5: ranks lo < hi with
 * P(X(lo) <= median <= X(hi)) >= 95 %, the tightest such pair). Five
 * pairs or fewer cannot bound a median at 95 % (min-max covers 93.75 %
 * with 5): no interval then, and the verdict is undecided.
 */
enum stats_verdict {
	STATS_UNDECIDED = 0,	/* the CI contains 1, or there is none */
	STATS_FASTER,		/* the CI lies above 1 */
	STATS_SLOWER,		/* the CI lies below 1 */
};

struct stats_paired {
	size_t n;		/* pairs whose ratio counts */
	size_t n_bad;		/* pairs left out: a value not > 0 or not finite */
	double median;		/* of the ratios; NAN when n = 0 */
	double lo, hi;		/* the CI; NAN when n cannot bound it */
	uint64_t rank_lo, rank_hi;	/* 1-based; 0 when there is no CI */
	double coverage;	/* exact; with no CI the best reachable */
	enum stats_verdict verdict;
};

/*
 * The paired ratios base[i] / point[i] of n pairs, their median, its 95 %
 * CI and the verdict. Returns 0 (also with no usable pair: n = 0,
 * undecided) or -ENOMEM.
 */
int stats_paired(const double *base, const double *point, size_t n,
		 struct stats_paired *out);
/* "faster", "slower", "undecided" */
const char *stats_verdict_name(enum stats_verdict v);
/* The verdict stats_verdict_name calls NAME; -1 for any other word. */
int stats_verdict_parse(const char *name);
/*
 * E as text for tables: "2.857 [2.500, 3.125] faster", without an
 * interval "3.000 [-] undecided at n=5", without pairs "- undecided at
 * n=0" (the n of an undecided verdict is always said).
 */
void stats_paired_str(const struct stats_paired *e, char *buf, size_t len);

/*
 * Pairs the runs of two points by rep: run i of A (rep arep[i], behind
 * abehind[i] > 0 when it fell behind its schedule) with the run of B of
 * the same rep. A pair with a run behind is left out and counted
 * (n_behind) unless include_behind; a run with no partner (the other
 * side's run failed or is missing; or its rep is repeated on its side:
 * the first one pairs) is counted in n_unmatched. a[k], b[k]: the
 * indices of pair k, in A's order.
 */
struct stats_pairs {
	size_t n, *a, *b;
	size_t n_behind, n_unmatched;
};

int stats_pair_reps(const char *const *arep, const int *abehind, size_t na,
		    const char *const *brep, const int *bbehind, size_t nb,
		    int include_behind, struct stats_pairs *p);
void stats_pairs_free(struct stats_pairs *p);

/*
 * Within-run intervals (issue 31): of n runs with a percentile val[i] and
 * its within-run 95 % CI [lo[i], hi[i]] (NAN: the run could not bound
 * it), the median over the bounded runs of the relative half-width
 * (hi - lo) / 2 / val (NAN when none is bounded), and how many runs are
 * unbounded. A point is told to run more requests when *rel is above
 * STATS_WITHIN_WIDE or any run is unbounded. 0 or -ENOMEM.
 */
#define STATS_WITHIN_WIDE 0.10
int stats_within_rel(const double *val, const double *lo, const double *hi,
		     size_t n, double *rel, size_t *unbounded);

#endif
