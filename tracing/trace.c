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
#include "residency.h"
#include "timeline.h"
#include "trace.h"
#include "tracefile.h"

void trace_usage(void)
{
	printf(
"Usage: wakebench trace record --out DIR [--cpus LIST] [--events LIST]\n"
"                              [--buffer-kb N] (--duration S | -- COMMAND...)\n"
"       wakebench trace timeline DIR [--cpus LIST] [--from-ns NS] [--to-ns NS]\n"
"       wakebench trace attribute DIR --requests FILE|markers [--cpu N]\n"
"                                 [--client REQUESTS.CSV]\n"
"       wakebench trace residency [--cpus LIST] [--out FILE]\n"
"                                 (--duration S | -- COMMAND...)\n"
"       wakebench trace turbostat [--out DIR] (--duration S | -- COMMAND...)\n"
"\n"
"record: a tracefs instance of its own with trace_clock mono, events\n"
"power:cpu_idle, irq:irq_handler_entry/exit and user markers (plus\n"
"--events, e.g. irq:softirq_entry,sched:sched_wakeup), the ring buffers\n"
"streamed to DIR (meta.txt, formats/, cpuN.raw). The COMMAND gets\n"
"WAKEBENCH_TRACE_INSTANCE so servers and clients started with\n"
"--trace-markers mark each request. The instance is removed on exit,\n"
"SIGINT/SIGTERM and when the command fails. Once events are being recorded\n"
"it prints \"wakebench-trace: recording in instance NAME into DIR\" on\n"
"standard error: a load started beside it should wait for that line.\n"
"timeline: DIR/cstate-cpuN.csv (Sample #,Continuous Time (ms),C-State,\n"
"Duration (ms)), DIR/irq.csv (Sample #,Continuous Time (ms),IRQ No,\n"
"Interface,Duration (ms),CPU,Handler (ms)), DIR/residency.csv (over\n"
"--from-ns/--to-ns, CLOCK_MONOTONIC, when given), markers.csv.\n"
"attribute: per request the server core's state at arrival, the end of\n"
"that idle period and the time from idle exit to receive, from the\n"
"server's --log (or the markers); DIR/attribution.csv and a summary of\n"
"latency (with --client) grouped by state and by pre-query wake.\n"
"residency: cpuidle usage/time deltas per CPU and state (libcpupower), or\n"
"/proc/stat idle time where the kernel has no cpuidle states.\n"
"turbostat: turbostat around the command, its table as CSV; where it\n"
"cannot run, says why and falls back to residency.\n");
}

/* Loads a trace; returns the number of events in it (of any kind). */
static uint64_t load(const char *dir, struct trace_meta *m, struct timeline **t)
{
	char err[4600];
	uint64_t recorded = 0;
	long n;

	if (tracefile_meta(dir, m, err, sizeof(err)))
		opt_die(TRACE_PROG, "%s", err);
	*t = timeline_new(m->ncpus, m->start_ns);
	if (!*t)
		opt_die(TRACE_PROG, "out of memory");
	n = tracefile_decode(dir, m, *t, &recorded, err, sizeof(err));
	if (n < 0)
		opt_die(TRACE_PROG, "%s", err);
	timeline_finish(*t, m->end_ns);
	return recorded;
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

int trace_timeline(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "from-ns", required_argument, NULL, 'f' },
		{ "to-ns", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t from = 0, to = UINT64_MAX, recorded, lost = 0;
	struct trace_meta m;
	struct timeline *t;
	unsigned char *mask = NULL;
	const char *dir;
	char path[4096], buf[32];
	const char *maskarg = NULL;
	struct csv *res;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "c:f:t:h", longopts, NULL)) != -1) {
		if (c == 'c')
			maskarg = optarg;
		else if (c == 'f' || c == 't') {
			if (opt_u64(optarg, 0, UINT64_MAX, c == 'f' ? &from : &to))
				opt_usage(TRACE_PROG, "invalid --%s-ns '%s'",
					  c == 'f' ? "from" : "to", optarg);
		} else if (c == 'h') {
			trace_usage();
			exit(0);
		} else {
			opt_bad_option(TRACE_PROG);
		}
	}
	if (optind + 1 != argc)
		opt_usage(TRACE_PROG, "timeline needs one trace DIR");
	dir = argv[optind];
	recorded = load(dir, &m, &t);
	if (maskarg)
		mask = opt_cpus(TRACE_PROG, maskarg, (int)m.ncpus);
	snprintf(path, sizeof(path), "%s/residency.csv", dir);
	res = csv_open(path);
	if (!res)
		opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
	csv_header(res, "cpu,state,percent,entries,avg_stay_us,time_ms");
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

		if (mask && !mask[cpu])
			continue;
		snprintf(path, sizeof(path), "%s/cstate-cpu%u.csv", dir, cpu);
		cs = csv_open(path);
		if (!cs)
			opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
		csv_header(cs, "Sample #,Continuous Time (ms),C-State,Duration (ms)");
		iv = timeline_intervals(t, cpu, &n);
		for (size_t i = 0; i < n; i++) {
			csv_u64(cs, i + 1);
			csv_fixed(cs, iv[i].end - timeline_start(t), 6);
			csv_str(cs, tracefile_state_name(&m, cpu, iv[i].state, buf,
							 sizeof(buf)));
			csv_fixed(cs, iv[i].end - iv[i].start, 6);
			csv_end_row(cs);
		}
		if (csv_close(cs))
			rc = 1;
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
			csv_end_row(res);
		}
		free(r);
	}
	if (csv_close(res))
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
	printf("wrote %s/cstate-cpuN.csv, irq.csv, residency.csv, markers.csv\n", dir);
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

/* The server log: seq,type,recv_ns,send_ns,... */
static void read_server_log(const char *path, struct msgs *ms)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		opt_die(TRACE_PROG, "cannot read %s: %s", path, strerror(errno));
	if (!fgets(line, sizeof(line), f) || strncmp(line, "seq,type,recv_ns,send_ns", 24))
		opt_die(TRACE_PROG, "%s is not a server log (seq,type,recv_ns,send_ns,...)", path);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long seq, recv, send = 0;
		char type[16];

		if (sscanf(line, "%llu,%15[a-z],%llu,%llu", &seq, type, &recv, &send) < 3)
			continue;
		if (strcmp(type, "request") && strcmp(type, "prequery"))
			continue;
		if (push(ms, (struct attr_msg){ seq, !strcmp(type, "prequery"), recv, send }))
			opt_die(TRACE_PROG, "out of memory");
	}
	fclose(f);
}

/* Markers "wb recv SEQ" and "wb pqrecv SEQ" from the server's CPU. */
static void read_markers(const struct timeline *t, int *cpu, struct msgs *ms)
{
	size_t n;
	const struct tl_marker *mk = timeline_markers(t, &n);

	for (size_t i = 0; i < n; i++) {
		unsigned long long seq;
		const char *s = timeline_string(t, mk[i].text);
		int pq;

		if (sscanf(s, "wb recv %llu", &seq) == 1)
			pq = 0;
		else if (sscanf(s, "wb pqrecv %llu", &seq) == 1)
			pq = 1;
		else
			continue;
		if (*cpu < 0)
			*cpu = (int)mk[i].cpu;
		if (push(ms, (struct attr_msg){ seq, pq, mk[i].ts, 0 }))
			opt_die(TRACE_PROG, "out of memory");
	}
}

static int cmp_recv(const void *a, const void *b)
{
	const struct attr_msg *x = a, *y = b;

	return (x->recv_ns > y->recv_ns) - (x->recv_ns < y->recv_ns);
}

/* Client latencies by seq (requests.csv), NULL-safe lookups. */
struct lat {
	uint64_t *ns;		/* indexed by seq - base, 0 = unknown */
	uint64_t base, n;
};

static void read_client(const char *path, struct lat *l)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	uint64_t cap = 0;

	if (!f)
		opt_die(TRACE_PROG, "cannot read %s: %s", path, strerror(errno));
	if (!fgets(line, sizeof(line), f) ||
	    strncmp(line, "seq,intended_ns,sent_ns,recv_ns,latency_ns", 42))
		opt_die(TRACE_PROG, "%s is not a client requests.csv", path);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long seq, a, b, c, lat;

		if (sscanf(line, "%llu,%llu,%llu,%llu,%llu", &seq, &a, &b, &c, &lat) != 5)
			continue;
		if (!l->n)
			l->base = seq;
		if (seq < l->base)
			continue;
		if (seq - l->base >= cap) {
			uint64_t ncap = cap ? cap * 2 : 4096;

			while (ncap <= seq - l->base)
				ncap *= 2;
			l->ns = realloc(l->ns, ncap * sizeof(*l->ns));
			if (!l->ns)
				opt_die(TRACE_PROG, "out of memory");
			memset(l->ns + cap, 0, (ncap - cap) * sizeof(*l->ns));
			cap = ncap;
		}
		l->ns[seq - l->base] = lat;
		if (seq - l->base + 1 > l->n)
			l->n = seq - l->base + 1;
	}
	fclose(f);
}

static uint64_t lat_of(const struct lat *l, uint64_t seq)
{
	if (!l->ns || seq < l->base || seq - l->base >= l->n)
		return 0;
	return l->ns[seq - l->base];
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

int trace_attribute(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "requests", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "client", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *requests = NULL, *client = NULL, *dir;
	struct trace_meta m;
	struct timeline *t;
	struct msgs ms = { 0 };
	struct lat lat = { 0 };
	struct attr_result *res;
	struct csv *out, *sum;
	char path[4096], buf[32];
	int cpu = -1, c, rc = 0;
	uint64_t v;
	size_t n;

	while ((c = getopt_long(argc, argv, "r:c:l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			requests = optarg;
			break;
		case 'l':
			client = optarg;
			break;
		case 'c':
			if (opt_u64(optarg, 0, 4095, &v))
				opt_usage(TRACE_PROG, "invalid --cpu '%s'", optarg);
			cpu = (int)v;
			break;
		case 'h':
			trace_usage();
			exit(0);
		default:
			opt_bad_option(TRACE_PROG);
		}
	}
	if (optind + 1 != argc)
		opt_usage(TRACE_PROG, "attribute needs one trace DIR");
	if (!requests)
		opt_usage(TRACE_PROG, "attribute needs --requests FILE (the server's --log) or --requests markers");
	dir = argv[optind];
	if (strcmp(requests, "markers") && cpu < 0)
		opt_usage(TRACE_PROG, "--requests FILE needs --cpu N (the server's CPU)");
	load(dir, &m, &t);
	if (cpu >= (int)m.ncpus)
		opt_usage(TRACE_PROG, "--cpu %d: the trace has CPUs 0-%u", cpu, m.ncpus - 1);
	if (!strcmp(requests, "markers"))
		read_markers(t, &cpu, &ms);
	else
		read_server_log(requests, &ms);
	if (!ms.n)
		opt_die(TRACE_PROG, "no requests in %s", requests);
	if (client)
		read_client(client, &lat);
	qsort(ms.v, ms.n, sizeof(*ms.v), cmp_recv);
	res = calloc(ms.n, sizeof(*res));
	if (!res)
		opt_die(TRACE_PROG, "out of memory");
	n = attrib_run(t, (uint32_t)cpu, ms.v, ms.n, res);

	snprintf(path, sizeof(path), "%s/attribution.csv", dir);
	out = csv_open(path);
	snprintf(path, sizeof(path), "%s/attribution-summary.csv", dir);
	sum = csv_open(path);
	if (!out || !sum)
		opt_die(TRACE_PROG, "cannot write into %s: %s", dir, strerror(errno));
	csv_header(out, "seq,recv_ns,state,idle_end_ns,exit_to_recv_us,prequery_woke,latency_us");
	csv_header(sum, "group,value,count,avg_us,p50_us,p90_us,p99_us");
	{
		/* One histogram per state (C0, unknown, idle states) and per
		 * pre-query wake; of latency with --client, else exit-to-recv. */
		struct hist *by_state[TRACEFILE_MAX_STATES + 2] = { 0 };
		struct hist *by_pq[2] = { hist_new(1), hist_new(1) };

		for (size_t i = 0; i < n; i++) {
			const struct attr_result *r = &res[i];
			uint64_t l = lat_of(&lat, r->seq);
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
	}
	if (csv_close(out) || csv_close(sum))
		rc = 1;
	printf("%zu requests attributed on cpu%d; wrote %s/attribution.csv, attribution-summary.csv\n",
	       n, cpu, dir);
	free(res);
	free(ms.v);
	free(lat.ns);
	timeline_free(t);
	tracefile_meta_free(&m);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		opt_usage(TRACE_PROG, "which command? record, timeline, attribute, residency or turbostat");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		trace_usage();
		return 0;
	}
	if (!strcmp(argv[1], "record"))
		return trace_record(argc - 1, argv + 1, argc, argv);
	if (!strcmp(argv[1], "timeline"))
		return trace_timeline(argc - 1, argv + 1);
	if (!strcmp(argv[1], "attribute"))
		return trace_attribute(argc - 1, argv + 1);
	if (!strcmp(argv[1], "residency"))
		return trace_residency(argc - 1, argv + 1);
	if (!strcmp(argv[1], "turbostat"))
		return trace_turbostat(argc - 1, argv + 1);
	opt_usage(TRACE_PROG, "unknown command '%s'", argv[1]);
}
