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
 * TL_CAUSE_UNKNOWN.
 */
#ifndef WB_TIMELINE_H
#define WB_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TL_EXIT 4294967295u	/* cpu_idle state of an exit to C0 */
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
	uint32_t cpu;
	int32_t state;		/* the state left (TL_UNKNOWN: trace began in it) */
	uint32_t cause;		/* enum tl_cause */
	uint32_t detail;	/* index into the string table */
};

struct tl_event {
	uint64_t ts;
	uint32_t cpu;
	enum tl_type type;
	uint32_t arg;
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

struct timeline;

struct timeline *timeline_new(uint32_t ncpus, uint64_t start_ns);
void timeline_free(struct timeline *t);
/*
 * Adds one event. Returns 0, -EINVAL for a CPU out of range or an event
 * older than the last one of its CPU (counted, skipped), -ENOMEM.
 */
int timeline_add(struct timeline *t, const struct tl_event *e);
/* Closes every CPU's last interval at end_ns. */
void timeline_finish(struct timeline *t, uint64_t end_ns);

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
const struct tl_interval *timeline_intervals(const struct timeline *t,
					     uint32_t cpu, size_t *n);
/* The interval of cpu containing ts (start <= ts < end), or NULL. */
const struct tl_interval *timeline_at(const struct timeline *t, uint32_t cpu,
				      uint64_t ts);
/*
 * Residency of cpu over [from, to) (0, UINT64_MAX: the whole trace): one
 * row per state seen (C0 and unknown included), sorted by state, in an
 * array allocated for the caller (*out, free it). Returns the number of
 * rows or -ENOMEM. Times sum to the window's length within the trace.
 */
ssize_t timeline_residency(const struct timeline *t, uint32_t cpu,
			   uint64_t from, uint64_t to, struct tl_residency **out);
const struct tl_irq *timeline_irqs(const struct timeline *t, size_t *n);
const struct tl_marker *timeline_markers(const struct timeline *t, size_t *n);
const char *timeline_string(const struct timeline *t, uint32_t idx);
/* The idle exits of cpu, in time order, with their causes. */
const struct tl_wake *timeline_wakes(const struct timeline *t, uint32_t cpu,
				     size_t *n);
const char *timeline_cause_name(uint32_t cause);
/* "NET_RX" for vector 3 ...; "vec<N>" past the kernel's ten. */
const char *timeline_softirq_name(uint32_t vec, char *buf, size_t len);
const char *timeline_ipi_name(uint32_t ipi);

#endif
