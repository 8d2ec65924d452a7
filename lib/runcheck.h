/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runcheck: when a run's load generator fell behind its schedule
 * (DESIGN.md "Valid runs").
 *
 * An open-loop result is only the workload it claims to be when the
 * requests left when they were meant to. A run is flagged "behind" when
 * either holds:
 *   - more than RUNCHECK_MAX_LATE_SHARE (1 %) of its measured sends were
 *     late (pacing error above the client's --late-us, default 10 us), or
 *   - its pacing-error p99 exceeds RUNCHECK_MAX_P99_GAP_SHARE (10 %) of the
 *     mean inter-arrival gap.
 * The client writes the verdict into its summary; stats, the sweep's
 * closing table and report leave flagged runs out of medians unless asked.
 */
#ifndef WB_RUNCHECK_H
#define WB_RUNCHECK_H

#include <stddef.h>
#include <stdint.h>

#define RUNCHECK_MAX_LATE_SHARE 0.01
#define RUNCHECK_MAX_P99_GAP_SHARE 0.10

struct runcheck_in {
	uint64_t requests;	/* measured sends */
	uint64_t late;		/* of them, late */
	double pacing_p99_us;	/* p99 of (sent - intended) */
	double mean_gap_us;	/* the schedule's mean gap; <= 0: unknown */
};

/*
 * Returns 1 when the run fell behind (why[] says which rule, with the
 * numbers), 0 when it kept its schedule (why[] empty), -EINVAL for input
 * that is not a run (no requests, late > requests, NaN).
 */
int runcheck_behind(const struct runcheck_in *in, char *why, size_t len);

#endif
