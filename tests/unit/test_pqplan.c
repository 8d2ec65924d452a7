// SPDX-License-Identifier: GPL-2.0
/* The client's pre-query plan: skip rule, planned time, send together,
 * lateness, effective lead and the send-cost estimate. */
#include "unit.h"
#include "pqplan.h"

#define US 1000ull

START_TEST(skip_when_gap_shorter_than_lead)
{
	/* gap 40 us, lead 50 us: would leave before the previous request */
	struct pqplan p = pqplan_decide(1000 * US, 1040 * US, 50 * US, 10 * US, 1);

	ck_assert_int_eq(p.action, PQPLAN_SKIP);
	/* gap equal to the lead: sent, at the previous request's time */
	p = pqplan_decide(1000 * US, 1050 * US, 50 * US, 10 * US, 1);
	ck_assert_int_eq(p.action, PQPLAN_AHEAD);
	ck_assert_uint_eq(p.at_ns, 1000 * US);
	/* lead 0 never skips, even for a zero gap */
	p = pqplan_decide(1000 * US, 1000 * US, 0, 10 * US, 1);
	ck_assert_int_eq(p.action, PQPLAN_TOGETHER);
}
END_TEST

START_TEST(ahead_at_send_minus_lead)
{
	struct pqplan p = pqplan_decide(0, 1000 * US, 50 * US, 10 * US, 1);

	ck_assert_int_eq(p.action, PQPLAN_AHEAD);
	ck_assert_uint_eq(p.at_ns, 950 * US);
	/* lead equal to the send cost: still alone (it ends as the request leaves) */
	p = pqplan_decide(0, 1000 * US, 10 * US, 10 * US, 1);
	ck_assert_int_eq(p.action, PQPLAN_AHEAD);
	ck_assert_uint_eq(p.at_ns, 990 * US);
}
END_TEST

START_TEST(short_lead_in_band_goes_together)
{
	/* The old client sent the pre-query alone and the request waited
	 * for that send(): lead 0 must go in the request's own send(). */
	struct pqplan p = pqplan_decide(0, 1000 * US, 0, 10 * US, 1);

	ck_assert_int_eq(p.action, PQPLAN_TOGETHER);
	ck_assert_uint_eq(p.at_ns, 1000 * US);
	p = pqplan_decide(0, 1000 * US, 9 * US, 10 * US, 1);
	ck_assert_int_eq(p.action, PQPLAN_TOGETHER);
}
END_TEST

START_TEST(short_lead_own_port_leaves_one_send_ahead)
{
	/* Its own connection: its own send(), one send cost ahead. */
	struct pqplan p = pqplan_decide(0, 1000 * US, 0, 12 * US, 0);

	ck_assert_int_eq(p.action, PQPLAN_AHEAD);
	ck_assert_uint_eq(p.at_ns, 988 * US);
	/* lead longer than the cost: the lead */
	p = pqplan_decide(0, 1000 * US, 30 * US, 12 * US, 0);
	ck_assert_uint_eq(p.at_ns, 970 * US);
	/* gap shorter than the send cost: skipped, not delaying the request */
	p = pqplan_decide(995 * US, 1000 * US, 0, 12 * US, 0);
	ck_assert_int_eq(p.action, PQPLAN_SKIP);
	/* gap shorter than the lead */
	p = pqplan_decide(980 * US, 1000 * US, 30 * US, 12 * US, 0);
	ck_assert_int_eq(p.action, PQPLAN_SKIP);
}
END_TEST

START_TEST(fits_late_and_lead)
{
	/* planned at 980, cost 10, due at 1000 */
	ck_assert(pqplan_fits(970 * US, 980 * US, 1000 * US, 10 * US));
	ck_assert(pqplan_fits(990 * US, 980 * US, 1000 * US, 10 * US));
	ck_assert(!pqplan_fits(991 * US, 980 * US, 1000 * US, 10 * US));
	ck_assert(!pqplan_fits(1001 * US, 980 * US, 1000 * US, 10 * US));
	/* planned one send cost ahead, reached within PQPLAN_ONTIME_NS: on time */
	ck_assert(pqplan_fits(990 * US + 500, 990 * US, 1000 * US, 10 * US));
	ck_assert(pqplan_fits(990 * US + PQPLAN_ONTIME_NS, 990 * US, 1000 * US, 10 * US));
	ck_assert(!pqplan_fits(990 * US + PQPLAN_ONTIME_NS + 1, 990 * US, 1000 * US, 10 * US));
	ck_assert(!pqplan_late(100 * US, 110 * US, 10 * US));
	ck_assert(pqplan_late(100 * US, 110 * US + 1, 10 * US));
	ck_assert(!pqplan_late(100 * US, 90 * US, 10 * US));
	ck_assert_uint_eq(pqplan_effective_lead(950 * US, 1000 * US), 50 * US);
	ck_assert_uint_eq(pqplan_effective_lead(1000 * US, 1000 * US), 0);
	ck_assert_uint_eq(pqplan_effective_lead(1001 * US, 1000 * US), 0);
}
END_TEST

START_TEST(cost_estimate)
{
	struct pqplan_cost c;

	pqplan_cost_init(&c);
	ck_assert_uint_eq(pqplan_cost_ns(&c), PQPLAN_COST_INITIAL_NS);
	pqplan_cost_add(&c, 8000);
	ck_assert_uint_eq(pqplan_cost_ns(&c), 8000);
	pqplan_cost_add(&c, 16000);	/* median of two: their mean */
	ck_assert_uint_eq(pqplan_cost_ns(&c), 12000);
	pqplan_cost_add(&c, 1000);
	ck_assert_uint_eq(pqplan_cost_ns(&c), 8000);
	for (int i = 0; i < PQPLAN_COST_WINDOW; i++)
		pqplan_cost_add(&c, 10);
	ck_assert_uint_eq(pqplan_cost_ns(&c), PQPLAN_COST_MIN_NS);
}
END_TEST

/*
 * The defect this estimator fixes: a cold first send of 400 us (or a host
 * stall) made the old running average exceed a 50 us lead, every later
 * pre-query went together with its request, and the estimate, fed only
 * by the sends it had chosen, stayed there: a 50 us pre-query run
 * measured no pre-query at all. With a median, one outlier in a window
 * of 35 us sends moves nothing, and a run of them is forgotten.
 */
/*
 * On its own connection a pre-query is skipped while the gap is shorter
 * than the send cost, and only sent pre-queries are measured: a cold
 * first send longer than every gap (600 us against 500 us gaps, seen
 * under ASan) skipped the other 299 of a run, and one of 400 us missed
 * them (each planned 400 us ahead, reached a little late). Skips for the
 * cost and misses relax the estimate; skips for the lead do not.
 */
START_TEST(cost_skips_relax_estimate)
{
	struct pqplan_cost c;
	struct pqplan p;
	int sent = 0;

	pqplan_cost_init(&c);
	pqplan_cost_add(&c, 600000);	/* the first send */
	for (uint64_t i = 1; i < 300; i++) {
		p = pqplan_decide(i * 500000, (i + 1) * 500000, 50000,
				  pqplan_cost_ns(&c), 0);
		if (p.action == PQPLAN_SKIP) {
			ck_assert(p.by_cost);
			pqplan_cost_relax(&c);
		} else {
			sent++;
			pqplan_cost_add(&c, 20000);
		}
	}
	ck_assert_int_ge(sent, 297);
	ck_assert_uint_le(pqplan_cost_ns(&c), PQPLAN_COST_INITIAL_NS);
	/* planned one estimate (400 us) ahead, every wake-up 2 us late:
	 * missed, so not measured, until the estimate relaxes */
	pqplan_cost_init(&c);
	pqplan_cost_add(&c, 400000);
	sent = 0;
	for (uint64_t i = 1; i < 300; i++) {
		uint64_t send = (i + 1) * 500000;

		p = pqplan_decide(i * 500000, send, 50000, pqplan_cost_ns(&c), 0);
		ck_assert_int_eq(p.action, PQPLAN_AHEAD);
		if (pqplan_fits(p.at_ns + 2000, p.at_ns, send, pqplan_cost_ns(&c))) {
			sent++;
			pqplan_cost_add(&c, 20000);
		} else {
			pqplan_cost_relax(&c);
		}
	}
	ck_assert_int_ge(sent, 297);
	/* a gap shorter than the lead: the thesis' skip, not the cost's */
	p = pqplan_decide(0, 40000, 50000, 10000, 0);
	ck_assert_int_eq(p.action, PQPLAN_SKIP);
	ck_assert(!p.by_cost);
	p = pqplan_decide(0, 40000, 50000, 10000, 1);
	ck_assert_int_eq(p.action, PQPLAN_SKIP);
	ck_assert(!p.by_cost);
}
END_TEST

START_TEST(cost_estimate_ignores_outliers)
{
	struct pqplan_cost c;
	struct pqplan p;

	pqplan_cost_init(&c);
	pqplan_cost_add(&c, 400000);		/* cold first send */
	for (int i = 0; i < 3; i++)
		pqplan_cost_add(&c, 35000);
	ck_assert_uint_eq(pqplan_cost_ns(&c), 35000);
	p = pqplan_decide(0, 5000000, 50000, pqplan_cost_ns(&c), 1);
	ck_assert_int_eq(p.action, PQPLAN_AHEAD);
	for (int i = 0; i < 5; i++)		/* stalls among normal sends */
		pqplan_cost_add(&c, i % 2 ? 900000 : 36000);
	ck_assert_uint_lt(pqplan_cost_ns(&c), 50000);
	for (int i = 0; i < PQPLAN_COST_WINDOW; i++)	/* a slower host */
		pqplan_cost_add(&c, 80000);
	ck_assert_uint_eq(pqplan_cost_ns(&c), 80000);
	for (int i = 0; i < PQPLAN_COST_WINDOW; i++)	/* and back */
		pqplan_cost_add(&c, 30000);
	ck_assert_uint_eq(pqplan_cost_ns(&c), 30000);
}
END_TEST

/* The thesis' two modes beside the default one. */
START_TEST(timing_modes)
{
	struct pqplan p;

	/* gap-start: at the gap's start; skipped when gap <= L */
	p = pqplan_decide_at(PQPLAN_AT_GAP_START, 1000000, 2000000, 50000,
			     20000, 1);
	ck_assert_int_eq(p.action, PQPLAN_AHEAD);
	ck_assert_uint_eq(p.at_ns, 1000000);
	p = pqplan_decide_at(PQPLAN_AT_GAP_START, 1000000, 1050000, 50000,
			     20000, 1);
	ck_assert_int_eq(p.action, PQPLAN_SKIP);
	/* a lead below the send cost does not make it go together */
	p = pqplan_decide_at(PQPLAN_AT_GAP_START, 1000000, 2000000, 0, 20000, 1);
	ck_assert_int_eq(p.action, PQPLAN_AHEAD);
	ck_assert_uint_eq(p.at_ns, 1000000);
	/* sleep-after: L before, never skipped, alone even when L < cost */
	p = pqplan_decide_at(PQPLAN_AT_SLEEP_AFTER, 1990000, 2000000, 50000,
			     20000, 1);
	ck_assert_int_eq(p.action, PQPLAN_AHEAD);
	ck_assert_uint_eq(p.at_ns, 1950000);
	p = pqplan_decide_at(PQPLAN_AT_SLEEP_AFTER, 0, 2000000, 1000, 20000, 1);
	ck_assert_int_eq(p.action, PQPLAN_AHEAD);
	ck_assert_uint_eq(p.at_ns, 1999000);
	ck_assert(pqplan_at_strict(PQPLAN_AT_SLEEP_AFTER));
	ck_assert(!pqplan_at_strict(PQPLAN_AT_GAP_START));
	/* lead: what pqplan_decide says */
	p = pqplan_decide_at(PQPLAN_AT_LEAD, 1000000, 2000000, 10000, 20000, 1);
	ck_assert_int_eq(p.action, PQPLAN_TOGETHER);
	ck_assert_str_eq(pqplan_at_name(PQPLAN_AT_GAP_START), "gap-start");
	ck_assert_str_eq(pqplan_at_name(PQPLAN_AT_SLEEP_AFTER), "sleep-after");
	ck_assert_str_eq(pqplan_at_name(PQPLAN_AT_LEAD), "lead");
}
END_TEST

Suite *pqplan_suite(void)
{
	Suite *s = suite_create("pqplan");
	TCase *tc = tcase_create("plan");

	tcase_add_test(tc, skip_when_gap_shorter_than_lead);
	tcase_add_test(tc, ahead_at_send_minus_lead);
	tcase_add_test(tc, short_lead_in_band_goes_together);
	tcase_add_test(tc, short_lead_own_port_leaves_one_send_ahead);
	tcase_add_test(tc, fits_late_and_lead);
	tcase_add_test(tc, cost_estimate);
	tcase_add_test(tc, cost_estimate_ignores_outliers);
	tcase_add_test(tc, cost_skips_relax_estimate);
	tcase_add_test(tc, timing_modes);
	suite_add_tcase(s, tc);
	return s;
}
