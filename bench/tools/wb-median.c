// SPDX-License-Identifier: GPL-2.0
/*
 * wb-median: the median of the numbers on stdin (one per line) with its
 * non-parametric confidence interval from order statistics (lib/stats,
 * the rule 'wakebench stats' uses), so that bench scripts compute no
 * numbers in shell:
 *
 *   ... | wb-median        ->  "median ci_lo ci_hi coverage_pct n"
 *
 * With n < 6 the interval is the min-max range (its coverage says so).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "stats.h"

#define PROG "wb-median"
#define MAX_VALUES 1000000

int main(int argc, char **argv)
{
	static double v[MAX_VALUES];
	struct stats_summary s;
	char line[256], *e;
	size_t n = 0, ln = 0;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("Usage: wb-median < NUMBERS\n");
		return 0;
	}
	if (argc != 1)
		opt_usage(PROG, "reads numbers from stdin, takes no arguments");
	while (fgets(line, sizeof(line), stdin)) {
		ln++;
		line[strcspn(line, "\r\n")] = 0;
		if (!*line)
			continue;
		errno = 0;
		v[n] = strtod(line, &e);
		if (errno || *e || e == line || v[n] != v[n])
			opt_die(PROG, "line %zu: not a number: '%.40s'", ln, line);
		if (++n == MAX_VALUES)
			opt_die(PROG, "more than %d numbers", MAX_VALUES);
	}
	if (stats_summarize(v, n, 1.0, 1, &s))
		opt_die(PROG, "no numbers on stdin");
	printf("%.4f %.4f %.4f %.1f %zu\n", s.median, s.ci_lo, s.ci_hi,
	       100 * s.ci_coverage, s.n);
	return 0;
}
