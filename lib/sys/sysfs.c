// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "opt.h"
#include "rfile.h"
#include "sysfs.h"

const char *sysfs_root(void)
{
	const char *r = getenv("WAKEBENCH_SYSFS");

	return r && *r ? r : "/sys";
}

int sysfs_is_real(void)
{
	return !strcmp(sysfs_root(), "/sys");
}

/*
 * The tool runs as root and the tree may be a fake one ($WAKEBENCH_SYSFS,
 * $WAKEBENCH_PROCSYS): files are opened through rfile_open_flags, so no
 * link is followed in the last component, no FIFO blocks the open, and
 * only a regular file (as sysfs and procfs attributes are) is used.
 */
int file_read(const char *path, char *buf, size_t len)
{
	int fd = rfile_open_flags(path, O_RDONLY, NULL);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (int)n;
}

const char *procsys_root(void)
{
	const char *r = getenv("WAKEBENCH_PROCSYS");

	return r && *r ? r : "/proc/sys";
}

int procsys_is_real(void)
{
	return !strcmp(procsys_root(), "/proc/sys");
}

static int vpath(char *path, size_t len, const char *fmt, va_list ap)
{
	int n = snprintf(path, len, "%s/", sysfs_root());

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (vsnprintf(path + n, len - (size_t)n, fmt, ap) >= (int)(len - (size_t)n))
		return -ENAMETOOLONG;
	return 0;
}

int sysfs_read(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	return err ? err : file_read(path, buf, len);
}

int sysfs_read_u64(uint64_t *v, const char *fmt, ...)
{
	char path[512], buf[64];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (err)
		return err;
	err = file_read(path, buf, sizeof(buf));
	if (err < 0)
		return err;
	return opt_u64(buf, 0, UINT64_MAX, v) ? -EINVAL : 0;
}

/* VAL into the file at PATH in one write; 0 or -errno. */
static int write_path(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err;

	fd = rfile_open_flags(path, O_WRONLY | O_TRUNC, NULL);
	if (fd < 0)
		return fd;
	n = write(fd, val, len);
	err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int sysfs_write(const char *val, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	return err ? err : write_path(path, val);
}

/* root/REL of the sysctl tree; 0 or -ENAMETOOLONG */
static int procsys_path(char *path, size_t len, const char *rel)
{
	int n = snprintf(path, len, "%s/%s", procsys_root(), rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int procsys_read(char *buf, size_t len, const char *rel)
{
	char path[512];
	int err = procsys_path(path, sizeof(path), rel);

	return err ? err : file_read(path, buf, len);
}

int procsys_write(const char *val, const char *rel)
{
	char path[512];
	int err = procsys_path(path, sizeof(path), rel);

	return err ? err : write_path(path, val);
}
