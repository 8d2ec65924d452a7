// SPDX-License-Identifier: GPL-2.0
/* ivstat: per-interval counts taken while the recording goes on (see ivstat.h). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "hist.h"
#include "ivstat.h"

int ivstat_slot_init(struct ivstat_slot *s)
{
	memset(s, 0, sizeof(*s));
	s->lat = hist_new(0);
	s->svc = hist_new(0);
	if (!s->lat || !s->svc) {
		ivstat_slot_free(s);
		return -ENOMEM;
	}
	return 0;
}

void ivstat_slot_free(struct ivstat_slot *s)
{
	hist_free(s->lat);
	hist_free(s->svc);
	s->lat = NULL;
	s->svc = NULL;
}

void ivstat_slot_reset(struct ivstat_slot *s)
{
	memset(&s->meas, 0, sizeof(s->meas));
	s->warm = 0;
	hist_reset(s->lat);
	hist_reset(s->svc);
}

void ivstat_slot_merge(struct ivstat_slot *dst, struct ivstat_slot *src)
{
	tally_merge(&dst->meas, &src->meas);
	dst->warm += src->warm;
	/* histograms only: the merge adds the buckets, allocates nothing
	 * and cannot fail; src keeps its counts (it is reset apart) */
	hist_merge(dst->lat, src->lat);
	hist_merge(dst->svc, src->svc);
}

int ivstat_init(struct ivstat *v)
{
	memset(v, 0, sizeof(*v));
	if (ivstat_slot_init(&v->slot[0]) || ivstat_slot_init(&v->slot[1])) {
		ivstat_free(v);
		return -ENOMEM;
	}
	atomic_init(&v->cur, 0);
	atomic_init(&v->busy, 0);
	return 0;
}

void ivstat_free(struct ivstat *v)
{
	ivstat_slot_free(&v->slot[0]);
	ivstat_slot_free(&v->slot[1]);
}

void ivstat_add(struct ivstat *v, const struct req_rec *q, int measured,
		uint64_t late_ns)
{
	struct ivstat_slot *s;

	/* the flag up BEFORE the slot is chosen: a reporter that flips
	 * after this reads it up, or sees this addition finished */
	atomic_store(&v->busy, 1);
	s = &v->slot[atomic_load(&v->cur) & 1];
	if (measured) {
		tally_add(&s->meas, q, late_ns);
		if (q->recv_ns && !q->error) {
			hist_add(s->lat, q->recv_ns - q->intended_ns);
			hist_add(s->svc, q->recv_ns - q->sent_ns);
		}
	} else {
		s->warm++;
	}
	atomic_store_explicit(&v->busy, 0, memory_order_release);
}

void ivstat_collect(struct ivstat *v, struct ivstat_slot *acc)
{
	unsigned int old = atomic_load(&v->cur) & 1;
	struct ivstat_slot *s = &v->slot[old];

	atomic_store(&v->cur, old ^ 1);
	/* An addition that chose the old slot set the flag before it read
	 * cur, so before the store above: it is up, or that addition is
	 * done and its counts are seen (release/acquire on the flag). The
	 * flag of one that came after the flip only makes this wait. */
	while (atomic_load(&v->busy))
		sched_yield();
	ivstat_slot_merge(acc, s);
	ivstat_slot_reset(s);
}

char *ivstat_line(char *buf, size_t len, double t_s, double span_s,
		  const struct ivstat_slot *acc)
{
	const struct tally *t = &acc->meas;
	size_t off = 0;

#define PUT(...)							\
	do {								\
		if (off < len) {					\
			int n_ = snprintf(buf + off, len - off, __VA_ARGS__); \
			off += n_ > 0 ? (size_t)n_ : 0;			\
		}							\
	} while (0)
	if (!len)
		return buf;
	buf[0] = '\0';
	PUT("[%7.1f s] sent %llu", t_s, (unsigned long long)t->sent);
	if (span_s > 0)
		PUT(" (%.1f/s)", (double)t->sent / span_s);
	PUT(" answered %llu late %llu", (unsigned long long)t->ok,
	    (unsigned long long)t->late);
	if (hist_count(acc->lat))
		PUT(" p50 %.1f us p99 %.1f us",
		    (double)hist_percentile(acc->lat, 0.5) / 1e3,
		    (double)hist_percentile(acc->lat, 0.99) / 1e3);
	else
		PUT(" no replies");
	if (t->errors)
		PUT(" errors %llu", (unsigned long long)t->errors);
	if (t->unanswered)
		PUT(" unanswered %llu", (unsigned long long)t->unanswered);
	if (acc->warm)
		PUT(" warm-up %llu", (unsigned long long)acc->warm);
#undef PUT
	return buf;
}
