/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pareto: the points of a latency-cost plane that no other point beats
 * on both axes (issue 35). A point A beats (dominates) B when A costs no
 * more and is no slower, and is strictly better on one of the two: two
 * points equal on both are both on the front, a point only tied on one
 * axis and worse on the other is not. A point whose cost or latency is
 * missing (NAN, infinite or negative: no CPU time measured, no run in
 * the medians) is left out: it neither is on the front nor beats anyone,
 * and is counted so the caller can say so. O(n^2): a sweep has tens of
 * points, not thousands.
 */
#ifndef WB_PARETO_H
#define WB_PARETO_H

#include <stddef.h>

enum pareto_mark {
	PARETO_OUT = -1,	/* left out: cost or latency missing */
	PARETO_BEATEN = 0,	/* another point beats it on both */
	PARETO_FRONT = 1,
};

/* 1 when point (ca, la) dominates (cb, lb), both present */
int pareto_dominates(double ca, double la, double cb, double lb);

/*
 * MARK[i] for each of the N points (cost[i], lat[i]); *NOUT (may be
 * NULL) gets the number left out. Returns the number on the front, or
 * -EINVAL for a NULL array with n > 0.
 */
int pareto_front(const double *cost, const double *lat, size_t n,
		 enum pareto_mark *mark, size_t *nout);

/* "yes", "no" or "" (left out): summary.csv's pareto_* cell */
const char *pareto_mark_name(enum pareto_mark m);

#endif
