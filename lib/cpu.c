// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu.h"

int cpu_pin_self(int cpu)
{
	cpu_set_t *set;
	size_t size;
	int err;

	/* sized for cpu: a fixed cpu_set_t stops at CPU_SETSIZE (1024) */
	if (cpu < 0 || cpu >= (1 << 22))
		return -EINVAL;
	set = CPU_ALLOC(cpu + 1);
	if (!set)
		return -ENOMEM;
	size = CPU_ALLOC_SIZE(cpu + 1);
	CPU_ZERO_S(size, set);
	CPU_SET_S(cpu, size, set);
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

/* Digits of the first (highest) group: as many as its bits need. */
static int first_digits(int n)
{
	return ((n - 1) % 32) / 4 + 1;
}

size_t cpu_mask_len(int n)
{
	if (n < 1)
		return 1;
	return (size_t)first_digits(n) + (size_t)((n - 1) / 32) * 9 + 1;
}

int cpu_mask_format(const unsigned char *mask, int n, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	int groups, pos = 0;

	if (n < 1)
		return -EINVAL;
	if (len < cpu_mask_len(n))
		return -ENOSPC;
	groups = (n + 31) / 32;
	for (int g = groups - 1; g >= 0; g--) {
		uint32_t bits = 0;
		int digits = g == groups - 1 ? first_digits(n) : 8;

		for (int b = 0; b < 32 && g * 32 + b < n; b++)
			if (mask[g * 32 + b])
				bits |= (uint32_t)1 << b;
		for (int d = digits - 1; d >= 0; d--)
			buf[pos++] = hex[(bits >> (4 * d)) & 15];
		if (g)
			buf[pos++] = ',';
	}
	buf[pos] = '\0';
	return pos;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int cpu_mask_parse(const char *text, unsigned char *mask, int n)
{
	size_t len = strlen(text);
	int group = 0, count = 0, over = 0;

	memset(mask, 0, (size_t)(n > 0 ? n : 0));
	if (len && text[len - 1] == '\n')
		len--;
	if (!len)
		return -EINVAL;
	/* from the end: the last group is CPUs 0-31 */
	while (len) {
		size_t end = len, start = len;

		while (start && text[start - 1] != ',')
			start--;
		if (start == end || end - start > 8)
			return -EINVAL;
		for (size_t i = end; i-- > start;) {
			int v = hexval(text[i]);

			if (v < 0)
				return -EINVAL;
			for (int b = 0; b < 4; b++) {
				long cpu = (long)group * 32 + (long)(end - 1 - i) * 4 + b;

				if (!(v >> b & 1))
					continue;
				if (cpu >= n) {
					over = 1;
					continue;
				}
				mask[cpu] = 1;
				count++;
			}
		}
		group++;
		if (!start)
			break;
		len = start - 1;
		if (!len)
			return -EINVAL;	/* a leading comma */
	}
	return over ? -EOVERFLOW : count;
}
