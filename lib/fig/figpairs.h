/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figpairs: the data of wakebench report's figures 1 and 2 (wakebench
 * internal pairs): each configuration with pre-query against the same one
 * with pre-query off.
 *
 * bars.dat, one line per pair:
 *   LABEL off_avg lo hi pq_avg lo hi off_p99 lo hi pq_p99 lo hi
 * speedup.dat:
 *   LABEL speedup_avg speedup_p50 speedup_p99
 * LABEL is "DIST:<interval %g>us" with "/wuN", "/cs-X", "/svcN" for
 * warm-up, C-states and service time off their defaults, then "/pqP"
 * (sweeps) or "/PREQUERY[-<lead %g>us]" (single runs); a sweep pair with
 * runs behind schedule ends "[!N_behind]". Fields are space-separated;
 * numbers read from a file are copied as text, computed ones are written
 * as awk prints them ("%d" for whole numbers in int range, else "%.6g"),
 * so the files are byte for byte those of the awk code this replaced.
 * Lines come in no particular order (the report sorts them).
 */
#ifndef WB_FIGPAIRS_H
#define WB_FIGPAIRS_H

#include <stddef.h>
#include <stdio.h>

/* A number as awk's print writes it, into buf. */
void figpairs_num(double v, char *buf, size_t len);

/*
 * From a sweep summary.csv (wakebench stats; F named NAME): points with
 * n = 0 are left out; medians and CI bounds come from the summary, the
 * speedups are its speedup_* columns. 0, -EINVAL (no header, no dist /
 * interval_us / prequery column), -EIO or -ENOMEM, with the message.
 */
int figpairs_sweep(FILE *f, const char *name, FILE *bars, FILE *speedup,
		   char *err, size_t errlen);

/*
 * From N client summary.csv files (single runs): the bars are the runs'
 * avg and p99 without an interval, the speedups avg/p50/p99 of the off run
 * divided by the pre-query run's. -ENOENT/-EIO naming a file that cannot
 * be read, or -ENOMEM.
 */
int figpairs_runs(char *const *paths, size_t n, FILE *bars, FILE *speedup,
		  char *err, size_t errlen);

#endif
