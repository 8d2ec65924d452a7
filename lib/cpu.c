// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu.h"

int cpu_pin_self(int cpu)
{
	cpu_set_t set;
	int err;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
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
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

int cpu_parse_list(const char *s, unsigned char *mask, int n)
{
	int count = 0;

	memset(mask, 0, (size_t)n);
	if (!s || !*s)
		return -1;
	while (*s) {
		char *end;
		long lo, hi;

		if (*s < '0' || *s > '9')
			return -1;
		lo = hi = strtol(s, &end, 10);
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -1;
			hi = strtol(s, &end, 10);
		}
		if (lo > hi || hi >= n)
			return -1;
		for (long c = lo; c <= hi; c++) {
			if (!mask[c])
				count++;
			mask[c] = 1;
		}
		s = end;
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -1;
	}
	return count;
}
