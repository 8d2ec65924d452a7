// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench stats DIR: per sweep point, the median across repetitions of
 * avg, p50, p99 and p99.9 latency with its order-statistic confidence
 * interval and that interval's exact coverage, mean and standard
 * deviation, repetitions needed for +-1 %, and the speedup against the
 * same point with pre-query off (flagged when the CIs overlap). Runs that
 * fell behind their schedule (lib/runcheck) are named, counted per point
 * and left out of the medians unless --include-behind.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "opt.h"
#include "runcheck.h"
#include "stats.h"

#define PROG "wakebench-stats"
#define MAXCOL 128

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
	size_t n, cap;		/* runs in the medians */
	size_t n_behind;	/* ok runs that fell behind (in or out) */
	struct stats_summary s[NMETRICS];
};

static const char *path;	/* sweep.csv, for messages */
static unsigned long lineno;

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s:%lu: ", PROG, path, lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Splits a CSV line (RFC 4180 quotes allowed) in place; returns fields. */
static int split(char *line, char **f)
{
	int n = 0;
	char *r = line, *w;

	line[strcspn(line, "\r\n")] = '\0';
	for (;;) {
		if (n == MAXCOL)
			bad("more than %d fields", MAXCOL);
		f[n++] = w = r;
		if (*r == '"') {
			for (r++;; r++) {
				if (!*r)
					bad("unterminated quoted field");
				if (*r == '"' && r[1] == '"')
					r++;
				else if (*r == '"')
					break;
				*w++ = *r;
			}
			r++;
			if (*r && *r != ',')
				bad("text after a quoted field");
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		if (!*r) {
			*w = '\0';
			break;
		}
		*w = '\0';
		r++;
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

/*
 * A non-negative finite decimal number: digits with an optional fraction
 * and exponent. No sign, hex, inf, nan, or overflow.
 */
static int parse_num(const char *s, double *v)
{
	char *end;

	if (!isdigit((unsigned char)s[0]) && !(s[0] == '.' && isdigit((unsigned char)s[1])))
		return -EINVAL;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '.' && *p != 'e' &&
		    *p != 'E' && *p != '+' && *p != '-')
			return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (*end || errno == ERANGE || !isfinite(*v))
		return -EINVAL;
	return 0;
}

static double num_field(char **fld, int c, const char *name)
{
	double v;

	if (parse_num(fld[c], &v))
		bad("column %s: '%s' is not a non-negative number", name, fld[c]);
	return v;
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

static void add_vals(struct point *p, const double *v)
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
	for (int m = 0; m < NMETRICS; m++)
		p->val[m][p->n] = v[m];
	p->n++;
}

/* The point with the same parameters and prequery=off, or NULL. */
static const struct point *base_of(const struct point *pts, size_t n,
				   const struct point *p)
{
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (strcmp(pts[i].param[2], "off") || !pts[i].n)
			continue;
		for (k = 0; k < NPARAMS; k++)
			if (k != 2 && strcmp(pts[i].param[k], p->param[k]))
				break;
		if (k == NPARAMS)
			return &pts[i];
	}
	return NULL;
}

struct cols {
	int point, rep, status, param[NPARAMS], metric[NMETRICS];
	int behind, reason, requests, late, pace_p99, interval;
};

/*
 * Whether an ok run fell behind: the client's own verdict when sweep.csv
 * carries it, else lib/runcheck on the run's numbers; -1 when neither is
 * there (an old sweep) and the run cannot be checked.
 */
static int run_behind(char **fld, const struct cols *c, char *why, size_t len)
{
	struct runcheck_in in;
	int r;

	why[0] = '\0';
	if (c->behind >= 0 && fld[c->behind][0]) {
		if (strcmp(fld[c->behind], "0") && strcmp(fld[c->behind], "1"))
			bad("column behind_schedule: '%s' is not 0 or 1", fld[c->behind]);
		if (fld[c->behind][0] == '1')
			snprintf(why, len, "%s", c->reason >= 0 && fld[c->reason][0] ?
				 fld[c->reason] : "flagged by the client");
		return fld[c->behind][0] == '1';
	}
	if (c->requests < 0 || c->late < 0 || c->pace_p99 < 0 ||
	    !fld[c->requests][0] || !fld[c->late][0] || !fld[c->pace_p99][0])
		return -1;
	in.requests = (uint64_t)num_field(fld, c->requests, "requests");
	in.late = (uint64_t)num_field(fld, c->late, "late_sends");
	in.pacing_p99_us = num_field(fld, c->pace_p99, "pace_p99_us");
	in.mean_gap_us = c->interval >= 0 && fld[c->interval][0] ?
			 num_field(fld, c->interval, "interval_us") : 0;
	r = runcheck_behind(&in, why, len);
	if (r < 0)
		bad("late_sends %s of requests %s is not a run", fld[c->late],
		    fld[c->requests]);
	return r;
}

static void usage(void)
{
	printf("Usage: wakebench stats [--include-behind] [--out FILE] DIR\n\n"
	       "Reads DIR/sweep.csv (wakebench sweep) and writes DIR/summary.csv (or FILE):\n"
	       "per point the median of avg/p50/p99/p99.9 latency across repetitions with\n"
	       "its non-parametric CI from order statistics and that interval's exact\n"
	       "coverage (ci_coverage: 95 %% or more from n = 6; with n < 6 the interval\n"
	       "is the min-max range, 93.8 %% for n = 5), mean, standard deviation,\n"
	       "repetitions needed for +-1 %% (parametric, and CONFIRM: random subsets\n"
	       "without replacement; \">n\" when no subset size up to n gets there), and\n"
	       "the speedup against the same point with prequery=off, with\n"
	       "ci_overlap_* = 1 when the two CIs overlap (not significant).\n\n"
	       "Runs that fell behind their schedule (the client's behind_schedule, or\n"
	       "the same rule applied here to late_sends, requests, pace_p99_us and\n"
	       "interval_us: more than 1 %% of sends late, or pacing p99 above 10 %% of\n"
	       "the mean gap) are listed, counted per point (n_behind) and left out of\n"
	       "the medians.\n\n"
	       "  --include-behind  count them in the medians anyway\n"
	       "  --out FILE        write the summary there instead of DIR/summary.csv\n"
	       "  -h, --help        this help\n\n"
	       "A latency that is not a non-negative decimal number in a run whose status\n"
	       "is ok stops it with FILE:LINE and exit status 1.\n");
}

int main(int argc, char **argv)
{
	char spath[4096], *line = NULL, *hdr[MAXCOL], *hdrline = NULL;
	const char *outpath = NULL;
	size_t lcap = 0, hcap = 0;
	int nh, include_behind = 0;
	struct cols c;
	struct point *pts = NULL;
	size_t npts = 0, cap = 0, rows = 0, behind = 0, unchecked = 0;
	struct csv *out;
	FILE *f;
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "include-behind", no_argument, NULL, 'b' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	while ((o = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (o) {
		case 'h':
			usage();
			return 0;
		case 'b':
			include_behind = 1;
			break;
		case 'o':
			outpath = optarg;
			break;
		default:
			opt_bad_option(PROG);
		}
	}
	if (optind + 1 != argc)
		opt_usage(PROG, "give one sweep DIR");
	snprintf(spath, sizeof(spath), "%s/sweep.csv", argv[optind]);
	path = spath;
	f = fopen(path, "r");
	if (!f)
		opt_die(PROG, "cannot read %s: %s", path, strerror(errno));
	lineno = 1;
	if (getline(&hdrline, &hcap, f) < 0)
		opt_die(PROG, "%s is empty", path);
	nh = split(hdrline, hdr);
	c.point = col(hdr, nh, "point");
	c.rep = col(hdr, nh, "rep");
	c.status = col(hdr, nh, "status");
	for (size_t k = 0; k < NPARAMS; k++)
		c.param[k] = col(hdr, nh, params[k]);
	for (int m = 0; m < NMETRICS; m++) {
		char name[32];

		snprintf(name, sizeof(name), "lat_%s_us", metrics[m]);
		c.metric[m] = col(hdr, nh, name);
		if (c.metric[m] < 0)
			opt_die(PROG, "%s has no column %s", path, name);
	}
	if (c.point < 0 || c.status < 0)
		opt_die(PROG, "%s has no point or status column", path);
	c.behind = col(hdr, nh, "behind_schedule");
	c.reason = col(hdr, nh, "behind_reason");
	c.requests = col(hdr, nh, "requests");
	c.late = col(hdr, nh, "late_sends");
	c.pace_p99 = col(hdr, nh, "pace_p99_us");
	c.interval = col(hdr, nh, "interval_us");
	while (getline(&line, &lcap, f) >= 0) {
		char *fld[MAXCOL], why[256];
		double v[NMETRICS];
		struct point *p;
		int n, b;

		lineno++;
		if (!line[strspn(line, "\r\n")])
			continue;
		n = split(line, fld);
		if (n != nh)
			bad("%d fields, the header has %d", n, nh);
		if (strcmp(fld[c.status], "ok"))
			continue;	/* failed or partial runs do not count */
		for (int m = 0; m < NMETRICS; m++)
			v[m] = num_field(fld, c.metric[m], hdr[c.metric[m]]);
		b = run_behind(fld, &c, why, sizeof(why));
		p = find_point(&pts, &npts, &cap, fld[c.point]);
		for (size_t k = 0; k < NPARAMS; k++)
			snprintf(p->param[k], sizeof(p->param[k]), "%s",
				 c.param[k] >= 0 ? fld[c.param[k]] : "");
		if (b < 0)
			unchecked++;
		if (b > 0) {
			behind++;
			p->n_behind++;
			printf("behind schedule%s: %s rep %s: %s\n",
			       include_behind ? " (included)" : "", fld[c.point],
			       c.rep >= 0 ? fld[c.rep] : "?", why);
		}
		if (b <= 0 || include_behind)
			add_vals(p, v);
		rows++;
	}
	if (ferror(f))
		opt_die(PROG, "reading %s failed", path);
	fclose(f);
	free(line);
	if (!rows)
		opt_die(PROG, "no successful runs in %s", path);
	for (size_t i = 0; i < npts; i++)
		for (int m = 0; m < NMETRICS && pts[i].n; m++)
			if (stats_summarize(pts[i].val[m], pts[i].n, 1, i + 1,
					    &pts[i].s[m]))
				opt_die(PROG, "out of memory");

	snprintf(spath, sizeof(spath), "%s/summary.csv", argv[optind]);
	if (!outpath)
		outpath = spath;
	out = csv_open(outpath);
	if (!out)
		opt_die(PROG, "cannot write %s: %s", outpath, strerror(errno));
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
		snprintf(h + len, sizeof(h) - len,
			 ",ci_exact,ci_coverage,n_behind,behind_included,ci_label");
		csv_header(out, h);
	}
	printf("%-40s %3s %6s %9s %19s %6s %9s %5s %8s\n", "point", "n", "behind",
	       "p50_med", "p50 CI", "cover", "p99_med", "reps", "speedup");
	for (size_t i = 0; i < npts; i++) {
		const struct point *p = &pts[i];
		const struct point *b = strcmp(p->param[2], "off") && p->n ?
					base_of(pts, npts, p) : NULL;
		char reps[24], nb[16];

		csv_str(out, p->name);
		for (size_t k = 0; k < NPARAMS; k++)
			csv_str(out, p->param[k]);
		csv_u64(out, p->n);
		for (int m = 0; m < NMETRICS; m++) {
			const struct stats_summary *s = &p->s[m];

			if (!p->n) {
				for (int k = 0; k < 7; k++)
					csv_empty(out);
				continue;
			}
			csv_double(out, s->median, 3);
			csv_double(out, s->ci_lo, 3);
			csv_double(out, s->ci_hi, 3);
			csv_double(out, s->mean, 3);
			csv_double(out, s->sd, 3);
			csv_double(out, s->reps_param, 1);
			stats_reps_confirm_str(s, reps, sizeof(reps));
			csv_str(out, reps);
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
		if (p->n) {
			csv_u64(out, (uint64_t)p->s[0].ci_exact);
			csv_double(out, p->s[0].ci_coverage, 4);
		} else {
			csv_empty(out);
			csv_empty(out);
		}
		csv_u64(out, p->n_behind);
		csv_u64(out, (uint64_t)include_behind);
		if (p->n) {
			char lab[64];

			stats_ci_label(&p->s[0], lab, sizeof(lab));
			csv_str(out, lab);
		} else {
			csv_empty(out);
		}
		csv_end_row(out);

		snprintf(nb, sizeof(nb), "%zu%s", p->n_behind,
			 p->n_behind ? (include_behind ? "+" : "!") : "");
		if (!p->n) {
			printf("%-40.40s %3zu %6s %9s %19s %6s %9s %5s %8s\n", p->name,
			       p->n, nb, "-", "-", "-", "-", "-", "-");
			continue;
		}
		{
			char ci[48], cov[16], sp[16] = "-";

			snprintf(ci, sizeof(ci), "[%.1f, %.1f]", p->s[1].ci_lo, p->s[1].ci_hi);
			snprintf(cov, sizeof(cov), "%.1f%%", 100 * p->s[1].ci_coverage);
			stats_reps_confirm_str(&p->s[1], reps, sizeof(reps));
			if (b)
				snprintf(sp, sizeof(sp), "%.3f%s", b->s[1].median / p->s[1].median,
					 stats_overlap(p->s[1].ci_lo, p->s[1].ci_hi,
						       b->s[1].ci_lo, b->s[1].ci_hi) ? "~" : "");
			printf("%-40.40s %3zu %6s %9.1f %19s %6s %9.1f %5s %8s\n", p->name,
			       p->n, nb, p->s[1].median, ci, cov, p->s[2].median, reps, sp);
		}
	}
	if (csv_close(out))
		opt_die(PROG, "writing %s failed", outpath);
	printf("%zu points, %zu runs -> %s\n", npts, rows, outpath);
	printf("n: runs in the medians; cover: the CI's exact coverage of the median "
	       "(min-max of all n when n < 6); reps: CONFIRM repetitions for +-1 %% of the p50 "
	       "median (>n: not reached with n); speedup: p50 of pre-query off / this, "
	       "~ = CIs overlap\n");
	if (behind)
		printf("%zu run%s fell behind schedule (behind: ! = left out of the "
		       "medians%s)\n", behind, behind == 1 ? "" : "s",
		       include_behind ? "; included by --include-behind: +" :
		       "; --include-behind counts them");
	if (unchecked)
		printf("%zu run%s could not be checked for falling behind (no late_sends, "
		       "pace_p99_us or behind_schedule)\n", unchecked,
		       unchecked == 1 ? "" : "s");
	for (size_t i = 0; i < npts; i++)
		for (int m = 0; m < NMETRICS; m++)
			free(pts[i].val[m]);
	free(pts);
	free(hdrline);
	return 0;
}
