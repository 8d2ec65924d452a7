/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedule: the client's send schedule, drawn before the run
 * (DESIGN.md "Client").
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
 */
#ifndef WB_SCHEDULE_H
#define WB_SCHEDULE_H

#include <stdint.h>
#include "arrival.h"

struct schedule_cfg {
	enum arrival_dist dist;
	double mean_ns;
	uint64_t seed;
	uint64_t warmup;
	uint64_t requests;	/* measured requests; 0 with duration_ns */
	uint64_t duration_ns;	/* measured span, when requests is 0 */
	enum arrival_dist warmup_dist;
	double warmup_mean_ns;	/* 0: warm-up gaps like the measured ones */
	uint64_t gap_add_ns;	/* added to every gap */
	/*
	 * Asked every SCHEDULE_CANCEL_EVERY gaps when set: non-zero stops
	 * the drawing with -EINTR (a signal must not wait for a schedule of
	 * many millions of requests).
	 */
	int (*cancel)(void *arg);
	void *cancel_arg;
};

#define SCHEDULE_CANCEL_EVERY 65536

struct schedule {
	uint64_t n;		/* warmup + measured */
	uint64_t warmup;
	uint64_t *gap_ns;	/* [n] */
	uint64_t *intended_ns;	/* [n], relative to the start */
};

/* Draws the schedule; 0, -EINVAL (bad configuration), -ENOMEM or -EINTR. */
int schedule_build(struct schedule *s, const struct schedule_cfg *cfg);
void schedule_free(struct schedule *s);

/*
 * The duration rule, one gap at a time: with *sum the measured gaps
 * taken so far (and taken of them), returns 1 when a measured gap g is
 * taken (adding it to *sum), 0 when the schedule ends before it.
 */
int schedule_take(uint64_t *sum, uint64_t taken, uint64_t g,
		  uint64_t duration_ns);

/* t[i] = gap[0] + ... + gap[i]. */
void schedule_times(const uint64_t *gap_ns, uint64_t n, uint64_t *t);

#endif
