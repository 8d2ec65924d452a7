/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweepcollect: builds a sweep's sweep.csv (wakebench-internal collect)
 * from DIR/plan.txt, DIR/sweep.spec and each run's
 * DIR/<point>/rep-<n>/client/summary.csv: one row per planned run, in plan
 * order, the run's status and the client's numbers copied as text. A run
 * without a summary (absent or empty file) is "missing" with empty fields;
 * a summary or plan line that is not what wakebench writes is an error
 * naming FILE:LINE. Nothing is printed; errors are -errno with a message.
 */
#ifndef WB_SWEEPCOLLECT_H
#define WB_SWEEPCOLLECT_H

#include <stddef.h>
#include <stdio.h>

#include "sweepplan.h"

/* sweep.csv's header, unchanged since the awk version of the sweep: the
 * first six dimensions of lib/sweep/sweepdim.h's table, requests, ... */
#define SWEEPCOLLECT_HEADER \
	"point,rep,status" SWEEPDIM_FIRST_COLS "," \
	"requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us," \
	"lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent," \
	"prequeries_skipped,dir,behind_schedule,behind_reason"

/* The client summary columns copied: the first 11 where they always
 * were, the next 8 (lat_p95_us ... energy_per_request_uj) with the new
 * columns before the midtier's, the last 16 (each percentile's
 * within-run CI, lat_p50_lo_us ... svc_p999_hi_us, issue 31) after
 * mt_irq_delta, before the capture's per-state columns. */
#define SWEEPCOLLECT_NVALS 35
#define SWEEPCOLLECT_NLEGACY_VALS 11
#define SWEEPCOLLECT_NVALS_BEFORE_MT 19
extern const char *const sweepcollect_vals[SWEEPCOLLECT_NVALS];

/* The midtier summary columns copied, as mt_<name> (three tiers). */
#define SWEEPCOLLECT_NMT 7
extern const char *const sweepcollect_mt[SWEEPCOLLECT_NMT];

/* What sweep.csv takes from a run's client summary.csv. */
struct sweepcollect_run {
	char status[32];
	char val[SWEEPCOLLECT_NVALS][64];
	/* the client's messages and bytes per request (issue 35), "" when
	 * the summary has none */
	char msgs[64], bytes[64];
	char behind[2];		/* "", "0" or "1" */
	char why[256];		/* '"' removed, ',' as ';' */
};

/* What sweep.csv takes from a run's capture (trace capture). */
/* a role's res_/entries_ and governor columns (issue 33) of up to 10
 * states (the kernel's most), for server and midtier */
#define SWEEPCOLLECT_MAXCAP 160
struct sweepcollect_cap {
	char irq[2][24];		/* irq_delta of server, midtier */
	int n;
	char name[SWEEPCOLLECT_MAXCAP][64];	/* res_*_pct, entries_*, mt_... */
	char val[SWEEPCOLLECT_MAXCAP][24];
	/* issue 35, the server side's cost over the capture's window: the
	 * sum of the cpu_us_<role> columns (every --pid tier; "" when one is
	 * empty or there are none), and of the server's row its C0 share
	 * (res_C0_pct) and idle entries per second ("" when unknown) */
	char cpu_us[24], c0_pct[24], entries_per_s[24];
};

/* After the capture's columns (issue 35): what each run cost, per
 * request; then SWEEPDIM_ADDED's dimensions, sweep.csv's last block. */
#define SWEEPCOLLECT_COST_COLS \
	",cost_cpu_us_per_req,cost_c0_pct,cost_idle_entries_per_s," \
	"cost_msgs_per_req,cost_bytes_per_req"

/*
 * Reads a client summary.csv (F, named NAME): a header and one row with
 * the same number of fields. status is required and must be a plain word;
 * a column that is absent (an older client) gives an empty field; the
 * copied numbers must be empty or decimal numbers, behind_schedule empty,
 * 0 or 1. 0, -EINVAL ("NAME:LINE: ..."), -ENODATA (empty file), -EIO or
 * -ENOMEM.
 */
int sweepcollect_summary(FILE *f, const char *name, struct sweepcollect_run *run,
			 char *err, size_t errlen);

/*
 * The midtier's summary.csv (midtier --summary) into MT (mt[k] for
 * sweepcollect_mt[k]; "" where absent): numbers or empty. 0, -EINVAL
 * ("NAME:LINE: ..."), -ENODATA, -EIO or -ENOMEM.
 */
int sweepcollect_midtier(FILE *f, const char *name,
			 char mt[SWEEPCOLLECT_NMT][64], char *err, size_t errlen);

/*
 * A run's capture.csv (wakebench trace capture) into CAP: the rows of
 * roles server and midtier; res_<state>_pct and entries_<state> columns
 * and the governor's usage_, time_us_, above_, below_ and rejected_<state>
 * (the midtier's as mt_...), numbers or empty; the cost fields (see the
 * struct) from the server's row; other columns and roles are ignored. 0, -EINVAL ("NAME:LINE: ..."), -ENODATA, -EIO, -ENOMEM.
 */
int sweepcollect_capture(FILE *f, const char *name,
			 struct sweepcollect_cap *cap, char *err, size_t errlen);

/*
 * Writes R's sweep.csv row to OUT: REQUESTS as given, seed SEED + rep;
 * RUN NULL for a missing run, MT NULL without a midtier summary, CAP NULL
 * without a capture; the capture columns named in COLS (NCOLS), then the
 * cost columns (SWEEPCOLLECT_COST_COLS): the tiers' CPU time over the
 * requests the window served (count + the point's warm-up), C0 %, idle
 * entries per second, the client's messages and bytes per request; then
 * the values of SWEEPDIM_ADDED's dimensions. 0 or -EIO.
 */
int sweepcollect_row(FILE *out, const struct sweepplan_run *r,
		     const char *requests, unsigned long long seed,
		     const struct sweepcollect_run *run,
		     char (*mt)[64], const struct sweepcollect_cap *cap,
		     char (*cols)[64], int ncols);

/* The header: SWEEPCOLLECT_HEADER, the new columns, COLS, the costs,
 * SWEEPDIM_ADDED's columns: every column appended after the last. */
int sweepcollect_header(FILE *out, char (*cols)[64], int ncols);

/*
 * Reads RUNDIR/client/summary.csv: 1 when its status is ok, 0 when it is
 * absent, empty or not ok, -errno (message in err) when it cannot be read
 * or is malformed.
 */
int sweepcollect_run_ok(const char *rundir, char *err, size_t errlen);

/*
 * The whole of --collect: DIR/sweep.spec (requests, seed), DIR/plan.txt
 * and every run's summary into DIR/sweep.csv, written to a temporary file,
 * fsynced and renamed into place (lib/stage). *ROWS gets the row count.
 */
int sweepcollect_dir(const char *dir, size_t *rows, char *err, size_t errlen);

#endif
