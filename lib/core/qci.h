/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qci: the exact distribution-free confidence interval of a percentile
 * of one run (DESIGN.md "Valid runs"; Lancet, ATC 2019, does the same).
 *
 * For n samples of a continuous distribution and its p-quantile q, the
 * interval between the order statistics of 1-based ranks lo < hi covers q
 * with probability P(lo <= B <= hi - 1), B ~ Binomial(n, p): B counts the
 * samples below q. qci_ranks picks the tightest pair (fewest ranks
 * between) whose coverage is at least the level, breaking ties by the
 * higher coverage; it needs no assumption about the distribution. When
 * even lo = 1, hi = n cannot reach the level (p99.9 of 1000 samples
 * covers at most 63 %), there is no interval: -ERANGE, and the caller
 * says so instead of printing bounds.
 */
#ifndef WB_QCI_H
#define WB_QCI_H

#include <stdint.h>

#define QCI_LEVEL95 0.95

struct qci {
	uint64_t lo, hi;	/* 1-based ranks; 0 when there is none */
	double coverage;	/* exact P(X(lo) <= q <= X(hi)) */
};

/*
 * Ranks of the tightest interval for the p-quantile (0 < p < 1) of n
 * samples at the level (0 < level < 1). Returns 0, -ERANGE when n samples
 * cannot bound it at that level (ci->lo = ci->hi = 0, ci->coverage the
 * best reachable), -EINVAL for bad arguments, -ENOMEM.
 */
int qci_ranks(uint64_t n, double p, double level, struct qci *ci);
/* Exact coverage of ranks lo < hi (1-based, <= n) for the p-quantile. */
double qci_coverage(uint64_t n, double p, uint64_t lo, uint64_t hi);

#endif
