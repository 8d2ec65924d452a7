// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include "runcheck.h"

int runcheck_behind(const struct runcheck_in *in, char *why, size_t len)
{
	double late_share;

	if (len)
		why[0] = '\0';
	if (!in->requests || in->late > in->requests ||
	    isnan(in->pacing_p99_us) || isnan(in->mean_gap_us))
		return -EINVAL;
	late_share = (double)in->late / (double)in->requests;
	if (late_share > RUNCHECK_MAX_LATE_SHARE) {
		snprintf(why, len, "%.1f %% of sends late (limit %.0f %%)",
			 100 * late_share, 100 * RUNCHECK_MAX_LATE_SHARE);
		return 1;
	}
	if (in->mean_gap_us > 0 &&
	    in->pacing_p99_us > RUNCHECK_MAX_P99_GAP_SHARE * in->mean_gap_us) {
		snprintf(why, len,
			 "pacing p99 %.1f us is %.0f %% of the mean gap (limit %.0f %%)",
			 in->pacing_p99_us,
			 100 * in->pacing_p99_us / in->mean_gap_us,
			 100 * RUNCHECK_MAX_P99_GAP_SHARE);
		return 1;
	}
	return 0;
}
