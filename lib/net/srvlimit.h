/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srvlimit: the server's resource rules, as pure functions.
 *
 * File descriptors: every connection is one fd, so --max-conns needs
 * that many plus a reserve for everything else the server opens. The soft
 * limit is raised to what that needs (up to the hard limit); when the
 * hard limit is too low, --max-conns is lowered to fit.
 *
 * Fair turns: the server serves ready connections round-robin. One
 * connection's turn ends after SRV_TURN_MSGS messages or once the service
 * time spent in the turn reaches SRV_TURN_SERVICE_NS, whichever comes
 * first; its next messages wait until every other ready connection has
 * had a turn. A pipelining client therefore delays another client by at
 * most one turn (about SRV_TURN_SERVICE_NS plus one request's service).
 */
#ifndef WB_SRVLIMIT_H
#define WB_SRVLIMIT_H

#include <stdint.h>

/* fds the server holds besides its connections (stdio, epoll, signalfd,
 * listeners, log, trace marker, PM QoS, the spare fd, transient opens). */
#define SRV_FD_RESERVE 32u
#define SRV_TURN_MSGS 64u
#define SRV_TURN_SERVICE_NS 1000000ull

struct srv_fd_budget {
	uint64_t soft;		/* soft RLIMIT_NOFILE to set (>= the old one) */
	uint64_t max_conns;	/* connections that fit (<= the wanted ones) */
};

/*
 * max_conns connections wanted under RLIMIT_NOFILE soft/hard (use
 * UINT64_MAX for RLIM_INFINITY). Returns 0 when they fit, 1 when
 * max_conns had to be lowered (to at least 1: the server still runs,
 * refusing what does not fit).
 */
int srv_fd_budget(uint64_t max_conns, uint64_t soft, uint64_t hard,
		  struct srv_fd_budget *out);

/* True when a connection's turn is over after msgs messages that took
 * service_ns of service time in this turn. */
static inline int srv_turn_over(uint64_t msgs, uint64_t service_ns)
{
	return msgs >= SRV_TURN_MSGS || service_ns >= SRV_TURN_SERVICE_NS;
}

#endif
