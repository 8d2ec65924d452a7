/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wfile: writing files so that a failure reports its real cause. stdio
 * keeps only an error flag, so fclose() after a failed buffered write
 * says EIO; a full disk must say "No space left on device".
 */
#ifndef WB_WFILE_H
#define WB_WFILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Opens path for writing (created or truncated, 0666 & umask; "-" is
 * stdout), fully buffered, through a stream that keeps the errno of its
 * first failed write. NULL with errno on failure.
 */
FILE *wfile_open(const char *path);
/* Flushes and closes (stdout: flushes). 0, or -errno of the first failure. */
int wfile_close(FILE *f);
/* Writes all of buf to fd, retrying short writes and EINTR: 0 or -errno. */
int wfile_write_all(int fd, const void *buf, size_t len);
/* A file (created or truncated, 0644) holding exactly buf: 0, or -errno
 * of the call that failed (the close's too). */
int wfile_write_new(const char *path, const void *buf, size_t len);

#endif
