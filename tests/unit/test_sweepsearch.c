// SPDX-License-Identifier: GPL-2.0
/* lib/sweepsearch: sweep --search's target and its bisection on the rate. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "sweepcsv.h"
#include "sweepsearch.h"
#include "sweepspec.h"

static char err[512];

static void target_is(const char *expr, const char *metric, const char *name,
		      double limit_us)
{
	struct sweepsearch_target t;

	ck_assert_msg(!sweepsearch_parse(expr, &t, err, sizeof(err)), "%s: %s", expr, err);
	ck_assert_str_eq(sweepcsv_metrics[t.metric], metric);
	ck_assert_str_eq(t.name, name);
	ck_assert_msg(fabs(t.limit_us - limit_us) < 1e-9 * limit_us, "%s: %g", expr,
		      t.limit_us);
}

static void target_bad(const char *expr, const char *why)
{
	struct sweepsearch_target t;

	ck_assert_int_eq(sweepsearch_parse(expr, &t, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, why), "%s: %s", expr, err);
}

START_TEST(parse_target)
{
	double lo, hi, pct;

	target_is("p99<=500us", "p99", "p99", 500);
	target_is("p99<=500", "p99", "p99", 500);
	target_is("p50<=0.5ms", "p50", "p50", 500);
	target_is("p95<=2500ns", "p95", "p95", 2.5);
	target_is("p99.9<=1ms", "p999", "p99.9", 1000);
	target_is("p999<=1ms", "p999", "p99.9", 1000);
	target_is("p99.99<=10ms", "p9999", "p99.99", 10000);
	target_bad("p90<=5ms", "unknown metric 'p90'");
	target_bad("avg<=5ms", "unknown metric 'avg'");
	target_bad("p9.99<=5ms", "unknown metric");
	target_bad("<=5ms", "unknown metric ''");
	target_bad("p99<500us", "expected METRIC<=VALUE");
	target_bad("p99>=500us", "expected METRIC<=VALUE");
	target_bad("p99<=500s", "unknown unit 's'");
	target_bad("p99<=500 us", "unknown unit ' us'");
	target_bad("p99<=0us", "above 0");
	target_bad("p99<=-5us", "above 0");
	target_bad("p99<=1e3us", "unknown unit 'e3us'");
	target_bad("p99<=inf", "above 0");
	target_bad("p99<=", "above 0");

	ck_assert_int_eq(sweepsearch_range("1000,50000", &lo, &hi, err, sizeof(err)), 0);
	ck_assert(lo == 1000 && hi == 50000);
	ck_assert_int_eq(sweepsearch_range("0.5,2.5", &lo, &hi, err, sizeof(err)), 0);
	ck_assert(lo == 0.5 && hi == 2.5);
	ck_assert_int_eq(sweepsearch_range("5000,1000", &lo, &hi, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "does not bracket"), "%s", err);
	ck_assert_int_eq(sweepsearch_range("1000,1000", &lo, &hi, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(sweepsearch_range("0,1000", &lo, &hi, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "does not bracket"), "%s", err);
	ck_assert_int_eq(sweepsearch_range("1000", &lo, &hi, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "expected LO,HI"), "%s", err);
	ck_assert_int_eq(sweepsearch_range("1000,", &lo, &hi, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(sweepsearch_range("1k,2k", &lo, &hi, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(sweepsearch_range("1000,2000,3000", &lo, &hi, err, sizeof(err)), -EINVAL);

	ck_assert_int_eq(sweepsearch_tol("2", &pct, err, sizeof(err)), 0);
	ck_assert(pct == 2);
	ck_assert_int_eq(sweepsearch_tol("0.5", &pct, err, sizeof(err)), 0);
	ck_assert_int_eq(sweepsearch_tol("0", &pct, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(sweepsearch_tol("51", &pct, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(sweepsearch_tol("2%", &pct, err, sizeof(err)), -EINVAL);
}
END_TEST

/*
 * A synthetic server: the target is met up to KNEE requests/s. Runs the
 * search to its end; returns the probes it took.
 */
static size_t search(double lo, double hi, double tol, double knee,
		     struct sweepsearch *s)
{
	double iv, seen[SWEEPSEARCH_MAX_STEPS + 1];
	size_t n = 0;

	sweepsearch_init(s, lo, hi, tol);
	while ((iv = sweepsearch_next(s)) > 0) {
		ck_assert(n <= SWEEPSEARCH_MAX_STEPS);
		/* every probe is a new point of the sweep */
		for (size_t i = 0; i < n; i++)
			ck_assert_msg(seen[i] != iv, "interval %g probed twice", iv);
		seen[n++] = iv;
		sweepsearch_feed(s, iv, 1e6 / iv <= knee);
	}
	return n;
}

/* the probes a bisection of [LO, HI] to TOL takes at most */
static size_t bound(double lo, double hi, double tol)
{
	return 2 + (size_t)ceil(log2(log(hi / lo) / log(1 + tol))) + 1;
}

START_TEST(bisection_finds_knee)
{
	static const double knees[] = { 1234, 1001, 49999, 20000, 7777.7, 1500 };
	struct sweepsearch s;

	for (size_t i = 0; i < sizeof(knees) / sizeof(*knees); i++) {
		double k = knees[i];
		size_t n = search(1000, 50000, 0.02, k, &s);

		ck_assert_int_eq(s.end, SWEEPSEARCH_FOUND);
		/* the knee lies between the highest rate that met and the
		 * lowest that failed, which are within the tolerance */
		ck_assert_msg(s.ok <= k && s.bad > k, "knee %g: ok %g bad %g", k, s.ok, s.bad);
		ck_assert_msg(s.bad <= s.ok * 1.02, "knee %g: ok %g bad %g", k, s.ok, s.bad);
		ck_assert_msg(n <= bound(1000, 50000, 0.02), "knee %g: %zu probes", k, n);
	}
	/* a tight tolerance and a narrow range */
	search(900, 1100, 0.001, 1000, &s);
	ck_assert_int_eq(s.end, SWEEPSEARCH_FOUND);
	ck_assert(s.ok <= 1000 && s.bad > 1000 && s.bad <= s.ok * 1.001);
}
END_TEST

START_TEST(bisection_never_always)
{
	struct sweepsearch s;

	/* never met: LO fails, one probe, nothing found */
	ck_assert_int_eq(search(1000, 50000, 0.02, 10, &s), 1);
	ck_assert_int_eq(s.end, SWEEPSEARCH_NONE);
	ck_assert(s.ok == 0);
	/* always met: LO and HI meet, the knee is above the range */
	ck_assert_int_eq(search(1000, 50000, 0.02, 1e9, &s), 2);
	ck_assert_int_eq(s.end, SWEEPSEARCH_TOP);
	ck_assert(s.ok == 50000);
	/* a range already within the tolerance: LO and HI only */
	ck_assert_int_eq(search(1000, 1010, 0.02, 1005, &s), 2);
	ck_assert_int_eq(s.end, SWEEPSEARCH_FOUND);
	ck_assert(s.ok == 1000 && s.bad == 1010);
}
END_TEST

START_TEST(bisection_probes)
{
	struct sweepsearch s;
	double iv;

	sweepsearch_init(&s, 1000, 4000, 0.02);
	ck_assert(sweepsearch_next(&s) == 1000);
	sweepsearch_feed(&s, 1000, 1);
	ck_assert(sweepsearch_next(&s) == 250);
	sweepsearch_feed(&s, 250, 0);
	/* the geometric middle, 2000/s, rounded to 3 digits */
	ck_assert(sweepsearch_next(&s) == 500);
	sweepsearch_feed(&s, 500, 1);
	iv = sweepsearch_next(&s);
	/* sqrt(250 * 500) = 353.55...: 354 is within 2 % / 4 */
	ck_assert_msg(iv == 354, "%.10g", iv);
	/* a probe outside the bracket (an earlier verdict that changed on
	 * --resume) does not move it */
	sweepsearch_feed(&s, 800, 0);
	ck_assert(s.ok == 2000 && s.bad == 4000);
	ck_assert(sweepsearch_next(&s) == 354);
	/* the middles stay short: 3 significant digits while they can */
	sweepsearch_init(&s, 1000, 50000, 0.02);
	sweepsearch_feed(&s, 1000, 1);
	sweepsearch_feed(&s, 20, 0);
	iv = sweepsearch_next(&s);
	ck_assert_msg(iv == 141, "%.10g", iv);
}
END_TEST

/* spec TEXT resolved on 2 CPUs: 0 or -EINVAL with err */
static int spec(struct sweepspec *s, const char *text, enum sweepspec_src src)
{
	ck_assert_int_eq(sweepspec_init(s), 0);
	ck_assert_int_eq(sweepspec_parse(s, text, strlen(text), "t.spec", src, err,
					 sizeof(err)), 0);
	return sweepspec_resolve(s, 2, err, sizeof(err));
}

static const char *key(const struct sweepspec *s, const char *name)
{
	return s->val[sweepspec_key(name)];
}

static void spec_bad(const char *text, const char *why)
{
	struct sweepspec s;

	ck_assert_int_eq(spec(&s, text, SS_FILE), -EINVAL);
	ck_assert_msg(strstr(err, why), "%s: %s", text, err);
	sweepspec_free(&s);
}

START_TEST(search_spec)
{
	struct sweepspec s;

	/* the range given: the first probe is LO's interval */
	ck_assert_msg(!spec(&s, "search = p99<=500us\nsearch_range = 1000,20000\n", SS_FILE),
		      "%s", err);
	ck_assert_str_eq(key(&s, "interval-us"), "1000");
	ck_assert_str_eq(key(&s, "search-tol"), "2");
	sweepspec_free(&s);
	ck_assert(!spec(&s, "search = p50<=1ms\nsearch_range = 400,800\n", SS_FILE));
	ck_assert_str_eq(key(&s, "interval-us"), "2500");
	sweepspec_free(&s);
	/* from a --rate list: its lowest and highest, the rate emptied */
	ck_assert_msg(!spec(&s, "search = p99<=500us\nrate = 5000 1000 20000\n", SS_FILE),
		      "%s", err);
	ck_assert_str_eq(key(&s, "search-range"), "1000,20000");
	ck_assert_str_eq(key(&s, "rate"), "");
	ck_assert_str_eq(key(&s, "interval-us"), "1000");
	sweepspec_free(&s);
	ck_assert(!spec(&s, "search = p99<=500us\ninterval_us = 50 200\n", SS_FILE));
	ck_assert_str_eq(key(&s, "search-range"), "5000,20000");
	ck_assert_str_eq(key(&s, "interval-us"), "200");
	sweepspec_free(&s);
	/* a recorded spec (--resume): its probes stay */
	ck_assert(!spec(&s, "search = p99<=500us\nsearch_range = 1000,20000\n"
			"interval_us = 1000 50 224\n", SS_DEFAULT));
	ck_assert_str_eq(key(&s, "interval-us"), "1000 50 224");
	sweepspec_free(&s);
	/* no search: nothing changes */
	ck_assert(!spec(&s, "interval_us = 50 200\n", SS_FILE));
	ck_assert_str_eq(key(&s, "interval-us"), "50 200");
	sweepspec_free(&s);

	spec_bad("search = p99<=500us\n", "--search needs a range of rates");
	spec_bad("search = p99<=500us\nrate = 1000\n", "--search needs a range of rates");
	spec_bad("search = p99<=500us\nsearch_range = 1,2\nrate = 1 2\n", "not both");
	spec_bad("search = p99<=500us\nsearch_range = 1,2\ncstates = on off\n",
		 "one configuration: cstates has 2 values");
	spec_bad("search = p95<=1ms\nsearch_range = 1,2\nreps = 1\n",
		 "--search p95 with one repetition: a run has no CI of its p95");
	spec_bad("search = p99.99<=1ms\nsearch_range = 1,2\nreps = 1\n", "give --reps 2");
	ck_assert(!spec(&s, "search = p95<=1ms\nsearch_range = 1,2\nreps = 2\n", SS_FILE));
	sweepspec_free(&s);
	ck_assert(!spec(&s, "search = p99.9<=1ms\nsearch_range = 1,2\nreps = 1\n", SS_FILE));
	sweepspec_free(&s);
	spec_bad("search_range = 1,2\n", "need --search");
	spec_bad("search_tol = 5\n", "need --search");
	spec_bad("search = p90<=1ms\nsearch_range = 1,2\n", "invalid search 'p90<=1ms'");
	spec_bad("search = p99<=1ms\nsearch_range = 2,1\n", "invalid search_range '2,1'");
	spec_bad("search = p99<=1ms\nsearch_range = 1,2\nsearch_tol = 60\n",
		 "invalid search_tol '60'");
}
END_TEST

Suite *sweepsearch_suite(void)
{
	Suite *s = suite_create("sweepsearch");
	TCase *t = tcase_create("core");

	tcase_add_test(t, parse_target);
	tcase_add_test(t, bisection_finds_knee);
	tcase_add_test(t, bisection_never_always);
	tcase_add_test(t, bisection_probes);
	tcase_add_test(t, search_spec);
	suite_add_tcase(s, t);
	return s;
}
