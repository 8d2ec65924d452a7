// SPDX-License-Identifier: GPL-2.0
#include "attrib.h"

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

size_t attrib_run(const struct timeline *t, uint32_t cpu,
		  const struct attr_msg *msgs, size_t n,
		  struct attr_result *out)
{
	uint64_t prev = timeline_start(t);
	uint64_t pq_seq = UINT64_MAX;
	int pq_woke = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct attr_msg *m = &msgs[i];
		const struct tl_interval *iv = woke_between(t, cpu, prev,
							    m->recv_ns);
		struct attr_result r = { .seq = m->seq, .recv_ns = m->recv_ns,
					 .state = TL_C0 };

		if (iv) {
			r.state = iv->state;
			r.idle_end_ns = iv->end;
			r.exit_to_recv_ns = m->recv_ns > iv->end ?
					    m->recv_ns - iv->end : 0;
		}
		if (m->prequery) {
			pq_seq = m->seq;
			pq_woke = iv != NULL;
		} else {
			r.prequery_woke = pq_seq == m->seq && pq_woke;
			out[k++] = r;
		}
		prev = m->recv_ns > m->send_ns ? m->recv_ns : m->send_ns;
	}
	return k;
}
