/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fake perf PMUs for unit tests: sysfs files under a test's root
 * (bus/event_source/devices/PMU/...; CPU topology) and an ops table for
 * lib/perfpmu whose counters the test scripts (a value before and after,
 * an errno at open, a failing read), counting the fds left open.
 */
#ifndef WB_FAKE_PERF_H
#define WB_FAKE_PERF_H

#include <stdint.h>

/* A PMU directory with its type file; cpumask when not NULL. */
void fake_pmu(const char *root, const char *pmu, const char *type,
	      const char *cpumask);
/* events/NAME with its text; NAME.scale and NAME.unit when not NULL. */
void fake_pmu_event(const char *root, const char *pmu, const char *name,
		    const char *text, const char *scale, const char *unit);
/* format/TERM */
void fake_pmu_format(const char *root, const char *pmu, const char *term,
		     const char *text);
/* devices/system/cpu/online and each CPU's physical_package_id
 * (pkg[i] for CPU i, n of them). */
void fake_topology(const char *root, const char *online, const int *pkg, int n);

/* One scripted counter: what open of (type, config) on cpu does. */
struct fake_counter {
	uint32_t type;
	uint64_t config;
	int cpu;
	int open_err;		/* -errno: open fails so */
	int read_err;		/* -errno: reads fail so */
	uint64_t value[2];	/* read before and after fake_perf_phase(1) */
};

/* Installs the fake ops with these counters (copied), all reads in phase 0. */
void fake_perf_install(const struct fake_counter *c, int n);
/* Reads after this return value[1]. */
void fake_perf_phase(int phase);
/* The user-space TSC: err 0 gives start then start + delta. */
void fake_perf_tsc(int err, uint64_t start, uint64_t delta);
/* fds open now; opens attempted. */
int fake_perf_open_fds(void);
int fake_perf_opens(void);
/* Restores the real ops. */
void fake_perf_remove(void);

#endif
