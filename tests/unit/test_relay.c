// SPDX-License-Identifier: GPL-2.0
#include "unit.h"
#include "relay.h"

#define MS 1000000ull

START_TEST(backoff_doubles_to_the_bound)
{
	struct backoff b;
	uint64_t want[] = { 10, 20, 40, 80, 160, 200, 200 };

	backoff_init(&b, 10 * MS, 200 * MS);
	ck_assert(backoff_due(&b, 0));
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_uint_eq(backoff_fail(&b, 1000 * MS), want[i] * MS);
		ck_assert(!backoff_due(&b, 1000 * MS + want[i] * MS - 1));
		ck_assert(backoff_due(&b, 1000 * MS + want[i] * MS));
	}
	backoff_reset(&b);
	ck_assert(backoff_due(&b, 0));
	ck_assert_uint_eq(backoff_fail(&b, 0), 10 * MS);
}
END_TEST

START_TEST(backoff_odd_bound)
{
	struct backoff b;

	/* Doubling never passes the bound, even when it is no power of two. */
	backoff_init(&b, 3, 10);
	ck_assert_uint_eq(backoff_fail(&b, 0), 3);
	ck_assert_uint_eq(backoff_fail(&b, 0), 6);
	ck_assert_uint_eq(backoff_fail(&b, 0), 10);
	ck_assert_uint_eq(backoff_fail(&b, 0), 10);
	/* max below min: min wins */
	backoff_init(&b, 5, 1);
	ck_assert_uint_eq(backoff_fail(&b, 0), 5);
	ck_assert_uint_eq(backoff_fail(&b, 0), 5);
}
END_TEST

START_TEST(reply_matches_its_slot)
{
	ck_assert_int_eq(relay_reply_match(7, 1, 7, 8), RELAY_MATCH);
	ck_assert_int_eq(relay_reply_match(0, 1, 0, 1), RELAY_MATCH);
}
END_TEST

START_TEST(late_reply_does_not_complete_a_reused_slot)
{
	/* Request s timed out; s + 65536 now occupies the same slot. The
	 * late reply for s must not complete it. */
	uint64_t s = 5;

	ck_assert_int_eq(relay_reply_match(s, 1, s + 65536, s + 65537), RELAY_LATE);
	ck_assert_int_eq(relay_reply_match(s, 0, s, s + 65537), RELAY_LATE);
}
END_TEST

START_TEST(reply_never_sent)
{
	ck_assert_int_eq(relay_reply_match(8, 0, 0, 8), RELAY_BOGUS);
	ck_assert_int_eq(relay_reply_match(8 + 65536, 1, 8, 9), RELAY_BOGUS);
	ck_assert_int_eq(relay_reply_match(0, 0, 0, 0), RELAY_BOGUS);
}
END_TEST

Suite *relay_suite(void)
{
	Suite *s = suite_create("relay");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, backoff_doubles_to_the_bound);
	tcase_add_test(tc, backoff_odd_bound);
	tcase_add_test(tc, reply_matches_its_slot);
	tcase_add_test(tc, late_reply_does_not_complete_a_reused_slot);
	tcase_add_test(tc, reply_never_sent);
	suite_add_tcase(s, tc);
	return s;
}
