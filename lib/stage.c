// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "stage.h"

struct staged {
	char *tmp;
	char *final;
	int done;	/* renamed into place */
};

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
		free(st->f[i].tmp);
		free(st->f[i].final);
	}
	free(st->f);
	free(st->dir);
	free(st);
}
