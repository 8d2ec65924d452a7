// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the turbostat table parser on arbitrary text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "turbostat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct ts_table t;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (turbostat_parse(text, &t) >= 0) {
		for (size_t r = 0; r < t.nrows; r++)
			for (int c = 0; c < t.ncols; c++)
				if (t.rows[r].val[c] && !*t.cols[c] && 0)
					__builtin_trap();
	}
	turbostat_free(&t);
	free(text);
	return 0;
}
