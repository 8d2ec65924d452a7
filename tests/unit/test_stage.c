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
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>
#include "unit.h"
#include "json.h"
#include "csv.h"
#include "rfile.h"
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

/* A victim a planted link points at: it must keep its text. */
static void victim(char *path, size_t len)
{
	snprintf(path, len, "%s/victim", dir);
	unit_put(path, "victim\n");
}

static void plant(const char *target, const char *name)
{
	char p[160];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	ck_assert_int_eq(symlink(target, p), 0);
}

static int is_regular(const char *name)
{
	char p[160];
	struct stat sb;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !lstat(p, &sb) && S_ISREG(sb.st_mode);
}

/* issue 30 §4: a link at the temporary name before stage_add is removed;
 * one planted after it, or at a final name written unstaged, is refused
 * (ELOOP); a hard link and a FIFO are replaced. Nothing is written
 * through, the victim keeps its text. */
START_TEST(planted_links_not_followed)
{
	char v[128], tmp[128], err[256], p[160];
	struct stage *st;
	FILE *f;
	int fd;

	mkscratch();
	victim(v, sizeof(v));
	plant(v, ".a.csv.partial");
	st = stage_new(dir);
	ck_assert_int_eq(stage_add(st, "a.csv", tmp, sizeof(tmp)), 0);
	f = wfile_open(tmp);
	ck_assert_ptr_nonnull(f);
	fputs("a\n", f);
	ck_assert_int_eq(wfile_close(f), 0);
	/* a stale regular partial is replaced */
	ck_assert_int_eq(stage_add(st, "b.csv", tmp, sizeof(tmp)), 0);
	unit_put(tmp, "stale\n");
	ck_assert_int_eq(wfile_write_new(tmp, "b\n", 2), 0);
	/* planted after stage_add, before the file is made: refused */
	ck_assert_int_eq(stage_add(st, "c.raw", tmp, sizeof(tmp)), 0);
	plant(v, ".c.raw.partial");
	ck_assert_int_eq(wfile_create(tmp, 0644), -ELOOP);
	ck_assert_int_eq(wfile_write_new(tmp, "c\n", 2), -ELOOP);
	ck_assert_ptr_null(wfile_open(tmp));
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_str_eq(unit_slurp(v), "victim\n");
	ck_assert_int_eq(unlink(tmp), 0);
	fd = wfile_create(tmp, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(wfile_write_all(fd, "c\n", 2), 0);
	close(fd);
	ck_assert_int_eq(stage_commit(st, err, sizeof(err)), 0);
	stage_free(st);
	ck_assert_str_eq(unit_slurp(v), "victim\n");
	ck_assert(is_regular("a.csv") && is_regular("b.csv") && is_regular("c.raw"));
	snprintf(p, sizeof(p), "%s/b.csv", dir);
	ck_assert_str_eq(unit_slurp(p), "b\n");

	/* unstaged: a symbolic link is refused and left; a hard link and a
	 * FIFO at the name are replaced */
	plant(v, "d.csv");
	snprintf(p, sizeof(p), "%s/d.csv", dir);
	ck_assert_ptr_null(wfile_open(p));
	ck_assert_int_eq(errno, ELOOP);
	snprintf(p, sizeof(p), "%s/e.csv", dir);
	ck_assert_int_eq(link(v, p), 0);
	snprintf(p, sizeof(p), "%s/f.csv", dir);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	const char *names[] = { "e.csv", "f.csv" };

	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		f = wfile_open(p);	/* a FIFO would block an open for write */
		ck_assert_ptr_nonnull(f);
		fputs("new\n", f);
		ck_assert_int_eq(wfile_close(f), 0);
		ck_assert(is_regular(names[i]));
		ck_assert_str_eq(unit_slurp(p), "new\n");
	}
	ck_assert_str_eq(unit_slurp(v), "victim\n");
	/* a directory is refused, /dev/null written as asked */
	snprintf(p, sizeof(p), "%s/sub", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_int_eq(wfile_create(p, 0644), -EISDIR);
	fd = wfile_create("/dev/null", 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* issue 30 §5, §6: rfile takes regular files only, at once (a FIFO
 * does not block the open), and bounds a line before holding it. */
START_TEST(rfile_regular_only)
{
	char v[128], p[160], err[512], *line = NULL, *buf;
	size_t cap = 0, len;
	ssize_t n;
	FILE *f;
	int fd;

	mkscratch();
	victim(v, sizeof(v));
	fd = rfile_open(v, err, sizeof(err));
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	plant("/dev/zero", "zero");
	snprintf(p, sizeof(p), "%s/zero", dir);
	ck_assert_int_eq(rfile_open(p, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "zero: a symbolic link, not followed"));
	ck_assert_int_eq(rfile_slurp(p, 100, &buf, &len, err, sizeof(err)), -EINVAL);
	snprintf(p, sizeof(p), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ck_assert_int_eq(rfile_open(p, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "fifo: a FIFO, not a regular file"));
	ck_assert_ptr_null(rfile_fopen_quiet(p));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_str_eq(rfile_strerror(errno), "a FIFO, not a regular file");
	ck_assert_int_eq(rfile_open("/dev/null", err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "a character device"));
	ck_assert_int_eq(rfile_open(dir, err, sizeof(err)), -EISDIR);

	/* a 1 MB line, then a short one: -E2BIG with at most 64 KiB held */
	snprintf(p, sizeof(p), "%s/long", dir);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("ab\n", f);
	for (int i = 0; i < (1 << 20); i++)
		fputc('1', f);
	fputs("\nend\n", f);
	ck_assert_int_eq(fclose(f), 0);
	f = rfile_fopen(p, err, sizeof(err));
	ck_assert_ptr_nonnull(f);
	n = rfile_getline(f, &line, &cap, 65536);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(line, "ab\n");
	ck_assert_int_eq(rfile_getline(f, &line, &cap, 65536), -E2BIG);
	ck_assert_uint_le(cap, 65537);
	fclose(f);
	/* exactly max bytes pass, the last line without '\n' too, then 0 */
	f = fmemopen("12345\n678", 9, "r");
	ck_assert_int_eq(rfile_getline(f, &line, &cap, 6), 6);
	ck_assert_int_eq(rfile_getline(f, &line, &cap, 6), 3);
	ck_assert_str_eq(line, "678");
	ck_assert_int_eq(rfile_getline(f, &line, &cap, 6), 0);
	fclose(f);
	free(line);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* issue 30 §10: a stop signal whose action is death removes every
 * staged temporary file first, in any program that uses lib/stage. */
START_TEST(signal_removes_partials)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };

	mkscratch();
	for (size_t i = 0; i < 3; i++) {
		char tmp[128];
		int status;
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (!pid) {
			struct stage *st;

			sigset_t unblock;

			/* with CK_FORK=no (make asan) an earlier test of
			 * this process may have left the signal blocked */
			sigemptyset(&unblock);
			sigaddset(&unblock, sigs[i]);
			sigprocmask(SIG_UNBLOCK, &unblock, NULL);
			signal(sigs[i], SIG_DFL);
			st = stage_new(dir);
			if (!st || stage_add(st, "big.csv", tmp, sizeof(tmp)) ||
			    wfile_write_new(tmp, "x\n", 2) ||
			    stage_add(st, "cpu0.raw", tmp, sizeof(tmp)) ||
			    wfile_write_new(tmp, "y\n", 2))
				_exit(3);
			/* a temporary directory three levels deep, 300 files
			 * (more than one getdents buffer) at the bottom */
			snprintf(tmp, sizeof(tmp), "%s/.formats.partial", dir);
			if (!stage_tmpdir_register(tmp) || mkdir(tmp, 0755))
				_exit(5);
			snprintf(tmp, sizeof(tmp), "%s/.formats.partial/irq", dir);
			mkdir(tmp, 0755);
			snprintf(tmp, sizeof(tmp), "%s/.formats.partial/irq/handler", dir);
			mkdir(tmp, 0755);
			for (int k = 0; k < 300; k++) {
				snprintf(tmp, sizeof(tmp),
					 "%s/.formats.partial/irq/handler/format-%03d", dir, k);
				if (wfile_write_new(tmp, "z\n", 2))
					_exit(6);
			}
			raise(sigs[i]);
			_exit(4);	/* not reached: it dies of the signal */
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFSIGNALED(status));
		ck_assert_int_eq(WTERMSIG(status), sigs[i]);
		ck_assert(!exists(".big.csv.partial") && !exists(".cpu0.raw.partial"));
		ck_assert_msg(!exists(".formats.partial"),
			      "SIG %d left the temporary directory", sigs[i]);
	}
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
	tcase_add_test(tc, planted_links_not_followed);
	tcase_add_test(tc, rfile_regular_only);
	tcase_add_test(tc, signal_removes_partials);
	suite_add_tcase(s, tc);
	return s;
}
