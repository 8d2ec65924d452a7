/* SPDX-License-Identifier: GPL-2.0 */
/* cpu: pinning threads to CPUs; CPU sets and lists are in cpuset.h. */
#ifndef WB_CPU_H
#define WB_CPU_H

#include <pthread.h>
#include <stddef.h>

/* Pin the calling thread to @cpu; returns 0 or -errno. */
int cpu_pin_self(int cpu);
/*
 * The --cpu option's pinning: nothing for cpu < 0, else cpu_pin_self();
 * on failure, -errno and "cannot pin to CPU N: why" in msg.
 */
int cpu_pin_opt(int cpu, char *msg, size_t msglen);
/*
 * The CPU ids the kernel may use: its possible CPUs (cpuset_possible),
 * the bound of --cpu and CPU lists, and the size of every CPU set.
 */
int cpu_count(void);

#endif
