// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the memcached and Redis parsers of the protocol table
 * (lib/kvwire, lib/wire_memcached, lib/wire_redis), both ends.
 *
 * The first input byte picks the protocol and a few requests a client
 * end encodes; the rest is fed as the server's replies in pieces whose
 * sizes come from the input too (1-byte pieces included). The same bytes
 * are then fed to a server end as requests, the requests it reads are
 * answered in an input-chosen order and drained, and what it drains must
 * parse back, reply for reply, at a client end that sent those requests.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kvkey.h"
#include "wire.h"

#define CAP 4096
#define MAXREQ 64

struct client_ctx {
	uint64_t next;		/* the seq the next reply must have */
	uint64_t sent;		/* requests encoded */
};

static int on_reply(const struct proto_msg *m, void *arg)
{
	struct client_ctx *c = arg;

	/* in FIFO order, never more replies than requests */
	if (m->seq != c->next || c->next >= c->sent)
		__builtin_trap();
	if (m->type != PROTO_REPLY && m->type != PROTO_ERROR)
		__builtin_trap();
	if (m->payload_len > CAP)
		__builtin_trap();
	c->next++;
	return 0;
}

struct server_ctx {
	struct proto_msg req[MAXREQ];
	unsigned n;
	uint64_t next;
};

static int on_request(const struct proto_msg *m, void *arg)
{
	struct server_ctx *s = arg;

	if (m->seq != s->next++)
		__builtin_trap();
	if (m->type == PROTO_REQUEST) {
		if ((m->op != PROTO_OP_GET && m->op != PROTO_OP_SET) ||
		    m->key_size < KVKEY_MIN || m->key_size > KVKEY_MAX ||
		    m->payload_len > CAP || (m->op == PROTO_OP_GET && m->payload_len))
			__builtin_trap();
	} else if (m->type != PROTO_PREQUERY) {
		__builtin_trap();
	}
	if (s->n < MAXREQ)
		s->req[s->n++] = *m;
	return s->n == MAXREQ;	/* enough: stop the feed */
}

/* Feeds buf to c in pieces sized by the input; stops at an error. */
static int feed_pieces(struct wire_conn *c, const uint8_t *buf, size_t len,
		       const uint8_t *sizes, size_t nsizes, wire_msg_fn fn,
		       void *arg)
{
	size_t pos = 0, k = 0;
	int ret = 0;

	while (pos < len && !ret) {
		size_t step = nsizes ? (size_t)sizes[k++ % nsizes] % 64 + 1 : len;

		if (step > len - pos)
			step = len - pos;
		ret = wire_feed(c, buf + pos, step, fn, arg);
		if (ret < 0 && !wire_conn_error(c) && !c->ops->strerror(ret))
			__builtin_trap();
		pos += step;
	}
	return ret;
}

static void client_side(const struct wb_proto_ops *ops, const uint8_t *data,
			size_t size)
{
	struct client_ctx ctx = { 0 };
	struct wire_conn c;
	uint8_t buf[CAP + 512];
	unsigned nreq = size ? data[0] % 8 + 1 : 1;

	wire_conn_init(&c, ops, CAP);
	for (unsigned i = 0; i < nreq; i++) {
		uint8_t b = i + 1 < size ? data[i + 1] : 0;
		struct proto_msg m = {
			.type = b % 5 ? PROTO_REQUEST : PROTO_PREQUERY,
			.op = b & 1 ? PROTO_OP_SET : PROTO_OP_GET,
			.seq = i, .client_send_ns = i, .key = b % 37,
			.key_size = (uint16_t)(3 + b % 10),
		};

		if (m.op == PROTO_OP_SET)
			m.payload_len = b % 17;
		if (ops->encode(&c, &m, buf, sizeof(buf)) <= 0)
			__builtin_trap();
		ctx.sent++;
	}
	feed_pieces(&c, data, size, data, size < 8 ? size : 8, on_reply, &ctx);
	wire_conn_free(&c);
}

static void server_side(const struct wb_proto_ops *ops, const uint8_t *data,
			size_t size)
{
	struct server_ctx *s = calloc(1, sizeof(*s));
	struct wire_conn srv, cli;
	struct client_ctx back = { 0 };
	size_t cap = ops->reply_max(CAP), total = 0;
	uint8_t *out = malloc(cap * MAXREQ), tmp[CAP + 512];
	unsigned answered = 0;

	if (!s || !out)
		goto out;
	wire_conn_init_server(&srv, ops, CAP);
	feed_pieces(&srv, data, size, NULL, 0, on_request, s);
	/* The client that sent them, in their order. */
	wire_conn_init(&cli, ops, CAP);
	for (unsigned i = 0; i < s->n; i++) {
		struct proto_msg m = s->req[i];

		m.seq = i;
		m.client_send_ns = i;
		if (ops->encode(&cli, &m, tmp, sizeof(tmp)) <= 0)
			__builtin_trap();
		back.sent++;
	}
	/* Answer in an order the input picks, draining as replies come due. */
	for (unsigned k = 0; k < s->n; k++) {
		unsigned i = (unsigned)(k * 7 + (size ? data[k % size] : 0)) % s->n;
		uint8_t b = size ? data[(k * 3) % size] : 0;
		struct proto_msg r = { .seq = i, .type = b % 11 ? PROTO_REPLY : PROTO_ERROR,
				       .flags = b & 1 ? PROTO_F_MISS : 0,
				       .payload_len = b % 13 };
		ssize_t n;

		if (ops->encode(&srv, &r, tmp, sizeof(tmp)) < 0)
			continue;	/* answered already: refused */
		answered++;
		n = ops->drain(&srv, out + total, cap * MAXREQ - total);
		if (n < 0 || (size_t)n > cap * MAXREQ - total)
			__builtin_trap();
		total += (size_t)n;
	}
	/* every request that was answered once, in any order */
	for (unsigned i = 0; i < s->n; i++) {
		struct proto_msg r = { .seq = i, .type = PROTO_REPLY };
		ssize_t n;

		if (ops->encode(&srv, &r, tmp, sizeof(tmp)) == 0)
			answered++;
		n = ops->drain(&srv, out + total, cap * MAXREQ - total);
		if (n < 0)
			__builtin_trap();
		total += (size_t)n;
	}
	if (answered != s->n)
		__builtin_trap();
	/* The round trip: every reply parses, in order, without error. */
	if (wire_feed(&cli, out, total, on_reply, &back) || back.next != s->n)
		__builtin_trap();
	wire_conn_free(&cli);
	wire_conn_free(&srv);
out:
	free(out);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct wb_proto_ops *ops = size && (data[0] & 0x80) ? &wire_redis :
					 &wire_memcached;

	client_side(ops, data, size);
	server_side(ops, data, size);
	return 0;
}
