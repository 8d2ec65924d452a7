/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csvtable: a whole CSV file in memory (the summaries, breakdowns and
 * residencies the report reads: small), split with lib/csvread's rules,
 * columns found by header name, numbers read strictly. A row shorter than
 * the header reads "" in its missing fields, so files from older versions
 * with fewer columns still read.
 */
#ifndef WB_CSVTABLE_H
#define WB_CSVTABLE_H

#include <stddef.h>

struct csvtable {
	char *name;		/* the file, for messages */
	char **hdr;		/* header fields */
	int nh;
	char ***row;		/* row[i][j]: field j of data row i */
	int *nf;		/* fields in row i */
	size_t n;		/* data rows */
	char *buf;		/* owns every string */
	size_t *ln;		/* the line of row i in the file */
};

/*
 * Reads PATH (at most MAX bytes) into T. 0, or -errno with "PATH: what"
 * in err: -ENOENT and the like when it cannot be opened, -EFBIG above
 * MAX, -EINVAL for an empty file or a malformed line (naming the line).
 */
int csvtable_read(const char *path, size_t max, struct csvtable *t, char *err,
		  size_t errlen);
/* The same from text (copied), NAME in messages. */
int csvtable_parse(const char *text, size_t len, const char *name,
		   struct csvtable *t, char *err, size_t errlen);
void csvtable_free(struct csvtable *t);

/* The index of column NAME, or -1. */
int csvtable_col(const struct csvtable *t, const char *name);
/* Field C of row R ("" for an absent column or a short row). */
const char *csvtable_get(const struct csvtable *t, size_t r, int c);

/*
 * A strict decimal number (an optional '-', digits, an optional fraction,
 * an optional exponent; no spaces, no inf/nan), finite. 0 or -EINVAL.
 */
int csvtable_num(const char *s, double *out);
/*
 * Field C of row R as a number: 1 when read, 0 when the field is empty
 * or the column absent, -EINVAL with "NAME:LINE: column 'COL': 'TEXT' is
 * not a number" in err.
 */
int csvtable_getnum(const struct csvtable *t, size_t r, int c, double *out,
		    char *err, size_t errlen);
/*
 * Column NAME of row R as a number, NAN when the field is empty or the
 * column absent: 0, or -EINVAL as csvtable_getnum says it.
 */
int csvtable_getnum_nan(const struct csvtable *t, size_t r, const char *name,
			double *out, char *err, size_t errlen);

#endif
