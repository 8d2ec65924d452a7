// SPDX-License-Identifier: GPL-2.0
/*
 * One state machine per CPU turns events into intervals, wakes, IRQ
 * samples and markers, handed to a sink as soon as each is final. The
 * in-memory timeline is that machine with a sink of its own that keeps
 * everything (mem_*); a streaming one passes them on. Only what is still
 * open is held: a CPU's current interval, an idle stay whose wake's
 * cause is not known yet, the handlers running, and interrupts that
 * entered after one still running (irq.csv is in entry order).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "arr.h"
#include "timeline.h"

#define IRQ_STACK 16
/* Interrupts held for entry order: past this many, the oldest is let go
 * with its handler time unknown (only a trace that lost exits gets there). */
#define IRQ_PENDING_MAX 65536
/* Distinct wake details (handler names, softirq and IPI names): a real
 * trace has a handful; past this many a corrupt one's are "other". */
#define DETAILS_MAX 256

struct cpu_tl {
	int32_t state;		/* of the open interval */
	uint64_t since;		/* its start */
	uint64_t last_ts;
	uint64_t idle_events;	/* power:cpu_idle events taken */
	uint64_t stack[IRQ_STACK];	/* handlers running: pending seqs */
	uint32_t stack_irq[IRQ_STACK];
	int depth;
	/* wake causes: the idle period in progress, or the exit that ended
	 * it while its cause is still unknown (held) */
	int awaiting;		/* no cause yet for the current idle period */
	int32_t idle_state;	/* its state */
	uint64_t idle_start;
	uint32_t cause, detail;	/* found before the exit */
	uint64_t cause_ts;
	int have_wake;
	struct tl_wake wake;	/* the last exit */
	int held;		/* wake and its interval wait for the cause */
	struct tl_interval held_iv;	/* (zero length: none to emit) */
	/* in-memory timelines */
	struct tl_interval *iv;
	size_t n, cap;
	struct tl_wake *wakes;
	size_t nwakes, wakes_cap;
};

/* Last interrupt of each IRQ number seen, sorted by number. */
struct irq_last {
	uint32_t irq;
	uint32_t name;
	uint64_t ts;
};

struct irq_pending {
	struct tl_irq q;
	int done;
};

struct timeline {
	uint32_t ncpus;
	uint64_t start, end;
	uint64_t rejected;
	struct cpu_tl *cpus;
	struct tl_sink sink;
	int in_memory;
	int finished;
	int no_causes;		/* timeline_no_causes */
	/* interrupts in entry order, from seq head to seq tail */
	struct irq_pending *pend;
	size_t pend_cap;
	uint64_t pend_head, pend_tail;
	struct irq_last *last;
	size_t nlast, last_cap;
	char *strings;
	size_t slen, scap;
	uint32_t details[DETAILS_MAX];
	size_t ndetails;
	uint32_t other;		/* "other": the detail past DETAILS_MAX */
	/* per cause, the detail found last (its place in details + 1):
	 * looked at first, as a CPU's wakes mostly repeat one */
	size_t mru[TL_CAUSE_NONE + 1];
	/* in-memory timelines */
	struct tl_irq *irqs;
	size_t nirqs, irqs_cap;
	struct tl_marker *markers;
	size_t nmarkers, markers_cap;
};

/* From 16: on a host of hundreds of CPUs most have a few intervals,
 * residency rows and wakes each, and 256 of each per CPU were most of
 * an analysis's memory. */
static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	return arr_grow(arr, cap, need, size, 16);
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

/* A wake's detail: found in a small table, so a million wakes cost no
 * string space and a corrupt trace's endless names cost none either. */
static int intern_detail(struct timeline *t, uint32_t cause, const char *s,
			 uint32_t *idx)
{
	size_t *mru = &t->mru[cause <= TL_CAUSE_NONE ? cause : TL_CAUSE_NONE];

	if (!s || !*s) {
		*idx = 0;
		return 0;
	}
	if (*mru && !strcmp(t->strings + t->details[*mru - 1], s)) {
		*idx = t->details[*mru - 1];
		return 0;
	}
	for (size_t i = 0; i < t->ndetails; i++) {
		if (!strcmp(t->strings + t->details[i], s)) {
			*idx = t->details[i];
			*mru = i + 1;
			return 0;
		}
	}
	if (t->ndetails == DETAILS_MAX) {
		*idx = t->other;
		return 0;
	}
	if (intern(t, s, idx))
		return -ENOMEM;
	t->details[t->ndetails++] = *idx;
	*mru = t->ndetails;
	return 0;
}

/* ---- the in-memory sink ------------------------------------------------ */

static int mem_wake(void *ctx, const struct tl_wake *w, const char *detail)
{
	struct timeline *t = ctx;
	struct cpu_tl *c = &t->cpus[w->cpu];

	(void)detail;
	if (grow((void **)&c->wakes, &c->wakes_cap, c->nwakes + 1,
		 sizeof(*c->wakes)))
		return -ENOMEM;
	c->wakes[c->nwakes++] = *w;
	return 0;
}

static int mem_interval(void *ctx, uint32_t cpu, const struct tl_interval *iv)
{
	struct timeline *t = ctx;
	struct cpu_tl *c = &t->cpus[cpu];

	if (grow((void **)&c->iv, &c->cap, c->n + 1, sizeof(*c->iv)))
		return -ENOMEM;
	c->iv[c->n++] = *iv;
	return 0;
}

static int mem_irq(void *ctx, const struct tl_irq *q, const char *name)
{
	struct timeline *t = ctx;

	(void)name;
	if (grow((void **)&t->irqs, &t->irqs_cap, t->nirqs + 1, sizeof(*t->irqs)))
		return -ENOMEM;
	t->irqs[t->nirqs++] = *q;
	return 0;
}

static int mem_marker(void *ctx, const struct tl_event *e)
{
	struct timeline *t = ctx;
	struct tl_marker *m;

	if (grow((void **)&t->markers, &t->markers_cap, t->nmarkers + 1,
		 sizeof(*t->markers)))
		return -ENOMEM;
	m = &t->markers[t->nmarkers];
	*m = (struct tl_marker){ e->ts, e->cpu, 0 };
	if (intern(t, e->str, &m->text))
		return -ENOMEM;
	t->nmarkers++;
	return 0;
}

/* ---- construction ------------------------------------------------------ */

static struct timeline *create(uint32_t ncpus, uint64_t start_ns)
{
	struct timeline *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cpus = calloc(ncpus ? ncpus : 1, sizeof(*t->cpus));
	/* String 0 is "". */
	if (!t->cpus || grow((void **)&t->strings, &t->scap, 1, 1)) {
		timeline_free(t);
		return NULL;
	}
	t->strings[0] = '\0';
	t->slen = 1;
	if (intern(t, "other", &t->other)) {
		timeline_free(t);
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
		t->cpus[c].idle_start = start_ns;
	}
	return t;
}

struct timeline *timeline_new(uint32_t ncpus, uint64_t start_ns)
{
	struct timeline *t = create(ncpus, start_ns);

	if (!t)
		return NULL;
	t->in_memory = 1;
	t->sink = (struct tl_sink){ .ctx = t, .wake = mem_wake,
				    .interval = mem_interval, .irq = mem_irq,
				    .marker = mem_marker };
	return t;
}

struct timeline *timeline_stream(uint32_t ncpus, uint64_t start_ns,
				 const struct tl_sink *sink)
{
	struct timeline *t = create(ncpus, start_ns);

	if (t && sink)
		t->sink = *sink;
	return t;
}

void timeline_free(struct timeline *t)
{
	if (!t)
		return;
	for (uint32_t c = 0; t->cpus && c < t->ncpus; c++) {
		free(t->cpus[c].iv);
		free(t->cpus[c].wakes);
	}
	free(t->cpus);
	free(t->pend);
	free(t->irqs);
	free(t->markers);
	free(t->last);
	free(t->strings);
	free(t);
}

/* ---- intervals and wakes ----------------------------------------------- */

static int emit_interval(struct timeline *t, uint32_t cpu,
			 const struct tl_interval *iv)
{
	if (iv->end <= iv->start || !t->sink.interval)
		return 0;
	return t->sink.interval(t->sink.ctx, cpu, iv);
}

/* The held exit's cause is known: hand on the wake, then its interval. */
static int release_held(struct timeline *t, struct cpu_tl *c, uint32_t cpu)
{
	int ret = 0;

	if (!c->held)
		return 0;
	c->held = 0;
	if (t->sink.wake)
		ret = t->sink.wake(t->sink.ctx, &c->wake,
				   timeline_string(t, c->wake.detail));
	return ret ? ret : emit_interval(t, cpu, &c->held_iv);
}

/* A state change at ts; repeating the current state changes nothing. */
static int switch_state(struct timeline *t, struct cpu_tl *c, uint32_t cpu,
			uint64_t ts, int32_t state)
{
	struct tl_interval iv = { c->since, ts, c->state };
	int ret;

	if (state == c->state)
		return 0;
	c->state = state;
	c->since = ts;
	ret = release_held(t, c, cpu);
	return ret ? ret : emit_interval(t, cpu, &iv);
}

/* A cause event on c: the first one since its idle entry names the wake. */
static int cause_seen(struct timeline *t, struct cpu_tl *c, uint32_t cpu,
		      uint64_t ts, uint32_t cause, const char *detail)
{
	uint32_t idx;

	if (!c->awaiting)
		return 0;
	if (intern_detail(t, cause, detail, &idx))
		return -ENOMEM;
	c->awaiting = 0;
	if (c->held) {
		c->wake.cause = cause;
		c->wake.detail = idx;
		c->wake.cause_ts = ts;
		return release_held(t, c, cpu);
	}
	c->cause = cause;
	c->detail = idx;
	c->cause_ts = ts;
	return 0;
}

static int irq_complete_cpu(struct timeline *t, struct cpu_tl *c);

/* c goes idle in state (or unknown): its next exit's cause is still to
 * be found, from the interrupts that follow. */
static void await_wake(struct cpu_tl *c, int32_t state)
{
	c->awaiting = 1;
	c->cause = TL_CAUSE_UNKNOWN;
	c->detail = 0;
	c->cause_ts = 0;
	c->idle_state = state;
}

/* power:cpu_idle on c: an entry starts a period, an exit ends one. */
static int idle_event(struct timeline *t, struct cpu_tl *c,
		      const struct tl_event *e)
{
	int32_t state = (int32_t)(e->arg & 0x7fffffff);
	struct tl_interval iv;
	int ret;

	if (e->arg == TL_NO_DATA) {
		/* nothing known from here: as before a CPU's first event */
		ret = release_held(t, c, e->cpu);
		if (!ret)
			ret = irq_complete_cpu(t, c);
		if (ret)
			return ret;
		await_wake(c, TL_UNKNOWN);
		c->idle_start = e->ts;
		return switch_state(t, c, e->cpu, e->ts, TL_UNKNOWN);
	}
	if (e->arg != TL_EXIT) {
		/* the previous exit found no interrupt before this entry
		 * (unknown when the trace records none) */
		if (c->held) {
			c->wake.cause = t->no_causes ? TL_CAUSE_UNKNOWN : TL_CAUSE_NONE;
			ret = release_held(t, c, e->cpu);
			if (ret)
				return ret;
		}
		/* no handler runs in the idle loop: those still open lost
		 * their exits */
		ret = irq_complete_cpu(t, c);
		if (ret)
			return ret;
		await_wake(c, state);
		if (state != c->state)
			c->idle_start = e->ts;
		return switch_state(t, c, e->cpu, e->ts, state);
	}
	if (c->state == TL_C0)
		return 0;	/* an exit repeated: one wake */
	c->have_wake = 1;
	c->wake = (struct tl_wake){
		.ts = e->ts, .idle_start = c->idle_start, .cpu = e->cpu,
		.state = c->idle_state,
		.cause = c->awaiting ? TL_CAUSE_UNKNOWN : c->cause,
		.detail = c->awaiting ? 0 : c->detail,
		.cause_ts = c->awaiting ? 0 : c->cause_ts,
	};
	iv = (struct tl_interval){ c->since, e->ts, c->state };
	c->state = TL_C0;
	c->since = e->ts;
	c->held_iv = iv;
	c->held = 1;
	/* a cause already seen (inside the idle period) makes it final */
	return c->awaiting ? 0 : release_held(t, c, e->cpu);
}

/* ---- interrupts -------------------------------------------------------- */

/* The entry of IRQ number irq in the sorted table (added if new). */
static struct irq_last *irq_last(struct timeline *t, uint32_t irq, int *e2big)
{
	size_t lo = 0, hi = t->nlast;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->last[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->nlast && t->last[lo].irq == irq)
		return &t->last[lo];
	if (t->nlast == TL_MAX_IRQS) {
		*e2big = 1;
		return NULL;
	}
	if (grow((void **)&t->last, &t->last_cap, t->nlast + 1, sizeof(*t->last)))
		return NULL;
	memmove(&t->last[lo + 1], &t->last[lo], (t->nlast - lo) * sizeof(*t->last));
	t->last[lo] = (struct irq_last){ .irq = irq };
	t->nlast++;
	return &t->last[lo];
}

static struct irq_pending *pending(struct timeline *t, uint64_t seq)
{
	return &t->pend[seq % t->pend_cap];
}

/* Hands on the interrupts at the head that are complete. */
static int irq_flush(struct timeline *t, int force)
{
	while (t->pend_head < t->pend_tail) {
		struct irq_pending *p = pending(t, t->pend_head);
		const char *name = "";
		int ret = 0;

		if (!p->done && !force)
			break;
		if (t->sink.irq)
			name = timeline_string(t, p->q.name);
		if (t->sink.irq)
			ret = t->sink.irq(t->sink.ctx, &p->q, name);
		t->pend_head++;
		if (ret)
			return ret;
	}
	return 0;
}

/* Room for one more pending interrupt: the ring grows, up to a bound. */
static int irq_room(struct timeline *t)
{
	size_t n = (size_t)(t->pend_tail - t->pend_head);
	struct irq_pending *np;
	size_t ncap;

	if (n == IRQ_PENDING_MAX) {
		pending(t, t->pend_head)->done = 1;
		return irq_flush(t, 0);
	}
	if (n < t->pend_cap)
		return 0;
	ncap = t->pend_cap ? 2 * t->pend_cap : 64;
	np = malloc(ncap * sizeof(*np));
	if (!np)
		return -ENOMEM;
	for (uint64_t s = t->pend_head; s < t->pend_tail; s++)
		np[s % ncap] = *pending(t, s);
	free(t->pend);
	t->pend = np;
	t->pend_cap = ncap;
	return 0;
}

static int irq_entry(struct timeline *t, struct cpu_tl *c,
		     const struct tl_event *e)
{
	int e2big = 0, ret;
	struct irq_last *last = irq_last(t, e->arg, &e2big);
	struct irq_pending *p;

	if (!last)
		return e2big ? -E2BIG : -ENOMEM;
	if (!last->name && e->str && *e->str && intern(t, e->str, &last->name))
		return -ENOMEM;
	ret = irq_room(t);
	if (ret)
		return ret;
	p = pending(t, t->pend_tail);
	*p = (struct irq_pending){ .q = { .ts = e->ts, .cpu = e->cpu,
					  .irq = e->arg, .name = last->name } };
	p->q.since_prev_ns = last->ts ? e->ts - last->ts : 0;
	last->ts = e->ts;
	if (c->depth < IRQ_STACK) {
		c->stack[c->depth] = t->pend_tail;
		c->stack_irq[c->depth] = e->arg;
	} else {
		p->done = 1;	/* too deep to be matched by its exit */
	}
	c->depth++;
	t->pend_tail++;
	return 0;
}

/* The handlers still open on c end with their times unknown. */
static int irq_complete_cpu(struct timeline *t, struct cpu_tl *c)
{
	int d = c->depth < IRQ_STACK ? c->depth : IRQ_STACK;

	for (int k = 0; k < d; k++)
		if (c->stack[k] >= t->pend_head)
			pending(t, c->stack[k])->done = 1;
	c->depth = 0;
	return irq_flush(t, 0);
}

static int irq_exit(struct timeline *t, struct cpu_tl *c, const struct tl_event *e)
{
	/* Pop to the matching entry: an exit closes its own (nested) IRQ,
	 * and those above it lost their exits. */
	for (int d = (c->depth < IRQ_STACK ? c->depth : IRQ_STACK) - 1; d >= 0; d--) {
		struct irq_pending *p;

		if (c->stack_irq[d] != e->arg)
			continue;
		for (int k = d; k < c->depth && k < IRQ_STACK; k++) {
			if (c->stack[k] < t->pend_head)
				continue;	/* let go already */
			p = pending(t, c->stack[k]);
			if (k == d)
				p->q.handler_ns = e->ts - p->q.ts;
			p->done = 1;
		}
		c->depth = d;
		return irq_flush(t, 0);
	}
	/* An exit without its entry: the trace began inside the handler. */
	return 0;
}

/* ---- events ------------------------------------------------------------ */

int timeline_add(struct timeline *t, const struct tl_event *e)
{
	struct cpu_tl *c;
	char b[16];

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
		return idle_event(t, c, e);
	case TL_IRQ_ENTRY: {
		int ret = cause_seen(t, c, e->cpu, e->ts, TL_CAUSE_IRQ, e->str);

		return ret ? ret : irq_entry(t, c, e);
	}
	case TL_SOFTIRQ:
		return cause_seen(t, c, e->cpu, e->ts, TL_CAUSE_SOFTIRQ,
				  timeline_softirq_name(e->arg, b, sizeof(b)));
	case TL_IPI:
		return cause_seen(t, c, e->cpu, e->ts, TL_CAUSE_IPI,
				  timeline_ipi_name(e->arg));
	case TL_TIMER:
		return cause_seen(t, c, e->cpu, e->ts, TL_CAUSE_TIMER, "local_timer");
	case TL_IRQ_EXIT:
		return irq_exit(t, c, e);
	case TL_MARKER:
		return t->sink.marker ? t->sink.marker(t->sink.ctx, e) : 0;
	case TL_WAKEUP:
	case TL_SWITCH:
	case TL_NETRX:
	case TL_IDLE_MISS:
		return 0;	/* for consumers of the event stream */
	case TL_NTYPES:
		break;
	}
	t->rejected++;
	return -EINVAL;
}

int timeline_finish(struct timeline *t, uint64_t end_ns)
{
	int ret = 0;

	if (t->finished)
		return 0;
	t->finished = 1;
	if (end_ns > t->end)
		t->end = end_ns;
	/* the open intervals are handed on; each CPU's state stays as it
	 * was (timeline_now) for what is still to be attributed */
	for (uint32_t cpu = 0; !ret && cpu < t->ncpus; cpu++) {
		struct cpu_tl *c = &t->cpus[cpu];
		struct tl_interval iv = { c->since, t->end, c->state };

		ret = release_held(t, c, cpu);
		if (!ret)
			ret = emit_interval(t, cpu, &iv);
	}
	return ret ? ret : irq_flush(t, 1);
}

/* ---- queries ----------------------------------------------------------- */

uint32_t timeline_ncpus(const struct timeline *t) { return t->ncpus; }
uint64_t timeline_start(const struct timeline *t) { return t->start; }
uint64_t timeline_end(const struct timeline *t) { return t->end; }
uint64_t timeline_rejected(const struct timeline *t) { return t->rejected; }

void timeline_no_causes(struct timeline *t)
{
	t->no_causes = 1;
}

int timeline_causes_unknown(const struct timeline *t)
{
	return t->no_causes;
}

uint64_t timeline_idle_events(const struct timeline *t, uint32_t cpu)
{
	return cpu < t->ncpus ? t->cpus[cpu].idle_events : 0;
}

void timeline_now(const struct timeline *t, uint32_t cpu, struct tl_now *now)
{
	const struct cpu_tl *c;

	memset(now, 0, sizeof(*now));
	now->state = TL_UNKNOWN;
	if (cpu >= t->ncpus)
		return;
	c = &t->cpus[cpu];
	now->state = c->state;
	now->since = c->since;
	now->have_wake = c->have_wake;
	now->wake = c->wake;
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

void tl_restab_init(struct tl_restab *r, uint64_t trace_start, uint64_t from,
		    uint64_t to)
{
	*r = (struct tl_restab){ .from = from, .to = to,
				 .trace_start = trace_start };
}

void tl_restab_free(struct tl_restab *r)
{
	free(r->rows);
	r->rows = NULL;
	r->n = r->cap = 0;
}

int tl_restab_add(struct tl_restab *r, const struct tl_interval *iv)
{
	uint64_t s = iv->start > r->from ? iv->start : r->from;
	uint64_t e = iv->end < r->to ? iv->end : r->to;
	size_t lo = 0, hi = r->n;
	struct tl_residency *row;

	if (e <= s)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->rows[mid].state < iv->state)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->n || r->rows[lo].state != iv->state) {
		if (r->n == TL_MAX_STATES + 2)	/* + C0 and unknown */
			return -E2BIG;
		if (grow((void **)&r->rows, &r->cap, r->n + 1, sizeof(*r->rows)))
			return -ENOMEM;
		memmove(&r->rows[lo + 1], &r->rows[lo], (r->n - lo) * sizeof(*r->rows));
		r->rows[lo] = (struct tl_residency){ .state = iv->state };
		r->n++;
	}
	row = &r->rows[lo];
	row->time_ns += e - s;
	/*
	 * An entry is a stay that began inside the window. A known state's
	 * interval always began with an event (the one open at the trace's
	 * start is unknown), also one at the start itself: an import's first
	 * row that starts at the collection's begin is an entry.
	 */
	if ((iv->start >= r->trace_start && iv->start >= r->from) ||
	    iv->state == TL_UNKNOWN)
		row->entries++;
	return 0;
}

ssize_t timeline_residency(const struct timeline *t, uint32_t cpu,
			   uint64_t from, uint64_t to, struct tl_residency **out)
{
	size_t n;
	const struct tl_interval *iv = timeline_intervals(t, cpu, &n);
	struct tl_restab r;

	*out = NULL;
	tl_restab_init(&r, t->start, from, to);
	for (size_t i = 0; i < n; i++) {
		int ret = tl_restab_add(&r, &iv[i]);

		if (ret) {
			tl_restab_free(&r);
			return ret;
		}
	}
	if (!r.rows && !(r.rows = malloc(sizeof(*r.rows))))
		return -ENOMEM;
	*out = r.rows;
	return (ssize_t)r.n;
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
