// SPDX-License-Identifier: GPL-2.0
/* csvtable: a whole CSV file in memory (see csvtable.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvread.h"
#include "csvtable.h"
#include "errmsg.h"
#include "rfile.h"

#define MAXCOL 1024

int csvtable_num(const char *s, double *out)
{
	const char *p = s;
	char *end;
	double v;

	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9') {
		if (!(*p == '.' && p[1] >= '0' && p[1] <= '9'))
			return -EINVAL;
	}
	/* only what strtod reads as a plain decimal: no hex, inf or nan */
	for (const char *q = p; *q; q++)
		if (!strchr("0123456789.eE+-", *q))
			return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

void csvtable_free(struct csvtable *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->hdr);
	for (size_t i = 0; i < t->n; i++)
		free(t->row[i]);
	free(t->row);
	free(t->nf);
	free(t->ln);
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

/* Splits LINE into a new array of fields; -ENOMEM or -EINVAL. */
static int split_line(char *line, char ***fields, int *n)
{
	char *tmp[MAXCOL];
	int k = csvr_split(line, tmp, MAXCOL);

	if (k < 0)
		return k;
	*fields = malloc((size_t)k * sizeof(char *));
	if (!*fields)
		return -ENOMEM;
	memcpy(*fields, tmp, (size_t)k * sizeof(char *));
	*n = k;
	return 0;
}

int csvtable_parse(const char *text, size_t len, const char *name,
		   struct csvtable *t, char *err, size_t errlen)
{
	size_t cap = 0, line = 1;
	char *p, *end;
	int ret;

	memset(t, 0, sizeof(*t));
	t->name = strdup(name);
	t->buf = malloc(len + 1);
	if (!t->name || !t->buf) {
		csvtable_free(t);
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(t->buf, text, len);
	t->buf[len] = '\0';
	if (strlen(t->buf) != len) {
		errmsg_set(err, errlen, "%s: a NUL byte (not a CSV file)", name);
		ret = -EINVAL;
		goto fail;
	}
	p = t->buf;
	end = t->buf + len;
	for (; p < end; line++) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char **f;
		int nf;

		if (nl)
			*nl = '\0';
		ret = split_line(p, &f, &nf);
		if (ret == -ENOMEM) {
			errmsg_set(err, errlen, "out of memory");
			goto fail;
		}
		if (ret) {
			errmsg_set(err, errlen, "%s:%zu: %s", name, line,
				   ret == -E2BIG ? "too many fields" : "a stray quote");
			ret = -EINVAL;
			goto fail;
		}
		p = nl ? nl + 1 : end;
		if (!t->hdr) {
			t->hdr = f;
			t->nh = nf;
			continue;
		}
		/* a blank line ends nothing; it is skipped */
		if (nf == 1 && !*f[0]) {
			free(f);
			continue;
		}
		if (t->n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			char ***nr = realloc(t->row, nc * sizeof(*nr));
			int *nn = nr ? realloc(t->nf, nc * sizeof(*nn)) : NULL;
			size_t *nl2 = nn ? realloc(t->ln, nc * sizeof(*nl2)) : NULL;

			if (nr)
				t->row = nr;
			if (nn)
				t->nf = nn;
			if (!nl2) {
				free(f);
				errmsg_set(err, errlen, "out of memory");
				ret = -ENOMEM;
				goto fail;
			}
			t->ln = nl2;
			cap = nc;
		}
		t->row[t->n] = f;
		t->ln[t->n] = line;
		t->nf[t->n++] = nf;
	}
	if (!t->hdr) {
		errmsg_set(err, errlen, "%s: empty", name);
		ret = -EINVAL;
		goto fail;
	}
	return 0;
fail:
	csvtable_free(t);
	return ret;
}

int csvtable_read(const char *path, size_t max, struct csvtable *t, char *err,
		  size_t errlen)
{
	char why[4200];
	FILE *f = rfile_fopen(path, why, sizeof(why));
	char *text = NULL;
	size_t n = 0, cap = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!f) {
		ret = -errno;
		errmsg_set(err, errlen, "cannot read %s", why);
		return ret;
	}
	for (;;) {
		size_t got;

		if (n == cap) {
			size_t nc = cap ? 2 * cap : 65536;
			char *nt;

			if (cap > max) {
				ret = -EFBIG;
				errmsg_set(err, errlen, "%s: larger than %zu bytes", path, max);
				goto out;
			}
			nt = realloc(text, nc);
			if (!nt) {
				ret = -ENOMEM;
				errmsg_set(err, errlen, "out of memory");
				goto out;
			}
			text = nt;
			cap = nc;
		}
		got = fread(text + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		ret = -EIO;
		errmsg_set(err, errlen, "reading %s failed", path);
		goto out;
	}
	if (n > max) {
		ret = -EFBIG;
		errmsg_set(err, errlen, "%s: larger than %zu bytes", path, max);
		goto out;
	}
	ret = csvtable_parse(text, n, path, t, err, errlen);
out:
	free(text);
	fclose(f);
	return ret;
}

int csvtable_col(const struct csvtable *t, const char *name)
{
	return csvr_col(t->hdr, t->nh, name);
}

const char *csvtable_get(const struct csvtable *t, size_t r, int c)
{
	if (r >= t->n || c < 0 || c >= t->nf[r])
		return "";
	return t->row[r][c];
}

int csvtable_getnum(const struct csvtable *t, size_t r, int c, double *out,
		    char *err, size_t errlen)
{
	const char *s = csvtable_get(t, r, c);

	if (!*s)
		return 0;
	if (csvtable_num(s, out)) {
		errmsg_set(err, errlen, "%s:%zu: column '%s': '%.40s' is not a number",
			   t->name, t->ln[r], t->hdr[c], s);
		return -EINVAL;
	}
	return 1;
}

int csvtable_getnum_nan(const struct csvtable *t, size_t r, const char *name,
			double *out, char *err, size_t errlen)
{
	int ret = csvtable_getnum(t, r, csvtable_col(t, name), out, err, errlen);

	if (ret <= 0)
		*out = NAN;
	return ret < 0 ? ret : 0;
}
