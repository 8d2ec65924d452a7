/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracedat: trace-cmd's data file (trace.dat) read with libtracecmd, the
 * reader of trace-cmd report and KernelShark: what it counts in a file
 * wakebench wrote (lib/datfile), to check the file against wakebench's
 * own decoding of the same pages.
 */
#ifndef WB_TRACEDAT_H
#define WB_TRACEDAT_H

#include <stddef.h>
#include <stdint.h>

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
