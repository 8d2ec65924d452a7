/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hillclimb: the adaptive pre-query timing controller (thesis §3.2).
 *
 * The value (a lead or delay in us) starts at `initial` (0) and moves by
 * `step` (100 us). After every window of `window` samples (1000 response
 * times) the window's average is compared with the previous window's: the
 * controller keeps its direction while the average improves and reverses
 * when it does not, then moves one step. The step halves every window
 * until halving would take it below `min_step` (3 us): 100, 50, 25, 12.5,
 * 6.25, 3.125, and stays there. The value is clamped to [min, max], so it
 * never goes negative. One controller serves the client's lead and the
 * midtier's delay.
 *
 * Settled, the value probes one floor step either side of the best point
 * it has found; hillclimb_best_us() is that point: of the last two windows,
 * the value whose average was lower.
 */
#ifndef WB_HILLCLIMB_H
#define WB_HILLCLIMB_H

#include <stdint.h>

struct hillclimb_cfg {
	double initial_us, step_us, min_step_us, min_us, max_us;
	uint64_t window;
};

struct hillclimb {
	struct hillclimb_cfg cfg;
	double value_us, step_us;
	int dir;		/* +1 or -1 */
	uint64_t windows;	/* completed windows */
	uint64_t n;		/* samples in the current window */
	double sum_ns;
	double prev_avg_ns;	/* < 0 before the first window */
	double last_avg_ns;
	double best_us;
};

/* The command-line knobs, in the order of their option codes. */
enum hillclimb_knob {
	HILLCLIMB_WINDOW,	/* --window N */
	HILLCLIMB_STEP,		/* --step-us US */
	HILLCLIMB_MIN_STEP,	/* --min-step-us US */
	HILLCLIMB_MAX,		/* --max-lead-us / --max-delay-us US */
};

/* Sets one knob from its option argument; 0, or -1 when invalid. */
int hillclimb_cfg_parse(struct hillclimb_cfg *cfg, enum hillclimb_knob k,
			const char *arg);

/* Defaults: initial 0, step 100, min step 3, range [0, 1e6], window 1000. */
void hillclimb_defaults(struct hillclimb_cfg *cfg);
/* Returns 0, or -1 when the configuration is invalid. */
int hillclimb_init(struct hillclimb *h, const struct hillclimb_cfg *cfg);
/*
 * Adds one response time. Returns 1 when it completed a window (the value
 * has moved: log the trajectory now), else 0.
 */
int hillclimb_add(struct hillclimb *h, uint64_t response_ns);
static inline double hillclimb_value_us(const struct hillclimb *h)
{
	return h->value_us;
}
static inline double hillclimb_best_us(const struct hillclimb *h)
{
	return h->best_us;
}

#endif
