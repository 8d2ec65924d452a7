// SPDX-License-Identifier: GPL-2.0
/*
 * The controller driven by simulated response-time curves: it must end
 * within one floor step of the curve's minimum (its best point; the value
 * itself probes one step either side) and never go negative.
 */
#include <math.h>
#include "unit.h"
#include "hillclimb.h"
#include "prng.h"

/* V-shaped convex curve around min_us, plus uniform noise of +-noise_ns. */
static uint64_t curve(double x_us, double min_us, double slope,
		      double noise_ns, struct prng *p)
{
	double base = 200000 + slope * fabs(x_us - min_us);

	return (uint64_t)(base + noise_ns * (2 * prng_uniform(p) - 1));
}

/* Quadratic bowl: flat near the minimum, like a real wake-cost curve. */
static uint64_t bowl(double x_us, double min_us, double noise_ns,
		     struct prng *p)
{
	double d = x_us - min_us;

	return (uint64_t)(150000 + 40 * d * d + noise_ns * (2 * prng_uniform(p) - 1));
}

static double run(double min_us, double max_us, double noise_ns, int windows,
		  int quadratic, double *lowest)
{
	struct hillclimb_cfg cfg;
	struct hillclimb h;
	struct prng p;

	hillclimb_defaults(&cfg);
	cfg.max_us = max_us;
	ck_assert_int_eq(hillclimb_init(&h, &cfg), 0);
	prng_seed(&p, (uint64_t)(min_us * 7 + noise_ns));
	*lowest = 1e9;
	for (int w = 0; w < windows; w++) {
		for (uint64_t i = 0; i < cfg.window; i++) {
			double v = hillclimb_value_us(&h);
			uint64_t r = quadratic ? bowl(v, min_us, noise_ns, &p) :
				     curve(v, min_us, 500, noise_ns, &p);
			int done = hillclimb_add(&h, r);

			ck_assert(hillclimb_value_us(&h) >= 0);
			ck_assert_int_eq(done, i == cfg.window - 1);
		}
		if (hillclimb_value_us(&h) < *lowest)
			*lowest = hillclimb_value_us(&h);
	}
	ck_assert_uint_eq(h.windows, (uint64_t)windows);
	/* Settled: probing at most one floor step either side of its best. */
	ck_assert(fabs(hillclimb_value_us(&h) - hillclimb_best_us(&h)) <=
		  3.125 + 1e-9);
	return hillclimb_best_us(&h);
}

START_TEST(minimum_at_zero)
{
	double lowest;
	double v = run(0, 1000, 0, 40, 0, &lowest);

	ck_assert_msg(v <= 3.125 + 1e-9, "ended at %g", v);
	ck_assert(lowest >= 0);
}
END_TEST

START_TEST(minimum_inside)
{
	static const double mins[] = { 37, 150, 180 };

	for (int i = 0; i < 3; i++) {
		double lowest;
		double v = run(mins[i], 1000, 0, 60, 0, &lowest);

		ck_assert_msg(fabs(v - mins[i]) <= 3.125 + 1e-9,
			      "min %g: ended at %g", mins[i], v);
	}
}
END_TEST

/* Minimum at the far edge of the allowed range: clamped, not past it. */
START_TEST(minimum_at_far_edge)
{
	double lowest;
	double v = run(300, 300, 0, 120, 0, &lowest);

	ck_assert_msg(v >= 300 - 3.125 - 1e-9 && v <= 300, "ended at %g", v);
}
END_TEST

START_TEST(noisy_curves)
{
	static const double mins[] = { 0, 90, 160 };

	for (int i = 0; i < 3; i++) {
		double lowest;
		/* +-5 us per sample; the window average of 1000 is steady. */
		double v = run(mins[i], 1000, 5000, 80, 0, &lowest);

		ck_assert_msg(fabs(v - mins[i]) <= 3.125 + 1e-9,
			      "noisy min %g: ended at %g", mins[i], v);
		v = run(mins[i], 1000, 2000, 80, 1, &lowest);
		ck_assert_msg(fabs(v - mins[i]) <= 3.125 + 1e-9,
			      "noisy bowl min %g: ended at %g", mins[i], v);
	}
}
END_TEST

START_TEST(step_schedule)
{
	struct hillclimb_cfg cfg;
	struct hillclimb h;
	static const double steps[] = { 50, 25, 12.5, 6.25, 3.125, 3.125 };

	hillclimb_defaults(&cfg);
	cfg.window = 1;
	hillclimb_init(&h, &cfg);
	ck_assert_double_eq(h.step_us, 100);
	/* Always better: keeps going up by the halving steps. */
	for (int i = 0; i < 6; i++) {
		hillclimb_add(&h, (uint64_t)(1000000 - i));
		ck_assert_double_eq(h.step_us, steps[i]);
	}
	ck_assert_double_eq(h.value_us, 100 + 50 + 25 + 12.5 + 6.25 + 3.125);
	/* Worse: reverses. */
	hillclimb_add(&h, 2000000);
	ck_assert_int_eq(h.dir, -1);
	ck_assert_double_eq(h.value_us, 196.875 - 3.125);
	ck_assert_double_eq(hillclimb_best_us(&h), 193.75);
}
END_TEST

/*
 * Replay of a synthetic response-time sequence, two samples a window:
 * each trajectory row holds the value USED DURING its window beside that
 * window's average, and best_us is the value of the lowest average so far
 * (window 6 improves on window 5 but not on window 4: best stays 125).
 */
START_TEST(trajectory_replay)
{
	static const uint64_t samples[][2] = {
		{ 490, 510 }, { 390, 410 }, { 440, 460 },
		{ 290, 310 }, { 340, 360 }, { 310, 330 },
	};
	static const struct hillclimb_row want[] = {
		{ 1, 0, 100, 500, 0, 100 },
		{ 2, 100, 50, 400, 100, 150 },
		{ 3, 150, 25, 450, 100, 125 },
		{ 4, 125, 12.5, 300, 125, 112.5 },
		{ 5, 112.5, 6.25, 350, 125, 118.75 },
		{ 6, 118.75, 3.125, 320, 125, 121.875 },
	};
	struct hillclimb_cfg cfg;
	struct hillclimb h;

	hillclimb_defaults(&cfg);
	cfg.window = 2;
	ck_assert_int_eq(hillclimb_init(&h, &cfg), 0);
	ck_assert_double_eq(hillclimb_best_us(&h), 0);
	for (int k = 0; k < 6; k++) {
		double used = hillclimb_value_us(&h);

		ck_assert_int_eq(hillclimb_add(&h, samples[k][0]), 0);
		ck_assert_int_eq(hillclimb_add(&h, samples[k][1]), 1);
		ck_assert_uint_eq(h.row.window, want[k].window);
		ck_assert_double_eq(h.row.value_us, used);
		ck_assert_double_eq(h.row.value_us, want[k].value_us);
		ck_assert_double_eq(h.row.step_us, want[k].step_us);
		ck_assert_double_eq(h.row.avg_ns, want[k].avg_ns);
		ck_assert_double_eq_tol(h.row.best_us, want[k].best_us, 1e-12);
		ck_assert_double_eq(h.row.next_us, want[k].next_us);
		ck_assert_double_eq(h.row.next_us, hillclimb_value_us(&h));
		ck_assert_double_eq(hillclimb_best_us(&h), want[k].best_us);
	}
}
END_TEST

START_TEST(rejects_bad_config)
{
	struct hillclimb_cfg cfg;
	struct hillclimb h;

	hillclimb_defaults(&cfg);
	cfg.window = 0;
	ck_assert_int_eq(hillclimb_init(&h, &cfg), -1);
	hillclimb_defaults(&cfg);
	cfg.step_us = 0;
	ck_assert_int_eq(hillclimb_init(&h, &cfg), -1);
	hillclimb_defaults(&cfg);
	cfg.min_step_us = -1;
	ck_assert_int_eq(hillclimb_init(&h, &cfg), -1);
	hillclimb_defaults(&cfg);
	cfg.initial_us = -5;
	ck_assert_int_eq(hillclimb_init(&h, &cfg), -1);
	hillclimb_defaults(&cfg);
	cfg.max_us = NAN;
	ck_assert_int_eq(hillclimb_init(&h, &cfg), -1);
}
END_TEST

Suite *hillclimb_suite(void)
{
	Suite *s = suite_create("hillclimb");
	TCase *tc = tcase_create("curves");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, minimum_at_zero);
	tcase_add_test(tc, minimum_inside);
	tcase_add_test(tc, minimum_at_far_edge);
	tcase_add_test(tc, noisy_curves);
	tcase_add_test(tc, step_schedule);
	tcase_add_test(tc, trajectory_replay);
	tcase_add_test(tc, rejects_bad_config);
	suite_add_tcase(s, tc);
	return s;
}
