/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracedat: trace-cmd's data file (trace.dat, what trace-cmd report and
 * KernelShark open) written and read back with libtracecmd.
 *
 * libtracecmd writes a file from a directory laid out like tracefs (its
 * "tracing dir"): events/header_page, events/header_event,
 * events/SYS/EVENT/format (events/ftrace/... go in the ftrace section),
 * printk_formats and saved_cmdlines when there, and one file of whole
 * ring-buffer pages per CPU. The reader counts what the file holds through
 * libtracecmd's public API, so a caller can check the file against its own
 * decoding of the same pages.
 */
#ifndef WB_TRACEDAT_H
#define WB_TRACEDAT_H

#include <stddef.h>
#include <stdint.h>

struct tracedat_src {
	const char *tracing_dir;	/* laid out like tracefs (above) */
	const char *clock;		/* the trace clock, e.g. "mono" */
	int ncpus;
	char *const *cpu_files;		/* ncpus files of whole pages */
};

/*
 * Writes file (created or truncated) from s. The page size of the file
 * is the sub-buffer size of s->tracing_dir/events/header_page (see
 * tracedat_subbuf_size); the live tracefs and /proc are not read and
 * nothing of the system is changed: the kallsyms section is left empty.
 * Returns 0 or -errno with a message in err; on failure file may hold a
 * part (the caller removes it).
 */
int tracedat_write(const char *file, const struct tracedat_src *s, char *err,
		   size_t errlen);

/*
 * The sub-buffer (page) size a header_page text of len bytes declares,
 * as libtraceevent computes it, or 0 when it declares none.
 */
int tracedat_subbuf_size(const char *header_page, size_t len);

struct tracedat_count {
	uint64_t events;	/* every event, of all CPUs */
	uint64_t cpu_idle;	/* power:cpu_idle */
	uint64_t markers;	/* ftrace:print */
	int page_size;		/* the file's */
};

/*
 * Opens file with libtracecmd's reader and counts its events. Returns 0
 * or -errno with a message in err.
 */
int tracedat_count(const char *file, struct tracedat_count *c, char *err,
		   size_t errlen);

#endif
