// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "prng.h"
#include "stats.h"

#define CONFIRM_TRIALS 200
#define CONFIRM_MAX 1000

void stats_ci_ranks(size_t n, double z, size_t *lo, size_t *hi)
{
	double d = z * sqrt((double)n);
	double l = floor(((double)n - d) / 2);
	double h = ceil(1 + ((double)n + d) / 2);

	*lo = l < 1 ? 1 : (size_t)l;
	*hi = h > (double)n ? n : (size_t)h;
}

double stats_median_sorted(const double *v, size_t n)
{
	if (!n)
		return NAN;
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Half-width of the median CI of sorted v[n], relative to the median. */
static double rel_halfwidth(const double *v, size_t n)
{
	size_t lo, hi;
	double med = stats_median_sorted(v, n);

	stats_ci_ranks(n, STATS_Z95, &lo, &hi);
	if (med == 0)
		return INFINITY;
	return fmax(med - v[lo - 1], v[hi - 1] - med) / fabs(med);
}

/*
 * CONFIRM: for growing subset sizes k, draw k values with replacement
 * from the measured set many times, and take the median across trials of
 * the relative CI half-width; the first k where it is within r.
 */
static long confirm(const double *sorted, size_t n, double r, uint64_t seed)
{
	double *sub = malloc(CONFIRM_MAX * sizeof(*sub));
	double *w = malloc(CONFIRM_TRIALS * sizeof(*w));
	struct prng p;
	long found = -1;

	if (!sub || !w)
		goto out;
	prng_seed(&p, seed);
	for (size_t k = 6; k <= CONFIRM_MAX; k += k < 50 ? 1 : k / 10) {
		for (int t = 0; t < CONFIRM_TRIALS; t++) {
			for (size_t i = 0; i < k; i++)
				sub[i] = sorted[prng_next(&p) % n];
			qsort(sub, k, sizeof(*sub), cmp_double);
			w[t] = rel_halfwidth(sub, k);
		}
		qsort(w, CONFIRM_TRIALS, sizeof(*w), cmp_double);
		if (stats_median_sorted(w, CONFIRM_TRIALS) <= r) {
			found = (long)k;
			break;
		}
	}
out:
	free(sub);
	free(w);
	return found;
}

int stats_summarize(const double *v, size_t n, double r_pct, uint64_t seed,
		    struct stats_summary *s)
{
	double *sorted, sum = 0, ss = 0;
	size_t lo, hi;

	memset(s, 0, sizeof(*s));
	if (!n)
		return -EINVAL;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	s->n = n;
	s->median = stats_median_sorted(sorted, n);
	stats_ci_ranks(n, STATS_Z95, &lo, &hi);
	s->ci_exact = n >= 6;
	s->ci_lo = s->ci_exact ? sorted[lo - 1] : sorted[0];
	s->ci_hi = s->ci_exact ? sorted[hi - 1] : sorted[n - 1];
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	s->reps_param = s->mean != 0 ?
		pow(100 * STATS_Z95 * s->sd / (r_pct * s->mean), 2) : NAN;
	s->reps_confirm = n > 1 ? confirm(sorted, n, r_pct / 100, seed) : -1;
	free(sorted);
	return 0;
}
