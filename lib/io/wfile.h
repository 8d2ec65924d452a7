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
#include <sys/types.h>

/*
 * A new regular file at path for writing: its fd, or -errno. A file at
 * path (a hard link, a FIFO, a stale .partial) is unlinked first and the
 * new one created with O_EXCL|O_NOFOLLOW, so no link is ever written
 * through; -EEXIST if one appears in between. A symbolic link at path is
 * refused with -ELOOP (lib/stage unlinks one at a temporary name before
 * this is called). A character device (/dev/null) is opened as it is; a
 * directory is -EISDIR, a block device -EEXIST. Every file wakebench
 * writes is made here (wfile_open, wfile_write_new and lib/stage's files
 * use it).
 */
int wfile_create(const char *path, mode_t mode);
/*
 * Opens path for writing (made anew by wfile_create, 0666 & umask; "-" is
 * stdout), fully buffered, through a stream that keeps the errno of its
 * first failed write. NULL with errno on failure.
 */
FILE *wfile_open(const char *path);
/* Flushes and closes (stdout: flushes). 0, or -errno of the first failure. */
int wfile_close(FILE *f);
/* Writes all of buf to fd, retrying short writes and EINTR: 0 or -errno. */
int wfile_write_all(int fd, const void *buf, size_t len);
/* A file (made by wfile_create, 0644) holding exactly buf: 0, or -errno
 * of the call that failed (the close's too). */
int wfile_write_new(const char *path, const void *buf, size_t len);
/* The same for one line of text: line and a newline (cmdline.txt). */
int wfile_write_line(const char *path, const char *line);

#endif
