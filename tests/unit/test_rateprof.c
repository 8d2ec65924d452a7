// SPDX-License-Identifier: GPL-2.0
/*
 * The rate profile (--rate-profile) and trace replay (--arrivals) of
 * issue 36: their files read strictly (path:line in each error), the
 * profile's expected count by hand, the achieved rate per window within
 * its Poisson interval, a replayed trace's gaps exactly.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "rateprof.h"
#include "replay.h"
#include "proto.h"
#include "schedule.h"

static char dir[64];

/* Each test's scratch directory, made before it and removed after. */
static void scratch_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/wb-rateprof-XXXXXX");
	ck_assert_msg(mkdtemp(dir), "mkdtemp");
}

static void scratch_teardown(void)
{
	unit_rmtree(dir);
}

static const char *scratch(const char *name, const char *text)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unit_put(path, text);
	return path;
}

/* 2000/s ramping to 10000/s over 2 s, 10000/s for 1 s, then 500/s. */
static const char *const ramp_text =
	"# t_s rate\n0 2000 ramp\n2 10000\n\n3 500 step\n";

START_TEST(profile_counts_by_hand)
{
	struct rateprof p;
	struct rateprof_pos pos = { 0 };
	char err[256];

	ck_assert_int_eq(rateprof_load(scratch("ramp", ramp_text), &p, err,
				       sizeof(err)), 0);
	ck_assert_uint_eq(p.n, 3);
	/* 2000 + 4000 t a second for 2 s (mean 6000/s), 1 s of 10000,
	 * then 500 a second */
	ck_assert(fabs(rateprof_count(&p, 1e9) - 4000) < 1e-6);
	ck_assert(fabs(rateprof_count(&p, 2e9) - 12000) < 1e-6);
	ck_assert(fabs(rateprof_count(&p, 3e9) - 22000) < 1e-6);
	ck_assert(fabs(rateprof_count(&p, 5e9) - 23000) < 1e-6);
	/* and back: the inverse of the count */
	ck_assert(fabs(rateprof_time(&p, &pos, 4000) - 1e9) < 1e-3);
	ck_assert(fabs(rateprof_time(&p, &pos, 22000) - 3e9) < 1e-3);
	ck_assert(fabs(rateprof_time(&p, &pos, 23000) - 5e9) < 1e-3);
	rateprof_free(&p);
}
END_TEST

START_TEST(profile_bad_files)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "1 100\n", "f:1: the first point is at 0 s" },
		{ "0 100\n0 200\n", "f:2: 0 s: times increase" },
		{ "0 100\n1 x\n", "f:2: expected 'T_S RATE" },
		{ "0 100 jump\n", "f:1: 'jump': the third column" },
		{ "0 100 ramp 3\n", "f:1: more than 3 columns" },
		{ "0 -1\n", "f:1: rate -1" },
		{ "0 100 ramp\n", "f: the last point ramps" },
		{ "0 100\n5 0\n", "f: the last rate holds" },
		{ "# nothing\n", "f: no points" },
	};
	struct rateprof p;
	char err[256], path[300];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *f = scratch("f", bad[i].text);

		ck_assert_int_eq(rateprof_load(f, &p, err, sizeof(err)), -EINVAL);
		ck_assert_msg(!strncmp(err, f, strlen(f)) &&
			      strstr(err, bad[i].want + 1), "%zu: %s", i, err);
	}
	/* a link is not followed */
	snprintf(path, sizeof(path), "%s/link", dir);
	ck_assert_int_eq(symlink(scratch("ok", "0 100\n"), path), 0);
	ck_assert_int_ne(rateprof_load(path, &p, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_int_ne(rateprof_load(dir, &p, err, sizeof(err)), 0);
}
END_TEST

/* Exp gaps through the ramp profile: each 0.25 s window's count within
 * its Poisson 99.9 % interval of the profile's expected count. */
START_TEST(profile_rate_per_window)
{
	struct schedule_cfg cfg = { .dist = ARRIVAL_EXP, .seed = 9,
				    .duration_ns = 6000000000ull };
	struct schedule_gen g;
	struct schedule_req q;
	struct rateprof p;
	double cnt[24] = { 0 };
	char err[256];

	ck_assert_int_eq(rateprof_load(scratch("ramp", ramp_text), &p, err,
				       sizeof(err)), 0);
	cfg.profile = &p;
	ck_assert_int_eq(schedule_gen_init(&g, &cfg), 0);
	while (schedule_gen_next(&g, &q))
		cnt[q.t_ns / 250000000ull]++;
	for (int w = 0; w < 24; w++) {
		double e = rateprof_count(&p, (w + 1) * 250e6) -
			   rateprof_count(&p, w * 250e6);

		ck_assert_msg(fabs(cnt[w] - e) < 3.29 * sqrt(e),
			      "window %d: %.0f, expected %.1f", w, cnt[w], e);
	}
	rateprof_free(&p);
}
END_TEST

/* Fixed gaps follow the rate exactly: 1 ms, then 0.5 ms. */
START_TEST(profile_fixed_steps)
{
	struct schedule_cfg cfg = { .dist = ARRIVAL_FIXED, .seed = 1,
				    .requests = 3000 };
	struct schedule_gen g, h;
	struct schedule_req q, r;
	struct rateprof p;
	char err[256];

	ck_assert_int_eq(rateprof_load(scratch("step", "0 1000\n1 2000 step\n"),
				       &p, err, sizeof(err)), 0);
	cfg.profile = &p;
	ck_assert_int_eq(schedule_gen_init(&g, &cfg), 0);
	for (int i = 0; schedule_gen_next(&g, &q); i++)
		ck_assert_uint_eq(q.gap_ns, i < 1000 ? 1000000 : 500000);
	/* the same seed, the same gaps (exp) */
	cfg.dist = ARRIVAL_EXP;
	schedule_gen_init(&g, &cfg);
	schedule_gen_init(&h, &cfg);
	while (schedule_gen_next(&g, &q)) {
		ck_assert(schedule_gen_next(&h, &r));
		ck_assert_uint_eq(q.gap_ns, r.gap_ns);
	}
	rateprof_free(&p);
}
END_TEST

START_TEST(replay_numbers)
{
	uint64_t ns;

	ck_assert_int_eq(replay_parse_us("12", &ns), 0);
	ck_assert_uint_eq(ns, 12000);
	ck_assert_int_eq(replay_parse_us("12.5", &ns), 0);
	ck_assert_uint_eq(ns, 12500);
	ck_assert_int_eq(replay_parse_us("0.001", &ns), 0);
	ck_assert_uint_eq(ns, 1);
	ck_assert_int_eq(replay_parse_us(".25", &ns), 0);
	ck_assert_uint_eq(ns, 250);
	ck_assert_int_eq(replay_parse_us("3.0004", &ns), 0);
	ck_assert_uint_eq(ns, 3000);
	ck_assert_int_eq(replay_parse_us("3.0005", &ns), 0);
	ck_assert_uint_eq(ns, 3001);
	ck_assert_int_eq(replay_parse_us("1000000000", &ns), 0);
	ck_assert_int_eq(replay_parse_us("1000000001", &ns), -1);
	ck_assert_int_eq(replay_parse_us("-1", &ns), -1);
	ck_assert_int_eq(replay_parse_us("1e3", &ns), -1);
	ck_assert_int_eq(replay_parse_us(".", &ns), -1);
	ck_assert_int_eq(replay_parse_us("", &ns), -1);
}
END_TEST

/* A key-value trace: its ops and keys are the requests'. */
START_TEST(replay_ops_keys)
{
	struct schedule_cfg cfg = { .seed = 1, .requests = 3, .keyed = 1,
				    .get_ratio = 0.5, .keys = 100,
				    .key_dist = { 0 } };
	struct schedule_gen g;
	struct schedule_req q;
	struct replay r;
	char err[256];
	static const uint8_t op[] = { PROTO_OP_GET, PROTO_OP_SET, PROTO_OP_GET };
	static const uint64_t key[] = { 7, 0, 42 };

	ck_assert_int_eq(replay_load(scratch("kv", "5 get 7\n# x\n2.5,set,0\n1\tget 42\n"),
				     0, 1, &r, err, sizeof(err)), 0);
	ck_assert(r.keyed);
	ck_assert_uint_eq(r.max_key, 42);
	cfg.replay = &r;
	ck_assert_int_eq(schedule_gen_init(&g, &cfg), 0);
	for (int i = 0; schedule_gen_next(&g, &q); i++) {
		ck_assert_uint_eq(q.op, op[i]);
		ck_assert_uint_eq(q.key, key[i]);
		ck_assert_uint_eq(q.gap_ns, i == 0 ? 5000 : i == 1 ? 2500 : 1000);
	}
	replay_free(&r);
}
END_TEST

START_TEST(replay_files)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "10\nx\n", "f:2: 'x': microseconds" },
		{ "10 get\n", "f:1: expected one number, as on the first line" },
		{ "10,get,k1\n", "f:1: 'k1': the key is a key number" },
		{ "10,put,1\n", "f:1: 'put': the op is get or set" },
		{ "10\n20 get 1\n", "f:2: expected one number" },
		{ "10 get 1\n20\n", "f:2: expected 'GAP OP KEY'" },
		{ "# only\n\n", "f: no gaps" },
	};
	struct schedule_cfg cfg = { .dist = ARRIVAL_EXP, .mean_ns = 1,
				    .seed = 1, .requests = 3, .warmup = 1 };
	struct schedule_gen g;
	struct schedule_req q;
	struct replay r;
	char err[256];
	const char *f;

	f = scratch("gaps", "# us\n10\n 2.5\n0\n7.125\n");
	ck_assert_int_eq(replay_load(f, 0, 1, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.n, 4);
	ck_assert_uint_eq(r.gap_ns[1], 2500);
	ck_assert_uint_eq(r.gap_ns[3], 7125);
	cfg.replay = &r;
	ck_assert_int_eq(schedule_gen_init(&g, &cfg), 0);
	for (size_t i = 0; schedule_gen_next(&g, &q); i++)
		ck_assert_uint_eq(q.gap_ns, r.gap_ns[i]);
	ck_assert_uint_eq(g.i, 4);
	/* more requests than the trace has */
	cfg.requests = 4;
	ck_assert_int_eq(schedule_gen_init(&g, &cfg), -EINVAL);
	replay_free(&r);
	/* offsets, scaled before their differences are taken */
	f = scratch("offs", "10\n12.5\n12.5\n20.001\n");
	ck_assert_int_eq(replay_load(f, 1, 1, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.gap_ns[0], 10000);
	ck_assert_uint_eq(r.gap_ns[1], 2500);
	ck_assert_uint_eq(r.gap_ns[2], 0);
	ck_assert_uint_eq(r.gap_ns[3], 7501);
	replay_free(&r);
	ck_assert_int_eq(replay_load(f, 1, 0.5, &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.gap_ns[0] + r.gap_ns[1] + r.gap_ns[2] + r.gap_ns[3],
			  10001);	/* 20.001 us halved, rounded once */
	replay_free(&r);
	f = scratch("back", "10\n9\n");
	ck_assert_int_eq(replay_load(f, 1, 1, &r, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, ":2: offset 9 us is before"));
	ck_assert_int_eq(replay_load(f, 0, 0, &r, err, sizeof(err)), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		f = scratch("f", bad[i].text);
		ck_assert_int_eq(replay_load(f, 0, 1, &r, err, sizeof(err)), -EINVAL);
		ck_assert_msg(!strncmp(err, f, strlen(f)) &&
			      strstr(err, bad[i].want + 1), "%zu: %s", i, err);
	}
}
END_TEST

Suite *rateprof_suite(void)
{
	Suite *s = suite_create("rateprof");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_add_test(tc, profile_counts_by_hand);
	tcase_add_test(tc, profile_bad_files);
	tcase_add_test(tc, profile_rate_per_window);
	tcase_add_test(tc, profile_fixed_steps);
	tcase_add_test(tc, replay_numbers);
	tcase_add_test(tc, replay_files);
	tcase_add_test(tc, replay_ops_keys);
	suite_add_tcase(s, tc);
	return s;
}
