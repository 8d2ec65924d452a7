/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpuset: a set of CPU ids as a bitmap sized at run time, as the kernel
 * sizes its cpumasks from nr_cpu_ids: no fixed limit such as cpu_set_t's
 * CPU_SETSIZE (1024). A set holds the ids 0..n-1, n usually the kernel's
 * possible CPUs (cpuset_possible). Lists read and print in the kernel's
 * form ("0-3,8,10-11", what cpuset.cpus and .../cpu/online show); masks
 * in its comma-separated 32-bit groups ("%*pb", what tracing_cpumask
 * shows); cpuset_affinity() hands a CPU_ALLOC set to sched_setaffinity.
 */
#ifndef WB_CPUSET_H
#define WB_CPUSET_H

#include <sched.h>
#include <stddef.h>

/*
 * The largest set made. Not a limit of the machines (Linux's NR_CPUS
 * tops at 8192 today): it only stops hostile text ("cpu4000000000", a
 * possible file of "0-2147483647") from sizing a bitmap.
 */
#define CPUSET_LIMIT (1 << 20)

struct cpuset {
	int n;			/* ids 0..n-1 */
	unsigned long *bits;
};

/*
 * The kernel's possible CPUs: the highest id in
 * $WAKEBENCH_SYSFS/devices/system/cpu/possible (or /sys's) plus one;
 * where that file is missing or unreadable, sysconf's configured CPUs.
 * At least 1.
 * cpuset_kernel_possible(): the same from /sys itself, for what talks to
 * the running kernel whatever tree the tests fake (tracefs's per-CPU
 * buffers).
 */
int cpuset_possible(void);
int cpuset_kernel_possible(void);

/* A set of ids 0..n-1 (1 <= n <= CPUSET_LIMIT), empty; NULL: ENOMEM or
 * n out of range. cpuset_possible_new(): n = cpuset_possible(). */
struct cpuset *cpuset_new(int n);
struct cpuset *cpuset_possible_new(void);
void cpuset_free(struct cpuset *s);

/* Ids outside 0..n-1 are not in the set: set ignores them, test says 0. */
void cpuset_set(struct cpuset *s, int cpu);
void cpuset_clear(struct cpuset *s, int cpu);
int cpuset_test(const struct cpuset *s, int cpu);
int cpuset_count(const struct cpuset *s);
/* The lowest id >= from in the set, or -1. */
int cpuset_next(const struct cpuset *s, int from);

/*
 * A list "0-3,8,10-11" (a trailing newline allowed; "a-b:u/g" takes the
 * first u of every g CPUs of a-b, as the kernel's bitmap_parselist) into
 * s, emptied first. Returns the number of CPUs listed, -EINVAL for bad
 * text (empty included), -ERANGE when an id is >= s->n.
 */
int cpuset_parse_list(struct cpuset *s, const char *text);
/*
 * The highest id of a list plus one (0 for bad text, or an id at or
 * past CPUSET_LIMIT): the n a set needs to hold it.
 */
int cpuset_list_span(const char *text);

/*
 * The set as a list ("" when empty). Returns its length, or -ENOSPC
 * when buf is too short (cpuset_list_len(s) bytes always suffice).
 */
size_t cpuset_list_len(const struct cpuset *s);
int cpuset_format_list(const struct cpuset *s, char *buf, size_t len);

/*
 * The set as the kernel's cpumask text: groups of 32 CPUs in hex, the
 * highest first, separated by commas, each of 8 digits but the first,
 * which has the digits its bits need ("1" for n = 1, "1,00000001" for
 * CPUs 0 and 32 of 33). The kernel refuses more than 8 digits without a
 * comma (EOVERFLOW), so one 64-bit word cannot say more than 32 CPUs.
 * cpuset_mask_len(n): the bytes the text of n CPUs takes, NUL included.
 * Returns the text's length, or -ENOSPC.
 */
size_t cpuset_mask_len(int n);
int cpuset_format_mask(const struct cpuset *s, char *buf, size_t len);
/*
 * The inverse (a trailing newline allowed), into s emptied first.
 * Returns the number of CPUs set, -EINVAL for bad text, -EOVERFLOW when
 * an id >= s->n is set (leading zero groups past n are fine).
 */
int cpuset_parse_mask(struct cpuset *s, const char *text);

/*
 * The set as a CPU_ALLOC'd cpu_set_t for sched_setaffinity and
 * pthread_setaffinity_np, its size in *size; free it with CPU_FREE.
 * NULL when out of memory.
 */
cpu_set_t *cpuset_affinity(const struct cpuset *s, size_t *size);

/*
 * The CPUs this thread may run on (its affinity: taskset, a cgroup's
 * cpuset) among 0..n-1, for placing what is pinned by default. NULL
 * when the sysfs tree is a fake one ($WAKEBENCH_SYSFS: its CPUs are not
 * this machine's), when the affinity cannot be read, or out of memory:
 * then every CPU counts as usable.
 */
struct cpuset *cpuset_usable(int n);

#endif
