// SPDX-License-Identifier: GPL-2.0
/*
 * The incomplete gamma function by its power series below x = a + 1 and
 * by its continued fraction above (each converges fast on its side), the
 * incomplete beta function by its continued fraction on the side of
 * x = (a + 1) / (a + b + 2) where it converges, mirrored on the other.
 * Continued fractions are evaluated with the modified Lentz method.
 */
#include <float.h>
#include <math.h>
#include "specfun.h"

#define SF_EPS 1e-15
#define SF_TINY 1e-300
#define SF_MAX_ITER 100000

/*
 * One step of the modified Lentz method for a continued fraction
 * b0 + a1/(b1 + a2/(b2 + ...)): updates its C and D with the next a and b
 * (kept off zero) and returns the factor the value is multiplied by.
 */
static double lentz_step(double *c, double *d, double a, double b)
{
	*d = b + a * *d;
	if (fabs(*d) < SF_TINY)
		*d = SF_TINY;
	*c = b + a / *c;
	if (fabs(*c) < SF_TINY)
		*c = SF_TINY;
	*d = 1 / *d;
	return *c * *d;
}

/* P(a, x) by its series: e^-x x^a / Gamma(a + 1) sum x^n / (a+1)..(a+n). */
static double gamma_p_series(double a, double x)
{
	double term = 1 / a, sum = term;

	for (int n = 1; n < SF_MAX_ITER; n++) {
		term *= x / (a + n);
		sum += term;
		if (fabs(term) < fabs(sum) * SF_EPS)
			break;
	}
	return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Q(a, x) by its continued fraction (Lentz). */
static double gamma_q_cfrac(double a, double x)
{
	double b = x + 1 - a, c = 1 / SF_TINY, d = 1 / b, h = d;

	for (int i = 1; i < SF_MAX_ITER; i++) {
		double del;

		b += 2;
		del = lentz_step(&c, &d, -i * (i - a), b);
		h *= del;
		if (fabs(del - 1) < SF_EPS)
			break;
	}
	return exp(-x + a * log(x) - lgamma(a)) * h;
}

double specfun_gamma_q(double a, double x)
{
	if (!(a > 0) || !(x >= 0) || isinf(a))
		return NAN;
	if (x == 0)
		return 1;
	if (isinf(x))
		return 0;
	if (x < a + 1)
		return 1 - gamma_p_series(a, x);
	return gamma_q_cfrac(a, x);
}

/* The continued fraction of I_x(a, b) without its prefactor (Lentz). */
static double beta_cfrac(double a, double b, double x)
{
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < SF_TINY)
		d = SF_TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m < SF_MAX_ITER; m++) {
		int m2 = 2 * m;
		double del;

		/* The even and the odd term of step m. */
		h *= lentz_step(&c, &d, m * (b - m) * x /
				((qam + m2) * (a + m2)), 1);
		del = lentz_step(&c, &d, -(a + m) * (qab + m) * x /
				 ((a + m2) * (qap + m2)), 1);
		h *= del;
		if (fabs(del - 1) < SF_EPS)
			break;
	}
	return h;
}

double specfun_beta_inc(double a, double b, double x)
{
	double lbt;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
	      b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * beta_cfrac(a, b, x) / a;
	return 1 - exp(lbt) * beta_cfrac(b, a, 1 - x) / b;
}

double specfun_chi2_sf(double x, double k)
{
	if (!(k > 0) || isnan(x))
		return NAN;
	if (x <= 0)
		return 1;
	return specfun_gamma_q(k / 2, x / 2);
}

double specfun_t_sf2(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0;
	return specfun_beta_inc(df / 2, 0.5, df / (df + t * t));
}

double specfun_norm_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2));
}
