// SPDX-License-Identifier: GPL-2.0
/*
 * sweepcsv: the sweep.csv reader of wakebench stats (see sweepcsv.h).
 * RFC 4180 quotes are allowed; every field of an ok row that is used is
 * checked for its type.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rfile.h"
#include "runcheck.h"
#include "sweepcsv.h"

#define MAXCOL 512

#define SWEEPCSV_COL_(id, opt, col, ...) col,
const char *const sweepcsv_params[SWEEPCSV_NPARAMS] = {
	SWEEPDIM_FIRST(SWEEPCSV_COL_) "requests",
	SWEEPDIM_LATER(SWEEPCSV_COL_) SWEEPDIM_ADDED(SWEEPCSV_COL_)
};
#undef SWEEPCSV_COL_
_Static_assert(SWEEPDIM_PREQUERY < SWEEPDIM_NFIRST,
	       "prequery is before requests in sweepcsv_params");
const char *const sweepcsv_metrics[SWEEPCSV_NMETRICS] = {
	"avg", "p50", "p99", "p999", "p95", "p9999", "energy_per_request",
	"power", "cost_cpu_per_req", "cost_c0", "cost_idle_entries", "cost_msgs",
	"cost_bytes",
};
const char *const sweepcsv_metric_cols[SWEEPCSV_NMETRICS] = {
	"lat_avg_us", "lat_p50_us", "lat_p99_us", "lat_p999_us", "lat_p95_us",
	"lat_p9999_us", "energy_per_request_uj", "power_w", "cost_cpu_us_per_req",
	"cost_c0_pct", "cost_idle_entries_per_s", "cost_msgs_per_req",
	"cost_bytes_per_req",
};
const char *const sweepcsv_metric_units[SWEEPCSV_NMETRICS] = {
	"us", "us", "us", "us", "us", "us", "uj", "w", "us", "pct", "per_s",
	"per_req", "per_req",
};

struct rd {
	const char *name;
	unsigned long line;
	char *err;
	size_t errlen;
};

static int bad(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct rd *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!r->errlen)
		return -EINVAL;
	n = snprintf(r->err, r->errlen, "%s:%lu: ", r->name, r->line);
	if (n < 0 || (size_t)n >= r->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Splits a CSV line in place into f[]; the field count, or -EINVAL. */
static int split(struct rd *rd, char *line, char **f)
{
	int n = 0;
	char *r = line, *w;

	line[strcspn(line, "\r\n")] = '\0';
	for (;;) {
		if (n == MAXCOL)
			return bad(rd, "more than %d fields", MAXCOL);
		f[n++] = w = r;
		if (*r == '"') {
			for (r++;; r++) {
				if (!*r)
					return bad(rd, "unterminated quoted field");
				if (*r == '"' && r[1] == '"')
					r++;
				else if (*r == '"')
					break;
				*w++ = *r;
			}
			r++;
			if (*r && *r != ',')
				return bad(rd, "text after a quoted field");
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

static int num_field(struct rd *rd, char **fld, int c, const char *name, double *v)
{
	if (parse_num(fld[c], v))
		return bad(rd, "column %s: '%s' is not a non-negative number", name,
			   fld[c]);
	return 0;
}

struct cols {
	int point, rep, status, param[SWEEPCSV_NPARAMS], metric[SWEEPCSV_NMETRICS];
	int behind, reason, requests, late, pace_p99, interval;
	int lo[SWEEPCSV_NMETRICS], hi[SWEEPCSV_NMETRICS];
};

/*
 * Whether an ok run fell behind: 1, 0, -1 (cannot tell), or -EINVAL-ish
 * < -1. The client's behind_schedule when the row has it; else (summaries
 * older than that column) lib/runcheck's legacy rule on the late sends.
 */
static int run_behind(struct rd *rd, char **fld, const struct cols *c, char *why,
		      size_t len, int *out)
{
	struct runcheck_legacy_in in;
	double v;
	int r;

	why[0] = '\0';
	if (c->behind >= 0 && fld[c->behind][0]) {
		if (strcmp(fld[c->behind], "0") && strcmp(fld[c->behind], "1"))
			return bad(rd, "column behind_schedule: '%s' is not 0 or 1",
				   fld[c->behind]);
		if (fld[c->behind][0] == '1')
			snprintf(why, len, "%s", c->reason >= 0 && fld[c->reason][0] ?
				 fld[c->reason] : "flagged by the client");
		*out = fld[c->behind][0] == '1';
		return 0;
	}
	if (c->requests < 0 || c->late < 0 || c->pace_p99 < 0 ||
	    !fld[c->requests][0] || !fld[c->late][0] || !fld[c->pace_p99][0]) {
		*out = -1;
		return 0;
	}
	if (num_field(rd, fld, c->requests, "requests", &v))
		return -EINVAL;
	in.requests = v < 1.8e19 ? (uint64_t)v : UINT64_MAX;
	if (num_field(rd, fld, c->late, "late_sends", &v))
		return -EINVAL;
	in.late = v < 1.8e19 ? (uint64_t)v : UINT64_MAX;
	if (num_field(rd, fld, c->pace_p99, "pace_p99_us", &in.pacing_p99_us))
		return -EINVAL;
	in.mean_gap_us = 0;
	if (c->interval >= 0 && fld[c->interval][0] &&
	    num_field(rd, fld, c->interval, "interval_us", &in.mean_gap_us))
		return -EINVAL;
	r = runcheck_legacy_behind(&in, why, len);
	if (r < 0)
		return bad(rd, "late_sends %s of requests %s is not a run", fld[c->late],
			   fld[c->requests]);
	*out = r;
	return 0;
}

/* The run's own CIs: empty (not bounded) is NAN, else a number. */
static int run_ci(struct rd *rd, char **fld, const struct cols *c,
		  struct sweepcsv_run *run)
{
	for (int m = 0; m < SWEEPCSV_NMETRICS; m++) {
		char lo[64], hi[64];

		run->lo[m] = run->hi[m] = NAN;
		if (c->lo[m] < 0 || !fld[c->lo[m]][0] || !fld[c->hi[m]][0])
			continue;
		snprintf(lo, sizeof(lo), "lat_%s_lo_us", sweepcsv_metrics[m]);
		snprintf(hi, sizeof(hi), "lat_%s_hi_us", sweepcsv_metrics[m]);
		if (num_field(rd, fld, c->lo[m], lo, &run->lo[m]) ||
		    num_field(rd, fld, c->hi[m], hi, &run->hi[m]))
			return -EINVAL;
	}
	return 0;
}

static int oom(struct rd *rd)
{
	if (rd->errlen)
		snprintf(rd->err, rd->errlen, "out of memory");
	return -ENOMEM;
}

/* Keeps the ok row FLD (strings in BUF, now owned by OUT). */
static int add_run(struct rd *rd, struct sweepcsv *out, const struct cols *c,
		   char **fld, char *buf)
{
	struct sweepcsv_run *run;
	int ret;

	if (out->n == out->cap) {
		size_t ncap = out->cap ? 2 * out->cap : 16;
		struct sweepcsv_run *nr = realloc(out->run, ncap * sizeof(*nr));

		if (!nr)
			return oom(rd);
		out->run = nr;
		out->cap = ncap;
	}
	run = &out->run[out->n];
	memset(run, 0, sizeof(*run));
	for (int m = 0; m < SWEEPCSV_NMETRICS; m++) {
		const char *name = sweepcsv_metric_cols[m];

		if (m >= SWEEPCSV_NREQUIRED_METRICS &&
		    (c->metric[m] < 0 || !fld[c->metric[m]][0])) {
			run->val[m] = NAN;
			continue;
		}
		if (num_field(rd, fld, c->metric[m], name, &run->val[m]))
			return -EINVAL;
	}
	ret = run_ci(rd, fld, c, run);
	if (ret)
		return ret;
	ret = run_behind(rd, fld, c, run->why, sizeof(run->why), &run->behind);
	if (ret)
		return ret;
	run->point = fld[c->point];
	run->rep = c->rep >= 0 ? fld[c->rep] : "?";
	for (int k = 0; k < SWEEPCSV_NPARAMS; k++)
		run->param[k] = c->param[k] >= 0 ? fld[c->param[k]] : "";
	run->line = rd->line;
	run->buf = buf;
	out->n++;
	return 0;
}

/* Header HDR's (NH fields) columns into C: -EINVAL if one needed is missing. */
static int header_cols(struct rd *rd, char **hdr, int nh, struct sweepcsv *out,
		       struct cols *c)
{
	c->point = col(hdr, nh, "point");
	c->rep = col(hdr, nh, "rep");
	c->status = col(hdr, nh, "status");
	for (int k = 0; k < SWEEPCSV_NPARAMS; k++)
		c->param[k] = col(hdr, nh, sweepcsv_params[k]);
	for (int m = 0; m < SWEEPCSV_NMETRICS; m++) {
		const char *cname = sweepcsv_metric_cols[m];

		c->metric[m] = col(hdr, nh, cname);
		if (c->metric[m] < 0 && m < SWEEPCSV_NREQUIRED_METRICS) {
			snprintf(rd->err, rd->errlen, "%s has no column %s", rd->name, cname);
			return -EINVAL;
		}
	}
	if (c->point < 0 || c->status < 0) {
		snprintf(rd->err, rd->errlen, "%s has no point or status column", rd->name);
		return -EINVAL;
	}
	c->behind = col(hdr, nh, "behind_schedule");
	c->reason = col(hdr, nh, "behind_reason");
	c->requests = col(hdr, nh, "requests");
	c->late = col(hdr, nh, "late_sends");
	c->pace_p99 = col(hdr, nh, "pace_p99_us");
	c->interval = col(hdr, nh, "interval_us");
	for (int m = 0; m < SWEEPCSV_NMETRICS; m++) {
		char lo[64], hi[64];

		snprintf(lo, sizeof(lo), "lat_%s_lo_us", sweepcsv_metrics[m]);
		snprintf(hi, sizeof(hi), "lat_%s_hi_us", sweepcsv_metrics[m]);
		c->lo[m] = col(hdr, nh, lo);
		c->hi[m] = col(hdr, nh, hi);
		if (c->hi[m] < 0)
			c->lo[m] = -1;
		out->has_ci[m] = c->lo[m] >= 0;
	}
	return 0;
}

/* F's header line: its columns into C, its field count into *NH. */
static int read_header(struct rd *rd, FILE *f, struct sweepcsv *out, struct cols *c,
		       int *nh)
{
	char *hdrline = NULL, *hdr[MAXCOL];
	size_t hcap = 0;
	ssize_t got;
	int ret;

	/* lines bounded before they are held: a 2 GB line would cost 2 GB */
	got = rfile_getline(f, &hdrline, &hcap, RFILE_LINE_MAX);
	if (got == -E2BIG) {
		free(hdrline);
		bad(rd, "a line longer than 64 KiB");
		return -EINVAL;	/* bad()'s, spelled out: gcc sees C unset only on errors */
	}
	if (got <= 0) {
		free(hdrline);
		if (got < 0) {
			snprintf(rd->err, rd->errlen, "reading %s failed", rd->name);
			return -EIO;
		}
		snprintf(rd->err, rd->errlen, "%s is empty", rd->name);
		return -ENODATA;
	}
	*nh = split(rd, hdrline, hdr);
	ret = *nh < 0 ? *nh : header_cols(rd, hdr, *nh, out, c);
	free(hdrline);
	return ret;
}

int sweepcsv_read(FILE *f, const char *name, struct sweepcsv *out, char *err,
		  size_t errlen)
{
	struct rd rd = { name, 1, err, errlen };
	char *line = NULL;
	size_t lcap = 0;
	struct cols c;
	int nh, ret = 0;
	ssize_t got;

	memset(out, 0, sizeof(*out));
	ret = read_header(&rd, f, out, &c, &nh);
	if (ret)
		return ret;
	while ((got = rfile_getline(f, &line, &lcap, RFILE_LINE_MAX))) {
		char *fld[MAXCOL];
		int n;

		rd.line++;
		if (got < 0) {
			if (got == -E2BIG) {
				ret = bad(&rd, "a line longer than 64 KiB");
			} else {
				snprintf(err, errlen, "reading %s failed: %s", name,
					 strerror((int)-got));
				ret = (int)got;
			}
			break;
		}
		if (!line[strspn(line, "\r\n")])
			continue;
		n = split(&rd, line, fld);
		if (n < 0) {
			ret = n;
			break;
		}
		if (n != nh) {
			ret = bad(&rd, "%d fields, the header has %d", n, nh);
			break;
		}
		if (strcmp(fld[c.status], "ok"))
			continue;	/* failed or partial runs do not count */
		ret = add_run(&rd, out, &c, fld, line);
		if (ret)
			break;
		line = NULL;	/* kept by the run */
		lcap = 0;
	}
	free(line);
	if (!ret && ferror(f)) {
		snprintf(err, errlen, "reading %s failed", name);
		ret = -EIO;
	}
	if (ret)
		sweepcsv_free(out);
	return ret;
}

void sweepcsv_free(struct sweepcsv *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->run[i].buf);
	free(c->run);
	memset(c, 0, sizeof(*c));
}

/* a plain decimal: digits, optionally '.' and digits */
static int plain_num(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (!n)
		return 0;
	if (s[n] == '.') {
		size_t d = strspn(s + n + 1, "0123456789");

		if (!d)
			return 0;
		n += 1 + d;
	}
	return !s[n];
}

static int value_class(const char *v)
{
	if (!*v || !strcmp(v, "-"))
		return 0;
	if (!strcmp(v, "off"))
		return 1;
	return plain_num(v) ? 2 : 3;
}

int sweepcsv_value_cmp(const char *a, const char *b)
{
	int ca = value_class(a), cb = value_class(b);

	if (ca != cb)
		return ca - cb;
	if (ca == 2) {
		double x = strtod(a, NULL), y = strtod(b, NULL);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return strcmp(a, b);
}
