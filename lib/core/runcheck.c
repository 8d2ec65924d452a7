// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include "runcheck.h"

/* Appends to why[] (len bytes, *used of them written), cut at its end. */
static void __attribute__((format(printf, 4, 5)))
why_add(char *why, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!len || *used + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(why + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n < len - *used ? (size_t)n : len - *used - 1;
}

static int gaps_usable(const struct runcheck_gaps *g)
{
	return g->ran && !g->pass;
}

static int pct_valid(const struct runcheck_pct *q)
{
	return !q->ci_ok || (!isnan(q->lat) && !isnan(q->sent) &&
			     !isnan(q->lo) && !isnan(q->hi) && q->lo <= q->hi);
}

/* Outside [lo, hi] widened by RUNCHECK_PCT_TOLERANCE of the value. */
static int pct_moved(const struct runcheck_pct *q)
{
	double tol = RUNCHECK_PCT_TOLERANCE * fabs(q->lat);

	return q->ci_ok && (q->sent < q->lo - tol || q->sent > q->hi + tol);
}

/* "gap test: Anderson-Darling vs exp(mean 5000 us) p 0.0003 < 0.01" */
static void why_gaps(const struct runcheck_gaps *g, char *why, size_t len,
		     size_t *used)
{
	const char *t = g->test ? g->test : "?";

	if (isnan(g->p))
		why_add(why, len, used, "gap test: %s %.4g > %g", t, g->stat,
			g->limit);
	else
		why_add(why, len, used, "gap test: %s p %.2g < %g", t, g->p,
			g->limit);
}

/*
 * Decimals that show the from-send percentile apart from the CI bound it
 * crossed: 1 as a rule, up to 3 for a narrow interval.
 */
static int pct_decimals(const struct runcheck_pct *q)
{
	double gap = q->sent < q->lo ? q->lo - q->sent : q->sent - q->hi;
	int d = 1;

	while (d < 3 && gap < 2 * pow(10, -d))
		d++;
	return d;
}

/* "pacing moves p99 from 182.1 us (from send: 150.3 us) outside its CI
 * 170.0-190.0", then " (also p90/p99.9)" for the others moved. */
static void why_pacing(const struct runcheck_in *in, char *why, size_t len,
		       size_t *used)
{
	int k = 0;

	for (size_t i = 0; i < in->npct; i++) {
		const struct runcheck_pct *q = &in->pct[i];
		int d = pct_decimals(q);

		if (!pct_moved(q))
			continue;
		if (k++) {
			why_add(why, len, used, "%s%s", k == 2 ? " (also " : "/",
				q->name);
			continue;
		}
		why_add(why, len, used,
			"%spacing moves %s from %.*f us (from send: %.*f us) outside its CI %.*f-%.*f +-%g %%",
			*used ? "; " : "", q->name, d, q->lat, d, q->sent, d,
			q->lo, d, q->hi, 100 * RUNCHECK_PCT_TOLERANCE);
	}
	if (k > 1)
		why_add(why, len, used, ")");
}

int runcheck_behind(const struct runcheck_in *in, char *why, size_t len)
{
	const struct runcheck_gaps *g = &in->gaps;
	int gaps_fail, moved = 0, used_pct = 0;
	size_t used = 0;

	if (len)
		why[0] = '\0';
	if (in->npct && !in->pct)
		return -EINVAL;
	if (g->ran && (isnan(g->limit) || (isnan(g->p) && isnan(g->stat))))
		return -EINVAL;
	for (size_t i = 0; i < in->npct; i++) {
		if (!pct_valid(&in->pct[i]))
			return -EINVAL;
		used_pct |= in->pct[i].ci_ok;
		moved |= pct_moved(&in->pct[i]);
	}
	gaps_fail = gaps_usable(g);
	if (gaps_fail)
		why_gaps(g, why, len, &used);
	if (moved)
		why_pacing(in, why, len, &used);
	if (gaps_fail || moved)
		return 1;
	if (!g->ran && !used_pct)
		why_add(why, len, &used,
			"not checked: no gap test and no percentile with a CI");
	return 0;
}

int runcheck_legacy_behind(const struct runcheck_legacy_in *in, char *why,
			   size_t len)
{
	double late_share;

	if (len)
		why[0] = '\0';
	if (!in->requests || in->late > in->requests ||
	    isnan(in->pacing_p99_us) || isnan(in->mean_gap_us))
		return -EINVAL;
	late_share = (double)in->late / (double)in->requests;
	if (late_share > RUNCHECK_LEGACY_LATE_SHARE) {
		snprintf(why, len, "%.1f %% of sends late (limit %.0f %%)",
			 100 * late_share, 100 * RUNCHECK_LEGACY_LATE_SHARE);
		return 1;
	}
	if (in->mean_gap_us > 0 &&
	    in->pacing_p99_us > RUNCHECK_LEGACY_P99_GAP_SHARE * in->mean_gap_us) {
		snprintf(why, len,
			 "pacing p99 %.1f us is %.0f %% of the mean gap (limit %.0f %%)",
			 in->pacing_p99_us,
			 100 * in->pacing_p99_us / in->mean_gap_us,
			 100 * RUNCHECK_LEGACY_P99_GAP_SHARE);
		return 1;
	}
	return 0;
}
