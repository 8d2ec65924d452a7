// SPDX-License-Identifier: GPL-2.0
/* sweepagent: a run's share for each client agent (see sweepagent.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweepagent.h"
#include "sweepspec.h"

int sweepagent_split(const struct sweepagent_in *in, unsigned k,
		     struct sweepagent *out)
{
	double gap_ns;

	if (!in->n || in->n > SWEEPSPEC_MAX_AGENTS || k >= in->n ||
	    !(in->interval_us > 0) || !isfinite(in->interval_us) ||
	    !(in->warmup_interval_us >= 0) || !isfinite(in->warmup_interval_us) ||
	    (in->requests && in->requests < in->n) ||
	    in->seed > UINT64_MAX - (uint64_t)k * (UINT64_C(1) << 32))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->seed = in->seed + (uint64_t)k * (UINT64_C(1) << 32);
	out->interval_us = in->interval_us * in->n;
	out->warmup_interval_us = in->warmup_interval_us * in->n;
	if (in->requests)
		out->requests = in->requests / in->n + (k < in->requests % in->n);
	out->warmup = in->warmup / in->n + (k < in->warmup % in->n);
	/* agent k, k configured gaps after agent 0 */
	gap_ns = in->interval_us * 1e3 * k;
	if (in->start_ns < 0 || gap_ns > (double)(INT64_MAX - in->start_ns))
		return -EINVAL;
	out->start_at_ns = in->start_ns + (int64_t)llround(gap_ns);
	return 0;
}

int sweepagent_us(double us, char *buf, size_t len)
{
	int n;

	if (!isfinite(us) || us < 0)
		return -ERANGE;
	n = snprintf(buf, len, "%.6f", us);
	if (n < 0 || (size_t)n >= len)
		return -ERANGE;
	/* "2000.000000" -> "2000", "666.666667" stays */
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return 0;
}
