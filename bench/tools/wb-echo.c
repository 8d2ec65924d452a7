// SPDX-License-Identifier: GPL-2.0
/*
 * wb-echo: the least a wakebench-protocol server can do, to split the
 * client's share of the round trip from the server's (bench/rtt-split.sh).
 * One connection at a time, one thread pinned to CPU; for each 56-byte
 * request header (payload-free requests only) it writes back a REPLY with
 * the same seq and client_send_ns, and zero server stamps (no clock is
 * read). Per request: one recv() and one send(), like sockperf's server;
 * no epoll, no log, no fairness turns.
 *
 *   wb-echo CPU PORT block|spin
 *
 * block: blocking recv(), so the core idles between requests (the path
 * of 'wakebench server'); spin: non-blocking recv() in a loop (the path
 * of 'wakebench server --busy-poll').
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cpu.h"
#include "die.h"
#include "proto.h"

#define PROG "wb-echo"

static int serve(int fd, int spin)
{
	uint8_t in[PROTO_HDR_LEN], out[PROTO_HDR_LEN];
	size_t have = 0;

	for (;;) {
		ssize_t n = recv(fd, in + have, sizeof(in) - have,
				 spin ? MSG_DONTWAIT : 0);
		struct proto_msg m;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return 0;
		have += (size_t)n;
		if (have < sizeof(in))
			continue;
		have = 0;
		if (proto_decode(in, sizeof(in), 0, &m) ||
		    m.type != PROTO_REQUEST)
			return -1;	/* payloads and pre-queries: not here */
		m.type = PROTO_REPLY;
		m.service_ns = 0;
		proto_encode(&m, out);
		if (send(fd, out, sizeof(out), MSG_NOSIGNAL) != sizeof(out))
			return 0;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int one = 1, lfd, spin;
	long cpu, port;
	char *e;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("Usage: wb-echo CPU PORT block|spin\n");
		return 0;
	}
	if (argc != 4)
		opt_usage(PROG, "give CPU, PORT and block|spin");
	cpu = strtol(argv[1], &e, 10);
	if (*e || cpu < 0)
		opt_usage(PROG, "invalid CPU '%s'", argv[1]);
	port = strtol(argv[2], &e, 10);
	if (*e || port < 1 || port > 65535)
		opt_usage(PROG, "invalid PORT '%s'", argv[2]);
	if (strcmp(argv[3], "block") && strcmp(argv[3], "spin"))
		opt_usage(PROG, "give block or spin, not '%s'", argv[3]);
	spin = !strcmp(argv[3], "spin");
	if (cpu_pin_self((int)cpu))
		opt_die(PROG, "cannot pin to CPU %ld", cpu);
	signal(SIGPIPE, SIG_IGN);
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4))
		opt_die(PROG, "cannot listen on 127.0.0.1:%ld: %s", port,
			strerror(errno));
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			opt_die(PROG, "accept: %s", strerror(errno));
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (serve(fd, spin))
			fprintf(stderr, "%s: a message that is not a payload-free request: connection closed\n",
				PROG);
		close(fd);
	}
}
