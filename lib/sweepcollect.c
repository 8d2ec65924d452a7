// SPDX-License-Identifier: GPL-2.0
/* sweepcollect: sweep.csv from a sweep's run directories (see the header). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csvread.h"
#include "stage.h"
#include "sweepcollect.h"
#include "sweepspec.h"

#define MAXCOL 256
#define MAX_SPEC (1 << 20)

const char *const sweepcollect_vals[SWEEPCOLLECT_NVALS] = {
	"count", "lat_avg_us", "lat_p50_us", "lat_p90_us", "lat_p99_us",
	"lat_p999_us", "svc_p50_us", "pace_p99_us", "late_sends",
	"prequeries_sent", "prequeries_skipped",
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

int sweepcollect_plan_line(char *line, struct sweepcollect_entry *e,
			   const char *name, unsigned long lineno, char *err,
			   size_t errlen)
{
	char *w[9], *save = NULL, *t;
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	for (t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == 9)
			break;
		w[n++] = t;
	}
	if (n != 8)
		return bad(err, errlen, name, lineno,
			   "expected 'POINT REP DIST INTERVAL PREQUERY WARMUP CSTATES SERVICE'");
	if (strpbrk(w[0], "/,\"") || !strcmp(w[0], ".") || !strcmp(w[0], ".."))
		return bad(err, errlen, name, lineno, "point '%.80s' is not a plain name", w[0]);
	if (whole(w[1], &e->rep_n))
		return bad(err, errlen, name, lineno, "rep '%.40s' is not a whole number", w[1]);
	for (int k = 2; k < 8; k++)
		if (strpbrk(w[k], ",\""))
			return bad(err, errlen, name, lineno, "value '%.80s' holds ',' or '\"'",
				   w[k]);
	e->point = w[0];
	e->rep = w[1];
	for (int k = 0; k < 6; k++)
		e->param[k] = w[k + 2];
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

/* getline that tells an error from the end of the file */
static ssize_t next_line(FILE *f, char **line, size_t *cap)
{
	errno = 0;
	return getline(line, cap, f);
}

int sweepcollect_summary(FILE *f, const char *name, struct sweepcollect_run *run,
			 char *err, size_t errlen)
{
	char *hline = NULL, *line = NULL, *h[MAXCOL], *v[MAXCOL];
	size_t hcap = 0, cap = 0;
	int nh, nv, c, ret = 0;

	memset(run, 0, sizeof(*run));
	if (next_line(f, &hline, &hcap) < 0) {
		free(hline);
		if (ferror(f) || errno == ENOMEM) {
			snprintf(err, errlen, "reading %s failed", name);
			return errno == ENOMEM ? -ENOMEM : -EIO;
		}
		snprintf(err, errlen, "%s is empty", name);
		return -ENODATA;
	}
	nh = csvr_split(hline, h, MAXCOL);
	if (nh < 0) {
		ret = nh == -E2BIG ? bad(err, errlen, name, 1, "more than %d fields", MAXCOL) :
			bad(err, errlen, name, 1, "a stray or unterminated quote");
		goto out;
	}
	if (next_line(f, &line, &cap) < 0) {
		if (ferror(f)) {
			snprintf(err, errlen, "reading %s failed", name);
			ret = -EIO;
		} else {
			ret = bad(err, errlen, name, 2, "no row after the header");
		}
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
	c = csvr_col(h, nh, "status");
	if (c < 0) {
		ret = bad(err, errlen, name, 1, "no status column");
		goto out;
	}
	if (!v[c][0] || strlen(v[c]) >= sizeof(run->status) ||
	    strspn(v[c], "abcdefghijklmnopqrstuvwxyz_-") != strlen(v[c])) {
		ret = bad(err, errlen, name, 2, "status '%.40s' is not a word", v[c]);
		goto out;
	}
	strcpy(run->status, v[c]);
	for (int k = 0; k < SWEEPCOLLECT_NVALS; k++) {
		c = csvr_col(h, nh, sweepcollect_vals[k]);
		if (c < 0)
			continue;	/* an older client: left empty */
		if (!numtext(v[c]) || strlen(v[c]) >= sizeof(run->val[k])) {
			ret = bad(err, errlen, name, 2, "column %s: '%.40s' is not a number",
				  sweepcollect_vals[k], v[c]);
			goto out;
		}
		strcpy(run->val[k], v[c]);
	}
	c = csvr_col(h, nh, "behind_schedule");
	if (c >= 0) {
		if (v[c][0] && strcmp(v[c], "0") && strcmp(v[c], "1")) {
			ret = bad(err, errlen, name, 2,
				  "column behind_schedule: '%.40s' is not 0 or 1", v[c]);
			goto out;
		}
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
	errno = 0;
	if (next_line(f, &line, &cap) >= 0 && line[strspn(line, "\r\n")])
		ret = bad(err, errlen, name, 3, "more than one row");
	else if (ferror(f)) {
		snprintf(err, errlen, "reading %s failed", name);
		ret = -EIO;
	}
out:
	free(hline);
	free(line);
	return ret;
}

int sweepcollect_row(FILE *out, const struct sweepcollect_entry *e,
		     const char *requests, unsigned long long seed,
		     const struct sweepcollect_run *run)
{
	fprintf(out, "%s,%s,%s", e->point, e->rep, run ? run->status : "missing");
	for (int k = 0; k < 6; k++)
		fprintf(out, ",%s", e->param[k]);
	fprintf(out, ",%s,%llu", requests, seed + e->rep_n);
	for (int k = 0; k < SWEEPCOLLECT_NVALS; k++)
		fprintf(out, ",%s", run ? run->val[k] : "");
	fprintf(out, ",%s/rep-%s,%s,%s\n", e->point, e->rep, run ? run->behind : "",
		run ? run->why : "");
	return ferror(out) ? -EIO : 0;
}

/*
 * Opens RUNDIR/client/summary.csv into *F: 0, 1 when there is none (absent
 * or empty, as the shell's test -s), or -errno.
 */
static int open_summary(const char *rundir, char *path, size_t plen, FILE **f,
			char *err, size_t errlen)
{
	struct stat st;
	int n = snprintf(path, plen, "%s/client/summary.csv", rundir);

	*f = NULL;
	if (n < 0 || (size_t)n >= plen) {
		snprintf(err, errlen, "%s: path too long", rundir);
		return -ENAMETOOLONG;
	}
	*f = fopen(path, "r");
	if (!*f) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 1;
		n = -errno;
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(-n));
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
	int ret = open_summary(rundir, path, sizeof(path), &f, err, errlen);

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
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(-ret));
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
		snprintf(requests, rlen, "%s", s.val[SK_REQUESTS]);
		*seed = v;
	}
	sweepspec_free(&s);
	return ret;
}

/* Writes every row of plan PF (named PNAME) to OUT. */
static int write_rows(const char *dir, FILE *pf, const char *pname, FILE *out,
		      const char *requests, unsigned long long seed, size_t *rows,
		      char *err, size_t errlen)
{
	char *line = NULL, rundir[4096], spath[4096];
	size_t cap = 0;
	unsigned long lineno = 0;
	int ret = 0;

	if (fprintf(out, "%s\n", SWEEPCOLLECT_HEADER) < 0)
		return -EIO;
	while (getline(&line, &cap, pf) >= 0) {
		struct sweepcollect_entry e;
		struct sweepcollect_run run;
		FILE *sf;
		int n, r;

		lineno++;
		ret = sweepcollect_plan_line(line, &e, pname, lineno, err, errlen);
		if (ret)
			break;
		n = snprintf(rundir, sizeof(rundir), "%s/%s/rep-%s", dir, e.point, e.rep);
		if (n < 0 || (size_t)n >= sizeof(rundir)) {
			ret = bad(err, errlen, pname, lineno, "path too long");
			break;
		}
		r = open_summary(rundir, spath, sizeof(spath), &sf, err, errlen);
		if (r < 0) {
			ret = r;
			break;
		}
		if (!r) {
			ret = sweepcollect_summary(sf, spath, &run, err, errlen);
			fclose(sf);
			if (ret == -ENODATA)
				ret = -EINVAL;
			if (ret)
				break;
		}
		ret = sweepcollect_row(out, &e, requests, seed, r ? NULL : &run);
		if (ret)
			break;
		(*rows)++;
	}
	free(line);
	if (!ret && ferror(pf)) {
		snprintf(err, errlen, "reading %s failed", pname);
		ret = -EIO;
	}
	if (!ret && !lineno) {
		snprintf(err, errlen, "%s is empty: not a sweep, or one that never started",
			 pname);
		ret = -ENODATA;
	}
	if (ret == -EIO && !err[0])
		snprintf(err, errlen, "writing sweep.csv failed");
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
	pf = fopen(pname, "r");
	if (!pf) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", pname, strerror(-ret));
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
	out = fopen(tmp, "w");
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
