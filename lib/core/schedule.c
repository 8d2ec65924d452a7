// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <string.h>
#include "proto.h"
#include "schedule.h"

/* The ops-and-keys generator's seed: its own stream, so the gaps do not
 * depend on the protocol. */
#define SCHEDULE_KEY_SEED 0x6b65792d6f707321ull

int schedule_take(uint64_t *sum, uint64_t taken, uint64_t g,
		  uint64_t duration_ns)
{
	if (taken && (g > duration_ns || *sum > duration_ns - g))
		return 0;
	*sum += g;
	return 1;
}

int schedule_gen_init(struct schedule_gen *g, const struct schedule_cfg *cfg)
{
	struct arrival_law law = { .dist = cfg->dist };

	memset(g, 0, sizeof(*g));
	g->cfg = *cfg;
	memcpy(law.par, cfg->dist_par, sizeof(law.par));
	if (!cfg->requests && !cfg->duration_ns)
		return -EINVAL;
	if (cfg->replay && (!cfg->replay->n ||
			    cfg->warmup + cfg->requests > cfg->replay->n))
		return -EINVAL;
	if (!cfg->replay &&
	    arrival_init_law(&g->a, &law, cfg->profile ?
			     SCHEDULE_PROFILE_UNIT_NS : cfg->mean_ns, cfg->seed))
		return -EINVAL;
	if (cfg->warmup_mean_ns > 0 &&
	    arrival_init(&g->wa, cfg->warmup_dist, cfg->warmup_mean_ns,
			 cfg->seed + 1))
		return -EINVAL;
	if (cfg->keyed) {
		if (keydist_init(&g->kd, &cfg->key_dist, cfg->keys))
			return -EINVAL;
		prng_seed(&g->kp, cfg->seed ^ SCHEDULE_KEY_SEED);
	}
	return 0;
}

/*
 * Gap i as the trace, the profile or the law has it. A profile's time is
 * rounded to the ns once, so its gaps add up to it exactly.
 */
static uint64_t law_gap(struct schedule_gen *g)
{
	uint64_t t, prev = g->pt;

	if (g->cfg.replay)
		return g->cfg.replay->gap_ns[g->i];
	if (!g->cfg.profile)
		return arrival_next_ns(&g->a);
	g->u += (double)arrival_next_ns(&g->a) / SCHEDULE_PROFILE_UNIT_NS;
	t = (uint64_t)llround(rateprof_time(g->cfg.profile, &g->ppos, g->u));
	t = t < prev ? prev : t;
	g->pt = t;
	return t - prev;
}

/*
 * Gap i. A warm-up gap from its own generator when it has one; the
 * measured generator draws (and drops) one then too, so the measured
 * gaps are the very draws they would be without it.
 */
static uint64_t next_gap(struct schedule_gen *g)
{
	uint64_t gap = law_gap(g);

	if (g->i < g->cfg.warmup && g->cfg.warmup_mean_ns > 0)
		gap = arrival_next_ns(&g->wa);
	return gap + g->cfg.gap_add_ns;
}

int schedule_gen_next(struct schedule_gen *g, struct schedule_req *q)
{
	const struct schedule_cfg *cfg = &g->cfg;
	uint64_t gap;

	if (g->done)
		return 0;
	if ((cfg->requests && g->i == cfg->warmup + cfg->requests) ||
	    (cfg->replay && g->i == cfg->replay->n)) {
		g->done = 1;
		return 0;
	}
	gap = next_gap(g);
	if (!cfg->requests && g->i >= cfg->warmup) {
		if (!schedule_take(&g->sum, g->taken, gap, cfg->duration_ns)) {
			g->done = 1;
			return 0;
		}
		g->taken++;
	}
	g->t += gap;
	q->seq = g->i++;
	q->gap_ns = gap;
	q->t_ns = g->t;
	q->op = 0;
	q->key = 0;
	if (cfg->keyed && cfg->replay && cfg->replay->keyed) {
		/* the trace's own (q->seq is its line) */
		q->op = cfg->replay->op[q->seq] == REPLAY_OP_GET ?
			PROTO_OP_GET : PROTO_OP_SET;
		q->key = cfg->replay->key[q->seq];
	} else if (cfg->keyed) {
		q->op = prng_uniform(&g->kp) < cfg->get_ratio ? PROTO_OP_GET :
			PROTO_OP_SET;
		q->key = keydist_next(&g->kd, &g->kp);
	}
	return 1;
}

int schedule_count(const struct schedule_cfg *cfg, uint64_t *n)
{
	struct schedule_cfg c = *cfg;
	struct schedule_gen g;
	struct schedule_req q;
	int ret;

	*n = 0;
	c.keyed = 0;	/* the count does not depend on them */
	ret = schedule_gen_init(&g, &c);
	if (ret)
		return ret;
	if (cfg->requests) {
		*n = cfg->warmup + cfg->requests;
		return 0;
	}
	for (;;) {
		if (cfg->cancel && !(g.i % SCHEDULE_CANCEL_EVERY) &&
		    cfg->cancel(cfg->cancel_arg))
			return -EINTR;
		if (!schedule_gen_next(&g, &q))
			break;
	}
	*n = g.i;
	return 0;
}
