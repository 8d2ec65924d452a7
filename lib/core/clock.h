/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock: CLOCK_MONOTONIC nanoseconds and pacing to an absolute time.
 *
 *   spin    busy-wait on the clock: the core never idles, so pacing is
 *           insensitive to the client's own C-states
 *   sleep   clock_nanosleep(TIMER_ABSTIME): the core may idle and pays
 *           its own wake-up cost, as a real client does
 *   hybrid  sleep until margin_ns before the target, then spin
 */
#ifndef WB_CLOCK_H
#define WB_CLOCK_H

#include <stdint.h>
#include <time.h>

enum clock_wait {
	WAIT_SPIN,
	WAIT_SLEEP,
	WAIT_HYBRID,
};

#define CLOCK_HYBRID_MARGIN_NS 50000ull

static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline struct timespec clock_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};
	return ts;
}

/* "spin", "sleep", "hybrid"; -1 when unknown. */
int clock_wait_parse(const char *name, enum clock_wait *out);
const char *clock_wait_name(enum clock_wait w);

/*
 * Returns at or after target_ns (CLOCK_MONOTONIC); returns the time it
 * read last, so callers need not read the clock again.
 */
uint64_t clock_wait_until(uint64_t target_ns, enum clock_wait mode,
			  uint64_t margin_ns);
/* Busy-waits until target_ns; returns the time read last. */
uint64_t clock_spin_until(uint64_t target_ns);
/*
 * Sets this thread's timer slack to 1 ns (from the default 50 us), so a
 * sleep to an absolute time is not rounded up by up to 50 us: what
 * cyclictest does. Returns 0 or -errno.
 */
int clock_tight_timers(void);
/* This thread's timer slack to ns (>= 1): 0 or -errno. */
int clock_timer_slack(uint64_t ns);

#endif
