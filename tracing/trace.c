// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench trace: record, timeline, attribute, residency, turbostat,
 * capture, export, import, cleanup.
 *
 * timeline and attribute read the trace once, in time order
 * (lib/tracefile's stream), and write as they go: memory is bounded by
 * the CPUs and what is still open, not by the trace's length.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "attrib.h"
#include "cpu.h"
#include "cpuset.h"
#include "csv.h"
#include "die.h"
#include "hist.h"
#include "hwcstate.h"
#include "opt.h"
#include "reqlog.h"
#include "timeline.h"
#include "trace.h"
#include "tracefile.h"
#include "traceout.h"

/* A trace opened for one pass. */
struct trace_in {
	const char *dir;
	struct trace_meta m;
	struct tf_decode o;
	struct tf_stream *s;
	/* recorded[cpu]: DIR has its cpuN.raw (trace record --cpus leaves
	 * the others out: nothing is known of them); partial: some lack it */
	unsigned char *recorded;
	int partial;
	char *cpus;		/* the recorded CPUs, "0,2-3" */
};

/* "0,2-3" of the CPUs whose mask[] is set (or, !set, clear), whole. */
static char *cpu_list(const unsigned char *mask, uint32_t n, int set)
{
	struct cpuset *s = cpuset_new((int)n);
	char *text = s ? malloc(cpuset_list_len(s)) : NULL;

	if (!text)
		opt_die(TRACE_PROG, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		if (!mask[i] == !set)
			cpuset_set(s, (int)i);
	cpuset_format_list(s, text, cpuset_list_len(s));
	cpuset_free(s);
	return text;
}

static void trace_open(struct trace_in *in, const char *dir, int skip_corrupt)
{
	char err[6000];

	memset(in, 0, sizeof(*in));
	in->dir = dir;
	in->o.skip_corrupt = skip_corrupt;
	/* decoding on one core, the analysis and its CSVs on another */
	in->o.prefetch = 1;
	if (tracefile_meta(dir, &in->m, err, sizeof(err)))
		opt_die(TRACE_PROG, "%s", err);
	if (tracefile_stream_open(dir, &in->m, &in->o, &in->s, err, sizeof(err)))
		opt_die(TRACE_PROG, "%s", err);
	/* as the stream reads them: a CPU without its file was not recorded */
	in->recorded = calloc(in->m.ncpus, 1);
	if (!in->recorded)
		opt_die(TRACE_PROG, "out of memory");
	if (tracefile_recorded(dir, in->m.ncpus, in->recorded, err, sizeof(err)))
		opt_die(TRACE_PROG, "%s", err);
	for (uint32_t cpu = 0; cpu < in->m.ncpus; cpu++)
		in->partial |= !in->recorded[cpu];
	in->cpus = cpu_list(in->recorded, in->m.ncpus, 1);
}

/* A stream error ends the command, naming the page when it was one. */
static void stream_die(const struct trace_in *in, const char *err)
{
	opt_die(TRACE_PROG, "%s%s", err,
		strstr(err, "page") && !in->o.skip_corrupt ?
		" (--skip-corrupt skips such pages)" : "");
}

static void trace_close(struct trace_in *in)
{
	tracefile_stream_close(in->s);
	tracefile_meta_free(&in->m);
	free(in->recorded);
	free(in->cpus);
}

/* What a pass found that a user must know: skipped pages, lost events. */
static void trace_warnings(const struct trace_in *in, const struct timeline *t)
{
	if (in->o.corrupt_pages)
		fprintf(stderr, "%s: warning: skipped %llu corrupt page%s (--skip-corrupt); the first: %s\n",
			TRACE_PROG, (unsigned long long)in->o.corrupt_pages,
			in->o.corrupt_pages == 1 ? "" : "s", in->o.first_corrupt);
	for (uint32_t cpu = 0; cpu < in->m.ncpus; cpu++)
		if (in->m.overrun[cpu] || in->m.dropped[cpu])
			fprintf(stderr, "%s: cpu%u lost events: overrun %llu, dropped %llu (raise --buffer-kb)\n",
				TRACE_PROG, cpu, (unsigned long long)in->m.overrun[cpu],
				(unsigned long long)in->m.dropped[cpu]);
	if (timeline_rejected(t))
		fprintf(stderr, "%s: %llu events out of order or for unknown CPUs, skipped\n",
			TRACE_PROG, (unsigned long long)timeline_rejected(t));
}

/* A CPU without any cpu_idle event: its state is unknown throughout. */
static void idle_warning(FILE *out, uint32_t cpu)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "warning: cpu%u: no cpu_idle events recorded for it (busy for the whole trace, or its idle loop emits none); its C-state is unknown throughout",
		 cpu);
	fprintf(stderr, "%s: %s\n", TRACE_PROG, msg);
	if (out != stderr)
		fprintf(out, "%s\n", msg);
}

/* "ipi:reschedule", "irq:virtio0-input.0", "none" */
static const char *wake_text(uint32_t cause, const char *detail, char *buf,
			     size_t len)
{
	snprintf(buf, len, "%s%s%s", timeline_cause_name(cause), *detail ? ":" : "",
		 detail);
	return buf;
}

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

/* Enough open files for one CSV per CPU beside the stream's cpuN.raw
 * of each (a machine of many CPUs: n + 32 failed past 500 CPUs). */
static void files_for(uint32_t n)
{
	rlim_t need = 2 * (rlim_t)n + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ?
		      need : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur < need)
		opt_die(TRACE_PROG, "%u CPUs need %llu open files; the limit is %llu (ulimit -n)",
			n, (unsigned long long)need, (unsigned long long)rl.rlim_cur);
}

static struct csv *csv_create(const char *dir, const char *name, const char *header)
{
	char path[4096];
	struct csv *c;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	c = csv_open(path);
	if (!c)
		opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
	csv_header(c, header);
	return c;
}

int trace_csv_close(struct csv *c, const char *path)
{
	int ret = csv_close(c);

	if (!ret)
		return 0;
	fprintf(stderr, "%s: cannot write %s: %s\n", TRACE_PROG, path, strerror(-ret));
	return 1;
}

/* trace_csv_close of DIR/name, as csv_create made it */
static int csv_done(struct csv *c, const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return trace_csv_close(c, path);
}

#define SKIP_CORRUPT(type)						\
	{ .name = "skip-corrupt", .kind = CLI_FLAG,			\
	  .help = "skip a corrupt or truncated page, counted\n"	\
		  "and warned about (default: an error naming\n"		\
		  "its file, CPU, page and offset)",			\
	  .off = CLI_AT(type, skip) }

/*
 * The residency the hardware counted (trace record's hw-residency.csv,
 * perf cstate counters over the recording) under the OS-requested one
 * the trace gives: where the two differ, the hardware demoted or promoted
 * what cpu_idle asked for. Absent (VMs, older traces): one line saying so.
 */
static void print_hw_residency(const char *dir)
{
	struct hwcstate_row *rows;
	char path[4096], err[512];
	int n;

	snprintf(path, sizeof(path), "%s/hw-residency.csv", dir);
	n = hwcstate_read_csv(path, &rows, err, sizeof(err));
	if (n == -ENOENT)
		return;		/* recorded before there was one */
	if (n < 0) {
		fprintf(stderr, "%s: warning: %s\n", TRACE_PROG, err);
		return;
	}
	if (!n) {
		printf("hardware residency: none counted (no cstate_core or cstate_pkg PMU, see meta.txt hw_residency)\n");
		return;
	}
	printf("hardware residency over the recording (perf cstate counters; above: what cpu_idle asked for)\n");
	printf("%-8s %-4s %-6s %8s %16s\n", "scope", "cpu", "state", "percent", "tsc_cycles");
	for (int i = 0; i < n; i++) {
		char pct[32];

		if (rows[i].percent == rows[i].percent)	/* not NaN */
			snprintf(pct, sizeof(pct), "%.3f", rows[i].percent);
		else
			snprintf(pct, sizeof(pct), "-");
		printf("%-8s %-4d %-6s %8s %16llu\n", hwcstate_scope_name(rows[i].scope),
		       rows[i].cpu, rows[i].state, pct, (unsigned long long)rows[i].count);
	}
	free(rows);
}

/* ---- timeline ---------------------------------------------------------- */

struct wake_count {
	uint32_t cause, detail;
	uint64_t count;
	char text[300];		/* "ipi:call_function_single" */
};

/* Per CPU: its C-state file, the wake of its next idle row, residency,
 * and the wakes counted by cause and detail (a few rows). */
struct cpu_out {
	struct csv *cs;
	uint64_t sample;
	int have_wake;
	struct tl_wake wake;
	size_t wake_wc;		/* its entry in wc */
	struct tl_restab res;
	struct wake_count *wc;
	size_t nwc, wccap;
	uint64_t wakes;
};

struct tl_writer {
	const struct trace_meta *m;
	const struct cpuset *mask;	/* NULL: every CPU */
	struct timeline *t;
	uint64_t start;
	struct cpu_out *cpu;
	struct csv *irq, *markers;
	uint64_t irq_sample;
};

static int tw_wake(void *ctx, const struct tl_wake *w, const char *detail)
{
	struct tl_writer *tw = ctx;
	struct cpu_out *c = &tw->cpu[w->cpu];
	size_t i;

	if (!c->cs)
		return 0;
	c->have_wake = 1;
	c->wake = *w;
	c->wakes++;
	for (i = 0; i < c->nwc; i++)
		if (c->wc[i].cause == w->cause && c->wc[i].detail == w->detail)
			break;
	if (i == c->nwc) {
		if (c->nwc == c->wccap) {
			/* from 4: an idle CPU of a big host has a cause
			 * or two, and the rows are 300 bytes */
			size_t ncap = c->wccap ? 2 * c->wccap : 4;
			struct wake_count *n = realloc(c->wc, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			c->wc = n;
			c->wccap = ncap;
		}
		c->wc[c->nwc] = (struct wake_count){ w->cause, w->detail, 0, "" };
		wake_text(w->cause, detail, c->wc[c->nwc].text, sizeof(c->wc[0].text));
		c->nwc++;
	}
	c->wc[i].count++;
	c->wake_wc = i;
	return 0;
}

static int tw_interval(void *ctx, uint32_t cpu, const struct tl_interval *iv)
{
	struct tl_writer *tw = ctx;
	struct cpu_out *c = &tw->cpu[cpu];
	char buf[32];

	if (!c->cs)
		return 0;
	csv_u64(c->cs, ++c->sample);
	csv_fixed(c->cs, iv->end - tw->start, 6);
	csv_str(c->cs, tracefile_state_name(tw->m, cpu, iv->state, buf, sizeof(buf)));
	csv_fixed(c->cs, iv->end - iv->start, 6);
	/* the wake that ended an idle stay */
	if (iv->state != TL_C0 && c->have_wake && c->wake.ts == iv->end)
		csv_str(c->cs, c->wc[c->wake_wc].text);
	else
		csv_empty(c->cs);
	csv_end_row(c->cs);
	return tl_restab_add(&c->res, iv);
}

static int tw_irq(void *ctx, const struct tl_irq *q, const char *name)
{
	struct tl_writer *tw = ctx;

	if (tw->mask && !cpuset_test(tw->mask, (int)q->cpu))
		return 0;
	csv_u64(tw->irq, ++tw->irq_sample);
	csv_fixed(tw->irq, q->ts - tw->start, 6);
	csv_u64(tw->irq, q->irq);
	csv_str(tw->irq, name);
	csv_fixed(tw->irq, q->since_prev_ns, 6);
	csv_u64(tw->irq, q->cpu);
	csv_fixed(tw->irq, q->handler_ns, 6);
	csv_end_row(tw->irq);
	return 0;
}

static int tw_marker(void *ctx, const struct tl_event *e)
{
	struct tl_writer *tw = ctx;

	csv_u64(tw->markers, e->ts);
	csv_u64(tw->markers, e->cpu);
	csv_str(tw->markers, e->str ? e->str : "");
	csv_end_row(tw->markers);
	return 0;
}

static int cmp_wake_count(const void *a, const void *b)
{
	const struct wake_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	return (x->detail > y->detail) - (x->detail < y->detail);
}

/*
 * wakeups.csv rows of cpu: each (cause, detail) with its count and share
 * of the CPU's idle exits, most frequent first; printed too.
 */
static void write_wakeups(struct csv *c, const struct timeline *t, uint32_t cpu,
			  struct cpu_out *o)
{
	if (o->nwc)	/* qsort of a NULL array is undefined */
		qsort(o->wc, o->nwc, sizeof(*o->wc), cmp_wake_count);
	if (o->wakes)
		printf("cpu %u: %llu idle exits woken by", cpu,
		       (unsigned long long)o->wakes);
	for (size_t i = 0; i < o->nwc; i++) {
		double pct = 100.0 * (double)o->wc[i].count / (double)o->wakes;
		const char *d = timeline_string(t, o->wc[i].detail);

		csv_u64(c, cpu);
		csv_str(c, timeline_cause_name(o->wc[i].cause));
		csv_str(c, d);
		csv_u64(c, o->wc[i].count);
		csv_double(c, pct, 3);
		csv_end_row(c);
		if (i < 4)
			printf("%s %s%s%s %.1f%%", i ? "," : "",
			       timeline_cause_name(o->wc[i].cause), *d ? ":" : "", d, pct);
	}
	if (o->wakes)
		printf("%s\n", o->nwc > 4 ? ", ..." : "");
}

struct timeline_opts {
	const char *cpus;
	uint64_t from, to;
	int skip;
};

static const struct cli_opt timeline_options[] = {
	{ .name = "cpus", .short_name = 'c', .kind = CLI_STRING, .arg = "LIST",
	  .help = "these CPUs of the trace only (default: all)",
	  .off = CLI_AT(struct timeline_opts, cpus) },
	{ .name = "from-ns", .short_name = 'f', .kind = CLI_UINT, .arg = "NS",
	  .max = 18446744073709551615.0,
	  .help = "residency.csv from this CLOCK_MONOTONIC time",
	  .off = CLI_AT(struct timeline_opts, from) },
	{ .name = "to-ns", .short_name = 't', .kind = CLI_UINT, .arg = "NS",
	  .max = 18446744073709551615.0,
	  .help = "residency.csv up to this time",
	  .off = CLI_AT(struct timeline_opts, to) },
	SKIP_CORRUPT(struct timeline_opts),
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

const struct cli_cmd trace_timeline_cmd = {
	.prog = TRACE_PROG,
	.usage = "Usage: wakebench trace timeline DIR [options]",
	.about =
"SocWatch-style CSVs from a recorded trace: DIR/cstate-cpuN.csv (Sample #,\n"
"Continuous Time (ms),C-State,Duration (ms),Wake Cause), DIR/wakeups.csv\n"
"(cpu,cause,detail,count,percent: what woke each CPU from idle, the first\n"
"interrupt, IPI, local timer or softirq after its idle entry), DIR/irq.csv (Sample #,\n"
"Continuous Time (ms),IRQ No,Interface,Duration (ms),CPU,Handler (ms)),\n"
"DIR/residency.csv (over --from-ns/--to-ns when given) and markers.csv. A\n"
"CPU without cpu_idle events is warned about. One pass over the trace:\n"
"memory does not grow with its length.\n",
	.col = 22,
	.max_args = 1,
	.opts = timeline_options,
};

/*
 * Each traced CPU's residency table and its cstate-cpuN.csv (a CPU --cpus
 * leaves out, or one not recorded, gets none), irq.csv and markers.csv.
 */
static void tl_open_outputs(struct tl_writer *tw, const struct trace_in *in,
			    const struct timeline_opts *o, const struct cpuset *mask,
			    const char *dir)
{
	char file[64];

	for (uint32_t cpu = 0; cpu < in->m.ncpus; cpu++) {
		tl_restab_init(&tw->cpu[cpu].res, in->m.start_ns, o->from, o->to);
		if (mask && !cpuset_test(mask, (int)cpu))
			continue;
		if (!in->recorded[cpu]) {
			if (mask)
				fprintf(stderr, "%s: warning: --cpus: cpu%u was not recorded in %s: left out\n",
					TRACE_PROG, cpu, dir);
			continue;
		}
		snprintf(file, sizeof(file), TRACEOUT_CSTATE_FMT, cpu);
		tw->cpu[cpu].cs = csv_create(dir, file,
			"Sample #,Continuous Time (ms),C-State,Duration (ms),Wake Cause");
		/* 8 MB of buffers for them all: 64 KB each at 128 CPUs and
		 * fewer, 16 KB at 512 (an idle CPU's rows come slowly, the
		 * whole trace long) */
		csv_buffer_max(tw->cpu[cpu].cs, (8u << 20) / in->m.ncpus);
	}
	tw->irq = csv_create(dir, TRACEOUT_IRQ, "Sample #,Continuous Time (ms),IRQ No,Interface,"
			    "Duration (ms),CPU,Handler (ms)");
	tw->markers = csv_create(dir, TRACEOUT_MARKERS, "ts_ns,cpu,text");
}

/* The trace's events through the timeline, to its end; exits on a corrupt trace. */
static void tl_stream(struct tl_writer *tw, struct trace_in *in)
{
	struct tl_event e;
	char err[6000];
	int ret;

	while ((ret = tracefile_stream_next(in->s, &e, err, sizeof(err))) > 0) {
		ret = timeline_add(tw->t, &e);
		if (ret && ret != -EINVAL)
			break;
	}
	if (ret < 0 && ret != -EINVAL && !err[0])
		snprintf(err, sizeof(err), "%s", ret == -E2BIG ?
			 "corrupt trace: more idle states or IRQ numbers than a kernel has" :
			 strerror(-ret));
	if (ret < 0 && ret != -EINVAL)
		stream_die(in, err);
	ret = timeline_finish(tw->t, in->m.end_ns);
	if (ret)
		opt_die(TRACE_PROG, "%s", ret == -E2BIG ?
			"corrupt trace: more idle states than a kernel has" : strerror(-ret));
}

/* CPU's residency rows, on stdout and in residency.csv (RES). */
static void tl_residency_rows(struct csv *res, const struct trace_in *in, uint32_t cpu,
			      const struct cpu_out *c, uint64_t span, int no_idle)
{
	char buf[32];

	for (size_t i = 0; i < c->res.n; i++) {
		const struct tl_residency *r = &c->res.rows[i];
		double pct = span ? 100.0 * r->time_ns / span : 0;
		double avg = r->entries ? r->time_ns / 1e3 / r->entries : 0;
		const char *name = tracefile_state_name(&in->m, cpu, r->state,
							buf, sizeof(buf));

		printf("%-4u %-14s %8.3f %9llu %12.3f %12.3f\n", cpu, name,
		       pct, (unsigned long long)r->entries, avg, ms(r->time_ns));
		csv_u64(res, cpu);
		csv_str(res, name);
		csv_double(res, pct, 4);
		csv_u64(res, r->entries);
		csv_double(res, avg, 3);
		csv_fixed(res, r->time_ns, 6);
		if (no_idle)
			csv_str(res, "no cpu_idle events recorded for this CPU");
		else
			csv_empty(res);
		csv_end_row(res);
	}
}

/* The events recorded and lost, the idle events, the corrupt pages skipped, the files. */
static void tl_counts(const struct trace_in *in, uint64_t idle, const char *dir)
{
	uint64_t lost = 0;

	for (uint32_t cpu = 0; cpu < in->m.ncpus; cpu++)
		lost += in->m.overrun[cpu] + in->m.dropped[cpu];
	printf("events: %llu in the trace, %llu lost\n",
	       (unsigned long long)in->o.recorded, (unsigned long long)lost);
	printf("cpu_idle events: %llu\n", (unsigned long long)idle);
	if (in->o.corrupt_pages)
		printf("warning: %llu corrupt pages skipped (--skip-corrupt)\n",
		       (unsigned long long)in->o.corrupt_pages);
	printf("wrote %s/cstate-cpuN.csv, wakeups.csv, irq.csv, residency.csv, markers.csv\n", dir);
}

int trace_timeline(int argc, char **argv)
{
	struct timeline_opts o = { .to = UINT64_MAX };
	struct trace_in in;
	struct tl_writer tw = { 0 };
	struct tl_sink sink = { .ctx = &tw, .wake = tw_wake, .interval = tw_interval,
				.irq = tw_irq, .marker = tw_marker };
	struct cpuset *mask = NULL;
	struct csv *res, *wk;
	char file[64];
	uint64_t idle = 0, lo, hi, span;
	int rc = 0, first;
	const char *dir;

	first = cli_parse(&trace_timeline_cmd, argc, argv, &o);
	if (first + 1 != argc)
		opt_usage(TRACE_PROG, "timeline needs one trace DIR");
	dir = argv[first];
	trace_open(&in, dir, o.skip);
	if (o.cpus)
		mask = opt_cpus(TRACE_PROG, o.cpus, (int)in.m.ncpus);
	files_for(in.m.ncpus);
	tw.m = &in.m;
	tw.mask = mask;
	tw.start = in.m.start_ns;
	tw.cpu = calloc(in.m.ncpus, sizeof(*tw.cpu));
	tw.t = timeline_stream(in.m.ncpus, in.m.start_ns, &sink);
	if (!tw.cpu || !tw.t)
		opt_die(TRACE_PROG, "out of memory");
	if (in.m.no_causes)
		timeline_no_causes(tw.t);
	/* A CPU left out of the recording (trace record --cpus) has no
	 * cpuN.raw: nothing is known of it, so it has no rows at all (not
	 * 100 % unknown). */
	if (in.partial)
		printf("recorded CPUs: %s of %u (trace record --cpus); the others are not in the tables\n",
		       in.cpus, in.m.ncpus);
	tl_open_outputs(&tw, &in, &o, mask, dir);
	tl_stream(&tw, &in);
	res = csv_create(dir, TRACEOUT_RESIDENCY, "cpu,state,percent,entries,avg_stay_us,time_ms,note");
	wk = csv_create(dir, TRACEOUT_WAKEUPS, "cpu,cause,detail,count,percent");
	lo = o.from > timeline_start(tw.t) ? o.from : timeline_start(tw.t);
	hi = o.to < timeline_end(tw.t) ? o.to : timeline_end(tw.t);
	span = hi > lo ? hi - lo : 0;
	printf("%-4s %-14s %8s %9s %12s %12s\n", "cpu", "state", "percent",
	       "entries", "avg_stay_us", "time_ms");
	for (uint32_t cpu = 0; cpu < in.m.ncpus; cpu++) {
		struct cpu_out *c = &tw.cpu[cpu];
		int no_idle = !timeline_idle_events(tw.t, cpu);

		idle += timeline_idle_events(tw.t, cpu);
		if (!c->cs)
			continue;
		if (no_idle)
			idle_warning(stdout, cpu);
		snprintf(file, sizeof(file), TRACEOUT_CSTATE_FMT, cpu);
		rc |= csv_done(c->cs, dir, file);
		write_wakeups(wk, tw.t, cpu, c);
		tl_residency_rows(res, &in, cpu, c, span, no_idle);
	}
	rc |= csv_done(res, dir, TRACEOUT_RESIDENCY);
	rc |= csv_done(wk, dir, TRACEOUT_WAKEUPS);
	rc |= csv_done(tw.irq, dir, TRACEOUT_IRQ);
	rc |= csv_done(tw.markers, dir, TRACEOUT_MARKERS);
	print_hw_residency(dir);
	trace_warnings(&in, tw.t);
	tl_counts(&in, idle, dir);
	for (uint32_t cpu = 0; cpu < in.m.ncpus; cpu++) {
		tl_restab_free(&tw.cpu[cpu].res);
		free(tw.cpu[cpu].wc);
	}
	free(tw.cpu);
	timeline_free(tw.t);
	trace_close(&in);
	cpuset_free(mask);
	return rc;
}

/* ---- attribute --------------------------------------------------------- */

/*
 * Latency (or idle exit to receive) grouped by state at arrival and by
 * pre-query; exact percentiles up to HIST_EXACT_MAX samples per group,
 * the histogram's (within 1 %) beyond, as hist keeps them.
 */
static void summary_csv(struct csv *c, const char *group, const char *value,
			struct hist *h, uint64_t uncertain,
			const struct attr_share *sh)
{
	csv_str(c, group);
	csv_str(c, value);
	csv_u64(c, hist_count(h));
	csv_double(c, hist_mean(h) / 1e3, 3);
	csv_double(c, hist_percentile_exact(h, 0.5) / 1e3, 3);
	csv_double(c, hist_percentile_exact(h, 0.9) / 1e3, 3);
	csv_double(c, hist_percentile_exact(h, 0.99) / 1e3, 3);
	csv_u64(c, (uint64_t)hist_exact(h));
	csv_u64(c, uncertain);
	/* appended: the traced wake beside the latency (attrib.h) */
	if (sh && attrib_share_n(sh))
		csv_u64(c, attrib_share_n(sh));
	else
		csv_empty(c);
	csv_double(c, sh ? attrib_share_wake(sh) / 1e3 : NAN, 3);	/* NaN: empty */
	csv_double(c, sh ? attrib_share_pct(sh) : NAN, 2);
	csv_end_row(c);
}

/* The same row, printed too. */
static void summary_row(struct csv *c, const char *group, const char *value,
			struct hist *h, uint64_t uncertain,
			const struct attr_share *sh)
{
	printf("%-14s %-14s %8llu %10.3f %10.3f %10.3f %10.3f %9llu %9.3f %7.1f%s\n",
	       group, value, (unsigned long long)hist_count(h), hist_mean(h) / 1e3,
	       hist_percentile_exact(h, 0.5) / 1e3,
	       hist_percentile_exact(h, 0.9) / 1e3,
	       hist_percentile_exact(h, 0.99) / 1e3, (unsigned long long)uncertain,
	       attrib_share_wake(sh) / 1e3, attrib_share_pct(sh),
	       hist_exact(h) ? "" : " ~");
	summary_csv(c, group, value, h, uncertain, sh);
}

/* The breakdown of the requests of one state and pre-query class. */
enum { SEG_HW, SEG_KERNEL, SEG_SCHED, SEG_WAKE, SEG_LATENCY, NSEG };

struct bd_group {
	int32_t state;
	enum attr_pq pq;
	uint64_t count, complete;
	struct hist *h[NSEG];
	struct hist *x;		/* what the summary groups: latency or
				 * exit-to-receive */
	struct attr_share share;
	uint64_t unc;
};

#define STATE_SLOTS (TRACEFILE_MAX_STATES + 3)	/* unknown, C0, states, other */

struct attr_out {
	const struct trace_meta *m;
	int cpu;
	struct csv *out;
	struct reqlog_join *join;
	const char *client;
	int markers;
	struct timeline *t;
	/* the summaries */
	struct hist *by_state[STATE_SLOTS], *by_pq[2], *by_class[ATTR_PQ_KINDS];
	struct bd_group bd[STATE_SLOTS][ATTR_PQ_KINDS];
	uint64_t n, matched, outside, missing;
	/* state uncertain (attrib.h), per request and per summary row; and
	 * idle exits before the client's send, made C0 */
	uint64_t uncertain, unsent;
	uint64_t unc_state[STATE_SLOTS], unc_pq[2], unc_class[ATTR_PQ_KINDS];
	/* the traced wake beside the latency, per summary row */
	struct attr_share sh_state[STATE_SLOTS], sh_pq[2], sh_class[ATTR_PQ_KINDS],
			  sh_miss[ATTR_MISS_KINDS];
	/* the governor's misses (power:cpu_idle_miss), where recorded */
	int idle_miss;
	struct hist *by_miss[ATTR_MISS_KINDS];
	uint64_t unc_miss[ATTR_MISS_KINDS], misses[ATTR_MISS_KINDS];
	uint32_t cause, detail;	/* of cause_text */
	char cause_text[300];
	char err[512];
};

static int state_slot(int32_t state)
{
	return state < TL_UNKNOWN ? STATE_SLOTS - 1 :
	       state + 2 < STATE_SLOTS - 1 ? state + 2 : STATE_SLOTS - 1;
}

/* Exact percentiles per group up to this many requests, the histogram's
 * (within HIST_REL_ERROR) beyond: memory stays flat on a long run. */
#define GROUP_EXACT_MAX 100000

static struct hist *lazy_hist(struct hist **h)
{
	if (!*h) {
		*h = hist_new(1);
		if (*h)
			hist_set_exact_max(*h, GROUP_EXACT_MAX);
	}
	return *h;
}

static void hist_put(struct hist **h, uint64_t v)
{
	if (lazy_hist(h))
		hist_add(*h, v);
}

static void csv_ns(struct csv *c, uint64_t ns)
{
	if (ns)
		csv_u64(c, ns);
	else
		csv_empty(c);
}

/*
 * Client latency of a result (0: none). From markers the client row of
 * the same seq counts only if the marker lies within the row's server
 * receive..send; from the server log the row is the one with the same
 * server receive and send times.
 */
static int join_client(struct attr_out *ao, struct attr_result *r, uint64_t *lat)
{
	struct cli_row row;
	int ret;

	*lat = 0;
	ret = reqlog_join_find(ao->join, r->seq, r->recv_ns, r->send_ns, &row,
			       ao->err, sizeof(ao->err));
	if (ret < 0)
		return ret;
	if (ret && ao->markers && row.srv_recv_ns && row.srv_send_ns &&
	    (r->recv_ns < row.srv_recv_ns || r->recv_ns > row.srv_send_ns)) {
		ao->outside++;
		return 0;
	}
	if (!ret || !row.latency_ns) {
		ao->missing++;
		return 0;
	}
	*lat = row.latency_ns;
	if (r->idle_end_ns) {
		attrib_client_send(r, row.sent_ns);
		ao->unsent += !r->idle_end_ns;
	}
	attrib_client_lead(r, row.pq_lead_ns);
	ao->matched++;
	return 0;
}

/* Request R's row of attribution.csv (LAT: its client latency, 0: none). */
static void attr_row(struct attr_out *ao, const struct attr_result *res, uint64_t lat)
{
	const struct attr_result r = *res;
	struct csv *out = ao->out;
	char buf[32];

	csv_u64(out, r.seq);
	csv_u64(out, r.recv_ns);
	csv_str(out, tracefile_state_name(ao->m, (uint32_t)ao->cpu, r.state, buf,
					  sizeof(buf)));
	if (r.idle_end_ns) {
		csv_u64(out, r.idle_end_ns);
		csv_fixed(out, r.exit_to_recv_ns, 3);
	} else {
		csv_empty(out);
		csv_empty(out);
	}
	csv_u64(out, (uint64_t)r.prequery_woke);
	if (lat)
		csv_fixed(out, lat, 3);
	else
		csv_empty(out);
	csv_str(out, attrib_pq_name(r.prequery));
	/* the wake, appended */
	if (r.idle_end_ns) {
		/* the same few causes again and again: formatted once */
		if (!ao->cause_text[0] || r.cause != ao->cause || r.detail != ao->detail) {
			ao->cause = r.cause;
			ao->detail = r.detail;
			wake_text(r.cause, timeline_string(ao->t, r.detail),
				  ao->cause_text, sizeof(ao->cause_text));
		}
		csv_str(out, ao->cause_text);
	} else
		csv_empty(out);
	csv_ns(out, r.cause_ns);
	csv_ns(out, r.wakeup_ns);
	csv_ns(out, r.switch_ns);
	csv_ns(out, r.netrx_ns);
	if (r.state >= 0 || r.state == TL_C0) {
		csv_fixed(out, r.hw_exit_ns, 3);
		if (r.have_breakdown) {
			csv_fixed(out, r.kernel_ns, 3);
			csv_fixed(out, r.sched_ns, 3);
		} else {
			csv_empty(out);
			csv_empty(out);
		}
		csv_fixed(out, r.wake_ns, 3);
	} else {
		for (int k = 0; k < 4; k++)
			csv_empty(out);
	}
	csv_u64(out, (uint64_t)r.uncertain);
	if (ao->idle_miss)	/* appended where the trace has the event */
		csv_str(out, attrib_miss_name(r.idle_miss));
	csv_end_row(out);
}

/* Request R counted in its breakdown group and in the summary's groups. */
static void attr_tally(struct attr_out *ao, const struct attr_result *res, uint64_t lat)
{
	const struct attr_result r = *res;
	struct bd_group *g;
	uint64_t x;
	int si;

	g = &ao->bd[state_slot(r.state)][r.prequery];
	g->state = r.state;
	g->pq = r.prequery;
	g->count++;
	if (r.have_breakdown && (r.state >= 0 || r.state == TL_C0)) {
		g->complete++;
		hist_put(&g->h[SEG_HW], r.hw_exit_ns);
		hist_put(&g->h[SEG_KERNEL], r.kernel_ns);
		hist_put(&g->h[SEG_SCHED], r.sched_ns);
		hist_put(&g->h[SEG_WAKE], r.wake_ns);
		if (lat)
			hist_put(&g->h[SEG_LATENCY], lat);
	}
	if (ao->client && !lat)
		return;
	x = ao->client ? lat : r.exit_to_recv_ns;
	si = state_slot(r.state);
	hist_put(&ao->by_state[si], x);
	hist_put(&ao->by_pq[r.prequery_woke], x);
	hist_put(&ao->by_class[r.prequery], x);
	hist_put(&g->x, x);
	g->unc += (uint64_t)r.uncertain;
	attrib_share_add(&g->share, &r, lat);
	attrib_share_add(&ao->sh_state[si], &r, lat);
	attrib_share_add(&ao->sh_pq[r.prequery_woke], &r, lat);
	attrib_share_add(&ao->sh_class[r.prequery], &r, lat);
	ao->unc_state[si] += (uint64_t)r.uncertain;
	ao->unc_pq[r.prequery_woke] += (uint64_t)r.uncertain;
	ao->unc_class[r.prequery] += (uint64_t)r.uncertain;
	if (ao->idle_miss && r.idle_miss != ATTR_MISS_UNKNOWN) {
		hist_put(&ao->by_miss[r.idle_miss], x);
		attrib_share_add(&ao->sh_miss[r.idle_miss], &r, lat);
		ao->unc_miss[r.idle_miss] += (uint64_t)r.uncertain;
	}
}

static int attr_result(void *ctx, const struct attr_result *res)
{
	struct attr_out *ao = ctx;
	struct attr_result r = *res;
	uint64_t lat = 0;
	int ret;

	ao->cpu = (int)r.cpu;
	if (ao->join) {
		ret = join_client(ao, &r, &lat);
		if (ret)
			return ret;
	}
	ao->n++;
	attr_row(ao, &r, lat);
	ao->uncertain += (uint64_t)r.uncertain;
	ao->misses[r.idle_miss]++;

	attr_tally(ao, &r, lat);
	return 0;
}

/*
 * The summary's idle_miss rows (none, above, below) and a line saying
 * how many requests came after an idle the governor misjudged.
 */
static void miss_summary(struct attr_out *ao, struct csv *sum)
{
	for (int k = ATTR_MISS_NONE; k < ATTR_MISS_KINDS; k++) {
		if (ao->by_miss[k] && hist_count(ao->by_miss[k]))
			summary_row(sum, "idle_miss", attrib_miss_name((enum attr_miss)k),
				    ao->by_miss[k], ao->unc_miss[k], &ao->sh_miss[k]);
		hist_free(ao->by_miss[k]);
	}
	if (!ao->idle_miss) {
		printf("governor misses: not recorded (no power:cpu_idle_miss in the trace)\n");
		return;
	}
	printf("governor misses (power:cpu_idle_miss of the core's last idle before each request): %llu above (too deep), %llu below (too shallow), %llu none, %llu unknown\n",
	       (unsigned long long)ao->misses[ATTR_MISS_ABOVE],
	       (unsigned long long)ao->misses[ATTR_MISS_BELOW],
	       (unsigned long long)ao->misses[ATTR_MISS_NONE],
	       (unsigned long long)ao->misses[ATTR_MISS_UNKNOWN]);
}

/* What the trace cannot see of a wake, said beside the shares. */
#define SHARE_BLIND \
	"the traced wake starts at the first event the kernel records (the idle exit or the\n" \
	"handler): it cannot see the hardware's exit inside HLT (the interrupt is taken in the\n" \
	"halt), nor, in a VM, the host's delivery of the IPI or interrupt to the vCPU\n"

/*
 * The summary's state_prequery rows (value STATE/CLASS: latency, the
 * mean traced wake and its share of the mean latency) and their table.
 */
static void share_summary(struct attr_out *ao, struct csv *sum)
{
	char buf[32], val[80];
	int printed = 0;

	for (int si = 0; si < STATE_SLOTS; si++) {
		for (int pq = 0; pq < ATTR_PQ_KINDS; pq++) {
			struct bd_group *g = &ao->bd[si][pq];
			const struct attr_share *sh = &g->share;

			if (!g->x || !hist_count(g->x)) {
				hist_free(g->x);
				continue;
			}
			snprintf(val, sizeof(val), "%s/%s", si == STATE_SLOTS - 1 ? "other" :
				 tracefile_state_name(ao->m, (uint32_t)ao->cpu, g->state,
						      buf, sizeof(buf)),
				 attrib_pq_name(g->pq));
			summary_csv(sum, "state_prequery", val, g->x, g->unc, sh);
			hist_free(g->x);
			if (!printed++)
				printf("traced wake per state and pre-query class (us, means over the requests with both%s)\n"
				       "%-24s %8s %10s %10s %7s\n", ao->client ? "" :
				       "; no --client: no latency to share", "state/prequery", "n",
				       "latency", "wake", "share%");
			if (!attrib_share_n(sh))
				printf("%-24s %8s %10s %10s %7s\n", val, "0", "-", "-", "-");
			else
				printf("%-24s %8llu %10.3f %10.3f %7.1f\n", val,
				       (unsigned long long)attrib_share_n(sh),
				       attrib_share_latency(sh) / 1e3,
				       attrib_share_wake(sh) / 1e3, attrib_share_pct(sh));
		}
	}
	if (printed)
		printf("%s", SHARE_BLIND);
}

/* breakdown.csv and its table: mean segments (they add up to the mean
 * wake) and medians, per state at arrival and pre-query class. */
static int write_breakdown(struct attr_out *ao, const char *dir)
{
	static const char *const seg[NSEG] = { "hw_exit", "kernel", "sched", "wake", "latency" };
	struct csv *c;
	char hdr[1024], buf[32];
	size_t off;
	int printed = 0;

	off = (size_t)snprintf(hdr, sizeof(hdr), "state,prequery,count,complete");
	for (int k = 0; k < NSEG; k++)
		off += (size_t)snprintf(hdr + off, sizeof(hdr) - off,
					",%s_avg_us,%s_p50_us,%s_p99_us", seg[k],
					seg[k], seg[k]);
	c = csv_create(dir, TRACEOUT_BREAKDOWN, hdr);
	for (int si = 0; si < STATE_SLOTS; si++) {
		for (int pq = 0; pq < ATTR_PQ_KINDS; pq++) {
			struct bd_group *g = &ao->bd[si][pq];
			const char *name;

			if (!g->count)
				continue;
			name = tracefile_state_name(ao->m, (uint32_t)ao->cpu, g->state,
						    buf, sizeof(buf));
			if (!printed++)
				printf("wake breakdown (us, means; complete: with the server thread's wakeup)\n"
				       "%-14s %-9s %8s %8s %9s %9s %9s %9s\n", "state", "prequery",
				       "count", "complete", "hw_exit", "kernel", "sched", "wake");
			printf("%-14s %-9s %8llu %8llu", name, attrib_pq_name(g->pq),
			       (unsigned long long)g->count, (unsigned long long)g->complete);
			for (int k = 0; k < SEG_LATENCY; k++) {
				if (g->h[k])
					printf(" %9.3f", hist_mean(g->h[k]) / 1e3);
				else
					printf(" %9s", "-");
			}
			printf("\n");
			csv_str(c, name);
			csv_str(c, attrib_pq_name(g->pq));
			csv_u64(c, g->count);
			csv_u64(c, g->complete);
			for (int k = 0; k < NSEG; k++) {
				struct hist *h = g->h[k];

				if (!h || !hist_count(h)) {
					csv_empty(c);
					csv_empty(c);
					csv_empty(c);
					continue;
				}
				csv_double(c, hist_mean(h) / 1e3, 3);
				csv_double(c, hist_percentile_exact(h, 0.5) / 1e3, 3);
				csv_double(c, hist_percentile_exact(h, 0.99) / 1e3, 3);
			}
			csv_end_row(c);
			for (int k = 0; k < NSEG; k++)
				hist_free(g->h[k]);
		}
	}
	return csv_done(c, dir, TRACEOUT_BREAKDOWN);
}

struct attribute_opts {
	const char *requests, *client;
	int cpu;
	int64_t pid;
	int skip;
};

static const struct cli_opt attribute_options[] = {
	{ .name = "requests", .short_name = 'r', .kind = CLI_STRING,
	  .arg = "FILE|markers",
	  .help = "the server's --log, or the request markers\n"
		  "in the trace",
	  .off = CLI_AT(struct attribute_opts, requests) },
	{ .name = "cpu", .short_name = 'c', .kind = CLI_UINT, .store = CLI_INT,
	  .arg = "N", .max = 4095,
	  .help = "the server's CPU (needed with --requests FILE)",
	  .off = CLI_AT(struct attribute_opts, cpu) },
	{ .name = "pid", .short_name = 'p', .kind = CLI_UINT, .store = CLI_U64,
	  .arg = "TID", .max = 4194304,
	  .help = "the server's thread, whose sched_wakeup the\n"
		  "breakdown uses (default: the writer of the\n"
		  "request markers, when the trace has them)",
	  .off = CLI_AT(struct attribute_opts, pid) },
	{ .name = "client", .short_name = 'l', .kind = CLI_STRING,
	  .arg = "REQUESTS.CSV",
	  .help = "the client's requests.csv: latency grouped\n"
		  "by state and pre-query, joined on the server's\n"
		  "receive/send times",
	  .off = CLI_AT(struct attribute_opts, client) },
	SKIP_CORRUPT(struct attribute_opts),
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

const struct cli_cmd trace_attribute_cmd = {
	.prog = TRACE_PROG,
	.usage = "Usage: wakebench trace attribute DIR --requests FILE|markers [options]",
	.about =
"Per request, the server core's state at arrival, the end of that idle\n"
"period, the time from idle exit to receive, what woke the core and the\n"
"wake's breakdown: hardware exit (idle exit to the cause's first handler),\n"
"kernel path (handler to the server thread's sched_wakeup) and scheduling\n"
"(wakeup to receive); DIR/attribution.csv, a summary grouped by state and\n"
"pre-query (none, woke, awake, together: in one read with its request) in\n"
"attribution-summary.csv, and the breakdown per group in breakdown.csv.\n"
"One pass over the trace and the logs: memory does not grow with them.\n",
	.col = 30,
	.max_args = 1,
	.opts = attribute_options,
};

/* The trace's events and, unless markers, the server's log. */
struct attr_in {
	struct trace_in *in;
	struct reqlog_server *log;
};

static int attr_event(void *ctx, struct tl_event *e, char *err, size_t errlen)
{
	struct attr_in *a = ctx;

	return tracefile_stream_next(a->in->s, e, err, errlen);
}

static int attr_msg(void *ctx, struct attr_msg *m, char *err, size_t errlen)
{
	struct attr_in *a = ctx;

	return reqlog_server_next(a->log, m, err, errlen);
}

/* What the join could not do, said once; a join that cannot be right
 * ends the command. */
static void join_report(const struct attr_out *ao, const char *requests)
{
	uint64_t late = reqlog_join_late(ao->join), n = ao->n;

	if (ao->markers && ao->outside > ao->matched)
		opt_die(TRACE_PROG, "--client %s: %llu of %llu request markers lie outside the server receive..send times of the client row with their seq: the seqs are not the client's (a midtier renumbers requests to its backend); use --requests SERVER_LOG, which joins on the server's receive and send times",
			ao->client, (unsigned long long)ao->outside, (unsigned long long)n);
	if (!ao->markers && !ao->matched && n)
		opt_die(TRACE_PROG, "--client %s: no row has the server_recv_ns,server_send_ns of a request in %s: not a client of this server run",
			ao->client, requests);
	if (ao->outside)
		fprintf(stderr, "%s: warning: --client %s: %llu of %llu requests without a latency (%llu not in the file, unanswered or warm-up, %llu outside their row's server times)\n",
			TRACE_PROG, ao->client, (unsigned long long)(ao->outside + ao->missing),
			(unsigned long long)n, (unsigned long long)ao->missing,
			(unsigned long long)ao->outside);
	else if (ao->missing)
		fprintf(stderr, "%s: warning: --client %s: %llu of %llu requests without a latency (not in the file: unanswered or warm-up)\n",
			TRACE_PROG, ao->client, (unsigned long long)ao->missing,
			(unsigned long long)n);
	if (late)
		fprintf(stderr, "%s: warning: --client %s: %llu rows came more than %llu ms after the server had passed their receive time (out of order, or not of this server): not joined\n",
			TRACE_PROG, ao->client, (unsigned long long)late,
			REQLOG_HORIZON_NS / 1000000);
}

/* What the run could not see: markers elsewhere, no requests, no thread, uncertain states. */
static void attr_warnings(const struct attribute_opts *o, const struct trace_in *in,
			  const struct attr_out *ao, const struct attr_stats *st)
{
	if (st->elsewhere)
		fprintf(stderr, "%s: warning: %llu request markers from CPUs other than cpu%d left out%s\n",
			TRACE_PROG, (unsigned long long)st->elsewhere, st->cpu,
			o->cpu >= 0 ? "" : " (the CPU of the first one; --cpu N picks the server's)");
	if (!ao->n)
		opt_die(TRACE_PROG, "no requests in %s%s", o->requests,
			ao->markers && st->cpu >= 0 ? " on that CPU" : "");
	if (!timeline_idle_events(ao->t, (uint32_t)st->cpu))
		idle_warning(stdout, (uint32_t)st->cpu);
	if (ao->join)
		join_report(ao, o->requests);
	if (st->pid < 0)
		fprintf(stderr, "%s: warning: the server's thread is unknown (no request markers, no --pid): the breakdown has no kernel path or scheduling\n",
			TRACE_PROG);
	else if (!st->wakeups)
		fprintf(stderr, "%s: warning: no sched:sched_wakeup in the trace (recorded with --no-wake-causes?): the breakdown has no kernel path or scheduling\n",
			TRACE_PROG);

	if (ao->uncertain) {
		char *missing = cpu_list(in->recorded, in->m.ncpus, 0);

		fprintf(stderr, "%s: warning: %llu of %llu requests found cpu%d idle with no sched_wakeup of the server's thread in the trace, and the trace has only CPUs %s: the CPU that woke the thread may be one not recorded, so the core may have been busy (woken for something else); their state at arrival is uncertain (column uncertain). Record CPUs %s too (trace record without --cpus records all)\n",
			TRACE_PROG, (unsigned long long)ao->uncertain,
			(unsigned long long)ao->n, st->cpu, in->cpus, missing);
		free(missing);
	}
	if (ao->unsent)
		printf("%llu requests found cpu%d busy: its last idle exit came before the client sent them (requests.csv sent_ns), so it was not their wake\n",
		       (unsigned long long)ao->unsent, st->cpu);
}

/*
 * attribution-summary.csv and its table on stdout: per state, per
 * prequery_woke, per pre-query class, per idle miss and the shares.
 */
static struct csv *attr_summary(struct attr_out *ao, const struct trace_in *in, int cpu,
				const char *client, const char *dir)
{
	struct csv *sum;
	char buf[32];

	sum = csv_create(dir, TRACEOUT_ATTR_SUMMARY, "group,value,count,avg_us,p50_us,p90_us,p99_us,exact,uncertain,"
			 "wake_n,wake_avg_us,wake_share_pct");
	printf("%s per group (us; ~: past %d requests a group, from the histogram, within %.1f %%)\n",
	       client ? "latency" : "idle exit to receive", GROUP_EXACT_MAX,
	       100 * HIST_REL_ERROR);
	printf("%-14s %-14s %8s %10s %10s %10s %10s %9s %9s %7s\n", "group", "value", "count",
	       "avg", "p50", "p90", "p99", "uncertain", "wake", "share%");
	for (int si = 0; si < STATE_SLOTS; si++) {
		if (!ao->by_state[si])
			continue;
		summary_row(sum, "state", si == STATE_SLOTS - 1 ? "other" :
			    tracefile_state_name(&in->m, (uint32_t)cpu, si - 2, buf,
						 sizeof(buf)), ao->by_state[si],
			    ao->unc_state[si], &ao->sh_state[si]);
		hist_free(ao->by_state[si]);
	}
	for (int k = 0; k < 2; k++) {
		if (ao->by_pq[k] && hist_count(ao->by_pq[k]))
			summary_row(sum, "prequery_woke", k ? "yes" : "no", ao->by_pq[k],
				    ao->unc_pq[k], &ao->sh_pq[k]);
		hist_free(ao->by_pq[k]);
	}
	for (int k = 0; k < ATTR_PQ_KINDS; k++) {
		if (ao->by_class[k] && hist_count(ao->by_class[k]))
			summary_row(sum, "prequery", attrib_pq_name((enum attr_pq)k),
				    ao->by_class[k], ao->unc_class[k], &ao->sh_class[k]);
		hist_free(ao->by_class[k]);
	}
	miss_summary(ao, sum);
	share_summary(ao, sum);
	return sum;
}

int trace_attribute(int argc, char **argv)
{
	struct attribute_opts o = { .cpu = -1, .pid = -1 };
	struct trace_in in;
	struct attr_in ain = { .in = &in };
	struct attr_out ao = { 0 };
	struct attr_stats st;
	struct attr_opts ro;
	struct attr_source src = { .ctx = &ain, .next_event = attr_event };
	struct csv *sum;
	char err[6000];
	const char *dir;
	int rc = 0, first, ret;

	first = cli_parse(&trace_attribute_cmd, argc, argv, &o);
	if (first + 1 != argc)
		opt_usage(TRACE_PROG, "attribute needs one trace DIR");
	if (!o.requests)
		opt_usage(TRACE_PROG, "attribute needs --requests FILE (the server's --log) or --requests markers");
	dir = argv[first];
	ao.markers = !strcmp(o.requests, "markers");
	if (!ao.markers && o.cpu < 0)
		opt_usage(TRACE_PROG, "--requests FILE needs --cpu N (the server's CPU)");
	trace_open(&in, dir, o.skip);
	if (o.cpu >= (int)in.m.ncpus)
		opt_usage(TRACE_PROG, "--cpu %d: the trace has CPUs 0-%u", o.cpu, in.m.ncpus - 1);
	if (!ao.markers) {
		if (reqlog_server_open(o.requests, &ain.log, err, sizeof(err)))
			opt_die(TRACE_PROG, "%s", err);
		src.next_msg = attr_msg;
	}
	if (o.client && reqlog_join_open(o.client, ao.markers, &ao.join, err, sizeof(err)))
		opt_die(TRACE_PROG, "%s", err);
	ao.m = &in.m;
	ao.client = o.client;
	ao.t = timeline_stream(in.m.ncpus, in.m.start_ns, NULL);
	if (!ao.t)
		opt_die(TRACE_PROG, "out of memory");
	if (in.m.no_causes)
		timeline_no_causes(ao.t);
	ao.idle_miss = tracefile_has_event(dir, "power", "cpu_idle_miss");
	ao.out = csv_create(dir, TRACEOUT_ATTRIBUTION, ao.idle_miss ?
		"seq,recv_ns,state,idle_end_ns,exit_to_recv_us,prequery_woke,"
		"latency_us,prequery,cause,cause_ns,wakeup_ns,switch_ns,netrx_ns,"
		"hw_exit_us,kernel_us,sched_us,wake_us,uncertain,idle_miss" :
		"seq,recv_ns,state,idle_end_ns,exit_to_recv_us,prequery_woke,"
		"latency_us,prequery,cause,cause_ns,wakeup_ns,switch_ns,netrx_ns,"
		"hw_exit_us,kernel_us,sched_us,wake_us,uncertain");
	ro = (struct attr_opts){ .cpu = o.cpu, .pid = o.pid, .fn = attr_result,
				 .ctx = &ao, .recorded = in.recorded,
				 .ncpus = in.m.ncpus, .idle_miss = ao.idle_miss };
	ret = attrib_run(ao.t, &src, &ro, in.m.end_ns, &st, err, sizeof(err));
	if (ret) {
		if (ao.err[0])
			opt_die(TRACE_PROG, "%s", ao.err);
		stream_die(&in, err);
	}
	ao.cpu = st.cpu;
	trace_warnings(&in, ao.t);
	attr_warnings(&o, &in, &ao, &st);
	sum = attr_summary(&ao, &in, st.cpu, o.client, dir);
	rc |= csv_done(sum, dir, TRACEOUT_ATTR_SUMMARY);
	rc |= write_breakdown(&ao, dir);
	rc |= csv_done(ao.out, dir, TRACEOUT_ATTRIBUTION);
	printf("%llu requests attributed on cpu%d; wrote %s/attribution.csv, attribution-summary.csv, breakdown.csv\n",
	       (unsigned long long)ao.n, st.cpu, dir);
	reqlog_join_close(ao.join);
	reqlog_server_close(ain.log);
	timeline_free(ao.t);
	trace_close(&in);
	return rc;
}

static int run_record(int argc, char **argv);

/*
 * The subcommands, and which need root (tracefs instances are root-only:
 * those refuse an unprivileged user after their options are parsed,
 * before anything is changed).
 */
static const struct trace_verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct cli_cmd *cmd;
	int needs_root;
} verbs[] = {
	{ "record", run_record, &trace_record_cmd, 1 },
	{ "timeline", trace_timeline, &trace_timeline_cmd, 0 },
	{ "attribute", trace_attribute, &trace_attribute_cmd, 0 },
	{ "residency", trace_residency, &trace_residency_cmd, 0 },
	{ "turbostat", trace_turbostat, &trace_turbostat_cmd, 0 },
	{ "capture", trace_capture, &trace_capture_cmd, 0 },
	{ "export", trace_export, &trace_export_cmd, 0 },
	{ "import", trace_import, &trace_import_cmd, 0 },
	{ "cleanup", trace_cleanup, &trace_cleanup_cmd, 1 },
};
#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static int full_argc;
static char **full_argv;

/* record keeps the whole command line in meta.txt */
static int run_record(int argc, char **argv)
{
	return trace_record(argc, argv, full_argc, full_argv);
}

/* trace --help: every subcommand's help, from its table. */
static void help_all(void)
{
	printf("Usage: wakebench trace COMMAND [options]\n"
	       "\n"
	       "Commands:");
	for (size_t i = 0; i < NVERBS; i++)
		printf(" %s%s", verbs[i].name, verbs[i].needs_root ? "*" : "");
	printf("\n(* needs root; 'wakebench trace COMMAND --help' shows one)\n");
	for (size_t i = 0; i < NVERBS; i++) {
		printf("\n");
		cli_help(verbs[i].cmd, stdout);
	}
}

int main(int argc, char **argv)
{
	char **sub_argv;
	int rc;

	if (argc < 2)
		opt_usage(TRACE_PROG, "which command? record, timeline, attribute, residency, turbostat, capture, export, import or cleanup");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		help_all();
		return 0;
	}
	full_argc = argc;
	full_argv = argv;
	for (size_t i = 0; i < NVERBS; i++) {
		char prog[64];

		if (strcmp(argv[1], verbs[i].name))
			continue;
		/* getopt names argv[0] in its messages: "wakebench-trace
		 * record: unrecognized option" (a copy: record keeps the
		 * command line as given) */
		snprintf(prog, sizeof(prog), "%s %s", TRACE_PROG, verbs[i].name);
		sub_argv = calloc((size_t)argc, sizeof(*sub_argv));
		if (!sub_argv)
			opt_die(TRACE_PROG, "out of memory");
		sub_argv[0] = prog;
		for (int k = 2; k < argc; k++)
			sub_argv[k - 1] = argv[k];
		rc = verbs[i].run(argc - 1, sub_argv);
		free(sub_argv);
		return rc;
	}
	opt_usage(TRACE_PROG, "unknown command '%s'", argv[1]);
}
