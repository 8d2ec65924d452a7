/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WB_CLIENT_H
#define WB_CLIENT_H

#include <stdint.h>
#include "arrival.h"
#include "cli.h"
#include "clock.h"
#include "cstate.h"
#include "energy.h"
#include "hillclimb.h"
#include "keydist.h"
#include "net.h"
#include "pqplan.h"
#include "tally.h"

#define PROG "wakebench-client"

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
	uint64_t requests;	/* measured requests; 0 with --duration */
	double duration_s;
	uint64_t warmup;
	uint64_t seed;
	int cpu;
	enum clock_wait wait;
	uint64_t spin_margin_ns;
	uint64_t connections;
	uint64_t service_ns;
	uint64_t payload;
	int closed;
	uint64_t timeout_ns;
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
};

/* --proto: indexed as its names */
enum client_proto {
	CPROTO_TCP, CPROTO_UDP, CPROTO_WAKEBENCH, CPROTO_MEMCACHED, CPROTO_REDIS,
};

enum warmup_mode {
	WARMUP_SCHEDULE = 0,	/* the first --warmup requests of the schedule */
	WARMUP_BURST,		/* --warmup pre-queries back to back, first */
};

/* The files a client run writes into --out (what --force removes). */
extern const char *const client_out_files[];

enum run_status {
	RUN_OK = 0,
	RUN_INTERRUPTED,	/* SIGINT/SIGTERM */
	RUN_FAILED,		/* error, see run.err */
};

struct run {
	const struct client_opts *o;
	uint64_t total;		/* warmup + measured */
	uint64_t warmup;	/* of them warm-up (0 with a burst warm-up) */
	uint64_t burst_sent;	/* burst warm-up messages sent */
	uint64_t prequery_acks;	/* replies to pre-queries (--prequery-ack), dropped */
	uint64_t *gap_ns;	/* [total] */
	struct req_rec *reqs;	/* [total]; lib/tally.h counts them */
	uint8_t *op;		/* [total] key-value: enum proto_op, else NULL */
	uint64_t *key;		/* [total] key-value: key number, else NULL */
	uint64_t preloaded;	/* keys set by --preload */
	uint64_t preload_ns;	/* how long that took */
	uint64_t *applied_ns;	/* [total]: service time the REPLY says the
				 * server applied (it caps at its
				 * --max-service-us) */
	uint64_t sent, received, error_replies;
	uint64_t start_ns, end_ns;
	struct pqplan_cost send_cost;	/* a lone pre-query's send() */
	struct hillclimb hc;
	struct hillclimb_row *traj;
	uint64_t ntraj, traj_cap;
	/* RAPL energy over the measured requests (lib/energy): from the
	 * first measured send to the last reply; energy_ok when read */
	struct energy energy;
	int energy_ok;
	char energy_note[512];
	enum run_status status;
	char err[256];
};

/* Generates the schedule (gaps and intended times); 0 or -ENOMEM. */
int run_schedule(struct run *r, const struct client_opts *o);
/* Connects and runs the experiment; fills r->status and r->err. */
void run_experiment(struct run *r);
void run_free(struct run *r);

/*
 * Writes requests.csv, gaps.csv, cmdline.txt, prequery-trajectory.csv,
 * snapshot.json and summary.{txt,csv,json} into o->out_dir (when set) and
 * prints the text summary. Every file is written under a temporary name
 * and all are renamed into place together, summaries last (lib/stage), so
 * a failure leaves none of them under its final name. Returns 0 or -errno
 * of the first failure, with a message naming the file in err.
 */
int output_write(const struct run *r, char *err, size_t errlen);

#endif
