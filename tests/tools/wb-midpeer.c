// SPDX-License-Identifier: GPL-2.0
/*
 * wb-midpeer: misbehaving peers of the midtier, for its fault tests.
 *
 *   wb-midpeer stuck PORTFILE       a loopback listener whose accept queue
 *                                   is full: connects to it hang (SYNs are
 *                                   dropped). Runs until killed.
 *   wb-midpeer blackhole PORTFILE   accepts connections and never reads
 *                                   them (small receive buffer), so a
 *                                   sender's writes soon block. Runs until
 *                                   killed.
 *   wb-midpeer noread PORT N [BYTES]
 *                                   sends N requests (of BYTES payload,
 *                                   default 0), never reads a reply (tiny
 *                                   receive buffer); stops at the first
 *                                   failed send. Prints "sent K".
 *   wb-midpeer halfclose PORT N US  sends N requests of US µs service,
 *                                   shuts its write side, then reads
 *                                   replies until end of stream. Prints
 *                                   "replies R errors E".
 *   wb-midpeer big PORT BYTES       sends one request with a BYTES payload
 *                                   and prints the reply's type (REPLY,
 *                                   ERROR) or "none".
 *   wb-midpeer flood PORT BATCH S [US]
 *                                   pipelines batches of BATCH requests
 *                                   (of US us service, default 0) for S
 *                                   seconds, as fast as the socket takes
 *                                   them, reading and dropping every
 *                                   reply all along. Prints "sent N
 *                                   replies R".
 * Loopback only. Exit 0, or 1 on a set-up failure, 2 on usage.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "clock.h"
#include "net.h"
#include "proto.h"

static int write_port(const char *path, uint16_t port)
{
	FILE *f = fopen(path, "w");

	if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f))
		return -1;
	return 0;
}

static int connect_lo(uint16_t port, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int send_req(int fd, uint64_t seq, uint64_t service_ns, uint32_t payload)
{
	static uint8_t zeros[65536];
	uint8_t buf[PROTO_HDR_LEN];
	struct proto_msg m = { .type = PROTO_REQUEST, .seq = seq,
			       .client_send_ns = clock_now_ns(),
			       .service_ns = service_ns, .payload_len = payload };

	proto_encode(&m, buf);
	if (send(fd, buf, sizeof(buf), MSG_NOSIGNAL) != sizeof(buf))
		return -1;
	while (payload) {
		size_t n = payload < sizeof(zeros) ? payload : sizeof(zeros);
		ssize_t w = send(fd, zeros, n, MSG_NOSIGNAL);

		if (w <= 0)
			return -1;
		payload -= (uint32_t)w;
	}
	return 0;
}

/* Reads one message header; 1 when read, 0 at end of stream or error. */
static int read_msg(int fd, struct proto_msg *m)
{
	uint8_t buf[PROTO_HDR_LEN];

	for (size_t got = 0; got < sizeof(buf);) {
		ssize_t n = read(fd, buf + got, sizeof(buf) - got);

		if (n <= 0)
			return 0;
		got += (size_t)n;
	}
	return proto_decode(buf, sizeof(buf), 0, m) == PROTO_OK;
}

static void wait_forever(void)
{
	for (;;)
		pause();
}

static int stuck(const char *portfile)
{
	uint16_t port;
	int l = net_listen(NET_TCP, "127.0.0.1", 0, 0, &port), n = 0;

	if (l < 0)
		return 1;
	/* Fill the accept queue: connects complete until it is full. */
	for (int i = 0; i < 16; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
					 .sin_port = htons(port) };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		int done;

		if (fd < 0)
			return 1;
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			continue;
		if (errno != EINPROGRESS)
			return 1;
		usleep(20000);
		done = net_connect_finish(fd);
		if (done == -EINPROGRESS) {
			n++;	/* this one hangs: the queue is full */
			if (n >= 2)
				break;
		}
	}
	if (n < 2 || write_port(portfile, port))
		return 1;
	wait_forever();
	return 0;
}

static int blackhole(const char *portfile)
{
	uint16_t port;
	int l = net_listen(NET_TCP, "127.0.0.1", 0, 16, &port), small = 4096;

	if (l < 0)
		return 1;
	setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (write_port(portfile, port))
		return 1;
	for (;;) {
		int c = accept(l, NULL, NULL);

		if (c < 0)
			usleep(1000);
		/* kept open, never read */
	}
	return 0;
}

static int noread(uint16_t port, uint64_t n, uint32_t payload)
{
	int fd = connect_lo(port, 1024);
	uint64_t i;

	if (fd < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (send_req(fd, i, 0, payload))
			break;
	printf("sent %llu\n", (unsigned long long)i);
	close(fd);
	return 0;
}

static int halfclose(uint16_t port, uint64_t n, uint64_t service_us)
{
	int fd = connect_lo(port, 0);
	uint64_t replies = 0, errors = 0;
	struct proto_msg m;

	if (fd < 0)
		return 1;
	for (uint64_t i = 0; i < n; i++)
		if (send_req(fd, i, service_us * 1000, 0))
			return 1;
	shutdown(fd, SHUT_WR);
	while (read_msg(fd, &m)) {
		if (m.type == PROTO_REPLY)
			replies++;
		else if (m.type == PROTO_ERROR)
			errors++;
	}
	printf("replies %llu errors %llu\n", (unsigned long long)replies,
	       (unsigned long long)errors);
	close(fd);
	return 0;
}

static int big(uint16_t port, uint32_t bytes)
{
	int fd = connect_lo(port, 0);
	struct proto_msg m;

	if (fd < 0 || send_req(fd, 1, 0, bytes))
		return 1;
	if (read_msg(fd, &m))
		printf("%s\n", m.type == PROTO_REPLY ? "REPLY" :
		       m.type == PROTO_ERROR ? "ERROR" : "other");
	else
		printf("none\n");
	close(fd);
	return 0;
}

/*
 * The flooding client of the fairness test: the next batch goes as soon
 * as the socket takes it, so a loop that reads a connection until it is
 * empty never gets to the others.
 */
static int flood(uint16_t port, uint64_t batch, double secs,
		 uint64_t service_us)
{
	int fd = connect_lo(port, 0);
	uint64_t end = clock_now_ns() + (uint64_t)(secs * 1e9);
	uint64_t sent = 0, rbytes = 0;
	size_t len = batch * PROTO_HDR_LEN, off = 0;
	uint8_t *buf = malloc(len), rx[65536];

	if (fd < 0 || !buf || !batch || net_set_nonblock(fd))
		return 1;
	for (uint64_t i = 0; i < batch; i++) {
		struct proto_msg m = { .type = PROTO_REQUEST, .seq = i,
				       .service_ns = service_us * 1000 };

		proto_encode(&m, buf + i * PROTO_HDR_LEN);
	}
	while (clock_now_ns() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
		ssize_t n;

		if (poll(&p, 1, 10) < 0 && errno != EINTR)
			return 1;
		while ((n = net_read(fd, rx, sizeof(rx))) > 0)
			rbytes += (uint64_t)n;
		if (n == 0 || (n < 0 && n != -EAGAIN))
			break;	/* the midtier closed us */
		n = send(fd, buf + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (n > 0) {
			off += (size_t)n;
			if (off == len) {
				off = 0;
				sent += batch;
			}
		}
	}
	printf("sent %llu replies %llu\n", (unsigned long long)sent,
	       (unsigned long long)(rbytes / PROTO_HDR_LEN));
	free(buf);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 3 && !strcmp(argv[1], "stuck"))
		return stuck(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "blackhole"))
		return blackhole(argv[2]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "noread"))
		return noread((uint16_t)atoi(argv[2]), strtoull(argv[3], NULL, 10),
			      argc == 5 ? (uint32_t)strtoul(argv[4], NULL, 10) : 0);
	if (argc == 5 && !strcmp(argv[1], "halfclose"))
		return halfclose((uint16_t)atoi(argv[2]), strtoull(argv[3], NULL, 10),
				 strtoull(argv[4], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "big"))
		return big((uint16_t)atoi(argv[2]), (uint32_t)strtoul(argv[3], NULL, 10));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "flood"))
		return flood((uint16_t)atoi(argv[2]), strtoull(argv[3], NULL, 10),
			     atof(argv[4]),
			     argc == 6 ? strtoull(argv[5], NULL, 10) : 0);
	fprintf(stderr, "usage: wb-midpeer stuck|blackhole PORTFILE | noread PORT N [BYTES] | halfclose PORT N US | big PORT BYTES | flood PORT BATCH SECONDS [US]\n");
	return 2;
}
