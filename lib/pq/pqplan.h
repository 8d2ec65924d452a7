/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pqplan: when the client's pre-query for one request leaves
 * (DESIGN.md "Pre-query", "Pre-query timing modes", mode `lead`).
 *
 * A request is due at send_ns; the previous one was due at prev_ns (the
 * gap is send_ns - prev_ns); the lead is L (lead_ns). The send cost C
 * (cost_ns) is what the send() of a pre-query sent alone takes on this
 * host, measured during the run (pqplan_cost_*). It is larger than a
 * request's: on loopback the pre-query's send() also wakes the server.
 *
 *   in-band (pre-query on the request's connection):
 *     gap < L            SKIP      (the thesis' rule: it would have to
 *                                   leave before the previous request)
 *     L < C              TOGETHER  pre-query and request leave in one
 *                                  send(), at send_ns; effective lead 0
 *     otherwise          AHEAD     alone at send_ns - L
 *   pre-query port (its own connection, so always its own send()):
 *     gap < max(L, C)    SKIP
 *     otherwise          AHEAD     alone at send_ns - max(L, C): when L
 *                                  is shorter than a send, it leaves one
 *                                  send cost ahead and the request goes
 *                                  right after it, back to back
 *
 * In no case does the request wait for its pre-query's send(): a
 * pre-query that leaves alone is planned at least one send cost ahead.
 * When the client reaches a planned AHEAD pre-query too late to send it
 * alone before the request (more than PQPLAN_ONTIME_NS after its plan and
 * less than C left, pqplan_fits()), an in-band
 * one goes TOGETHER with the request and a pre-query-port one is skipped.
 *
 * A pre-query is late when it left more than the --late-us threshold after
 * its planned time (at_ns: send_ns - L or send_ns - C for AHEAD, send_ns
 * for TOGETHER). Its effective lead is request sent - pre-query sent.
 */
#ifndef WB_PQPLAN_H
#define WB_PQPLAN_H

#include <stddef.h>
#include <stdint.h>

/* The send cost assumed before the first send was measured. */
#define PQPLAN_COST_INITIAL_NS 20000ull
/* Floor of the send-cost estimate. */
#define PQPLAN_COST_MIN_NS 1000ull
/* A pre-query this close after its planned time is on time. */
#define PQPLAN_ONTIME_NS 1000ull
/* The estimate is the median of the last PQPLAN_COST_WINDOW sends. */
#define PQPLAN_COST_WINDOW 15

enum pqplan_action {
	PQPLAN_SKIP,
	PQPLAN_AHEAD,		/* alone, at at_ns */
	PQPLAN_TOGETHER,	/* in the request's send(), at send_ns */
};

struct pqplan {
	enum pqplan_action action;
	uint64_t at_ns;		/* planned pre-query send time (not SKIP) */
	int by_cost;		/* SKIP only because of the send cost (the
				 * gap is not shorter than the lead) */
};

/* Plans the pre-query of a request due at send_ns >= prev_ns. */
struct pqplan pqplan_decide(uint64_t prev_ns, uint64_t send_ns,
			    uint64_t lead_ns, uint64_t cost_ns, int in_band);

/*
 * The pre-query timing modes (DESIGN.md "Pre-query timing modes",
 * client --prequery-at). LEAD is pqplan_decide() above. The two others
 * are what the thesis' code did:
 *
 *   GAP_START    gap <= L: SKIP; else AHEAD at prev_ns, the start of the
 *                gap (just after the previous request was sent, or its
 *                reply came in closed loop). L decides only the skip.
 *   SLEEP_AFTER  AHEAD at send_ns - L, never skipped, and always sent
 *                alone, then the request L later: the schedule's gaps
 *                are each lengthened by L (the thesis' first version,
 *                where L adds to the gap), so the pre-query leaves at
 *                the drawn send time. A pre-query send() that takes
 *                longer than L delays its request, as it did there.
 *
 * With GAP_START, the run-time rule of pqplan_fits() still holds (a
 * pre-query reached too late to go alone never delays its request);
 * SLEEP_AFTER has none (pqplan_at_strict()).
 */
enum pqplan_at {
	PQPLAN_AT_LEAD = 0,
	PQPLAN_AT_GAP_START,
	PQPLAN_AT_SLEEP_AFTER,
};

struct pqplan pqplan_decide_at(enum pqplan_at at, uint64_t prev_ns,
			       uint64_t send_ns, uint64_t lead_ns,
			       uint64_t cost_ns, int in_band);
/* 1 when the mode sends its pre-query alone however late it is reached. */
static inline int pqplan_at_strict(enum pqplan_at at)
{
	return at == PQPLAN_AT_SLEEP_AFTER;
}
/* "lead", "gap-start", "sleep-after" */
const char *pqplan_at_name(enum pqplan_at at);

/*
 * 1 when a pre-query planned at at_ns (AHEAD) may still go alone at now_ns:
 * it is on time (at most PQPLAN_ONTIME_NS after its plan, the clock
 * wait's granularity) or one send cost still fits before send_ns.
 */
int pqplan_fits(uint64_t now_ns, uint64_t at_ns, uint64_t send_ns,
		uint64_t cost_ns);

/* 1 when a pre-query planned at plan_ns and sent at sent_ns is late. */
int pqplan_late(uint64_t plan_ns, uint64_t sent_ns, uint64_t late_ns);

/* Effective lead request sent - pre-query sent (0 if the order is odd). */
uint64_t pqplan_effective_lead(uint64_t prequery_sent_ns,
			       uint64_t request_sent_ns);

/*
 * Running estimate of what a send() that carries a pre-query costs: the
 * median of the last PQPLAN_COST_WINDOW such sends, alone or together
 * with their request (both wake the server the same way). A median, not a
 * mean: one send stalled by the host (hundreds of us on a VM), or a cold
 * first send, must not push the estimate above the lead, since every
 * pre-query would then go together with its request and the estimate
 * would only be fed the sends that decided it. Every pre-query send is a
 * sample, so the estimate follows the host either way.
 */
struct pqplan_cost {
	uint64_t ring[PQPLAN_COST_WINDOW];
	uint64_t samples;
	uint64_t est_ns;	/* the median, kept by pqplan_cost_add so the
				 * planning before each send only reads it */
};

void pqplan_cost_init(struct pqplan_cost *c);
/* Adds one measured send() duration. */
void pqplan_cost_add(struct pqplan_cost *c, uint64_t ns);
/*
 * A pre-query skipped by_cost, or one on its own connection missed (the
 * client reached its plan too late, pqplan_fits): the estimate relaxes toward
 * PQPLAN_COST_INITIAL_NS, one sample of it a skip. Pre-query sends are
 * the only samples, so an estimate above every gap (a cold first send of
 * 600 us under ASan) would otherwise skip every later pre-query of the
 * run and never be measured again; so would an estimate above the lead
 * that plans each pre-query exactly one estimate ahead, where a wake-up
 * 2 us late misses it.
 */
void pqplan_cost_relax(struct pqplan_cost *c);
/* The estimate (PQPLAN_COST_INITIAL_NS before the first sample), never
 * below PQPLAN_COST_MIN_NS. */
uint64_t pqplan_cost_ns(const struct pqplan_cost *c);

#endif
