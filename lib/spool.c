// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "spool.h"
#include "wfile.h"

struct spool {
	int fd;
	int err;		/* first write error (errno), sticky */
	size_t rec;
	size_t cap;		/* whole records per buffer, in bytes */
	size_t len, pos;	/* bytes in buf; read position */
	uint64_t count, left;	/* records added; to read */
	unsigned char buf[SPOOL_CHUNK];
};

/* An unnamed file in dir: O_TMPFILE where the file system has it. */
static int open_unnamed(const char *dir)
{
	char path[4096];
	int fd, n;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR &&
			errno != EINVAL && errno != ENOENT))
		return fd < 0 ? -errno : fd;
	n = snprintf(path, sizeof(path), "%s/.spool.XXXXXX", dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

int spool_open(struct spool **sp, const char *dir, size_t rec)
{
	struct spool *s;
	int fd;

	*sp = NULL;
	if (!rec || rec > SPOOL_CHUNK)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	fd = open_unnamed(dir);
	if (fd < 0) {
		free(s);
		return fd;
	}
	s->fd = fd;
	s->rec = rec;
	s->cap = SPOOL_CHUNK / rec * rec;
	*sp = s;
	return 0;
}

static int flush(struct spool *s)
{
	int ret;

	if (s->err)
		return -s->err;
	ret = wfile_write_all(s->fd, s->buf, s->len);
	s->len = 0;
	if (ret)
		s->err = -ret;
	return ret;
}

int spool_add(struct spool *s, const void *rec)
{
	if (s->err)
		return -s->err;
	if (s->len == s->cap && flush(s))
		return -s->err;
	memcpy(s->buf + s->len, rec, s->rec);
	s->len += s->rec;
	s->count++;
	return 0;
}

int spool_error(const struct spool *s)
{
	return -s->err;
}

uint64_t spool_count(const struct spool *s)
{
	return s->count;
}

int spool_rewind(struct spool *s)
{
	if (s->len && flush(s))
		return -s->err;
	if (s->err)
		return -s->err;
	if (lseek(s->fd, 0, SEEK_SET) < 0)
		return -errno;
	s->len = s->pos = 0;
	s->left = s->count;
	return 0;
}

/* Reads whole records into buf: as many as fit, or as many as are left. */
static int refill(struct spool *s)
{
	uint64_t want = s->left * s->rec;
	size_t n = want < s->cap ? (size_t)want : s->cap;

	s->len = s->pos = 0;
	while (s->len < n) {
		ssize_t r = read(s->fd, s->buf + s->len, n - s->len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;	/* shorter than what was written */
		s->len += (size_t)r;
	}
	return 0;
}

int spool_next(struct spool *s, void *rec)
{
	int ret;

	if (!s->left)
		return 0;
	if (s->pos == s->len) {
		ret = refill(s);
		if (ret)
			return ret;
	}
	memcpy(rec, s->buf + s->pos, s->rec);
	s->pos += s->rec;
	s->left--;
	return 1;
}

void spool_close(struct spool *s)
{
	if (!s)
		return;
	close(s->fd);
	free(s);
}
