// SPDX-License-Identifier: GPL-2.0
/*
 * wakesplit: the split of each wake datapoint (wakesplit.h). The events
 * and the datapoints are both in time order and the datapoints do not
 * overlap (one sleeper, one wait at a time): one pass over each, an event
 * held back when it belongs to the next datapoint.
 */
#include <errno.h>
#include <stdlib.h>
#include "wakesplit.h"

#define NET_RX_SOFTIRQ 3	/* the kernel's softirq vector of NET_RX */

const char *const wake_seg_name[WAKE_NSEG] = {
	"launch_exit", "hw_exit", "kernel", "softirq", "sched", "to_user",
};

struct wake_splitter {
	uint32_t cpu;
	wake_event_fn next;
	void *ctx;
	struct tl_event pend;	/* read, not yet taken */
	int have_pend, ended;
	int idle;		/* the CPU in an idle state */
};

struct wake_splitter *wake_splitter_new(uint32_t cpu, wake_event_fn next,
					void *ctx)
{
	struct wake_splitter *w = calloc(1, sizeof(*w));

	if (w) {
		w->cpu = cpu;
		w->next = next;
		w->ctx = ctx;
	}
	return w;
}

void wake_splitter_free(struct wake_splitter *w)
{
	free(w);
}

/* The next event at or before limit into *e: 1, 0 (none), -errno. */
static int take(struct wake_splitter *w, uint64_t limit, struct tl_event *e,
		char *err, size_t errlen)
{
	if (!w->have_pend && !w->ended) {
		int ret = w->next(w->ctx, &w->pend, err, errlen);

		if (ret < 0)
			return ret;
		w->have_pend = ret > 0;
		w->ended = !ret;
	}
	if (!w->have_pend || w->pend.ts > limit)
		return 0;
	*e = w->pend;
	w->have_pend = 0;
	return 1;
}

static uint32_t handler_cause(const struct tl_event *e)
{
	switch (e->type) {
	case TL_IRQ_ENTRY:
		return TL_CAUSE_IRQ;
	case TL_IPI:
		return TL_CAUSE_IPI;
	case TL_TIMER:
		return TL_CAUSE_TIMER;
	case TL_SOFTIRQ:
		return TL_CAUSE_SOFTIRQ;
	default:
		return TL_CAUSE_UNKNOWN;
	}
}

/* An event inside the datapoint's window, onto its sequence points. */
static void window_event(struct wake_splitter *w, const struct tl_event *e,
			 uint32_t tid, struct wake_split *s)
{
	uint32_t cause = handler_cause(e);

	if (e->type == TL_WAKEUP && e->arg == tid) {
		s->wakeup_ns = e->ts;
		return;
	}
	if (e->cpu != w->cpu)
		return;
	if (e->type == TL_IDLE) {
		if (e->arg == TL_EXIT && w->idle && !s->exit_ns)
			s->exit_ns = e->ts;
		w->idle = e->arg != TL_EXIT;
	} else if (e->type == TL_SWITCH && e->arg == tid) {
		s->switch_ns = e->ts;
	} else if (cause != TL_CAUSE_UNKNOWN && !s->handler_ns) {
		s->handler_ns = e->ts;
		s->cause = cause;
	}
	if (e->type == TL_SOFTIRQ && e->arg == NET_RX_SOFTIRQ && !s->softirq_ns)
		s->softirq_ns = e->ts;
}

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The segments from the sequence points (wakesplit.h). */
static void segments(struct wake_split *s, uint64_t L, uint64_t U)
{
	uint64_t H = s->handler_ns, T0, T1, W, S;

	s->idle = s->idle && s->exit_ns;
	/* busy at L: the wake begins with its handler (what delayed that
	 * is the launch's path, not a hardware exit) */
	if (s->idle)
		T0 = H && H < s->exit_ns ? H : s->exit_ns;
	else
		T0 = H ? H : L;
	T0 = clamp(T0, L, U);
	T1 = clamp(H ? H : T0, T0, U);
	if (!s->wakeup_ns)
		return;
	s->known = 1;
	W = clamp(s->wakeup_ns, T1, U);
	s->have_switch = s->switch_ns >= W && s->switch_ns <= U;
	S = s->have_switch ? s->switch_ns : U;
	s->seg[WAKE_SEG_LAUNCH_EXIT] = T0 - L;
	s->seg[WAKE_SEG_HW_EXIT] = T1 - T0;
	s->seg[WAKE_SEG_KERNEL] = W - T1;
	s->seg[WAKE_SEG_SOFTIRQ] = s->softirq_ns >= T1 && s->softirq_ns <= W ?
				   W - s->softirq_ns : 0;
	s->seg[WAKE_SEG_SCHED] = S - W;
	s->seg[WAKE_SEG_TO_USER] = U - S;
}

int wake_split_next(struct wake_splitter *w, uint64_t launch_ns,
		    uint64_t wake_ns, uint32_t tid, struct wake_split *out,
		    char *err, size_t errlen)
{
	struct tl_event e;
	int ret;

	*out = (struct wake_split){ .cause = TL_CAUSE_NONE };
	/* before the launch: only whether the CPU is idle */
	while ((ret = take(w, launch_ns ? launch_ns - 1 : 0, &e, err, errlen)) > 0)
		if (e.cpu == w->cpu && e.type == TL_IDLE)
			w->idle = e.arg != TL_EXIT;
	if (ret < 0)
		return ret;
	out->idle = w->idle;
	while ((ret = take(w, wake_ns, &e, err, errlen)) > 0)
		window_event(w, &e, tid, out);
	if (ret < 0)
		return ret;
	segments(out, launch_ns, wake_ns);
	return 0;
}
