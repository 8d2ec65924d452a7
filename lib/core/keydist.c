// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keydist.h"

int keydist_parse(const char *arg, struct keydist_spec *spec)
{
	char *end;
	double s;

	if (!strcmp(arg, "uniform")) {
		*spec = (struct keydist_spec){ .kind = KEYDIST_UNIFORM };
		return 0;
	}
	if (strncmp(arg, "zipf:", 5) || !arg[5])
		return -EINVAL;
	errno = 0;
	s = strtod(arg + 5, &end);
	if (errno || *end || !(s > 0) || s > 10)
		return -EINVAL;
	*spec = (struct keydist_spec){ .kind = KEYDIST_ZIPF, .s = s };
	return 0;
}

void keydist_name(const struct keydist_spec *spec, char *out, size_t len)
{
	if (spec->kind == KEYDIST_ZIPF)
		snprintf(out, len, "zipf:%g", spec->s);
	else
		snprintf(out, len, "uniform");
}

/* log1p(x)/x and expm1(x)/x, accurate near 0 */
static double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

/* H(x) = integral of h(t) = t^-s, shifted so that it is smooth in s = 1 */
static double h_integral(double x, double s)
{
	double lx = log(x);

	return helper2((1 - s) * lx) * lx;
}

static double h(double x, double s)
{
	return exp(-s * log(x));
}

static double h_integral_inverse(double x, double s)
{
	double t = x * (1 - s);

	if (t < -1)
		t = -1;	/* rounding: keeps log1p defined */
	return exp(helper1(t) * x);
}

int keydist_init(struct keydist *d, const struct keydist_spec *spec,
		 uint64_t n)
{
	if (!n || (spec->kind == KEYDIST_ZIPF && !(spec->s > 0)))
		return -EINVAL;
	*d = (struct keydist){ .spec = *spec, .n = n };
	if (spec->kind == KEYDIST_ZIPF) {
		double s = spec->s;

		d->hx1 = h_integral(1.5, s) - 1;
		d->hn = h_integral((double)n + 0.5, s);
		d->sq = 2 - h_integral_inverse(h_integral(2.5, s) - h(2, s), s);
	}
	return 0;
}

uint64_t keydist_next(const struct keydist *d, struct prng *p)
{
	double s = d->spec.s;

	if (d->spec.kind == KEYDIST_UNIFORM)
		return d->n == 1 ? 0 : (uint64_t)(prng_uniform(p) * (double)d->n) % d->n;
	for (;;) {
		double u = d->hn + prng_uniform(p) * (d->hx1 - d->hn);
		double x = h_integral_inverse(u, s);
		double kd = floor(x + 0.5);
		uint64_t k;

		if (kd < 1)
			kd = 1;
		else if (kd > (double)d->n)
			kd = (double)d->n;
		k = (uint64_t)kd;
		if (kd - x <= d->sq || u >= h_integral(kd + 0.5, s) - h(kd, s))
			return k - 1;
	}
}
