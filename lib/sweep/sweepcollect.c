// SPDX-License-Identifier: GPL-2.0
/* sweepcollect: sweep.csv from a sweep's run directories (see the header). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csvread.h"
#include "stage.h"
#include "sweepcollect.h"
#include "sweepplan.h"
#include "sweepspec.h"
#include "wfile.h"
#include "rfile.h"

#define MAXCOL 256
#define MAX_SPEC (1 << 20)

const char *const sweepcollect_vals[SWEEPCOLLECT_NVALS] = {
	"count", "lat_avg_us", "lat_p50_us", "lat_p90_us", "lat_p99_us",
	"lat_p999_us", "svc_p50_us", "pace_p99_us", "late_sends",
	"prequeries_sent", "prequeries_skipped", "lat_p95_us", "lat_p9999_us",
	/* issues 16 and 17: key-value counts, RAPL energy */
	"gets", "sets", "misses", "energy_j", "power_w", "energy_per_request_uj",
	/* issue 31: the within-run 95 % CIs (empty: not bounded) */
	"lat_p50_lo_us", "lat_p50_hi_us", "lat_p90_lo_us", "lat_p90_hi_us",
	"lat_p99_lo_us", "lat_p99_hi_us", "lat_p999_lo_us", "lat_p999_hi_us",
	"svc_p50_lo_us", "svc_p50_hi_us", "svc_p90_lo_us", "svc_p90_hi_us",
	"svc_p99_lo_us", "svc_p99_hi_us", "svc_p999_lo_us", "svc_p999_hi_us",
};

const char *const sweepcollect_mt[SWEEPCOLLECT_NMT] = {
	"requests", "prequeries_sent", "prequeries_raced", "backend_rtt_avg_us",
	"backend_rtt_p50_us", "backend_rtt_p99_us", "delay_us",
};

static int bad(char *err, size_t errlen, const char *name, unsigned long line,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int bad(char *err, size_t errlen, const char *name, unsigned long line,
	       const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!errlen)
		return -EINVAL;
	n = snprintf(err, errlen, "%s:%lu: ", name, line);
	if (n < 0 || (size_t)n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* digits only, 1 to 9 of them, no leading zero */
static int whole(const char *s, unsigned long *v)
{
	size_t n = strlen(s);

	if (n < 1 || n > 9 || strspn(s, "0123456789") != n || (s[0] == '0' && n > 1))
		return -EINVAL;
	*v = strtoul(s, NULL, 10);
	return 0;
}

/* empty, or a decimal number as the client writes it: [-]digits[.digits] */
static int numtext(const char *s)
{
	const char *p = s;

	if (!*s)
		return 1;
	if (*p == '-')
		p++;
	if (!strchr("0123456789", *p) || !*p)
		return 0;
	p += strspn(p, "0123456789");
	if (*p == '.') {
		p++;
		if (!*p || !strchr("0123456789", *p))
			return 0;
		p += strspn(p, "0123456789");
	}
	return !*p;
}

/*
 * One line, bounded before it is held (getline would hold a 2 GB line
 * whole): its length, 0 at the end, or -errno with "FILE:LINE: cause" or
 * "reading FILE failed: cause" in err.
 */
static ssize_t next_line(FILE *f, char **line, size_t *cap, const char *name,
			 unsigned long no, char *err, size_t errlen)
{
	ssize_t n = rfile_getline(f, line, cap, RFILE_LINE_MAX);

	if (n == -E2BIG)
		return bad(err, errlen, name, no, "a line longer than 64 KiB");
	if (n < 0)
		snprintf(err, errlen, "reading %s failed: %s", name, strerror((int)-n));
	return n;
}

/* The row's status column: a word. */
static int summary_status(char **h, char **v, int nh, const char *name,
			  struct sweepcollect_run *run, char *err, size_t errlen)
{
	int c = csvr_col(h, nh, "status");

	if (c < 0)
		return bad(err, errlen, name, 1, "no status column");
	if (!v[c][0] || strlen(v[c]) >= sizeof(run->status) ||
	    strspn(v[c], "abcdefghijklmnopqrstuvwxyz_-") != strlen(v[c]))
		return bad(err, errlen, name, 2, "status '%.40s' is not a word", v[c]);
	strcpy(run->status, v[c]);
	return 0;
}

/* The numbers kept (an older client's missing columns left empty). */
static int summary_numbers(char **h, char **v, int nh, const char *name,
			   struct sweepcollect_run *run, char *err, size_t errlen)
{
	int c;

	for (int k = 0; k < SWEEPCOLLECT_NVALS; k++) {
		c = csvr_col(h, nh, sweepcollect_vals[k]);
		if (c < 0)
			continue;	/* an older client: left empty */
		if (!numtext(v[c]) || strlen(v[c]) >= sizeof(run->val[k]))
			return bad(err, errlen, name, 2, "column %s: '%.40s' is not a number",
				   sweepcollect_vals[k], v[c]);
		strcpy(run->val[k], v[c]);
	}
	/* issue 35: messages and bytes per request, where the client has them */
	for (int k = 0; k < 2; k++) {
		const char *name_k = k ? "bytes_per_req" : "msgs_per_req";
		char *dst = k ? run->bytes : run->msgs;

		c = csvr_col(h, nh, name_k);
		if (c < 0)
			continue;
		if (!numtext(v[c]) || strlen(v[c]) >= sizeof(run->msgs))
			return bad(err, errlen, name, 2, "column %s: '%.40s' is not a number",
				   name_k, v[c]);
		strcpy(dst, v[c]);
	}
	return 0;
}

/* behind_schedule (0, 1 or empty) and its reason, made safe for sweep.csv. */
static int summary_behind(char **h, char **v, int nh, const char *name,
			  struct sweepcollect_run *run, char *err, size_t errlen)
{
	int c = csvr_col(h, nh, "behind_schedule");

	if (c >= 0) {
		if (v[c][0] && strcmp(v[c], "0") && strcmp(v[c], "1"))
			return bad(err, errlen, name, 2,
				   "column behind_schedule: '%.40s' is not 0 or 1", v[c]);
		strcpy(run->behind, v[c]);
	}
	c = csvr_col(h, nh, "behind_reason");
	if (c >= 0) {
		/* sweep.csv is read naively: no quotes, no commas */
		size_t o = 0;

		for (const char *p = v[c]; *p && o + 1 < sizeof(run->why); p++)
			if (*p != '"')
				run->why[o++] = *p == ',' ? ';' : *p;
		run->why[o] = '\0';
	}
	return 0;
}

int sweepcollect_summary(FILE *f, const char *name, struct sweepcollect_run *run,
			 char *err, size_t errlen)
{
	char *hline = NULL, *line = NULL, *h[MAXCOL], *v[MAXCOL];
	size_t hcap = 0, cap = 0;
	int nh, nv, ret = 0;
	ssize_t got;

	memset(run, 0, sizeof(*run));
	got = next_line(f, &hline, &hcap, name, 1, err, errlen);
	if (got <= 0) {
		free(hline);
		if (got < 0)
			return (int)got;
		snprintf(err, errlen, "%s is empty", name);
		return -ENODATA;
	}
	nh = csvr_split(hline, h, MAXCOL);
	if (nh < 0) {
		ret = nh == -E2BIG ? bad(err, errlen, name, 1, "more than %d fields", MAXCOL) :
			bad(err, errlen, name, 1, "a stray or unterminated quote");
		goto out;
	}
	got = next_line(f, &line, &cap, name, 2, err, errlen);
	if (got <= 0) {
		ret = got < 0 ? (int)got : bad(err, errlen, name, 2, "no row after the header");
		goto out;
	}
	nv = csvr_split(line, v, MAXCOL);
	if (nv < 0) {
		ret = nv == -E2BIG ? bad(err, errlen, name, 2, "more than %d fields", MAXCOL) :
			bad(err, errlen, name, 2, "a stray or unterminated quote");
		goto out;
	}
	if (nv != nh) {
		ret = bad(err, errlen, name, 2, "%d fields, the header has %d", nv, nh);
		goto out;
	}
	ret = summary_status(h, v, nh, name, run, err, errlen);
	if (!ret)
		ret = summary_numbers(h, v, nh, name, run, err, errlen);
	if (!ret)
		ret = summary_behind(h, v, nh, name, run, err, errlen);
	if (ret)
		goto out;
	got = next_line(f, &line, &cap, name, 3, err, errlen);
	if (got > 0 && line[strspn(line, "\r\n")])
		ret = bad(err, errlen, name, 3, "more than one row");
	else if (got < 0) {
		ret = (int)got;
	}
out:
	free(hline);
	free(line);
	return ret;
}

/* A small CSV file: its header and up to TABLE_ROWS rows, split. */
#define TABLE_ROWS 8
struct table {
	char *line[TABLE_ROWS + 1];
	char *f[TABLE_ROWS + 1][MAXCOL];
	int nh, nrows;
};

static void table_free(struct table *t)
{
	for (int i = 0; i <= TABLE_ROWS; i++)
		free(t->line[i]);
}

static int table_read(FILE *f, const char *name, struct table *t, char *err,
		      size_t errlen)
{
	size_t cap;
	ssize_t got;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i <= TABLE_ROWS; i++) {
		int n;

		cap = 0;
		got = next_line(f, &t->line[i], &cap, name, (unsigned long)i + 1, err, errlen);
		if (got < 0)
			return (int)got;
		if (!got) {
			if (!i) {
				snprintf(err, errlen, "%s is empty", name);
				return -ENODATA;
			}
			break;
		}
		if (i && !t->line[i][strspn(t->line[i], "\r\n")])
			break;
		n = csvr_split(t->line[i], t->f[i], MAXCOL);
		if (n < 0)
			return bad(err, errlen, name, (unsigned long)i + 1, n == -E2BIG ?
				   "more than 256 fields" : "a stray or unterminated quote");
		if (!i)
			t->nh = n;
		else if (n != t->nh)
			return bad(err, errlen, name, (unsigned long)i + 1,
				   "%d fields, the header has %d", n, t->nh);
		else
			t->nrows = i;
	}
	if (t->line[TABLE_ROWS] && t->nrows == TABLE_ROWS)
		ret = bad(err, errlen, name, TABLE_ROWS + 1, "more than %d rows",
			  TABLE_ROWS - 1);
	if (!ret && !t->nrows)
		ret = bad(err, errlen, name, 2, "no row after the header");
	return ret;
}

/* copies number V of column COL into OUT (LEN bytes) */
static int copy_num(const char *v, const char *col, char *out, size_t len,
		    const char *name, unsigned long line, char *err, size_t errlen)
{
	if (!numtext(v) || strlen(v) >= len)
		return bad(err, errlen, name, line, "column %s: '%.40s' is not a number",
			   col, v);
	strcpy(out, v);
	return 0;
}

int sweepcollect_midtier(FILE *f, const char *name,
			 char mt[SWEEPCOLLECT_NMT][64], char *err, size_t errlen)
{
	struct table t;
	int ret = table_read(f, name, &t, err, errlen);

	for (int k = 0; k < SWEEPCOLLECT_NMT; k++)
		mt[k][0] = '\0';
	if (!ret && t.nrows != 1)
		ret = bad(err, errlen, name, 3, "more than one row");
	for (int k = 0; !ret && k < SWEEPCOLLECT_NMT; k++) {
		int c = csvr_col(t.f[0], t.nh, sweepcollect_mt[k]);

		if (c >= 0)
			ret = copy_num(t.f[1][c], sweepcollect_mt[k], mt[k], 64,
				       name, 2, err, errlen);
	}
	table_free(&t);
	return ret;
}

/*
 * res_<name>_pct or entries_<name>, <name> letters, digits and '_'; or
 * the governor's counters (issue 33): usage_, time_us_, above_, below_,
 * rejected_<name>.
 */
static int cap_col(const char *c)
{
	static const char *const gov[] = { "usage_", "time_us_", "above_", "below_",
					   "rejected_" };
	size_t n = strlen(c), p;
	const char *w = NULL;

	if (n >= 48)
		return 0;
	if (!strncmp(c, "res_", 4) && n > 8 && !strcmp(c + n - 4, "_pct"))
		w = c + 4, n -= 8;
	else if (!strncmp(c, "entries_", 8) && n > 8)
		w = c + 8, n -= 8;
	for (size_t i = 0; !w && i < sizeof(gov) / sizeof(gov[0]); i++) {
		p = strlen(gov[i]);
		if (!strncmp(c, gov[i], p) && n > p)
			w = c + p, n -= p;
	}
	if (!w)
		return 0;
	return strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789_") >= n;
}

/* the number in V, or NAN when empty (checked by numtext) */
static double num_or_nan(const char *v)
{
	return *v ? strtod(v, NULL) : NAN;
}

/*
 * The cost fields from the server's row I: its tiers' CPU time (the sum
 * of cpu_us_<role>), its C0 share, its idle entries per second (the sum
 * of entries_<state> over window_s). Each "" when a part is unknown.
 */
static int cap_cost(const struct table *t, int i, struct sweepcollect_cap *cap,
		    const char *name, char *err, size_t errlen)
{
	double cpu = 0, ent = 0, win = NAN;
	int ncpu = 0, nent = 0;

	for (int c = 0; c < t->nh; c++) {
		const char *h = t->f[0][c], *v = t->f[i][c];
		int cpu_col = !strncmp(h, "cpu_us_", 7);
		int ent_col = !strncmp(h, "entries_", 8) && cap_col(h);

		if (!cpu_col && !ent_col && strcmp(h, "window_s") && strcmp(h, "res_C0_pct"))
			continue;
		if (!numtext(v))
			return bad(err, errlen, name, (unsigned long)i + 1,
				   "column %s: '%.40s' is not a number", h, v);
		if (!strcmp(h, "window_s"))
			win = num_or_nan(v);
		else if (!strcmp(h, "res_C0_pct"))
			snprintf(cap->c0_pct, sizeof(cap->c0_pct), "%.23s", v);
		else if (cpu_col)
			cpu += num_or_nan(v), ncpu++;
		else
			ent += num_or_nan(v), nent++;
	}
	if (ncpu && isfinite(cpu))
		snprintf(cap->cpu_us, sizeof(cap->cpu_us), "%.0f", cpu);
	if (nent && isfinite(ent) && win > 0)
		snprintf(cap->entries_per_s, sizeof(cap->entries_per_s), "%.3f", ent / win);
	return 0;
}

int sweepcollect_capture(FILE *f, const char *name,
			 struct sweepcollect_cap *cap, char *err, size_t errlen)
{
	struct table t;
	int ret = table_read(f, name, &t, err, errlen), rc, ic;

	memset(cap, 0, sizeof(*cap));
	if (ret)
		goto out;
	rc = csvr_col(t.f[0], t.nh, "role");
	ic = csvr_col(t.f[0], t.nh, "irq_delta");
	if (rc < 0) {
		ret = bad(err, errlen, name, 1, "no role column");
		goto out;
	}
	for (int i = 1; i <= t.nrows && !ret; i++) {
		const char *role = t.f[i][rc];
		int mid = !strcmp(role, "midtier");

		if (!mid && strcmp(role, "server"))
			continue;
		if (ic >= 0)
			ret = copy_num(t.f[i][ic], "irq_delta", cap->irq[mid],
				       sizeof(cap->irq[0]), name, (unsigned long)i + 1,
				       err, errlen);
		if (!ret && !mid)
			ret = cap_cost(&t, i, cap, name, err, errlen);
		for (int c = 0; c < t.nh && !ret; c++) {
			if (!cap_col(t.f[0][c]))
				continue;
			if (cap->n == SWEEPCOLLECT_MAXCAP) {
				ret = bad(err, errlen, name, 1, "more than %d state columns",
					  SWEEPCOLLECT_MAXCAP);
				break;
			}
			snprintf(cap->name[cap->n], sizeof(cap->name[0]), "%s%s",
				 mid ? "mt_" : "", t.f[0][c]);
			ret = copy_num(t.f[i][c], t.f[0][c], cap->val[cap->n],
				       sizeof(cap->val[0]), name, (unsigned long)i + 1,
				       err, errlen);
			cap->n++;
		}
	}
out:
	table_free(&t);
	return ret;
}

/* the header's new columns, after SWEEPCOLLECT_HEADER, each appended
 * after the last: SWEEPDIM_ADDED's dimensions come after the costs */
int sweepcollect_header(FILE *out, char (*cols)[64], int ncols)
{
	fputs(SWEEPCOLLECT_HEADER, out);
	for (int d = SWEEPPLAN_NLEGACY; d < SWEEPDIM_ADDED_FROM; d++)
		fprintf(out, ",%s", sweepplan_dims[d]);
	for (int k = SWEEPCOLLECT_NLEGACY_VALS; k < SWEEPCOLLECT_NVALS_BEFORE_MT; k++)
		fprintf(out, ",%s", sweepcollect_vals[k]);
	for (int k = 0; k < SWEEPCOLLECT_NMT; k++)
		fprintf(out, ",mt_%s", sweepcollect_mt[k]);
	fputs(",irq_delta,mt_irq_delta", out);
	for (int k = SWEEPCOLLECT_NVALS_BEFORE_MT; k < SWEEPCOLLECT_NVALS; k++)
		fprintf(out, ",%s", sweepcollect_vals[k]);
	for (int k = 0; k < ncols; k++)
		fprintf(out, ",%s", cols[k]);
	fputs(SWEEPCOLLECT_COST_COLS, out);
	for (int d = SWEEPDIM_ADDED_FROM; d < SWEEPPLAN_NDIMS; d++)
		fprintf(out, ",%s", sweepplan_dims[d]);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

/* a plan value: "-" (does not apply) is an empty field */
static const char *field(const char *v)
{
	return strcmp(v, "-") ? v : "";
}

/* A plan value as a field of sweep.csv: quoted when it holds a ','
 * (a gap law's parameters, "onoff:20,80"), as lib/csv writes one. */
static void put_val(FILE *out, const char *v)
{
	v = field(v);
	if (!strchr(v, ','))
		fprintf(out, ",%s", v);
	else
		fprintf(out, ",\"%s\"", v);	/* plan values hold no '"' */
}

/*
 * The cost columns: the tiers' CPU time per request the window served
 * (the measured ones answered and the point's warm-up: the capture's
 * window holds both), then what capture and client gave.
 */
static void cost_cols(FILE *out, const struct sweepplan_run *r,
		      const struct sweepcollect_run *run,
		      const struct sweepcollect_cap *cap)
{
	double n = run ? num_or_nan(run->val[0]) : NAN;
	const char *wu = field(r->val[SWEEPDIM_WARMUP]);

	if (*wu && numtext(wu))
		n += strtod(wu, NULL);
	if (cap && cap->cpu_us[0] && n > 0)
		fprintf(out, ",%.3f", strtod(cap->cpu_us, NULL) / n);
	else
		fputc(',', out);
	fprintf(out, ",%s,%s,%s,%s", cap ? cap->c0_pct : "", cap ? cap->entries_per_s : "",
		run ? run->msgs : "", run ? run->bytes : "");
}

int sweepcollect_row(FILE *out, const struct sweepplan_run *r,
		     const char *requests, unsigned long long seed,
		     const struct sweepcollect_run *run,
		     char (*mt)[64], const struct sweepcollect_cap *cap,
		     char (*cols)[64], int ncols)
{
	fprintf(out, "%s,%lu,%s", r->point, r->rep, run ? run->status : "missing");
	for (int d = 0; d < SWEEPPLAN_NLEGACY; d++)
		put_val(out, r->val[d]);
	fprintf(out, ",%s,%llu", requests, seed + r->rep);
	for (int k = 0; k < SWEEPCOLLECT_NLEGACY_VALS; k++)
		fprintf(out, ",%s", run ? run->val[k] : "");
	fprintf(out, ",%s/rep-%lu,%s,%s", r->point, r->rep, run ? run->behind : "",
		run ? run->why : "");
	for (int d = SWEEPPLAN_NLEGACY; d < SWEEPDIM_ADDED_FROM; d++)
		put_val(out, r->val[d]);
	for (int k = SWEEPCOLLECT_NLEGACY_VALS; k < SWEEPCOLLECT_NVALS_BEFORE_MT; k++)
		fprintf(out, ",%s", run ? run->val[k] : "");
	for (int k = 0; k < SWEEPCOLLECT_NMT; k++)
		fprintf(out, ",%s", mt ? mt[k] : "");
	fprintf(out, ",%s,%s", cap ? cap->irq[0] : "", cap ? cap->irq[1] : "");
	for (int k = SWEEPCOLLECT_NVALS_BEFORE_MT; k < SWEEPCOLLECT_NVALS; k++)
		fprintf(out, ",%s", run ? run->val[k] : "");
	for (int k = 0; k < ncols; k++) {
		const char *v = "";

		for (int i = 0; cap && i < cap->n; i++)
			if (!strcmp(cap->name[i], cols[k]))
				v = cap->val[i];
		fprintf(out, ",%s", v);
	}
	cost_cols(out, r, run, cap);
	for (int d = SWEEPDIM_ADDED_FROM; d < SWEEPPLAN_NDIMS; d++)
		put_val(out, r->val[d]);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

/*
 * Opens RUNDIR/REL into *F: 0, 1 when there is none (absent or empty, as
 * the shell's test -s), or -errno.
 */
static int open_file(const char *rundir, const char *rel, char *path,
		     size_t plen, FILE **f, char *err, size_t errlen)
{
	struct stat st;
	int n = snprintf(path, plen, "%s/%s", rundir, rel);

	*f = NULL;
	if (n < 0 || (size_t)n >= plen) {
		snprintf(err, errlen, "%s: path too long", rundir);
		return -ENAMETOOLONG;
	}
	*f = rfile_fopen_quiet(path);
	if (!*f) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 1;
		n = -errno;
		snprintf(err, errlen, "cannot read %s: %s", path, rfile_strerror(-n));
		return n;
	}
	if (fstat(fileno(*f), &st) == 0 && st.st_size == 0) {
		fclose(*f);
		*f = NULL;
		return 1;
	}
	return 0;
}

int sweepcollect_run_ok(const char *rundir, char *err, size_t errlen)
{
	char path[4096];
	struct sweepcollect_run run;
	FILE *f;
	int ret = open_file(rundir, "client/summary.csv", path, sizeof(path), &f,
			    err, errlen);

	if (ret)
		return ret > 0 ? 0 : ret;
	ret = sweepcollect_summary(f, path, &run, err, errlen);
	fclose(f);
	if (ret)
		return ret;
	return !strcmp(run.status, "ok");
}

/* DIR/sweep.spec's requests and seed (checked by lib/sweepspec). */
static int read_spec(const char *dir, char *requests, size_t rlen,
		     unsigned long long *seed, char *err, size_t errlen)
{
	char path[4096], *text;
	struct sweepspec s;
	unsigned long v;
	size_t len;
	FILE *f;
	int ret, n = snprintf(path, sizeof(path), "%s/sweep.spec", dir);

	if (n < 0 || (size_t)n >= sizeof(path)) {
		snprintf(err, errlen, "%s: path too long", dir);
		return -ENAMETOOLONG;
	}
	f = rfile_fopen_quiet(path);
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", path, rfile_strerror(-ret));
		return ret;
	}
	text = malloc(MAX_SPEC + 1);
	if (!text) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	len = fread(text, 1, MAX_SPEC + 1, f);
	ret = ferror(f) ? -EIO : len > MAX_SPEC ? -EFBIG : 0;
	fclose(f);
	if (ret) {
		free(text);
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	text[len] = '\0';
	ret = sweepspec_init(&s);
	if (!ret)
		ret = sweepspec_parse(&s, text, len, path, SS_FILE, err, errlen);
	free(text);
	if (ret) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		sweepspec_free(&s);
		return ret;
	}
	if (whole(s.val[SK_REQUESTS], &v) || !v) {
		snprintf(err, errlen, "%s: requests '%.40s' is not a positive whole number",
			 path, s.val[SK_REQUESTS]);
		ret = -EINVAL;
	} else if (whole(s.val[SK_SEED], &v)) {
		snprintf(err, errlen, "%s: seed '%.40s' is not a whole number", path,
			 s.val[SK_SEED]);
		ret = -EINVAL;
	} else {
		/* a sweep by --duration: the requests are the client's count */
		snprintf(requests, rlen, "%s", s.val[SK_DURATION][0] ? "" :
			 s.val[SK_REQUESTS]);
		*seed = v;
	}
	sweepspec_free(&s);
	return ret;
}

/* One run's sources; 0 with *HAVE_* set for what exists, or -errno. */
struct sources {
	struct sweepcollect_run run;
	char mt[SWEEPCOLLECT_NMT][64];
	struct sweepcollect_cap cap;
	int have_run, have_mt, have_cap;
};

static int read_sources(const char *rundir, struct sources *x, int want_all,
			char *err, size_t errlen)
{
	static const char *const rel[] = {
		"client/summary.csv", "midtier-summary.csv", "capture/capture.csv",
	};
	char path[4096];

	x->have_run = x->have_mt = x->have_cap = 0;
	for (int i = want_all ? 0 : 2; i < 3; i++) {
		FILE *f;
		int r = open_file(rundir, rel[i], path, sizeof(path), &f, err, errlen);

		if (r < 0)
			return r;
		if (r)
			continue;
		r = i == 0 ? sweepcollect_summary(f, path, &x->run, err, errlen) :
		    i == 1 ? sweepcollect_midtier(f, path, x->mt, err, errlen) :
			     sweepcollect_capture(f, path, &x->cap, err, errlen);
		fclose(f);
		if (r)
			return r == -ENODATA ? -EINVAL : r;
		*(i == 0 ? &x->have_run : i == 1 ? &x->have_mt : &x->have_cap) = 1;
	}
	return 0;
}

/* the capture columns of every run, in first-seen order */
struct capcols {
	char name[2 * SWEEPCOLLECT_MAXCAP][64];
	int n;
};

static void capcols_add(struct capcols *c, const struct sweepcollect_cap *cap)
{
	for (int i = 0; i < cap->n; i++) {
		int k;

		for (k = 0; k < c->n && strcmp(c->name[k], cap->name[i]); k++)
			;
		if (k == c->n && c->n < 2 * SWEEPCOLLECT_MAXCAP)
			snprintf(c->name[c->n++], sizeof(c->name[0]), "%s", cap->name[i]);
	}
}

/*
 * Writes every row of plan PF (named PNAME) to OUT: a first pass finds
 * the capture columns (the states seen), the second writes the rows.
 */
static int write_rows(const char *dir, FILE *pf, const char *pname, FILE *out,
		      const char *requests, unsigned long long seed, size_t *rows,
		      char *err, size_t errlen)
{
	char *line = NULL, rundir[4096];
	struct sources *x = malloc(sizeof(*x));
	struct capcols *cols = calloc(1, sizeof(*cols));
	size_t cap = 0;
	unsigned long lineno = 0;
	ssize_t got;
	int ret = 0;

	if (!x || !cols) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (int pass = 0; pass < 2 && !ret; pass++) {
		rewind(pf);
		lineno = 0;
		if (pass && (ret = sweepcollect_header(out, cols->name, cols->n)))
			break;
		while ((got = next_line(pf, &line, &cap, pname, lineno + 1, err, errlen))) {
			struct sweepplan_run r;
			int n;

			lineno++;
			if (got < 0) {
				ret = (int)got;
				break;
			}
			line[strcspn(line, "\r\n")] = '\0';
			if (line[0] == '#')	/* a point skipped: no run */
				continue;
			ret = sweepplan_parse_line(line, &r, pname, lineno, err, errlen);
			if (ret)
				break;
			n = snprintf(rundir, sizeof(rundir), "%s/%s/rep-%lu", dir,
				     r.point, r.rep);
			if (n < 0 || (size_t)n >= sizeof(rundir)) {
				ret = bad(err, errlen, pname, lineno, "path too long");
				break;
			}
			ret = read_sources(rundir, x, pass, err, errlen);
			if (ret)
				break;
			if (!pass) {
				if (x->have_cap)
					capcols_add(cols, &x->cap);
				continue;
			}
			ret = sweepcollect_row(out, &r, requests, seed,
					       x->have_run ? &x->run : NULL,
					       x->have_mt ? x->mt : NULL,
					       x->have_cap ? &x->cap : NULL,
					       cols->name, cols->n);
			if (ret)
				break;
			(*rows)++;
		}
		if (!ret && ferror(pf)) {
			snprintf(err, errlen, "reading %s failed", pname);
			ret = -EIO;
		}
	}
	if (!ret && !lineno) {
		snprintf(err, errlen, "%s is empty: not a sweep, or one that never started",
			 pname);
		ret = -ENODATA;
	}
	if (ret == -EIO && !err[0])
		snprintf(err, errlen, "writing sweep.csv failed");
out:
	free(line);
	free(x);
	free(cols);
	return ret;
}

int sweepcollect_dir(const char *dir, size_t *rows, char *err, size_t errlen)
{
	char requests[16], tmp[4096], pname[4096];
	unsigned long long seed = 0;
	struct stage *st;
	FILE *pf, *out;
	int ret, n;

	*rows = 0;
	if (errlen)
		err[0] = '\0';
	ret = read_spec(dir, requests, sizeof(requests), &seed, err, errlen);
	if (ret)
		return ret;
	n = snprintf(pname, sizeof(pname), "%s/plan.txt", dir);
	if (n < 0 || (size_t)n >= sizeof(pname)) {
		snprintf(err, errlen, "%s: path too long", dir);
		return -ENAMETOOLONG;
	}
	pf = rfile_fopen_quiet(pname);
	if (!pf) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", pname, rfile_strerror(-ret));
		return ret;
	}
	st = stage_new(dir);
	if (!st) {
		fclose(pf);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = stage_add(st, "sweep.csv", tmp, sizeof(tmp));
	if (ret) {
		snprintf(err, errlen, "%s/sweep.csv: %s", dir, strerror(-ret));
		goto out;
	}
	out = wfile_open(tmp);
	if (!out) {
		ret = -errno;
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(-ret));
		goto out;
	}
	ret = write_rows(dir, pf, pname, out, requests, seed, rows, err, errlen);
	if (fclose(out) && !ret) {
		ret = -errno;
		snprintf(err, errlen, "writing %s failed: %s", tmp, strerror(-ret));
	}
	if (!ret)
		ret = stage_commit(st, err, errlen);
out:
	stage_free(st);
	fclose(pf);
	return ret;
}
