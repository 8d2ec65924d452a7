// SPDX-License-Identifier: GPL-2.0
/*
 * lib/sweepagent: a run shared by client agents; lib/sweepmerge: their
 * results merged into one run (wakebench stats --merge).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "csvread.h"
#include "sweepagent.h"
#include "sweepmerge.h"

START_TEST(split)
{
	struct sweepagent_in in = {
		.n = 3, .seed = 7, .interval_us = 1000, .requests = 10, .warmup = 5,
		.start_ns = 1000000000,
	};
	struct sweepagent a[3];
	uint64_t reqs = 0, wu = 0;

	for (unsigned k = 0; k < 3; k++) {
		ck_assert_int_eq(sweepagent_split(&in, k, &a[k]), 0);
		reqs += a[k].requests;
		wu += a[k].warmup;
		/* rate/3 each: the aggregate is the configured rate */
		ck_assert_double_eq_tol(a[k].interval_us, 3000, 1e-9);
		ck_assert_double_eq_tol(a[k].warmup_interval_us, 0, 1e-9);
		/* one configured gap after the previous agent */
		ck_assert_int_eq(a[k].start_at_ns, 1000000000 + (int64_t)k * 1000000);
	}
	ck_assert_uint_eq(a[0].requests, 4);
	ck_assert_uint_eq(a[1].requests, 3);
	ck_assert_uint_eq(a[2].requests, 3);
	ck_assert_uint_eq(reqs, 10);
	ck_assert_uint_eq(a[0].warmup, 2);
	ck_assert_uint_eq(a[2].warmup, 1);
	ck_assert_uint_eq(wu, 5);
	/* agent 0 keeps the run's seed; the others are 2^32 apart */
	ck_assert_uint_eq(a[0].seed, 7);
	ck_assert_uint_eq(a[1].seed, 7 + (UINT64_C(1) << 32));
	ck_assert_uint_eq(a[2].seed, 7 + (UINT64_C(2) << 32));
	/* a duration: each agent's whole; a warm-up gap scales too */
	in.requests = 0;
	in.warmup_interval_us = 10000;
	ck_assert_int_eq(sweepagent_split(&in, 1, &a[1]), 0);
	ck_assert_uint_eq(a[1].requests, 0);
	ck_assert_double_eq_tol(a[1].warmup_interval_us, 30000, 1e-9);
	/* one agent: the run as it was */
	in.n = 1;
	in.requests = 10;
	ck_assert_int_eq(sweepagent_split(&in, 0, &a[0]), 0);
	ck_assert_uint_eq(a[0].requests, 10);
	ck_assert_double_eq_tol(a[0].interval_us, 1000, 1e-9);
	ck_assert_uint_eq(a[0].seed, 7);
	/* refused */
	ck_assert_int_eq(sweepagent_split(&in, 1, &a[0]), -EINVAL);
	in.n = 11;
	ck_assert_int_eq(sweepagent_split(&in, 0, &a[0]), -EINVAL);	/* 10 < 11 */
	in.n = 2;
	in.interval_us = 0;
	ck_assert_int_eq(sweepagent_split(&in, 0, &a[0]), -EINVAL);
	in.interval_us = 1;
	in.seed = UINT64_MAX;
	ck_assert_int_eq(sweepagent_split(&in, 1, &a[0]), -EINVAL);
}
END_TEST

START_TEST(us_text)
{
	char b[32];

	ck_assert_int_eq(sweepagent_us(2000, b, sizeof(b)), 0);
	ck_assert_str_eq(b, "2000");
	ck_assert_int_eq(sweepagent_us(666.66666666, b, sizeof(b)), 0);
	ck_assert_str_eq(b, "666.666667");
	ck_assert_int_eq(sweepagent_us(0.5, b, sizeof(b)), 0);
	ck_assert_str_eq(b, "0.5");
	/* never an exponent */
	ck_assert_int_eq(sweepagent_us(2e10, b, sizeof(b)), 0);
	ck_assert_str_eq(b, "20000000000");
	ck_assert_int_eq(sweepagent_us(2e10, b, 8), -ERANGE);
	ck_assert_int_eq(sweepagent_us(-1, b, sizeof(b)), -ERANGE);
}
END_TEST

/* ---- merge ---------------------------------------------------------- */

static char dir[64], err[1024];

/* The client's columns that matter here, in a client's order. */
#define SUMMARY_HDR \
	"status,count,errors,unanswered,lat_min_us,lat_avg_us,lat_p50_us,lat_p90_us," \
	"lat_p99_us,lat_p999_us,lat_max_us,svc_p50_us,pace_p99_us,rate_target," \
	"rate_achieved,late_sends,prequeries_sent,dist,interval_us,seed,warmup," \
	"cstates,behind_schedule,behind_reason,lat_p95_us,lat_p9999_us,gets," \
	"energy_j,power_w,energy_per_request_uj,lat_stddev_us"
#define REQ_HDR "seq,intended_ns,sent_ns,recv_ns,latency_ns,service_ns,status"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static char *path(const char *a, const char *b)
{
	static char p[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s%s%s", dir, a, b ? "/" : "", b ? b : "");
	return p[i];
}

/*
 * Agent NAME with latencies LAT (us, ok rows), NERR error rows and
 * NUNANS unanswered ones, and a summary row SUMROW after "status,count,
 * errors,unanswered," (the rest of SUMMARY_HDR's columns).
 */
static void agent(const char *name, const int *lat, int n, int nerr, int nun,
		  const char *sumrow)
{
	char buf[65536], row[4096];
	size_t o = 0;
	int seq = 0;

	ck_assert_int_eq(mkdir(path(name, NULL), 0755), 0);
	o += (size_t)snprintf(buf + o, sizeof(buf) - o, REQ_HDR "\n");
	for (int i = 0; i < n; i++, seq++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o,
				      "%d,%d,%d,%d,%d,%d,ok\n", seq, 1000 * seq,
				      1000 * seq + 3000, 1000 * seq + lat[i] * 1000,
				      lat[i] * 1000, lat[i] * 1000 - 3000);
	for (int i = 0; i < nerr; i++, seq++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o,
				      "%d,%d,%d,%d,%d,%d,error\n", seq, 1000 * seq,
				      1000 * seq + 5000, 1000 * seq + 9000, 9000, 4000);
	for (int i = 0; i < nun; i++, seq++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o,
				      "%d,%d,%d,,,,unanswered\n", seq, 1000 * seq,
				      1000 * seq + 1000);
	put(path(name, "requests.csv"), buf);
	snprintf(row, sizeof(row), SUMMARY_HDR "\nok,%d,%d,%d,%s\n", n, nerr, nun, sumrow);
	put(path(name, "summary.csv"), row);
}

/* column COL of OUTDIR/summary.csv's row */
static const char *merged(const char *col)
{
	static char line[2][8192], val[64];
	char *h[256], *v[256];
	FILE *f = fopen(path("out", "summary.csv"), "r");
	int nh, c;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line[0], sizeof(line[0]), f));
	ck_assert_ptr_nonnull(fgets(line[1], sizeof(line[1]), f));
	fclose(f);
	nh = csvr_split(line[0], h, 256);
	ck_assert_int_eq(csvr_split(line[1], v, 256), nh);
	c = csvr_col(h, nh, col);
	ck_assert_msg(c >= 0, "no column %s", col);
	snprintf(val, sizeof(val), "%s", v[c]);
	return val;
}

static int merge2(enum hist_rule rule, size_t exact_max)
{
	const char *dirs[] = { path("a1", NULL), path("a2", NULL) };
	struct sweepmerge_opts o = { .rule = rule, .exact_max = exact_max };
	char a[256], b[256];

	snprintf(a, sizeof(a), "%s", dirs[0]);
	snprintf(b, sizeof(b), "%s", dirs[1]);
	dirs[0] = a;
	dirs[1] = b;
	return sweepmerge_dirs(path("out", NULL), dirs, 2, &o, err, sizeof(err));
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/wbmerge.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* the two agents of the merge tests: 5 and 4 answered requests */
static const int lat1[] = { 10, 50, 30, 20, 40 }, lat2[] = { 15, 35, 25, 45 };
#define ROW1 "1,1,1,1,1,1,1,1,1,500.000,480.500,1,3,exp,2000.000,7,3,on,0," \
	     "\"ok, fine\",1,1,,1.5,2.0,3.0,9.9"
#define ROW2 "1,1,1,1,1,1,1,1,1,500.000,470.250,2,4,exp,2000.000,4294967303,2," \
	     "off,1,late,1,1,,2.5,3.0,4.0,8.8"

START_TEST(merge_exact)
{
	char line[512];
	FILE *f;
	int rows = 0, agent2 = 0;

	agent("a1", lat1, 5, 1, 0, ROW1);
	agent("a2", lat2, 4, 0, 2, ROW2);
	ck_assert_msg(merge2(HIST_NEAREST_RANK, 0) == 0, "%s", err);
	/* counts summed */
	ck_assert_str_eq(merged("count"), "9");
	ck_assert_str_eq(merged("errors"), "1");
	ck_assert_str_eq(merged("unanswered"), "2");
	ck_assert_str_eq(merged("late_sends"), "3");
	ck_assert_str_eq(merged("prequeries_sent"), "7");
	ck_assert_str_eq(merged("warmup"), "5");
	ck_assert_str_eq(merged("gets"), "");	/* empty in every agent */
	/* the percentiles of all 9 latencies (10..50 us), nearest rank */
	ck_assert_str_eq(merged("lat_min_us"), "10.000");
	ck_assert_str_eq(merged("lat_max_us"), "50.000");
	ck_assert_str_eq(merged("lat_avg_us"), "30.000");
	/* the sample standard deviation of the nine: sqrt(1500 / 8) */
	ck_assert_str_eq(merged("lat_stddev_us"), "13.693");
	ck_assert_str_eq(merged("lat_p50_us"), "30.000");	/* rank 5 of 9 */
	ck_assert_str_eq(merged("lat_p90_us"), "50.000");	/* rank 9 */
	ck_assert_str_eq(merged("lat_p95_us"), "50.000");
	ck_assert_str_eq(merged("svc_p50_us"), "27.000");	/* latency - 3 us */
	/* pacing: 3 us for ok rows, 5 for the error, 1 for unanswered: 12 */
	ck_assert_str_eq(merged("pace_p99_us"), "5.000");
	/* rates summed, the aggregate gap, the first agent's seed */
	ck_assert_str_eq(merged("rate_target"), "1000.000");
	ck_assert_str_eq(merged("rate_achieved"), "950.750");
	ck_assert_str_eq(merged("interval_us"), "1000.000");
	ck_assert_str_eq(merged("seed"), "7");
	/* equal: copied; different: empty; energy: per host, empty */
	ck_assert_str_eq(merged("dist"), "exp");
	ck_assert_str_eq(merged("cstates"), "");
	ck_assert_str_eq(merged("energy_j"), "");
	ck_assert_str_eq(merged("power_w"), "");
	/* behind when any agent is, and which */
	ck_assert_str_eq(merged("behind_schedule"), "1");
	ck_assert_str_eq(merged("behind_reason"), "agent 2: late");
	ck_assert_str_eq(merged("status"), "ok");
	ck_assert_str_eq(merged("agents"), "2");
	ck_assert_str_eq(merged("percentiles_exact"), "1");
	/* requests.csv: every row, agent last */
	f = fopen(path("out", "requests.csv"), "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_str_eq(line, REQ_HDR ",agent\n");
	while (fgets(line, sizeof(line), f)) {
		rows++;
		agent2 += strstr(line, ",2\n") != NULL;
	}
	fclose(f);
	ck_assert_int_eq(rows, 6 + 6);
	ck_assert_int_eq(agent2, 6);
	ck_assert_int_eq(access(path("out", "agents.csv"), R_OK), 0);
	ck_assert_int_eq(access(path("out", "summary.json"), R_OK), 0);
	ck_assert_int_eq(access(path("out", "summary.txt"), R_OK), 0);
	/* merged again: replaced */
	ck_assert_msg(merge2(HIST_NEAREST_RANK, 0) == 0, "%s", err);
	/* the thesis' rule: index floor(p * n) */
	ck_assert_msg(merge2(HIST_FLOOR_INDEX, 0) == 0, "%s", err);
	ck_assert_str_eq(merged("lat_p50_us"), "30.000");	/* index 4 */
	ck_assert_str_eq(merged("lat_p90_us"), "50.000");
	/* past the bound on exact samples: the histogram's, and said */
	ck_assert_msg(merge2(HIST_NEAREST_RANK, 4) == 0, "%s", err);
	ck_assert_str_eq(merged("percentiles_exact"), "0");
}
END_TEST

/* a client that says whether its percentiles are exact: the merge says
 * it of its own, in the same columns, not appended twice */
START_TEST(merge_client_exact)
{
	static const char hdr[] = "status,count,errors,unanswered,lat_p50_us,raw,raw_rows,"
				  "threads,percentiles_exact,percentile_rel_error\n";
	char t[512];

	agent("a1", lat1, 5, 0, 0, "1,all,5,1,0,0.00390625");
	agent("a2", lat2, 4, 0, 0, "1,all,4,1,1,0.00000000");
	snprintf(t, sizeof(t), "%sok,5,0,0,1,all,5,1,0,0.00390625\n", hdr);
	put(path("a1", "summary.csv"), t);
	snprintf(t, sizeof(t), "%sok,4,0,0,1,all,4,1,1,0.00000000\n", hdr);
	put(path("a2", "summary.csv"), t);
	ck_assert_msg(merge2(HIST_NEAREST_RANK, 0) == 0, "%s", err);
	ck_assert_str_eq(merged("percentiles_exact"), "1");
	ck_assert_str_eq(merged("percentile_rel_error"), "0.00000000");
	ck_assert_str_eq(merged("raw_rows"), "9");
	ck_assert_str_eq(merged("raw"), "all");
	ck_assert_str_eq(merged("lat_p50_us"), "30.000");
	ck_assert_str_eq(merged("agents"), "2");
	{
		FILE *f = fopen(path("out", "summary.csv"), "r");
		char h[1024];

		ck_assert_ptr_nonnull(fgets(h, sizeof(h), f));
		fclose(f);
		ck_assert_str_eq(h, "status,count,errors,unanswered,lat_p50_us,raw,raw_rows,"
				 "threads,percentiles_exact,percentile_rel_error,agents\n");
	}
}
END_TEST

/* a failed agent makes the run failed; interrupted ranks below */
START_TEST(merge_status)
{
	agent("a1", lat1, 5, 0, 0, ROW1);
	agent("a2", lat2, 4, 0, 0, ROW2);
	put(path("a2", "summary.csv"), SUMMARY_HDR "\ninterrupted,4,0,0," ROW2 "\n");
	ck_assert_msg(merge2(HIST_NEAREST_RANK, 0) == 0, "%s", err);
	ck_assert_str_eq(merged("status"), "interrupted");
	put(path("a1", "summary.csv"), SUMMARY_HDR "\nfailed,5,0,0," ROW1 "\n");
	ck_assert_msg(merge2(HIST_NEAREST_RANK, 0) == 0, "%s", err);
	ck_assert_str_eq(merged("status"), "failed");
}
END_TEST

START_TEST(merge_errors)
{
	agent("a1", lat1, 5, 0, 0, ROW1);
	agent("a2", lat2, 4, 0, 0, ROW2);
	/* rows missing (a sample kept): no exact merge */
	put(path("a2", "summary.csv"), SUMMARY_HDR "\nok,40,0,0," ROW2 "\n");
	ck_assert_int_eq(merge2(HIST_NEAREST_RANK, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "agent 2: requests.csv has 4 rows of status ok, its summary.csv count 40: rows are missing"));
	ck_assert_int_eq(access(path("out", "summary.csv"), F_OK), -1);
	/* another client version */
	put(path("a2", "summary.csv"), "status,count,x\nok,4,1\n");
	ck_assert_int_eq(merge2(HIST_NEAREST_RANK, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "a2/summary.csv: other columns than agent 1's"));
	put(path("a2", "summary.csv"), SUMMARY_HDR "\nok,4,0,0," ROW2 "\n");
	put(path("a2", "requests.csv"), "seq,intended_ns,sent_ns,status\n");
	ck_assert_int_eq(merge2(HIST_NEAREST_RANK, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "a2/requests.csv:1: other columns"));
	/* hostile rows: named by file and line */
	put(path("a2", "requests.csv"), REQ_HDR "\n0,1,2,3,4,5,ok\n1,5,2,9,4,5,ok\n");
	ck_assert_int_eq(merge2(HIST_NEAREST_RANK, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "a2/requests.csv:3: sent_ns before intended_ns"));
	put(path("a2", "requests.csv"), REQ_HDR "\n0,1,2,3,x,5,ok\n");
	ck_assert_int_eq(merge2(HIST_NEAREST_RANK, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "a2/requests.csv:2: latency_ns:"));
	put(path("a2", "requests.csv"), REQ_HDR "\n0,1,2,3,4,5,maybe\n");
	ck_assert_int_eq(merge2(HIST_NEAREST_RANK, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "a2/requests.csv:2: status 'maybe'"));
	put(path("a2", "requests.csv"), REQ_HDR "\n0,1,2\n");
	ck_assert_int_eq(merge2(HIST_NEAREST_RANK, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "a2/requests.csv:2: 3 fields, the header has 7"));
	put(path("a2", "summary.csv"), SUMMARY_HDR "\n");
	ck_assert_int_eq(merge2(HIST_NEAREST_RANK, 0), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "no row after the header"));
	/* a client that kept a sample of its rows: said so, not counted */
	put(path("a1", "summary.csv"), "status,count,errors,unanswered,raw\nok,5,0,0,sample:10\n");
	put(path("a2", "summary.csv"), "status,count,errors,unanswered,raw\nok,4,0,0,all\n");
	ck_assert_int_eq(merge2(HIST_NEAREST_RANK, 0), -EINVAL);
	ck_assert_str_eq(err, "agent 1 kept requests.csv rows 'sample:10': an exact merge needs every row (the client's --raw all)");
	unlink(path("a2", "summary.csv"));
	ck_assert_int_eq(merge2(HIST_NEAREST_RANK, 0), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "cannot read"));
	ck_assert_int_eq(access(path("out", "summary.csv"), F_OK), -1);
}
END_TEST

Suite *sweepmerge_suite(void)
{
	Suite *s = suite_create("sweepmerge");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, split);
	tcase_add_test(tc, us_text);
	tcase_add_test(tc, merge_exact);
	tcase_add_test(tc, merge_status);
	tcase_add_test(tc, merge_client_exact);
	tcase_add_test(tc, merge_errors);
	suite_add_tcase(s, tc);
	return s;
}
