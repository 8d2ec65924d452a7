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

/*
 * A CPU set mask[0..n) (1 = in the set, any n >= 1) as the kernel's
 * cpumask text ("%*pb", what tracing_cpumask takes and shows): groups of
 * 32 CPUs in hex, the highest first, separated by commas, each of 8
 * digits but the first, which has the digits its bits need ("1" for
 * n = 1, "1,00000001" for CPUs 0 and 32 of 33). The kernel refuses more
 * than 8 digits without a comma (EOVERFLOW), so one 64-bit word cannot
 * say more than 32 CPUs. cpu_mask_len(n): the bytes the text of n CPUs
 * takes, its NUL included. Returns the text's length, or -EINVAL (n < 1)
 * or -ENOSPC (buf shorter than cpu_mask_len(n)).
 */
size_t cpu_mask_len(int n);
int cpu_mask_format(const unsigned char *mask, int n, char *buf, size_t len);
/*
 * The inverse: cpumask text (a trailing newline allowed; groups of at
 * most 8 hex digits) into mask[0..n). Returns the number of CPUs set,
 * -EINVAL for bad text, -EOVERFLOW when a CPU >= n is set.
 */
int cpu_mask_parse(const char *text, unsigned char *mask, int n);

#endif
