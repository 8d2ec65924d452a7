// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing helpers that need no kernel: the turbostat parser on output in
 * the formats turbostat prints (tests/fixtures/turbostat), /proc/stat
 * parsing, residency from counter snapshots, trace metadata validation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "residency.h"
#include "tracefile.h"
#include "turbostat.h"

static char *fixture(const char *name)
{
	char path[256];
	FILE *f;
	char *buf = calloc(1, 65536);

	snprintf(path, sizeof(path), "tests/fixtures/turbostat/%s", name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "missing %s (run from the top directory)", path);
	ck_assert_uint_gt(fread(buf, 1, 65535, f), 0);
	fclose(f);
	return buf;
}

static const char *cell(const struct ts_table *t, size_t row, const char *col)
{
	int c = turbostat_col(t, col);

	ck_assert_int_ge(c, 0);
	return t->rows[row].val[c];
}

/* Around a command: "N sec" line, Package/Core/CPU, summary row, short
 * sibling rows. */
START_TEST(turbostat_command_output)
{
	char *text = fixture("command.txt");
	struct ts_table t;

	ck_assert_int_eq(turbostat_parse(text, &t), 5);
	ck_assert_int_eq(t.ncols, 25);
	ck_assert_str_eq(t.cols[0], "Package");
	ck_assert_str_eq(cell(&t, 0, "CPU"), "-");	/* summary */
	ck_assert_str_eq(cell(&t, 0, "C6%"), "98.14");
	ck_assert_str_eq(cell(&t, 3, "Busy%"), "99.98");
	/* The sibling row stops after the thread columns (CPU%c1): the
	 * core and package columns belong to the first thread. */
	ck_assert_str_eq(cell(&t, 2, "CPU%c1"), "5.15");
	ck_assert_ptr_null(cell(&t, 2, "CPU%c6"));
	ck_assert_ptr_null(cell(&t, 2, "CoreTmp"));
	ck_assert_ptr_null(cell(&t, 2, "PkgWatt"));
	ck_assert_int_eq(t.rows[4].sample, 1);
	ck_assert_uint_eq(t.bad, 0);
	turbostat_free(&t);
	free(text);
}
END_TEST

/* --interval: a header per sample. */
START_TEST(turbostat_interval_output)
{
	char *text = fixture("interval.txt");
	struct ts_table t;

	ck_assert_int_eq(turbostat_parse(text, &t), 6);
	ck_assert_int_eq(t.ncols, 13);
	ck_assert_int_eq(t.rows[0].sample, 1);
	ck_assert_int_eq(t.rows[3].sample, 2);
	ck_assert_str_eq(cell(&t, 3, "Busy%"), "0.20");
	ck_assert_str_eq(cell(&t, 5, "CPU%c6"), "99.48");
	ck_assert_ptr_null(cell(&t, 5, "PkgWatt"));
	turbostat_free(&t);
	free(text);
}
END_TEST

/* --show with --Summary: no topology columns at all. */
START_TEST(turbostat_show_summary)
{
	char *text = fixture("show-summary.txt");
	struct ts_table t;

	ck_assert_int_eq(turbostat_parse(text, &t), 2);
	ck_assert_int_eq(t.ncols, 4);
	ck_assert_str_eq(cell(&t, 1, "CPU%c6"), "98.49");
	turbostat_free(&t);
	free(text);
}
END_TEST

/* Debug lines before the table are skipped; CSV out round trip. */
START_TEST(turbostat_preamble_and_csv)
{
	char *text = fixture("debug-preamble.txt");
	char path[] = "/tmp/wb-ts-XXXXXX", line[256];
	struct ts_table t;
	FILE *f;
	int fd = mkstemp(path);

	close(fd);
	ck_assert_int_eq(turbostat_parse(text, &t), 3);
	ck_assert_str_eq(t.cols[0], "Core");
	ck_assert_int_eq(turbostat_write_csv(&t, path), 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_str_eq(line, "sample,Core,CPU,Busy%,POLL%,C1%,C6%\n");
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_str_eq(line, "1,-,-,0.52,0.00,0.40,99.08\n");
	fclose(f);
	unlink(path);
	turbostat_free(&t);
	free(text);
}
END_TEST

START_TEST(turbostat_rejects)
{
	struct ts_table t;

	/* No header at all: turbostat failed ("Failed to set rlimit"). */
	ck_assert_int_eq(turbostat_parse("turbostat: Failed to set rlimit\n", &t), -EINVAL);
	turbostat_free(&t);
	/* A row longer than its header is counted and skipped. */
	ck_assert_int_eq(turbostat_parse("A\tB\n1\t2\n1\t2\t3\n", &t), 1);
	ck_assert_uint_eq(t.bad, 1);
	turbostat_free(&t);
	/* A column named twice (found by fuzzing: leaked the first value). */
	ck_assert_int_eq(turbostat_parse("A\tA\n1\t2\n", &t), 1);
	ck_assert_int_eq(t.ncols, 1);
	ck_assert_str_eq(t.rows[0].val[0], "2");
	turbostat_free(&t);
	/* Rows before any header are bad too. */
	ck_assert_int_eq(turbostat_parse("1\t2\nA\tB\n3\t4\n", &t), 1);
	ck_assert_uint_eq(t.bad, 1);
	turbostat_free(&t);
}
END_TEST

START_TEST(proc_stat_parsing)
{
	const char *text =
		"cpu  100 0 50 1000 10 0 5 0 0 0\n"
		"cpu0 60 1 30 400 4 2 3 1 7 0\n"
		"cpu1 40 0 20 600 6 0 2 0 0 0\n"
		"intr 12345\nctxt 999\n";
	struct res_cpu c[2] = { 0 };

	ck_assert_int_eq(residency_parse_proc_stat(text, c, 2), 2);
	ck_assert_uint_eq(c[0].proc_idle, 404);
	ck_assert_uint_eq(c[0].proc_total, 60 + 1 + 30 + 400 + 4 + 2 + 3 + 1);
	ck_assert_uint_eq(c[1].proc_idle, 606);
	ck_assert_int_eq(residency_parse_proc_stat(text, c, 1), 1);
}
END_TEST

START_TEST(residency_rows)
{
	struct res_cpu a[1] = { 0 }, b[1] = { 0 };
	struct res_snap sa = { 1, 0, a }, sb = { 1, 1000000000, b };
	struct res_row rows[8];
	int n;

	/* cpuidle counters: POLL 10 ms, C6 700 ms over 1 s -> C0 29 %. */
	a[0].nstates = b[0].nstates = 2;
	strcpy(a[0].name[0], "POLL");
	strcpy(a[0].name[1], "C6");
	b[0].usage[0] = 5;
	b[0].time_us[0] = 10000;
	b[0].usage[1] = 50;
	b[0].time_us[1] = 700000;
	n = residency_diff(&sa, &sb, rows, 8);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(rows[1].state, "C6");
	ck_assert_double_eq_tol(rows[1].percent, 70, 1e-9);
	ck_assert_uint_eq(rows[1].usage, 50);
	ck_assert_str_eq(rows[2].state, "C0");
	ck_assert_double_eq_tol(rows[2].percent, 29, 1e-9);
	/* No cpuidle states: /proc/stat idle over the wall clock (1 s). */
	a[0].nstates = b[0].nstates = 0;
	a[0].proc_idle = 100;
	a[0].proc_total = 200;
	b[0].proc_idle = 100 + residency_user_hz() * 3 / 4;
	b[0].proc_total = 250;	/* the tick sum does not count */
	n = residency_diff(&sa, &sb, rows, 8);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(rows[0].state, "idle");
	ck_assert_double_eq_tol(rows[0].percent, 75, 1e-9);
	ck_assert_str_eq(rows[0].source, "proc-stat");
	ck_assert_double_eq_tol(rows[1].percent, 25, 1e-9);
}
END_TEST

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

START_TEST(trace_meta_validation)
{
	char dir[] = "/tmp/wb-meta-XXXXXX", err[512];
	struct trace_meta m;
	char buf[32];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_lt(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "meta.txt"));
	write_file(dir, "meta.txt", "something else\n");
	ck_assert_int_lt(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	write_file(dir, "meta.txt", "wakebench-trace 1\nncpus 2\n");
	ck_assert_int_lt(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "incomplete"));
	write_file(dir, "meta.txt", "wakebench-trace 1\nclock mono\nncpus 2\n"
		   "start_ns 10\nend_ns 20\nsubbuf_size 4096\nstate 1 2 C6\n"
		   "missed 1 3 4\n");
	ck_assert_int_eq(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	ck_assert_uint_eq(m.ncpus, 2);
	ck_assert_str_eq(m.clock, "mono");
	ck_assert_str_eq(tracefile_state_name(&m, 1, 2, buf, sizeof(buf)), "C6");
	ck_assert_str_eq(tracefile_state_name(&m, 0, 2, buf, sizeof(buf)), "state2");
	ck_assert_str_eq(tracefile_state_name(&m, 0, -1, buf, sizeof(buf)), "C0");
	ck_assert_str_eq(tracefile_state_name(&m, 0, -2, buf, sizeof(buf)), "unknown");
	ck_assert_uint_eq(m.overrun[1], 3);
	ck_assert_uint_eq(m.dropped[1], 4);
	tracefile_meta_free(&m);
	write_file(dir, "meta.txt", "");
	unlink(strcat(strcpy(err, dir), "/meta.txt"));
	rmdir(dir);
}
END_TEST

Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("offline");

	tcase_add_test(tc, turbostat_command_output);
	tcase_add_test(tc, turbostat_interval_output);
	tcase_add_test(tc, turbostat_show_summary);
	tcase_add_test(tc, turbostat_preamble_and_csv);
	tcase_add_test(tc, turbostat_rejects);
	tcase_add_test(tc, proc_stat_parsing);
	tcase_add_test(tc, residency_rows);
	tcase_add_test(tc, trace_meta_validation);
	suite_add_tcase(s, tc);
	return s;
}
