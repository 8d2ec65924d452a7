/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figtraj: figure 8 of wakebench report, the adaptive pre-query timing
 * (lib/hillclimb's trajectory, prequery-trajectory.csv or the midtier's
 * *.trajectory.csv): each window's average beside the lead (or delay)
 * used during that window, and the best lead found.
 *
 * The trajectory has one row per window. Since next_us was added,
 * value_us is the lead used during the window; before (no next_us
 * column) it was the lead chosen after it, so the lead of window k is
 * the previous row's value_us, and window 1's the first best_us (the
 * only lead measured then).
 */
#ifndef WB_FIGTRAJ_H
#define WB_FIGTRAJ_H

#include <stddef.h>
#include <stdio.h>

struct figtraj_src {
	const char *label;
	const char *path;
};

/*
 * DAT: one block per trajectory (two blank lines between), rows
 *   WINDOW LEAD_US AVG_US BEST_US
 * VARS: ntraj, names[], bestw[] (the window with the lowest average, the
 * earliest on a tie), bestlead[] (its lead), maxwindow, maxlab. Returns the
 * number of trajectories with a window, or -errno with the message.
 */
int figtraj_write(const struct figtraj_src *src, size_t n, FILE *dat, FILE *vars,
		  char *err, size_t errlen);

#endif
