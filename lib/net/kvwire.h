/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvwire: what memcached's text protocol and Redis' RESP share, for
 * their protocol table entries (wire_memcached.c, wire_redis.c).
 *
 * Both are lines ended by CRLF and data blocks of announced length
 * followed by CRLF; neither echoes anything, so a connection keeps a FIFO
 * of its messages. A client end pushes each request it encodes and pops
 * the oldest for each reply, giving it that request's seq and send time.
 * A server end (a relay) numbers the requests it reads, pushes them, and
 * when the relay has a reply for one, marks it; drain() writes the
 * marked replies at the head, so they leave in request order whatever
 * order the backends answered in.
 *
 * The byte loop is here; a grammar says what a line means and what
 * follows it. Everything is bounded: a line at most KV_LINE_MAX bytes, a
 * data block at most the connection's payload cap, the FIFO at most
 * KV_PENDING_MAX messages. A reply that is not what the request can get
 * is an error naming the request's seq (conn_error), never a match.
 */
#ifndef WB_KVWIRE_H
#define WB_KVWIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "wire.h"

#define KV_LINE_MAX 1024
#define KV_PENDING_MAX (1u << 20)

enum {
	KV_EBAD = -1,		/* not the protocol, or not the request's reply */
	KV_ENOMEM = -2,
	KV_ELINE = -3,		/* a line longer than KV_LINE_MAX */
	KV_EDGRAM = -4,		/* no UDP framing */
	KV_EFULL = -5,		/* more than KV_PENDING_MAX outstanding */
};

/* A message in the FIFO and, on a server end, its reply once known. */
struct kv_item {
	uint64_t seq, client_send_ns, key;
	uint32_t payload_len;	/* request: a set's value; reply: a hit's */
	uint16_t key_size, rflags;
	uint8_t type, op;
	uint8_t done, rtype;	/* server end: reply known, its type */
};

struct kv_state;

struct kv_grammar {
	/* A complete line, CRLF removed (l[len] is NUL). May ask for a data
	 * block (s->data_left). Returns 0, a KV_E* error, or fn's value. */
	int (*line)(struct kv_state *s, char *l, size_t len, wire_msg_fn fn,
		    void *arg);
	/* The data block announced by a line is in (its CRLF checked). */
	int (*data_end)(struct kv_state *s, wire_msg_fn fn, void *arg);
	/* A server end's reply to it: bytes written, or -ENOSPC. */
	ssize_t (*reply)(const struct kv_item *it, uint8_t *buf, size_t cap);
};

struct kv_state {
	const struct kv_grammar *g;
	int server;
	uint32_t payload_cap;
	struct kv_item *q;
	size_t cap, head, n;
	uint64_t next_seq;	/* server end: seq of the next request read */
	char line[KV_LINE_MAX + 1];
	size_t have;
	uint64_t data_left;	/* block bytes and its CRLF still to come */
	/* the grammar's parse state */
	int phase;
	int64_t args_left;	/* RESP: array elements still to come */
	int argi;
	uint32_t value_len;
	struct kv_item cur;	/* being parsed */
	char err[200];
};

void kv_conn_init(struct wire_conn *c, uint32_t payload_cap,
		  const struct kv_grammar *g);
void kv_conn_free(struct wire_conn *c);
int kv_feed(struct wire_conn *c, const uint8_t *buf, size_t len,
	    wire_msg_fn fn, void *arg);
size_t kv_feed_step(const struct wire_conn *c);
int kv_partial(const struct wire_conn *c);
const char *kv_conn_error(const struct wire_conn *c);
const char *kv_strerror(int err);
ssize_t kv_drain(struct wire_conn *c, uint8_t *buf, size_t cap);
int kv_decode(const uint8_t *buf, size_t len, uint32_t payload_cap,
	      struct proto_msg *m);
/* Most bytes of one reply: its header line (a key and a length) and a
 * value of payload_cap bytes with its framing. */
size_t kv_reply_max(uint32_t payload_cap);

/* The entries a key-value protocol table shares (lib/kvwire). */
#define KVWIRE_OPS							\
	.keyed = 1, .ordered = 1, .conn_free = kv_conn_free,		\
	.feed = kv_feed, .feed_step = kv_feed_step,			\
	.partial = kv_partial, .decode = kv_decode,			\
	.strerror = kv_strerror, .conn_error = kv_conn_error,		\
	.drain = kv_drain, .reply_max = kv_reply_max

/*
 * Client end: push a request being encoded. Server end: m is a reply
 * (REPLY or ERROR, flags, payload_len) to the request m->seq; it is
 * marked. 0 or -errno.
 */
int kv_encoded(struct wire_conn *c, const struct proto_msg *m);

/* Helpers for the grammars. */
int kv_bad(struct kv_state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The line as text for a message: printable ASCII, at most 40 bytes. */
const char *kv_shown(const char *l, char *out, size_t outlen);
/* The oldest outstanding request (client end), or NULL. */
struct kv_item *kv_head(struct kv_state *s);
/* Client end: pops the head and reports its reply. */
int kv_answer(struct kv_state *s, uint8_t type, uint16_t flags,
	      uint32_t payload_len, wire_msg_fn fn, void *arg);
/* Server end: numbers, queues and reports the request in s->cur. */
int kv_deliver(struct kv_state *s, wire_msg_fn fn, void *arg);
/* "request" / "set" / "get" / "pre-query" for messages */
const char *kv_what(const struct kv_item *it);
/* Parses a decimal in [0, max] filling the whole of s[0..len); 0 or -1. */
int kv_number(const char *s, size_t len, uint64_t max, uint64_t *v);

#endif
