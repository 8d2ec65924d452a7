/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WB_CLIENT_H
#define WB_CLIENT_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "arrival.h"
#include "cli.h"
#include "clock.h"
#include "cstate.h"
#include "energy.h"
#include "govstat.h"
#include "hillclimb.h"
#include "keydist.h"
#include "net.h"
#include "pqplan.h"
#include "schedule.h"
#include "tally.h"

#define PROG "wakebench-client"

/* At most this many --threads (and CPUs in --cpu). */
#define CLIENT_MAX_THREADS 256

/* --cpu N or LIST: the CPUs in ascending order (thread k on cpu[k]). */
struct client_cpus {
	int n;
	int cpu[CLIENT_MAX_THREADS];
};

/* --raw: the rows of requests.csv */
enum raw_mode {
	RAW_ALL = 0,		/* every measured request */
	RAW_SAMPLE,		/* every K-th (raw_every) */
	RAW_NONE,		/* no requests.csv */
};

struct client_raw {
	enum raw_mode mode;
	uint64_t every;		/* K of sample:K */
};

struct client_opts {
	struct cli_hostport server;	/* --server HOST:PORT */
	enum net_proto proto;	/* transport */
	int proto_arg;		/* --proto as given (enum client_proto) */
	const struct wb_proto_ops *wire;	/* the protocol spoken */
	/* key-value protocols (memcached, redis) */
	double get_ratio;
	uint64_t keys;
	uint64_t key_size, value_size;
	struct keydist_spec key_dist;
	int preload;
	int have_kv;		/* a key-value option given */
	enum arrival_dist dist;
	double interval_ns;
	/* issue 36: --dist with its parameters, a rate profile, a trace */
	const char *dist_arg;	/* --dist as given (NULL: fixed) */
	struct arrival_law law;	/* it parsed; dist is law.dist */
	char dist_name[80];	/* the law as the summaries write it */
	const char *rate_profile;	/* --rate-profile FILE */
	struct rateprof profile;
	const char *arrivals;	/* --arrivals FILE */
	int arrivals_offsets;	/* its lines are offsets, not gaps */
	double arrivals_scale;	/* --arrivals-scale (default 1) */
	int have_arrivals_scale;
	struct replay replay;
	uint64_t requests;	/* measured requests; 0 with --duration */
	double duration_s;
	uint64_t warmup;
	uint64_t seed;
	int cpu;		/* the first of cpus, or -1 */
	struct client_cpus cpus;	/* --cpu (n = 0: not given) */
	uint64_t threads;	/* --threads */
	enum clock_wait wait;
	uint64_t spin_margin_ns;
	uint64_t connections;	/* per thread */
	uint64_t service_ns;
	uint64_t payload;
	int closed;
	uint64_t timeout_ns;
	uint64_t connect_timeout_ns;	/* --connect-timeout-ms; 0: timeout_ns */
	uint64_t late_ns;
	const char *out_dir;
	int force;		/* --force: replace a previous run's files */
	int quiet;
	char *cmdline;
	int have_cstates;
	/* given on the command line (checks across options) */
	int have_server, have_interval, have_rate, have_requests;
	int have_warmup_dist;
	double rate;		/* --rate, requests per second */
	struct cstate_spec cstates;
	/* pre-query */
	int prequery;		/* --prequery-lead-us or adaptive given */
	int adaptive;		/* --prequery-policy: 0 fixed, 1 adaptive */
	double lead_us;		/* fixed lead, or the adaptive start */
	uint16_t prequery_port;	/* 0: in-band on the request connection */
	int prequery_at;	/* enum pqplan_at: lead, gap-start, sleep-after */
	int prequery_ack;	/* pre-queries ask for a reply (discarded) */
	uint64_t timer_slack_ns;	/* the client thread's timer slack */
	int warmup_mode;	/* enum warmup_mode */
	int warmup_dist;	/* enum arrival_dist of the warm-up gaps */
	double warmup_interval_ns;	/* 0: the warm-up gaps are --dist's */
	int percentile_rule;	/* enum hist_rule */
	int trace_markers;
	struct hillclimb_cfg hc;
	struct client_raw raw;	/* --raw all|sample:K|none */
	uint64_t exact_samples;	/* --exact-samples: the bound of each distribution */
	uint64_t start_at_ns;	/* --start-at (CLOCK_REALTIME), 0: none */
	int have_start_at;
	/* --report-interval: seconds between two lines while the run goes,
	 * 0: none (the default decided in parse_opts) */
	double report_interval_s;
	int have_report_interval;
	int latency_spectrum;	/* --latency-spectrum */
	const char *hdr_log;	/* --hdr-log FILE, or NULL */
	FILE *hdr_file;		/* it, open while the client runs */
};

/* --proto: indexed as its names */
enum client_proto {
	CPROTO_TCP, CPROTO_UDP, CPROTO_WAKEBENCH, CPROTO_MEMCACHED, CPROTO_REDIS,
};

enum warmup_mode {
	WARMUP_SCHEDULE = 0,	/* the first --warmup requests of the schedule */
	WARMUP_BURST,		/* --warmup pre-queries back to back, first */
};

/*
 * --dist, --rate-profile and --arrivals (client/arrivals.c): parses the
 * law, reads the files and sets interval_ns to the run's mean gap; exits
 * with a usage message on a bad value or combination.
 */
void client_check_arrivals(struct client_opts *o);
/* Frees what client_check_arrivals read (the profile, the trace). */
void client_free_arrivals(struct client_opts *o);
/* The summaries' "dist": the law, or "replay" for a trace. */
const char *client_dist_name(const struct client_opts *o);

/* The files a client run writes into --out (what --force removes). */
extern const char *const client_out_files[];

enum run_status {
	RUN_OK = 0,
	RUN_INTERRUPTED,	/* SIGINT/SIGTERM */
	RUN_FAILED,		/* error, see run.err */
};

/*
 * What the requests add up to, counted as each one is done (a thread's
 * own, then all threads' merged): the summary is computed from these,
 * never from the requests, which are not kept.
 */
struct run_acc {
	struct tally meas, warm;	/* lib/tally: measured; warm-up apart */
	/* measured: latency (answered with a REPLY), service latency, and
	 * the pacing error of every send; exact up to --exact-samples */
	struct hist *lat, *svc, *pace;
	uint64_t gets, sets, misses;	/* key-value: measured, answered */
	uint64_t capped;	/* replies the server capped */
	uint64_t min_applied_ns;	/* the lowest applied among those */
	uint64_t first_sent_ns, last_sent_ns;	/* of the measured sends */
	uint64_t rows;		/* records kept for requests.csv */
	/* send time and latency of the measured requests, for the tests
	 * of the workload (lib/validity), up to --exact-samples */
	struct validity_log *vlog;
};

struct spool;
struct validity_log;
struct ivstat;
struct reporter;

struct run {
	const struct client_opts *o;
	struct schedule_cfg sched;	/* the schedule, drawn as it goes */
	uint64_t total;		/* warmup + measured; 0 until known */
	/*
	 * Requests of the schedule drawn, warm-up included: the prefix of
	 * the schedule the run reached (any thread), which gaps.csv holds.
	 * The whole schedule (total) unless the run stopped early.
	 */
	uint64_t drawn;
	uint64_t warmup;	/* of them warm-up (0 with a burst warm-up) */
	unsigned int nthreads;
	uint64_t burst_sent;	/* burst warm-up messages sent */
	uint64_t prequery_acks;	/* replies to pre-queries (--prequery-ack), dropped */
	uint64_t preloaded;	/* keys set by --preload */
	uint64_t preload_ns;	/* how long that took */
	uint64_t sent, received, error_replies;
	uint64_t start_ns, end_ns;
	int start_wait_interrupted;	/* a signal while waiting for --start-at */
	struct hillclimb hc;
	struct hillclimb_row *traj;
	uint64_t ntraj, traj_cap;
	/* RAPL energy over the measured requests (lib/energy): from the
	 * first measured send to the last reply; energy_ok when read */
	struct energy energy;
	int energy_ok;
	char energy_note[512];
	/* the governor's counters over the whole run on every CPU (the
	 * client does not know where the server runs; trace capture gives
	 * the server's CPU): lib/govstat, empty with a note without cpuidle */
	struct govstat_delta gov;
	struct run_acc acc;	/* every thread's, once they are done */
	/* each thread's records for requests.csv (none: NULL), in seq order */
	struct spool **spools;
	int spool_err;		/* -errno: a spool could not be made */
	enum run_status status;
	char err[256];
	struct run_shared *sh;	/* what the threads share while they run */
	struct reporter *rep;	/* --report-interval lines, or NULL */
};

/*
 * Prepares the run: the schedule's configuration (counted through first
 * when the burst warm-up must know its length). 0, -EINVAL or -EINTR (a
 * signal while counting).
 */
int run_init(struct run *r, const struct client_opts *o);
/*
 * Connects and runs the experiment; fills r->status and r->err. When a
 * signal stopped it, the stop signals pending then are taken (they were
 * left pending where they were noticed): one that comes after, while the
 * results are written, is a second one and stops the writing.
 */
void run_experiment(struct run *r);
void run_free(struct run *r);

/*
 * Writes requests.csv, gaps.csv, cmdline.txt, prequery-trajectory.csv,
 * snapshot.json and summary.{txt,csv,json} into o->out_dir (when set) and
 * prints the text summary. requests.csv comes from the records the
 * threads kept during the run (merged in seq order), gaps.csv from the
 * schedule drawn again (the same seed, the same gaps). Every file is
 * written under a temporary name and all are renamed into place together,
 * summaries last (lib/stage), so a failure leaves none of them under its
 * final name. Returns 0 or -errno of the first failure, with a message
 * naming the file in err.
 */
int output_write(struct run *r, char *err, size_t errlen);

/*
 * The line that says what the run is: target, protocol, distribution,
 * mean gap and rate, count or duration, warm-up, pacing, seed, pre-query
 * mode, output directory (no newline). Printed at once when the client
 * starts, and first in summary.txt.
 */
void output_start_line(FILE *f, const struct client_opts *o);

/*
 * client/report.c: while the run goes, a thread of its own prints a line
 * every o->report_interval_s seconds from the schedule's start (sent,
 * answered, late, p50/p99 of that interval, across all sending threads),
 * from counts each sending thread adds to its lib/ivstat as requests are
 * done: the sending threads never wait for it, and it runs on a CPU
 * outside --cpu when there is one.
 */
/* The reporter for n sending threads (its thread waits for the start);
 * NULL when out of memory or the thread cannot start (err says why). */
struct reporter *reporter_new(const struct client_opts *o, unsigned int n,
			      char *err, size_t errlen);
/* Sending thread k's counts. */
struct ivstat *reporter_ivstat(struct reporter *rep, unsigned int k);
/* The schedule starts at start_ns (CLOCK_MONOTONIC): lines from then. */
void reporter_go(struct reporter *rep, uint64_t start_ns);
/* The run is over (every sending thread done): prints what the last
 * stretch counted, stops the thread, frees. NULL is a no-op. */
void reporter_end(struct reporter *rep);

/*
 * --hdr-log: client_hdr_open opens o->hdr_log for writing (0, or -errno
 * with the file named in err); the reporter writes an HdrHistogram log
 * line per interval and tag (lat, svc: lib/hdrlog); client_hdr_close
 * writes the whole run as one interval when there were no intervals, and
 * closes (0, or -errno with err). No file: both do nothing.
 */
int client_hdr_open(struct client_opts *o, char *err, size_t errlen);
int client_hdr_close(struct client_opts *o, const struct run *r, char *err,
		     size_t errlen);

/* The signals that stop a run (read through a signalfd, or blocked in a
 * thread that must leave them to the others). */
static inline void client_stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

#endif
