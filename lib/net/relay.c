// SPDX-License-Identifier: GPL-2.0
#include "relay.h"

void backoff_init(struct backoff *b, uint64_t min_ns, uint64_t max_ns)
{
	b->min_ns = min_ns;
	b->max_ns = max_ns < min_ns ? min_ns : max_ns;
	b->cur_ns = 0;
	b->next_ns = 0;
}

uint64_t backoff_fail(struct backoff *b, uint64_t now_ns)
{
	if (!b->cur_ns)
		b->cur_ns = b->min_ns;
	else if (b->cur_ns > b->max_ns / 2)
		b->cur_ns = b->max_ns;
	else
		b->cur_ns *= 2;
	b->next_ns = now_ns + b->cur_ns;
	return b->cur_ns;
}

void backoff_reset(struct backoff *b)
{
	b->cur_ns = 0;
	b->next_ns = 0;
}

int backoff_due(const struct backoff *b, uint64_t now_ns)
{
	return now_ns >= b->next_ns;
}

enum relay_match relay_reply_match(uint64_t reply_seq, int slot_used,
				   uint64_t slot_seq, uint64_t next_seq)
{
	if (reply_seq >= next_seq)
		return RELAY_BOGUS;
	if (!slot_used || slot_seq != reply_seq)
		return RELAY_LATE;
	return RELAY_MATCH;
}
