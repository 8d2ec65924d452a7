// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "pqplan.h"
#include "tally.h"

void tally_add(struct tally *t, const struct req_rec *q, uint64_t late_ns)
{
	t->sent++;
	if (q->sent_ns > q->intended_ns && q->sent_ns - q->intended_ns > late_ns)
		t->late++;
	if (!q->recv_ns)
		t->unanswered++;
	else if (q->error)
		t->errors++;
	else
		t->ok++;
	if (q->pq == REQ_PQ_SENT) {
		t->prequeries_sent++;
		if (pqplan_late(q->prequery_plan_ns, q->prequery_sent_ns,
				late_ns))
			t->prequeries_late++;
	} else if (q->pq == REQ_PQ_SKIPPED || q->pq == REQ_PQ_MISSED) {
		t->prequeries_skipped++;
		if (q->pq == REQ_PQ_MISSED)
			t->prequeries_missed++;
	}
}

void tally_merge(struct tally *dst, const struct tally *src)
{
	dst->sent += src->sent;
	dst->ok += src->ok;
	dst->errors += src->errors;
	dst->unanswered += src->unanswered;
	dst->late += src->late;
	dst->prequeries_sent += src->prequeries_sent;
	dst->prequeries_skipped += src->prequeries_skipped;
	dst->prequeries_missed += src->prequeries_missed;
	dst->prequeries_late += src->prequeries_late;
}

void tally_run(const struct req_rec *reqs, uint64_t nsent, uint64_t warmup,
	       uint64_t late_ns, struct tally *measured, struct tally *warm)
{
	memset(measured, 0, sizeof(*measured));
	if (warm)
		memset(warm, 0, sizeof(*warm));
	for (uint64_t i = 0; i < nsent; i++) {
		if (i >= warmup)
			tally_add(measured, &reqs[i], late_ns);
		else if (warm)
			tally_add(warm, &reqs[i], late_ns);
	}
}
