// SPDX-License-Identifier: GPL-2.0
/*
 * pareto: the front of a latency-cost plane; see pareto.h.
 */
#include <errno.h>
#include <math.h>

#include "pareto.h"

/* present: a finite, non-negative number (a cost or a latency) */
static int present(double x)
{
	return isfinite(x) && x >= 0;
}

int pareto_dominates(double ca, double la, double cb, double lb)
{
	if (!present(ca) || !present(la) || !present(cb) || !present(lb))
		return 0;
	return ca <= cb && la <= lb && (ca < cb || la < lb);
}

int pareto_front(const double *cost, const double *lat, size_t n,
		 enum pareto_mark *mark, size_t *nout)
{
	size_t out = 0;
	int front = 0;

	if (n && (!cost || !lat || !mark))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!present(cost[i]) || !present(lat[i])) {
			mark[i] = PARETO_OUT;
			out++;
			continue;
		}
		mark[i] = PARETO_FRONT;
		for (size_t j = 0; j < n; j++)
			if (j != i && pareto_dominates(cost[j], lat[j], cost[i], lat[i])) {
				mark[i] = PARETO_BEATEN;
				break;
			}
		front += mark[i] == PARETO_FRONT;
	}
	if (nout)
		*nout = out;
	return front;
}

const char *pareto_mark_name(enum pareto_mark m)
{
	return m == PARETO_FRONT ? "yes" : m == PARETO_BEATEN ? "no" : "";
}
