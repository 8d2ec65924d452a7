// SPDX-License-Identifier: GPL-2.0
/*
 * wb-badserver: a server that answers wrongly, for the client's error
 * paths. wb-badserver PORTFILE MODE, MODE one of:
 *   wrongseq   reply with a sequence number no request had
 *   echoskew   reply with the right sequence but another send time
 *   garbage    reply with bytes that are no message at all
 *   request    send a REQUEST back instead of a REPLY
 * Serves one connection, then exits.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "net.h"
#include "proto.h"

int main(int argc, char **argv)
{
	uint8_t buf[PROTO_HDR_LEN];
	struct proto_msg m;
	uint16_t port;
	FILE *f;
	int l, c;

	if (argc != 3)
		return 2;
	l = net_listen(NET_TCP, "127.0.0.1", 0, 1, &port);
	f = fopen(argv[1], "w");
	if (l < 0 || !f)
		return 1;
	fprintf(f, "%u\n", port);
	fclose(f);
	net_set_nonblock(l);
	do {
		c = accept(l, NULL, NULL);
		if (c < 0)
			usleep(1000);
	} while (c < 0);
	for (size_t got = 0; got < sizeof(buf);) {
		ssize_t n = read(c, buf + got, sizeof(buf) - got);

		if (n <= 0)
			return 1;
		got += (size_t)n;
	}
	if (proto_decode(buf, sizeof(buf), PROTO_MAX_PAYLOAD, &m))
		return 1;
	m.type = PROTO_REPLY;
	if (!strcmp(argv[2], "wrongseq"))
		m.seq += 1000;
	else if (!strcmp(argv[2], "echoskew"))
		m.client_send_ns += 1;
	else if (!strcmp(argv[2], "request"))
		m.type = PROTO_REQUEST;
	proto_encode(&m, buf);
	if (!strcmp(argv[2], "garbage"))
		memset(buf, 0x5a, sizeof(buf));
	if (write(c, buf, sizeof(buf)) != sizeof(buf))
		return 1;
	sleep(2);	/* keep the connection open: the client must notice */
	close(c);
	return 0;
}
