// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "net.h"
#include "resolve.h"

int net_proto_parse(const char *name, enum net_proto *out)
{
	if (!strcmp(name, "tcp"))
		*out = NET_TCP;
	else if (!strcmp(name, "udp"))
		*out = NET_UDP;
	else
		return -1;
	return 0;
}

const char *net_proto_name(enum net_proto p)
{
	return p == NET_TCP ? "tcp" : "udp";
}

int net_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static uint16_t bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

int net_busy_poll(int fd, unsigned int us)
{
	int v = (int)us, got = -1;
	socklen_t len = sizeof(got);

	if (us > INT32_MAX)
		return -EINVAL;
	if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, sizeof(v)) ||
	    getsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &got, &len))
		return -errno;
	return got == v ? 0 : -EIO;
}

/*
 * Resolves HOST:PORT into *SS and opens a non-blocking socket of its
 * family: the fd, -EADDRNOTAVAIL or -errno.
 */
static int resolved_socket(enum net_proto proto, const char *host, uint16_t port,
			   struct sockaddr_storage *ss, socklen_t *len)
{
	int fd;

	if (opt_resolve(host, port, net_socktype(proto), ss, len))
		return -EADDRNOTAVAIL;
	fd = socket(ss->ss_family, net_socktype(proto) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

int net_listen(enum net_proto proto, const char *host, uint16_t port,
	       int backlog, uint16_t *bound)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, err;

	fd = resolved_socket(proto, host, port, &ss, &len);
	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len))
		goto fail;
	if (proto == NET_TCP && listen(fd, backlog))
		goto fail;
	if (bound)
		*bound = bound_port(fd);
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

/*
 * Starts a non-blocking connect: the fd, with *done = 1 when connected
 * already (UDP always) or 0 while in progress, or -errno.
 */
static int connect_start(enum net_proto proto, const char *host,
			 uint16_t port, int *done)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, err;

	fd = resolved_socket(proto, host, port, &ss, &len);
	if (fd < 0)
		return fd;
	if (proto == NET_TCP)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	*done = 1;
	if (!connect(fd, (struct sockaddr *)&ss, len))
		return fd;
	if (errno == EINPROGRESS || errno == EINTR) {
		*done = 0;
		return fd;
	}
	err = -errno;
	close(fd);
	return err;
}

int net_connect_until(enum net_proto proto, const char *host, uint16_t port,
		      uint64_t timeout_ns, int (*stop)(void *arg), void *arg)
{
	uint64_t deadline = clock_now_ns() + timeout_ns;
	int done, ret, fd = connect_start(proto, host, port, &done);

	while (fd >= 0 && !done) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		uint64_t now = clock_now_ns(), slice;

		if (stop && stop(arg)) {
			ret = -EINTR;
			goto fail;
		}
		/* Past the deadline one more look, without waiting: after a
		 * stall of this process the connect may have completed
		 * unseen. Rounded up: a last slice of 0 ms would spin. */
		slice = now >= deadline ? 0 :
			deadline - now < NET_CONNECT_SLICE_NS ?
			deadline - now : NET_CONNECT_SLICE_NS;
		if (poll(&p, 1, (int)((slice + 999999) / 1000000)) < 0 &&
		    errno != EINTR) {
			ret = -errno;
			goto fail;
		}
		ret = net_connect_finish(fd);
		if (ret == -EINPROGRESS && now >= deadline)
			ret = -ETIMEDOUT;
		if (!ret)
			done = 1;
		else if (ret != -EINPROGRESS)
			goto fail;
	}
	return fd;
fail:
	close(fd);
	return ret;
}

int net_connect(enum net_proto proto, const char *host, uint16_t port)
{
	return net_connect_until(proto, host, port, NET_CONNECT_TIMEOUT_NS,
				 NULL, NULL);
}

int net_connect_start(const char *host, uint16_t port, int *done)
{
	return connect_start(NET_TCP, host, port, done);
}

int net_connect_finish(int fd)
{
	int soerr = 0;
	socklen_t len = sizeof(soerr);
	struct sockaddr_storage ss;

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
		return -errno;
	if (soerr)
		return -soerr;
	/* No error yet: connected only if the peer is known. */
	len = sizeof(ss);
	if (getpeername(fd, (struct sockaddr *)&ss, &len))
		return errno == ENOTCONN ? -EINPROGRESS : -errno;
	return 0;
}

int net_send_all(int fd, const void *buf, size_t len, uint64_t timeout_ns)
{
	const char *p = buf;
	uint64_t deadline = 0;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		if (!deadline)
			deadline = clock_now_ns() + timeout_ns;
		else if (clock_now_ns() > deadline)
			return -ETIMEDOUT;
	}
	return 0;
}

ssize_t net_read(int fd, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = recv(fd, buf, len, MSG_DONTWAIT);

		if (n >= 0)
			return n;
		if (errno != EINTR)
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	}
}
