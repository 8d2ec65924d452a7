// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "schedule.h"

int schedule_take(uint64_t *sum, uint64_t taken, uint64_t g,
		  uint64_t duration_ns)
{
	if (taken && (g > duration_ns || *sum > duration_ns - g))
		return 0;
	*sum += g;
	return 1;
}

void schedule_times(const uint64_t *gap_ns, uint64_t n, uint64_t *t)
{
	uint64_t acc = 0;

	for (uint64_t i = 0; i < n; i++) {
		acc += gap_ns[i];
		t[i] = acc;
	}
}

void schedule_free(struct schedule *s)
{
	free(s->gap_ns);
	free(s->intended_ns);
	s->gap_ns = s->intended_ns = NULL;
	s->n = 0;
}

static int grow(struct schedule *s, uint64_t *cap)
{
	uint64_t ncap = *cap ? 2 * *cap : 1024;
	uint64_t *g = realloc(s->gap_ns, ncap * sizeof(*g));

	if (!g)
		return -ENOMEM;
	s->gap_ns = g;
	*cap = ncap;
	return 0;
}

static int cancelled(const struct schedule_cfg *cfg, uint64_t i)
{
	return cfg->cancel && !(i % SCHEDULE_CANCEL_EVERY) &&
	       cfg->cancel(cfg->cancel_arg);
}

/*
 * Gap i. A warm-up gap from its own generator when it has one; the
 * measured generator draws (and drops) one then too, so the measured
 * gaps are the very draws they would be without it.
 */
static uint64_t next_gap(const struct schedule_cfg *cfg, struct arrival *a,
			 struct arrival *wa, uint64_t i)
{
	uint64_t g = arrival_next_ns(a);

	if (i < cfg->warmup && cfg->warmup_mean_ns > 0)
		g = arrival_next_ns(wa);
	return g + cfg->gap_add_ns;
}

int schedule_build(struct schedule *s, const struct schedule_cfg *cfg)
{
	struct arrival a, wa;
	uint64_t cap = 0, sum = 0, taken = 0;

	memset(s, 0, sizeof(*s));
	if ((!cfg->requests && !cfg->duration_ns) ||
	    arrival_init(&a, cfg->dist, cfg->mean_ns, cfg->seed))
		return -EINVAL;
	if (cfg->warmup_mean_ns > 0 &&
	    arrival_init(&wa, cfg->warmup_dist, cfg->warmup_mean_ns,
			 cfg->seed + 1))
		return -EINVAL;
	s->warmup = cfg->warmup;
	if (cfg->requests) {
		cap = cfg->warmup + cfg->requests;
		s->gap_ns = malloc(cap * sizeof(*s->gap_ns));
		if (!s->gap_ns)
			return -ENOMEM;
		for (uint64_t i = 0; i < cap; i++) {
			if (cancelled(cfg, i)) {
				schedule_free(s);
				return -EINTR;
			}
			s->gap_ns[i] = next_gap(cfg, &a, &wa, i);
		}
		s->n = cap;
	} else {
		for (uint64_t i = 0;; i++) {
			uint64_t g = next_gap(cfg, &a, &wa, i);

			if (cancelled(cfg, i)) {
				schedule_free(s);
				return -EINTR;
			}
			if (i >= cfg->warmup) {
				if (!schedule_take(&sum, taken, g, cfg->duration_ns))
					break;
				taken++;
			}
			if (i == cap && grow(s, &cap)) {
				schedule_free(s);
				return -ENOMEM;
			}
			s->gap_ns[i] = g;
			s->n = i + 1;
		}
	}
	s->intended_ns = malloc((s->n ? s->n : 1) * sizeof(*s->intended_ns));
	if (!s->intended_ns) {
		schedule_free(s);
		return -ENOMEM;
	}
	schedule_times(s->gap_ns, s->n, s->intended_ns);
	return 0;
}
