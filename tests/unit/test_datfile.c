// SPDX-License-Identifier: GPL-2.0
/* lib/datfile: trace.dat written and read by wakebench's own code, and
 * lib/tracefile reading a trace whose pages are in one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "cpurec.h"
#include "datfile.h"
#include "tracedat.h"
#include "tracefile.h"

#define FIXTURE "tests/fixtures/trace/real"

static void sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * DIR: the fixture's meta.txt with ncpus set to ncpus, and a trace.dat of
 * its formats and pages (CPU 0's; the others not recorded, or recorded
 * empty with empty_rest).
 */
static void make_dat(const char *dir, uint32_t ncpus, int empty_rest)
{
	struct datfile_hdr h = { .page_size = 4096, .ncpus = ncpus };
	char path[512], err[512];
	int fds[4] = { -1, -1, -1, -1 }, fd, empty = -1;

	sh("sed 's/^ncpus 1$/ncpus %s/' " FIXTURE "/meta.txt > %s/meta.txt",
	   ncpus == 1 ? "1" : ncpus == 2 ? "2" : "4", dir);
	snprintf(h.clock, sizeof(h.clock), "mono");
	ck_assert_msg(datfile_hdr_load(&h, FIXTURE "/formats", NULL, NULL, err, sizeof(err)) == 0,
		      "%s", err);
	fds[0] = open(FIXTURE "/cpu0.raw", O_RDONLY);
	ck_assert_int_ge(fds[0], 0);
	if (empty_rest) {
		empty = open("/dev/null", O_RDONLY);
		for (uint32_t i = 1; i < ncpus; i++)
			fds[i] = empty;
	}
	snprintf(path, sizeof(path), "%s/trace.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_msg(datfile_write(fd, &h, fds, NULL, path, err, sizeof(err)) == 0, "%s", err);
	close(fd);
	close(fds[0]);
	if (empty >= 0)
		close(empty);
	datfile_hdr_free(&h);
}

struct evs {
	struct tl_event e[200];
	char str[200][64];
	int n;
};

static void stream_all(const char *dir, struct evs *v)
{
	struct tf_decode o = { .prefetch = 0 };
	struct trace_meta m;
	struct tf_stream *s;
	char err[6000];
	int ret;

	v->n = 0;
	ck_assert_msg(tracefile_meta(dir, &m, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(tracefile_stream_open(dir, &m, &o, &s, err, sizeof(err)) == 0, "%s", err);
	while ((ret = tracefile_stream_next(s, &v->e[v->n], err, sizeof(err))) > 0) {
		ck_assert_int_lt(v->n, 199);
		snprintf(v->str[v->n], sizeof(v->str[0]), "%s",
			 v->e[v->n].str ? v->e[v->n].str : "");
		v->n++;
	}
	ck_assert_msg(ret == 0, "%s", err);
	tracefile_stream_close(s);
	tracefile_meta_free(&m);
}

/* The fixture's pages in a trace.dat: the same events as from cpu0.raw,
 * and libtracecmd (trace-cmd report's reader) counts them too. */
START_TEST(datfile_fixture_same_events)
{
	char dir[] = "/tmp/wb-dat-XXXXXX", path[512], err[512];
	static struct evs a, b;
	struct tracedat_count c;
	struct datfile df;
	uint8_t rec[1];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	make_dat(dir, 1, 0);
	snprintf(path, sizeof(path), "%s/trace.dat", dir);
	ck_assert_msg(datfile_open(path, &df, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(df.version, 6);
	ck_assert_uint_eq(df.h.ncpus, 1);
	ck_assert_uint_eq(df.h.page_size, 4096);
	ck_assert_str_eq(df.h.clock, "mono");
	ck_assert_uint_eq(df.size[0], 8192);
	ck_assert_uint_eq(df.off[0] % 4096, 0);
	ck_assert_ptr_nonnull(datfile_hdr_find(&df.h, "power", "cpu_idle"));
	ck_assert_ptr_nonnull(datfile_hdr_find(&df.h, "ftrace", "print"));
	ck_assert_ptr_null(datfile_hdr_find(&df.h, "sched", "sched_switch"));
	datfile_free(&df);

	ck_assert_msg(tracedat_count(path, &c, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(c.events, 97);
	ck_assert_uint_eq(c.cpu_idle, 12);
	ck_assert_uint_eq(c.markers, 81);

	stream_all(FIXTURE, &a);
	stream_all(dir, &b);
	ck_assert_int_gt(a.n, 90);
	ck_assert_int_eq(a.n, b.n);
	for (int i = 0; i < a.n; i++) {
		ck_assert_uint_eq(a.e[i].ts, b.e[i].ts);
		ck_assert_int_eq(a.e[i].type, b.e[i].type);
		ck_assert_uint_eq(a.e[i].arg, b.e[i].arg);
		ck_assert_uint_eq(a.e[i].pid, b.e[i].pid);
		ck_assert_str_eq(a.str[i], b.str[i]);
	}
	ck_assert_int_eq(tracefile_recorded(dir, 1, rec, err, sizeof(err)), 0);
	ck_assert_int_eq(rec[0], 1);
	ck_assert_int_eq(tracefile_has_event(dir, "power", "cpu_idle"), 1);
	ck_assert_int_eq(tracefile_has_event(dir, "power", "cpu_idle_miss"), 0);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* A CPU left out (offset 0) and one recorded without events. */
START_TEST(datfile_recorded_cpus)
{
	char dir[] = "/tmp/wb-dat-XXXXXX", err[512];
	static struct evs a;
	uint8_t rec[4];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	make_dat(dir, 2, 0);
	ck_assert_int_eq(tracefile_recorded(dir, 2, rec, err, sizeof(err)), 0);
	ck_assert_int_eq(rec[0], 1);
	ck_assert_int_eq(rec[1], 0);
	make_dat(dir, 4, 1);
	ck_assert_int_eq(tracefile_recorded(dir, 4, rec, err, sizeof(err)), 0);
	ck_assert(rec[0] && rec[1] && rec[2] && rec[3]);
	stream_all(dir, &a);
	ck_assert_int_gt(a.n, 90);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* A cut, foreign or lying file: an error naming it, never a crash. */
START_TEST(datfile_rejects)
{
	char dir[] = "/tmp/wb-dat-XXXXXX", path[512], err[6000];
	struct tf_decode o = { 0 };
	struct trace_meta m;
	struct tf_stream *s;
	struct datfile df;
	struct stat sb;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	make_dat(dir, 1, 0);
	snprintf(path, sizeof(path), "%s/trace.dat", dir);
	ck_assert_int_eq(stat(path, &sb), 0);
	/* the last page cut: the table says more than the file has */
	ck_assert_int_eq(truncate(path, sb.st_size - 100), 0);
	ck_assert_int_lt(datfile_open(path, &df, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "trace.dat") && strstr(err, "truncated"), "%s", err);
	/* cut inside the formats */
	ck_assert_int_eq(truncate(path, 300), 0);
	ck_assert_int_lt(datfile_open(path, &df, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "trace.dat") && strstr(err, "byte"), "%s", err);
	ck_assert_int_eq(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	ck_assert_int_lt(tracefile_stream_open(dir, &m, &o, &s, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "trace.dat"), "%s", err);
	tracefile_meta_free(&m);
	/* not a trace.dat */
	ck_assert_int_lt(datfile_open(FIXTURE "/cpu0.raw", &df, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "cpu0.raw") && strstr(err, "magic"), "%s", err);
	/* meta.txt and the file disagree on the page size */
	make_dat(dir, 1, 0);
	sh("sed -i 's/^subbuf_size 4096$/subbuf_size 8192/' %s/meta.txt%s", dir, "");
	ck_assert_int_eq(tracefile_meta(dir, &m, err, sizeof(err)), 0);
	ck_assert_int_lt(tracefile_stream_open(dir, &m, &o, &s, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "page"), "%s", err);
	tracefile_meta_free(&m);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* --event-rate's buffer: 1 s of 32-byte events, 1024 KB to 1 GiB. */
START_TEST(cpurec_buffer_sizing)
{
	ck_assert_uint_eq(cpurec_buffer_kb(100000, 0.5), 3125);
	ck_assert_uint_eq(cpurec_buffer_kb(1000, 0.5), 1024);
	ck_assert_uint_eq(cpurec_buffer_kb(0, 0.5), 1024);
	ck_assert_uint_eq(cpurec_buffer_kb(-5, 0.5), 1024);
	ck_assert_uint_eq(cpurec_buffer_kb(1e12, 0.5), 1048576);
	ck_assert_uint_eq(cpurec_buffer_kb(1e6, 0.5), 31250);
}
END_TEST

Suite *datfile_suite(void)
{
	Suite *s = suite_create("datfile");
	TCase *tc = tcase_create("datfile");

	tcase_add_test(tc, datfile_fixture_same_events);
	tcase_add_test(tc, datfile_recorded_cpus);
	tcase_add_test(tc, datfile_rejects);
	tcase_add_test(tc, cpurec_buffer_sizing);
	suite_add_tcase(s, tc);
	return s;
}
