// SPDX-License-Identifier: GPL-2.0
/* irqstat: /proc/interrupts parsed and compared (see irqstat.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irqstat.h"

#define MAX_TEXT (64u << 20)

void irqstat_free(struct irqstat *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->row[i].count);
	free(s->row);
	free(s->cpu);
	memset(s, 0, sizeof(*s));
}

/* The header: "CPU0 CPU1 ..." (online CPUs only, so numbers may skip). */
static int parse_header(const char *line, size_t len, struct irqstat *s)
{
	const char *p = line, *end = line + len;
	int cap = 0;

	while (p < end) {
		char *e;
		unsigned long c;

		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p == end)
			break;
		if (end - p < 4 || strncmp(p, "CPU", 3) ||
		    !isdigit((unsigned char)p[3]))
			return -EINVAL;
		errno = 0;
		c = strtoul(p + 3, &e, 10);
		if (errno || c >= IRQSTAT_MAX_CPUS || e > end ||
		    (e < end && !isspace((unsigned char)*e)))
			return -EINVAL;
		if (s->ncpus == IRQSTAT_MAX_CPUS)
			return -EINVAL;
		if (s->ncpus == cap) {
			int *n;

			cap = cap ? 2 * cap : 16;
			n = realloc(s->cpu, (size_t)cap * sizeof(*n));
			if (!n)
				return -ENOMEM;
			s->cpu = n;
		}
		s->cpu[s->ncpus++] = (int)c;
		p = e;
	}
	return s->ncpus ? 0 : -EINVAL;
}

/* How many counts a row has after its label (at most max): numbers of
 * 1-19 digits, each followed by a space or the end. */
static int count_numbers(const char *p, const char *end, int max)
{
	int n = 0;

	while (n < max) {
		int digits = 0;

		while (p < end && isspace((unsigned char)*p))
			p++;
		while (p < end && isdigit((unsigned char)*p) && digits < 19) {
			p++;
			digits++;
		}
		if (!digits || (p < end && !isspace((unsigned char)*p)))
			break;
		n++;
	}
	return n;
}

static int parse_row(const char *line, size_t len, struct irqstat *s)
{
	const char *p = line, *end = line + len, *colon;
	struct irqstat_row *r;
	size_t ln, dn = 0;

	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p == end)
		return 0;	/* a blank line */
	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon || colon == p)
		return -EINVAL;
	ln = (size_t)(colon - p);
	if (ln >= IRQSTAT_LABEL_LEN)
		return -EINVAL;
	for (size_t i = 0; i < ln; i++)
		if (!isgraph((unsigned char)p[i]))
			return -EINVAL;
	if (s->n % 64 == 0) {
		struct irqstat_row *n = realloc(s->row, (s->n + 64) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->row = n;
	}
	r = &s->row[s->n];
	memset(r, 0, sizeof(*r));
	/* sized to the counts the row has, not the header's columns */
	r->count = malloc(sizeof(*r->count) * (size_t)count_numbers(colon + 1, end, s->ncpus) + 1);
	if (!r->count)
		return -ENOMEM;
	s->n++;
	memcpy(r->label, p, ln);
	r->label[ln] = '\0';
	p = colon + 1;
	/* counts: as many numbers as CPU columns, or fewer */
	while (r->ncounts < s->ncpus) {
		const char *q = p;
		unsigned long long v = 0;
		int digits = 0;

		while (q < end && isspace((unsigned char)*q))
			q++;
		/* 19 digits at most: a larger count is not a counter */
		while (q < end && isdigit((unsigned char)*q) && digits < 19) {
			v = v * 10 + (unsigned long long)(*q - '0');
			q++;
			digits++;
		}
		if (!digits || (q < end && !isspace((unsigned char)*q)))
			break;	/* the description starts here */
		r->count[r->ncounts++] = v;
		p = q;
	}
	/* the description, spaces squeezed */
	while (p < end && dn + 1 < sizeof(r->desc)) {
		if (isspace((unsigned char)*p)) {
			while (p < end && isspace((unsigned char)*p))
				p++;
			if (dn && p < end)
				r->desc[dn++] = ' ';
			continue;
		}
		r->desc[dn++] = isprint((unsigned char)*p) ? *p : '?';
		p++;
	}
	r->desc[dn] = '\0';
	return 0;
}

int irqstat_parse(const char *text, struct irqstat *s)
{
	const char *p = text;
	int first = 1, ret = 0;

	memset(s, 0, sizeof(*s));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		ret = first ? parse_header(p, len, s) : parse_row(p, len, s);
		if (ret)
			break;
		first = 0;
		p += len + (nl ? 1 : 0);
	}
	if (!ret && first)
		ret = -EINVAL;
	if (ret)
		irqstat_free(s);
	return ret;
}

int irqstat_read(const char *path, struct irqstat *s)
{
	FILE *f = fopen(path, "r");
	size_t cap = 65536, len = 0;
	char *buf;
	int ret;

	if (!f)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	for (;;) {
		size_t got = fread(buf + len, 1, cap - len - 1, f);

		len += got;
		if (len + 1 < cap) {
			if (ferror(f)) {
				ret = -EIO;
				goto out;
			}
			break;
		}
		if (cap >= MAX_TEXT) {
			ret = -EFBIG;
			goto out;
		}
		char *n = realloc(buf, cap * 2);

		if (!n) {
			ret = -ENOMEM;
			goto out;
		}
		buf = n;
		cap *= 2;
	}
	buf[len] = '\0';
	ret = memchr(buf, '\0', len) ? -EINVAL : irqstat_parse(buf, s);
out:
	free(buf);
	fclose(f);
	return ret;
}

static int column(const struct irqstat *s, int cpu)
{
	for (int i = 0; i < s->ncpus; i++)
		if (s->cpu[i] == cpu)
			return i;
	return -1;
}

int irqstat_has_cpu(const struct irqstat *s, int cpu)
{
	return column(s, cpu) >= 0;
}

static uint64_t row_count(const struct irqstat *s, const struct irqstat_row *r,
			  int cpu)
{
	uint64_t sum = 0;
	int c;

	if (cpu >= 0) {
		c = column(s, cpu);
		return c >= 0 && c < r->ncounts ? r->count[c] : 0;
	}
	for (c = 0; c < r->ncounts; c++)
		sum += r->count[c];
	return sum;
}

uint64_t irqstat_delta(const struct irqstat *a, const struct irqstat *b,
		       int cpu,
		       void (*fn)(void *arg, const struct irqstat_row *row,
				  uint64_t delta),
		       void *arg)
{
	uint64_t total = 0;

	if (cpu >= 0 && (column(a, cpu) < 0 || column(b, cpu) < 0))
		return 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct irqstat_row *rb = &b->row[i], *ra = NULL;
		uint64_t was = 0, now = row_count(b, rb, cpu);

		/* rows keep their order: look where it was first */
		if (i < a->n && !strcmp(a->row[i].label, rb->label))
			ra = &a->row[i];
		for (size_t j = 0; !ra && j < a->n; j++)
			if (!strcmp(a->row[j].label, rb->label))
				ra = &a->row[j];
		if (ra)
			was = row_count(a, ra, cpu);
		if (now <= was)
			continue;
		total += now - was;
		if (fn)
			fn(arg, rb, now - was);
	}
	return total;
}
