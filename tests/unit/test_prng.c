// SPDX-License-Identifier: GPL-2.0
#include "unit.h"
#include "prng.h"

/*
 * Known answers for seed 0: splitmix64 from x = 0 gives the state words
 * e220a8397b1dcdaf 6e789e6aa1b965f4 06c45d188009454f f88bb8a8724c81ec
 * (Vigna's splitmix64.c), and xoshiro256** from that state.
 */
START_TEST(known_answers)
{
	struct prng p;

	prng_seed(&p, 0);
	ck_assert_uint_eq(p.s[0], 0xe220a8397b1dcdafull);
	ck_assert_uint_eq(p.s[1], 0x6e789e6aa1b965f4ull);
	ck_assert_uint_eq(p.s[2], 0x06c45d188009454full);
	ck_assert_uint_eq(p.s[3], 0xf88bb8a8724c81ecull);
	/* result = rotl(s1 * 5, 7) * 9 */
	uint64_t x = 0x6e789e6aa1b965f4ull * 5;
	uint64_t want = ((x << 7) | (x >> 57)) * 9;

	ck_assert_uint_eq(prng_next(&p), want);
}
END_TEST

START_TEST(reproducible_and_distinct)
{
	struct prng a, b, c;
	int differ = 0;

	prng_seed(&a, 42);
	prng_seed(&b, 42);
	prng_seed(&c, 43);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = prng_next(&a);

		ck_assert_uint_eq(x, prng_next(&b));
		differ += x != prng_next(&c);
	}
	ck_assert_int_gt(differ, 990);
}
END_TEST

START_TEST(uniform_ranges_and_mean)
{
	struct prng p;
	double sum = 0, sum0 = 0;
	const int n = 1000000;

	prng_seed(&p, 7);
	for (int i = 0; i < n; i++) {
		double u = prng_uniform_pos(&p), v = prng_uniform(&p);

		ck_assert(u > 0 && u <= 1);
		ck_assert(v >= 0 && v < 1);
		sum += u;
		sum0 += v;
	}
	ck_assert_double_eq_tol(sum / n, 0.5, 0.005);
	ck_assert_double_eq_tol(sum0 / n, 0.5, 0.005);
}
END_TEST

Suite *prng_suite(void)
{
	Suite *s = suite_create("prng");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, known_answers);
	tcase_add_test(tc, reproducible_and_distinct);
	tcase_add_test(tc, uniform_ranges_and_mean);
	suite_add_tcase(s, tc);
	return s;
}
