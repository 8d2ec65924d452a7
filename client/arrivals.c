// SPDX-License-Identifier: GPL-2.0
/* --dist's laws, --rate-profile and --arrivals (issue 36). */
#include <math.h>
#include <stdio.h>
#include "client.h"
#include "die.h"

void client_free_arrivals(struct client_opts *o)
{
	rateprof_free(&o->profile);
	replay_free(&o->replay);
}

const char *client_dist_name(const struct client_opts *o)
{
	return o->arrivals ? "replay" : o->dist_name;
}

/*
 * The profile's mean gap over the run: its span over the requests it
 * expects there (a duration), or the time its count reaches the requests.
 */
static double profile_mean_gap(const struct client_opts *o)
{
	struct rateprof_pos pos = { 0 };
	double n;

	if (o->duration_s > 0)
		return o->duration_s * 1e9 /
		       fmax(rateprof_count(&o->profile, o->duration_s * 1e9), 1);
	n = (double)(o->requests + o->warmup);
	return rateprof_time(&o->profile, &pos, n) / n;
}

static void check_profile(struct client_opts *o)
{
	char err[512];

	if (o->have_interval || o->have_rate)
		opt_usage(PROG, "--rate-profile gives the rate: no --interval-us or --rate");
	if (o->dist == ARRIVAL_POISSON || !arrival_law_renewal(o->dist))
		opt_usage(PROG, "--rate-profile draws unit-mean gaps of --dist: fixed, exp, lognormal, pareto, gev, weibull or fb-etc, not %s",
			  o->dist_name);
	if (o->closed)
		opt_usage(PROG, "--rate-profile is for an open loop, not --closed");
	if (rateprof_load(o->rate_profile, &o->profile, err, sizeof(err)))
		opt_usage(PROG, "--rate-profile %s", err);
	o->interval_ns = profile_mean_gap(o);
}

static void check_replay(struct client_opts *o)
{
	double scale = o->have_arrivals_scale ? o->arrivals_scale : 1, sum = 0;
	char err[512];

	if (o->dist_arg || o->have_interval || o->have_rate || o->rate_profile)
		opt_usage(PROG, "--arrivals gives the gaps: no --dist, --interval-us, --rate or --rate-profile");
	if (o->closed)
		opt_usage(PROG, "--arrivals is for an open loop, not --closed");
	if (replay_load(o->arrivals, o->arrivals_offsets, scale, &o->replay,
			err, sizeof(err)))
		opt_usage(PROG, "--arrivals %s", err);
	if (!o->have_requests && !(o->duration_s > 0)) {
		if (o->replay.n <= o->warmup)
			opt_usage(PROG, "--arrivals %s has %zu gaps: not more than --warmup %llu",
				  o->arrivals, o->replay.n,
				  (unsigned long long)o->warmup);
		o->requests = o->replay.n - o->warmup;
	} else if (o->requests + o->warmup > o->replay.n) {
		opt_usage(PROG, "--arrivals %s has %zu gaps: --requests plus --warmup at most that",
			  o->arrivals, o->replay.n);
	}
	if (o->replay.keyed && o->proto_arg != CPROTO_MEMCACHED &&
	    o->proto_arg != CPROTO_REDIS)
		opt_usage(PROG, "--arrivals %s has op and key columns: they need --proto memcached or redis",
			  o->arrivals);
	if (o->replay.keyed && o->replay.max_key >= o->keys)
		opt_usage(PROG, "--arrivals %s has key %llu: keys go up to --keys %llu less 1",
			  o->arrivals, (unsigned long long)o->replay.max_key,
			  (unsigned long long)o->keys);
	for (size_t i = 0; i < o->replay.n; i++)
		sum += (double)o->replay.gap_ns[i];
	/* the mean gap the summaries' target rate is of (1 ns at least) */
	o->interval_ns = fmax(sum / (double)o->replay.n, 1);
}

void client_check_arrivals(struct client_opts *o)
{
	char err[512];

	if (arrival_law_parse(o->dist_arg ? o->dist_arg : "fixed", &o->law,
			      err, sizeof(err)))
		opt_usage(PROG, "--dist %s", err);
	o->dist = o->law.dist;
	arrival_law_format(&o->law, o->dist_name, sizeof(o->dist_name));
	if (o->warmup_interval_ns > 0 && !o->have_warmup_dist &&
	    o->dist > ARRIVAL_POISSON)
		opt_usage(PROG, "--warmup-interval-us with --dist %s needs --warmup-dist fixed, exp or poisson",
			  o->dist_name);
	if ((o->arrivals_offsets || o->have_arrivals_scale) && !o->arrivals)
		opt_usage(PROG, "--arrivals-offsets and --arrivals-scale need --arrivals FILE");
	if (o->arrivals)
		check_replay(o);
	else if (o->rate_profile)
		check_profile(o);
}
