/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweepmerge: one run's result from the results of its client agents
 * (wakebench stats --merge; the sweep's repeated --client-exec).
 *
 * Each agent directory holds what `wakebench client --out` writes. The
 * merged directory gets the same files, so that everything that reads a
 * run (sweep.csv, --run-ok, the report) reads the merged one:
 *  - requests.csv: every agent's rows, in agent order, with a last column
 *    "agent" (1-based). Times are each agent's CLOCK_MONOTONIC: compare
 *    them within one agent only (other hosts have other clocks).
 *  - summary.csv: the client's columns. Latency, service latency and
 *    pacing error (min, avg, percentiles, max) are recomputed from all the
 *    agents' rows with the client's rule (exact nearest-rank, or
 *    floor-index), so they are exact, not an average of percentiles; up to
 *    SWEEPMERGE_EXACT_MAX samples a metric, the histogram's beyond it,
 *    within HIST_REL_ERROR (percentiles_exact says which). Counts (count,
 *    errors, unanswered, late sends, pre-queries, warm-up, gets, sets,
 *    misses, service_capped) and rates (rate_target, rate_achieved) are
 *    summed, interval_us is the aggregate mean gap (1 / sum of 1 /
 *    interval), seed is the first agent's, behind_schedule is 1 when any
 *    agent fell behind (behind_reason names it). Energy is per host and
 *    not summed (agents may share a package): empty. Any other column is
 *    copied when all agents agree, empty otherwise. Appended: agents and
 *    percentiles_exact.
 *  - summary.txt, summary.json: the same numbers; agents.csv: one row per
 *    agent (its directory and own numbers).
 * Files appear together (lib/stage), summary.csv last.
 *
 * An agent's requests.csv must hold every measured request: its rows of
 * each status must add up to its summary's count, errors and unanswered,
 * else the merge stops (a run with sampled rows cannot be merged
 * exactly). Everything read is checked; errors name FILE:LINE.
 */
#ifndef WB_SWEEPMERGE_H
#define WB_SWEEPMERGE_H

#include <stddef.h>

#include "hist.h"

/* Exact samples kept per metric (latency, service, pacing): 8 bytes each. */
#define SWEEPMERGE_EXACT_MAX ((size_t)8 << 20)

struct sweepmerge_opts {
	enum hist_rule rule;
	size_t exact_max;	/* 0: SWEEPMERGE_EXACT_MAX */
};

/*
 * Merges the N agent directories DIRS into OUTDIR (created if needed;
 * files of an earlier merge are replaced). 0, or -errno with the message
 * in ERR: -EINVAL for a file that is not what the client writes or agents
 * that disagree, -ENOENT for a missing file, -EIO, -ENOMEM.
 */
int sweepmerge_dirs(const char *outdir, const char *const *dirs, size_t n,
		    const struct sweepmerge_opts *o, char *err, size_t errlen);

#endif
