/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rateprof: a request rate that changes over the run (--rate-profile,
 * issue 36). A profile file has one point a line:
 *
 *   T_S RATE [step|ramp]
 *
 * T_S seconds from the start (the first 0, then increasing), RATE
 * requests per second from then on (0 allowed but on the last line), and
 * how the rate goes from this point to the next: step (the default) holds
 * RATE until the next point, ramp goes from RATE to the next point's rate
 * linearly. The last rate holds past the last point. Blank lines and
 * lines starting with '#' are skipped.
 *
 * The schedule follows the profile by a change of time: with L(t) the
 * expected arrivals by t (the integral of the rate), the i-th request
 * leaves at the t where L(t) is the sum of i unit-mean gaps drawn from
 * the --dist law, so exp gaps give the Poisson process of that rate
 * exactly, and fixed gaps one request each 1/rate.
 */
#ifndef WB_RATEPROF_H
#define WB_RATEPROF_H

#include <stddef.h>

struct rateprof_pt {
	double t_ns;		/* from the start */
	double rate;		/* per second */
	int ramp;		/* linear to the next point's rate */
};

struct rateprof {
	struct rateprof_pt *pt;
	size_t n;
};

/* Where rateprof_time is: segment k starts at t0 with lam0 expected. */
struct rateprof_pos {
	size_t k;
	double t0, lam0;
};

#define RATEPROF_MAX_POINTS 1000000
#define RATEPROF_MAX_RATE 1e9
#define RATEPROF_MAX_T_S 1e7

/*
 * Reads path (a regular file, no link followed). 0, or -errno with
 * "path:line: cause" (or "path: cause") in err; -EINVAL for bad content.
 */
int rateprof_load(const char *path, struct rateprof *p, char *err,
		  size_t errlen);
/* One line (no '\n') into *pt: 1, 0 for a blank or comment line, or
 * -EINVAL with the cause in err. prev: the line before, or NULL. */
int rateprof_parse_line(const char *line, const struct rateprof_pt *prev,
			struct rateprof_pt *pt, char *err, size_t errlen);
void rateprof_free(struct rateprof *p);

/* L(t): the requests expected in [0, t). */
double rateprof_count(const struct rateprof *p, double t_ns);
/*
 * The t with L(t) = u, for u at least the u of the call before with the
 * same pos (zeroed first).
 */
double rateprof_time(const struct rateprof *p, struct rateprof_pos *pos,
		     double u);

#endif
