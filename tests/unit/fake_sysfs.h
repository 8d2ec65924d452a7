/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A synthetic sysfs tree for tests: CPUs with states POLL, C1, C6 and a
 * power/pm_qos_resume_latency_us of "0" (no constraint).
 */
#ifndef WB_FAKE_SYSFS_H
#define WB_FAKE_SYSFS_H

/* Builds the tree in a new temporary directory, sets $WAKEBENCH_SYSFS,
 * $WAKEBENCH_STATE_DIR and $WAKEBENCH_PMQOS_DEV; returns the root. */
const char *fake_sysfs_create(int ncpus, int nstates);
/* Reads a state's "disable" file: 0, 1, or -1. */
int fake_sysfs_disabled(int cpu, int state);
void fake_sysfs_set(int cpu, int state, const char *file, const char *val);
/* Writes VAL to the file REL (below the root), making its directories. */
void fake_sysfs_put(const char *rel, const char *val);
/* A CPU's pm_qos_resume_latency_us: set, and read ("(missing)"). */
void fake_sysfs_set_resume(int cpu, const char *val);
const char *fake_sysfs_resume(int cpu);
void fake_sysfs_destroy(void);

#endif
