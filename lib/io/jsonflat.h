/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jsonflat: a strict JSON reader (RFC 8259) that hands each scalar to a
 * callback with its path, so that two configuration snapshots compare
 * key by key: {"cpuidle": {"cpus": [{"cpu": 0}]}} gives
 * "cpuidle.cpus[0].cpu" = "0". Strings are unescaped to UTF-8 (a lone
 * surrogate becomes U+FFFD), numbers are passed as written, true, false
 * and null as those words; an empty object or array is a scalar "{}" or
 * "[]". Nesting is bounded, a path is bounded, nothing else is kept.
 */
#ifndef WB_JSONFLAT_H
#define WB_JSONFLAT_H

#include <stddef.h>

#define JSONFLAT_MAX_DEPTH 64
#define JSONFLAT_MAX_PATH 1024

/* Called for each scalar; a non-zero return stops the walk with it. */
typedef int (*jsonflat_fn)(void *ctx, const char *path, const char *value);

/*
 * Walks TEXT (LEN bytes). 0, the callback's non-zero return, -ENOMEM,
 * or -EINVAL with "offset N: what" in err (bad syntax, trailing text,
 * too deep, a path too long, a NUL or control byte in a string).
 */
int jsonflat_walk(const char *text, size_t len, jsonflat_fn fn, void *ctx,
		  char *err, size_t errlen);

#endif
