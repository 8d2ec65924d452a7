// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "turbostat.h"

/* Data rows start with a number or "-" (the summary row). */
static int is_data(const char *f)
{
	return !strcmp(f, "-") || isdigit((unsigned char)f[0]);
}

static int col_add(struct ts_table *t, const char *name)
{
	int i = turbostat_col(t, name);

	if (i >= 0)
		return i;
	if (t->ncols == TS_MAX_COLS)
		return -1;
	t->cols[t->ncols] = strdup(name);
	return t->cols[t->ncols] ? t->ncols++ : -1;
}

int turbostat_col(const struct ts_table *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return i;
	return -1;
}

/* Splits line (modified) at tabs; returns the number of fields. */
static int split(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		char *tab = strchr(line, '\t');

		f[n++] = line;
		if (!tab)
			break;
		*tab = '\0';
		line = tab + 1;
	}
	return n;
}

int turbostat_parse(const char *text, struct ts_table *t)
{
	char *copy = strdup(text), *save = NULL, *line;
	int map[TS_MAX_COLS], nmap = 0, sample = 0;

	memset(t, 0, sizeof(*t));
	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[TS_MAX_COLS + 1];
		int n;

		line[strcspn(line, "\r")] = '\0';
		if (!strchr(line, '\t'))
			continue;	/* "5.011 sec", "cpu0: MSR_...", blank */
		n = split(line, f, TS_MAX_COLS + 1);
		if (!is_data(f[0])) {	/* a header: a new sample */
			nmap = 0;
			for (int i = 0; i < n && i < TS_MAX_COLS; i++) {
				map[i] = col_add(t, f[i]);
				nmap++;
			}
			sample++;
			continue;
		}
		if (!sample || n > nmap) {
			t->bad++;
			continue;
		}
		if (t->nrows == t->cap) {
			size_t ncap = t->cap ? 2 * t->cap : 64;
			struct ts_row *nr = realloc(t->rows, ncap * sizeof(*nr));

			if (!nr)
				goto nomem;
			t->rows = nr;
			t->cap = ncap;
		}
		struct ts_row *r = &t->rows[t->nrows];

		r->sample = sample;
		r->val = calloc(TS_MAX_COLS, sizeof(char *));
		if (!r->val)
			goto nomem;
		t->nrows++;
		for (int i = 0; i < n; i++) {
			if (map[i] < 0)
				continue;
			/* A header may name a column twice: the last value wins. */
			free(r->val[map[i]]);
			r->val[map[i]] = strdup(f[i]);
			if (!r->val[map[i]])
				goto nomem;
		}
	}
	free(copy);
	return sample ? (int)t->nrows : -EINVAL;
nomem:
	free(copy);
	return -ENOMEM;
}

int turbostat_write_csv(const struct ts_table *t, const char *path)
{
	struct csv *c = csv_open(path);
	char hdr[8192];
	size_t len = 0;

	if (!c)
		return -errno;
	len += (size_t)snprintf(hdr, sizeof(hdr), "sample");
	for (int i = 0; i < t->ncols && len < sizeof(hdr); i++)
		len += (size_t)snprintf(hdr + len, sizeof(hdr) - len, ",%s", t->cols[i]);
	csv_header(c, hdr);
	for (size_t r = 0; r < t->nrows; r++) {
		csv_u64(c, (uint64_t)t->rows[r].sample);
		for (int i = 0; i < t->ncols; i++) {
			if (t->rows[r].val[i])
				csv_str(c, t->rows[r].val[i]);
			else
				csv_empty(c);
		}
		csv_end_row(c);
	}
	return csv_close(c);
}

void turbostat_free(struct ts_table *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		for (int i = 0; i < TS_MAX_COLS; i++)
			free(t->rows[r].val[i]);
		free(t->rows[r].val);
	}
	free(t->rows);
	for (int i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	memset(t, 0, sizeof(*t));
}
