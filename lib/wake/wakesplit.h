/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wakesplit: where the microseconds of each `wakebench wake` datapoint
 * went, from a trace recorded around the run (trace record's events, read
 * through lib/trace's event stream), on the sequence points the request
 * breakdown uses (attrib.h) and two of the wake's own:
 *   L  the launch (the timer's expiry, the sender's write or send)
 *   E  the measured CPU's idle exit (power:cpu_idle), the first after L
 *   H  the first handler on that CPU after L: IRQ, IPI, local timer
 *      (whose hrtimer wakes a timer sleeper) or softirq; before E when
 *      it ran inside the idle instruction (HLT), after E with mwait
 *   X  the NET_RX softirq on that CPU (packets)
 *   W  the sleeper's sched_wakeup (any CPU), the last by the wake
 *   S  the sleeper switched in on its CPU (sched_switch), the last by
 *      the wake
 *   U  the sleeper's clock read in user space (the datapoint's wake_ns)
 * With T0 = min(E, H) (E without H; when the CPU was not idle at L, H,
 * or L without one),
 * T1 = H (T0 without one; never before T0) and W' = max(W, T1) the
 * segments partition [L, U]:
 *   launch_exit  L .. T0   the timer's or sender's path to the idle exit
 *   hw_exit      T0 .. T1  as the request breakdown's
 *   kernel       T1 .. W'  as the request breakdown's (0 when another
 *                          CPU woke the sleeper first: the IPI sender)
 *   softirq      X .. W'   the part of kernel after the NET_RX softirq
 *                          began (0 without one)
 *   sched        W' .. S   the run queue and the switch
 *   to_user      S .. U    the return to user space and the clock read
 * The request breakdown's scheduling is sched + to_user (its R is the
 * server's receive, in user space). Without W the split is unknown;
 * without S, sched runs to U and to_user is unknown.
 */
#ifndef WB_WAKESPLIT_H
#define WB_WAKESPLIT_H

#include <stddef.h>
#include <stdint.h>
#include "timeline.h"

enum wake_seg {
	WAKE_SEG_LAUNCH_EXIT,
	WAKE_SEG_HW_EXIT,
	WAKE_SEG_KERNEL,
	WAKE_SEG_SOFTIRQ,
	WAKE_SEG_SCHED,
	WAKE_SEG_TO_USER,
	WAKE_NSEG
};

/* "launch_exit", "hw_exit", "kernel", "softirq", "sched", "to_user". */
extern const char *const wake_seg_name[WAKE_NSEG];

struct wake_split {
	int known;		/* W found: the segments are set */
	int idle;		/* the CPU was idle at L and exited after it */
	int have_switch;	/* S found: to_user is set */
	uint32_t cause;		/* enum tl_cause of H (TL_CAUSE_NONE: none) */
	uint64_t exit_ns, handler_ns, softirq_ns, wakeup_ns, switch_ns;	/* 0: none */
	uint64_t seg[WAKE_NSEG];
};

/* The events of the trace, in time order: 1, 0 at the end, -errno. */
typedef int (*wake_event_fn)(void *ctx, struct tl_event *e, char *err,
			     size_t errlen);

struct wake_splitter;

/* A splitter for the sleeper's CPU over the events next() gives. NULL:
 * out of memory. */
struct wake_splitter *wake_splitter_new(uint32_t cpu, wake_event_fn next,
					void *ctx);
void wake_splitter_free(struct wake_splitter *w);

/*
 * The split of the next datapoint (launched at launch_ns, woken at
 * wake_ns, sleeper thread tid): datapoints must come in time order, each
 * after the previous one's wake. Reads the events up to wake_ns. 0, or
 * the event source's -errno with its message in err.
 */
int wake_split_next(struct wake_splitter *w, uint64_t launch_ns,
		    uint64_t wake_ns, uint32_t tid, struct wake_split *out,
		    char *err, size_t errlen);

#endif
