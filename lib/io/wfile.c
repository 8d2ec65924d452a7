// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "wfile.h"

/*
 * A file's stdio stream writes through this cookie, which keeps the errno
 * of the first write that failed: stdio itself keeps only a flag, and a
 * full disk must be reported as "No space left on device", not EIO.
 */
struct out_fd {
	int fd;
	int err;	/* first write/close errno, 0 */
};

int wfile_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Root writes into directories other users may own: a file found at the
 * name (a hard link to /etc/shadow, a FIFO) is removed, never written
 * through, and the file is made anew with O_EXCL, which follows no link
 * and fails if someone puts one back in between. A symbolic link is
 * refused (-ELOOP), not removed: it may be the user's own /dev/stdout,
 * which unlink would take from /dev (lib/stage removes a link at a
 * temporary name itself). A character device (/dev/null, a terminal) is
 * written as asked: only root can make one. A directory or a block
 * device is refused.
 */
int wfile_create(const char *path, mode_t mode)
{
	struct stat sb;
	int fd;

	if (!lstat(path, &sb)) {
		if (S_ISDIR(sb.st_mode))
			return -EISDIR;
		if (S_ISBLK(sb.st_mode))
			return -EEXIST;
		if (S_ISLNK(sb.st_mode))
			return -ELOOP;
		if (S_ISCHR(sb.st_mode)) {
			fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
			return fd < 0 ? -errno : fd;
		}
		if (unlink(path) && errno != ENOENT) {
			if (!S_ISREG(sb.st_mode) || (errno != EACCES && errno != EPERM))
				return -errno;
			/* A file of ours in a directory we may not change:
			 * nobody else can have put a link there either. */
			fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK |
				  O_CLOEXEC);
			if (fd < 0)
				return -errno;
			if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
				close(fd);
				return -EEXIST;
			}
			return fd;
		}
	} else if (errno != ENOENT) {
		return -errno;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

int wfile_write_new(const char *path, const void *buf, size_t len)
{
	int fd = wfile_create(path, 0644);
	int ret;

	if (fd < 0)
		return fd;
	ret = wfile_write_all(fd, buf, len);
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int wfile_write_line(const char *path, const char *line)
{
	int fd = wfile_create(path, 0644);
	int ret;

	if (fd < 0)
		return fd;
	ret = wfile_write_all(fd, line, strlen(line));
	if (!ret)
		ret = wfile_write_all(fd, "\n", 1);
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
	struct out_fd *o = cookie;
	int ret;

	if (o->err) {
		errno = o->err;
		return -1;
	}
	ret = wfile_write_all(o->fd, buf, n);
	if (ret) {
		o->err = -ret;
		errno = o->err;
		return -1;
	}
	return (ssize_t)n;
}

/* Fails with the first error seen, so fclose() reports the real cause. */
static int out_closefn(void *cookie)
{
	struct out_fd *o = cookie;
	int err = o->err;

	if (close(o->fd) && !err)
		err = errno;
	free(o);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

FILE *wfile_open(const char *path)
{
	static const cookie_io_functions_t io = {
		.write = out_write, .close = out_closefn,
	};
	struct out_fd *o;
	FILE *f;
	int err;

	if (!strcmp(path, "-"))
		return stdout;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->fd = wfile_create(path, 0666);
	if (o->fd < 0) {
		err = -o->fd;
		free(o);
		errno = err;
		return NULL;
	}
	f = fopencookie(o, "w", io);
	if (!f) {
		err = errno;
		close(o->fd);
		free(o);
		errno = err;
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return f;
}

int wfile_close(FILE *f)
{
	int bad = ferror(f), err = 0;

	if (f == stdout) {
		if (bad)
			err = EIO;
		else if (fflush(f))
			err = errno ? errno : EIO;
	} else {
		errno = 0;
		if (fclose(f))
			err = errno ? errno : EIO;
		else if (bad)
			err = EIO;
	}
	return -err;
}
