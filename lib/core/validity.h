/* SPDX-License-Identifier: GPL-2.0 */
/*
 * validity: was a run the workload it claims to be, and did it measure
 * one steady system? (DESIGN.md "Valid runs"; Lancet, ATC 2019.)
 *
 * The client logs each measured request's actual send time and latency
 * (validity_log, chunked and bounded: the first max requests); after the
 * run validity_run sorts them by send time and tests, with lib/gof:
 *   - gaps: the achieved send gaps against the target law: Anderson-
 *     Darling for exp (the configured mean), chi-square in whole
 *     microseconds for poisson, the coefficient of variation for fixed
 *     (fits below VALIDITY_FIXED_CV: a generator that keeps its schedule
 *     sends fixed gaps to within a few microseconds);
 *   - independence: Spearman's rank correlation of consecutive gaps at
 *     lags 1..VALIDITY_LAGS, failing when the smallest p-value is below
 *     alpha / VALIDITY_LAGS (Bonferroni);
 *   - stationarity: Kruskal-Wallis of the latencies in send order, cut
 *     into VALIDITY_WINDOWS equal windows, with the lowest and highest
 *     window median as the size of a drift. On a VM the wake cost itself
 *     moves over seconds (bench/RESULTS.md: window medians spanning 30-44 %
 *     of a 10 s run's median), so this test often fails on runs whose gaps
 *     were right: it describes the machine, and the behind-schedule rule
 *     does not use it.
 * Each test fails when its p-value is below alpha; a test that cannot run
 * (closed loop: the gaps are not a schedule's; too few values) says why.
 */
#ifndef WB_VALIDITY_H
#define WB_VALIDITY_H

#include <stddef.h>
#include <stdint.h>
#include "arrival.h"

#define VALIDITY_LAGS 3
#define VALIDITY_WINDOWS 10
#define VALIDITY_ALPHA 0.01
#define VALIDITY_FIXED_CV 0.01
/* validity_log_add's latency for a request without a reply */
#define VALIDITY_NO_REPLY UINT64_MAX

struct validity_log;

/* At most max requests (> 0) are kept; NULL when out of memory. */
struct validity_log *validity_log_new(uint64_t max);
void validity_log_free(struct validity_log *l);
/*
 * Logs one measured request. 0, 1 when the log is full (the request is
 * counted as left out), -ENOMEM. Allocates a chunk of 64 Ki requests at a
 * time: never copies what it holds.
 */
int validity_log_add(struct validity_log *l, uint64_t sent_ns,
		     uint64_t lat_ns);
/* Moves src's requests into dst (up to dst's bound; the rest counted as
 * left out) and empties src. 0 or -ENOMEM. */
int validity_log_merge(struct validity_log *dst, struct validity_log *src);
uint64_t validity_log_count(const struct validity_log *l);
uint64_t validity_log_left_out(const struct validity_log *l);

struct validity_test {
	int ran;		/* 0: could not run, why[] says why */
	int pass;
	double stat, p;		/* p NAN where the test has none (fixed) */
	size_t n;
	char what[48];		/* "Anderson-Darling vs exp(mean 500 us)" */
	char why[96];
	char detail[80];	/* the effect's size: "window medians 64.2-127.1 us" */
};

struct validity {
	struct validity_test gaps, indep, stationary;
	uint64_t n, left_out;	/* requests tested, and not */
	double alpha;
	int pass;		/* every test that ran passed */
};

struct validity_cfg {
	enum arrival_dist dist;
	double par[ARRIVAL_MAX_PAR];	/* dist's parameters (lib/arrival) */
	double mean_ns;		/* the schedule's mean gap */
	int closed;		/* closed loop: no schedule to test */
	/* the gaps are not independent draws of one law (onoff, mmpp, a
	 * --rate-profile, a replayed trace): no gap or independence test */
	int varying;
	double alpha;		/* 0: VALIDITY_ALPHA */
};

/* Tests a copy of l sorted by send time. 0, -ENOMEM. */
int validity_run(const struct validity_log *l, const struct validity_cfg *cfg,
		 struct validity *v);

#endif
