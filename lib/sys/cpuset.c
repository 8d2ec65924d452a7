// SPDX-License-Identifier: GPL-2.0
/* cpuset: CPU sets as bitmaps sized at run time (see cpuset.h). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuset.h"
#include "sysfs.h"

#define WORD_BITS ((int)(sizeof(unsigned long) * CHAR_BIT))

static size_t words(int n)
{
	return ((size_t)n + WORD_BITS - 1) / WORD_BITS;
}

/* The span of the list in the file at path, else sysconf's CPUs. */
static int possible_at(const char *path)
{
	char buf[4096];
	long n;
	int span;

	if (file_read(path, buf, sizeof(buf)) > 0) {
		span = cpuset_list_span(buf);
		if (span > 0)
			return span;
	}
	n = sysconf(_SC_NPROCESSORS_CONF);
	return n > 0 && n <= CPUSET_LIMIT ? (int)n : 1;
}

int cpuset_possible(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/devices/system/cpu/possible",
		 sysfs_root());
	return possible_at(path);
}

int cpuset_kernel_possible(void)
{
	return possible_at("/sys/devices/system/cpu/possible");
}

struct cpuset *cpuset_new(int n)
{
	struct cpuset *s;

	if (n < 1 || n > CPUSET_LIMIT)
		return NULL;
	s = malloc(sizeof(*s));
	if (!s)
		return NULL;
	s->n = n;
	s->bits = calloc(words(n), sizeof(*s->bits));
	if (!s->bits) {
		free(s);
		return NULL;
	}
	return s;
}

struct cpuset *cpuset_possible_new(void)
{
	return cpuset_new(cpuset_possible());
}

void cpuset_free(struct cpuset *s)
{
	if (!s)
		return;
	free(s->bits);
	free(s);
}

void cpuset_set(struct cpuset *s, int cpu)
{
	if (cpu >= 0 && cpu < s->n)
		s->bits[cpu / WORD_BITS] |= 1UL << (cpu % WORD_BITS);
}

void cpuset_clear(struct cpuset *s, int cpu)
{
	if (cpu >= 0 && cpu < s->n)
		s->bits[cpu / WORD_BITS] &= ~(1UL << (cpu % WORD_BITS));
}

int cpuset_test(const struct cpuset *s, int cpu)
{
	if (cpu < 0 || cpu >= s->n)
		return 0;
	return (int)(s->bits[cpu / WORD_BITS] >> (cpu % WORD_BITS) & 1);
}

int cpuset_count(const struct cpuset *s)
{
	int k = 0;

	for (size_t w = 0; w < words(s->n); w++)
		k += __builtin_popcountl(s->bits[w]);
	return k;
}

int cpuset_next(const struct cpuset *s, int from)
{
	if (from < 0)
		from = 0;
	for (int c = from; c < s->n; c++) {
		unsigned long w = s->bits[c / WORD_BITS] >> (c % WORD_BITS);

		if (!w) {	/* the rest of this word is empty */
			c |= WORD_BITS - 1;
			continue;
		}
		return c + __builtin_ctzl(w);
	}
	return -1;
}

/* A decimal id below CPUSET_LIMIT at *p; -1 for none or too large. */
static long id_at(const char **p)
{
	const char *s = *p;
	long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s++ - '0');
		if (v >= CPUSET_LIMIT)
			return -1;
	}
	*p = s;
	return v;
}

/* One item "a", "a-b" or "a-b:u/g"; 0 or -EINVAL. */
static int item(const char **p, long *lo, long *hi, long *used, long *group)
{
	*lo = *hi = id_at(p);
	*used = *group = 1;
	if (*lo < 0)
		return -EINVAL;
	if (**p != '-')
		return 0;
	++*p;
	*hi = id_at(p);
	if (*hi < *lo)
		return -EINVAL;
	if (**p != ':')
		return 0;
	++*p;
	*used = id_at(p);
	if (**p != '/')
		return -EINVAL;
	++*p;
	*group = id_at(p);
	return *used < 1 || *group < *used ? -EINVAL : 0;
}

/*
 * Walks a list, setting every id it names in s (when not NULL; *err =
 * -ERANGE for one past s). Returns the highest id plus one, or -EINVAL.
 */
static long walk_list(const char *text, struct cpuset *s, int *err)
{
	const char *p = text;
	long span = 0;

	*err = 0;
	if (!*p || *p == '\n')
		return -EINVAL;
	while (*p && *p != '\n') {
		long lo, hi, used, group;

		if (item(&p, &lo, &hi, &used, &group))
			return -EINVAL;
		/* the span alone needs no walk id by id, but of a stride */
		if (!s && used == group)
			lo = hi;
		for (long c = lo; c <= hi; c++) {
			if ((c - lo) % group >= used)
				continue;
			if (c + 1 > span)
				span = c + 1;
			if (!s)
				continue;
			if (c >= s->n)
				*err = -ERANGE;
			else
				cpuset_set(s, (int)c);
		}
		if (*p == ',' && p[1] && p[1] != '\n')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	if (*p == '\n' && p[1])
		return -EINVAL;
	return span;
}

int cpuset_parse_list(struct cpuset *s, const char *text)
{
	int err;
	long span;

	memset(s->bits, 0, words(s->n) * sizeof(*s->bits));
	span = walk_list(text, s, &err);
	if (span < 0)
		return (int)span;
	if (err) {
		memset(s->bits, 0, words(s->n) * sizeof(*s->bits));
		return err;
	}
	return cpuset_count(s);
}

int cpuset_list_span(const char *text)
{
	int err;
	long span = walk_list(text, NULL, &err);

	return span > 0 ? (int)span : 0;
}

size_t cpuset_list_len(const struct cpuset *s)
{
	int digits = 1;

	for (int v = s->n; v >= 10; v /= 10)
		digits++;
	/*
	 * The longest lists are pairs ("0-1,3-4,...": two ids and two
	 * separators every 3 CPUs) and lone ids ("0,2,...": one every 2):
	 * never more than an id and a separator per CPU.
	 */
	return ((size_t)s->n + 1) * (size_t)(digits + 1) + 1;
}

int cpuset_format_list(const struct cpuset *s, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (int c = cpuset_next(s, 0); c >= 0;) {
		int end = c, w;

		while (end + 1 < s->n && cpuset_test(s, end + 1))
			end++;
		if (end > c)
			w = snprintf(buf + used, len - used, "%s%d-%d",
				     used ? "," : "", c, end);
		else
			w = snprintf(buf + used, len - used, "%s%d",
				     used ? "," : "", c);
		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = '\0';
			return -ENOSPC;
		}
		used += (size_t)w;
		c = cpuset_next(s, end + 1);
	}
	return (int)used;
}

/* Digits of the first (highest) group: as many as its bits need. */
static int first_digits(int n)
{
	return ((n - 1) % 32) / 4 + 1;
}

size_t cpuset_mask_len(int n)
{
	if (n < 1)
		return 1;
	return (size_t)first_digits(n) + (size_t)((n - 1) / 32) * 9 + 1;
}

static uint32_t group_bits(const struct cpuset *s, int g)
{
	uint32_t bits = 0;

	for (int b = 0; b < 32; b++)
		if (cpuset_test(s, g * 32 + b))
			bits |= (uint32_t)1 << b;
	return bits;
}

int cpuset_format_mask(const struct cpuset *s, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	int groups = (s->n + 31) / 32, pos = 0;

	if (len < cpuset_mask_len(s->n))
		return -ENOSPC;
	for (int g = groups - 1; g >= 0; g--) {
		uint32_t bits = group_bits(s, g);
		int digits = g == groups - 1 ? first_digits(s->n) : 8;

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

/* One group text[start, end) as bits of group g; -EINVAL or 1 = over. */
static int mask_group(struct cpuset *s, const char *text, size_t start,
		      size_t end, long g)
{
	int over = 0;

	if (start == end || end - start > 8)
		return -EINVAL;
	for (size_t i = end; i-- > start;) {
		int v = hexval(text[i]);

		if (v < 0)
			return -EINVAL;
		for (int b = 0; b < 4; b++) {
			long cpu = g * 32 + (long)(end - 1 - i) * 4 + b;

			if (!(v >> b & 1))
				continue;
			if (cpu >= s->n)
				over = 1;
			else
				cpuset_set(s, (int)cpu);
		}
	}
	return over;
}

int cpuset_parse_mask(struct cpuset *s, const char *text)
{
	size_t len = strlen(text);
	long group = 0;
	int over = 0;

	memset(s->bits, 0, words(s->n) * sizeof(*s->bits));
	if (len && text[len - 1] == '\n')
		len--;
	if (!len)
		return -EINVAL;
	/* from the end: the last group is CPUs 0-31 */
	while (len) {
		size_t start = len;
		int r;

		while (start && text[start - 1] != ',')
			start--;
		r = mask_group(s, text, start, len, group++);
		if (r < 0)
			return r;
		over |= r;
		if (!start)
			break;
		len = start - 1;
		if (!len)
			return -EINVAL;	/* a leading comma */
	}
	return over ? -EOVERFLOW : cpuset_count(s);
}

cpu_set_t *cpuset_affinity(const struct cpuset *s, size_t *size)
{
	cpu_set_t *set = CPU_ALLOC(s->n);

	if (!set)
		return NULL;
	*size = CPU_ALLOC_SIZE(s->n);
	CPU_ZERO_S(*size, set);
	for (int c = cpuset_next(s, 0); c >= 0; c = cpuset_next(s, c + 1))
		CPU_SET_S(c, *size, set);
	return set;
}

struct cpuset *cpuset_usable(int n)
{
	int kn = cpuset_kernel_possible();
	cpu_set_t *set = NULL;
	struct cpuset *s;
	size_t size;

	if (!sysfs_is_real())
		return NULL;
	s = cpuset_new(n);
	if (!s)
		return NULL;
	/* The mask must cover the kernel's nr_cpu_ids (EINVAL if not): a
	 * possible file that could not be read is no reason to give up. */
	for (;;) {
		set = CPU_ALLOC(kn);
		size = CPU_ALLOC_SIZE(kn);
		if (!set)
			goto fail;
		if (!sched_getaffinity(0, size, set))
			break;
		CPU_FREE(set);
		set = NULL;
		if (errno != EINVAL || kn >= CPUSET_LIMIT)
			goto fail;
		kn = kn * 2 < CPUSET_LIMIT ? kn * 2 : CPUSET_LIMIT;
	}
	for (int c = 0; c < n && c < kn; c++)
		if (CPU_ISSET_S(c, size, set))
			cpuset_set(s, c);
	CPU_FREE(set);
	return s;
fail:
	cpuset_free(s);
	return NULL;
}
