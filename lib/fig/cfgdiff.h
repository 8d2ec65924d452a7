/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfgdiff: what differs between the results wakebench report puts side by
 * side: their configuration snapshots (snapshot.json, compared key by key
 * through lib/jsonflat) and their command lines (cmdline.txt, split as a
 * shell does and compared option by option), with the provenance of each
 * (wakebench version, host, when, command).
 *
 * Tables are CSV files (lib/csv), for the report to render:
 *   diff:        what,LABEL1,LABEL2,...  one row per command word or
 *                option ("--prequery-lead-us") and per snapshot key whose
 *                values are not all equal; "(absent)" where a side has
 *                none. The program's directory is not compared (build
 *                trees differ), its name is. time_utc and command (in
 *                the provenance) are left out.
 *   provenance:  source,wakebench,host,when,command
 *   snapshot:    key,value of one side (every key)
 */
#ifndef WB_CFGDIFF_H
#define WB_CFGDIFF_H

#include <stddef.h>

struct cfgdiff_side {
	const char *label;
	const char *snapshot;	/* snapshot.json, or NULL/"" */
	const char *cmdline;	/* cmdline.txt, or NULL/"" */
};

/*
 * Splits LINE as a shell would (words, '...' and "..." quotes, \ escapes,
 * $'...' as printf %q writes it) into *words (malloc'd array of malloc'd
 * strings, *n). -ENOMEM, or -EINVAL for an open quote.
 */
int cfgdiff_split(const char *line, char ***words, size_t *n);
void cfgdiff_free_words(char **words, size_t n);

/*
 * Writes the tables: DIFF and PROV (NULL: not written), and for side i
 * SNAP_PREFIX-<i+1>.csv when SNAP_PREFIX is not NULL and the side has a
 * snapshot. A file that cannot be read is a side without it (its name in
 * the provenance's notes is not needed: "(absent)" says it); malformed
 * JSON is an error. Returns the number of rows of the diff, or -errno
 * with the message.
 */
int cfgdiff_write(const struct cfgdiff_side *s, size_t n, const char *diff,
		  const char *prov, const char *snap_prefix, char *err,
		  size_t errlen);

#endif
