// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the memcached and Redis entries of the protocol table
 * (lib/kvwire, lib/wire_memcached, lib/wire_redis), both ends, each
 * protocol on every input.
 *
 * An input is a fixed header and a body (a short input is padded with
 * zeros):
 *   byte 0       requests the client end encodes (1 + b % 8); bit 7 gives
 *                a payload cap of SMALL_CAP instead of CAP
 *   2 per slot   a request: kind byte (bits 0-1: pre-query, set, get,
 *                get; bits 2-5: a set's value size; bits 6-7: key
 *                padding), key number byte
 *   NPIECE       the sizes of the pieces fed (0: the rest at once)
 *   4 bytes      seed of the server end's answer order and replies
 *   the body     replies to the client end, requests to the server end
 *
 * Client end: the requests are encoded (each into a buffer of exactly
 * msg_len bytes), then the body is fed as replies; each reply must be for
 * the oldest request outstanding, never one more than were sent, bounded
 * by the payload cap, and an error always has a message. The encoded
 * requests also go to a server end, which must read them back unchanged.
 *
 * Server end: the body is fed as requests, numbered 0, 1, ...; they are
 * answered in an order the input picks and drained as their replies come
 * due (into buffers of exactly the size given), and what was drained must
 * parse, reply for reply, at a client end that sent those requests.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kvkey.h"
#include "kvwire.h"
#include "wire.h"

#define CAP 4096
#define SMALL_CAP 32
#define NCLI 8		/* request slots of the client end */
#define NPIECE 4
#define HDR (1 + 2 * NCLI + NPIECE + 4)
#define MAXREQ 64	/* requests a server end reads from one input */

struct input {
	uint8_t hdr[HDR];
	const uint8_t *body;
	size_t len;
	uint32_t cap;
};

/* What a reply must be, as a client end reports it. */
struct want {
	uint8_t type;
	uint16_t miss;
	uint32_t payload_len;
};

struct client_ctx {
	const struct proto_msg *sent;	/* the requests, in order */
	const struct want *want;	/* NULL: any reply */
	unsigned nsent, next;
	uint32_t cap;
};

static int on_reply(const struct proto_msg *m, void *arg)
{
	struct client_ctx *c = arg;
	const struct proto_msg *r;
	int hit;

	/* never more replies than requests, each for the oldest */
	if (c->next >= c->nsent)
		__builtin_trap();
	r = &c->sent[c->next];
	if (m->seq != r->seq || m->client_send_ns != r->client_send_ns)
		__builtin_trap();
	if (m->type != PROTO_REPLY && m->type != PROTO_ERROR)
		__builtin_trap();
	if (m->payload_len > c->cap)
		__builtin_trap();
	if (r->type == PROTO_PREQUERY && !(m->flags & PROTO_F_ACK))
		__builtin_trap();
	if (r->type == PROTO_REQUEST &&
	    (m->op != r->op || m->key != r->key || m->key_size != r->key_size))
		__builtin_trap();
	/* only a get's hit carries a value */
	hit = r->type == PROTO_REQUEST && r->op == PROTO_OP_GET &&
	      m->type == PROTO_REPLY && !(m->flags & PROTO_F_MISS);
	if (m->payload_len && !hit)
		__builtin_trap();
	if (c->want) {
		const struct want *w = &c->want[c->next];

		if (m->type != w->type || (m->flags & PROTO_F_MISS) != w->miss ||
		    m->payload_len != w->payload_len)
			__builtin_trap();
	}
	c->next++;
	return 0;
}

struct server_ctx {
	struct proto_msg req[MAXREQ];
	unsigned n;
	uint32_t cap;
};

static int on_request(const struct proto_msg *m, void *arg)
{
	struct server_ctx *s = arg;
	char key[KVKEY_MAX + 1];

	/* numbered 0, 1, ... in the order read */
	if (m->seq != s->n)
		__builtin_trap();
	if (m->type == PROTO_REQUEST) {
		if ((m->op != PROTO_OP_GET && m->op != PROTO_OP_SET) ||
		    m->key_size < KVKEY_MIN || m->key_size > KVKEY_MAX ||
		    m->payload_len > s->cap ||
		    (m->op == PROTO_OP_GET && m->payload_len))
			__builtin_trap();
		/* a key read is one a reply can name */
		if (kvkey_text(m->key, m->key_size, key) != m->key_size)
			__builtin_trap();
	} else if (m->type == PROTO_PREQUERY) {
		if (!(m->flags & PROTO_F_ACK) || m->payload_len)
			__builtin_trap();
	} else {
		__builtin_trap();
	}
	s->req[s->n++] = *m;
	return s->n == MAXREQ;	/* enough: stop the feed */
}

/*
 * Feeds buf to c in pieces sized by the input, stopping at the first
 * non-zero return, which it gives; an error must be explained.
 */
static int feed_pieces(struct wire_conn *c, const struct input *in,
		       const uint8_t *buf, size_t len, wire_msg_fn fn,
		       void *arg)
{
	const uint8_t *piece = in->hdr + 1 + 2 * NCLI;
	size_t pos = 0, k = 0;
	int ret = 0;

	while (pos < len && !ret) {
		size_t step = piece[k++ % NPIECE];

		if (!step || step > len - pos)
			step = len - pos;
		ret = wire_feed(c, buf + pos, step, fn, arg);
		if (ret < 0) {
			const char *e = wire_conn_error(c);

			if (!c->ops->strerror(ret) && !e)
				__builtin_trap();
			/* not the protocol: the message says what */
			if (ret == KV_EBAD && (!e || !*e))
				__builtin_trap();
		}
		pos += step;
	}
	return ret;
}

/* Encodes m at c into exactly msg_len bytes, appended to out. */
static void encode_exact(struct wire_conn *c, const struct proto_msg *m,
			 uint8_t *out, size_t *outlen)
{
	size_t len = c->ops->msg_len(m);
	uint8_t *buf = malloc(len);
	ssize_t n;

	if (!buf)
		return;
	/* a byte short: refused, and nothing kept */
	if (c->ops->encode(c, m, buf, len - 1) != -ENOSPC)
		__builtin_trap();
	n = c->ops->encode(c, m, buf, len);
	if (n < 0 || (size_t)n != len)
		__builtin_trap();
	memcpy(out + *outlen, buf, len);
	*outlen += len;
	free(buf);
}

static void client_side(const struct wb_proto_ops *ops, const struct input *in)
{
	struct proto_msg sent[NCLI];
	struct client_ctx ctx = { .sent = sent, .cap = in->cap };
	struct server_ctx *back = calloc(1, sizeof(*back));
	unsigned nreq = in->hdr[0] % NCLI + 1;
	size_t reqlen = 0;
	struct wire_conn c, s;
	uint8_t *reqs = malloc(nreq * 512);

	if (!back || !reqs)
		goto out;
	wire_conn_init(&c, ops, in->cap);
	for (unsigned i = 0; i < nreq; i++) {
		uint8_t b = in->hdr[1 + 2 * i], k = in->hdr[2 + 2 * i];
		static const unsigned pad[4] = { 0, 1, 7, KVKEY_MAX };
		unsigned ks = kvkey_min_size((uint64_t)k + 1) + pad[b >> 6];
		struct proto_msg m = {
			.type = (b & 3) ? PROTO_REQUEST : PROTO_PREQUERY,
			.op = (b & 3) == 1 ? PROTO_OP_SET : PROTO_OP_GET,
			.seq = 1000 + 3 * i, .client_send_ns = 7 * i + 1,
		};

		if (m.type == PROTO_REQUEST) {
			m.key = k;
			m.key_size = (uint16_t)(ks > KVKEY_MAX ? KVKEY_MAX : ks);
			if (m.op == PROTO_OP_SET)
				m.payload_len = (b >> 2) & 15;
		}
		encode_exact(&c, &m, reqs, &reqlen);
		sent[ctx.nsent++] = m;
	}
	feed_pieces(&c, in, in->body, in->len, on_reply, &ctx);
	wire_conn_free(&c);

	/* What was encoded reads back, unchanged, at a server end. */
	back->cap = in->cap;
	wire_conn_init_server(&s, ops, in->cap);
	if (feed_pieces(&s, in, reqs, reqlen, on_request, back) ||
	    back->n != nreq || wire_partial(&s))
		__builtin_trap();
	for (unsigned i = 0; i < nreq; i++) {
		const struct proto_msg *a = &sent[i], *b = &back->req[i];

		if (a->type != b->type || a->payload_len != b->payload_len ||
		    (a->type == PROTO_REQUEST &&
		     (a->op != b->op || a->key != b->key || a->key_size != b->key_size)))
			__builtin_trap();
	}
	wire_conn_free(&s);
out:
	free(reqs);
	free(back);
}

static uint32_t next_rnd(uint32_t *x)
{
	uint32_t z = (*x += 0x9e3779b9u);

	z = (z ^ (z >> 16)) * 0x85ebca6bu;
	z = (z ^ (z >> 13)) * 0xc2b2ae35u;
	return z ^ (z >> 16);
}

/* Drains s into a buffer of exactly cap bytes, appending to out. */
static ssize_t drain_exact(struct wire_conn *s, size_t cap, uint8_t *out,
			   size_t *outlen, size_t outcap)
{
	uint8_t *buf = malloc(cap ? cap : 1);
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	n = s->ops->drain(s, buf, cap);
	if (n > (ssize_t)cap || (n > 0 && (size_t)n > outcap - *outlen))
		__builtin_trap();
	if (n > 0) {
		memcpy(out + *outlen, buf, (size_t)n);
		*outlen += (size_t)n;
	}
	free(buf);
	return n;
}

static void server_side(const struct wb_proto_ops *ops, const struct input *in)
{
	struct server_ctx *s = calloc(1, sizeof(*s));
	struct want *want = calloc(MAXREQ, sizeof(*want));
	struct proto_msg *sent = calloc(MAXREQ, sizeof(*sent));
	size_t rmax = ops->reply_max(in->cap), outcap = (MAXREQ + 1) * rmax;
	size_t total = 0;
	uint8_t *out = malloc(outcap), tmp[CAP + 1024];
	const uint8_t *sd = in->hdr + 1 + 2 * NCLI + NPIECE;
	uint32_t rnd = (uint32_t)sd[0] | (uint32_t)sd[1] << 8 |
		       (uint32_t)sd[2] << 16 | (uint32_t)sd[3] << 24;
	unsigned idx[MAXREQ], left;
	struct client_ctx back = { .sent = sent, .want = want, .cap = in->cap };
	struct wire_conn srv, cli;
	struct proto_msg r;
	int ret;

	if (!s || !want || !sent || !out)
		goto out;
	s->cap = in->cap;
	wire_conn_init_server(&srv, ops, in->cap);
	ret = feed_pieces(&srv, in, in->body, in->len, on_request, s);
	if (ret > 0 && s->n != MAXREQ)
		__builtin_trap();

	/* a request never read cannot be answered */
	r = (struct proto_msg){ .type = PROTO_REPLY, .seq = s->n };
	if (ops->encode(&srv, &r, tmp, sizeof(tmp)) >= 0)
		__builtin_trap();

	/* Answer in an input-picked order, draining as replies come due. */
	for (unsigned i = 0; i < s->n; i++)
		idx[i] = i;
	for (left = s->n; left; left--) {
		uint32_t x = next_rnd(&rnd), j = x % left, i = idx[j];
		const struct proto_msg *q = &s->req[i];
		int get = q->type == PROTO_REQUEST && q->op == PROTO_OP_GET;
		ssize_t n;

		idx[j] = idx[left - 1];
		x = next_rnd(&rnd);
		r = (struct proto_msg){
			.type = x % 8 ? PROTO_REPLY : PROTO_ERROR, .seq = i,
			.flags = x & 8 ? PROTO_F_MISS : 0,
			.payload_len = (x >> 4) % 16,	/* under SMALL_CAP */
		};
		if (ops->encode(&srv, &r, tmp, sizeof(tmp)) != 0)
			__builtin_trap();
		/* answered once only */
		if (x & 0x100 && ops->encode(&srv, &r, tmp, sizeof(tmp)) >= 0)
			__builtin_trap();
		want[i].type = r.type;
		if (r.type == PROTO_REPLY && get) {
			want[i].miss = r.flags & PROTO_F_MISS;
			want[i].payload_len = want[i].miss ? 0 : r.payload_len;
		}
		/* a short buffer: what fits, or -ENOSPC */
		n = drain_exact(&srv, (x >> 9) % 48, out, &total, outcap);
		if (n < 0 && n != -ENOSPC)
			__builtin_trap();
		/* a reply always fits in reply_max */
		do {
			n = drain_exact(&srv, rmax, out, &total, outcap);
		} while (n > 0);
		if (n < 0)
			__builtin_trap();
	}

	/*
	 * The round trip: the requests came from a fresh parse, so a client
	 * end encoding them in that order must take every reply drained,
	 * each the one given, and nothing more.
	 */
	wire_conn_init(&cli, ops, in->cap);
	for (unsigned i = 0; i < s->n; i++) {
		sent[i] = s->req[i];
		sent[i].seq = 5000 + i;
		sent[i].client_send_ns = 11 * i + 3;
		sent[i].flags = 0;
		if (ops->encode(&cli, &sent[i], tmp, sizeof(tmp)) <= 0)
			__builtin_trap();
		back.nsent++;
	}
	if (feed_pieces(&cli, in, out, total, on_reply, &back) ||
	    back.next != s->n || wire_partial(&cli))
		__builtin_trap();
	wire_conn_free(&cli);
	wire_conn_free(&srv);
out:
	free(out);
	free(sent);
	free(want);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct wb_proto_ops *const ops[] = {
		&wire_memcached, &wire_redis,
	};
	struct input in = { .hdr = { 0 } };
	size_t h = size < HDR ? size : HDR;

	if (h)
		memcpy(in.hdr, data, h);
	in.body = data + h;
	in.len = size - h;
	in.cap = in.hdr[0] & 0x80 ? SMALL_CAP : CAP;
	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		client_side(ops[i], &in);
		server_side(ops[i], &in);
	}
	return 0;
}
