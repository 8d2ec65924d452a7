/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay: the rules a relay (the midtier) applies to its backend
 * connections, as pure functions: how long to wait before the next
 * connection attempt, and which in-flight request a backend reply
 * completes.
 */
#ifndef WB_RELAY_H
#define WB_RELAY_H

#include <stdint.h>

/*
 * Bounded exponential backoff between connection attempts: after the
 * first failure wait min_ns, doubling per consecutive failure up to
 * max_ns; a success resets it.
 */
struct backoff {
	uint64_t min_ns, max_ns;
	uint64_t cur_ns;	/* wait after the last failure, 0 = none yet */
	uint64_t next_ns;	/* no attempt before this time */
};

void backoff_init(struct backoff *b, uint64_t min_ns, uint64_t max_ns);
/* A failed attempt at now_ns: returns the wait before the next one. */
uint64_t backoff_fail(struct backoff *b, uint64_t now_ns);
void backoff_reset(struct backoff *b);
/* May the next attempt start at now_ns? */
int backoff_due(const struct backoff *b, uint64_t now_ns);

enum relay_match {
	RELAY_MATCH,	/* completes the request in the slot */
	RELAY_LATE,	/* its request was answered already (by a timeout or
			 * a backend failure); the slot is free or holds a
			 * later request with the same slot index */
	RELAY_BOGUS,	/* a sequence number the relay never sent */
};

/*
 * A backend reply with sequence reply_seq against the slot it maps to
 * (reply_seq % slots), which is in use or not and, when in use, holds
 * the request slot_seq; next_seq is the next sequence to be sent.
 */
enum relay_match relay_reply_match(uint64_t reply_seq, int slot_used,
				   uint64_t slot_seq, uint64_t next_seq);

#endif
