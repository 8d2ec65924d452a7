/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stage: result files written under temporary names and put in place
 * together, so that no reader ever takes a half-written or failed run's
 * file for a finished one.
 *
 * Each file is written to DIR/.NAME.partial (stage_add gives that path);
 * stage_commit() fsyncs every staged file, renames them into place in the
 * order they were added (put the file that says "finished", such as a
 * summary, last) and fsyncs DIR. stage_free() removes every temporary
 * file that was not committed, so a run that fails (ENOSPC, a signal, a
 * bug) leaves nothing under a final name.
 */
#ifndef WB_STAGE_H
#define WB_STAGE_H

#include <stddef.h>

struct stage;

/*
 * A stage for files in dir. NULL with errno ENOMEM. The first one puts a
 * handler on each of SIGINT, SIGTERM and SIGHUP whose action is still
 * the default (death): it removes every staged temporary file of the
 * process, then dies of the signal. Programs that catch, ignore or block
 * those signals keep them, and clean up through stage_free.
 */
struct stage *stage_new(const char *dir);
/*
 * Adds name (a plain file name, no '/') and writes its temporary path
 * into tmp, after removing whatever was there (a stale partial, a link):
 * create the file with wfile_create/wfile_open/wfile_write_new, which
 * use O_EXCL|O_NOFOLLOW. Returns 0, or -ENAMETOOLONG / -EINVAL / -ENOMEM,
 * or the unlink's -errno.
 */
int stage_add(struct stage *st, const char *name, char *tmp, size_t tmplen);
/* The final path of the file added as number i (0-based), for messages. */
const char *stage_final(const struct stage *st, size_t i);
/*
 * fsync + rename every staged file, then fsync the directory. Returns 0,
 * or -errno with "FILE: cause" in err (the final name of the file that
 * failed); on failure the files not yet renamed stay temporary and are
 * removed by stage_free(), and the ones already renamed are removed.
 */
int stage_commit(struct stage *st, char *err, size_t errlen);
/* Removes the temporary files left (none after a commit) and frees. */
void stage_free(struct stage *st);
/*
 * Unlinks every temporary file of every live stage of this process
 * (async-signal-safe): for a program's own stop-signal handler.
 */
void stage_remove_partials(void);
/*
 * A temporary directory (formats/ of an import being written) that the
 * stop signals must remove with what it holds, as they remove staged
 * files: registered until released. NULL when out of memory (then a
 * signal leaves it, as before).
 */
struct stage_tmpdir;
struct stage_tmpdir *stage_tmpdir_register(const char *path);
void stage_tmpdir_release(struct stage_tmpdir *d);

#endif
