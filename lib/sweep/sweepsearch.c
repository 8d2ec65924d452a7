// SPDX-License-Identifier: GPL-2.0
/*
 * sweepsearch: the target of `sweep --search` and the bisection on the
 * rate (see sweepsearch.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "sweepcsv.h"
#include "sweepsearch.h"
#include "sweepspec.h"

/*
 * A plain decimal at P (sweepspec_decimal_end), of at most 30 bytes: its
 * value in *V and the first byte after it in *END; 0 when P holds none.
 */
static int decimal(const char *p, double *v, const char **end)
{
	const char *q = sweepspec_decimal_end(p);

	if (!q || q - p > 30)
		return 0;
	*v = strtod(p, NULL);
	*end = q;
	return isfinite(*v);
}

/* "p99.9" -> index of "p999" in sweepcsv_metrics; -1 for another word */
static int metric_of(const char *name, size_t n)
{
	char plain[8];
	size_t k = 0;

	if (n < 2 || n >= sizeof(plain) || name[0] != 'p')
		return -1;
	for (size_t i = 0; i < n; i++)
		if (name[i] != '.')
			plain[k++] = name[i];
	plain[k] = '\0';
	/* p99.9 and p999 alike; a '.' elsewhere ("p9.99") is not a metric */
	if (k != n && (n < 4 || memcmp(name, "p99.", 4)))
		return -1;
	for (int m = 0; m < SWEEPCSV_NLAT_METRICS; m++)
		if (strcmp(sweepcsv_metrics[m], "avg") &&
		    !strcmp(sweepcsv_metrics[m], plain))
			return m;
	return -1;
}

/* the metric's name as reports say it: p999 -> "p99.9" */
static void metric_name(int m, char *buf, size_t len)
{
	const char *p = sweepcsv_metrics[m];

	if (strlen(p) > 3)
		snprintf(buf, len, "%.3s.%s", p, p + 3);
	else
		snprintf(buf, len, "%s", p);
}

int sweepsearch_parse(const char *expr, struct sweepsearch_target *t,
		      char *err, size_t errlen)
{
	static const struct { const char *u; double us; } units[] = {
		{ "", 1 }, { "us", 1 }, { "ns", 1e-3 }, { "ms", 1e3 },
	};
	const char *op = strstr(expr, "<="), *end;
	double v;

	if (!op) {
		errmsg_set(err, errlen, "'%s': expected %s (e.g. p99<=500us)", expr,
			   SWEEPSEARCH_HINT);
		return -EINVAL;
	}
	t->metric = metric_of(expr, (size_t)(op - expr));
	if (t->metric < 0) {
		errmsg_set(err, errlen, "'%s': unknown metric '%.*s' (%s)", expr,
			   (int)(op - expr), expr, SWEEPSEARCH_METRICS);
		return -EINVAL;
	}
	metric_name(t->metric, t->name, sizeof(t->name));
	if (!decimal(op + 2, &v, &end) || !(v > 0)) {
		errmsg_set(err, errlen, "'%s': the limit must be a number above 0 with an optional unit ns, us or ms",
			   expr);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++) {
		if (strcmp(end, units[i].u))
			continue;
		t->limit_us = v * units[i].us;
		return 0;
	}
	errmsg_set(err, errlen, "'%s': unknown unit '%s' (ns, us or ms)", expr, end);
	return -EINVAL;
}

int sweepsearch_range(const char *text, double *lo, double *hi, char *err,
		      size_t errlen)
{
	const char *end;

	if (!decimal(text, lo, &end) || *end != ',' ||
	    !decimal(end + 1, hi, &end) || *end) {
		errmsg_set(err, errlen, "'%s': expected LO,HI in requests per second (e.g. 1000,50000)",
			   text);
		return -EINVAL;
	}
	if (!(*lo > 0) || !(*lo < *hi)) {
		errmsg_set(err, errlen, "'%s' does not bracket a search: 0 < LO < HI", text);
		return -EINVAL;
	}
	return 0;
}

int sweepsearch_tol(const char *text, double *pct, char *err, size_t errlen)
{
	const char *end;

	if (!decimal(text, pct, &end) || *end || *pct < SWEEPSEARCH_TOL_MIN_PCT ||
	    *pct > SWEEPSEARCH_TOL_MAX_PCT) {
		errmsg_set(err, errlen, "'%s': a tolerance in percent of the rate, %g to %g",
			   text, SWEEPSEARCH_TOL_MIN_PCT, (double)SWEEPSEARCH_TOL_MAX_PCT);
		return -EINVAL;
	}
	return 0;
}

/* the range from a list of intervals (--rate or --interval-us) */
static int range_of_list(struct sweepspec *s, char *err, size_t errlen)
{
	double min = INFINITY, max = 0;
	char buf[64];
	int ret;

	for (const char *p = s->val[SK_INTERVAL_US]; *p; p += strcspn(p, " "),
	     p += *p == ' ') {
		double v = strtod(p, NULL);

		min = v < min ? v : min;
		max = v > max ? v : max;
	}
	if (!(min < max)) {
		errmsg_set(err, errlen, "--search needs a range of rates: --search-range LO,HI (requests per second), or two values of --rate or --interval-us");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%.10g,%.10g", 1e6 / max, 1e6 / min);
	ret = sweepspec_set(s, "search-range", buf, SS_DEFAULT);
	return ret ? ret : sweepspec_set(s, "rate", "", SS_DEFAULT);
}

/* the search is on one configuration: only the rate varies */
static int one_configuration(const struct sweepspec *s, char *err,
			     size_t errlen)
{
	for (int d = 0; d < SWEEPDIM_N; d++) {
		const struct sweepdim *dim = &sweepdim_table[d];

		if (d == SWEEPDIM_INTERVAL_US || sweepspec_count_words(s->val[dim->key]) <= 1)
			continue;
		errmsg_set(err, errlen, "--search finds the rate of one configuration: %s has %zu values ('%s'); search each one in a sweep of its own",
			   dim->col, sweepspec_count_words(s->val[dim->key]), s->val[dim->key]);
		return -EINVAL;
	}
	return 0;
}

/*
 * Key NAME's value: the search keys are looked up by name, so this
 * module does not depend on where sweepspec's enum puts them.
 */
static const char *val(const struct sweepspec *s, const char *name)
{
	int k = sweepspec_key(name);

	return k < 0 ? "" : s->val[k];
}

/*
 * One repetition: the run's own CI of the percentile, which the client
 * writes for p50, p99 and p99.9 only (lat_<m>_lo_us, _hi_us).
 */
static int one_rep_ci(const struct sweepspec *s, char *err, size_t errlen)
{
	struct sweepsearch_target t;

	if (strcmp(s->val[SK_REPS], "1") ||
	    sweepsearch_parse(val(s, "search"), &t, NULL, 0) ||
	    !strcmp(t.name, "p50") || !strcmp(t.name, "p99") || !strcmp(t.name, "p99.9"))
		return 0;
	errmsg_set(err, errlen, "--search %s with one repetition: a run has no CI of its %s (it has one of p50, p99 and p99.9): give --reps 2 or more",
		   t.name, t.name);
	return -EINVAL;
}

int sweepsearch_resolve(struct sweepspec *s, char *err, size_t errlen)
{
	int given = s->src[SK_RATE] != SS_DEFAULT ||
		    s->src[SK_INTERVAL_US] != SS_DEFAULT;
	double lo, hi;
	char first[32];
	int ret;

	if (!val(s, "search")[0]) {
		if (!val(s, "search-range")[0] &&
		    !strcmp(val(s, "search-tol"), SWEEPSEARCH_TOL_DEF))
			return 0;
		errmsg_set(err, errlen, "search_range and search_tol need --search METRIC<=VALUE");
		return -EINVAL;
	}
	if (val(s, "search-range")[0] && given) {
		errmsg_set(err, errlen, "give --search-range or a --rate/--interval-us range for --search, not both");
		return -EINVAL;
	}
	ret = val(s, "search-range")[0] ? 0 : range_of_list(s, err, errlen);
	if (!ret)
		ret = one_configuration(s, err, errlen);
	if (!ret)
		ret = sweepsearch_range(val(s, "search-range"), &lo, &hi, err, errlen);
	if (!ret)
		ret = one_rep_ci(s, err, errlen);
	if (ret)
		return ret;
	snprintf(first, sizeof(first), "%.10g", 1e6 / lo);
	if (given || strncmp(s->val[SK_INTERVAL_US], first, strlen(first)) ||
	    !strchr(" ", s->val[SK_INTERVAL_US][strlen(first)]))
		ret = sweepspec_set(s, "interval-us", first, SS_DEFAULT);
	return ret;
}

void sweepsearch_init(struct sweepsearch *s, double lo, double hi, double tol)
{
	memset(s, 0, sizeof(*s));
	s->lo = lo;
	s->hi = hi;
	s->tol = tol;
}

/*
 * MID rounded to the fewest significant digits (3 or more) that keep it
 * within MID * TOL / 4 and strictly between A and B (a < b).
 */
static double round_between(double mid, double a, double b, double tol)
{
	for (int d = 3; d < 16; d++) {
		double scale = pow(10, d - 1 - (int)floor(log10(mid)));
		double r = round(mid * scale) / scale;

		if (fabs(r - mid) <= mid * tol / 4 && r > a && r < b)
			return r;
	}
	return mid;
}

double sweepsearch_next(const struct sweepsearch *s)
{
	double a, b;

	if (s->end != SWEEPSEARCH_GOING)
		return 0;
	if (s->n == 0)
		return 1e6 / s->lo;
	if (s->n == 1)
		return 1e6 / s->hi;
	/* intervals: the failing rate's is the shorter one */
	a = 1e6 / s->bad;
	b = 1e6 / s->ok;
	return round_between(sqrt(a * b), a, b, s->tol);
}

/* the end the bracket calls for once a probe is fed */
static void check_end(struct sweepsearch *s)
{
	if (s->end != SWEEPSEARCH_GOING || s->n < 2)
		return;
	if (s->bad <= s->ok * (1 + s->tol))
		s->end = SWEEPSEARCH_FOUND;
	else if (s->n >= SWEEPSEARCH_MAX_STEPS)
		s->end = SWEEPSEARCH_STEPS;
}

void sweepsearch_feed(struct sweepsearch *s, double interval_us, int meets)
{
	double rate = 1e6 / interval_us;

	if (s->end != SWEEPSEARCH_GOING)
		return;
	if (s->n == 0) {
		if (meets)
			s->ok = s->lo;
		else
			s->end = SWEEPSEARCH_NONE;
	} else if (s->n == 1) {
		if (meets) {
			s->ok = s->hi;
			s->end = SWEEPSEARCH_TOP;
		} else {
			s->bad = s->hi;
		}
	} else if (rate > s->ok && rate < s->bad) {
		if (meets)
			s->ok = rate;
		else
			s->bad = rate;
	}
	s->n++;
	check_end(s);
}
