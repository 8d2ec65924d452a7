// SPDX-License-Identifier: GPL-2.0
/*
 * Inter-arrival generators. The Poisson sampler is exact: sequential
 * inversion below lambda = 10, and Hoermann's PTRS transformed rejection
 * ("The transformed rejection method for generating Poisson random
 * variables", Insurance: Mathematics and Economics 12, 1993) above, as
 * NumPy does; both are exact in distribution for every lambda up to 1e7.
 *
 * The laws with a shape are drawn by inversion of their CDF (lognormal by
 * Box-Muller), each with the scale that makes its mean the configured
 * mean m (G is the gamma function):
 *   lognormal  mean exp(mu + SIGMA^2 / 2) = m: mu = ln m - SIGMA^2 / 2
 *   pareto     mean ALPHA x_m / (ALPHA - 1) = m: x_m = m (ALPHA - 1) / ALPHA
 *   weibull    mean lambda G(1 + 1/K) = m: lambda = m / G(1 + 1/K)
 *   gev        scale s = SIGMA m; mean loc + s (G(1 - XI) - 1) / XI = m
 *              (loc + s * 0.5772..., Euler's constant, at XI = 0):
 *              loc = m - s (G(1 - XI) - 1) / XI
 *   fb-etc     generalized Pareto, mean s / (1 - XI) = m: s = m (1 - XI)
 * The bursts keep the mean by their rates: onoff's rate in ON is
 * (ON + OFF) / (ON m), so ON / (ON + OFF) of the time at it is 1 / m;
 * mmpp's rates are c R1 and c R2 with c = 1 / (m (p1 R1 + p2 R2)), where
 * p1 = T12 / (T12 + T21) and p2 = 1 - p1 are the shares of time in each
 * state.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arrival.h"

#define EULER_GAMMA 0.57721566490153286061

static const char *const dist_names[] = {
	[ARRIVAL_FIXED] = "fixed",
	[ARRIVAL_EXP] = "exp",
	[ARRIVAL_POISSON] = "poisson",
	[ARRIVAL_LOGNORMAL] = "lognormal",
	[ARRIVAL_PARETO] = "pareto",
	[ARRIVAL_GEV] = "gev",
	[ARRIVAL_WEIBULL] = "weibull",
	[ARRIVAL_FB_ETC] = "fb-etc",
	[ARRIVAL_ONOFF] = "onoff",
	[ARRIVAL_MMPP] = "mmpp",
};

/* How many parameters each law takes, and how they are written. */
static const unsigned char dist_npar[] = {
	[ARRIVAL_LOGNORMAL] = 1, [ARRIVAL_PARETO] = 1, [ARRIVAL_GEV] = 2,
	[ARRIVAL_WEIBULL] = 1, [ARRIVAL_ONOFF] = 2, [ARRIVAL_MMPP] = 4,
};
static const char *const dist_usage[] = {
	[ARRIVAL_LOGNORMAL] = "lognormal:SIGMA", [ARRIVAL_PARETO] = "pareto:ALPHA",
	[ARRIVAL_GEV] = "gev:XI,SIGMA", [ARRIVAL_WEIBULL] = "weibull:K",
	[ARRIVAL_ONOFF] = "onoff:ON_MS,OFF_MS",
	[ARRIVAL_MMPP] = "mmpp:R1,R2,T12,T21",
};

int arrival_dist_parse(const char *name, enum arrival_dist *out)
{
	if (!strcmp(name, "exponential")) {
		*out = ARRIVAL_EXP;
		return 0;
	}
	for (unsigned int i = 0; i < ARRIVAL_LOGNORMAL; i++) {
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

int arrival_law_renewal(enum arrival_dist d)
{
	return d != ARRIVAL_ONOFF && d != ARRIVAL_MMPP;
}

/* (G(1 - xi) - 1) / xi: the gev's mean over its scale, past its location. */
static double gev_mean_factor(double xi)
{
	if (fabs(xi) < 1e-9)
		return EULER_GAMMA;
	return (tgamma(1 - xi) - 1) / xi;
}

/* The gev's probability below 0 at a mean of 1 and scale sigma. */
static double gev_below_zero(double xi, double sigma)
{
	double z = -(1 - sigma * gev_mean_factor(xi)) / sigma, w;

	if (fabs(xi) < 1e-9)
		return exp(-exp(-z));
	w = 1 + xi * z;
	if (w <= 0)
		return xi > 0 ? 0 : 1;
	return exp(-pow(w, -1 / xi));
}

static int law_err(char *err, size_t errlen, const char *fmt, double v)
{
	snprintf(err, errlen, fmt, v);
	return -EINVAL;
}

static int check_gev(const double *p, char *err, size_t errlen)
{
	double neg;

	if (!(p[0] >= -5 && p[0] < 1))
		return law_err(err, errlen,
			       "gev:XI,SIGMA needs -5 <= XI < 1 (XI >= 1 has no mean), got XI %g",
			       p[0]);
	if (!(p[1] > 0 && p[1] <= 100))
		return law_err(err, errlen,
			       "gev:XI,SIGMA needs 0 < SIGMA <= 100 (the scale over the mean gap), got %g",
			       p[1]);
	neg = gev_below_zero(p[0], p[1]);
	if (neg > ARRIVAL_GEV_MAX_NEG) {
		snprintf(err, errlen,
			 "gev:%g,%g puts %.2g of its gaps below 0 (at most %g): take a smaller SIGMA",
			 p[0], p[1], neg, ARRIVAL_GEV_MAX_NEG);
		return -EINVAL;
	}
	return 0;
}

static int check_mmpp(const double *p, char *err, size_t errlen)
{
	for (int i = 0; i < 2; i++)
		if (!(p[i] >= 0 && p[i] <= 1e9))
			return law_err(err, errlen,
				       "mmpp:R1,R2,T12,T21 needs rates 0 <= R <= 1e9, got %g",
				       p[i]);
	if (!(p[0] + p[1] > 0))
		return law_err(err, errlen,
			       "mmpp:R1,R2,T12,T21 needs R1 or R2 above 0, got %g", 0);
	for (int i = 2; i < 4; i++)
		if (!(p[i] > 0 && p[i] <= 1e7))
			return law_err(err, errlen,
				       "mmpp:R1,R2,T12,T21 needs mean stays 0 < T <= 1e7 ms, got %g",
				       p[i]);
	return 0;
}

/* The parameters' ranges: each keeps a finite mean and gaps that fit. */
static int law_check(const struct arrival_law *l, char *err, size_t errlen)
{
	const double *p = l->par;

	switch (l->dist) {
	case ARRIVAL_LOGNORMAL:
		if (!(p[0] > 0 && p[0] <= 5))
			return law_err(err, errlen,
				       "lognormal:SIGMA needs 0 < SIGMA <= 5, got %g", p[0]);
		break;
	case ARRIVAL_PARETO:
		if (!(p[0] > 1 && p[0] <= 1000))
			return law_err(err, errlen,
				       "pareto:ALPHA needs 1 < ALPHA <= 1000 (ALPHA <= 1 has no mean), got %g",
				       p[0]);
		break;
	case ARRIVAL_GEV:
		return check_gev(p, err, errlen);
	case ARRIVAL_WEIBULL:
		if (!(p[0] >= 0.1 && p[0] <= 1000))
			return law_err(err, errlen,
				       "weibull:K needs 0.1 <= K <= 1000, got %g", p[0]);
		break;
	case ARRIVAL_ONOFF:
		if (!(p[0] > 0 && p[0] <= 1e7))
			return law_err(err, errlen,
				       "onoff:ON_MS,OFF_MS needs 0 < ON_MS <= 1e7, got %g", p[0]);
		if (!(p[1] >= 0 && p[1] <= 1e7))
			return law_err(err, errlen,
				       "onoff:ON_MS,OFF_MS needs 0 <= OFF_MS <= 1e7, got %g", p[1]);
		break;
	case ARRIVAL_MMPP:
		return check_mmpp(p, err, errlen);
	default:
		break;
	}
	return 0;
}

/* "a,b,c" into p[0..n-1]: exactly n finite numbers. */
static int parse_pars(const char *s, double *p, int n)
{
	for (int i = 0; i < n; i++) {
		char *end;

		p[i] = strtod(s, &end);
		if (end == s || !isfinite(p[i]) || *end != (i + 1 < n ? ',' : '\0'))
			return -1;
		s = end + 1;
	}
	return 0;
}

int arrival_law_parse(const char *s, struct arrival_law *l, char *err,
		      size_t errlen)
{
	const char *colon = strchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : strlen(s);
	int d = -1;

	memset(l, 0, sizeof(*l));
	if (len == 11 && !strncmp(s, "exponential", len))
		d = ARRIVAL_EXP;
	for (int i = 0; d < 0 && i < ARRIVAL_NDIST; i++)
		if (strlen(dist_names[i]) == len && !strncmp(s, dist_names[i], len))
			d = i;
	if (d < 0) {
		snprintf(err, errlen,
			 "unknown law '%.*s' (fixed, exp, poisson, lognormal:SIGMA, pareto:ALPHA, gev:XI,SIGMA, weibull:K, fb-etc, onoff:ON_MS,OFF_MS or mmpp:R1,R2,T12,T21)",
			 (int)len, s);
		return -EINVAL;
	}
	l->dist = (enum arrival_dist)d;
	if (!dist_npar[d] && colon) {
		snprintf(err, errlen, "%s takes no parameters", dist_names[d]);
		return -EINVAL;
	}
	if (dist_npar[d] && (!colon || parse_pars(colon + 1, l->par, dist_npar[d]))) {
		snprintf(err, errlen, "%s: expected %s, %d number%s after ':'",
			 s, dist_usage[d], dist_npar[d], dist_npar[d] > 1 ? "s" : "");
		return -EINVAL;
	}
	return law_check(l, err, errlen);
}

void arrival_law_format(const struct arrival_law *l, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "%s", dist_names[l->dist]);

	for (int i = 0; i < dist_npar[l->dist] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%c%.15g",
					i ? ',' : ':', l->par[i]);
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

/* The scale (and location) that give the law its mean m (see the top). */
static void shape_setup(struct arrival *a, const struct arrival_law *l,
			double m)
{
	double p = l->par[0];

	a->shape = p;
	switch (l->dist) {
	case ARRIVAL_LOGNORMAL:
		a->loc = log(m) - p * p / 2;
		break;
	case ARRIVAL_PARETO:
		a->scale = m * (p - 1) / p;
		break;
	case ARRIVAL_GEV:
		a->scale = l->par[1] * m;
		a->loc = m - a->scale * gev_mean_factor(p);
		break;
	case ARRIVAL_WEIBULL:
		a->scale = m / tgamma(1 + 1 / p);
		break;
	case ARRIVAL_FB_ETC:
		a->shape = ARRIVAL_FB_ETC_XI;
		a->scale = m * (1 - ARRIVAL_FB_ETC_XI);
		break;
	default:
		break;
	}
}

/* Exponential with mean m, from one draw. */
static double exp_draw(struct prng *p, double m)
{
	return -m * log(prng_uniform_pos(p));
}

/* The bursts' rates, and a stationary start (drawn from the seed). */
static void burst_setup(struct arrival *a, const struct arrival_law *l,
			double m)
{
	const double *p = l->par;

	if (l->dist == ARRIVAL_ONOFF) {
		a->on_ns = p[0] * 1e6;
		a->cycle_ns = (p[0] + p[1]) * 1e6;
		a->rate[0] = a->cycle_ns / (a->on_ns * m);
		a->pos_ns = prng_uniform(&a->prng) * a->cycle_ns;
	} else {
		double p1 = p[2] / (p[2] + p[3]);
		double c = 1 / (m * (p1 * p[0] + (1 - p1) * p[1]));

		a->rate[0] = c * p[0];
		a->rate[1] = c * p[1];
		a->stay_ns[0] = p[2] * 1e6;
		a->stay_ns[1] = p[3] * 1e6;
		a->state = prng_uniform(&a->prng) < p1 ? 0 : 1;
		a->left_ns = exp_draw(&a->prng, a->stay_ns[a->state]);
	}
}

int arrival_init_law(struct arrival *a, const struct arrival_law *l,
		     double mean_ns, uint64_t seed)
{
	char err[160];

	memset(a, 0, sizeof(*a));
	if (!isfinite(mean_ns) || mean_ns <= 0 || l->dist < 0 ||
	    l->dist >= ARRIVAL_NDIST || law_check(l, err, sizeof(err)))
		return -EINVAL;
	a->dist = l->dist;
	a->mean_ns = mean_ns;
	prng_seed(&a->prng, seed);
	if (l->dist == ARRIVAL_ONOFF || l->dist == ARRIVAL_MMPP) {
		burst_setup(a, l, mean_ns);
		return 0;
	}
	shape_setup(a, l, mean_ns);
	if (l->dist != ARRIVAL_POISSON)
		return 0;
	a->lambda = mean_ns / 1e3;
	if (fabs(a->lambda - nearbyint(a->lambda)) > 1e-9 || a->lambda < 1 ||
	    a->lambda > ARRIVAL_POISSON_MAX_LAMBDA)
		return -EINVAL;
	poisson_setup(a, nearbyint(a->lambda));
	return 0;
}

int arrival_init(struct arrival *a, enum arrival_dist d, double mean_ns,
		 uint64_t seed)
{
	struct arrival_law l = { .dist = d };

	/* the laws with parameters have none here: law_check refuses them */
	return arrival_init_law(a, &l, mean_ns, seed);
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

/* Uniform in (0, 1), for the laws whose inversion is infinite at 1. */
static double uniform_open(struct prng *p)
{
	double u;

	do
		u = prng_uniform_pos(p);
	while (u >= 1);
	return u;
}

/* A gap in ns, the tail cut at ARRIVAL_MAX_GAP_NS. */
static uint64_t gap_ns(double x)
{
	if (!(x > 0))
		return 0;
	return (uint64_t)llround(fmin(x, ARRIVAL_MAX_GAP_NS));
}

static double gev_draw(struct arrival *a)
{
	for (;;) {
		double e = -log(uniform_open(&a->prng)), x;

		if (fabs(a->shape) < 1e-9)
			x = a->loc - a->scale * log(e);
		else
			x = a->loc + a->scale * (pow(e, -a->shape) - 1) / a->shape;
		/* below 0 (at most ARRIVAL_GEV_MAX_NEG of the law): again */
		if (x >= 0)
			return x;
	}
}

static double shape_draw(struct arrival *a)
{
	double u = prng_uniform_pos(&a->prng), z;

	switch (a->dist) {
	case ARRIVAL_LOGNORMAL:
		/* Box-Muller: u and a second uniform give one normal */
		z = sqrt(-2 * log(u)) * cos(2 * M_PI * prng_uniform(&a->prng));
		return exp(a->loc + a->shape * z);
	case ARRIVAL_PARETO:
		return a->scale * pow(u, -1 / a->shape);
	case ARRIVAL_WEIBULL:
		return a->scale * pow(-log(u), 1 / a->shape);
	case ARRIVAL_FB_ETC:
		return a->scale * (pow(u, -a->shape) - 1) / a->shape;
	default:
		return 0;
	}
}

/*
 * onoff: the next arrival of a Poisson process at rate[0] that runs in
 * the ON part of each cycle only. Its ON time to the next arrival is
 * exponential (memoryless), laid over the cycles from the current phase.
 */
static double onoff_draw(struct arrival *a)
{
	double e = -log(prng_uniform_pos(&a->prng)) / a->rate[0], gap = 0;

	for (;;) {
		double rem, k;

		if (a->pos_ns >= a->on_ns) {	/* in OFF: on to the next ON */
			gap += a->cycle_ns - a->pos_ns;
			a->pos_ns = 0;
		}
		rem = a->on_ns - a->pos_ns;
		if (e < rem) {
			a->pos_ns += e;
			return gap + e;
		}
		e -= rem;
		gap += rem;
		a->pos_ns = a->on_ns;
		/* whole cycles passed over at once */
		k = floor(e / a->on_ns);
		gap += k * a->cycle_ns;
		e -= k * a->on_ns;
	}
}

/* mmpp: exponential gaps at the state's rate until its stay ends. */
static double mmpp_draw(struct arrival *a)
{
	double gap = 0;

	for (;;) {
		double r = a->rate[a->state];
		double e = r > 0 ? -log(prng_uniform_pos(&a->prng)) / r : INFINITY;

		if (e < a->left_ns) {
			a->left_ns -= e;
			a->time_in[a->state] += e;
			return gap + e;
		}
		gap += a->left_ns;
		a->time_in[a->state] += a->left_ns;
		a->state ^= 1;
		a->switches++;
		a->left_ns = exp_draw(&a->prng, a->stay_ns[a->state]);
	}
}

/* A burst's gap: the difference of two rounded instants of its time. */
static uint64_t burst_next(struct arrival *a)
{
	uint64_t g;

	a->t += a->dist == ARRIVAL_ONOFF ? onoff_draw(a) : mmpp_draw(a);
	g = gap_ns(a->t - (double)a->emitted);
	a->emitted += g;
	return g;
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
	case ARRIVAL_GEV:
		return gap_ns(gev_draw(a));
	case ARRIVAL_ONOFF:
	case ARRIVAL_MMPP:
		return burst_next(a);
	default:
		return gap_ns(shape_draw(a));
	}
}

/* ln F and ln(1 - F) from ln(1 - F) alone, kept finite. */
static void from_lnsf(double lnsf, double *lnf, double *out_lnsf)
{
	*lnf = log(fmax(-expm1(lnsf), DBL_MIN));
	*out_lnsf = fmax(lnsf, -DBL_MAX);
}

/* The gev's: F = exp(-t), t = (1 + XI (x - loc) / s)^(-1/XI). */
static void gev_log_cdf(const struct arrival *a, double x, double *lnf,
			double *lnsf)
{
	double z = (x - a->loc) / a->scale, w = 1 + a->shape * z, t;

	if (fabs(a->shape) < 1e-9)
		t = exp(-z);
	else if (w <= 0)
		t = a->shape > 0 ? INFINITY : 0;
	else
		t = pow(w, -1 / a->shape);
	*lnf = fmax(-t, -DBL_MAX);
	*lnsf = log(fmax(-expm1(-t), DBL_MIN));
}

static int law_log_cdf(const struct arrival *a, double x, double *lnf,
		       double *lnsf)
{
	double z;

	x = fmax(x, 0);
	switch (a->dist) {
	case ARRIVAL_EXP:
		from_lnsf(-x / a->mean_ns, lnf, lnsf);
		return 0;
	case ARRIVAL_LOGNORMAL:
		z = x > 0 ? (log(x) - a->loc) / a->shape : -INFINITY;
		*lnf = log(fmax(0.5 * erfc(-z / M_SQRT2), DBL_MIN));
		*lnsf = log(fmax(0.5 * erfc(z / M_SQRT2), DBL_MIN));
		return 0;
	case ARRIVAL_WEIBULL:
		from_lnsf(-pow(x / a->scale, a->shape), lnf, lnsf);
		return 0;
	case ARRIVAL_FB_ETC:
		from_lnsf(-log1p(a->shape * x / a->scale) / a->shape, lnf, lnsf);
		return 0;
	case ARRIVAL_GEV:
		gev_log_cdf(a, x, lnf, lnsf);
		return 0;
	default:
		return -EINVAL;
	}
}

/* Poisson(LAM): the share of whole k below Y, summed over the +-40 sd
 * around LAM that hold all of its mass a double can tell from 0. */
static double poisson_below(double lam, double y)
{
	double w = 40 * sqrt(lam) + 40, k0 = fmax(0, floor(lam - w));
	double top = ceil(y) - 1, s = 0;

	if (top < k0)
		return 0;
	if (top >= ceil(lam + w))
		return 1;
	for (double k = k0; k <= top; k++)
		s += exp(-lam + k * log(lam) - lgamma(k + 1));
	return fmin(s, 1);
}

double arrival_law_cdf(const struct arrival *a, double x)
{
	double lnf, lnsf;

	switch (a->dist) {
	case ARRIVAL_FIXED:
		return x > a->mean_ns ? 1 : 0;
	case ARRIVAL_POISSON:
		return poisson_below(a->lambda, x / 1e3);
	case ARRIVAL_PARETO:
		return x <= a->scale ? 0 : -expm1(a->shape * log(a->scale / x));
	case ARRIVAL_ONOFF:
	case ARRIVAL_MMPP:
		return NAN;
	default:
		if (x <= 0)
			return 0;
		if (law_log_cdf(a, x, &lnf, &lnsf))
			return NAN;
		/* the side that keeps its digits */
		return lnf < -M_LN2 ? exp(lnf) : -expm1(lnsf);
	}
}

int arrival_log_cdf(const struct arrival *a, double x, double *lnf,
		    double *lnsf)
{
	double unused;

	/* gaps are whole ns: x stands for [x - 0.5, x + 0.5) */
	if (law_log_cdf(a, x + 0.5, lnf, &unused))
		return -EINVAL;
	return law_log_cdf(a, x - 0.5, &unused, lnsf);
}
