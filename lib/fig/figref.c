// SPDX-License-Identifier: GPL-2.0
/* figref: reference speedups for figure 2 (see figref.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvtable.h"
#include "errmsg.h"
#include "figref.h"

/* a reference file is a few lines typed by hand */
#define MAX_REF (1u << 20)

static const char *const metric_name[FIGREF_NM] = { "avg", "p50", "p99" };
static const char *const hdr[] = { "point", "metric", "value", "source" };

const char *figref_metric_name(int metric)
{
	return metric >= 0 && metric < FIGREF_NM ? metric_name[metric] : "?";
}

void figref_free(struct figref *r)
{
	if (!r)
		return;
	csvtable_free(r->tab);
	free(r->tab);
	free(r->row);
	free(r->name);
	memset(r, 0, sizeof(*r));
}

struct figref_row *figref_find(const struct figref *r, const char *point,
			       int metric)
{
	for (size_t i = 0; r && point && i < r->n; i++)
		if (r->row[i].metric == metric && !strcmp(r->row[i].point, point))
			return &r->row[i];
	return NULL;
}

/* 0 when S is text a figure and a table can show: no control character. */
static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return -1;
	return 0;
}

static int check_header(const struct csvtable *t, char *err, size_t errlen)
{
	int ok = t->nh == 4;

	for (int i = 0; ok && i < 4; i++)
		ok = !strcmp(t->hdr[i], hdr[i]);
	if (ok)
		return 0;
	errmsg_set(err, errlen, "%s:1: the header must be point,metric,value,source",
		   t->name);
	return -EINVAL;
}

/* Row I of T into R->row[I]; -EINVAL with "NAME:LINE: cause". */
static int parse_row(const struct csvtable *t, size_t i, struct figref *r,
		     char *err, size_t errlen)
{
	struct figref_row *x = &r->row[i], *dup;
	const char *m = csvtable_get(t, i, 1), *v = csvtable_get(t, i, 2);
	const char *why = NULL;

	x->line = t->ln[i];
	x->point = csvtable_get(t, i, 0);
	x->source = csvtable_get(t, i, 3);
	for (x->metric = 0; x->metric < FIGREF_NM; x->metric++)
		if (!strcmp(m, metric_name[x->metric]))
			break;
	if (t->nf[i] != 4)
		why = "fields, not 4 (point,metric,value,source)";
	else if (!*x->point || printable(x->point))
		why = "an empty point, or a control character in it";
	else if (x->metric == FIGREF_NM)
		why = "the metric is not avg, p50 or p99";
	else if (csvtable_num(v, &x->value))
		why = "the value is not a number";
	else if (!(x->value > 0))
		why = "the value is not a positive speedup";
	else if (!*x->source || printable(x->source))
		why = "an empty source, or a control character in it";
	if (why && t->nf[i] != 4) {
		errmsg_set(err, errlen, "%s:%zu: %d %s", t->name, x->line, t->nf[i], why);
		return -EINVAL;
	}
	if (why) {
		errmsg_set(err, errlen, "%s:%zu: %s: '%.60s'", t->name, x->line, why,
			   x->metric == FIGREF_NM ? m : strstr(why, "value") ? v :
			   strstr(why, "point") ? x->point : x->source);
		return -EINVAL;
	}
	/* the rows before this one: the file's order, the first line named */
	r->n = i;
	dup = figref_find(r, x->point, x->metric);
	r->n = i + 1;
	if (dup) {
		errmsg_set(err, errlen, "%s:%zu: %s of point '%.60s' again (line %zu has it)",
			   t->name, x->line, metric_name[x->metric], x->point, dup->line);
		return -EINVAL;
	}
	return 0;
}

int figref_read(const char *path, struct figref *r, char *err, size_t errlen)
{
	struct csvtable *t = calloc(1, sizeof(*t));
	int ret;

	memset(r, 0, sizeof(*r));
	r->name = strdup(path);
	if (!t || !r->name) {
		free(t);
		figref_free(r);
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->tab = t;
	ret = csvtable_read(path, MAX_REF, t, err, errlen);
	if (ret)
		goto fail;
	ret = check_header(t, err, errlen);
	if (ret)
		goto fail;
	if (!t->n) {
		errmsg_set(err, errlen, "%s: no reference row under the header", path);
		ret = -EINVAL;
		goto fail;
	}
	r->row = calloc(t->n, sizeof(*r->row));
	if (!r->row) {
		errmsg_set(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < t->n; i++) {
		ret = parse_row(t, i, r, err, errlen);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	figref_free(r);
	return ret;
}

size_t figref_sources(const struct figref *r, int used_only, char *buf,
		      size_t len)
{
	size_t off = 0, k = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; r && i < r->n; i++) {
		const struct figref_row *x = &r->row[i];
		int seen = 0;

		if (used_only && !x->used)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = (!used_only || r->row[j].used) &&
			       !strcmp(r->row[j].source, x->source);
		if (seen)
			continue;
		k++;
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "; " : "",
						x->source);
	}
	return k;
}
