/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arrival: inter-arrival gap generators (DESIGN.md "Client").
 *
 *   fixed    every gap equals the mean
 *   exp      gaps ~ Exponential(mean): a Poisson arrival process
 *   poisson  gaps ~ Poisson(lambda = mean in us), whole microseconds: the
 *            thesis' "Poisson distribution" (a narrow bell around the mean)
 *
 * Laws with a shape (issue 36), each scaled so its mean is the configured
 * one whatever the shape (the formulas are in arrival.c):
 *   lognormal:SIGMA   exp(mu + SIGMA Z), Z standard normal
 *   pareto:ALPHA      Pareto type I, x >= x_m, ALPHA > 1 (a mean)
 *   gev:XI,SIGMA      generalized extreme value of shape XI < 1 and scale
 *                     SIGMA times the mean; its location follows from the
 *                     mean (mutilate's "gev" with scipy's c = -XI)
 *   weibull:K         Weibull of shape K
 *   fb-etc            mutilate's fit of Facebook's ETC inter-arrival gaps
 *                     ("fb_ia"): generalized Pareto of shape 0.154971
 *                     (scale 16.0292 us there: mean 18.97 us), scaled
 * Bursts:
 *   onoff:ON_MS,OFF_MS  periods of ON ms with exponential gaps, then OFF ms
 *                     with none, repeating; the rate during ON is
 *                     (ON + OFF) / ON times the mean rate
 *   mmpp:R1,R2,T12,T21  two-state Markov-modulated Poisson process: rate
 *                     proportional to R1 in state 1 and R2 in state 2
 *                     (scaled so the long-run rate is the mean's), an
 *                     exponential stay of mean T12 ms in state 1 before it
 *                     goes to 2 and of mean T21 ms in 2 before it goes to 1
 * Both start in their stationary regime (a uniform phase of the ON/OFF
 * cycle; state 1 with probability T12 / (T12 + T21)), so the expected
 * rate is the mean's at every instant, not only in the long run.
 */
#ifndef WB_ARRIVAL_H
#define WB_ARRIVAL_H

#include <stddef.h>
#include <stdint.h>
#include "prng.h"

enum arrival_dist {
	ARRIVAL_FIXED,
	ARRIVAL_EXP,
	ARRIVAL_POISSON,
	ARRIVAL_LOGNORMAL,
	ARRIVAL_PARETO,
	ARRIVAL_GEV,
	ARRIVAL_WEIBULL,
	ARRIVAL_FB_ETC,
	ARRIVAL_ONOFF,
	ARRIVAL_MMPP,
	ARRIVAL_NDIST
};

/* mutilate's Facebook ETC inter-arrival fit (Generator.cc, "fb_ia"). */
#define ARRIVAL_FB_ETC_XI 0.154971
#define ARRIVAL_FB_ETC_SCALE_US 16.0292
/*
 * The longest gap drawn: a heavier tail is cut there (a probability below
 * 1e-11 for the laws and bounds accepted at a mean of 1 ms), so a gap
 * always fits the schedule's 64-bit nanoseconds.
 */
#define ARRIVAL_MAX_GAP_NS 1e15
/* gev: the most of the law that may lie below 0 (drawn again there). */
#define ARRIVAL_GEV_MAX_NEG 1e-6

#define ARRIVAL_MAX_PAR 4

/* A law and its parameters, as --dist gives them. */
struct arrival_law {
	enum arrival_dist dist;
	double par[ARRIVAL_MAX_PAR];
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
	/* laws with a shape: X = loc + scale * f(shape, uniforms) */
	double shape, scale, loc;
	/* bursts: times in ns, rates per ns; t is the process' own time and
	 * emitted the sum of the gaps returned (each gap is the difference of
	 * two rounded instants, so rounding never drifts the phase) */
	double t, cycle_ns, on_ns, pos_ns, rate[2], stay_ns[2], left_ns;
	uint64_t emitted;
	int state;		/* mmpp: 0 or 1 (state 1 or 2) */
	/* mmpp statistics: time spent in each state and switches so far */
	double time_in[2];
	uint64_t switches;
};

/*
 * "fixed", "exp" (alias "exponential"), "poisson": the laws without
 * parameters (the warm-up's); -1 for any other.
 */
int arrival_dist_parse(const char *name, enum arrival_dist *out);
/* The law's name without its parameters: "lognormal". */
const char *arrival_dist_name(enum arrival_dist d);

/*
 * A --dist value: one of the names above with its parameters after ':'
 * separated by ','. 0, or -EINVAL with the cause in err ("pareto:ALPHA
 * needs ALPHA > 1 (a finite mean), got 0.5").
 */
int arrival_law_parse(const char *s, struct arrival_law *l, char *err,
		      size_t errlen);
/* The law as arrival_law_parse reads it back: "gev:0.2,0.5". */
void arrival_law_format(const struct arrival_law *l, char *buf, size_t len);
/* The gaps of the law are independent of one another (not a burst). */
int arrival_law_renewal(enum arrival_dist d);

/*
 * mean_ns > 0. For poisson the mean must be a whole number of us with
 * 1 <= lambda <= 1e7. Returns 0 or -EINVAL.
 */
int arrival_init(struct arrival *a, enum arrival_dist d, double mean_ns,
		 uint64_t seed);
/* The same for a law with parameters (-EINVAL for ones it refuses). */
int arrival_init_law(struct arrival *a, const struct arrival_law *l,
		     double mean_ns, uint64_t seed);
/* Next gap in nanoseconds. */
uint64_t arrival_next_ns(struct arrival *a);

/*
 * ln F(x) and ln(1 - F(x)) of a's law at x ns, for the run's fit test:
 * exp, lognormal, gev, weibull and fb-etc. The gaps are rounded to whole
 * ns, so F is taken at x + 0.5 and 1 - F at x - 0.5: a gap of 0 is not
 * "impossible" where the law has mass below 0.5 ns (weibull with K < 1).
 * -EINVAL for the others: fixed
 * and poisson have tests of their own, pareto's gaps start at x_m (a send
 * a little late puts the next gap below it, where F is 0), and a burst's
 * gaps follow no single law.
 */
int arrival_log_cdf(const struct arrival *a, double x, double *lnf,
		    double *lnsf);

/*
 * The share of a's gaps below X ns, P(gap < X) (for the report's
 * target law): every law with independent gaps, poisson's whole us
 * included; NAN for onoff and mmpp, whose gaps follow no single law.
 */
double arrival_law_cdf(const struct arrival *a, double x);
/* Exact Poisson(lambda) variate: inversion for lambda < 10, PTRS above. */
uint64_t arrival_poisson(struct prng *p, double lambda);

#endif
