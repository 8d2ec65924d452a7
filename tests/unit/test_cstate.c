// SPDX-License-Identifier: GPL-2.0
/* Idle-state access, save/restore and --cstates specs on a fake sysfs. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "cpuset.h"
#include "cstate.h"
#include "procpid.h"
#include "pmqos.h"
#include "fake_sysfs.h"
#include "idlestate.h"
#include "snapshot.h"
#include "sysfs.h"

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
		if (lines == 1)
			ck_assert_int_eq(strncmp(line, "pid ", 4), 0);
		/* The kernel's name rides along: found again if it moved. */
		if (lines == 3)
			ck_assert_str_eq(line, "state 0 1 0 1 C1\n");
		if (lines == 4)
			ck_assert_str_eq(line, "state 1 2 1 0 C6\n");
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
	struct cpuset *mask = cpuset_new(2);
	struct cstate_session *s = cstate_begin("x");
	char err[256];
	struct stat sb;

	ck_assert_int_eq(cstate_apply(s, &off, NULL, err, sizeof(err)), 0);
	for (int cpu = 0; cpu < 2; cpu++) {
		ck_assert_int_eq(fake_sysfs_disabled(cpu, 0), 0);	/* POLL */
		ck_assert_int_eq(fake_sysfs_disabled(cpu, 1), 1);
		ck_assert_int_eq(fake_sysfs_disabled(cpu, 2), 1);
		/* "n/a": no exit latency tolerated ("0" is no limit). */
		ck_assert_str_eq(fake_sysfs_resume(cpu), "n/a");
	}
	/* Per-CPU means only: the system-wide device is not written. */
	ck_assert_int_eq(stat(getenv("WAKEBENCH_PMQOS_DEV"), &sb), 0);
	ck_assert_int_eq(sb.st_size, 0);
	ck_assert_int_eq(cstate_end(s), 0);
	for (int cpu = 0; cpu < 2; cpu++) {
		for (int i = 0; i < 3; i++)
			ck_assert_int_eq(fake_sysfs_disabled(cpu, i), 0);
		ck_assert_str_eq(fake_sysfs_resume(cpu), "0");
	}

	/* max-latency on CPU 1 only: C6 (120 us) off, C1 (2 us) on. */
	cpuset_set(mask, 1);
	s = cstate_begin("x");
	ck_assert_int_eq(cstate_apply(s, &lim, mask, err, sizeof(err)), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	ck_assert_int_eq(fake_sysfs_disabled(1, 2), 1);
	ck_assert_int_eq(fake_sysfs_disabled(1, 1), 0);
	ck_assert_str_eq(fake_sysfs_resume(1), "10");
	ck_assert_str_eq(fake_sysfs_resume(0), "0");
	cstate_end(s);
	ck_assert_str_eq(fake_sysfs_resume(1), "0");

	/* on enables what was disabled before, and puts it back after. */
	fake_sysfs_set(0, 2, "disable", "1");
	fake_sysfs_set_resume(0, "30");
	s = cstate_begin("x");
	ck_assert_int_eq(cstate_apply(s, &on, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	ck_assert_str_eq(fake_sysfs_resume(0), "0");
	cstate_end(s);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 1);
	ck_assert_str_eq(fake_sysfs_resume(0), "30");
	cpuset_free(mask);
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
	ck_assert_int_lt(cstate_apply(s, &off, NULL, err, sizeof(err)), 0);
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
	/* off still limits each CPU's resume latency. */
	s = cstate_begin("x");
	ck_assert_int_eq(cstate_apply(s, &off, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(cstate_changes(s), 2);
	ck_assert_str_eq(fake_sysfs_resume(0), "n/a");
	/* ...and says it cannot act (issue 33): what changed, what not */
	ck_assert_str_eq(cstate_effect(), "pm_qos_only: no cpuidle driver");
	ck_assert_ptr_nonnull(strstr(cstate_warning(s), "no cpuidle driver"));
	ck_assert_ptr_nonnull(strstr(cstate_warning(s), "no idle state was disabled"));
	ck_assert_ptr_nonnull(strstr(cstate_warning(s),
				     "pm_qos_resume_latency_us of CPUs 0-1 to n/a"));
	cstate_end(s);
	ck_assert_str_eq(fake_sysfs_resume(0), "0");
}
END_TEST

/* With idle states the same spec acts: no warning. */
START_TEST(effect_with_states)
{
	struct cstate_spec off = { CSTATE_OFF, 0 }, on = { CSTATE_ON, 0 };
	struct cstate_session *s = cstate_begin("x");
	char err[256];

	ck_assert_int_eq(cstate_apply(s, &off, NULL, err, sizeof(err)), 0);
	ck_assert_str_eq(cstate_warning(s), "");
	ck_assert_str_eq(cstate_effect(), "idle_states_and_pm_qos");
	ck_assert_int_eq(cstate_apply(s, &on, NULL, err, sizeof(err)), 0);
	ck_assert_str_eq(cstate_effect(), "");
	cstate_end(s);
}
END_TEST

/*
 * The cpuidle governor as a setting: recorded ("governor ORIG SET"),
 * restored at the end and from the file of a dead process, conflicts
 * named, names checked.
 */
/*
 * The tool runs as root over a tree that may be a fake one: a link in
 * place of an attribute is neither written through nor read, a FIFO is
 * refused at once (no hang), and the link's target is left untouched.
 */
START_TEST(attributes_not_links)
{
	const char *root = getenv("WAKEBENCH_SYSFS");
	char attr[600], target[600], fifo[600], buf[64];

	snprintf(target, sizeof(target), "%s/outside", root);
	unit_put(target, "precious\n");
	snprintf(attr, sizeof(attr), "%s/devices/system/cpu/cpuidle/current_governor", root);
	unlink(attr);
	ck_assert_int_eq(symlink(target, attr), 0);
	ck_assert_int_eq(sysfs_write("teo", "devices/system/cpu/cpuidle/current_governor"), -ELOOP);
	ck_assert_int_eq(sysfs_read(buf, sizeof(buf), "devices/system/cpu/cpuidle/current_governor"),
			 -ELOOP);
	ck_assert_ptr_nonnull(strstr(unit_slurp(target), "precious"));
	setenv("WAKEBENCH_PROCSYS", root, 1);
	ck_assert_int_eq(procsys_write("1", "devices/system/cpu/cpuidle/current_governor"), -ELOOP);
	ck_assert_ptr_nonnull(strstr(unit_slurp(target), "precious"));
	snprintf(fifo, sizeof(fifo), "%s/fifo", root);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(sysfs_read(buf, sizeof(buf), "fifo"), -EINVAL);
	ck_assert_int_eq(procsys_read(buf, sizeof(buf), "fifo"), -EINVAL);
	ck_assert_int_eq(sysfs_write("1", "fifo"), -ENXIO);
	unsetenv("WAKEBENCH_PROCSYS");
	unlink(fifo);
	unlink(attr);
	unlink(target);
}
END_TEST

START_TEST(governor_setting)
{
	struct cstate_session *a, *b;
	char gov[600], path[600];

	snprintf(gov, sizeof(gov), "%s/devices/system/cpu/cpuidle/current_governor",
		 getenv("WAKEBENCH_SYSFS"));
	unit_put(gov, "menu\n");
	a = cstate_begin("wakebench cstate governor teo");
	ck_assert_int_eq(cstate_set_governor(a, "teo"), 0);
	ck_assert_str_eq(unit_slurp(gov), "teo");
	snprintf(path, sizeof(path), "%s/cstate.%d.state", cstate_state_dir(),
		 (int)getpid());
	ck_assert_ptr_nonnull(strstr(unit_slurp(path), "\ngovernor menu teo\n"));
	/* another session asking for another governor: refused, named */
	b = cstate_begin("other");
	ck_assert_int_eq(cstate_set_governor(b, "ladder"), -EBUSY);
	ck_assert_ptr_nonnull(strstr(cstate_error(b), "cpuidle governor is held at teo"));
	cstate_end(b);
	ck_assert_int_eq(cstate_set_governor(a, "bad name"), -EINVAL);
	ck_assert_int_eq(cstate_set_governor(a, ""), -EINVAL);
	ck_assert_int_eq(cstate_end(a), 0);
	ck_assert_str_eq(unit_slurp(gov), "menu");
	ck_assert_int_eq(state_files(), 0);
	/* a dead process's file: restored from it */
	unit_put(gov, "teo");
	snprintf(path, sizeof(path), "%s/cstate.999999.state", cstate_state_dir());
	unit_put(path, "wakebench-cstate 1\npid 999999 start 1\ncommand x\n"
		 "governor menu teo\n");
	ck_assert_int_eq(cstate_restore_file(path, NULL), 1);
	ck_assert_str_eq(unit_slurp(gov), "menu");
	/* a state file that is a link is not trusted: nothing restored from it */
	{
		char real[600];

		unit_put(gov, "teo");
		snprintf(real, sizeof(real), "%s/elsewhere.state", getenv("WAKEBENCH_SYSFS"));
		unit_put(real, "wakebench-cstate 1\npid 999999 start 1\ncommand x\n"
			 "governor menu teo\n");
		unlink(path);
		ck_assert_int_eq(symlink(real, path), 0);
		ck_assert_int_eq(cstate_restore_file(path, NULL), -EINVAL);
		ck_assert_str_eq(unit_slurp(gov), "teo");
		unlink(path);
		unlink(real);
		unit_put(gov, "menu");
	}
	/* a hostile governor line is not understood, and not written */
	unit_put(path, "wakebench-cstate 1\npid 999999 start 1\ngovernor ../x teo\n");
	ck_assert_int_eq(cstate_restore_file(path, NULL), -EBADMSG);
	ck_assert_str_eq(unit_slurp(gov), "menu");
}
END_TEST

/*
 * Issue 35: the haltpoll window and the busy-polling sysctls held like
 * the governor: saved first, restored at the end, and from a dead
 * process's state file; the sysctls under $WAKEBENCH_PROCSYS.
 */
START_TEST(haltpoll_and_busy_poll)
{
	struct cstate_session *a, *b;
	char hp[600], br[700], bp[700], path[600], dir[600];

	fake_sysfs_put("module/haltpoll/parameters/guest_halt_poll_ns", "200000\n");
	snprintf(hp, sizeof(hp), "%s/module/haltpoll/parameters/guest_halt_poll_ns",
		 getenv("WAKEBENCH_SYSFS"));
	snprintf(dir, sizeof(dir), "%s/procsys", getenv("WAKEBENCH_SYSFS"));
	fake_sysfs_put("procsys/net/core/busy_read", "0\n");
	fake_sysfs_put("procsys/net/core/busy_poll", "0\n");
	setenv("WAKEBENCH_PROCSYS", dir, 1);
	snprintf(br, sizeof(br), "%s/net/core/busy_read", dir);
	snprintf(bp, sizeof(bp), "%s/net/core/busy_poll", dir);
	a = cstate_begin("wakebench cstate haltpoll 100000");
	ck_assert_int_eq(cstate_set_haltpoll_ns(a, 100000), 0);
	ck_assert_int_eq(cstate_set_busy_poll(a, 50), 0);
	ck_assert_str_eq(unit_slurp(hp), "100000");
	ck_assert_str_eq(unit_slurp(br), "50");
	ck_assert_str_eq(unit_slurp(bp), "50");
	snprintf(path, sizeof(path), "%s/cstate.%d.state", cstate_state_dir(),
		 (int)getpid());
	ck_assert_ptr_nonnull(strstr(unit_slurp(path), "\nhaltpoll 200000 100000\n"
				     "sysctl net.core.busy_read 0 50\n"
				     "sysctl net.core.busy_poll 0 50\n"));
	/* another value from another session: refused, named */
	b = cstate_begin("other");
	ck_assert_int_eq(cstate_set_busy_poll(b, 20), -EBUSY);
	ck_assert_ptr_nonnull(strstr(cstate_error(b), "sysctl net.core.busy_read is held at 50"));
	cstate_end(b);
	ck_assert_int_eq(cstate_end(a), 0);
	ck_assert_str_eq(unit_slurp(hp), "200000");
	ck_assert_str_eq(unit_slurp(br), "0");
	ck_assert_str_eq(unit_slurp(bp), "0");
	ck_assert_int_eq(state_files(), 0);
	/* a SIGKILLed process's file: `cstate restore` puts them back */
	unit_put(hp, "5");
	unit_put(br, "50");
	unit_put(bp, "50");
	snprintf(path, sizeof(path), "%s/cstate.999999.state", cstate_state_dir());
	unit_put(path, "wakebench-cstate 1\npid 999999 start 1\ncommand x\n"
		 "haltpoll 200000 5\nsysctl net.core.busy_read 0 50\n"
		 "sysctl net.core.busy_poll 0 50\n");
	ck_assert_int_eq(cstate_restore_file(path, NULL), 3);
	ck_assert_str_eq(unit_slurp(hp), "200000");
	ck_assert_str_eq(unit_slurp(br), "0");
	ck_assert_str_eq(unit_slurp(bp), "0");
	/* a sysctl it does not hold, or a value that is not a number: not
	 * understood, and nothing written */
	unit_put(br, "50");
	unit_put(path, "wakebench-cstate 1\npid 999999 start 1\n"
		 "sysctl kernel.core_pattern |x 50\nsysctl net.core.busy_read x 50\n");
	ck_assert_int_eq(cstate_restore_file(path, NULL), -EBADMSG);
	ck_assert_str_eq(unit_slurp(br), "50");
	unsetenv("WAKEBENCH_PROCSYS");
}
END_TEST

/*
 * Issue 13: --cpu 0 --cstates off changes cpu0 only, through its disable
 * files and its resume latency limit, and never the system-wide device.
 */
START_TEST(cpu_scope_is_per_cpu)
{
	struct cstate_spec spec;
	struct cstate_session *s;
	char err[512], dev[600];
	struct stat sb;

	/* The system-wide device does not even exist: it must not matter. */
	snprintf(dev, sizeof(dev), "%s/no-such-pmqos", getenv("WAKEBENCH_SYSFS"));
	setenv("WAKEBENCH_PMQOS_DEV", dev, 1);
	ck_assert_int_eq(cstate_spec_parse("off", &spec), 0);
	ck_assert_int_eq(spec.system, 0);
	s = cstate_run_begin(&spec, 0, "server --cpu 0 --cstates off", err,
			     sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_int_eq(fake_sysfs_disabled(0, 1), 1);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 1);
	ck_assert_str_eq(fake_sysfs_resume(0), "n/a");
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(fake_sysfs_disabled(1, i), 0);
	ck_assert_str_eq(fake_sysfs_resume(1), "0");
	ck_assert_int_eq(stat(dev, &sb), -1);
	ck_assert_int_eq(cstate_end(s), 0);
	ck_assert_str_eq(fake_sysfs_resume(0), "0");
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);

	/* max-latency-us=N: N us; 0 means none at all, so "n/a", not "0". */
	ck_assert_int_eq(cstate_spec_parse("max-latency-us=0", &spec), 0);
	s = cstate_run_begin(&spec, 1, "x", err, sizeof(err));
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(fake_sysfs_resume(1), "n/a");
	ck_assert_str_eq(fake_sysfs_resume(0), "0");
	cstate_end(s);
	ck_assert_int_eq(cstate_spec_parse("max-latency-us=50", &spec), 0);
	s = cstate_run_begin(&spec, 1, "x", err, sizeof(err));
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(fake_sysfs_resume(1), "50");
	cstate_end(s);
	ck_assert_str_eq(fake_sysfs_resume(1), "0");
	fake_sysfs_set_resume(1, "n/a");	/* an original "n/a" comes back */
	s = cstate_run_begin(&spec, 1, "x", err, sizeof(err));
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(fake_sysfs_resume(1), "50");
	cstate_end(s);
	ck_assert_str_eq(fake_sysfs_resume(1), "n/a");

	/* The system-wide hold only when asked for; then it must work. */
	ck_assert_int_eq(cstate_spec_parse("system-off", &spec), 0);
	ck_assert_int_eq(spec.system, 1);
	s = cstate_run_begin(&spec, 0, "x", err, sizeof(err));
	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(strstr(err, "cpu_dma_latency"));
	ck_assert_str_eq(fake_sysfs_resume(0), "0");	/* rolled back */
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
}
END_TEST

START_TEST(system_spelling)
{
	struct cstate_spec s;
	char buf[64];
	int32_t v = -1;
	struct cstate_session *cs;
	FILE *f;

	ck_assert_int_eq(cstate_spec_parse("system-max-latency-us=20", &s), 0);
	ck_assert_int_eq(s.mode, CSTATE_MAXLAT);
	ck_assert_int_eq(s.system, 1);
	ck_assert_str_eq(cstate_spec_name(&s, buf, sizeof(buf)),
			 "system-max-latency-us=20");
	ck_assert_int_eq(cstate_spec_parse("system-off", &s), 0);
	ck_assert_str_eq(cstate_spec_name(&s, buf, sizeof(buf)), "system-off");
	ck_assert_int_eq(cstate_spec_parse("system-on", &s), -1);
	ck_assert_int_eq(cstate_spec_parse("system-", &s), -1);
	ck_assert_int_eq(cstate_spec_parse("off,system", &s), -1);
	ck_assert_str_eq(cstate_resume_value(0, buf, sizeof(buf)), "n/a");
	ck_assert_str_eq(cstate_resume_value(7, buf, sizeof(buf)), "7");

	ck_assert_int_eq(cstate_spec_parse("system-max-latency-us=20", &s), 0);
	cs = cstate_run_begin(&s, 0, "x", buf, sizeof(buf));
	ck_assert_ptr_nonnull(cs);
	f = fopen(getenv("WAKEBENCH_PMQOS_DEV"), "r");
	ck_assert_int_eq(fread(&v, sizeof(v), 1, f), 1);
	fclose(f);
	ck_assert_int_eq(v, 20);
	ck_assert_str_eq(fake_sysfs_resume(0), "20");
	ck_assert_str_eq(fake_sysfs_resume(1), "0");
	cstate_end(cs);
}
END_TEST

/* Issue 13: the kernel's names, spaces and all, in and out of state files. */
START_TEST(names_with_spaces)
{
	struct cstate_session *s;
	char path[512], line[600];

	for (int cpu = 0; cpu < 2; cpu++)
		fake_sysfs_set(cpu, 1, "name", "haltpoll idle");
	ck_assert_int_eq(cstate_resolve(0, "haltpoll idle"), 1);
	ck_assert_int_eq(cstate_resolve(0, "HALTPOLL IDLE"), 1);
	ck_assert_int_eq(cstate_resolve(0, "haltpoll_idle"), 1);
	ck_assert_int_eq(cstate_resolve(0, "haltpoll-idle"), 1);
	ck_assert_int_eq(cstate_resolve(0, "haltpoll"), 1);
	ck_assert_int_eq(cstate_resolve(0, "1"), 1);
	ck_assert_int_eq(cstate_resolve(0, "c6"), 2);
	ck_assert_int_eq(cstate_resolve(0, "halt"), -ENOENT);
	ck_assert_int_eq(cstate_resolve(0, "haltpoll idle deep"), -ENOENT);
	ck_assert_int_eq(cstate_resolve(0, ""), -ENOENT);
	fake_sysfs_set(0, 2, "name", "haltpoll deep");
	ck_assert_int_eq(cstate_resolve(0, "haltpoll"), -ENOTUNIQ);
	ck_assert_int_eq(cstate_resolve(0, "haltpoll deep"), 2);
	fake_sysfs_set(0, 2, "name", "C6");

	/* Saved with its name... */
	s = cstate_begin("x");
	ck_assert_int_eq(cstate_set(s, 0, 1, 1), 0);
	snprintf(path, sizeof(path), "%s/cstate.%d.state", cstate_state_dir(),
		 (int)getpid());
	ck_assert_ptr_nonnull(strstr(unit_slurp(path), "\nstate 0 1 0 1 haltpoll idle\n"));
	cstate_detach(s);	/* as if killed: the file stays */
	/* ...and restored by it, though it is state 2 now. */
	fake_sysfs_set(0, 2, "name", "haltpoll idle");
	fake_sysfs_set(0, 2, "disable", "1");
	fake_sysfs_set(0, 1, "name", "C6");
	fake_sysfs_set(0, 1, "disable", "1");
	snprintf(line, sizeof(line), "%s/cstate.999999.state", cstate_state_dir());
	unit_put(line, "wakebench-cstate 1\npid 999999 start 1\ncommand x\n"
		   "state 0 1 0 1 haltpoll idle\n");
	ck_assert_int_eq(cstate_restore_file(line, NULL), 1);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 1), 1);	/* C6 left alone */
	/* A name no CPU state has any more: skipped, not written blindly. */
	unit_put(line, "wakebench-cstate 1\npid 999999\nstate 0 1 0 1 gone idle\n");
	ck_assert_int_eq(cstate_restore_file(line, NULL), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 1), 1);
	unlink(path);
}
END_TEST

START_TEST(starttime_parsing)
{
	unsigned long long st = 0;
	const char *line = "4242 (a b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 "
			   "1 2 0 0 20 0 1 0 987654 1000 50";

	ck_assert_int_eq(cstate_parse_starttime(line, &st), 0);
	ck_assert_uint_eq(st, 987654);
	ck_assert_int_eq(cstate_parse_starttime("1 (x) S 1 2 3", &st), -1);
	ck_assert_int_eq(cstate_parse_starttime("no parens", &st), -1);
	ck_assert_int_eq(cstate_parse_starttime(
		"1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 x12 0", &st), -1);
}
END_TEST

/* Issue 21 §4: a PID reused by an unrelated process is a dead owner. */
START_TEST(reused_pid_is_dead)
{
	char path[512], text[512], stat_line[1024];
	unsigned long long start;
	FILE *f;

	f = fopen("/proc/self/stat", "r");
	ck_assert_ptr_nonnull(fgets(stat_line, sizeof(stat_line), f));
	fclose(f);
	ck_assert_int_eq(cstate_parse_starttime(stat_line, &start), 0);
	ck_assert_int_eq(cstate_owner_alive(getpid(), start), 1);
	ck_assert_int_eq(cstate_owner_alive(getpid(), start + 1), 0);
	ck_assert_int_eq(cstate_owner_alive(getpid(), 0), 1);	/* old file */
	ck_assert_int_eq(cstate_owner_alive(999999, 0), 0);
	ck_assert_int_eq(cstate_owner_alive(0, 0), 0);

	/* pid 1 lives, but did not start at this time: restore goes ahead. */
	mkdir(cstate_state_dir(), 0755);
	snprintf(path, sizeof(path), "%s/cstate.1.state", cstate_state_dir());
	snprintf(text, sizeof(text),
		 "wakebench-cstate 1\npid 1 start %llu\ncommand old run\n"
		 "state 0 2 0 1 C6\nresume 0 0 n/a\n", start + 12345);
	unit_put(path, text);
	fake_sysfs_set(0, 2, "disable", "1");
	fake_sysfs_set_resume(0, "n/a");
	ck_assert_int_eq(cstate_restore_file(path, NULL), 2);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	ck_assert_str_eq(fake_sysfs_resume(0), "0");
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

static char reported[4096];

static void keep_report(const char *msg)
{
	strncat(reported, msg, sizeof(reported) - strlen(reported) - 2);
	strcat(reported, "\n");
}

/* Issue 21 §4: a line restore cannot read is reported, the file moved aside. */
START_TEST(bad_line_moves_file_aside)
{
	char path[512], bad[600];

	mkdir(cstate_state_dir(), 0755);
	snprintf(path, sizeof(path), "%s/cstate.999999.state", cstate_state_dir());
	snprintf(bad, sizeof(bad), "%s.bad", path);
	unit_put(path, "wakebench-cstate 1\npid 999999\ncommand x\n"
		   "state 0 2 0 1 C6\nstate zero two\nresume 1 0 bogus\n");
	fake_sysfs_set(0, 2, "disable", "1");
	reported[0] = '\0';
	ck_assert_int_eq(cstate_restore_file(path, keep_report), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(reported, "line 5 not understood: 'state zero two'"));
	ck_assert_ptr_nonnull(strstr(reported, "moved aside"));
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);	/* the good line */
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(access(bad, F_OK), 0);
	ck_assert_int_eq(state_files(), 0);

	/* No owner line: nothing trusted, moved aside too. */
	unit_put(path, "wakebench-cstate 1\nstate 0 2 0 1 C6\n");
	fake_sysfs_set(0, 2, "disable", "1");
	ck_assert_int_eq(cstate_restore_file(path, NULL), -EBADMSG);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 1);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

/*
 * Issue 21 §4, two sessions at once: the original comes back when the
 * last holder ends; a conflicting request is refused naming the holder.
 */
START_TEST(two_holders)
{
	struct cstate_spec off = { CSTATE_OFF, 0 }, on = { CSTATE_ON, 0 };
	struct cpuset *cpu0 = cpuset_new(2);
	struct cstate_session *a = cstate_begin("wakebench server --cstates off");
	struct cstate_session *b = cstate_begin("wakebench cstate disable C6");
	char err[1024], want[128];

	cpuset_set(cpu0, 0);
	ck_assert_int_eq(cstate_apply(a, &off, cpu0, err, sizeof(err)), 0);
	ck_assert_int_eq(cstate_set(b, 0, 2, 1), 0);	/* joins A */
	ck_assert_int_eq(cstate_end(a), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 1);	/* B still holds it */
	ck_assert_int_eq(fake_sysfs_disabled(0, 1), 0);	/* A's alone: back */
	ck_assert_str_eq(fake_sysfs_resume(0), "0");
	ck_assert_int_eq(cstate_end(b), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);	/* last one: original */

	/* B asks "on" where A holds "off": refused, naming A; nothing changes. */
	a = cstate_begin("wakebench server --cstates off");
	b = cstate_begin("wakebench client --cstates on");
	ck_assert_int_eq(cstate_apply(a, &off, cpu0, err, sizeof(err)), 0);
	ck_assert_int_eq(cstate_apply(b, &on, NULL, err, sizeof(err)), -EBUSY);
	snprintf(want, sizeof(want), "by pid %d (wakebench server --cstates off)",
		 (int)getpid());
	ck_assert_msg(strstr(err, want) != NULL, "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "--force"));
	ck_assert_int_eq(cstate_changes(b), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 1);
	ck_assert_str_eq(fake_sysfs_resume(0), "n/a");
	ck_assert_int_eq(cstate_set(b, 0, 2, 0), -EBUSY);
	ck_assert_ptr_nonnull(strstr(cstate_error(b), "cpu0 state2 (C6)"));
	ck_assert_int_eq(cstate_set_resume(b, 0, "0"), -EBUSY);
	/* --force: B overrides; when B ends A's value comes back. */
	cstate_force(b, 1);
	ck_assert_int_eq(cstate_set(b, 0, 2, 0), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	ck_assert_int_eq(cstate_end(b), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 1);
	ck_assert_int_eq(cstate_end(a), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
	ck_assert_str_eq(fake_sysfs_resume(0), "0");

	/* System-wide holds at different values conflict too. */
	a = cstate_begin("a");
	b = cstate_begin("b");
	ck_assert_int_eq(cstate_pmqos_hold(a, 0), 0);
	ck_assert_int_eq(cstate_pmqos_hold(b, 50), -EBUSY);
	ck_assert_ptr_nonnull(strstr(cstate_error(b), "held at 0 us"));
	ck_assert_int_eq(cstate_pmqos_hold(b, 0), 0);
	cstate_end(a);
	cstate_end(b);
	ck_assert_int_eq(state_files(), 0);
	cpuset_free(cpu0);
}
END_TEST

/* A dead session's original is adopted; `restore` leaves a live holder's. */
START_TEST(dead_holder_then_live)
{
	struct cstate_session *a;
	char path[512];

	mkdir(cstate_state_dir(), 0755);
	snprintf(path, sizeof(path), "%s/cstate.999999.state", cstate_state_dir());
	unit_put(path, "wakebench-cstate 1\npid 999999\ncommand killed\n"
		   "state 0 2 0 1 C6\n");
	fake_sysfs_set(0, 2, "disable", "1");
	a = cstate_begin("a");
	ck_assert_int_eq(cstate_set(a, 0, 2, 1), 0);
	reported[0] = '\0';
	ck_assert_int_eq(cstate_restore_file(path, keep_report), 0);
	ck_assert_ptr_nonnull(strstr(reported, "left for it"));
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 1);
	ck_assert_int_eq(cstate_end(a), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);	/* the true original */
}
END_TEST

/* Issue 21 §4: SIGHUP becomes SIGTERM, which waits for the caller. */
START_TEST(run_signals)
{
	struct cstate_spec off = { CSTATE_OFF, 0 };
	struct cstate_session *s;
	struct sigaction sa;
	sigset_t pending;
	char err[256];

	/* As a program starts (Check's child has its own handlers). */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	s = cstate_run_begin(&off, 0, "x", err, sizeof(err));
	ck_assert_ptr_nonnull(s);
	sigaction(SIGPIPE, NULL, &sa);
	ck_assert_ptr_eq((void *)sa.sa_handler, (void *)SIG_IGN);
	raise(SIGPIPE);			/* does not kill */
	kill(getpid(), SIGHUP);		/* does not kill either */
	sigpending(&pending);
	ck_assert_int_eq(sigismember(&pending, SIGTERM), 1);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 1);
	ck_assert_int_eq(cstate_end(s), 0);
	ck_assert_int_eq(fake_sysfs_disabled(0, 2), 0);
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
	tcase_add_test(tc, effect_with_states);
	tcase_add_test(tc, governor_setting);
	tcase_add_test(tc, attributes_not_links);
	tcase_add_test(tc, haltpoll_and_busy_poll);
	tcase_add_test(tc, cpu_scope_is_per_cpu);
	tcase_add_test(tc, system_spelling);
	tcase_add_test(tc, names_with_spaces);
	tcase_add_test(tc, starttime_parsing);
	tcase_add_test(tc, reused_pid_is_dead);
	tcase_add_test(tc, bad_line_moves_file_aside);
	tcase_add_test(tc, two_holders);
	tcase_add_test(tc, dead_holder_then_live);
	tcase_add_test(tc, run_signals);
	suite_add_tcase(s, tc);
	return s;
}
