/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wire: the protocol table. Everything a program needs to know about a
 * wire protocol is one struct wb_proto_ops: how a request, a pre-query
 * and a reply are encoded, how a byte stream is cut into messages, how a
 * datagram is checked, and how a reply is matched to its request (by the
 * sequence number it echoes, here). Client, server and midtier call
 * through the table and never touch a protocol's bytes, so a new protocol
 * is a new wire_*.c file and a line in wire.c.
 *
 * Whatever the protocol, a message reaches a program as a struct
 * proto_msg (type, seq, times, payload length).
 */
#ifndef WB_WIRE_H
#define WB_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "framer.h"
#include "proto.h"

struct wb_proto_ops;
struct kv_state;

/*
 * One end of one connection: the protocol's parser state. A client end
 * sends requests and reads replies; a server end (wire_conn_init_server)
 * reads requests and sends replies.
 */
struct wire_conn {
	const struct wb_proto_ops *ops;
	int server;
	union {
		struct framer fr;	/* wakebench */
		struct kv_state *kv;	/* memcached, redis (lib/kvwire) */
	} u;
};

/* Called for each complete message; non-zero stops the feed. */
typedef int (*wire_msg_fn)(const struct proto_msg *m, void *arg);

struct wb_proto_ops {
	const char *name;
	int datagrams;		/* one message per datagram works (UDP) */
	/* Bytes m takes on the wire, header and payload; a reply's
	 * (PROTO_REPLY, PROTO_ERROR) as a server writes it: op and key_size
	 * of its request, PROTO_F_MISS, PROTO_F_ACK for a pre-query's. */
	size_t (*msg_len)(const struct proto_msg *m);
	/*
	 * Writes m (its payload is zeros) into buf; returns the bytes
	 * written, or -ENOSPC when cap is short of msg_len(m). c is the
	 * connection it goes out on (NULL for a datagram).
	 */
	ssize_t (*encode)(struct wire_conn *c, const struct proto_msg *m,
			  uint8_t *buf, size_t cap);
	void (*conn_init)(struct wire_conn *c, uint32_t payload_cap);
	/*
	 * Consumes len stream bytes, calling fn for each message complete.
	 * Returns 0, a negative error (malformed: drop the stream; see
	 * strerror), or the first non-zero value of fn (the rest of buf is
	 * then not consumed).
	 */
	int (*feed)(struct wire_conn *c, const uint8_t *buf, size_t len,
		    wire_msg_fn fn, void *arg);
	/* Most bytes a feed may take without completing two messages. */
	size_t (*feed_step)(const struct wire_conn *c);
	/* True while a message is partly received. */
	int (*partial)(const struct wire_conn *c);
	/* Checks and decodes one datagram: 0 or a negative error. */
	int (*decode)(const uint8_t *buf, size_t len, uint32_t payload_cap,
		      struct proto_msg *m);
	const char *(*strerror)(int err);
	/*
	 * Key-value protocols. keyed: a request carries op, key and
	 * key_size, its payload is the value of a set. ordered: nothing is
	 * echoed, replies come in request order; a client end keeps what it
	 * sent and gives each reply the seq and send time of its request, a
	 * server end numbers the requests it reads 0, 1, ... and holds the
	 * replies encoded until those before them are (drain).
	 */
	int keyed, ordered;
	/* Frees what conn_init allocated (NULL: nothing). */
	void (*conn_free)(struct wire_conn *c);
	/* What the last feed error was about (the request's seq), or NULL. */
	const char *(*conn_error)(const struct wire_conn *c);
	/*
	 * Server end of an ordered protocol: writes the replies now due, in
	 * request order, as many as fit; bytes written (0: none due), or
	 * -ENOSPC when cap is short of the first (see reply_max).
	 */
	ssize_t (*drain)(struct wire_conn *c, uint8_t *buf, size_t cap);
	/* Most bytes one reply with a payload_cap payload takes. */
	size_t (*reply_max)(uint32_t payload_cap);
};

extern const struct wb_proto_ops wire_wakebench;
extern const struct wb_proto_ops wire_memcached;
extern const struct wb_proto_ops wire_redis;

/*
 * What a run put on the wire, counted by the client: its requests (gets
 * and sets for a key-value protocol, each of key_size bytes, sets of
 * value_size), the replies (misses among them) and error replies, the
 * pre-queries and whether each got a reply (acked; always in-band for a
 * key-value protocol).
 */
struct wire_counts {
	uint64_t requests, gets, sets;
	uint64_t replies, misses, errors;
	uint64_t prequeries;
	int acked;
	uint32_t payload, key_size, value_size;
};

/* The messages and bytes of C both ways, from each message's msg_len. */
void wire_cost(const struct wb_proto_ops *ops, const struct wire_counts *c,
	       uint64_t *msgs, uint64_t *bytes);

/* The protocol called name, or NULL. */
const struct wb_proto_ops *wire_find(const char *name);

static inline void wire_conn_init(struct wire_conn *c,
				  const struct wb_proto_ops *ops,
				  uint32_t payload_cap)
{
	c->ops = ops;
	c->server = 0;
	ops->conn_init(c, payload_cap);
}

static inline void wire_conn_init_server(struct wire_conn *c,
					 const struct wb_proto_ops *ops,
					 uint32_t payload_cap)
{
	c->ops = ops;
	c->server = 1;
	ops->conn_init(c, payload_cap);
}

/* Safe on a connection never initialised (zeroed) or freed already. */
static inline void wire_conn_free(struct wire_conn *c)
{
	if (c->ops && c->ops->conn_free)
		c->ops->conn_free(c);
}

static inline const char *wire_conn_error(const struct wire_conn *c)
{
	return c->ops && c->ops->conn_error ? c->ops->conn_error(c) : NULL;
}

static inline int wire_feed(struct wire_conn *c, const uint8_t *buf,
			    size_t len, wire_msg_fn fn, void *arg)
{
	return c->ops->feed(c, buf, len, fn, arg);
}

static inline int wire_partial(const struct wire_conn *c)
{
	return c->ops->partial(c);
}

#endif
