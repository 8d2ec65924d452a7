/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeline: per-CPU C-state intervals and IRQ samples built from a stream
 * of trace events (DESIGN.md "Tracing").
 *
 * power:cpu_idle state=N is entry into idle state N; state=4294967295 is
 * the exit to C0. Before a CPU's first event its state is unknown and is
 * reported as such, never guessed; a first event that is an exit closes
 * an idle period of unknown depth. The last interval of every CPU is
 * closed at trace end. Events must come in time order per CPU; CPUs may
 * interleave in any order.
 *
 * Wake causes (DESIGN.md "Wake causes"): every idle exit gets the first
 * hard interrupt, IPI, local timer or softirq seen on its CPU after the
 * idle entry: inside the idle period (a handler that runs before the
 * exit is traced, as with HLT) or after the exit, up to the CPU's next
 * idle entry (one that runs once the idle loop re-enables interrupts).
 * Nothing by then is TL_CAUSE_NONE: a wake that needed no interrupt (a
 * polling state woken by a remote need_resched) or one whose event was
 * not recorded. An exit with no later event on its CPU stays
 * TL_CAUSE_UNKNOWN, and so does every exit of a trace whose source
 * recorded no interrupts (timeline_no_causes).
 *
 * state=TL_NO_DATA (wakebench's own; the kernel never writes it: its
 * states are below 10 and the exit is (u32)-1) says nothing is known of
 * the CPU from then on, until its next cpu_idle event: an import writes
 * it where its source's rows end before the trace does. The time after
 * it is unknown, like the time before a CPU's first event.
 */
#ifndef WB_TIMELINE_H
#define WB_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TL_EXIT 4294967295u	/* cpu_idle state of an exit to C0 */
#define TL_NO_DATA 4294967294u	/* cpu_idle "state unknown from here" */
#define TL_C0 (-1)
#define TL_UNKNOWN (-2)

enum tl_type {
	TL_IDLE,		/* arg: state, or TL_EXIT */
	TL_IRQ_ENTRY,		/* arg: irq number, str: handler name */
	TL_IRQ_EXIT,		/* arg: irq number */
	TL_MARKER,		/* str: text written to trace_marker */
	TL_SOFTIRQ,		/* arg: softirq vector (irq:softirq_entry) */
	TL_IPI,			/* arg: enum tl_ipi (irq_vectors:*_entry) */
	TL_TIMER,		/* irq_vectors:local_timer_entry */
	TL_WAKEUP,		/* sched:sched_wakeup; arg: the pid woken,
				 * arg2: its target CPU */
	TL_SWITCH,		/* sched:sched_switch; arg: next pid, arg2: prev */
	TL_NETRX,		/* net:netif_receive_skb */
	TL_IDLE_MISS,		/* power:cpu_idle_miss: the governor's choice
				 * did not fit the idle that followed; arg: the
				 * state, arg2: 1 below (too shallow), 0 above
				 * (too deep) */
	TL_NTYPES
};

enum tl_ipi { TL_IPI_RESCHEDULE, TL_IPI_CALL_FUNCTION,
	      TL_IPI_CALL_FUNCTION_SINGLE, TL_IPI_IRQ_WORK };

enum tl_cause {
	TL_CAUSE_UNKNOWN,	/* the trace ended first */
	TL_CAUSE_IRQ,		/* detail: the handler's name */
	TL_CAUSE_IPI,		/* detail: reschedule, call_function, ... */
	TL_CAUSE_TIMER,		/* detail: local_timer */
	TL_CAUSE_SOFTIRQ,	/* detail: NET_RX, TIMER, ... */
	TL_CAUSE_NONE,		/* no interrupt before the next idle entry */
};

/* One idle exit and what woke the CPU. */
struct tl_wake {
	uint64_t ts;		/* the exit */
	uint64_t idle_start;	/* entry of the idle stay it ended */
	uint64_t cause_ts;	/* the cause's event (0: none or unknown);
				 * before ts when the handler ran inside
				 * the idle instruction (HLT) */
	uint32_t cpu;
	int32_t state;		/* the state left (TL_UNKNOWN: trace began in it) */
	uint32_t cause;		/* enum tl_cause */
	uint32_t detail;	/* index into the string table */
};

struct tl_event {
	uint64_t ts;
	uint32_t cpu;
	enum tl_type type;
	uint32_t arg, arg2;
	uint32_t pid;		/* the task the event was traced in */
	const char *str;
};

struct tl_interval {
	uint64_t start, end;
	int32_t state;		/* TL_C0, TL_UNKNOWN or an idle state index */
};

/* One interrupt: when it came, and the time since the previous one of
 * the same IRQ number (0 for the first). */
struct tl_irq {
	uint64_t ts;
	uint64_t since_prev_ns;
	uint64_t handler_ns;	/* entry to exit, 0 if no exit was seen */
	uint32_t cpu, irq;
	uint32_t name;		/* index into the name table */
};

struct tl_marker {
	uint64_t ts;
	uint32_t cpu;
	uint32_t text;		/* index into the string table */
};

struct tl_residency {
	int32_t state;
	uint64_t time_ns;
	uint64_t entries;
};

/*
 * What the timeline hands on as it goes, for consumers that write as
 * they read (trace timeline): memory stays bounded by the CPUs and the
 * intervals still open, whatever the trace's length. Every callback is
 * optional; a negative return stops timeline_add/timeline_finish, which
 * return it.
 *   wake      an idle exit, once its cause is known (its first cause
 *             event, the CPU's next idle entry, or the trace's end);
 *             just before the interval it ended
 *   interval  a closed interval of positive length, in time order per
 *             CPU
 *   irq       an interrupt, in order of entry over all CPUs (when the
 *             events come in time order), once its handler returned or
 *             cannot return any more (the CPU went idle, the trace
 *             ended: handler_ns 0)
 *   marker    a marker, as it comes
 * Strings passed are valid during the call only.
 */
struct tl_sink {
	void *ctx;
	int (*wake)(void *ctx, const struct tl_wake *w, const char *detail);
	int (*interval)(void *ctx, uint32_t cpu, const struct tl_interval *iv);
	int (*irq)(void *ctx, const struct tl_irq *q, const char *name);
	int (*marker)(void *ctx, const struct tl_event *e);
};

struct timeline;

/*
 * A timeline that keeps everything in memory for the queries below
 * (tests, small traces, the SocWatch writer).
 */
struct timeline *timeline_new(uint32_t ncpus, uint64_t start_ns);
/* A timeline that keeps nothing: every result goes to sink. */
struct timeline *timeline_stream(uint32_t ncpus, uint64_t start_ns,
				 const struct tl_sink *sink);
void timeline_free(struct timeline *t);
/*
 * Adds one event. Returns 0, -EINVAL for a CPU out of range or an event
 * older than the last one of its CPU (counted, skipped), -E2BIG for a
 * corrupt trace past a bound (more than TL_MAX_STATES idle states on a
 * CPU, TL_MAX_IRQS interrupt numbers), -ENOMEM, or a sink's error.
 */
int timeline_add(struct timeline *t, const struct tl_event *e);
/* Closes every CPU's last interval at end_ns; 0 or a sink's error. */
int timeline_finish(struct timeline *t, uint64_t end_ns);
/* The trace records no interrupts (an import of a file without any):
 * no wake's cause is known, so none is TL_CAUSE_NONE. Before the first
 * event. */
void timeline_no_causes(struct timeline *t);
/* 1 when timeline_no_causes was called. */
int timeline_causes_unknown(const struct timeline *t);

#define TL_MAX_STATES 1024	/* a kernel has at most 10 (CPUIDLE_STATE_MAX) */
#define TL_MAX_IRQS 65536

uint32_t timeline_ncpus(const struct timeline *t);
uint64_t timeline_start(const struct timeline *t);
uint64_t timeline_end(const struct timeline *t);
uint64_t timeline_rejected(const struct timeline *t);
/*
 * power:cpu_idle events taken for cpu. 0 means the CPU's state is unknown
 * for the whole trace: it was busy throughout, or its idle loop emits no
 * cpu_idle events (a CPU that never enters cpuidle); callers say so.
 */
uint64_t timeline_idle_events(const struct timeline *t, uint32_t cpu);

/*
 * Where cpu stands now, in either kind of timeline: its open interval's
 * state and start, and its last idle exit (have_wake 0: none yet) with
 * the cause as far as it is known.
 */
struct tl_now {
	int32_t state;
	uint64_t since;
	int have_wake;
	struct tl_wake wake;
};
void timeline_now(const struct timeline *t, uint32_t cpu, struct tl_now *now);

/* In-memory timelines only (timeline_new): */
const struct tl_interval *timeline_intervals(const struct timeline *t,
					     uint32_t cpu, size_t *n);
/* The interval of cpu containing ts (start <= ts < end), or NULL. */
const struct tl_interval *timeline_at(const struct timeline *t, uint32_t cpu,
				      uint64_t ts);
/*
 * Residency of cpu over [from, to) (0, UINT64_MAX: the whole trace): one
 * row per state seen (C0 and unknown included), sorted by state, in an
 * array allocated for the caller (*out, free it). Returns the number of
 * rows, -ENOMEM or -E2BIG (TL_MAX_STATES). Times sum to the window's
 * length within the trace.
 */
ssize_t timeline_residency(const struct timeline *t, uint32_t cpu,
			   uint64_t from, uint64_t to, struct tl_residency **out);
const struct tl_irq *timeline_irqs(const struct timeline *t, size_t *n);
const struct tl_marker *timeline_markers(const struct timeline *t, size_t *n);
/* The idle exits of cpu, in time order, with their causes. */
const struct tl_wake *timeline_wakes(const struct timeline *t, uint32_t cpu,
				     size_t *n);

/* Any timeline: the text of a string index (wake details, IRQ names). */
const char *timeline_string(const struct timeline *t, uint32_t idx);
const char *timeline_cause_name(uint32_t cause);
/* "NET_RX" for vector 3 ...; "vec<N>" past the kernel's ten. */
const char *timeline_softirq_name(uint32_t vec, char *buf, size_t len);
const char *timeline_ipi_name(uint32_t ipi);

/*
 * Residency accumulated interval by interval over [from, to) (the
 * streaming form of timeline_residency): one row per state, at most
 * TL_MAX_STATES. An interval counts as an entry when it began inside the
 * window after the trace's start (trace_start), or its state is unknown.
 */
struct tl_restab {
	struct tl_residency *rows;	/* sorted by state */
	size_t n, cap;
	uint64_t from, to, trace_start;
};
void tl_restab_init(struct tl_restab *r, uint64_t trace_start, uint64_t from,
		    uint64_t to);
/* 0, -ENOMEM or -E2BIG. */
int tl_restab_add(struct tl_restab *r, const struct tl_interval *iv);
void tl_restab_free(struct tl_restab *r);

#endif
