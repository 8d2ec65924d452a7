// SPDX-License-Identifier: GPL-2.0
/* What a client summary counts: measured requests only, warm-up apart. */
#include "unit.h"
#include "tally.h"

START_TEST(warmup_not_counted)
{
	struct req_rec r[30] = { 0 };
	struct tally m, w;

	/* 10 warm-up + 20 measured, every one with a pre-query sent on time. */
	for (int i = 0; i < 30; i++) {
		r[i].intended_ns = 1000 * (uint64_t)(i + 1);
		r[i].sent_ns = r[i].intended_ns + 5;
		r[i].recv_ns = r[i].sent_ns + 100;
		r[i].pq = REQ_PQ_SENT;
		r[i].prequery_plan_ns = r[i].intended_ns - 50;
		r[i].prequery_sent_ns = r[i].prequery_plan_ns + 1;
	}
	/*
	 * measured: 3 skipped (one of them missed), 2 late pre-queries,
	 * 1 late send, 1 error, 1 lost
	 */
	r[10].pq = r[11].pq = REQ_PQ_SKIPPED;
	r[29].pq = REQ_PQ_MISSED;
	r[12].prequery_sent_ns = r[12].prequery_plan_ns + 11;
	r[13].prequery_sent_ns = r[13].prequery_plan_ns + 100;
	r[14].prequery_sent_ns = r[14].prequery_plan_ns + 10;	/* not late */
	r[15].sent_ns = r[15].intended_ns + 11;
	r[16].error = 1;
	r[17].recv_ns = 0;
	/* warm-up: 2 skipped, 1 late pre-query */
	r[0].pq = r[1].pq = REQ_PQ_SKIPPED;
	r[2].prequery_sent_ns = r[2].prequery_plan_ns + 1000;

	tally_run(r, 30, 10, 10, &m, &w);
	ck_assert_uint_eq(m.sent, 20);
	ck_assert_uint_eq(m.prequeries_sent, 17);
	ck_assert_uint_eq(m.prequeries_skipped, 3);
	ck_assert_uint_eq(m.prequeries_missed, 1);
	ck_assert_uint_eq(m.prequeries_sent + m.prequeries_skipped, 20);
	ck_assert_uint_eq(m.prequeries_late, 2);
	ck_assert_uint_eq(m.late, 1);
	ck_assert_uint_eq(m.errors, 1);
	ck_assert_uint_eq(m.unanswered, 1);
	ck_assert_uint_eq(m.ok, 18);
	ck_assert_uint_eq(w.sent, 10);
	ck_assert_uint_eq(w.prequeries_sent, 8);
	ck_assert_uint_eq(w.prequeries_skipped, 2);
	ck_assert_uint_eq(w.prequeries_missed, 0);
	ck_assert_uint_eq(w.prequeries_late, 1);
}
END_TEST

START_TEST(partial_and_off)
{
	struct req_rec r[5] = { 0 };
	struct tally m;

	/* pre-queries off: nothing counted as sent or skipped */
	for (int i = 0; i < 5; i++)
		r[i].sent_ns = r[i].intended_ns = 1, r[i].recv_ns = 2;
	tally_run(r, 5, 0, 10, &m, NULL);
	ck_assert_uint_eq(m.prequeries_sent + m.prequeries_skipped, 0);
	ck_assert_uint_eq(m.ok, 5);
	/* interrupted inside the warm-up: nothing measured */
	tally_run(r, 3, 4, 10, &m, NULL);
	ck_assert_uint_eq(m.sent, 0);
	/* only the sent ones count */
	tally_run(r, 3, 1, 10, &m, NULL);
	ck_assert_uint_eq(m.sent, 2);
}
END_TEST

/* The threads' tallies add up to the one of all their requests. */
START_TEST(merge_is_sum)
{
	struct req_rec r[40] = { 0 };
	struct tally all, part[2] = { { 0 } };

	for (int i = 0; i < 40; i++) {
		r[i].intended_ns = 1000 * (uint64_t)(i + 1);
		r[i].sent_ns = r[i].intended_ns + (i % 7 ? 1 : 50);
		r[i].recv_ns = i % 11 ? r[i].sent_ns + 10 : 0;
		r[i].error = i % 13 == 1;
		r[i].pq = i % 3 ? REQ_PQ_SENT : i % 2 ? REQ_PQ_SKIPPED : REQ_PQ_MISSED;
		r[i].prequery_plan_ns = r[i].intended_ns - 20;
		r[i].prequery_sent_ns = r[i].prequery_plan_ns + (i % 5 ? 1 : 30);
	}
	tally_run(r, 40, 0, 10, &all, NULL);
	for (int i = 0; i < 40; i++)
		tally_add(&part[i % 2], &r[i], 10);
	tally_merge(&part[0], &part[1]);
	ck_assert_mem_eq(&part[0], &all, sizeof(all));
}
END_TEST

Suite *tally_suite(void)
{
	Suite *s = suite_create("tally");
	TCase *tc = tcase_create("counts");

	tcase_add_test(tc, warmup_not_counted);
	tcase_add_test(tc, merge_is_sum);
	tcase_add_test(tc, partial_and_off);
	suite_add_tcase(s, tc);
	return s;
}
