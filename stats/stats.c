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
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clishared.h"
#include "csv.h"
#include "die.h"
#include "pareto.h"
#include "stats.h"
#include "sweepcsv.h"
#include "sweepmerge.h"
#include "rfile.h"

#define PROG "wakebench-stats"

#define NPARAMS SWEEPCSV_NPARAMS
#define NMETRICS SWEEPCSV_NMETRICS
#define NLEGACY_PARAMS SWEEPCSV_NLEGACY_PARAMS
#define NLEGACY_METRICS SWEEPCSV_NREQUIRED_METRICS
#define M_AVG 0
#define M_P50 1
#define M_P99 2
/* the plane's cost (issue 35): CPU time per request */
#define M_COST_CPU SWEEPCSV_NCOST_FROM
/* the paired effect of avg, p50 and p99 (metrics 0 to 2) */
#define NPAIRED 3
/* the within-run CIs looked at: p50 and p99 */
#define NWITHIN 2
static const int within_metric[NWITHIN] = { M_P50, M_P99 };

struct point {
	char name[512];
	char param[NPARAMS][64];
	double *val[NMETRICS];
	size_t n, cap;		/* runs in the medians */
	size_t n_behind;	/* ok runs that fell behind (in or out) */
	struct stats_summary s[NMETRICS];
	size_t nm[NMETRICS];	/* values behind s[m] (p95, p9999 may lack) */
	double max_p99;		/* the thesis' highest p99 across reps */
	size_t *run, nrun, rcap;	/* its ok runs: indices in sweep.csv */
	/* the paired effect against its baseline (issue 31) */
	int paired;		/* it has a baseline */
	size_t npairs, pairs_behind, pairs_unmatched;
	struct stats_paired pe[NPAIRED];
	/* the within-run CIs of p50 and p99 (issue 31) */
	double within_rel[NWITHIN];
	size_t within_unb[NWITHIN];
	/* the latency-cost plane (issue 35): the paired ratio of its CPU
	 * cost per request to the baseline's (this / baseline), and
	 * whether it is on the front over (cost, p50) and (cost, p99) */
	struct stats_paired cost_pe;
	enum pareto_mark front[NWITHIN];
};

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

static void add_run(struct point *p, size_t i)
{
	if (p->nrun == p->rcap) {
		size_t ncap = p->rcap ? 2 * p->rcap : 8;
		size_t *nr = realloc(p->run, ncap * sizeof(*nr));

		if (!nr)
			opt_die(PROG, "out of memory");
		p->run = nr;
		p->rcap = ncap;
	}
	p->run[p->nrun++] = i;
}

/*
 * The baseline of P: KEY=VALUE (a parameter index and value) given by
 * --baseline, else prequery=off with two tiers and delay=off with three.
 */
struct baseline {
	int key;	/* -1: the default */
	const char *value;
};

static int param_idx(const char *name)
{
	for (int k = 0; k < NPARAMS; k++)
		if (!strcmp(sweepcsv_params[k], name))
			return k;
	return -1;
}

static void baseline_of(const struct baseline *bl, const struct point *p,
			int *key, const char **value)
{
	if (bl->key >= 0) {
		*key = bl->key;
		*value = bl->value;
	} else {
		*key = !strcmp(p->param[param_idx("tiers")], "3") ?
		       param_idx("delay") : SWEEPCSV_PREQUERY;
		*value = "off";
	}
}

/*
 * The point that differs from P only in the baseline key, which has the
 * baseline value there; a parameter that is empty in either (it does not
 * apply there: a pre-query's timing without a pre-query, the helper's
 * wait without a delay) matches anything. NULL when P is a baseline
 * itself or has none. IN_MEDIANS: both need runs in the medians (the
 * speedups); else any ok run (the pairing counts what it leaves out).
 */
static const struct point *base_runs_of(const struct point *pts, size_t n,
					const struct point *p,
					const struct baseline *bl, int in_medians)
{
	const char *value;
	int key;

	baseline_of(bl, p, &key, &value);
	if (!strcmp(p->param[key], value) || (in_medians && !p->n))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (strcmp(pts[i].param[key], value) ||
		    (in_medians ? !pts[i].n : !pts[i].nrun))
			continue;
		for (k = 0; k < NPARAMS; k++)
			if ((int)k != key && pts[i].param[k][0] && p->param[k][0] &&
			    strcmp(pts[i].param[k], p->param[k]))
				break;
		if (k == NPARAMS)
			return &pts[i];
	}
	return NULL;
}

/* The baseline of the medians' speedups: both have runs in the medians. */
static const struct point *base_of(const struct point *pts, size_t n,
				   const struct point *p, const struct baseline *bl)
{
	return base_runs_of(pts, n, p, bl, 1);
}

/*
 * P's paired effect against its baseline B (issue 31): their ok runs
 * paired by rep (the sweep gives both the seed seed + rep), a pair with a
 * run behind schedule left out unless INCL, and per metric the median of
 * the ratios B / P with its distribution-free 95 % CI.
 */
static void paired_of(const struct sweepcsv *csv, struct point *p,
		      const struct point *b, int incl)
{
	size_t nmax = p->nrun > b->nrun ? p->nrun : b->nrun;
	const char **prep = malloc((nmax ? nmax : 1) * sizeof(*prep));
	const char **brep = malloc((nmax ? nmax : 1) * sizeof(*brep));
	int *pbh = malloc((nmax ? nmax : 1) * sizeof(*pbh));
	int *bbh = malloc((nmax ? nmax : 1) * sizeof(*bbh));
	double *bv = malloc((nmax ? nmax : 1) * sizeof(*bv));
	double *pv = malloc((nmax ? nmax : 1) * sizeof(*pv));
	struct stats_pairs pr;

	if (!prep || !brep || !pbh || !bbh || !bv || !pv)
		opt_die(PROG, "out of memory");
	for (size_t i = 0; i < p->nrun; i++) {
		prep[i] = csv->run[p->run[i]].rep;
		pbh[i] = csv->run[p->run[i]].behind;
	}
	for (size_t j = 0; j < b->nrun; j++) {
		brep[j] = csv->run[b->run[j]].rep;
		bbh[j] = csv->run[b->run[j]].behind;
	}
	if (stats_pair_reps(prep, pbh, p->nrun, brep, bbh, b->nrun, incl, &pr))
		opt_die(PROG, "out of memory");
	p->paired = 1;
	p->npairs = pr.n;
	p->pairs_behind = pr.n_behind;
	p->pairs_unmatched = pr.n_unmatched;
	for (int m = 0; m < NPAIRED; m++) {
		for (size_t k = 0; k < pr.n; k++) {
			bv[k] = csv->run[b->run[pr.b[k]]].val[m];
			pv[k] = csv->run[p->run[pr.a[k]]].val[m];
		}
		if (stats_paired(bv, pv, pr.n, &p->pe[m]))
			opt_die(PROG, "out of memory");
	}
	/* the cost the other way round: this / baseline (above 1: dearer);
	 * pairs without a CPU time are left out (n_bad) */
	for (size_t k = 0; k < pr.n; k++) {
		bv[k] = csv->run[b->run[pr.b[k]]].val[M_COST_CPU];
		pv[k] = csv->run[p->run[pr.a[k]]].val[M_COST_CPU];
	}
	if (stats_paired(pv, bv, pr.n, &p->cost_pe))
		opt_die(PROG, "out of memory");
	stats_pairs_free(&pr);
	free(prep);
	free(brep);
	free(pbh);
	free(bbh);
	free(bv);
	free(pv);
}

/* P's within-run CIs of p50 and p99 over the runs in its medians */
static void within_of(const struct sweepcsv *csv, struct point *p, int incl)
{
	double *v = malloc((p->nrun ? p->nrun : 1) * 3 * sizeof(*v));

	if (!v)
		opt_die(PROG, "out of memory");
	for (int w = 0; w < NWITHIN; w++) {
		int m = within_metric[w];
		size_t k = 0;

		for (size_t i = 0; i < p->nrun; i++) {
			const struct sweepcsv_run *r = &csv->run[p->run[i]];

			if (r->behind > 0 && !incl)
				continue;
			v[k] = r->val[m];
			v[p->nrun + k] = r->lo[m];
			v[2 * p->nrun + k] = r->hi[m];
			k++;
		}
		if (stats_within_rel(v, v + p->nrun, v + 2 * p->nrun, k,
				     &p->within_rel[w], &p->within_unb[w]))
			opt_die(PROG, "out of memory");
	}
	free(v);
}

struct stats_opts {
	int include_behind;
	struct baseline bl;
	const char *out;	/* summary: instead of DIR/summary.csv */
	const char *merge;	/* --merge OUTDIR AGENTDIR... */
	int rule;		/* its --percentile-rule */
	double confirm_pct;	/* the repetitions' target: +-R % (0: 1) */
};

static const char *const rule_names[] = { "nearest-rank", "floor-index", NULL };

#define AT(field) CLI_AT(struct stats_opts, field)

/* --baseline KEY=VALUE: KEY a parameter column, VALUE a plain word */
static int parse_baseline(const char *arg, void *dest)
{
	struct baseline *bl = dest;
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;

	if (!eq || !eq[1] || strlen(eq + 1) >= 64 ||
	    strspn(eq + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789._-=+") != strlen(eq + 1))
		return 1;
	for (int k = 0; k < NPARAMS; k++)
		if (strlen(sweepcsv_params[k]) == n &&
		    !strncmp(sweepcsv_params[k], arg, n)) {
			bl->key = k;
			bl->value = eq + 1;
			return 0;
		}
	return 1;
}

static const struct cli_opt stats_options[] = {
	{ .name = "include-behind", .kind = CLI_FLAG,
	  .help = "count them in the medians anyway",
	  .off = AT(include_behind) },
	{ .name = "out", .kind = CLI_STRING, .arg = "FILE",
	  .help = "write the summary there instead of DIR/summary.csv",
	  .off = AT(out) },
	{ .name = "baseline", .kind = CLI_CUSTOM, .arg = "KEY=VALUE",
	  .parse = parse_baseline,
	  .hint = "a sweep.csv parameter column, '=', a value",
	  .help = "speedups against the point with KEY=VALUE and\n"
		  "the same other parameters (default: prequery=off,\n"
		  "with three tiers delay=off)",
	  .off = AT(bl) },
	{ .name = "confirm-pct", .kind = CLI_REAL, .store = CLI_DOUBLE,
	  .arg = "R", .min = 0.01, .max = 100, .hint = CLI_RANGE,
	  .help = "the reps columns: repetitions needed for +-R %\n"
		  "of the median (default 1)",
	  .off = AT(confirm_pct) },
	{ .name = "merge", .kind = CLI_STRING, .arg = "OUTDIR AGENTDIR...",
	  .help = "one run from its client agents' runs (wakebench\n"
		  "sweep --client-exec, given more than once): OUTDIR\n"
		  "gets summary.csv, summary.txt, summary.json, agents.csv\n"
		  "and requests.csv with exact percentiles from every\n"
		  "agent's requests.csv, counts and rates summed",
	  .off = AT(merge) },
	{ .name = "percentile-rule", .kind = CLI_ENUM, .names = rule_names,
	  .help = "--merge: the agents' client rule (default\n"
		  "nearest-rank)",
	  .off = AT(rule) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

static const struct cli_cmd stats_cmd = {
	.prog = PROG,
	.usage =
"Usage: wakebench stats [--include-behind] [--baseline KEY=VALUE] [--out FILE] DIR\n"
"       wakebench stats --merge OUTDIR AGENTDIR... [--percentile-rule R]",
	.about =
"Reads DIR/sweep.csv (wakebench sweep) and writes DIR/summary.csv (or FILE):\n"
"per point the median of avg/p50/p99/p99.9 latency across repetitions with\n"
"its non-parametric CI from order statistics and that interval's exact\n"
"coverage (ci_coverage: 95 % or more from n = 6; with n < 6 the interval\n"
"is the min-max range, 93.8 % for n = 5), mean, standard deviation,\n"
"repetitions needed for +-1 % or --confirm-pct's R (parametric, and\n"
"CONFIRM: random subsets without replacement; \">n\" when no subset size\n"
"up to n gets there), and\n"
"the speedup against the same point with prequery=off (delay=off with\n"
"three tiers; any KEY=VALUE with --baseline), with ci_overlap_* = 1 when\n"
"the two CIs overlap (not significant). The thesis' columns follow:\n"
"p95 and p99.99 like the others, avg_of_avgs_us (the mean of the runs'\n"
"averages), avg_p99_us (the mean of their p99s) and max_p99_us (the\n"
"highest p99 of any repetition). Last, where the runs measured RAPL energy:\n"
"energy_per_request_*_uj and power_*_w the same way, with\n"
"speedup_energy_per_request = the baseline's / this (below 1: the\n"
"pre-query costs energy); empty where no run had them.\n"
"Then the costs per request (cost_cpu_per_req, c0, idle entries, messages,\n"
"bytes) the same way, and the latency-cost plane: cost_ratio_cpu [_lo, _hi]\n"
"= the paired median of this point's CPU us per request / its baseline's\n"
"with its CI (above 1: dearer), cost_extra_cpu_us = the difference of the\n"
"medians, and pareto_p50/pareto_p99 = yes where no other point has both a\n"
"CPU cost no higher and a p50 (p99) median no higher, one of them lower;\n"
"empty for a point without a CPU time (left out, and said so).\n"
"\n"
"Runs that fell behind their schedule are listed, counted per point\n"
"(n_behind) and left out of the medians. The verdict is the client's\n"
"behind_schedule: the gap test of the sends failed at alpha 0.01, or a\n"
"latency percentile measured from the actual send lies outside the\n"
"reported percentile's 95 % CI. Rows without that column (older\n"
"summaries) get the legacy rule on late_sends, requests, pace_p99_us\n"
"and interval_us: more than 1 % of sends late, or pacing p99 above 10 %\n"
"of the mean gap.\n"
"\n"
"The points, in summary.csv and in the table printed (full names), are\n"
"sorted by their parameters in the sweep's dimension order (dist,\n"
"interval_us, prequery, ...): off first, numbers by value, then words.\n",
	.footer =
"A latency that is not a non-negative decimal number in a run whose status\n"
"is ok stops it with FILE:LINE and exit status 1.\n",
	.col = 24,
	/* each mode checks its own positional arguments */
	.max_args = INT_MAX,
	.opts = stats_options,
};

/*
 * The closing table's and summary.csv's order: by the point's parameters
 * in the dimensions' order (dist, interval_us, prequery, ...), each value
 * as lib/sweepcsv orders them (off first, numbers by value), not in the
 * shuffled order the runs were made in.
 */
static int by_params(const void *a, const void *b, void *arg)
{
	const size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct point *pts = arg, *x = &pts[i], *y = &pts[j];

	for (int k = 0; k < NPARAMS; k++) {
		int c = sweepcsv_value_cmp(x->param[k], y->param[k]);

		if (c)
			return c;
	}
	return (i > j) - (i < j);	/* the file's order */
}

/* --merge OUTDIR AGENTDIR...: one run from its client agents' runs */
static int merge(const char *outdir, int rule, int n, char **dirs)
{
	struct sweepmerge_opts mo = { .rule = (enum hist_rule)rule };
	char err[1024];
	int ret;

	if (n < 1)
		opt_usage(PROG, "--merge needs OUTDIR and an AGENTDIR");
	ret = sweepmerge_dirs(outdir, (const char *const *)dirs, (size_t)n, &mo,
			      err, sizeof(err));
	if (ret)
		opt_die(PROG, "--merge: %s", err);
	return 0;
}

/* ",<m>_median_us,...,<m>_reps_confirm" for metrics FROM..TO, then
 * their speedup_ and ci_overlap_ columns */
static size_t metric_header(char *h, size_t cap, size_t len, int from, int to)
{
	for (int m = from; m < to; m++) {
		const char *x = sweepcsv_metrics[m], *u = sweepcsv_metric_units[m];

		len += (size_t)snprintf(h + len, cap - len,
			",%s_median_%s,%s_ci_lo_%s,%s_ci_hi_%s,%s_mean_%s,%s_sd_%s,"
			"%s_reps_param,%s_reps_confirm", x, u, x, u, x, u, x, u, x, u,
			x, x);
	}
	for (int m = from; m < to; m++)
		len += (size_t)snprintf(h + len, cap - len, ",speedup_%s",
					sweepcsv_metrics[m]);
	for (int m = from; m < to; m++)
		len += (size_t)snprintf(h + len, cap - len, ",ci_overlap_%s",
					sweepcsv_metrics[m]);
	return len;
}

static void metric_cols(struct csv *out, const struct point *p,
			const struct point *b, int from, int to)
{
	char reps[24];

	for (int m = from; m < to; m++) {
		const struct stats_summary *s = &p->s[m];

		if (!p->nm[m]) {
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
	for (int m = from; m < to; m++)
		csv_double(out, b && p->nm[m] && b->nm[m] && p->s[m].median > 0 ?
			   b->s[m].median / p->s[m].median : NAN, 4);
	for (int m = from; m < to; m++) {
		if (b && p->nm[m] && b->nm[m])
			csv_u64(out, (uint64_t)stats_overlap(
				p->s[m].ci_lo, p->s[m].ci_hi,
				b->s[m].ci_lo, b->s[m].ci_hi));
		else
			csv_empty(out);
	}
}

/* summary.csv's columns of issue 31, appended after the energy's */
static size_t paired_header(char *h, size_t cap, size_t len)
{
	len += (size_t)snprintf(h + len, cap - len, ",paired_n");
	for (int m = 0; m < NPAIRED; m++) {
		const char *x = sweepcsv_metrics[m];

		len += (size_t)snprintf(h + len, cap - len,
			",paired_speedup_%s,paired_speedup_%s_lo,paired_speedup_%s_hi,"
			"paired_verdict_%s", x, x, x, x);
	}
	len += (size_t)snprintf(h + len, cap - len,
				",paired_ci_coverage,paired_n_behind,paired_n_unmatched");
	for (int w = 0; w < NWITHIN; w++) {
		const char *x = sweepcsv_metrics[within_metric[w]];

		len += (size_t)snprintf(h + len, cap - len,
			",within_ci_%s_rel,within_ci_%s_unbounded", x, x);
	}
	return len;
}

static void paired_cols(struct csv *out, const struct point *p,
			const struct sweepcsv *csv)
{
	if (!p->paired) {
		for (int k = 0; k < 1 + 4 * NPAIRED + 3; k++)
			csv_empty(out);
	} else {
		csv_u64(out, p->npairs);
		for (int m = 0; m < NPAIRED; m++) {
			const struct stats_paired *e = &p->pe[m];

			csv_double(out, e->median, 4);
			csv_double(out, e->lo, 4);
			csv_double(out, e->hi, 4);
			csv_str(out, stats_verdict_name(e->verdict));
		}
		csv_double(out, p->npairs ? p->pe[M_P50].coverage : NAN, 4);
		csv_u64(out, p->pairs_behind);
		csv_u64(out, p->pairs_unmatched);
	}
	for (int w = 0; w < NWITHIN; w++) {
		if (!csv->has_ci[within_metric[w]]) {
			csv_empty(out);
			csv_empty(out);
			continue;
		}
		csv_double(out, p->within_rel[w], 4);
		csv_u64(out, p->within_unb[w]);
	}
}

/* The printed paired section: a line per point with a baseline */
static void print_paired(const struct point *pts, const size_t *ord, size_t npts,
			 int namew)
{
	int any = 0, w[NPAIRED] = { 3, 3, 3 };	/* the cells' widths */
	char c[NPAIRED][64];

	for (size_t i = 0; i < npts; i++) {
		any |= pts[i].paired;
		for (int m = 0; m < NPAIRED && pts[i].paired; m++) {
			stats_paired_str(&pts[i].pe[m], c[m], sizeof(c[m]));
			if ((int)strlen(c[m]) > w[m])
				w[m] = (int)strlen(c[m]);
		}
	}
	if (!any)
		return;
	printf("\npaired effect: baseline / point of the runs with the same rep (the same "
	       "seed): the median ratio [its distribution-free CI over the pairs, coverage "
	       "at least 95 %%]\n");
	printf("%-*s %5s %6s  %-*s  %-*s  %s\n", namew, "point", "pairs", "cover",
	       w[0], "avg", w[1], "p50", "p99");
	for (size_t i = 0; i < npts; i++) {
		const struct point *p = &pts[ord[i]];
		char cov[16] = "-", out[96] = "";

		if (!p->paired)
			continue;
		for (int m = 0; m < NPAIRED; m++)
			stats_paired_str(&p->pe[m], c[m], sizeof(c[m]));
		if (p->pe[M_P50].rank_lo)
			snprintf(cov, sizeof(cov), "%.1f%%", 100 * p->pe[M_P50].coverage);
		if (p->pairs_behind || p->pairs_unmatched)
			snprintf(out, sizeof(out), "  (left out: %zu behind, %zu unmatched)",
				 p->pairs_behind, p->pairs_unmatched);
		printf("%-*s %5zu %6s  %-*s  %-*s  %s%s\n", namew, p->name, p->npairs, cov,
		       w[0], c[0], w[1], c[1], c[2], out);
	}
	printf("pairs: reps with an ok run at both points (a pair with a run behind "
	       "schedule is left out unless --include-behind; a rep whose run at either "
	       "point failed is unmatched); cover: the CI's exact coverage; faster/slower: "
	       "the CI lies above/below 1; undecided: it holds 1, or [-]: fewer than 6 pairs "
	       "cannot bound a median at 95 %%\n");
}

/* One line per point and percentile whose within-run CIs are wide */
static void print_within(const struct point *pts, const size_t *ord, size_t npts,
			 const struct sweepcsv *csv)
{
	for (size_t i = 0; i < npts; i++) {
		const struct point *p = &pts[ord[i]];

		for (int w = 0; w < NWITHIN; w++) {
			int m = within_metric[w];
			int wide = p->within_rel[w] > STATS_WITHIN_WIDE;
			char a[64] = "", b[64] = "";

			if (!csv->has_ci[m] || !p->n || (!wide && !p->within_unb[w]))
				continue;
			if (wide)
				snprintf(a, sizeof(a), "wide (median +-%.0f %%)",
					 100 * p->within_rel[w]);
			if (p->within_unb[w])
				snprintf(b, sizeof(b), "%sunbounded in %zu of %zu runs",
					 wide ? " and " : "", p->within_unb[w], p->n);
			printf("%s: %s: within-run 95 %% CIs are %s%s: more requests per run\n",
			       p->name, sweepcsv_metrics[m], a, b);
		}
	}
}

/*
 * The printed plane: per point its CPU cost per request [CI], the paired
 * cost ratio to its baseline [CI], the p50 and p99 medians and whether
 * it is on either front; nothing when no point has a CPU cost.
 */
static void print_plane(const struct point *pts, const size_t *ord, size_t npts,
			int namew, size_t nout)
{
	size_t any = 0;

	for (size_t i = 0; i < npts; i++)
		any += pts[i].nm[M_COST_CPU] > 0;
	if (!any)
		return;
	printf("\nlatency-cost plane: server-side CPU us per request (median [CI]), "
	       "its paired ratio to the baseline's (this / baseline [CI]), p50 and p99 "
	       "medians; front: no other point costs no more and is no slower\n");
	printf("%-*s %24s %24s %9s %9s %s\n", namew, "point", "cpu_us/req [CI]",
	       "ratio [CI]", "p50_med", "p99_med", "front");
	for (size_t i = 0; i < npts; i++) {
		const struct point *p = &pts[ord[i]];
		const struct stats_summary *c = &p->s[M_COST_CPU];
		char cc[48] = "-", cr[48] = "-", fr[16];

		if (!p->n)
			continue;
		if (p->nm[M_COST_CPU])
			snprintf(cc, sizeof(cc), "%.1f [%.1f, %.1f]", c->median,
				 c->ci_lo, c->ci_hi);
		if (p->paired && p->cost_pe.n)
			snprintf(cr, sizeof(cr), isnan(p->cost_pe.lo) ? "%.3f [-]" :
				 "%.3f [%.3f, %.3f]", p->cost_pe.median, p->cost_pe.lo,
				 p->cost_pe.hi);
		snprintf(fr, sizeof(fr), "%s%s%s", p->front[0] == PARETO_FRONT ? "p50" : "",
			 p->front[0] == PARETO_FRONT && p->front[1] == PARETO_FRONT ? " " : "",
			 p->front[1] == PARETO_FRONT ? "p99" : "");
		if (!fr[0])
			snprintf(fr, sizeof(fr), "-");
		printf("%-*s %24s %24s %9.1f %9.1f %s\n", namew, p->name, cc, cr,
		       p->s[M_P50].median, p->s[M_P99].median, fr);
	}
	if (nout)
		printf("%zu point%s without runs in the medians or a CPU time (no "
		       "cost_cpu_us_per_req) left out of the front\n", nout,
		       nout == 1 ? "" : "s");
}

/* A sweep's points, read from its sweep.csv and summarized. */
struct sweep_sum {
	struct sweepcsv csv;
	struct point *pts;	/* in the file's order */
	size_t npts, cap;
	size_t rows, behind, unchecked;	/* ok runs; behind; not checked */
	size_t *ord;		/* the output's order */
	int namew;		/* the point column's width */
	size_t plane_out;	/* points left out of the plane's front */
};

/* The command line into O; the index of the first positional argument. */
static int parse_args(int argc, char **argv, struct stats_opts *o)
{
	int first = cli_parse(&stats_cmd, argc, argv, o);

	if (o->merge && (o->out || o->include_behind || o->bl.key >= 0))
		opt_usage(PROG, "--out, --include-behind and --baseline are for the "
			  "summary, not --merge");
	if (!(o->confirm_pct > 0))
		o->confirm_pct = 1;
	if (o->rule && !o->merge)
		opt_usage(PROG, "--percentile-rule is for --merge");
	if (!o->merge && first + 1 != argc)
		opt_usage(PROG, "give one sweep DIR");
	return first;
}

/* DIR/sweep.csv into W: its runs by point, those behind named */
static void read_points(const char *dir, int incl, struct sweep_sum *w)
{
	char spath[4096], err[512];
	FILE *f;
	int ret;

	snprintf(spath, sizeof(spath), "%s/sweep.csv", dir);
	f = rfile_fopen_quiet(spath);
	if (!f)
		opt_die(PROG, "cannot read %s: %s", spath, rfile_strerror(errno));
	ret = sweepcsv_read(f, spath, &w->csv, err, sizeof(err));
	fclose(f);
	if (ret)
		opt_die(PROG, "%s", err);
	for (size_t i = 0; i < w->csv.n; i++) {
		const struct sweepcsv_run *r = &w->csv.run[i];
		struct point *p = find_point(&w->pts, &w->npts, &w->cap, r->point);

		for (size_t k = 0; k < NPARAMS; k++)
			snprintf(p->param[k], sizeof(p->param[k]), "%s", r->param[k]);
		if (r->behind < 0)
			w->unchecked++;
		if (r->behind > 0) {
			w->behind++;
			p->n_behind++;
			printf("behind schedule%s: %s rep %s: %s\n",
			       incl ? " (included)" : "", r->point, r->rep, r->why);
		}
		if (r->behind <= 0 || incl)
			add_vals(p, r->val);
		add_run(p, i);
		w->rows++;
	}
	if (!w->rows)
		opt_die(PROG, "no successful runs in %s", spath);
}

/* Point I's medians, CIs and repetitions, metric by metric */
static void summarize_point(struct point *p, size_t i, double confirm_pct)
{
	double *v = p->n ? malloc(p->n * sizeof(*v)) : NULL;

	if (p->n && !v)
		opt_die(PROG, "out of memory");
	p->max_p99 = NAN;
	for (int m = 0; m < NMETRICS && p->n; m++) {
		/* p95 and p9999 are missing from older clients' runs */
		size_t k = 0;

		for (size_t j = 0; j < p->n; j++)
			if (isfinite(p->val[m][j]))
				v[k++] = p->val[m][j];
		p->nm[m] = k;
		if (k && stats_summarize(v, k, confirm_pct, i + 1, &p->s[m]))
			opt_die(PROG, "out of memory");
		for (size_t j = 0; m == M_P99 && j < k; j++)
			if (!(v[j] <= p->max_p99))
				p->max_p99 = v[j];
	}
	free(v);
}

/*
 * The latency-cost plane's front over every point's medians: (CPU cost
 * per request, p50) and (cost, p99). A point without runs in the medians
 * or without a CPU time is left out (*NOUT counts them).
 */
static void pareto_of(struct point *pts, size_t n, size_t *nout)
{
	double *cost = malloc((n ? n : 1) * 2 * sizeof(*cost)), *lat = cost + n;
	enum pareto_mark *mark = malloc((n ? n : 1) * sizeof(*mark));

	if (!cost || !mark)
		opt_die(PROG, "out of memory");
	for (int w = 0; w < NWITHIN; w++) {
		int m = within_metric[w];

		for (size_t i = 0; i < n; i++) {
			cost[i] = pts[i].nm[M_COST_CPU] ? pts[i].s[M_COST_CPU].median : NAN;
			lat[i] = pts[i].nm[m] ? pts[i].s[m].median : NAN;
		}
		if (pareto_front(cost, lat, n, mark, nout) < 0)
			opt_die(PROG, "pareto: bad arguments");
		for (size_t i = 0; i < n; i++)
			pts[i].front[w] = mark[i];
	}
	free(cost);
	free(mark);
}

/*
 * Every point summarized, paired with its baseline, its within-run CIs
 * looked at, and the output's order: pts itself stays in the file's
 * (CONFIRM's seeds, the first baseline found).
 */
static void summarize(struct sweep_sum *w, const struct stats_opts *o)
{
	for (size_t i = 0; i < w->npts; i++)
		summarize_point(&w->pts[i], i, o->confirm_pct);
	for (size_t i = 0; i < w->npts; i++) {
		const struct point *b = base_runs_of(w->pts, w->npts, &w->pts[i],
						     &o->bl, 0);

		if (b)
			paired_of(&w->csv, &w->pts[i], b, o->include_behind);
		within_of(&w->csv, &w->pts[i], o->include_behind);
	}
	pareto_of(w->pts, w->npts, &w->plane_out);
	w->ord = malloc((w->npts ? w->npts : 1) * sizeof(*w->ord));
	if (!w->ord)
		opt_die(PROG, "out of memory");
	w->namew = 5;	/* "point" */
	for (size_t i = 0; i < w->npts; i++) {
		w->ord[i] = i;
		if (strlen(w->pts[i].name) > (size_t)w->namew)
			w->namew = (int)strlen(w->pts[i].name);
	}
	qsort_r(w->ord, w->npts, sizeof(*w->ord), by_params, w->pts);
}

/* summary.csv's header line */
static void summary_header(struct csv *out)
{
	char h[8192];
	size_t len = (size_t)snprintf(h, sizeof(h), "point");

	/* the first version's columns, then what three tiers added */
	for (size_t k = 0; k < NLEGACY_PARAMS; k++)
		len += (size_t)snprintf(h + len, sizeof(h) - len, ",%s", sweepcsv_params[k]);
	len += (size_t)snprintf(h + len, sizeof(h) - len, ",n");
	len = metric_header(h, sizeof(h), len, 0, NLEGACY_METRICS);
	len += (size_t)snprintf(h + len, sizeof(h) - len,
		 ",ci_exact,ci_coverage,n_behind,behind_included,ci_label");
	for (size_t k = NLEGACY_PARAMS; k < SWEEPCSV_ADDED_FROM; k++)
		len += (size_t)snprintf(h + len, sizeof(h) - len, ",%s", sweepcsv_params[k]);
	len = metric_header(h, sizeof(h), len, NLEGACY_METRICS,
			    SWEEPCSV_NLAT_METRICS);
	len += (size_t)snprintf(h + len, sizeof(h) - len,
		 ",avg_of_avgs_us,avg_p99_us,max_p99_us,baseline");
	/* energy: speedup_* = the baseline's / this (above 1: less) */
	len = metric_header(h, sizeof(h), len, SWEEPCSV_NLAT_METRICS,
			    SWEEPCSV_NCOST_FROM);
	/* issue 31: the paired effect, the within-run CIs */
	len = paired_header(h, sizeof(h), len);
	/* issue 35: the costs per request; speedup_* = the baseline's / this */
	len = metric_header(h, sizeof(h), len, SWEEPCSV_NCOST_FROM, NMETRICS);
	/* issue 35: the latency-cost plane */
	len += (size_t)snprintf(h + len, sizeof(h) - len,
		 ",cost_ratio_cpu,cost_ratio_cpu_lo,cost_ratio_cpu_hi,"
		 "cost_extra_cpu_us,pareto_p50,pareto_p99");
	/* the dimensions of SWEEPDIM_ADDED, last: columns are only appended
	 * (lib/sweep/sweepdim.h); a later column goes after them */
	for (size_t k = SWEEPCSV_ADDED_FROM; k < NPARAMS; k++)
		len += (size_t)snprintf(h + len, sizeof(h) - len, ",%s", sweepcsv_params[k]);
	csv_header(out, h);
}

/*
 * The plane's columns: the paired CPU cost ratio this / baseline with its
 * CI (empty without a baseline or a pair with both CPU times), the
 * difference of the two medians in us, and the front marks.
 */
static void plane_cols(struct csv *out, const struct point *p,
		       const struct point *b)
{
	if (p->paired && p->cost_pe.n) {
		csv_double(out, p->cost_pe.median, 4);
		csv_double(out, p->cost_pe.lo, 4);
		csv_double(out, p->cost_pe.hi, 4);
	} else {
		csv_empty(out);
		csv_empty(out);
		csv_empty(out);
	}
	csv_double(out, b && p->nm[M_COST_CPU] && b->nm[M_COST_CPU] ?
		   p->s[M_COST_CPU].median - b->s[M_COST_CPU].median : NAN, 3);
	for (int w = 0; w < NWITHIN; w++)
		csv_str(out, pareto_mark_name(p->front[w]));
}

/* P's row of summary.csv; B its baseline or NULL */
static void summary_row(struct csv *out, const struct sweep_sum *w,
			const struct point *p, const struct point *b,
			const struct stats_opts *o)
{
	csv_str(out, p->name);
	for (size_t k = 0; k < NLEGACY_PARAMS; k++)
		csv_str(out, p->param[k]);
	csv_u64(out, p->n);
	metric_cols(out, p, b, 0, NLEGACY_METRICS);
	if (p->n) {
		csv_u64(out, (uint64_t)p->s[0].ci_exact);
		csv_double(out, p->s[0].ci_coverage, 4);
	} else {
		csv_empty(out);
		csv_empty(out);
	}
	csv_u64(out, p->n_behind);
	csv_u64(out, (uint64_t)o->include_behind);
	if (p->n) {
		char lab[64];

		stats_ci_label(&p->s[0], lab, sizeof(lab));
		csv_str(out, lab);
	} else {
		csv_empty(out);
	}
	for (size_t k = NLEGACY_PARAMS; k < SWEEPCSV_ADDED_FROM; k++)
		csv_str(out, p->param[k]);
	metric_cols(out, p, b, NLEGACY_METRICS, SWEEPCSV_NLAT_METRICS);
	/* the thesis' columns: mean of the runs' averages and p99s, and the
	 * highest p99 */
	csv_double(out, p->nm[M_AVG] ? p->s[M_AVG].mean : NAN, 3);
	csv_double(out, p->nm[M_P99] ? p->s[M_P99].mean : NAN, 3);
	csv_double(out, p->max_p99, 3);
	if (b) {
		const char *value;
		char bk[128];
		int key;

		baseline_of(&o->bl, p, &key, &value);
		snprintf(bk, sizeof(bk), "%s=%s", sweepcsv_params[key], value);
		csv_str(out, bk);
	} else {
		csv_empty(out);
	}
	metric_cols(out, p, b, SWEEPCSV_NLAT_METRICS, SWEEPCSV_NCOST_FROM);
	paired_cols(out, p, &w->csv);
	metric_cols(out, p, b, SWEEPCSV_NCOST_FROM, NMETRICS);
	plane_cols(out, p, b);
	for (size_t k = SWEEPCSV_ADDED_FROM; k < NPARAMS; k++)
		csv_str(out, p->param[k]);
	csv_end_row(out);
}

/* P's line of the printed table; B its baseline or NULL */
static void print_row(const struct sweep_sum *w, const struct point *p,
		      const struct point *b, int incl)
{
	char reps[24], nb[16], ci[48], cov[16], sp[16] = "-";

	snprintf(nb, sizeof(nb), "%zu%s", p->n_behind,
		 p->n_behind ? (incl ? "+" : "!") : "");
	if (!p->n) {
		printf("%-*s %3zu %6s %9s %19s %6s %9s %5s %8s\n", w->namew, p->name,
		       p->n, nb, "-", "-", "-", "-", "-", "-");
		return;
	}
	snprintf(ci, sizeof(ci), "[%.1f, %.1f]", p->s[1].ci_lo, p->s[1].ci_hi);
	snprintf(cov, sizeof(cov), "%.1f%%", 100 * p->s[1].ci_coverage);
	stats_reps_confirm_str(&p->s[1], reps, sizeof(reps));
	if (b)
		snprintf(sp, sizeof(sp), "%.3f%s", b->s[1].median / p->s[1].median,
			 stats_overlap(p->s[1].ci_lo, p->s[1].ci_hi,
				       b->s[1].ci_lo, b->s[1].ci_hi) ? "~" : "");
	printf("%-*s %3zu %6s %9.1f %19s %6s %9.1f %5s %8s\n", w->namew, p->name,
	       p->n, nb, p->s[1].median, ci, cov, p->s[2].median, reps, sp);
}

/* summary.csv at OUTPATH and the table, in the output's order */
static void write_summary(const struct sweep_sum *w, const struct stats_opts *o,
			  const char *outpath)
{
	struct csv *out = csv_open(outpath);

	if (!out)
		opt_die(PROG, "cannot write %s: %s", outpath, strerror(errno));
	summary_header(out);
	/* full point names, never cut: the column is as wide as the longest */
	printf("%-*s %3s %6s %9s %19s %6s %9s %5s %8s\n", w->namew, "point", "n",
	       "behind", "p50_med", "p50 CI", "cover", "p99_med", "reps", "speedup");
	for (size_t i = 0; i < w->npts; i++) {
		const struct point *p = &w->pts[w->ord[i]];
		const struct point *b = base_of(w->pts, w->npts, p, &o->bl);

		summary_row(out, w, p, b, o);
		print_row(w, p, b, o->include_behind);
	}
	if (csv_close(out))
		opt_die(PROG, "writing %s failed", outpath);
}

/* What the table's columns mean, and what was left out */
static void print_notes(const struct sweep_sum *w, const struct stats_opts *o,
			const char *outpath)
{
	printf("%zu points, %zu runs -> %s\n", w->npts, w->rows, outpath);
	printf("n: runs in the medians; cover: the CI's exact coverage of the median "
	       "(min-max of all n when n < 6); reps: CONFIRM repetitions for +-%g %% of the p50 "
	       "median (>n: not reached with n); speedup: p50 of the baseline / this, "
	       "~ = CIs overlap\n", o->confirm_pct);
	if (w->behind)
		printf("%zu run%s fell behind schedule (behind: ! = left out of the "
		       "medians%s)\n", w->behind, w->behind == 1 ? "" : "s",
		       o->include_behind ? "; included by --include-behind: +" :
		       "; --include-behind counts them");
	if (w->unchecked)
		printf("%zu run%s could not be checked for falling behind (no late_sends, "
		       "pace_p99_us or behind_schedule)\n", w->unchecked,
		       w->unchecked == 1 ? "" : "s");
	print_within(w->pts, w->ord, w->npts, &w->csv);
	print_paired(w->pts, w->ord, w->npts, w->namew);
	print_plane(w->pts, w->ord, w->npts, w->namew, w->plane_out);
}

static void sweep_sum_free(struct sweep_sum *w)
{
	for (size_t i = 0; i < w->npts; i++) {
		for (int m = 0; m < NMETRICS; m++)
			free(w->pts[i].val[m]);
		free(w->pts[i].run);
	}
	free(w->pts);
	free(w->ord);
	sweepcsv_free(&w->csv);
}

/* stats DIR: DIR/summary.csv (or --out) and the table */
static int summary(const char *dir, const struct stats_opts *o)
{
	struct sweep_sum w = { .pts = NULL };
	char spath[4096];
	const char *outpath = o->out;

	read_points(dir, o->include_behind, &w);
	summarize(&w, o);
	snprintf(spath, sizeof(spath), "%s/summary.csv", dir);
	if (!outpath)
		outpath = spath;
	write_summary(&w, o, outpath);
	print_notes(&w, o, outpath);
	sweep_sum_free(&w);
	return 0;
}

int main(int argc, char **argv)
{
	struct stats_opts o = { .bl = { .key = -1 } };
	int first = parse_args(argc, argv, &o);

	if (o.merge)
		return merge(o.merge, o.rule, argc - first, argv + first);
	return summary(argv[first], &o);
}
