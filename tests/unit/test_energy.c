// SPDX-License-Identifier: GPL-2.0
/* lib/energy on a fake powercap tree: zones found, deltas, a wrap. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "energy.h"

static char root[PATH_MAX];

static void zone(const char *path, const char *name, const char *uj,
		 const char *max)
{
	char p[PATH_MAX + 128];

	snprintf(p, sizeof(p), "%s/class/powercap/%s", root, path);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	if (name) {
		snprintf(p, sizeof(p), "%s/class/powercap/%s/name", root, path);
		unit_put(p, name);
	}
	if (uj) {
		snprintf(p, sizeof(p), "%s/class/powercap/%s/energy_uj", root, path);
		unit_put(p, uj);
	}
	if (max) {
		snprintf(p, sizeof(p), "%s/class/powercap/%s/max_energy_range_uj", root, path);
		unit_put(p, max);
	}
}

static void set_uj(const char *path, const char *uj)
{
	char p[PATH_MAX + 128];

	snprintf(p, sizeof(p), "%s/class/powercap/%s/energy_uj", root, path);
	unit_put(p, uj);
}

static void make_root(int with_powercap)
{
	char p[PATH_MAX + 64];

	snprintf(root, sizeof(root), "/tmp/wb-energy.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	if (with_powercap) {
		snprintf(p, sizeof(p), "%s/class", root);
		mkdir(p, 0755);
		snprintf(p, sizeof(p), "%s/class/powercap", root);
		mkdir(p, 0755);
	}
	setenv("WAKEBENCH_SYSFS", root, 1);
}

START_TEST(delta_and_wrap)
{
	ck_assert_uint_eq(energy_delta_uj(100, 250, 1000), 150);
	ck_assert_uint_eq(energy_delta_uj(900, 100, 999), 200);	/* 900..999, 0..100 */
	ck_assert_uint_eq(energy_delta_uj(5, 5, 10), 0);
	/* no bound known: only what is visible after the wrap */
	ck_assert_uint_eq(energy_delta_uj(900, 100, 0), 100);
	ck_assert_uint_eq(energy_delta_uj(UINT64_MAX - 1, 1, UINT64_MAX), 3);
}
END_TEST

START_TEST(fake_tree)
{
	struct energy e;
	char msg[512];

	make_root(1);
	zone("intel-rapl", NULL, NULL, NULL);	/* the control type: no counter */
	zone("intel-rapl:0", "package-0", "262143000000", "262143328850");
	zone("intel-rapl:0:0", "core", "1000", "262143328850");
	zone("intel-rapl:0:2", "dram", "5000000", "65712999613");
	zone("intel-rapl:1", "package-1", "10", "1000");
	zone("intel-rapl-mmio:0", "package-0", "1", "2");	/* another driver */
	ck_assert_int_eq(energy_open(&e, msg, sizeof(msg)), 4);
	ck_assert_str_eq(e.z[0].path, "intel-rapl:0");
	ck_assert_str_eq(e.z[0].name, "package-0");
	ck_assert(e.z[0].package);
	ck_assert_str_eq(e.z[1].name, "core");
	ck_assert(!e.z[1].package);
	ck_assert_str_eq(e.z[3].path, "intel-rapl:1");
	ck_assert_int_eq(energy_start(&e, msg, sizeof(msg)), 0);
	/* package 0 wraps: 262143000000 .. 262143328850, then 0 .. 671149 */
	set_uj("intel-rapl:0", "671149");
	set_uj("intel-rapl:0:0", "501000");
	set_uj("intel-rapl:0:2", "7000000");
	set_uj("intel-rapl:1", "20");
	ck_assert_int_eq(energy_stop(&e, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(e.z[0].delta_uj, 1000000);
	ck_assert_uint_eq(e.z[1].delta_uj, 500000);
	ck_assert_uint_eq(e.z[2].delta_uj, 2000000);
	ck_assert_uint_eq(e.z[3].delta_uj, 10);
	/* the packages, not core or dram (inside or beside a package) */
	ck_assert(e.stop_ns >= e.start_ns);
	ck_assert_double_eq_tol(energy_total_j(&e), 1.00001, 1e-9);
	/* a counter gone during the run: an error naming it */
	zone("intel-rapl:2", "package-2", "1", "10");
	ck_assert_int_eq(energy_open(&e, msg, sizeof(msg)), 5);
	ck_assert_int_eq(energy_start(&e, msg, sizeof(msg)), 0);
	{
		char p[PATH_MAX + 128];

		snprintf(p, sizeof(p), "%s/class/powercap/intel-rapl:2/energy_uj", root);
		unlink(p);
	}
	ck_assert_int_lt(energy_stop(&e, msg, sizeof(msg)), 0);
	ck_assert_ptr_nonnull(strstr(msg, "intel-rapl:2/energy_uj"));
	unit_rmtree(root);
	unsetenv("WAKEBENCH_SYSFS");
}
END_TEST

START_TEST(no_rapl)
{
	struct energy e;
	char msg[512];

	make_root(0);
	ck_assert_int_eq(energy_open(&e, msg, sizeof(msg)), 0);
	ck_assert_ptr_nonnull(strstr(msg, "no RAPL energy counters here"));
	unit_rmtree(root);
	make_root(1);	/* powercap, but no RAPL zone with a counter */
	zone("intel-rapl:0", "package-0", NULL, "10");
	ck_assert_int_eq(energy_open(&e, msg, sizeof(msg)), 0);
	ck_assert_ptr_nonnull(strstr(msg, "no readable intel-rapl zone"));
	ck_assert_double_eq(energy_total_j(&e), 0);
	unit_rmtree(root);
	unsetenv("WAKEBENCH_SYSFS");
}
END_TEST

Suite *energy_suite(void)
{
	Suite *s = suite_create("energy");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, delta_and_wrap);
	tcase_add_test(tc, fake_tree);
	tcase_add_test(tc, no_rapl);
	suite_add_tcase(s, tc);
	return s;
}
