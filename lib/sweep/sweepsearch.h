/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweepsearch: `wakebench sweep --search` (mutilate's --search), the
 * highest request rate whose latency percentile meets a target.
 *
 * The target is METRIC<=VALUE[ns|us|ms] ("p99<=500us"): a percentile
 * wakebench stats reports and a limit (us without a unit). A probed rate
 * meets it when the upper bound of its CI is at or below the limit, so a
 * rate that only looks good by chance does not count.
 *
 * The search is a bisection on the rate between LO and HI (requests/s):
 * LO first (when it fails no rate of the range meets the target), then HI
 * (when it meets, the knee lies above the range), then the geometric
 * middle of the highest rate that met and the lowest that failed until
 * they are within TOL of each other (relative: 0.02 is 2 %). Geometric,
 * because a range is often decades wide and the tolerance is relative.
 * The probes are the sweep's interval dimension (us): a middle interval
 * is rounded to the fewest significant digits (3 or more) within TOL/4
 * of the exact middle, so point names stay short ("int-707").
 *
 * The state is rebuilt from the probes in their order (sweepsearch_feed),
 * so a resumed sweep continues from its recorded points. Pure: no I/O;
 * errors are -EINVAL with a message.
 */
#ifndef WB_SWEEPSEARCH_H
#define WB_SWEEPSEARCH_H

#include <stddef.h>

/* the relative tolerance's bounds, in percent */
#define SWEEPSEARCH_TOL_MIN_PCT 0.1
#define SWEEPSEARCH_TOL_MAX_PCT 50
#define SWEEPSEARCH_TOL_DEF "2"
/* more probes than any range and tolerance need (a guard) */
#define SWEEPSEARCH_MAX_STEPS 64
/* the metrics, for messages */
#define SWEEPSEARCH_METRICS "p50, p95, p99, p99.9, p99.99"
#define SWEEPSEARCH_HINT \
	"METRIC<=VALUE[ns|us|ms], METRIC " SWEEPSEARCH_METRICS

struct sweepsearch_target {
	int metric;		/* index in lib/sweepcsv's sweepcsv_metrics */
	char name[8];		/* as reports say it: "p99.9" */
	double limit_us;
};

/* Parses EXPR ("p99<=500us"). 0, or -EINVAL with what is wrong. */
int sweepsearch_parse(const char *expr, struct sweepsearch_target *t,
		      char *err, size_t errlen);
/* Parses "LO,HI" (requests/s, 0 < LO < HI). 0 or -EINVAL. */
int sweepsearch_range(const char *text, double *lo, double *hi, char *err,
		      size_t errlen);
/* Parses a tolerance in percent (TOL_MIN_PCT to TOL_MAX_PCT). 0 or -EINVAL. */
int sweepsearch_tol(const char *text, double *pct, char *err, size_t errlen);

struct sweepspec;
/*
 * The search keys of a resolved spec (called at the end of
 * sweepspec_resolve, lists single-spaced): nothing to do without a
 * search (search_range and search_tol given alone are refused). With
 * one, the range is search_range, or the lowest and highest of a --rate
 * or --interval-us list (then written into search_range, rate emptied);
 * every other dimension must have one value (the search is on one
 * configuration); interval_us starts as LO's interval (a recorded
 * spec's list of probes, LO's first, stays). 0, -EINVAL with the
 * message, -ENOMEM.
 */
int sweepsearch_resolve(struct sweepspec *s, char *err, size_t errlen);

enum sweepsearch_end {
	SWEEPSEARCH_GOING,	/* another probe: sweepsearch_next */
	SWEEPSEARCH_FOUND,	/* ok met, bad did not: within the tolerance */
	SWEEPSEARCH_NONE,	/* LO did not meet the target */
	SWEEPSEARCH_TOP,	/* HI met it: the knee is above the range */
	SWEEPSEARCH_STEPS,	/* SWEEPSEARCH_MAX_STEPS probes: ok is the best */
};

struct sweepsearch {
	double lo, hi, tol;	/* rates, relative tolerance */
	size_t n;		/* probes fed */
	double ok, bad;		/* highest rate that met, lowest that failed; 0: none */
	enum sweepsearch_end end;
};

void sweepsearch_init(struct sweepsearch *s, double lo, double hi, double tol);
/*
 * The interval (us) to probe next: 1e6 / LO, 1e6 / HI, then the rounded
 * geometric middle of the bracket. 0 when the search has ended.
 */
double sweepsearch_next(const struct sweepsearch *s);
/*
 * The verdict of a probe at INTERVAL_US (meets: 1 or 0). The first probe
 * is LO's, the second HI's; a later one moves the bracket when it lies
 * inside it and is ignored otherwise (a resumed sweep whose added
 * repetitions changed an earlier verdict).
 */
void sweepsearch_feed(struct sweepsearch *s, double interval_us, int meets);

#endif
