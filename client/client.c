// SPDX-License-Identifier: GPL-2.0
/* wakebench client: options and the run's life cycle. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "cpu.h"
#include "opt.h"
#include "outdir.h"
#include "proto.h"

/* The most service time a server can apply (its --max-service-us range). */
#define MAX_SERVICE_US 60000000

static void usage(void)
{
	printf(
"Usage: wakebench client --server HOST:PORT [options]\n"
"\n"
"Open-loop load generator: the send schedule is drawn before the run and\n"
"latency is measured from each request's intended send time.\n"
"\n"
"  -s, --server HOST:PORT  server to load (required)\n"
"      --proto tcp|udp     transport (default tcp)\n"
"  -d, --dist fixed|exp|poisson\n"
"                          inter-arrival gaps (default fixed): exp is a Poisson\n"
"                          process; poisson draws whole-us Poisson(mean) gaps\n"
"  -i, --interval-us US    mean gap (default 1000)\n"
"  -r, --rate N            requests per second (instead of --interval-us)\n"
"  -n, --requests N        measured requests (default 1000)\n"
"  -D, --duration S        measure for S seconds instead of a count\n"
"  -w, --warmup N          requests sent first and not counted (default 0)\n"
"      --seed N            generator seed (default 1)\n"
"  -c, --cpu N             pin the client to CPU N\n"
"      --wait spin|sleep|hybrid\n"
"                          pacing (default spin); hybrid sleeps until\n"
"                          --spin-margin-us (default 50) before, then spins\n"
"      --connections N     connections, requests round-robin (default 1)\n"
"      --service-us US     service time asked of the server (default 0, at\n"
"                          most 60000000); one the server caps (its\n"
"                          --max-service-us) is counted as service_capped\n"
"      --payload BYTES     request payload (default 0)\n"
"      --closed            closed loop: one outstanding request, gap after reply\n"
"      --timeout-ms MS     give up on a reply after MS (default 1000)\n"
"      --late-us US        a send later than this is late (default 10)\n"
"\n"
"Pre-query (a PREQUERY message that wakes the server core before a request):\n"
"      --prequery-lead-us L    send it L us before each request's send time;\n"
"                              skipped and counted when the gap to the previous\n"
"                              request is shorter than L (0: just before). A\n"
"                              lead shorter than one send() (measured) goes in\n"
"                              the request's send(): the request never waits\n"
"                              for its pre-query\n"
"      --prequery-port P       send pre-queries to port P (default: in-band)\n"
"      --prequery-policy fixed|adaptive\n"
"                              adaptive: hill-climb the lead from L (default 0)\n"
"                              on each window's average service latency\n"
"      --window N              adaptive window in replies (default 1000)\n"
"      --step-us US            adaptive initial step (default 100)\n"
"      --min-step-us US        adaptive step floor (default 3)\n"
"      --max-lead-us US        adaptive upper bound (default 1000000)\n"
"\n"
"      --trace-markers         mark sends (\"wb send SEQ\", \"wb pq SEQ\") in the\n"
"                              trace instance of 'wakebench trace record'\n"
"      --cstates on|off|max-latency-us=N|system-off|system-max-latency-us=N\n"
"                          idle states for the run on --cpu only (all CPUs\n"
"                          without it: idle-state flags and per-CPU resume\n"
"                          latency), restored at exit; system-* also holds the\n"
"                          machine-wide /dev/cpu_dma_latency (wakebench cstate)\n"
"  -o, --out DIR           write requests.csv, gaps.csv, summary.{txt,csv,json},\n"
"                          cmdline.txt, snapshot.json; DIR is created and\n"
"                          checked before the run and must be empty; the\n"
"                          files appear together once all are written, or\n"
"                          none does (full disk: the file and the cause)\n"
"      --force             reuse a non-empty DIR: first remove the files a\n"
"                          client run writes (and nothing else)\n"
"  -q, --quiet             do not print the summary\n"
"  -h, --help              this help\n"
"\n"
"requests.csv: seq,intended_ns,sent_ns,recv_ns,latency_ns,service_ns,\n"
"server_recv_ns,server_send_ns,prequery_sent_ns,status,prequery_lead_us,\n"
"prequery_lead_ns,prequery_planned_ns,applied_service_ns where latency_ns =\n"
"recv - intended, service_ns = recv - sent, prequery_lead_ns = sent -\n"
"prequery_sent and applied_service_ns the service the server applied\n"
"(CLOCK_MONOTONIC ns). Summary counters are over measured requests only.\n"
"Adaptive runs add prequery-trajectory.csv: window,value_us,step_us,\n"
"window_avg_ns,best_us,next_us (one row per window: the lead used in it,\n"
"its average; best_us: the lead of the lowest window average so far).\n"
"Exit status: 0 ok, 1 runtime error (partial results written), 2 usage.\n");
}

static void parse_opts(struct client_opts *o, int argc, char **argv)
{
	enum { O_PROTO = 256, O_SEED, O_WAIT, O_MARGIN, O_CONNS, O_SVC,
	       O_PAYLOAD, O_CLOSED, O_TIMEOUT, O_LATE, O_CSTATES, O_LEAD, O_PQPORT,
	       O_POLICY, O_WINDOW, O_STEP, O_MINSTEP, O_MAXLEAD, O_MARKERS,
	       O_FORCE };
	static const struct option longopts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "proto", required_argument, NULL, O_PROTO },
		{ "dist", required_argument, NULL, 'd' },
		{ "interval-us", required_argument, NULL, 'i' },
		{ "rate", required_argument, NULL, 'r' },
		{ "requests", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'D' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, O_SEED },
		{ "cpu", required_argument, NULL, 'c' },
		{ "wait", required_argument, NULL, O_WAIT },
		{ "spin-margin-us", required_argument, NULL, O_MARGIN },
		{ "connections", required_argument, NULL, O_CONNS },
		{ "service-us", required_argument, NULL, O_SVC },
		{ "payload", required_argument, NULL, O_PAYLOAD },
		{ "closed", no_argument, NULL, O_CLOSED },
		{ "timeout-ms", required_argument, NULL, O_TIMEOUT },
		{ "late-us", required_argument, NULL, O_LATE },
		{ "cstates", required_argument, NULL, O_CSTATES },
		{ "prequery-lead-us", required_argument, NULL, O_LEAD },
		{ "prequery-port", required_argument, NULL, O_PQPORT },
		{ "prequery-policy", required_argument, NULL, O_POLICY },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "step-us", required_argument, NULL, O_STEP },
		{ "min-step-us", required_argument, NULL, O_MINSTEP },
		{ "max-lead-us", required_argument, NULL, O_MAXLEAD },
		{ "trace-markers", no_argument, NULL, O_MARKERS },
		{ "out", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, O_FORCE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int have_server = 0, have_interval = 0, have_rate = 0;
	int have_requests = 0, idx = 0;
	uint64_t v;
	double d;
	int c;

	*o = (struct client_opts){
		.proto = NET_TCP, .dist = ARRIVAL_FIXED, .interval_ns = 1e6,
		.requests = 1000, .seed = 1, .cpu = -1, .wait = WAIT_SPIN,
		.spin_margin_ns = CLOCK_HYBRID_MARGIN_NS, .connections = 1,
		.timeout_ns = 1000000000ull, .late_ns = 10000,
	};
	hillclimb_defaults(&o->hc);
	while ((c = getopt_long(argc, argv, "s:d:i:r:n:D:w:c:o:qh", longopts,
				&idx)) != -1) {
		switch (c) {
		case 's':
			if (opt_hostport(optarg, "127.0.0.1", o->host,
					 sizeof(o->host), &o->port))
				opt_usage(PROG, "invalid --server '%s' (HOST:PORT)",
					  optarg);
			have_server = 1;
			break;
		case O_PROTO:
			if (net_proto_parse(optarg, &o->proto))
				opt_usage(PROG, "invalid --proto '%s' (tcp or udp)",
					  optarg);
			break;
		case 'd':
			if (arrival_dist_parse(optarg, &o->dist))
				opt_usage(PROG, "invalid --dist '%s' (fixed, exp or poisson)",
					  optarg);
			break;
		case 'i':
			if (opt_double(optarg, 0.001, 1e10, &d))
				opt_usage(PROG, "invalid --interval-us '%s' (0.001-1e10)",
					  optarg);
			o->interval_ns = d * 1e3;
			have_interval = 1;
			break;
		case 'r':
			if (opt_double(optarg, 1e-4, 1e9, &d))
				opt_usage(PROG, "invalid --rate '%s' (requests per second)",
					  optarg);
			o->interval_ns = 1e9 / d;
			have_rate = 1;
			break;
		case 'n':
			if (opt_u64(optarg, 1, 1000000000, &v))
				opt_usage(PROG, "invalid --requests '%s' (1-1e9)",
					  optarg);
			o->requests = v;
			have_requests = 1;
			break;
		case 'D':
			if (opt_double(optarg, 1e-3, 1e6, &d))
				opt_usage(PROG, "invalid --duration '%s' (seconds)",
					  optarg);
			o->duration_s = d;
			break;
		case 'w':
			if (opt_u64(optarg, 0, 1000000000, &v))
				opt_usage(PROG, "invalid --warmup '%s'", optarg);
			o->warmup = v;
			break;
		case O_SEED:
			if (opt_u64(optarg, 0, UINT64_MAX, &v))
				opt_usage(PROG, "invalid --seed '%s'", optarg);
			o->seed = v;
			break;
		case 'c':
			if (opt_u64(optarg, 0, (uint64_t)cpu_count() - 1, &v))
				opt_usage(PROG, "invalid --cpu '%s' (this machine has CPUs 0-%d)",
					  optarg, cpu_count() - 1);
			o->cpu = (int)v;
			break;
		case O_WAIT:
			if (clock_wait_parse(optarg, &o->wait))
				opt_usage(PROG, "invalid --wait '%s' (spin, sleep or hybrid)",
					  optarg);
			break;
		case O_MARGIN:
			if (opt_double(optarg, 0, 1e7, &d))
				opt_usage(PROG, "invalid --spin-margin-us '%s'", optarg);
			o->spin_margin_ns = (uint64_t)(d * 1e3);
			break;
		case O_CONNS:
			if (opt_u64(optarg, 1, 10000, &v))
				opt_usage(PROG, "invalid --connections '%s' (1-10000)",
					  optarg);
			o->connections = v;
			break;
		case O_SVC:
			if (opt_double(optarg, 0, MAX_SERVICE_US, &d))
				opt_usage(PROG, "invalid --service-us '%s' (0-%d: no server applies more)",
					  optarg, MAX_SERVICE_US);
			o->service_ns = (uint64_t)llround(d * 1e3);
			break;
		case O_PAYLOAD:
			if (opt_u64(optarg, 0, PROTO_MAX_PAYLOAD, &v))
				opt_usage(PROG, "invalid --payload '%s' (0-%u)",
					  optarg, PROTO_MAX_PAYLOAD);
			o->payload = v;
			break;
		case O_CLOSED:
			o->closed = 1;
			break;
		case O_TIMEOUT:
			if (opt_u64(optarg, 1, 3600000, &v))
				opt_usage(PROG, "invalid --timeout-ms '%s'", optarg);
			o->timeout_ns = v * 1000000ull;
			break;
		case O_LATE:
			if (opt_double(optarg, 0, 1e9, &d))
				opt_usage(PROG, "invalid --late-us '%s'", optarg);
			o->late_ns = (uint64_t)(d * 1e3);
			break;
		case O_CSTATES:
			cstate_spec_opt(PROG, optarg, &o->cstates);
			o->have_cstates = 1;
			break;
		case O_LEAD:
			if (opt_double(optarg, 0, 1e7, &o->lead_us))
				opt_usage(PROG, "invalid --prequery-lead-us '%s' (0-1e7)",
					  optarg);
			o->prequery = 1;
			break;
		case O_PQPORT:
			if (opt_u64(optarg, 1, 65535, &v))
				opt_usage(PROG, "invalid --prequery-port '%s'", optarg);
			o->prequery_port = (uint16_t)v;
			break;
		case O_POLICY:
			if (!strcmp(optarg, "adaptive"))
				o->adaptive = 1;
			else if (strcmp(optarg, "fixed"))
				opt_usage(PROG, "invalid --prequery-policy '%s' (fixed or adaptive)",
					  optarg);
			break;
		case O_WINDOW:
		case O_STEP:
		case O_MINSTEP:
		case O_MAXLEAD:
			if (hillclimb_cfg_parse(&o->hc, (enum hillclimb_knob)(c - O_WINDOW),
						optarg))
				opt_usage(PROG, "invalid --%s '%s'", longopts[idx].name,
					  optarg);
			break;
		case O_MARKERS:
			o->trace_markers = 1;
			break;
		case 'o':
			o->out_dir = optarg;
			break;
		case O_FORCE:
			o->force = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage();
			exit(0);
		default:
			opt_bad_option(PROG);
		}
	}
	if (optind < argc)
		opt_usage(PROG, "unexpected argument '%s'", argv[optind]);
	if (!have_server)
		opt_usage(PROG, "--server HOST:PORT is required");
	if (have_interval && have_rate)
		opt_usage(PROG, "give --interval-us or --rate, not both");
	if (have_requests && o->duration_s > 0)
		opt_usage(PROG, "give --requests or --duration, not both");
	if (o->duration_s > 0)
		o->requests = 0;
	if (o->proto == NET_UDP && o->payload > PROTO_MAX_UDP_PAYLOAD)
		opt_usage(PROG, "--payload %llu does not fit a UDP datagram (max %u)",
			  (unsigned long long)o->payload, PROTO_MAX_UDP_PAYLOAD);
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
	if (o->adaptive) {
		o->prequery = 1;
		o->hc.initial_us = o->lead_us;
		if (o->lead_us > o->hc.max_us)
			opt_usage(PROG, "--prequery-lead-us exceeds --max-lead-us");
		if (o->hc.min_step_us > o->hc.step_us)
			opt_usage(PROG, "--min-step-us exceeds --step-us");
	}
	if (o->force && !o->out_dir)
		opt_usage(PROG, "--force needs --out DIR");
	if (o->out_dir && !*o->out_dir)
		opt_usage(PROG, "--out needs a directory name");
	if (o->prequery_port && !o->prequery)
		opt_usage(PROG, "--prequery-port needs --prequery-lead-us or --prequery-policy adaptive");
	if (o->prequery_port && o->prequery_port == o->port)
		opt_usage(PROG, "--prequery-port must differ from the server port");
}

int main(int argc, char **argv)
{
	struct cstate_session *cs = NULL;
	struct client_opts o;
	struct run r;
	char err[4700];
	int ret, left;

	parse_opts(&o, argc, argv);
	/*
	 * From here SIGINT/SIGTERM/SIGHUP wait for the run (blocked, then
	 * read from a signalfd; one that comes while a long schedule is
	 * drawn stops the drawing), with or without --cstates; a closed
	 * stdout (| head) must not cost the --out files (SIGPIPE ignored).
	 */
	cstate_run_signals();
	o.cmdline = opt_cmdline(argc, argv);
	if (!o.cmdline)
		opt_die(PROG, "out of memory");
	/* Before anything runs: a bad --out must not cost the experiment. */
	if (o.out_dir &&
	    outdir_prepare(o.out_dir, client_out_files, o.force, err, sizeof(err)))
		opt_die(PROG, "--out: %s", err);
	if (o.cpu >= 0) {
		ret = cpu_pin_self(o.cpu);
		if (ret)
			opt_die(PROG, "cannot pin to CPU %d: %s", o.cpu,
				strerror(-ret));
	}
	if (o.have_cstates) {
		cs = cstate_run_begin(&o.cstates, o.cpu, o.cmdline, err,
				      sizeof(err));
		if (!cs)
			opt_die(PROG, "--cstates: %s", err);
	}
	ret = run_schedule(&r, &o);
	if (ret == -EINTR) {
		/* Nothing sent, nothing written: restore and go. */
		fprintf(stderr, "%s: interrupted while drawing the schedule\n",
			PROG);
		if (cstate_end(cs) < 0)
			fprintf(stderr, "%s: restoring idle states failed (run 'wakebench cstate restore')\n",
				PROG);
		free(o.cmdline);
		return 1;
	}
	if (ret)
		opt_die(PROG, "cannot build the schedule: %s", strerror(-ret));
	run_experiment(&r);
	ret = output_write(&r, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s: %s\n", PROG, err);
	if (r.status == RUN_FAILED)
		fprintf(stderr, "%s: %s\n", PROG, r.err);
	else if (r.status == RUN_INTERRUPTED)
		fprintf(stderr, "%s: interrupted after %llu requests\n", PROG,
			(unsigned long long)r.sent);
	else if (r.error_replies)
		fprintf(stderr, "%s: %llu requests answered with an error (backend down or too slow?)\n",
			PROG, (unsigned long long)r.error_replies);
	left = cstate_end(cs);
	if (left < 0)
		fprintf(stderr, "%s: restoring idle states: %s (run 'wakebench cstate restore')\n",
			PROG, strerror(-left));
	run_free(&r);
	free(o.cmdline);
	return (ret || r.status != RUN_OK || r.error_replies) ? 1 : 0;
}
