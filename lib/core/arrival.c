// SPDX-License-Identifier: GPL-2.0
/*
 * Inter-arrival generators. The Poisson sampler is exact: sequential
 * inversion below lambda = 10, and Hoermann's PTRS transformed rejection
 * ("The transformed rejection method for generating Poisson random
 * variables", Insurance: Mathematics and Economics 12, 1993) above, as
 * NumPy does; both are exact in distribution for every lambda up to 1e7.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "arrival.h"

static const char *const dist_names[] = {
	[ARRIVAL_FIXED] = "fixed",
	[ARRIVAL_EXP] = "exp",
	[ARRIVAL_POISSON] = "poisson",
};

int arrival_dist_parse(const char *name, enum arrival_dist *out)
{
	if (!strcmp(name, "exponential")) {
		*out = ARRIVAL_EXP;
		return 0;
	}
	for (unsigned int i = 0; i < sizeof(dist_names) / sizeof(*dist_names);
	     i++) {
		if (!strcmp(name, dist_names[i])) {
			*out = (enum arrival_dist)i;
			return 0;
		}
	}
	return -1;
}

const char *arrival_dist_name(enum arrival_dist d)
{
	return dist_names[d];
}

static void poisson_setup(struct arrival *a, double lambda)
{
	a->lambda = lambda;
	a->exp_neg_lambda = exp(-lambda);
	a->slam = sqrt(lambda);
	a->loglam = log(lambda);
	a->b = 0.931 + 2.53 * a->slam;
	a->a = -0.059 + 0.02483 * a->b;
	a->invalpha = 1.1239 + 1.1328 / (a->b - 3.4);
	a->vr = 0.9277 - 3.6224 / (a->b - 2);
}

int arrival_init(struct arrival *a, enum arrival_dist d, double mean_ns,
		 uint64_t seed)
{
	memset(a, 0, sizeof(*a));
	if (!isfinite(mean_ns) || mean_ns <= 0)
		return -EINVAL;
	if (d != ARRIVAL_FIXED && d != ARRIVAL_EXP && d != ARRIVAL_POISSON)
		return -EINVAL;
	a->dist = d;
	a->mean_ns = mean_ns;
	prng_seed(&a->prng, seed);
	if (d != ARRIVAL_POISSON)
		return 0;
	a->lambda = mean_ns / 1e3;
	if (fabs(a->lambda - nearbyint(a->lambda)) > 1e-9 || a->lambda < 1 ||
	    a->lambda > ARRIVAL_POISSON_MAX_LAMBDA)
		return -EINVAL;
	poisson_setup(a, nearbyint(a->lambda));
	return 0;
}

/* Sequential inversion: exact, O(lambda) per draw, used below 10. */
static uint64_t poisson_inversion(struct prng *p, double lambda,
				  double exp_neg_lambda)
{
	double u = prng_uniform(p), prob = exp_neg_lambda, cdf = prob;
	uint64_t k = 0;

	while (u >= cdf) {
		k++;
		prob *= lambda / (double)k;
		cdf += prob;
		if (prob < 1e-300 && k > lambda)
			break;	/* the tail beyond is below double precision */
	}
	return k;
}

static uint64_t poisson_ptrs(struct arrival *a)
{
	for (;;) {
		double u = prng_uniform(&a->prng) - 0.5;
		double v = prng_uniform_pos(&a->prng);
		double us = 0.5 - fabs(u);
		double kd = floor((2 * a->a / us + a->b) * u + a->lambda + 0.43);

		if (us >= 0.07 && v <= a->vr)
			return (uint64_t)kd;
		if (kd < 0 || (us < 0.013 && v > us))
			continue;
		if (log(v) + log(a->invalpha) - log(a->a / (us * us) + a->b) <=
		    -a->lambda + kd * a->loglam - lgamma(kd + 1))
			return (uint64_t)kd;
	}
}

uint64_t arrival_poisson(struct prng *p, double lambda)
{
	struct arrival a = { .prng = *p };
	uint64_t k;

	if (lambda < 10)
		return poisson_inversion(p, lambda, exp(-lambda));
	poisson_setup(&a, lambda);
	k = poisson_ptrs(&a);
	*p = a.prng;
	return k;
}

uint64_t arrival_next_ns(struct arrival *a)
{
	switch (a->dist) {
	case ARRIVAL_FIXED:
		return (uint64_t)llround(a->mean_ns);
	case ARRIVAL_EXP:
		return (uint64_t)llround(-a->mean_ns *
					 log(prng_uniform_pos(&a->prng)));
	case ARRIVAL_POISSON:
		if (a->lambda < 10)
			return 1000 * poisson_inversion(&a->prng, a->lambda,
							a->exp_neg_lambda);
		return 1000 * poisson_ptrs(a);
	}
	return 0;
}
