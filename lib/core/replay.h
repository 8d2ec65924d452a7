/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay: the gaps of a recorded trace (--arrivals, issue 36). One number
 * a line in microseconds, decimals allowed ("12", "12.5", "0.001"): a gap
 * from the request before (the first from the start), or with offsets an
 * absolute offset from the start (not decreasing). Blank lines and lines
 * starting with '#' are skipped. The numbers are read exactly to the
 * nanosecond (digits past the third decimal round it), then scaled: a
 * gap to llround(gap * scale), an offset likewise before the differences
 * are taken (so scaled offsets do not drift).
 *
 * A key-value trace has three words a line, "GAP OP KEY" (blanks or
 * commas between): OP get or set, KEY a key number (the client's key
 * wbKEY). The first line decides: every line then has the same words.
 * The whole trace is held: 8 bytes a request, 17 with ops and keys.
 */
#ifndef WB_REPLAY_H
#define WB_REPLAY_H

#include <stddef.h>
#include <stdint.h>

enum { REPLAY_OP_GET, REPLAY_OP_SET };

struct replay {
	uint64_t *gap_ns;
	size_t n;
	int keyed;		/* op[] and key[] hold each request's */
	uint8_t *op;		/* REPLAY_OP_GET or REPLAY_OP_SET */
	uint64_t *key;
	uint64_t max_key;	/* the largest key number */
};

#define REPLAY_MAX_LINES 1000000000ul
#define REPLAY_MAX_US 1e9	/* the longest gap or offset: ~17 minutes */

/*
 * Reads path (a regular file, no link followed): 0, or -errno with
 * "path:line: cause" (or "path: cause") in err; -EINVAL for bad content.
 */
int replay_load(const char *path, int offsets, double scale,
		struct replay *r, char *err, size_t errlen);
/* "12.345" into ns exactly: 0, or -1 (not such a number, or too large). */
int replay_parse_us(const char *s, uint64_t *ns);
void replay_free(struct replay *r);

#endif
