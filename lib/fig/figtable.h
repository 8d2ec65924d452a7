/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figtable: CSV tables (lib/csvtable) as HTML or Markdown for wakebench
 * report's index pages: every row and every column (nothing cut), the
 * columns named in FIRST moved to the front, text escaped. Several tables
 * (client runs' summaries) become one, a first column "source" naming each
 * row's table and the columns the union of theirs. The HTML table sits in
 * a <div class="wide"> that the page lets scroll sideways on its own, so
 * a wide table never widens the page; numbers are right-aligned (class
 * "n").
 */
#ifndef WB_FIGTABLE_H
#define WB_FIGTABLE_H

#include <stddef.h>
#include <stdio.h>

struct csvtable;

/*
 * T[0..N); LABELS (NULL: no source column) names each. FIRST:
 * comma-separated column names (NULL or ""), those absent ignored.
 * -ENOMEM, else 0.
 */
int figtable_html(const struct csvtable *t, const char *const *labels, size_t n,
		  const char *first, FILE *out);
int figtable_markdown(const struct csvtable *t, const char *const *labels,
		      size_t n, const char *first, FILE *out);
/* TEXT made safe inside HTML elements and attribute values. */
void figtable_html_text(const char *text, FILE *out);

#endif
