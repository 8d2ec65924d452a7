// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include "unit.h"
#include "srvlimit.h"

START_TEST(fits_already)
{
	struct srv_fd_budget b;

	ck_assert_int_eq(srv_fd_budget(1024, 4096, 4096, &b), 0);
	ck_assert_uint_eq(b.soft, 4096);	/* never lowered */
	ck_assert_uint_eq(b.max_conns, 1024);
}
END_TEST

START_TEST(raise_soft)
{
	struct srv_fd_budget b;

	/* the usual 1024 soft limit under a high hard one */
	ck_assert_int_eq(srv_fd_budget(1024, 1024, 524288, &b), 0);
	ck_assert_uint_eq(b.soft, 1024 + SRV_FD_RESERVE);
	ck_assert_uint_eq(b.max_conns, 1024);
	ck_assert_int_eq(srv_fd_budget(1000000, 1024, UINT64_MAX, &b), 0);
	ck_assert_uint_eq(b.soft, 1000000 + SRV_FD_RESERVE);
}
END_TEST

START_TEST(lower_conns)
{
	struct srv_fd_budget b;

	/* ulimit -n 64: soft = hard = 64 */
	ck_assert_int_eq(srv_fd_budget(1024, 64, 64, &b), 1);
	ck_assert_uint_eq(b.soft, 64);
	ck_assert_uint_eq(b.max_conns, 64 - SRV_FD_RESERVE);
	/* raised to the hard limit, the rest does not fit */
	ck_assert_int_eq(srv_fd_budget(1024, 256, 512, &b), 1);
	ck_assert_uint_eq(b.soft, 512);
	ck_assert_uint_eq(b.max_conns, 512 - SRV_FD_RESERVE);
	/* hardly any fds: still one connection */
	ck_assert_int_eq(srv_fd_budget(10, 16, 16, &b), 1);
	ck_assert_uint_eq(b.max_conns, 1);
	/* exactly enough */
	ck_assert_int_eq(srv_fd_budget(32, 64, 64, &b), 0);
	ck_assert_uint_eq(b.max_conns, 32);
	/* a soft limit above the hard one is read as the hard one */
	ck_assert_int_eq(srv_fd_budget(100, 500, 100, &b), 1);
	ck_assert_uint_eq(b.soft, 100);
}
END_TEST

START_TEST(turns)
{
	ck_assert(!srv_turn_over(0, 0));
	ck_assert(!srv_turn_over(SRV_TURN_MSGS - 1, SRV_TURN_SERVICE_NS - 1));
	ck_assert(srv_turn_over(SRV_TURN_MSGS, 0));
	/* one 10 ms request is a whole turn */
	ck_assert(srv_turn_over(1, 10000000));
	ck_assert(srv_turn_over(10, SRV_TURN_SERVICE_NS));
}
END_TEST

Suite *srvlimit_suite(void)
{
	Suite *s = suite_create("srvlimit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, fits_already);
	tcase_add_test(tc, raise_soft);
	tcase_add_test(tc, lower_conns);
	tcase_add_test(tc, turns);
	suite_add_tcase(s, tc);
	return s;
}
