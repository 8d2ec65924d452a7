// SPDX-License-Identifier: GPL-2.0
/* Result files appear under their names all together, or not at all;
 * the client's records stream through a spool without a name. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "csv.h"
#include "spool.h"
#include "stage.h"
#include "wfile.h"

static char dir[64];

static void mkscratch(void)
{
	snprintf(dir, sizeof(dir), "/tmp/wb-unit-stage-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static int exists(const char *name)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

START_TEST(commit_places_all)
{
	struct stage *st;
	char tmp[128], err[256];

	mkscratch();
	st = stage_new(dir);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(stage_add(st, "requests.csv", tmp, sizeof(tmp)), 0);
	ck_assert_ptr_nonnull(strstr(tmp, "/.requests.csv.partial"));
	unit_put(tmp, "seq\n1\n");
	ck_assert_int_eq(stage_add(st, "summary.csv", tmp, sizeof(tmp)), 0);
	unit_put(tmp, "status\nok\n");
	/* nothing under a final name before the commit */
	ck_assert(!exists("requests.csv") && !exists("summary.csv"));
	ck_assert_int_eq(stage_commit(st, err, sizeof(err)), 0);
	stage_free(st);
	ck_assert(exists("requests.csv") && exists("summary.csv"));
	ck_assert(!exists(".requests.csv.partial") &&
		  !exists(".summary.csv.partial"));
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

START_TEST(failure_leaves_nothing)
{
	struct stage *st;
	char tmp[128], err[256], sub[160];

	mkscratch();
	/* no commit: the temporary files go, no final name appears */
	st = stage_new(dir);
	ck_assert_int_eq(stage_add(st, "requests.csv", tmp, sizeof(tmp)), 0);
	unit_put(tmp, "x\n");
	stage_free(st);
	ck_assert(!exists("requests.csv") && !exists(".requests.csv.partial"));

	/* the second rename fails (a non-empty directory holds the name):
	 * the first file's final name is taken back, the error names the
	 * file that failed */
	snprintf(sub, sizeof(sub), "%s/summary.csv", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/summary.csv/keep", dir);
	unit_put(sub, "");
	st = stage_new(dir);
	ck_assert_int_eq(stage_add(st, "requests.csv", tmp, sizeof(tmp)), 0);
	unit_put(tmp, "x\n");
	ck_assert_int_eq(stage_add(st, "summary.csv", tmp, sizeof(tmp)), 0);
	unit_put(tmp, "y\n");
	ck_assert_int_lt(stage_commit(st, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "/summary.csv: "));
	ck_assert(!exists("requests.csv"));
	stage_free(st);
	ck_assert(!exists(".requests.csv.partial") &&
		  !exists(".summary.csv.partial"));

	/* a staged file never written cannot be committed */
	st = stage_new(dir);
	ck_assert_int_eq(stage_add(st, "gaps.csv", tmp, sizeof(tmp)), 0);
	ck_assert_int_eq(stage_commit(st, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "gaps.csv"));
	stage_free(st);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

START_TEST(names_checked)
{
	struct stage *st = stage_new("/tmp");
	char tmp[16];

	ck_assert_int_eq(stage_add(st, "a/b", tmp, sizeof(tmp)), -EINVAL);
	ck_assert_int_eq(stage_add(st, "", tmp, sizeof(tmp)), -EINVAL);
	ck_assert_int_eq(stage_add(st, "a-very-long-name.csv", tmp, sizeof(tmp)),
			 -ENAMETOOLONG);
	ck_assert_ptr_null(stage_final(st, 0));
	stage_free(st);
}
END_TEST

/*
 * What a staged file's writer reports on a full disk (/dev/full: every
 * write fails with ENOSPC) is the real cause, whether the write fails
 * while the rows stream out or only at close: stdio keeps just an error
 * flag, and "Input/output error" sent people looking for a broken disk.
 */
START_TEST(full_disk_is_enospc)
{
	struct csv *c;
	struct json *j;
	FILE *f;
	int fds[2];

	if (access("/dev/full", W_OK))
		return;	/* no /dev/full in this sandbox */
	c = csv_open("/dev/full");
	ck_assert_ptr_nonnull(c);
	for (int i = 0; i < 100000; i++)	/* well past the 64 KiB buffer */
		csv_u64(c, (uint64_t)i);
	csv_end_row(c);
	ck_assert_int_eq(csv_close(c), -ENOSPC);
	c = csv_open("/dev/full");
	csv_header(c, "a,b");	/* fails only at close */
	ck_assert_int_eq(csv_close(c), -ENOSPC);
	j = json_open("/dev/full");
	ck_assert_ptr_nonnull(j);
	json_obj_begin(j, NULL);
	json_u64(j, "n", 1);
	json_obj_end(j);
	ck_assert_int_eq(json_close(j), -ENOSPC);
	/* plain text (summary.txt, cmdline.txt) through the same writer;
	 * a pipe that nobody reads is EPIPE, from a raw fd write */
	f = wfile_open("/dev/full");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "summary\n");
	ck_assert_int_eq(wfile_close(f), -ENOSPC);
	ck_assert_int_eq(pipe(fds), 0);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(wfile_write_all(fds[1], "x", 1), -EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(fds[1]);
}
END_TEST

/* The scratch directory holds no file (the spool has no name). */
static int dir_empty(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A %s)\"", dir);
	return system(cmd) == 0;
}

/*
 * The client's records while it runs: streamed to a file without a name
 * in the result directory, read back in order, whatever their size; a
 * write that fails (here: past RLIMIT_FSIZE) is kept and said, and the
 * records after it are refused.
 */
START_TEST(spool_in_order)
{
	struct rec {
		uint64_t a, b;
		char pad[80];
	} r, back;
	struct spool *sp;
	struct rlimit old, lim;
	char odd[7], oback[7];
	unsigned int b;
	enum { N = 100000 };

	mkscratch();
	ck_assert_int_eq(spool_open(&sp, dir, 0), -EINVAL);
	ck_assert_int_eq(spool_open(&sp, dir, SPOOL_CHUNK + 1), -EINVAL);
	ck_assert_int_eq(spool_open(&sp, "/nonexistent/dir", 8), -ENOENT);
	ck_assert_int_eq(spool_open(&sp, dir, sizeof(r)), 0);
	memset(&r, 0, sizeof(r));
	for (uint64_t i = 0; i < N; i++) {
		r.a = i;
		r.b = i * 2654435761u;
		r.pad[i % 80] = (char)i;
		ck_assert_int_eq(spool_add(sp, &r), 0);
	}
	ck_assert_uint_eq(spool_count(sp), N);
	/* every chunk but the one being filled waits: written one by one
	 * when asked, by spool_add itself only when none is free */
	b = spool_backlog(sp);
	ck_assert_uint_ge(b, SPOOL_CHUNKS - SPOOL_FORCED - 1);
	ck_assert_uint_le(b, SPOOL_CHUNKS - 1);
	ck_assert_int_eq(spool_flush(sp), 1);
	ck_assert_uint_eq(spool_backlog(sp), b - 1);
	ck_assert(dir_empty());
	ck_assert_int_eq(spool_rewind(sp), 0);
	memset(&r, 0, sizeof(r));
	for (uint64_t i = 0; i < N; i++) {
		r.a = i;
		r.b = i * 2654435761u;
		r.pad[i % 80] = (char)i;
		ck_assert_int_eq(spool_next(sp, &back), 1);
		ck_assert_mem_eq(&back, &r, sizeof(r));
	}
	ck_assert_int_eq(spool_next(sp, &back), 0);
	/* read twice: the same */
	ck_assert_int_eq(spool_rewind(sp), 0);
	ck_assert_int_eq(spool_next(sp, &back), 1);
	ck_assert_uint_eq(back.a, 0);
	spool_close(sp);
	/* fewer records than a chunk: none written until the end */
	ck_assert_int_eq(spool_open(&sp, dir, sizeof(r)), 0);
	r.a = 7;
	ck_assert_int_eq(spool_add(sp, &r), 0);
	ck_assert_uint_eq(spool_backlog(sp), 0);
	ck_assert_int_eq(spool_flush(sp), 0);
	ck_assert_int_eq(spool_rewind(sp), 0);
	ck_assert_int_eq(spool_next(sp, &back), 1);
	ck_assert_uint_eq(back.a, 7);
	ck_assert_int_eq(spool_next(sp, &back), 0);
	spool_close(sp);
	/* a size that does not divide the chunk */
	ck_assert_int_eq(spool_open(&sp, dir, sizeof(odd)), 0);
	for (int i = 0; i < 10000; i++) {
		memset(odd, i & 0x7f, sizeof(odd));
		ck_assert_int_eq(spool_add(sp, odd), 0);
	}
	ck_assert_int_eq(spool_rewind(sp), 0);
	for (int i = 0; i < 10000; i++) {
		memset(odd, i & 0x7f, sizeof(odd));
		ck_assert_int_eq(spool_next(sp, oback), 1);
		ck_assert_mem_eq(oback, odd, sizeof(odd));
	}
	spool_close(sp);
	/* a write that fails: its cause, kept */
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4 * SPOOL_CHUNK;
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ck_assert_int_eq(spool_open(&sp, dir, sizeof(r)), 0);
	{
		int ret = 0;

		/* the writes come once every chunk is full */
		for (int i = 0; i < 2 * SPOOL_CHUNKS * SPOOL_CHUNK / (int)sizeof(r) &&
		     !ret; i++)
			ret = spool_add(sp, &r);
		ck_assert_int_eq(ret, -EFBIG);
	}
	ck_assert_int_eq(spool_flush(sp), -EFBIG);
	ck_assert_int_eq(spool_add(sp, &r), -EFBIG);
	ck_assert_int_eq(spool_error(sp), -EFBIG);
	ck_assert_int_eq(spool_rewind(sp), -EFBIG);
	spool_close(sp);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	ck_assert(dir_empty());
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

Suite *stage_suite(void)
{
	Suite *s = suite_create("stage");
	TCase *tc = tcase_create("files");

	tcase_add_test(tc, commit_places_all);
	tcase_add_test(tc, failure_leaves_nothing);
	tcase_add_test(tc, names_checked);
	tcase_add_test(tc, full_disk_is_enospc);
	tcase_add_test(tc, spool_in_order);
	suite_add_tcase(s, tc);
	return s;
}
