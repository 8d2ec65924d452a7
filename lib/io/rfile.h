/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rfile: reading files whole, bounded: what a trace directory or a
 * snapshot holds is hostile data, so a reader says how much it takes,
 * follows no symbolic link, and names the file in every error.
 */
#ifndef WB_RFILE_H
#define WB_RFILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * The one way an input file is opened: O_RDONLY|O_NOFOLLOW|O_NONBLOCK
 * (a FIFO cannot block the open), then fstat: anything but a regular file
 * (a symbolic link, a FIFO, /dev/zero, a directory) is refused, so no
 * reader spins on a device or waits on a pipe. Returns the fd (blocking
 * again), or -errno with "path: cause" in err: -EINVAL for a link or a
 * non-regular file ("path: a FIFO, not a regular file"), -EISDIR for a
 * directory, the open's -errno otherwise (-ENOENT). User-supplied and
 * result files; kernel pseudo files are read by their own code, lib/sys's
 * sysfs and sysctl files through rfile_open_flags below.
 */
int rfile_open(const char *path, char *err, size_t errlen);
/*
 * Its core, for any open mode: PATH opened with FLAGS | O_NOFOLLOW |
 * O_NONBLOCK | O_NOCTTY | O_CLOEXEC, kept only when fstat shows a regular
 * file. The fd (still O_NONBLOCK), -ELOOP for a symbolic link, -EINVAL
 * for anything not regular (its mode in *MODE; 0 otherwise), or the
 * open's or fstat's -errno. lib/sys's sysfs and sysctl files (which are
 * regular) are opened through it too, for reading and for writing.
 */
int rfile_open_flags(const char *path, int flags, mode_t *mode);
/* strerror(e), but for the EINVAL of this thread's last refused file,
 * why it was refused ("a FIFO, not a regular file"). */
const char *rfile_strerror(int e);
/* rfile_open as a stdio stream; NULL with errno and err set. */
FILE *rfile_fopen(const char *path, char *err, size_t errlen);
/* The same for a caller that makes its own message from errno: with
 * rfile_strerror(errno) it says why a file was refused. */
FILE *rfile_fopen_quiet(const char *path);
/*
 * One line of at most max bytes (its '\n' included) into *line (grown,
 * like getline, to at most max + 1 bytes), NUL-terminated: its length,
 * 0 at the end, or -E2BIG for a longer line (found before more than
 * max + 1 bytes are held), -ENOMEM, or the read's -errno. A NUL byte is
 * kept (string functions see the line end there).
 */
ssize_t rfile_getline(FILE *f, char **line, size_t *cap, size_t max);
/* The longest line a wakebench CSV or text file may have. */
#define RFILE_LINE_MAX 65536

/*
 * The whole of the regular file path, of at most max bytes, NUL-terminated
 * in *buf (free it) with its length in *len. Returns 0, or -errno with
 * "path: cause" in err: -ENOENT (not there), -EINVAL (not a regular file:
 * a directory, a FIFO, a device, a symbolic link), -EFBIG (over max), -EIO (it
 * shrank while read), -ENOMEM.
 */
int rfile_slurp(const char *path, size_t max, char **buf, size_t *len,
		char *err, size_t errlen);
/* Reads up to len bytes from fd, retrying short reads and EINTR: how many
 * (fewer only at the end of the file), or -errno. */
ssize_t rfile_read_full(int fd, void *buf, size_t len);

/*
 * Each line of the regular file path (opened as rfile_open does), its
 * '\n' taken off, given to fn with arg, in order, until fn returns
 * non-zero: 0 at the end, or -errno with "path: cause" (the open) or
 * "path:LINE: cause" in err, where fn's cause is what it wrote to why
 * (whylen bytes) with its negative return.
 */
int rfile_lines(const char *path,
		int (*fn)(void *arg, char *line, char *why, size_t whylen),
		void *arg, char *err, size_t errlen);

#endif
