// SPDX-License-Identifier: GPL-2.0
/* wakebench's own protocol (proto.h) as a protocol table entry. */
#include <errno.h>
#include <string.h>
#include "wire.h"

static size_t wkb_msg_len(const struct proto_msg *m)
{
	return PROTO_HDR_LEN + (size_t)m->payload_len;
}

static ssize_t wkb_encode(struct wire_conn *c, const struct proto_msg *m,
			  uint8_t *buf, size_t cap)
{
	size_t len = wkb_msg_len(m);

	(void)c;
	if (cap < len)
		return -ENOSPC;
	proto_encode(m, buf);
	memset(buf + PROTO_HDR_LEN, 0, m->payload_len);
	return (ssize_t)len;
}

static void wkb_conn_init(struct wire_conn *c, uint32_t payload_cap)
{
	framer_init(&c->u.fr, payload_cap);
}

static int wkb_feed(struct wire_conn *c, const uint8_t *buf, size_t len,
		    wire_msg_fn fn, void *arg)
{
	return framer_feed(&c->u.fr, buf, len, fn, arg);
}

/* The rest of a payload being dropped, or the rest of a header. */
static size_t wkb_feed_step(const struct wire_conn *c)
{
	const struct framer *f = &c->u.fr;

	return f->skip ? (size_t)f->skip : PROTO_HDR_LEN - f->have;
}

static int wkb_partial(const struct wire_conn *c)
{
	return framer_partial(&c->u.fr);
}

/* A datagram is exactly one message: its header and all its payload. */
static int wkb_decode(const uint8_t *buf, size_t len, uint32_t payload_cap,
		      struct proto_msg *m)
{
	int err = proto_decode(buf, len, payload_cap, m);

	if (!err && len != PROTO_HDR_LEN + (size_t)m->payload_len)
		err = PROTO_EDGRAM;
	return err;
}

static size_t wkb_reply_max(uint32_t payload_cap)
{
	(void)payload_cap;
	return PROTO_HDR_LEN;	/* a reply carries no payload */
}

const struct wb_proto_ops wire_wakebench = {
	.name = "wakebench",
	.datagrams = 1,
	.msg_len = wkb_msg_len,
	.encode = wkb_encode,
	.conn_init = wkb_conn_init,
	.feed = wkb_feed,
	.feed_step = wkb_feed_step,
	.partial = wkb_partial,
	.decode = wkb_decode,
	.strerror = proto_strerror,
	.reply_max = wkb_reply_max,
};
