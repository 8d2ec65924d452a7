// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: raw ring-buffer pages, as trace record writes them into
 * cpuN.raw (issue 21 §2: a page's commit of 0x7fffffff crashed the
 * reader). Each input is walked in memory as one page (8- and 4-byte
 * commit words) with every event's bytes read, and decoded as a whole
 * cpuN.raw (any length: 4 KB pages and a truncated tail) through the
 * decoder of a real recorded trace's formats (tests/fixtures/trace/real:
 * run from the top directory), into a timeline. The seed corpus
 * (tests/fuzz/corpus/tracepage) holds real recorded pages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timeline.h"
#include "tracefile.h"

static struct tf_decoder *dec;
static volatile uint8_t sink;

static int touch(void *ctx, const struct tf_event *ev)
{
	const uint8_t *p = ev->data;
	uint8_t x = 0;

	(void)ctx;
	for (uint32_t i = 0; i < ev->size; i++)
		x ^= p[i];
	sink = x;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[6000];
	struct tf_decode o = { 0 };
	struct timeline *t;
	struct tf_page info;
	size_t bad;
	uint8_t *copy;

	if (!dec && tracefile_decoder_new("tests/fixtures/trace/real", &dec, err,
					  sizeof(err)))
		abort();	/* run from the top directory */
	/* An exact-size copy: ASan sees any read past the input. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	tracefile_page_walk(copy, size, 8, touch, NULL, &info, &bad, err, sizeof(err));
	tracefile_page_walk(copy, size, 4, touch, NULL, &info, &bad, err, sizeof(err));
	t = timeline_new(2, 0);
	if (t) {
		o.skip_corrupt = size & 1;
		tracefile_decode_pages(dec, copy, size, 4096, size & 2 ? 1 : 0,
				       "cpu.raw", t, &o, err, sizeof(err));
		timeline_finish(t, 1);
		timeline_free(t);
	}
	free(copy);
	return 0;
}
