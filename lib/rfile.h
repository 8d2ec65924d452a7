/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfile: reading files whole, bounded: what a trace directory or a
 * snapshot holds is hostile data, so a reader says how much it takes,
 * follows no symbolic link, and names the file in every error.
 */
#ifndef WB_RFILE_H
#define WB_RFILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The whole of the regular file path, of at most max bytes, NUL-terminated
 * in *buf (free it) with its length in *len. Returns 0, or -errno with
 * "path: cause" in err: -ENOENT (not there), -EINVAL (not a regular file:
 * a directory, a FIFO, a symbolic link), -EFBIG (over max), -EIO (it
 * shrank while read), -ENOMEM.
 */
int rfile_slurp(const char *path, size_t max, char **buf, size_t *len,
		char *err, size_t errlen);
/* Reads up to len bytes from fd, retrying short reads and EINTR: how many
 * (fewer only at the end of the file), or -errno. */
ssize_t rfile_read_full(int fd, void *buf, size_t len);

#endif
