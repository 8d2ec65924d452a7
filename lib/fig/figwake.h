/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figwake: the report's figures of `wakebench wake` result directories
 * (wake.csv, summary.csv), read once, in one pass over wake.csv:
 *
 *  figure 12 per state (a panel per directory and state), the latency
 *            CDF of each source; the state's kernel exit latency given
 *  figure 13 wult's signature plot: latency against silent time (the
 *            idle time before the wake), a panel per directory and
 *            source, points coloured by state, the kernel's exit
 *            latency (horizontal) and target residency (vertical) of
 *            each state as lines
 *
 * Busy and mixed datapoints are left out, as in the summaries.
 */
#ifndef WB_FIGWAKE_H
#define WB_FIGWAKE_H

#include <stddef.h>
#include <stdio.h>

struct figwake_src {
	const char *label;
	const char *dir;
};

/*
 * Figure 12. DAT: per curve a block "LATENCY_US FRACTION" (at most 400
 * points, the last at fraction 1), blocks apart by two blank lines. VARS:
 * npanels, pname[], plat[] (the state's kernel exit latency in µs, NaN
 * for none), ncurves, cpanel[], csrc[] (1 timer, 2 ipi, 3 packet),
 * cname[]. *n12: curves.
 *
 * Figure 13. DAT: per panel a block "SILENT_US LATENCY_US STATE" (STATE
 * 1.. of the panel's directory; at most 3000 points a panel, every k-th).
 * VARS: npanels, pname[], pdir[] (the panel's directory, 1..), nstates,
 * sname[], sdir[] (the state's directory), slat[], sres[] (µs, NaN where
 * unknown): a panel's states are those of its directory; smax (the
 * largest silent time, µs). *n13:
 * points (0 when no datapoint has a silent time: no cpuidle states).
 *
 * Returns 0, or -errno with a message (a bad row names FILE:LINE).
 */
int figwake_figures(const struct figwake_src *src, size_t n, FILE *dat12,
		    FILE *vars12, FILE *dat13, FILE *vars13, int *n12, int *n13,
		    char *err, size_t errlen);

#endif
