// SPDX-License-Identifier: GPL-2.0
/*
 * lib/energy on a fake powercap tree: zones found, deltas, a wrap; and on
 * a fake perf power PMU (fake sysfs, fake counters through perfpmu's ops):
 * discovery, the scale, packages summed, a refusal, an event the CPU does
 * not count, hostile sysfs values.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "energy.h"
#include "fake_perf.h"

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

/* 2^-32 J per count, the scale the kernel gives on most Intel parts */
#define SCALE "2.3283064365386962890625e-10"
#define TWO32 4294967296ull

/* A power PMU of type 4242 on packages 0 (CPUs 0-1) and 1 (CPUs 2-3). */
static void power_pmu(const char *cpumask)
{
	static const int pkg[] = { 0, 0, 1, 1 };

	fake_pmu(root, "power", "4242\n", cpumask);
	fake_pmu_format(root, "power", "event", "config:0-7\n");
	fake_pmu_event(root, "power", "energy-pkg", "event=0x02\n", SCALE "\n", "Joules\n");
	fake_pmu_event(root, "power", "energy-ram", "event=0x03\n", SCALE "\n", "Joules\n");
	fake_pmu_event(root, "power", "energy-cores", "event=0x01\n", SCALE "\n", "Joules\n");
	fake_topology(root, "0-3\n", pkg, 4);
}

/* package 0: 1 J; package 1: 0.5 J across the 64-bit wrap; dram 0.25 J
 * and 0; cores counted on package 0 only (so left out) */
static const struct fake_counter two_packages[] = {
	{ 4242, 0x02, 0, 0, 0, { 1000, 1000 + TWO32 } },
	{ 4242, 0x02, 2, 0, 0, { UINT64_MAX - 99, TWO32 / 2 - 100 } },
	{ 4242, 0x03, 0, 0, 0, { 0, TWO32 / 4 } },
	{ 4242, 0x03, 2, 0, 0, { 5, 5 } },
	{ 4242, 0x01, 0, 0, 0, { 0, 1 } },
	{ 4242, 0x01, 2, -ENOENT, 0, { 0, 0 } },
};

static void check_two_packages(const char *cpumask)
{
	struct energy e;
	char msg[1024];

	make_root(0);
	power_pmu(cpumask);
	fake_perf_install(two_packages, 6);
	ck_assert_int_eq(energy_open(&e, msg, sizeof(msg)), 4);
	ck_assert_int_eq(e.source, ENERGY_PERF);
	ck_assert_str_eq(energy_source_name(&e), "perf");
	/* the package event first; cores gone from both packages */
	ck_assert_str_eq(e.z[0].path, "energy-pkg:0");
	ck_assert_str_eq(e.z[0].name, "package-0");
	ck_assert(e.z[0].package);
	ck_assert_int_eq(e.z[0].cpu, 0);
	ck_assert_str_eq(e.z[1].path, "energy-pkg:1");
	ck_assert_str_eq(e.z[1].name, "package-1");
	ck_assert_int_eq(e.z[1].cpu, 2);
	ck_assert_str_eq(e.z[2].path, "energy-ram:0");
	ck_assert_str_eq(e.z[2].name, "dram");
	ck_assert(!e.z[2].package);
	ck_assert_str_eq(e.z[3].path, "energy-ram:1");
	ck_assert_int_eq(fake_perf_open_fds(), 4);
	ck_assert_int_eq(energy_start(&e, msg, sizeof(msg)), 0);
	fake_perf_phase(1);
	ck_assert_int_eq(energy_stop(&e, msg, sizeof(msg)), 0);
	ck_assert_double_eq(e.z[0].joules, 1.0);
	ck_assert_double_eq(e.z[1].joules, 0.5);
	ck_assert_double_eq(e.z[2].joules, 0.25);
	ck_assert_double_eq(e.z[3].joules, 0);
	ck_assert_uint_eq(e.z[0].delta_uj, 1000000);
	ck_assert_uint_eq(e.z[1].delta_count, TWO32 / 2);
	ck_assert_double_eq(energy_total_j(&e), 1.5);	/* packages, not dram */
	energy_close(&e);
	ck_assert_int_eq(fake_perf_open_fds(), 0);
	energy_close(&e);	/* twice: nothing more */
	ck_assert_double_eq(energy_total_j(&e), 1.5);	/* the figures stay */
	fake_perf_remove();
	unit_rmtree(root);
	unsetenv("WAKEBENCH_SYSFS");
}

START_TEST(perf_packages)
{
	check_two_packages("0,2\n");	/* the PMU's cpumask */
	check_two_packages(NULL);	/* none: the topology's packages */
}
END_TEST

/* What energy_open says with these counters on the power PMU. */
static int perf_msg(const struct fake_counter *c, int n, char *msg, size_t len)
{
	struct energy e;
	int ret;

	make_root(0);
	power_pmu("0,2\n");
	fake_perf_install(c, n);
	ret = energy_open(&e, msg, len);
	ck_assert_int_eq(fake_perf_open_fds(), 0);	/* nothing left open */
	energy_close(&e);
	fake_perf_remove();
	unit_rmtree(root);
	unsetenv("WAKEBENCH_SYSFS");
	return ret;
}

START_TEST(perf_refused_or_absent)
{
	struct fake_counter c[6];
	char msg[1024];

	/* perf_event_paranoid: the whole PMU out, saying what lifts it */
	memcpy(c, two_packages, sizeof(c));
	c[0].open_err = -EACCES;
	ck_assert_int_eq(perf_msg(c, 6, msg, sizeof(msg)), 0);
	ck_assert_ptr_nonnull(strstr(msg, "no RAPL energy counters here ("));
	ck_assert_ptr_nonnull(strstr(msg, "perf power/energy-pkg/: not permitted (perf_event_paranoid is "));
	ck_assert_ptr_nonnull(strstr(msg, "CAP_PERFMON"));
	c[0].open_err = 0;
	c[1].open_err = -EPERM;	/* the second package refused */
	ck_assert_int_eq(perf_msg(c, 6, msg, sizeof(msg)), 0);
	ck_assert_ptr_nonnull(strstr(msg, "not permitted"));
	/* no package counter on one package: no package figure at all */
	c[1].open_err = -ENOENT;
	ck_assert_int_eq(perf_msg(c, 6, msg, sizeof(msg)), 0);
	ck_assert_ptr_nonnull(strstr(msg, "perf power/energy-pkg/ on CPU 2: the CPU does not count it"));
	/* no power PMU, no powercap: both said */
	make_root(0);
	{
		struct energy e;

		fake_perf_install(c, 0);
		ck_assert_int_eq(energy_open(&e, msg, sizeof(msg)), 0);
		ck_assert_int_eq(fake_perf_opens(), 0);
		ck_assert_str_eq(energy_source_name(&e), "none");
		fake_perf_remove();
	}
	ck_assert_ptr_nonnull(strstr(msg, "no RAPL energy counters here (no "));
	ck_assert_ptr_nonnull(strstr(msg, "/class/powercap; no perf power PMU)"));
	unit_rmtree(root);
	unsetenv("WAKEBENCH_SYSFS");
}
END_TEST

START_TEST(perf_read_fails)
{
	struct fake_counter c[6];
	struct energy e;
	char msg[1024];

	memcpy(c, two_packages, sizeof(c));
	c[1].read_err = -ENODEV;
	make_root(0);
	power_pmu("0,2\n");
	fake_perf_install(c, 6);
	ck_assert_int_eq(energy_open(&e, msg, sizeof(msg)), 4);
	ck_assert_int_lt(energy_start(&e, msg, sizeof(msg)), 0);
	ck_assert_ptr_nonnull(strstr(msg, "cannot read perf power/energy-pkg:1/ on CPU 2"));
	energy_close(&e);
	ck_assert_int_eq(fake_perf_open_fds(), 0);
	fake_perf_remove();
	unit_rmtree(root);
	unsetenv("WAKEBENCH_SYSFS");
}
END_TEST

START_TEST(powercap_first)
{
	struct energy e;
	char msg[512];

	make_root(1);
	zone("intel-rapl:0", "package-0", "10", "1000");
	power_pmu("0,2\n");
	fake_perf_install(two_packages, 6);
	ck_assert_int_eq(energy_open(&e, msg, sizeof(msg)), 1);
	ck_assert_str_eq(energy_source_name(&e), "powercap");
	ck_assert_int_eq(fake_perf_opens(), 0);
	energy_close(&e);
	/* a powercap tree with no package zone readable: perf's turn */
	unit_rmtree(root);
	make_root(1);
	zone("intel-rapl:0", "package-0", NULL, "1000");
	zone("intel-rapl:0:0", "dram", "10", "1000");
	power_pmu("0,2\n");
	fake_perf_install(two_packages, 6);
	ck_assert_int_eq(energy_open(&e, msg, sizeof(msg)), 4);
	ck_assert_str_eq(energy_source_name(&e), "perf");
	energy_close(&e);
	fake_perf_remove();
	unit_rmtree(root);
	unsetenv("WAKEBENCH_SYSFS");
}
END_TEST

/* One hostile sysfs value: the file, the value, what the error says. */
static const struct {
	const char *rel, *val, *says;
} hostile[] = {
	{ "type", "12a", "'12a' is not a PMU type" },
	{ "type", "99999999999", "is not a PMU type" },
	{ "type", "", "is not a PMU type" },
	{ "events/energy-pkg", "event=0xZZ", "bad term 'event=0xZZ'" },
	{ "events/energy-pkg", "event=0x1ff", "does not fit its format 'config:0-7'" },
	{ "events/energy-pkg", "event=-1", "bad term" },
	{ "events/energy-pkg", "umask=0x1", "term 'umask' has no format file" },
	{ "events/energy-pkg", "event=0x02,../x=1", "bad term" },
	{ "events/energy-pkg", "", "empty" },
	{ "events/energy-pkg", "event=0x000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002",
	  "too long" },
	{ "format/event", "config:0-99", "does not fit its format" },
	{ "format/event", "cfg:0-7", "does not fit its format" },
	{ "events/energy-pkg.scale", "abc", "'abc' is not a scale" },
	{ "events/energy-pkg.scale", "-1", "is not a scale" },
	{ "events/energy-pkg.scale", "0", "is not a scale" },
	{ "events/energy-pkg.scale", "inf", "is not a scale" },
	{ "events/energy-pkg.scale", "nan", "is not a scale" },
	{ "events/energy-pkg.scale", "1e999", "is not a scale" },
	{ "events/energy-pkg.scale", "2.3e-10x", "is not a scale" },
	{ "events/energy-pkg.scale", " 1", "is not a scale" },
	{ "events/energy-pkg.unit", "Watts", "its unit is not Joules" },
	{ "events/energy-pkg.unit", "Jou\x01les", "is not a unit" },
	{ "cpumask", "0-", "is not a CPU list" },
	{ "cpumask", "99999999", "is not a CPU list" },
	{ "cpumask", "x", "is not a CPU list" },
};

START_TEST(perf_hostile)
{
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		char p[PATH_MAX + 128], msg[1024];
		struct energy e;

		make_root(0);
		power_pmu("0,2\n");
		snprintf(p, sizeof(p), "%s/bus/event_source/devices/power/%s", root,
			 hostile[i].rel);
		unit_put(p, hostile[i].val);
		fake_perf_install(two_packages, 6);
		ck_assert_msg(energy_open(&e, msg, sizeof(msg)) == -EINVAL,
			      "%s = '%s' accepted", hostile[i].rel, hostile[i].val);
		ck_assert_msg(strstr(msg, hostile[i].says) != NULL,
			      "%s = '%s': '%s' does not say '%s'", hostile[i].rel,
			      hostile[i].val, msg, hostile[i].says);
		ck_assert_ptr_nonnull(strstr(msg, "perf power PMU: "));
		ck_assert_int_eq(fake_perf_open_fds(), 0);
		fake_perf_remove();
		unit_rmtree(root);
	}
	/* no scale at all: counts in unknown units */
	{
		char p[PATH_MAX + 128], msg[1024];
		struct energy e;

		make_root(0);
		power_pmu("0,2\n");
		snprintf(p, sizeof(p), "%s/bus/event_source/devices/power/events/energy-pkg.scale",
			 root);
		unlink(p);
		fake_perf_install(two_packages, 6);
		ck_assert_int_eq(energy_open(&e, msg, sizeof(msg)), -EINVAL);
		ck_assert_ptr_nonnull(strstr(msg, "power/energy-pkg/: no scale"));
		/* no cpumask and a topology that does not parse */
		snprintf(p, sizeof(p), "%s/bus/event_source/devices/power/cpumask", root);
		unlink(p);
		power_pmu(NULL);
		snprintf(p, sizeof(p), "%s/devices/system/cpu/cpu2/topology/physical_package_id",
			 root);
		unit_put(p, "two");
		ck_assert_int_lt(energy_open(&e, msg, sizeof(msg)), 0);
		ck_assert_ptr_nonnull(strstr(msg, "cpu2/topology/physical_package_id: not a package number"));
		ck_assert_int_eq(fake_perf_open_fds(), 0);
		fake_perf_remove();
		unit_rmtree(root);
	}
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
	tcase_add_test(tc, perf_packages);
	tcase_add_test(tc, perf_refused_or_absent);
	tcase_add_test(tc, perf_read_fails);
	tcase_add_test(tc, powercap_first);
	tcase_add_test(tc, perf_hostile);
	suite_add_tcase(s, tc);
	return s;
}
