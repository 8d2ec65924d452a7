// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "attrib.h"

const char *attrib_pq_name(enum attr_pq pq)
{
	static const char *const names[] = { "none", "woke", "awake", "together" };

	return pq < ATTR_PQ_KINDS ? names[pq] : "?";
}

/* Bottom-up merge sort: stable, O(n log n) whatever the input. */
int attrib_sort(struct attr_msg *msgs, size_t n)
{
	struct attr_msg *tmp, *src = msgs, *dst;

	if (n < 2)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (size_t w = 1; w < n; w = w > n / 2 ? n : 2 * w) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = mid + w < n ? mid + w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = src[j].recv_ns < src[i].recv_ns ?
					   src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct attr_msg *s = src;

		src = dst;
		dst = s;
	}
	if (src != msgs)
		memcpy(msgs, src, n * sizeof(*msgs));
	free(tmp);
	return 0;
}

/*
 * The idle period that ended last in (after, at]: found from the
 * interval containing `at` backwards. Returns it, or NULL.
 */
static const struct tl_interval *woke_between(const struct timeline *t,
					      uint32_t cpu, uint64_t after,
					      uint64_t at)
{
	size_t n;
	const struct tl_interval *all = timeline_intervals(t, cpu, &n);
	const struct tl_interval *iv = timeline_at(t, cpu, at);

	if (!all || !n)
		return NULL;
	if (!iv)		/* past the end of the trace */
		iv = &all[n - 1];
	for (; iv >= all && iv->end > after; iv--) {
		if (iv->state == TL_C0)
			continue;
		if (iv->end <= at)
			return iv;
		/* `at` inside an idle interval: the message is logged while
		 * the trace still shows the core idle (clock skew between the
		 * event and the log); the core woke for it. */
		return iv;
	}
	return NULL;
}

/* A pre-query for seq later in the run of messages received at recv_ns. */
static int pq_later_same_read(const struct attr_msg *msgs, size_t n, size_t i)
{
	for (size_t j = i + 1; j < n && msgs[j].recv_ns == msgs[i].recv_ns; j++)
		if (msgs[j].prequery && msgs[j].seq == msgs[i].seq)
			return 1;
	return 0;
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

size_t attrib_run(const struct timeline *t, uint32_t cpu,
		  const struct attr_msg *msgs, size_t n,
		  struct attr_result *out)
{
	uint64_t prev = timeline_start(t);
	struct attr_result pq = { .seq = UINT64_MAX };	/* the last pre-query */
	int have_pq = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct attr_msg *m = &msgs[i];
		const struct tl_interval *iv = woke_between(t, cpu, prev,
							    m->recv_ns);
		struct attr_result r = { .seq = m->seq, .recv_ns = m->recv_ns,
					 .send_ns = m->send_ns, .state = TL_C0 };

		if (iv) {
			r.state = iv->state;
			r.idle_end_ns = iv->end;
			r.exit_to_recv_ns = m->recv_ns > iv->end ?
					    m->recv_ns - iv->end : 0;
		}
		if (m->prequery) {
			pq = r;
			have_pq = 1;
		} else {
			if (have_pq && pq.seq == m->seq &&
			    pq.recv_ns == m->recv_ns) {
				/* One read brought both: the request found
				 * the core as its pre-query did. */
				r.state = pq.state;
				r.idle_end_ns = pq.idle_end_ns;
				r.exit_to_recv_ns = pq.exit_to_recv_ns;
				r.prequery = ATTR_PQ_TOGETHER;
			} else if (pq_later_same_read(msgs, n, i)) {
				r.prequery = ATTR_PQ_TOGETHER;
			} else if (have_pq && pq.seq == m->seq) {
				r.prequery = pq.state != TL_C0 ? ATTR_PQ_WOKE :
					     ATTR_PQ_AWAKE;
			}
			r.prequery_woke = r.prequery == ATTR_PQ_WOKE;
			out[k++] = r;
		}
		prev = m->recv_ns > m->send_ns ? m->recv_ns : m->send_ns;
	}
	return k;
}
