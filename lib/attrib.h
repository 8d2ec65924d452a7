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
 * server. Otherwise the core was already in C0.
 *
 * A request's pre-query (same sequence number) is classified:
 *   none      no pre-query for it
 *   woke      the pre-query arrived before it and found the core idle:
 *             it woke the core ahead of the request (prequery_woke = 1)
 *   awake     the pre-query arrived before it but the core was already up
 *   together  both came in by one read (equal receive times): the
 *             pre-query gave no head start; the request is given the
 *             state the pair found the core in (but see
 *             attrib_client_lead: sent apart, it is `woke`)
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

enum attr_pq {
	ATTR_PQ_NONE,
	ATTR_PQ_WOKE,
	ATTR_PQ_AWAKE,
	ATTR_PQ_TOGETHER,
	ATTR_PQ_KINDS
};

struct attr_result {
	uint64_t seq;
	uint64_t recv_ns, send_ns;	/* the message's (send_ns 0: none) */
	int32_t state;		/* TL_C0, TL_UNKNOWN or an idle state */
	uint64_t idle_end_ns;	/* 0 when the core was in C0 */
	uint64_t exit_to_recv_ns;
	int prequery_woke;	/* 1 only for ATTR_PQ_WOKE */
	enum attr_pq prequery;
};

/*
 * A pair read together may still have been sent apart: a pre-query that
 * left the client lead_ns (> 0) ahead reached an idle core, the wake began
 * with it, and the request arrived while the core was still waking, so
 * the server read both at once. Given the client's effective lead, such a
 * result is reclassified `woke` (prequery_woke = 1) when the pair found
 * the core idle; sent together (lead 0) it stays `together`.
 */
void attrib_client_lead(struct attr_result *r, uint64_t lead_ns);

/* "none", "woke", "awake", "together". */
const char *attrib_pq_name(enum attr_pq pq);
/*
 * Sorts msgs by receive time; messages with equal times (read by one
 * read()) keep their log order. Returns 0 or -ENOMEM.
 */
int attrib_sort(struct attr_msg *msgs, size_t n);
/*
 * msgs in receive order (attrib_sort). Writes one result per request
 * (not per pre-query) to out (room for n); returns how many.
 */
size_t attrib_run(const struct timeline *t, uint32_t cpu,
		  const struct attr_msg *msgs, size_t n,
		  struct attr_result *out);

#endif
