// SPDX-License-Identifier: GPL-2.0
/* The send schedule: warm-up first, intended times from the gaps, the
 * duration rule; the output directory a run owns. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "outdir.h"
#include "schedule.h"

START_TEST(count_warmup_first)
{
	struct schedule_cfg cfg = {
		.dist = ARRIVAL_EXP, .mean_ns = 1000, .seed = 3,
		.warmup = 20, .requests = 100,
	};
	struct schedule s;
	struct arrival a;
	uint64_t t = 0;

	ck_assert_int_eq(schedule_build(&s, &cfg), 0);
	ck_assert_uint_eq(s.n, 120);
	ck_assert_uint_eq(s.warmup, 20);
	/* the generator's gaps in order, warm-up first; t_i = sum of gaps */
	arrival_init(&a, ARRIVAL_EXP, 1000, 3);
	for (uint64_t i = 0; i < s.n; i++) {
		ck_assert_uint_eq(s.gap_ns[i], arrival_next_ns(&a));
		t += s.gap_ns[i];
		ck_assert_uint_eq(s.intended_ns[i], t);
	}
	schedule_free(&s);
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
	struct schedule s0, s;
	struct arrival wa;

	cfg.warmup_dist = ARRIVAL_POISSON;
	cfg.warmup_mean_ns = 10000000;
	ck_assert_int_eq(schedule_build(&s0, &base), 0);
	ck_assert_int_eq(schedule_build(&s, &cfg), 0);
	arrival_init(&wa, ARRIVAL_POISSON, 10000000, 4);
	for (uint64_t i = 0; i < 20; i++)
		ck_assert_uint_eq(s.gap_ns[i], arrival_next_ns(&wa));
	for (uint64_t i = 20; i < 120; i++)
		ck_assert_uint_eq(s.gap_ns[i], s0.gap_ns[i]);
	schedule_free(&s);
	cfg = base;
	cfg.gap_add_ns = 50000;
	ck_assert_int_eq(schedule_build(&s, &cfg), 0);
	for (uint64_t i = 0; i < 120; i++)
		ck_assert_uint_eq(s.gap_ns[i], s0.gap_ns[i] + 50000);
	ck_assert_uint_eq(s.intended_ns[119], s0.intended_ns[119] + 120 * 50000);
	schedule_free(&s);
	schedule_free(&s0);
	/* a bad warm-up generator is a bad configuration */
	cfg = base;
	cfg.warmup_dist = ARRIVAL_POISSON;
	cfg.warmup_mean_ns = 0.5;
	ck_assert_int_eq(schedule_build(&s, &cfg), -EINVAL);
}
END_TEST

START_TEST(duration_rule)
{
	struct schedule_cfg cfg = {
		.dist = ARRIVAL_FIXED, .mean_ns = 1000, .seed = 1,
		.warmup = 5, .duration_ns = 10500,
	};
	struct schedule s;
	uint64_t sum = 0;

	/* fixed 1 us gaps, 10.5 us: 10 measured (the 11th would pass it),
	 * the warm-up not counted towards the duration */
	ck_assert_int_eq(schedule_build(&s, &cfg), 0);
	ck_assert_uint_eq(s.n, 15);
	ck_assert_uint_eq(s.intended_ns[14], 15000);
	schedule_free(&s);
	/* exactly the duration: taken */
	cfg.duration_ns = 10000;
	ck_assert_int_eq(schedule_build(&s, &cfg), 0);
	ck_assert_uint_eq(s.n, 15);
	schedule_free(&s);
	/* a duration shorter than one gap: still one measured request */
	cfg.duration_ns = 10;
	ck_assert_int_eq(schedule_build(&s, &cfg), 0);
	ck_assert_uint_eq(s.n, 6);
	schedule_free(&s);
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
	struct schedule s;

	ck_assert_int_eq(schedule_build(&s, &cfg), -EINVAL);	/* neither */
	cfg.requests = 1;
	cfg.mean_ns = 0;
	ck_assert_int_eq(schedule_build(&s, &cfg), -EINVAL);
}
END_TEST

/* stops on the k-th question; counts them */
static int cancel_at(void *arg)
{
	int *left = arg;

	return --*left <= 0;
}

START_TEST(cancel_stops_drawing)
{
	struct schedule_cfg cfg = { .dist = ARRIVAL_EXP, .mean_ns = 1000,
				    .seed = 1, .requests = 10 * SCHEDULE_CANCEL_EVERY,
				    .cancel = cancel_at };
	struct schedule s;
	int left = 3;

	/* asked at gaps 0, EVERY and 2 EVERY: stops on the third */
	cfg.cancel_arg = &left;
	ck_assert_int_eq(schedule_build(&s, &cfg), -EINTR);
	ck_assert_int_eq(left, 0);
	ck_assert_ptr_null(s.gap_ns);
	/* by duration too */
	left = 2;
	cfg.requests = 0;
	cfg.duration_ns = 1000000000000ull;
	ck_assert_int_eq(schedule_build(&s, &cfg), -EINTR);
	ck_assert_int_eq(s.n, 0);
	/* never cancelling: the whole schedule, asked once per EVERY gaps */
	left = 1000;
	cfg.requests = 3 * SCHEDULE_CANCEL_EVERY;
	cfg.duration_ns = 0;
	ck_assert_int_eq(schedule_build(&s, &cfg), 0);
	ck_assert_uint_eq(s.n, 3 * SCHEDULE_CANCEL_EVERY);
	ck_assert_int_eq(left, 1000 - 3);
	schedule_free(&s);
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

	tcase_add_test(tc, count_warmup_first);
	tcase_add_test(tc, duration_rule);
	tcase_add_test(tc, warmup_generator_and_gap_add);
	tcase_add_test(tc, bad_config);
	tcase_add_test(tc, cancel_stops_drawing);
	tcase_add_test(tc, outdir_rules);
	suite_add_tcase(s, tc);
	return s;
}
