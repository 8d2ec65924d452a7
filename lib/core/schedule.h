/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedule: the client's send schedule, drawn as the run goes
 * (DESIGN.md "Client", "Bounded memory").
 *
 * Gaps come from the arrival generator in order: the first `warmup` gaps
 * are the warm-up requests', the rest the measured requests'. With a
 * request count the schedule has warmup + requests gaps. With a duration
 * D the measured gaps are drawn until the next one would take their sum
 * past D (at least one measured request; the warm-up does not count
 * towards D). Intended send times are relative to the start:
 * t_0 = gap_0, t_i = t_{i-1} + gap_i (the first request leaves one gap
 * after the start).
 *
 * Options of the thesis' runs: the warm-up gaps may come from a
 * generator of their own (warmup_mean_ns > 0: warmup_dist at that mean,
 * seeded seed + 1, so the measured gaps are the same draws as without
 * it), and gap_add_ns is added to every gap (pre-query mode sleep-after,
 * where the lead adds to the gap).
 *
 * Key-value protocols (keyed): each request's operation and key come from
 * a generator of their own, seeded from the seed, one draw of each per
 * request, warm-up included, so the gaps are those of the same seed over
 * wakebench's protocol.
 *
 * A rate profile (lib/rateprof) replaces mean_ns: the gaps of dist at a
 * mean of SCHEDULE_PROFILE_UNIT_NS are the steps of the profile's
 * expected count. A replayed trace (lib/replay) replaces dist: gap i is
 * the trace's, and the schedule ends with the trace at the latest; a
 * trace with ops and keys gives keyed requests theirs (no draw).
 *
 * The generator holds a few hundred bytes whatever the schedule's length:
 * a run draws each request when it needs it, and drawing the same
 * configuration again gives the same requests (gaps.csv is written so,
 * after the run). Before the schedule was streamed it was drawn whole
 * into arrays (commit 53569e7); tests/unit/test_schedule.c keeps that
 * code and checks the two agree request by request.
 */
#ifndef WB_SCHEDULE_H
#define WB_SCHEDULE_H

#include <stdint.h>
#include "arrival.h"
#include "keydist.h"
#include "prng.h"
#include "rateprof.h"
#include "replay.h"

/* A profile's gaps are drawn at this mean, then divided by it. */
#define SCHEDULE_PROFILE_UNIT_NS 1e9

struct schedule_cfg {
	enum arrival_dist dist;
	double dist_par[ARRIVAL_MAX_PAR];	/* dist's parameters (lib/arrival) */
	double mean_ns;
	uint64_t seed;
	const struct rateprof *profile;	/* --rate-profile, or NULL */
	const struct replay *replay;	/* --arrivals, or NULL */
	uint64_t warmup;
	uint64_t requests;	/* measured requests; 0 with duration_ns */
	uint64_t duration_ns;	/* measured span, when requests is 0 */
	enum arrival_dist warmup_dist;
	double warmup_mean_ns;	/* 0: warm-up gaps like the measured ones */
	uint64_t gap_add_ns;	/* added to every gap */
	/* key-value protocols: op and key of each request */
	int keyed;
	double get_ratio;	/* share of gets */
	uint64_t keys;		/* keys 0 .. keys-1 */
	struct keydist_spec key_dist;
	/*
	 * Asked every SCHEDULE_CANCEL_EVERY gaps by schedule_count() when
	 * set: non-zero stops the counting with -EINTR (a signal must not
	 * wait for a schedule of many millions of requests).
	 */
	int (*cancel)(void *arg);
	void *cancel_arg;
};

#define SCHEDULE_CANCEL_EVERY 65536

/* One request of the schedule. */
struct schedule_req {
	uint64_t seq;		/* 0-based, warm-up first */
	uint64_t gap_ns;	/* from the previous request (or the start) */
	uint64_t t_ns;		/* intended send time, relative to the start */
	uint8_t op;		/* keyed: enum proto_op (get or set), else 0 */
	uint64_t key;		/* keyed: key number, else 0 */
};

/* The generator's state (its fields are its own). */
struct schedule_gen {
	struct schedule_cfg cfg;
	struct arrival a, wa;	/* gaps; warm-up gaps of their own */
	struct keydist kd;
	struct prng kp;		/* ops and keys */
	uint64_t i;		/* requests drawn */
	uint64_t sum, taken;	/* duration rule: measured gaps taken */
	uint64_t t;		/* the last intended time */
	/* a profile's expected count so far, where it is, the last time */
	double u;
	struct rateprof_pos ppos;
	uint64_t pt;
	int done;
};

/* 0, or -EINVAL for a bad configuration. */
int schedule_gen_init(struct schedule_gen *g, const struct schedule_cfg *cfg);
/* 1 with the next request in *q, 0 once the schedule has ended. */
int schedule_gen_next(struct schedule_gen *g, struct schedule_req *q);

/*
 * The number of requests of the schedule, warm-up included, drawn through
 * without keeping them: 0, -EINVAL or -EINTR (cfg->cancel).
 */
int schedule_count(const struct schedule_cfg *cfg, uint64_t *n);

/*
 * The duration rule, one gap at a time: with *sum the measured gaps
 * taken so far (and taken of them), returns 1 when a measured gap g is
 * taken (adding it to *sum), 0 when the schedule ends before it.
 */
int schedule_take(uint64_t *sum, uint64_t taken, uint64_t g,
		  uint64_t duration_ns);

#endif
