// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the timeline builder and attribution fed arbitrary event
 * streams (what a corrupt or hostile trace could decode to).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "attrib.h"
#include "timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct timeline *t = timeline_new(4, 1000);
	struct attr_msg msgs[64];
	struct attr_result res[64];
	size_t nm = 0, i;
	uint64_t ts = 1000;

	if (!t)
		return 0;
	/* 8-byte records: type, cpu, arg (u16), time step (u32). */
	for (i = 0; i + 8 <= size; i += 8) {
		const uint8_t *p = data + i;
		uint32_t step;
		struct tl_event e;
		char str[8];

		memcpy(&step, p + 4, 4);
		ts += step % 100000;
		if (p[0] & 0x80)
			ts -= step % 1000;	/* time going back now and then */
		memcpy(str, p + 1, 3);
		str[3] = '\0';
		e = (struct tl_event){ .ts = ts, .cpu = p[1] % 5,
				       .type = (enum tl_type)(p[0] % 8),
				       .arg = (p[2] == 0xff) ? TL_EXIT : p[2] | p[3] << 8,
				       .str = str };
		timeline_add(t, &e);
		if (nm < 64 && (p[0] & 0x40))
			msgs[nm++] = (struct attr_msg){ .seq = p[3], .prequery = p[2] & 1,
							.recv_ns = ts, .send_ns = ts + p[1] };
	}
	timeline_finish(t, ts + 10);
	for (uint32_t c = 0; c < 4; c++) {
		struct tl_residency *r;
		ssize_t k = timeline_residency(t, c, 0, UINT64_MAX, &r);
		uint64_t sum = 0;
		size_t n;
		const struct tl_interval *iv = timeline_intervals(t, c, &n);

		if (k < 0)
			break;
		for (ssize_t j = 0; j < k; j++) {
			sum += r[j].time_ns;
			/* one row per state, in state order */
			if (j && r[j].state <= r[j - 1].state)
				__builtin_trap();
		}
		free(r);
		/* Residency covers the trace exactly; intervals are ordered. */
		if (sum != timeline_end(t) - timeline_start(t))
			__builtin_trap();
		for (size_t j = 1; j < n; j++)
			if (iv[j].start != iv[j - 1].end)
				__builtin_trap();
		timeline_at(t, c, ts / 2);
		/* wakes: in time order, one per exit, a known cause name */
		const struct tl_wake *w = timeline_wakes(t, c, &n);

		for (size_t j = 0; j < n; j++) {
			if ((j && w[j].ts < w[j - 1].ts) || w[j].cpu != c ||
			    w[j].cause > TL_CAUSE_NONE)
				__builtin_trap();
			timeline_string(t, w[j].detail);
		}
	}
	/* attrib wants receive order */
	for (i = 1; i < nm; i++)
		if (msgs[i].recv_ns < msgs[i - 1].recv_ns)
			msgs[i].recv_ns = msgs[i - 1].recv_ns;
	attrib_run(t, 0, msgs, nm, res);
	timeline_free(t);
	return 0;
}
