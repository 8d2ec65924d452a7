// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: a sweep's sweep.csv as wakebench stats reads it (lib/sweepcsv). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "sweepcsv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sweepcsv c;
	char err[512];
	double sum = 0;
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (!sweepcsv_read(f, "sweep.csv", &c, err, sizeof(err))) {
		for (size_t i = 0; i < c.n; i++)
			for (int m = 0; m < SWEEPCSV_NMETRICS; m++)
				sum += c.run[i].val[m] + (double)c.run[i].behind;
		if (sum < 0 && c.n > 1u << 30)
			abort();	/* keeps the reads */
		sweepcsv_free(&c);
	}
	fclose(f);
	return 0;
}
