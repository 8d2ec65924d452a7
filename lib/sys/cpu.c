// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu.h"
#include "cpuset.h"

int cpu_pin_self(int cpu)
{
	struct cpuset *one;
	cpu_set_t *set;
	size_t size;
	int err;

	/* sized for cpu: a fixed cpu_set_t stops at CPU_SETSIZE (1024) */
	if (cpu < 0 || cpu >= CPUSET_LIMIT)
		return -EINVAL;
	one = cpuset_new(cpu + 1);
	if (!one)
		return -ENOMEM;
	cpuset_set(one, cpu);
	set = cpuset_affinity(one, &size);
	cpuset_free(one);
	if (!set)
		return -ENOMEM;
	err = pthread_setaffinity_np(pthread_self(), size, set);
	CPU_FREE(set);
	return -err;
}

int cpu_pin_opt(int cpu, char *msg, size_t msglen)
{
	int ret = cpu < 0 ? 0 : cpu_pin_self(cpu);

	if (ret)
		snprintf(msg, msglen, "cannot pin to CPU %d: %s", cpu,
			 strerror(-ret));
	return ret;
}

int cpu_count(void)
{
	return cpuset_possible();
}
