/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csvread: strict reading of the CSV files wakebench writes (server logs,
 * client requests.csv): RFC 4180 fields, columns found by header name,
 * numbers checked for type and range, so a reader can fail with
 * "FILE:LINE: what is wrong" instead of skipping or misreading a row.
 */
#ifndef WB_CSVREAD_H
#define WB_CSVREAD_H

#include <stddef.h>
#include <stdint.h>

/*
 * Splits one line (its trailing "\n" or "\r\n" removed) in place into at
 * most max fields; quoted fields lose their quotes ("" is one "). Returns
 * the number of fields, or -EINVAL for a stray quote (what in err) or
 * -E2BIG for more than max fields.
 */
int csvr_split(char *line, char **fields, int max);
/* The index of column name in a split header, or -1. */
int csvr_col(char *const *fields, int n, const char *name);
/*
 * A strict unsigned decimal: digits only (no sign, space or suffix), at
 * most max. Returns 0, -EINVAL (empty or not a number) or -ERANGE, with
 * what is wrong in err (e.g. "'abc' is not an unsigned integer").
 */
int csvr_u64(const char *s, uint64_t max, uint64_t *out, char *err,
	     size_t errlen);

#endif
