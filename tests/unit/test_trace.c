// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing helpers that need no kernel: the turbostat parser on output in
 * the formats turbostat prints (tests/fixtures/turbostat), /proc/stat
 * parsing, residency from counter snapshots, trace metadata validation,
 * trace.dat written and read back through libtracecmd (lib/tracedat).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "csvread.h"
#include "reqlog.h"
#include "residency.h"
#include "timeline.h"
#include "tracefile.h"
#include "traceout.h"
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

/* ---- ring-buffer pages and trace decoding ------------------------------ */

#define FIXTURE "tests/fixtures/trace/real"
#define PG 4096

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* A page: time 1000, commit `commit`, data zeroed. */
static uint8_t *blank_page(uint64_t commit)
{
	uint8_t *p = calloc(1, PG);

	put64(p, 1000);
	put64(p + 8, commit);
	return p;
}

static long walk(const uint8_t *p, size_t *bad, char *err)
{
	*bad = 0;
	return tracefile_page_walk(p, PG, 8, NULL, NULL, NULL, bad, err, 256);
}

static uint8_t *read_fixture_page(int n)
{
	uint8_t *p = malloc(PG);
	FILE *f = fopen(FIXTURE "/cpu0.raw", "rb");

	ck_assert_msg(f != NULL, "missing " FIXTURE " (run from the top directory)");
	ck_assert_int_eq(fseek(f, (long)n * PG, SEEK_SET), 0);
	ck_assert_uint_eq(fread(p, 1, PG, f), PG);
	fclose(f);
	return p;
}

struct seen {
	uint64_t last_ts;
	int n, ordered;
};

static int count_ev(void *ctx, const struct tf_event *ev)
{
	struct seen *s = ctx;

	if (ev->ts < s->last_ts)
		s->ordered = 0;
	s->last_ts = ev->ts;
	s->n++;
	return s->n == 1000 ? -ECANCELED : 0;
}

/* Two pages recorded on this VM: 44 and 53 events, in time order. */
START_TEST(page_walk_real_pages)
{
	char err[256];
	size_t bad;
	struct tf_page info;

	for (int k = 0; k < 2; k++) {
		uint8_t *p = read_fixture_page(k);
		struct seen s = { .ordered = 1 };

		ck_assert_int_eq(tracefile_page_walk(p, PG, 8, count_ev, &s, &info,
						     &bad, err, sizeof(err)),
				 k ? 53 : 44);
		ck_assert_int_eq(s.n, k ? 53 : 44);
		ck_assert(s.ordered);
		ck_assert_uint_eq(info.missed, 0);
		free(p);
	}
}
END_TEST

/* Issue 21 §2: a commit of 0x7fffffff made the reader run off the page. */
START_TEST(page_walk_rejects_bad_lengths)
{
	char err[256];
	size_t bad;
	uint8_t *p = read_fixture_page(0);

	put64(p + 8, 0x7fffffff);
	ck_assert_int_eq(walk(p, &bad, err), -EBADMSG);
	ck_assert_uint_eq(bad, 8);
	ck_assert_ptr_nonnull(strstr(err, "commit 0x7fffffff"));
	free(p);

	/* A 12-byte event in 8 bytes of data. */
	p = blank_page(8);
	put32(p + 16, 3);
	ck_assert_int_eq(walk(p, &bad, err), -EBADMSG);
	ck_assert_uint_eq(bad, 16);
	ck_assert_ptr_nonnull(strstr(err, "runs past the end of data"));
	free(p);

	/* type_len 0 with a length below its own word, and one past the end. */
	p = blank_page(64);
	put32(p + 16, 0);
	put32(p + 20, 2);
	ck_assert_int_eq(walk(p, &bad, err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "event length 2"));
	put32(p + 20, 0xfffffff0);
	ck_assert_int_eq(walk(p, &bad, err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "runs past"));
	free(p);

	/* A time extend cut by the end of the data, and a header cut. */
	p = blank_page(4);
	put32(p + 16, 30);
	ck_assert_int_eq(walk(p, &bad, err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "time stamp cut"));
	put64(p + 8, 2);
	ck_assert_int_eq(walk(p, &bad, err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "header cut"));
	free(p);

	/* Missed events stored after a full page of data: no room. */
	p = blank_page((PG - 16) | (1ull << 31) | (1ull << 30));
	ck_assert_int_eq(walk(p, &bad, err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "missed-events"));
	free(p);

	/* Shorter than its header; bad commit size. */
	p = blank_page(0);
	ck_assert_int_eq(tracefile_page_walk(p, 10, 8, NULL, NULL, NULL, &bad, err,
					     sizeof(err)), -EBADMSG);
	ck_assert_int_eq(tracefile_page_walk(p, PG, 2, NULL, NULL, NULL, &bad, err,
					     sizeof(err)), -EBADMSG);
	free(p);
}
END_TEST

START_TEST(page_walk_time_and_padding)
{
	char err[256];
	size_t bad;
	struct tf_page info;
	struct seen s = { .ordered = 1 };
	/* 4-byte commit word (12-byte header): an event (delta 5), a time
	 * extend (+ (1 << 27)), an event (delta 0), padding to the end. */
	uint8_t *p = calloc(1, PG);

	put64(p, 1000);
	put32(p + 8, 40 | (1u << 31) | (1u << 30));
	put32(p + 12, 2 | 5 << 5);		/* 8 bytes of data */
	put32(p + 24, 30);
	put32(p + 28, 1);
	put32(p + 32, 1);			/* 4 bytes */
	put32(p + 40, 29 | 1 << 5);		/* padding of 8 */
	put32(p + 44, 8);
	put32(p + 52, 77);			/* the missed count */
	ck_assert_int_eq(tracefile_page_walk(p, PG, 4, count_ev, &s, &info, &bad,
					     err, sizeof(err)), 2);
	ck_assert_uint_eq(s.last_ts, 1005 + (1ull << 27));
	ck_assert_uint_eq(info.missed, 77);
	ck_assert_uint_eq(info.data_len, 40);
	free(p);
}
END_TEST

static void run(const char *cmd)
{
	ck_assert_int_eq(system(cmd), 0);
}

/* A copy of the fixture trace in a new directory. */
static void fixture_copy(char *dir)
{
	char cmd[512];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -r " FIXTURE "/. %s/", dir);
	run(cmd);
}


static void patch(const char *dir, const char *file, long off, const void *b,
		  size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r+b");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, off, SEEK_SET), 0);
	ck_assert_uint_eq(fwrite(b, 1, n, f), n);
	fclose(f);
}

static int decode_dir(const char *dir, int skip, struct tf_decode *o,
		      char *err, size_t errlen)
{
	struct trace_meta m;
	struct timeline *t;
	int ret;

	ck_assert_int_eq(tracefile_meta(dir, &m, err, errlen), 0);
	t = timeline_new(m.ncpus, m.start_ns);
	memset(o, 0, sizeof(*o));
	o->skip_corrupt = skip;
	ret = tracefile_decode_opts(dir, &m, t, o, err, errlen);
	timeline_free(t);
	tracefile_meta_free(&m);
	return ret;
}

START_TEST(decode_corrupt_and_truncated)
{
	char dir[] = "/tmp/wb-tf-XXXXXX", err[6000];
	struct tf_decode o;
	uint64_t bad_commit = 0x7fffffff;
	uint8_t tail[100] = { 0 };

	fixture_copy(dir);
	ck_assert_int_eq(decode_dir(dir, 0, &o, err, sizeof(err)), 0);
	ck_assert_uint_eq(o.recorded, 97);
	ck_assert_uint_eq(o.fed, 97);
	ck_assert_uint_eq(o.pages, 2);

	/* Page 1's commit: an error naming file, CPU, page and offset. */
	patch(dir, "cpu0.raw", PG + 8, &bad_commit, 8);
	ck_assert_int_eq(decode_dir(dir, 0, &o, err, sizeof(err)), -EBADMSG);
	ck_assert_msg(strstr(err, "cpu0.raw: CPU 0, page 1, offset 4104") != NULL,
		      "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "commit 0x7fffffff"));
	ck_assert_int_eq(decode_dir(dir, 1, &o, err, sizeof(err)), 0);
	ck_assert_uint_eq(o.corrupt_pages, 1);
	ck_assert_uint_eq(o.recorded, 44);
	ck_assert_ptr_nonnull(strstr(o.first_corrupt, "page 1"));
	ck_assert_int_eq(unit_rmtree(dir), 0);

	/* A truncated last page is an error, never dropped silently. */
	strcpy(dir, "/tmp/wb-tf-XXXXXX");
	fixture_copy(dir);
	patch(dir, "cpu0.raw", 2 * PG, tail, sizeof(tail));
	ck_assert_int_eq(decode_dir(dir, 0, &o, err, sizeof(err)), -EBADMSG);
	ck_assert_msg(strstr(err, "CPU 0, page 2, offset 8192: truncated page (100 of 4096 bytes)") != NULL,
		      "%s", err);
	ck_assert_int_eq(decode_dir(dir, 1, &o, err, sizeof(err)), 0);
	ck_assert_uint_eq(o.corrupt_pages, 1);
	ck_assert_uint_eq(o.recorded, 97);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* Events too short for their fields (cpu_idle is id 568 in the fixture). */
START_TEST(decode_short_events)
{
	char dir[] = "/tmp/wb-tf-XXXXXX", err[6000];
	struct tf_decode o;
	uint8_t *p = blank_page(12);
	char path[512];
	FILE *f;

	fixture_copy(dir);
	put64(p, 3499835238430ull);	/* inside the recording (meta.txt) */
	put32(p + 16, 2);		/* 8 bytes: the common header only */
	put32(p + 20, 568);
	snprintf(path, sizeof(path), "%s/cpu0.raw", dir);
	f = fopen(path, "wb");
	ck_assert_uint_eq(fwrite(p, 1, PG, f), PG);
	fclose(f);
	ck_assert_int_eq(decode_dir(dir, 0, &o, err, sizeof(err)), -EBADMSG);
	ck_assert_msg(strstr(err, "page 0, offset 16 (byte 16 of the page): power:cpu_idle state field outside the 8-byte event") != NULL,
		      "%s", err);
	put32(p + 16, 1);		/* 4 bytes */
	f = fopen(path, "wb");
	ck_assert_uint_eq(fwrite(p, 1, PG, f), PG);
	fclose(f);
	ck_assert_int_eq(decode_dir(dir, 0, &o, err, sizeof(err)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "shorter than the common header"));
	free(p);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* Replaces the first "from" in DIR/FILE by "to" (the file's text). */
static void edit(const char *dir, const char *file, const char *from,
		 const char *to)
{
	char path[512], buf[8192], out[8400], *at;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	at = strstr(buf, from);
	ck_assert_msg(at != NULL, "no '%s' in %s", from, path);
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - buf), buf, to,
		 at + strlen(from));
	write_file(dir, file, out);
}

/*
 * A meta.txt or formats/ that lies is refused by the reader every
 * command uses (timeline, attribute, both exports, report through
 * timeline), never read into wrong numbers: each of these decoded with
 * exit 0 before.
 */
START_TEST(decode_refuses_lying_meta)
{
	char dir[] = "/tmp/wb-tf-XXXXXX", err[6000];
	struct tf_decode o;

	/* 8192-byte pages on the kernel's 4096: half the events were lost
	 * (53 of 97 read) */
	fixture_copy(dir);
	edit(dir, "meta.txt", "subbuf_size 4096", "subbuf_size 8192");
	ck_assert_int_eq(decode_dir(dir, 0, &o, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "meta.txt: subbuf_size 8192: 8192-byte pages, but the trace's formats/header_page declares 4096-byte ones") != NULL,
		      "%s", err);
	ck_assert_int_eq(decode_dir(dir, 1, &o, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(unit_rmtree(dir), 0);

	/* cpu_idle with irq_handler_entry's id: IRQ 41 was read as a stay
	 * in "state41" */
	strcpy(dir, "/tmp/wb-tf-XXXXXX");
	fixture_copy(dir);
	edit(dir, "formats/power/cpu_idle/format", "ID: 568", "ID: 225");
	ck_assert_int_eq(decode_dir(dir, 0, &o, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "id 225, as in ") != NULL &&
		      strstr(err, "formats/power/cpu_idle/format") != NULL &&
		      strstr(err, "formats/irq/irq_handler_entry/format") != NULL &&
		      strstr(err, "contradict each other") != NULL, "%s", err);
	ck_assert_int_eq(unit_rmtree(dir), 0);

	/* start_ns after every event: an empty SocWatch export before */
	strcpy(dir, "/tmp/wb-tf-XXXXXX");
	fixture_copy(dir);
	edit(dir, "meta.txt", "start_ns 3499835238430", "start_ns 3500091168609");
	ck_assert_int_eq(decode_dir(dir, 0, &o, err, sizeof(err)), -EBADMSG);
	ck_assert_msg(strstr(err, "cpu0.raw: CPU 0, page 0, offset 16 (byte 16 of the page): event at ") != NULL &&
		      strstr(err, "ns, outside the recording (meta.txt: start_ns 3500091168609, end_ns 3500091168609)") != NULL,
		      "%s", err);
	/* --skip-corrupt: every page left out, and counted */
	ck_assert_int_eq(decode_dir(dir, 1, &o, err, sizeof(err)), 0);
	ck_assert_uint_eq(o.corrupt_pages, 2);
	ck_assert_uint_eq(o.fed, 0);
	ck_assert_ptr_nonnull(strstr(o.first_corrupt, "outside the recording"));

	/* end_ns before the last event */
	edit(dir, "meta.txt", "start_ns 3500091168609", "start_ns 3499835238430");
	ck_assert_int_eq(decode_dir(dir, 0, &o, err, sizeof(err)), 0);
	edit(dir, "meta.txt", "end_ns 3500091168609", "end_ns 3500000000000");
	ck_assert_int_eq(decode_dir(dir, 0, &o, err, sizeof(err)), -EBADMSG);
	ck_assert_msg(strstr(err, "outside the recording (meta.txt: start_ns 3499835238430, end_ns 3500000000000)") != NULL,
		      "%s", err);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* lib/traceout: the files made from a trace, removed and dated by one
 * table (trace timeline's cstate-cpuN.csv for any N, no other name). */
START_TEST(traceout_table)
{
	char dir[] = "/tmp/wb-to-XXXXXX", err[1024], path[600];
	static const char *const ours[] = { "residency.csv", "cstate-cpu0.csv",
		"cstate-cpu4095.csv", "attribution-summary.csv", "breakdown.csv" };
	static const char *const others[] = { "cstate-cpu.csv", "cstate-cpu01.csv",
		"cstate-cpux.csv", "cstate-cpu1.csv.partial", "meta.txt", "notes.txt",
		"residency.csv~" };
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(traceout_held_trace(dir), 0);
	snprintf(path, sizeof(path), "%s/formats", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(traceout_held_trace(dir), 1);	/* a killed record's */
	ck_assert_int_eq(rmdir(path), 0);
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
		ck_assert_ptr_nonnull(traceout_match(ours[i]));
		write_file(dir, ours[i], "x\n");
	}
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		ck_assert_msg(!traceout_match(others[i]), "%s", others[i]);
		write_file(dir, others[i], "wakebench-trace 1\n");
	}
	ck_assert_int_eq(traceout_held_trace(dir), 1);	/* meta.txt */
	ck_assert_str_eq(traceout_match("breakdown.csv")->writer,
			 "wakebench trace attribute DIR --requests ...");
	/* fresh: nothing older than meta.txt */
	ck_assert_int_eq(traceout_check_fresh(dir, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/cstate-cpu4095.csv", dir);
	ck_assert_int_eq(utimensat(AT_FDCWD, path, old, 0), 0);
	ck_assert_int_eq(traceout_check_fresh(dir, err, sizeof(err)), -ESTALE);
	snprintf(path, sizeof(path), "%s/cstate-cpu4095.csv is older than %s/meta.txt: it was made from an earlier trace; run 'wakebench trace timeline %s' again",
		 dir, dir, dir);
	ck_assert_msg(strstr(err, path) != NULL, "%s", err);
	/* removed: ours all, the others none */
	ck_assert_int_eq(traceout_remove(dir, err, sizeof(err)), 5);
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ours[i]);
		ck_assert_int_ne(access(path, F_OK), 0);
	}
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, others[i]);
		ck_assert_int_eq(access(path, F_OK), 0);
	}
	ck_assert_int_eq(traceout_check_fresh(dir, err, sizeof(err)), 0);
	ck_assert_int_eq(traceout_remove(dir, err, sizeof(err)), 0);
	ck_assert_int_eq(unit_rmtree(dir), 0);
	/* a directory without a trace */
	ck_assert_int_eq(traceout_remove("/nonexistent/wb", err, sizeof(err)), 0);
	ck_assert_int_eq(traceout_check_fresh("/nonexistent/wb", err, sizeof(err)), -ENOENT);
}
END_TEST

/* Kernel state names are kept whole: "haltpoll idle", even with a comma. */
START_TEST(meta_state_names_whole)
{
	char dir[] = "/tmp/wb-meta-XXXXXX", err[512], buf[32];
	struct trace_meta m;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "meta.txt", "wakebench-trace 1\nncpus 2\nstart_ns 1\nend_ns 2\n"
		   "subbuf_size 4096\nstate 0 0 POLL\nstate 0 1 haltpoll idle\n"
		   "state 1 1 deep, \"odd\" state  \nstate 1 40 far\n");
	ck_assert_int_eq(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	ck_assert_str_eq(tracefile_state_name(&m, 0, 1, buf, sizeof(buf)), "haltpoll idle");
	ck_assert_str_eq(tracefile_state_name(&m, 1, 1, buf, sizeof(buf)),
			 "deep, \"odd\" state");
	ck_assert_str_eq(tracefile_state_name(&m, 0, 0, buf, sizeof(buf)), "POLL");
	tracefile_meta_free(&m);
	/* Bad lines are errors with their line number. */
	write_file(dir, "meta.txt", "wakebench-trace 1\nncpus 2\nstart_ns x\n");
	ck_assert_int_lt(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "meta.txt:3: bad start_ns 'x'"));
	write_file(dir, "meta.txt", "wakebench-trace 1\nncpus 2\nstate 5 1 C1\n");
	ck_assert_int_lt(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "meta.txt:3: bad state line"));
	write_file(dir, "meta.txt", "wakebench-trace 1\nncpus 2\nsubbuf_size 7\n");
	ck_assert_int_lt(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "bad subbuf_size"));
	write_file(dir, "meta.txt", "wakebench-trace 1\nncpus -1\n");
	ck_assert_int_lt(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	/* the largest kernels' 8192 CPUs (trace record writes the host's
	 * count; 4096 was the limit) */
	write_file(dir, "meta.txt", "wakebench-trace 1\nncpus 8192\nstart_ns 1\nend_ns 2\n"
		   "subbuf_size 4096\nstate 8191 1 C1\n");
	ck_assert_msg(!tracefile_meta(dir, &m, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(m.ncpus, 8192);
	ck_assert_str_eq(tracefile_state_name(&m, 8191, 1, buf, sizeof(buf)), "C1");
	tracefile_meta_free(&m);
	write_file(dir, "meta.txt", "wakebench-trace 1\nncpus 8193\n");
	ck_assert_int_lt(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "bad ncpus '8193' (1-8192, once)"));
	unlink(strcat(strcpy(err, dir), "/meta.txt"));
	rmdir(dir);
}
END_TEST

/* ---- strict CSV reading -------------------------------------------------- */

START_TEST(csvread_fields_and_numbers)
{
	char line[] = "a,\"b,\"\"c\"\"\",,d\r\n", bad[] = "a,b\"c", bad2[] = "\"x\"y,1";
	char *f[8], err[128];
	uint64_t v;

	ck_assert_int_eq(csvr_split(line, f, 8), 4);
	ck_assert_str_eq(f[1], "b,\"c\"");
	ck_assert_str_eq(f[2], "");
	ck_assert_str_eq(f[3], "d");
	ck_assert_int_eq(csvr_col(f, 4, "d"), 3);
	ck_assert_int_eq(csvr_col(f, 4, "e"), -1);
	ck_assert_int_eq(csvr_split(bad, f, 8), -EINVAL);
	ck_assert_int_eq(csvr_split(bad2, f, 8), -EINVAL);
	strcpy(line, "1,2,3");
	ck_assert_int_eq(csvr_split(line, f, 2), -E2BIG);
	ck_assert_int_eq(csvr_u64("4294967295", UINT64_MAX, &v, err, sizeof(err)), 0);
	ck_assert_uint_eq(v, 4294967295u);
	ck_assert_int_eq(csvr_u64("18446744073709551615", UINT64_MAX, &v, err, sizeof(err)), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(csvr_u64("18446744073709551616", UINT64_MAX, &v, err, sizeof(err)), -ERANGE);
	ck_assert_int_eq(csvr_u64("-1", UINT64_MAX, &v, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "'-1' is not an unsigned integer");
	ck_assert_int_eq(csvr_u64("-2147483648", UINT64_MAX, &v, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(csvr_u64("abc", UINT64_MAX, &v, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(csvr_u64(" 1", UINT64_MAX, &v, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(csvr_u64("1e3", UINT64_MAX, &v, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(csvr_u64("", UINT64_MAX, &v, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(csvr_u64("11", 10, &v, err, sizeof(err)), -ERANGE);
}
END_TEST

#define CLIENT_HDR "seq,intended_ns,sent_ns,recv_ns,latency_ns,service_ns,server_recv_ns," \
	"server_send_ns,prequery_sent_ns,status,prequery_lead_us\n"

/* A client file's first row joined, or the read's error. */
static int join1(const char *path, int by_seq, uint64_t seq, uint64_t recv,
		 uint64_t send, struct cli_row *row, char *err)
{
	struct reqlog_join *j;
	int ret = reqlog_join_open(path, by_seq, &j, err, 512);

	if (ret)
		return ret;
	ret = reqlog_join_find(j, seq, recv, send, row, err, 512);
	reqlog_join_close(j);
	return ret;
}

/* Issue 21 §3: seq -1 and -2147483648 looped forever, 4294967295 ran out
 * of memory, "abc" was skipped: now FILE:LINE errors, and any u64 seq. */
START_TEST(client_rows_checked)
{
	char dir[] = "/tmp/wb-cl-XXXXXX", path[256], err[512];
	struct reqlog_join *j;
	struct cli_row row;
	static const struct { const char *seq, *msg; } bad[] = {
		{ "-1", ":3: column 'seq': '-1' is not an unsigned integer" },
		{ "-2147483648", ":3: column 'seq': '-2147483648' is not an unsigned integer" },
		{ "abc", ":3: column 'seq': 'abc' is not an unsigned integer" },
		{ "18446744073709551616", ":3: column 'seq': '18446744073709551616' is out of range" },
	};

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/requests.csv", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[1024];

		snprintf(text, sizeof(text), CLIENT_HDR "0,1,2,3,40,5,6,7,,ok,0\n"
			 "%s,1,2,3,40,5,6,7,,ok,0\n", bad[i].seq);
		write_file(dir, "requests.csv", text);
		for (int by_seq = 0; by_seq < 2; by_seq++) {
			ck_assert_int_eq(join1(path, by_seq, 0, 6, 7, &row, err), -EINVAL);
			ck_assert_msg(strstr(err, bad[i].msg) && !strncmp(err, path, strlen(path)),
				      "%s", err);
		}
	}
	/* A huge seq is just a number; an unanswered row has empty fields. */
	write_file(dir, "requests.csv", CLIENT_HDR "4294967295,1,2,3,40,5,6,7,,ok,0\n"
		   "18446744073709551615,1,2,,,,,,,lost,0\n");
	ck_assert_int_eq(reqlog_join_open(path, 1, &j, err, sizeof(err)), 0);
	ck_assert_int_eq(reqlog_join_find(j, 4294967295u, 6, 7, &row, err, sizeof(err)), 1);
	ck_assert_uint_eq(row.latency_ns, 40);
	ck_assert_int_eq(reqlog_join_find(j, UINT64_MAX, 6, 7, &row, err, sizeof(err)), 1);
	ck_assert_uint_eq(row.latency_ns, 0);
	ck_assert_int_eq(reqlog_join_find(j, 5, 6, 7, &row, err, sizeof(err)), 0);
	reqlog_join_close(j);
	ck_assert_int_eq(join1(path, 0, 0, 6, 7, &row, err), 1);
	ck_assert_uint_eq(row.seq, 4294967295u);
	ck_assert_int_eq(join1(path, 0, 0, 6, 8, &row, err), 0);
	/* A header alone: no rows. */
	write_file(dir, "requests.csv", CLIENT_HDR);
	ck_assert_int_eq(join1(path, 1, 0, 6, 7, &row, err), 0);
	ck_assert_int_eq(join1(path, 0, 0, 6, 7, &row, err), 0);
	/* Other bad rows: a bad latency, a short row, a repeated seq. */
	write_file(dir, "requests.csv", CLIENT_HDR "1,1,2,3,4x,5,6,7,,ok,0\n");
	ck_assert_int_eq(join1(path, 0, 1, 6, 7, &row, err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, ":2: column 'latency_ns': '4x'"));
	write_file(dir, "requests.csv", CLIENT_HDR "1,1,2\n");
	ck_assert_int_eq(join1(path, 0, 1, 6, 7, &row, err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, ":2: 3 fields, the header has 11"));
	write_file(dir, "requests.csv", CLIENT_HDR "1,1,2,3,4,5,6,7,,ok,0\n2,1,2,3,4,5,8,9,,ok,0\n"
		   "1,1,2,3,4,5,6,7,,ok,0\n");
	ck_assert_int_eq(join1(path, 1, 1, 6, 7, &row, err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, ":4: seq 1 again (first on line 2)"));
	/* Two rows with the same server times cannot be told apart. */
	write_file(dir, "requests.csv", CLIENT_HDR "1,1,2,3,4,5,6,7,,ok,0\n2,1,2,3,4,5,6,7,,ok,0\n");
	ck_assert_int_eq(join1(path, 0, 1, 6, 7, &row, err), 0);
	write_file(dir, "requests.csv", "seq,foo\n1,2\n");
	ck_assert_int_eq(join1(path, 0, 1, 6, 7, &row, err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "is not a client requests.csv"));
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * The join reads ahead only so far (REQLOG_HORIZON_NS of server time) and
 * lets rows go once the server's time passed them: rows out of seq order
 * within the horizon still join, a row far behind is counted late, never
 * joined to the wrong request; rows are taken once.
 */
START_TEST(client_join_window)
{
	char dir[] = "/tmp/wb-cj-XXXXXX", path[256], err[512];
	FILE *f;
	struct reqlog_join *j;
	struct cli_row row;
	const uint64_t ms = 1000000;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/requests.csv", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(CLIENT_HDR, f);
	/* seqs 0..9999 a ms apart; seq 5000 received 0.5 ms after 5001 (two
	 * connections); seq 9000's row says 20 s before its neighbours */
	for (uint64_t i = 0; i < 10000; i++) {
		uint64_t recv = i == 5000 ? 5001 * ms + ms / 2 : i == 9000 ? 100 : i * ms + 1000;

		fprintf(f, "%llu,1,2,3,%llu,5,%llu,%llu,,ok,0\n", (unsigned long long)i,
			(unsigned long long)(i + 1), (unsigned long long)recv,
			(unsigned long long)(recv + 10));
	}
	fclose(f);
	ck_assert_int_eq(reqlog_join_open(path, 0, &j, err, sizeof(err)), 0);
	for (uint64_t i = 0; i < 10000; i++) {
		uint64_t k = i == 5000 ? 5001 : i == 5001 ? 5000 : i;
		uint64_t recv = k == 5000 ? 5001 * ms + ms / 2 : k * ms + 1000;

		if (k == 9000)
			continue;
		ck_assert_int_eq(reqlog_join_find(j, 0, recv, recv + 10, &row, err,
						  sizeof(err)), 1);
		ck_assert_uint_eq(row.seq, k);
		ck_assert_uint_eq(row.latency_ns, k + 1);
		/* taken: a second look finds nothing */
		ck_assert_int_eq(reqlog_join_find(j, 0, recv, recv + 10, &row, err,
						  sizeof(err)), 0);
	}
	ck_assert_uint_eq(reqlog_join_late(j), 1);
	reqlog_join_close(j);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(server_log_checked)
{
	char dir[] = "/tmp/wb-sl-XXXXXX", path[256], err[512];
	struct attr_msg *m;
	size_t n;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/srv.csv", dir);
	write_file(dir, "srv.csv", "seq,type,recv_ns,send_ns,service_ns,conn\n"
		   "0,prequery,100,,0,1\n0,request,100,150,0,1\n");
	ck_assert_int_eq(reqlog_read_server(path, &m, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(m[0].prequery, 1);
	ck_assert_uint_eq(m[0].send_ns, 0);
	ck_assert_uint_eq(m[1].send_ns, 150);
	free(m);
	/* a few rows out of place are put back; rows of one time keep their
	 * file order */
	write_file(dir, "srv.csv", "seq,type,recv_ns,send_ns,service_ns,conn\n"
		   "3,request,300,310,0,1\n1,request,100,110,0,1\n"
		   "2,request,200,210,0,1\n2,prequery,200,,0,1\n");
	ck_assert_int_eq(reqlog_read_server(path, &m, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(m[0].seq, 1);
	ck_assert_uint_eq(m[1].seq, 2);
	ck_assert_int_eq(m[1].prequery, 0);
	ck_assert_int_eq(m[2].prequery, 1);
	ck_assert_uint_eq(m[3].seq, 3);
	free(m);
	/* one further out of place than the reorder window is an error */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("seq,type,recv_ns,send_ns,service_ns,conn\n", f);
	for (int i = 0; i < REQLOG_REORDER + 10; i++)
		fprintf(f, "%d,request,%d,%d,0,1\n", i, 1000 + i, 1001 + i);
	fputs("9,request,5,6,0,1\n", f);
	fclose(f);
	ck_assert_int_eq(reqlog_read_server(path, &m, &n, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "not a log in receive order"), "%s", err);
	write_file(dir, "srv.csv", "seq,type,recv_ns,send_ns,service_ns,conn\n"
		   "0,request,100,150,0,1\nabc,request,100,150,0,1\n");
	ck_assert_int_eq(reqlog_read_server(path, &m, &n, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "srv.csv:3: column 'seq': 'abc' is not an unsigned integer"));
	ck_assert_ptr_null(m);
	write_file(dir, "srv.csv", "seq,type,recv_ns,send_ns,service_ns,conn\n"
		   "1,reply,100,150,0,1\n");
	ck_assert_int_eq(reqlog_read_server(path, &m, &n, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "srv.csv:2: column 'type': 'reply'"));
	write_file(dir, "srv.csv", "seq,type,recv_ns,send_ns,service_ns,conn\n"
		   "1,request,,150,0,1\n");
	ck_assert_int_eq(reqlog_read_server(path, &m, &n, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "srv.csv:2: column 'recv_ns': empty"));
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(markers_checked)
{
	uint64_t seq;
	int pq;
	char err[256];

	ck_assert_int_eq(reqlog_marker("wb recv 12", &seq, &pq, err, sizeof(err)), 1);
	ck_assert_uint_eq(seq, 12);
	ck_assert_int_eq(pq, 0);
	ck_assert_int_eq(reqlog_marker("wb pqrecv 4294967295", &seq, &pq, err, sizeof(err)), 1);
	ck_assert_int_eq(pq, 1);
	ck_assert_int_eq(reqlog_marker("wb send 3", &seq, &pq, err, sizeof(err)), 0);
	ck_assert_int_eq(reqlog_marker("wb recv -1", &seq, &pq, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(reqlog_marker("wb recv 12abc", &seq, &pq, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "'12abc' is not an unsigned integer"));
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
	tcase_add_test(tc, meta_state_names_whole);
	tcase_add_test(tc, traceout_table);
	suite_add_tcase(s, tc);
	tc = tcase_create("pages");
	tcase_add_test(tc, page_walk_real_pages);
	tcase_add_test(tc, page_walk_rejects_bad_lengths);
	tcase_add_test(tc, page_walk_time_and_padding);
	tcase_add_test(tc, decode_corrupt_and_truncated);
	tcase_add_test(tc, decode_short_events);
	tcase_add_test(tc, decode_refuses_lying_meta);
	suite_add_tcase(s, tc);
	tc = tcase_create("readers");
	tcase_add_test(tc, csvread_fields_and_numbers);
	tcase_add_test(tc, client_rows_checked);
	tcase_add_test(tc, client_join_window);
	tcase_add_test(tc, server_log_checked);
	tcase_add_test(tc, markers_checked);
	suite_add_tcase(s, tc);
	return s;
}
