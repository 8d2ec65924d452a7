// SPDX-License-Identifier: GPL-2.0
/*
 * lib/perfpmu's sysfs parsing and lib/hwcstate on fake cstate_core,
 * cstate_pkg and msr PMUs with fake counters (perfpmu's ops): the shares
 * of msr/tsc, of rdtsc, unknown; a counter that does not open or read;
 * a refusal; hostile values. hw-residency.csv written and read back
 * strictly, and `perf stat -x,` output parsed (tests/fixtures/perf).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fake_perf.h"
#include "hwcstate.h"
#include "perfpmu.h"
#include "unit.h"

static char root[PATH_MAX];

static void make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/wb-hwc.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	setenv("WAKEBENCH_SYSFS", root, 1);
}

static void drop_root(void)
{
	fake_perf_remove();
	unit_rmtree(root);
	unsetenv("WAKEBENCH_SYSFS");
}

START_TEST(pmu_events)
{
	struct perfpmu_event ev;
	char names[8][PERFPMU_NAME_LEN], err[600];
	int cpus[8];
	uint32_t type;

	make_root();
	fake_pmu(root, "cpu_x", "7\n", "0-2,5\n");
	fake_pmu_format(root, "cpu_x", "event", "config:0-7\n");
	fake_pmu_format(root, "cpu_x", "umask", "config:8-15\n");
	fake_pmu_format(root, "cpu_x", "edge", "config:18\n");
	fake_pmu_format(root, "cpu_x", "ldlat", "config1:0-15\n");
	fake_pmu_format(root, "cpu_x", "split", "config:32-35,40-43\n");
	fake_pmu_event(root, "cpu_x", "loads", "event=0xd0,umask=0x81,edge,ldlat=3,split=0xab\n",
		       NULL, NULL);
	ck_assert_int_eq(perfpmu_type("cpu_x", &type, err, sizeof(err)), 0);
	ck_assert_uint_eq(type, 7);
	ck_assert_int_eq(perfpmu_event("cpu_x", "loads", &ev, err, sizeof(err)), 0);
	ck_assert_uint_eq(ev.type, 7);
	ck_assert_uint_eq(ev.config, 0xd0 | 0x81 << 8 | 1 << 18 | 0xbull << 32 | 0xaull << 40);
	ck_assert_uint_eq(ev.config1, 3);
	ck_assert_uint_eq(ev.config2, 0);
	ck_assert(!ev.has_scale);
	ck_assert_double_eq(ev.scale, 1);
	ck_assert_str_eq(ev.unit, "");
	/* a value wider than its field, split or not */
	fake_pmu_event(root, "cpu_x", "wide", "split=0x100\n", NULL, NULL);
	ck_assert_int_eq(perfpmu_event("cpu_x", "wide", &ev, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "does not fit"));
	ck_assert_int_eq(perfpmu_event("cpu_x", "nosuch", &ev, err, sizeof(err)), -ENOENT);
	ck_assert_int_eq(perfpmu_event("nosuch", "loads", &ev, err, sizeof(err)), -ENODEV);
	ck_assert_ptr_nonnull(strstr(err, "no nosuch PMU on this machine"));
	ck_assert_int_eq(perfpmu_event("cpu_x", "../x", &ev, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(perfpmu_type("../power", &type, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(perfpmu_cpumask("cpu_x", cpus, 8, err, sizeof(err)), 4);
	ck_assert_int_eq(cpus[3], 5);
	ck_assert_int_eq(perfpmu_cpumask("cpu_x", cpus, 2, err, sizeof(err)), 2);

	/* events in version order; the .scale/.unit files are not events */
	fake_pmu(root, "cstate_pkg", "51\n", "0\n");
	fake_pmu_event(root, "cstate_pkg", "c10-residency", "event=0x06\n", NULL, NULL);
	fake_pmu_event(root, "cstate_pkg", "c2-residency", "event=0x00\n", "1\n", "cycles\n");
	fake_pmu_event(root, "cstate_pkg", "c3-residency", "event=0x01\n", NULL, NULL);
	fake_pmu_event(root, "cstate_pkg", "Odd name", "event=0x01\n", NULL, NULL);
	ck_assert_int_eq(perfpmu_list("cstate_pkg", "", "-residency", names, 8), 3);
	ck_assert_str_eq(names[0], "c2-residency");
	ck_assert_str_eq(names[1], "c3-residency");
	ck_assert_str_eq(names[2], "c10-residency");
	ck_assert_int_eq(perfpmu_list("cstate_pkg", "c1", "", names, 8), 1);
	ck_assert_int_eq(perfpmu_list("cstate_pkg", "", "-residency", names, 2), 2);
	ck_assert_int_eq(perfpmu_list("nosuch", "", "", names, 8), -ENODEV);
	ck_assert_int_eq(perfpmu_event("cstate_pkg", "c2-residency", &ev, err, sizeof(err)), 0);
	ck_assert(ev.has_scale);
	ck_assert_str_eq(ev.unit, "cycles");
	drop_root();
}
END_TEST

/*
 * cstate_core on CPUs 0-1 (C1, C6, C7; C7 does not open on CPU 1),
 * cstate_pkg on CPU 0 (PC2, PC6), msr/tsc on both.
 */
static void cstate_pmus(int with_msr)
{
	fake_pmu(root, "cstate_core", "50\n", "0-1\n");
	fake_pmu_format(root, "cstate_core", "event", "config:0-63\n");
	fake_pmu_event(root, "cstate_core", "c1-residency", "event=0x01\n", NULL, NULL);
	fake_pmu_event(root, "cstate_core", "c6-residency", "event=0x03\n", NULL, NULL);
	fake_pmu_event(root, "cstate_core", "c7-residency", "event=0x04\n", NULL, NULL);
	fake_pmu_event(root, "cstate_core", "other", "event=0x09\n", NULL, NULL);
	fake_pmu(root, "cstate_pkg", "51\n", "0\n");
	fake_pmu_event(root, "cstate_pkg", "c2-residency", "event=0x00\n", NULL, NULL);
	fake_pmu_event(root, "cstate_pkg", "c6-residency", "event=0x01\n", NULL, NULL);
	if (with_msr) {
		fake_pmu(root, "msr", "9\n", NULL);
		fake_pmu_event(root, "msr", "tsc", "event=0x00\n", NULL, NULL);
	}
}

static const struct fake_counter counters[] = {
	{ 50, 0x01, 0, 0, 0, { 0, 100000 } },
	{ 50, 0x01, 1, 0, 0, { 0, 200000 } },
	{ 50, 0x03, 0, 0, 0, { 1000, 251000 } },
	{ 50, 0x03, 1, 0, 0, { 7, 7 } },
	{ 50, 0x04, 0, 0, 0, { 0, 50000 } },
	{ 50, 0x04, 1, -ENOENT, 0, { 0, 0 } },
	{ 51, 0x00, 0, 0, 0, { 0, 300000 } },
	{ 51, 0x01, 0, 0, 0, { 0, 100000 } },
	{ 9, 0x00, 0, 0, 0, { 10, 1000010 } },
	{ 9, 0x00, 1, 0, 0, { 0, 2000000 } },
};
#define NCOUNTERS ((int)(sizeof(counters) / sizeof(counters[0])))

/* Opens, reads around phase 1, returns the rows (n in *n). */
static struct hwcstate_row *measure(struct hwcstate **hw, int *n, char *note, size_t len)
{
	static struct hwcstate_row rows[32];
	char err[256];

	ck_assert_int_eq(hwcstate_open(hw, note, len), 7);
	ck_assert_ptr_nonnull(*hw);
	ck_assert_int_eq(hwcstate_start(*hw, err, sizeof(err)), 0);
	fake_perf_phase(1);
	ck_assert_int_eq(hwcstate_stop(*hw, err, sizeof(err)), 0);
	*n = hwcstate_rows(*hw, rows, 32);
	return rows;
}

static void row_is(const struct hwcstate_row *r, enum hwcstate_scope scope, int cpu,
		   const char *state, double pct, uint64_t count)
{
	ck_assert_int_eq(r->scope, scope);
	ck_assert_int_eq(r->cpu, cpu);
	ck_assert_str_eq(r->state, state);
	if (isnan(pct))
		ck_assert(isnan(r->percent));
	else
		ck_assert_double_eq_tol(r->percent, pct, 1e-9);
	ck_assert_uint_eq(r->count, count);
}

START_TEST(shares_of_msr_tsc)
{
	struct hwcstate *hw;
	struct hwcstate_row *r;
	char note[512];
	int n;

	make_root();
	cstate_pmus(1);
	fake_perf_install(counters, NCOUNTERS);
	r = measure(&hw, &n, note, sizeof(note));
	ck_assert_int_eq(n, 7);
	row_is(&r[0], HWCSTATE_CORE, 0, "C1", 10, 100000);
	row_is(&r[1], HWCSTATE_CORE, 0, "C6", 25, 250000);
	row_is(&r[2], HWCSTATE_CORE, 0, "C7", 5, 50000);
	row_is(&r[3], HWCSTATE_CORE, 1, "C1", 10, 200000);	/* its own TSC: 2e6 */
	row_is(&r[4], HWCSTATE_CORE, 1, "C6", 0, 0);	/* a real zero: counted */
	row_is(&r[5], HWCSTATE_PACKAGE, 0, "PC2", 30, 300000);
	row_is(&r[6], HWCSTATE_PACKAGE, 0, "PC6", 10, 100000);
	ck_assert_str_eq(hwcstate_tsc_source(hw), "msr/tsc");
	ck_assert_ptr_nonnull(strstr(note, "1 counter did not open (cstate_core/c7-residency/ on CPU 1: the CPU does not count it"));
	ck_assert_str_eq(hwcstate_note(hw), note);
	ck_assert_int_eq(fake_perf_open_fds(), 7 + 2);
	hwcstate_close(hw);
	ck_assert_int_eq(fake_perf_open_fds(), 0);
	drop_root();
}
END_TEST

START_TEST(shares_without_msr)
{
	struct fake_counter c[NCOUNTERS];
	struct hwcstate *hw;
	struct hwcstate_row *r;
	char note[512];
	int n;

	/* no msr PMU: the user-space TSC, one delta for every CPU */
	make_root();
	cstate_pmus(0);
	fake_perf_install(counters, NCOUNTERS);
	fake_perf_tsc(0, 500, 1000000);
	r = measure(&hw, &n, note, sizeof(note));
	ck_assert_int_eq(n, 7);
	row_is(&r[3], HWCSTATE_CORE, 1, "C1", 20, 200000);
	ck_assert_str_eq(hwcstate_tsc_source(hw), "rdtsc");
	ck_assert_ptr_nonnull(strstr(note, "no msr PMU"));
	hwcstate_close(hw);
	drop_root();

	/* nor a sound TSC: counts, percents unknown (never zero) */
	make_root();
	cstate_pmus(0);
	fake_perf_install(counters, NCOUNTERS);
	r = measure(&hw, &n, note, sizeof(note));
	ck_assert_int_eq(n, 7);
	for (int i = 0; i < n; i++)
		ck_assert(isnan(r[i].percent));
	row_is(&r[1], HWCSTATE_CORE, 0, "C6", NAN, 250000);
	ck_assert_str_eq(hwcstate_tsc_source(hw), "none");
	ck_assert_ptr_nonnull(strstr(note, "percents are unknown"));
	hwcstate_close(hw);
	drop_root();

	/* msr/tsc on CPU 0 only: CPU 1 takes rdtsc's */
	make_root();
	cstate_pmus(1);
	memcpy(c, counters, sizeof(c));
	c[9].open_err = -ENOENT;
	fake_perf_install(c, NCOUNTERS);
	fake_perf_tsc(0, 0, 4000000);
	r = measure(&hw, &n, note, sizeof(note));
	row_is(&r[0], HWCSTATE_CORE, 0, "C1", 10, 100000);
	row_is(&r[3], HWCSTATE_CORE, 1, "C1", 5, 200000);
	ck_assert_str_eq(hwcstate_tsc_source(hw), "msr/tsc+rdtsc");
	ck_assert_ptr_nonnull(strstr(note, "msr/tsc/ on CPU 1"));
	hwcstate_close(hw);
	ck_assert_int_eq(fake_perf_open_fds(), 0);
	drop_root();
}
END_TEST

START_TEST(none_or_refused)
{
	struct fake_counter c[NCOUNTERS];
	struct hwcstate *hw = (struct hwcstate *)1;
	struct hwcstate_row *r;
	char note[512], err[256];
	int n;

	/* this VM: neither PMU */
	make_root();
	fake_perf_install(counters, NCOUNTERS);
	ck_assert_int_eq(hwcstate_open(&hw, note, sizeof(note)), 0);
	ck_assert_ptr_null(hw);
	ck_assert_str_eq(note, "no cstate_core or cstate_pkg PMU on this machine");
	ck_assert_int_eq(fake_perf_opens(), 0);
	drop_root();

	/* cstate_core alone: its counters, the other's absence noted */
	make_root();
	cstate_pmus(1);
	unit_rmtree(strcat(strcpy(err, root), "/bus/event_source/devices/cstate_pkg"));
	fake_perf_install(counters, NCOUNTERS);
	ck_assert_int_eq(hwcstate_open(&hw, note, sizeof(note)), 5);
	ck_assert_ptr_nonnull(strstr(note, "no cstate_pkg PMU on this machine"));
	hwcstate_close(hw);
	drop_root();

	/* perf_event_paranoid: nothing, and why */
	make_root();
	cstate_pmus(1);
	memcpy(c, counters, sizeof(c));
	c[2].open_err = -EACCES;
	fake_perf_install(c, NCOUNTERS);
	ck_assert_int_eq(hwcstate_open(&hw, note, sizeof(note)), 0);
	ck_assert_ptr_null(hw);
	ck_assert_ptr_nonnull(strstr(note, "cstate_core/c6-residency/: not permitted (perf_event_paranoid is "));
	ck_assert_int_eq(fake_perf_open_fds(), 0);
	drop_root();

	/* no counter opens at all */
	make_root();
	cstate_pmus(1);
	for (int i = 0; i < NCOUNTERS; i++)
		c[i].open_err = -EOPNOTSUPP;
	fake_perf_install(c, NCOUNTERS);
	ck_assert_int_eq(hwcstate_open(&hw, note, sizeof(note)), 0);
	ck_assert_ptr_nonnull(strstr(note, "no residency counter opened: 8 counters did not open (cstate_core/c1-residency/ on CPU 0: the CPU does not count it"));
	ck_assert_int_eq(fake_perf_open_fds(), 0);
	drop_root();

	/* a counter that cannot be read: its row goes, the note says so */
	make_root();
	cstate_pmus(1);
	memcpy(c, counters, sizeof(c));
	c[6].read_err = -EIO;
	fake_perf_install(c, NCOUNTERS);
	ck_assert_int_eq(hwcstate_open(&hw, note, sizeof(note)), 7);
	ck_assert_int_eq(hwcstate_start(hw, err, sizeof(err)), 0);
	fake_perf_phase(1);
	ck_assert_int_eq(hwcstate_stop(hw, err, sizeof(err)), 0);
	{
		struct hwcstate_row rows[32];

		r = rows;
		n = hwcstate_rows(hw, r, 32);
		ck_assert_int_eq(n, 6);
		row_is(&r[5], HWCSTATE_PACKAGE, 0, "PC6", 10, 100000);
	}
	ck_assert_ptr_nonnull(strstr(hwcstate_note(hw), "package PC2 on CPU 0 could not be read"));
	hwcstate_close(hw);
	ck_assert_int_eq(fake_perf_open_fds(), 0);
	drop_root();
}
END_TEST

START_TEST(hostile_sysfs)
{
	static const struct {
		const char *rel, *val;
	} bad[] = {
		{ "cstate_core/type", "fifty" },
		{ "cstate_core/cpumask", "0-x" },
		{ "cstate_pkg/cpumask", "" },
		{ "cstate_core/events/c6-residency", "event=0x03,zap" },
		{ "cstate_core/events/c6-residency", "event=0x03=4" },
		{ "msr/events/tsc", "event=tsc" },
		{ "msr/type", "-9" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char p[PATH_MAX + 128], note[512];
		struct hwcstate *hw;

		make_root();
		cstate_pmus(1);
		snprintf(p, sizeof(p), "%s/bus/event_source/devices/%s", root, bad[i].rel);
		unit_put(p, bad[i].val);
		fake_perf_install(counters, NCOUNTERS);
		ck_assert_msg(hwcstate_open(&hw, note, sizeof(note)) < 0, "%s = '%s' accepted",
			      bad[i].rel, bad[i].val);
		ck_assert_ptr_null(hw);
		ck_assert_msg(strstr(note, bad[i].rel) != NULL, "'%s' does not name %s", note,
			      bad[i].rel);
		ck_assert_int_eq(fake_perf_open_fds(), 0);
		drop_root();
	}
}
END_TEST

static char tmpdir[64];

static const char *tmp_file(const char *name, const char *text)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if (text)
		unit_put(path, text);
	return path;
}

START_TEST(csv_round_trip)
{
	struct hwcstate_row rows[3] = {
		{ HWCSTATE_CORE, 3, "C6", 25.5, 12345 },
		{ HWCSTATE_PACKAGE, 0, "PC10", NAN, 18446744073709551615ull },
		{ HWCSTATE_CORE, -1, "C1", 0, 0 },
	}, *back;
	char err[512];
	const char *path;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/wb-hwcsv.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	path = tmp_file("hw-residency.csv", NULL);
	ck_assert_int_eq(hwcstate_write_csv(path, rows, 3), 0);
	ck_assert_str_eq(unit_slurp(path), "scope,cpu,state,percent,count\n"
			 "core,3,C6,25.5000,12345\n"
			 "package,0,PC10,,18446744073709551615\n"
			 "core,all,C1,0.0000,0\n");
	ck_assert_int_eq(hwcstate_read_csv(path, &back, err, sizeof(err)), 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(back[i].scope, rows[i].scope);
		ck_assert_int_eq(back[i].cpu, rows[i].cpu);
		ck_assert_str_eq(back[i].state, rows[i].state);
		ck_assert_uint_eq(back[i].count, rows[i].count);
	}
	ck_assert_double_eq(back[0].percent, 25.5);
	ck_assert(isnan(back[1].percent));
	free(back);
	/* none: the header alone reads as no rows */
	ck_assert_int_eq(hwcstate_write_csv(path, rows, 0), 0);
	ck_assert_int_eq(hwcstate_read_csv(path, &back, err, sizeof(err)), 0);
	ck_assert_ptr_null(back);
	/* columns by name, in any order, others ignored */
	path = tmp_file("x.csv", "count,state,extra,percent,cpu,scope\n7,C3,zz,1.5,2,core\n");
	ck_assert_int_eq(hwcstate_read_csv(path, &back, err, sizeof(err)), 1);
	ck_assert_uint_eq(back[0].count, 7);
	ck_assert_int_eq(back[0].cpu, 2);
	free(back);
	ck_assert_int_eq(hwcstate_read_csv(tmp_file("none.csv", NULL), &back, err, sizeof(err)),
			 -ENOENT);
	unit_rmtree(tmpdir);
}
END_TEST

START_TEST(csv_hostile)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "", "empty (no header)" },
		{ "scope,cpu,state,percent\n", ":1: no count column" },
		{ "scope,cpu,state,percent,count\ncpu,0,C6,1,1\n", ":2: scope is not core or package" },
		{ "scope,cpu,state,percent,count\ncore,-1,C6,1,1\n", ":2: " },
		{ "scope,cpu,state,percent,count\ncore,99999999,C6,1,1\n", ":2: " },
		{ "scope,cpu,state,percent,count\ncore,0,c6,1,1\n", ":2: state is not" },
		{ "scope,cpu,state,percent,count\ncore,0,C6AAAAAAAAAAAAAAAAA,1,1\n", ":2: state is not" },
		{ "scope,cpu,state,percent,count\ncore,0,C6,1e3,1\n", ":2: percent is not" },
		{ "scope,cpu,state,percent,count\ncore,0,C6,1001,1\n", ":2: percent is not" },
		{ "scope,cpu,state,percent,count\ncore,0,C6,-1,1\n", ":2: percent is not" },
		{ "scope,cpu,state,percent,count\ncore,0,C6,nan,1\n", ":2: percent is not" },
		{ "scope,cpu,state,percent,count\ncore,0,C6,1,\n", ":2: " },
		{ "scope,cpu,state,percent,count\ncore,0,C6,1,18446744073709551616\n", ":2: " },
		{ "scope,cpu,state,percent,count\ncore,0,C6\n", ":2: too few fields" },
		{ "scope,cpu,state,percent,count\ncore,0,\"C6,1,1\n", ":2: too few fields" },
	};
	char err[512];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/wb-hwcsv.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hwcstate_row *rows = (struct hwcstate_row *)1;
		const char *path = tmp_file("bad.csv", bad[i].text);

		ck_assert_msg(hwcstate_read_csv(path, &rows, err, sizeof(err)) == -EINVAL,
			      "accepted: %s", bad[i].text);
		ck_assert_ptr_null(rows);
		ck_assert_msg(strstr(err, bad[i].says) && strstr(err, path), "'%s' for %s",
			      err, bad[i].text);
	}
	{
		/* a line longer than any row */
		char *big = malloc(10000);
		struct hwcstate_row *rows;

		strcpy(big, "scope,cpu,state,percent,count\ncore,0,C6,1,");
		memset(big + strlen(big), '1', 6000);
		big[43 + 6000] = '\0';
		ck_assert_int_eq(hwcstate_read_csv(tmp_file("big.csv", big), &rows, err,
						   sizeof(err)), -EFBIG);
		ck_assert_ptr_nonnull(strstr(err, ":2: line too long"));
		free(big);
	}
	unit_rmtree(tmpdir);
}
END_TEST

START_TEST(perf_stat_output)
{
	struct hwcstate_row *r;
	char err[512];
	int skipped;

	/* composed in perf's -x, -A format (no cstate PMU here) */
	ck_assert_int_eq(hwcstate_parse_perf_stat("tests/fixtures/perf/cstate-A.csv", &r,
						  &skipped, err, sizeof(err)), 7);
	ck_assert_int_eq(skipped, 1);	/* CPU1's <not counted> C6 */
	row_is(&r[0], HWCSTATE_CORE, 0, "C1", 10, 230000000);
	row_is(&r[1], HWCSTATE_CORE, 0, "C6", 50, 1150000000);
	row_is(&r[2], HWCSTATE_CORE, 1, "C1", 20, 460000000);
	row_is(&r[3], HWCSTATE_PACKAGE, 0, "PC2", 60, 1380000000);
	row_is(&r[4], HWCSTATE_PACKAGE, 0, "PC10", 0, 0);
	row_is(&r[5], HWCSTATE_PACKAGE, 1, "PC2", 60, 1380000000);
	row_is(&r[6], HWCSTATE_PACKAGE, 1, "PC10", 0, 0);
	free(r);
	/* recorded on this VM: msr/tsc alone, no residency row */
	ck_assert_int_eq(hwcstate_parse_perf_stat("tests/fixtures/perf/msr-tsc-vm.csv", &r,
						  &skipped, err, sizeof(err)), 0);
	ck_assert_int_eq(skipped, 0);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(hwcstate_parse_perf_stat("tests/fixtures/perf/none.csv", &r,
						  &skipped, err, sizeof(err)), -ENOENT);
}
END_TEST

START_TEST(perf_stat_odd)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "CPUx,1,,cstate_core/c6-residency/,1,100.00,,\n", ":1: CPU field 'CPUx'" },
		{ "CPU99999999,1,,cstate_core/c6-residency/,1,100.00,,\n", ":1: CPU field" },
		{ "CPU0,12a,,cstate_core/c6-residency/,1,100.00,,\n",
		  ":1: count of cstate_core/c6-residency/" },
		{ "CPU0,-1,,cstate_core/c6-residency/,1,100.00,,\n", ":1: count of" },
		{ "CPU0,1,,cstate_core/c6-residency/,1,100.00,,\nCPU0,2,,cstate_core/c6-residency/,1,100.00,,\n",
		  ":2: a second cstate_core/c6-residency/ count for CPU 0" },
		{ "CPU0,1,,msr/tsc/,1,100.00,,\nCPU0,1,,msr/tsc/,1,100.00,,\n",
		  ":2: a second msr/tsc/ count for CPU 0" },
		{ "CPU0,1\n", ":1: too few fields" },
		{ "CPU0,\"1,,x\n", ":1: not perf stat -x, output" },
	};
	char err[512];
	struct hwcstate_row *r;
	int skipped;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/wb-hwperf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = tmp_file("p.csv", bad[i].text);

		ck_assert_msg(hwcstate_parse_perf_stat(path, &r, &skipped, err, sizeof(err)) < 0,
			      "accepted: %s", bad[i].text);
		ck_assert_ptr_null(r);
		ck_assert_msg(strstr(err, bad[i].says) != NULL, "'%s' for %s", err, bad[i].text);
	}
	/* perf's totals (no -A): counts, no share; other events and
	 * <not supported> left out; a residency that is not cN ignored */
	ck_assert_int_eq(hwcstate_parse_perf_stat(tmp_file("t.csv",
		"1150000000,,cstate_core/c6-residency/,1001862011,100.00,,\n"
		"2300000000,,msr/tsc/,1001862011,100.00,,\n"
		"<not supported>,,cstate_pkg/c8-residency/,0,100.00,,\n"
		"12,,cycles,1001862011,100.00,,\n"
		"12,,cstate_core/x-residency/,1001862011,100.00,,\n"
		"12,,cstate_core/c6-residency/u,1001862011,100.00,,\n"), &r, &skipped,
		err, sizeof(err)), 1);
	ck_assert_int_eq(skipped, 1);
	row_is(&r[0], HWCSTATE_CORE, -1, "C6", NAN, 1150000000);
	free(r);
	unit_rmtree(tmpdir);
}
END_TEST

Suite *hwcstate_suite(void)
{
	Suite *s = suite_create("hwcstate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pmu_events);
	tcase_add_test(tc, shares_of_msr_tsc);
	tcase_add_test(tc, shares_without_msr);
	tcase_add_test(tc, none_or_refused);
	tcase_add_test(tc, hostile_sysfs);
	tcase_add_test(tc, csv_round_trip);
	tcase_add_test(tc, csv_hostile);
	tcase_add_test(tc, perf_stat_output);
	tcase_add_test(tc, perf_stat_odd);
	suite_add_tcase(s, tc);
	return s;
}
