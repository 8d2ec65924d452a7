// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rfile.h"

ssize_t rfile_read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static const char *kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "something else";
}

/* Why the last rfile_open of this thread refused its file, for
 * rfile_strerror: strerror(EINVAL) would say "Invalid argument". */
static __thread char cause[64];
static __thread int cause_err;

const char *rfile_strerror(int e)
{
	e = e < 0 ? -e : e;
	return e && e == cause_err ? cause : strerror(e);
}

int rfile_open_flags(const char *path, int flags, mode_t *mode)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (mode)
		*mode = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		if (mode)
			*mode = st.st_mode;
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/*
 * O_NONBLOCK: opening a FIFO blocks until a writer comes, so it is taken
 * off only once fstat has shown a regular file (where it means nothing,
 * but a reader should not carry it).
 */
int rfile_open(const char *path, char *err, size_t errlen)
{
	mode_t mode;
	int fd = rfile_open_flags(path, O_RDONLY, &mode), ret, fl;

	cause_err = 0;
	if (fd == -ELOOP || (fd == -EINVAL && mode)) {
		if (fd == -ELOOP)
			snprintf(cause, sizeof(cause), "a symbolic link, not followed");
		else
			snprintf(cause, sizeof(cause), "%s, not a regular file", kind(mode));
		snprintf(err, errlen, "%s: %s", path, cause);
		if (fd == -EINVAL && S_ISDIR(mode))
			return -EISDIR;
		cause_err = EINVAL;
		return -EINVAL;
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-fd));
		return fd;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		close(fd);
		return ret;
	}
	return fd;
}

FILE *rfile_fopen(const char *path, char *err, size_t errlen)
{
	int fd = rfile_open(path, err, errlen);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		close(fd);
		errno = e;
	}
	return f;
}

FILE *rfile_fopen_quiet(const char *path)
{
	char err[8];

	return rfile_fopen(path, err, sizeof(err));
}

/*
 * Byte by byte into a buffer grown to at most max + 1 bytes: a line is
 * never held whole before its length is known (getline on /dev/zero, or
 * on a 2 GB line, allocates it all first).
 */
ssize_t rfile_getline(FILE *f, char **line, size_t *cap, size_t max)
{
	size_t n = 0;
	int c;

	for (;;) {
		errno = 0;
		c = getc_unlocked(f);
		if (c == EOF) {
			if (ferror(f))
				return errno ? -errno : -EIO;
			break;
		}
		if (n == max)
			return -E2BIG;
		if (n + 1 >= *cap) {
			size_t want = *cap < 256 ? 256 : *cap * 2;
			char *p;

			if (want > max + 1)
				want = max + 1;
			p = realloc(*line, want);
			if (!p)
				return -ENOMEM;
			*line = p;
			*cap = want;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (*line)
		(*line)[n] = '\0';
	return (ssize_t)n;
}

int rfile_slurp(const char *path, size_t max, char **buf, size_t *len,
		char *err, size_t errlen)
{
	int fd = rfile_open(path, err, errlen);
	struct stat st;
	ssize_t got;
	char *b;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return fd == -EISDIR ? -EINVAL : fd;
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -EIO;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(err, errlen, "%s: %lld bytes, more than the %zu it may have",
			 path, (long long)st.st_size, max);
		close(fd);
		return -EFBIG;
	}
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	got = rfile_read_full(fd, b, (size_t)st.st_size);
	close(fd);
	if (got != st.st_size) {
		snprintf(err, errlen, "%s: %s", path,
			 got < 0 ? strerror((int)-got) : "shorter than it was");
		free(b);
		return got < 0 ? (int)got : -EIO;
	}
	b[got] = '\0';
	*buf = b;
	*len = (size_t)got;
	return 0;
}

int rfile_lines(const char *path,
		int (*fn)(void *arg, char *line, char *why, size_t whylen),
		void *arg, char *err, size_t errlen)
{
	FILE *f = rfile_fopen(path, err, errlen);
	char *line = NULL, why[160];
	size_t cap = 0;
	int ret = 0;

	if (!f)
		return -errno;
	for (unsigned long no = 1;; no++) {
		ssize_t len = rfile_getline(f, &line, &cap, RFILE_LINE_MAX);

		if (len <= 0) {
			ret = (int)len;
			if (ret)
				snprintf(err, errlen, "%s:%lu: %s", path, no,
					 ret == -E2BIG ? "line too long" :
					 strerror(-ret));
			break;
		}
		line[strcspn(line, "\n")] = '\0';
		why[0] = '\0';
		ret = fn(arg, line, why, sizeof(why));
		if (ret) {
			snprintf(err, errlen, "%s:%lu: %s", path, no, why);
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}
