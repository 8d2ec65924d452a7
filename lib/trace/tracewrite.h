/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracewrite: a wakebench trace directory (lib/trace/tracefile.h)
 * written from events: the reader's inverse, for traces that were not
 * recorded (trace import, synthetic traces for tests and benchmarks).
 *
 * The files are what trace record leaves: cpuN.raw holds kernel
 * ring-buffer pages of subbuf_size bytes (a u64 time stamp, a commit word
 * of sizeof(long) bytes, then events behind 32-bit headers: type_len 1-28
 * for data of up to 112 bytes, 0 with the length in the next word, a time
 * extend (30) before an event 2^27 ns or more after the previous one, or
 * an absolute time stamp (31) with opts.absolute; padding (29) fills the
 * tail of a page an event did not fit), formats/ the header_page and
 * event format files in the kernel's text whose fields are the ones
 * written (ids of its own), and meta.txt. Events written:
 *   TL_IDLE       power:cpu_idle (arg: state or TL_EXIT)
 *   TL_IRQ_ENTRY  irq:irq_handler_entry (arg: irq, str: handler name)
 *   TL_IRQ_EXIT   irq:irq_handler_exit (arg: irq; ret handled)
 *   TL_MARKER     ftrace:print (str: the text; a '\n' is appended)
 *   TL_SOFTIRQ    irq:softirq_entry (arg: vector)
 *   TL_IPI        irq_vectors:{reschedule,call_function,
 *                 call_function_single,irq_work}_entry (arg: enum tl_ipi)
 *   TL_TIMER      irq_vectors:local_timer_entry
 *   TL_WAKEUP     sched:sched_wakeup (arg: pid woken, arg2: its target
 *                 CPU, str: its comm; tracewrite_wakeup() sets prio too)
 *   TL_SWITCH     sched:sched_switch (arg: next pid, arg2: prev pid,
 *                 str: next comm)
 *   TL_NETRX      net:netif_receive_skb (arg: len, str: the device)
 * each with the event's pid as common_pid (the task it was traced in).
 *
 * Whole or not at all: cpuN.raw are written under temporary names and
 * take their names at tracewrite_close() together with formats/ and,
 * last, meta.txt (lib/io/stage.h). An earlier trace in the directory stays
 * as it was until then and is replaced by the close (its meta.txt goes
 * first; cpuN.raw of CPUs beyond the new ncpus are removed); other files
 * in the directory are left alone.
 *
 * Memory: one run of pages per CPU (16 pages, fewer with many CPUs),
 * whatever the number of events; no allocation per event.
 */
#ifndef WB_TRACEWRITE_H
#define WB_TRACEWRITE_H

#include <stddef.h>
#include <stdint.h>
#include "timeline.h"
#include "tracefile.h"

struct tracewrite_opts {
	const char *command;	/* meta.txt "command" (NULL: none) */
	const char *source;	/* meta.txt "source": where the events came from */
	const char *note;	/* meta.txt "note": what a reader should know
				 * of the source (NULL: none) */
	int no_interrupts;	/* the source records no interrupts: meta.txt
				 * says "wake_causes unknown" */
	int absolute;		/* long gaps as absolute time stamps, not extends */
	int idle_miss;		/* power:cpu_idle_miss recorded (its format
				 * written, TL_IDLE_MISS events taken) */
};

struct tracewrite;

/*
 * Starts a trace in dir (created when missing; its parent must exist).
 * From m: ncpus (1-TRACEFILE_MAX_CPUS), start_ns, end_ns (0: the last event's time),
 * subbuf_size (0: 4096), clock ("": mono), driver ("": none), names
 * (NULL: no state lines), overrun/dropped (NULL: none lost). o may be
 * NULL. Returns 0 or -errno with a message in err.
 */
int tracewrite_open(const char *dir, const struct trace_meta *m,
		    const struct tracewrite_opts *o, struct tracewrite **w,
		    char *err, size_t errlen);
/*
 * Adds one event. Events come in time order per CPU (CPUs may interleave)
 * and lie within [start_ns, end_ns]. Returns 0, or -errno with the reason
 * in tracewrite_error(): -EINVAL (a CPU out of range, an event before the
 * previous one of its CPU or outside the trace, a type not written: the
 * event is left out), -EMSGSIZE (larger than a page), or the errno of a
 * failed write, which is kept: every later call and the close return it.
 */
int tracewrite_event(struct tracewrite *w, const struct tl_event *e);
/* sched:sched_wakeup on cpu: pid (comm, prio) woken onto target_cpu. */
int tracewrite_wakeup(struct tracewrite *w, uint64_t ts, uint32_t cpu,
		      uint32_t pid, const char *comm, int32_t prio,
		      uint32_t target_cpu);
/* The reason of the last failure ("" if none). */
const char *tracewrite_error(const struct tracewrite *w);
/* Pages finished so far (each CPU's current page not counted). */
uint64_t tracewrite_pages(const struct tracewrite *w);
/*
 * Writes the last pages, formats/ and meta.txt, puts the files in place
 * and frees w. Returns 0, or -errno with a message in err: then nothing
 * of the new trace is left (an earlier trace may be gone too when the
 * failure came while replacing it: its meta.txt is removed first).
 */
int tracewrite_close(struct tracewrite *w, char *err, size_t errlen);
/* Leaves nothing behind (the directory too, when open made it). */
void tracewrite_abort(struct tracewrite *w);

#endif
