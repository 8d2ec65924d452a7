/* SPDX-License-Identifier: GPL-2.0 */
/*
 * irqstat: /proc/interrupts as numbers. The text is data (a file a test
 * or a hostile tree may supply): a header of CPU columns, then one row
 * per IRQ: "LABEL:", up to one count per CPU, and a description (chip,
 * hardware IRQ, handler names). Rows with fewer counts (ERR, MIS) keep
 * what they have. Deltas match rows by label, so an IRQ registered
 * between two reads counts from zero.
 */
#ifndef WB_IRQSTAT_H
#define WB_IRQSTAT_H

#include <stddef.h>
#include <stdint.h>
#include "cpuset.h"

#define IRQSTAT_LABEL_LEN 32
#define IRQSTAT_DESC_LEN 128
/*
 * More CPU columns (or a CPU number past this) is not a /proc/interrupts
 * we can trust: a guard against hostile text only; the columns are held
 * in arrays grown as the header is read.
 */
#define IRQSTAT_MAX_CPUS CPUSET_LIMIT

struct irqstat_row {
	char label[IRQSTAT_LABEL_LEN];	/* "24", "LOC", "NMI" */
	char desc[IRQSTAT_DESC_LEN];	/* spaces squeezed; "" when none */
	int ncounts;
	uint64_t *count;		/* [ncounts], one per CPU column */
};

struct irqstat {
	int ncpus;		/* CPU columns in the header */
	int *cpu;		/* the CPU number of each column */
	struct irqstat_row *row;
	size_t n;
};

/*
 * Parses TEXT into S (zeroed here). 0, -EINVAL for text that is not
 * /proc/interrupts (no CPU header, a row without "LABEL:", a count that
 * is not a number where one is expected is the start of the
 * description), -ENOMEM.
 */
int irqstat_parse(const char *text, struct irqstat *s);
/* Reads PATH (/proc/interrupts) into S; -errno. */
int irqstat_read(const char *path, struct irqstat *s);
void irqstat_free(struct irqstat *s);

/*
 * Calls FN for every row of B whose count on CPU (a CPU number; -1 for
 * the sum over all CPUs) grew since A, with the growth. A count that went
 * down (a counter reset) reports 0 growth and is skipped. Returns the sum
 * of the growths, or 0 when CPU is not a column of both.
 */
uint64_t irqstat_delta(const struct irqstat *a, const struct irqstat *b,
		       int cpu,
		       void (*fn)(void *arg, const struct irqstat_row *row,
				  uint64_t delta),
		       void *arg);

/* Whether CPU is a column of S. */
int irqstat_has_cpu(const struct irqstat *s, int cpu);

#endif
