// SPDX-License-Identifier: GPL-2.0
/*
 * Pacing correctness (never earlier than the target) is tested here; how
 * close to the target each mode lands is a benchmark (bench/pacing.sh),
 * not a unit test, on a shared machine.
 */
#include "unit.h"
#include "clock.h"
#include <sys/prctl.h>

START_TEST(parse_modes)
{
	enum clock_wait w;

	ck_assert_int_eq(clock_wait_parse("spin", &w), 0);
	ck_assert_int_eq(w, WAIT_SPIN);
	ck_assert_int_eq(clock_wait_parse("sleep", &w), 0);
	ck_assert_int_eq(w, WAIT_SLEEP);
	ck_assert_int_eq(clock_wait_parse("hybrid", &w), 0);
	ck_assert_str_eq(clock_wait_name(w), "hybrid");
	ck_assert_int_eq(clock_wait_parse("Spin", &w), -1);
}
END_TEST

START_TEST(never_early)
{
	for (int mode = WAIT_SPIN; mode <= WAIT_HYBRID; mode++) {
		for (int i = 0; i < 50; i++) {
			uint64_t target = clock_now_ns() + 20000 + 3000 * i;
			uint64_t got = clock_wait_until(target, mode, 10000);

			ck_assert_uint_ge(got, target);
			ck_assert_uint_ge(clock_now_ns(), target);
		}
	}
	/* A target in the past returns at once. */
	ck_assert_uint_ge(clock_wait_until(1, WAIT_SLEEP, 0), 1);
}
END_TEST

START_TEST(timespec_conversion)
{
	struct timespec ts = clock_ts(5123456789ull);

	ck_assert_int_eq(ts.tv_sec, 5);
	ck_assert_int_eq(ts.tv_nsec, 123456789);
}
END_TEST

/* The client's sleeps are not rounded up by the default 50 us slack. */
START_TEST(tight_timers)
{
	ck_assert_int_eq(clock_tight_timers(), 0);
	ck_assert_int_eq(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), 1);
}
END_TEST

Suite *clock_suite(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, parse_modes);
	tcase_add_test(tc, never_early);
	tcase_add_test(tc, timespec_conversion);
	tcase_add_test(tc, tight_timers);
	suite_add_tcase(s, tc);
	return s;
}
