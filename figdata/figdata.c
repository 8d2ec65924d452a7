// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-figdata: internal helper of `wakebench report`. The report
 * script finds the inputs, calls this for every number its figures and
 * tables show, runs gnuplot and writes the pages; here are the data:
 *
 *   figures  the data and variables of every figure (lib/figsum,
 *            lib/figdist, lib/figtrace, lib/figtraj), and one status line
 *            per figure saying it has data or why not
 *   table    a CSV file as an HTML or Markdown table (lib/figtable)
 *   configs  what differs between snapshots and command lines, and the
 *            provenance of each (lib/cfgdiff)
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuset.h"
#include "cfgdiff.h"
#include "cli.h"
#include "clishared.h"
#include "cpu.h"
#include "csv.h"
#include "csvtable.h"
#include "figdist.h"
#include "figplane.h"
#include "figref.h"
#include "figsum.h"
#include "figtable.h"
#include "figtrace.h"
#include "figtraj.h"
#include "figwake.h"
#include "die.h"
#include "tracefile.h"
#include "traceout.h"
#include "wfile.h"

#define PROG "wakebench-figdata"
#define MAXCPU TRACEFILE_MAX_CPUS	/* --cpus: any CPU of a trace */
#define MAX_TABLE (256u << 20)

struct figures_opts {
	const char *out, *window, *cpus, *reference;
	int include_behind;
	uint64_t requests;
};

#define AT(f) CLI_AT(struct figures_opts, f)
static const struct cli_opt figures_options[] = {
	{ .name = "out", .kind = CLI_STRING, .arg = "DIR",
	  .help = "write the figures' data and variables there (required)",
	  .off = AT(out) },
	{ .name = "include-behind", .kind = CLI_FLAG,
	  .help = "keep runs that fell behind their schedule",
	  .off = AT(include_behind) },
	{ .name = "window-ms", .kind = CLI_STRING, .arg = "A:B",
	  .help = "figure 5's window, ms since each trace's first request\n"
		  "(default: its first --requests requests)",
	  .off = AT(window) },
	{ .name = "requests", .kind = CLI_UINT, .store = CLI_U64, .arg = "N",
	  .min = 2, .max = 1000, .hint = CLI_RANGE,
	  .help = "figure 5's default window: the first N requests (3)",
	  .off = AT(requests) },
	{ .name = "cpus", .kind = CLI_STRING, .arg = "LIST",
	  .help = "figure 5: only these CPUs (e.g. 0,2-3)",
	  .off = AT(cpus) },
	{ .name = "reference", .kind = CLI_STRING, .arg = "FILE",
	  .help = "figure 2 and paired.csv: reference speedups\n"
		  "(CSV point,metric,value,source)",
	  .off = AT(reference) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};
#undef AT

static const struct cli_cmd figures_cmd = {
	.prog = PROG " figures",
	.usage = "Usage: wakebench-figdata figures --out DIR [options] [KIND SIDE ARG PATH]...",
	.about =
"Internal helper of 'wakebench report'. Sources come in fours:\n"
"  run SIDE NAME RUNDIR      a client run (requests.csv, summary.csv)\n"
"  sweep SIDE SUMMARY DIR    a sweep directory and the summary.csv\n"
"                            'wakebench stats' made of it\n"
"  trace SIDE LABEL DIR      a trace directory (timeline and attribution)\n"
"  traj SIDE LABEL FILE      an adaptive trajectory\n"
"  wake SIDE LABEL DIR       a 'wakebench wake' result (figures 12, 13)\n"
"Figure 14 (the latency-cost plane) is drawn from the sweeps' summaries.\n"
"SIDE names the directory given to the report it was found under. Writes\n"
"DIR/figN.dat (figure 5: fig5-ivs.dat, fig5-marks.dat) and DIR/figN.vars\n"
"(gnuplot assignments; figures 1 and 2 share fig1.vars) and prints one\n"
"line per figure, 'figN ok' or 'figN missing REASON', and 'note TEXT'\n"
"lines for runs left out.\n",
	.col = 24,
	.max_args = INT_MAX,
	.opts = figures_options,
};

struct table_opts {
	const char *first;
	int markdown;
};

#define AT(f) CLI_AT(struct table_opts, f)
static const struct cli_opt table_options[] = {
	{ .name = "first", .kind = CLI_STRING, .arg = "COLS",
	  .help = "these columns (comma-separated) first", .off = AT(first) },
	{ .name = "markdown", .kind = CLI_FLAG,
	  .help = "Markdown instead of HTML", .off = AT(markdown) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};
#undef AT

static const struct cli_cmd table_cmd = {
	.prog = PROG " table",
	.usage = "Usage: wakebench-figdata table [--first COLS] [--markdown] LABEL FILE...",
	.about = "Writes the CSV FILEs as one HTML (or Markdown) table on standard output:\n"
		 "every row and column, text escaped; with several, a first column\n"
		 "'source' holds each row's LABEL and the columns are all of theirs.\n",
	.col = 20,
	.max_args = INT_MAX,
	.opts = table_options,
};

struct configs_opts {
	const char *diff, *prov, *snap;
};

#define AT(f) CLI_AT(struct configs_opts, f)
static const struct cli_opt configs_options[] = {
	{ .name = "diff", .kind = CLI_STRING, .arg = "FILE",
	  .help = "what differs (CSV: what,LABEL...)", .off = AT(diff) },
	{ .name = "provenance", .kind = CLI_STRING, .arg = "FILE",
	  .help = "source,wakebench,host,when,command", .off = AT(prov) },
	{ .name = "snapshots", .kind = CLI_STRING, .arg = "PREFIX",
	  .help = "each side's snapshot as PREFIX-N.csv (key,value)",
	  .off = AT(snap) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};
#undef AT

static const struct cli_cmd configs_cmd = {
	.prog = PROG " configs",
	.usage = "Usage: wakebench-figdata configs [--diff FILE] [--provenance FILE]\n"
		 "                                 [--snapshots PREFIX] [LABEL SNAPSHOT CMDLINE]...",
	.about = "Compares the sides' snapshot.json (key by key) and cmdline.txt (option by\n"
		 "option); '-' for a file a side does not have. Prints the number of rows\n"
		 "that differ.\n",
	.col = 24,
	.max_args = INT_MAX,
	.opts = configs_options,
};

/* ---- figures ----------------------------------------------------------- */

struct out {
	const char *dir;
	char path[4096];
};

static FILE *create(struct out *o, const char *name)
{
	FILE *f;

	if ((size_t)snprintf(o->path, sizeof(o->path), "%s/%s", o->dir, name) >=
	    sizeof(o->path))
		opt_die(PROG, "%s: path too long", o->dir);
	f = wfile_open(o->path);
	if (!f)
		opt_die(PROG, "cannot write %s: %s", o->path, strerror(errno));
	return f;
}

static void done(struct out *o, FILE *f)
{
	if (ferror(f) | fclose(f))
		opt_die(PROG, "writing into %s failed", o->dir);
}

/* DIR/NAME as a CSV writer (its path left in o->path). */
static struct csv *create_csv(struct out *o, const char *name)
{
	struct csv *c;

	if ((size_t)snprintf(o->path, sizeof(o->path), "%s/%s", o->dir, name) >=
	    sizeof(o->path))
		opt_die(PROG, "%s: path too long", o->dir);
	c = csv_open(o->path);
	if (!c)
		opt_die(PROG, "cannot write %s: %s", o->path, strerror(errno));
	return c;
}

/* paired.csv: the paired effects of figure 2's pairs (the index's table) */
static void write_paired(struct out *o, const struct figsum *sum)
{
	struct csv *c = create_csv(o, "paired.csv");

	if (figsum_write_paired(sum, c) < 0)
		opt_die(PROG, "out of memory");
	if (csv_close(c))
		opt_die(PROG, "writing %s failed", o->path);
}

/*
 * wakeshare.csv: the traced wake beside the latency per state and
 * pre-query class (the index's table); left out when no trace has it.
 */
static void write_wakeshare(struct out *o, const struct figtrace_src *ts, size_t nts)
{
	char err[1024];
	struct csv *c = create_csv(o, "wakeshare.csv");
	int n;

	csv_header(c, FIGTRACE_WAKESHARE_HEADER);
	n = figtrace_wakeshare(ts, nts, c, err, sizeof(err));
	if (csv_close(c))
		opt_die(PROG, "writing %s failed", o->path);
	if (n <= 0)
		unlink(o->path);
	if (n < 0)
		printf("note wake share table not made: %s\n", err);
}

/* Whether an unused row before I of R has I's point. */
static int ref_point_seen(const struct figref *r, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!r->row[j].used && !strcmp(r->row[j].point, r->row[i].point))
			return 1;
	return 0;
}

/*
 * The reference rows no bar of figure 2 drew, as one note line, by
 * point: "POINT: avg, p99 (lines 6, 7); ...".
 */
static void ref_unmatched(const struct figref *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct figref_row *x = &r->row[i];
		size_t m = 0, l = 0;

		if (x->used || ref_point_seen(r, i))
			continue;
		if (!k++)
			printf("note reference rows of %s that match no point: ", r->name);
		else
			printf("; ");
		printf("%s: ", x->point);
		for (size_t j = i; j < r->n; j++)
			if (!r->row[j].used && !strcmp(r->row[j].point, x->point))
				printf("%s%s", m++ ? ", " : "", figref_metric_name(r->row[j].metric));
		printf(" (line%s ", m > 1 ? "s" : "");
		for (size_t j = i; j < r->n; j++)
			if (!r->row[j].used && !strcmp(r->row[j].point, x->point))
				printf("%s%zu", l++ ? ", " : "", r->row[j].line);
		printf(")");
	}
	if (k)
		printf("\n");
}

/* One figure's status line. */
static void status(int fig, int n, const char *why, const char *err)
{
	if (n > 0)
		printf("fig%d ok\n", fig);
	else if (n < 0)
		printf("fig%d missing %s\n", fig, err);
	else
		printf("fig%d missing %s\n", fig, why);
}

/* Why the figures drawn from summaries (1, 2, 7, 11) have nothing. */
static void why_none(const struct figsum *sum, size_t nsum, int nruns, char *buf,
		     size_t len)
{
	if (sum->behind_points)
		snprintf(buf, len, "%zu sweep point%s no run in the medians: every run of "
			 "theirs fell behind its schedule (--include-behind keeps them)",
			 sum->behind_points, sum->behind_points == 1 ? " has" : "s have");
	else if (nsum)
		snprintf(buf, len, "no configuration with pre-query has one without it "
			 "(equal in every other parameter)");
	else if (nruns)
		snprintf(buf, len, "no run left to pair (the notes say why; --include-behind "
			 "keeps runs behind their schedule)");
	else
		snprintf(buf, len, "needs a sweep summary.csv (wakebench stats) or runs "
			 "with and without pre-query");
}

/* "A:B" in ms, A < B (A may be negative: before the first request) */
static void parse_window(const char *s, struct figtrace_window *w)
{
	char buf[64], *colon;

	if (strlen(s) >= sizeof(buf))
		opt_usage(PROG, "--window-ms wants A:B in ms, e.g. 10:30: '%s'", s);
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		opt_usage(PROG, "--window-ms wants A:B in ms, e.g. 10:30: '%s'", s);
	*colon = '\0';
	if (csvtable_num(buf, &w->a_ms) || csvtable_num(colon + 1, &w->b_ms) ||
	    !(w->a_ms < w->b_ms))
		opt_usage(PROG, "--window-ms wants A:B in ms with A < B, e.g. 10:30: '%s'", s);
}

/* One figures run: what its steps share. */
struct figures_run {
	struct figures_opts o;
	struct figtrace_window w;
	struct figsum sum;
	struct figplane plane;	/* figure 14, from the sweeps */
	struct figref ref;
	struct figdist_src *ds;
	struct figtrace_src *ts;
	struct figtraj_src *js;
	struct figwake_src *ws;
	size_t nds, nts, njs, nsum, nws;
	int nruns;
	struct cpuset *cpus;
	struct out out;
	char err[2048];
};

/* The options; the sources' arrays, sized for the arguments after them. */
static int figures_parse(struct figures_run *s, int argc, char **argv)
{
	struct figures_opts *o = &s->o;
	int first = cli_parse(&figures_cmd, argc, argv, o), n;

	if (!o->out)
		opt_usage(PROG, "figures needs --out DIR");
	if ((argc - first) % 4)
		opt_usage(PROG, "sources come in fours: KIND SIDE ARG PATH");
	if (o->window)
		parse_window(o->window, &s->w);
	if (o->cpus) {
		s->cpus = cpuset_new(MAXCPU);
		if (!s->cpus)
			opt_die(PROG, "out of memory");
		if (cpuset_parse_list(s->cpus, o->cpus) < 0)
			opt_usage(PROG, "--cpus wants a list like 0,2-3: '%s'", o->cpus);
		s->w.cpus = s->cpus;
	}
	s->w.requests = (int)o->requests;
	s->out.dir = o->out;
	n = (argc - first) / 4;
	s->ds = calloc((size_t)n + 1, sizeof(*s->ds));
	s->ts = calloc((size_t)n + 1, sizeof(*s->ts));
	s->js = calloc((size_t)n + 1, sizeof(*s->js));
	s->ws = calloc((size_t)n + 1, sizeof(*s->ws));
	if (!s->ds || !s->ts || !s->js || !s->ws)
		opt_die(PROG, "out of memory");
	return first;
}

/* One source, KIND SIDE ARG PATH: a run, a sweep, a trace or a trajectory. */
static void figures_source(struct figures_run *s, const char *kind, const char *side,
			   const char *arg, const char *path)
{
	int si = figsum_side(&s->sum, side), ret = 0;
	char p[4096];

	if (si < 0)
		opt_die(PROG, "out of memory");
	if (!strcmp(kind, "run")) {
		s->ds[s->nds++] = (struct figdist_src){ side, arg, path, 0 };
		snprintf(p, sizeof(p), "%s/summary.csv", path);
		ret = figsum_add_run(&s->sum, p, si, s->o.include_behind, s->err,
				     sizeof(s->err));
		s->nruns++;
		if (ret == 1)
			printf("note run %s: %s: left out of figures 1, 2, 7 and 11%s\n",
			       arg, s->err, strstr(s->err, "behind") ?
			       " (--include-behind draws it)" : "");
		else if (ret < 0)
			printf("note run %s: %s\n", arg, s->err);
		s->nsum += ret == 0;
	} else if (!strcmp(kind, "sweep")) {
		s->ds[s->nds++] = (struct figdist_src){ side, side, path, 1 };
		ret = figsum_add_sweep(&s->sum, arg, si, s->err, sizeof(s->err));
		if (ret < 0)
			printf("note sweep %s: %s\n", path, s->err);
		s->nsum += ret == 0;
		if (!ret && figplane_add_sweep(&s->plane, arg, side, s->err,
					       sizeof(s->err)))
			printf("note sweep %s: figure 14: %s\n", path, s->err);
	} else if (!strcmp(kind, "trace")) {
		/* an earlier trace's timeline is not this one's */
		if (traceout_check_fresh(path, s->err, sizeof(s->err)))
			opt_die(PROG, "%s", s->err);
		s->ts[s->nts++] = (struct figtrace_src){ arg, path };
	} else if (!strcmp(kind, "traj")) {
		s->js[s->njs++] = (struct figtraj_src){ arg, path };
	} else if (!strcmp(kind, "wake")) {
		s->ws[s->nws++] = (struct figwake_src){ arg, path };
	} else {
		opt_usage(PROG, "unknown source kind '%s' (run, sweep, trace, traj, wake)", kind);
	}
}

/* 1, 2: pairs; 7: load; 11: energy (from the summaries) */
static void draw_summaries(struct figures_run *s)
{
	struct out *out = &s->out;
	size_t nloads = 0;
	FILE *a, *b, *v;
	int n;

	why_none(&s->sum, s->nsum, s->nruns, s->err, sizeof(s->err));
	a = create(out, "fig1.dat");
	b = create(out, "fig2.dat");
	v = create(out, "fig1.vars");
	n = figsum_write_pairs(&s->sum, a, b, v);
	done(out, a);
	done(out, b);
	done(out, v);
	if (n < 0)
		opt_die(PROG, "out of memory");
	status(1, n, s->err, "");
	status(2, n, s->err, "");
	write_paired(out, &s->sum);
	if (s->o.reference)
		ref_unmatched(&s->ref);
	a = create(out, "fig7.dat");
	v = create(out, "fig7.vars");
	n = figsum_write_load(&s->sum, a, v, &nloads);
	done(out, a);
	done(out, v);
	if (n < 0)
		opt_die(PROG, "out of memory");
	/* a line needs two loads */
	status(7, nloads >= 2 ? n : 0, s->sum.behind_points && nloads < 2 ? s->err :
	       "needs a sweep summary.csv with at least two intervals or rates", "");
	a = create(out, "fig11.dat");
	v = create(out, "fig11.vars");
	n = figsum_write_energy(&s->sum, a, v);
	done(out, a);
	done(out, v);
	if (n < 0)
		opt_die(PROG, "out of memory");
	status(11, n, s->nsum && !s->sum.behind_points ? "no energy measured (energy_per_request "
	       "empty in every summary: no RAPL on the machine that ran them)" : s->err, "");
}

/* 3, 4: distributions (from the runs' requests.csv) */
static void draw_distributions(struct figures_run *s)
{
	struct out *out = &s->out;
	FILE *a, *v;
	int n;

	a = create(out, "fig3.dat");
	v = create(out, "fig3.vars");
	n = figdist_cdf(s->ds, s->nds, s->o.include_behind, a, v, s->err, sizeof(s->err));
	done(out, a);
	done(out, v);
	status(3, n, s->nds ? "no client run's requests.csv with two answered requests "
	       "(a sweep summary alone has none)" :
	       "no client run (requests.csv) found", s->err);
	a = create(out, "fig4.dat");
	v = create(out, "fig4.vars");
	n = figdist_gaps(s->ds, s->nds, s->o.include_behind, a, v, s->err, sizeof(s->err));
	done(out, a);
	done(out, v);
	status(4, n, s->nds ? "no client run's requests.csv with send times and a known "
	       "distribution and mean gap" :
	       "no client run (requests.csv) found", s->err);
}

/* 5, 6, 9, 10: traces */
static void draw_traces(struct figures_run *s)
{
	struct out *out = &s->out;
	const struct figtrace_src *ts = s->ts;
	size_t nts = s->nts;
	char *err = s->err;
	size_t errlen = sizeof(s->err);
	FILE *a, *b, *v;
	int n;

	a = create(out, "fig5-ivs.dat");
	b = create(out, "fig5-marks.dat");
	v = create(out, "fig5.vars");
	n = nts ? figtrace_timeline(ts, nts, &s->w, a, b, v, err, errlen) : 0;
	done(out, a);
	done(out, b);
	done(out, v);
	status(5, n, nts ? "no C-state intervals of the traced CPUs in the window" :
	       "no trace directory (wakebench trace record) found", err);
	a = create(out, "fig6.dat");
	v = create(out, "fig6.vars");
	n = nts ? figtrace_residency(ts, nts, a, v, err, errlen) : 0;
	done(out, a);
	done(out, v);
	status(6, n, nts ? "the traces have no CPU with idle events" :
	       "no trace directory found", err);
	a = create(out, "fig9.dat");
	v = create(out, "fig9.vars");
	n = nts ? figtrace_states(ts, nts, a, v, err, errlen) : 0;
	done(out, a);
	done(out, v);
	status(9, n, "no attribution (wakebench trace attribute) found", err);
	a = create(out, "fig10.dat");
	v = create(out, "fig10.vars");
	n = nts ? figtrace_breakdown(ts, nts, a, v, err, errlen) : 0;
	done(out, a);
	done(out, v);
	status(10, n, "no wake breakdown (breakdown.csv of wakebench trace attribute "
	       "with the server's thread known) found", err);
	if (nts)
		write_wakeshare(out, ts, nts);
}

/* 8: trajectories */
static void draw_trajectories(struct figures_run *s)
{
	FILE *a = create(&s->out, "fig8.dat"), *v = create(&s->out, "fig8.vars");
	int n = figtraj_write(s->js, s->njs, a, v, s->err, sizeof(s->err));

	done(&s->out, a);
	done(&s->out, v);
	status(8, n, s->njs ? "the adaptive trajectories have no complete window yet (a "
	       "window is --window requests)" : "no adaptive trajectory "
	       "(prequery-trajectory.csv or *.trajectory.csv) found", s->err);
}

/* 12, 13: wake results; said only when the report found one */
static void draw_wakes(struct figures_run *s)
{
	FILE *a, *v, *b, *u;
	int n12, n13, ret;

	if (!s->nws)
		return;
	a = create(&s->out, "fig12.dat");
	v = create(&s->out, "fig12.vars");
	b = create(&s->out, "fig13.dat");
	u = create(&s->out, "fig13.vars");
	ret = figwake_figures(s->ws, s->nws, a, v, b, u, &n12, &n13, s->err,
			      sizeof(s->err));
	done(&s->out, a);
	done(&s->out, v);
	done(&s->out, b);
	done(&s->out, u);
	status(12, ret < 0 ? ret : n12, "the wake results have no datapoint that "
	       "was not busy or mixed", s->err);
	status(13, ret < 0 ? ret : n13, "no datapoint has a silent time (no cpuidle "
	       "states: wakebench wake cannot tell how long the CPU idled)", s->err);
}

/* 14: the latency-cost plane; said only when the report found a sweep */
static void draw_plane(struct figures_run *s)
{
	FILE *a, *b, *v;
	size_t nout = 0;
	int n;

	if (!s->plane.nsrc)
		return;
	a = create(&s->out, "fig14.dat");
	b = create(&s->out, "fig14-front.dat");
	v = create(&s->out, "fig14.vars");
	n = figplane_write(&s->plane, a, b, v, &nout);
	done(&s->out, a);
	done(&s->out, b);
	done(&s->out, v);
	if (n < 0)
		opt_die(PROG, "out of memory");
	if (n > 0 && nout)
		printf("note figure 14: %zu sweep point%s without a cost (no CPU time or "
		       "energy in its summary) left out\n", nout, nout == 1 ? "" : "s");
	status(14, n, "no sweep point has a cost (cost_cpu_per_req or energy_per_request "
	       "in its summary.csv: a sweep from before issue 35, or no tier PID)", "");
}

static int figures(int argc, char **argv)
{
	struct figures_run s = { .o = { .requests = 3 } };
	int first = figures_parse(&s, argc, argv);

	figsum_init(&s.sum);
	figplane_init(&s.plane);
	/* a bad reference file stops the report before anything is drawn */
	if (s.o.reference) {
		if (figref_read(s.o.reference, &s.ref, s.err, sizeof(s.err)))
			opt_die(PROG, "%s", s.err);
		s.sum.ref = &s.ref;
	}
	for (int i = first; i < argc; i += 4)
		figures_source(&s, argv[i], argv[i + 1], argv[i + 2], argv[i + 3]);
	draw_summaries(&s);
	draw_distributions(&s);
	draw_traces(&s);
	draw_trajectories(&s);
	draw_wakes(&s);
	draw_plane(&s);
	figsum_free(&s.sum);
	figplane_free(&s.plane);
	if (s.o.reference)
		figref_free(&s.ref);
	free(s.ds);
	free(s.ts);
	free(s.js);
	free(s.ws);
	cpuset_free(s.cpus);
	return 0;
}

/* ---- table, configs ---------------------------------------------------- */

static int table(int argc, char **argv)
{
	struct table_opts o = { 0 };
	struct csvtable *t;
	const char **labels;
	char err[1024];
	int first = cli_parse(&table_cmd, argc, argv, &o), n, ret;

	if (first == argc || (argc - first) % 2)
		opt_usage(PROG, "table needs LABEL FILE pairs");
	n = (argc - first) / 2;
	t = calloc((size_t)n, sizeof(*t));
	labels = calloc((size_t)n, sizeof(*labels));
	if (!t || !labels)
		opt_die(PROG, "out of memory");
	for (int i = 0; i < n; i++) {
		labels[i] = argv[first + 2 * i];
		if (csvtable_read(argv[first + 2 * i + 1], MAX_TABLE, &t[i], err, sizeof(err)))
			opt_die(PROG, "%s", err);
	}
	/* one table keeps its columns; several are named by a column */
	ret = (o.markdown ? figtable_markdown : figtable_html)(t, n > 1 ? labels : NULL,
							    (size_t)n, o.first, stdout);
	for (int i = 0; i < n; i++)
		csvtable_free(&t[i]);
	free(t);
	free(labels);
	if (ret)
		opt_die(PROG, "out of memory");
	if (fflush(stdout) || ferror(stdout))
		opt_die(PROG, "writing the table failed");
	return 0;
}

static int configs(int argc, char **argv)
{
	struct configs_opts o = { 0 };
	struct cfgdiff_side *s;
	char err[2048];
	int first = cli_parse(&configs_cmd, argc, argv, &o), n, ret;

	if ((argc - first) % 3)
		opt_usage(PROG, "sides come in threes: LABEL SNAPSHOT CMDLINE");
	n = (argc - first) / 3;
	s = calloc((size_t)n + 1, sizeof(*s));
	if (!s)
		opt_die(PROG, "out of memory");
	for (int i = 0; i < n; i++) {
		char **x = argv + first + 3 * i;

		s[i] = (struct cfgdiff_side){ x[0], strcmp(x[1], "-") ? x[1] : NULL,
					      strcmp(x[2], "-") ? x[2] : NULL };
	}
	ret = cfgdiff_write(s, (size_t)n, o.diff, o.prov, o.snap, err, sizeof(err));
	free(s);
	if (ret < 0)
		opt_die(PROG, "%s", err);
	printf("%d\n", ret);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int, char **);
	} verbs[] = { { "figures", figures }, { "table", table }, { "configs", configs } };

	if (argc < 2)
		opt_usage(PROG, "which command? figures, table or configs");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cli_help(&figures_cmd, stdout);
		printf("\n");
		cli_help(&table_cmd, stdout);
		printf("\n");
		cli_help(&configs_cmd, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			return verbs[i].run(argc - 1, argv + 1);
	opt_usage(PROG, "unknown command '%s'", argv[1]);
}
