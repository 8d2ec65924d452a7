// SPDX-License-Identifier: GPL-2.0
/*
 * figpairs: figures 1 and 2 of wakebench report (see the header). The
 * rules are those of the awk code it replaced, kept exactly so that the
 * figures do not change: fields split at every comma (the summaries hold
 * no quoted commas), numbers read as awk reads them (a leading number,
 * else 0), pairs keyed by label with the last row of a label winning.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figpairs.h"
#include "rfile.h"
#include "sweepdim.h"

#define MAXCOL 512

void figpairs_num(double v, char *buf, size_t len)
{
	if (isfinite(v) && v == floor(v) && fabs(v) <= 2147483647.0)
		snprintf(buf, len, "%d", (int)v);
	else
		snprintf(buf, len, "%.6g", v);
}

/* A string as an awk number: its leading number, else 0. */
static double awknum(const char *s)
{
	char *end;
	double v;

	while (*s == ' ' || *s == '\t')
		s++;
	/* awk reads decimal numbers only (no hex, inf or nan words) */
	if (!strchr("0123456789+-.", *s) || !*s)
		return 0;
	v = strtod(s, &end);
	return end == s ? 0 : v;
}

/* Whether a field equals the constant 0 as awk compares it. */
static int awk_is0(const char *s)
{
	char *end;
	double v;
	const char *p = s;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p && strchr("0123456789+-.", *p)) {
		v = strtod(p, &end);
		if (end != p) {
			while (*end == ' ' || *end == '\t' || *end == '\n')
				end++;
			if (!*end)
				return v == 0;	/* a numeric string */
		}
	}
	return !strcmp(s, "0");
}

/* Splits S into at most MAX words as awk's split(s, a, " ") does; the
 * words are copied into BUF (of S's length + 1). Missing ones are "". */
static void wsplit(const char *s, char *buf, const char **w, int max)
{
	int n = 0;

	strcpy(buf, s);
	for (char *save = NULL, *t = strtok_r(buf, " \t\n", &save); t && n < max;
	     t = strtok_r(NULL, " \t\n", &save))
		w[n++] = t;
	while (n < max)
		w[n++] = "";
}

struct pair {
	char *key;
	char *v;		/* the values, joined by spaces */
	char *sp;		/* sweeps: speedups, joined by spaces */
	char *base;		/* on-entries: the key of their off point */
	double nb;		/* runs behind schedule */
};

struct map {
	struct pair *p;
	size_t n, cap;
};

static struct pair *map_get(struct map *m, const char *key, int add)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->p[i].key, key))
			return &m->p[i];
	if (!add)
		return NULL;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct pair *np = realloc(m->p, cap * sizeof(*np));

		if (!np)
			return NULL;
		m->p = np;
		m->cap = cap;
	}
	memset(&m->p[m->n], 0, sizeof(m->p[0]));
	m->p[m->n].key = strdup(key);
	if (!m->p[m->n].key)
		return NULL;
	return &m->p[m->n++];
}

static void map_free(struct map *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->p[i].key);
		free(m->p[i].v);
		free(m->p[i].sp);
		free(m->p[i].base);
	}
	free(m->p);
}

/* Replaces *dst with a copy of SRC; -ENOMEM. */
static int set(char **dst, const char *src)
{
	char *c = strdup(src);

	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

static int oom(char *err, size_t errlen)
{
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* Splits a line at every comma, in place; the field count. */
static int split(char *line, char **f)
{
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	for (char *p = line;;) {
		char *c = strchr(p, ',');

		if (n == MAXCOL)
			return n;
		f[n++] = p;
		if (!c)
			return n;
		*c = '\0';
		p = c + 1;
	}
}

static int col(char **h, int nh, const char *name)
{
	for (int i = 0; i < nh; i++)
		if (!strcmp(h[i], name))
			return i;
	return -1;
}

/* Field C of a row of NF fields: "" for an absent column or field. */
static const char *fld(char **f, int nf, int c)
{
	return c >= 0 && c < nf ? f[c] : "";
}

/* Writes the pairs of ON with an entry in OFF; RUNS: single-run rules. */
static int write_pairs(struct map *off, struct map *on, int runs, FILE *bars,
		       FILE *speedup)
{
	for (size_t i = 0; i < on->n; i++) {
		const struct pair *p = &on->p[i], *b = map_get(off, p->base, 0);
		const char *a[6], *o[6];
		char *ab, *ob, lab[1024];

		if (!b)
			continue;
		ab = malloc(strlen(b->v) + 1);
		ob = malloc(strlen(p->v) + 1);
		if (!ab || !ob) {
			free(ab);
			free(ob);
			return -ENOMEM;
		}
		wsplit(b->v, ab, a, 6);
		wsplit(p->v, ob, o, 6);
		if (runs) {
			char s[3][64];

			fprintf(bars, "%s %s %s %s %s %s %s %s %s %s %s %s %s\n", p->key,
				a[0], a[0], a[0], o[0], o[0], o[0], a[2], a[2], a[2],
				o[2], o[2], o[2]);
			for (int k = 0; k < 3; k++)
				figpairs_num(awknum(a[k]) / awknum(o[k]), s[k], sizeof(s[k]));
			fprintf(speedup, "%s %s %s %s\n", p->key, s[0], s[1], s[2]);
		} else {
			double nb = b->nb + p->nb;
			char nbs[64] = "";

			if (nb != 0)
				figpairs_num(nb, nbs, sizeof(nbs));
			snprintf(lab, sizeof(lab), "%s%s%s%s", p->key, nb != 0 ? "[!" : "",
				 nbs, nb != 0 ? "_behind]" : "");
			fprintf(bars, "%s %s %s %s %s %s %s %s %s %s %s %s %s\n", lab,
				a[0], a[1], a[2], o[0], o[1], o[2], a[3], a[4], a[5],
				o[3], o[4], o[5]);
			fprintf(speedup, "%s %s\n", lab, p->sp);
		}
		free(ab);
		free(ob);
	}
	return ferror(bars) || ferror(speedup) ? -EIO : 0;
}

/*
 * The end both readers share: the pairs written when reading went well,
 * the reader's buffers and maps freed; returns ret or the write's error.
 */
static int finish(int ret, struct map *off, struct map *on, int runs,
		  FILE *bars, FILE *speedup, char *hline, char *line,
		  char *err, size_t errlen)
{
	if (!ret) {
		ret = write_pairs(off, on, runs, bars, speedup);
		if (ret == -ENOMEM)
			oom(err, errlen);
		else if (ret)
			snprintf(err, errlen, "writing the figure data failed");
	}
	free(hline);
	free(line);
	map_free(off);
	map_free(on);
	return ret;
}

/* The numbers a sweep pair shows: bars.dat's six, speedup.dat's three. */
static const char *const bar_cols[6] = {
	"avg_median_us", "avg_ci_lo_us", "avg_ci_hi_us", "p99_median_us",
	"p99_ci_lo_us", "p99_ci_hi_us",
};
static const char *const sp_cols[3] = {
	"speedup_avg", "speedup_p50", "speedup_p99",
};

/* Where a summary's columns are (-1: absent). */
struct sweep_cols {
	int n, nb, bar[6], sp[3], dim[SWEEPDIM_N];
};

static void sweep_cols(char **h, int nh, struct sweep_cols *c)
{
	c->n = col(h, nh, "n");
	c->nb = col(h, nh, "n_behind");
	for (int k = 0; k < 6; k++)
		c->bar[k] = col(h, nh, bar_cols[k]);
	for (int k = 0; k < 3; k++)
		c->sp[k] = col(h, nh, sp_cols[k]);
	for (int d = 0; d < SWEEPDIM_N; d++)
		c->dim[d] = col(h, nh, sweepdim_table[d].col);
}

/*
 * Appends to KEY (LEN bytes so far) "/<tag><value>" for each dimension of
 * label role FIG (lib/sweep/sweepdim.h), in table order, but for its
 * default value (a tier's C-states: cstates' value) and, past the first
 * six, for an empty one. The new length (>= SIZE: too long).
 */
static int label_add(char *key, size_t size, int len, enum sweepdim_fig fig,
		     const char *const *x)
{
	for (int d = 0; d < SWEEPDIM_N; d++) {
		const struct sweepdim *t = &sweepdim_table[d];
		const char *omit;

		if (t->fig != fig || (size_t)len >= size)
			continue;
		omit = t->follows ? x[sweepdim_find(t->follows)] : t->def;
		if ((!*x[d] && d >= SWEEPDIM_NFIRST) || !strcmp(x[d], omit))
			continue;
		len += snprintf(key + len, size - (size_t)len, "/%s%s", t->tag, x[d]);
	}
	return len;
}

/* One summary row R (NF fields) into OFF or ON; -EINVAL (label too long,
 * message in ERR) or -ENOMEM. */
static int sweep_row(char **r, int nf, const struct sweep_cols *c,
		     struct map *off, struct map *on, const char *name,
		     char *err, size_t errlen)
{
	char key[1024], pk[1400], v[2048], sp[1024];
	const char *x[SWEEPDIM_N], *pq;
	struct pair *p;
	int len, three;

	for (int d = 0; d < SWEEPDIM_N; d++)
		x[d] = fld(r, nf, c->dim[d]);
	if (c->n >= 0 && awk_is0(fld(r, nf, c->n)))
		return 0;
	len = snprintf(key, sizeof(key), "%s:%gus", x[SWEEPDIM_DIST],
		       awknum(x[SWEEPDIM_INTERVAL_US]));
	len = label_add(key, sizeof(key), len, SWEEPDIM_FIG_CONFIG, x);
	if ((size_t)len >= sizeof(key)) {
		snprintf(err, errlen, "%s: a label longer than %zu bytes", name, sizeof(key));
		return -EINVAL;
	}
	snprintf(v, sizeof(v), "%s %s %s %s %s %s", fld(r, nf, c->bar[0]),
		 fld(r, nf, c->bar[1]), fld(r, nf, c->bar[2]), fld(r, nf, c->bar[3]),
		 fld(r, nf, c->bar[4]), fld(r, nf, c->bar[5]));
	/* with three tiers the midtier's delay is the pre-query */
	three = !strcmp(x[SWEEPDIM_TIERS], "3");
	pq = three ? x[SWEEPDIM_DELAY] : x[SWEEPDIM_PREQUERY];
	if (!*pq || !strcmp(pq, "off")) {
		p = map_get(off, key, 1);
	} else {
		int pl = snprintf(pk, sizeof(pk), "%s/%s%s", key, three ? "delay" : "pq", pq);

		label_add(pk, sizeof(pk), pl, SWEEPDIM_FIG_PAIR, x);
		p = map_get(on, pk, 1);
		snprintf(sp, sizeof(sp), "%s %s %s", fld(r, nf, c->sp[0]),
			 fld(r, nf, c->sp[1]), fld(r, nf, c->sp[2]));
		if (p && (set(&p->base, key) || set(&p->sp, sp)))
			p = NULL;
	}
	if (!p || set(&p->v, v))
		return oom(err, errlen);
	p->nb = c->nb >= 0 ? awknum(fld(r, nf, c->nb)) : 0;
	return 0;
}

int figpairs_sweep(FILE *f, const char *name, FILE *bars, FILE *speedup,
		   char *err, size_t errlen)
{
	char *hline = NULL, *line = NULL, *h[MAXCOL];
	size_t hcap = 0, cap = 0;
	ssize_t got;
	struct map off = { 0 }, on = { 0 };
	struct sweep_cols c;
	int nh, ret = 0;

	/* lines bounded before they are held (a 2 GB line would cost 2 GB) */
	got = rfile_getline(f, &hline, &hcap, RFILE_LINE_MAX);
	if (got <= 0) {
		free(hline);
		snprintf(err, errlen, "%s%s", name, got == -E2BIG ?
			 ":1: a line longer than 64 KiB" : got ? ": read error" : ": empty");
		return got && got != -E2BIG ? -EIO : -EINVAL;
	}
	nh = split(hline, h);
	sweep_cols(h, nh, &c);
	if (c.dim[SWEEPDIM_DIST] < 0 || c.dim[SWEEPDIM_INTERVAL_US] < 0 ||
	    c.dim[SWEEPDIM_PREQUERY] < 0) {
		snprintf(err, errlen, "%s has no dist, interval_us or prequery column", name);
		free(hline);
		return -EINVAL;
	}
	while ((got = rfile_getline(f, &line, &cap, RFILE_LINE_MAX)) > 0) {
		char *r[MAXCOL];
		int nf = split(line, r);

		ret = sweep_row(r, nf, &c, &off, &on, name, err, errlen);
		if (ret)
			break;
	}
	if (!ret && got == -E2BIG) {
		snprintf(err, errlen, "%s: a line longer than 64 KiB", name);
		ret = -EINVAL;
	} else if (!ret && got < 0) {
		snprintf(err, errlen, "%s: read error", name);
		ret = -EIO;
	}
	return finish(ret, &off, &on, 0, bars, speedup, hline, line, err,
		      errlen);
}

/* Row 2's field NAME of a client summary (split at commas), or "". */
static const char *sum_col(char **h, int nh, char **r, int nr, const char *name)
{
	return fld(r, nr, col(h, nh, name));
}

int figpairs_runs(char *const *paths, size_t n, FILE *bars, FILE *speedup,
		  char *err, size_t errlen)
{
	struct map off = { 0 }, on = { 0 };
	char *hline = NULL, *line = NULL;
	size_t hcap = 0, cap = 0;
	ssize_t got;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		char *h[MAXCOL], *r[MAXCOL], l[4096], lbuf[4096], k[4200], v[4096];
		const char *w[6], *lead;
		int nh = 0, nr = 0;
		struct pair *p;
		FILE *f = rfile_fopen_quiet(paths[i]);

		if (!f) {
			ret = -errno;
			snprintf(err, errlen, "cannot read %s: %s", paths[i], rfile_strerror(-ret));
			break;
		}
		got = rfile_getline(f, &hline, &hcap, RFILE_LINE_MAX);
		if (got > 0) {
			nh = split(hline, h);
			got = rfile_getline(f, &line, &cap, RFILE_LINE_MAX);
			if (got > 0)
				nr = split(line, r);
		}
		if (got == -E2BIG) {
			snprintf(err, errlen, "%s: a line longer than 64 KiB", paths[i]);
			ret = -EINVAL;
		} else if (got < 0) {
			snprintf(err, errlen, "reading %s failed", paths[i]);
			ret = -EIO;
		}
		fclose(f);
		if (ret)
			break;
		/* the report's line: "DIST:<%g>us PREQUERY LEAD|- AVG P50 P99" */
		lead = sum_col(h, nh, r, nr, "prequery_lead_us");
		snprintf(l, sizeof(l), "%s:%gus %s %s %s %s %s",
			 sum_col(h, nh, r, nr, "dist"),
			 awknum(sum_col(h, nh, r, nr, "interval_us")),
			 sum_col(h, nh, r, nr, "prequery"), *lead ? lead : "-",
			 sum_col(h, nh, r, nr, "lat_avg_us"),
			 sum_col(h, nh, r, nr, "lat_p50_us"),
			 sum_col(h, nh, r, nr, "lat_p99_us"));
		wsplit(l, lbuf, w, 6);
		snprintf(v, sizeof(v), "%s %s %s", w[3], w[4], w[5]);
		if (!strcmp(w[1], "off")) {
			p = map_get(&off, w[0], 1);
		} else {
			if (!strcmp(w[1], "fixed"))
				snprintf(k, sizeof(k), "%s/%s-%gus", w[0], w[1], awknum(w[2]));
			else
				snprintf(k, sizeof(k), "%s/%s", w[0], w[1]);
			p = map_get(&on, k, 1);
			if (p && set(&p->base, w[0]))
				p = NULL;
		}
		if (!p || set(&p->v, v))
			ret = oom(err, errlen);
	}
	return finish(ret, &off, &on, 1, bars, speedup, hline, line, err,
		      errlen);
}
