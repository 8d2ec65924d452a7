/* SPDX-License-Identifier: GPL-2.0 */
/*
 * framer: reassembles proto messages from a byte stream (TCP). Headers
 * are buffered, payloads are counted and dropped, so a connection costs
 * PROTO_HDR_LEN bytes of state whatever payload sizes peers send.
 */
#ifndef WB_FRAMER_H
#define WB_FRAMER_H

#include <stddef.h>
#include <stdint.h>
#include "proto.h"

struct framer {
	uint8_t hdr[PROTO_HDR_LEN];
	size_t have;		/* header bytes buffered */
	uint64_t skip;		/* payload bytes still to drop */
	uint32_t payload_cap;
	struct proto_msg msg;
};

typedef int (*framer_fn)(const struct proto_msg *m, void *arg);

void framer_init(struct framer *f, uint32_t payload_cap);
/*
 * Consumes len bytes; calls fn for each message once its payload is in.
 * Returns 0, a negative proto_err for a malformed header (drop the
 * stream), or the first non-zero value fn returned (the rest of buf is
 * then not consumed).
 */
int framer_feed(struct framer *f, const uint8_t *buf, size_t len,
		framer_fn fn, void *arg);
/* True while a message is partly received (a close now truncates it). */
static inline int framer_partial(const struct framer *f)
{
	return f->have || f->skip;
}

#endif
