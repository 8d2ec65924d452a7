// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "spool.h"
#include "wfile.h"

#define SPOOL_BUF ((size_t)SPOOL_CHUNK * SPOOL_CHUNKS)

struct spool {
	int fd;
	int err;		/* first write error (errno), sticky */
	size_t rec;
	size_t per;		/* bytes of whole records in a chunk */
	/* writing: chunks head .. head + full - 1 are full and wait; the
	 * chunk after them is being filled (fill bytes) */
	unsigned int head, full;
	size_t fill;
	/* reading: the whole buffer, len bytes, next at pos */
	size_t len, pos;
	uint64_t count, left;	/* records added; to read */
	unsigned char buf[SPOOL_BUF];
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
	s->per = SPOOL_CHUNK / rec * rec;
	*sp = s;
	return 0;
}

static unsigned char *chunk(struct spool *s, unsigned int i)
{
	return s->buf + (size_t)(i % SPOOL_CHUNKS) * SPOOL_CHUNK;
}

static int put(struct spool *s, const unsigned char *p, size_t len)
{
	int ret;

	if (s->err)
		return -s->err;
	ret = wfile_write_all(s->fd, p, len);
	if (ret)
		s->err = -ret;
	return ret;
}

/* The n oldest full chunks in one writev(): 0 or -errno. */
static int put_full(struct spool *s, unsigned int n)
{
	struct iovec iov[SPOOL_CHUNKS];
	unsigned int i = 0;
	ssize_t w;

	for (unsigned int k = 0; k < n; k++) {
		iov[k].iov_base = chunk(s, s->head + k);
		iov[k].iov_len = s->per;
	}
	s->head = (s->head + n) % SPOOL_CHUNKS;
	s->full -= n;
	if (s->err)
		return -s->err;
	while (i < n) {
		w = writev(s->fd, iov + i, (int)(n - i));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s->err = w < 0 ? errno : EIO;
			return -s->err;
		}
		/* a short write (rare on a file): the rest of this chunk */
		while (i < n && (size_t)w >= iov[i].iov_len)
			w -= (ssize_t)iov[i++].iov_len;
		if (w) {
			if (put(s, (unsigned char *)iov[i].iov_base + w,
				iov[i].iov_len - (size_t)w))
				return -s->err;
			i++;
		}
	}
	return 0;
}

int spool_flush(struct spool *s)
{
	int ret;

	if (s->err)
		return -s->err;
	if (!s->full)
		return 0;
	ret = put_full(s, 1);
	return ret ? ret : 1;
}

unsigned int spool_backlog(const struct spool *s)
{
	return s->full;
}

int spool_add(struct spool *s, const void *rec)
{
	if (s->err)
		return -s->err;
	if (s->fill == s->per) {
		/* the chunk being filled is full: the next one, written
		 * first if every other chunk is still waiting */
		if (s->full == SPOOL_CHUNKS - 1 &&
		    put_full(s, SPOOL_FORCED) < 0)
			return -s->err;
		s->full++;
		s->fill = 0;
	}
	memcpy(chunk(s, s->head + s->full) + s->fill, rec, s->rec);
	s->fill += s->rec;
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
	int ret = 0;

	while (s->full && ret >= 0)
		ret = spool_flush(s);
	if (ret >= 0 && s->fill)
		ret = put(s, chunk(s, s->head), s->fill);
	s->fill = 0;
	if (ret < 0 || s->err)
		return s->err ? -s->err : ret;
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
	size_t cap = SPOOL_BUF / s->rec * s->rec;
	size_t n = want < cap ? (size_t)want : cap;

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
