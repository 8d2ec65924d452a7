// SPDX-License-Identifier: GPL-2.0
/*
 * memcached's text protocol (memcached >= 1.6) as a protocol table entry.
 * A request is "get KEY" or "set KEY 0 0 BYTES" and its value; the
 * pre-query is the meta no-op "mn", which memcached answers "MN" without
 * touching the cache. Keys are lib/kvkey's; values are BYTES of 'x'.
 *
 * Client end: replies are VALUE/END (a get: END alone is a miss), STORED
 * (a set), MN (a pre-query) or SERVER_ERROR (an ERROR reply, as a relay
 * sends when its backend is down). Server end (a relay): get, set (with
 * the value, no noreply) and mn; anything else closes the connection.
 * See lib/net/kvwire.h for the ordering and the bounds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "kvkey.h"
#include "kvwire.h"

enum { PH_NONE, PH_VALUE_READ, PH_SET_DATA };

/* A reply's length, as mc_reply writes it (a pre-query's: PROTO_F_ACK). */
static size_t mc_reply_len(const struct proto_msg *m)
{
	if (m->type == PROTO_ERROR)
		return sizeof("SERVER_ERROR backend unavailable\r\n") - 1;
	if (m->flags & PROTO_F_ACK)
		return 4;		/* MN\r\n */
	if (m->op == PROTO_OP_SET)
		return 8;		/* STORED\r\n */
	if (m->flags & PROTO_F_MISS)
		return 5;		/* END\r\n */
	/* VALUE KEY 0 N\r\n DATA\r\nEND\r\n */
	return 6 + (size_t)m->key_size + 3 + kvkey_digits(m->payload_len) + 2 +
	       m->payload_len + 7;
}

static size_t mc_msg_len(const struct proto_msg *m)
{
	if (m->type == PROTO_REPLY || m->type == PROTO_ERROR)
		return mc_reply_len(m);
	if (m->type == PROTO_PREQUERY)
		return 4;		/* mn\r\n */
	if (m->op == PROTO_OP_SET)
		return 4 + m->key_size + 5 + kvkey_digits(m->payload_len) + 2 +
		       m->payload_len + 2;	/* set KEY 0 0 N\r\n DATA\r\n */
	return 4 + (size_t)m->key_size + 2;	/* get KEY\r\n */
}

static ssize_t mc_reply(const struct kv_item *it, uint8_t *buf, size_t cap)
{
	char key[KVKEY_MAX + 1];
	int n;

	if (it->rtype == PROTO_ERROR)
		n = snprintf((char *)buf, cap, "SERVER_ERROR backend unavailable\r\n");
	else if (it->type == PROTO_PREQUERY)
		n = snprintf((char *)buf, cap, "MN\r\n");
	else if (it->op == PROTO_OP_SET)
		n = snprintf((char *)buf, cap, "STORED\r\n");
	else if (it->rflags & PROTO_F_MISS)
		n = snprintf((char *)buf, cap, "END\r\n");
	else {
		if (kvkey_text(it->key, it->key_size, key) < 0)
			return -EINVAL;
		n = snprintf((char *)buf, cap, "VALUE %s 0 %u\r\n", key,
			     (unsigned)it->payload_len);
		if (n < 0 || (size_t)n + it->payload_len + 7 > cap)
			return -ENOSPC;
		memset(buf + n, 'x', it->payload_len);
		memcpy(buf + n + it->payload_len, "\r\nEND\r\n", 7);
		return n + (ssize_t)it->payload_len + 7;
	}
	return n < 0 || (size_t)n >= cap ? -ENOSPC : n;
}

static ssize_t mc_encode(struct wire_conn *c, const struct proto_msg *m,
			 uint8_t *buf, size_t cap)
{
	size_t len = mc_msg_len(m);
	char key[KVKEY_MAX + 1];
	int ret;

	if (!c)
		return -EPROTONOSUPPORT;
	if (c->server)
		return kv_encoded(c, m) ? -EINVAL : 0;	/* drain writes it */
	if (m->type != PROTO_PREQUERY && m->type != PROTO_REQUEST)
		return -EINVAL;
	if (cap < len)
		return -ENOSPC;
	if (m->type == PROTO_PREQUERY) {
		memcpy(buf, "mn\r\n", 4);
	} else {
		if (kvkey_text(m->key, m->key_size, key) < 0)
			return -EINVAL;
		if (m->op == PROTO_OP_SET) {
			int off = sprintf((char *)buf, "set %s 0 0 %u\r\n", key,
					  (unsigned)m->payload_len);

			memset(buf + off, 'x', m->payload_len);
			memcpy(buf + off + m->payload_len, "\r\n", 2);
		} else if (m->op == PROTO_OP_GET) {
			/* the CRLF by hand: sprintf's NUL would be past len */
			sprintf((char *)buf, "get %s", key);
			memcpy(buf + 4 + m->key_size, "\r\n", 2);
		} else {
			return -EINVAL;
		}
	}
	ret = kv_encoded(c, m);
	return ret ? ret : (ssize_t)len;
}

/* A VALUE line for the get at the head: "VALUE KEY FLAGS BYTES [CAS]". */
static int value_line(struct kv_state *s, const struct kv_item *p, char *l)
{
	char key[KVKEY_MAX + 1], sh[48];
	char *f[5], *save = NULL;
	uint64_t flags, bytes;
	int n = 0;

	kvkey_text(p->key, p->key_size, key);
	for (char *t = strtok_r(l, " ", &save); t && n < 5; t = strtok_r(NULL, " ", &save))
		f[n++] = t;
	if (n < 4 || n > 5 || strcmp(f[1], key))
		return kv_bad(s, "get of seq %llu (%s): got a VALUE for '%s'",
			      (unsigned long long)p->seq, key,
			      kv_shown(n > 1 ? f[1] : "", sh, sizeof(sh)));
	if (kv_number(f[2], strlen(f[2]), UINT32_MAX, &flags) ||
	    kv_number(f[3], strlen(f[3]), s->payload_cap, &bytes))
		return kv_bad(s, "get of seq %llu: bad VALUE line (flags '%s', %s bytes, at most %u)",
			      (unsigned long long)p->seq, kv_shown(f[2], sh, sizeof(sh)),
			      f[3], (unsigned)s->payload_cap);
	s->value_len = (uint32_t)bytes;
	s->data_left = bytes + 2;
	return 0;
}

static int client_line(struct kv_state *s, char *l, size_t len,
		       wire_msg_fn fn, void *arg)
{
	struct kv_item *p = kv_head(s);
	char sh[48];

	(void)len;
	if (!p)
		return kv_bad(s, "memcached sent '%s' with no request outstanding",
			      kv_shown(l, sh, sizeof(sh)));
	if (!strncmp(l, "SERVER_ERROR", 12)) {
		s->phase = PH_NONE;
		return kv_answer(s, PROTO_ERROR, 0, 0, fn, arg);
	}
	if (s->phase == PH_VALUE_READ) {
		s->phase = PH_NONE;
		if (strcmp(l, "END"))
			return kv_bad(s, "get of seq %llu: '%s' after its value, not END",
				      (unsigned long long)p->seq, kv_shown(l, sh, sizeof(sh)));
		return kv_answer(s, PROTO_REPLY, 0, s->value_len, fn, arg);
	}
	if (p->type == PROTO_PREQUERY) {
		if (strcmp(l, "MN"))
			return kv_bad(s, "pre-query of seq %llu: got '%s', not MN",
				      (unsigned long long)p->seq, kv_shown(l, sh, sizeof(sh)));
		return kv_answer(s, PROTO_REPLY, 0, 0, fn, arg);
	}
	if (p->op == PROTO_OP_SET) {
		if (strcmp(l, "STORED"))
			return kv_bad(s, "set of seq %llu: got '%s', not STORED",
				      (unsigned long long)p->seq, kv_shown(l, sh, sizeof(sh)));
		return kv_answer(s, PROTO_REPLY, 0, 0, fn, arg);
	}
	if (!strcmp(l, "END"))
		return kv_answer(s, PROTO_REPLY, PROTO_F_MISS, 0, fn, arg);
	if (!strncmp(l, "VALUE ", 6))
		return value_line(s, p, l);
	return kv_bad(s, "get of seq %llu: got '%s', not VALUE or END",
		      (unsigned long long)p->seq, kv_shown(l, sh, sizeof(sh)));
}

static int server_line(struct kv_state *s, char *l, size_t len,
		       wire_msg_fn fn, void *arg)
{
	char *f[8], *save = NULL, sh[48];
	uint64_t v;
	unsigned ks;
	int n = 0;

	(void)len;
	for (char *t = strtok_r(l, " ", &save); t && n < 8; t = strtok_r(NULL, " ", &save))
		f[n++] = t;
	if (n == 1 && !strcmp(f[0], "mn")) {
		s->cur = (struct kv_item){ .type = PROTO_PREQUERY };
		return kv_deliver(s, fn, arg);
	}
	if (n == 2 && !strcmp(f[0], "get")) {
		if (kvkey_parse(f[1], strlen(f[1]), &s->cur.key, &ks))
			return kv_bad(s, "get: key '%s' is not wakebench's (\"wb\" and digits)",
				      kv_shown(f[1], sh, sizeof(sh)));
		s->cur.type = PROTO_REQUEST;
		s->cur.op = PROTO_OP_GET;
		s->cur.key_size = (uint16_t)ks;
		return kv_deliver(s, fn, arg);
	}
	if (n == 5 && !strcmp(f[0], "set")) {
		if (kvkey_parse(f[1], strlen(f[1]), &s->cur.key, &ks))
			return kv_bad(s, "set: key '%s' is not wakebench's (\"wb\" and digits)",
				      kv_shown(f[1], sh, sizeof(sh)));
		if (kv_number(f[2], strlen(f[2]), UINT32_MAX, &v) ||
		    kv_number(f[3], strlen(f[3]), UINT32_MAX, &v) ||
		    kv_number(f[4], strlen(f[4]), s->payload_cap, &v))
			return kv_bad(s, "set: bad flags, exptime or bytes (at most %u)",
				      (unsigned)s->payload_cap);
		s->cur.type = PROTO_REQUEST;
		s->cur.op = PROTO_OP_SET;
		s->cur.key_size = (uint16_t)ks;
		s->cur.payload_len = (uint32_t)v;
		s->data_left = v + 2;
		s->phase = PH_SET_DATA;
		return 0;
	}
	return kv_bad(s, "unsupported command '%s' (a relay takes get, set and mn)",
		      kv_shown(n ? f[0] : "", sh, sizeof(sh)));
}

static int mc_line(struct kv_state *s, char *l, size_t len, wire_msg_fn fn,
		   void *arg)
{
	return s->server ? server_line(s, l, len, fn, arg) :
	       client_line(s, l, len, fn, arg);
}

static int mc_data_end(struct kv_state *s, wire_msg_fn fn, void *arg)
{
	if (s->server) {
		s->phase = PH_NONE;
		return kv_deliver(s, fn, arg);
	}
	s->phase = PH_VALUE_READ;	/* END follows */
	return 0;
}

static const struct kv_grammar mc_grammar = {
	.line = mc_line, .data_end = mc_data_end, .reply = mc_reply,
};

static void mc_conn_init(struct wire_conn *c, uint32_t payload_cap)
{
	kv_conn_init(c, payload_cap, &mc_grammar);
}

const struct wb_proto_ops wire_memcached = {
	.name = "memcached",
	.msg_len = mc_msg_len,
	.encode = mc_encode,
	.conn_init = mc_conn_init,
	KVWIRE_OPS,
};
