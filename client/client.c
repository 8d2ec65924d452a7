// SPDX-License-Identifier: GPL-2.0
/* wakebench client: options and the run's life cycle. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "clishared.h"
#include "cpu.h"
#include "cpuset.h"
#include "hist.h"
#include "cmdline.h"
#include "die.h"
#include "runsignals.h"
#include "opt.h"
#include "kvkey.h"
#include "outdir.h"
#include "proto.h"
#include "wire.h"

/* The most service time a server can apply (its --max-service-us range). */
#define MAX_SERVICE_US 60000000

static const char *const wait_names[] = { "spin", "sleep", "hybrid", NULL };
/* Indexed by enum pqplan_at, enum warmup_mode and enum hist_rule. */
static const char *const prequery_at_names[] = {
	"lead", "gap-start", "sleep-after", NULL
};
static const char *const warmup_mode_names[] = { "schedule", "burst", NULL };
static const char *const percentile_rule_names[] = {
	"nearest-rank", "floor-index", NULL
};
/* Indexed by enum client_proto. */
static const char *const proto_names[] = {
	"tcp", "udp", "wakebench", "memcached", "redis", NULL
};

static int parse_key_dist(const char *arg, void *dest)
{
	return keydist_parse(arg, dest);
}

/* --cpu N or a list ("0,1", "0-3"): the CPUs in ascending order. */
static int parse_cpus(const char *arg, void *dest)
{
	struct client_cpus *c = dest;
	struct cpuset *set = cpuset_possible_new();
	int k = set ? cpuset_parse_list(set, arg) : -1;

	if (k < 1 || k > CLIENT_MAX_THREADS) {
		cpuset_free(set);
		return -1;
	}
	c->n = 0;
	for (int i = cpuset_next(set, 0); i >= 0; i = cpuset_next(set, i + 1))
		c->cpu[c->n++] = i;
	cpuset_free(set);
	return 0;
}

/* --raw all, sample:K (K >= 1) or none */
static int parse_raw(const char *arg, void *dest)
{
	struct client_raw *raw = dest;
	uint64_t k;

	if (!strcmp(arg, "all")) {
		raw->mode = RAW_ALL;
	} else if (!strcmp(arg, "none")) {
		raw->mode = RAW_NONE;
	} else if (!strncmp(arg, "sample:", 7) &&
		   !opt_u64(arg + 7, 1, 1000000000, &k)) {
		raw->mode = RAW_SAMPLE;
		raw->every = k;
	} else {
		return -1;
	}
	return 0;
}

/* --dist also takes "exponential" for exp (lib/arrival). */
static int parse_dist(const char *arg, void *dest)
{
	return arrival_dist_parse(arg, dest);
}

#define AT(field) CLI_AT(struct client_opts, field)

static const struct cli_opt client_options[] = {
	{ .name = "server", .short_name = 's', .kind = CLI_HOSTPORT,
	  .arg = "HOST:PORT", .help = "server to load (required)",
	  .hint = "HOST:PORT", .off = AT(server),
	  .seen = AT(have_server) },
	{ .name = "proto", .kind = CLI_ENUM, .names = proto_names,
	  .help = "tcp (default) or udp: wakebench's protocol\n"
		  "(wakebench: tcp); memcached (text) or redis\n"
		  "(RESP), over TCP, for real servers",
	  .off = AT(proto_arg) },
	{ .name = "dist", .short_name = 'd', .kind = CLI_STRING,
	  .arg = "fixed|exp|poisson|LAW:ARGS",
	  .help = "inter-arrival gaps (default fixed): exp is a Poisson\n"
		  "process; poisson draws whole-us Poisson(mean) gaps;\n"
		  "lognormal:SIGMA, pareto:ALPHA (> 1), gev:XI,SIGMA\n"
		  "(XI < 1), weibull:K, fb-etc (mutilate's Facebook\n"
		  "ETC gaps); bursts onoff:ON_MS,OFF_MS and\n"
		  "mmpp:R1,R2,T12,T21; the mean is always the gap's",
	  .off = AT(dist_arg) },
	{ .name = "interval-us", .short_name = 'i', .kind = CLI_REAL,
	  .store = CLI_DOUBLE, .arg = "US", .min = 0.001, .max = 1e10,
	  .scale = 1e3, .hint = CLI_RANGE, .help = "mean gap (default 1000)",
	  .off = AT(interval_ns), .seen = AT(have_interval) },
	{ .name = "rate", .short_name = 'r', .kind = CLI_REAL,
	  .store = CLI_DOUBLE, .arg = "N", .min = 1e-4, .max = 1e9,
	  .hint = "requests per second",
	  .help = "requests per second (instead of --interval-us)",
	  .off = AT(rate), .seen = AT(have_rate) },
	{ .name = "rate-profile", .kind = CLI_STRING, .arg = "FILE",
	  .help = "the rate over the run instead: lines 'T_S RATE\n"
		  "[step|ramp]' (steps, or linear to the next line)",
	  .off = AT(rate_profile) },
	{ .name = "arrivals", .kind = CLI_STRING, .arg = "FILE",
	  .help = "replay a trace's gaps: one number of us a line\n"
		  "(decimals allowed), or 'GAP get|set KEY' for\n"
		  "memcached or redis; -n defaults to its lines",
	  .off = AT(arrivals) },
	{ .name = "arrivals-offsets", .kind = CLI_FLAG,
	  .help = "its lines are offsets from the start, not gaps",
	  .off = AT(arrivals_offsets) },
	{ .name = "arrivals-scale", .kind = CLI_REAL, .store = CLI_DOUBLE,
	  .arg = "X", .min = 1e-6, .max = 1e6, .hint = CLI_RANGE,
	  .help = "multiply its gaps by X (default 1)",
	  .off = AT(arrivals_scale), .seen = AT(have_arrivals_scale) },
	{ .name = "requests", .short_name = 'n', .kind = CLI_UINT, .arg = "N",
	  .min = 1, .max = 1e9, .hint = CLI_RANGE,
	  .help = "measured requests (default 1000)", .off = AT(requests),
	  .seen = AT(have_requests) },
	{ .name = "duration", .short_name = 'D', .kind = CLI_REAL,
	  .store = CLI_DOUBLE, .arg = "S", .min = 1e-3, .max = 1e6,
	  .hint = "seconds",
	  .help = "measure for S seconds instead of a count",
	  .off = AT(duration_s) },
	{ .name = "warmup", .short_name = 'w', .kind = CLI_UINT, .arg = "N",
	  .max = 1e9,
	  .help = "requests sent first and not counted (default 0)",
	  .off = AT(warmup) },
	{ .name = "warmup-mode", .kind = CLI_ENUM, .names = warmup_mode_names,
	  .help = "schedule (default): the first N requests of the\n"
		  "schedule; burst: N pre-queries back to back before\n"
		  "it, to the pre-query receiver, replies unread (the\n"
		  "thesis' warm-up of 50)",
	  .off = AT(warmup_mode) },
	{ .name = "warmup-interval-us", .kind = CLI_REAL, .store = CLI_DOUBLE,
	  .arg = "US", .min = 0.001, .max = 1e10, .scale = 1e3,
	  .hint = CLI_RANGE,
	  .help = "mean gap of the warm-up requests (default: as\n"
		  "measured; the thesis' 3 tiers: 10000 poisson)",
	  .off = AT(warmup_interval_ns) },
	{ .name = "warmup-dist", .kind = CLI_CUSTOM,
	  .arg = "fixed|exp|poisson", .parse = parse_dist,
	  .hint = "fixed, exp or poisson",
	  .help = "their distribution (default: --dist)",
	  .off = AT(warmup_dist), .seen = AT(have_warmup_dist) },
	{ .name = "seed", .kind = CLI_UINT, .arg = "N",
	  .max = 18446744073709551615.0,
	  .help = "generator seed (default 1)", .off = AT(seed) },
	{ .name = "cpu", .short_name = 'c', .kind = CLI_CUSTOM,
	  .arg = "N|LIST", .parse = parse_cpus,
	  .hint = "a CPU of this machine, or a list such as 0,1 or 2-3",
	  .help = "pin the client to CPU N; with --threads, one CPU\n"
		  "per thread (a list: 0,1 or 0-3)",
	  .off = AT(cpus) },
	{ .name = "threads", .kind = CLI_UINT, .arg = "N", .min = 1,
	  .max = CLIENT_MAX_THREADS, .hint = CLI_RANGE,
	  .help = "N sending threads (default 1), each with its own\n"
		  "connections; thread k sends requests k, k+N, ...",
	  .off = AT(threads) },
	{ .name = "wait", .kind = CLI_ENUM, .names = wait_names,
	  .help = "pacing (default spin); hybrid sleeps until\n"
		  "--spin-margin-us (default 50) before, then spins",
	  .off = AT(wait) },
	{ .name = "spin-margin-us", .kind = CLI_REAL, .arg = "US",
	  .max = 1e7, .scale = 1e3, .hidden = 1, .off = AT(spin_margin_ns) },
	{ .name = "connections", .kind = CLI_UINT, .arg = "N", .min = 1,
	  .max = 10000, .hint = CLI_RANGE,
	  .help = "connections (per thread), requests round-robin\n"
		  "(default 1)",
	  .off = AT(connections) },
	{ .name = "service-us", .kind = CLI_REAL, .arg = "US",
	  .max = MAX_SERVICE_US, .scale = 1e3,
	  .hint = "0-60000000: no server applies more",
	  .help = "service time asked of the server (default 0, at\n"
		  "most 60000000); one the server caps (its\n"
		  "--max-service-us) is counted as service_capped",
	  .off = AT(service_ns) },
	{ .name = "payload", .kind = CLI_UINT, .arg = "BYTES",
	  .max = PROTO_MAX_PAYLOAD, .hint = CLI_RANGE,
	  .help = "request payload (default 0)", .off = AT(payload) },
	{ .kind = CLI_TEXT, .col = 30,
	  .help = "\nKey-value protocols (--proto memcached|redis):" },
	{ .name = "get-ratio", .kind = CLI_REAL, .store = CLI_DOUBLE,
	  .arg = "R", .min = 0, .max = 1, .hint = CLI_RANGE,
	  .help = "share of gets, the rest sets (default 0.9)",
	  .off = AT(get_ratio), .seen = AT(have_kv) },
	{ .name = "keys", .kind = CLI_UINT, .arg = "N", .min = 1, .max = 1e9,
	  .hint = CLI_RANGE, .help = "keys wb0..wbN-1 (default 10000)",
	  .off = AT(keys), .seen = AT(have_kv) },
	{ .name = "key-size", .kind = CLI_UINT, .arg = "B", .min = 3,
	  .max = 250, .hint = CLI_RANGE,
	  .help = "key length, zero-padded (default 16)",
	  .off = AT(key_size), .seen = AT(have_kv) },
	{ .name = "value-size", .kind = CLI_UINT, .arg = "B",
	  .max = PROTO_MAX_PAYLOAD, .hint = CLI_RANGE,
	  .help = "bytes a set stores (default 64)",
	  .off = AT(value_size), .seen = AT(have_kv) },
	{ .name = "key-dist", .kind = CLI_CUSTOM, .arg = "uniform|zipf:S",
	  .parse = parse_key_dist, .hint = "uniform or zipf:S (0 < S <= 10)",
	  .help = "key popularity (default uniform)",
	  .off = AT(key_dist), .seen = AT(have_kv) },
	{ .name = "preload", .kind = CLI_FLAG,
	  .help = "set every key before the run (not measured)",
	  .off = AT(preload), .seen = AT(have_kv) },
	{ .kind = CLI_TEXT, .col = 26, .help = "" },
	{ .name = "closed", .kind = CLI_FLAG,
	  .help = "closed loop: one outstanding request, gap after reply",
	  .off = AT(closed) },
	{ .name = "timeout-ms", .kind = CLI_UINT, .arg = "MS", .min = 1,
	  .max = 3600000, .scale = 1e6,
	  .help = "give up on a reply after MS (default 1000)",
	  .off = AT(timeout_ns) },
	{ .name = "connect-timeout-ms", .kind = CLI_UINT, .arg = "MS", .min = 1,
	  .max = 3600000, .scale = 1e6,
	  .help = "give up on a connect after MS (default: --timeout-ms)",
	  .off = AT(connect_timeout_ns) },
	{ .name = "late-us", .kind = CLI_REAL, .arg = "US", .max = 1e9,
	  .scale = 1e3,
	  .help = "a send later than this is late (default 10)",
	  .off = AT(late_ns) },
	{ .name = "timer-slack-ns", .kind = CLI_UINT, .arg = "N", .min = 1,
	  .max = 1e9, .hint = CLI_RANGE,
	  .help = "timer slack of the client's sleeps (default 1; the\n"
		  "kernel's default 50000 makes them overshoot like\n"
		  "the thesis' usleep)",
	  .off = AT(timer_slack_ns) },
	{ .name = "start-at", .kind = CLI_UINT, .arg = "NS",
	  .max = 18446744073709551615.0,
	  .help = "start the schedule at NS, CLOCK_REALTIME nanoseconds\n"
		  "(within a day; several clients start together)",
	  .off = AT(start_at_ns), .seen = AT(have_start_at) },
	{ .name = "exact-samples", .kind = CLI_UINT, .arg = "N", .min = 1,
	  .max = 1e9, .hint = CLI_RANGE,
	  .help = "percentiles exact up to N samples of each\n"
		  "distribution (default 1000000); past N from the\n"
		  "histogram, within 0.39 %: memory stays flat",
	  .off = AT(exact_samples) },
	{ .name = "percentile-rule", .kind = CLI_ENUM,
	  .names = percentile_rule_names,
	  .help = "nearest-rank (default): sorted value at rank\n"
		  "ceil(p*n); floor-index: at index floor(p*n), the\n"
		  "thesis' client",
	  .off = AT(percentile_rule) },
	{ .kind = CLI_TEXT, .col = 30,
	  .help = "\nPre-query (a PREQUERY message that wakes the server core before a request):" },
	{ .name = "prequery-lead-us", .kind = CLI_REAL, .store = CLI_DOUBLE,
	  .arg = "L", .max = 1e7, .hint = CLI_RANGE,
	  .help = "send it L us before each request's send time;\n"
		  "skipped and counted when the gap to the previous\n"
		  "request is shorter than L (0: just before). A\n"
		  "lead shorter than one send() (measured) goes in\n"
		  "the request's send(): the request never waits\n"
		  "for its pre-query",
	  .off = AT(lead_us), .seen = AT(prequery) },
	{ .name = "prequery-at", .kind = CLI_ENUM, .names = prequery_at_names,
	  .help = "lead (default): as above; gap-start: at the\n"
		  "start of the gap (after the previous request,\n"
		  "or its reply with --closed), skipped when gap\n"
		  "<= L; sleep-after: pre-query, the request L\n"
		  "later (L adds to every gap); the thesis' modes",
	  .off = AT(prequery_at) },
	{ .name = "prequery-ack", .kind = CLI_FLAG,
	  .help = "the server replies to each pre-query; the\n"
		  "client reads and drops the reply",
	  .off = AT(prequery_ack) },
	{ .name = "prequery-port", .kind = CLI_UINT, .store = CLI_U16,
	  .arg = "P", .min = 1, .max = 65535,
	  .help = "send pre-queries on a connection of their own\n"
		  "to port P (default: in-band); with memcached or\n"
		  "redis P may be the server's own port",
	  .off = AT(prequery_port) },
	CLI_OPT_PREQUERY_POLICY(struct client_opts, adaptive,
				"adaptive: hill-climb the lead from L (default 0)\n"
				"on each window's average service latency"),
	CLI_OPTS_HILLCLIMB(struct client_opts, hc, "max-lead-us"),
	{ .kind = CLI_TEXT, .help = "" },
	CLI_OPT_TRACE_MARKERS(struct client_opts, trace_markers,
			      "mark sends (\"wb send SEQ\", \"wb pq SEQ\") in the\n"
			      "trace instance of 'wakebench trace record'"),
	/* The rest of the page keeps the first column. */
	{ .kind = CLI_TEXT, .col = 26 },
	CLI_OPT_CSTATES(struct client_opts, cstates, have_cstates,
			"idle states for the run on --cpu only (all CPUs\n"
			"without it: idle-state flags and per-CPU resume\n"
			"latency), restored at exit; system-* also holds the\n"
			"machine-wide /dev/cpu_dma_latency (wakebench cstate)"),
	{ .name = "out", .short_name = 'o', .kind = CLI_STRING, .arg = "DIR",
	  .help = "write requests.csv, gaps.csv, summary.{txt,csv,json},\n"
		  "cmdline.txt, snapshot.json; DIR is created and\n"
		  "checked before the run and must be empty; the\n"
		  "files appear together once all are written, or\n"
		  "none does (full disk: the file and the cause)",
	  .off = AT(out_dir) },
	{ .name = "raw", .kind = CLI_CUSTOM, .arg = "all|sample:K|none",
	  .parse = parse_raw, .hint = "all, sample:K (K >= 1) or none",
	  .help = "rows of requests.csv: every measured request\n"
		  "(default), every K-th, or no file (the summaries\n"
		  "still count every request)",
	  .off = AT(raw) },
	{ .name = "force", .kind = CLI_FLAG,
	  .help = "reuse a non-empty DIR: first remove the files a\n"
		  "client run writes (and nothing else)",
	  .off = AT(force) },
	{ .name = "report-interval", .kind = CLI_REAL, .store = CLI_DOUBLE,
	  .arg = "S", .min = 0, .max = 1e6, .hint = "0 (none) or 0.1-1000000 seconds",
	  .help = "while the run goes, a line every S seconds: sent,\n"
		  "answered, late, p50/p99 of that interval (default\n"
		  "10 when the run is expected longer than 10 s; 0:\n"
		  "none)",
	  .off = AT(report_interval_s), .seen = AT(have_report_interval) },
	{ .name = "hdr-log", .kind = CLI_STRING, .arg = "FILE",
	  .help = "write an HdrHistogram interval log (.hlog, V2\n"
		  "compressed): per --report-interval (or the whole\n"
		  "run) a histogram of latency (Tag=lat) and service\n"
		  "latency (Tag=svc) in ns, from the interval\n"
		  "histograms (within 0.4 %)",
	  .off = AT(hdr_log) },
	{ .name = "latency-spectrum", .kind = CLI_FLAG,
	  .help = "print the latency percentile spectrum at the end\n"
		  "(wrk2 style: p50, p75, ... up to p99.999 as far as\n"
		  "the count goes), also into summary.txt; printed\n"
		  "even with -q",
	  .off = AT(latency_spectrum) },
	CLI_OPT_QUIET(struct client_opts, quiet,
		      "print no start line, interval lines or summary\n"
		      "(errors still go to stderr)"),
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

static const struct cli_cmd client_cmd = {
	.prog = PROG,
	.usage = "Usage: wakebench client --server HOST:PORT [options]",
	.about =
"Open-loop load generator: the send schedule is drawn as the run goes (the\n"
"same seed, the same schedule) and latency is measured from each request's\n"
"intended send time. Memory does not grow with the run's length.\n",
	.footer =
"requests.csv: seq,intended_ns,sent_ns,recv_ns,latency_ns,service_ns,\n"
"server_recv_ns,server_send_ns,prequery_sent_ns,status,prequery_lead_us,\n"
"prequery_lead_ns,prequery_planned_ns,applied_service_ns where latency_ns =\n"
"recv - intended, service_ns = recv - sent, prequery_lead_ns = sent -\n"
"prequery_sent and applied_service_ns the service the server applied\n"
"(CLOCK_MONOTONIC ns). Summary counters are over measured requests only.\n"
"Adaptive runs add prequery-trajectory.csv: window,value_us,step_us,\n"
"window_avg_ns,best_us,next_us (one row per window: the lead used in it,\n"
"its average; best_us: the lead of the lowest window average so far).\n"
"Exit status: 0 ok, 1 runtime error (partial results written), 2 usage.\n",
	.col = 26,
	.opts = client_options,
};

/* --start-at at most a day ahead. */
#define START_AT_MAX_NS (86400ull * 1000000000ull)

/*
 * --threads and --cpu. A mode that cannot be split among threads is
 * refused: the closed loop is one outstanding request, and the adaptive
 * hill climb is one controller fed by every reply in send order (split,
 * each thread would climb on its share and the server would see two
 * leads at once).
 */
static void check_threads(struct client_opts *o)
{
	o->cpu = o->cpus.n ? o->cpus.cpu[0] : -1;
	if (o->threads == 1) {
		if (o->cpus.n > 1)
			opt_usage(PROG, "--cpu lists %d CPUs: one per thread, with --threads %d",
				  o->cpus.n, o->cpus.n);
		return;
	}
	if (o->cpus.n && o->cpus.n != (int)o->threads)
		opt_usage(PROG, "--threads %llu needs one CPU per thread in --cpu (got %d: %s)",
			  (unsigned long long)o->threads, o->cpus.n,
			  o->cpus.n == 1 ? "two threads on one CPU take turns" :
			  "list as many as threads");
	if (o->closed)
		opt_usage(PROG, "--closed is one outstanding request: it takes no --threads");
	if (o->adaptive)
		opt_usage(PROG, "--prequery-policy adaptive is one controller fed by every reply in order: it takes no --threads (a fixed --prequery-lead-us does)");
}

/* The default interval of the lines while the run goes, and its longest
 * silence: a run expected longer than that reports. */
#define REPORT_DEFAULT_S 10.0
/* Shorter intervals would be mostly noise, and many lines a second. */
#define REPORT_MIN_S 0.1

/*
 * --report-interval, or its default: every 10 s when the run is expected
 * to last longer (its --duration, or its requests times the mean gap,
 * the warm-up's included), none otherwise; -q prints none.
 */
static void check_report(struct client_opts *o)
{
	double gap = o->interval_ns, wgap, secs;

	if (o->have_report_interval) {
		if (o->report_interval_s > 0 && o->report_interval_s < REPORT_MIN_S)
			opt_usage(PROG, "--report-interval %g: 0 (no lines) or at least %g s",
				  o->report_interval_s, REPORT_MIN_S);
	} else {
		if (o->prequery && o->prequery_at == PQPLAN_AT_SLEEP_AFTER)
			gap += o->lead_us * 1e3;
		wgap = o->warmup_interval_ns > 0 ? o->warmup_interval_ns : gap;
		secs = o->duration_s > 0 ? o->duration_s :
		       (double)o->requests * gap / 1e9;
		if (o->warmup_mode == WARMUP_SCHEDULE)
			secs += (double)o->warmup * wgap / 1e9;
		o->report_interval_s = secs > REPORT_DEFAULT_S ? REPORT_DEFAULT_S : 0;
	}
	/* -q: no lines; --hdr-log still logs each interval */
	if (o->quiet && !o->hdr_log)
		o->report_interval_s = 0;
}

/* --server, the rate and how long the run is. */
static void check_amounts(struct client_opts *o)
{
	if (!o->have_server)
		opt_usage(PROG, "--server HOST:PORT is required");
	if (o->have_interval && o->have_rate)
		opt_usage(PROG, "give --interval-us or --rate, not both");
	if (o->have_rate)
		o->interval_ns = 1e9 / o->rate;
	if (o->have_requests && o->duration_s > 0)
		opt_usage(PROG, "give --requests or --duration, not both");
	if (o->duration_s > 0)
		o->requests = 0;
	client_check_arrivals(o);
	if (!o->connect_timeout_ns)
		o->connect_timeout_ns = o->timeout_ns;
}

/* The wire protocol, and the options only some protocols take. */
static void check_wire(struct client_opts *o)
{
	o->proto = o->proto_arg == CPROTO_UDP ? NET_UDP : NET_TCP;
	o->wire = o->proto_arg == CPROTO_MEMCACHED ? &wire_memcached :
		  o->proto_arg == CPROTO_REDIS ? &wire_redis : &wire_wakebench;
	if (o->wire->keyed) {
		if (o->service_ns || o->payload)
			opt_usage(PROG, "--service-us and --payload are wakebench's; with --proto %s use --value-size",
				  o->wire->name);
		if (o->key_size < kvkey_min_size(o->keys))
			opt_usage(PROG, "--key-size %llu cannot hold %llu keys (\"wb\" and %u digits: at least %u)",
				  (unsigned long long)o->key_size,
				  (unsigned long long)o->keys,
				  kvkey_digits(o->keys - 1), kvkey_min_size(o->keys));
	} else if (o->have_kv) {
		opt_usage(PROG, "--get-ratio, --keys, --key-size, --value-size, --key-dist and --preload need --proto memcached or redis");
	}
	if (o->proto == NET_UDP && o->payload > PROTO_MAX_UDP_PAYLOAD)
		opt_usage(PROG, "--payload %llu does not fit a UDP datagram (max %u)",
			  (unsigned long long)o->payload, PROTO_MAX_UDP_PAYLOAD);
}

/* The arrival process and the run's size. */
static void check_schedule(const struct client_opts *o)
{
	if (o->dist == ARRIVAL_POISSON &&
	    (fabs(o->interval_ns / 1e3 - llround(o->interval_ns / 1e3)) > 1e-9 ||
	     o->interval_ns < 1e3 || o->interval_ns > 1e3 * ARRIVAL_POISSON_MAX_LAMBDA))
		opt_usage(PROG, "--dist poisson needs a whole number of microseconds from 1 to 10000000 (got %.3f)",
			  o->interval_ns / 1e3);
	if (o->requests && o->requests + o->warmup > 1000000000)
		opt_usage(PROG, "--requests plus --warmup exceed 1e9");
	if (o->duration_s > 0 && o->duration_s * 1e9 / o->interval_ns > 1e9)
		opt_usage(PROG, "--duration at this rate exceeds 1e9 requests");
	if (o->closed && o->connections > 1)
		opt_usage(PROG, "--closed uses one connection");
}

/* The adaptive pre-query lead's bounds; adaptive means a pre-query. */
static void check_adaptive(struct client_opts *o)
{
	if (o->adaptive) {
		o->prequery = 1;
		o->hc.initial_us = o->lead_us;
		if (o->lead_us > o->hc.max_us)
			opt_usage(PROG, "--prequery-lead-us exceeds --max-lead-us");
		if (o->hc.min_step_us > o->hc.step_us)
			opt_usage(PROG, "--min-step-us exceeds --step-us");
	}
}

/* --prequery-at and --prequery-ack: with a pre-query only. */
static void check_prequery_at(const struct client_opts *o)
{
	if ((o->prequery_at != PQPLAN_AT_LEAD || o->prequery_ack) &&
	    !o->prequery)
		opt_usage(PROG, "--prequery-at and --prequery-ack need --prequery-lead-us or --prequery-policy adaptive");
	if (o->prequery_at == PQPLAN_AT_SLEEP_AFTER && o->adaptive)
		opt_usage(PROG, "--prequery-at sleep-after needs a fixed lead (--prequery-lead-us)");
}

/* The warm-up's mode, gaps and distribution. */
static void check_warmup(struct client_opts *o)
{
	if (o->warmup_mode == WARMUP_BURST && !o->warmup)
		opt_usage(PROG, "--warmup-mode burst needs --warmup N");
	if ((o->warmup_interval_ns > 0 || o->have_warmup_dist) && !o->warmup)
		opt_usage(PROG, "--warmup-interval-us and --warmup-dist need --warmup N");
	if ((o->warmup_interval_ns > 0 || o->have_warmup_dist) &&
	    o->warmup_mode == WARMUP_BURST)
		opt_usage(PROG, "a burst warm-up has no gaps: --warmup-interval-us and --warmup-dist are for --warmup-mode schedule");
	if (o->have_warmup_dist && !(o->warmup_interval_ns > 0))
		o->warmup_interval_ns = o->interval_ns;
	if (o->warmup_interval_ns > 0 && !o->have_warmup_dist)
		o->warmup_dist = o->dist;
	if (o->warmup_dist == ARRIVAL_POISSON && o->warmup_interval_ns > 0 &&
	    (fabs(o->warmup_interval_ns / 1e3 - llround(o->warmup_interval_ns / 1e3)) > 1e-9 ||
	     o->warmup_interval_ns < 1e3 ||
	     o->warmup_interval_ns > 1e3 * ARRIVAL_POISSON_MAX_LAMBDA))
		opt_usage(PROG, "--warmup-dist poisson needs a whole number of microseconds from 1 to 10000000 (got %.3f)",
			  o->warmup_interval_ns / 1e3);
}

/* --prequery-port: with a pre-query, not the server's port. */
static void check_prequery_port(const struct client_opts *o)
{
	if (o->prequery_port && !o->prequery)
		opt_usage(PROG, "--prequery-port needs --prequery-lead-us or --prequery-policy adaptive");
	if (o->prequery_port && o->prequery_port == o->server.port &&
	    !o->wire->keyed)
		opt_usage(PROG, "--prequery-port must differ from the server port");
}

/* --start-at: in the future, by less than a day. */
static void check_start_at(const struct client_opts *o)
{
	struct timespec ts;
	uint64_t now;

	if (!o->have_start_at)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (o->start_at_ns <= now)
		opt_usage(PROG, "--start-at %llu is %.3f s in the past (CLOCK_REALTIME nanoseconds, e.g. $(date +%%s%%N))",
			  (unsigned long long)o->start_at_ns,
			  (double)(now - o->start_at_ns) / 1e9);
	if (o->start_at_ns - now > START_AT_MAX_NS)
		opt_usage(PROG, "--start-at %llu is %.0f s ahead: more than a day (CLOCK_REALTIME nanoseconds, not microseconds?)",
			  (unsigned long long)o->start_at_ns,
			  (double)(o->start_at_ns - now) / 1e9);
}

static void parse_opts(struct client_opts *o, int argc, char **argv)
{
	*o = (struct client_opts){
		.proto = NET_TCP, .dist = ARRIVAL_FIXED, .interval_ns = 1e6,
		.requests = 1000, .seed = 1, .cpu = -1, .wait = WAIT_SPIN,
		.spin_margin_ns = CLOCK_HYBRID_MARGIN_NS, .connections = 1,
		.timeout_ns = 1000000000ull, .late_ns = 10000,
		.timer_slack_ns = 1, .get_ratio = 0.9, .keys = 10000,
		.key_size = 16, .value_size = 64, .threads = 1,
		.exact_samples = 1000000,
	};
	hillclimb_defaults(&o->hc);
	cli_parse(&client_cmd, argc, argv, o);
	check_amounts(o);
	check_wire(o);
	check_schedule(o);
	check_adaptive(o);
	if (o->force && !o->out_dir)
		opt_usage(PROG, "--force needs --out DIR");
	if (o->out_dir && !*o->out_dir)
		opt_usage(PROG, "--out needs a directory name");
	check_prequery_at(o);
	check_warmup(o);
	check_prequery_port(o);
	check_threads(o);
	check_report(o);
	check_start_at(o);
}

/*
 * --cstates on the client's CPUs: --cpu's (one, or one per thread), every
 * CPU without it.
 */
static struct cstate_session *cstates_begin(const struct client_opts *o,
					    char *err, size_t errlen)
{
	struct cstate_session *cs;
	struct cpuset *mask;

	if (o->cpus.n <= 1)
		return cstate_run_begin(&o->cstates, o->cpu, o->cmdline, err,
					errlen);
	mask = cpuset_possible_new();
	if (!mask) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (int i = 0; i < o->cpus.n; i++)
		cpuset_set(mask, o->cpus.cpu[i]);
	cs = cstate_run_begin_cpus(&o->cstates, mask, o->cmdline, err, errlen);
	cpuset_free(mask);
	return cs;
}

/* Restores the idle states; says so when it could not. */
static void cstates_end(struct cstate_session *cs)
{
	int left = cstate_end(cs);

	if (left < 0)
		fprintf(stderr, "%s: restoring idle states: %s (run 'wakebench cstate restore')\n",
			PROG, strerror(-left));
}

/*
 * The governor's counters before the run: every CPU, as the server's is
 * not known here. A failed read leaves the snapshot empty and its note
 * says why (the summary shows the note, the columns stay out).
 */
static void gov_begin(struct govstat_snap *g)
{
	if (govstat_snap(g, NULL))
		snprintf(g->note, sizeof(g->note), "governor counters: out of memory");
}

/* ... and after it: the run's delta into @d. */
static void gov_end(struct govstat_snap *g, struct govstat_delta *d)
{
	struct govstat_snap after;

	if (govstat_snap(&after, NULL))
		snprintf(after.note, sizeof(after.note), "governor counters: out of memory");
	govstat_delta(g, &after, -1, d);
	govstat_free(g);
	govstat_free(&after);
}

int main(int argc, char **argv)
{
	struct cstate_session *cs = NULL;
	struct govstat_snap gov;
	struct client_opts o;
	struct run r;
	char err[4700];
	int ret;

	parse_opts(&o, argc, argv);
	/*
	 * From here SIGINT/SIGTERM/SIGHUP wait for the run (blocked, then
	 * read from a signalfd; one that comes while a long schedule is
	 * counted, or while --start-at is awaited, stops that), with or
	 * without --cstates; a closed stdout (| head) must not cost the
	 * --out files (SIGPIPE ignored).
	 */
	cstate_run_signals();
	o.cmdline = opt_cmdline(argc, argv);
	if (!o.cmdline)
		opt_die(PROG, "out of memory");
	/* Before anything runs: a bad --out must not cost the experiment. */
	if (o.out_dir &&
	    outdir_prepare(o.out_dir, client_out_files, o.force, err, sizeof(err)))
		opt_die(PROG, "--out: %s", err);
	if (o.hdr_log && client_hdr_open(&o, err, sizeof(err)))
		opt_die(PROG, "--hdr-log %s", err);
	/*
	 * What the run is, at once (a long schedule may be counted through
	 * first, a --start-at awaited), flushed: a pipe or a file gets it
	 * now too. With lines while it runs, how to read them.
	 */
	if (!o.quiet) {
		output_start_line(stdout, &o);
		putchar('\n');
		if (o.report_interval_s > 0)
			printf("reporting every %g s: requests done in each interval, its p50/p99 latency from a histogram (within %.2f %%)\n",
			       o.report_interval_s, HIST_REL_ERROR * 100);
		fflush(stdout);
	}
	/* One thread runs in this one; more pin themselves. */
	if (o.threads == 1 && cpu_pin_opt(o.cpu, err, sizeof(err)))
		opt_die(PROG, "%s", err);
	if (o.have_cstates) {
		cs = cstates_begin(&o, err, sizeof(err));
		if (!cs)
			opt_die(PROG, "--cstates: %s", err);
		if (cstate_warning(cs)[0])
			fprintf(stderr, "%s: warning: --cstates: %s\n", PROG,
				cstate_warning(cs));
	}
	ret = run_init(&r, &o);
	if (ret == -EINTR) {
		/* Nothing sent, nothing written: restore and go. */
		fprintf(stderr, "%s: interrupted while drawing the schedule\n",
			PROG);
		cstates_end(cs);
		client_free_arrivals(&o);
		free(o.cmdline);
		return 1;
	}
	if (ret)
		opt_die(PROG, "cannot build the schedule: %s", strerror(-ret));
	gov_begin(&gov);
	run_experiment(&r);
	gov_end(&gov, &r.gov);
	if (r.start_wait_interrupted) {
		/* As above: the schedule had not started. */
		fprintf(stderr, "%s: interrupted while waiting for --start-at\n",
			PROG);
		cstates_end(cs);
		run_free(&r);
		client_free_arrivals(&o);
		free(o.cmdline);
		return 1;
	}
	ret = output_write(&r, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s: %s\n", PROG, err);
	if (client_hdr_close(&o, &r, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", PROG, err);
		ret = -EIO;
	}
	if (r.status == RUN_FAILED)
		fprintf(stderr, "%s: %s\n", PROG, r.err);
	else if (r.status == RUN_INTERRUPTED)
		fprintf(stderr, "%s: interrupted after %llu requests\n", PROG,
			(unsigned long long)r.sent);
	else if (r.error_replies)
		fprintf(stderr, "%s: %llu requests answered with an error (backend down or too slow?)\n",
			PROG, (unsigned long long)r.error_replies);
	cstates_end(cs);
	run_free(&r);
	client_free_arrivals(&o);
	free(o.cmdline);
	return (ret || r.status != RUN_OK || r.error_replies) ? 1 : 0;
}
