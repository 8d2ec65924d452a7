// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench trace: record, timeline, attribute, residency, turbostat.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attrib.h"
#include "cpu.h"
#include "csv.h"
#include "hist.h"
#include "opt.h"
#include "reqlog.h"
#include "timeline.h"
#include "trace.h"
#include "tracefile.h"

/* Loads a trace; returns the number of events in it (of any kind). A
 * corrupt page stops it, or with skip_corrupt is skipped and counted on
 * standard error and in *skipped. */
static uint64_t load(const char *dir, struct trace_meta *m, struct timeline **t,
		     int skip_corrupt, uint64_t *skipped)
{
	char err[6000];
	struct tf_decode o = { .skip_corrupt = skip_corrupt };

	if (tracefile_meta(dir, m, err, sizeof(err)))
		opt_die(TRACE_PROG, "%s", err);
	*t = timeline_new(m->ncpus, m->start_ns);
	if (!*t)
		opt_die(TRACE_PROG, "out of memory");
	if (tracefile_decode_opts(dir, m, *t, &o, err, sizeof(err)))
		opt_die(TRACE_PROG, "%s%s", err,
			strstr(err, "page") && !skip_corrupt ?
			" (--skip-corrupt skips such pages)" : "");
	if (o.corrupt_pages)
		fprintf(stderr, "%s: warning: skipped %llu corrupt page%s (--skip-corrupt); the first: %s\n",
			TRACE_PROG, (unsigned long long)o.corrupt_pages,
			o.corrupt_pages == 1 ? "" : "s", o.first_corrupt);
	if (skipped)
		*skipped = o.corrupt_pages;
	timeline_finish(*t, m->end_ns);
	return o.recorded;
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
static const char *wake_text(const struct timeline *t, const struct tl_wake *w,
			     char *buf, size_t len)
{
	const char *d = timeline_string(t, w->detail);

	snprintf(buf, len, "%s%s%s", timeline_cause_name(w->cause), *d ? ":" : "", d);
	return buf;
}

struct wake_row {
	uint32_t cause, detail;
	uint64_t count;
};

static int cmp_wake_pair(const void *a, const void *b)
{
	const struct wake_row *x = a, *y = b;

	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	return (x->detail > y->detail) - (x->detail < y->detail);
}

static int cmp_wake_row(const void *a, const void *b)
{
	const struct wake_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	return (x->detail > y->detail) - (x->detail < y->detail);
}

/*
 * wakeups.csv rows of cpu: each (cause, detail) with its count and share
 * of the CPU's idle exits, most frequent first; printed too. -ENOMEM.
 */
static int write_wakeups(struct csv *c, const struct timeline *t, uint32_t cpu,
			 const struct tl_wake *w, size_t nw)
{
	struct wake_row *r = malloc((nw ? nw : 1) * sizeof(*r));
	size_t rows = 0;

	if (!r)
		return -ENOMEM;
	/* one row per distinct pair (details are interned: an index names
	 * a string): sorted by pair, runs counted */
	for (size_t i = 0; i < nw; i++)
		r[i] = (struct wake_row){ w[i].cause, w[i].detail, 1 };
	qsort(r, nw, sizeof(*r), cmp_wake_pair);
	for (size_t i = 0; i < nw; i++) {
		if (rows && r[rows - 1].cause == r[i].cause &&
		    r[rows - 1].detail == r[i].detail)
			r[rows - 1].count++;
		else
			r[rows++] = r[i];
	}
	qsort(r, rows, sizeof(*r), cmp_wake_row);
	if (nw)
		printf("cpu %u: %zu idle exits woken by", cpu, nw);
	for (size_t i = 0; i < rows; i++) {
		double pct = 100.0 * (double)r[i].count / (double)nw;

		csv_u64(c, cpu);
		csv_str(c, timeline_cause_name(r[i].cause));
		csv_str(c, timeline_string(t, r[i].detail));
		csv_u64(c, r[i].count);
		csv_double(c, pct, 3);
		csv_end_row(c);
		if (i < 4)
			printf("%s %s%s%s %.1f%%", i ? "," : "",
			       timeline_cause_name(r[i].cause),
			       *timeline_string(t, r[i].detail) ? ":" : "",
			       timeline_string(t, r[i].detail), pct);
	}
	if (nw)
		printf("%s\n", rows > 4 ? ", ..." : "");
	free(r);
	return 0;
}

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

static int cmp_irq(const void *a, const void *b)
{
	const struct tl_irq *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

#define SKIP_CORRUPT(type)						\
	{ .name = "skip-corrupt", .kind = CLI_FLAG,			\
	  .help = "skip a corrupt or truncated page, counted\n"	\
		  "and warned about (default: an error naming\n"		\
		  "its file, CPU, page and offset)",			\
	  .off = CLI_AT(type, skip) }

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
"CPU without cpu_idle events is warned about.\n",
	.col = 22,
	.max_args = 1,
	.opts = timeline_options,
};

int trace_timeline(int argc, char **argv)
{
	struct timeline_opts o = { .to = UINT64_MAX };
	uint64_t from, to, recorded, lost = 0;
	struct trace_meta m;
	struct timeline *t;
	unsigned char *mask = NULL;
	const char *dir;
	char path[4096], buf[32];
	const char *maskarg;
	struct csv *res, *wk;
	char cause[300];
	int rc = 0, skip, first;
	uint64_t skipped = 0;

	first = cli_parse(&trace_timeline_cmd, argc, argv, &o);
	if (first + 1 != argc)
		opt_usage(TRACE_PROG, "timeline needs one trace DIR");
	dir = argv[first];
	maskarg = o.cpus;
	from = o.from;
	to = o.to;
	skip = o.skip;
	recorded = load(dir, &m, &t, skip, &skipped);
	if (maskarg)
		mask = opt_cpus(TRACE_PROG, maskarg, (int)m.ncpus);
	snprintf(path, sizeof(path), "%s/residency.csv", dir);
	res = csv_open(path);
	if (!res)
		opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
	csv_header(res, "cpu,state,percent,entries,avg_stay_us,time_ms,note");
	snprintf(path, sizeof(path), "%s/wakeups.csv", dir);
	wk = csv_open(path);
	if (!wk)
		opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
	csv_header(wk, "cpu,cause,detail,count,percent");
	printf("%-4s %-14s %8s %9s %12s %12s\n", "cpu", "state", "percent",
	       "entries", "avg_stay_us", "time_ms");
	for (uint32_t cpu = 0; cpu < m.ncpus; cpu++) {
		struct tl_residency *r;
		const struct tl_interval *iv;
		size_t n;
		ssize_t rows;
		struct csv *cs;
		uint64_t lo = from > timeline_start(t) ? from : timeline_start(t);
		uint64_t hi = to < timeline_end(t) ? to : timeline_end(t);
		uint64_t span = hi > lo ? hi - lo : 0;

		int no_idle = !timeline_idle_events(t, cpu);

		if (mask && !mask[cpu])
			continue;
		if (no_idle)
			idle_warning(stdout, cpu);
		snprintf(path, sizeof(path), "%s/cstate-cpu%u.csv", dir, cpu);
		cs = csv_open(path);
		if (!cs)
			opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
		csv_header(cs, "Sample #,Continuous Time (ms),C-State,Duration (ms),Wake Cause");
		iv = timeline_intervals(t, cpu, &n);
		size_t nw, k = 0;
		const struct tl_wake *w = timeline_wakes(t, cpu, &nw);

		for (size_t i = 0; i < n; i++) {
			csv_u64(cs, i + 1);
			csv_fixed(cs, iv[i].end - timeline_start(t), 6);
			csv_str(cs, tracefile_state_name(&m, cpu, iv[i].state, buf,
							 sizeof(buf)));
			csv_fixed(cs, iv[i].end - iv[i].start, 6);
			/* the wake that ended an idle stay (exits in time order) */
			while (k < nw && w[k].ts < iv[i].end)
				k++;
			if (iv[i].state != TL_C0 && k < nw && w[k].ts == iv[i].end)
				csv_str(cs, wake_text(t, &w[k], cause, sizeof(cause)));
			else
				csv_empty(cs);
			csv_end_row(cs);
		}
		if (csv_close(cs))
			rc = 1;
		if (write_wakeups(wk, t, cpu, w, nw))
			opt_die(TRACE_PROG, "out of memory");
		rows = timeline_residency(t, cpu, from, to, &r);
		if (rows < 0)
			opt_die(TRACE_PROG, "out of memory");
		for (ssize_t i = 0; i < rows; i++) {
			double pct = span ? 100.0 * r[i].time_ns / span : 0;
			double avg = r[i].entries ? r[i].time_ns / 1e3 / r[i].entries : 0;
			const char *name = tracefile_state_name(&m, cpu, r[i].state,
								buf, sizeof(buf));

			printf("%-4u %-14s %8.3f %9llu %12.3f %12.3f\n", cpu, name,
			       pct, (unsigned long long)r[i].entries, avg,
			       ms(r[i].time_ns));
			csv_u64(res, cpu);
			csv_str(res, name);
			csv_double(res, pct, 4);
			csv_u64(res, r[i].entries);
			csv_double(res, avg, 3);
			csv_fixed(res, r[i].time_ns, 6);
			if (no_idle)
				csv_str(res, "no cpu_idle events recorded for this CPU");
			else
				csv_empty(res);
			csv_end_row(res);
		}
		free(r);
	}
	if (csv_close(res) || csv_close(wk))
		rc = 1;
	{
		size_t n;
		const struct tl_irq *q0 = timeline_irqs(t, &n);
		struct tl_irq *q = malloc((n ? n : 1) * sizeof(*q));
		const struct tl_marker *mk;

		if (!q)
			opt_die(TRACE_PROG, "out of memory");
		/* Decoded CPU by CPU; the IRQ trace is in time order. */
		if (n)
			memcpy(q, q0, n * sizeof(*q));
		qsort(q, n, sizeof(*q), cmp_irq);
		struct csv *irq, *mc;

		snprintf(path, sizeof(path), "%s/irq.csv", dir);
		irq = csv_open(path);
		if (!irq)
			opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
		csv_header(irq, "Sample #,Continuous Time (ms),IRQ No,Interface,"
			   "Duration (ms),CPU,Handler (ms)");
		for (size_t i = 0, k = 0; i < n; i++) {
			if (mask && (q[i].cpu >= m.ncpus || !mask[q[i].cpu]))
				continue;
			csv_u64(irq, ++k);
			csv_fixed(irq, q[i].ts - timeline_start(t), 6);
			csv_u64(irq, q[i].irq);
			csv_str(irq, timeline_string(t, q[i].name));
			csv_fixed(irq, q[i].since_prev_ns, 6);
			csv_u64(irq, q[i].cpu);
			csv_fixed(irq, q[i].handler_ns, 6);
			csv_end_row(irq);
		}
		if (csv_close(irq))
			rc = 1;
		free(q);
		mk = timeline_markers(t, &n);
		snprintf(path, sizeof(path), "%s/markers.csv", dir);
		mc = csv_open(path);
		if (!mc)
			opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
		csv_header(mc, "ts_ns,cpu,text");
		for (size_t i = 0; i < n; i++) {
			csv_u64(mc, mk[i].ts);
			csv_u64(mc, mk[i].cpu);
			csv_str(mc, timeline_string(t, mk[i].text));
			csv_end_row(mc);
		}
		if (csv_close(mc))
			rc = 1;
	}
	for (uint32_t cpu = 0; cpu < m.ncpus; cpu++) {
		lost += m.overrun[cpu] + m.dropped[cpu];
		if (m.overrun[cpu] || m.dropped[cpu])
			fprintf(stderr, "%s: cpu%u lost events: overrun %llu, dropped %llu (raise --buffer-kb)\n",
				TRACE_PROG, cpu, (unsigned long long)m.overrun[cpu],
				(unsigned long long)m.dropped[cpu]);
	}
	if (timeline_rejected(t))
		fprintf(stderr, "%s: %llu events out of order or for unknown CPUs, skipped\n",
			TRACE_PROG, (unsigned long long)timeline_rejected(t));
	printf("events: %llu in the trace, %llu lost\n", (unsigned long long)recorded,
	       (unsigned long long)lost);
	{
		uint64_t idle = 0;

		for (uint32_t cpu = 0; cpu < m.ncpus; cpu++)
			idle += timeline_idle_events(t, cpu);
		printf("cpu_idle events: %llu\n", (unsigned long long)idle);
	}
	if (skipped)
		printf("warning: %llu corrupt pages skipped (--skip-corrupt)\n",
		       (unsigned long long)skipped);
	printf("wrote %s/cstate-cpuN.csv, wakeups.csv, irq.csv, residency.csv, markers.csv\n", dir);
	timeline_free(t);
	tracefile_meta_free(&m);
	free(mask);
	return rc;
}

/* ---- attribute -------------------------------------------------------- */

struct msgs {
	struct attr_msg *v;
	size_t n, cap;
};

static int push(struct msgs *ms, struct attr_msg m)
{
	if (ms->n == ms->cap) {
		size_t ncap = ms->cap ? 2 * ms->cap : 1024;
		struct attr_msg *nv = realloc(ms->v, ncap * sizeof(*nv));

		if (!nv)
			return -1;
		ms->v = nv;
		ms->cap = ncap;
	}
	ms->v[ms->n++] = m;
	return 0;
}

/*
 * Markers "wb recv SEQ" and "wb pqrecv SEQ" from the server's CPU: *cpu,
 * or where it is -1 the CPU of the first one. Markers of other CPUs are
 * left out and counted in *elsewhere.
 */
static void read_markers(const char *dir, const struct timeline *t, int *cpu,
			 struct msgs *ms, size_t *elsewhere)
{
	size_t n;
	const struct tl_marker *mk = timeline_markers(t, &n);

	*elsewhere = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t seq;
		const char *s = timeline_string(t, mk[i].text);
		char err[256];
		int pq, r = reqlog_marker(s, &seq, &pq, err, sizeof(err));

		if (r < 0)
			opt_die(TRACE_PROG, "%s: cpu%u at %llu ns: %s", dir, mk[i].cpu,
				(unsigned long long)mk[i].ts, err);
		if (!r)
			continue;
		if (*cpu < 0)
			*cpu = (int)mk[i].cpu;
		if (mk[i].cpu != (uint32_t)*cpu) {
			(*elsewhere)++;
			continue;
		}
		if (push(ms, (struct attr_msg){ seq, pq, mk[i].ts, 0 }))
			opt_die(TRACE_PROG, "out of memory");
	}
}

static void summary_row(struct csv *c, const char *group, const char *value,
			struct hist *h)
{
	printf("%-14s %-14s %8llu %10.3f %10.3f %10.3f %10.3f\n", group, value,
	       (unsigned long long)hist_count(h), hist_mean(h) / 1e3,
	       hist_percentile_exact(h, 0.5) / 1e3,
	       hist_percentile_exact(h, 0.9) / 1e3,
	       hist_percentile_exact(h, 0.99) / 1e3);
	csv_str(c, group);
	csv_str(c, value);
	csv_u64(c, hist_count(h));
	csv_double(c, hist_mean(h) / 1e3, 3);
	csv_double(c, hist_percentile_exact(h, 0.5) / 1e3, 3);
	csv_double(c, hist_percentile_exact(h, 0.9) / 1e3, 3);
	csv_double(c, hist_percentile_exact(h, 0.99) / 1e3, 3);
	csv_end_row(c);
}

/*
 * Client latency per result (0: none). From markers the client row of
 * the same seq counts only if the marker lies within the row's server
 * receive..send; from the server log the row is the one with the same
 * server receive and send times. Dies when the join cannot be right.
 */
static void join_client(const char *client, const char *requests, int markers,
			const struct cli_rows *cl, struct attr_result *res,
			size_t n, uint64_t *lat)
{
	size_t matched = 0, outside = 0, missing = 0;

	for (size_t i = 0; i < n; i++) {
		const struct cli_row *row;

		lat[i] = 0;
		if (markers) {
			row = reqlog_by_seq(cl, res[i].seq);
			if (row && row->srv_recv_ns && row->srv_send_ns &&
			    (res[i].recv_ns < row->srv_recv_ns ||
			     res[i].recv_ns > row->srv_send_ns)) {
				outside++;
				continue;
			}
		} else {
			row = reqlog_by_times(cl, res[i].recv_ns, res[i].send_ns);
		}
		if (!row || !row->latency_ns) {
			missing++;
			continue;
		}
		lat[i] = row->latency_ns;
		attrib_client_lead(&res[i], row->pq_lead_ns);
		matched++;
	}
	if (markers && outside > matched)
		opt_die(TRACE_PROG, "--client %s: %zu of %zu request markers lie outside the server receive..send times of the client row with their seq: the seqs are not the client's (a midtier renumbers requests to its backend); use --requests SERVER_LOG, which joins on the server's receive and send times",
			client, outside, n);
	if (!markers && !matched && n)
		opt_die(TRACE_PROG, "--client %s: no row has the server_recv_ns,server_send_ns of a request in %s: not a client of this server run",
			client, requests);
	if (outside)
		fprintf(stderr, "%s: warning: --client %s: %zu of %zu requests without a latency (%zu not in the file, unanswered or warm-up, %zu outside their row's server times)\n",
			TRACE_PROG, client, outside + missing, n, missing, outside);
	else if (missing)
		fprintf(stderr, "%s: warning: --client %s: %zu of %zu requests without a latency (not in the file: unanswered or warm-up)\n",
			TRACE_PROG, client, missing, n);
}

struct attribute_opts {
	const char *requests, *client;
	int cpu;
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
"period and the time from idle exit to receive; DIR/attribution.csv and a\n"
"summary (attribution-summary.csv) grouped by state and pre-query (none,\n"
"woke, awake, together: in one read with its request).\n",
	.col = 30,
	.max_args = 1,
	.opts = attribute_options,
};

int trace_attribute(int argc, char **argv)
{
	struct attribute_opts o = { .cpu = -1 };
	const char *requests, *client, *dir;
	struct trace_meta m;
	struct timeline *t;
	struct msgs ms = { 0 };
	struct cli_rows cl = { 0 };
	struct attr_result *res;
	struct csv *out, *sum;
	char path[4096], buf[32], err[6000];
	int cpu, rc = 0, skip, markers, first;
	uint64_t *lat = NULL;
	size_t n, elsewhere = 0;

	first = cli_parse(&trace_attribute_cmd, argc, argv, &o);
	requests = o.requests;
	client = o.client;
	cpu = o.cpu;
	skip = o.skip;
	if (first + 1 != argc)
		opt_usage(TRACE_PROG, "attribute needs one trace DIR");
	if (!requests)
		opt_usage(TRACE_PROG, "attribute needs --requests FILE (the server's --log) or --requests markers");
	dir = argv[first];
	markers = !strcmp(requests, "markers");
	if (!markers && cpu < 0)
		opt_usage(TRACE_PROG, "--requests FILE needs --cpu N (the server's CPU)");
	load(dir, &m, &t, skip, NULL);
	if (cpu >= (int)m.ncpus)
		opt_usage(TRACE_PROG, "--cpu %d: the trace has CPUs 0-%u", cpu, m.ncpus - 1);
	if (markers) {
		int given = cpu >= 0;

		read_markers(dir, t, &cpu, &ms, &elsewhere);
		if (elsewhere)
			fprintf(stderr, "%s: warning: %zu request markers from CPUs other than cpu%d left out%s\n",
				TRACE_PROG, elsewhere, cpu,
				given ? "" : " (the CPU of the first one; --cpu N picks the server's)");
	} else {
		if (reqlog_read_server(requests, &ms.v, &ms.n, err, sizeof(err)))
			opt_die(TRACE_PROG, "%s", err);
	}
	if (!ms.n)
		opt_die(TRACE_PROG, "no requests in %s%s", requests,
			markers && cpu >= 0 ? " on that CPU" : "");
	if (!timeline_idle_events(t, (uint32_t)cpu))
		idle_warning(stdout, (uint32_t)cpu);
	if (client && reqlog_read_client(client, &cl, err, sizeof(err)))
		opt_die(TRACE_PROG, "%s", err);
	if (attrib_sort(ms.v, ms.n))
		opt_die(TRACE_PROG, "out of memory");
	res = calloc(ms.n, sizeof(*res));
	lat = calloc(ms.n, sizeof(*lat));
	if (!res || !lat)
		opt_die(TRACE_PROG, "out of memory");
	n = attrib_run(t, (uint32_t)cpu, ms.v, ms.n, res);
	if (client)
		join_client(client, requests, markers, &cl, res, n, lat);

	snprintf(path, sizeof(path), "%s/attribution.csv", dir);
	out = csv_open(path);
	snprintf(path, sizeof(path), "%s/attribution-summary.csv", dir);
	sum = csv_open(path);
	if (!out || !sum)
		opt_die(TRACE_PROG, "cannot write into %s: %s", dir, strerror(errno));
	csv_header(out, "seq,recv_ns,state,idle_end_ns,exit_to_recv_us,prequery_woke,latency_us,prequery");
	csv_header(sum, "group,value,count,avg_us,p50_us,p90_us,p99_us");
	{
		/* One histogram per state (C0, unknown, idle states), per
		 * pre-query wake and per pre-query class; of latency with
		 * --client, else exit-to-recv. */
		struct hist *by_state[TRACEFILE_MAX_STATES + 2] = { 0 };
		struct hist *by_pq[2] = { hist_new(1), hist_new(1) };
		struct hist *by_class[ATTR_PQ_KINDS] = { 0 };

		for (size_t i = 0; i < n; i++) {
			const struct attr_result *r = &res[i];
			uint64_t l = lat[i];
			uint64_t x = client ? l : r->exit_to_recv_ns;
			int si = r->state + 2;

			csv_u64(out, r->seq);
			csv_u64(out, r->recv_ns);
			csv_str(out, tracefile_state_name(&m, (uint32_t)cpu, r->state,
							  buf, sizeof(buf)));
			if (r->idle_end_ns) {
				csv_u64(out, r->idle_end_ns);
				csv_double(out, r->exit_to_recv_ns / 1e3, 3);
			} else {
				csv_empty(out);
				csv_empty(out);
			}
			csv_u64(out, (uint64_t)r->prequery_woke);
			if (l)
				csv_double(out, l / 1e3, 3);
			else
				csv_empty(out);
			csv_str(out, attrib_pq_name(r->prequery));
			csv_end_row(out);
			if (client && !l)
				continue;
			if (si >= 0 && si < TRACEFILE_MAX_STATES + 2) {
				if (!by_state[si])
					by_state[si] = hist_new(1);
				if (by_state[si])
					hist_add(by_state[si], x);
			}
			if (by_pq[r->prequery_woke])
				hist_add(by_pq[r->prequery_woke], x);
			if (r->prequery < ATTR_PQ_KINDS) {
				if (!by_class[r->prequery])
					by_class[r->prequery] = hist_new(1);
				if (by_class[r->prequery])
					hist_add(by_class[r->prequery], x);
			}
		}
		printf("%s per group (us)\n", client ? "latency" : "idle exit to receive");
		printf("%-14s %-14s %8s %10s %10s %10s %10s\n", "group", "value", "count",
		       "avg", "p50", "p90", "p99");
		for (int si = 0; si < TRACEFILE_MAX_STATES + 2; si++) {
			if (!by_state[si])
				continue;
			summary_row(sum, "state", tracefile_state_name(&m, (uint32_t)cpu,
					si - 2, buf, sizeof(buf)), by_state[si]);
			hist_free(by_state[si]);
		}
		for (int k = 0; k < 2; k++) {
			if (by_pq[k] && hist_count(by_pq[k]))
				summary_row(sum, "prequery_woke", k ? "yes" : "no", by_pq[k]);
			hist_free(by_pq[k]);
		}
		for (int k = 0; k < ATTR_PQ_KINDS; k++) {
			if (by_class[k] && hist_count(by_class[k]))
				summary_row(sum, "prequery", attrib_pq_name((enum attr_pq)k),
					    by_class[k]);
			hist_free(by_class[k]);
		}
	}
	if (csv_close(out) || csv_close(sum))
		rc = 1;
	printf("%zu requests attributed on cpu%d; wrote %s/attribution.csv, attribution-summary.csv\n",
	       n, cpu, dir);
	free(res);
	free(lat);
	free(ms.v);
	reqlog_client_free(&cl);
	timeline_free(t);
	tracefile_meta_free(&m);
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
