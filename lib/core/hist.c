// SPDX-License-Identifier: GPL-2.0
/*
 * Latency recorder: exact samples for nearest-rank percentiles plus a
 * log-linear histogram (HdrHistogram-like, 7 sub-bucket bits) whose
 * memory is fixed whatever the run length.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"

#define SUB_BITS 7
#define SUB_COUNT (1u << SUB_BITS)		/* 128 */
/* Values below 128 have exact buckets; exponents 7..63 have 128 each. */
#define NBUCKETS (SUB_COUNT + (64 - SUB_BITS) * SUB_COUNT)

struct hist {
	uint64_t count, min, max;
	double mean, m2;	/* Welford */
	int keep;
	int sorted;
	size_t exact_max;	/* 0: no bound */
	enum hist_rule rule;
	uint64_t *samples;
	size_t nsamples, cap;
	uint64_t buckets[NBUCKETS];
};

static unsigned int bucket_of(uint64_t v)
{
	unsigned int e;

	if (v < SUB_COUNT)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v);
	return (e - SUB_BITS + 1) * SUB_COUNT +
	       (unsigned int)((v >> (e - SUB_BITS)) & (SUB_COUNT - 1));
}

static void bucket_range(unsigned int b, uint64_t *lo, uint64_t *hi)
{
	unsigned int e, sub;
	uint64_t width;

	if (b < SUB_COUNT) {
		*lo = *hi = b;
		return;
	}
	e = b / SUB_COUNT + SUB_BITS - 1;
	sub = b % SUB_COUNT;
	width = 1ull << (e - SUB_BITS);
	*lo = (1ull << e) + sub * width;
	*hi = *lo + (width - 1);
}

struct hist *hist_new(int keep_samples)
{
	struct hist *h = calloc(1, sizeof(*h));

	if (h)
		h->keep = keep_samples;
	return h;
}

void hist_free(struct hist *h)
{
	if (!h)
		return;
	free(h->samples);
	free(h);
}

void hist_reset(struct hist *h)
{
	uint64_t *samples = h->samples;
	size_t cap = h->cap;
	int keep = h->keep || h->exact_max;
	enum hist_rule rule = h->rule;
	size_t exact_max = h->exact_max;

	memset(h, 0, sizeof(*h));
	h->samples = samples;
	h->cap = cap;
	h->keep = keep;
	h->rule = rule;
	h->exact_max = exact_max;
}

/* Past the bound, or out of memory: the histogram alone from now on. */
static void drop_samples(struct hist *h)
{
	free(h->samples);
	h->samples = NULL;
	h->nsamples = h->cap = 0;
	h->keep = 0;
}

int hist_add(struct hist *h, uint64_t v)
{
	double d;

	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	d = (double)v - h->mean;
	h->mean += d / (double)h->count;
	h->m2 += d * ((double)v - h->mean);
	h->buckets[bucket_of(v)]++;
	if (!h->keep)
		return 0;
	if (h->exact_max && h->nsamples == h->exact_max) {
		/* past the bound: the histogram alone, memory stays flat */
		drop_samples(h);
		return 0;
	}
	if (h->nsamples == h->cap) {
		size_t ncap = h->cap ? 2 * h->cap : 1024;

		if (h->exact_max && ncap > h->exact_max)
			ncap = h->exact_max;
		uint64_t *n = realloc(h->samples, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		h->samples = n;
		h->cap = ncap;
	}
	h->samples[h->nsamples++] = v;
	h->sorted = 0;
	return 0;
}

int hist_merge(struct hist *dst, struct hist *src)
{
	int exact = hist_exact(dst) && hist_exact(src), ret = 0;
	uint64_t n;
	double d;

	if (!src->count)
		return 0;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	/* Chan et al.'s pairwise update of the Welford sums */
	n = dst->count + src->count;
	d = src->mean - dst->mean;
	dst->m2 += src->m2 + d * d * ((double)dst->count * (double)src->count /
				      (double)n);
	dst->mean += d * (double)src->count / (double)n;
	for (unsigned int b = 0; b < NBUCKETS; b++)
		dst->buckets[b] += src->buckets[b];
	if (exact && dst->exact_max && n > dst->exact_max)
		exact = 0;
	if (exact && !dst->nsamples) {
		free(dst->samples);
		dst->samples = src->samples;
		dst->nsamples = src->nsamples;
		dst->cap = src->cap;
		src->samples = NULL;
	} else if (exact) {
		size_t need = dst->nsamples + src->nsamples;

		if (need > dst->cap) {
			uint64_t *p = realloc(dst->samples, need * sizeof(*p));

			if (!p) {
				exact = 0;
				ret = -ENOMEM;
			} else {
				dst->samples = p;
				dst->cap = need;
			}
		}
		if (exact)
			memcpy(dst->samples + dst->nsamples, src->samples,
			       src->nsamples * sizeof(*src->samples));
		dst->nsamples = exact ? need : dst->nsamples;
	}
	dst->count = n;
	dst->sorted = 0;
	if (!exact)
		drop_samples(dst);
	drop_samples(src);
	return ret;
}

uint64_t hist_count(const struct hist *h) { return h->count; }
uint64_t hist_min(const struct hist *h) { return h->min; }
uint64_t hist_max(const struct hist *h) { return h->max; }
double hist_mean(const struct hist *h) { return h->count ? h->mean : 0; }

double hist_stddev(const struct hist *h)
{
	return h->count < 2 ? 0 : sqrt(h->m2 / (double)(h->count - 1));
}

/*
 * The 1-based rank of percentile p among n, p taken to 1e-9 so the
 * arithmetic is exact: ceil(p * n) (nearest rank) or floor(p * n) + 1
 * (the 0-based index floor(p * n)), clamped to [1, n].
 */
static uint64_t rank_of(double p, uint64_t n, int floor_index)
{
	unsigned __int128 ppb, r;

	if (!n)
		return 0;
	if (!(p > 0))
		return 1;
	if (p >= 1)
		return n;
	ppb = (unsigned __int128)llround(p * 1e9);
	r = floor_index ? ppb * n / 1000000000u + 1 :
	    (ppb * n + 999999999u) / 1000000000u;
	if (r < 1)
		r = 1;
	return r > n ? n : (uint64_t)r;
}

uint64_t hist_rank(double p, uint64_t n)
{
	return rank_of(p, n, 0);
}

uint64_t hist_rank_rule(enum hist_rule rule, double p, uint64_t n)
{
	return rank_of(p, n, rule == HIST_FLOOR_INDEX);
}

void hist_set_rule(struct hist *h, enum hist_rule rule)
{
	h->rule = rule;
}

enum hist_rule hist_get_rule(const struct hist *h)
{
	return h->rule;
}

void hist_set_exact_max(struct hist *h, size_t max)
{
	h->exact_max = max;
}

int hist_reserve(struct hist *h, size_t n)
{
	uint64_t *p;

	if (h->exact_max && n > h->exact_max)
		n = h->exact_max;
	if (!h->keep || n <= h->cap)
		return 0;
	p = realloc(h->samples, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	/* touched now: a page fault while recording costs a send its time
	 * (on a VM the host may have to back the page too) */
	memset(p + h->nsamples, 0, (n - h->nsamples) * sizeof(*p));
	h->samples = p;
	h->cap = n;
	return 0;
}

int hist_exact(const struct hist *h)
{
	return h->keep && h->nsamples == h->count;
}

/*
 * Sorting the samples in place: glibc's qsort() takes a buffer as large as
 * the array (a merge sort), and a client at its bound of a million samples
 * per distribution would peak 8 MB higher at the end of a run than during
 * it. An introsort: quicksort on the median of three, the smaller side
 * first (a stack of log n), heapsort past 2 log n levels, insertion sort
 * for the small parts.
 */
static void sift_down(uint64_t *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		uint64_t x;

		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[i] >= a[c])
			return;
		x = a[i];
		a[i] = a[c];
		a[c] = x;
		i = c;
	}
}

static void heap_sort(uint64_t *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (size_t end = n; end-- > 1;) {
		uint64_t x = a[0];

		a[0] = a[end];
		a[end] = x;
		sift_down(a, 0, end);
	}
}

static void insertion_sort(uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = a[i];
		size_t k = i;

		for (; k > 0 && a[k - 1] > x; k--)
			a[k] = a[k - 1];
		a[k] = x;
	}
}

static void intro_sort(uint64_t *a, size_t n, unsigned int depth)
{
	while (n > 16) {
		uint64_t p, x;
		size_t i = 0, k = n - 1, mid = n / 2;

		if (!depth--) {
			heap_sort(a, n);
			return;
		}
		/* the median of the first, middle and last as the pivot */
		if (a[mid] < a[0]) { x = a[mid]; a[mid] = a[0]; a[0] = x; }
		if (a[k] < a[0]) { x = a[k]; a[k] = a[0]; a[0] = x; }
		if (a[k] < a[mid]) { x = a[k]; a[k] = a[mid]; a[mid] = x; }
		p = a[mid];
		/* Hoare partition: a[0..k] <= p <= a[k+1..] */
		for (;;) {
			while (a[i] < p)
				i++;
			while (a[k] > p)
				k--;
			if (i >= k)
				break;
			x = a[i];
			a[i++] = a[k];
			a[k--] = x;
		}
		if (k + 1 < n - k - 1) {
			intro_sort(a, k + 1, depth);
			a += k + 1;
			n -= k + 1;
		} else {
			intro_sort(a + k + 1, n - k - 1, depth);
			n = k + 1;
		}
	}
	insertion_sort(a, n);
}

void hist_sort_u64(uint64_t *a, size_t n)
{
	unsigned int depth = 0;

	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	intro_sort(a, n, depth);
}

uint64_t hist_percentile_exact(struct hist *h, double p)
{
	if (!h->count)
		return 0;
	if (!h->keep || h->nsamples != h->count)
		return hist_percentile(h, p);
	if (!h->sorted) {
		hist_sort_u64(h->samples, h->nsamples);
		h->sorted = 1;
	}
	return h->samples[hist_rank_rule(h->rule, p, h->nsamples) - 1];
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	rank = hist_rank_rule(h->rule, p, h->count);
	for (unsigned int b = 0; b < NBUCKETS; b++) {
		uint64_t lo, hi, mid;

		seen += h->buckets[b];
		if (seen < rank)
			continue;
		bucket_range(b, &lo, &hi);
		mid = lo + (hi - lo) / 2;
		if (mid < h->min)
			mid = h->min;
		if (mid > h->max)
			mid = h->max;
		return mid;
	}
	return h->max;
}

int hist_rank_bounds(struct hist *h, uint64_t rank, uint64_t *lo,
		     uint64_t *hi)
{
	uint64_t seen = 0;

	if (rank < 1 || rank > h->count)
		return -EINVAL;
	if (h->keep && h->nsamples == h->count) {
		if (!h->sorted) {
			hist_sort_u64(h->samples, h->nsamples);
			h->sorted = 1;
		}
		*lo = *hi = h->samples[rank - 1];
		return 0;
	}
	for (unsigned int b = 0; b < NBUCKETS; b++) {
		seen += h->buckets[b];
		if (seen < rank)
			continue;
		bucket_range(b, lo, hi);
		if (*lo < h->min)
			*lo = h->min;
		if (*hi > h->max)
			*hi = h->max;
		return 0;
	}
	*lo = *hi = h->max;
	return 0;
}

void hist_foreach_bucket(const struct hist *h,
			 void (*fn)(uint64_t lo, uint64_t hi, uint64_t count,
				    void *arg),
			 void *arg)
{
	for (unsigned int b = 0; b < NBUCKETS; b++) {
		uint64_t lo, hi;

		if (!h->buckets[b])
			continue;
		bucket_range(b, &lo, &hi);
		fn(lo, hi, h->buckets[b], arg);
	}
}
