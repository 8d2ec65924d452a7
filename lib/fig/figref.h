/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figref: reference speedups to draw beside figure 2's bars (wakebench
 * report --reference FILE): published numbers, such as a thesis' tables,
 * keyed by a sweep point's name. FILE is a small CSV with exactly the
 * header point,metric,value,source; one row per point and metric (avg,
 * p50 or p99), value the reference speedup (without / with, > 0), source
 * a short text saying where it comes from. Read strictly: any bad row is
 * an error naming FILE:LINE, since a misread reference would be drawn as
 * if it were the published number.
 */
#ifndef WB_FIGREF_H
#define WB_FIGREF_H

#include <stddef.h>

/* metrics: the same order as figsum's FIGSUM_AVG, _P50, _P99 */
enum { FIGREF_AVG, FIGREF_P50, FIGREF_P99, FIGREF_NM };

struct figref_row {
	const char *point, *source;	/* in the table's buffer */
	int metric;
	double value;
	size_t line;			/* its line in the file */
	int used;			/* set by who drew it */
};

struct figref {
	char *name;			/* the file, for messages */
	struct figref_row *row;
	size_t n;
	void *tab;			/* the csvtable holding the text */
};

/*
 * Reads PATH (opened as lib/rfile opens files: a regular file, no
 * symbolic link) into R. 0, or -errno with "PATH:LINE: cause" (or
 * "PATH: cause") in err: -EINVAL for a wrong header, a row without
 * exactly four fields, an empty point or source, an unknown metric, a
 * value that is not a positive number, a point and metric given twice,
 * or no row at all.
 */
int figref_read(const char *path, struct figref *r, char *err, size_t errlen);
void figref_free(struct figref *r);

/* The row of POINT and METRIC, or NULL. */
struct figref_row *figref_find(const struct figref *r, const char *point,
			       int metric);
/* "avg", "p50", "p99". */
const char *figref_metric_name(int metric);
/*
 * The distinct sources of the rows (those with used set when USED_ONLY),
 * "; "-joined into BUF, in file order. Returns how many.
 */
size_t figref_sources(const struct figref *r, int used_only, char *buf,
		      size_t len);

#endif
