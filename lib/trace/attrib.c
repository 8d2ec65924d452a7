// SPDX-License-Identifier: GPL-2.0
/*
 * The attribution runs beside the timeline over one pass of the trace:
 * before each event is applied, the messages received before it are
 * classified with the timeline as it stands (timeline_now: the core's
 * open interval and its last idle exit). Messages wait in a queue only
 * while the group received at one instant is incomplete, or while the
 * trace still shows the core idle at their receive time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attrib.h"
#include "reqlog.h"

#define PENDING_MAX 65536
#define RECENT 64		/* wakeups kept until the server's pid is known */

struct recent_wakeup {
	uint32_t pid;
	uint64_t ts, netrx, hard;
};

struct attrib {
	struct attr_opts o;
	struct timeline *t;
	struct attr_stats *st;
	int cpu;
	int64_t pid;
	int partial;		/* some CPU not in the trace */
	/* pending messages, from seq qhead to qtail */
	struct attr_msg *q;
	size_t qcap;
	uint64_t qhead, qtail;
	uint64_t prev;		/* the server's previous activity */
	uint64_t last_recv;
	struct attr_result pq;	/* the last pre-query */
	int have_pq;
	/* the server's thread */
	uint64_t wakeup_ts, wakeup_netrx, switch_ts, netrx_ts;
	uint64_t hard_ts;	/* the core's last hard IRQ, IPI or timer */
	uint64_t wakeup_hard;	/* ... when the thread was woken last */
	/* the server core's last power:cpu_idle_miss (0: none yet) */
	uint64_t miss_ts;
	int miss_below;
	uint32_t miss_cpu;	/* before the first marker names the core */
	struct recent_wakeup recent[RECENT];
	uint64_t nrecent;	/* written so far (the ring keeps RECENT) */
	char *err;
	size_t errlen;
};

void attrib_client_send(struct attr_result *r, uint64_t sent_ns)
{
	/* a send after the receive is of another host's clock: no use */
	if (!sent_ns || sent_ns > r->recv_ns || r->state < 0 ||
	    !r->idle_end_ns || r->idle_end_ns >= sent_ns)
		return;
	r->state = TL_C0;
	r->idle_end_ns = 0;
	r->exit_to_recv_ns = 0;
	r->cause = 0;
	r->detail = 0;
	r->cause_ns = 0;
	r->hw_exit_ns = 0;
	r->kernel_ns = 0;
	/* as breakdown() gives a request that found C0 */
	r->sched_ns = r->wakeup_ns && r->wakeup_ns <= r->recv_ns ?
		      r->recv_ns - r->wakeup_ns : 0;
	r->wake_ns = r->sched_ns;
	r->have_breakdown = r->thread_known;
	r->uncertain = 0;
	r->prequery_woke = 0;
	if (r->prequery == ATTR_PQ_WOKE)
		r->prequery = ATTR_PQ_AWAKE;
}

const char *attrib_miss_name(enum attr_miss m)
{
	static const char *const names[] = { "", "none", "above", "below" };

	return m < ATTR_MISS_KINDS ? names[m] : "?";
}

const char *attrib_pq_name(enum attr_pq pq)
{
	static const char *const names[] = { "none", "woke", "awake", "together" };

	return pq < ATTR_PQ_KINDS ? names[pq] : "?";
}

void attrib_client_lead(struct attr_result *r, uint64_t lead_ns)
{
	if (r->prequery != ATTR_PQ_TOGETHER || !lead_ns)
		return;
	if (r->state == TL_C0 || r->state == TL_UNKNOWN)
		return;
	r->prequery = ATTR_PQ_WOKE;
	r->prequery_woke = 1;
}

static struct attr_msg *qat(struct attrib *a, uint64_t i)
{
	return &a->q[i % a->qcap];
}

static int push(struct attrib *a, const struct attr_msg *m)
{
	size_t n = (size_t)(a->qtail - a->qhead);

	if (m->recv_ns < a->last_recv) {
		snprintf(a->err, a->errlen, "messages out of receive order: seq %llu received at %llu ns after one at %llu ns",
			 (unsigned long long)m->seq, (unsigned long long)m->recv_ns,
			 (unsigned long long)a->last_recv);
		return -EINVAL;
	}
	a->last_recv = m->recv_ns;
	if (n == PENDING_MAX) {
		snprintf(a->err, a->errlen, "more than %d messages received while the trace shows cpu%d idle (at %llu ns): the requests are not of this CPU or this trace",
			 PENDING_MAX, a->cpu,
			 (unsigned long long)qat(a, a->qhead)->recv_ns);
		return -E2BIG;
	}
	if (n == a->qcap) {
		size_t ncap = a->qcap ? 2 * a->qcap : 256;
		struct attr_msg *nq = malloc(ncap * sizeof(*nq));

		if (!nq) {
			snprintf(a->err, a->errlen, "out of memory");
			return -ENOMEM;
		}
		for (uint64_t i = a->qhead; i < a->qtail; i++)
			nq[i % ncap] = *qat(a, i);
		free(a->q);
		a->q = nq;
		a->qcap = ncap;
	}
	*qat(a, a->qtail++) = *m;
	a->st->messages++;
	return 0;
}

static int is_handler(uint32_t cause)
{
	return cause == TL_CAUSE_IRQ || cause == TL_CAUSE_IPI ||
	       cause == TL_CAUSE_TIMER || cause == TL_CAUSE_SOFTIRQ;
}

static uint64_t clamp(uint64_t v, uint64_t max)
{
	return v < max ? v : max;
}

/* The server's thread was woken after its previous activity, by R. */
static int thread_woken(const struct attrib *a, uint64_t R)
{
	return a->pid >= 0 && a->wakeup_ts > a->prev && a->wakeup_ts <= R;
}

/* The wake's sequence points and segments (attrib.h). */
static void breakdown(struct attrib *a, struct attr_result *r,
		      const struct tl_wake *w)
{
	uint64_t R = r->recv_ns, W = 0, H = 0, T0, T1, T2;

	if (thread_woken(a, R))
		W = a->wakeup_ts;
	r->wakeup_ns = W;
	if (W && a->switch_ts >= W && a->switch_ts <= R)
		r->switch_ns = a->switch_ts;
	if (W && a->wakeup_netrx > a->prev)
		r->netrx_ns = a->wakeup_netrx;
	if (r->state == TL_C0) {
		r->sched_ns = W ? R - W : 0;
		r->wake_ns = r->sched_ns;
		r->have_breakdown = a->pid >= 0;
		return;
	}
	if (r->state < 0 || !w)
		return;
	if (is_handler(w->cause) && w->cause_ts && w->cause_ts <= R)
		H = w->cause_ts;
	r->cause_ns = H;
	T0 = clamp(H && H < w->ts ? H : w->ts, R);
	T1 = clamp(H ? H : w->ts, R);
	r->hw_exit_ns = T1 - T0;
	r->wake_ns = R - T0;
	if (!W)
		return;
	T2 = clamp(W > T1 ? W : T1, R);
	r->kernel_ns = T2 - T1;
	r->sched_ns = R - T2;
	r->have_breakdown = 1;
}

/*
 * Whether the wake w delivered the thread's wakeup at W (attrib.h): W
 * during the idle stay, or after an exit whose handler ran after it
 * (interrupts off while idle) with no other interrupt on the core in
 * between. Otherwise the core woke for something else and was busy when
 * the request came.
 */
static int delivered(const struct attrib *a, const struct tl_wake *w, uint64_t W)
{
	uint64_t H = is_handler(w->cause) ? w->cause_ts : 0;

	if (W <= w->ts)
		return W >= w->idle_start;
	return H && H >= w->ts && W >= H && a->wakeup_hard <= H;
}

/*
 * The miss of the core's last idle before R: its exit (now->wake) by R,
 * and a cpu_idle_miss after that exit (the kernel emits it on the way
 * out of that idle, before the server's thread runs) and by R.
 */
static enum attr_miss idle_miss(const struct attrib *a, const struct tl_now *now,
				uint64_t R)
{
	/* idle at R: that idle's exit and miss are to come */
	if (!a->o.idle_miss || !now->have_wake || now->wake.ts > R ||
	    (now->state != TL_C0 && now->since <= R))
		return ATTR_MISS_UNKNOWN;
	if (!a->miss_ts || (int)a->miss_cpu != a->cpu ||
	    a->miss_ts < now->wake.ts || a->miss_ts > R)
		return ATTR_MISS_NONE;
	return a->miss_below ? ATTR_MISS_BELOW : ATTR_MISS_ABOVE;
}

/*
 * The state m found its core in: 1 with *r filled, 0 when the trace
 * still shows the core idle at m's receive and its exit is to come
 * (unless final: the trace has ended).
 */
static int classify(struct attrib *a, const struct attr_msg *m,
		    struct attr_result *r, int final)
{
	uint64_t R = m->recv_ns;
	struct tl_now now;

	*r = (struct attr_result){ .cpu = (uint32_t)a->cpu, .seq = m->seq,
				   .recv_ns = R, .send_ns = m->send_ns,
				   .state = TL_C0, .thread_known = a->pid >= 0 };
	timeline_now(a->t, (uint32_t)a->cpu, &now);
	r->idle_miss = idle_miss(a, &now, R);
	if (now.state != TL_C0 && now.since <= R) {
		if (now.state >= 0 && !final)
			return 0;
		/* unknown throughout so far, or idle to the trace's end */
		r->state = now.state;
		if (now.state >= 0)
			r->idle_end_ns = timeline_end(a->t);
		return 1;
	}
	if (now.have_wake && now.wake.ts > a->prev &&
	    (now.wake.ts <= R || now.wake.idle_start <= R) &&
	    !(thread_woken(a, R) && !delivered(a, &now.wake, a->wakeup_ts))) {
		r->state = now.wake.state;
		/* the first rule alone, and the CPU that woke the thread
		 * may be one the trace lacks */
		r->uncertain = a->partial && !thread_woken(a, R);
		r->idle_end_ns = now.wake.ts;
		r->exit_to_recv_ns = R > now.wake.ts ? R - now.wake.ts : 0;
		/* no handler yet, and the trace goes on past R: nothing
		 * woke the core before the request came in (a later one
		 * cannot have been its cause); unless the trace records
		 * no interrupts at all */
		if (now.wake.cause == TL_CAUSE_UNKNOWN &&
		    !timeline_causes_unknown(a->t) &&
		    (!final || R <= timeline_end(a->t)))
			now.wake.cause = TL_CAUSE_NONE;
		r->cause = now.wake.cause;
		r->detail = now.wake.detail;
		breakdown(a, r, &now.wake);
	} else {
		breakdown(a, r, NULL);
	}
	return 1;
}

/* The state, wake and breakdown of src, onto the request r. */
static void take_state(struct attr_result *r, const struct attr_result *src)
{
	struct attr_result keep = *r;

	*r = *src;
	r->seq = keep.seq;
	r->recv_ns = keep.recv_ns;
	r->send_ns = keep.send_ns;
}

/* Classifies the group of messages received at the head's time. */
static int do_group(struct attrib *a, int final, int *done)
{
	uint64_t R = qat(a, a->qhead)->recv_ns, end = a->qhead;
	struct attr_result r;

	while (end < a->qtail && qat(a, end)->recv_ns == R)
		end++;
	*done = 0;
	for (uint64_t i = a->qhead; i < end; i++) {
		const struct attr_msg *m = qat(a, i);

		if (!classify(a, m, &r, final))
			return 0;	/* the group waits for the exit */
		if (m->prequery) {
			a->pq = r;
			a->have_pq = 1;
		} else {
			int later = 0;

			for (uint64_t j = i + 1; j < end && !later; j++)
				later = qat(a, j)->prequery && qat(a, j)->seq == m->seq;
			if (a->have_pq && a->pq.seq == m->seq && a->pq.recv_ns == R) {
				/* One read brought both: the request found
				 * the core as its pre-query did. */
				take_state(&r, &a->pq);
				r.prequery = ATTR_PQ_TOGETHER;
			} else if (later) {
				r.prequery = ATTR_PQ_TOGETHER;
			} else if (a->have_pq && a->pq.seq == m->seq) {
				r.prequery = a->pq.state != TL_C0 ? ATTR_PQ_WOKE :
					     ATTR_PQ_AWAKE;
			}
			r.prequery_woke = r.prequery == ATTR_PQ_WOKE;
			a->st->requests++;
			a->st->uncertain += (uint64_t)r.uncertain;
			a->st->miss[r.idle_miss]++;
			if (a->o.fn) {
				int ret = a->o.fn(a->o.ctx, &r);

				if (ret) {
					snprintf(a->err, a->errlen, "%s", strerror(-ret));
					return ret;
				}
			}
		}
		a->prev = m->recv_ns > m->send_ns ? m->recv_ns : m->send_ns;
	}
	a->qhead = end;
	*done = 1;
	return 0;
}

/* Classifies the groups received before limit; stops at one that waits. */
static int advance(struct attrib *a, uint64_t limit, int final)
{
	while (a->qhead < a->qtail && qat(a, a->qhead)->recv_ns < limit) {
		int done, ret;

		if (a->cpu < 0)
			return 0;
		ret = do_group(a, final, &done);
		if (ret || !done)
			return ret;
	}
	return 0;
}

/* One message: the groups before it are complete and go first. */
static int take_msg(struct attrib *a, const struct attr_msg *m, int final)
{
	if (a->qtail > a->qhead && m->recv_ns > qat(a, a->qtail - 1)->recv_ns) {
		int ret = advance(a, m->recv_ns, final);

		if (ret)
			return ret;
	}
	return push(a, m);
}

static void learn_pid(struct attrib *a, uint32_t pid)
{
	a->pid = pid;
	a->st->pid = pid;
	for (unsigned i = 0; i < RECENT && i < a->nrecent; i++) {
		if (a->recent[i].pid == pid && a->recent[i].ts > a->wakeup_ts) {
			a->wakeup_ts = a->recent[i].ts;
			a->wakeup_netrx = a->recent[i].netrx;
			a->wakeup_hard = a->recent[i].hard;
		}
	}
}

/* A trace event, after the timeline took it. */
static int event_seen(struct attrib *a, const struct tl_event *e, int markers)
{
	switch (e->type) {
	case TL_WAKEUP:
		a->st->wakeups++;
		if (a->pid < 0) {
			a->recent[a->nrecent++ % RECENT] =
				(struct recent_wakeup){ e->arg, e->ts, a->netrx_ts,
							a->hard_ts };
		} else if ((int64_t)e->arg == a->pid) {
			a->wakeup_ts = e->ts;
			a->wakeup_netrx = a->netrx_ts;
			a->wakeup_hard = a->hard_ts;
		}
		return 0;
	case TL_IRQ_ENTRY:
	case TL_IPI:
	case TL_TIMER:
		if ((int)e->cpu == a->cpu)
			a->hard_ts = e->ts;
		return 0;
	case TL_SWITCH:
		if (a->pid >= 0 && (int64_t)e->arg == a->pid &&
		    (int)e->cpu == a->cpu)
			a->switch_ts = e->ts;
		return 0;
	case TL_NETRX:
		a->netrx_ts = e->ts;
		return 0;
	case TL_IDLE_MISS:
		if (a->cpu < 0 || (int)e->cpu == a->cpu) {
			a->miss_ts = e->ts;
			a->miss_below = e->arg2 != 0;
			a->miss_cpu = e->cpu;
		}
		return 0;
	case TL_MARKER: {
		struct attr_msg m = { .recv_ns = e->ts };
		int r = reqlog_marker(e->str, &m.seq, &m.prequery, a->err, a->errlen);

		if (r <= 0) {
			if (r < 0) {
				char why[512];

				snprintf(why, sizeof(why), "%s", a->err);
				snprintf(a->err, a->errlen, "cpu%u at %llu ns: %s", e->cpu,
					 (unsigned long long)e->ts, why);
			}
			return r;
		}
		if (a->cpu < 0 && markers)
			a->cpu = (int)e->cpu;
		if ((int)e->cpu != a->cpu) {
			if (markers)
				a->st->elsewhere++;
			return 0;
		}
		if (a->pid < 0)
			learn_pid(a, e->pid);
		return markers ? take_msg(a, &m, 0) : 0;
	}
	default:
		return 0;
	}
}

int attrib_run(struct timeline *t, const struct attr_source *src,
	       const struct attr_opts *opts, uint64_t end_ns,
	       struct attr_stats *stats, char *err, size_t errlen)
{
	struct attrib a = { .o = *opts, .t = t, .st = stats, .cpu = opts->cpu,
			    .pid = opts->pid, .err = err, .errlen = errlen };
	int markers = !src->next_msg, have = 0, ret;
	struct attr_msg next;
	struct tl_event e;

	*stats = (struct attr_stats){ .cpu = opts->cpu, .pid = opts->pid };
	err[0] = '\0';
	for (uint32_t i = 0; opts->recorded && i < opts->ncpus; i++)
		if (!opts->recorded[i])
			a.partial = 1;
	if (!markers && opts->cpu < 0) {
		snprintf(err, errlen, "a message log needs the server's CPU");
		return -EINVAL;
	}
	a.prev = timeline_start(t);
	if (!markers) {
		ret = src->next_msg(src->ctx, &next, err, errlen);
		if (ret < 0)
			goto out;
		have = ret;
	}
	while ((ret = src->next_event(src->ctx, &e, err, errlen)) > 0) {
		while (have && next.recv_ns < e.ts) {
			ret = take_msg(&a, &next, 0);
			if (!ret)
				ret = src->next_msg(src->ctx, &next, err, errlen);
			if (ret < 0)
				goto out;
			have = ret;
		}
		ret = advance(&a, e.ts, 0);
		if (ret)
			goto out;
		ret = timeline_add(t, &e);
		if (ret && ret != -EINVAL) {
			snprintf(err, errlen, "%s", ret == -E2BIG ?
				 "corrupt trace: more idle states or IRQ numbers than a kernel has" :
				 strerror(-ret));
			goto out;
		}
		ret = event_seen(&a, &e, markers);
		if (ret)
			goto out;
	}
	if (ret < 0)
		goto out;
	ret = timeline_finish(t, end_ns);
	if (ret) {
		snprintf(err, errlen, "%s", strerror(-ret));
		goto out;
	}
	while (have) {
		ret = take_msg(&a, &next, 1);
		if (!ret)
			ret = src->next_msg(src->ctx, &next, err, errlen);
		if (ret < 0)
			goto out;
		have = ret;
	}
	ret = advance(&a, UINT64_MAX, 1);
out:
	stats->cpu = a.cpu;
	free(a.q);
	return ret;
}

int attrib_wake_known(const struct attr_result *r)
{
	if (r->state >= 0)
		return r->idle_end_ns != 0;
	return r->state == TL_C0 && r->have_breakdown;
}

void attrib_share_add(struct attr_share *s, const struct attr_result *r,
		      uint64_t lat_ns)
{
	if (!attrib_wake_known(r))
		return;
	s->n++;
	s->wake_sum += r->wake_ns;
	if (!lat_ns)
		return;
	s->nlat++;
	s->lat_sum += lat_ns;
	s->wake_lat_sum += r->wake_ns;
}

uint64_t attrib_share_n(const struct attr_share *s)
{
	return s->nlat ? s->nlat : s->n;
}

double attrib_share_wake(const struct attr_share *s)
{
	if (s->nlat)
		return (double)s->wake_lat_sum / (double)s->nlat;
	return s->n ? (double)s->wake_sum / (double)s->n : NAN;
}

double attrib_share_latency(const struct attr_share *s)
{
	return s->nlat ? (double)s->lat_sum / (double)s->nlat : NAN;
}

double attrib_share_pct(const struct attr_share *s)
{
	if (!s->nlat || !s->lat_sum)
		return NAN;
	return 100.0 * (double)s->wake_lat_sum / (double)s->lat_sum;
}
