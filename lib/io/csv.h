/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csv: buffered CSV writer (RFC 4180 quoting). Write errors are sticky
 * and reported once, at close. The JSON writer is json.h's.
 */
#ifndef WB_CSV_H
#define WB_CSV_H

#include <stdint.h>
#include <stdio.h>

struct csv;

/* Opens path for writing ("-" is stdout). NULL with errno on failure. */
struct csv *csv_open(const char *path);
/*
 * The most the buffer grows to (from 4 KB; default and most 64 KB): a
 * writer of a file per CPU spreads a memory budget over them.
 */
void csv_buffer_max(struct csv *c, size_t bytes);
/* Comma-separated header line, written as is. */
void csv_header(struct csv *c, const char *cols);
void csv_u64(struct csv *c, uint64_t v);
void csv_i64(struct csv *c, int64_t v);
/* %.*f with @prec digits; NaN is written as an empty field. */
void csv_double(struct csv *c, double v, int prec);
/* v / 10^decimals with exactly that many decimals ("1.234567" for
 * 1234567, 6): nanoseconds as milliseconds, exactly and fast. */
void csv_fixed(struct csv *c, uint64_t v, unsigned decimals);
void csv_str(struct csv *c, const char *s);
void csv_empty(struct csv *c);
void csv_end_row(struct csv *c);
/* Flush, fsync-free close; returns 0 or -errno of the first failure. */
int csv_close(struct csv *c);

#endif
