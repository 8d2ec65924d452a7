// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <string.h>
#include "unit.h"
#include "runcheck.h"

START_TEST(on_schedule)
{
	struct runcheck_in in = { 1000, 10, 50, 5000 };	/* 1 %, 1 % */
	char why[128];

	ck_assert_int_eq(runcheck_behind(&in, why, sizeof(why)), 0);
	ck_assert_str_eq(why, "");
}
END_TEST

START_TEST(too_many_late)
{
	struct runcheck_in in = { 1000, 11, 1, 5000 };
	char why[128];

	ck_assert_int_eq(runcheck_behind(&in, why, sizeof(why)), 1);
	ck_assert_ptr_nonnull(strstr(why, "1.1 % of sends late"));
}
END_TEST

START_TEST(p99_against_gap)
{
	/* The sweep that went unflagged: pacing p99 5 ms at 20 ms gaps is
	 * 25 %; 400 us at 5 ms is 8 % and passes; unknown gap: late only. */
	struct runcheck_in a = { 1000, 0, 5000, 20000 };
	struct runcheck_in b = { 1000, 0, 400, 5000 };
	struct runcheck_in c = { 1000, 0, 1e9, 0 };
	char why[128];

	ck_assert_int_eq(runcheck_behind(&a, why, sizeof(why)), 1);
	ck_assert_ptr_nonnull(strstr(why, "25 % of the mean gap"));
	ck_assert_int_eq(runcheck_behind(&b, why, sizeof(why)), 0);
	ck_assert_int_eq(runcheck_behind(&c, why, sizeof(why)), 0);
}
END_TEST

START_TEST(not_a_run)
{
	struct runcheck_in a = { 0, 0, 0, 1 }, b = { 5, 6, 0, 1 },
			   c = { 5, 0, NAN, 1 };

	ck_assert_int_eq(runcheck_behind(&a, NULL, 0), -EINVAL);
	ck_assert_int_eq(runcheck_behind(&b, NULL, 0), -EINVAL);
	ck_assert_int_eq(runcheck_behind(&c, NULL, 0), -EINVAL);
}
END_TEST

Suite *runcheck_suite(void)
{
	Suite *s = suite_create("runcheck");
	TCase *tc = tcase_create("rule");

	tcase_add_test(tc, on_schedule);
	tcase_add_test(tc, too_many_late);
	tcase_add_test(tc, p99_against_gap);
	tcase_add_test(tc, not_a_run);
	suite_add_tcase(s, tc);
	return s;
}
