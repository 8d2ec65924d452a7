/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfpmu: the dynamic perf PMUs the kernel lists under
 * bus/event_source/devices (power, cstate_core, cstate_pkg, msr): their
 * type, their named events (events/NAME "event=0x02", with .scale and
 * .unit beside), the CPUs they count on (cpumask), and counters opened
 * on them with perf_event_open. Shared by lib/energy (power/energy-*)
 * and lib/hwcstate (the C-state residency counters).
 *
 * Everything sysfs says is parsed strictly (it may be a test's fake tree
 * through lib/sysfs's root, or hostile): a value that does not parse is
 * -EINVAL with the file and the value in the message, never a guess.
 *
 * The counters go through an ops table (open, read, close, and a
 * user-space TSC read) that unit tests replace, so discovery, arithmetic
 * and every failure path run without the PMUs (this VM has none).
 */
#ifndef WB_PERFPMU_H
#define WB_PERFPMU_H

#include <stddef.h>
#include <stdint.h>
#include "cpuset.h"

#define PERFPMU_NAME_LEN 48
/*
 * CPU numbers accepted from cpumask files and perf stat text: a guard
 * against hostile text only (cpuset.h); arrays are sized from the CPUs
 * the machine has.
 */
#define PERFPMU_MAX_CPUS CPUSET_LIMIT

struct perf_event_attr;

struct perfpmu_event {
	char name[PERFPMU_NAME_LEN];	/* "energy-pkg", "c6-residency" */
	uint32_t type;			/* the PMU's */
	uint64_t config, config1, config2;
	double scale;			/* NAME.scale; 1 when there is none */
	int has_scale;
	char unit[24];			/* NAME.unit; "" when there is none */
};

/*
 * The PMU's type (bus/event_source/devices/PMU/type). 0, -ENODEV when
 * the kernel has no such PMU, -EINVAL for a type that is not a number.
 */
int perfpmu_type(const char *pmu, uint32_t *type, char *err, size_t errlen);
/*
 * Event NAME of PMU: its terms placed in config/config1/config2 by the
 * PMU's format files ("event" alone may go without one: config:0-63),
 * its scale (a finite number above 0) and unit. 0, -ENODEV (no PMU),
 * -ENOENT (no such event) or -EINVAL (a value that does not parse).
 */
int perfpmu_event(const char *pmu, const char *name, struct perfpmu_event *ev,
		  char *err, size_t errlen);
/*
 * The names of PMU's events that start with prefix and end with suffix
 * (either may be ""; the .scale/.unit files are not events), in version
 * order (c2 before c10). Fills at most max; returns how many, or -ENODEV
 * when the PMU or its events directory is absent.
 */
int perfpmu_list(const char *pmu, const char *prefix, const char *suffix,
		 char (*names)[PERFPMU_NAME_LEN], int max);
/*
 * The CPUs of PMU's cpumask file (one per package for power and
 * cstate_pkg, one per core for cstate_core), ascending. Returns how many
 * (at most max), -ENOENT when the PMU has no cpumask, -EINVAL when it
 * does not parse.
 */
int perfpmu_cpumask(const char *pmu, int *cpus, int max, char *err,
		    size_t errlen);
/* The online CPUs (devices/system/cpu/online), same returns. */
int perfpmu_online(int *cpus, int max, char *err, size_t errlen);
/* The same, every CPU listed, in an array allocated to fit (free it). */
int perfpmu_cpumask_all(const char *pmu, int **cpus, char *err, size_t errlen);
int perfpmu_online_all(int **cpus, char *err, size_t errlen);
/* A CPU's topology/physical_package_id: >= 0, or -errno. */
int perfpmu_package_of(int cpu);
/*
 * The first online CPU of each package (topology physical_package_id),
 * and that id in pkg[]: how many, or -errno with why in err.
 */
int perfpmu_package_cpus(int *cpus, int *pkg, int max, char *err,
			 size_t errlen);
/*
 * Why a perf_event_open failed, for a note: -EACCES/-EPERM name
 * perf_event_paranoid and what lifts it, -ENOENT/-EOPNOTSUPP/-EINVAL
 * say the CPU does not count that event.
 */
void perfpmu_strerror(int err, char *buf, size_t len);

/*
 * The counter operations. open: a system-wide counter (pid -1) for attr
 * on cpu, its fd or -errno. read: the counter's 64-bit value (0 or
 * -errno). close. tsc: the time stamp counter read from user space
 * (rdtsc), 0 or -errno (-ENOTSUP where it is no sound clock: not x86,
 * or a TSC that is not constant, nonstop and the kernel's clocksource).
 */
struct perfpmu_ops {
	int (*open)(const struct perf_event_attr *attr, int cpu);
	int (*read)(int fd, uint64_t *value);
	void (*close)(int fd);
	int (*tsc)(uint64_t *value);
};

/* The ops in use: perf_event_open(2) and read(2) unless a test set its own. */
const struct perfpmu_ops *perfpmu_ops(void);
/* Tests: their own ops; NULL restores the real ones. */
void perfpmu_set_ops(const struct perfpmu_ops *ops);
/* Opens ev on cpu through the ops: an fd or -errno. */
int perfpmu_open(const struct perfpmu_event *ev, int cpu);

#endif
