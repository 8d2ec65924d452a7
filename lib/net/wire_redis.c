// SPDX-License-Identifier: GPL-2.0
/*
 * Redis' RESP (version 2, as every Redis answers) as a protocol table
 * entry. A request is the array GET KEY or SET KEY VALUE; the pre-query
 * is PING (reply +PONG), which Redis answers without touching a key.
 * Keys are lib/kvkey's; values are BYTES of 'x'.
 *
 * Client end: replies are a bulk string (a get's value), $-1 (a miss),
 * +OK (a set), +PONG (a pre-query) or an error (-...: an ERROR reply).
 * Server end (a relay): the arrays GET, SET and PING; anything else
 * (inline commands too) closes the connection. See lib/net/kvwire.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "kvkey.h"
#include "kvwire.h"

enum { PH_NONE, PH_ARG_HEAD, PH_ARG_TEXT, PH_ARG_DATA, PH_VALUE };

/* A reply's length, as redis_reply writes it (a pre-query's: PROTO_F_ACK). */
static size_t redis_reply_len(const struct proto_msg *m)
{
	if (m->type == PROTO_ERROR)
		return sizeof("-ERR backend unavailable\r\n") - 1;
	if (m->flags & PROTO_F_ACK)
		return 7;		/* +PONG\r\n */
	if (m->op == PROTO_OP_SET || m->flags & PROTO_F_MISS)
		return 5;		/* +OK\r\n, $-1\r\n */
	return 1 + kvkey_digits(m->payload_len) + 2 + m->payload_len + 2;
}

static size_t redis_msg_len(const struct proto_msg *m)
{
	size_t ks = m->key_size, len;

	if (m->type == PROTO_REPLY || m->type == PROTO_ERROR)
		return redis_reply_len(m);

	if (m->type == PROTO_PREQUERY)
		return 14;		/* *1\r\n$4\r\nPING\r\n */
	/* *N\r\n $3\r\nGET\r\n $KS\r\nKEY\r\n */
	len = 4 + 9 + 1 + kvkey_digits(ks) + 2 + ks + 2;
	if (m->op == PROTO_OP_SET)
		len += 1 + kvkey_digits(m->payload_len) + 2 + m->payload_len + 2;
	return len;
}

static ssize_t redis_reply(const struct kv_item *it, uint8_t *buf, size_t cap)
{
	int n;

	if (it->rtype == PROTO_ERROR)
		n = snprintf((char *)buf, cap, "-ERR backend unavailable\r\n");
	else if (it->type == PROTO_PREQUERY)
		n = snprintf((char *)buf, cap, "+PONG\r\n");
	else if (it->op == PROTO_OP_SET)
		n = snprintf((char *)buf, cap, "+OK\r\n");
	else if (it->rflags & PROTO_F_MISS)
		n = snprintf((char *)buf, cap, "$-1\r\n");
	else {
		n = snprintf((char *)buf, cap, "$%u\r\n", (unsigned)it->payload_len);
		if (n < 0 || (size_t)n + it->payload_len + 2 > cap)
			return -ENOSPC;
		memset(buf + n, 'x', it->payload_len);
		memcpy(buf + n + it->payload_len, "\r\n", 2);
		return n + (ssize_t)it->payload_len + 2;
	}
	return n < 0 || (size_t)n >= cap ? -ENOSPC : n;
}

static ssize_t redis_encode(struct wire_conn *c, const struct proto_msg *m,
			    uint8_t *buf, size_t cap)
{
	size_t len = redis_msg_len(m);
	char key[KVKEY_MAX + 1];
	int ret, off;

	if (!c)
		return -EPROTONOSUPPORT;
	if (c->server)
		return kv_encoded(c, m) ? -EINVAL : 0;	/* drain writes it */
	if (m->type != PROTO_PREQUERY && m->type != PROTO_REQUEST)
		return -EINVAL;
	if (cap < len)
		return -ENOSPC;
	if (m->type == PROTO_PREQUERY) {
		memcpy(buf, "*1\r\n$4\r\nPING\r\n", 14);
	} else {
		if (kvkey_text(m->key, m->key_size, key) < 0 ||
		    (m->op != PROTO_OP_GET && m->op != PROTO_OP_SET))
			return -EINVAL;
		/* the key's CRLF by hand: sprintf's NUL would be past a
		 * get's len */
		off = sprintf((char *)buf, "*%d\r\n$3\r\n%s\r\n$%u\r\n%s",
			      m->op == PROTO_OP_SET ? 3 : 2,
			      m->op == PROTO_OP_SET ? "SET" : "GET",
			      (unsigned)m->key_size, key);
		memcpy(buf + off, "\r\n", 2);
		off += 2;
		if (m->op == PROTO_OP_SET) {
			off += sprintf((char *)buf + off, "$%u\r\n",
				       (unsigned)m->payload_len);
			memset(buf + off, 'x', m->payload_len);
			memcpy(buf + off + m->payload_len, "\r\n", 2);
		}
	}
	ret = kv_encoded(c, m);
	return ret ? ret : (ssize_t)len;
}

static int client_line(struct kv_state *s, char *l, size_t len,
		       wire_msg_fn fn, void *arg)
{
	struct kv_item *p = kv_head(s);
	uint64_t v;
	char sh[48];

	if (!p)
		return kv_bad(s, "redis sent '%s' with no request outstanding",
			      kv_shown(l, sh, sizeof(sh)));
	if (l[0] == '-')
		return kv_answer(s, PROTO_ERROR, 0, 0, fn, arg);
	if (p->type == PROTO_PREQUERY) {
		if (strcmp(l, "+PONG"))
			return kv_bad(s, "pre-query of seq %llu: got '%s', not +PONG",
				      (unsigned long long)p->seq, kv_shown(l, sh, sizeof(sh)));
		return kv_answer(s, PROTO_REPLY, 0, 0, fn, arg);
	}
	if (p->op == PROTO_OP_SET) {
		if (strcmp(l, "+OK"))
			return kv_bad(s, "set of seq %llu: got '%s', not +OK",
				      (unsigned long long)p->seq, kv_shown(l, sh, sizeof(sh)));
		return kv_answer(s, PROTO_REPLY, 0, 0, fn, arg);
	}
	if (!strcmp(l, "$-1"))
		return kv_answer(s, PROTO_REPLY, PROTO_F_MISS, 0, fn, arg);
	if (l[0] == '$' && !kv_number(l + 1, len - 1, s->payload_cap, &v)) {
		s->value_len = (uint32_t)v;
		s->data_left = v + 2;
		s->phase = PH_VALUE;
		return 0;
	}
	return kv_bad(s, "get of seq %llu: got '%s', not a bulk string (at most %u bytes) or $-1",
		      (unsigned long long)p->seq, kv_shown(l, sh, sizeof(sh)),
		      (unsigned)s->payload_cap);
}

/* A whole command array has been read into s->cur (argi arguments). */
static int server_command(struct kv_state *s, wire_msg_fn fn, void *arg)
{
	int want = s->cur.type == PROTO_PREQUERY ? 1 :
		   s->cur.op == PROTO_OP_SET ? 3 : 2;

	s->phase = PH_NONE;
	if (s->argi != want)
		return kv_bad(s, "%s with %d arguments", kv_what(&s->cur), s->argi - 1);
	return kv_deliver(s, fn, arg);
}

static int server_line(struct kv_state *s, char *l, size_t len,
		       wire_msg_fn fn, void *arg)
{
	uint64_t v;
	unsigned ks;
	char sh[48];

	switch (s->phase) {
	case PH_NONE:
		if (l[0] != '*' || kv_number(l + 1, len - 1, 3, &v) || !v)
			return kv_bad(s, "expected a command array of 1 to 3 elements, got '%s'",
				      kv_shown(l, sh, sizeof(sh)));
		s->cur = (struct kv_item){ 0 };
		s->args_left = (int64_t)v;
		s->argi = 0;
		s->phase = PH_ARG_HEAD;
		return 0;
	case PH_ARG_HEAD:
		if (l[0] != '$' || kv_number(l + 1, len - 1,
					     s->argi == 2 ? s->payload_cap : KVKEY_MAX, &v))
			return kv_bad(s, "argument %d: expected a bulk string, got '%s'",
				      s->argi, kv_shown(l, sh, sizeof(sh)));
		s->value_len = (uint32_t)v;
		if (s->argi == 2) {
			if (s->cur.op != PROTO_OP_SET)
				return kv_bad(s, "%s with 2 arguments", kv_what(&s->cur));
			s->data_left = v + 2;
			s->phase = PH_ARG_DATA;
		} else {
			s->phase = PH_ARG_TEXT;
		}
		return 0;
	case PH_ARG_TEXT:
		if (len != s->value_len)
			return kv_bad(s, "argument %d: %zu bytes where %u were announced",
				      s->argi, len, (unsigned)s->value_len);
		if (s->argi == 0) {
			if (!strcasecmp(l, "PING"))
				s->cur.type = PROTO_PREQUERY;
			else if (!strcasecmp(l, "GET") || !strcasecmp(l, "SET")) {
				s->cur.type = PROTO_REQUEST;
				s->cur.op = (l[0] | 0x20) == 'g' ? PROTO_OP_GET : PROTO_OP_SET;
			} else {
				return kv_bad(s, "unsupported command '%s' (a relay takes GET, SET and PING)",
					      kv_shown(l, sh, sizeof(sh)));
			}
		} else {
			if (s->cur.type != PROTO_REQUEST)
				return kv_bad(s, "PING with arguments");
			if (kvkey_parse(l, len, &s->cur.key, &ks))
				return kv_bad(s, "key '%s' is not wakebench's (\"wb\" and digits)",
					      kv_shown(l, sh, sizeof(sh)));
			s->cur.key_size = (uint16_t)ks;
		}
		s->argi++;
		if (--s->args_left == 0)
			return server_command(s, fn, arg);
		s->phase = PH_ARG_HEAD;
		return 0;
	default:
		return kv_bad(s, "unexpected line");
	}
}

static int redis_line(struct kv_state *s, char *l, size_t len, wire_msg_fn fn,
		      void *arg)
{
	if (!len)
		return kv_bad(s, "an empty line");
	return s->server ? server_line(s, l, len, fn, arg) :
	       client_line(s, l, len, fn, arg);
}

static int redis_data_end(struct kv_state *s, wire_msg_fn fn, void *arg)
{
	if (!s->server) {
		s->phase = PH_NONE;
		return kv_answer(s, PROTO_REPLY, 0, s->value_len, fn, arg);
	}
	s->cur.payload_len = s->value_len;
	s->argi++;
	--s->args_left;
	return server_command(s, fn, arg);
}

static const struct kv_grammar redis_grammar = {
	.line = redis_line, .data_end = redis_data_end, .reply = redis_reply,
};

static void redis_conn_init(struct wire_conn *c, uint32_t payload_cap)
{
	kv_conn_init(c, payload_cap, &redis_grammar);
}

const struct wb_proto_ops wire_redis = {
	.name = "redis",
	.msg_len = redis_msg_len,
	.encode = redis_encode,
	.conn_init = redis_conn_init,
	KVWIRE_OPS,
};
