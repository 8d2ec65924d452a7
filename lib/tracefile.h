/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefile: a recorded trace directory (wakebench trace record).
 *
 *   meta.txt           "key value" lines: format version, clock, CPUs,
 *                      start/end, events, idle state names, missed events
 *   formats/           header_page and each event's format file, so the
 *                      trace decodes on any machine
 *   cpuN.raw           CPU N's ring-buffer sub-buffers from
 *                      trace_pipe_raw, as the kernel wrote them
 *
 * The reader decodes sub-buffers with libtraceevent's kbuffer and feeds
 * power:cpu_idle, irq:irq_handler_entry/exit and ftrace:print (markers)
 * into a timeline. It never parses the text `trace` file.
 */
#ifndef WB_TRACEFILE_H
#define WB_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>
#include "timeline.h"

#define TRACEFILE_MAX_STATES 16

struct trace_meta {
	uint32_t ncpus;
	uint64_t start_ns, end_ns;
	uint32_t subbuf_size;
	char clock[16];
	char driver[64];
	/* names[cpu][state]; "" where unknown */
	char (*names)[TRACEFILE_MAX_STATES][32];
	uint64_t *overrun, *dropped;	/* per CPU */
};

/* Reads DIR/meta.txt. Returns 0 or -errno with a message in err. */
int tracefile_meta(const char *dir, struct trace_meta *m, char *err,
		   size_t errlen);
void tracefile_meta_free(struct trace_meta *m);
/* "C0", "unknown", the recorded name, or "stateN". */
const char *tracefile_state_name(const struct trace_meta *m, uint32_t cpu,
				 int32_t state, char *buf, size_t len);
/*
 * Decodes every CPU's raw data into t (created by the caller with
 * m->ncpus CPUs). Returns the number of events fed (C-state, IRQ,
 * marker), or -errno with a message in err; *recorded (if not NULL) gets
 * the number of events of any kind in the trace.
 */
long tracefile_decode(const char *dir, const struct trace_meta *m,
		      struct timeline *t, uint64_t *recorded, char *err,
		      size_t errlen);

#endif
