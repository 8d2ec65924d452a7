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
/*
 * The same with "server_software": the program that served when it is
 * not wakebench's ("memcached 1.6.18"), NULL for none.
 */
int snapshot_write_json_software(const char *path, const char *role,
				 const char *cmdline, const char *software);
/*
 * The snapshot of a program that logs to log_path, written beside it:
 * server.csv -> server.snapshot.json. 0, or -errno with msg filled.
 */
int snapshot_write_beside(const char *log_path, const char *role,
			  const char *cmdline, char *msg, size_t msglen);
void snapshot_print(FILE *f, const char *role, const char *cmdline,
		    const char *software);

#endif
