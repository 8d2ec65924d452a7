/* SPDX-License-Identifier: GPL-2.0 */
/*
 * govstat: the cpuidle governor's view of a window, as kernel developers
 * tabulate it when they compare governors: the change of each idle
 * state's usage, time, above, below and rejected counters
 * (cpuN/cpuidle/stateK/, read through lib/sys/sysfs, so a fake
 * $WAKEBENCH_SYSFS tree works) between a snapshot before and one after,
 * summed by state name over the measured CPUs or for one CPU.
 *
 * above: entries the governor made where the idle time turned out
 * shorter than the state's target residency (too deep); below: entries
 * where a deeper state would have fitted (too shallow); rejected: entries
 * the driver refused. Every value is hostile data: names are bounded
 * printable text, counters strict decimals; a counter that goes
 * backwards (the CPU went offline, the driver was reloaded) or a sum
 * that overflows is left unknown and said in the note, never a huge
 * number; a counter the kernel does not have (above/below before 4.20,
 * rejected before 5.8) is unknown.
 */
#ifndef WB_GOVSTAT_H
#define WB_GOVSTAT_H

#include <stddef.h>
#include <stdint.h>
#include "idlestate.h"

struct cpuset;
struct csv;
struct json;

/* The kernel has at most 10 (CPUIDLE_STATE_MAX); more is refused data. */
#define GOVSTAT_MAX_STATES 16
#define GOVSTAT_NCTR 5
#define GOVSTAT_NOTE_LEN 256

enum govstat_ctr {
	GOVSTAT_USAGE, GOVSTAT_TIME, GOVSTAT_ABOVE, GOVSTAT_BELOW,
	GOVSTAT_REJECTED,
};

/* The sysfs file of each counter: usage time above below rejected. */
extern const char *const govstat_file[GOVSTAT_NCTR];
/* Its column prefix and JSON key: usage time_us above below rejected. */
extern const char *const govstat_col[GOVSTAT_NCTR];

/* The note where the kernel has no cpuidle driver (as on most VMs). */
#define GOVSTAT_NO_DRIVER "no cpuidle driver: governor counters unavailable"

struct govstat_cpu {
	int cpu;
	int nstates;
	char name[GOVSTAT_MAX_STATES][IDLESTATE_NAME_LEN];
	uint64_t v[GOVSTAT_MAX_STATES][GOVSTAT_NCTR];
	unsigned char have[GOVSTAT_MAX_STATES];	/* bit k: counter k read */
};

struct govstat_snap {
	int n;				/* CPUs with idle states */
	struct govstat_cpu *cpu;	/* in CPU order */
	char driver[IDLESTATE_NAME_LEN];	/* "none" without cpuidle */
	char governor[IDLESTATE_NAME_LEN];
	char note[GOVSTAT_NOTE_LEN];	/* what was refused, or "" */
};

/*
 * Reads the counters of the CPUs of @cpus (NULL: every possible CPU).
 * CPUs without idle states (offline, no driver) are left out. Returns 0
 * (with s->n == 0 and s->note saying why when there is nothing to read),
 * -ENOMEM; free with govstat_free either way.
 */
int govstat_snap(struct govstat_snap *s, const struct cpuset *cpus);
void govstat_free(struct govstat_snap *s);

struct govstat_state {
	char name[IDLESTATE_NAME_LEN];	/* as the kernel names it */
	uint64_t v[GOVSTAT_NCTR];
	unsigned char have;	/* bit k: counter k known on every CPU summed */
};

struct govstat_delta {
	int nstates;		/* in the order the first CPU lists them */
	struct govstat_state st[GOVSTAT_MAX_STATES];
	int ncpus;		/* CPUs summed */
	char driver[IDLESTATE_NAME_LEN], governor[IDLESTATE_NAME_LEN];
	char note[GOVSTAT_NOTE_LEN];	/* why empty or partial, or "" */
};

/*
 * @b - @a on CPU @cpu, or summed over every CPU of both (@cpu < 0).
 * Returns the states found (d->nstates); 0 with d->note saying why
 * (GOVSTAT_NO_DRIVER, no states on that CPU).
 */
int govstat_delta(const struct govstat_snap *a, const struct govstat_snap *b,
		  int cpu, struct govstat_delta *d);

/*
 * The counters as CSV: ",usage_S,time_us_S,above_S,below_S,rejected_S"
 * per state S (its name with anything but letters and digits as '_',
 * case kept, as the capture's res_S_pct). 0, or -ENOSPC.
 */
int govstat_csv_header(const struct govstat_delta *d, char *buf, size_t len);
/* The matching fields: a value, or empty where unknown. */
void govstat_csv_row(struct csv *c, const struct govstat_delta *d);
/*
 * An object KEY: driver, governor, cpus (as given), note (null when
 * none), states: [{name, usage, time_us, above, below, rejected}] (null
 * where unknown).
 */
void govstat_json(struct json *j, const char *key, const struct govstat_delta *d,
		  const char *cpus);
/* One line of text (no newline): per state "C1 usage 5 above 1 ...". */
void govstat_text(const struct govstat_delta *d, char *buf, size_t len);

#endif
