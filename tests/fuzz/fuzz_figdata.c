// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: what wakebench report reads from files it did not write
 * itself: snapshot.json (lib/jsonflat), cmdline.txt (cfgdiff_split), CSV
 * tables (lib/csvtable) rendered as HTML and Markdown (lib/figtable). The
 * first byte picks the reader.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgdiff.h"
#include "csvtable.h"
#include "figtable.h"
#include "jsonflat.h"

static int count(void *ctx, const char *path, const char *value)
{
	size_t *n = ctx;

	*n += strlen(path) + strlen(value);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	char err[512], *line, **w;
	size_t n = 0, len = size - 1;
	struct csvtable t;
	FILE *out;

	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		jsonflat_walk(text, len, count, &n, err, sizeof(err));
		break;
	case 1:
		line = malloc(len + 1);
		if (!line)
			return 0;
		memcpy(line, text, len);
		line[len] = '\0';
		if (!cfgdiff_split(line, &w, &n))
			cfgdiff_free_words(w, n);
		free(line);
		break;
	default:
		if (csvtable_parse(text, len, "fuzz.csv", &t, err, sizeof(err)))
			break;
		out = fopen("/dev/null", "w");
		if (out) {
			figtable_html(&t, NULL, 1, "b,a", out);
			figtable_markdown(&t, NULL, 1, NULL, out);
			fclose(out);
		}
		csvtable_free(&t);
	}
	return 0;
}
