// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "stage.h"

struct reg;

struct staged {
	char *tmp;
	char *final;
	int done;	/* renamed into place */
	struct reg *r;	/* its entry in the registry below */
};

/* ---- the temporary files a signal removes ---------------------------------- */

/*
 * Every temporary path of every stage of the process, so that SIGINT,
 * SIGTERM or SIGHUP leaves no .NAME.partial behind (a 100 MB export, or
 * an import whose rerun would find DIR "not empty"). The handler only
 * walks this list and calls unlink (async-signal-safe): entries are
 * published whole with an atomic store, never freed, and reused once
 * dead, so nothing the handler reads goes away under it.
 */
struct reg {
	struct reg *next;
	char *path;			/* valid while live */
	pid_t pid;			/* whose: a forked child dies alone */
	volatile sig_atomic_t live;
	int used;			/* claimed by a stage (CAS) */
	int dir;			/* a directory: removed with what it holds */
};

static struct reg *reg_head;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

/* What getdents64 returns: the kernel's record, not glibc's. */
struct kdirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define RM_DEPTH 8	/* formats/ is three levels deep */
#define RM_PASSES 4	/* entries unlinked while read are read again */

/*
 * Removes name (in dirfd) and, if it is a directory, what it holds, with
 * async-signal-safe calls only (openat, getdents64, unlinkat): a signal
 * handler's rm -r of a temporary directory.
 */
static void rm_tree_at(int dirfd, const char *name, int depth)
{
	char buf[2048] __attribute__((aligned(8)));
	int fd;

	if (!unlinkat(dirfd, name, 0) || errno == ENOENT || depth > RM_DEPTH)
		return;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	for (int pass = 0, more = 1; more && pass < RM_PASSES; pass++) {
		long n;

		more = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				struct kdirent64 *d = (struct kdirent64 *)(buf + off);
				const char *c = d->d_name;

				off += d->d_reclen;
				if (c[0] == '.' && (!c[1] || (c[1] == '.' && !c[2])))
					continue;
				rm_tree_at(fd, c, depth + 1);
				more = 1;
			}
		}
	}
	close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

void stage_remove_partials(void)
{
	pid_t me = getpid();
	int e = errno;

	for (struct reg *r = __atomic_load_n(&reg_head, __ATOMIC_ACQUIRE); r;
	     r = r->next) {
		if (!r->live || r->pid != me)
			continue;
		if (r->dir)
			rm_tree_at(AT_FDCWD, r->path, 0);
		else
			unlink(r->path);
	}
	errno = e;
}

static void on_stop(int sig)
{
	stage_remove_partials();
	signal(sig, SIG_DFL);
	raise(sig);	/* dies of it as it would have, once we return */
}

/*
 * A program that catches or ignores a stop signal, or reads it from a
 * signalfd (blocked), does its own cleanup through stage_free; only the
 * signals that would kill the process outright get the handler, so that
 * no program can forget it and none has it forced on it. Looked at by
 * every stage_new: a program may have reset a signal in between.
 */
static void catch_stops(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	for (size_t i = 0; i < NSTOP; i++)
		if (!sigaction(stop_signals[i], NULL, &old) &&
		    !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
			sigaction(stop_signals[i], &sa, NULL);
}

static struct reg *reg_claim(const char *path, int dir)
{
	struct reg *r;
	char *p = strdup(path);
	int zero;

	if (!p)
		return NULL;
	for (r = __atomic_load_n(&reg_head, __ATOMIC_ACQUIRE); r; r = r->next) {
		zero = 0;
		if (__atomic_compare_exchange_n(&r->used, &zero, 1, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	}
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r) {
			free(p);
			return NULL;
		}
		r->used = 1;
		r->next = __atomic_load_n(&reg_head, __ATOMIC_ACQUIRE);
		while (!__atomic_compare_exchange_n(&reg_head, &r->next, r, 0,
						    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			;
	}
	free(r->path);	/* a dead entry's: the handler skips it */
	r->path = p;
	r->pid = getpid();
	r->dir = dir;
	__atomic_store_n(&r->live, 1, __ATOMIC_RELEASE);
	return r;
}

static void reg_release(struct reg *r)
{
	if (!r)
		return;
	__atomic_store_n(&r->live, 0, __ATOMIC_RELEASE);
	r->dir = 0;
	__atomic_store_n(&r->used, 0, __ATOMIC_RELEASE);
}

struct stage_tmpdir *stage_tmpdir_register(const char *path)
{
	struct reg *r;

	catch_stops();
	r = reg_claim(path, 1);
	return (struct stage_tmpdir *)r;
}

void stage_tmpdir_release(struct stage_tmpdir *d)
{
	reg_release((struct reg *)d);
}

struct stage {
	char *dir;
	struct staged *f;
	size_t n, cap;
};

struct stage *stage_new(const char *dir)
{
	struct stage *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->dir = strdup(dir);
	if (!st->dir) {
		free(st);
		errno = ENOMEM;
		return NULL;
	}
	catch_stops();
	return st;
}

int stage_add(struct stage *st, const char *name, char *tmp, size_t tmplen)
{
	struct staged *s;
	int n;

	if (!*name || strchr(name, '/'))
		return -EINVAL;
	n = snprintf(tmp, tmplen, "%s/.%s.partial", st->dir, name);
	if (n < 0 || (size_t)n >= tmplen)
		return -ENAMETOOLONG;
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 8;
		struct staged *f = realloc(st->f, cap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		st->f = f;
		st->cap = cap;
	}
	s = &st->f[st->n];
	s->tmp = strdup(tmp);
	if (!s->tmp)
		return -ENOMEM;
	if (asprintf(&s->final, "%s/%s", st->dir, name) < 0) {
		free(s->tmp);
		return -ENOMEM;
	}
	s->done = 0;
	/* Registered before it exists, so a signal can never leave it. */
	s->r = reg_claim(tmp, 0);
	if (!s->r) {
		free(s->tmp);
		free(s->final);
		return -ENOMEM;
	}
	/* A stale one (an earlier run's, or a link someone put there) is
	 * removed here; wfile_create makes the file anew with O_EXCL. */
	if (unlink(tmp) && errno != ENOENT && errno != EISDIR) {
		int ret = -errno;

		reg_release(s->r);
		free(s->tmp);
		free(s->final);
		return ret;
	}
	st->n++;
	return 0;
}

const char *stage_final(const struct stage *st, size_t i)
{
	return i < st->n ? st->f[i].final : NULL;
}

/* fsync by path: the writers (stdio, csv) have closed their files. */
static int sync_path(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) && errno != EINVAL)	/* EINVAL: cannot sync here */
		ret = -errno;
	close(fd);
	return ret;
}

/* Takes back the final names given so far: half a result set, or one
 * whose directory entry may not be on disk, is not a result. */
static void unplace(struct stage *st)
{
	for (size_t i = 0; i < st->n; i++) {
		if (st->f[i].done)
			unlink(st->f[i].final);
		st->f[i].done = 0;
	}
}

int stage_commit(struct stage *st, char *err, size_t errlen)
{
	int ret;

	/* All data on disk before any name changes: a crash in between
	 * leaves only temporary names, never a final name over no data. */
	for (size_t i = 0; i < st->n; i++) {
		ret = sync_path(st->f[i].tmp, O_RDONLY);
		if (ret) {
			snprintf(err, errlen, "%s: %s", st->f[i].final,
				 strerror(-ret));
			return ret;
		}
	}
	for (size_t i = 0; i < st->n; i++) {
		if (rename(st->f[i].tmp, st->f[i].final)) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", st->f[i].final,
				 strerror(-ret));
			unplace(st);
			return ret;
		}
		st->f[i].done = 1;
		reg_release(st->f[i].r);
		st->f[i].r = NULL;
	}
	ret = sync_path(st->dir, O_RDONLY | O_DIRECTORY);
	if (ret) {
		snprintf(err, errlen, "%s: %s", st->dir, strerror(-ret));
		unplace(st);
	}
	return ret;
}

void stage_free(struct stage *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++) {
		if (!st->f[i].done)
			unlink(st->f[i].tmp);
		reg_release(st->f[i].r);
		free(st->f[i].tmp);
		free(st->f[i].final);
	}
	free(st->f);
	free(st->dir);
	free(st);
}
