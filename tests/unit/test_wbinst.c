// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "wbinst.h"

static void fake_proc(const char *root, int pid, const char *comm)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%d/comm", root, pid);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", comm);
	fclose(f);
}

START_TEST(names)
{
	ck_assert_int_eq(wbinst_pid("wakebench-1234"), 1234);
	ck_assert_int_eq(wbinst_pid("wakebench-0"), -1);
	ck_assert_int_eq(wbinst_pid("wakebench-"), -1);
	ck_assert_int_eq(wbinst_pid("wakebench-12x"), -1);
	ck_assert_int_eq(wbinst_pid("wakebench--1"), -1);
	ck_assert_int_eq(wbinst_pid("wakebench-99999999999"), -1);
	ck_assert_int_eq(wbinst_pid("other-1234"), -1);
	ck_assert_int_eq(wbinst_pid("xwakebench-1"), -1);
}
END_TEST

START_TEST(stale_owners)
{
	char root[] = "/tmp/wbinst.XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(root));
	fake_proc(root, 100, WBINST_OWNER_COMM);	/* a live record */
	fake_proc(root, 200, "bash");			/* PID reused */
	ck_assert_int_eq(wbinst_stale("wakebench-100", root, 1), 0);
	ck_assert_int_eq(wbinst_stale("wakebench-200", root, 1), 1);
	ck_assert_int_eq(wbinst_stale("wakebench-300", root, 1), 1);	/* gone */
	ck_assert_int_eq(wbinst_stale("wakebench-100", root, 100), 1);	/* ours, early */
	ck_assert_int_eq(wbinst_stale("someone-else", root, 1), 0);
	ck_assert_int_eq(unit_rmtree(root), 0);
}
END_TEST

Suite *wbinst_suite(void)
{
	Suite *s = suite_create("wbinst");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, names);
	tcase_add_test(tc, stale_owners);
	suite_add_tcase(s, tc);
	return s;
}
