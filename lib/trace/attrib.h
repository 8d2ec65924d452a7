/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attrib: which C-state each request's server core was in when the
 * request arrived, and where the microseconds of its wake went, from the
 * server's messages (its log, or its markers in the trace) and the
 * trace's events, both read once in time order (memory bounded by the
 * messages received at one instant, not by the run's length).
 *
 * A message found its core idle when the core left an idle state after
 * the server's previous activity (the previous message's receive or
 * send) and before this message was received: the state at arrival is
 * that idle state, the idle period ended at the exit, and exit-to-receive
 * is how long the core took from waking to handing the message to the
 * server. Otherwise the core was already in C0. A message logged while
 * the trace still shows its core idle (the two clocks a few ns apart)
 * found it in that idle state.
 *
 * When the trace has the server thread's sched_wakeup (W, below), the
 * wake must also be the one that delivered it: W during the idle stay
 * (with HLT the interrupt's handler, and the wakeup in it, run inside the
 * halt; a remote CPU may wake the thread first and tell the core by IPI),
 * or after an exit whose first handler came after the exit (states that
 * wait with interrupts off) with no other hard interrupt on the core
 * before W. Otherwise the core woke for something else (a timer), ran
 * other work, and the request found it busy: C0. Without W the first
 * rule alone decides.
 *
 * A request's pre-query (same sequence number) is classified:
 *   none      no pre-query for it
 *   woke      the pre-query arrived before it and found the core idle:
 *             it woke the core ahead of the request (prequery_woke = 1)
 *   awake     the pre-query arrived before it but the core was already up
 *   together  both came in by one read (equal receive times): the
 *             pre-query gave no head start; the request is given the
 *             state the pair found the core in (but see
 *             attrib_client_lead: sent apart, it is `woke`)
 *
 * The breakdown of a wake (DESIGN.md "Wake causes and the breakdown of a
 * wake"), on the sequence points of the trace:
 *   E  the idle exit (power:cpu_idle)
 *   H  the first handler of its wake cause (IRQ, IPI, timer, softirq) on
 *      the core; before E when the handler ran inside the idle
 *      instruction (x86 HLT takes the interrupt in the halt), after E
 *      when the idle state runs with interrupts off (mwait)
 *   W  the sched_wakeup of the server's thread (any CPU), the last one
 *      after the server's previous activity and at or before R
 *   R  the server's receive
 * The wake starts at T0 = min(E, H) (E without H) and the segments
 * partition [T0, R]:
 *   hardware exit  T0 .. H   (H - E when the handler came after the
 *                             exit; 0 when it ran inside the idle
 *                             instruction or there was none)
 *   kernel path    H .. max(H, W)   (0 when the thread was woken first,
 *                             from another CPU, and the handler is the
 *                             IPI that told this core)
 *   scheduling     max(H, W) .. R   (run queue, context switch, the
 *                             return from epoll_wait and the read)
 * Without H (a polling state, or no cause recorded) H is taken as E. The
 * cause of a request's wake is what the trace shows by its receive: an
 * exit with no handler by then is `none` (an interrupt after the receive
 * did not wake the core for it), `unknown` only when the trace ended
 * first.
 * Without W (sched_wakeup not recorded, the server's thread unknown) the
 * last two are unknown.
 *
 * A trace of only some CPUs (trace record --cpus) may miss W: the thread
 * is woken on the CPU that wakes it, which may not be recorded. A request
 * that found its core idle by the first rule alone, without W, is then
 * `uncertain`: the core may have woken for something else and been busy.
 * The state given is the first rule's guess. A request that found C0 has 0, 0 and W .. R
 * (0 without a wakeup: the thread was running).
 */
#ifndef WB_ATTRIB_H
#define WB_ATTRIB_H

#include <stddef.h>
#include <stdint.h>
#include "timeline.h"

struct attr_msg {
	uint64_t seq;
	int prequery;
	uint64_t recv_ns, send_ns;	/* send_ns 0: not answered */
};

/*
 * Whether the governor's last idle on the server's core before the
 * request (the one whose exit came last by its receive) missed, from
 * power:cpu_idle_miss: the kernel emits it after the idle exit when the
 * idle turned out shorter than the state's target residency (above: too
 * deep) or long enough for a deeper enabled state (below: too shallow).
 */
enum attr_miss {
	ATTR_MISS_UNKNOWN,	/* not recorded, no idle yet, or its exit
				 * after the receive */
	ATTR_MISS_NONE,
	ATTR_MISS_ABOVE,
	ATTR_MISS_BELOW,
	ATTR_MISS_KINDS
};

enum attr_pq {
	ATTR_PQ_NONE,
	ATTR_PQ_WOKE,
	ATTR_PQ_AWAKE,
	ATTR_PQ_TOGETHER,
	ATTR_PQ_KINDS
};

struct attr_result {
	uint32_t cpu;		/* the server's */
	uint64_t seq;
	uint64_t recv_ns, send_ns;	/* the message's (send_ns 0: none) */
	int32_t state;		/* TL_C0, TL_UNKNOWN or an idle state */
	uint64_t idle_end_ns;	/* 0 when the core was in C0 */
	uint64_t exit_to_recv_ns;
	int prequery_woke;	/* 1 only for ATTR_PQ_WOKE */
	enum attr_pq prequery;
	int uncertain;		/* idle by the first rule, without W, on a
				 * trace that lacks CPUs that may have woken
				 * the thread */
	int thread_known;	/* the server's thread was known */
	/* the wake (state an idle state) */
	uint32_t cause, detail;	/* enum tl_cause, timeline string */
	uint64_t cause_ns;	/* H, 0: none */
	uint64_t wakeup_ns;	/* W, 0: none */
	uint64_t switch_ns;	/* the thread switched in on the core, 0: none */
	uint64_t netrx_ns;	/* the last netif_receive_skb before W, 0: none */
	/* the breakdown; have_breakdown 0: kernel and sched unknown */
	int have_breakdown;
	uint64_t hw_exit_ns, kernel_ns, sched_ns;
	uint64_t wake_ns;	/* R - T0 */
	enum attr_miss idle_miss;
};

/*
 * A pair read together may still have been sent apart: a pre-query that
 * left the client lead_ns (> 0) ahead reached an idle core, the wake began
 * with it, and the request arrived while the core was still waking, so
 * the server read both at once. Given the client's effective lead, such a
 * result is reclassified `woke` (prequery_woke = 1) when the pair found
 * the core idle; sent together (lead 0) it stays `together`.
 */
void attrib_client_lead(struct attr_result *r, uint64_t lead_ns);

/*
 * The client sent the request at sent_ns (its requests.csv, on the
 * trace's clock): an idle exit before that cannot be the request's wake;
 * the core was up from that exit until the receive (the result's exit is
 * the core's last before it), so the request found it busy: the result
 * becomes C0 (and certain). sent_ns 0: unknown, nothing changes. Call it
 * before attrib_client_lead.
 */
void attrib_client_send(struct attr_result *r, uint64_t sent_ns);

/* "none", "woke", "awake", "together". */
const char *attrib_pq_name(enum attr_pq pq);
/* "", "none", "above", "below". */
const char *attrib_miss_name(enum attr_miss m);

/*
 * A group's traced wake beside its latency. The traced wake is the
 * result's wake_ns: R - T0 for an idle state, the scheduling (W .. R)
 * for C0 when the thread is known; unknown otherwise (state unknown, no
 * idle exit). Requests with a latency are the ones the share is over, so
 * both means are of the same requests; without latencies (no client
 * file) only the mean wake is known.
 */
struct attr_share {
	uint64_t n;		/* requests with a traced wake */
	uint64_t wake_sum;	/* ns, over those n */
	uint64_t nlat;		/* ... that also have a latency */
	uint64_t lat_sum, wake_lat_sum;	/* ns, over those nlat */
};

/* Whether r's wake_ns is its traced wake (above). */
int attrib_wake_known(const struct attr_result *r);
/* Adds r with its latency lat_ns (0: none) to s, if its wake is known. */
void attrib_share_add(struct attr_share *s, const struct attr_result *r,
		      uint64_t lat_ns);
/* The requests the means are over: nlat, or n without latencies. */
uint64_t attrib_share_n(const struct attr_share *s);
/* Mean traced wake (ns) over those requests; NaN when none. */
double attrib_share_wake(const struct attr_share *s);
/* Mean latency (ns) of the requests with both; NaN when none. */
double attrib_share_latency(const struct attr_share *s);
/* The mean wake as a percentage of the mean latency; NaN when none. */
double attrib_share_pct(const struct attr_share *s);

/* Where the messages and events come from. */
struct attr_source {
	void *ctx;
	/* The next trace event, in time order: 1, 0 at the end, -errno
	 * (with a message in err). */
	int (*next_event)(void *ctx, struct tl_event *e, char *err, size_t errlen);
	/* The next message, in receive order (ties: log order): 1, 0, or
	 * -errno. NULL: the messages are the request markers in the trace
	 * ("wb recv SEQ", "wb pqrecv SEQ") of the server's CPU. */
	int (*next_msg)(void *ctx, struct attr_msg *m, char *err, size_t errlen);
};

typedef int (*attr_result_fn)(void *ctx, const struct attr_result *r);

struct attr_opts {
	int cpu;		/* the server's CPU; -1 with markers: the CPU
				 * of the first request marker */
	int64_t pid;		/* the server's thread; -1: the writer of the
				 * request markers, if any */
	attr_result_fn fn;	/* each request's result, in receive order */
	void *ctx;
	/* recorded[cpu] non-zero: cpu is in the trace (ncpus of them);
	 * NULL: every CPU is */
	const unsigned char *recorded;
	uint32_t ncpus;
	int idle_miss;		/* the trace recorded power:cpu_idle_miss */
};

struct attr_stats {
	uint64_t messages;	/* requests and pre-queries */
	uint64_t requests;
	uint64_t elsewhere;	/* request markers from other CPUs, left out */
	int cpu;		/* the one attributed */
	int64_t pid;		/* the thread whose wakeups were used, -1 */
	uint64_t wakeups;	/* sched_wakeup events seen in the trace */
	uint64_t uncertain;	/* requests with uncertain set */
	uint64_t miss[ATTR_MISS_KINDS];	/* requests by idle_miss */
};

/*
 * Feeds every event of src into t (a timeline of any kind, fresh) and
 * attributes every message to the state of opts->cpu, calling opts->fn
 * per request; closes t at end_ns. Returns 0, or -errno with a message in
 * err: a bad marker, messages out of receive order, more than 65536
 * messages received while the trace shows their core idle (the log is
 * not of this CPU or trace), a source's or fn's error.
 */
int attrib_run(struct timeline *t, const struct attr_source *src,
	       const struct attr_opts *opts, uint64_t end_ns,
	       struct attr_stats *stats, char *err, size_t errlen);

#endif
