/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwcstate: the C-state residency the hardware counted itself, to set
 * beside the residency the OS asked for (power:cpu_idle, cpuidle's
 * counters). A request for C6 may be demoted by the hardware (it stays
 * in C1E) or a package may reach PC6 only while every core sleeps: the
 * counters say what happened.
 *
 * The perf PMUs cstate_core (c1-, c3-, c6-, c7-residency: one CPU per
 * core in its cpumask, counting for the whole core) and cstate_pkg (c2-
 * .. c10-residency: one CPU per package) count residency in TSC cycles
 * (lib/perfpmu finds them in sysfs and opens the counters). A state's
 * share is its count over the TSC's count in the same window: msr/tsc on
 * the same CPU where the msr PMU has it, else the user-space TSC read
 * (rdtsc) where the TSC is constant, nonstop and the kernel's
 * clocksource (then every CPU's TSC advances alike), else unknown: the
 * count alone, the percent left empty.
 *
 * States are named C<n> for a core and PC<n> for a package (turbostat's
 * CPU%c6 and Pkg%pc6): c6-residency of cstate_core is C6, of cstate_pkg
 * PC6.
 *
 * The file both trace record and trace capture write, hw-residency.csv:
 *   scope,cpu,state,percent,count
 * scope core or package; cpu the CPU the counter was read on (for a core
 * or package counter, it counts for the whole core or package); state
 * C<n>/PC<n>; percent of the TSC cycles of the window (empty: unknown);
 * count the residency in TSC cycles. A counter that could not be opened
 * or read has no row (the note says which); no row is ever a made-up
 * zero.
 */
#ifndef WB_HWCSTATE_H
#define WB_HWCSTATE_H

#include <stddef.h>
#include <stdint.h>

#define HWCSTATE_STATE_LEN 16

enum hwcstate_scope { HWCSTATE_CORE, HWCSTATE_PACKAGE };

struct hwcstate_row {
	enum hwcstate_scope scope;
	int cpu;		/* -1: perf stat's total over CPUs ("all") */
	char state[HWCSTATE_STATE_LEN];	/* "C6", "PC6" */
	double percent;		/* NAN: unknown */
	uint64_t count;		/* TSC cycles in the state */
};

struct hwcstate;

/*
 * Finds cstate_core and cstate_pkg and opens every residency counter on
 * the CPUs of their cpumasks, and msr/tsc beside them. Returns the number
 * of counters open (>0, *hw set; a counter that would not open is left
 * out and hwcstate_note says so), 0 when there is none (*hw NULL, why in
 * note: "no cstate_core or cstate_pkg PMU on this machine", a refusal by
 * perf_event_paranoid), or -errno with why in note (a sysfs value that
 * does not parse).
 */
int hwcstate_open(struct hwcstate **hw, char *note, size_t notelen);
/* Reads every counter and the TSC now; stop computes the deltas. 0, or
 * -errno with why in err when no counter could be read. */
int hwcstate_start(struct hwcstate *hw, char *err, size_t errlen);
int hwcstate_stop(struct hwcstate *hw, char *err, size_t errlen);
/* After stop: the rows (core counters first, by CPU, then packages),
 * at most max; returns how many. */
int hwcstate_rows(const struct hwcstate *hw, struct hwcstate_row *rows, int max);
/* What the counters were left without ("" when nothing): the counters
 * that did not open or read, a TSC that is unknown. */
const char *hwcstate_note(const struct hwcstate *hw);
/* Where the TSC counts came from: "msr/tsc", "rdtsc", "msr/tsc+rdtsc"
 * or "none" (then every percent is unknown). */
const char *hwcstate_tsc_source(const struct hwcstate *hw);
void hwcstate_close(struct hwcstate *hw);

/* "core" or "package". */
const char *hwcstate_scope_name(enum hwcstate_scope scope);
/* Writes rows as hw-residency.csv to path (the header alone for none):
 * 0 or -errno. */
int hwcstate_write_csv(const char *path, const struct hwcstate_row *rows, int n);
/*
 * Reads a hw-residency.csv strictly (columns found by name; scope,
 * cpu, state, percent and count checked). Returns the number of rows,
 * *rows malloc'd (free it; NULL for none), or -errno with
 * "FILE:LINE: what is wrong" in err (-ENOENT: no such file, as in a trace
 * recorded before there was one).
 */
int hwcstate_read_csv(const char *path, struct hwcstate_row **rows, char *err,
		      size_t errlen);
/*
 * Parses `perf stat -x, -A` output (what trace capture's perf-cstate.csv
 * holds) into rows: every cstate_core/cN-residency/ and
 * cstate_pkg/cN-residency/ count per CPU, its percent of the msr/tsc/
 * count of the same CPU when the output has one. Lines without a CPU
 * field (perf's total over CPUs) give cpu -1 and no percent. Counts perf
 * could not take ("<not counted>", "<not supported>") give no row;
 * *skipped says how many. Returns the number of rows (*rows malloc'd,
 * NULL for none) or -errno with "FILE:LINE: what is wrong" in err.
 */
int hwcstate_parse_perf_stat(const char *path, struct hwcstate_row **rows,
			     int *skipped, char *err, size_t errlen);

#endif
