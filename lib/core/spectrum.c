// SPDX-License-Identifier: GPL-2.0
/* spectrum: a distribution's percentile spectrum (see spectrum.h). */
#include "hist.h"
#include "spectrum.h"

size_t spectrum_levels(uint64_t n, struct spectrum_level *lv, size_t max)
{
	uint64_t two = 2, ten = 10;
	size_t k = 0;

	/* Two ascending sequences merged: the halvings and the nines (they
	 * never meet: a power of two is no power of ten). */
	while (k < max) {
		uint64_t d = two < ten ? two : ten;

		if (d > SPECTRUM_MAX_INV || d > n)
			break;
		lv[k].inv = d;
		lv[k].p = 1.0 - 1.0 / (double)d;
		k++;
		if (d == two)
			two *= 2;
		else
			ten *= 10;
	}
	return k;
}

static void row(FILE *f, double v, double p, uint64_t count, uint64_t inv)
{
	if (inv)
		fprintf(f, "%12.3f %12.6f %12llu %16.2f\n", v, p,
			(unsigned long long)count, (double)inv);
	else
		fprintf(f, "%12.3f %12.6f %12llu %16s\n", v, p,
			(unsigned long long)count, "inf");
}

void spectrum_print(FILE *f, struct hist *h, double div)
{
	struct spectrum_level lv[SPECTRUM_MAX_LEVELS];
	uint64_t n = hist_count(h);
	enum hist_rule rule = hist_get_rule(h);
	size_t k;

	if (!n)
		return;
	k = spectrum_levels(n, lv, SPECTRUM_MAX_LEVELS);
	fprintf(f, "%12s %12s %12s %16s\n", "Value", "Percentile",
		"TotalCount", "1/(1-Percentile)");
	row(f, (double)hist_min(h) / div, 0, 1, 1);
	for (size_t i = 0; i < k; i++)
		row(f, (double)hist_percentile_exact(h, lv[i].p) / div, lv[i].p,
		    hist_rank_rule(rule, lv[i].p, n), lv[i].inv);
	row(f, (double)hist_max(h) / div, 1, n, 0);
	fprintf(f, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n",
		hist_mean(h) / div, hist_stddev(h) / div);
	fprintf(f, "#[Max     = %12.3f, Total count    = %12llu]\n",
		(double)hist_max(h) / div, (unsigned long long)n);
}
