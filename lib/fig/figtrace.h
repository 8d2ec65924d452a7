/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figtrace: wakebench report's figures drawn from trace directories
 * (wakebench trace record, then trace timeline and trace attribute):
 *
 *  figure 5  C-state timeline: every trace given stacked on one time axis
 *            (ms since its first request), one row per traced CPU that
 *            has idle events, requests, pre-queries, IRQs and the cause
 *            of each wake marked on their CPU's row
 *  figure 6  per trace and CPU: time in C0 and idle entries per second
 *  figure 9  latency by state at arrival and pre-query class, one panel
 *            per trace (attribution.csv); p99 left out below 100 requests
 *  figure 10 the wake's mean segments (hardware exit, kernel path,
 *            scheduling) stacked per state and pre-query class, the
 *            traces side by side (breakdown.csv)
 *
 * Each trace is given with a label (its directory, for the legend).
 */
#ifndef WB_FIGTRACE_H
#define WB_FIGTRACE_H

#include <stddef.h>
#include <stdio.h>

struct figtrace_src {
	const char *label;
	const char *dir;
};

struct cpuset;

struct figtrace_window {
	double a_ms, b_ms;	/* a < b: the window, ms since the first request */
	const struct cpuset *cpus;	/* NULL: every CPU */
	int requests;		/* default window: the first this many requests */
};

/*
 * Figure 5. IVS: "Y X0 X1 RGB" per interval in the window (RGB an
 * integer 0xRRGGBB); MARKS: "X Y KIND". VARS: x0, x1, nrows, rowname[]
 * (from the top row down: Y = nrows - 1 for the first), nstates,
 * sname[] and scolor[] (the states in the window), nkinds, kname[],
 * kcount[] (marks of each kind in the window). Returns the number of
 * intervals written (0: none in the window), or -errno.
 */
int figtrace_timeline(const struct figtrace_src *src, size_t n,
		      const struct figtrace_window *w, FILE *ivs, FILE *marks,
		      FILE *vars, char *err, size_t errlen);

/*
 * Figure 6. DAT, one row per CPU seen in any trace:
 *   I "cpuN" C0_PCT(trace 1..n) ENTRIES_PER_S(trace 1..n)
 * (NaN where a trace has no idle events for that CPU). VARS: ntraces,
 * names[], ncpus. Returns the number of CPU rows, or -errno.
 */
int figtrace_residency(const struct figtrace_src *src, size_t n, FILE *dat,
		       FILE *vars, char *err, size_t errlen);

/*
 * Figure 9. DAT: one block per trace with attribution.csv, rows
 *   I "STATE, CLASS (n=N)" N P50 P90 P99
 * P99 NaN when N < 100. VARS: npanels, ptitle[], pcount[], metric (what
 * was measured: "client latency" or, without one, "idle exit to
 * receive"), hidden (groups whose p99 was left out), minp99, maxlab
 * (the longest label's characters). Returns the
 * number of panels, or -errno.
 */
int figtrace_states(const struct figtrace_src *src, size_t n, FILE *dat,
		    FILE *vars, char *err, size_t errlen);

/*
 * Figure 10. DAT, one row per state and pre-query class with a complete
 * breakdown:
 *   X "STATE, CLASS (n=COMPLETE)" HW_EXIT KERNEL SCHED WAKE COMPLETE
 * X: bars of one trace together, a gap between traces. VARS: ntraces,
 * tname[], tx[] (the centre of each trace's bars), nbars, xmax, maxlab.
 * Returns
 * the number of bars, or -errno.
 */
int figtrace_breakdown(const struct figtrace_src *src, size_t n, FILE *dat,
		       FILE *vars, char *err, size_t errlen);

/*
 * The index's table of the traced wake beside the latency: the
 * state_prequery rows of each trace's attribution-summary.csv (trace
 * attribute) onto OUT, whose header the caller wrote:
 *   trace,state,prequery,count,latency_avg_us,wake_n,wake_avg_us,wake_share_pct
 * (count and latency_avg_us: the requests with a latency, or without a
 * client file exit-to-receive; wake_*: those of them with a traced wake).
 * A trace without the file, or with an older one, adds nothing. Returns
 * the rows written, or -errno with the message.
 */
struct csv;
#define FIGTRACE_WAKESHARE_HEADER \
	"trace,state,prequery,count,latency_avg_us,wake_n,wake_avg_us,wake_share_pct"
int figtrace_wakeshare(const struct figtrace_src *src, size_t n, struct csv *out,
		       char *err, size_t errlen);

#endif
