// SPDX-License-Identifier: GPL-2.0
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include "resolve.h"

int opt_resolve(const char *host, uint16_t port, int socktype,
		struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = socktype }, *res;
	char service[8];

	snprintf(service, sizeof(service), "%u", port);
	if (getaddrinfo(host, service, &hints, &res))
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}
