// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kvwire.h"

static struct kv_state *st(const struct wire_conn *c)
{
	return c->u.kv;
}

void kv_conn_init(struct wire_conn *c, uint32_t payload_cap,
		  const struct kv_grammar *g)
{
	struct kv_state *s = calloc(1, sizeof(*s));

	c->u.kv = s;
	if (!s)
		return;		/* feed and encode say ENOMEM */
	s->g = g;
	s->server = c->server;
	s->payload_cap = payload_cap;
}

void kv_conn_free(struct wire_conn *c)
{
	struct kv_state *s = st(c);

	if (s)
		free(s->q);
	free(s);
	c->u.kv = NULL;
}

int kv_bad(struct kv_state *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return KV_EBAD;
}

const char *kv_shown(const char *l, char *out, size_t outlen)
{
	size_t i;

	for (i = 0; l[i] && i < 40 && i + 1 < outlen; i++)
		out[i] = l[i] >= 0x20 && l[i] < 0x7f ? l[i] : '?';
	out[i] = '\0';
	return out;
}

const char *kv_what(const struct kv_item *it)
{
	return it->type == PROTO_PREQUERY ? "pre-query" :
	       it->op == PROTO_OP_SET ? "set" :
	       it->op == PROTO_OP_GET ? "get" : "request";
}

int kv_number(const char *s, size_t len, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (!len || len > 20)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -1;
		d = (unsigned)(s[i] - '0');
		if (d > max || x > (max - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static struct kv_item *at(struct kv_state *s, size_t i)
{
	return &s->q[(s->head + i) % s->cap];
}

static int push(struct kv_state *s, const struct kv_item *it)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 64;
		struct kv_item *nq;

		if (s->n >= KV_PENDING_MAX)
			return KV_EFULL;
		nq = malloc(ncap * sizeof(*nq));
		if (!nq)
			return KV_ENOMEM;
		for (size_t i = 0; i < s->n; i++)
			nq[i] = *at(s, i);
		free(s->q);
		s->q = nq;
		s->cap = ncap;
		s->head = 0;
	}
	*at(s, s->n) = *it;
	s->n++;
	return 0;
}

static void pop(struct kv_state *s)
{
	s->head = (s->head + 1) % s->cap;
	s->n--;
}

struct kv_item *kv_head(struct kv_state *s)
{
	return s->n ? at(s, 0) : NULL;
}

int kv_answer(struct kv_state *s, uint8_t type, uint16_t flags,
	      uint32_t payload_len, wire_msg_fn fn, void *arg)
{
	struct kv_item *it = at(s, 0);
	struct proto_msg m = {
		.type = type, .flags = flags, .seq = it->seq,
		.client_send_ns = it->client_send_ns, .op = it->op,
		.key = it->key, .key_size = it->key_size,
		.payload_len = payload_len,
	};

	/* a reply to a pre-query says so, as on wakebench's wire */
	if (it->type == PROTO_PREQUERY)
		m.flags |= PROTO_F_ACK;
	pop(s);
	return fn(&m, arg);
}

int kv_deliver(struct kv_state *s, wire_msg_fn fn, void *arg)
{
	struct kv_item it = s->cur;
	struct proto_msg m;
	int ret;

	it.seq = s->next_seq;
	it.done = 0;
	ret = push(s, &it);
	if (ret)
		return ret == KV_EFULL ?
		       kv_bad(s, "more than %u requests unanswered", KV_PENDING_MAX) : ret;
	s->next_seq++;
	m = (struct proto_msg){
		.type = it.type, .seq = it.seq, .op = it.op, .key = it.key,
		.key_size = it.key_size, .payload_len = it.payload_len,
		/* a key-value pre-query is always answered */
		.flags = it.type == PROTO_PREQUERY ? PROTO_F_ACK : 0,
	};
	s->cur = (struct kv_item){ 0 };
	return fn(&m, arg);
}

int kv_encoded(struct wire_conn *c, const struct proto_msg *m)
{
	struct kv_state *s = st(c);

	if (!s)
		return -ENOMEM;
	if (!s->server) {
		struct kv_item it = {
			.seq = m->seq, .client_send_ns = m->client_send_ns,
			.key = m->key, .payload_len = m->payload_len,
			.key_size = m->key_size, .type = m->type, .op = m->op,
		};
		int ret = push(s, &it);

		return ret == KV_EFULL ? -ENOBUFS : ret ? -ENOMEM : 0;
	}
	/* a reply: to a request read and not yet answered */
	uint64_t first = s->next_seq - s->n;
	struct kv_item *it;

	if (m->seq < first || m->seq >= s->next_seq)
		return -ENOENT;
	it = at(s, (size_t)(m->seq - first));
	if (it->done)
		return -EALREADY;
	it->done = 1;
	it->rtype = m->type;
	it->rflags = m->flags;
	it->payload_len = m->type == PROTO_REPLY && it->type == PROTO_REQUEST &&
			  it->op == PROTO_OP_GET ? m->payload_len : 0;
	return 0;
}

ssize_t kv_drain(struct wire_conn *c, uint8_t *buf, size_t cap)
{
	struct kv_state *s = st(c);
	size_t off = 0;

	if (!s)
		return -ENOMEM;
	while (s->n && at(s, 0)->done) {
		ssize_t n = s->g->reply(at(s, 0), buf + off, cap - off);

		if (n < 0)
			return off ? (ssize_t)off : n;
		off += (size_t)n;
		pop(s);
	}
	return (ssize_t)off;
}

int kv_feed(struct wire_conn *c, const uint8_t *buf, size_t len,
	    wire_msg_fn fn, void *arg)
{
	struct kv_state *s = st(c);
	size_t i = 0;

	if (!s)
		return KV_ENOMEM;
	while (i < len) {
		if (s->data_left) {
			size_t take = len - i < s->data_left ? len - i : (size_t)s->data_left;

			/* the block's CRLF must be there */
			for (size_t k = 0; k < take; k++) {
				uint64_t left = s->data_left - k;

				if ((left == 2 && buf[i + k] != '\r') ||
				    (left == 1 && buf[i + k] != '\n'))
					return kv_bad(s, "a data block not followed by CRLF");
			}
			s->data_left -= take;
			i += take;
			if (!s->data_left) {
				int ret = s->g->data_end(s, fn, arg);

				if (ret)
					return ret;
			}
			continue;
		}
		if (buf[i] == '\n') {
			int ret;

			if (!s->have || s->line[s->have - 1] != '\r')
				return kv_bad(s, "a line not ended by CRLF");
			s->line[--s->have] = '\0';
			i++;
			ret = s->g->line(s, s->line, s->have, fn, arg);
			s->have = 0;
			if (ret)
				return ret;
			continue;
		}
		if (s->have == KV_LINE_MAX)
			return KV_ELINE;
		if (!buf[i])
			return kv_bad(s, "a NUL byte in a line");
		s->line[s->have++] = (char)buf[i++];
	}
	return 0;
}

/* The rest of a data block, or at most a line. */
size_t kv_feed_step(const struct wire_conn *c)
{
	const struct kv_state *s = st(c);

	return s && s->data_left ? (size_t)s->data_left : KV_LINE_MAX + 2;
}

int kv_partial(const struct wire_conn *c)
{
	const struct kv_state *s = st(c);

	return s && (s->have || s->data_left || s->phase);
}

const char *kv_conn_error(const struct wire_conn *c)
{
	const struct kv_state *s = st(c);

	return s && s->err[0] ? s->err : NULL;
}

const char *kv_strerror(int err)
{
	switch (err) {
	case KV_EBAD: return "not the protocol's reply";
	case KV_ENOMEM: return "out of memory";
	case KV_ELINE: return "a line longer than 1024 bytes";
	case KV_EDGRAM: return "no UDP for this protocol";
	case KV_EFULL: return "too many requests outstanding";
	default: return "unknown error";
	}
}

size_t kv_reply_max(uint32_t payload_cap)
{
	return (size_t)payload_cap + KV_LINE_MAX;
}

int kv_decode(const uint8_t *buf, size_t len, uint32_t payload_cap,
	      struct proto_msg *m)
{
	(void)buf;
	(void)len;
	(void)payload_cap;
	(void)m;
	return KV_EDGRAM;
}
