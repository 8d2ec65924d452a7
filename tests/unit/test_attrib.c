// SPDX-License-Identifier: GPL-2.0
/* Attribution of requests to the C-state their core was in. */
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
	ck_assert_int_eq(r[1].state, 2);	/* pre-query too early */
	ck_assert_int_eq(r[1].prequery_woke, 0);
	ck_assert_int_eq(r[2].prequery_woke, 0);
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

Suite *attrib_suite(void)
{
	Suite *s = suite_create("attrib");
	TCase *tc = tcase_create("synthetic");

	tcase_add_test(tc, state_at_arrival);
	tcase_add_test(tc, interval_boundaries);
	tcase_add_test(tc, prequery_woke_the_core);
	tcase_add_test(tc, unknown_before_first_event);
	suite_add_tcase(s, tc);
	return s;
}
