// SPDX-License-Identifier: GPL-2.0
/* lib/sweepcsv: the sweep.csv reader of wakebench stats. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "sweepcsv.h"

#define HDR "point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us," \
	"requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us," \
	"svc_p50_us,pace_p99_us,late_sends,prequeries_sent,prequeries_skipped,dir"

static char err[512];

static int read_text(const char *text, struct sweepcsv *c)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ck_assert_ptr_nonnull(f);
	err[0] = '\0';
	ret = sweepcsv_read(f, "s.csv", c, err, sizeof(err));
	fclose(f);
	return ret;
}

START_TEST(ok_rows)
{
	struct sweepcsv c;
	const char *text =
		HDR "\n"
		"a,1,ok,exp,1000,off,0,on,0,1000,2,1000,10,11,12,13,14,1,0.5,0,0,0,a/rep-1\n"
		"\n"
		"a,2,missing,exp,1000,off,0,on,0,1000,3,,,,,,,,,,,,a/rep-2\n"
		"\"b,x\",1,ok,fixed,1000,20,0,on,0,1000,2,1000,1e1,2.5,3,4,5,1,0.5,500,0,0,b/rep-1\r\n";

	ck_assert_int_eq(read_text(text, &c), 0);
	ck_assert_uint_eq(c.n, 2);
	ck_assert_str_eq(c.run[0].point, "a");
	ck_assert_str_eq(c.run[0].rep, "1");
	ck_assert_str_eq(c.run[0].param[SWEEPCSV_PREQUERY], "off");
	ck_assert_str_eq(c.run[0].param[6], "1000");
	ck_assert(c.run[0].val[1] == 11 && c.run[0].val[3] == 14);
	ck_assert_int_eq(c.run[0].behind, 0);
	ck_assert_str_eq(c.run[1].point, "b,x");
	ck_assert(c.run[1].val[0] == 10);
	ck_assert_int_eq(c.run[1].behind, 1);	/* 50 % of sends late */
	ck_assert_ptr_nonnull(strstr(c.run[1].why, "50.0 % of sends late"));
	ck_assert_uint_eq(c.run[1].line, 5);
	sweepcsv_free(&c);
}
END_TEST

/* issue 35: the cost columns are metrics, NAN where empty or absent */
START_TEST(cost_metrics)
{
	struct sweepcsv c;
	const char *text =
		HDR ",cost_cpu_us_per_req,cost_c0_pct,cost_idle_entries_per_s,"
		"cost_msgs_per_req,cost_bytes_per_req\n"
		"a,1,ok,exp,1000,off,0,on,0,1000,2,1000,10,11,12,13,14,1,0.5,0,0,0,a/rep-1,"
		"201.5,22.25,950.000,3.000,168\n"
		"a,2,ok,exp,1000,off,0,on,0,1000,2,1000,10,11,12,13,14,1,0.5,0,0,0,a/rep-2,"
		",100.0000,,,\n";
	int m0 = SWEEPCSV_NCOST_FROM;

	ck_assert_str_eq(sweepcsv_metric_cols[m0], "cost_cpu_us_per_req");
	ck_assert_str_eq(sweepcsv_metric_cols[SWEEPCSV_NMETRICS - 1], "cost_bytes_per_req");
	ck_assert_int_eq(read_text(text, &c), 0);
	ck_assert(c.run[0].val[m0] == 201.5 && c.run[0].val[m0 + 1] == 22.25);
	ck_assert(c.run[0].val[m0 + 2] == 950 && c.run[0].val[m0 + 3] == 3 &&
		  c.run[0].val[m0 + 4] == 168);
	ck_assert(isnan(c.run[1].val[m0]) && c.run[1].val[m0 + 1] == 100);
	ck_assert(isnan(c.run[1].val[m0 + 4]));
	sweepcsv_free(&c);
	/* without the columns (an older sweep): NAN, not an error */
	ck_assert_int_eq(read_text(HDR "\na,1,ok,exp,1000,off,0,on,0,1000,2,1000,10,11,12,"
				   "13,14,1,0.5,0,0,0,a/rep-1\n", &c), 0);
	ck_assert(isnan(c.run[0].val[m0]));
	sweepcsv_free(&c);
	/* a cost that is not a number names its column */
	ck_assert_int_eq(read_text(HDR ",cost_c0_pct\na,1,ok,exp,1000,off,0,on,0,1000,2,1000,"
				   "10,11,12,13,14,1,0.5,0,0,0,a/rep-1,x\n", &c), -EINVAL);
	ck_assert_str_eq(err, "s.csv:2: column cost_c0_pct: 'x' is not a non-negative number");
}
END_TEST

START_TEST(client_verdict)
{
	struct sweepcsv c;
	const char *text =
		HDR ",behind_schedule,behind_reason\n"
		"a,1,ok,exp,1000,off,0,on,0,1000,2,1000,1,1,1,1,1,1,0.5,0,0,0,a/rep-1,1,slow\n"
		"a,2,ok,exp,1000,off,0,on,0,1000,2,1000,1,1,1,1,1,1,0.5,900,0,0,a/rep-2,0,\n";

	ck_assert_int_eq(read_text(text, &c), 0);
	ck_assert_int_eq(c.run[0].behind, 1);
	ck_assert_str_eq(c.run[0].why, "slow");
	ck_assert_int_eq(c.run[1].behind, 0);	/* the client's word wins */
	sweepcsv_free(&c);
	ck_assert_int_eq(read_text(HDR ",behind_schedule\n"
				   "a,1,ok,exp,1000,off,0,on,0,1000,2,1000,1,1,1,1,1,1,0.5,0,0,0,a,2\n",
				   &c), -EINVAL);
	ck_assert_str_eq(err, "s.csv:2: column behind_schedule: '2' is not 0 or 1");
}
END_TEST

START_TEST(unchecked)
{
	struct sweepcsv c;

	ck_assert_int_eq(read_text("point,status,lat_avg_us,lat_p50_us,lat_p99_us,lat_p999_us\n"
				   "a,ok,1,2,3,4\n", &c), 0);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.run[0].behind, -1);
	ck_assert_str_eq(c.run[0].rep, "?");
	ck_assert_str_eq(c.run[0].param[0], "");
	sweepcsv_free(&c);
}
END_TEST

START_TEST(errors)
{
	static const struct { const char *text, *msg; int ret; } cases[] = {
		{ "", "s.csv is empty", -ENODATA },
		{ "point,status\n", "s.csv has no column lat_avg_us", -EINVAL },
		{ "lat_avg_us,lat_p50_us,lat_p99_us,lat_p999_us\n",
		  "s.csv has no point or status column", -EINVAL },
		{ HDR "\nz,1,ok,exp\n", "s.csv:2: 4 fields, the header has 23", -EINVAL },
		{ HDR "\n\"z,1\n", "s.csv:2: unterminated quoted field", -EINVAL },
		{ HDR "\n\"z\"x,1\n", "s.csv:2: text after a quoted field", -EINVAL },
		{ "\"point\n", "s.csv:1: unterminated quoted field", -EINVAL },
		{ HDR "\nz,1,ok,exp,1000,off,0,on,0,1000,2,1000,nan,1,1,1,1,1,0.5,0,0,0,z\n",
		  "s.csv:2: column lat_avg_us: 'nan' is not a non-negative number", -EINVAL },
		{ HDR "\nz,1,ok,exp,1000,off,0,on,0,1000,2,1000,1,-80,1,1,1,1,0.5,0,0,0,z\n",
		  "s.csv:2: column lat_p50_us: '-80' is not", -EINVAL },
		{ HDR "\nz,1,ok,exp,1000,off,0,on,0,1000,2,1000,1,1,1,1e999,1,1,0.5,0,0,0,z\n",
		  "s.csv:2: column lat_p99_us: '1e999' is not", -EINVAL },
		{ HDR "\nz,1,ok,exp,1000,off,0,on,0,1000,2,1000,1,1,1,1,0x50,1,0.5,0,0,0,z\n",
		  "s.csv:2: column lat_p999_us: '0x50' is not", -EINVAL },
		{ HDR "\nz,1,ok,exp,1000,off,0,on,0,1000,2,1000,1,1,1,1,1,1,0.5,x,0,0,z\n",
		  "s.csv:2: column late_sends: 'x' is not", -EINVAL },
		{ HDR "\nz,1,ok,exp,1000,off,0,on,0,10,2,1000,1,1,1,1,1,1,0.5,11,0,0,z\n",
		  "s.csv:2: late_sends 11 of requests 10 is not a run", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct sweepcsv c;

		ck_assert_int_eq(read_text(cases[i].text, &c), cases[i].ret);
		ck_assert_msg(!strncmp(err, cases[i].msg, strlen(cases[i].msg)),
			      "case %zu: '%s'", i, err);
		ck_assert_uint_eq(c.n, 0);
	}
}
END_TEST

/* More than 512 fields is an error, not an overflow. */
START_TEST(wide)
{
	char text[2048] = "point";
	struct sweepcsv c;

	for (int i = 0; i < 520; i++)
		strcat(text, ",x");
	strcat(text, "\n");
	ck_assert_int_eq(read_text(text, &c), -EINVAL);
	ck_assert_str_eq(err, "s.csv:1: more than 512 fields");
}
END_TEST

/* the closing table's order: not applicable, off, numbers, words */
/* issue 31: each run's own CI of a percentile, NAN where it could not be
 * bounded (empty) or where the file has no such columns */
START_TEST(within_ci)
{
	struct sweepcsv c;
	const char *text =
		HDR ",lat_p99_lo_us,lat_p99_hi_us\n"
		"a,1,ok,exp,1000,off,0,on,0,1000,2,1000,1,1,1,10,1,1,0.5,0,0,0,a/rep-1,9.5,12\n"
		"a,2,ok,exp,1000,off,0,on,0,1000,2,1000,1,1,1,10,1,1,0.5,0,0,0,a/rep-2,,\n";

	ck_assert_int_eq(read_text(text, &c), 0);
	ck_assert_int_eq(c.has_ci[2], 1);
	ck_assert_int_eq(c.has_ci[1], 0);
	ck_assert(c.run[0].lo[2] == 9.5 && c.run[0].hi[2] == 12);
	ck_assert(isnan(c.run[1].lo[2]) && isnan(c.run[1].hi[2]));
	ck_assert(isnan(c.run[0].lo[1]));
	sweepcsv_free(&c);
	ck_assert_int_eq(read_text(HDR ",lat_p99_lo_us,lat_p99_hi_us\n"
		"a,1,ok,exp,1000,off,0,on,0,1000,2,1000,1,1,1,10,1,1,0.5,0,0,0,a/rep-1,x,12\n",
		&c), -EINVAL);
	ck_assert_str_eq(err, "s.csv:2: column lat_p99_lo_us: 'x' is not a non-negative number");
}
END_TEST

START_TEST(value_order)
{
	static const char *const sorted[] = {
		"", "-", "off", "0", "2.5", "20", "100", "1000", "adaptive", "exp",
		"fixed", "poisson",
	};
	size_t n = sizeof(sorted) / sizeof(*sorted);

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int c = sweepcsv_value_cmp(sorted[i], sorted[j]);

			ck_assert_msg(i < j ? c < 0 : i > j ? c > 0 : c == 0,
				      "'%s' vs '%s': %d", sorted[i], sorted[j], c);
		}
	/* equal numbers written differently: still an order */
	ck_assert_int_gt(sweepcsv_value_cmp("1.0", "1"), 0);
}
END_TEST

Suite *sweepcsv_suite(void)
{
	Suite *s = suite_create("sweepcsv");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ok_rows);
	tcase_add_test(tc, client_verdict);
	tcase_add_test(tc, unchecked);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, wide);
	tcase_add_test(tc, value_order);
	tcase_add_test(tc, within_ci);
	tcase_add_test(tc, cost_metrics);
	suite_add_tcase(s, tc);
	return s;
}
