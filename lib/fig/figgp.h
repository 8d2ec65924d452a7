/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figgp: text that reaches gnuplot safely. A figure's data file holds
 * numbers and double-quoted labels (gnuplot has no escape inside them: a
 * '"' becomes '\'', control bytes '?'); its variables file holds
 * assignments that the figure's script loads, strings single-quoted with
 * '' for a quote, numbers checked finite. Names of directories and values
 * read from files are anything; this is the one place they are made data.
 */
#ifndef WB_FIGGP_H
#define WB_FIGGP_H

#include <stdio.h>

/* A label in a data file: "TEXT" with the quotes. */
void figgp_label(FILE *f, const char *text);
/* A number in a data file ("%.6g"; NaN is written NaN, which gnuplot
 * skips). */
void figgp_num(FILE *f, double v);

/* Characters (not bytes) of UTF-8 TEXT: the room a label takes. */
size_t figgp_chars(const char *text);

/* NAME = 'TEXT' */
void figgp_var_str(FILE *f, const char *name, const char *text);
/* NAME = V ("%.10g"; a non-finite V is written NaN) */
void figgp_var_num(FILE *f, const char *name, double v);
/* array NAME[N] (gnuplot 5.2 and later); elements set with the next two */
void figgp_array(FILE *f, const char *name, size_t n);
/* NAME[I] = 'TEXT' (I from 1) */
void figgp_elem_str(FILE *f, const char *name, size_t i, const char *text);
void figgp_elem_num(FILE *f, const char *name, size_t i, double v);

#endif
