// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-internal sweep-search, sweep-search-report: `wakebench sweep
 * --search` (lib/sweepsearch). The sweep runs its plan; when the plan is
 * done, sweep-search measures each probed rate from sweep.csv (the
 * medians and CIs of `wakebench stats`), replays the bisection over the
 * probes in their order (sweep.spec's interval_us list) and, while it
 * goes on, adds the next rate as a point of the sweep: its interval to
 * sweep.spec's list and its runs to plan.txt, which the sweep is still
 * reading. Every probe is then an ordinary point: sweep.csv, stats and
 * --resume see it. search.csv says what each step measured;
 * sweep-search-report prints the outcome.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "die.h"
#include "internal.h"
#include "rfile.h"
#include "stats.h"
#include "sweepcollect.h"
#include "sweepcsv.h"
#include "sweepplan.h"
#include "sweepsearch.h"
#include "sweepspec.h"
#include "wfile.h"

#define PROG SWEEP_PROG

/* one probed rate, as measured */
struct probe {
	char iv_text[32];	/* its interval_us value in the plan */
	double iv;
	size_t n;		/* ok runs in the median */
	size_t behind;		/* of them, runs behind their schedule */
	double value, lo, hi;	/* median, its CI; NAN: none */
	int meets;
};

struct search {
	char dir[4096];
	struct sweepspec s;
	const char *expr;	/* the spec's search, as the user wrote it */
	struct sweepsearch_target t;
	double lo, hi, tol_pct;
	struct probe *p;
	size_t np;
	struct sweepsearch b;
};

static void pathf(char *buf, size_t len, const char *fmt, const char *dir,
		  const char *name)
{
	if ((size_t)snprintf(buf, len, fmt, dir, name) >= len)
		opt_die(PROG, "%s: path too long", dir);
}

/* OUT's spec; 0 when it has no search (the verbs then do nothing) */
static int search_open(struct search *x, const char *dir)
{
	char path[4200], err[512];

	memset(x, 0, sizeof(*x));
	snprintf(x->dir, sizeof(x->dir), "%s", dir);
	pathf(path, sizeof(path), "%s/%s", dir, "sweep.spec");
	internal_read_resolved(&x->s, path, internal_ncpus());
	x->expr = sweepspec_key("search") < 0 ? "" : x->s.val[sweepspec_key("search")];
	if (!x->expr[0]) {
		sweepspec_free(&x->s);
		return 0;
	}
	/* resolved: these were checked */
	if (sweepsearch_parse(x->expr, &x->t, err, sizeof(err)) ||
	    sweepsearch_range(x->s.val[sweepspec_key("search-range")], &x->lo, &x->hi,
			      err, sizeof(err)) ||
	    sweepsearch_tol(x->s.val[sweepspec_key("search-tol")], &x->tol_pct, err,
			    sizeof(err)))
		opt_die(PROG, "%s: %s", path, err);
	return 1;
}

/* The probes: sweep.spec's interval_us list, in the order they were made. */
static void probes_of(struct search *x)
{
	const char *p = x->s.val[SK_INTERVAL_US];

	x->p = calloc(sweepspec_count_words(p) + 1, sizeof(*x->p));
	if (!x->p)
		opt_die(PROG, "out of memory");
	while (*p) {
		size_t w = strcspn(p, " ");
		struct probe *q = &x->p[x->np++];

		snprintf(q->iv_text, sizeof(q->iv_text), "%.*s", (int)w, p);
		q->iv = strtod(q->iv_text, NULL);
		q->value = q->lo = q->hi = NAN;
		p += w + (p[w] == ' ');
	}
}

/*
 * Probe Q's value and CI from sweep.csv's ok runs at its interval: one
 * run, its own CI of the percentile (order statistics of its requests);
 * more, the median across them with stats' CI (min-max below 6 runs).
 * It meets the target when the CI's upper bound is at or below the
 * limit; no run, or an unbounded CI, does not. Runs that fell behind
 * their schedule count (and are counted): their latency is measured
 * from the intended send times, so the generator's delay and the burst
 * after it can only make a rate fail, never pass. Left out as stats
 * does, a shared machine's late client would leave probes with no run.
 */
static void measure(const struct search *x, const struct sweepcsv *c, struct probe *q)
{
	int m = x->t.metric;
	double *v = malloc((c->n + 1) * sizeof(*v));
	const struct sweepcsv_run *one = NULL;
	struct stats_summary sum;

	if (!v)
		opt_die(PROG, "out of memory");
	for (size_t i = 0; i < c->n; i++) {
		const struct sweepcsv_run *r = &c->run[i];

		if (!isfinite(r->val[m]) || strcmp(r->param[SWEEPDIM_INTERVAL_US], q->iv_text))
			continue;
		v[q->n++] = r->val[m];
		q->behind += r->behind > 0;
		one = r;
	}
	if (q->n == 1) {
		q->value = one->val[m];
		q->lo = one->lo[m];
		q->hi = one->hi[m];
	} else if (q->n > 1) {
		if (stats_summarize(v, q->n, 1, 1, &sum))
			opt_die(PROG, "out of memory");
		q->value = sum.median;
		q->lo = sum.ci_lo;
		q->hi = sum.ci_hi;
	}
	q->meets = q->hi <= x->t.limit_us;
	free(v);
}

/* sweep.csv (rebuilt from the runs), each probe measured, the bisection replayed */
static void replay(struct search *x, int collect)
{
	char path[4200], err[1024];
	struct sweepcsv c;
	size_t rows;
	FILE *f;
	int ret = collect ? sweepcollect_dir(x->dir, &rows, err, sizeof(err)) : 0;

	if (ret)
		opt_die(PROG, "search: %s", ret == -ENOMEM ? "out of memory" : err);
	pathf(path, sizeof(path), "%s/%s", x->dir, "sweep.csv");
	f = rfile_fopen_quiet(path);
	if (!f)
		opt_die(PROG, "search: cannot read %s: %s", path, rfile_strerror(errno));
	ret = sweepcsv_read(f, path, &c, err, sizeof(err));
	fclose(f);
	if (ret == -ENODATA)
		memset(&c, 0, sizeof(c));	/* every run failed */
	else if (ret)
		opt_die(PROG, "search: %s", err);
	probes_of(x);
	sweepsearch_init(&x->b, x->lo, x->hi, x->tol_pct / 100);
	for (size_t i = 0; i < x->np; i++) {
		measure(x, &c, &x->p[i]);
		sweepsearch_feed(&x->b, x->p[i].iv, x->p[i].meets);
	}
	sweepcsv_free(&c);
}

/* OUT/search.csv: one row per step, through a temporary file renamed */
static void write_csv(const struct search *x)
{
	char tmp[4200], path[4200];
	struct csv *c;

	pathf(tmp, sizeof(tmp), "%s/%s", x->dir, ".search.csv.partial");
	pathf(path, sizeof(path), "%s/%s", x->dir, "search.csv");
	c = csv_open(tmp);
	if (!c)
		opt_die(PROG, "cannot write %s: %s", tmp, strerror(errno));
	csv_header(c, "step,rate_per_s,interval_us,metric,limit_us,runs,behind,value_us,ci_lo_us,ci_hi_us,meets");
	for (size_t i = 0; i < x->np; i++) {
		const struct probe *q = &x->p[i];

		csv_u64(c, i + 1);
		csv_double(c, 1e6 / q->iv, 3);
		csv_str(c, q->iv_text);
		csv_str(c, x->t.name);
		csv_double(c, x->t.limit_us, 3);
		csv_u64(c, q->n);
		csv_u64(c, q->behind);
		csv_double(c, q->value, 3);
		csv_double(c, q->lo, 3);
		csv_double(c, q->hi, 3);
		csv_str(c, q->meets ? "yes" : "no");
		csv_end_row(c);
	}
	if (csv_close(c) || rename(tmp, path)) {
		unlink(tmp);
		opt_die(PROG, "cannot write %s", path);
	}
}

/* "p99 412.3 us [CI 380.1, 455.0], 3 runs" into BUF */
static void probe_str(const struct search *x, const struct probe *q, char *buf,
		      size_t len)
{
	if (!q)
		snprintf(buf, len, "-");
	else if (!q->n)
		snprintf(buf, len, "no run measured (every run failed)");
	else if (isnan(q->hi))
		snprintf(buf, len, "%s %.1f us [CI unbounded: more requests], 1 run%s",
			 x->t.name, q->value, q->behind ? " behind schedule" : "");
	else if (q->behind)
		snprintf(buf, len, "%s %.1f us [CI %.1f, %.1f], %zu run%s, %zu behind schedule",
			 x->t.name, q->value, q->lo, q->hi, q->n, q->n == 1 ? "" : "s",
			 q->behind);
	else
		snprintf(buf, len, "%s %.1f us [CI %.1f, %.1f], %zu run%s", x->t.name,
			 q->value, q->lo, q->hi, q->n, q->n == 1 ? "" : "s");
}

/* the probe at RATE (the bracket's ends are probes) */
static const struct probe *probe_at(const struct search *x, double rate)
{
	for (size_t i = 0; i < x->np; i++)
		if (fabs(1e6 / x->p[i].iv - rate) <= 1e-9 * rate)
			return &x->p[i];
	return NULL;
}

/* KEPT's '#' lines (the sweep's date line) then S's resolved lines */
static char *spec_text(const struct search *x, size_t *len)
{
	char path[4200], *old = NULL, *text = NULL;
	size_t olen = 0, keep = 0;
	FILE *f;

	pathf(path, sizeof(path), "%s/%s", x->dir, "sweep.spec");
	if (internal_slurp(path, &old, &olen, 1 << 20))
		opt_die(PROG, "cannot read %s", path);
	while (keep < olen && old[keep] == '#')
		keep += strcspn(old + keep, "\n") + (old[keep + strcspn(old + keep, "\n")] == '\n');
	f = open_memstream(&text, len);
	if (!f || fwrite(old, 1, keep, f) != keep || sweepspec_write(&x->s, f) || fclose(f))
		opt_die(PROG, "out of memory");
	free(old);
	return text;
}

/* TEXT into OUT/NAME through a temporary file renamed into place */
static void write_renamed(const struct search *x, const char *name, const char *text,
			  size_t len)
{
	char tmp[4200], path[4200];

	pathf(tmp, sizeof(tmp), "%s/.%s.new", x->dir, name);
	pathf(path, sizeof(path), "%s/%s", x->dir, name);
	if (wfile_write_new(tmp, text, len) || rename(tmp, path)) {
		unlink(tmp);
		opt_die(PROG, "cannot update %s", path);
	}
}

/* the runs of the point at interval WORD (every repetition), as plan lines */
static char *step_runs(struct search *x, const char *word, size_t *len)
{
	struct sweepplan p = { 0 };
	char *buf = NULL;
	FILE *f;

	if (sweepspec_set(&x->s, "interval-us", word, SS_DEFAULT) ||
	    sweepplan_build(&x->s, 1, internal_spec_ul(&x->s, SK_REPS), &p))
		opt_die(PROG, "search: cannot plan interval %s", word);
	f = open_memstream(&buf, len);
	if (!f || sweepplan_write(&p, 0, f) || fclose(f))
		opt_die(PROG, "out of memory");
	sweepplan_free(&p);
	return buf;
}

/*
 * Interval IV becomes the next step: sweep.spec's list grows by it, and
 * its runs are appended to plan.txt in place (the sweep reads the plan
 * as it goes: a renamed file would be a file it does not see). Signals
 * are held from the first write to the second, so that --resume never
 * finds the one without the other.
 */
static void add_step(struct search *x, const char *word)
{
	size_t n = strlen(x->s.val[SK_INTERVAL_US]) + strlen(word) + 2, slen, rlen;
	char *list = malloc(n), *spec, *runs, path[4200];
	sigset_t hold, old;
	int fd;

	if (!list)
		opt_die(PROG, "out of memory");
	snprintf(list, n, "%s %s", x->s.val[SK_INTERVAL_US], word);
	runs = step_runs(x, word, &rlen);
	if (sweepspec_set(&x->s, "interval-us", list, SS_DEFAULT))
		opt_die(PROG, "out of memory");
	spec = spec_text(x, &slen);
	pathf(path, sizeof(path), "%s/%s", x->dir, "plan.txt");
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	sigaddset(&hold, SIGHUP);
	sigprocmask(SIG_BLOCK, &hold, &old);
	fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		opt_die(PROG, "cannot append to %s: %s", path, strerror(errno));
	write_renamed(x, "sweep.spec", spec, slen);
	if (wfile_write_all(fd, runs, rlen) || close(fd))
		opt_die(PROG, "cannot append to %s", path);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(list);
	free(spec);
	free(runs);
}

static void search_free(struct search *x)
{
	free(x->p);
	sweepspec_free(&x->s);
}

/*
 * sweep-search OUT: the sweep has run its plan. 0 when the search adds
 * a step (its runs are at the end of plan.txt), 1 when it is over or the
 * sweep has no search.
 */
int verb_sweep_search(int nargs, char **args, void *opts)
{
	struct search x;
	char word[32], a[256];
	double next;

	(void)nargs;
	(void)opts;
	if (!search_open(&x, args[0]))
		return 1;
	replay(&x, 1);
	write_csv(&x);
	if (x.np) {
		const struct probe *q = &x.p[x.np - 1];

		probe_str(&x, q, a, sizeof(a));
		fprintf(stderr, "%s: search step %zu: %.6g/s: %s: %s %s\n", PROG, x.np,
			1e6 / q->iv, a, q->meets ? "meets" : "does not meet", x.expr);
	}
	next = sweepsearch_next(&x.b);
	snprintf(word, sizeof(word), "%.10g", next);
	for (size_t i = 0; next > 0 && i < x.np; i++) {
		if (strcmp(x.p[i].iv_text, word))
			continue;
		/* a verdict that a larger --reps changed on --resume */
		fprintf(stderr, "%s: search: the next rate, %.6g/s, is step %zu's: its verdict changed; start a new sweep for a clean bisection\n",
			PROG, 1e6 / next, i + 1);
		next = 0;
	}
	if (next > 0) {
		add_step(&x, word);
		fprintf(stderr, "%s: search step %zu: %.6g/s (interval %s us) added\n", PROG,
			x.np + 1, 1e6 / next, word);
	}
	search_free(&x);
	return next > 0 ? 0 : 1;
}

/* the outcome's line for an end with a rate that met (found, top, steps) */
static void report_met(const struct search *x, const char *csv)
{
	const struct probe *ok = probe_at(x, x->b.ok), *bad = probe_at(x, x->b.bad);
	const char *e = x->expr;
	char a[256], b[256];

	probe_str(x, ok, a, sizeof(a));
	if (!ok)
		opt_die(PROG, "search: no probe at %.6g/s", x->b.ok);
	if (x->b.end == SWEEPSEARCH_TOP) {
		printf("search %s: every rate up to %.6g/s, the top of the range, meets it (%s): the knee lies above; raise --search-range: %s\n",
		       e, x->b.ok, a, csv);
		return;
	}
	probe_str(x, bad, b, sizeof(b));
	printf("search %s: %.6g/s is the highest rate that meets it (interval %s us; %s); %.6g/s does not (%s); %s after %zu steps: %s\n",
	       e, x->b.ok, ok->iv_text, a, x->b.bad, b,
	       x->b.end == SWEEPSEARCH_FOUND ? "within the tolerance" : "stopped at the step limit",
	       x->np, csv);
}

/* sweep-search-report OUT: the search's outcome in one line (nothing without one) */
int verb_sweep_search_report(int nargs, char **args, void *opts)
{
	struct search x;
	char csv[4200], a[256];

	(void)nargs;
	(void)opts;
	if (!search_open(&x, args[0]))
		return 0;
	replay(&x, 0);
	pathf(csv, sizeof(csv), "%s/%s", x.dir, "search.csv");
	switch (x.b.end) {
	case SWEEPSEARCH_GOING:
		printf("search %s: unfinished after %zu steps (a step failed, or the sweep stopped): --resume continues: %s\n",
		       x.expr, x.np, csv);
		break;
	case SWEEPSEARCH_NONE:
		probe_str(&x, &x.p[0], a, sizeof(a));
		printf("search %s: no rate from %.6g/s to %.6g/s meets it: %.6g/s gives %s: %s\n",
		       x.expr, x.lo, x.hi, x.lo, a, csv);
		break;
	default:
		report_met(&x, csv);
	}
	search_free(&x);
	return 0;
}
