// SPDX-License-Identifier: GPL-2.0
/* Idle-state access, save/restore and --cstates specs on a fake sysfs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "cstate.h"
#include "fake_sysfs.h"
#include "idlestate.h"
#include "snapshot.h"

static void setup(void)
{
	fake_sysfs_create(2, 3);
}

static void teardown(void)
{
	fake_sysfs_destroy();
}

static int state_files(void)
{
	char cmd[512];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls %s 2>/dev/null | grep -c '^cstate\\..*\\.state$'",
		 cstate_state_dir());
	p = popen(cmd, "r");
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

START_TEST(reads_states)
{
	struct idlestate st;
	char buf[64];

	ck_assert_int_eq(idlestate_cpu_count(), 2);
	ck_assert_int_eq(idlestate_count(0), 3);
	ck_assert_int_eq(idlestate_get(1, 2, &st), 0);
	ck_assert_str_eq(st.name, "C6");
	ck_assert_str_eq(st.desc, "fake idle");
	ck_assert_uint_eq(st.latency_us, 120);
	ck_assert_uint_eq(st.residency_us, 600);
	ck_assert_uint_eq(st.usage, 100);
	ck_assert_uint_eq(st.time_us, 5000);
	ck_assert_int_eq(st.disabled, 0);
	ck_assert_int_eq(idlestate_get(1, 3, &st), -ENOENT);
	idlestate_driver(buf, sizeof(buf));
	ck_assert_str_eq(buf, "fake_idle");
	idlestate_governor(buf, sizeof(buf));
	ck_assert_str_eq(buf, "menu");
}
END_TEST

START_TEST(resolves_names_and_indices)
{
	ck_assert_int_eq(idlestate_resolve(0, "2"), 2);
	ck_assert_int_eq(idlestate_resolve(0, "C1"), 1);
	ck_assert_int_eq(idlestate_resolve(0, "c6"), 2);
	ck_assert_int_eq(idlestate_resolve(0, "poll"), 0);
	ck_assert_int_eq(idlestate_resolve(0, "3"), -ENOENT);
	ck_assert_int_eq(idlestate_resolve(0, "C1E"), -ENOENT);
	ck_assert_int_eq(idlestate_resolve(0, "-1"), -ENOENT);
	ck_assert_int_eq(idlestate_resolve(5, "C1"), -ENOENT);
}
END_TEST

START_TEST(spec_parsing)
{
	struct cstate_spec s;
	char buf[64];

	ck_assert_int_eq(cstate_spec_parse("on", &s), 0);
	ck_assert_int_eq(s.mode, CSTATE_ON);
	ck_assert_int_eq(cstate_spec_parse("off", &s), 0);
	ck_assert_int_eq(s.mode, CSTATE_OFF);
	ck_assert_int_eq(cstate_spec_parse("max-latency-us=10", &s), 0);
	ck_assert_int_eq(s.mode, CSTATE_MAXLAT);
	ck_assert_uint_eq(s.max_latency_us, 10);
	ck_assert_str_eq(cstate_spec_name(&s, buf, sizeof(buf)), "max-latency-us=10");
	ck_assert_int_eq(cstate_spec_parse("max-latency-us=", &s), -1);
	ck_assert_int_eq(cstate_spec_parse("max-latency-us=-1", &s), -1);
	ck_assert_int_eq(cstate_spec_parse("OFF", &s), -1);
	ck_assert_int_eq(cstate_spec_parse("", &s), -1);
}
END_TEST

/* The original value is on disk before the change, and comes back. */
START_TEST(save_then_restore)
{
	struct cstate_session *s = cstate_begin("test cmd");
	char path[512], line[256];
	FILE *f;
	int lines = 0;

	fake_sysfs_set(1, 2, "disable", "1");	/* originally disabled */
	ck_assert_int_eq(cstate_set(s, 0, 1, 1), 0);
	ck_assert_int_eq(cstate_set(s, 1, 2, 0), 0);
	ck_assert_int_eq(cstate_set(s, 0, 1, 1), 0);	/* again: one entry */
	ck_assert_int_eq(fake_sysfs_disabled(0, 1), 1);
	ck_assert_int_eq(fake_sysfs_disabled(1, 2), 0);
	ck_assert_int_eq(cstate_changes(s), 2);
	snprintf(path, sizeof(path), "%s/cstate.%d.state", cstate_state_dir(),
		 (int)getpid());
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (lines == 0)
			ck_assert_str_eq(line, "wakebench-cstate 1\n");
		if (lines == 2)
			ck_assert_str_eq(line, "command test cmd\n");
		if (lines == 3)
			ck_assert_str_eq(line, "state 0 1 0 1\n");
		if (lines == 4)
			ck_assert_str_eq(line, "state 1 2 1 0\n");
		lines++;
	}
	fclose(f);
	ck_assert_int_eq(lines, 5);
	ck_assert_int_eq(cstate_end(s), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 1), 0);
	ck_assert_int_eq(fake_sysfs_disabled(1, 2), 1);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

/* A state changed by someone else since is left alone on restore. */
START_TEST(restore_leaves_foreign_changes)
{
	struct cstate_session *s = cstate_begin("x");

	ck_assert_int_eq(cstate_set(s, 0, 2, 1), 0);
	ck_assert_int_eq(cstate_set(s, 1, 2, 1), 0);
	fake_sysfs_set(0, 2, "disable", "0");	/* someone else restored it */
	ck_assert_int_eq(cstate_end(s), 1);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	ck_assert_int_eq(fake_sysfs_disabled(1, 2), 0);
}
END_TEST

/* Client and server on one host: overlapping sessions, both orders. */
START_TEST(nested_sessions_any_order)
{
	for (int order = 0; order < 2; order++) {
		struct cstate_session *a = cstate_begin("a"), *b = cstate_begin("b");

		/* In real use these are two processes with two state files. */
		ck_assert_int_eq(cstate_set(a, 0, 2, 1), 0);
		ck_assert_int_eq(cstate_set(b, 0, 2, 1), 0);
		if (order) {
			cstate_end(a);
			cstate_end(b);
		} else {
			cstate_end(b);
			cstate_end(a);
		}
		ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	}
}
END_TEST

START_TEST(apply_specs)
{
	struct cstate_spec off = { CSTATE_OFF, 0 }, on = { CSTATE_ON, 0 };
	struct cstate_spec lim = { CSTATE_MAXLAT, 10 };
	unsigned char mask[2] = { 0, 1 };
	struct cstate_session *s = cstate_begin("x");
	char err[256];
	int32_t v = -1;
	FILE *f;

	ck_assert_int_eq(cstate_apply(s, &off, NULL, 2, err, sizeof(err)), 0);
	for (int cpu = 0; cpu < 2; cpu++) {
		ck_assert_int_eq(fake_sysfs_disabled(cpu, 0), 0);	/* POLL */
		ck_assert_int_eq(fake_sysfs_disabled(cpu, 1), 1);
		ck_assert_int_eq(fake_sysfs_disabled(cpu, 2), 1);
	}
	f = fopen(getenv("WAKEBENCH_PMQOS_DEV"), "r");
	ck_assert_int_eq(fread(&v, sizeof(v), 1, f), 1);
	fclose(f);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(cstate_end(s), 0);
	for (int cpu = 0; cpu < 2; cpu++)
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(fake_sysfs_disabled(cpu, i), 0);

	/* max-latency on CPU 1 only: C6 (120 us) off, C1 (2 us) on. */
	s = cstate_begin("x");
	ck_assert_int_eq(cstate_apply(s, &lim, mask, 2, err, sizeof(err)), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	ck_assert_int_eq(fake_sysfs_disabled(1, 2), 1);
	ck_assert_int_eq(fake_sysfs_disabled(1, 1), 0);
	cstate_end(s);

	/* on enables what was disabled before, and puts it back after. */
	fake_sysfs_set(0, 2, "disable", "1");
	s = cstate_begin("x");
	ck_assert_int_eq(cstate_apply(s, &on, NULL, 2, err, sizeof(err)), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	cstate_end(s);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 1);
}
END_TEST

/* A write failing midway undoes what the apply changed. */
START_TEST(apply_failure_rolls_back)
{
	struct cstate_spec off = { CSTATE_OFF, 0 };
	struct cstate_session *s = cstate_begin("x");
	char err[256], path[512];

	/* cpu1/state2/disable becomes a directory: writing it fails. */
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu1/cpuidle/state2/disable",
		 getenv("WAKEBENCH_SYSFS"));
	unlink(path);
	mkdir(path, 0755);
	ck_assert_int_lt(cstate_apply(s, &off, NULL, 2, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "cpu1 state2"));
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(fake_sysfs_disabled(0, i), 0);
	ck_assert_int_eq(fake_sysfs_disabled(1, 1), 0);
	ck_assert_int_eq(cstate_changes(s), 0);
	cstate_end(s);
	rmdir(path);
}
END_TEST

static int reports;

static void count_report(const char *msg)
{
	(void)msg;
	reports++;
}

START_TEST(restore_file_of_dead_process)
{
	char path[512];
	FILE *f;

	mkdir(cstate_state_dir(), 0755);
	snprintf(path, sizeof(path), "%s/cstate.999999.state", cstate_state_dir());
	fake_sysfs_set(0, 2, "disable", "1");
	fake_sysfs_set(1, 1, "disable", "0");	/* changed since: left alone */
	f = fopen(path, "w");
	fprintf(f, "wakebench-cstate 1\npid 999999\ncommand x\n"
		"state 0 2 0 1\nstate 1 1 0 1\n");
	fclose(f);
	reports = 0;
	ck_assert_int_eq(cstate_restore_file(path, count_report), 1);
	ck_assert_int_eq(reports, 2);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(state_files(), 0);

	/* A live owner (pid 1) is refused; a foreign file is not ours. */
	f = fopen(path, "w");
	fprintf(f, "wakebench-cstate 1\npid 1\nstate 0 2 0 1\n");
	fclose(f);
	ck_assert_int_eq(cstate_restore_file(path, NULL), -EBUSY);
	f = fopen(path, "w");
	fprintf(f, "something else\n");
	fclose(f);
	ck_assert_int_eq(cstate_restore_file(path, NULL), -EINVAL);
	ck_assert_int_eq(cstate_restore_file("/nonexistent/x", NULL), -ENOENT);
	unlink(path);
}
END_TEST

START_TEST(snapshot_records_states)
{
	char path[512], buf[8192];
	struct cstate_session *s = cstate_begin("x");
	FILE *f;
	size_t n;

	cstate_set(s, 1, 2, 1);
	snprintf(path, sizeof(path), "%s/snap.json", getenv("WAKEBENCH_SYSFS"));
	ck_assert_int_eq(snapshot_write_json(path, "client", "cmd --x"), 0);
	cstate_end(s);
	f = fopen(path, "r");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "\"role\": \"client\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"command\": \"cmd --x\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"driver\": \"fake_idle\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"kernel\": "));
	ck_assert_ptr_nonnull(strstr(buf, "\"cpu_model\": "));
	/* cpu1's C6 was disabled when the snapshot was taken. */
	char *cpu1 = strstr(buf, "\"cpu\": 1");
	ck_assert_ptr_nonnull(cpu1);
	char *c6 = strstr(cpu1, "\"name\": \"C6\"");
	ck_assert_ptr_nonnull(c6);
	ck_assert_ptr_nonnull(strstr(c6, "\"disabled\": true"));
	ck_assert_ptr_null(strstr(buf, "\"disabled\": true,\n      \"disabled\""));
}
END_TEST

START_TEST(no_cpuidle_driver)
{
	struct cstate_spec off = { CSTATE_OFF, 0 };
	struct cstate_session *s;
	char err[256];

	fake_sysfs_destroy();
	fake_sysfs_create(2, 0);
	ck_assert_int_eq(idlestate_count(0), 0);
	ck_assert_int_eq(idlestate_resolve(0, "C1"), -ENOENT);
	/* off still holds PM QoS when there is nothing to disable. */
	s = cstate_begin("x");
	ck_assert_int_eq(cstate_apply(s, &off, NULL, 2, err, sizeof(err)), 0);
	ck_assert_int_eq(cstate_changes(s), 0);
	cstate_end(s);
}
END_TEST

Suite *cstate_suite(void)
{
	Suite *s = suite_create("cstate");
	TCase *tc = tcase_create("fake-sysfs");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reads_states);
	tcase_add_test(tc, resolves_names_and_indices);
	tcase_add_test(tc, spec_parsing);
	tcase_add_test(tc, save_then_restore);
	tcase_add_test(tc, restore_leaves_foreign_changes);
	tcase_add_test(tc, nested_sessions_any_order);
	tcase_add_test(tc, apply_specs);
	tcase_add_test(tc, apply_failure_rolls_back);
	tcase_add_test(tc, restore_file_of_dead_process);
	tcase_add_test(tc, snapshot_records_states);
	tcase_add_test(tc, no_cpuidle_driver);
	suite_add_tcase(s, tc);
	return s;
}
