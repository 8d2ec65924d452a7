/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snapshot: the host configuration a result depends on (kernel, CPU,
 * cpuidle and cpufreq settings per CPU, PM QoS, NIC IRQ affinity), as
 * JSON or text.
 */
#ifndef WB_SNAPSHOT_H
#define WB_SNAPSHOT_H

#include <stdio.h>

/* role: "client", "server", "midtier", ... Returns 0 or -errno. */
int snapshot_write_json(const char *path, const char *role,
			const char *cmdline);
void snapshot_print(FILE *f, const char *role, const char *cmdline);

#endif
