// SPDX-License-Identifier: GPL-2.0
/* lib/sweepcollect (wakebench-internal collect) and lib/figpairs (pairs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "figpairs.h"
#include "sweepcollect.h"
#include "sweepplan.h"

static char err[1024];

#define SUMHDR "status,count,errors,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us," \
	"lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent," \
	"prequeries_skipped,behind_schedule,behind_reason,service_capped\n"

static int summary(const char *text, struct sweepcollect_run *r)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ck_assert_ptr_nonnull(f);
	err[0] = '\0';
	ret = sweepcollect_summary(f, "s.csv", r, err, sizeof(err));
	fclose(f);
	return ret;
}

/* The new columns after SWEEPCOLLECT_HEADER, up to the capture's. */
#define NEWCOLS ",tiers,closed,prequery_at,prequery_ack,prequery_receiver," \
	"warmup_mode,timer_slack_ns,server_cstates,client_cstates," \
	"midtier_cstates,cpu,delay,work_us,helper_wait,backend," \
	"lat_p95_us,lat_p9999_us," \
	"gets,sets,misses,energy_j,power_w,energy_per_request_uj," \
	"mt_requests,mt_prequeries_sent,mt_prequeries_raced," \
	"mt_backend_rtt_avg_us,mt_backend_rtt_p50_us,mt_backend_rtt_p99_us," \
	"mt_delay_us,irq_delta,mt_irq_delta," \
	"lat_p50_lo_us,lat_p50_hi_us,lat_p90_lo_us,lat_p90_hi_us," \
	"lat_p99_lo_us,lat_p99_hi_us,lat_p999_lo_us,lat_p999_hi_us," \
	"svc_p50_lo_us,svc_p50_hi_us,svc_p90_lo_us,svc_p90_hi_us," \
	"svc_p99_lo_us,svc_p99_hi_us,svc_p999_lo_us,svc_p999_hi_us"
/* the cost columns (issue 35) empty: no capture, no client counts */
#define NOCOST ",,,,,"
/* After the costs, last (appended, never inserted: users' scripts index
 * sweep.csv by position): the dimensions of SWEEPDIM_ADDED. */
#define ADDEDCOLS ",server_busy_poll,so_busy_poll,governor,haltpoll_ns"
#define NOADDED ",,,,"
#define ADDED_TAIL NOCOST ",yes,50,teo,\n"
/* NEWCOLS empty: an old plan line, no midtier, no capture */
#define NOCOLS ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,," \
	",,,,,,,,,,,,,,,,"

/* The row of plan line LINE with RUN (NULL: missing), into out. */
static void row(const char *line, const struct sweepcollect_run *run, char *out, size_t len)
{
	char l[1024];
	struct sweepplan_run r;
	FILE *f = fmemopen(out, len, "w");

	snprintf(l, sizeof(l), "%s", line);
	l[strcspn(l, "\n")] = '\0';
	ck_assert_int_eq(sweepplan_parse_line(l, &r, "plan.txt", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(sweepcollect_row(f, &r, "300", 7, run, NULL, NULL, NULL, 0), 0);
	fclose(f);
}

START_TEST(collect_rows)
{
	struct sweepcollect_run r;
	char out[1024];

	ck_assert_int_eq(summary(SUMHDR "ok,300,0,10.5,9.000,12,20,30,1.5,0.4,0,150,150,1,"
				 "\"late, \"\"very\"\"\",0\n", &r), 0);
	row("pt-a 3 exp 1000 20 0 on 0\n", &r, out, sizeof(out));
	ck_assert_str_eq(out, "pt-a,3,ok,exp,1000,20,0,on,0,300,10,300,10.5,9.000,12,20,30,"
			 "1.5,0.4,0,150,150,pt-a/rep-3,1,late; very" NOCOLS NOCOST NOADDED "\n");
	row("pt-a 12 exp 1000 20 0 on 0", NULL, out, sizeof(out));
	ck_assert_str_eq(out, "pt-a,12,missing,exp,1000,20,0,on,0,300,19,,,,,,,,,,,,"
			 "pt-a/rep-12,," NOCOLS NOCOST NOADDED "\n");
	/* a plan line of today: every dimension by name, '-' is empty */
	row("pt-b 1 dist=exp interval_us=500 prequery=off warmup=0 cstates=on service_us=0 "
	    "tiers=3 closed=no prequery_at=- prequery_ack=- prequery_receiver=- warmup_mode=- "
	    "timer_slack_ns=1 server_cstates=off client_cstates=on midtier_cstates=on cpu=none "
	    "delay=50 work_us=20 helper_wait=spin backend=memcached", NULL, out, sizeof(out));
	ck_assert_str_eq(out, "pt-b,1,missing,exp,500,off,0,on,0,300,8,,,,,,,,,,,,pt-b/rep-1,,"
			 ",3,no,,,,,1,off,on,on,none,50,20,spin,memcached,,,,,,,,,,,,,,,,,"
			 ",,,,,,,,,,,,,,,," NOCOST NOADDED "\n");
	/* the added dimensions' values end the row, backend's stays put */
	row("pt-c 1 dist=exp backend=wakebench server_busy_poll=yes so_busy_poll=50 "
	    "governor=teo haltpoll_ns=-", NULL, out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, ",wakebench,,"));
	ck_assert_uint_ge(strlen(out), strlen(ADDED_TAIL));
	ck_assert_str_eq(out + strlen(out) - strlen(ADDED_TAIL), ADDED_TAIL);
	/* issue 36: a gap law's parameters are one quoted field */
	row("dist-onoff-20_80 1 dist=onoff:20,80", NULL, out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, "dist-onoff-20_80,1,missing,\"onoff:20,80\",,"));
	/* issue 31: the within-run CIs go after mt_irq_delta, empty where
	 * the client could not bound the percentile */
	ck_assert_int_eq(summary("status,count,lat_p50_us,lat_p50_lo_us,lat_p50_hi_us,"
				 "lat_p999_lo_us,lat_p999_hi_us,svc_p99_hi_us\n"
				 "ok,300,9.5,9.000,10.250,,,31.5\n", &r), 0);
	row("p 1 fixed 500 off 10 off 5", &r, out, sizeof(out));
	ck_assert_str_eq(out, "p,1,ok,fixed,500,off,10,off,5,300,8,300,,9.5,,,,,,,,,p/rep-1,,"
			 ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"
			 ",9.000,10.250,,,,,,,,,,,,31.5,," NOCOST NOADDED "\n");
	/* an older client: no verdict columns, no pre-query counts */
	ck_assert_int_eq(summary("status,count,lat_avg_us\nfailed,0,\n", &r), 0);
	row("p 1 fixed 500 off 10 off 5", &r, out, sizeof(out));
	ck_assert_str_eq(out, "p,1,failed,fixed,500,off,10,off,5,300,8,0,,,,,,,,,,,p/rep-1,,"
			 NOCOLS NOCOST NOADDED "\n");
	/* the header is the awk sweep's, unchanged */
	ck_assert_str_eq(SWEEPCOLLECT_HEADER,
		"point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us,requests,"
		"seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,svc_p50_us,"
		"pace_p99_us,late_sends,prequeries_sent,prequeries_skipped,dir,behind_schedule,"
		"behind_reason");
}
END_TEST

/*
 * Columns are only ever appended (users' scripts index sweep.csv by
 * position): the header of the last release (the golden file of commit
 * c8d20a9, the per-state columns left out there) starts today's, with the
 * capture's columns after it as they were then.
 */
static void released_prefix(char (*cols)[64], int ncols, const char *state)
{
	static const char key[] = "sweep sweep.csv (without the per-state columns): ";
	char out[8192], old[4096];
	const char *rel = unit_slurp("tests/golden/released/csv-headers-c8d20a9.txt");
	const char *p = strstr(rel, key);
	FILE *f;
	size_t n;

	ck_assert_ptr_nonnull(p);
	p += strlen(key);
	n = strcspn(p, "\n");
	ck_assert_uint_lt(n + strlen(state) + 2, sizeof(old));
	snprintf(old, sizeof(old), "%.*s%s,", (int)n, p, state);
	f = fmemopen(out, sizeof(out), "w");
	ck_assert_int_eq(sweepcollect_header(f, cols, ncols), 0);
	fclose(f);
	ck_assert_msg(!strncmp(out, old, strlen(old)),
		      "a column was inserted: the released header\n%s\nis not the start of\n%s",
		      old, out);
}

START_TEST(released_header_prefix)
{
	char cols[2][64] = { "res_C1_pct", "entries_C1" };

	released_prefix(NULL, 0, "");
	released_prefix(cols, 2, ",res_C1_pct,entries_C1");
}
END_TEST

START_TEST(bad_summaries)
{
	struct sweepcollect_run r;

	ck_assert_int_eq(summary("", &r), -ENODATA);
	ck_assert_int_eq(summary("status,count\n", &r), -EINVAL);
	ck_assert_str_eq(err, "s.csv:2: no row after the header");
	ck_assert_int_eq(summary("status,count\nok\n", &r), -EINVAL);
	ck_assert_str_eq(err, "s.csv:2: 1 fields, the header has 2");
	ck_assert_int_eq(summary("count\n1\n", &r), -EINVAL);
	ck_assert_str_eq(err, "s.csv:1: no status column");
	ck_assert_int_eq(summary("status,count\n,1\n", &r), -EINVAL);
	ck_assert_str_eq(err, "s.csv:2: status '' is not a word");
	ck_assert_int_eq(summary("status,count\nok,12x\n", &r), -EINVAL);
	ck_assert_str_eq(err, "s.csv:2: column count: '12x' is not a number");
	ck_assert_int_eq(summary("status,lat_avg_us\nok,\"1,5\"\n", &r), -EINVAL);
	ck_assert_int_eq(summary("status,lat_avg_us\nok,\"1\n", &r), -EINVAL);
	ck_assert_str_eq(err, "s.csv:2: a stray or unterminated quote");
	ck_assert_int_eq(summary("status,behind_schedule\nok,yes\n", &r), -EINVAL);
	ck_assert_str_eq(err, "s.csv:2: column behind_schedule: 'yes' is not 0 or 1");
	ck_assert_int_eq(summary("status,count\nok,1\nok,2\n", &r), -EINVAL);
	ck_assert_str_eq(err, "s.csv:3: more than one row");
	ck_assert_int_eq(summary("status,count\nok,-1.25\n\n", &r), 0);
	/* issue 30 #6: a 1 MB line is named, not held */
	{
		size_t n = 1 << 20;
		char *big = malloc(n + 32);

		ck_assert_ptr_nonnull(big);
		strcpy(big, "status,count\n");
		memset(big + 13, '1', n);
		strcpy(big + 13 + n, "\n");
		ck_assert_int_eq(summary(big, &r), -EINVAL);
		ck_assert_str_eq(err, "s.csv:2: a line longer than 64 KiB");
		free(big);
	}
}
END_TEST

START_TEST(sources)
{
	char mt[SWEEPCOLLECT_NMT][64], mt2[SWEEPCOLLECT_NMT][64], out[2048];
	struct sweepcollect_cap cap;
	struct sweepplan_run r;
	char l[256];
	FILE *f;

	{
		static const char m[] = "requests,prequeries_sent,prequeries_raced,"
					 "backend_rtt_p50_us,prequery\n300,180,120,86.5,fixed\n";

		f = fmemopen((void *)m, sizeof(m) - 1, "r");
	}
	ck_assert_int_eq(sweepcollect_midtier(f, "m.csv", mt, err, sizeof(err)), 0);
	fclose(f);
	ck_assert_str_eq(mt[0], "300");
	ck_assert_str_eq(mt[2], "120");
	ck_assert_str_eq(mt[4], "86.5");
	ck_assert_str_eq(mt[3], "");
	f = fmemopen((void *)"requests\nx\n", 11, "r");
	ck_assert_int_eq(sweepcollect_midtier(f, "m.csv", mt2, err, sizeof(err)), -EINVAL);
	fclose(f);
	ck_assert_str_eq(err, "m.csv:2: column requests: 'x' is not a number");

	{
		const char *text = "role,cpu,irq_delta,res_POLL_pct,entries_POLL,res_haltpoll_idle_pct,"
				   "entries_haltpoll_idle,res_C0_pct,bogus,res_a;b_pct\n"
				   "server,0,34,0.0,0,99.6,32,0.4,x,1\n"
				   "other,3,1,1,1,1,1,1,1,1\n"
				   "midtier,1,28,,,,,,y,2\n";

		f = fmemopen((void *)text, strlen(text), "r");
		ck_assert_int_eq(sweepcollect_capture(f, "c.csv", &cap, err, sizeof(err)), 0);
		fclose(f);
	}
	ck_assert_str_eq(cap.irq[0], "34");
	ck_assert_str_eq(cap.irq[1], "28");
	ck_assert_int_eq(cap.n, 10);
	ck_assert_str_eq(cap.name[2], "res_haltpoll_idle_pct");
	ck_assert_str_eq(cap.val[2], "99.6");
	ck_assert_str_eq(cap.name[5], "mt_res_POLL_pct");
	ck_assert_str_eq(cap.val[5], "");
	f = fmemopen((void *)"role,res_X_pct\nserver,x\n", 23, "r");
	ck_assert_int_eq(sweepcollect_capture(f, "c.csv", &cap, err, sizeof(err)), -EINVAL);
	fclose(f);
	f = fmemopen((void *)"cpu,res_X_pct\n0,1\n", 19, "r");
	ck_assert_int_eq(sweepcollect_capture(f, "c.csv", &cap, err, sizeof(err)), -EINVAL);
	fclose(f);
	ck_assert_str_eq(err, "c.csv:1: no role column");

	/* a row with both: the named capture columns last, in COLS order */
	{
		char cols[3][64] = { "res_haltpoll_idle_pct", "mt_res_POLL_pct", "res_C6_pct" };
		const char *text = "role,cpu,irq_delta,res_POLL_pct,entries_POLL,res_haltpoll_idle_pct,"
				   "entries_haltpoll_idle,res_C0_pct\n"
				   "server,0,34,0.0,0,99.6,32,0.4\nmidtier,1,28,0.5,1,2,3,4\n";

		f = fmemopen((void *)text, strlen(text), "r");
		ck_assert_int_eq(sweepcollect_capture(f, "c.csv", &cap, err, sizeof(err)), 0);
		fclose(f);
		snprintf(l, sizeof(l), "p 1 fixed 500 off 10 off 5");
		ck_assert_int_eq(sweepplan_parse_line(l, &r, "plan.txt", 1, err, sizeof(err)), 0);
		f = fmemopen(out, sizeof(out), "w");
		ck_assert_int_eq(sweepcollect_row(f, &r, "300", 7, NULL, mt, &cap, cols, 3), 0);
		fclose(f);
		ck_assert_str_eq(out, "p,1,missing,fixed,500,off,10,off,5,300,8,,,,,,,,,,,,p/rep-1,,"
				 ",,,,,,,,,,,,,,,,,,,,,,,,300,180,120,,86.5,,,34,28,"
				 ",,,,,,,,,,,,,,,,99.6,0.5,,,0.4,,," NOADDED "\n");
		f = fmemopen(out, sizeof(out), "w");
		ck_assert_int_eq(sweepcollect_header(f, cols, 2), 0);
		fclose(f);
		ck_assert_str_eq(out, SWEEPCOLLECT_HEADER NEWCOLS
				 ",res_haltpoll_idle_pct,mt_res_POLL_pct" SWEEPCOLLECT_COST_COLS
				 ADDEDCOLS "\n");
	}
}
END_TEST

START_TEST(collect_dir)
{
	char d[] = "/tmp/wbunit-collect.XXXXXX", p[512];
	size_t rows;

	ck_assert_ptr_nonnull(mkdtemp(d));
	snprintf(p, sizeof(p), "%s/sweep.spec", d);
	unit_put(p, "# wakebench sweep\nrequests = 200\nseed = 5\n");
	snprintf(p, sizeof(p), "%s/plan.txt", d);
	unit_put(p, "b 2 exp 100 off 0 on 0\na 1 exp 100 20 0 on 0\nb 1 exp 100 off 0 on 0\n");
	snprintf(p, sizeof(p), "%s/a/rep-1/client", d);
	ck_assert_int_eq(mkdir(p, 0755) == 0 || errno == ENOENT, 1);
	snprintf(p, sizeof(p), "%s/a", d); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/rep-1", d); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/rep-1/client", d); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/rep-1/client/summary.csv", d);
	unit_put(p, "status,count,lat_avg_us\nok,200,1.5\n");
	/* its capture: the state columns found across runs end the header */
	snprintf(p, sizeof(p), "%s/a/rep-1/capture", d); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/rep-1/capture/capture.csv", d);
	unit_put(p, "role,cpu,res_C6_pct\nserver,0,12.5\n");
	snprintf(p, sizeof(p), "%s/b", d); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/b/rep-1", d); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/b/rep-1/client", d); mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/b/rep-1/client/summary.csv", d);
	unit_put(p, "");	/* empty: missing, as test -s says */
	ck_assert_int_eq(sweepcollect_dir(d, &rows, err, sizeof(err)), 0);
	ck_assert_uint_eq(rows, 3);
	snprintf(p, sizeof(p), "%s/sweep.csv", d);
	ck_assert_str_eq(unit_slurp(p), SWEEPCOLLECT_HEADER NEWCOLS ",res_C6_pct"
		SWEEPCOLLECT_COST_COLS ADDEDCOLS "\n"
		"b,2,missing,exp,100,off,0,on,0,200,7,,,,,,,,,,,,b/rep-2,," NOCOLS "," NOCOST NOADDED "\n"
		"a,1,ok,exp,100,20,0,on,0,200,6,200,1.5,,,,,,,,,,a/rep-1,," NOCOLS ",12.5" NOCOST NOADDED "\n"
		"b,1,missing,exp,100,off,0,on,0,200,6,,,,,,,,,,,,b/rep-1,," NOCOLS "," NOCOST NOADDED "\n");
	snprintf(p, sizeof(p), "%s/a/rep-1", d);
	ck_assert_int_eq(sweepcollect_run_ok(p, err, sizeof(err)), 1);
	snprintf(p, sizeof(p), "%s/b/rep-1", d);
	ck_assert_int_eq(sweepcollect_run_ok(p, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/b/rep-2", d);
	ck_assert_int_eq(sweepcollect_run_ok(p, err, sizeof(err)), 0);
	/* a malformed summary: an error naming it; sweep.csv stays as it was */
	snprintf(p, sizeof(p), "%s/b/rep-1/client/summary.csv", d);
	unit_put(p, "status,count\nok\n");
	ck_assert_int_eq(sweepcollect_dir(d, &rows, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "b/rep-1/client/summary.csv:2: 1 fields"));
	snprintf(p, sizeof(p), "%s/b/rep-1", d);
	ck_assert_int_eq(sweepcollect_run_ok(p, err, sizeof(err)), -EINVAL);
	snprintf(p, sizeof(p), "%s/sweep.csv", d);
	ck_assert_ptr_nonnull(strstr(unit_slurp(p), "b,1,missing"));
	snprintf(p, sizeof(p), "%s/.sweep.csv.partial", d);
	ck_assert_int_eq(access(p, F_OK), -1);
	/* a spec without a valid seed */
	snprintf(p, sizeof(p), "%s/sweep.spec", d);
	unit_put(p, "seed = x\n");
	ck_assert_int_eq(sweepcollect_dir(d, &rows, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "seed 'x'"));
	ck_assert_int_eq(unit_rmtree(d), 0);
}
END_TEST

/* issue 35: the cost columns, from the capture's server row and the client */
START_TEST(cost_columns)
{
	static const char capt[] =
		"role,cpu,window_s,source,irq_delta,res_POLL_pct,entries_POLL,res_C1_pct,"
		"entries_C1,res_C0_pct,cpu_us_server,cpu_us_pqserver\n"
		"server,1,2.000000,cpuidle,5,1.0,100,60.0,300,39.0000,450000,30000\n"
		"midtier,0,2.000000,cpuidle,5,1.0,7,60.0,8,39.0000,450000,30000\n";
	struct sweepcollect_cap cap;
	struct sweepcollect_run run;
	struct sweepplan_run r;
	char l[256], out[2048];
	const char *last;
	FILE *f = fmemopen((void *)capt, sizeof(capt) - 1, "r");

	ck_assert_int_eq(sweepcollect_capture(f, "c.csv", &cap, err, sizeof(err)), 0);
	fclose(f);
	ck_assert_str_eq(cap.cpu_us, "480000");
	ck_assert_str_eq(cap.c0_pct, "39.0000");
	ck_assert_str_eq(cap.entries_per_s, "200.000");	/* (100 + 300) / 2 s */
	ck_assert_int_eq(summary("status,count,msgs_per_req,bytes_per_req\nok,2300,3.000,168.000\n",
				 &run), 0);
	/* 480 ms of CPU over 2300 measured and 100 warm-up requests */
	snprintf(l, sizeof(l), "p 1 fixed 500 off 100 off 5");
	ck_assert_int_eq(sweepplan_parse_line(l, &r, "plan.txt", 1, err, sizeof(err)), 0);
	f = fmemopen(out, sizeof(out), "w");
	ck_assert_int_eq(sweepcollect_row(f, &r, "300", 7, &run, NULL, &cap, NULL, 0), 0);
	fclose(f);
	last = out + strlen(out);
	for (int k = 0; k < 9; k++)	/* the costs, then the added dimensions */
		while (last > out && *--last != ',')
			;
	ck_assert_str_eq(last, ",200.000,39.0000,200.000,3.000,168.000" NOADDED "\n");
	/* no entries (proc-stat) and no --pid: those stay empty */
	f = fmemopen((void *)"role,window_s,entries_idle,res_C0_pct\nserver,1.0,,100.0\n", 56, "r");
	ck_assert_int_eq(sweepcollect_capture(f, "c.csv", &cap, err, sizeof(err)), 0);
	fclose(f);
	ck_assert_str_eq(cap.cpu_us, "");
	ck_assert_str_eq(cap.entries_per_s, "");
	ck_assert_str_eq(cap.c0_pct, "100.0");
	/* hostile: a CPU time that is not a number names file and column */
	f = fmemopen((void *)"role,cpu_us_server\nserver,1e400x\n", 33, "r");
	ck_assert_int_eq(sweepcollect_capture(f, "c.csv", &cap, err, sizeof(err)), -EINVAL);
	fclose(f);
	ck_assert_str_eq(err, "c.csv:2: column cpu_us_server: '1e400x' is not a number");
	ck_assert_int_eq(summary("status,msgs_per_req\nok,x\n", &run), -EINVAL);
	ck_assert_str_eq(err, "s.csv:2: column msgs_per_req: 'x' is not a number");
}
END_TEST

/* figpairs_sweep on TEXT: bars and speedup into b and s */
static int pairs(const char *text, char *b, char *s)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	FILE *fb = fmemopen(b, 2048, "w"), *fs = fmemopen(s, 2048, "w");
	int ret = figpairs_sweep(f, "sum.csv", fb, fs, err, sizeof(err));

	fclose(f);
	fclose(fb);
	fclose(fs);
	return ret;
}

START_TEST(pairs_sweep)
{
	char b[2048], s[2048];
	const char *h = "point,dist,interval_us,prequery,warmup,cstates,service_us,n,"
		"avg_median_us,avg_ci_lo_us,avg_ci_hi_us,p99_median_us,p99_ci_lo_us,"
		"p99_ci_hi_us,speedup_avg,speedup_p50,speedup_p99,n_behind\n";
	char text[2048];

	snprintf(text, sizeof(text), "%s"
		 "o,exp,1000.000,off,0,on,0,5,10,9,11,20,19,21,,,,1\n"
		 "q,exp,1000,20,0,on,0,4,8,7,9,15,14,16,1.25,1.1,1.3333,2\n"
		 "z,exp,1000,30,0,on,0,0,,,,,,,,,,0\n"
		 "w,fixed,250,off,5,off,2.5,3,1,1,1,2,2,2,,,,0\n"
		 "x,fixed,250,adaptive,5,off,2.5,3,1,1,1,2,2,2,0.5,0.5,0.5,0\n"
		 "y,fixed,500,10,0,on,0,3,1,1,1,2,2,2,1,1,1,0\n", h);
	ck_assert_int_eq(pairs(text, b, s), 0);
	ck_assert_str_eq(b, "exp:1000us/pq20[!3_behind] 10 9 11 8 7 9 20 19 21 15 14 16\n"
			 "fixed:250us/wu5/cs-off/svc2.5/pqadaptive 1 1 1 1 1 1 2 2 2 2 2 2\n");
	ck_assert_str_eq(s, "exp:1000us/pq20[!3_behind] 1.25 1.1 1.3333\n"
			 "fixed:250us/wu5/cs-off/svc2.5/pqadaptive 0.5 0.5 0.5\n");
	ck_assert_int_eq(pairs("point,n\n", b, s), -EINVAL);
	ck_assert_str_eq(err, "sum.csv has no dist, interval_us or prequery column");
}
END_TEST

/* Three tiers: the midtier's delay is the pre-query, and points that
 * differ in another dimension (cpu here) are not merged into one bar. */
START_TEST(pairs_three_tiers)
{
	char b[2048], s[2048], text[2048];
	const char *h = "point,dist,interval_us,prequery,warmup,cstates,service_us,n,"
		"avg_median_us,avg_ci_lo_us,avg_ci_hi_us,p99_median_us,p99_ci_lo_us,"
		"p99_ci_hi_us,speedup_avg,speedup_p50,speedup_p99,n_behind,tiers,cpu,"
		"delay,helper_wait,server_cstates,prequery_at\n";

	snprintf(text, sizeof(text), "%s"
		 "a,exp,1000,off,0,on,900,3,10,9,11,20,19,21,,,,0,3,pinned,off,,on,\n"
		 "b,exp,1000,off,0,on,900,3,8,7,9,15,14,16,1.25,1.1,1.3,0,3,pinned,50,block,on,\n"
		 "c,exp,1000,off,0,on,900,3,12,11,13,30,29,31,,,,0,3,none,off,,on,\n"
		 "d,exp,1000,off,0,on,900,3,6,5,7,10,9,11,2,2,3,0,3,none,50,spin,on,\n"
		 "e,exp,1000,off,0,on,0,3,5,5,5,5,5,5,,,,0,2,pinned,,,off,\n"
		 "f,exp,1000,10,0,on,0,3,4,4,4,4,4,4,1.2,1.2,1.2,0,2,pinned,,,off,gap-start\n",
		 h);
	ck_assert_int_eq(pairs(text, b, s), 0);
	ck_assert_str_eq(b, "exp:1000us/svc900/tiers-3/delay50 10 9 11 8 7 9 20 19 21 15 14 16\n"
			 "exp:1000us/svc900/tiers-3/cpu-none/delay50/hw-spin 12 11 13 6 5 7 30 29 31 10 9 11\n"
			 "exp:1000us/scs-off/pq10/at-gap-start 5 5 5 4 4 4 5 5 5 4 4 4\n");
	ck_assert_str_eq(s, "exp:1000us/svc900/tiers-3/delay50 1.25 1.1 1.3\n"
			 "exp:1000us/svc900/tiers-3/cpu-none/delay50/hw-spin 2 2 3\n"
			 "exp:1000us/scs-off/pq10/at-gap-start 1.2 1.2 1.2\n");
}
END_TEST

START_TEST(pairs_runs)
{
	char d[] = "/tmp/wbunit-pairs.XXXXXX", p[3][512], b[2048], s[2048];
	char *paths[3] = { p[0], p[1], p[2] };
	const char *h = "status,dist,interval_us,prequery,prequery_lead_us,lat_avg_us,"
		"lat_p50_us,lat_p99_us\n";
	FILE *fb, *fs;

	ck_assert_ptr_nonnull(mkdtemp(d));
	for (int i = 0; i < 3; i++)
		snprintf(p[i], sizeof(p[i]), "%s/s%d.csv", d, i);
	unit_put(p[0], "status,dist,interval_us,prequery,prequery_lead_us,lat_avg_us,lat_p50_us,"
	    "lat_p99_us\nok,exp,200.000,off,,30,20,100\n");
	snprintf(b, sizeof(b), "%sok,exp,200.000,fixed,20.500,25,16,0\n", h);
	unit_put(p[1], b);
	snprintf(b, sizeof(b), "%sok,exp,200,adaptive,128.125,3,7,400\n", h);
	unit_put(p[2], b);
	fb = fmemopen(b, sizeof(b), "w");
	fs = fmemopen(s, sizeof(s), "w");
	ck_assert_int_eq(figpairs_runs(paths, 3, fb, fs, err, sizeof(err)), 0);
	fclose(fb);
	fclose(fs);
	ck_assert_str_eq(b, "exp:200us/fixed-20.5us 30 30 30 25 25 25 100 100 100 0 0 0\n"
			 "exp:200us/adaptive 30 30 30 3 3 3 100 100 100 400 400 400\n");
	ck_assert_str_eq(s, "exp:200us/fixed-20.5us 1.2 1.25 inf\n"
			 "exp:200us/adaptive 10 2.85714 0.25\n");
	snprintf(p[0], sizeof(p[0]), "%s/none.csv", d);
	fb = fmemopen(b, sizeof(b), "w");
	fs = fmemopen(s, sizeof(s), "w");
	ck_assert_int_eq(figpairs_runs(paths, 1, fb, fs, err, sizeof(err)), -ENOENT);
	fclose(fb);
	fclose(fs);
	ck_assert_ptr_nonnull(strstr(err, "none.csv"));
	ck_assert_int_eq(unit_rmtree(d), 0);
}
END_TEST

START_TEST(awk_numbers)
{
	char b[64];
	const struct { double v; const char *s; } t[] = {
		{ 0, "0" }, { -0.0, "0" }, { 2, "2" }, { 0.25, "0.25" }, { 1.0 / 3, "0.333333" },
		{ 2147483647.0, "2147483647" }, { 2147483648.0, "2.14748e+09" }, { 1e20, "1e+20" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		figpairs_num(t[i].v, b, sizeof(b));
		ck_assert_str_eq(b, t[i].s);
	}
}
END_TEST

Suite *sweepcollect_suite(void)
{
	Suite *s = suite_create("sweepcollect");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, collect_rows);
	tcase_add_test(tc, released_header_prefix);
	tcase_add_test(tc, cost_columns);
	tcase_add_test(tc, bad_summaries);
	tcase_add_test(tc, sources);
	tcase_add_test(tc, collect_dir);
	tcase_add_test(tc, pairs_sweep);
	tcase_add_test(tc, pairs_three_tiers);
	tcase_add_test(tc, pairs_runs);
	tcase_add_test(tc, awk_numbers);
	suite_add_tcase(s, tc);
	return s;
}
