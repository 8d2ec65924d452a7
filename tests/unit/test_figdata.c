// SPDX-License-Identifier: GPL-2.0
/*
 * The data of wakebench report's figures and pages: lib/csvtable,
 * lib/figcfg, lib/figgp, lib/figsum, lib/figdist, lib/figtrace,
 * lib/figtraj, lib/figtable, lib/jsonflat, lib/cfgdiff, lib/figref.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "cfgdiff.h"
#include "csv.h"
#include "csvtable.h"
#include "figcfg.h"
#include "figdist.h"
#include "figgp.h"
#include "figref.h"
#include "figsum.h"
#include "figtable.h"
#include "figtrace.h"
#include "figtraj.h"
#include "figwake.h"
#include "jsonflat.h"
#include "figplane.h"

static char err[2048];
static char dir[64];

/* A scratch directory per test. */
static void mkscratch(void)
{
	snprintf(dir, sizeof(dir), "/tmp/wb-figdata-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static const char *path_of(const char *rel)
{
	static char p[16][512];
	static int k;

	k = (k + 1) % 16;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, rel);
	return p[k];
}

static void put(const char *rel, const char *text)
{
	char p[512], *s;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	/* the directories on the way */
	for (s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	unit_put(p, text);
}

/* A memory stream and its text. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *mopen(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	ck_assert_ptr_nonnull(m->f);
	return m->f;
}

static char *mtext(struct mem *m)
{
	fclose(m->f);
	return m->buf;
}

/* ---- csvtable ------------------------------------------------------------ */

START_TEST(csvtable_rows)
{
	struct csvtable t;
	const char *text = "a,b,c\n1,\"x,y\",2.5\n\n3\r\n4,,-1e3\n";
	double v;

	ck_assert_int_eq(csvtable_parse(text, strlen(text), "t.csv", &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_str_eq(csvtable_get(&t, 0, csvtable_col(&t, "b")), "x,y");
	/* a short row reads "" in its missing fields */
	ck_assert_str_eq(csvtable_get(&t, 1, 2), "");
	ck_assert_str_eq(csvtable_get(&t, 1, csvtable_col(&t, "nope")), "");
	ck_assert_int_eq(csvtable_getnum(&t, 2, 2, &v, err, sizeof(err)), 1);
	ck_assert(v == -1000);
	ck_assert_int_eq(csvtable_getnum(&t, 2, 1, &v, err, sizeof(err)), 0);
	ck_assert_int_eq(csvtable_getnum(&t, 0, 1, &v, err, sizeof(err)), -EINVAL);
	/* the line in the file, the blank one counted */
	ck_assert_str_eq(err, "t.csv:2: column 'b': 'x,y' is not a number");
	ck_assert_uint_eq(t.ln[2], 5);
	csvtable_free(&t);
	ck_assert_int_eq(csvtable_parse("a\n\"x\n", 5, "q.csv", &t, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "q.csv:2: a stray quote");
	ck_assert_int_eq(csvtable_parse("", 0, "e.csv", &t, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(csvtable_parse("a\0b", 3, "z.csv", &t, err, sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(csvtable_numbers)
{
	double v;

	ck_assert_int_eq(csvtable_num("12", &v), 0);
	ck_assert(v == 12);
	ck_assert_int_eq(csvtable_num(".5", &v), 0);
	ck_assert_int_eq(csvtable_num("-0.25e-2", &v), 0);
	ck_assert(fabs(v + 0.0025) < 1e-12);
	ck_assert_int_eq(csvtable_num("", &v), -EINVAL);
	ck_assert_int_eq(csvtable_num(" 1", &v), -EINVAL);
	ck_assert_int_eq(csvtable_num("1 ", &v), -EINVAL);
	ck_assert_int_eq(csvtable_num("0x10", &v), -EINVAL);
	ck_assert_int_eq(csvtable_num("inf", &v), -EINVAL);
	ck_assert_int_eq(csvtable_num("nan", &v), -EINVAL);
	ck_assert_int_eq(csvtable_num("1e999", &v), -EINVAL);
	ck_assert_int_eq(csvtable_num("off", &v), -EINVAL);
}
END_TEST

/* ---- figcfg -------------------------------------------------------------- */

static void cfg(struct figcfg *c, const char *dist, const char *iv, const char *pq)
{
	const char *p[FIGCFG_NPARAMS] = { dist, iv, pq };

	figcfg_from_params(c, p);
}

START_TEST(figcfg_words_and_order)
{
	struct figcfg a, b, c[3];
	unsigned char mask[FIGCFG_NPARAMS];
	char w[256];

	cfg(&a, "exp", "5000.000", "50");
	figcfg_words(&a, NULL, FIGCFG_W_PQ, w, sizeof(w));
	ck_assert_str_eq(w, "exp 5 ms, lead 50 µs");
	cfg(&a, "fixed", "250", "off");
	figcfg_words(&a, NULL, FIGCFG_W_PQ, w, sizeof(w));
	ck_assert_str_eq(w, "fixed 250 µs, no pre-query");
	cfg(&a, "poisson", "1500", "adaptive");
	figcfg_words(&a, NULL, FIGCFG_W_PQ | FIGCFG_W_NOGAP, w, sizeof(w));
	ck_assert_str_eq(w, "adaptive lead");
	/* three tiers: the midtier's delay is the pre-query */
	snprintf(a.v[7], FIGCFG_VLEN, "3");
	snprintf(a.v[18], FIGCFG_VLEN, "20");
	figcfg_words(&a, NULL, FIGCFG_W_PQ, w, sizeof(w));
	ck_assert_str_eq(w, "poisson 1.5 ms, delay 20 µs");
	/* what varies is named; "" (a file without the column) is not a value */
	cfg(&c[0], "exp", "1000", "off");
	cfg(&c[1], "exp", "1000", "50");
	cfg(&c[2], "exp", "2000", "off");
	snprintf(c[0].v[4], FIGCFG_VLEN, "on");
	snprintf(c[1].v[4], FIGCFG_VLEN, "off");
	snprintf(c[1].v[5], FIGCFG_VLEN, "20");
	figcfg_varying(c, 3, mask);
	ck_assert_int_eq(mask[FIGCFG_INTERVAL], 1);
	ck_assert_int_eq(mask[FIGCFG_DIST], 0);
	ck_assert_int_eq(mask[4], 1);
	ck_assert_int_eq(mask[5], 0);
	figcfg_words(&c[1], mask, FIGCFG_W_PQ, w, sizeof(w));
	ck_assert_str_eq(w, "exp 1 ms, C-states off, lead 50 µs");
	/* issue 35's haltpoll window is named (sweepcsv's column 25) */
	snprintf(c[1].v[25], FIGCFG_VLEN, "100000");
	mask[25] = 1;
	figcfg_words(&c[1], mask, FIGCFG_W_PQ, w, sizeof(w));
	ck_assert_str_eq(w, "exp 1 ms, C-states off, haltpoll window 100000 ns, lead 50 µs");
	ck_assert_str_eq(sweepcsv_params[25], "haltpoll_ns");
	/* order: distribution, gap as a number, pre-query ("off" first) */
	cfg(&a, "exp", "10000", "off");
	cfg(&b, "exp", "2000", "off");
	ck_assert_int_gt(figcfg_cmp(&a, &b), 0);
	cfg(&a, "exp", "2000", "300");
	cfg(&b, "exp", "2000", "50");
	ck_assert_int_gt(figcfg_cmp(&a, &b), 0);
	cfg(&a, "exp", "2000", "off");
	ck_assert_int_lt(figcfg_cmp(&a, &b), 0);
	cfg(&a, "fixed", "100", "off");
	ck_assert_int_gt(figcfg_cmp(&a, &b), 0);
	ck_assert(figcfg_is_off(&a));
	ck_assert(!figcfg_is_off(&b));
	snprintf(c[2].v[4], FIGCFG_VLEN, "on");
	ck_assert(figcfg_same_except(&c[0], &c[2], FIGCFG_INTERVAL));
	ck_assert(!figcfg_same_except(&c[0], &c[1], FIGCFG_PREQUERY));
}
END_TEST

START_TEST(figcfg_client_summary)
{
	struct csvtable t;
	struct figcfg c;
	const char *text = "status,dist,interval_us,prequery,prequery_lead_us,closed,proto,cstates\n"
			   "ok,exp,200.000,fixed,50.000,1,memcached,off\n";

	ck_assert_int_eq(csvtable_parse(text, strlen(text), "s", &t, err, sizeof(err)), 0);
	figcfg_from_client_row(&c, &t, 0);
	csvtable_free(&t);
	ck_assert_str_eq(c.v[FIGCFG_INTERVAL], "200");
	ck_assert_str_eq(c.v[FIGCFG_PREQUERY], "50");
	ck_assert_str_eq(c.v[8], "yes");
	ck_assert_str_eq(c.v[21], "memcached");
	ck_assert_str_eq(c.v[4], "off");
}
END_TEST

/* ---- figgp --------------------------------------------------------------- */

START_TEST(figgp_quoting)
{
	struct mem m;
	FILE *f = mopen(&m);

	figgp_label(f, "a \"b\"\tc");
	fputc('\n', f);
	figgp_var_str(f, "x", "it's 'q'\n");
	figgp_var_num(f, "n", NAN);
	figgp_array(f, "a", 0);
	figgp_elem_num(f, "a", 1, 2.5);
	ck_assert_str_eq(mtext(&m), "\"a 'b'?c\"\nx = 'it''s ''q''?'\nn = NaN\n"
			 "array a[1]\na[1] = 2.5\n");
	free(m.buf);
	ck_assert_uint_eq(figgp_chars("5 µs"), 4);
}
END_TEST

/* ---- figsum -------------------------------------------------------------- */

#define SUM_HDR "point,dist,interval_us,prequery,warmup,cstates,service_us,n," \
	"avg_median_us,avg_ci_lo_us,avg_ci_hi_us,p50_median_us,p50_ci_lo_us,p50_ci_hi_us," \
	"p99_median_us,p99_ci_lo_us,p99_ci_hi_us,n_behind,ci_label," \
	"energy_per_request_median_uj,energy_per_request_ci_lo_uj,energy_per_request_ci_hi_uj," \
	"power_median_w,power_ci_lo_w,power_ci_hi_w\n"

/* figure 2's paired columns where a pair has no paired effect */
#define NOPAIRED " NaN NaN NaN NaN NaN NaN NaN NaN NaN"

/* issue 31: a sweep point's paired effect (stats' paired_* columns) is
 * drawn against its own sweep's baseline only, and tabulated. */
#define PAIRED_HDR "point,dist,interval_us,prequery,warmup,cstates,service_us,n," \
	"avg_median_us,avg_ci_lo_us,avg_ci_hi_us,p50_median_us,p50_ci_lo_us,p50_ci_hi_us," \
	"p99_median_us,p99_ci_lo_us,p99_ci_hi_us,n_behind,ci_label,baseline,paired_n," \
	"paired_speedup_avg,paired_speedup_avg_lo,paired_speedup_avg_hi,paired_verdict_avg," \
	"paired_speedup_p50,paired_speedup_p50_lo,paired_speedup_p50_hi,paired_verdict_p50," \
	"paired_speedup_p99,paired_speedup_p99_lo,paired_speedup_p99_hi,paired_verdict_p99," \
	"paired_ci_coverage\n"

START_TEST(figsum_paired)
{
	struct figsum s;
	struct mem b, sp, v;
	struct csv *c;
	char *st, *vt;
	const char *pt;

	mkscratch();
	put("sum.csv", PAIRED_HDR
	    "a,exp,1000,off,0,on,0,9,100,90,110,100,90,110,200,150,250,0,x,,,,,,,,,,,,,,,\n"
	    "b,exp,1000,50,0,on,0,9,50,40,120,35,30,200,200,150,250,0,x,prequery=off,9,"
	    "2,1.5,2.5,faster,2.857,2.5,3.125,faster,1,0.9,1.1,undecided,0.9609\n"
	    "c,exp,2000,off,0,on,0,5,100,90,110,100,90,110,200,150,250,0,x,,,,,,,,,,,,,,,\n"
	    /* 5 pairs: a ratio, no interval */
	    "d,exp,2000,50,0,on,0,5,50,40,120,35,30,200,200,150,250,0,x,prequery=off,5,"
	    "2,,,undecided,3,,,undecided,1,,,undecided,0.9375\n"
	    /* another baseline: not figure 2's comparison */
	    "e,exp,4000,off,0,on,0,9,100,90,110,100,90,110,200,150,250,0,x,,,,,,,,,,,,,,,\n"
	    "f,exp,4000,50,0,on,0,9,50,40,120,35,30,200,200,150,250,0,x,cstates=off,9,"
	    "2,1.5,2.5,faster,2.857,2.5,3.125,faster,1,0.9,1.1,undecided,0.9609\n");
	figsum_init(&s);
	ck_assert_int_eq(figsum_add_sweep(&s, path_of("sum.csv"), figsum_side(&s, "x"),
					  err, sizeof(err)), 0);
	mopen(&b);
	mopen(&sp);
	mopen(&v);
	ck_assert_int_eq(figsum_write_pairs(&s, b.f, sp.f, v.f), 3);
	free(mtext(&b));
	st = mtext(&sp);
	vt = mtext(&v);
	ck_assert_str_eq(st,
		"0 \"exp 1 ms, lead 50 µs\" 2 2.85714 1 1 1 1 2 1.5 2.5 2.857 2.5 3.125 1 0.9 1.1\n"
		"1 \"exp 2 ms, lead 50 µs\" 2 2.85714 1 1 1 1 2 NaN NaN 3 NaN NaN 1 NaN NaN\n"
		"2 \"exp 4 ms, lead 50 µs\" 2 2.85714 1 1 1 1" NOPAIRED "\n");
	ck_assert_ptr_nonnull(strstr(vt, "npaired = 1\n"));
	free(st);
	free(vt);
	c = csv_open(path_of("paired.csv"));
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(figsum_write_paired(&s, c), 2);
	ck_assert_int_eq(csv_close(c), 0);
	pt = unit_slurp(path_of("paired.csv"));
	ck_assert_str_eq(pt, "configuration,pairs,coverage,avg,p50,p99\n"
		"\"exp 1 ms, lead 50 µs\",9,0.9609,\"2.000 [1.500, 2.500] faster\","
		"\"2.857 [2.500, 3.125] faster\",\"1.000 [0.900, 1.100] undecided at n=9\"\n"
		"\"exp 2 ms, lead 50 µs\",5,,2.000 [-] undecided at n=5,"
		"3.000 [-] undecided at n=5,1.000 [-] undecided at n=5\n");
	/* a second sweep's off point: another comparison, no paired effect */
	figsum_free(&s);
	figsum_init(&s);
	put("off.csv", PAIRED_HDR
	    "a,exp,1000,off,0,on,0,9,100,90,110,100,90,110,200,150,250,0,x,,,,,,,,,,,,,,,\n");
	put("on.csv", PAIRED_HDR
	    "b,exp,1000,50,0,on,0,9,50,40,120,35,30,200,200,150,250,0,x,prequery=off,9,"
	    "2,1.5,2.5,faster,2.857,2.5,3.125,faster,1,0.9,1.1,undecided,0.9609\n");
	ck_assert_int_eq(figsum_add_sweep(&s, path_of("off.csv"), figsum_side(&s, "x"),
					  err, sizeof(err)), 0);
	ck_assert_int_eq(figsum_add_sweep(&s, path_of("on.csv"), figsum_side(&s, "x"),
					  err, sizeof(err)), 0);
	mopen(&b);
	mopen(&sp);
	mopen(&v);
	ck_assert_int_eq(figsum_write_pairs(&s, b.f, sp.f, v.f), 1);
	free(mtext(&b));
	free(mtext(&v));
	st = mtext(&sp);
	ck_assert_ptr_nonnull(strstr(st, NOPAIRED "\n"));
	free(st);
	figsum_free(&s);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* figref_read of TEXT: its return, the message in err. */
static int ref_of(const char *text, struct figref *r)
{
	put("ref.csv", text);
	err[0] = '\0';
	return figref_read(path_of("ref.csv"), r, err, sizeof(err));
}

/* issue 31: reference speedups (wakebench report --reference), read
 * strictly: every bad row named by FILE:LINE. */
START_TEST(figref_parse)
{
	struct figref r;
	char src[256];
	const char *e;

	mkscratch();
	ck_assert_int_eq(ref_of("point,metric,value,source\n"
				"b,avg,1.967,\"thesis table 5.3 (100 ms gaps)\"\n"
				"b,p99,1.099,thesis table 5.3 (100 ms gaps)\n"
				"\n"
				"d,p50,2e0,thesis table 5.5\n", &r), 0);
	ck_assert_uint_eq(r.n, 3);
	ck_assert_str_eq(r.row[0].point, "b");
	ck_assert_int_eq(r.row[0].metric, FIGREF_AVG);
	ck_assert_double_eq(r.row[0].value, 1.967);
	ck_assert_str_eq(r.row[0].source, "thesis table 5.3 (100 ms gaps)");
	ck_assert_uint_eq(r.row[2].line, 5);
	ck_assert_ptr_eq(figref_find(&r, "b", FIGREF_P99), &r.row[1]);
	ck_assert_ptr_null(figref_find(&r, "b", FIGREF_P50));
	ck_assert_ptr_null(figref_find(&r, "B", FIGREF_AVG));
	ck_assert_uint_eq(figref_sources(&r, 0, src, sizeof(src)), 2);
	ck_assert_str_eq(src, "thesis table 5.3 (100 ms gaps); thesis table 5.5");
	r.row[2].used = 1;
	ck_assert_uint_eq(figref_sources(&r, 1, src, sizeof(src)), 1);
	ck_assert_str_eq(src, "thesis table 5.5");
	figref_free(&r);

	/* each bad file: -EINVAL, FILE:LINE and the cause */
	ck_assert_int_eq(ref_of("point,metric,value,source\nb,avg,2,x\nb,p90,2,x\n", &r), -EINVAL);
	e = strstr(err, "ref.csv:3: the metric is not avg, p50 or p99: 'p90'");
	ck_assert_msg(e, "%s", err);
	ck_assert_int_eq(ref_of("point,metric,value,source\nb,avg,1.9x,x\n", &r), -EINVAL);
	ck_assert_msg(strstr(err, "ref.csv:2: the value is not a number: '1.9x'"), "%s", err);
	ck_assert_int_eq(ref_of("point,metric,value,source\nb,avg,nan,x\n", &r), -EINVAL);
	ck_assert_int_eq(ref_of("point,metric,value,source\nb,avg,0,x\n", &r), -EINVAL);
	ck_assert_msg(strstr(err, "ref.csv:2: the value is not a positive speedup: '0'"), "%s", err);
	ck_assert_int_eq(ref_of("point,metric,value,source\nb,avg,-2,x\n", &r), -EINVAL);
	/* a missing column: in the header, or in a row */
	ck_assert_int_eq(ref_of("point,metric,value\nb,avg,2\n", &r), -EINVAL);
	ck_assert_msg(strstr(err, "ref.csv:1: the header must be point,metric,value,source"),
		      "%s", err);
	ck_assert_int_eq(ref_of("point,metric,value,source\nb,avg,2,x\nc,avg,2\n", &r), -EINVAL);
	ck_assert_msg(strstr(err, "ref.csv:3: 3 fields, not 4"), "%s", err);
	ck_assert_int_eq(ref_of("point,metric,value,source\nb,avg,2,x,y\n", &r), -EINVAL);
	ck_assert_msg(strstr(err, "ref.csv:2: 5 fields, not 4"), "%s", err);
	ck_assert_int_eq(ref_of("point,metric,value,source\nb,avg,2,\n", &r), -EINVAL);
	ck_assert_msg(strstr(err, "ref.csv:2: an empty source"), "%s", err);
	ck_assert_int_eq(ref_of("point,metric,value,source\n,avg,2,x\n", &r), -EINVAL);
	ck_assert_msg(strstr(err, "ref.csv:2: an empty point"), "%s", err);
	/* the same point and metric twice, whatever the value */
	ck_assert_int_eq(ref_of("point,metric,value,source\nb,avg,2,x\nb,p99,2,x\n"
				"b,avg,2.5,y\n", &r), -EINVAL);
	ck_assert_msg(strstr(err, "ref.csv:4: avg of point 'b' again (line 2 has it)"), "%s", err);
	ck_assert_int_eq(ref_of("point,metric,value,source\n", &r), -EINVAL);
	ck_assert_msg(strstr(err, "no reference row"), "%s", err);
	/* opened as every input: no symbolic link */
	ck_assert_int_eq(ref_of("point,metric,value,source\nb,avg,2,x\n", &r), 0);
	figref_free(&r);
	ck_assert_int_eq(symlink(path_of("ref.csv"), path_of("link.csv")), 0);
	ck_assert_int_eq(figref_read(path_of("link.csv"), &r, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "link.csv"), "%s", err);
	ck_assert_int_eq(figref_read(path_of("none.csv"), &r, err, sizeof(err)), -ENOENT);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* The references of the pairs' points on figure 2 and in paired.csv;
 * none without a reference file. */
START_TEST(figsum_reference)
{
	struct figsum s;
	struct figref r;
	struct mem b, sp, v;
	struct csv *c;
	char *st, *vt;
	const char *pt;

	mkscratch();
	put("sum.csv", PAIRED_HDR
	    "a,exp,1000,off,0,on,0,9,100,90,110,100,90,110,200,150,250,0,x,,,,,,,,,,,,,,,\n"
	    "b,exp,1000,50,0,on,0,9,50,40,120,35,30,200,200,150,250,0,x,prequery=off,9,"
	    "2,1.5,2.5,faster,2.857,2.5,3.125,faster,1,0.9,1.1,undecided,0.9609\n"
	    "c,exp,2000,off,0,on,0,5,100,90,110,100,90,110,200,150,250,0,x,,,,,,,,,,,,,,,\n"
	    "d,exp,2000,50,0,on,0,5,50,40,120,35,30,200,200,150,250,0,x,prequery=off,5,"
	    "2,,,undecided,3,,,undecided,1,,,undecided,0.9375\n");
	ck_assert_int_eq(ref_of("point,metric,value,source\n"
				"b,avg,1.967,t5.3\nb,p99,1.099,t5.3\nd,p50,2.5,t5.5 p50\n"
				"d,avg,2.25,t5.5\nd,p99,1.5,t5.5\n"
				/* the baseline has no bar; z no point */
				"a,avg,1,t0\nz,p50,3,t9\n", &r), 0);
	figsum_init(&s);
	ck_assert_int_eq(figsum_add_sweep(&s, path_of("sum.csv"), figsum_side(&s, "x"),
					  err, sizeof(err)), 0);
	s.ref = &r;
	mopen(&b);
	mopen(&sp);
	mopen(&v);
	ck_assert_int_eq(figsum_write_pairs(&s, b.f, sp.f, v.f), 2);
	free(mtext(&b));
	st = mtext(&sp);
	vt = mtext(&v);
	ck_assert_str_eq(st,
		"0 \"exp 1 ms, lead 50 µs\" 2 2.85714 1 1 1 1 2 1.5 2.5 2.857 2.5 3.125 1 0.9 1.1"
		" 1.967 NaN 1.099\n"
		"1 \"exp 2 ms, lead 50 µs\" 2 2.85714 1 1 1 1 2 NaN NaN 3 NaN NaN 1 NaN NaN"
		" 2.25 2.5 1.5\n");
	ck_assert_msg(strstr(vt, "nref = 5\nrefsrc = 't5.3; t5.5 p50; t5.5'\n"), "%s", vt);
	free(st);
	free(vt);
	ck_assert(r.row[0].used && r.row[4].used);
	ck_assert(!r.row[5].used && !r.row[6].used);
	c = csv_open(path_of("paired.csv"));
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(figsum_write_paired(&s, c), 2);
	ck_assert_int_eq(csv_close(c), 0);
	pt = unit_slurp(path_of("paired.csv"));
	ck_assert_msg(strstr(pt, "configuration,pairs,coverage,avg,p50,p99,reference\n"), "%s", pt);
	ck_assert_msg(strstr(pt, "undecided at n=9\",\"avg 1.967, p99 1.099: t5.3\"\n"), "%s", pt);
	ck_assert_msg(strstr(pt, "undecided at n=5,\"avg 2.25, p99 1.5: t5.5; p50 2.5: t5.5 p50\"\n"),
		      "%s", pt);
	/* without a reference: no column, no variable */
	s.ref = NULL;
	mopen(&b);
	mopen(&sp);
	mopen(&v);
	ck_assert_int_eq(figsum_write_pairs(&s, b.f, sp.f, v.f), 2);
	free(mtext(&b));
	st = mtext(&sp);
	vt = mtext(&v);
	ck_assert_ptr_null(strstr(st, "1.967"));
	ck_assert_ptr_null(strstr(vt, "nref"));
	free(st);
	free(vt);
	figsum_free(&s);
	figref_free(&r);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

START_TEST(figsum_pairs_from_a_sweep)
{
	struct figsum s;
	struct mem b, sp, v;
	char *bt, *st, *vt;

	mkscratch();
	put("sum.csv", SUM_HDR
	    /* the off point of exp 10 ms; its lead-50 point overlaps it in p50 */
	    "a,exp,10000,off,0,on,0,5,100,90,110,80,70,90,400,300,500,0,93.8 % CI (min-max of n=5),200,190,210,1,0.9,1.1\n"
	    "b,exp,10000,50,0,on,0,5,80,75,85,75,72,78,300,250,350,1,93.8 % CI (min-max of n=5),250,240,260,1.2,1.1,1.3\n"
	    "c,exp,1000,off,0,on,0,5,60,50,70,50,45,55,200,150,250,0,93.8 % CI (min-max of n=5),,,,,,\n"
	    "d,exp,1000,50,0,on,0,5,50,40,55,40,38,44,150,120,170,0,93.8 % CI (min-max of n=5),,,,,,\n"
	    /* no run in its medians: left out */
	    "e,exp,500,50,0,on,0,0,,,,,,,,,,0,,,,,,,\n");
	figsum_init(&s);
	ck_assert_int_eq(figsum_add_sweep(&s, path_of("sum.csv"), figsum_side(&s, "x"),
					  err, sizeof(err)), 0);
	ck_assert_uint_eq(s.n, 4);
	mopen(&b);
	mopen(&sp);
	mopen(&v);
	ck_assert_int_eq(figsum_write_pairs(&s, b.f, sp.f, v.f), 2);
	bt = mtext(&b);
	st = mtext(&sp);
	vt = mtext(&v);
	/* sorted by the gap as a number: 1 ms before 10 ms; p50 columns */
	ck_assert_str_eq(bt,
		"0 \"exp 1 ms, lead 50 µs\" 5 5 60 50 70 50 40 55 50 45 55 40 38 44 200 150 250 150 120 170\n"
		"1 \"exp 10 ms, lead 50 µs [!1_behind]\" 5 5 100 90 110 80 75 85 80 70 90 75 72 78 400 300 500 300 250 350\n");
	/* speedups: the ratio of medians; 1 where the intervals overlap */
	ck_assert_str_eq(st,
		"0 \"exp 1 ms, lead 50 µs\" 1.2 1.25 1.33333 1 0 1" NOPAIRED "\n"
		"1 \"exp 10 ms, lead 50 µs [!1_behind]\" 1.25 1.06667 1.33333 0 1 1" NOPAIRED "\n");
	ck_assert_ptr_nonnull(strstr(vt, "npairs = 2\n"));
	ck_assert_ptr_nonnull(strstr(vt, "cilabel = '93.8 % CI (min-max of n=5)'\n"));
	ck_assert_ptr_nonnull(strstr(vt, "minmax = 1\n"));
	free(bt);
	free(st);
	free(vt);
	/* energy: the one pair that has it */
	mopen(&b);
	mopen(&v);
	ck_assert_int_eq(figsum_write_energy(&s, b.f, v.f), 1);
	bt = mtext(&b);
	ck_assert_str_eq(bt, "0 \"exp 10 ms, lead 50 µs [!1_behind]\" 5 5 200 190 210 250 240 260 "
			 "1 0.9 1.1 1.2 1.1 1.3\n");
	free(bt);
	free(mtext(&v));
	figsum_free(&s);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* Figure 14 (issue 35): the points by cost, each sweep's own fronts, a
 * point without a cost left out, labels from what varies (the new
 * dimensions named), the energy on x when no point has a CPU time. */
#define PLANE_HDR "point,dist,interval_us,prequery,server_busy_poll,n,ci_label," \
	"p50_median_us,p50_ci_lo_us,p50_ci_hi_us,p99_median_us,p99_ci_lo_us,p99_ci_hi_us," \
	"cost_cpu_per_req_median_us,cost_cpu_per_req_ci_lo_us,cost_cpu_per_req_ci_hi_us," \
	"energy_per_request_median_uj,energy_per_request_ci_lo_uj,energy_per_request_ci_hi_uj\n"
START_TEST(figplane_front_and_labels)
{
	struct figplane fp;
	struct mem d, f, v;
	char *dt, *ft, *vt;
	size_t nout = 9;

	mkscratch();
	put("a.csv", PLANE_HDR
	    "off,exp,1000,off,no,5,93.8 % CI,100,90,110,1000,900,1100,30,28,32,,,\n"
	    "bp,exp,1000,off,yes,5,93.8 % CI,60,50,70,2000,1500,2500,600,500,700,,,\n"
	    "pq,exp,1000,100,no,5,93.8 % CI,50,45,55,900,800,950,50,45,55,,,\n"
	    "nocost,exp,1000,100,yes,5,93.8 % CI,10,9,11,90,80,95,,,,,,\n"
	    "none,exp,1000,100,yes,0,,,,,,,,,,,,,\n");
	put("b.csv", PLANE_HDR
	    "x,exp,1000,off,no,3,75.0 % CI,100,90,110,1000,900,1100,,,,7,6,8\n");
	figplane_init(&fp);
	ck_assert_int_eq(figplane_add_sweep(&fp, path_of("a.csv"), "A", err, sizeof(err)), 0);
	ck_assert_uint_eq(fp.n, 4);
	mopen(&d);
	mopen(&f);
	mopen(&v);
	ck_assert_int_eq(figplane_write(&fp, d.f, f.f, v.f, &nout), 3);
	dt = mtext(&d);
	ft = mtext(&f);
	vt = mtext(&v);
	ck_assert_uint_eq(nout, 1);
	/* by cost; off (the cheapest) and pq on both fronts, bp dearer and
	 * slower than pq on both; labels: what varies */
	ck_assert_str_eq(dt,
		"30 28 32 100 90 110 1000 900 1100 1 1 \"blocking server, no pre-query\" 0 1\n"
		"50 45 55 50 45 55 900 800 950 1 1 \"blocking server, lead 100 µs\" 1 2\n"
		"600 500 700 60 50 70 2000 1500 2500 0 0 \"busy-polling server, no pre-query\" 0 3\n");
	ck_assert_str_eq(ft, "30 100\n50 50\n\n\n30 1000\n50 900\n");
	ck_assert_ptr_nonnull(strstr(vt, "nsrc = 1\n"));
	ck_assert_ptr_nonnull(strstr(vt, "sname[1] = 'A'\n"));
	/* 600 / 30 = 20: not more than 20, a linear axis */
	ck_assert_ptr_nonnull(strstr(vt, "xlog = 0\n"));
	ck_assert_ptr_nonnull(strstr(vt, "xlabel = 'server-side CPU time per request (µs)'\n"));
	/* the numbered key */
	ck_assert_ptr_nonnull(strstr(vt, "npts = 3\n"));
	ck_assert_ptr_nonnull(strstr(vt, "plab[3] = '3 busy-polling server, no pre-query'\n"));
	free(dt);
	free(ft);
	free(vt);
	figplane_free(&fp);
	/* no CPU time anywhere: the energy */
	figplane_init(&fp);
	ck_assert_int_eq(figplane_add_sweep(&fp, path_of("b.csv"), "B", err, sizeof(err)), 0);
	mopen(&d);
	mopen(&f);
	mopen(&v);
	ck_assert_int_eq(figplane_write(&fp, d.f, f.f, v.f, &nout), 1);
	dt = mtext(&d);
	free(mtext(&f));
	vt = mtext(&v);
	ck_assert_str_eq(dt, "7 6 8 100 90 110 1000 900 1100 1 1 \"no pre-query\" 0 1\n");
	ck_assert_ptr_nonnull(strstr(vt, "xlabel = 'energy per request (µJ, RAPL)'\n"));
	ck_assert_ptr_nonnull(strstr(vt, "xlog = 0\n"));
	free(dt);
	free(vt);
	figplane_free(&fp);
	/* the tiers' C-states that follow cstates are not said again */
	put("e.csv", "point,dist,interval_us,prequery,cstates,server_cstates,client_cstates,n,"
	    "p50_median_us,cost_cpu_per_req_median_us\n"
	    "a,exp,1000,off,on,on,on,5,10,30\n"
	    "b,exp,1000,off,off,off,off,5,9,31\n");
	figplane_init(&fp);
	ck_assert_int_eq(figplane_add_sweep(&fp, path_of("e.csv"), "E", err, sizeof(err)), 0);
	mopen(&d);
	mopen(&f);
	mopen(&v);
	ck_assert_int_eq(figplane_write(&fp, d.f, f.f, v.f, &nout), 2);
	free(mtext(&d));
	free(mtext(&f));
	vt = mtext(&v);
	ck_assert_ptr_nonnull(strstr(vt, "plab[2] = '2 C-states off, no pre-query'\n"));
	free(vt);
	figplane_free(&fp);
	/* not a summary; a malformed number names the file and line */
	put("c.csv", "a,b\n1,2\n");
	ck_assert_int_eq(figplane_add_sweep(&fp, path_of("c.csv"), "C", err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a wakebench stats summary"));
	put("d.csv", PLANE_HDR "x,exp,1000,off,no,3,,1x,,,,,,,,,,,\n");
	ck_assert_int_eq(figplane_add_sweep(&fp, path_of("d.csv"), "D", err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "d.csv:2"));
	figplane_free(&fp);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* A real sweep's off point has "" where the pre-query's own options do
 * not apply (collapsed): it is still the lead point's baseline. */
START_TEST(figsum_pairs_collapsed)
{
	struct figsum s;
	struct mem b, sp, v;

	mkscratch();
	put("sum.csv", "point,dist,interval_us,prequery,warmup,cstates,service_us,n,"
	    "avg_median_us,avg_ci_lo_us,avg_ci_hi_us,p50_median_us,p50_ci_lo_us,p50_ci_hi_us,"
	    "p99_median_us,p99_ci_lo_us,p99_ci_hi_us,n_behind,ci_label,tiers,closed,"
	    "prequery_at,prequery_ack,prequery_receiver,warmup_mode\n"
	    "a,exp,5000,off,20,on,20,6,100,90,110,80,70,90,400,300,500,0,x,2,no,,,,schedule\n"
	    "b,exp,5000,100,20,on,20,6,80,75,85,75,72,78,300,250,350,0,x,2,no,lead,no,server,schedule\n"
	    /* another warm-up mode: not the same experiment */
	    "c,exp,5000,100,20,on,20,6,80,75,85,75,72,78,300,250,350,0,x,2,no,lead,no,server,burst\n");
	figsum_init(&s);
	ck_assert_int_eq(figsum_add_sweep(&s, path_of("sum.csv"), figsum_side(&s, "x"),
					  err, sizeof(err)), 0);
	mopen(&b);
	mopen(&sp);
	mopen(&v);
	ck_assert_int_eq(figsum_write_pairs(&s, b.f, sp.f, v.f), 1);
	free(mtext(&b));
	free(mtext(&sp));
	free(mtext(&v));
	figsum_free(&s);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* Figure 7: one series per full configuration, not per pre-query: at one
 * load a fixed and an exp point are two lines. */
START_TEST(figsum_load_series)
{
	struct figsum s;
	struct mem d, v;
	size_t nloads;
	char *dt, *vt;

	mkscratch();
	put("sum.csv", SUM_HDR
	    "a,exp,1000,off,0,on,0,3,1,1,1,10,9,11,20,19,21,0,x,,,,,,\n"
	    "b,exp,2000,off,0,on,0,3,1,1,1,12,11,13,22,21,23,0,x,,,,,,\n"
	    "c,fixed,1000,off,0,on,0,3,1,1,1,14,13,15,24,23,25,0,x,,,,,,\n"
	    "d,fixed,2000,off,0,on,0,3,1,1,1,16,15,17,26,25,27,0,x,,,,,,\n");
	figsum_init(&s);
	ck_assert_int_eq(figsum_add_sweep(&s, path_of("sum.csv"), figsum_side(&s, "x"),
					  err, sizeof(err)), 0);
	mopen(&d);
	mopen(&v);
	ck_assert_int_eq(figsum_write_load(&s, d.f, v.f, &nloads), 2);
	dt = mtext(&d);
	vt = mtext(&v);
	ck_assert_uint_eq(nloads, 2);
	/* two series, loads ascending, x shifted either side of the load */
	ck_assert_str_eq(dt,
		"500 491.439 12 11 13 22 21 23 3\n"
		"1000 982.879 10 9 11 20 19 21 3\n"
		"\n\n"
		"500 508.71 16 15 17 26 25 27 3\n"
		"1000 1017.42 14 13 15 24 23 25 3\n");
	ck_assert_ptr_nonnull(strstr(vt, "names[1] = 'exp, no pre-query'\n"));
	ck_assert_ptr_nonnull(strstr(vt, "names[2] = 'fixed, no pre-query'\n"));
	free(dt);
	free(vt);
	figsum_free(&s);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* Single runs: paired within their side, else with the one other side
 * that has the baseline; a run behind schedule left out unless asked. */
START_TEST(figsum_runs_and_sides)
{
	struct figsum s;
	struct mem b, sp, v;
	char *bt;
	const char *h = "status,lat_avg_us,lat_p50_us,lat_p99_us,dist,interval_us,prequery,"
			"prequery_lead_us,behind_schedule,energy_per_request_uj,power_w\n";
	char text[512];

	mkscratch();
	snprintf(text, sizeof(text), "%sok,100,90,300,exp,5000.000,off,,0,,\n", h);
	put("a/off/summary.csv", text);
	snprintf(text, sizeof(text), "%sok,80,60,200,exp,5000.000,fixed,100.000,0,,\n", h);
	put("b/on/summary.csv", text);
	snprintf(text, sizeof(text), "%sok,70,50,150,exp,5000.000,fixed,100.000,1,,\n", h);
	put("b/late/summary.csv", text);
	figsum_init(&s);
	ck_assert_int_eq(figsum_add_run(&s, path_of("a/off/summary.csv"), figsum_side(&s, "A"),
					0, err, sizeof(err)), 0);
	ck_assert_int_eq(figsum_add_run(&s, path_of("b/on/summary.csv"), figsum_side(&s, "B"),
					0, err, sizeof(err)), 0);
	ck_assert_int_eq(figsum_add_run(&s, path_of("b/late/summary.csv"), figsum_side(&s, "B"),
					0, err, sizeof(err)), 1);
	ck_assert_str_eq(err, "it fell behind its schedule");
	mopen(&b);
	mopen(&sp);
	mopen(&v);
	ck_assert_int_eq(figsum_write_pairs(&s, b.f, sp.f, v.f), 1);
	bt = mtext(&b);
	ck_assert_str_eq(bt, "0 \"B vs A: exp 5 ms, lead 100 µs\" 1 1 100 100 100 80 80 80 "
			 "90 90 90 60 60 60 300 300 300 200 200 200\n");
	free(bt);
	bt = mtext(&sp);
	/* no interval: overlap unknown */
	ck_assert_str_eq(bt, "0 \"B vs A: exp 5 ms, lead 100 µs\" 1.25 1.5 1.5 -1 -1 -1" NOPAIRED "\n");
	free(bt);
	bt = mtext(&v);
	ck_assert_ptr_nonnull(strstr(bt, "cilabel = 'single runs, no interval'"));
	free(bt);
	/* no energy: no pair */
	mopen(&b);
	mopen(&v);
	ck_assert_int_eq(figsum_write_energy(&s, b.f, v.f), 0);
	free(mtext(&b));
	free(mtext(&v));
	figsum_free(&s);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* ---- figdist ------------------------------------------------------------- */

START_TEST(figdist_ranks_and_curve)
{
	double v[100], a[4] = { 1, 2, 3, 4 }, b[4] = { 10, 20, 30, 40 };
	double c[4] = { 5, 6, 7, 8 }, *reps[3] = { a, b, c };
	size_t n[3] = { 4, 4, 4 };
	struct mem m;
	char *t, *last;

	for (int i = 0; i < 100; i++)
		v[i] = i + 1;
	ck_assert(figdist_rank(v, 100, 0.99) == 99);
	ck_assert(figdist_rank(v, 100, 0.5) == 50);
	ck_assert(figdist_rank(v, 100, 0) == 1);
	ck_assert(figdist_rank(v, 100, 1) == 100);
	mopen(&m);
	/* the median across three repetitions of each quantile; the curve
	 * ends at p = 1 - 1/4 */
	ck_assert(fabs(figdist_curve(m.f, reps, n, 3) - log10(4)) < 1e-12);
	t = mtext(&m);
	ck_assert(!strncmp(t, "5 0 0.0000\n", 11));
	last = t + strlen(t) - 1;
	while (last > t && last[-1] != '\n')
		last--;
	ck_assert_str_eq(last, "7 0.75 0.6021\n");
	free(t);
	mopen(&m);
	n[0] = 1;
	ck_assert(figdist_curve(m.f, reps, n, 3) == 0);
	t = mtext(&m);
	ck_assert_str_eq(t, "");
	free(t);
}
END_TEST

START_TEST(figdist_targets)
{
	/* exp: e^-a/m - e^-b/m */
	ck_assert(fabs(figdist_expected("exp", 100, 0, 100) - (1 - exp(-1))) < 1e-12);
	ck_assert(fabs(figdist_expected("exp", 100, -5, 0)) < 1e-12);
	/* Poisson(4): P(3) + P(4) = 2 * 4^4 e^-4 / 24 */
	ck_assert(fabs(figdist_expected("poisson", 4, 2.5, 4.5) -
		       2 * 256 * exp(-4) / 24) < 1e-12);
	ck_assert(figdist_expected("fixed", 200, 199.5, 200.5) == 1);
	ck_assert(figdist_expected("fixed", 200, 200.5, 201.5) == 0);
	ck_assert(isnan(figdist_expected("zipf", 1, 0, 1)));
	/* sums to one over the support */
	ck_assert(fabs(figdist_expected("poisson", 1e6, 0, 2e6) - 1) < 1e-9);
}
END_TEST

#define REQ_HDR "seq,intended_ns,sent_ns,recv_ns,latency_ns,status\n"

/* Figure 4: the sent gaps, not the planned ones: a request sent 30 us
 * late makes a gap of 130 us and one of 70 us from a fixed 100 us; an
 * unanswered request was sent all the same. */
START_TEST(figdist_sent_gaps)
{
	struct figdist_src src[1];
	struct mem d, v;
	char *dt, *vt;

	mkscratch();
	put("run/requests.csv", REQ_HDR
	    "0,1000000,1000000,1050000,50000,ok\n"
	    "1,1100000,1100000,1150000,50000,ok\n"
	    "2,1200000,1230000,1280000,80000,ok\n"
	    "3,1300000,1300000,1350000,50000,ok\n"
	    "4,1400000,1400000,,,unanswered\n"
	    "5,1500000,1500000,1560000,60000,ok\n");
	put("run/summary.csv", "status,dist,interval_us,prequery\nok,fixed,100.000,off\n");
	src[0] = (struct figdist_src){ "x", "run", path_of("run"), 0 };
	mopen(&d);
	mopen(&v);
	ck_assert_int_eq(figdist_gaps(src, 1, 0, d.f, v.f, err, sizeof(err)), 1);
	dt = mtext(&d);
	vt = mtext(&v);
	/* gaps 100, 130, 70, 100, 100: bins of 2 us from 70 */
	ck_assert_ptr_nonnull(strstr(vt, "ptitle[1] = 'fixed, mean 100 µs: bins of 2 µs'"));
	ck_assert_ptr_nonnull(strstr(dt, "\n\n71 0.2\n"));
	ck_assert_ptr_nonnull(strstr(dt, "\n101 0.6\n"));
	ck_assert_ptr_nonnull(strstr(dt, "\n131 0.2\n"));
	/* the target: all in the bin holding 100 */
	ck_assert_ptr_nonnull(strstr(dt, "\n101 1\n"));
	ck_assert_ptr_nonnull(strstr(vt, "names[2] = 'run: no pre-query (5 gaps)'"));
	free(dt);
	free(vt);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* issue 36: every law with independent gaps has its target (the CDF
 * values are scipy's, as in test_arrival.c); a burst, a rate profile or
 * a replayed trace has none, and the panel says so. */
START_TEST(figdist_law_targets)
{
	struct figdist_src src[1];
	struct mem d, v;
	char *dt, *vt;
	static const char *const sum[] = {
		"status,dist,interval_us,prequery\nok,lognormal:1,100.000,off\n",
		"status,dist,interval_us,prequery\nok,\"onoff:20,80\",100.000,off\n",
		"status,dist,interval_us,prequery,rate_profile\nok,exp,100.000,off,r.profile\n",
	};
	static const char *const title[] = {
		"ptitle[1] = 'lognormal:1, mean 100 µs: bins of",
		"ptitle[1] = 'onoff:20,80, mean 100 µs: bins of 5 µs'",
		"ptitle[1] = 'exp (rate profile), mean 100 µs: bins of",
	};

	/* lognorm(s=1, scale=e^-0.5 m).cdf(m), genpareto's at 0.7 m - 0.1 m */
	ck_assert(fabs(figdist_expected("lognormal:1", 100, 0, 100) -
		       0.69146246127401334) < 1e-12);
	ck_assert(fabs(figdist_expected("fb-etc", 1000, 100, 700) -
		       (0.54129875209081368 - 0.11065238529412483)) < 1e-12);
	ck_assert(isnan(figdist_expected("onoff:20,80", 100, 0, 100)));
	ck_assert(isnan(figdist_expected("mmpp:10,1,5,50", 100, 0, 100)));
	ck_assert(isnan(figdist_expected("replay", 100, 0, 100)));
	for (int i = 0; i < 3; i++) {
		mkscratch();
		put("run/requests.csv", REQ_HDR
		    "0,1000000,1000000,1050000,50000,ok\n"
		    "1,1100000,1100000,1150000,50000,ok\n"
		    "2,1200000,1230000,1280000,80000,ok\n");
		put("run/summary.csv", sum[i]);
		src[0] = (struct figdist_src){ "x", "run", path_of("run"), 0 };
		mopen(&d);
		mopen(&v);
		ck_assert_int_eq(figdist_gaps(src, 1, 0, d.f, v.f, err, sizeof(err)), 1);
		dt = mtext(&d);
		vt = mtext(&v);
		ck_assert_msg(strstr(vt, title[i]) != NULL, "%s", vt);
		ck_assert_ptr_nonnull(strstr(vt, i ? "pnolaw[1] = 1" : "pnolaw[1] = 0"));
		ck_assert_ptr_nonnull(strstr(vt, i == 1 ? "names[1] = 'no single target law (bursts)'" :
					     i ? "names[1] = 'no single target law (a rate profile)'" :
					     "names[1] = 'target: lognormal:1'"));
		/* the target's block comes first: NaN where there is no law */
		ck_assert_int_eq(!strncmp(strchr(dt, ' '), " NaN\n", 5), i > 0);
		free(dt);
		free(vt);
		ck_assert_int_eq(unit_rmtree(dir), 0);
	}
}
END_TEST

/* Figure 3 for a sweep: a curve per point, every point, from its runs. */
START_TEST(figdist_sweep_curves)
{
	struct figdist_src src[1];
	struct mem d, v;
	char *vt, line[256];
	const char *h = "point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us,"
			"requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us,"
			"lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent,"
			"prequeries_skipped,dir\n";
	char sw[8192];
	size_t off;

	mkscratch();
	off = (size_t)snprintf(sw, sizeof(sw), "%s", h);
	for (int p = 0; p < 10; p++) {
		for (int r = 1; r <= 2; r++) {
			char rel[128];

			/* point 9's runs all fell behind (every send late), and
			 * one of point 0's */
			off += (size_t)snprintf(sw + off, sizeof(sw) - off,
				"p%d,%d,ok,exp,%d,off,0,on,0,3,%d,3,1,1,1,1,1,1,0.5,%d,0,0,p%d/rep-%d\n",
				p, r, 100 * (p + 1), r, p == 9 || (p == 0 && r == 2) ? 3 : 0,
				p, r);
			snprintf(rel, sizeof(rel), "sw/p%d/rep-%d/client/requests.csv", p, r);
			snprintf(line, sizeof(line), REQ_HDR "0,0,0,1000,%d,ok\n1,0,0,2000,%d,ok\n"
				 "2,0,0,3000,%d,ok\n", 1000 * r, 2000 * r, 3000 * r);
			put(rel, line);
		}
	}
	put("sw/sweep.csv", sw);
	src[0] = (struct figdist_src){ "x", "x", path_of("sw"), 1 };
	mopen(&d);
	mopen(&v);
	ck_assert_int_eq(figdist_cdf(src, 1, 0, d.f, v.f, err, sizeof(err)), 10);
	free(mtext(&d));
	vt = mtext(&v);
	/* every point (the report used to draw the first 8 runs); a point
	 * with no run in time is drawn from its late ones, and says so */
	ck_assert_ptr_nonnull(strstr(vt, "ncurves = 10\n"));
	ck_assert_ptr_nonnull(strstr(vt, "names[10] = 'exp 1 ms, no pre-query (behind schedule)'\n"));
	ck_assert_ptr_nonnull(strstr(vt, "behind = 1\n"));
	ck_assert_ptr_nonnull(strstr(vt, "names[1] = 'exp 100 µs, no pre-query'\n"));
	free(vt);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* ---- figtrace ------------------------------------------------------------ */

static void trace_dir(const char *rel, int pq)
{
	char p[256], text[2048];

	snprintf(p, sizeof(p), "%s/meta.txt", rel);
	put(p, "wakebench-trace 1\nncpus 2\nstart_ns 1000000000\n");
	snprintf(p, sizeof(p), "%s/cstate-cpu0.csv", rel);
	/* idle 0-10 ms, C0 10-10.2, idle to 15, C0 to 15.1, idle to 20 */
	put(p, "Sample #,Continuous Time (ms),C-State,Duration (ms),Wake Cause\n"
	    "1,10.000000,C1,10.000000,ipi:call_function_single\n"
	    "2,10.200000,C0,0.200000,\n"
	    "3,15.000000,C1,4.800000,timer\n"
	    "4,15.100000,C0,0.100000,\n"
	    "5,20.000000,C1,4.900000,\n");
	snprintf(p, sizeof(p), "%s/cstate-cpu1.csv", rel);
	put(p, "Sample #,Continuous Time (ms),C-State,Duration (ms)\n1,20.000000,unknown,20.000000\n");
	snprintf(p, sizeof(p), "%s/markers.csv", rel);
	snprintf(text, sizeof(text), "ts_ns,cpu,text\n"
		 "%s"
		 "1010000000,1,wb send 0\n1010050000,0,wb recv 0\n"
		 "1015000000,1,wb send 1\n1015040000,0,wb recv 1\n"
		 "1019000000,1,wb send 2\n1019060000,0,wb recv 2\n",
		 pq ? "1009900000,0,wb pqrecv 0\n" : "");
	put(p, text);
	snprintf(p, sizeof(p), "%s/residency.csv", rel);
	put(p, "cpu,state,percent,entries,avg_stay_us,time_ms,note\n"
	    "0,C0,1.5,2,150,0.3,\n0,C1,98.5,3,6566,19.7,\n"
	    "1,unknown,100,1,20000,20,no cpu_idle events recorded for this CPU\n");
}

START_TEST(figtrace_timeline_rows)
{
	struct figtrace_src src[2];
	struct figtrace_window w = { .requests = 3 };
	struct mem iv, mk, v;
	char *it, *mt, *vt;

	mkscratch();
	trace_dir("off", 0);
	trace_dir("on", 1);
	src[0] = (struct figtrace_src){ "off", path_of("off") };
	src[1] = (struct figtrace_src){ "on", path_of("on") };
	mopen(&iv);
	mopen(&mk);
	mopen(&v);
	ck_assert_int_gt(figtrace_timeline(src, 2, &w, iv.f, mk.f, v.f, err, sizeof(err)), 0);
	it = mtext(&iv);
	mt = mtext(&mk);
	vt = mtext(&v);
	/* stacked: the first trace on top; CPU 1 (no idle events) left out;
	 * time from the first send; the window: sends 0-9 ms, receive at
	 * 9.06, and 0.906 ms either side */
	ck_assert_ptr_nonnull(strstr(vt, "nrows = 2\n"));
	ck_assert_ptr_nonnull(strstr(vt, "rowname[1] = 'off cpu0'\n"));
	ck_assert_ptr_nonnull(strstr(vt, "rowname[2] = 'on cpu0'\n"));
	ck_assert_ptr_nonnull(strstr(vt, "x0 = -0.906\n"));
	ck_assert_ptr_nonnull(strstr(vt, "x1 = 9.966\n"));
	/* intervals clipped to the window, coloured by state */
	ck_assert(!strncmp(it, "1 -0.906000 0.000000 10406625\n1 0.000000 0.200000 3253076\n", 58));
	/* the wake causes at each idle exit, requests and pre-queries */
	ck_assert_ptr_nonnull(strstr(mt, "0.000000 1 3\n"));	/* IPI */
	ck_assert_ptr_nonnull(strstr(mt, "5.000000 1 4\n"));	/* timer */
	ck_assert_ptr_nonnull(strstr(mt, "0.050000 1 0\n"));	/* request */
	ck_assert_ptr_nonnull(strstr(mt, "-0.100000 0 1\n"));	/* pre-query */
	/* only what is there is in the legend */
	ck_assert_ptr_nonnull(strstr(vt, "kcount[3] = 0\n"));	/* no IRQ */
	ck_assert_ptr_nonnull(strstr(vt, "kcount[2] = 1\n"));
	ck_assert_ptr_nonnull(strstr(vt, "sname[1] = 'C0'\nscolor[1] = '#31a354'\n"
				     "sname[2] = 'C1'\n"));
	free(it);
	free(mt);
	free(vt);
	/* a window of one's own */
	w.a_ms = 4;
	w.b_ms = 6;
	mopen(&iv);
	mopen(&mk);
	mopen(&v);
	ck_assert_int_gt(figtrace_timeline(src, 1, &w, iv.f, mk.f, v.f, err, sizeof(err)), 0);
	it = mtext(&iv);
	ck_assert_str_eq(it, "0 4.000000 5.000000 10406625\n0 5.000000 5.100000 3253076\n"
			 "0 5.100000 6.000000 10406625\n");
	free(it);
	free(mtext(&mk));
	free(mtext(&v));
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

START_TEST(figtrace_residency_rows)
{
	struct figtrace_src src[2];
	struct mem d, v;
	char *dt;

	mkscratch();
	trace_dir("off", 0);
	trace_dir("on", 1);
	put("on/residency.csv", "cpu,state,percent,entries,avg_stay_us,time_ms\n"
	    "0,unknown,1,1,1,0.2\n0,C0,3,4,15,0.6\n0,C1,96,4,4800,19.2\n");
	src[0] = (struct figtrace_src){ "off", path_of("off") };
	src[1] = (struct figtrace_src){ "on", path_of("on") };
	mopen(&d);
	mopen(&v);
	ck_assert_int_eq(figtrace_residency(src, 2, d.f, v.f, err, sizeof(err)), 1);
	dt = mtext(&d);
	/* C0 share and idle entries per second of known time: 3 in 20 ms,
	 * 4 in 19.8 ms; CPU 1 has no events */
	ck_assert_str_eq(dt, "0 \"cpu0\" 1.5 3 150 202.02\n");
	free(dt);
	free(mtext(&v));
	/* a CPU past 4096 (the kernel's largest hosts have 8192) */
	put("on/residency.csv", "cpu,state,percent,entries,avg_stay_us,time_ms\n"
	    "8191,C0,3,4,15,0.6\n8191,C1,97,4,4800,19.4\n");
	mopen(&d);
	mopen(&v);
	ck_assert_msg(figtrace_residency(src, 2, d.f, v.f, err, sizeof(err)) == 2, "%s", err);
	dt = mtext(&d);
	ck_assert_str_eq(dt, "0 \"cpu0\" 1.5 NaN 150 NaN\n1 \"cpu8191\" NaN 3 NaN 200\n");
	free(dt);
	free(mtext(&v));
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

START_TEST(figtrace_states_and_breakdown)
{
	struct figtrace_src src[1];
	struct mem d, v;
	char *dt, *vt, text[16384];
	size_t off;

	mkscratch();
	off = (size_t)snprintf(text, sizeof(text),
		"seq,recv_ns,state,idle_end_ns,exit_to_recv_us,prequery_woke,latency_us,prequery\n");
	/* 100 requests found C0 after a pre-query woke it: p99 shown; 3 found
	 * "idle x": p99 left out */
	for (int i = 0; i < 100; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"%d,1,C0,,,1,%d,woke\n", i, i + 1);
	for (int i = 0; i < 3; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"%d,1,\"idle x\",,,0,%d,none\n", 100 + i, 10 * (i + 1));
	put("t/attribution.csv", text);
	put("t/breakdown.csv", "state,prequery,count,complete,hw_exit_avg_us,kernel_avg_us,"
	    "sched_avg_us,wake_avg_us\n"
	    "unknown,none,4,0,,,,\n"
	    "idle x,none,3,3,1.5,6,20,27.5\n"
	    "C0,woke,100,100,0,0.5,11,11.5\n");
	src[0] = (struct figtrace_src){ "t", path_of("t") };
	mopen(&d);
	mopen(&v);
	ck_assert_int_eq(figtrace_states(src, 1, d.f, v.f, err, sizeof(err)), 1);
	dt = mtext(&d);
	vt = mtext(&v);
	ck_assert_str_eq(dt, "0 \"C0, pre-query woke (n=100)\" 100 50 90 99\n"
			 "1 \"idle x, pre-query none (n=3)\" 3 20 30 NaN\n");
	ck_assert_ptr_nonnull(strstr(vt, "metric = 'client latency'\n"));
	ck_assert_ptr_nonnull(strstr(vt, "hidden = 1\n"));
	free(dt);
	free(vt);
	mopen(&d);
	mopen(&v);
	/* C0 before the idle state; the unknown row has no breakdown */
	ck_assert_int_eq(figtrace_breakdown(src, 1, d.f, v.f, err, sizeof(err)), 2);
	dt = mtext(&d);
	vt = mtext(&v);
	ck_assert_str_eq(dt, "0 \"C0, woke (n=100)\" 0 0.5 11 11.5 100\n"
			 "1 \"idle x, none (n=3)\" 1.5 6 20 27.5 3\n");
	ck_assert_ptr_nonnull(strstr(vt, "tname[1] = 't'\ntx[1] = 0.5\n"));
	/* no bar far past the others: gnuplot's own scale */
	ck_assert_ptr_nonnull(strstr(vt, "ymax = 0\nncut = 0\n"));
	free(dt);
	free(vt);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* Figure 10's axis is not set by a few stalled C0 requests (issue 34). */
START_TEST(figtrace_breakdown_scale)
{
	struct figtrace_src src[1];
	struct mem d, v;
	char *dt, *vt;

	mkscratch();
	put("t/breakdown.csv", "state,prequery,count,complete,hw_exit_avg_us,kernel_avg_us,"
	    "sched_avg_us,wake_avg_us\n"
	    "C0,none,20,20,0,0.5,398,398.5\n"
	    "C0,woke,100,100,0,0.8,11.5,12.3\n"
	    "HLT,none,12,12,1,6,25,32\n"
	    "HLT,woke,4,4,1.2,7,21,29.2\n");
	src[0] = (struct figtrace_src){ "t", path_of("t") };
	mopen(&d);
	mopen(&v);
	ck_assert_int_eq(figtrace_breakdown(src, 1, d.f, v.f, err, sizeof(err)), 4);
	dt = mtext(&d);
	vt = mtext(&v);
	/* the bars' data unchanged; the axis at 1.5 x the tallest HLT bar
	 * (32 us), the one C0 bar past it counted */
	ck_assert_ptr_nonnull(strstr(dt, "0 \"C0, none (n=20)\" 0 0.5 398 398.5 20\n"));
	ck_assert_ptr_nonnull(strstr(vt, "ymax = 48\nncut = 1\n"));
	free(dt);
	free(vt);
	/* C0 alone: the median bar is the reference */
	put("t/breakdown.csv", "state,prequery,count,complete,hw_exit_avg_us,kernel_avg_us,"
	    "sched_avg_us,wake_avg_us\n"
	    "C0,none,20,20,0,0,400,400\n"
	    "C0,woke,100,100,0,0,10,10\n"
	    "C0,awake,100,100,0,0,12,12\n");
	mopen(&d);
	mopen(&v);
	ck_assert_int_eq(figtrace_breakdown(src, 1, d.f, v.f, err, sizeof(err)), 3);
	vt = mtext(&v);
	ck_assert_ptr_nonnull(strstr(vt, "ymax = 18\nncut = 1\n"));
	free(mtext(&d));
	free(vt);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* The index's table of the traced wake's share, from the summaries. */
START_TEST(figtrace_wakeshare_table)
{
	struct figtrace_src src[3];
	struct csv *c;
	const char *t;

	mkscratch();
	put("new/attribution-summary.csv",
	    "group,value,count,avg_us,p50_us,p90_us,p99_us,exact,uncertain,wake_n,wake_avg_us,wake_share_pct\n"
	    "state,C0,10,50,40,60,70,1,0,10,5,10.00\n"
	    "idle_miss,none,10,50,40,60,70,1,0,10,5,10.00\n"
	    "state_prequery,C0/woke,10,50,40,60,70,1,0,10,5,10.00\n"
	    "state_prequery,haltpoll idle/none,4,57.6,50,60,70,1,0,4,12.5,21.70\n");
	/* before the shares: nothing */
	put("old/attribution-summary.csv", "group,value,count,avg_us,p50_us,p90_us,p99_us\n"
	    "state,C0,1964,115.810,76.894,114.886,949.309\n");
	src[0] = (struct figtrace_src){ "new", path_of("new") };
	src[1] = (struct figtrace_src){ "old", path_of("old") };
	src[2] = (struct figtrace_src){ "none", path_of("none") };
	c = csv_open(path_of("share.csv"));
	ck_assert_ptr_nonnull(c);
	csv_header(c, FIGTRACE_WAKESHARE_HEADER);
	ck_assert_int_eq(figtrace_wakeshare(src, 3, c, err, sizeof(err)), 2);
	ck_assert_int_eq(csv_close(c), 0);
	t = unit_slurp(path_of("share.csv"));
	ck_assert_str_eq(t, FIGTRACE_WAKESHARE_HEADER "\n"
			 "new,C0,woke,10,50,10,5,10.00\n"
			 "new,haltpoll idle,none,4,57.6,4,12.5,21.70\n");
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* ---- figwake ----------------------------------------------------------- */

/* figwake_figures on SRC into streams that are thrown away: its return. */
static int figwake_status(const struct figwake_src *src, size_t n)
{
	struct mem d12, v12, d13, v13;
	int n12, n13, ret;

	mopen(&d12);
	mopen(&v12);
	mopen(&d13);
	mopen(&v13);
	ret = figwake_figures(src, n, d12.f, v12.f, d13.f, v13.f, &n12, &n13,
			      err, sizeof(err));
	free(mtext(&d12));
	free(mtext(&v12));
	free(mtext(&d13));
	free(mtext(&v13));
	return ret;
}

START_TEST(figwake_cdf_and_silent)
{
	struct figwake_src src[2];
	struct mem d12, v12, d13, v13;
	char *t12, *u12, *t13, *u13;
	int n12, n13;

	mkscratch();
	/* two C1 timer wakes, one C6 timer and one C6 ipi; busy and mixed
	 * rows left out */
	put("w/wake.csv", "seq,source,state_setting,launch_ns,wake_ns,latency_ns,silent_ns,state,busy\n"
	    "0,timer,all,0,0,10000,100000,C1,0\n"
	    "1,timer,all,0,0,30000,200000,C6,0\n"
	    "2,timer,all,0,0,20000,150000,C1,0\n"
	    "3,ipi,all,0,0,50000,900000,C6,0\n"
	    "4,timer,all,0,0,99000,0,busy,1\n"
	    "5,ipi,all,0,0,99000,0,mixed,0\n");
	put("w/summary.csv", "source,state_setting,state,kernel_latency_us,kernel_residency_us\n"
	    "timer,all,C1,2,2\ntimer,all,C6,170,600\n");
	/* no cpuidle states: no silent time */
	put("v/wake.csv", "seq,source,state_setting,launch_ns,wake_ns,latency_ns,silent_ns,state,busy\n"
	    "0,packet,all,0,0,40000,0,unknown,\n");
	src[0] = (struct figwake_src){ "w", path_of("w") };
	src[1] = (struct figwake_src){ "v", path_of("v") };
	mopen(&d12);
	mopen(&v12);
	mopen(&d13);
	mopen(&v13);
	ck_assert_msg(figwake_figures(src, 2, d12.f, v12.f, d13.f, v13.f, &n12, &n13,
				      err, sizeof(err)) == 0, "%s", err);
	t12 = mtext(&d12);
	u12 = mtext(&v12);
	t13 = mtext(&d13);
	u13 = mtext(&v13);
	ck_assert_int_eq(n12, 4);
	/* C1 timer, C6 timer, C6 ipi, v's packet: sorted, to fraction 1 */
	ck_assert_str_eq(t12, "10 0.5\n20 1\n\n\n30 1\n\n\n50 1\n\n\n40 1\n");
	ck_assert_ptr_nonnull(strstr(u12, "pname[1] = 'w: C1'\nplat[1] = 2\npfirst[1] = 1\n"));
	ck_assert_ptr_nonnull(strstr(u12, "pname[3] = 'v: unknown'\nplat[3] = NaN\n"));
	ck_assert_ptr_nonnull(strstr(u12, "csrc[3] = 2\ncname[3] = 'ipi (n=1)'\n"));
	ck_assert_ptr_nonnull(strstr(u12, "plast[2] = 3\n"));
	ck_assert_ptr_nonnull(strstr(u12, "npanels = 3\nncurves = 4\n"));
	/* a panel per directory and source; states numbered per run */
	ck_assert_int_eq(n13, 5);
	ck_assert_str_eq(t13, "100 10 1\n200 30 2\n150 20 1\n\n\n900 50 2\n\n\n0 40 3\n");
	ck_assert_ptr_nonnull(strstr(u13, "sname[2] = 'C6'\nsdir[2] = 1\nslat[2] = 170\nsres[2] = 600\n"));
	ck_assert_ptr_nonnull(strstr(u13, "smax = 900\n"));
	free(t12);
	free(u12);
	free(t13);
	free(u13);
	/* a bad latency: FILE:LINE */
	put("w/wake.csv", "seq,source,state_setting,launch_ns,wake_ns,latency_ns,silent_ns,state,busy\n"
	    "0,timer,all,0,0,x,1,C1,0\n");
	ck_assert_int_eq(figwake_status(src, 1), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "wake.csv:2: "));
	/* a link in place of wake.csv: refused and named, not read through */
	ck_assert_int_eq(rename(path_of("w/wake.csv"), path_of("elsewhere.csv")), 0);
	ck_assert_int_eq(symlink(path_of("elsewhere.csv"), path_of("w/wake.csv")), 0);
	src[0] = (struct figwake_src){ "w", path_of("w") };
	ck_assert_int_eq(figwake_status(src, 1), -EINVAL);
	ck_assert_msg(strstr(err, "wake.csv: a symbolic link, not followed"), "%s", err);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* ---- figtraj --------------------------------------------------------------- */

START_TEST(figtraj_lead_used)
{
	struct figtraj_src src[2];
	struct mem d, v;
	char *dt, *vt;

	mkscratch();
	/* now: value_us is the lead used during the window */
	put("new.csv", "window,value_us,step_us,window_avg_ns,best_us,next_us\n"
	    "1,0,100,50000,0,100\n2,100,50,30000,100,150\n3,150,25,40000,100,125\n");
	/* before next_us: value_us was the lead chosen after the window */
	put("old.csv", "window,value_us,step_us,window_avg_ns,best_us\n"
	    "1,100,50,50000,0\n2,150,25,30000,100\n3,125,12.5,40000,100\n");
	src[0] = (struct figtraj_src){ "new", path_of("new.csv") };
	src[1] = (struct figtraj_src){ "old", path_of("old.csv") };
	mopen(&d);
	mopen(&v);
	ck_assert_int_eq(figtraj_write(src, 2, d.f, v.f, err, sizeof(err)), 2);
	dt = mtext(&d);
	vt = mtext(&v);
	ck_assert_str_eq(dt, "1 0 50 0\n2 100 30 100\n3 150 40 100\n\n\n"
			 "1 0 50 0\n2 100 30 100\n3 150 40 100\n");
	ck_assert_ptr_nonnull(strstr(vt, "bestw[1] = 2\nbestlead[1] = 100\n"));
	ck_assert_ptr_nonnull(strstr(vt, "maxwindow = 3\n"));
	free(dt);
	free(vt);
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

/* ---- figtable -------------------------------------------------------------- */

START_TEST(figtable_html_and_md)
{
	struct csvtable t[2];
	const char *labels[2] = { "a<b", "c" };
	struct mem m;
	char *s;

	ck_assert_int_eq(csvtable_parse("x,y\n1,<i>\n", 10, "1", &t[0], err, sizeof(err)), 0);
	ck_assert_int_eq(csvtable_parse("y,z\n\"p|q\",2\n", 12, "2", &t[1], err, sizeof(err)), 0);
	mopen(&m);
	ck_assert_int_eq(figtable_html(t, labels, 2, "z", m.f), 0);
	s = mtext(&m);
	ck_assert_str_eq(s, "<div class=\"wide\"><table>\n<thead><tr><th>source</th><th>z</th>"
			 "<th>x</th><th>y</th></tr></thead>\n<tbody>\n"
			 "<tr><td>a&lt;b</td><td></td><td class=\"n\">1</td><td>&lt;i&gt;</td></tr>\n"
			 "<tr><td>c</td><td class=\"n\">2</td><td></td><td>p|q</td></tr>\n"
			 "</tbody></table></div>\n");
	free(s);
	mopen(&m);
	ck_assert_int_eq(figtable_markdown(&t[1], NULL, 1, NULL, m.f), 0);
	s = mtext(&m);
	ck_assert_str_eq(s, "| y | z |\n| --- | --- |\n| p\\|q | 2 |\n");
	free(s);
	csvtable_free(&t[0]);
	csvtable_free(&t[1]);
}
END_TEST

/* ---- jsonflat, cfgdiff ------------------------------------------------------ */

static int collect(void *ctx, const char *path, const char *value)
{
	FILE *f = ctx;

	fprintf(f, "%s=%s\n", path, value);
	return 0;
}

static int walk(const char *text, char **out)
{
	struct mem m;
	int ret;

	mopen(&m);
	ret = jsonflat_walk(text, strlen(text), collect, m.f, err, sizeof(err));
	*out = mtext(&m);
	return ret;
}

START_TEST(jsonflat_paths)
{
	char *s;

	ck_assert_int_eq(walk("{\"a\": {\"b\": [1, -2.5e3, {\"c\": null}]}, \"d\": \"x\\ty\\u00e9\","
			      " \"e\": [], \"f\": {}, \"g\": true, \"h\": \"\\ud83d\\ude00\"}", &s), 0);
	ck_assert_str_eq(s, "a.b[0]=1\na.b[1]=-2.5e3\na.b[2].c=null\nd=x\ty\xc3\xa9\ne=[]\n"
			 "f={}\ng=true\nh=\xf0\x9f\x98\x80\n");
	free(s);
	ck_assert_int_eq(walk("{\"a\": 1} x", &s), -EINVAL);
	ck_assert_str_eq(err, "offset 9: text after the JSON value");
	free(s);
	ck_assert_int_eq(walk("{\"a\": 01}", &s), -EINVAL);
	free(s);
	ck_assert_int_eq(walk("{\"a\": \"x\ny\"}", &s), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "control byte"));
	free(s);
	ck_assert_int_eq(walk("[1,]", &s), -EINVAL);
	free(s);
	ck_assert_int_eq(walk("{\"a\" 1}", &s), -EINVAL);
	free(s);
	ck_assert_int_eq(walk("\"\\u0000\"", &s), -EINVAL);
	free(s);
	{
		char deep[200];

		memset(deep, '[', 100);
		deep[100] = '\0';
		ck_assert_int_eq(walk(deep, &s), -EINVAL);
		ck_assert_ptr_nonnull(strstr(err, "nested too deep"));
		free(s);
	}
}
END_TEST

START_TEST(cfgdiff_split_words)
{
	char **w;
	size_t n;

	ck_assert_int_eq(cfgdiff_split("a 'b c' \"d\\\"e\" f\\ g $'h\\ti' ''", &w, &n), 0);
	ck_assert_uint_eq(n, 6);
	ck_assert_str_eq(w[0], "a");
	ck_assert_str_eq(w[1], "b c");
	ck_assert_str_eq(w[2], "d\"e");
	ck_assert_str_eq(w[3], "f g");
	ck_assert_str_eq(w[4], "h\ti");
	ck_assert_str_eq(w[5], "");
	cfgdiff_free_words(w, n);
	ck_assert_int_eq(cfgdiff_split("a 'b", &w, &n), -EINVAL);
}
END_TEST

START_TEST(cfgdiff_tables)
{
	struct cfgdiff_side s[2];
	char *t;

	mkscratch();
	put("a/snapshot.json", "{\"wakebench_version\": \"0.1.0\", \"hostname\": \"h1\", "
	    "\"time_utc\": \"2026-01-01T00:00:00Z\", \"cpuidle\": {\"driver\": \"none\", "
	    "\"governor\": \"menu\"}, \"x\": [1]}");
	put("b/snapshot.json", "{\"wakebench_version\": \"0.1.0\", \"hostname\": \"h1\", "
	    "\"time_utc\": \"2026-01-02T00:00:00Z\", \"cpuidle\": {\"driver\": \"intel_idle\", "
	    "\"governor\": \"menu\"}}");
	put("a/cmdline.txt", "/x/build/bin/wakebench-client --dist exp --requests 10 -q\n");
	put("b/cmdline.txt", "/y/bin/wakebench-client --dist exp --prequery-lead-us 100 "
	    "--requests=20 -q\n");
	s[0] = (struct cfgdiff_side){ "A", path_of("a/snapshot.json"), path_of("a/cmdline.txt") };
	s[1] = (struct cfgdiff_side){ "B, \"2\"", path_of("b/snapshot.json"),
				      path_of("b/cmdline.txt") };
	ck_assert_int_eq(cfgdiff_write(s, 2, path_of("diff.csv"), path_of("prov.csv"),
				       path_of("snap"), err, sizeof(err)), 4);
	t = unit_slurp(path_of("diff.csv"));
	/* the program's directory is no difference; the time is elsewhere */
	ck_assert_str_eq(t, "what,A,\"B, \"\"2\"\"\"\n"
			 "command line: --requests,10,20\n"
			 "command line: --prequery-lead-us,(absent),100\n"
			 "snapshot: cpuidle.driver,none,intel_idle\n"
			 "snapshot: x[0],1,(absent)\n");
	t = unit_slurp(path_of("prov.csv"));
	ck_assert_str_eq(t, "source,wakebench,host,when,command\n"
			 "A,0.1.0,h1,2026-01-01T00:00:00Z,/x/build/bin/wakebench-client --dist exp "
			 "--requests 10 -q\n"
			 "\"B, \"\"2\"\"\",0.1.0,h1,2026-01-02T00:00:00Z,/y/bin/wakebench-client "
			 "--dist exp --prequery-lead-us 100 --requests=20 -q\n");
	t = unit_slurp(path_of("snap-2.csv"));
	ck_assert_ptr_nonnull(strstr(t, "cpuidle.driver,intel_idle\n"));
	/* a side without files: absent everywhere, no snapshot table */
	s[1] = (struct cfgdiff_side){ "C", NULL, path_of("nowhere") };
	ck_assert_int_eq(cfgdiff_write(s, 2, path_of("diff2.csv"), NULL, NULL, err,
				       sizeof(err)), 9);
	/* malformed JSON is an error */
	put("bad.json", "{\"a\":");
	s[1] = (struct cfgdiff_side){ "D", path_of("bad.json"), NULL };
	ck_assert_int_eq(cfgdiff_write(s, 2, path_of("diff3.csv"), NULL, NULL, err,
				       sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "bad.json: offset"));
	ck_assert_int_eq(unit_rmtree(dir), 0);
}
END_TEST

Suite *figdata_suite(void)
{
	Suite *s = suite_create("figdata");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, csvtable_rows);
	tcase_add_test(tc, csvtable_numbers);
	tcase_add_test(tc, figcfg_words_and_order);
	tcase_add_test(tc, figcfg_client_summary);
	tcase_add_test(tc, figgp_quoting);
	tcase_add_test(tc, figsum_pairs_from_a_sweep);
	tcase_add_test(tc, figsum_paired);
	tcase_add_test(tc, figref_parse);
	tcase_add_test(tc, figsum_reference);
	tcase_add_test(tc, figsum_pairs_collapsed);
	tcase_add_test(tc, figplane_front_and_labels);
	tcase_add_test(tc, figsum_load_series);
	tcase_add_test(tc, figsum_runs_and_sides);
	tcase_add_test(tc, figdist_ranks_and_curve);
	tcase_add_test(tc, figdist_targets);
	tcase_add_test(tc, figdist_sent_gaps);
	tcase_add_test(tc, figdist_law_targets);
	tcase_add_test(tc, figdist_sweep_curves);
	tcase_add_test(tc, figtrace_timeline_rows);
	tcase_add_test(tc, figtrace_residency_rows);
	tcase_add_test(tc, figtrace_states_and_breakdown);
	tcase_add_test(tc, figtrace_breakdown_scale);
	tcase_add_test(tc, figtrace_wakeshare_table);
	tcase_add_test(tc, figwake_cdf_and_silent);
	tcase_add_test(tc, figtraj_lead_used);
	tcase_add_test(tc, figtable_html_and_md);
	tcase_add_test(tc, jsonflat_paths);
	tcase_add_test(tc, cfgdiff_split_words);
	tcase_add_test(tc, cfgdiff_tables);
	suite_add_tcase(s, tc);
	return s;
}
