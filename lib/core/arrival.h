/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arrival: inter-arrival gap generators (DESIGN.md "Client").
 *
 *   fixed    every gap equals the mean
 *   exp      gaps ~ Exponential(mean): a Poisson arrival process
 *   poisson  gaps ~ Poisson(lambda = mean in us), whole microseconds: the
 *            thesis' "Poisson distribution" (a narrow bell around the mean)
 */
#ifndef WB_ARRIVAL_H
#define WB_ARRIVAL_H

#include <stdint.h>
#include "prng.h"

enum arrival_dist {
	ARRIVAL_FIXED,
	ARRIVAL_EXP,
	ARRIVAL_POISSON,
};

#define ARRIVAL_POISSON_MAX_LAMBDA 1e7

struct arrival {
	enum arrival_dist dist;
	double mean_ns;
	struct prng prng;
	/* poisson: precomputed constants (inversion below 10, PTRS above) */
	double lambda;
	double exp_neg_lambda;
	double slam, loglam, a, b, invalpha, vr;
};

/* "fixed", "exp" (alias "exponential"), "poisson"; -1 when unknown. */
int arrival_dist_parse(const char *name, enum arrival_dist *out);
const char *arrival_dist_name(enum arrival_dist d);

/*
 * mean_ns > 0. For poisson the mean must be a whole number of us with
 * 1 <= lambda <= 1e7. Returns 0 or -EINVAL.
 */
int arrival_init(struct arrival *a, enum arrival_dist d, double mean_ns,
		 uint64_t seed);
/* Next gap in nanoseconds. */
uint64_t arrival_next_ns(struct arrival *a);

/* Exact Poisson(lambda) variate: inversion for lambda < 10, PTRS above. */
uint64_t arrival_poisson(struct prng *p, double lambda);

#endif
