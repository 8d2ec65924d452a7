/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweepcsv: reads a sweep's sweep.csv (wakebench sweep) for wakebench
 * stats. Columns are found by name; the runs whose status is ok are kept,
 * with their point parameters, their avg/p50/p99/p99.9 latency (checked:
 * non-negative finite decimals) and whether they fell behind their
 * schedule (the client's behind_schedule, else lib/runcheck's legacy rule on
 * late_sends, requests, pace_p99_us and interval_us). Errors name the
 * file and line; nothing is printed.
 */
#ifndef WB_SWEEPCSV_H
#define WB_SWEEPCSV_H

#include <stddef.h>
#include <stdio.h>

#include "sweepdim.h"

/* Parameters that name a point: the first 7 as they always were (the
 * table's first six dimensions and requests), then the other dimensions
 * (lib/sweep/sweepdim.h) in table order. summary.csv writes the first 7,
 * later those before SWEEPCSV_ADDED_FROM, and SWEEPDIM_ADDED's (from
 * SWEEPCSV_ADDED_FROM on) as its last columns. */
#define SWEEPCSV_NPARAMS (SWEEPDIM_N + 1)
#define SWEEPCSV_NLEGACY_PARAMS (SWEEPDIM_NFIRST + 1)
#define SWEEPCSV_ADDED_FROM (SWEEPDIM_ADDED_FROM + 1)
extern const char *const sweepcsv_params[SWEEPCSV_NPARAMS];
/* Metrics: the latencies (lat_<m>_us columns) first, then the RAPL
 * energy per request and power (issue 17). The first 4 are required; the
 * others are NAN where the column is absent or empty (older clients, or
 * no RAPL). sweepcsv_metric_units: what a summary's columns are in. */
#define SWEEPCSV_NMETRICS 13
#define SWEEPCSV_NLAT_METRICS 6
/* From here (issue 35): what a run cost per request, from sweep.csv's
 * cost_* columns; NAN where absent or empty like the energy's. */
#define SWEEPCSV_NCOST_FROM 8
#define SWEEPCSV_NREQUIRED_METRICS 4
extern const char *const sweepcsv_metrics[SWEEPCSV_NMETRICS];
extern const char *const sweepcsv_metric_cols[SWEEPCSV_NMETRICS];
extern const char *const sweepcsv_metric_units[SWEEPCSV_NMETRICS];
/* The index of "prequery" in sweepcsv_params (before requests). */
#define SWEEPCSV_PREQUERY SWEEPDIM_PREQUERY

struct sweepcsv_run {
	const char *point, *rep;		/* rep "?" without the column */
	const char *param[SWEEPCSV_NPARAMS];	/* "" without the column */
	double val[SWEEPCSV_NMETRICS];
	/* the run's own 95 % CI of val[m] (lat_<m>_lo_us, lat_<m>_hi_us,
	 * issue 31): NAN where the run could not bound it (empty fields) or
	 * the file has no such columns (has_ci[m] = 0) */
	double lo[SWEEPCSV_NMETRICS], hi[SWEEPCSV_NMETRICS];
	int behind;		/* 1, 0, or -1: cannot be checked (old sweep) */
	char why[256];		/* why it is behind */
	unsigned long line;
	char *buf;		/* owns the strings above */
};

struct sweepcsv {
	struct sweepcsv_run *run;	/* the ok runs, in file order */
	size_t n, cap;
	int has_ci[SWEEPCSV_NMETRICS];	/* lat_<m>_lo_us and _hi_us are there */
};

/*
 * Reads F (named NAME in messages) into OUT (zeroed here). 0, or -EINVAL
 * ("NAME:LINE: what is wrong", "NAME has no column lat_p50_us"),
 * -ENODATA (empty), -EIO or -ENOMEM, with the message in ERR.
 */
int sweepcsv_read(FILE *f, const char *name, struct sweepcsv *out, char *err,
		  size_t errlen);
void sweepcsv_free(struct sweepcsv *c);

/*
 * The order of two values of one parameter, for tables sorted by point:
 * "" and "-" (does not apply) first, then "off", then numbers by value,
 * then other words alphabetically. <0, 0, >0 like strcmp.
 */
int sweepcsv_value_cmp(const char *a, const char *b);

#endif
