// SPDX-License-Identifier: GPL-2.0
/* The send schedule: drawn as it goes, the same as the arrays it was
 * drawn into before; warm-up first, intended times from the gaps, the
 * duration rule; the output directory a run owns. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "keydist.h"
#include "outdir.h"
#include "proto.h"
#include "schedule.h"

/*
 * The schedule as the client drew it before it was streamed (commit
 * 53569e7, lib/schedule.c's schedule_build(), now in lib/core/, and
 * client/run.c's draw_keys()), kept here verbatim but for names: the
 * whole schedule into arrays. The streamed generator must give the same requests.
 */
struct old_schedule {
	uint64_t n;		/* warmup + measured */
	uint64_t warmup;
	uint64_t *gap_ns;	/* [n] */
	uint64_t *intended_ns;	/* [n], relative to the start */
	uint8_t *op;		/* [n] keyed */
	uint64_t *key;		/* [n] keyed */
};

static void old_schedule_times(const uint64_t *gap_ns, uint64_t n, uint64_t *t)
{
	uint64_t acc = 0;

	for (uint64_t i = 0; i < n; i++) {
		acc += gap_ns[i];
		t[i] = acc;
	}
}

static void old_schedule_free(struct old_schedule *s)
{
	free(s->gap_ns);
	free(s->intended_ns);
	free(s->op);
	free(s->key);
	memset(s, 0, sizeof(*s));
}

static int old_grow(struct old_schedule *s, uint64_t *cap)
{
	uint64_t ncap = *cap ? 2 * *cap : 1024;
	uint64_t *g = realloc(s->gap_ns, ncap * sizeof(*g));

	if (!g)
		return -ENOMEM;
	s->gap_ns = g;
	*cap = ncap;
	return 0;
}

static uint64_t old_next_gap(const struct schedule_cfg *cfg, struct arrival *a,
			     struct arrival *wa, uint64_t i)
{
	uint64_t g = arrival_next_ns(a);

	if (i < cfg->warmup && cfg->warmup_mean_ns > 0)
		g = arrival_next_ns(wa);
	return g + cfg->gap_add_ns;
}

static int old_schedule_build(struct old_schedule *s,
			      const struct schedule_cfg *cfg)
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
		for (uint64_t i = 0; i < cap; i++)
			s->gap_ns[i] = old_next_gap(cfg, &a, &wa, i);
		s->n = cap;
	} else {
		for (uint64_t i = 0;; i++) {
			uint64_t g = old_next_gap(cfg, &a, &wa, i);

			if (i >= cfg->warmup) {
				if (!schedule_take(&sum, taken, g, cfg->duration_ns))
					break;
				taken++;
			}
			if (i == cap && old_grow(s, &cap)) {
				old_schedule_free(s);
				return -ENOMEM;
			}
			s->gap_ns[i] = g;
			s->n = i + 1;
		}
	}
	s->intended_ns = malloc((s->n ? s->n : 1) * sizeof(*s->intended_ns));
	if (!s->intended_ns) {
		old_schedule_free(s);
		return -ENOMEM;
	}
	old_schedule_times(s->gap_ns, s->n, s->intended_ns);
	return 0;
}

/* client/run.c's draw_keys(): its own generator, seeded from the seed. */
static int old_draw_keys(struct old_schedule *s, const struct schedule_cfg *cfg)
{
	struct keydist kd;
	struct prng p;

	if (!cfg->keyed)
		return 0;
	if (keydist_init(&kd, &cfg->key_dist, cfg->keys))
		return -EINVAL;
	s->op = malloc(s->n ? s->n : 1);
	s->key = malloc((s->n ? s->n : 1) * sizeof(*s->key));
	if (!s->op || !s->key)
		return -ENOMEM;
	prng_seed(&p, cfg->seed ^ 0x6b65792d6f707321ull);
	for (uint64_t i = 0; i < s->n; i++) {
		s->op[i] = prng_uniform(&p) < cfg->get_ratio ? PROTO_OP_GET :
			   PROTO_OP_SET;
		s->key[i] = keydist_next(&kd, &p);
	}
	return 0;
}

/* The streamed generator against the arrays, request by request. */
static void same_as_old(const struct schedule_cfg *cfg)
{
	struct old_schedule old;
	struct schedule_gen g;
	struct schedule_req q;
	uint64_t n = 0, count;

	ck_assert_int_eq(old_schedule_build(&old, cfg), 0);
	ck_assert_int_eq(old_draw_keys(&old, cfg), 0);
	ck_assert_int_eq(schedule_gen_init(&g, cfg), 0);
	while (schedule_gen_next(&g, &q)) {
		ck_assert_uint_lt(n, old.n);
		ck_assert_uint_eq(q.seq, n);
		ck_assert_uint_eq(q.gap_ns, old.gap_ns[n]);
		ck_assert_uint_eq(q.t_ns, old.intended_ns[n]);
		if (cfg->keyed) {
			ck_assert_uint_eq(q.op, old.op[n]);
			ck_assert_uint_eq(q.key, old.key[n]);
		}
		n++;
	}
	ck_assert_uint_eq(n, old.n);
	/* once ended, it stays ended */
	ck_assert_int_eq(schedule_gen_next(&g, &q), 0);
	ck_assert_int_eq(schedule_count(cfg, &count), 0);
	ck_assert_uint_eq(count, old.n);
	old_schedule_free(&old);
}

START_TEST(streamed_same_as_arrays)
{
	static const enum arrival_dist dists[] = {
		ARRIVAL_FIXED, ARRIVAL_EXP, ARRIVAL_POISSON,
	};

	for (unsigned int d = 0; d < 3; d++) {
		struct schedule_cfg cfg = {
			.dist = dists[d], .mean_ns = 20000, .seed = 7 + d,
			.warmup = 300, .requests = 20000,
		};

		/* by count, then by duration (the rule ends the schedule) */
		same_as_old(&cfg);
		cfg.requests = 0;
		cfg.duration_ns = 150000000;
		same_as_old(&cfg);
		/* a warm-up generator of its own, a gap added, no warm-up */
		cfg.warmup_dist = ARRIVAL_POISSON;
		cfg.warmup_mean_ns = 100000;
		cfg.gap_add_ns = 1234;
		same_as_old(&cfg);
		cfg.warmup = 0;
		same_as_old(&cfg);
		/* key-value: ops and keys, uniform and zipf */
		cfg.keyed = 1;
		cfg.get_ratio = 0.7;
		cfg.keys = 1000;
		cfg.key_dist.kind = KEYDIST_UNIFORM;
		same_as_old(&cfg);
		cfg.key_dist.kind = KEYDIST_ZIPF;
		cfg.key_dist.s = 0.99;
		cfg.warmup = 50;
		cfg.requests = 5000;
		cfg.duration_ns = 0;
		same_as_old(&cfg);
	}
}
END_TEST

/* Draws cfg's whole schedule into gaps[] and t[] (at most max). */
static uint64_t collect(const struct schedule_cfg *cfg, uint64_t *gaps,
			uint64_t *t, uint64_t max)
{
	struct schedule_gen g;
	struct schedule_req q;
	uint64_t n = 0;

	ck_assert_int_eq(schedule_gen_init(&g, cfg), 0);
	while (schedule_gen_next(&g, &q)) {
		ck_assert_uint_lt(n, max);
		gaps[n] = q.gap_ns;
		t[n++] = q.t_ns;
	}
	return n;
}

START_TEST(count_warmup_first)
{
	struct schedule_cfg cfg = {
		.dist = ARRIVAL_EXP, .mean_ns = 1000, .seed = 3,
		.warmup = 20, .requests = 100,
	};
	uint64_t gaps[200], ts[200], n, t = 0;
	struct arrival a;

	n = collect(&cfg, gaps, ts, 200);
	ck_assert_uint_eq(n, 120);
	/* the generator's gaps in order, warm-up first; t_i = sum of gaps */
	arrival_init(&a, ARRIVAL_EXP, 1000, 3);
	for (uint64_t i = 0; i < n; i++) {
		ck_assert_uint_eq(gaps[i], arrival_next_ns(&a));
		t += gaps[i];
		ck_assert_uint_eq(ts[i], t);
	}
}
END_TEST

/* Warm-up gaps of their own (the thesis' three-tier runs: 10 ms Poisson)
 * leave the measured draws as they were; gap_add_ns lengthens every gap. */
START_TEST(warmup_generator_and_gap_add)
{
	struct schedule_cfg base = {
		.dist = ARRIVAL_EXP, .mean_ns = 1000, .seed = 3,
		.warmup = 20, .requests = 100,
	};
	struct schedule_cfg cfg = base;
	uint64_t g0[120], t0[120], g[120], t[120];
	struct schedule_gen gen;
	struct arrival wa;

	cfg.warmup_dist = ARRIVAL_POISSON;
	cfg.warmup_mean_ns = 10000000;
	ck_assert_uint_eq(collect(&base, g0, t0, 120), 120);
	ck_assert_uint_eq(collect(&cfg, g, t, 120), 120);
	arrival_init(&wa, ARRIVAL_POISSON, 10000000, 4);
	for (uint64_t i = 0; i < 20; i++)
		ck_assert_uint_eq(g[i], arrival_next_ns(&wa));
	for (uint64_t i = 20; i < 120; i++)
		ck_assert_uint_eq(g[i], g0[i]);
	cfg = base;
	cfg.gap_add_ns = 50000;
	ck_assert_uint_eq(collect(&cfg, g, t, 120), 120);
	for (uint64_t i = 0; i < 120; i++)
		ck_assert_uint_eq(g[i], g0[i] + 50000);
	ck_assert_uint_eq(t[119], t0[119] + 120 * 50000);
	/* a bad warm-up generator is a bad configuration */
	cfg = base;
	cfg.warmup_dist = ARRIVAL_POISSON;
	cfg.warmup_mean_ns = 0.5;
	ck_assert_int_eq(schedule_gen_init(&gen, &cfg), -EINVAL);
}
END_TEST

START_TEST(duration_rule)
{
	struct schedule_cfg cfg = {
		.dist = ARRIVAL_FIXED, .mean_ns = 1000, .seed = 1,
		.warmup = 5, .duration_ns = 10500,
	};
	uint64_t g[20], t[20], sum = 0, n;

	/* fixed 1 us gaps, 10.5 us: 10 measured (the 11th would pass it),
	 * the warm-up not counted towards the duration */
	ck_assert_uint_eq(collect(&cfg, g, t, 20), 15);
	ck_assert_uint_eq(t[14], 15000);
	ck_assert_int_eq(schedule_count(&cfg, &n), 0);
	ck_assert_uint_eq(n, 15);
	/* exactly the duration: taken */
	cfg.duration_ns = 10000;
	ck_assert_uint_eq(collect(&cfg, g, t, 20), 15);
	/* a duration shorter than one gap: still one measured request */
	cfg.duration_ns = 10;
	ck_assert_uint_eq(collect(&cfg, g, t, 20), 6);
	/* the rule, one gap at a time; no overflow near 2^64 */
	ck_assert_int_eq(schedule_take(&sum, 0, 50, 10), 1);
	ck_assert_uint_eq(sum, 50);
	ck_assert_int_eq(schedule_take(&sum, 1, 1, 10), 0);
	sum = 1;
	ck_assert_int_eq(schedule_take(&sum, 1, UINT64_MAX - 2, UINT64_MAX), 1);
	ck_assert_int_eq(schedule_take(&sum, 2, 3, UINT64_MAX), 0);
}
END_TEST

START_TEST(bad_config)
{
	struct schedule_cfg cfg = { .dist = ARRIVAL_FIXED, .mean_ns = 1000 };
	struct schedule_gen g;
	uint64_t n;

	ck_assert_int_eq(schedule_gen_init(&g, &cfg), -EINVAL);	/* neither */
	ck_assert_int_eq(schedule_count(&cfg, &n), -EINVAL);
	cfg.requests = 1;
	cfg.mean_ns = 0;
	ck_assert_int_eq(schedule_gen_init(&g, &cfg), -EINVAL);
	/* key-value: no keys */
	cfg.mean_ns = 1000;
	cfg.keyed = 1;
	ck_assert_int_eq(schedule_gen_init(&g, &cfg), -EINVAL);
}
END_TEST

/* stops on the k-th question; counts them */
static int cancel_at(void *arg)
{
	int *left = arg;

	return --*left <= 0;
}

START_TEST(cancel_stops_counting)
{
	struct schedule_cfg cfg = { .dist = ARRIVAL_EXP, .mean_ns = 1000,
				    .seed = 1, .duration_ns = 1000000000000ull,
				    .cancel = cancel_at };
	uint64_t n = 1;
	int left = 3;

	/* asked at gaps 0, EVERY and 2 EVERY: stops on the third */
	cfg.cancel_arg = &left;
	ck_assert_int_eq(schedule_count(&cfg, &n), -EINTR);
	ck_assert_int_eq(left, 0);
	ck_assert_uint_eq(n, 0);
	/* never cancelling: the whole schedule, asked once per EVERY gaps
	 * (fixed 1 us gaps: 3 EVERY - 1 of them, asked at 0, EVERY, 2 EVERY) */
	left = 1000;
	cfg.dist = ARRIVAL_FIXED;
	cfg.duration_ns = 3ull * SCHEDULE_CANCEL_EVERY * 1000 - 1;
	ck_assert_int_eq(schedule_count(&cfg, &n), 0);
	ck_assert_uint_eq(n, 3 * SCHEDULE_CANCEL_EVERY - 1);
	ck_assert_int_eq(left, 1000 - 3);
	/* by count: known without drawing */
	cfg.duration_ns = 0;
	cfg.requests = 5;
	cfg.warmup = 2;
	ck_assert_int_eq(schedule_count(&cfg, &n), 0);
	ck_assert_uint_eq(n, 7);
}
END_TEST

static const char *const owned[] = { "summary.csv", "requests.csv", NULL };

static void touch(const char *dir, const char *name)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
}

static int exists(const char *dir, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

START_TEST(outdir_rules)
{
	char base[] = "/tmp/wb-outdir.XXXXXX", dir[256], err[256];

	ck_assert_ptr_nonnull(mkdtemp(base));
	/* missing parents are created */
	snprintf(dir, sizeof(dir), "%s/a/b/run", base);
	ck_assert_int_eq(outdir_prepare(dir, owned, 0, err, sizeof(err)), 0);
	ck_assert(access(dir, W_OK) == 0);
	/* empty: fine again, and the write probe left nothing behind */
	ck_assert_int_eq(outdir_prepare(dir, owned, 0, err, sizeof(err)), 0);
	/* a previous run's files: refused without force */
	touch(dir, "summary.csv");
	touch(dir, "notes.txt");
	ck_assert_int_eq(outdir_prepare(dir, owned, 0, err, sizeof(err)),
			 -ENOTEMPTY);
	ck_assert(strstr(err, "--force"));
	ck_assert(exists(dir, "summary.csv"));
	/* force: removes the owned files and nothing else */
	ck_assert_int_eq(outdir_prepare(dir, owned, 1, err, sizeof(err)), 0);
	ck_assert(!exists(dir, "summary.csv"));
	ck_assert(exists(dir, "notes.txt"));
	/* a file where the directory should be */
	snprintf(dir, sizeof(dir), "%s/a/b/run/notes.txt", base);
	ck_assert_int_eq(outdir_prepare(dir, owned, 0, err, sizeof(err)),
			 -ENOTDIR);
	snprintf(dir, sizeof(dir), "%s/a/b/run/notes.txt/sub", base);
	ck_assert_int_lt(outdir_prepare(dir, owned, 0, err, sizeof(err)), 0);
	ck_assert(strstr(err, "cannot create"));
	ck_assert_int_eq(unit_rmtree(base), 0);
}
END_TEST

Suite *schedule_suite(void)
{
	Suite *s = suite_create("schedule");
	TCase *tc = tcase_create("schedule");

	tcase_add_test(tc, streamed_same_as_arrays);
	tcase_add_test(tc, count_warmup_first);
	tcase_add_test(tc, duration_rule);
	tcase_add_test(tc, warmup_generator_and_gap_add);
	tcase_add_test(tc, bad_config);
	tcase_add_test(tc, cancel_stops_counting);
	tcase_add_test(tc, outdir_rules);
	suite_add_tcase(s, tc);
	return s;
}
