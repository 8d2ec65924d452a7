// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prng.h"
#include "qci.h"
#include "stats.h"

/* CONFIRM steps through every subset size up to this, then by 5 %. */
#define CONFIRM_STEP1_MAX 100

void stats_ci_ranks(size_t n, double z, size_t *lo, size_t *hi)
{
	double d = z * sqrt((double)n);
	double l = floor(((double)n - d) / 2);
	double h = ceil(1 + ((double)n + d) / 2);

	*lo = l < 1 ? 1 : (size_t)l;
	*hi = h > (double)n ? n : (size_t)h;
}

double stats_ci_coverage(size_t n, size_t lo, size_t hi)
{
	double sum = 0;

	if (lo < 1 || hi > n || lo >= hi)
		return 0;
	/* The median lies between the lo-th and hi-th smallest values iff
	 * i of the n values fall below it with lo <= i < hi; i ~ Bin(n, 1/2). */
	if (n <= 1000) {
		/* C(n, i) / 2^n by the recurrence: exact for small n. */
		double pmf = ldexp(1, -(int)n);

		for (size_t i = 0; i < hi; i++) {
			if (i >= lo)
				sum += pmf;
			pmf = pmf * (double)(n - i) / (double)(i + 1);
		}
	} else {
		double ln2n = (double)n * log(2), lgn = lgamma((double)n + 1);

		for (size_t i = lo; i < hi; i++)
			sum += exp(lgn - lgamma((double)i + 1) -
				   lgamma((double)(n - i) + 1) - ln2n);
	}
	return sum > 1 ? 1 : sum;
}

void stats_ci_label(const struct stats_summary *s, char *buf, size_t len)
{
	if (s->n >= 2 && s->ci_rank_lo == 1 && s->ci_rank_hi == s->n)
		snprintf(buf, len, "%.1f %% CI (min-max of n=%zu)",
			 100 * s->ci_coverage, s->n);
	else
		snprintf(buf, len, "%.1f %% CI (n=%zu)", 100 * s->ci_coverage,
			 s->n);
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

void stats_sort(double *v, size_t n)
{
	if (n)	/* v may be NULL when there is nothing to sort */
		qsort(v, n, sizeof(*v), cmp_double);
}

/* The smallest sample size whose order-statistic CI covers >= 95 %. */
static size_t min_ci_size(void)
{
	static size_t k;

	if (!k) {
		size_t lo, hi;

		for (k = 2;; k++) {
			stats_ci_ranks(k, STATS_Z95, &lo, &hi);
			if (stats_ci_coverage(k, lo, hi) >= 0.95)
				break;
		}
	}
	return k;
}

long stats_confirm(const double *sorted, size_t n, double r_pct,
		   uint64_t seed)
{
	double med = stats_median_sorted(sorted, n), r = r_pct / 100;
	double *sub;
	size_t *idx;
	struct prng p;
	long found = STATS_REPS_MORE;

	if (n < min_ci_size())
		return STATS_REPS_MORE;
	sub = malloc(n * sizeof(*sub));
	idx = malloc(n * sizeof(*idx));
	if (!sub || !idx) {
		free(sub);
		free(idx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	prng_seed(&p, seed);
	for (size_t k = min_ci_size(); k <= n;) {
		/* All n values are one subset; fewer: random ones. */
		int subsets = k == n ? 1 : STATS_CONFIRM_SUBSETS;
		double sum_lo = 0, sum_hi = 0, avg_lo, avg_hi;
		size_t lo, hi;

		stats_ci_ranks(k, STATS_Z95, &lo, &hi);
		for (int t = 0; t < subsets; t++) {
			/* Partial Fisher-Yates: k distinct indices. */
			for (size_t i = 0; i < k; i++) {
				size_t j = i + (size_t)(prng_next(&p) % (n - i));
				size_t x = idx[i];

				idx[i] = idx[j];
				idx[j] = x;
				sub[i] = sorted[idx[i]];
			}
			qsort(sub, k, sizeof(*sub), cmp_double);
			sum_lo += sub[lo - 1];
			sum_hi += sub[hi - 1];
		}
		avg_lo = sum_lo / subsets;
		avg_hi = sum_hi / subsets;
		if (med - avg_lo <= r * fabs(med) && avg_hi - med <= r * fabs(med)) {
			found = (long)k;
			break;
		}
		if (k == n)
			break;
		k += k < CONFIRM_STEP1_MAX ? 1 : k / 20;
		if (k > n)
			k = n;
	}
	free(sub);
	free(idx);
	return found;
}

void stats_reps_confirm_str(const struct stats_summary *s, char *buf,
			    size_t len)
{
	if (s->reps_confirm > 0)
		snprintf(buf, len, "%ld", s->reps_confirm);
	else
		snprintf(buf, len, ">%zu", s->n);
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
	s->ci_rank_lo = lo;
	s->ci_rank_hi = hi;
	s->ci_lo = sorted[lo - 1];
	s->ci_hi = sorted[hi - 1];
	s->ci_coverage = stats_ci_coverage(n, lo, hi);
	s->ci_exact = s->ci_coverage >= 0.95;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	s->reps_param = s->mean != 0 ?
		pow(100 * STATS_Z95 * s->sd / (r_pct * s->mean), 2) : NAN;
	s->reps_confirm = stats_confirm(sorted, n, r_pct, seed);
	free(sorted);
	return s->reps_confirm == -ENOMEM ? -ENOMEM : 0;
}

const char *stats_verdict_name(enum stats_verdict v)
{
	return v == STATS_FASTER ? "faster" : v == STATS_SLOWER ? "slower" :
	       "undecided";
}

int stats_verdict_parse(const char *name)
{
	for (int v = STATS_UNDECIDED; v <= STATS_SLOWER; v++)
		if (!strcmp(name, stats_verdict_name((enum stats_verdict)v)))
			return v;
	return -1;
}

void stats_paired_str(const struct stats_paired *e, char *buf, size_t len)
{
	char v[40];

	if (e->verdict != STATS_UNDECIDED)
		snprintf(v, sizeof(v), "%s", stats_verdict_name(e->verdict));
	else
		snprintf(v, sizeof(v), "undecided at n=%zu", e->n);
	if (!e->n || !isfinite(e->median))
		snprintf(buf, len, "- %s", v);
	else if (!e->rank_lo)
		snprintf(buf, len, "%.3f [-] %s", e->median, v);
	else
		snprintf(buf, len, "%.3f [%.3f, %.3f] %s", e->median, e->lo, e->hi, v);
}

int stats_paired(const double *base, const double *point, size_t n,
		 struct stats_paired *out)
{
	double *r = malloc((n ? n : 1) * sizeof(*r));
	struct qci ci;
	size_t k = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	out->median = out->lo = out->hi = NAN;
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		/* a zero latency has no ratio; latencies are never negative */
		if (isfinite(base[i]) && isfinite(point[i]) && base[i] > 0 &&
		    point[i] > 0)
			r[k++] = base[i] / point[i];
		else
			out->n_bad++;
	}
	out->n = k;
	qsort(r, k, sizeof(*r), cmp_double);
	out->median = stats_median_sorted(r, k);
	ret = qci_ranks(k, 0.5, QCI_LEVEL95, &ci);
	out->coverage = ci.coverage;
	if (!ret) {
		out->rank_lo = ci.lo;
		out->rank_hi = ci.hi;
		out->lo = r[ci.lo - 1];
		out->hi = r[ci.hi - 1];
		out->verdict = out->lo > 1 ? STATS_FASTER :
			       out->hi < 1 ? STATS_SLOWER : STATS_UNDECIDED;
	}
	free(r);
	/* -ERANGE: too few pairs for a 95 % interval, said by rank_lo = 0 */
	return ret == -ENOMEM ? -ENOMEM : 0;
}

int stats_pair_reps(const char *const *arep, const int *abehind, size_t na,
		    const char *const *brep, const int *bbehind, size_t nb,
		    int include_behind, struct stats_pairs *p)
{
	char *used = calloc(nb ? nb : 1, 1);

	memset(p, 0, sizeof(*p));
	p->a = malloc((na ? na : 1) * sizeof(*p->a));
	p->b = malloc((na ? na : 1) * sizeof(*p->b));
	if (!used || !p->a || !p->b) {
		free(used);
		stats_pairs_free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < na; i++) {
		size_t j;

		for (j = 0; j < nb && (used[j] || strcmp(arep[i], brep[j])); j++)
			;
		if (j == nb) {
			p->n_unmatched++;
			continue;
		}
		used[j] = 1;
		if (!include_behind && (abehind[i] > 0 || bbehind[j] > 0)) {
			p->n_behind++;
			continue;
		}
		p->a[p->n] = i;
		p->b[p->n++] = j;
	}
	for (size_t j = 0; j < nb; j++)
		p->n_unmatched += !used[j];
	free(used);
	return 0;
}

void stats_pairs_free(struct stats_pairs *p)
{
	free(p->a);
	free(p->b);
	p->a = p->b = NULL;
	p->n = 0;
}

int stats_within_rel(const double *val, const double *lo, const double *hi,
		     size_t n, double *rel, size_t *unbounded)
{
	double *w = malloc((n ? n : 1) * sizeof(*w));
	size_t k = 0;

	*rel = NAN;
	*unbounded = 0;
	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(lo[i]) || !isfinite(hi[i]))
			(*unbounded)++;
		else if (val[i] > 0)
			w[k++] = (hi[i] - lo[i]) / 2 / val[i];
	}
	qsort(w, k, sizeof(*w), cmp_double);
	*rel = stats_median_sorted(w, k);
	free(w);
	return 0;
}
