// SPDX-License-Identifier: GPL-2.0
#include "pqplan.h"

struct pqplan pqplan_decide(uint64_t prev_ns, uint64_t send_ns,
			    uint64_t lead_ns, uint64_t cost_ns, int in_band)
{
	uint64_t gap = send_ns > prev_ns ? send_ns - prev_ns : 0;
	uint64_t ahead;

	if (in_band) {
		if (gap < lead_ns)
			return (struct pqplan){ PQPLAN_SKIP, 0 };
		if (lead_ns < cost_ns)
			return (struct pqplan){ PQPLAN_TOGETHER, send_ns };
		return (struct pqplan){ PQPLAN_AHEAD, send_ns - lead_ns };
	}
	ahead = lead_ns > cost_ns ? lead_ns : cost_ns;
	if (gap < ahead)
		return (struct pqplan){ PQPLAN_SKIP, 0, gap >= lead_ns };
	return (struct pqplan){ PQPLAN_AHEAD, send_ns - ahead };
}

struct pqplan pqplan_decide_at(enum pqplan_at at, uint64_t prev_ns,
			       uint64_t send_ns, uint64_t lead_ns,
			       uint64_t cost_ns, int in_band)
{
	uint64_t gap = send_ns > prev_ns ? send_ns - prev_ns : 0;

	switch (at) {
	case PQPLAN_AT_GAP_START:
		if (gap <= lead_ns)
			return (struct pqplan){ PQPLAN_SKIP, 0 };
		return (struct pqplan){ PQPLAN_AHEAD, prev_ns };
	case PQPLAN_AT_SLEEP_AFTER:
		return (struct pqplan){ PQPLAN_AHEAD,
			send_ns > lead_ns ? send_ns - lead_ns : 0 };
	case PQPLAN_AT_LEAD:
		break;
	}
	return pqplan_decide(prev_ns, send_ns, lead_ns, cost_ns, in_band);
}

const char *pqplan_at_name(enum pqplan_at at)
{
	switch (at) {
	case PQPLAN_AT_GAP_START:
		return "gap-start";
	case PQPLAN_AT_SLEEP_AFTER:
		return "sleep-after";
	case PQPLAN_AT_LEAD:
		break;
	}
	return "lead";
}

int pqplan_fits(uint64_t now_ns, uint64_t at_ns, uint64_t send_ns,
		uint64_t cost_ns)
{
	if (now_ns <= at_ns || now_ns - at_ns <= PQPLAN_ONTIME_NS)
		return 1;
	return now_ns <= send_ns && send_ns - now_ns >= cost_ns;
}

int pqplan_late(uint64_t plan_ns, uint64_t sent_ns, uint64_t late_ns)
{
	return sent_ns > plan_ns && sent_ns - plan_ns > late_ns;
}

uint64_t pqplan_effective_lead(uint64_t prequery_sent_ns,
			       uint64_t request_sent_ns)
{
	return request_sent_ns > prequery_sent_ns ?
	       request_sent_ns - prequery_sent_ns : 0;
}

void pqplan_cost_init(struct pqplan_cost *c)
{
	c->samples = 0;
	c->est_ns = PQPLAN_COST_INITIAL_NS;
}

void pqplan_cost_add(struct pqplan_cost *c, uint64_t ns)
{
	uint64_t v[PQPLAN_COST_WINDOW];
	size_t n;

	c->ring[c->samples++ % PQPLAN_COST_WINDOW] = ns;
	n = c->samples < PQPLAN_COST_WINDOW ? (size_t)c->samples :
					      PQPLAN_COST_WINDOW;
	/* Insertion sort of at most 15 values: cheaper than qsort's call. */
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		while (j && v[j - 1] > c->ring[i]) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = c->ring[i];
	}
	c->est_ns = n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2;
}

void pqplan_cost_relax(struct pqplan_cost *c)
{
	pqplan_cost_add(c, PQPLAN_COST_INITIAL_NS);
}

uint64_t pqplan_cost_ns(const struct pqplan_cost *c)
{
	return c->est_ns < PQPLAN_COST_MIN_NS ? PQPLAN_COST_MIN_NS : c->est_ns;
}
