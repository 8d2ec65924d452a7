// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include "clock.h"

static const char *const wait_names[] = {
	[WAIT_SPIN] = "spin",
	[WAIT_SLEEP] = "sleep",
	[WAIT_HYBRID] = "hybrid",
};

int clock_wait_parse(const char *name, enum clock_wait *out)
{
	for (unsigned int i = 0; i < sizeof(wait_names) / sizeof(*wait_names);
	     i++) {
		if (!strcmp(name, wait_names[i])) {
			*out = (enum clock_wait)i;
			return 0;
		}
	}
	return -1;
}

const char *clock_wait_name(enum clock_wait w)
{
	return wait_names[w];
}

uint64_t clock_spin_until(uint64_t target_ns)
{
	uint64_t now;

	do {
		now = clock_now_ns();
	} while (now < target_ns);
	return now;
}

static void sleep_until(uint64_t target_ns)
{
	struct timespec ts = clock_ts(target_ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

uint64_t clock_wait_until(uint64_t target_ns, enum clock_wait mode,
			  uint64_t margin_ns)
{
	uint64_t now = clock_now_ns();

	if (now >= target_ns)
		return now;
	switch (mode) {
	case WAIT_SPIN:
		break;
	case WAIT_SLEEP:
		sleep_until(target_ns);
		return clock_now_ns();
	case WAIT_HYBRID:
		if (target_ns - now > margin_ns)
			sleep_until(target_ns - margin_ns);
		break;
	}
	return clock_spin_until(target_ns);
}

int clock_tight_timers(void)
{
	return clock_timer_slack(1);
}

int clock_timer_slack(uint64_t ns)
{
	return prctl(PR_SET_TIMERSLACK, (unsigned long)(ns ? ns : 1), 0, 0, 0) ?
	       -errno : 0;
}
