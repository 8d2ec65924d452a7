// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the wire-protocol validator, the stream framer, and the
 * protocol table's wakebench entry (datagram check, stepped feed). */
#include <stdint.h>
#include <string.h>
#include "framer.h"
#include "proto.h"
#include "wire.h"

static int count(const struct proto_msg *m, void *arg)
{
	(*(unsigned long *)arg)++;
	/* Whatever was accepted must be a valid message. */
	if (m->type < PROTO_REQUEST || m->type > PROTO_ERROR ||
	    m->payload_len > 65536 || (m->flags & ~PROTO_F_ALL))
		__builtin_trap();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_msg m;
	struct framer f;
	unsigned long n = 0;

	if (proto_decode(data, size, 65536, &m) == PROTO_OK) {
		uint8_t buf[PROTO_HDR_LEN];

		/* Round trip: what decodes re-encodes to the same header. */
		proto_encode(&m, buf);
		if (memcmp(buf, data, PROTO_HDR_LEN))
			__builtin_trap();
	}
	/* The same bytes as a stream, in two uneven chunks. */
	framer_init(&f, 65536);
	if (framer_feed(&f, data, size / 3, count, &n) == 0)
		framer_feed(&f, data + size / 3, size - size / 3, count, &n);
	/* Through the protocol table: a datagram is one whole message, and
	 * a feed in feed_step pieces completes at most one per piece. */
	if (wire_wakebench.decode(data, size, 65536, &m) == 0 &&
	    size != PROTO_HDR_LEN + (size_t)m.payload_len)
		__builtin_trap();
	{
		struct wire_conn c;
		size_t pos = 0;

		wire_conn_init(&c, &wire_wakebench, 65536);
		while (pos < size) {
			size_t k = wire_wakebench.feed_step(&c);
			unsigned long before = n;

			if (k == 0)
				__builtin_trap();
			if (k > size - pos)
				k = size - pos;
			if (wire_feed(&c, data + pos, k, count, &n))
				break;
			if (n - before > 1)
				__builtin_trap();
			pos += k;
		}
	}
	return 0;
}
