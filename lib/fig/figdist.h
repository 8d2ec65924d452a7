/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figdist: wakebench report's distribution figures, from the client's
 * requests.csv of each run.
 *
 *  figure 3  latency CDF and percentile spectrum: one curve per run, and
 *            for a sweep one per point, the median across its
 *            repetitions of each quantile (a sweep's runs behind their
 *            schedule left out unless asked, but a point or a single run
 *            that has no other is drawn, its label saying so). A curve
 *            ends at p = 1 - 1/n, the last
 *            quantile its n requests support.
 *  figure 4  histogram of the measured send gaps (differences of
 *            consecutive sent_ns; requests.csv holds the measured
 *            requests only, so the warm-up is not in them) against the
 *            target distribution, one panel per distribution and mean,
 *            one series per run or sweep point.
 *
 * A source is a client run directory (requests.csv, summary.csv) or a
 * sweep directory (sweep.csv; runs in POINT/rep-N/client/), named by its
 * side (the directory given to the report) and a name of its own.
 */
#ifndef WB_FIGDIST_H
#define WB_FIGDIST_H

#include <stddef.h>
#include <stdio.h>

struct figdist_src {
	const char *side;	/* the directory it was found under */
	const char *name;	/* a run: its path under the side */
	const char *path;	/* the run's or the sweep's directory */
	int sweep;		/* 1: a sweep directory */
};

/*
 * Column COL ("latency_ns" or "sent_ns") of PATH's rows where it is not
 * empty (with OK_ONLY, and whose status is ok), in µs, in file order: *v
 * (malloc'd) and *n. 0, or -errno with "FILE:LINE: ..." in err.
 */
int figdist_read_col(const char *path, const char *col, int ok_only, double **v,
		     size_t *n, char *err, size_t errlen);

/* Nearest-rank quantile P (0..1) of sorted V[0..N): V[ceil(P N) - 1]. */
double figdist_rank(const double *v, size_t n, double p);

/*
 * One curve: for each quantile level of the grid (p = k/200 up to 0.995,
 * then every 0.02 in nines -log10(1 - p) up to the last level, then p =
 * 1 - 1/n), the median across REPS[0..NREP) (each sorted, N[i] values)
 * of their nearest-rank values; the grid stops at the smallest n. Rows
 * "LATENCY FRACTION NINES". Returns the last NINES written (0 when n <
 * 2: nothing written).
 */
double figdist_curve(FILE *f, double *const *reps, const size_t *n, size_t nrep);

/*
 * Figure 3. DAT: one block per curve (two blank lines between). VARS:
 * ncurves, names[], color[] (one per configuration but the pre-query),
 * dash[] (one per pre-query setting), maxnines, behind (runs left out),
 * maxlab (the longest name's characters).
 * Returns the number of curves (0: no run with two answered requests),
 * or -errno with the message.
 */
int figdist_cdf(const struct figdist_src *src, size_t nsrc, int include_behind,
		FILE *dat, FILE *vars, char *err, size_t errlen);

/*
 * Expected share of gaps in [A, B) µs for DIST, any law of the client's
 * --dist with independent gaps ("exp", "lognormal:1", "fb-etc"...), of
 * mean MEAN µs (lib/arrival's arrival_law_cdf). NAN for the bursts
 * (onoff, mmpp), "replay" and what the client does not know.
 */
double figdist_expected(const char *dist, double mean, double a, double b);

/*
 * Figure 4. DAT: per panel a block of the target ("X SHARE" per bin
 * centre), then one block per series ("X SHARE": share of that series'
 * gaps per bin). VARS: npanels, ptitle[] ("exp, mean 5 ms: bins of 250
 * µs[, N gaps beyond]"), pfirst[] (the panel's target block index, from
 * 0), pcount[] (its series), pbinw[], pnolaw[] (1: no single target
 * law, a burst, a rate profile or a replayed trace, whose target block
 * is NaN and named so), nblocks, names[] (per block, from 1), maxlab.
 * Returns the number of panels, or -errno.
 */
int figdist_gaps(const struct figdist_src *src, size_t nsrc, int include_behind,
		 FILE *dat, FILE *vars, char *err, size_t errlen);

#endif
