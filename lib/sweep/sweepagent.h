/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweepagent: one run of a sweep shared by several client agents (the
 * sweep's repeated --client-exec, mutilate's agents on ssh).
 *
 * The configured workload is the aggregate: N agents with the same
 * configuration each send an open-loop schedule at 1/N of the rate (their
 * mean gap N times the configured one), so together they offer the
 * configured rate; a superposition of N Poisson processes at rate r/N is
 * a Poisson process at rate r. They start at one agreed CLOCK_REALTIME
 * instant (client --start-at), agent k (0-based) k mean gaps after the
 * first, so fixed gaps interleave evenly instead of landing together.
 * A count of requests (and of warm-up requests) is split, the first
 * REQUESTS mod N agents taking one more; a duration applies to each.
 * Seeds: agent 0 keeps the run's (one agent is the run as before), agent k
 * gets SEED + k * 2^32, distinct from every other run's and agent's while
 * run seeds stay below 2^32 (the spec's seed has at most 9 digits, reps at
 * most a million).
 */
#ifndef WB_SWEEPAGENT_H
#define WB_SWEEPAGENT_H

#include <stddef.h>
#include <stdint.h>

struct sweepagent_in {
	unsigned n;			/* agents, 1 to SWEEPSPEC_MAX_AGENTS */
	uint64_t seed;			/* the run's */
	double interval_us;		/* the configured (aggregate) mean gap */
	uint64_t requests;		/* 0: a duration */
	uint64_t warmup;
	double warmup_interval_us;	/* 0: not given (the client's default) */
	int64_t start_ns;		/* CLOCK_REALTIME: agent 0 starts */
};

struct sweepagent {
	uint64_t seed;
	double interval_us;
	uint64_t requests;		/* 0: a duration */
	uint64_t warmup;
	double warmup_interval_us;	/* 0: not given */
	int64_t start_at_ns;
};

/*
 * Agent K's share of IN into OUT. 0, or -EINVAL (K out of range, no
 * agents, a gap that is not positive and finite, fewer requests than
 * agents, a seed or start time that would overflow).
 */
int sweepagent_split(const struct sweepagent_in *in, unsigned k,
		     struct sweepagent *out);

/*
 * A number of microseconds as a plain decimal the client's options take
 * (no exponent, at most 6 decimals, trailing zeros dropped): "2000",
 * "666.666667". -ERANGE when it does not fit LEN.
 */
int sweepagent_us(double us, char *buf, size_t len);

#endif
