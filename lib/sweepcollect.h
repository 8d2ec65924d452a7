/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweepcollect: builds a sweep's sweep.csv (wakebench stats --collect)
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

/* sweep.csv's header, unchanged since the awk version of the sweep. */
#define SWEEPCOLLECT_HEADER \
	"point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us," \
	"requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us," \
	"lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent," \
	"prequeries_skipped,dir,behind_schedule,behind_reason"

/* The client summary columns copied, in sweep.csv's order. */
#define SWEEPCOLLECT_NVALS 11
extern const char *const sweepcollect_vals[SWEEPCOLLECT_NVALS];

/* One line of plan.txt: "POINT REP DIST INTERVAL PREQUERY WARMUP CSTATES SERVICE". */
struct sweepcollect_entry {
	const char *point, *rep;
	const char *param[6];	/* dist interval_us prequery warmup cstates service_us */
	unsigned long rep_n;
};

/*
 * Splits LINE (its newline removed, modified in place) into E. -EINVAL
 * with "NAME:LINENO: ..." in err for a line that is not 8 words, a point
 * that is not a plain directory name, a rep that is not a whole number, or
 * a value holding ',' or '"' (sweep.csv is read naively by old tools).
 */
int sweepcollect_plan_line(char *line, struct sweepcollect_entry *e,
			   const char *name, unsigned long lineno, char *err,
			   size_t errlen);

/* What sweep.csv takes from a run's client summary.csv. */
struct sweepcollect_run {
	char status[32];
	char val[SWEEPCOLLECT_NVALS][64];
	char behind[2];		/* "", "0" or "1" */
	char why[256];		/* '"' removed, ',' as ';' */
};

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
 * Writes E's sweep.csv row to OUT: REQUESTS as given, seed SEED + rep,
 * RUN NULL for a missing run. 0 or -EIO.
 */
int sweepcollect_row(FILE *out, const struct sweepcollect_entry *e,
		     const char *requests, unsigned long long seed,
		     const struct sweepcollect_run *run);

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
