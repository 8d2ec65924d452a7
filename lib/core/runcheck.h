/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runcheck: when a run's load generator fell behind its schedule
 * (DESIGN.md "Valid runs"; issue 31).
 *
 * A late generator spoils an open-loop result in two ways, and the rule
 * flags a run exactly when one of them is seen:
 *
 *   (a) the arrival process is no longer the target: the gap test of the
 *       send times the run really achieved (lib/validity: Anderson-Darling
 *       for exp, chi-square for poisson, the CV for fixed) fails at its
 *       stated alpha (VALIDITY_ALPHA, 0.01). The server then saw other
 *       load than the one the run is labelled with (bursts after a stall).
 *
 *   (b) a reported latency percentile carries the generator's own delay:
 *       latency is measured from the intended send time, so request by
 *       request it is (pacing error) + (latency from the actual send). The
 *       same percentile of the latencies from the actual send time is what
 *       the run would have reported had every request left on time and
 *       been answered as it was: the percentile with the pacing error
 *       taken out. The reported percentile's 95 % CI (lib/qci, order
 *       statistics) is the precision the run claims for it: any value in
 *       [lo, hi] is one this n cannot tell from the reported one. So the
 *       pacing error "moves the percentile by more than its own CI" exactly
 *       when the from-send percentile lies outside [lo, hi]; inside, the
 *       delay is lost in the sampling error and the number stands as it
 *       claims. The CI narrows with n and with the density at p, so a
 *       long run tolerates less pacing error than a short one, as its
 *       claimed precision demands (down to the tolerance below). With
 *       exact pacing the two percentiles are equal and (b) never fires. A
 *       percentile that has no CI (too few samples to bound it at 95 %)
 *       claims no precision and is not used.
 *       The interval is widened by RUNCHECK_PCT_TOLERANCE (1 %) of the
 *       value on each side: without it a long run (n of 10^5 and more,
 *       CIs of a fraction of a microsecond) is flagged for a constant
 *       pacing offset of half a microsecond, a move far below any
 *       difference between runs this tool resolves (their p50s differ
 *       by 5-50 % on the VM it was built on) and below the histogram's
 *       own error past --exact-samples (1/256).
 *
 * Sends merely late by a few microseconds on a latency spread of tens
 * fail neither, and are not flagged: the old rule (more than 1 % of sends
 * late by > 10 us, or pacing p99 > 10 % of the mean gap) measured the
 * generator, not the result, and flagged nearly every run of a VM. It is
 * kept below, named legacy, for summaries older than the client's
 * behind_schedule column. The independence and stationarity tests of
 * lib/validity are reported by the client but are not part of the rule.
 */
#ifndef WB_RUNCHECK_H
#define WB_RUNCHECK_H

#include <stddef.h>
#include <stdint.h>

#define RUNCHECK_PCT_TOLERANCE 0.01

/* The gap test's verdict on the achieved send gaps (lib/validity gaps). */
struct runcheck_gaps {
	int ran;		/* 0: no verdict (no law, too few gaps): unused */
	int pass;
	const char *test;	/* what it compared: "Anderson-Darling vs ..." */
	double stat;
	double p;		/* NAN when the test has none (fixed: the CV) */
	double limit;		/* alpha; with p NAN the bound on stat */
};

/* One reported latency percentile, in microseconds. */
struct runcheck_pct {
	const char *name;	/* "p99.9" */
	double lat;		/* reported: from the intended send time */
	double sent;		/* the same percentile from the actual send */
	double lo, hi;		/* lat's 95 % CI */
	int ci_ok;		/* 0: no CI (n cannot bound it): not used */
};

struct runcheck_in {
	struct runcheck_gaps gaps;
	const struct runcheck_pct *pct;
	size_t npct;
};

/*
 * Returns 1 when the run fell behind: why[] names each failed test and by
 * how much ("gap test: ... p 0.0003 < 0.01", "pacing moves p99 from 182.1
 * us (from send: 150.3 us) outside its CI 170.0-190.0 (also p99.9)"), "; "
 * between them, and no comma (summary.csv's behind_reason was always
 * comma-free, and naive CSV splitters read the columns after it); 0 when
 * it kept its schedule (why[] empty, or "not checked: ..." when neither
 * test had anything to use); -EINVAL for input that is not a run (NaN
 * values in a test it would use, lo > hi).
 */
int runcheck_behind(const struct runcheck_in *in, char *why, size_t len);

/*
 * Legacy rule (before issue 31), kept only for lib/sweepcsv's runs whose
 * summary has no behind_schedule column: behind when more than
 * RUNCHECK_LEGACY_LATE_SHARE (1 %) of the measured sends were late (pacing
 * error above the client's --late-us, default 10 us), or the pacing-error
 * p99 exceeds RUNCHECK_LEGACY_P99_GAP_SHARE (10 %) of the mean gap.
 */
#define RUNCHECK_LEGACY_LATE_SHARE 0.01
#define RUNCHECK_LEGACY_P99_GAP_SHARE 0.10

struct runcheck_legacy_in {
	uint64_t requests;	/* measured sends */
	uint64_t late;		/* of them, late */
	double pacing_p99_us;	/* p99 of (sent - intended) */
	double mean_gap_us;	/* the schedule's mean gap; <= 0: unknown */
};

/* 1 (why[] says which rule, with the numbers), 0 (why[] empty), -EINVAL
 * (no requests, late > requests, NaN). */
int runcheck_legacy_behind(const struct runcheck_legacy_in *in, char *why,
			   size_t len);

#endif
