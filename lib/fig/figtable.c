// SPDX-License-Identifier: GPL-2.0
/* figtable: CSV tables for the report's index pages (see figtable.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csvtable.h"
#include "figtable.h"

void figtable_html_text(const char *text, FILE *out)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, out);
		}
	}
}

/* The columns of the joined table, by name, in order. */
struct cols {
	const char **name;
	size_t n;
};

static int cols_add(struct cols *c, const char *name)
{
	const char **nn;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return 0;
	nn = realloc(c->name, (c->n + 1) * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	c->name = nn;
	c->name[c->n++] = name;
	return 0;
}

static int cols_of(const struct csvtable *t, size_t n, const char *first,
		   struct cols *c)
{
	int ret = 0;

	memset(c, 0, sizeof(*c));
	if (first && *first) {
		char *copy = strdup(first), *save = NULL;

		if (!copy)
			return -ENOMEM;
		for (char *w = strtok_r(copy, ",", &save); w && !ret;
		     w = strtok_r(NULL, ",", &save))
			for (size_t i = 0; i < n && !ret; i++) {
				int k = csvtable_col(&t[i], w);

				/* the table's own string: the copy is freed */
				if (k >= 0) {
					ret = cols_add(c, t[i].hdr[k]);
					break;
				}
			}
		free(copy);
	}
	for (size_t i = 0; i < n && !ret; i++)
		for (int k = 0; k < t[i].nh && !ret; k++)
			ret = cols_add(c, t[i].hdr[k]);
	if (ret)
		free(c->name);
	return ret;
}

int figtable_html(const struct csvtable *t, const char *const *labels, size_t n,
		  const char *first, FILE *out)
{
	struct cols c;
	double v;

	if (cols_of(t, n, first, &c))
		return -ENOMEM;
	fputs("<div class=\"wide\"><table>\n<thead><tr>", out);
	if (labels)
		fputs("<th>source</th>", out);
	for (size_t k = 0; k < c.n; k++) {
		fputs("<th>", out);
		figtable_html_text(c.name[k], out);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < t[i].n; r++) {
			fputs("<tr>", out);
			if (labels) {
				fputs("<td>", out);
				figtable_html_text(labels[i], out);
				fputs("</td>", out);
			}
			for (size_t k = 0; k < c.n; k++) {
				const char *s = csvtable_get(&t[i], r, csvtable_col(&t[i], c.name[k]));

				fputs(*s && !csvtable_num(s, &v) ? "<td class=\"n\">" : "<td>", out);
				figtable_html_text(s, out);
				fputs("</td>", out);
			}
			fputs("</tr>\n", out);
		}
	}
	fputs("</tbody></table></div>\n", out);
	free(c.name);
	return 0;
}

/* A Markdown cell: '|' and '\' escaped, no line breaks. */
static void md_text(const char *s, FILE *out)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '|' || *p == '\\')
			fputc('\\', out);
		fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, out);
	}
}

int figtable_markdown(const struct csvtable *t, const char *const *labels,
		      size_t n, const char *first, FILE *out)
{
	struct cols c;

	if (cols_of(t, n, first, &c))
		return -ENOMEM;
	fputc('|', out);
	if (labels)
		fputs(" source |", out);
	for (size_t k = 0; k < c.n; k++) {
		fputc(' ', out);
		md_text(c.name[k], out);
		fputs(" |", out);
	}
	fputs("\n|", out);
	for (size_t k = 0; k < c.n + !!labels; k++)
		fputs(" --- |", out);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < t[i].n; r++) {
			fputc('|', out);
			if (labels) {
				fputc(' ', out);
				md_text(labels[i], out);
				fputs(" |", out);
			}
			for (size_t k = 0; k < c.n; k++) {
				fputc(' ', out);
				md_text(csvtable_get(&t[i], r, csvtable_col(&t[i], c.name[k])), out);
				fputs(" |", out);
			}
			fputc('\n', out);
		}
	}
	free(c.name);
	return 0;
}
