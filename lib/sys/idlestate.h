/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idlestate: the kernel's CPU idle states, per CPU. On the real /sys this
 * goes through libcpupower (as cpupower idle-info does); under a fake
 * root ($WAKEBENCH_SYSFS) it reads the same files directly.
 */
#ifndef WB_IDLESTATE_H
#define WB_IDLESTATE_H

#include <stdint.h>

#define IDLESTATE_NAME_LEN 32
#define IDLESTATE_DESC_LEN 96

struct idlestate {
	unsigned int index;
	char name[IDLESTATE_NAME_LEN];
	char desc[IDLESTATE_DESC_LEN];
	uint64_t latency_us;	/* exit latency */
	uint64_t residency_us;	/* target residency */
	uint64_t usage;		/* entries */
	uint64_t time_us;	/* total time in the state */
	int disabled;
};

/* Number of possible CPUs (cpuN directories). */
int idlestate_cpu_count(void);
/* Idle states of @cpu (0 without a cpuidle driver). */
int idlestate_count(unsigned int cpu);
/* Returns 0 or -errno. */
int idlestate_get(unsigned int cpu, unsigned int idx,
		      struct idlestate *st);
int idlestate_set_disabled(unsigned int cpu, unsigned int idx,
			       int disabled);
/* driver and governor names ("none" when cpuidle is absent). */
void idlestate_driver(char *buf, size_t len);
void idlestate_governor(char *buf, size_t len);
/*
 * The governors the kernel offers (cpuidle/available_governors: "ladder
 * menu teo haltpoll"), "" where it does not say; 0 or -errno.
 */
int idlestate_governors(char *buf, size_t len);
/* 1 when name is one of the words of the list. */
int idlestate_governor_listed(const char *list, const char *name);
/*
 * State by index ("2") or name ("C1E", case-insensitive) on @cpu.
 * Returns the index or -ENOENT.
 */
int idlestate_resolve(unsigned int cpu, const char *spec);

#endif
