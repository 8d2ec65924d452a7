/* SPDX-License-Identifier: GPL-2.0 */
/*
 * residency: idle-state residency without tracing, from counters read
 * before and after a window: cpuidle usage/time per CPU and state (via
 * idlestate, i.e. libcpupower), like turbostat's sysfs columns; or, on a
 * kernel without cpuidle states, the idle time of /proc/stat over the
 * wall-clock window (resolution: one USER_HZ tick at each end).
 */
#ifndef WB_RESIDENCY_H
#define WB_RESIDENCY_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "idlestate.h"

#define RES_MAX_STATES 16

struct res_cpu {
	int nstates;
	char name[RES_MAX_STATES][IDLESTATE_NAME_LEN];
	uint64_t usage[RES_MAX_STATES], time_us[RES_MAX_STATES];
	uint64_t proc_idle, proc_total;	/* /proc/stat, USER_HZ ticks */
};

struct res_snap {
	int ncpus;
	uint64_t at_ns;
	struct res_cpu *cpu;
};

/* Ticks per second of /proc/stat (USER_HZ). */
long residency_user_hz(void);
/* Reads the counters now. Returns 0 or -errno. */
int residency_snap(struct res_snap *s);
void residency_free(struct res_snap *s);

struct res_row {
	int cpu;
	char state[IDLESTATE_NAME_LEN];	/* "C0", a state name, or "idle" */
	double percent;
	uint64_t usage;			/* entries (0 for C0, /proc/stat) */
	uint64_t time_us;
	const char *source;		/* "cpuidle" or "proc-stat" */
};

/*
 * Rows for b - a, per CPU: every state and C0 (the rest of the window).
 * Writes at most max rows; returns how many.
 */
int residency_diff(const struct res_snap *a, const struct res_snap *b,
		   struct res_row *rows, int max);

/*
 * STATE as a CSV column-name part: letters and digits kept, anything
 * else '_' ("haltpoll idle" -> "haltpoll_idle"), at most LEN - 1 bytes.
 */
void residency_colname(const char *state, char *out, size_t len);

/*
 * Parses /proc/stat text into per-CPU idle (idle + iowait) and total
 * ticks. Returns the CPUs found. Exposed for tests.
 */
int residency_parse_proc_stat(const char *text, struct res_cpu *cpus,
			      int ncpus);
/* The same from a stream (/proc/stat itself), any length; or -EIO. */
int residency_read_proc_stat(FILE *f, struct res_cpu *cpus, int ncpus);

#endif
