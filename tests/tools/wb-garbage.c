// SPDX-License-Identifier: GPL-2.0
/*
 * wb-garbage: throws malformed frames at a running wakebench server.
 *
 *   wb-garbage HOST PORT [ROUNDS] [udp]
 *
 * Each round opens one connection per kind of damage (random bytes, every
 * bad header field, a header cut short, a payload cut short, an oversized
 * payload length), sends it, and for the kinds the server must reject,
 * checks that the server closes the connection. Prints a line per round
 * kind total and exits 1 if the server kept a bad connection open or
 * stopped accepting.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net.h"
#include "opt.h"
#include "prng.h"
#include "proto.h"

enum damage {
	D_RANDOM, D_MAGIC, D_VERSION, D_TYPE, D_FLAGS, D_LENGTH, D_RESERVED,
	D_REPLY_TYPE, D_SHORT_HDR, D_SHORT_PAYLOAD, D_COUNT
};

static const char *const names[] = {
	"random", "magic", "version", "type", "flags", "length", "reserved",
	"reply-type", "short-header", "short-payload",
};

static size_t make_frame(enum damage d, struct prng *p, uint8_t *buf)
{
	struct proto_msg m = { .type = PROTO_REQUEST, .seq = 1,
			       .payload_len = 16 };
	size_t len = PROTO_HDR_LEN + 16;

	proto_encode(&m, buf);
	memset(buf + PROTO_HDR_LEN, 0xab, 16);
	switch (d) {
	case D_RANDOM:
		for (size_t i = 0; i < 200; i++)
			buf[i] = (uint8_t)prng_next(p);
		buf[0] ^= 0x5a;	/* never a valid magic by chance */
		return 200;
	case D_MAGIC: buf[0] ^= 0xff; break;
	case D_VERSION: buf[4] = 99; break;
	case D_TYPE: buf[5] = 77; break;
	case D_FLAGS: buf[6] = 0xf0; break;
	case D_LENGTH: buf[48] = buf[49] = buf[50] = buf[51] = 0xff; break;
	case D_RESERVED: buf[52] = 1; break;
	case D_REPLY_TYPE: buf[5] = PROTO_REPLY; break;
	case D_SHORT_HDR: return PROTO_HDR_LEN / 2;
	case D_SHORT_PAYLOAD: return PROTO_HDR_LEN + 5;
	case D_COUNT: break;
	}
	return len;
}

/* 1 if the server closed fd within 2 s, 0 if not. */
static int closed_by_peer(int fd, int half_close)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint8_t b[256];

	if (half_close)
		shutdown(fd, SHUT_WR);
	for (;;) {
		int n = poll(&pfd, 1, 2000);
		ssize_t r;

		if (n <= 0)
			return 0;
		r = read(fd, b, sizeof(b));
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			return 1;
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			return 1;
	}
}

int main(int argc, char **argv)
{
	uint64_t rounds = 1, port;
	enum net_proto proto = NET_TCP;
	uint64_t bad = 0, sent = 0;
	uint8_t buf[512];
	struct prng p;

	if (argc < 3 || opt_u64(argv[2], 1, 65535, &port) ||
	    (argc > 3 && opt_u64(argv[3], 1, 1000000, &rounds)) ||
	    (argc > 4 && net_proto_parse(argv[4], &proto))) {
		fprintf(stderr, "usage: wb-garbage HOST PORT [ROUNDS] [tcp|udp]\n");
		return 2;
	}
	prng_seed(&p, 42);
	for (uint64_t r = 0; r < rounds; r++) {
		for (int d = 0; d < D_COUNT; d++) {
			size_t len = make_frame((enum damage)d, &p, buf);
			int fd = net_connect(proto, argv[1], (uint16_t)port);

			if (fd < 0) {
				fprintf(stderr, "wb-garbage: connect: %s\n",
					strerror(-fd));
				return 1;
			}
			if (net_send_all(fd, buf, len, 1000000000ull)) {
				close(fd);
				continue;	/* already closed on us: fine */
			}
			sent++;
			/* Truncated frames are only noticed at EOF: half-close. */
			if (proto == NET_TCP &&
			    !closed_by_peer(fd, d == D_SHORT_HDR ||
					    d == D_SHORT_PAYLOAD)) {
				fprintf(stderr, "wb-garbage: server kept a '%s' connection open\n",
					names[d]);
				bad++;
			}
			close(fd);
		}
	}
	printf("wb-garbage: sent %llu malformed frames, %llu kept open\n",
	       (unsigned long long)sent, (unsigned long long)bad);
	return bad ? 1 : 0;
}
