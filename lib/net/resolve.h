/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resolve: a host and port of the command line (opt_hostport, opt.h)
 * made into a socket address. 0 or -1, never prints.
 */
#ifndef WB_RESOLVE_H
#define WB_RESOLVE_H

#include <stdint.h>
#include <sys/socket.h>

/* Resolve host/port into a sockaddr for SOCK_STREAM or SOCK_DGRAM. */
int opt_resolve(const char *host, uint16_t port, int socktype,
		struct sockaddr_storage *ss, socklen_t *len);

#endif
