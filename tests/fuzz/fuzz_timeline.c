// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the timeline builder and attribution fed arbitrary event
 * streams (what a corrupt or hostile trace could decode to): the
 * in-memory timeline's invariants, the same events through a streaming
 * timeline handing on exactly what the in-memory one kept, and the
 * attribution engine over them with a message log and with markers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "attrib.h"
#include "timeline.h"

#define MAXEV 1024
#define MAXMSG 64

struct input {
	struct tl_event ev[MAXEV];
	char str[MAXEV][8];
	size_t nev, i;
	struct attr_msg msgs[MAXMSG];
	size_t nm, j;
	uint64_t end;
};

/* What the streaming sink saw, compared with the in-memory timeline. */
struct seen {
	uint64_t intervals[5], wakes[5], irqs, markers;
	uint64_t last_end[5];
	uint64_t results;
	int markers_mode;
};

static int s_wake(void *ctx, const struct tl_wake *w, const char *detail)
{
	struct seen *s = ctx;

	(void)detail;
	if (w->cpu >= 5 || w->cause > TL_CAUSE_NONE)
		__builtin_trap();
	s->wakes[w->cpu]++;
	return 0;
}

static int s_interval(void *ctx, uint32_t cpu, const struct tl_interval *iv)
{
	struct seen *s = ctx;

	/* per CPU in order, contiguous, of positive length */
	if (cpu >= 5 || iv->end <= iv->start ||
	    (s->intervals[cpu] && iv->start != s->last_end[cpu]))
		__builtin_trap();
	s->last_end[cpu] = iv->end;
	s->intervals[cpu]++;
	return 0;
}

static int s_irq(void *ctx, const struct tl_irq *q, const char *name)
{
	struct seen *s = ctx;

	(void)q;
	(void)name;
	s->irqs++;
	return 0;
}

static int s_marker(void *ctx, const struct tl_event *e)
{
	struct seen *s = ctx;

	(void)e;
	s->markers++;
	return 0;
}

static int next_ev(void *ctx, struct tl_event *e, char *err, size_t errlen)
{
	struct input *in = ctx;

	(void)err;
	(void)errlen;
	if (in->i == in->nev)
		return 0;
	*e = in->ev[in->i++];
	return 1;
}

static int next_msg(void *ctx, struct attr_msg *m, char *err, size_t errlen)
{
	struct input *in = ctx;

	(void)err;
	(void)errlen;
	if (in->j == in->nm)
		return 0;
	*m = in->msgs[in->j++];
	return 1;
}

static int result(void *ctx, const struct attr_result *r)
{
	struct seen *s = ctx;

	s->results++;
	/* the segments add up to the wake */
	if (r->have_breakdown &&
	    r->hw_exit_ns + r->kernel_ns + r->sched_ns != r->wake_ns)
		__builtin_trap();
	if (r->prequery >= ATTR_PQ_KINDS || r->prequery_woke != (r->prequery == ATTR_PQ_WOKE))
		__builtin_trap();
	return 0;
}

static void attribute(struct input *in, int markers)
{
	struct timeline *t = timeline_stream(4, 1000, NULL);
	struct seen s = { .markers_mode = markers };
	struct attr_source src = { .ctx = in, .next_event = next_ev,
				   .next_msg = markers ? NULL : next_msg };
	struct attr_opts o = { .cpu = markers ? -1 : 0, .pid = markers ? -1 : 7,
			       .fn = result, .ctx = &s };
	struct attr_stats st;
	uint64_t requests = 0;
	char err[512];

	if (!t)
		return;
	in->i = in->j = 0;
	if (!attrib_run(t, &src, &o, in->end, &st, err, sizeof(err))) {
		if (!markers) {
			for (size_t k = 0; k < in->nm; k++)
				requests += !in->msgs[k].prequery;
			if (s.results != requests)
				__builtin_trap();
		}
		if (s.results != st.requests)
			__builtin_trap();
	}
	timeline_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct input in;
	struct timeline *t = timeline_new(4, 1000), *st;
	struct seen s = { 0 };
	struct tl_sink sink = { .ctx = &s, .wake = s_wake, .interval = s_interval,
				.irq = s_irq, .marker = s_marker };
	uint64_t ts = 1000;
	size_t i;

	st = timeline_stream(4, 1000, &sink);
	if (!t || !st)
		goto out;
	in.nev = in.nm = 0;
	/* 8-byte records: type, cpu, arg (u16), time step (u32). */
	for (i = 0; i + 8 <= size && in.nev < MAXEV; i += 8) {
		const uint8_t *p = data + i;
		struct tl_event *e = &in.ev[in.nev];
		uint32_t step;

		memcpy(&step, p + 4, 4);
		ts += step % 100000;
		if (p[0] & 0x80)
			ts -= step % 1000;	/* time going back now and then */
		memcpy(in.str[in.nev], p + 1, 3);
		in.str[in.nev][3] = '\0';
		if (p[0] % TL_NTYPES == TL_MARKER && (p[2] & 3) == 0)
			snprintf(in.str[in.nev], sizeof(in.str[0]), "wb %s %u",
				 p[2] & 4 ? "pqrecv" : "recv", p[3] % 10);
		*e = (struct tl_event){ .ts = ts, .cpu = p[1] % 5,
					.type = (enum tl_type)(p[0] % TL_NTYPES),
					.arg = (p[2] == 0xff) ? TL_EXIT : p[2] | p[3] << 8,
					.arg2 = p[1], .pid = 7, .str = in.str[in.nev] };
		if (e->type == TL_WAKEUP)
			e->arg = p[2] & 1 ? 7 : p[2];
		timeline_add(t, e);
		timeline_add(st, e);
		in.nev++;
		if (in.nm < MAXMSG && (p[0] & 0x40)) {
			uint64_t recv = in.nm && in.msgs[in.nm - 1].recv_ns > ts ?
					in.msgs[in.nm - 1].recv_ns : ts;

			/* a log is in receive order */
			in.msgs[in.nm++] = (struct attr_msg){ .seq = p[3], .prequery = p[2] & 1,
							      .recv_ns = recv,
							      .send_ns = recv + p[1] };
		}
	}
	in.end = ts + 10;
	timeline_finish(t, in.end);
	timeline_finish(st, in.end);
	for (uint32_t c = 0; c < 4; c++) {
		struct tl_residency *r;
		ssize_t k = timeline_residency(t, c, 0, UINT64_MAX, &r);
		uint64_t sum = 0;
		size_t n, nw;
		const struct tl_interval *iv = timeline_intervals(t, c, &n);
		const struct tl_wake *w = timeline_wakes(t, c, &nw);

		/* the stream handed on what the in-memory timeline kept */
		if (n != s.intervals[c] || nw != s.wakes[c])
			__builtin_trap();
		if (k < 0)
			break;
		for (ssize_t j = 0; j < k; j++) {
			sum += r[j].time_ns;
			/* one row per state, in state order */
			if (j && r[j].state <= r[j - 1].state)
				__builtin_trap();
		}
		free(r);
		/* Residency covers the trace exactly; intervals are ordered. */
		if (sum != timeline_end(t) - timeline_start(t))
			__builtin_trap();
		for (size_t j = 1; j < n; j++)
			if (iv[j].start != iv[j - 1].end)
				__builtin_trap();
		timeline_at(t, c, ts / 2);
		/* wakes: in time order, one per exit, a known cause name */
		for (size_t j = 0; j < nw; j++) {
			if ((j && w[j].ts < w[j - 1].ts) || w[j].cpu != c ||
			    w[j].cause > TL_CAUSE_NONE)
				__builtin_trap();
			timeline_string(t, w[j].detail);
		}
	}
	{
		size_t nq, nmk;

		timeline_irqs(t, &nq);
		timeline_markers(t, &nmk);
		if (nq != s.irqs || nmk != s.markers)
			__builtin_trap();
	}
	attribute(&in, 0);
	attribute(&in, 1);
out:
	timeline_free(t);
	timeline_free(st);
	return 0;
}
