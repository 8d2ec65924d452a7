/* SPDX-License-Identifier: GPL-2.0 */
/*
 * turbostat: parse turbostat's tab-separated tables into rows.
 *
 * Handles what turbostat prints: an optional "N.NNN sec" line, debug
 * lines before the table, "Package/Die/Node/Core/CPU" columns or any
 * --show set, the summary row ("-" in the topology columns), per-CPU
 * rows, hyper-thread sibling rows that stop after the thread-level
 * columns, and a repeated header starting every --interval sample.
 */
#ifndef WB_TURBOSTAT_H
#define WB_TURBOSTAT_H

#include <stddef.h>

#define TS_MAX_COLS 128

struct ts_row {
	int sample;		/* 1 for the first table, +1 per repeated header */
	char **val;		/* [ncols], NULL where the row stopped short */
};

struct ts_table {
	int ncols;
	char *cols[TS_MAX_COLS];
	struct ts_row *rows;
	size_t nrows, cap;
	size_t bad;		/* rows longer than their header, skipped */
};

/* Returns the number of rows, or -EINVAL when no table header was found. */
int turbostat_parse(const char *text, struct ts_table *t);
/* Column index by name, or -1. */
int turbostat_col(const struct ts_table *t, const char *name);
/* sample,<columns> CSV. Returns 0 or -errno. */
int turbostat_write_csv(const struct ts_table *t, const char *path);
void turbostat_free(struct ts_table *t);

#endif
