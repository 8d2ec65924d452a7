// SPDX-License-Identifier: GPL-2.0
/*
 * The binomial probabilities are built outward from the mode by the ratio
 * of neighbours, P(k+1)/P(k) = (n-k)/(k+1) * p/(1-p), starting from the
 * mode's lgamma value, and kept only where they matter (above 1e-18 of
 * the mode's): a window of about 18 standard deviations, so n of 1e9 costs
 * a few hundred thousand doubles, not n.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "qci.h"

#define QCI_TAIL 1e-18

struct binwin {
	uint64_t first;		/* k of pmf[0] */
	size_t len;
	double *pmf;
};

static double log_pmf(uint64_t n, double p, uint64_t k)
{
	double dn = (double)n, dk = (double)k;

	return lgamma(dn + 1) - lgamma(dk + 1) - lgamma(dn - dk + 1) +
	       (k ? dk * log(p) : 0) + (k < n ? (dn - dk) * log1p(-p) : 0);
}

static int binwin_fill(uint64_t n, double p, struct binwin *w)
{
	uint64_t mode = (uint64_t)floor((double)(n + 1) * p), lo, hi;
	double odds = p / (1 - p), pm, v;
	size_t cap;

	if (mode > n)
		mode = n;
	pm = exp(log_pmf(n, p, mode));
	/* Walk down and up to find the window's ends. */
	for (lo = mode, v = pm; lo > 0; lo--) {
		v = v * (double)lo / ((double)(n - lo + 1) * odds);
		if (v < QCI_TAIL * pm)
			break;
	}
	for (hi = mode, v = pm; hi < n; hi++) {
		v = v * (double)(n - hi) / (double)(hi + 1) * odds;
		if (v < QCI_TAIL * pm)
			break;
	}
	cap = (size_t)(hi - lo + 1);
	w->pmf = malloc(cap * sizeof(*w->pmf));
	if (!w->pmf)
		return -ENOMEM;
	w->first = lo;
	w->len = cap;
	w->pmf[mode - lo] = pm;
	for (uint64_t k = mode; k > lo; k--)
		w->pmf[k - 1 - lo] = w->pmf[k - lo] * (double)k /
				     ((double)(n - k + 1) * odds);
	for (uint64_t k = mode; k < hi; k++)
		w->pmf[k + 1 - lo] = w->pmf[k - lo] * (double)(n - k) /
				     (double)(k + 1) * odds;
	return 0;
}

double qci_coverage(uint64_t n, double p, uint64_t lo, uint64_t hi)
{
	struct binwin w;
	double sum = 0;

	if (!(p > 0 && p < 1) || lo < 1 || hi > n || lo >= hi)
		return 0;
	if (binwin_fill(n, p, &w))
		return NAN;
	/* B in [lo, hi - 1], clipped to the window. */
	for (size_t i = 0; i < w.len; i++) {
		uint64_t k = w.first + i;

		if (k >= lo && k <= hi - 1)
			sum += w.pmf[i];
	}
	free(w.pmf);
	return sum > 1 ? 1 : sum;
}

int qci_ranks(uint64_t n, double p, double level, struct qci *ci)
{
	struct binwin w;
	uint64_t kmin, kmax;	/* B may range over [1, n - 1] */
	size_t i0, i1, i, j, best_i = 0, best_j = 0;
	double sum = 0, best_cov = 0, reach = 0;
	int found = 0, err;

	ci->lo = ci->hi = 0;
	ci->coverage = 0;
	if (!(p > 0 && p < 1) || !(level > 0 && level < 1) || n < 2)
		return n < 2 && p > 0 && p < 1 && level > 0 && level < 1 ?
		       -ERANGE : -EINVAL;
	err = binwin_fill(n, p, &w);
	if (err)
		return err;
	kmin = w.first > 1 ? w.first : 1;
	kmax = w.first + w.len - 1 < n - 1 ? w.first + w.len - 1 : n - 1;
	if (kmin > kmax)
		goto out;
	i0 = (size_t)(kmin - w.first);
	i1 = (size_t)(kmax - w.first);
	for (i = i0; i <= i1; i++)
		reach += w.pmf[i];
	ci->coverage = reach > 1 ? 1 : reach;
	/* Sliding window [i, j] of B values: for each i the shortest j. */
	for (i = i0, j = i0, sum = 0; i <= i1; i++) {
		while (j <= i1 && sum < level)
			sum += w.pmf[j++];
		if (sum < level)
			break;
		/* [i, j - 1] reaches the level. */
		if (!found || j - 1 - i < best_j - best_i ||
		    (j - 1 - i == best_j - best_i && sum > best_cov)) {
			found = 1;
			best_i = i;
			best_j = j - 1;
			best_cov = sum;
		}
		sum -= w.pmf[i];
	}
	if (found) {
		/* B in [lo, hi - 1] */
		ci->lo = w.first + best_i;
		ci->hi = w.first + best_j + 1;
		ci->coverage = best_cov > 1 ? 1 : best_cov;
	}
out:
	free(w.pmf);
	return found ? 0 : -ERANGE;
}
