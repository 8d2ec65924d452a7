// SPDX-License-Identifier: GPL-2.0
/*
 * wb-stall: the pacing floor of this machine. Spins on CLOCK_MONOTONIC
 * pinned to one CPU and counts the gaps between consecutive reads: on a
 * VM, hypervisor preemptions; on bare metal, SMIs and interrupts. No
 * user-space pacer on that CPU can be more punctual than this, so the
 * pacing and capacity benchmarks print it beside their results.
 *
 *   wb-stall CPU SECONDS
 *
 * One line: stalls per second longer than 1, 10, 20 and 100 us, the
 * longest, and the share of time lost in stalls over 1 and 10 us.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cpu.h"
#include "die.h"

#define PROG "wb-stall"

int main(int argc, char **argv)
{
	static const uint64_t limit_ns[] = { 1000, 10000, 20000, 100000 };
	uint64_t count[4] = { 0 }, lost1 = 0, lost10 = 0, max = 0;
	uint64_t start, prev, end;
	double secs;
	char *e;
	long cpu;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("Usage: wb-stall CPU SECONDS\n");
		return 0;
	}
	if (argc != 3)
		opt_usage(PROG, "give CPU and SECONDS");
	cpu = strtol(argv[1], &e, 10);
	if (*e || cpu < 0)
		opt_usage(PROG, "invalid CPU '%s'", argv[1]);
	secs = strtod(argv[2], &e);
	if (*e || !(secs > 0 && secs <= 3600))
		opt_usage(PROG, "invalid SECONDS '%s'", argv[2]);
	if (cpu_pin_self((int)cpu))
		opt_die(PROG, "cannot pin to CPU %ld", cpu);
	start = prev = clock_now_ns();
	end = start + (uint64_t)(secs * 1e9);
	while (prev < end) {
		uint64_t t = clock_now_ns(), gap = t - prev;

		prev = t;
		if (gap <= limit_ns[0])
			continue;
		for (int i = 0; i < 4; i++)
			count[i] += gap > limit_ns[i];
		lost1 += gap;
		if (gap > limit_ns[1])
			lost10 += gap;
		if (gap > max)
			max = gap;
	}
	secs = (double)(prev - start) / 1e9;
	printf("cpu%ld stalls/s >1us %.0f >10us %.0f >20us %.0f >100us %.0f max_us %.1f "
	       "lost_pct_1us %.3f lost_pct_10us %.3f\n", cpu, count[0] / secs,
	       count[1] / secs, count[2] / secs, count[3] / secs, max / 1e3,
	       100.0 * lost1 / (secs * 1e9), 100.0 * lost10 / (secs * 1e9));
	return 0;
}
