// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "marker.h"

int marker_open(const char *name)
{
	const char *dir = tracefs_tracing_dir();
	char path[4096];
	int fd;

	if (!name)
		name = getenv("WAKEBENCH_TRACE_INSTANCE");
	if (!name || !*name)
		return -ENOENT;
	if (!dir)
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/instances/%s/trace_marker", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

void marker_write(int fd, const char *what, uint64_t seq)
{
	char buf[64], num[24];
	size_t n = 0, k = 0;

	/* Hand-rolled formatting: this sits on the request path. */
	do {
		num[k++] = (char)('0' + seq % 10);
		seq /= 10;
	} while (seq);
	buf[n++] = 'w';
	buf[n++] = 'b';
	buf[n++] = ' ';
	for (const char *p = what; *p && n < 40; p++)
		buf[n++] = *p;
	buf[n++] = ' ';
	while (k)
		buf[n++] = num[--k];
	if (write(fd, buf, n) < 0)
		return;	/* a mark is best effort: never fail a request for it */
}
