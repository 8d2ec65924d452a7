/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outdir: a run's output directory, made ready before the run.
 *
 * A run owns its directory: the directory is created (with its parents)
 * when missing and must be writable (a file is created in it and removed).
 * An existing directory must be empty, so no file of an earlier run can
 * pass for this run's; with force, the files a run of this command writes
 * (the `owned` names) are removed first and every other entry is left
 * alone. Checked before the run, so a bad --out costs no experiment.
 */
#ifndef WB_OUTDIR_H
#define WB_OUTDIR_H

#include <stddef.h>

/*
 * owned: NULL-terminated file names. Returns 0, or -errno with a message
 * in err: -ENOTEMPTY (non-empty without force), -ENOTDIR, -EACCES, ...
 */
int outdir_prepare(const char *dir, const char *const *owned, int force,
		   char *err, size_t errlen);
/*
 * An output FILE split into the directory it goes into ("." without a
 * slash) and its name (at most blen - 1 bytes), for writing it beside its
 * place and renaming it there. -EINVAL when FILE names no file ("dir/",
 * ".", "..").
 */
int outdir_split(const char *file, char *dir, size_t dlen, char *base,
		 size_t blen);

#endif
