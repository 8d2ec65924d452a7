// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gof.h"
#include "validity.h"

#define CHUNK (64 * 1024)

struct vsample {
	uint64_t sent_ns, lat_ns;
};

struct validity_log {
	struct vsample **chunks;
	size_t nchunks, cap_chunks;
	uint64_t n, max, left_out;
};

struct validity_log *validity_log_new(uint64_t max)
{
	struct validity_log *l = calloc(1, sizeof(*l));

	if (l)
		l->max = max ? max : 1;
	return l;
}

void validity_log_free(struct validity_log *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nchunks; i++)
		free(l->chunks[i]);
	free(l->chunks);
	free(l);
}

uint64_t validity_log_count(const struct validity_log *l)
{
	return l->n;
}

uint64_t validity_log_left_out(const struct validity_log *l)
{
	return l->left_out;
}

static struct vsample *slot(const struct validity_log *l, uint64_t i)
{
	return &l->chunks[i / CHUNK][i % CHUNK];
}

int validity_log_add(struct validity_log *l, uint64_t sent_ns,
		     uint64_t lat_ns)
{
	if (l->n >= l->max) {
		l->left_out++;
		return 1;
	}
	if (l->n == (uint64_t)l->nchunks * CHUNK) {
		if (l->nchunks == l->cap_chunks) {
			size_t cap = l->cap_chunks ? 2 * l->cap_chunks : 8;
			struct vsample **c = realloc(l->chunks,
						     cap * sizeof(*c));

			if (!c)
				return -ENOMEM;
			l->chunks = c;
			l->cap_chunks = cap;
		}
		l->chunks[l->nchunks] = malloc(CHUNK * sizeof(struct vsample));
		if (!l->chunks[l->nchunks])
			return -ENOMEM;
		l->nchunks++;
	}
	*slot(l, l->n) = (struct vsample){ sent_ns, lat_ns };
	l->n++;
	return 0;
}

int validity_log_merge(struct validity_log *dst, struct validity_log *src)
{
	for (uint64_t i = 0; i < src->n; i++) {
		const struct vsample *s = slot(src, i);

		if (validity_log_add(dst, s->sent_ns, s->lat_ns) < 0)
			return -ENOMEM;
	}
	dst->left_out += src->left_out;
	for (size_t i = 0; i < src->nchunks; i++)
		free(src->chunks[i]);
	free(src->chunks);
	src->chunks = NULL;
	src->nchunks = src->cap_chunks = 0;
	src->n = src->left_out = 0;
	return 0;
}

static int by_sent(const void *a, const void *b)
{
	const struct vsample *x = a, *y = b;

	return (x->sent_ns > y->sent_ns) - (x->sent_ns < y->sent_ns);
}

static void not_run(struct validity_test *t, const char *why)
{
	t->ran = 0;
	t->pass = 1;
	t->p = NAN;
	snprintf(t->why, sizeof(t->why), "%s", why);
}

static void law_log_cdf(const void *arg, double x, double *lnf,
			double *lnsf)
{
	arrival_log_cdf(arg, x, lnf, lnsf);
}

/*
 * The laws of issue 36 with a CDF: Anderson-Darling against the law of
 * the configured mean, like exp. 0 with r filled, or non-zero when t was
 * set not run (no such test for the law, too few gaps, no memory).
 */
static int law_test(const double *gap_ns, size_t n,
		    const struct validity_cfg *c, struct validity_test *t,
		    struct gof_result *r)
{
	struct arrival_law law = { .dist = c->dist };
	struct arrival a;
	double lnf, lnsf;
	char name[64], why[sizeof(t->why)];
	size_t len;
	int ret;

	memcpy(law.par, c->par, sizeof(law.par));
	if (arrival_init_law(&a, &law, c->mean_ns, 0) ||
	    arrival_log_cdf(&a, c->mean_ns, &lnf, &lnsf)) {
		snprintf(why, sizeof(why), "no fit test for %s gaps",
			 arrival_dist_name(c->dist));
		not_run(t, why);
		return 1;
	}
	arrival_law_format(&law, name, sizeof(name));
	/* "Anderson-Darling vs lognormal:1.5, mean 500 us", cut to fit */
	snprintf(why, sizeof(why), "Anderson-Darling vs %s, mean %.0f us",
		 name, c->mean_ns / 1e3);
	len = strnlen(why, sizeof(t->what) - 1);
	memcpy(t->what, why, len);
	t->what[len] = '\0';
	ret = gof_ad_law(gap_ns, n, law_log_cdf, &a, r);
	if (ret)
		not_run(t, ret == -ENOMEM ? "out of memory" :
			"too few gaps for the test");
	return ret;
}

static void gap_test(const double *gap_ns, size_t n,
		     const struct validity_cfg *c, struct validity_test *t)
{
	struct gof_result r;
	double *us = NULL;
	int ret = -EINVAL;

	switch (c->dist) {
	case ARRIVAL_EXP:
		snprintf(t->what, sizeof(t->what),
			 "Anderson-Darling vs exp(mean %.0f us)",
			 c->mean_ns / 1e3);
		ret = gof_ad_exp(gap_ns, n, c->mean_ns, &r);
		break;
	case ARRIVAL_POISSON:
		snprintf(t->what, sizeof(t->what),
			 "chi-square vs Poisson(%.0f us)", c->mean_ns / 1e3);
		us = malloc(n * sizeof(*us));
		if (!us) {
			ret = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < n; i++)
			us[i] = gap_ns[i] / 1e3;
		ret = gof_chi2_poisson(us, n, c->mean_ns / 1e3, &r);
		free(us);
		break;
	case ARRIVAL_FIXED:
		snprintf(t->what, sizeof(t->what),
			 "spread of fixed %.0f us gaps (CV)", c->mean_ns / 1e3);
		ret = gof_spread(gap_ns, n, &r);
		break;
	default:
		if (law_test(gap_ns, n, c, t, &r))
			return;
		ret = 0;
		break;
	}
	if (ret) {
		not_run(t, ret == -ENOMEM ? "out of memory" :
			"too few gaps for the test");
		return;
	}
	t->ran = 1;
	t->stat = r.stat;
	t->p = r.p;
	t->n = r.n;
	t->pass = c->dist == ARRIVAL_FIXED ? r.stat <= VALIDITY_FIXED_CV :
		  r.p >= c->alpha;
}

static void indep_test(const double *gap_ns, size_t n, double alpha,
		       struct validity_test *t)
{
	double pmin = 1, rho = 0;

	snprintf(t->what, sizeof(t->what), "Spearman of gaps, lags 1-%d",
		 VALIDITY_LAGS);
	for (size_t lag = 1; lag <= VALIDITY_LAGS; lag++) {
		struct gof_result r;

		if (gof_spearman_lag(gap_ns, n, lag, &r)) {
			not_run(t, "too few gaps for the test");
			return;
		}
		/* a constant series (fixed gaps kept exactly): no
		 * dependence to see */
		if (!isnan(r.p) && r.p < pmin) {
			pmin = r.p;
			rho = r.stat;
		}
		t->n = r.n;
	}
	t->ran = 1;
	t->stat = rho;		/* the rho of the smallest p */
	t->p = pmin;
	t->pass = pmin >= alpha / VALIDITY_LAGS;
}

static void stationary_test(const double *lat, size_t n, double alpha,
			    struct validity_test *t)
{
	struct gof_result r;
	double lo, hi;

	snprintf(t->what, sizeof(t->what), "Kruskal-Wallis, %d windows",
		 VALIDITY_WINDOWS);
	if (gof_kruskal(lat, n, VALIDITY_WINDOWS, &r)) {
		not_run(t, "too few replies for the test");
		return;
	}
	t->ran = 1;
	t->stat = r.stat;
	t->p = r.p;
	t->n = r.n;
	t->pass = r.p >= alpha;
	if (!gof_window_medians(lat, n, VALIDITY_WINDOWS, &lo, &hi))
		snprintf(t->detail, sizeof(t->detail),
			 "window medians %.1f-%.1f us", lo / 1e3, hi / 1e3);
}

int validity_run(const struct validity_log *l, const struct validity_cfg *cfg,
		 struct validity *v)
{
	struct validity_cfg c = *cfg;
	struct vsample *s = NULL;
	double *gaps = NULL, *lat = NULL;
	size_t n = (size_t)l->n, nlat = 0;
	int ret = 0;

	memset(v, 0, sizeof(*v));
	if (!(c.alpha > 0))
		c.alpha = VALIDITY_ALPHA;
	v->alpha = c.alpha;
	v->n = l->n;
	v->left_out = l->left_out;
	if (n) {
		s = malloc(n * sizeof(*s));
		gaps = malloc(n * sizeof(*gaps));
		lat = malloc(n * sizeof(*lat));
		if (!s || !gaps || !lat) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++)
		s[i] = *slot(l, i);
	if (n)	/* no request measured: s is NULL, which qsort may not get */
		qsort(s, n, sizeof(*s), by_sent);
	for (size_t i = 1; i < n; i++)
		gaps[i - 1] = (double)(s[i].sent_ns - s[i - 1].sent_ns);
	for (size_t i = 0; i < n; i++)
		if (s[i].lat_ns != VALIDITY_NO_REPLY)
			lat[nlat++] = (double)s[i].lat_ns;
	if (c.closed) {
		not_run(&v->gaps, "closed loop: the gaps follow the replies, not a schedule");
		not_run(&v->indep, "closed loop: the gaps follow the replies, not a schedule");
	} else if (c.varying) {
		not_run(&v->gaps, "the gaps follow no single law (a burst, a rate profile or a replayed trace)");
		not_run(&v->indep, "the gaps depend on one another by design (a burst, a rate profile or a replayed trace)");
	} else {
		gap_test(gaps, n ? n - 1 : 0, &c, &v->gaps);
		indep_test(gaps, n ? n - 1 : 0, c.alpha, &v->indep);
	}
	stationary_test(lat, nlat, c.alpha, &v->stationary);
	v->pass = v->gaps.pass && v->indep.pass && v->stationary.pass;
out:
	free(s);
	free(gaps);
	free(lat);
	return ret;
}
