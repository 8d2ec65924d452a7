/* SPDX-License-Identifier: GPL-2.0 */
/* cpu: pinning threads to CPUs and parsing CPU lists ("0-3,6"). */
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
/* Number of configured CPUs (for validating --cpu). */
int cpu_count(void);
/*
 * Parse a CPU list "0,2-3" into mask[0..n) (1 = listed). Returns the
 * number of CPUs listed, or -1 on syntax error or a CPU >= n.
 */
int cpu_parse_list(const char *s, unsigned char *mask, int n);

#endif
