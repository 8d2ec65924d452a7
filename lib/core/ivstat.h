/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ivstat: one recording thread's counts per report interval, taken by
 * another thread while the recording goes on (the client's
 * --report-interval lines).
 *
 * The recording thread must never wait for the reporter: it is pacing
 * sends to the microsecond. So there is no lock. It adds each request to
 * one of two slots, the current one, holding a flag for the few
 * nanoseconds of that addition (ivstat_add). The reporter flips the
 * current slot, waits until the flag is down (an addition that started
 * before the flip has finished; one that starts after it goes to the
 * other slot), then takes the old slot's counts and empties it
 * (ivstat_collect). Sequentially consistent atomics make that exact:
 * every request is counted once, in one interval.
 *
 * Latency percentiles of an interval come from a histogram (lib/hist
 * without exact samples, so an addition never allocates): within
 * HIST_REL_ERROR of the exact value.
 */
#ifndef WB_IVSTAT_H
#define WB_IVSTAT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tally.h"

struct hist;

/* What one interval counted (one thread's, or several merged). */
struct ivstat_slot {
	struct tally meas;	/* measured requests done in it (lib/tally) */
	uint64_t warm;		/* warm-up requests done in it */
	struct hist *lat;	/* latency (recv - intended) of the answered
				 * measured ones: histogram only */
	struct hist *svc;	/* their service latency (recv - sent) */
};

struct ivstat {
	struct ivstat_slot slot[2];
	atomic_uint cur;	/* the slot additions go to */
	atomic_uint busy;	/* an addition is under way */
};

/* 0, or -ENOMEM. */
int ivstat_slot_init(struct ivstat_slot *s);
void ivstat_slot_free(struct ivstat_slot *s);
/* Empties s (its histogram too). */
void ivstat_slot_reset(struct ivstat_slot *s);
/* Adds src's counts to dst. */
void ivstat_slot_merge(struct ivstat_slot *dst, struct ivstat_slot *src);

/* 0, or -ENOMEM (then nothing to free). */
int ivstat_init(struct ivstat *v);
void ivstat_free(struct ivstat *v);

/*
 * Recording thread: request q is done (answered, or never will be);
 * measured or warm-up. Latency from q's times, late as lib/tally counts.
 */
void ivstat_add(struct ivstat *v, const struct req_rec *q, int measured,
		uint64_t late_ns);

/*
 * Reporter: adds what v counted since the previous collect to acc and
 * empties that. Spins (yielding) while an addition to it is under way.
 */
void ivstat_collect(struct ivstat *v, struct ivstat_slot *acc);

/*
 * One report line for interval acc ending t_s seconds after the start
 * and span_s long:
 * "[   10.0 s] sent 10000 (1000.0/s) answered 10000 late 0 p50 31.2 us p99 48.9 us"
 * with "errors N", "unanswered N" and "warm-up N" after it when not 0,
 * "no replies" for the percentiles when nothing was answered, and no
 * rate for span_s <= 0 (a last stretch too short for one to mean
 * anything). Uses
 * acc's histogram for the percentiles (its rule). Returns buf.
 */
char *ivstat_line(char *buf, size_t len, double t_s, double span_s,
		  const struct ivstat_slot *acc);

#endif
