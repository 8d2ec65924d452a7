/* SPDX-License-Identifier: GPL-2.0 */
/*
 * traceout: the files made from a trace inside its directory, named once.
 *
 * trace timeline and trace attribute write their results beside the trace
 * they read (cstate-cpuN.csv, residency.csv, attribution.csv, ...). They
 * describe that trace only: a command that writes a new trace into the
 * directory (trace record, trace import, lib/tracewrite) removes them
 * first, and a reader of them (wakebench report, through figdata) refuses
 * one older than the trace's meta.txt, naming the command that makes it
 * again. Before, a second record kept the first's residency.csv and the
 * report drew "cpu4095" for a 2-CPU trace.
 */
#ifndef WB_TRACEOUT_H
#define WB_TRACEOUT_H

#include <stddef.h>

/* trace timeline */
#define TRACEOUT_CSTATE_FMT "cstate-cpu%u.csv"	/* one per CPU */
#define TRACEOUT_WAKEUPS "wakeups.csv"
#define TRACEOUT_IRQ "irq.csv"
#define TRACEOUT_RESIDENCY "residency.csv"
#define TRACEOUT_MARKERS "markers.csv"
/* trace attribute */
#define TRACEOUT_ATTRIBUTION "attribution.csv"
#define TRACEOUT_ATTR_SUMMARY "attribution-summary.csv"
#define TRACEOUT_BREAKDOWN "breakdown.csv"

struct traceout_file {
	const char *name;	/* a file name, or with per_cpu its format */
	int per_cpu;		/* one file per CPU: NAME with %u, any CPU */
	const char *writer;	/* the command that makes it again, DIR for
				 * the directory */
};

/* The files above, ended by a NULL name. */
extern const struct traceout_file traceout_files[];

/* The entry of file name NAME (no directory), or NULL when it is none
 * of them ("cstate-cpu12.csv" matches; "cstate-cpu.csv" does not). */
const struct traceout_file *traceout_match(const char *name);

/*
 * 1 when DIR holds a trace or what is left of one (meta.txt, or formats/
 * after a record that was killed), else 0. Only then are files of the
 * table an earlier trace's: a directory that never held one may have an
 * irq.csv of its user's, which a new trace leaves alone.
 */
int traceout_held_trace(const char *dir);

/*
 * Removes every file of the table in DIR (cstate-cpuN.csv of any N).
 * Missing ones are fine. Returns the number removed, or -errno with
 * "cannot remove the earlier DIR/NAME: cause" in err.
 */
int traceout_remove(const char *dir, char *err, size_t errlen);

/*
 * Every file of the table in DIR is newer than DIR/meta.txt, give or take
 * TRACEOUT_SLACK_NS (a copy with cp -r or a git checkout writes a
 * directory's files in any order, a few ms apart). Returns 0, -ESTALE
 * with "DIR/NAME is older than DIR/meta.txt: made from an earlier trace;
 * run 'wakebench trace timeline DIR' again" (the table's writer) in err,
 * or another -errno (meta.txt cannot be read) with the cause.
 */
#define TRACEOUT_SLACK_NS 1000000000ll
int traceout_check_fresh(const char *dir, char *err, size_t errlen);

#endif
