// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench stats DIR: per sweep point, the median across repetitions of
 * avg, p50, p99 and p99.9 latency with its 95 % CI, mean and standard
 * deviation, repetitions needed for +-1 %, and the speedup against the
 * same point with pre-query off (flagged when the CIs overlap).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "opt.h"
#include "stats.h"

#define PROG "wakebench-stats"
#define MAXCOL 64

/* Parameters that name a point; the speedup base is the point with the
 * same values and prequery=off. */
static const char *const params[] = {
	"dist", "interval_us", "prequery", "warmup", "cstates", "service_us",
	"requests",
};
#define NPARAMS (sizeof(params) / sizeof(*params))
static const char *const metrics[] = { "avg", "p50", "p99", "p999" };
#define NMETRICS 4

struct point {
	char name[512];
	char param[NPARAMS][64];
	double *val[NMETRICS];
	size_t n, cap;
	struct stats_summary s[NMETRICS];
};

static int split(char *line, char **f)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	for (char *p = line; n < MAXCOL;) {
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

static int col(char **hdr, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(hdr[i], name))
			return i;
	return -1;
}

static struct point *find_point(struct point **pts, size_t *npts, size_t *cap,
				const char *name)
{
	for (size_t i = 0; i < *npts; i++)
		if (!strcmp((*pts)[i].name, name))
			return &(*pts)[i];
	if (*npts == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct point *np = realloc(*pts, ncap * sizeof(*np));

		if (!np)
			opt_die(PROG, "out of memory");
		*pts = np;
		*cap = ncap;
	}
	memset(&(*pts)[*npts], 0, sizeof(**pts));
	snprintf((*pts)[*npts].name, sizeof((*pts)[*npts].name), "%s", name);
	return &(*pts)[(*npts)++];
}

static void add_val(struct point *p, int m, double v)
{
	if (p->n == p->cap) {
		size_t ncap = p->cap ? 2 * p->cap : 8;

		for (int k = 0; k < NMETRICS; k++) {
			double *nv = realloc(p->val[k], ncap * sizeof(*nv));

			if (!nv)
				opt_die(PROG, "out of memory");
			p->val[k] = nv;
		}
		p->cap = ncap;
	}
	p->val[m][p->n] = v;
}

/* The point with the same parameters and prequery=off, or NULL. */
static const struct point *base_of(const struct point *pts, size_t n,
				   const struct point *p)
{
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (strcmp(pts[i].param[2], "off"))
			continue;
		for (k = 0; k < NPARAMS; k++)
			if (k != 2 && strcmp(pts[i].param[k], p->param[k]))
				break;
		if (k == NPARAMS)
			return &pts[i];
	}
	return NULL;
}

int main(int argc, char **argv)
{
	char path[4096], line[8192], *hdr[MAXCOL], hdrline[8192];
	int nh, ci_point, ci_status, ci_param[NPARAMS], ci_metric[NMETRICS];
	struct point *pts = NULL;
	size_t npts = 0, cap = 0, rows = 0;
	struct csv *out;
	FILE *f;
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			printf("Usage: wakebench stats DIR\n\n"
			       "Reads DIR/sweep.csv (wakebench sweep) and writes DIR/summary.csv: per\n"
			       "point the median of avg/p50/p99/p99.9 latency across repetitions with\n"
			       "its 95 %% non-parametric CI (order statistics; whole range when n < 6),\n"
			       "mean, standard deviation, repetitions needed for +-1 %% at 95 %%\n"
			       "(parametric and CONFIRM-style resampling), and the speedup against the\n"
			       "same point with prequery=off, with ci_overlap_* = 1 when the two CIs\n"
			       "overlap (the difference is not significant).\n");
			return 0;
		}
		opt_bad_option(PROG);
	}
	if (optind + 1 != argc)
		opt_usage(PROG, "give one sweep DIR");
	snprintf(path, sizeof(path), "%s/sweep.csv", argv[optind]);
	f = fopen(path, "r");
	if (!f)
		opt_die(PROG, "cannot read %s: %s", path, strerror(errno));
	if (!fgets(hdrline, sizeof(hdrline), f))
		opt_die(PROG, "%s is empty", path);
	nh = split(hdrline, hdr);
	ci_point = col(hdr, nh, "point");
	ci_status = col(hdr, nh, "status");
	for (size_t k = 0; k < NPARAMS; k++)
		ci_param[k] = col(hdr, nh, params[k]);
	for (int m = 0; m < NMETRICS; m++) {
		char name[32];

		snprintf(name, sizeof(name), "lat_%s_us", metrics[m]);
		ci_metric[m] = col(hdr, nh, name);
		if (ci_metric[m] < 0)
			opt_die(PROG, "%s has no column %s", path, name);
	}
	if (ci_point < 0 || ci_status < 0)
		opt_die(PROG, "%s has no point or status column", path);
	while (fgets(line, sizeof(line), f)) {
		char *fld[MAXCOL];
		int n = split(line, fld);
		struct point *p;

		if (n != nh || strcmp(fld[ci_status], "ok"))
			continue;	/* failed or partial runs do not count */
		p = find_point(&pts, &npts, &cap, fld[ci_point]);
		for (size_t k = 0; k < NPARAMS; k++)
			snprintf(p->param[k], sizeof(p->param[k]), "%s",
				 ci_param[k] >= 0 ? fld[ci_param[k]] : "");
		for (int m = 0; m < NMETRICS; m++)
			add_val(p, m, strtod(fld[ci_metric[m]], NULL));
		p->n++;
		rows++;
	}
	fclose(f);
	if (!rows)
		opt_die(PROG, "no successful runs in %s", path);
	for (size_t i = 0; i < npts; i++)
		for (int m = 0; m < NMETRICS; m++)
			if (stats_summarize(pts[i].val[m], pts[i].n, 1, i + 1, &pts[i].s[m]))
				opt_die(PROG, "out of memory");

	snprintf(path, sizeof(path), "%s/summary.csv", argv[optind]);
	out = csv_open(path);
	if (!out)
		opt_die(PROG, "cannot write %s: %s", path, strerror(errno));
	{
		char h[8192];
		size_t len = (size_t)snprintf(h, sizeof(h), "point");

		for (size_t k = 0; k < NPARAMS; k++)
			len += (size_t)snprintf(h + len, sizeof(h) - len, ",%s", params[k]);
		len += (size_t)snprintf(h + len, sizeof(h) - len, ",n");
		for (int m = 0; m < NMETRICS; m++) {
			const char *x = metrics[m];

			len += (size_t)snprintf(h + len, sizeof(h) - len,
				",%s_median_us,%s_ci_lo_us,%s_ci_hi_us,%s_mean_us,%s_sd_us,"
				"%s_reps_param,%s_reps_confirm", x, x, x, x, x, x, x);
		}
		for (int m = 0; m < NMETRICS; m++)
			len += (size_t)snprintf(h + len, sizeof(h) - len, ",speedup_%s",
						metrics[m]);
		for (int m = 0; m < NMETRICS; m++)
			len += (size_t)snprintf(h + len, sizeof(h) - len, ",ci_overlap_%s",
						metrics[m]);
		snprintf(h + len, sizeof(h) - len, ",ci_exact");
		csv_header(out, h);
	}
	printf("%-40s %3s %10s %21s %10s %8s\n", "point", "n", "p50_med", "p50 95% CI", "p99_med",
	       "speedup");
	for (size_t i = 0; i < npts; i++) {
		const struct point *p = &pts[i];
		const struct point *b = strcmp(p->param[2], "off") ?
					base_of(pts, npts, p) : NULL;

		csv_str(out, p->name);
		for (size_t k = 0; k < NPARAMS; k++)
			csv_str(out, p->param[k]);
		csv_u64(out, p->n);
		for (int m = 0; m < NMETRICS; m++) {
			const struct stats_summary *s = &p->s[m];

			csv_double(out, s->median, 3);
			csv_double(out, s->ci_lo, 3);
			csv_double(out, s->ci_hi, 3);
			csv_double(out, s->mean, 3);
			csv_double(out, s->sd, 3);
			csv_double(out, s->reps_param, 1);
			if (s->reps_confirm > 0)
				csv_i64(out, s->reps_confirm);
			else
				csv_empty(out);
		}
		for (int m = 0; m < NMETRICS; m++)
			csv_double(out, b && p->s[m].median > 0 ?
				   b->s[m].median / p->s[m].median : NAN, 4);
		for (int m = 0; m < NMETRICS; m++) {
			if (b)
				csv_u64(out, (uint64_t)stats_overlap(
					p->s[m].ci_lo, p->s[m].ci_hi,
					b->s[m].ci_lo, b->s[m].ci_hi));
			else
				csv_empty(out);
		}
		csv_u64(out, (uint64_t)p->s[0].ci_exact);
		csv_end_row(out);
		{
			char ci[48], sp[16] = "-";

			snprintf(ci, sizeof(ci), "[%.1f, %.1f]", p->s[1].ci_lo, p->s[1].ci_hi);
			if (b)
				snprintf(sp, sizeof(sp), "%.3f%s", b->s[1].median / p->s[1].median,
					 stats_overlap(p->s[1].ci_lo, p->s[1].ci_hi,
						       b->s[1].ci_lo, b->s[1].ci_hi) ? "~" : "");
			printf("%-40.40s %3zu %10.1f %21s %10.1f %8s\n", p->name, p->n,
			       p->s[1].median, ci, p->s[2].median, sp);
		}
	}
	if (csv_close(out))
		opt_die(PROG, "writing %s failed", path);
	printf("%zu points, %zu runs -> %s (speedup: p50 of pre-query off / this; ~ = CIs overlap)\n",
	       npts, rows, path);
	for (size_t i = 0; i < npts; i++)
		for (int m = 0; m < NMETRICS; m++)
			free(pts[i].val[m]);
	free(pts);
	return 0;
}
