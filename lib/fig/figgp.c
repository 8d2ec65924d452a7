// SPDX-License-Identifier: GPL-2.0
/* figgp: text that reaches gnuplot safely (see figgp.h). */
#include <math.h>
#include <stdio.h>

#include "figgp.h"

void figgp_label(FILE *f, const char *text)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		fputc(*p == '"' ? '\'' : *p < 0x20 || *p == 0x7f ? '?' : *p, f);
	fputc('"', f);
}

void figgp_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("NaN", f);
}

size_t figgp_chars(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += ((unsigned char)*text & 0xc0) != 0x80;
	return n;
}

/* 'TEXT' with '' for a quote and '?' for a control byte */
static void sq(FILE *f, const char *text)
{
	fputc('\'', f);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '\'')
			fputs("''", f);
		else
			fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
	}
	fputc('\'', f);
}

void figgp_var_str(FILE *f, const char *name, const char *text)
{
	fprintf(f, "%s = ", name);
	sq(f, text);
	fputc('\n', f);
}

void figgp_var_num(FILE *f, const char *name, double v)
{
	if (isfinite(v))
		fprintf(f, "%s = %.10g\n", name, v);
	else
		fprintf(f, "%s = NaN\n", name);
}

void figgp_array(FILE *f, const char *name, size_t n)
{
	/* gnuplot refuses an array of size 0 */
	fprintf(f, "array %s[%zu]\n", name, n ? n : 1);
}

void figgp_elem_str(FILE *f, const char *name, size_t i, const char *text)
{
	fprintf(f, "%s[%zu] = ", name, i);
	sq(f, text);
	fputc('\n', f);
}

void figgp_elem_num(FILE *f, const char *name, size_t i, double v)
{
	if (isfinite(v))
		fprintf(f, "%s[%zu] = %.10g\n", name, i, v);
	else
		fprintf(f, "%s[%zu] = NaN\n", name, i);
}
