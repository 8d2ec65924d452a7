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

int rfile_slurp(const char *path, size_t max, char **buf, size_t *len,
		char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), ret = 0;
	struct stat st;
	ssize_t got;
	char *b;

	*buf = NULL;
	*len = 0;
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, ret == -ELOOP ?
			 "a symbolic link, not a file" : strerror(-ret));
		return ret == -ELOOP ? -EINVAL : ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -EINVAL;
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
