/* SPDX-License-Identifier: GPL-2.0 */
/* net: socket set-up shared by server, client and midtier. */
#ifndef WB_NET_H
#define WB_NET_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

enum net_proto {
	NET_TCP,
	NET_UDP,
};

/* "tcp" or "udp"; -1 when unknown. */
int net_proto_parse(const char *name, enum net_proto *out);
const char *net_proto_name(enum net_proto p);
static inline int net_socktype(enum net_proto p)
{
	return p == NET_TCP ? SOCK_STREAM : SOCK_DGRAM;
}

/*
 * Non-blocking listening TCP socket (or bound UDP socket) on host:port;
 * port 0 picks a free port, returned in *bound. Returns fd or -errno.
 */
int net_listen(enum net_proto proto, const char *host, uint16_t port,
	       int backlog, uint16_t *bound);
/* A connect without a deadline of its own gives up after this. */
#define NET_CONNECT_TIMEOUT_NS 10000000000ull
/* A connect under way asks its stop callback at least this often. */
#define NET_CONNECT_SLICE_NS 50000000ull

/*
 * Connects to host:port, never blocked past timeout_ns nor past a stop
 * request: the connect is non-blocking and waited for in slices of at
 * most NET_CONNECT_SLICE_NS, between which stop(arg) is asked (NULL:
 * never). A full accept queue drops SYNs, and a blocking connect() would
 * then sit out the kernel's SYN retries (minutes) with signals pending.
 * TCP gets TCP_NODELAY; a UDP socket is connected at once. Returns the
 * non-blocking fd, or -ETIMEDOUT (no connection within timeout_ns),
 * -EINTR (stop said so), -EADDRNOTAVAIL (host does not resolve) or
 * another -errno (-ECONNREFUSED).
 */
int net_connect_until(enum net_proto proto, const char *host, uint16_t port,
		      uint64_t timeout_ns, int (*stop)(void *arg), void *arg);
/* net_connect_until with NET_CONNECT_TIMEOUT_NS and no stop callback. */
int net_connect(enum net_proto proto, const char *host, uint16_t port);
/*
 * Starts a non-blocking TCP connect to host:port (TCP_NODELAY): returns
 * the non-blocking fd, with *done = 1 when already connected or 0 while
 * the connection is in progress (wait for POLLOUT/EPOLLOUT, then call
 * net_connect_finish), or -errno.
 */
int net_connect_start(const char *host, uint16_t port, int *done);
/* The outcome of a connect in progress once the fd is writable:
 * 0 connected, -EINPROGRESS not yet, or -errno (e.g. -ECONNREFUSED). */
int net_connect_finish(int fd);
/* Write all of buf to a non-blocking fd, spinning on EAGAIN for at most
 * timeout_ns. Returns 0 or -errno (-ETIMEDOUT). */
int net_send_all(int fd, const void *buf, size_t len, uint64_t timeout_ns);
int net_set_nonblock(int fd);
/*
 * SO_BUSY_POLL of US microseconds on fd (the kernel's socket busy
 * polling: a blocking receive or epoll on it polls the device queue that
 * long before it sleeps), read back with getsockopt: 0, -EPERM (raising
 * it needs CAP_NET_ADMIN), -EIO when the kernel kept another value, or
 * another -errno.
 */
int net_busy_poll(int fd, unsigned int us);
/*
 * One read from a non-blocking socket, EINTR retried: bytes read, 0 at
 * end of stream, -EAGAIN when nothing is there, or another -errno.
 */
ssize_t net_read(int fd, void *buf, size_t len);

#endif
