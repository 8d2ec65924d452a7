// SPDX-License-Identifier: GPL-2.0
/*
 * sweepmerge: a run's result from its client agents' (see sweepmerge.h).
 * The agents' files are data from other hosts: every field used is
 * checked, every line bounded.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json.h"
#include "csv.h"
#include "csvread.h"
#include "errmsg.h"
#include "hist.h"
#include "qci.h"
#include "stage.h"
#include "sweepmerge.h"
#include "wfile.h"
#include "rfile.h"

#define MAXCOL 256
/* A requests.csv or summary.csv line is a few hundred bytes. */
#define MAXLINE 65536

/* One summary.csv: its header and row, split in place. */
struct summ {
	char *hline, *vline;
	char *h[MAXCOL], *v[MAXCOL];
	int n;
};

/* The three recomputed distributions, in ns. */
enum { M_LAT, M_SVC, M_PACE, M_N };
static const char *const metric_prefix[M_N] = { "lat", "svc", "pace" };

struct merge {
	const struct sweepmerge_opts *o;
	struct hist *h[M_N];
	size_t n;			/* agents */
	struct summ *sum;		/* each agent's summary */
	uint64_t ok, errors, unanswered;	/* rows, all agents */
	char *err;
	size_t errlen;
};

static int bad(struct merge *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int bad(struct merge *m, const char *fmt, ...)
{
	va_list ap;

	if (m->errlen) {
		va_start(ap, fmt);
		vsnprintf(m->err, m->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* getline bounded to MAXLINE: 1 a line, 0 the end, -errno */
static int read_line(FILE *f, char **line, size_t *cap)
{
	ssize_t n;

	/* bounded as it is read: getline would hold a 2 GB line whole */
	n = rfile_getline(f, line, cap, MAXLINE);
	if (n < 0)
		return n == -ENOMEM || n == -E2BIG ? (int)n : -EIO;
	return n > 0;
}

/* empty, or a decimal as the client writes it: [-]digits[.digits] */
static int is_num(const char *s)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	p += strspn(p, "0123456789");
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return 0;
		p += strspn(p, "0123456789");
	}
	return !*p;
}

static const char *sget(const struct summ *s, const char *col)
{
	int c = csvr_col(s->h, s->n, col);

	return c < 0 ? NULL : s->v[c];
}

static void summ_free(struct summ *s)
{
	free(s->hline);
	free(s->vline);
	memset(s, 0, sizeof(*s));
}

/* DIR/summary.csv into S: a header and exactly one row of as many fields */
static int read_summary(struct merge *m, const char *dir, struct summ *s)
{
	char path[4096];
	size_t hcap = 0, vcap = 0;
	int ret, nv;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/summary.csv", dir) >= sizeof(path))
		return bad(m, "%s: path too long", dir);
	f = rfile_fopen_quiet(path);
	if (!f) {
		ret = -errno;
		errmsg_set(m->err, m->errlen, "cannot read %s: %s", path, rfile_strerror(errno));
		return ret;
	}
	ret = read_line(f, &s->hline, &hcap);
	if (ret == 1)
		ret = read_line(f, &s->vline, &vcap);
	if (ret < 0) {
		errmsg_set(m->err, m->errlen, "reading %s failed: %s", path,
			   ret == -E2BIG ? "a line longer than 64 KiB" : strerror(-ret));
		goto out;
	}
	if (!ret) {
		ret = bad(m, "%s: %s", path, s->hline ? "no row after the header" : "empty");
		goto out;
	}
	s->n = csvr_split(s->hline, s->h, MAXCOL);
	nv = csvr_split(s->vline, s->v, MAXCOL);
	if (s->n < 0 || nv < 0) {
		ret = bad(m, "%s:%d: a stray quote or more than %d fields", path,
			  s->n < 0 ? 1 : 2, MAXCOL);
		goto out;
	}
	if (nv != s->n) {
		ret = bad(m, "%s:2: %d fields, the header has %d", path, nv, s->n);
		goto out;
	}
	if (!sget(s, "status") || !sget(s, "count")) {
		ret = bad(m, "%s:1: no status or count column (not a client summary)", path);
		goto out;
	}
	ret = 0;
out:
	fclose(f);
	return ret;
}

/* A count column of an agent's summary: 0 (with *v), 1 empty, -EINVAL */
static int count_of(struct merge *m, size_t k, const char *col, uint64_t *v)
{
	const char *s = sget(&m->sum[k], col);
	char why[128];

	if (!s || !*s)
		return 1;
	/* below 2^50: 64 agents' sums cannot overflow */
	if (csvr_u64(s, UINT64_C(1) << 50, v, why, sizeof(why)))
		return bad(m, "agent %zu: summary.csv column %s: %s", k + 1, col, why);
	return 0;
}

struct rows {
	uint64_t ok, errors, unanswered;
};

/* The columns of requests.csv that the merge reads. */
struct req_cols {
	int status, intended, sent, lat, svc;
};

/*
 * Agent K's requests.csv header LINE: agent 1's kept in *HDR0 and written
 * to OUT with an agent column, every other agent's the same; split into F
 * (*N fields) and the columns read found.
 */
static int rows_header(struct merge *m, size_t k, const char *path, char *line,
		       struct csv *out, char **hdr0, char **f, int *n,
		       struct req_cols *col)
{
	line[strcspn(line, "\r\n")] = '\0';
	if (!k) {
		char h[MAXLINE + 16];

		*hdr0 = strdup(line);
		if (!*hdr0)
			return -ENOMEM;
		snprintf(h, sizeof(h), "%s,agent", line);
		csv_header(out, h);
	} else if (strcmp(line, *hdr0)) {
		return bad(m, "%s:1: other columns than agent 1's requests.csv (another client version)",
			   path);
	}
	*n = csvr_split(line, f, MAXCOL);
	if (*n < 0)
		return bad(m, "%s:1: a stray quote or more than %d fields", path, MAXCOL);
	col->status = csvr_col(f, *n, "status");
	col->intended = csvr_col(f, *n, "intended_ns");
	col->sent = csvr_col(f, *n, "sent_ns");
	col->lat = csvr_col(f, *n, "latency_ns");
	col->svc = csvr_col(f, *n, "service_ns");
	if (col->status < 0 || col->intended < 0 || col->sent < 0 || col->lat < 0 ||
	    col->svc < 0)
		return bad(m, "%s:1: no status, intended_ns, sent_ns, latency_ns or service_ns column",
			   path);
	return 0;
}

/* An ok row's latency and service time into their histograms. */
static int row_add_ok(struct merge *m, const char *path, unsigned long lineno,
		      char **f, const struct req_cols *col)
{
	char why[128];
	uint64_t v;

	if (csvr_u64(f[col->lat], UINT64_MAX, &v, why, sizeof(why)))
		return bad(m, "%s:%lu: latency_ns: %s", path, lineno, why);
	if (hist_add(m->h[M_LAT], v))
		return -ENOMEM;
	if (csvr_u64(f[col->svc], UINT64_MAX, &v, why, sizeof(why)))
		return bad(m, "%s:%lu: service_ns: %s", path, lineno, why);
	if (hist_add(m->h[M_SVC], v))
		return -ENOMEM;
	return 0;
}

/*
 * One row's fields F (line LINENO of PATH): its pacing error and, if
 * ok, its latencies into the histograms; its status counted in R.
 */
static int row_add(struct merge *m, const char *path, unsigned long lineno,
		   char **f, const struct req_cols *col, struct rows *r)
{
	char why[128];
	uint64_t it, st;

	if (csvr_u64(f[col->intended], UINT64_MAX, &it, why, sizeof(why)) ||
	    csvr_u64(f[col->sent], UINT64_MAX, &st, why, sizeof(why)))
		return bad(m, "%s:%lu: intended_ns/sent_ns: %s", path, lineno, why);
	if (st < it)
		return bad(m, "%s:%lu: sent_ns before intended_ns", path, lineno);
	if (hist_add(m->h[M_PACE], st - it))
		return -ENOMEM;
	if (!strcmp(f[col->status], "ok")) {
		r->ok++;
		return row_add_ok(m, path, lineno, f, col);
	}
	if (!strcmp(f[col->status], "error")) {
		r->errors++;
		return 0;
	}
	if (!strcmp(f[col->status], "unanswered")) {
		r->unanswered++;
		return 0;
	}
	return bad(m, "%s:%lu: status '%.40s' (ok, error or unanswered)", path,
		   lineno, f[col->status]);
}

/*
 * Agent K's requests.csv: every row into the histograms and, with the
 * agent number appended, into OUT (the header with agent 0's).
 */
static int read_rows(struct merge *m, size_t k, const char *dir, struct csv *out,
		     char **hdr0, struct rows *r)
{
	char path[4096], *line = NULL, *f[MAXCOL];
	size_t cap = 0;
	unsigned long lineno = 1;
	struct req_cols col;
	int n, ret;
	FILE *fp;

	memset(r, 0, sizeof(*r));
	if ((size_t)snprintf(path, sizeof(path), "%s/requests.csv", dir) >= sizeof(path))
		return bad(m, "%s: path too long", dir);
	fp = rfile_fopen_quiet(path);
	if (!fp) {
		ret = -errno;
		errmsg_set(m->err, m->errlen, "cannot read %s: %s (an exact merge needs every agent's rows)",
			   path, rfile_strerror(errno));
		return ret;
	}
	ret = read_line(fp, &line, &cap);
	if (ret <= 0) {
		ret = ret ? ret : bad(m, "%s: empty", path);
		if (ret != -EINVAL)
			errmsg_set(m->err, m->errlen, "reading %s failed", path);
		goto out;
	}
	ret = rows_header(m, k, path, line, out, hdr0, f, &n, &col);
	if (ret)
		goto out;
	for (;;) {
		int nf;

		ret = read_line(fp, &line, &cap);
		lineno++;
		if (!ret)
			break;
		if (ret < 0) {
			if (ret == -E2BIG)
				ret = bad(m, "%s:%lu: a line longer than 64 KiB", path, lineno);
			else
				errmsg_set(m->err, m->errlen, "reading %s failed", path);
			goto out;
		}
		if (!line[strspn(line, "\r\n")])
			continue;	/* a blank line */
		nf = csvr_split(line, f, MAXCOL);
		if (nf < 0) {
			ret = bad(m, "%s:%lu: a stray quote or more than %d fields", path,
				  lineno, MAXCOL);
			goto out;
		}
		if (nf != n) {
			ret = bad(m, "%s:%lu: %d fields, the header has %d", path, lineno,
				  nf, n);
			goto out;
		}
		ret = row_add(m, path, lineno, f, &col, r);
		if (ret)
			goto out;
		for (int i = 0; i < n; i++)
			csv_str(out, f[i]);
		csv_u64(out, k + 1);
		csv_end_row(out);
	}
	ret = 0;
out:
	free(line);
	fclose(fp);
	return ret;
}

/* The client's --raw sample:K or none keeps no full set of rows. */
static int check_raw(struct merge *m, size_t k)
{
	const char *raw = sget(&m->sum[k], "raw");

	if (raw && *raw && strcmp(raw, "all"))
		return bad(m, "agent %zu kept requests.csv rows '%.40s': an exact merge needs every row (the client's --raw all)",
			   k + 1, raw);
	return 0;
}

/* The agent's rows must be its summary's requests, every one of them. */
static int check_counts(struct merge *m, size_t k, const struct rows *r)
{
	static const char *const cols[] = { "count", "errors", "unanswered" };
	const uint64_t got[] = { r->ok, r->errors, r->unanswered };

	for (int i = 0; i < 3; i++) {
		uint64_t want;
		int ret = count_of(m, k, cols[i], &want);

		if (ret < 0)
			return ret;
		if (ret == 0 && want != got[i])
			return bad(m, "agent %zu: requests.csv has %llu rows of status %s, its summary.csv %s %llu: rows are missing (the client kept a sample?), no exact merge",
				   k + 1, (unsigned long long)got[i],
				   i ? cols[i] : "ok", cols[i], (unsigned long long)want);
	}
	return 0;
}

/* ---- the merged summary ------------------------------------------- */

enum rule { R_COPY, R_STATUS, R_DIST, R_SUM, R_RATE, R_GAP, R_FIRST,
	    R_BEHIND, R_REASON, R_EMPTY, R_EXACT, R_RELERR };

static enum rule rule_of(const char *c)
{
	static const char *const sums[] = {
		"count", "errors", "unanswered", "late_sends", "prequeries_sent",
		"prequeries_skipped", "prequeries_late", "warmup_prequeries_sent",
		"warmup_prequeries_skipped", "service_capped", "gets", "sets",
		"misses", "warmup", "raw_rows", NULL,
	};

	for (int i = 0; sums[i]; i++)
		if (!strcmp(c, sums[i]))
			return R_SUM;
	for (int i = 0; i < M_N; i++) {
		size_t l = strlen(metric_prefix[i]);

		if (!strncmp(c, metric_prefix[i], l) && c[l] == '_' &&
		    strlen(c) > 3 && !strcmp(c + strlen(c) - 3, "_us"))
			return R_DIST;
	}
	if (!strcmp(c, "status"))
		return R_STATUS;
	if (!strcmp(c, "rate_target") || !strcmp(c, "rate_achieved"))
		return R_RATE;
	if (!strcmp(c, "interval_us"))
		return R_GAP;
	if (!strcmp(c, "seed"))
		return R_FIRST;
	if (!strcmp(c, "behind_schedule"))
		return R_BEHIND;
	if (!strcmp(c, "behind_reason"))
		return R_REASON;
	/* the clients' own verdict on their percentiles: the merge's */
	if (!strcmp(c, "percentiles_exact"))
		return R_EXACT;
	if (!strcmp(c, "percentile_rel_error"))
		return R_RELERR;
	if (!strcmp(c, "energy_j") || !strcmp(c, "power_w") ||
	    !strcmp(c, "energy_per_request_uj"))
		return R_EMPTY;
	return R_COPY;
}

/*
 * A distribution column "<lat|svc|pace>_<stat>_us": its value in us as
 * the client computes it, or -1 for a stat this merge does not know.
 */
static double dist_value(struct merge *m, const char *c, int *ok)
{
	static const struct { const char *name; double p; } stats[] = {
		{ "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p999", 0.999 },
		{ "p95", 0.95 }, { "p9999", 0.9999 },
	};
	char stat[32];
	struct hist *h = NULL;
	size_t l;

	*ok = 0;
	for (int i = 0; i < M_N; i++) {
		l = strlen(metric_prefix[i]);
		if (!strncmp(c, metric_prefix[i], l) && c[l] == '_') {
			h = m->h[i];
			c += l + 1;
			break;
		}
	}
	l = strlen(c);
	if (!h || l < 4 || l - 3 >= sizeof(stat))
		return 0;
	memcpy(stat, c, l - 3);
	stat[l - 3] = '\0';
	*ok = 1;
	if (!strcmp(stat, "min"))
		return hist_min(h) / 1e3;
	if (!strcmp(stat, "max"))
		return hist_max(h) / 1e3;
	if (!strcmp(stat, "avg"))
		return hist_mean(h) / 1e3;
	/* the Welford sums merge exactly (hist_merge) */
	if (!strcmp(stat, "stddev"))
		return hist_stddev(h) / 1e3;
	for (size_t i = 0; i < sizeof(stats) / sizeof(*stats); i++) {
		size_t sl = strlen(stats[i].name);
		uint64_t lo, hi;
		struct qci q;

		if (!strcmp(stat, stats[i].name))
			return hist_percentile_exact(h, stats[i].p) / 1e3;
		/* "<p>_lo" and "<p>_hi": the percentile's 95 % CI, as the
		 * client computes it, over all the agents' samples; empty
		 * (NaN) where n cannot bound it. */
		if (strncmp(stat, stats[i].name, sl) ||
		    (strcmp(stat + sl, "_lo") && strcmp(stat + sl, "_hi")))
			continue;
		if (qci_ranks(hist_count(h), stats[i].p, QCI_LEVEL95, &q))
			return NAN;
		if (stat[sl + 1] == 'l')
			return hist_rank_bounds(h, q.lo, &lo, &hi) ? NAN :
			       (double)lo / 1e3;
		return hist_rank_bounds(h, q.hi, &lo, &hi) ? NAN :
		       (double)hi / 1e3;
	}
	*ok = 0;
	return 0;
}

static int exact(const struct merge *m);

static int status_rank(const char *s)
{
	return !strcmp(s, "ok") ? 0 : !strcmp(s, "interrupted") ? 1 : 2;
}

/* status: the worst of the agents' (ok, interrupted, anything else) */
static void merged_status(struct merge *m, struct csv *out, int c)
{
	const char *w = m->sum[0].v[c];

	for (size_t k = 1; k < m->n; k++)
		if (status_rank(m->sum[k].v[c]) > status_rank(w))
			w = m->sum[k].v[c];
	csv_str(out, w);
}

/* A distribution's statistic recomputed: 0 if it is not known here. */
static int merged_dist(struct merge *m, struct csv *out, const char *name)
{
	int ok;
	double v = dist_value(m, name, &ok);

	if (!ok)
		return 0;
	if (isnan(v))
		csv_empty(out);
	else
		csv_double(out, v, 3);
	return 1;
}

/* A count: the agents' sum, empty if every agent's is. */
static int merged_sum(struct merge *m, struct csv *out, const char *name)
{
	uint64_t sum = 0, v;
	size_t empty = 0;

	for (size_t k = 0; k < m->n; k++) {
		int ret = count_of(m, k, name, &v);

		if (ret < 0)
			return ret;
		if (ret) {
			empty++;
			continue;
		}
		sum += v;
	}
	if (empty == m->n) {
		csv_empty(out);
		return 0;
	}
	if (empty)
		return bad(m, "column %s: empty for some agents only", name);
	csv_u64(out, sum);
	return 0;
}

/*
 * A rate (R_RATE): the agents' sum; a gap (R_GAP): the gap of the summed
 * rates. Empty if any agent's is empty (or, for a gap, not positive).
 */
static int merged_rate(struct merge *m, struct csv *out, int c, enum rule r)
{
	const char *name = m->sum[0].h[c];
	double sum = 0;

	for (size_t k = 0; k < m->n; k++) {
		const char *s = m->sum[k].v[c];
		double v;

		if (!*s) {
			csv_empty(out);
			return 0;
		}
		if (!is_num(s) || (v = strtod(s, NULL)) < 0 || !isfinite(v))
			return bad(m, "agent %zu: summary.csv column %s: '%.40s' is not a number",
				   k + 1, name, s);
		if (r == R_GAP && v <= 0) {
			csv_empty(out);
			return 0;
		}
		sum += r == R_GAP ? 1 / v : v;
	}
	csv_double(out, r == R_GAP ? 1 / sum : sum, 3);
	return 0;
}

/* behind_schedule: 1 if any agent fell behind, empty if none knows. */
static int merged_behind(struct merge *m, struct csv *out, int c)
{
	int any = 0, known = 0;

	for (size_t k = 0; k < m->n; k++) {
		const char *s = m->sum[k].v[c];

		if (!*s)
			continue;
		if (strcmp(s, "0") && strcmp(s, "1"))
			return bad(m, "agent %zu: summary.csv column behind_schedule: '%.40s' is not 0 or 1",
				   k + 1, s);
		known = 1;
		any |= s[0] == '1';
	}
	if (known)
		csv_u64(out, (uint64_t)any);
	else
		csv_empty(out);
	return 0;
}

/* behind_reason: the first agent that fell behind, else the first's reason */
static void merged_reason(struct merge *m, struct csv *out, int c)
{
	int b = csvr_col(m->sum[0].h, m->sum[0].n, "behind_schedule");
	char buf[600];

	for (size_t k = 0; b >= 0 && k < m->n; k++)
		if (!strcmp(m->sum[k].v[b], "1")) {
			snprintf(buf, sizeof(buf), "agent %zu: %.500s", k + 1,
				 m->sum[k].v[c]);
			csv_str(out, buf);
			return;
		}
	csv_str(out, m->sum[0].v[c]);
}

/* Any other column: the agents' common value, empty if they differ. */
static void merged_copy(struct merge *m, struct csv *out, int c)
{
	const char *v0 = m->sum[0].v[c];

	for (size_t k = 1; k < m->n; k++)
		if (strcmp(m->sum[k].v[c], v0)) {
			csv_empty(out);
			return;
		}
	csv_str(out, v0);
}

/* Writes column C (index c of agent 0's header) of the merged row. */
static int merged_field(struct merge *m, struct csv *out, int c)
{
	const char *name = m->sum[0].h[c];
	enum rule r = rule_of(name);

	switch (r) {
	case R_STATUS:
		merged_status(m, out, c);
		return 0;
	case R_DIST:
		if (merged_dist(m, out, name))
			return 0;
		break;	/* a statistic not known here: copied or empty */
	case R_SUM:
		return merged_sum(m, out, name);
	case R_RATE:
	case R_GAP:
		return merged_rate(m, out, c, r);
	case R_FIRST:
		csv_str(out, m->sum[0].v[c]);
		return 0;
	case R_BEHIND:
		return merged_behind(m, out, c);
	case R_REASON:
		merged_reason(m, out, c);
		return 0;
	case R_EMPTY:
		csv_empty(out);
		return 0;
	case R_EXACT:
		csv_u64(out, (uint64_t)exact(m));
		return 0;
	case R_RELERR:
		csv_double(out, exact(m) ? 0 : HIST_REL_ERROR, 8);
		return 0;
	case R_COPY:
		break;
	}
	merged_copy(m, out, c);
	return 0;
}

static int exact(const struct merge *m)
{
	return hist_exact(m->h[M_LAT]) && hist_exact(m->h[M_SVC]) &&
	       hist_exact(m->h[M_PACE]);
}

static int write_summary_csv(struct merge *m, const char *path)
{
	struct csv *out = csv_open(path);
	char hdr[MAXLINE];
	size_t len = 0;
	int ret = 0;

	if (!out)
		return -errno;
	for (int c = 0; c < m->sum[0].n; c++)
		len += (size_t)snprintf(hdr + len, sizeof(hdr) - len, "%s%s",
					c ? "," : "", m->sum[0].h[c]);
	/* appended, unless the clients write them already */
	len += (size_t)snprintf(hdr + len, sizeof(hdr) - len, ",agents");
	if (!sget(&m->sum[0], "percentiles_exact"))
		len += (size_t)snprintf(hdr + len, sizeof(hdr) - len, ",percentiles_exact");
	if (!sget(&m->sum[0], "percentile_rel_error"))
		snprintf(hdr + len, sizeof(hdr) - len, ",percentile_rel_error");
	csv_header(out, hdr);
	for (int c = 0; c < m->sum[0].n && !ret; c++)
		ret = merged_field(m, out, c);
	csv_u64(out, m->n);
	if (!sget(&m->sum[0], "percentiles_exact"))
		csv_u64(out, (uint64_t)exact(m));
	if (!sget(&m->sum[0], "percentile_rel_error"))
		csv_double(out, exact(m) ? 0 : HIST_REL_ERROR, 8);
	csv_end_row(out);
	if (ret) {
		csv_close(out);
		return ret;
	}
	return csv_close(out);
}

/* one agent's column, "" when it has none */
static const char *acol(const struct merge *m, size_t k, const char *col)
{
	const char *s = sget(&m->sum[k], col);

	return s ? s : "";
}

static const char *const agent_cols[] = {
	"status", "count", "errors", "unanswered", "seed", "interval_us",
	"rate_target", "rate_achieved", "lat_p50_us", "lat_p99_us", "late_sends",
	"behind_schedule", NULL,
};

static int write_agents_csv(struct merge *m, const char *path,
			    const char *const *dirs)
{
	struct csv *out = csv_open(path);
	char hdr[512] = "agent,dir";

	if (!out)
		return -errno;
	for (int i = 0; agent_cols[i]; i++) {
		strcat(hdr, ",");
		strcat(hdr, agent_cols[i]);
	}
	csv_header(out, hdr);
	for (size_t k = 0; k < m->n; k++) {
		csv_u64(out, k + 1);
		csv_str(out, dirs[k]);
		for (int i = 0; agent_cols[i]; i++)
			csv_str(out, acol(m, k, agent_cols[i]));
		csv_end_row(out);
	}
	return csv_close(out);
}

static void dist_line(FILE *f, struct merge *m, const char *label, int i)
{
	struct hist *h = m->h[i];

	fprintf(f, "%-16s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", label,
		hist_min(h) / 1e3, hist_mean(h) / 1e3,
		hist_percentile_exact(h, 0.5) / 1e3, hist_percentile_exact(h, 0.9) / 1e3,
		hist_percentile_exact(h, 0.99) / 1e3,
		hist_percentile_exact(h, 0.999) / 1e3, hist_max(h) / 1e3);
}

static int write_text(struct merge *m, const char *path, const char *const *dirs)
{
	FILE *f = wfile_open(path);

	if (!f)
		return -errno;
	fprintf(f, "wakebench stats --merge: %zu client agents; percentiles %s\n", m->n,
		exact(m) ? "exact, from every agent's requests.csv" :
		"from the histogram (within 0.39 %): more samples than kept exactly");
	fprintf(f, "requests: %llu measured, %llu errors, %llu unanswered\n",
		(unsigned long long)m->ok, (unsigned long long)m->errors,
		(unsigned long long)m->unanswered);
	fprintf(f, "%-16s %10s %10s %10s %10s %10s %10s %10s\n", "(us)", "min", "avg",
		"p50", "p90", "p99", "p99.9", "max");
	dist_line(f, m, "latency", M_LAT);
	dist_line(f, m, "service latency", M_SVC);
	dist_line(f, m, "pacing error", M_PACE);
	fprintf(f, "%-5s %-11s %8s %10s %12s %10s %10s %6s  %s\n", "agent", "status",
		"count", "late", "rate/s", "p50", "p99", "behind", "dir");
	for (size_t k = 0; k < m->n; k++)
		fprintf(f, "%-5zu %-11.11s %8s %10s %12s %10s %10s %6s  %s\n", k + 1,
			acol(m, k, "status"), acol(m, k, "count"),
			acol(m, k, "late_sends"), acol(m, k, "rate_achieved"),
			acol(m, k, "lat_p50_us"), acol(m, k, "lat_p99_us"),
			acol(m, k, "behind_schedule"), dirs[k]);
	if (fclose(f))
		return -EIO;
	return 0;
}

static void json_dist(struct json *j, struct merge *m, const char *key, int i)
{
	struct hist *h = m->h[i];

	json_obj_begin(j, key);
	json_double(j, "min", hist_min(h) / 1e3);
	json_double(j, "avg", hist_mean(h) / 1e3);
	json_double(j, "p50", hist_percentile_exact(h, 0.5) / 1e3);
	json_double(j, "p90", hist_percentile_exact(h, 0.9) / 1e3);
	json_double(j, "p99", hist_percentile_exact(h, 0.99) / 1e3);
	json_double(j, "p999", hist_percentile_exact(h, 0.999) / 1e3);
	json_double(j, "p95", hist_percentile_exact(h, 0.95) / 1e3);
	json_double(j, "p9999", hist_percentile_exact(h, 0.9999) / 1e3);
	json_double(j, "max", hist_max(h) / 1e3);
	json_double(j, "stddev", hist_stddev(h) / 1e3);
	json_obj_end(j);
}

static int write_json(struct merge *m, const char *path, const char *const *dirs)
{
	struct json *j = json_open(path);

	if (!j)
		return -errno;
	json_obj_begin(j, NULL);
	json_str(j, "merged_from", "client agents");
	json_u64(j, "agents", m->n);
	json_bool(j, "percentiles_exact", exact(m));
	json_double(j, "percentile_rel_error", exact(m) ? 0 : HIST_REL_ERROR);
	json_str(j, "percentile_rule", m->o->rule == HIST_FLOOR_INDEX ?
		 "floor-index" : "nearest-rank");
	json_u64(j, "count", hist_count(m->h[M_LAT]));
	json_dist(j, m, "latency_us", M_LAT);
	json_dist(j, m, "service_latency_us", M_SVC);
	json_dist(j, m, "pacing_error_us", M_PACE);
	json_arr_begin(j, "agent");
	for (size_t k = 0; k < m->n; k++) {
		json_obj_begin(j, NULL);
		json_u64(j, "agent", k + 1);
		json_str(j, "dir", dirs[k]);
		for (int i = 0; agent_cols[i]; i++)
			json_str(j, agent_cols[i], acol(m, k, agent_cols[i]));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
	return json_close(j);
}

/* mkdir -p DIR */
static int make_dir(const char *dir)
{
	char p[4096];
	size_t n = strlen(dir);

	if (!n || n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i])
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		p[i] = dir[i];
	}
	return 0;
}

/*
 * OUTDIR must be none of the agents (its results would be written over
 * an agent's own, read half way) and no agent may come twice (its counts
 * would double). Compared by device and inode, so ./a1, a1/ and a link
 * to a1 are a1.
 */
static int check_dirs(struct merge *m, const char *outdir, const char *const *dirs,
		      size_t n)
{
	struct stat *sb = calloc(n, sizeof(*sb)), ob;
	int have_out = !stat(outdir, &ob), ret = 0;

	if (!sb)
		return -ENOMEM;
	for (size_t k = 0; k < n && !ret; k++) {
		if (stat(dirs[k], &sb[k])) {
			ret = -errno;
			errmsg_set(m->err, m->errlen, "%s: %s", dirs[k], strerror(errno));
			break;
		}
		if (!S_ISDIR(sb[k].st_mode)) {
			ret = bad(m, "%s: not a directory", dirs[k]);
			break;
		}
		if (have_out && sb[k].st_dev == ob.st_dev && sb[k].st_ino == ob.st_ino) {
			ret = bad(m, "OUTDIR %s is agent %zu (%s): the merge would write over that agent's own results; choose another OUTDIR",
				  outdir, k + 1, dirs[k]);
			break;
		}
		for (size_t j = 0; j < k; j++)
			if (sb[j].st_dev == sb[k].st_dev && sb[j].st_ino == sb[k].st_ino) {
				ret = bad(m, "agent %zu (%s) is agent %zu (%s) again: its requests would count twice",
					  k + 1, dirs[k], j + 1, dirs[j]);
				break;
			}
	}
	free(sb);
	return ret;
}

/* The agents' summaries and the three histograms: 0 or -ENOMEM */
static int merge_init(struct merge *m)
{
	m->sum = calloc(m->n, sizeof(*m->sum));
	if (!m->sum)
		return -ENOMEM;
	for (int i = 0; i < M_N; i++) {
		m->h[i] = hist_new(1);
		if (!m->h[i])
			return -ENOMEM;
		hist_set_rule(m->h[i], m->o->rule);
		hist_set_exact_max(m->h[i], m->o->exact_max ? m->o->exact_max :
				   SWEEPMERGE_EXACT_MAX);
	}
	return 0;
}

/* Every agent's summary.csv, each with agent 1's columns. */
static int read_summaries(struct merge *m, const char *const *dirs)
{
	for (size_t k = 0; k < m->n; k++) {
		int same, ret = read_summary(m, dirs[k], &m->sum[k]);

		if (ret)
			return ret;
		if (!k)
			continue;
		same = m->sum[k].n == m->sum[0].n;

		for (int c = 0; same && c < m->sum[0].n; c++)
			same = !strcmp(m->sum[k].h[c], m->sum[0].h[c]);
		if (!same)
			return bad(m, "%s/summary.csv: other columns than agent 1's (another client version)",
				   dirs[k]);
	}
	return 0;
}

/* OUTDIR's files could not be written: RET, its message set. */
static int cannot_write(struct merge *m, const char *outdir, int ret)
{
	errmsg_set(m->err, m->errlen, "cannot write %s: %s", outdir, strerror(-ret));
	return ret;
}

/*
 * Every agent's rows into the staged requests.csv and the histograms,
 * each agent's rows checked against its summary.
 */
static int merge_rows(struct merge *m, struct stage *st, const char *outdir,
		      const char *const *dirs)
{
	char tmp[4096], *hdr0 = NULL;
	struct csv *rq;
	int ret;

	ret = stage_add(st, "requests.csv", tmp, sizeof(tmp));
	if (ret)
		return cannot_write(m, outdir, ret);
	rq = csv_open(tmp);
	if (!rq)
		return cannot_write(m, outdir, -errno);
	for (size_t k = 0; k < m->n; k++) {
		struct rows r;

		ret = check_raw(m, k);
		if (!ret)
			ret = read_rows(m, k, dirs[k], rq, &hdr0, &r);
		if (!ret)
			ret = check_counts(m, k, &r);
		if (ret)
			goto out;
		m->ok += r.ok;
		m->errors += r.errors;
		m->unanswered += r.unanswered;
	}
	ret = csv_close(rq);
	rq = NULL;
	if (ret)
		cannot_write(m, outdir, ret);
out:
	if (rq)
		csv_close(rq);
	free(hdr0);
	return ret;
}

/* The merged summaries and the agents' table, staged in ST. */
static int write_results(struct merge *m, struct stage *st, const char *const *dirs)
{
	char tmp[4096];
	int ret;

	ret = stage_add(st, "agents.csv", tmp, sizeof(tmp));
	if (!ret)
		ret = write_agents_csv(m, tmp, dirs);
	if (!ret)
		ret = stage_add(st, "summary.txt", tmp, sizeof(tmp));
	if (!ret)
		ret = write_text(m, tmp, dirs);
	if (!ret)
		ret = stage_add(st, "summary.json", tmp, sizeof(tmp));
	if (!ret)
		ret = write_json(m, tmp, dirs);
	if (!ret)
		ret = stage_add(st, "summary.csv", tmp, sizeof(tmp));
	if (!ret)
		ret = write_summary_csv(m, tmp);
	return ret;
}

int sweepmerge_dirs(const char *outdir, const char *const *dirs, size_t n,
		    const struct sweepmerge_opts *o, char *err, size_t errlen)
{
	struct merge m = { .o = o, .n = n, .err = err, .errlen = errlen };
	struct stage *st = NULL;
	char why[512];
	int ret;

	if (!n)
		return bad(&m, "no agent directory");
	ret = check_dirs(&m, outdir, dirs, n);
	if (ret == -ENOMEM)
		errmsg_set(err, errlen, "out of memory");
	if (ret)
		return ret;
	ret = merge_init(&m);
	if (!ret)
		ret = read_summaries(&m, dirs);
	if (ret)
		goto out;
	ret = make_dir(outdir);
	if (ret) {
		errmsg_set(err, errlen, "cannot create %s: %s", outdir, strerror(-ret));
		goto out;
	}
	st = stage_new(outdir);
	ret = -ENOMEM;
	if (!st)
		goto out;
	ret = merge_rows(&m, st, outdir, dirs);
	if (ret)
		goto out;
	ret = write_results(&m, st, dirs);
	if (ret == -EINVAL)
		goto out;	/* a merge error: its message is set */
	if (ret) {
		cannot_write(&m, outdir, ret);
		goto out;
	}
	ret = stage_commit(st, why, sizeof(why));
	if (ret)
		errmsg_set(err, errlen, "cannot write %s", why);
out:
	if (ret == -ENOMEM)
		errmsg_set(err, errlen, "out of memory");
	stage_free(st);
	for (size_t k = 0; m.sum && k < n; k++)
		summ_free(&m.sum[k]);
	free(m.sum);
	for (int i = 0; i < M_N; i++)
		hist_free(m.h[i]);
	return ret;
}
