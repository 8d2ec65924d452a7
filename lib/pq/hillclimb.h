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
 * it has found.
 *
 * best_us is the lead (or delay) whose window average was the lowest of
 * all completed windows so far (the earliest one on a tie); before the
 * first window it is the initial value.
 *
 * The trajectory has one row per completed window k (1, 2, ...): the
 * value USED DURING window k, the average measured in window k, the step
 * taken at its end, best_us after it, and the value chosen for window
 * k + 1 (next_us). hillclimb_add() fills h->row; the client and the
 * midtier both write it with hillclimb_row_write().
 */
#ifndef WB_HILLCLIMB_H
#define WB_HILLCLIMB_H

#include <stdint.h>

struct csv;

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
	double best_avg_ns;	/* < 0 before the first window */
	struct hillclimb_row {
		uint64_t window;	/* 1-based */
		double value_us;	/* used during the window */
		double step_us;		/* taken at its end */
		double avg_ns;		/* the window's average */
		double best_us;
		double next_us;		/* value for the next window */
	} row;			/* the last completed window */
};

/* The trajectory CSV header; the first five columns are the original ones. */
#define HILLCLIMB_CSV_HEADER \
	"window,value_us,step_us,window_avg_ns,best_us,next_us"


/* The command-line knobs are lib/cli/clishared.h's CLI_OPTS_HILLCLIMB. */
/* Defaults: initial 0, step 100, min step 3, range [0, 1e6], window 1000. */
void hillclimb_defaults(struct hillclimb_cfg *cfg);
/* Returns 0, or -1 when the configuration is invalid. */
int hillclimb_init(struct hillclimb *h, const struct hillclimb_cfg *cfg);
/*
 * Adds one response time. Returns 1 when it completed a window (h->row
 * describes it and the value has moved: log the row now), else 0.
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

/* Writes one trajectory row (HILLCLIMB_CSV_HEADER's columns). */
void hillclimb_row_write(struct csv *c, const struct hillclimb_row *row);

#endif
