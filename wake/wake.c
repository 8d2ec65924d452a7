// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench wake: exit latency per idle state, measured directly. The
 * engine is lib/wake; this file takes the options, runs the phases of
 * --states (changing idle states through lib/cstate for `each`, restored
 * on every exit path), takes the signals and writes the result files.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "clishared.h"
#include "clock.h"
#include "cpu.h"
#include "cpuset.h"
#include "json.h"
#include "csv.h"
#include "cstate.h"
#include "runsignals.h"
#include "hist.h"
#include "idlestate.h"
#include "cmdline.h"
#include "die.h"
#include "opt.h"
#include "outdir.h"
#include "snapshot.h"
#include "spool.h"
#include "stage.h"
#include "sysfs.h"
#include "topology.h"
#include "timeline.h"
#include "tracefile.h"
#include "wake.h"
#include "wakenet.h"
#include "wakesplit.h"
#include "wfile.h"

#define PROG "wakebench-wake"

/* wake.csv's columns, declared once */
#define WAKE_CSV_COLS \
	"seq,source,state_setting,launch_ns,wake_ns,latency_ns,silent_ns,state,busy," \
	"split_known,traced_idle,cause,launch_exit_ns,hw_exit_ns,kernel_ns,softirq_ns,sched_ns,to_user_ns"

/* Exact samples per group before the histogram takes over (8 MB each). */
#define EXACT_MAX (1u << 20)
/* The launch distance's bound: a sleeping timer datapoint must see a
 * stop within a second. */
#define LDIST_MAX_US 500000

struct ldist {
	uint64_t min_us, max_us;
};

struct wake_opts {
	int cpu, sender_cpu;
	int cpu_seen, sender_seen;
	unsigned int sources;
	struct ldist ldist;
	uint64_t count;
	int count_seen;
	double duration;
	int duration_seen;
	int settings[WAKE_MAX_PHASES];
	int nsettings;
	uint64_t priority;
	uint64_t seed;
	const char *out;
	int force;
	int quiet;
	int trace;
	int netns;
	int floor;		/* enum floor_kind */
	char *cmdline;
};

/* How --states none keeps the measured CPU out of idle states. */
enum floor_kind { FLOOR_SPIN, FLOOR_PMQOS, FLOOR_DISABLE };

static int parse_floor(const char *arg, void *dest)
{
	static const char *const names[] = { "spin", "pmqos", "disable" };

	for (int i = 0; i < 3; i++) {
		if (!strcmp(arg, names[i])) {
			*(int *)dest = i;
			return 0;
		}
	}
	return -1;
}

static int parse_sources(const char *arg, void *dest)
{
	return wake_sources_parse(arg, dest);
}

static int parse_ldist(const char *arg, void *dest)
{
	struct ldist *l = dest;
	char a[32];
	const char *comma = strchr(arg, ',');
	size_t n;

	if (!comma || (n = (size_t)(comma - arg)) >= sizeof(a))
		return -1;
	memcpy(a, arg, n);
	a[n] = 0;
	if (opt_u64(a, 0, LDIST_MAX_US, &l->min_us) ||
	    opt_u64(comma + 1, 0, LDIST_MAX_US, &l->max_us) ||
	    l->min_us > l->max_us)
		return -1;
	return 0;
}

/* The settings land in settings[] and their number right after (the
 * option struct keeps them side by side). */
static int parse_states(const char *arg, void *dest)
{
	struct wake_opts *o = (struct wake_opts *)((char *)dest -
					offsetof(struct wake_opts, settings));

	return wake_settings_parse(arg, o->settings, &o->nsettings);
}

#define AT(field) CLI_AT(struct wake_opts, field)

static const struct cli_opt wake_options[] = {
	{ .name = "cpu", .short_name = 'c', .kind = CLI_CPU, .arg = "N",
	  .help = "the measured CPU: the sleeper runs there\n"
		  "(default the sweep's server CPU: placed by\n"
		  "topology, CPU 0 on a small host)",
	  .off = AT(cpu), .seen = AT(cpu_seen) },
	{ .name = "sender-cpu", .kind = CLI_CPU, .arg = "N",
	  .help = "the CPU of the ipi and packet sender\n"
		  "(default the sweep's client CPU: off the\n"
		  "measured CPU's core, on its package)",
	  .off = AT(sender_cpu), .seen = AT(sender_seen) },
	{ .name = "source", .short_name = 's', .kind = CLI_CUSTOM,
	  .arg = "timer|ipi|packet",
	  .help = "what wakes the sleeper, a comma list: several\n"
		  "are interleaved in a seeded random order\n"
		  "(default timer)",
	  .parse = parse_sources,
	  .hint = "a comma list of timer, ipi, packet, each once",
	  .off = AT(sources) },
	{ .name = "ldist", .short_name = 'l', .kind = CLI_CUSTOM,
	  .arg = "MIN,MAX",
	  .help = "launch distance in us after the sleeper last ran,\n"
		  "uniform (default 0,4000; at most 500000)",
	  .parse = parse_ldist, .hint = "MIN,MAX in us, MIN <= MAX <= 500000",
	  .off = AT(ldist) },
	{ .name = "count", .short_name = 'n', .kind = CLI_UINT, .arg = "N",
	  .help = "datapoints per source and state setting\n"
		  "(default 1000)",
	  .min = 1, .max = 1e12, .hint = CLI_RANGE,
	  .off = AT(count), .seen = AT(count_seen) },
	{ .name = "duration", .short_name = 'd', .kind = CLI_REAL,
	  .store = CLI_DOUBLE, .arg = "S",
	  .help = "seconds per state setting instead of --count",
	  .min = 0.001, .max = 1e7, .hint = CLI_RANGE,
	  .off = AT(duration), .seen = AT(duration_seen) },
	{ .name = "states", .kind = CLI_CUSTOM, .arg = "all|each|none",
	  .help = "idle states, a comma list run in turn: all (as\n"
		  "the machine is, default), each (one state\n"
		  "enabled at a time), none (the floor)",
	  .parse = parse_states,
	  .hint = "a comma list of all, each, none, each once",
	  .off = AT(settings) },
	{ .name = "floor", .kind = CLI_CUSTOM, .arg = "spin|pmqos|disable",
	  .help = "how --states none keeps the CPU out of idle\n"
		  "states: a SCHED_IDLE spinner (default), its PM\n"
		  "QoS resume latency n/a, or every state disabled",
	  .parse = parse_floor, .hint = "spin, pmqos or disable",
	  .off = AT(floor) },
	{ .name = "priority", .short_name = 'p', .kind = CLI_UINT,
	  .arg = "P",
	  .help = "SCHED_FIFO priority of the sleeper (default:\n"
		  "the normal class)",
	  .min = 1, .max = 99, .hint = CLI_RANGE, .off = AT(priority) },
	{ .name = "seed", .kind = CLI_UINT, .arg = "N",
	  .help = "seed of the launch distances and the order of\n"
		  "the sources (default 1)",
	  .min = 0, .max = 1.8e19, .off = AT(seed) },
	{ .name = "out", .short_name = 'o', .kind = CLI_STRING, .arg = "DIR",
	  .help = "result directory: wake.csv, summary.csv,\n"
		  "summary.json, summary.txt, snapshot.json,\n"
		  "cmdline.txt; created, must be empty",
	  .off = AT(out) },
	{ .name = "netns", .kind = CLI_FLAG,
	  .help = "packet: the sender in a network namespace of its\n"
		  "own, over a veth pair whose host end steers\n"
		  "(RPS) to --cpu: the NET_RX softirq runs there;\n"
		  "removed on every exit; needs root",
	  .off = AT(netns) },
	{ .name = "trace", .kind = CLI_FLAG,
	  .help = "record the run ('wakebench trace record' of the\n"
		  "two CPUs into --out's trace/) and split each\n"
		  "wake: launch to idle exit, hardware exit,\n"
		  "kernel path (softirq), scheduling, return to\n"
		  "user (wake.csv, the summaries); needs root",
	  .off = AT(trace) },
	{ .name = "force", .short_name = 'f', .kind = CLI_FLAG,
	  .help = "remove this command's files from --out first",
	  .off = AT(force) },
	CLI_OPT_QUIET(struct wake_opts, quiet,
		      "no progress line and no summary on stdout"),
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

static const struct cli_cmd wake_cmd = {
	.prog = PROG,
	.usage = "Usage: wakebench wake [options]",
	.about =
"Exit latency per idle state, measured directly: a sleeper pinned to\n"
"--cpu is woken a random launch distance after it last ran, by a timer,\n"
"by an IPI from --sender-cpu or by a UDP packet on loopback; latency =\n"
"when it runs - launch time. The state it woke from is the one whose\n"
"usage counter moved.\n",
	.footer =
"Exit status: 0 done, 1 runtime error or stopped by a signal (what was\n"
"measured is kept, the summary says interrupted), 2 usage error or a\n"
"setting this machine cannot apply.\n",
	.col = 24,
	.opts = wake_options,
};

static const char *const wake_out_files[] = {
	"wake.csv", "summary.csv", "summary.json", "summary.txt",
	"snapshot.json", "cmdline.txt",
	".wake.csv.partial", ".summary.csv.partial", ".summary.json.partial",
	".summary.txt.partial", ".snapshot.json.partial",
	".cmdline.txt.partial", NULL,
};

/* What the sleeper's callback writes to. */
struct sink {
	struct csv *csv;
	struct wake_summary *sum;
	const struct wake_cpuidle *ci;
	int no_states;
	int failed;
	struct spool *spool;	/* --trace: the points, split after the run */
};

/* The means of the split of a summary group's datapoints (--trace). */
struct split_acc {
	uint64_t n, n_user;
	uint64_t sum[WAKE_NSEG];
};

/* A datapoint's row of wake.csv; sp NULL: not split. */
static void write_row(const struct sink *k, const struct wake_point *p,
		      const struct wake_split *sp)
{
	csv_u64(k->csv, p->seq);
	csv_str(k->csv, wake_source_name(p->source));
	csv_str(k->csv, k->sum->setting[p->setting]);
	csv_u64(k->csv, p->launch_ns);
	csv_u64(k->csv, p->wake_ns);
	csv_u64(k->csv, p->latency_ns);
	csv_u64(k->csv, p->silent_ns);
	csv_str(k->csv, wake_state_label(k->ci, p->state));
	if (k->no_states)
		csv_empty(k->csv);	/* cannot be told */
	else
		csv_u64(k->csv, p->state == WAKE_ST_BUSY);
	if (!sp) {
		for (int i = 0; i < 3 + WAKE_NSEG; i++)
			csv_empty(k->csv);
		csv_end_row(k->csv);
		return;
	}
	csv_u64(k->csv, (uint64_t)sp->known);
	/* the trace tells a busy CPU where no usage counter can (no
	 * cpuidle driver) */
	csv_u64(k->csv, (uint64_t)sp->idle);
	csv_str(k->csv, timeline_cause_name(sp->cause));
	for (int i = 0; i < WAKE_NSEG; i++) {
		if (sp->known && (i != WAKE_SEG_TO_USER || sp->have_switch))
			csv_u64(k->csv, sp->seg[i]);
		else
			csv_empty(k->csv);
	}
	csv_end_row(k->csv);
}

static int on_point(void *arg, const struct wake_point *p)
{
	struct sink *k = arg;

	if (wake_summary_add(k->sum, p)) {
		k->failed = 1;
		return 1;
	}
	if (k->spool) {
		if (spool_add(k->spool, p)) {
			k->failed = 1;
			return 1;
		}
		return 0;
	}
	if (k->csv)
		write_row(k, p, NULL);
	return 0;
}

/* A phase: a label, whether it is the floor, and the state left enabled
 * (-1: leave the states as they are). */
struct phase {
	char label[48];
	int floor;
	int only;
};

static int plan_phases(const struct wake_opts *o,
		       const struct wake_cpuidle *ci, struct phase *ph)
{
	int n = 0;

	for (int i = 0; i < o->nsettings; i++) {
		switch (o->settings[i]) {
		case WAKE_SET_ALL:
			ph[n++] = (struct phase){ .label = "all", .only = -1 };
			break;
		case WAKE_SET_NONE:
			ph[n++] = (struct phase){ .label = "none", .floor = 1,
						  .only = -1 };
			break;
		case WAKE_SET_EACH:
			for (unsigned int k = 0; k < ci->n; k++) {
				ph[n] = (struct phase){ .only = (int)k };
				snprintf(ph[n].label, sizeof(ph[n].label),
					 "only:%s", ci->name[k]);
				n++;
			}
			break;
		}
	}
	return n;
}

/* ---- the summary files ---- */

struct row {
	int source, setting, state;	/* state: WAKE_ST_* or index */
	struct wake_group *g;
	struct wake_stats st;
	double cost_p50, cost_mean;
};

/* Rows in the order of the phases, then the sources, then the states
 * (none and unknown first, then by index). */
static int rows_build(struct wake_summary *s, struct row **out)
{
	struct row *rows = calloc((size_t)s->ngroups + WAKE_NSRC * WAKE_MAX_SETTINGS,
				  sizeof(*rows));
	int n = 0;

	if (!rows)
		return -ENOMEM;
	for (int set = 0; set < s->nsettings; set++) {
		for (int src = 0; src < WAKE_NSRC; src++) {
			int first = n;

			if (!s->total[src][set])
				continue;
			for (int state = WAKE_ST_NONE; state < WAKE_MAX_STATES;
			     state++) {
				struct wake_group *g;

				if (state == WAKE_ST_BUSY || state == WAKE_ST_MIXED)
					continue;
				g = wake_summary_find(s, src, set, state);
				if (!g)
					continue;
				rows[n] = (struct row){ src, set, state, g };
				n++;
			}
			if (n == first) {
				/* every datapoint busy or mixed: one row
				 * still says so */
				rows[n] = (struct row){ src, set, WAKE_ST_BUSY, NULL };
				n++;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		struct wake_group *f = wake_summary_floor(s, rows[i].source);
		struct wake_stats fst;

		wake_group_stats(rows[i].g, &rows[i].st);
		rows[i].cost_p50 = rows[i].cost_mean = NAN;
		if (f && f != rows[i].g && rows[i].g) {
			wake_group_stats(f, &fst);
			wake_cost(&rows[i].st, &fst, &rows[i].cost_p50,
				  &rows[i].cost_mean);
		}
	}
	*out = rows;
	return n;
}

/* "p99_9,p99_99" without a CI, into buf ("" when every one has one). */
static const char *ci_note(const struct wake_stats *st, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	if (!st->n)
		return buf;
	for (int k = 0; k < WAKE_NPCT; k++)
		if (!st->ci_ok[k])
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
						 "%s%s", used ? " " : "no 95% CI with this n: ",
						 wake_pct_name[k]);
	return buf;
}

struct result {
	const struct wake_opts *o;
	const struct wake_cpuidle *ci;
	struct wake_summary *sum;
	struct row *rows;
	int nrows;
	int interrupted;
	const char *error;		/* a runtime error, or NULL */
	char driver[64];
	const struct split_acc *split;	/* --trace: per summary group */
};

/* The split means of a row's group; NULL without --trace. */
static const struct split_acc *split_of(const struct result *r, const struct row *w)
{
	return r->split && w->g ? &r->split[w->g - r->sum->group] : NULL;
}

/* A segment's mean in us (NaN: no datapoint split). */
static double seg_mean(const struct split_acc *a, int seg)
{
	uint64_t n;

	if (!a)
		return NAN;
	n = seg == WAKE_SEG_TO_USER ? a->n_user : a->n;
	return n ? (double)a->sum[seg] / (double)n / 1e3 : NAN;
}

static const char *status_of(const struct result *r)
{
	return r->error ? "failed" : r->interrupted ? "interrupted" : "complete";
}

static const char *row_state(const struct result *r, const struct row *w)
{
	return w->g ? wake_state_label(r->ci, w->state) : "";
}

static int write_summary_csv(const char *path, const struct result *r)
{
	struct csv *c = csv_open(path);
	char note[128];

	if (!c)
		return -errno;
	csv_header(c, "source,state_setting,state,count,busy,mixed,min_us,mean_us,"
		   "p50_us,p50_lo_us,p50_hi_us,p90_us,p90_lo_us,p90_hi_us,"
		   "p99_us,p99_lo_us,p99_hi_us,p99_9_us,p99_9_lo_us,p99_9_hi_us,"
		   "p99_99_us,p99_99_lo_us,p99_99_hi_us,max_us,stddev_us,ci_note,"
		   "kernel_latency_us,kernel_residency_us,above,below,"
		   "cost_p50_us,cost_mean_us,status,split_n,launch_exit_us,"
		   "hw_exit_us,kernel_us,softirq_us,sched_us,to_user_us");
	for (int i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];
		const struct wake_stats *st = &w->st;
		int idx = w->g && w->state >= 0;

		csv_str(c, wake_source_name(w->source));
		csv_str(c, r->sum->setting[w->setting]);
		csv_str(c, row_state(r, w));
		csv_u64(c, st->n);
		if (r->ci->n)
			csv_u64(c, r->sum->busy[w->source][w->setting]);
		else
			csv_empty(c);
		csv_u64(c, r->sum->mixed[w->source][w->setting]);
		csv_double(c, st->min, 3);
		csv_double(c, st->mean, 3);
		for (int k = 0; k < WAKE_NPCT; k++) {
			csv_double(c, st->pct[k], 3);
			csv_double(c, st->lo[k], 3);
			csv_double(c, st->hi[k], 3);
		}
		csv_double(c, st->max, 3);
		csv_double(c, st->sd, 3);
		csv_str(c, ci_note(st, note, sizeof(note)));
		if (idx) {
			csv_u64(c, r->ci->latency_us[w->state]);
			csv_u64(c, r->ci->residency_us[w->state]);
		} else {
			csv_empty(c);
			csv_empty(c);
		}
		if (idx && r->ci->has_above) {
			csv_u64(c, w->g->above);
			csv_u64(c, w->g->below);
		} else {
			csv_empty(c);
			csv_empty(c);
		}
		csv_double(c, w->cost_p50, 3);
		csv_double(c, w->cost_mean, 3);
		csv_str(c, status_of(r));
		/* appended: the split of the wakes (--trace) */
		if (split_of(r, w))
			csv_u64(c, split_of(r, w)->n);
		else
			csv_empty(c);
		for (int k = 0; k < WAKE_NSEG; k++)
			csv_double(c, split_of(r, w) ? seg_mean(split_of(r, w), k) : NAN, 3);
		csv_end_row(c);
	}
	return csv_close(c);
}

static int write_summary_json(const char *path, const struct result *r)
{
	struct json *j = json_open(path);
	char note[128];

	if (!j)
		return -errno;
	json_obj_begin(j, NULL);
	json_str(j, "status", status_of(r));
	json_str(j, "error", r->error);
	json_i64(j, "cpu", r->o->cpu);
	json_i64(j, "sender_cpu", r->o->sender_cpu);
	json_u64(j, "seed", r->o->seed);
	json_u64(j, "ldist_min_us", r->o->ldist.min_us);
	json_u64(j, "ldist_max_us", r->o->ldist.max_us);
	json_u64(j, "priority", r->o->priority);
	json_str(j, "floor", (const char *const[]){ "spin", "pmqos", "disable" }[r->o->floor]);
	json_str(j, "cpuidle_driver", r->driver);
	json_u64(j, "idle_states", r->ci->n);
	json_bool(j, "state_known", r->ci->n > 0);
	json_arr_begin(j, "rows");
	for (int i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];
		const struct wake_stats *st = &w->st;
		int idx = w->g && w->state >= 0;
		char key[32];

		json_obj_begin(j, NULL);
		json_str(j, "source", wake_source_name(w->source));
		json_str(j, "state_setting", r->sum->setting[w->setting]);
		json_str(j, "state", row_state(r, w));
		json_u64(j, "count", st->n);
		if (r->ci->n)
			json_u64(j, "busy", r->sum->busy[w->source][w->setting]);
		else
			json_str(j, "busy", NULL);
		json_u64(j, "mixed", r->sum->mixed[w->source][w->setting]);
		json_double(j, "min_us", st->min);
		json_double(j, "mean_us", st->mean);
		for (int k = 0; k < WAKE_NPCT; k++) {
			snprintf(key, sizeof(key), "%s_us", wake_pct_name[k]);
			json_double(j, key, st->pct[k]);
			snprintf(key, sizeof(key), "%s_lo_us", wake_pct_name[k]);
			json_double(j, key, st->lo[k]);
			snprintf(key, sizeof(key), "%s_hi_us", wake_pct_name[k]);
			json_double(j, key, st->hi[k]);
		}
		json_double(j, "max_us", st->max);
		json_double(j, "stddev_us", st->sd);
		json_str(j, "ci_note", ci_note(st, note, sizeof(note)));
		if (idx) {
			json_u64(j, "kernel_latency_us", r->ci->latency_us[w->state]);
			json_u64(j, "kernel_residency_us", r->ci->residency_us[w->state]);
		} else {
			json_str(j, "kernel_latency_us", NULL);
			json_str(j, "kernel_residency_us", NULL);
		}
		if (idx && r->ci->has_above) {
			json_u64(j, "above", w->g->above);
			json_u64(j, "below", w->g->below);
		} else {
			json_str(j, "above", NULL);
			json_str(j, "below", NULL);
		}
		json_double(j, "cost_p50_us", w->cost_p50);
		json_double(j, "cost_mean_us", w->cost_mean);
		if (split_of(r, w)) {
			json_u64(j, "split_n", split_of(r, w)->n);
			for (int k = 0; k < WAKE_NSEG; k++) {
				snprintf(key, sizeof(key), "%s_us", wake_seg_name[k]);
				json_double(j, key, seg_mean(split_of(r, w), k));
			}
		}
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
	return json_close(j);
}

static void fmt_us(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", v);
}

static void print_text(FILE *f, const struct result *r)
{
	char a[32], b[32], c[32], note[128];

	fprintf(f, "wakebench wake: CPU %d, sender CPU %d, launch distance %llu-%llu us, seed %llu, %s\n",
		r->o->cpu, r->o->sender_cpu,
		(unsigned long long)r->o->ldist.min_us,
		(unsigned long long)r->o->ldist.max_us,
		(unsigned long long)r->o->seed,
		r->o->priority ? "SCHED_FIFO" : "normal class");
	fprintf(f, "status: %s%s%s\n", status_of(r), r->error ? ": " : "",
		r->error ? r->error : "");
	if (!r->ci->n)
		fprintf(f, "note: CPU %d has no cpuidle states (driver %s): the state is unknown and busy wakes cannot be told apart; every datapoint is kept\n",
			r->o->cpu, r->driver);
	fprintf(f, "%-7s %-14s %-14s %7s %5s %5s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n",
		"source", "setting", "state", "count", "busy", "mixed",
		"min_us", "mean_us", "p50_us", "p90_us", "p99_us", "max_us",
		"kern_lat", "cost_p50", "cost_mean");
	for (int i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];
		const struct wake_stats *st = &w->st;
		char v[6][32];
		char busy[24];

		fmt_us(v[0], sizeof(v[0]), st->min);
		fmt_us(v[1], sizeof(v[1]), st->mean);
		fmt_us(v[2], sizeof(v[2]), st->pct[0]);
		fmt_us(v[3], sizeof(v[3]), st->pct[1]);
		fmt_us(v[4], sizeof(v[4]), st->pct[2]);
		fmt_us(v[5], sizeof(v[5]), st->max);
		if (w->g && w->state >= 0)
			snprintf(a, sizeof(a), "%llu",
				 (unsigned long long)r->ci->latency_us[w->state]);
		else
			snprintf(a, sizeof(a), "-");
		fmt_us(b, sizeof(b), w->cost_p50);
		fmt_us(c, sizeof(c), w->cost_mean);
		if (r->ci->n)
			snprintf(busy, sizeof(busy), "%llu",
				 (unsigned long long)r->sum->busy[w->source][w->setting]);
		else
			snprintf(busy, sizeof(busy), "?");
		fprintf(f, "%-7s %-14s %-14s %7llu %5s %5llu %9s %9s %9s %9s %9s %9s %9s %9s %9s\n",
			wake_source_name(w->source), r->sum->setting[w->setting],
			w->g ? row_state(r, w) : "-", (unsigned long long)st->n,
			busy, (unsigned long long)r->sum->mixed[w->source][w->setting],
			v[0], v[1], v[2], v[3], v[4], v[5], a, b, c);
		if (st->n && st->ci_ok[0]) {
			fmt_us(a, sizeof(a), st->lo[0]);
			fmt_us(b, sizeof(b), st->hi[0]);
			fprintf(f, "        p50 95%% CI [%s, %s] us", a, b);
			if (st->ci_ok[2]) {
				fmt_us(a, sizeof(a), st->lo[2]);
				fmt_us(b, sizeof(b), st->hi[2]);
				fprintf(f, ", p99 95%% CI [%s, %s] us", a, b);
			}
			ci_note(st, note, sizeof(note));
			fprintf(f, "%s%s\n", *note ? "; " : "", note);
		}
	}
}

/* The split's means per row (--trace). */
static void print_split(FILE *f, const struct result *r)
{
	fprintf(f, "wake split (means, us; traced, see wakebench-wake(1)): launch to idle exit, hardware exit, kernel path (of it after the NET_RX softirq), scheduling, return to user\n");
	fprintf(f, "%-7s %-14s %-14s %7s %11s %9s %9s %9s %9s %9s\n", "source",
		"setting", "state", "split_n", "launch_exit", "hw_exit", "kernel",
		"softirq", "sched", "to_user");
	for (int i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];
		const struct split_acc *a = split_of(r, w);
		char v[WAKE_NSEG][32];

		if (!a)
			continue;
		for (int k = 0; k < WAKE_NSEG; k++)
			fmt_us(v[k], sizeof(v[k]), seg_mean(a, k));
		fprintf(f, "%-7s %-14s %-14s %7llu %11s %9s %9s %9s %9s %9s\n",
			wake_source_name(w->source), r->sum->setting[w->setting],
			row_state(r, w), (unsigned long long)a->n, v[0], v[1], v[2],
			v[3], v[4], v[5]);
	}
}

static int write_summary_txt(const char *path, const struct result *r)
{
	FILE *f = wfile_open(path);

	if (!f)
		return -errno;
	print_text(f, r);
	if (r->split)
		print_split(f, r);
	return wfile_close(f);
}

/* ---- the run ---- */

static int sigfd = -1;

/* Waits for the phase's end or a signal; a progress line every 2 s. */
static int wait_phase(struct wake_run *run, const char *label,
		      const struct wake_opts *o, uint64_t expect)
{
	uint64_t start = clock_now_ns(), last = start;
	int interrupted = 0;

	while (!wake_run_finished(run)) {
		struct pollfd p = { .fd = sigfd, .events = POLLIN };
		uint64_t now;

		if (poll(&p, 1, 50) > 0) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
				interrupted = (int)si.ssi_signo;
				wake_run_stop(run);
				break;
			}
		}
		now = clock_now_ns();
		if (!o->quiet && now - last >= 2000000000ull) {
			last = now;
			if (expect)
				fprintf(stderr, "%s: %s: %llu of %llu datapoints, %.0f s\n",
					PROG, label,
					(unsigned long long)wake_run_points(run),
					(unsigned long long)expect,
					(now - start) / 1e9);
			else
				fprintf(stderr, "%s: %s: %llu datapoints, %.0f of %.0f s\n",
					PROG, label,
					(unsigned long long)wake_run_points(run),
					(now - start) / 1e9, o->duration);
		}
	}
	return interrupted;
}

static int popcount(unsigned int m)
{
	return __builtin_popcount(m);
}

/* One wakebench wake run, from the options to the files: what main()'s steps share. */
struct session {
	struct wake_opts o;
	struct wake_summary *sum;
	struct phase phases[WAKE_MAX_SETTINGS];
	int nphases;
	struct wake_cpuidle ci;
	struct stage *st;	/* --out's files under temporary names */
	struct sink sink;
	struct result res;
	int ncpu;
	char err[512], csvtmp[4096], tmp[4096];
	/* --trace: the recorder, its stderr, its directory, the split */
	pid_t tpid;
	int tfd;
	/* --netns: the namespace and the sender's socket in it */
	struct wake_netns ns;
	int ns_fd;
	char tdir[4096];
	struct split_acc split[WAKE_MAX_GROUPS];
};

/* The options, checked against this machine; 1 when --states each is asked. */
static int parse_args(struct session *s, int argc, char **argv)
{
	struct wake_opts *o = &s->o;
	int has_each = 0;

	cli_parse(&wake_cmd, argc, argv, o);
	if (o->count_seen && o->duration_seen)
		opt_usage(PROG, "--count and --duration exclude each other");
	if (o->duration_seen)
		o->count = 0;
	if (o->netns && !(o->sources & (1u << WAKE_SRC_PACKET)))
		opt_usage(PROG, "--netns is for --source packet");
	if (o->trace && !o->out)
		opt_usage(PROG, "--trace needs --out DIR (the trace goes to DIR/trace)");
	if (o->trace && geteuid())
		opt_usage(PROG, "--trace records in a tracefs instance: it needs root");
	/* the sweep's server and client CPUs (lib/sys/topology): the
	 * measured CPU is a server's, and on some VMs the last CPU's idle
	 * loop emits no power:cpu_idle and no switch from idle to trace */
	if (!o->cpu_seen || !o->sender_seen) {
		int cpu = o->cpu_seen ? o->cpu : -1;
		int sender = o->sender_seen ? o->sender_cpu : -1;
		struct cpuset *usable = cpuset_usable(s->ncpu);
		char err[256];
		int ret;

		ret = topology_pick(s->ncpu, 0, usable, &cpu, &sender, err,
				    sizeof(err));
		cpuset_free(usable);
		if (ret)
			opt_die(PROG, "%s", err);
		o->cpu = cpu;
		o->sender_cpu = sender;
	}
	if ((o->sources & ~(1u << WAKE_SRC_TIMER))) {
		if (o->sender_cpu == o->cpu)
			opt_usage(PROG, "--sender-cpu %d is the measured CPU: ipi and packet wakes come from another CPU",
				  o->sender_cpu);
		if (o->sender_cpu >= s->ncpu)
			opt_usage(PROG, "ipi and packet need a second CPU for the sender (this machine has %d)",
				  s->ncpu);
	}
	for (int i = 0; i < o->nsettings; i++)
		has_each |= o->settings[i] == WAKE_SET_EACH;
	o->cmdline = opt_cmdline(argc, argv);
	if (!o->cmdline)
		opt_die(PROG, "out of memory");
	return has_each;
}

/* The measured CPU's idle states, the phases they give and --out's directory. */
static void plan_run(struct session *s, int has_each)
{
	struct wake_opts *o = &s->o;
	int ret;

	ret = wake_cpuidle_open(&s->ci, (unsigned int)o->cpu, s->err, sizeof(s->err));
	if (ret)
		opt_die(PROG, "%s", s->err);
	idlestate_driver(s->res.driver, sizeof(s->res.driver));
	if (has_each && !s->ci.n)
		opt_usage(PROG, "--states each: CPU %d has no cpuidle states to enable one at a time (cpuidle driver %s)",
			  o->cpu, s->res.driver);
	if (has_each && sysfs_is_real() && geteuid())
		opt_usage(PROG, "--states each changes idle states: it needs root");
	if (o->floor != FLOOR_SPIN && !s->ci.n)
		opt_usage(PROG, "--floor %s: CPU %d has no cpuidle states (driver %s): nothing reads PM QoS or has a state to disable; --floor spin works everywhere",
			  o->floor == FLOOR_PMQOS ? "pmqos" : "disable", o->cpu, s->res.driver);
	if (o->floor != FLOOR_SPIN && sysfs_is_real() && geteuid())
		opt_usage(PROG, "--floor pmqos|disable changes idle-state settings: it needs root");
	wake_summary_init(s->sum, EXACT_MAX);
	s->nphases = plan_phases(o, &s->ci, s->phases);
	for (int i = 0; i < s->nphases; i++)
		if (wake_summary_setting(s->sum, s->phases[i].label, s->phases[i].floor) < 0)
			opt_die(PROG, "too many state settings");
	if (o->out && outdir_prepare(o->out, wake_out_files, o->force, s->err, sizeof(s->err)))
		opt_usage(PROG, "--out %s: %s", o->out, s->err);
}

/* The stop signals on a signalfd; this thread off the measured CPU. */
static void setup_main_thread(struct session *s)
{
	const struct wake_opts *o = &s->o;
	/* a timer-only run may name the measured CPU as the sender */
	int main_cpu = o->sender_cpu != o->cpu ? o->sender_cpu :
		       o->cpu > 0 ? o->cpu - 1 : 1;
	sigset_t set;

	/* SIGINT/SIGTERM blocked (SIGHUP raised as SIGTERM): taken by the
	 * signalfd below, in every thread's mask from here on */
	cstate_run_signals();
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sigfd < 0)
		opt_die(PROG, "signalfd: %s", strerror(errno));

	/* this thread wakes every 50 ms to look at the run: never on the
	 * measured CPU, where it would be a wake of its own */
	if (main_cpu < s->ncpu && cpu_pin_self(main_cpu))
		fprintf(stderr, "%s: cannot pin the main thread to CPU %d: it may run on the measured CPU\n",
			PROG, main_cpu);
	if (!s->ci.n)
		fprintf(stderr, "%s: CPU %d has no cpuidle states (driver %s): the state is \"unknown\" and busy wakes cannot be told apart; every datapoint is kept\n",
			PROG, o->cpu, s->res.driver);
}

/* Where the datapoints go: the summary and, with --out, wake.csv. */
static void open_outputs(struct session *s)
{
	const struct wake_opts *o = &s->o;

	s->sink.sum = s->sum;
	s->sink.ci = &s->ci;
	s->sink.no_states = !s->ci.n;
	if (!o->out)
		return;
	s->st = stage_new(o->out);
	if (!s->st)
		opt_die(PROG, "out of memory");
	/* taken before anything changes: the machine as it is */
	if (stage_add(s->st, "snapshot.json", s->tmp, sizeof(s->tmp)) ||
	    snapshot_write_json(s->tmp, "wake", o->cmdline))
		opt_die(PROG, "cannot write %s/snapshot.json", o->out);
	if (stage_add(s->st, "cmdline.txt", s->tmp, sizeof(s->tmp)) ||
	    wfile_write_line(s->tmp, o->cmdline))
		opt_die(PROG, "cannot write %s/cmdline.txt", o->out);
	if (stage_add(s->st, "wake.csv", s->csvtmp, sizeof(s->csvtmp)))
		opt_die(PROG, "cannot write %s/wake.csv", o->out);
	s->sink.csv = csv_open(s->csvtmp);
	if (!s->sink.csv)
		opt_die(PROG, "cannot write %s/wake.csv: %s", o->out,
			strerror(errno));
	csv_header(s->sink.csv, WAKE_CSV_COLS);
}

/*
 * Phase I's idle states set (one enabled at a time for --states each),
 * its run, and the states restored; SEQ counts the datapoints so far.
 */
static void run_phase(struct session *s, int i, uint64_t *seq)
{
	const struct wake_opts *o = &s->o;
	struct phase *ph = &s->phases[i];
	struct result *res = &s->res;
	struct cstate_session *cs = NULL;
	struct wake_cfg cfg = {
		.cpu = o->cpu, .sender_cpu = o->sender_cpu,
		.sources = o->sources,
		.ldist_min_ns = o->ldist.min_us * 1000,
		.ldist_max_ns = o->ldist.max_us * 1000,
		.count = o->count,
		.duration_ns = (uint64_t)(o->duration * 1e9),
		.priority = (int)o->priority,
		.seed = o->seed + (uint64_t)i,
		.floor = ph->floor,
		.floor_nospin = ph->floor && o->floor != FLOOR_SPIN,
		.setting = wake_summary_setting(s->sum, ph->label, ph->floor),
		.seq0 = *seq,
		.ci = &s->ci,
		.on_point = on_point,
		.arg = &s->sink,
		.packet_tx_fd = s->ns_fd,
		.packet_rx_addr = o->netns ? s->ns.host_addr : 0,
	};
	struct wake_run *run;
	static char why[512];	/* res->error may point here after the run */
	int ret;

	if (ph->only >= 0 || (ph->floor && o->floor != FLOOR_SPIN)) {
		cs = cstate_begin(o->cmdline);
		if (!cs) {
			res->error = "out of memory";
			return;
		}
		cstate_end_at_exit(cs);
		if (ph->floor && o->floor == FLOOR_PMQOS) {
			/* no exit latency tolerated: the governor keeps to
			 * polling */
			ret = cstate_set_resume(cs, (unsigned int)o->cpu, "n/a");
			if (ret) {
				snprintf(why, sizeof(why), "cannot set CPU %d's PM QoS resume latency: %s%s%s",
					 o->cpu, strerror(-ret), *cstate_error(cs) ? ": " : "",
					 cstate_error(cs));
				res->error = why;
			}
		}
		for (unsigned int k = 0; k < s->ci.n && !res->error &&
		     !(ph->floor && o->floor == FLOOR_PMQOS); k++) {
			/* --floor disable: every state, the kernel's
			 * governors then use state 0 (POLL on x86) */
			ret = cstate_set(cs, (unsigned int)o->cpu, k,
					 ph->floor || (int)k != ph->only);
			if (ret) {
				snprintf(why, sizeof(why), "cannot %s CPU %d state %s: %s%s%s",
					 ph->floor || (int)k != ph->only ? "disable" : "enable",
					 o->cpu, s->ci.name[k], strerror(-ret),
					 *cstate_error(cs) ? ": " : "",
					 cstate_error(cs));
				res->error = why;
			}
		}
	}
	if (!res->error) {
		ret = wake_run_start(&cfg, &run, why, sizeof(why));
		if (ret) {
			res->error = why;
		} else {
			res->interrupted = wait_phase(run, ph->label, o,
						      o->count * (uint64_t)popcount(o->sources));
			*seq += wake_run_points(run);
			if (wake_run_join(run, why, sizeof(why)))
				res->error = why;
		}
	}
	if (cs && cstate_end(cs) < 0 && !res->error)
		res->error = "cannot restore the idle states";
	if (s->sink.failed && !res->error)
		res->error = s->sink.spool && spool_error(s->sink.spool) ?
			     "cannot keep the datapoints (the spool in --out)" :
			     "out of memory for the statistics";
}

/* The rows of the result, how the run ended, and the table on stdout. */
static void report(struct session *s)
{
	struct result *res = &s->res;

	res->o = &s->o;
	res->ci = &s->ci;
	res->sum = s->sum;
	res->nrows = rows_build(s->sum, &res->rows);
	if (res->nrows < 0)
		opt_die(PROG, "out of memory");
	if (res->interrupted)
		fprintf(stderr, "%s: stopped by signal %d: what was measured is kept (status interrupted)\n",
			PROG, res->interrupted);
	if (res->error)
		fprintf(stderr, "%s: %s\n", PROG, res->error);
	if (!s->o.quiet)
		print_text(stdout, res);
	if (!s->o.quiet && res->split)
		print_split(stdout, res);
	fflush(stdout);
}

/* --out's files written and put in place; -1 (named on stderr) when one cannot be. */
static int commit_outputs(struct session *s)
{
	static const struct {
		const char *name;
		int (*write)(const char *, const struct result *);
	} files[] = {
		{ "summary.txt", write_summary_txt },
		{ "summary.csv", write_summary_csv },
		{ "summary.json", write_summary_json },
	};
	const char *out = s->o.out;
	int ret;

	ret = csv_close(s->sink.csv);
	if (ret) {
		fprintf(stderr, "%s: cannot write %s/wake.csv: %s\n",
			PROG, out, strerror(-ret));
		return -1;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		ret = stage_add(s->st, files[i].name, s->tmp, sizeof(s->tmp));
		if (!ret)
			ret = files[i].write(s->tmp, &s->res);
		if (ret) {
			fprintf(stderr, "%s: cannot write %s/%s: %s\n",
				PROG, out, files[i].name, strerror(-ret));
			return -1;
		}
	}
	if (stage_commit(s->st, s->err, sizeof(s->err))) {
		fprintf(stderr, "%s: cannot write %s\n", PROG, s->err);
		return -1;
	}
	return 0;
}

/* ---- --trace: 'wakebench trace record' around the run, then the split ---- */

/* The recorder's command: wakebench-trace beside this program. */
static void tracer_argv(struct session *s, char *prog, size_t len, char *cpus,
			size_t clen)
{
	char self[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		opt_die(PROG, "--trace: cannot find this program: %s", strerror(errno));
	self[n] = 0;
	slash = strrchr(self, '/');
	*slash = 0;
	snprintf(prog, len, "%s/wakebench-trace", self);
	if (access(prog, X_OK))
		opt_die(PROG, "--trace: %s: %s", prog, strerror(errno));
	/* the sender's CPU too: an IPI's sched_wakeup happens there */
	if (s->o.sender_cpu != s->o.cpu && s->o.sources != 1u << WAKE_SRC_TIMER)
		snprintf(cpus, clen, "%d,%d", s->o.cpu, s->o.sender_cpu);
	else
		snprintf(cpus, clen, "%d", s->o.cpu);
}

/* The recorder's stderr until it records (its line) or ends: 0 or -1. */
static int tracer_ready(struct session *s)
{
	char buf[4096];
	size_t used = 0;
	uint64_t end = clock_now_ns() + 30000000000ull;

	while (clock_now_ns() < end) {
		struct pollfd p = { .fd = s->tfd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(s->tfd, buf + used, sizeof(buf) - 1 - used);
		if (n <= 0)
			break;
		used += (size_t)n;
		buf[used] = 0;
		if (strstr(buf, ": recording in instance"))
			return 0;
		if (used == sizeof(buf) - 1)
			used = 0;	/* a line that long is not the one */
	}
	fprintf(stderr, "%s: --trace: the recorder did not start%s%s", PROG,
		used ? ":\n" : "\n", used ? buf : "");
	return -1;
}

/* Starts the recorder and waits until it records. */
static void tracer_start(struct session *s)
{
	char prog[4200], cpus[64];
	int p[2];

	tracer_argv(s, prog, sizeof(prog), cpus, sizeof(cpus));
	snprintf(s->tdir, sizeof(s->tdir), "%s/trace", s->o.out);
	if (pipe2(p, O_CLOEXEC))
		opt_die(PROG, "--trace: pipe: %s", strerror(errno));
	s->tpid = fork();
	if (s->tpid < 0)
		opt_die(PROG, "--trace: fork: %s", strerror(errno));
	if (!s->tpid) {
		sigset_t none;

		/* its own group (our Ctrl-C does not reach it: we stop it),
		 * its signals as a fresh process's, gone if we die */
		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(p[1], 2);
		execl(prog, prog, "record", "--out", s->tdir, "--cpus", cpus,
		      "--events", "sched:sched_switch", "--duration", "86400",
		      (char *)NULL);
		fprintf(stderr, "%s: %s: %s\n", PROG, prog, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	s->tfd = p[0];
	if (tracer_ready(s)) {
		kill(s->tpid, SIGTERM);
		waitpid(s->tpid, NULL, 0);
		exit(1);
	}
}

/* Stops the recorder (it keeps the trace); 0, or -1 said on stderr. */
static int tracer_stop(struct session *s)
{
	char buf[4096];
	ssize_t n;
	int st = 0;

	kill(s->tpid, SIGINT);
	while (waitpid(s->tpid, &st, 0) < 0 && errno == EINTR)
		;
	/* what it said after its ready line: its summary, or why it failed */
	while ((n = read(s->tfd, buf, sizeof(buf))) > 0)
		if (!s->o.quiet || !WIFEXITED(st) || WEXITSTATUS(st))
			fwrite(buf, 1, (size_t)n, stderr);
	close(s->tfd);
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	fprintf(stderr, "%s: --trace: the recorder failed (status %d): the wakes are not split\n",
		PROG, st);
	return -1;
}

static int split_event(void *ctx, struct tl_event *e, char *err, size_t errlen)
{
	return tracefile_stream_next(ctx, e, err, errlen);
}

/* A split datapoint into its group's means. */
static void split_add(struct session *s, const struct wake_point *p,
		      const struct wake_split *sp)
{
	struct wake_group *g = wake_summary_find(s->sum, p->source, p->setting,
						 p->state);
	struct split_acc *a;

	if (!g || !sp->known)
		return;
	a = &s->split[g - s->sum->group];
	a->n++;
	for (int k = 0; k < WAKE_NSEG; k++)
		if (k != WAKE_SEG_TO_USER)
			a->sum[k] += sp->seg[k];
	if (sp->have_switch) {
		a->n_user++;
		a->sum[WAKE_SEG_TO_USER] += sp->seg[WAKE_SEG_TO_USER];
	}
}

/*
 * wake.csv from the spooled datapoints, each with its split from the
 * trace (unsplit when the trace cannot be read: said once).
 */
static void split_points(struct session *s, int traced)
{
	struct trace_meta m = { 0 };
	struct tf_decode dec = { 0 };
	struct tf_stream *ts = NULL;
	struct wake_splitter *w = NULL;
	struct wake_point p;
	struct wake_split sp;
	int ret;

	if (traced && !tracefile_meta(s->tdir, &m, s->err, sizeof(s->err)) &&
	    !tracefile_stream_open(s->tdir, &m, &dec, &ts, s->err, sizeof(s->err)))
		w = wake_splitter_new((uint32_t)s->o.cpu, split_event, ts);
	else if (traced)
		fprintf(stderr, "%s: --trace: %s: the wakes are not split\n", PROG, s->err);
	if (w)
		s->res.split = s->split;
	ret = spool_rewind(s->sink.spool);
	while (!ret && (ret = spool_next(s->sink.spool, &p)) > 0) {
		if (w && wake_split_next(w, p.launch_ns, p.wake_ns, p.tid, &sp,
					 s->err, sizeof(s->err))) {
			fprintf(stderr, "%s: --trace: %s: the rest is not split\n", PROG, s->err);
			wake_splitter_free(w);
			w = NULL;
		}
		write_row(&s->sink, &p, w ? &sp : NULL);
		if (w)
			split_add(s, &p, &sp);
		ret = 0;
	}
	if (ret < 0 && !s->res.error)
		s->res.error = "cannot read the datapoints back (the spool in --out)";
	wake_splitter_free(w);
	tracefile_stream_close(ts);
	tracefile_meta_free(&m);
	spool_close(s->sink.spool);
	s->sink.spool = NULL;
}

/* ---- --netns ---- */

static struct wake_netns *ns_live;

/* Every exit after the namespace was made (opt_die too) removes it. */
static void ns_atexit(void)
{
	if (ns_live)
		wake_netns_remove(ns_live);
}

/* The namespace, its veth pair and the sender's socket in it. */
static void netns_setup(struct session *s)
{
	char gone[256];
	int n = wake_netns_stale(gone, sizeof(gone));

	if (n > 0)
		fprintf(stderr, "%s: removed the namespaces of killed runs: %s\n", PROG, gone);
	if (geteuid())
		opt_usage(PROG, "--netns makes a network namespace: it needs root");
	if (wake_netns_create(&s->ns, s->o.cpu, s->err, sizeof(s->err)))
		opt_die(PROG, "--netns: %s", s->err);
	ns_live = &s->ns;
	atexit(ns_atexit);
	if (wake_netns_socket(&s->ns, &s->ns_fd, s->err, sizeof(s->err)))
		opt_die(PROG, "--netns: %s", s->err);
}

/* Removed at the end, said when it cannot be. */
static void netns_teardown(struct session *s)
{
	close(s->ns_fd);
	if (wake_netns_remove(&s->ns))
		fprintf(stderr, "%s: --netns: cannot remove namespace %s (ip netns del %s)\n",
			PROG, s->ns.name, s->ns.name);
	ns_live = NULL;
}

int main(int argc, char **argv)
{
	static struct wake_summary sum;
	static struct session s = {
		.o = {
			.sources = 1u << WAKE_SRC_TIMER,
			.ldist = { 0, 4000 },
			.count = 1000,
			.settings = { WAKE_SET_ALL },
			.nsettings = 1,
			.seed = 1,
		},
		.sum = &sum,
	};
	uint64_t seq = 0;
	int rc;

	s.ncpu = cpu_count();
	plan_run(&s, parse_args(&s, argc, argv));
	setup_main_thread(&s);
	open_outputs(&s);
	if (s.o.netns)
		netns_setup(&s);
	if (s.o.trace) {
		int ret = spool_open(&s.sink.spool, s.o.out, sizeof(struct wake_point));

		if (ret)
			opt_die(PROG, "--trace: cannot keep datapoints in %s: %s", s.o.out,
				strerror(-ret));
		tracer_start(&s);
	}
	for (int i = 0; i < s.nphases && !s.res.interrupted && !s.res.error; i++)
		run_phase(&s, i, &seq);
	if (s.o.trace)
		split_points(&s, !tracer_stop(&s));
	if (s.o.netns)
		netns_teardown(&s);
	report(&s);
	if (s.o.out && commit_outputs(&s))
		rc = 1;
	else
		rc = s.res.error || s.res.interrupted ? 1 : 0;
	stage_free(s.st);
	free(s.res.rows);
	wake_summary_free(&sum);
	wake_cpuidle_close(&s.ci);
	free(s.o.cmdline);
	return rc;
}
