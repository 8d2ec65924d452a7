// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "timeline.h"

#define IRQ_STACK 16

struct irq_open {
	uint32_t irq;
	size_t index;		/* into t->irqs */
};

struct cpu_tl {
	struct tl_interval *iv;
	size_t n, cap;
	int32_t state;		/* of the open interval */
	uint64_t since;		/* its start */
	uint64_t last_ts;
	uint64_t idle_events;	/* power:cpu_idle events taken */
	struct irq_open stack[IRQ_STACK];
	int depth;
	/* wake causes: the idle period in progress, or the exit that ended
	 * it while its cause is still unknown */
	int awaiting;		/* no cause yet for the current idle period */
	int exited;		/* ... whose exit is wakes[nwakes - 1] */
	int32_t idle_state;	/* its state */
	uint32_t cause, detail;	/* found before the exit */
	struct tl_wake *wakes;
	size_t nwakes, wakes_cap;
};

/* Last interrupt of each IRQ number seen (small linear table). */
struct irq_last {
	uint32_t irq;
	uint64_t ts;
	uint32_t name;
};

struct timeline {
	uint32_t ncpus;
	uint64_t start, end;
	uint64_t rejected;
	struct cpu_tl *cpus;
	struct tl_irq *irqs;
	size_t nirqs, irqs_cap;
	struct tl_marker *markers;
	size_t nmarkers, markers_cap;
	struct irq_last *last;
	size_t nlast, last_cap;
	char *strings;
	size_t slen, scap;
	uint32_t details[256];	/* DETAILS_MAX */
	size_t ndetails;
};

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 256;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*arr, ncap * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

struct timeline *timeline_new(uint32_t ncpus, uint64_t start_ns)
{
	struct timeline *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cpus = calloc(ncpus ? ncpus : 1, sizeof(*t->cpus));
	if (!t->cpus) {
		free(t);
		return NULL;
	}
	t->ncpus = ncpus;
	t->start = t->end = start_ns;
	for (uint32_t c = 0; c < ncpus; c++) {
		t->cpus[c].state = TL_UNKNOWN;
		t->cpus[c].since = start_ns;
		t->cpus[c].last_ts = start_ns;
		/* the trace may begin inside an idle period */
		t->cpus[c].awaiting = 1;
		t->cpus[c].idle_state = TL_UNKNOWN;
	}
	/* String 0 is "". */
	if (grow((void **)&t->strings, &t->scap, 1, 1)) {
		timeline_free(t);
		return NULL;
	}
	t->strings[0] = '\0';
	t->slen = 1;
	return t;
}

void timeline_free(struct timeline *t)
{
	if (!t)
		return;
	for (uint32_t c = 0; c < t->ncpus; c++) {
		free(t->cpus[c].iv);
		free(t->cpus[c].wakes);
	}
	free(t->cpus);
	free(t->irqs);
	free(t->markers);
	free(t->last);
	free(t->strings);
	free(t);
}

static int intern(struct timeline *t, const char *s, uint32_t *idx);

/*
 * A cause's detail: a handful of distinct names per trace, found in a
 * small table so that a million wakes cost no string space. Past
 * DETAILS_MAX names (only a corrupt trace has them) each is stored.
 */
#define DETAILS_MAX 256

static int intern_once(struct timeline *t, const char *s, uint32_t *idx)
{
	if (!s || !*s) {
		*idx = 0;
		return 0;
	}
	for (size_t i = 0; i < t->ndetails; i++) {
		if (!strcmp(t->strings + t->details[i], s)) {
			*idx = t->details[i];
			return 0;
		}
	}
	if (intern(t, s, idx))
		return -ENOMEM;
	if (t->ndetails < DETAILS_MAX)
		t->details[t->ndetails++] = *idx;
	return 0;
}

static int intern(struct timeline *t, const char *s, uint32_t *idx)
{
	size_t len = s ? strlen(s) : 0;

	if (!len) {
		*idx = 0;
		return 0;
	}
	if (grow((void **)&t->strings, &t->scap, t->slen + len + 1, 1))
		return -ENOMEM;
	memcpy(t->strings + t->slen, s, len + 1);
	*idx = (uint32_t)t->slen;
	t->slen += len + 1;
	return 0;
}

/* Ends the open interval of c at ts (if it has any length). */
static int close_open(struct cpu_tl *c, uint64_t ts)
{
	if (ts <= c->since)
		return 0;
	if (grow((void **)&c->iv, &c->cap, c->n + 1, sizeof(*c->iv)))
		return -ENOMEM;
	c->iv[c->n++] = (struct tl_interval){ c->since, ts, c->state };
	c->since = ts;
	return 0;
}

/* A state change at ts; repeating the current state changes nothing. */
static int switch_state(struct cpu_tl *c, uint64_t ts, int32_t state)
{
	if (state == c->state)
		return 0;
	if (close_open(c, ts))
		return -ENOMEM;
	c->state = state;
	c->since = ts;
	return 0;
}

static struct irq_last *irq_last(struct timeline *t, uint32_t irq)
{
	for (size_t i = 0; i < t->nlast; i++)
		if (t->last[i].irq == irq)
			return &t->last[i];
	if (grow((void **)&t->last, &t->last_cap, t->nlast + 1, sizeof(*t->last)))
		return NULL;
	t->last[t->nlast] = (struct irq_last){ .irq = irq };
	return &t->last[t->nlast++];
}

static int add_irq(struct timeline *t, struct cpu_tl *c, const struct tl_event *e)
{
	struct irq_last *last = irq_last(t, e->arg);
	struct tl_irq *q;

	if (!last || grow((void **)&t->irqs, &t->irqs_cap, t->nirqs + 1,
			  sizeof(*t->irqs)))
		return -ENOMEM;
	if (!last->name && e->str && intern(t, e->str, &last->name))
		return -ENOMEM;
	q = &t->irqs[t->nirqs];
	*q = (struct tl_irq){ .ts = e->ts, .cpu = e->cpu, .irq = e->arg,
			      .name = last->name };
	q->since_prev_ns = last->ts ? e->ts - last->ts : 0;
	last->ts = e->ts;
	if (c->depth < IRQ_STACK)
		c->stack[c->depth] = (struct irq_open){ e->arg, t->nirqs };
	c->depth++;
	t->nirqs++;
	return 0;
}

static void end_irq(struct timeline *t, struct cpu_tl *c, const struct tl_event *e)
{
	/* Pop to the matching entry: an exit closes its own (nested) IRQ. */
	for (int d = (c->depth < IRQ_STACK ? c->depth : IRQ_STACK) - 1; d >= 0; d--) {
		if (c->stack[d].irq != e->arg)
			continue;
		t->irqs[c->stack[d].index].handler_ns = e->ts -
			t->irqs[c->stack[d].index].ts;
		c->depth = d;
		return;
	}
	/* An exit without its entry: the trace began inside the handler. */
}

/* A cause event on c: the first one since its idle entry names the wake. */
static int cause_seen(struct timeline *t, struct cpu_tl *c, uint32_t cause,
		      const char *detail)
{
	uint32_t idx;

	if (!c->awaiting)
		return 0;
	if (intern_once(t, detail, &idx))
		return -ENOMEM;
	c->awaiting = 0;
	if (c->exited) {
		c->wakes[c->nwakes - 1].cause = cause;
		c->wakes[c->nwakes - 1].detail = idx;
		c->exited = 0;
	} else {
		c->cause = cause;
		c->detail = idx;
	}
	return 0;
}

/* power:cpu_idle on c: an entry starts a period, an exit is recorded. */
static int idle_event(struct cpu_tl *c, const struct tl_event *e)
{
	if (e->arg != TL_EXIT) {
		/* the previous exit found no interrupt before this entry */
		if (c->exited)
			c->wakes[c->nwakes - 1].cause = TL_CAUSE_NONE;
		c->exited = 0;
		c->awaiting = 1;
		c->cause = TL_CAUSE_UNKNOWN;
		c->detail = 0;
		c->idle_state = (int32_t)(e->arg & 0x7fffffff);
		return 0;
	}
	if (c->state == TL_C0 || c->exited)
		return 0;	/* an exit repeated: one wake */
	if (grow((void **)&c->wakes, &c->wakes_cap, c->nwakes + 1,
		 sizeof(*c->wakes)))
		return -ENOMEM;
	c->wakes[c->nwakes++] = (struct tl_wake){
		.ts = e->ts, .cpu = e->cpu, .state = c->idle_state,
		.cause = c->awaiting ? TL_CAUSE_UNKNOWN : c->cause,
		.detail = c->awaiting ? 0 : c->detail,
	};
	c->exited = c->awaiting;
	return 0;
}

int timeline_add(struct timeline *t, const struct tl_event *e)
{
	struct cpu_tl *c;

	if (e->cpu >= t->ncpus) {
		t->rejected++;
		return -EINVAL;
	}
	c = &t->cpus[e->cpu];
	if (e->ts < c->last_ts) {
		t->rejected++;
		return -EINVAL;
	}
	c->last_ts = e->ts;
	if (e->ts > t->end)
		t->end = e->ts;
	switch (e->type) {
	case TL_IDLE:
		c->idle_events++;
		if (idle_event(c, e))
			return -ENOMEM;
		return switch_state(c, e->ts, e->arg == TL_EXIT ? TL_C0 :
				    (int32_t)(e->arg & 0x7fffffff));
	case TL_IRQ_ENTRY:
		if (cause_seen(t, c, TL_CAUSE_IRQ, e->str))
			return -ENOMEM;
		return add_irq(t, c, e);
	case TL_SOFTIRQ: {
		char b[16];

		return cause_seen(t, c, TL_CAUSE_SOFTIRQ,
				  timeline_softirq_name(e->arg, b, sizeof(b)));
	}
	case TL_IPI:
		return cause_seen(t, c, TL_CAUSE_IPI, timeline_ipi_name(e->arg));
	case TL_TIMER:
		return cause_seen(t, c, TL_CAUSE_TIMER, "local_timer");
	case TL_IRQ_EXIT:
		end_irq(t, c, e);
		return 0;
	case TL_MARKER:
		if (grow((void **)&t->markers, &t->markers_cap, t->nmarkers + 1,
			 sizeof(*t->markers)))
			return -ENOMEM;
		t->markers[t->nmarkers] = (struct tl_marker){ e->ts, e->cpu, 0 };
		if (intern(t, e->str, &t->markers[t->nmarkers].text))
			return -ENOMEM;
		t->nmarkers++;
		return 0;
	}
	t->rejected++;
	return -EINVAL;
}

void timeline_finish(struct timeline *t, uint64_t end_ns)
{
	if (end_ns > t->end)
		t->end = end_ns;
	for (uint32_t c = 0; c < t->ncpus; c++)
		close_open(&t->cpus[c], t->end);
}

uint32_t timeline_ncpus(const struct timeline *t) { return t->ncpus; }
uint64_t timeline_start(const struct timeline *t) { return t->start; }
uint64_t timeline_end(const struct timeline *t) { return t->end; }
uint64_t timeline_rejected(const struct timeline *t) { return t->rejected; }

uint64_t timeline_idle_events(const struct timeline *t, uint32_t cpu)
{
	return cpu < t->ncpus ? t->cpus[cpu].idle_events : 0;
}

const struct tl_interval *timeline_intervals(const struct timeline *t,
					     uint32_t cpu, size_t *n)
{
	if (cpu >= t->ncpus) {
		*n = 0;
		return NULL;
	}
	*n = t->cpus[cpu].n;
	return t->cpus[cpu].iv;
}

const struct tl_interval *timeline_at(const struct timeline *t, uint32_t cpu,
				      uint64_t ts)
{
	size_t lo = 0, hi, n;
	const struct tl_interval *iv = timeline_intervals(t, cpu, &n);

	hi = n;
	while (lo < hi) {	/* first interval with end > ts */
		size_t mid = lo + (hi - lo) / 2;

		if (iv[mid].end > ts)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < n && iv[lo].start <= ts)
		return &iv[lo];
	return NULL;
}

static int cmp_res(const void *a, const void *b)
{
	const struct tl_residency *x = a, *y = b;

	return (x->state > y->state) - (x->state < y->state);
}

/* The part of interval iv inside [from, to), 0 if none. */
static uint64_t clip(const struct tl_interval *iv, uint64_t from, uint64_t to)
{
	uint64_t s = iv->start > from ? iv->start : from;
	uint64_t e = iv->end < to ? iv->end : to;

	return e > s ? e - s : 0;
}

static void add_stay(const struct timeline *t, const struct tl_interval *iv,
		     uint64_t from, uint64_t len, struct tl_residency *row)
{
	row->time_ns += len;
	/* An entry is a stay that began inside the window. */
	if ((iv->start > t->start && iv->start >= from) ||
	    iv->state == TL_UNKNOWN)
		row->entries++;
}

/*
 * Real traces have a handful of states, found by a linear search of a
 * small table. A corrupt one can carry any number: past FEW_STATES the
 * rows are built by sorting one row per interval and merging, so the
 * cost stays O(n log n) whatever the input.
 */
#define FEW_STATES 64

static ssize_t residency_many(const struct timeline *t, const struct tl_interval *iv,
			      size_t n, uint64_t from, uint64_t to,
			      struct tl_residency **out)
{
	struct tl_residency *r = malloc((n ? n : 1) * sizeof(*r));
	size_t rows = 0;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t len = clip(&iv[i], from, to);

		if (!len)
			continue;
		r[rows] = (struct tl_residency){ .state = iv[i].state };
		add_stay(t, &iv[i], from, len, &r[rows++]);
	}
	qsort(r, rows, sizeof(*r), cmp_res);
	n = rows;
	rows = 0;
	for (size_t i = 0; i < n; i++) {
		if (rows && r[rows - 1].state == r[i].state) {
			r[rows - 1].time_ns += r[i].time_ns;
			r[rows - 1].entries += r[i].entries;
		} else {
			r[rows++] = r[i];
		}
	}
	*out = r;
	return (ssize_t)rows;
}

ssize_t timeline_residency(const struct timeline *t, uint32_t cpu,
			   uint64_t from, uint64_t to, struct tl_residency **out)
{
	size_t n, rows = 0;
	const struct tl_interval *iv = timeline_intervals(t, cpu, &n);
	struct tl_residency *r = calloc(FEW_STATES, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t len = clip(&iv[i], from, to);
		size_t k;

		if (!len)
			continue;
		for (k = 0; k < rows && r[k].state != iv[i].state; k++)
			;
		if (k == rows) {
			if (rows == FEW_STATES) {
				free(r);
				return residency_many(t, iv, n, from, to, out);
			}
			r[rows++] = (struct tl_residency){ .state = iv[i].state };
		}
		add_stay(t, &iv[i], from, len, &r[k]);
	}
	qsort(r, rows, sizeof(*r), cmp_res);
	*out = r;
	return (ssize_t)rows;
}

const struct tl_irq *timeline_irqs(const struct timeline *t, size_t *n)
{
	*n = t->nirqs;
	return t->irqs;
}

const struct tl_marker *timeline_markers(const struct timeline *t, size_t *n)
{
	*n = t->nmarkers;
	return t->markers;
}

const char *timeline_string(const struct timeline *t, uint32_t idx)
{
	return idx < t->slen ? t->strings + idx : "";
}

const struct tl_wake *timeline_wakes(const struct timeline *t, uint32_t cpu,
				     size_t *n)
{
	if (cpu >= t->ncpus) {
		*n = 0;
		return NULL;
	}
	*n = t->cpus[cpu].nwakes;
	return t->cpus[cpu].wakes;
}

const char *timeline_cause_name(uint32_t cause)
{
	static const char *const names[] = {
		[TL_CAUSE_UNKNOWN] = "unknown", [TL_CAUSE_IRQ] = "irq",
		[TL_CAUSE_IPI] = "ipi", [TL_CAUSE_TIMER] = "timer",
		[TL_CAUSE_SOFTIRQ] = "softirq", [TL_CAUSE_NONE] = "none",
	};

	return cause < sizeof(names) / sizeof(names[0]) ? names[cause] : "unknown";
}

const char *timeline_softirq_name(uint32_t vec, char *buf, size_t len)
{
	/* include/linux/interrupt.h, in vector order */
	static const char *const names[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
		"TASKLET", "SCHED", "HRTIMER", "RCU",
	};

	if (vec < sizeof(names) / sizeof(names[0]))
		return names[vec];
	snprintf(buf, len, "vec%u", vec);
	return buf;
}

const char *timeline_ipi_name(uint32_t ipi)
{
	static const char *const names[] = {
		[TL_IPI_RESCHEDULE] = "reschedule",
		[TL_IPI_CALL_FUNCTION] = "call_function",
		[TL_IPI_CALL_FUNCTION_SINGLE] = "call_function_single",
		[TL_IPI_IRQ_WORK] = "irq_work",
	};

	return ipi < sizeof(names) / sizeof(names[0]) ? names[ipi] : "ipi";
}
