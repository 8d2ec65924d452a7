// SPDX-License-Identifier: GPL-2.0
/* Attribution of requests to the C-state their core was in. */
#include <stdlib.h>
#include "unit.h"
#include "attrib.h"

static void idle(struct timeline *t, uint64_t ts, uint32_t state)
{
	struct tl_event e = { .ts = ts, .cpu = 0, .type = TL_IDLE, .arg = state };

	ck_assert_int_eq(timeline_add(t, &e), 0);
}

/*
 * cpu0: idle state 1 on [100, 200), C0 [200, 300), state 2 [300, 500),
 * C0 [500, 520), state 1 [520, 600), C0 from 600.
 */
static struct timeline *sample(void)
{
	struct timeline *t = timeline_new(1, 0);

	idle(t, 50, TL_EXIT);
	idle(t, 100, 1);
	idle(t, 200, TL_EXIT);
	idle(t, 300, 2);
	idle(t, 500, TL_EXIT);
	idle(t, 520, 1);
	idle(t, 600, TL_EXIT);
	timeline_finish(t, 1000);
	return t;
}

START_TEST(state_at_arrival)
{
	struct timeline *t = sample();
	struct attr_msg m[] = {
		{ .seq = 1, .recv_ns = 210, .send_ns = 250 },	/* woke at 200 */
		{ .seq = 2, .recv_ns = 260, .send_ns = 280 },	/* still awake */
		{ .seq = 3, .recv_ns = 505, .send_ns = 510 },	/* woke at 500 */
		{ .seq = 4, .recv_ns = 700, .send_ns = 710 },	/* woke at 600 */
	};
	struct attr_result r[4];

	ck_assert_uint_eq(attrib_run(t, 0, m, 4, r), 4);
	ck_assert_int_eq(r[0].state, 1);
	ck_assert_uint_eq(r[0].idle_end_ns, 200);
	ck_assert_uint_eq(r[0].exit_to_recv_ns, 10);
	ck_assert_int_eq(r[1].state, TL_C0);
	ck_assert_uint_eq(r[1].idle_end_ns, 0);
	ck_assert_int_eq(r[2].state, 2);
	ck_assert_uint_eq(r[2].exit_to_recv_ns, 5);
	ck_assert_int_eq(r[3].state, 1);
	ck_assert_uint_eq(r[3].idle_end_ns, 600);
	timeline_free(t);
}
END_TEST

/* Receive exactly at the idle exit, and a previous send exactly at an
 * exit: boundaries belong to the later interval. */
START_TEST(interval_boundaries)
{
	struct timeline *t = sample();
	struct attr_msg m[] = {
		{ .seq = 1, .recv_ns = 200, .send_ns = 500 },	/* at the exit */
		{ .seq = 2, .recv_ns = 505, .send_ns = 506 },	/* woke at 500 = prev send */
	};
	struct attr_result r[2];

	ck_assert_uint_eq(attrib_run(t, 0, m, 2, r), 2);
	ck_assert_int_eq(r[0].state, 1);
	ck_assert_uint_eq(r[0].exit_to_recv_ns, 0);
	/* The idle period [300, 500) ended at the previous activity, not
	 * after it: the core was not woken for message 2. */
	ck_assert_int_eq(r[1].state, TL_C0);
	timeline_free(t);
}
END_TEST

START_TEST(prequery_woke_the_core)
{
	struct timeline *t = sample();
	struct attr_msg m[] = {
		{ .seq = 7, .prequery = 1, .recv_ns = 205 },	/* woke at 200 */
		{ .seq = 7, .recv_ns = 240, .send_ns = 250 },	/* core awake */
		{ .seq = 8, .prequery = 1, .recv_ns = 270 },	/* core awake */
		{ .seq = 8, .recv_ns = 505, .send_ns = 510 },	/* slept again */
		{ .seq = 9, .recv_ns = 605, .send_ns = 610 },	/* no pre-query */
	};
	struct attr_result r[3];

	ck_assert_uint_eq(attrib_run(t, 0, m, 5, r), 3);
	ck_assert_int_eq(r[0].state, TL_C0);
	ck_assert_int_eq(r[0].prequery_woke, 1);
	ck_assert_int_eq(r[0].prequery, ATTR_PQ_WOKE);
	ck_assert_int_eq(r[1].state, 2);	/* pre-query too early */
	ck_assert_int_eq(r[1].prequery_woke, 0);
	ck_assert_int_eq(r[1].prequery, ATTR_PQ_AWAKE);
	ck_assert_int_eq(r[2].prequery_woke, 0);
	ck_assert_int_eq(r[2].prequery, ATTR_PQ_NONE);
	timeline_free(t);
}
END_TEST

/* Before the first event the state is unknown, and reported so. */
START_TEST(unknown_before_first_event)
{
	struct timeline *t = timeline_new(1, 0);
	struct attr_msg m = { .seq = 1, .recv_ns = 30, .send_ns = 35 };
	struct attr_result r;

	idle(t, 20, TL_EXIT);
	timeline_finish(t, 100);
	ck_assert_uint_eq(attrib_run(t, 0, &m, 1, &r), 1);
	ck_assert_int_eq(r.state, TL_UNKNOWN);
	ck_assert_uint_eq(r.idle_end_ns, 20);
	timeline_free(t);
}
END_TEST


/*
 * An in-band pre-query and its request read by one read(): one receive
 * time. The pre-query gave no head start: "together", not woke, and the
 * request is given the state the pair found (idle state 1, left at 200).
 */
START_TEST(prequery_together_in_one_read)
{
	struct timeline *t = sample();
	struct attr_msg m[] = {
		{ .seq = 7, .prequery = 1, .recv_ns = 210 },
		{ .seq = 7, .recv_ns = 210, .send_ns = 250 },
		/* the request logged first, its pre-query after it */
		{ .seq = 8, .recv_ns = 505, .send_ns = 510 },
		{ .seq = 8, .prequery = 1, .recv_ns = 505 },
	};
	struct attr_result r[2];

	ck_assert_uint_eq(attrib_run(t, 0, m, 4, r), 2);
	ck_assert_int_eq(r[0].prequery, ATTR_PQ_TOGETHER);
	ck_assert_int_eq(r[0].prequery_woke, 0);
	ck_assert_int_eq(r[0].state, 1);
	ck_assert_uint_eq(r[0].idle_end_ns, 200);
	ck_assert_uint_eq(r[0].exit_to_recv_ns, 10);
	ck_assert_int_eq(r[1].prequery, ATTR_PQ_TOGETHER);
	ck_assert_int_eq(r[1].prequery_woke, 0);
	ck_assert_int_eq(r[1].state, 2);
	ck_assert_str_eq(attrib_pq_name(ATTR_PQ_TOGETHER), "together");
	ck_assert_str_eq(attrib_pq_name(ATTR_PQ_WOKE), "woke");
	timeline_free(t);
}
END_TEST

/*
 * Read together but sent apart: the demo's 100 us pre-query reached a
 * core that took longer than that to wake, so the server read pre-query
 * and request at once; the pre-query still began the wake. Only the
 * client's effective lead tells the two cases apart.
 */
START_TEST(together_but_sent_apart_woke)
{
	struct timeline *t = sample();
	struct attr_msg m[] = {
		{ .seq = 7, .prequery = 1, .recv_ns = 210 },
		{ .seq = 7, .recv_ns = 210, .send_ns = 250 },
		{ .seq = 8, .prequery = 1, .recv_ns = 505 },
		{ .seq = 8, .recv_ns = 505, .send_ns = 510 },
	};
	struct attr_result r[2], c0 = { .state = TL_C0,
					.prequery = ATTR_PQ_TOGETHER };

	ck_assert_uint_eq(attrib_run(t, 0, m, 4, r), 2);
	attrib_client_lead(&r[0], 100000);	/* sent 100 us apart */
	ck_assert_int_eq(r[0].prequery, ATTR_PQ_WOKE);
	ck_assert_int_eq(r[0].prequery_woke, 1);
	attrib_client_lead(&r[1], 0);		/* sent in one send() */
	ck_assert_int_eq(r[1].prequery, ATTR_PQ_TOGETHER);
	ck_assert_int_eq(r[1].prequery_woke, 0);
	attrib_client_lead(&c0, 100000);	/* the core was up: no wake */
	ck_assert_int_eq(c0.prequery, ATTR_PQ_TOGETHER);
	timeline_free(t);
}
END_TEST

/*
 * Sorting by receive time keeps the log order among equal times (qsort
 * does not: with half the rows tied, as at lead 0, it reorders them).
 */
START_TEST(sort_keeps_log_order_on_ties)
{
	enum { N = 1000 };
	struct attr_msg *m = malloc(N * sizeof(*m));

	ck_assert_ptr_nonnull(m);
	/* Pairs (pre-query, request) with one time, in falling time order
	 * by blocks so the sort has to move them. */
	for (int i = 0; i < N; i++)
		m[i] = (struct attr_msg){ .seq = (uint64_t)i,
					  .prequery = !(i & 1),
					  .recv_ns = 1000000 - (uint64_t)(i / 2) % 7 * 1000 };
	ck_assert_int_eq(attrib_sort(m, N), 0);
	for (int i = 1; i < N; i++) {
		ck_assert_uint_le(m[i - 1].recv_ns, m[i].recv_ns);
		if (m[i - 1].recv_ns == m[i].recv_ns)
			ck_assert_uint_lt(m[i - 1].seq, m[i].seq);
	}
	ck_assert_int_eq(attrib_sort(m, 0), 0);
	ck_assert_int_eq(attrib_sort(m, 1), 0);
	free(m);
}
END_TEST

/* The result after sorting a tied log: every request of a pair read by
 * one read() is "together" whatever order the log had them in. */
START_TEST(tied_pairs_all_together)
{
	enum { N = 400 };
	struct timeline *t = sample();
	struct attr_msg *m = malloc(N * sizeof(*m));
	struct attr_result *r = malloc(N * sizeof(*r));
	size_t k;

	for (int i = 0; i < N; i++)
		m[i] = (struct attr_msg){ .seq = (uint64_t)(i / 2),
					  .prequery = !(i & 1),
					  .recv_ns = 700 + (uint64_t)(N / 2 - i / 2) * 3 };
	ck_assert_int_eq(attrib_sort(m, N), 0);
	k = attrib_run(t, 0, m, N, r);
	ck_assert_uint_eq(k, N / 2);
	for (size_t i = 0; i < k; i++) {
		ck_assert_int_eq(r[i].prequery, ATTR_PQ_TOGETHER);
		ck_assert_int_eq(r[i].prequery_woke, 0);
	}
	free(m);
	free(r);
	timeline_free(t);
}
END_TEST

Suite *attrib_suite(void)
{
	Suite *s = suite_create("attrib");
	TCase *tc = tcase_create("synthetic");

	tcase_add_test(tc, state_at_arrival);
	tcase_add_test(tc, interval_boundaries);
	tcase_add_test(tc, prequery_woke_the_core);
	tcase_add_test(tc, unknown_before_first_event);
	tcase_add_test(tc, prequery_together_in_one_read);
	tcase_add_test(tc, together_but_sent_apart_woke);
	tcase_add_test(tc, sort_keeps_log_order_on_ties);
	tcase_add_test(tc, tied_pairs_all_together);
	suite_add_tcase(s, tc);
	return s;
}
