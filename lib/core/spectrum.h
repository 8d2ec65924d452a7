/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spectrum: a distribution's percentile spectrum, as wrk2 prints it from
 * HdrHistogram ("Detailed Percentile spectrum": Value, Percentile,
 * TotalCount, 1/(1-Percentile)).
 *
 * The levels are p = 1 - 1/D for D = 2, 4, 8, ... (each halving the
 * distance to 100 %: p50, p75, p87.5, ...) and D = 10, 100, 1000, ...
 * (the nines: p90, p99, p99.9, ...), in order, up to D = 100000
 * (p99.999). A level is listed only when the count supports it, n >= D:
 * with fewer samples than 1/(1-p) the value at p is the maximum, or close
 * to it, and would claim a tail that was never seen. The table starts
 * with the minimum (p = 0) and ends with the maximum (p = 1).
 */
#ifndef WB_SPECTRUM_H
#define WB_SPECTRUM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hist;

/* The highest 1/(1-p) listed: p99.999. */
#define SPECTRUM_MAX_INV 100000u
/* At most this many levels (16 halvings and 5 nines up to D = 100000). */
#define SPECTRUM_MAX_LEVELS 21

struct spectrum_level {
	double p;		/* 1 - 1/inv */
	uint64_t inv;		/* D = 1/(1-p), exactly */
};

/*
 * Fills lv (room for max) with the levels n samples support, in
 * ascending order; returns how many (at most SPECTRUM_MAX_LEVELS): 0 for
 * n < 2.
 */
size_t spectrum_levels(uint64_t n, struct spectrum_level *lv, size_t max);

/*
 * Prints h's spectrum, values divided by div (1e3: ns to us) with 3
 * decimals: a header line, one row per level (the value at that
 * percentile under h's rule, hist_percentile_exact: exact while h keeps
 * every sample, else from the histogram), the minimum first and the
 * maximum last, then the mean, the standard deviation, the maximum and
 * the count (wrk2's closing "#[...]" lines). Nothing for an empty h.
 */
void spectrum_print(FILE *f, struct hist *h, double div);

#endif
