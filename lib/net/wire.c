// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "wire.h"

static const struct wb_proto_ops *const protocols[] = {
	&wire_wakebench,
	&wire_memcached,
	&wire_redis,
};

void wire_cost(const struct wb_proto_ops *ops, const struct wire_counts *c,
	       uint64_t *msgs, uint64_t *bytes)
{
	struct proto_msg m = { .type = PROTO_REQUEST, .payload_len = c->payload,
			       .key_size = (uint16_t)c->key_size };
	uint64_t acks = c->acked || ops->keyed ? c->prequeries : 0, b = 0;

	*msgs = c->requests + c->replies + c->errors + c->prequeries + acks;
	if (ops->keyed) {
		m.op = PROTO_OP_GET;
		m.payload_len = 0;
		b += c->gets * ops->msg_len(&m);
		m.type = PROTO_REPLY;
		b += c->misses * ops->msg_len(&(struct proto_msg){ .type = PROTO_REPLY,
			.op = PROTO_OP_GET, .flags = PROTO_F_MISS });
		m.payload_len = c->value_size;
		/* the answered gets that were not misses: hits */
		b += (c->gets > c->misses ? c->gets - c->misses : 0) * ops->msg_len(&m);
		m = (struct proto_msg){ .type = PROTO_REQUEST, .op = PROTO_OP_SET,
					.key_size = (uint16_t)c->key_size,
					.payload_len = c->value_size };
		b += c->sets * ops->msg_len(&m);
		m.type = PROTO_REPLY;
		b += c->sets * ops->msg_len(&m);
	} else {
		b += c->requests * ops->msg_len(&m);
		/* the wakebench server's replies carry no payload */
		m = (struct proto_msg){ .type = PROTO_REPLY };
		b += c->replies * ops->msg_len(&m);
	}
	b += c->errors * ops->msg_len(&(struct proto_msg){ .type = PROTO_ERROR });
	b += c->prequeries * ops->msg_len(&(struct proto_msg){ .type = PROTO_PREQUERY });
	b += acks * ops->msg_len(&(struct proto_msg){ .type = PROTO_REPLY,
						    .flags = PROTO_F_ACK });
	*bytes = b;
}

const struct wb_proto_ops *wire_find(const char *name)
{
	for (size_t i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++)
		if (!strcmp(protocols[i]->name, name))
			return protocols[i];
	return NULL;
}
