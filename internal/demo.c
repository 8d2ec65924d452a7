// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-internal demo-report, demo-behind, demo-point: what the demo
 * (scripts/demo.sh) prints after its pairs of runs, computed here from
 * the sweep's files (sweep.csv, summary.csv, each run's summary.txt, the
 * traced pair's attribution.csv) so that the script only sequences
 * programs: which runs the machine disturbed (the workload tests against
 * a Bonferroni level over the runs), each side's medians, the within-run
 * CIs stats found wide, the paired effect, and the states the traced
 * pair's requests found.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csvtable.h"
#include "die.h"
#include "internal.h"
#include "rfile.h"
#include "stats.h"

#define PROG "demo"
/* the level of each workload test (the client's --alpha default) */
#define DEMO_ALPHA 0.01
/* the drift notes' width (as fold -s -w 96 wrapped them) */
#define DEMO_FOLD 96
#define DEMO_CSV_MAX ((size_t)1 << 30)

/* DIR/NAME into T; exits when it cannot be read. */
static void load(const char *dir, const char *name, struct csvtable *t)
{
	char path[4096], err[1024];

	snprintf(path, sizeof(path), "%s%s%s", dir, name ? "/" : "", name ? name : "");
	if (csvtable_read(path, DEMO_CSV_MAX, t, err, sizeof(err)))
		opt_die(PROG, "%s", err);
}

/* COL of the first row whose prequery is PQ; "" when none. */
static const char *sel(const struct csvtable *t, const char *pq, const char *col)
{
	int p = csvtable_col(t, "prequery"), c = csvtable_col(t, col);

	for (size_t r = 0; p >= 0 && c >= 0 && r < t->n; r++)
		if (!strcmp(csvtable_get(t, r, p), pq))
			return csvtable_get(t, r, c);
	return "";
}

/* the runs' service time in words, from sweep.csv's first row */
static const char *service_words(const struct csvtable *sw)
{
	static char buf[64];
	int c = csvtable_col(sw, "service_us");
	const char *v = c >= 0 && sw->n ? csvtable_get(sw, 0, c) : "";

	if (!*v || !strcmp(v, "0"))
		return "no service time";
	snprintf(buf, sizeof(buf), "%.20s us service", v);
	return buf;
}

static const char *side(const char *pq)
{
	return strcmp(pq, "off") ? "with pre-query" : "without pre-query";
}

/* The last line of FILE (as tail -1 in $(...)), "" without one. */
static void last_line(const char *path, char *buf, size_t len)
{
	char *text = NULL, *nl;
	size_t n = 0;

	buf[0] = '\0';
	if (internal_slurp(path, &text, &n, DEMO_CSV_MAX))
		return;
	while (n && text[n - 1] == '\n')
		text[--n] = '\0';
	nl = strrchr(text, '\n');
	snprintf(buf, len, "%s", nl ? nl + 1 : text);
	free(text);
}

/*
 * LINE wrapped as fold -s -w WIDTH does (break after the last blank that
 * fits, else at the width), each piece without its trailing blanks and
 * after four spaces.
 */
static void print_folded(const char *line, size_t width)
{
	size_t len = strlen(line), start = 0;

	while (start < len) {
		size_t end = len, cut;

		if (len - start > width) {
			end = start + width;
			for (cut = end; cut > start && line[cut - 1] != ' ' &&
			     line[cut - 1] != '\t'; cut--)
				;
			if (cut > start)
				end = cut;
		}
		cut = end;
		while (cut > start && line[cut - 1] == ' ')
			cut--;
		printf("    %.*s\n", (int)(cut - start), line + start);
		start = end;
	}
}

/* A growing text of items, SEP between them ("; " when NULL). */
struct items {
	char text[8192];
	size_t len;
	const char *sep;
};

static void items_add(struct items *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void items_add(struct items *it, const char *fmt, ...)
{
	va_list ap;
	int w;

	const char *sep = it->sep ? it->sep : "; ";

	if (it->len + strlen(sep) >= sizeof(it->text))
		return;
	if (it->len) {
		memcpy(it->text + it->len, sep, strlen(sep) + 1);
		it->len += strlen(sep);
	}
	va_start(ap, fmt);
	w = vsnprintf(it->text + it->len, sizeof(it->text) - it->len, fmt, ap);
	va_end(ap);
	if (w > 0)
		it->len += (size_t)w < sizeof(it->text) - it->len ? (size_t)w :
			   sizeof(it->text) - it->len - 1;
}

/*
 * One failed workload test line of a run's summary.txt ("test NAME
 * VERDICT TEXT", VERDICT misfits, fails or drifts): 1 with NAME, the
 * p-value ("" when the test has none) and TEXT filled, else 0.
 */
static int failed_test(char *line, char **name, char **p, char **text)
{
	static char pbuf[64];
	char *verdict, *s, *e;

	if (strncmp(line, "test ", 5))
		return 0;
	*name = line + 5 + strspn(line + 5, " ");
	verdict = *name + strcspn(*name, " ");
	if (!*verdict)
		return 0;
	*verdict++ = '\0';
	verdict += strspn(verdict, " ");
	s = verdict + strcspn(verdict, " ");
	if (!*s)
		return 0;
	*s++ = '\0';
	if (strcmp(verdict, "misfits") && strcmp(verdict, "fails") &&
	    strcmp(verdict, "drifts"))
		return 0;
	*text = s + strspn(s, " ");
	pbuf[0] = '\0';
	s = strstr(*text, "(p ");
	e = s ? strchr(s, ')') : NULL;
	if (e)
		snprintf(pbuf, sizeof(pbuf), "%.*s", (int)(e - s - 3), s + 3);
	*p = pbuf;
	return 1;
}

/* The drift notes of all runs, ';'-separated (one per drifting run). */
struct drift {
	struct items it;
	size_t n;
};

/*
 * The failed tests of the run in DIR/RUN/client/summary.txt into IT (a
 * stationarity failure into DR instead: it describes the machine); 1
 * when one warns: a p-value below THR, or a test without a p-value.
 */
static int run_tests(const char *dir, const char *run, const char *rep,
		     const char *pq, double thr, struct items *it, struct drift *dr)
{
	char path[4096], *line = NULL, *name, *p, *text;
	size_t cap = 0;
	int warn = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/client/summary.txt", dir, run);
	f = rfile_fopen_quiet(path);
	while (f && rfile_getline(f, &line, &cap, RFILE_LINE_MAX) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!failed_test(line, &name, &p, &text))
			continue;
		if (!strcmp(name, "stationarity")) {
			const char *wm = NULL;

			for (const char *s = strstr(text, "window medians "); s;
			     s = strstr(s + 1, "window medians "))
				wm = s + strlen("window medians ");
			items_add(&dr->it, "pair %s %s (p %s%s%s)", rep,
				  strcmp(pq, "off") ? "with" : "without", p,
				  wm ? ", " : "", wm ? wm : "");
			dr->n++;
			continue;
		}
		if (!strcmp(name, "gaps"))
			items_add(it, "gap test failed (%s)", text);
		else
			items_add(it, "%s test failed (%s)", name, text);
		/* no p-value (fixed gaps: their spread against a bound): no
		 * chance level */
		if (!p[0] || strtod(p, NULL) < thr)
			warn = 1;
	}
	free(line);
	if (f)
		fclose(f);
	return warn;
}

/*
 * A run behind schedule into IT: by the gap test alone it is chance (a
 * note); the pacing error moving a percentile is not (returns 1: warn).
 */
static int behind_item(const char *reason, struct items *it)
{
	const char *pm = strstr(reason, "; pacing moves");

	if (!strncmp(reason, "gap test:", 9) && !strstr(reason, "pacing moves")) {
		items_add(it, "behind schedule by the gap test: left out of the paired effect");
		return 0;
	}
	if (!strncmp(reason, "gap test:", 9) && pm)
		items_add(it, "behind schedule: %s: left out of the paired effect",
			  pm + 2);
	else
		items_add(it, "behind schedule: %s: left out of the paired effect",
			  reason);
	return 1;
}

/* Row R of sweep.csv: its WARNING or note line to OUT, if any */
static void judge(FILE *out, const char *dir, const struct csvtable *sw, size_t r,
		  double thr, struct drift *dr)
{
	const char *pq = csvtable_get(sw, r, csvtable_col(sw, "prequery"));
	const char *rep = csvtable_get(sw, r, csvtable_col(sw, "rep"));
	const char *st = csvtable_get(sw, r, csvtable_col(sw, "status"));
	const char *run = csvtable_get(sw, r, csvtable_col(sw, "dir"));
	struct items it = { .len = 0 };
	int warn;

	if (strcmp(st, "ok")) {
		char path[4096], text[4096], was[160];

		snprintf(path, sizeof(path), "%s/%s/client.err", dir, run);
		last_line(path, text, sizeof(text));
		snprintf(was, sizeof(was), !strcmp(st, "failed") ? "%s" :
			 !strcmp(st, "missing") ? "is %s" : "was %s", st);
		fprintf(out, "  WARNING: pair %s, %s: the run %s: ", rep, side(pq), was);
		if (text[0])
			fprintf(out, "%s\n", text);
		else
			fprintf(out, "see %s/sweep.log\n", dir);
		return;
	}
	warn = run_tests(dir, run, rep, pq, thr, &it, dr);
	if (!strcmp(csvtable_get(sw, r, csvtable_col(sw, "behind_schedule")), "1"))
		warn |= behind_item(csvtable_get(sw, r, csvtable_col(sw, "behind_reason")),
				    &it);
	if (it.len)
		fprintf(out, "  %s: pair %s, %s: %s\n", warn ? "WARNING" : "note",
			rep, side(pq), it.text);
}

/* The drift notes, each ';' made "; ", wrapped at 96 */
static void print_drift(const struct drift *dr, size_t n)
{
	char joined[sizeof(dr->it.text) * 2];
	size_t k = 0;

	printf("  note: latency drifts within %zu of the %zu runs (stationarity test, "
	       "window medians):\n", dr->n, n);
	for (const char *s = dr->it.text; *s && k + 2 < sizeof(joined); s++) {
		joined[k++] = *s;
		if (*s == ';')
			joined[k++] = ' ';
	}
	joined[k] = '\0';
	print_folded(joined, DEMO_FOLD);
}

/*
 * What the machine did to the runs, in the order they ran. N runs x 2
 * tests that warn, at DEMO_ALPHA each: by chance alone some fail; below
 * DEMO_ALPHA / (2 N) one does in fewer than DEMO_ALPHA of the demos.
 */
static void workload_tests(const char *dir)
{
	struct csvtable sw;
	struct drift dr = { .it.sep = ";" };
	char thr[32], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		opt_die(PROG, "out of memory");
	load(dir, "sweep.csv", &sw);
	snprintf(thr, sizeof(thr), "%.2g", DEMO_ALPHA / (2.0 * (double)sw.n));
	for (size_t r = 0; r < sw.n; r++)
		judge(out, dir, &sw, r, strtod(thr, NULL), &dr);
	if (fclose(out))
		opt_die(PROG, "out of memory");
	if (!len && !dr.n) {
		printf("workload tests: all %zu runs passed (send gaps fit exp, gaps independent, "
		       "latency stationary; alpha %g) and kept their schedule\n", sw.n, DEMO_ALPHA);
	} else {
		printf("workload tests of the %zu runs, alpha %g a test; the demo warns when the "
		       "gaps or their\n", sw.n, DEMO_ALPHA);
		printf("independence fail below %g / %zu = %s (by chance in under 1 %% of demos) "
		       "or the pacing\n", DEMO_ALPHA, 2 * sw.n, thr);
		printf("error moves a reported percentile outside its CI (behind schedule), and "
		       "notes the rest:\n");
		fwrite(buf, 1, len, stdout);
		/* the VM's wake cost moves over seconds (lib/core/validity.h):
		 * the machine, not the run's workload; the paired design holds
		 * the sides to the same stretch of time */
		if (dr.n)
			print_drift(&dr, sw.n);
	}
	free(buf);
	csvtable_free(&sw);
}

/* "median [lo, hi]" of metric M on PQ's side, "-" without runs */
static void ci(const struct csvtable *t, const char *m, const char *pq,
	       char *buf, size_t len)
{
	char col[64], lo[64], hi[64];

	snprintf(col, sizeof(col), "%s_median_us", m);
	if (!sel(t, pq, col)[0]) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(lo, sizeof(lo), "%s_ci_lo_us", m);
	snprintf(hi, sizeof(hi), "%s_ci_hi_us", m);
	snprintf(buf, len, "%s [%s, %s]", sel(t, pq, col), sel(t, pq, lo), sel(t, pq, hi));
}

/* Each side's latency, the median over its runs (wakebench stats) */
static void sides(const struct csvtable *sum, const char *lead)
{
	const char *pqs[2] = { "off", lead };

	printf("%-30s %28s %28s %28s\n", "latency (us): median of the runs [95 % CI]",
	       "avg", "p50", "p99");
	for (int i = 0; i < 2; i++) {
		char who[96], a[160], b[160], c[160];
		const char *n = sel(sum, pqs[i], "n");

		snprintf(who, sizeof(who), "%s, n %s", side(pqs[i]), n[0] ? n : "0");
		ci(sum, "avg", pqs[i], a, sizeof(a));
		ci(sum, "p50", pqs[i], b, sizeof(b));
		ci(sum, "p99", pqs[i], c, sizeof(c));
		printf("  %-28s %28s %28s %28s\n", who, a, b, c);
	}
}

/* Row R's within-run note on metric M (wakebench stats' own words) */
static int within_line(const struct csvtable *t, size_t r, const char *m, FILE *out)
{
	char col[64], wide[64] = "", unb[64] = "";
	const char *relv, *unbv, *nv = csvtable_get(t, r, csvtable_col(t, "n"));
	double rel;

	snprintf(col, sizeof(col), "within_ci_%s_rel", m);
	relv = csvtable_get(t, r, csvtable_col(t, col));
	snprintf(col, sizeof(col), "within_ci_%s_unbounded", m);
	unbv = csvtable_get(t, r, csvtable_col(t, col));
	/* no within-run CIs in the runs, or no runs in the medians */
	if (!unbv[0] || !nv[0] || !strcmp(nv, "0"))
		return 0;
	if (relv[0] && !csvtable_num(relv, &rel) && rel > STATS_WITHIN_WIDE)
		snprintf(wide, sizeof(wide), "wide (median +-%.0f %%)", 100 * rel);
	if (strcmp(unbv, "0"))
		snprintf(unb, sizeof(unb), "%sunbounded in %s of %s runs",
			 wide[0] ? " and " : "", unbv, nv);
	if (!wide[0] && !unb[0])
		return 0;
	fprintf(out, "  %s: %s: within-run 95 %% CIs are %s%s: more requests per run\n",
		side(csvtable_get(t, r, csvtable_col(t, "prequery"))), m, wide, unb);
	return 1;
}

/* stats' notes on the runs' own CIs: a percentile that n requests bound
 * only loosely, or not at all */
static void within(const struct csvtable *sum)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		opt_die(PROG, "out of memory");
	for (size_t r = 0; r < sum->n; r++) {
		within_line(sum, r, "p50", out);
		within_line(sum, r, "p99", out);
	}
	if (fclose(out))
		opt_die(PROG, "out of memory");
	if (len) {
		printf("within each run (wakebench stats; a run bounds its p99 at 95 %% "
		       "from 299 requests on):\n");
		fwrite(buf, 1, len, stdout);
	}
	free(buf);
}

/* "M  ratio  [lo, hi]  verdict" from the paired columns of stats' summary */
static void paired(const struct csvtable *t, const char *lead, const char *m)
{
	char c[4][64];
	const char *v, *n = sel(t, lead, "paired_n");
	const char *suffix[4] = { "", "_lo", "_hi", "" };
	const char *val[4];
	char und[64];

	for (int k = 0; k < 4; k++) {
		snprintf(c[k], sizeof(c[k]), "paired_%s_%s%s", k == 3 ? "verdict" : "speedup",
			 m, suffix[k]);
		val[k] = sel(t, lead, c[k]);
	}
	v = val[3];
	/* no verdict: the point has no row (none of its runs is ok) */
	if (!v[0] || !strcmp(v, "undecided")) {
		snprintf(und, sizeof(und), "undecided at n=%s", n[0] ? n : "0");
		v = und;
	}
	if (val[1][0])
		printf("  %-4s %9s  [%s, %s]  %s\n", m, val[0][0] ? val[0] : "-",
		       val[1], val[2], v);
	else
		printf("  %-4s %9s  [-]  %s\n", m, val[0][0] ? val[0] : "-", v);
}

/* The paired effect's three lines from a stats summary */
static void effect_of(const struct csvtable *t, const char *lead)
{
	int ci = sel(t, lead, "paired_speedup_p50_lo")[0] != '\0';

	/* a coverage only where there is an interval */
	printf("[its distribution-free 95 %% CI over the pairs%s%s] (wakebench stats):\n",
	       ci ? ", exact coverage " : "", ci ? sel(t, lead, "paired_ci_coverage") : "");
	paired(t, lead, "avg");
	paired(t, lead, "p50");
	paired(t, lead, "p99");
	if (!ci)
		printf("  ([-]: fewer than 6 pairs cannot bound a median at 95 %%)\n");
}

/*
 * The headline: the pairs whose runs kept their schedule; when some did
 * not, the effect with them counted (INCLUDED: stats --include-behind's
 * summary, NULL when it could not be made) follows.
 */
static void effect(const struct csvtable *sum, const struct demo_opts *o)
{
	const char *n = sel(sum, o->lead, "paired_n");
	const char *behind = sel(sum, o->lead, "paired_n_behind");
	long left = (long)o->pairs - strtol(n, NULL, 10) - strtol(behind, NULL, 10);
	struct csvtable all;

	if (csvtable_col(sum, "paired_n") < 0)
		opt_die(PROG, "%s has no paired columns: this wakebench stats is too old",
			sum->name);
	printf("paired effect, without / with pre-query: the median over %s pairs of the "
	       "two runs' ratio\n", n[0] ? n : "0");
	effect_of(sum, o->lead);
	/* the pairs neither kept nor left out as behind: a run of theirs failed */
	if (left)
		printf("  (%ld pairs with a failed run left out)\n", left);
	if (!behind[0] || !strcmp(behind, "0") || !o->included)
		return;
	load(o->included, NULL, &all);
	printf("%s pairs with a run behind schedule were left out; counting them too, the "
	       "median over %s pairs\n", behind, sel(&all, o->lead, "paired_n"));
	effect_of(&all, o->lead);
	csvtable_free(&all);
}

/* The point of sweep.csv whose prequery is PQ ("" when none) */
static const char *point_of(const struct csvtable *sw, const char *pq)
{
	return sel(sw, pq, "point");
}

/*
 * Which state the traced pair's requests found the server core in
 * (attribution.csv, measured requests only: those with a client latency)
 */
static void found(const char *dir, const struct csvtable *sw, const struct demo_opts *o)
{
	const char *pqs[2] = { "off", o->lead };

	for (int i = 0; i < 2; i++) {
		char path[4096], err[1024];
		struct csvtable a;
		size_t n = 0, idle = 0, unk = 0, woke = 0;
		int cs, cl, cp;

		snprintf(path, sizeof(path), "%s/%s/rep-1/trace/attribution.csv", dir,
			 point_of(sw, pqs[i]));
		if (csvtable_read(path, DEMO_CSV_MAX, &a, err, sizeof(err)))
			return;
		cs = csvtable_col(&a, "state");
		cl = csvtable_col(&a, "latency_us");
		cp = csvtable_col(&a, "prequery");
		for (size_t r = 0; r < a.n; r++) {
			const char *st = csvtable_get(&a, r, cs);

			if (!csvtable_get(&a, r, cl)[0])
				continue;
			n++;
			idle += strcmp(st, "C0") && strcmp(st, "unknown");
			unk += !strcmp(st, "unknown");
			woke += !strcmp(csvtable_get(&a, r, cp), "woke");
		}
		csvtable_free(&a);
		printf("requests that found cpu%u idle (pair 1, %s): %zu of %zu", o->server_cpu,
		       side(pqs[i]), idle, n);
		if (unk)
			printf(" (%zu found it in no known state: no idle events)", unk);
		printf("\n");
		/* The core a pre-query woke is still waking when its request
		 * lands: the pair is read together but the wake began early. */
		if (i)
			printf("requests whose pre-query woke cpu%u (pair 1): %zu of %zu\n",
			       o->server_cpu, woke, n);
	}
}

/* demo-report DIR: everything the demo prints after its runs */
int verb_demo_report(int nargs, char **args, void *opts)
{
	const struct demo_opts *o = opts;
	struct csvtable sw, sum;
	char when[32];
	time_t now = time(NULL);

	(void)nargs;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	printf("wakebench demo report: %s\n", when);
	printf("%u pairs without / with a pre-query %s us ahead (seeds %llu-%llu, one a pair; "
	       "order\n", o->pairs, o->lead, (unsigned long long)o->seed + 1,
	       (unsigned long long)o->seed + o->pairs);
	load(args[0], "sweep.csv", &sw);
	printf("alternating), %u requests a run, exp gaps of 5 ms, %s, server CPU "
	       "%u, client CPU %u\n", o->requests, service_words(&sw),
	       o->server_cpu, o->client_cpu);
	workload_tests(args[0]);
	load(args[0], "summary.csv", &sum);
	sides(&sum, o->lead);
	within(&sum);
	effect(&sum, o);
	found(args[0], &sw, o);
	csvtable_free(&sw);
	csvtable_free(&sum);
	return fflush(stdout) ? 1 : 0;
}

/* demo-behind DIR: the pairs left out as behind schedule (0 for none) */
int verb_demo_behind(int nargs, char **args, void *opts)
{
	const struct demo_opts *o = opts;
	struct csvtable sum;
	const char *b;

	(void)nargs;
	load(args[0], "summary.csv", &sum);
	b = sel(&sum, o->lead, "paired_n_behind");
	printf("%s\n", b[0] ? b : "0");
	csvtable_free(&sum);
	return 0;
}

/* demo-point DIR PREQUERY: the point of that side (its directory) */
int verb_demo_point(int nargs, char **args, void *opts)
{
	struct csvtable sw;

	(void)nargs;
	(void)opts;
	load(args[0], "sweep.csv", &sw);
	printf("%s\n", point_of(&sw, args[1]));
	csvtable_free(&sw);
	return 0;
}
