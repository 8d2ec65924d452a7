/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attrib: which C-state each request's server core was in when the
 * request arrived, from the server's message log and the core's timeline.
 *
 * A message found its core idle when the core left an idle state after
 * the server's previous activity (the previous message's receive or
 * send) and before this message was received: the state at arrival is
 * that idle state, the idle period ended at the exit, and exit-to-receive
 * is how long the core took from waking to handing the message to the
 * server. Otherwise the core was already in C0. A request's pre-query
 * woke the core when the pre-query for the same sequence number arrived
 * just before it and found the core idle.
 */
#ifndef WB_ATTRIB_H
#define WB_ATTRIB_H

#include <stddef.h>
#include <stdint.h>
#include "timeline.h"

struct attr_msg {
	uint64_t seq;
	int prequery;
	uint64_t recv_ns, send_ns;	/* send_ns 0: not answered */
};

struct attr_result {
	uint64_t seq;
	uint64_t recv_ns;
	int32_t state;		/* TL_C0, TL_UNKNOWN or an idle state */
	uint64_t idle_end_ns;	/* 0 when the core was in C0 */
	uint64_t exit_to_recv_ns;
	int prequery_woke;
};

/*
 * msgs in receive order. Writes one result per request (not per
 * pre-query) to out (room for n); returns how many.
 */
size_t attrib_run(const struct timeline *t, uint32_t cpu,
		  const struct attr_msg *msgs, size_t n,
		  struct attr_result *out);

#endif
