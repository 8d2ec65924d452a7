// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "proto.h"

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void proto_encode(const struct proto_msg *m, uint8_t *buf)
{
	put_u32(buf + 0, PROTO_MAGIC);
	buf[4] = PROTO_VERSION;
	buf[5] = m->type;
	put_u16(buf + 6, m->flags);
	put_u64(buf + 8, m->seq);
	put_u64(buf + 16, m->client_send_ns);
	put_u64(buf + 24, m->service_ns);
	put_u64(buf + 32, m->server_recv_ns);
	put_u64(buf + 40, m->server_send_ns);
	put_u32(buf + 48, m->payload_len);
	put_u32(buf + 52, 0);
}

int proto_decode(const uint8_t *buf, size_t len, uint32_t payload_cap,
		 struct proto_msg *m)
{
	if (len < PROTO_HDR_LEN)
		return PROTO_ESHORT;
	if (get_u32(buf) != PROTO_MAGIC)
		return PROTO_EMAGIC;
	if (buf[4] != PROTO_VERSION)
		return PROTO_EVERSION;
	if (buf[5] < PROTO_REQUEST || buf[5] > PROTO_ERROR)
		return PROTO_ETYPE;
	if (get_u16(buf + 6) & ~PROTO_F_ALL)
		return PROTO_EFLAGS;
	if (get_u32(buf + 48) > payload_cap ||
	    get_u32(buf + 48) > PROTO_MAX_PAYLOAD)
		return PROTO_ELEN;
	if (get_u32(buf + 52) != 0)
		return PROTO_ERESERVED;

	m->type = buf[5];
	m->flags = get_u16(buf + 6);
	m->seq = get_u64(buf + 8);
	m->client_send_ns = get_u64(buf + 16);
	m->service_ns = get_u64(buf + 24);
	m->server_recv_ns = get_u64(buf + 32);
	m->server_send_ns = get_u64(buf + 40);
	m->payload_len = get_u32(buf + 48);
	return PROTO_OK;
}

const char *proto_strerror(int err)
{
	switch (err) {
	case PROTO_OK: return "ok";
	case PROTO_ESHORT: return "truncated header";
	case PROTO_EMAGIC: return "bad magic";
	case PROTO_EVERSION: return "unsupported version";
	case PROTO_ETYPE: return "unknown message type";
	case PROTO_EFLAGS: return "unknown flags";
	case PROTO_ELEN: return "payload too large";
	case PROTO_ERESERVED: return "reserved field not zero";
	case PROTO_EDGRAM: return "datagram length differs from its message";
	}
	return "unknown error";
}

const char *proto_type_name(uint8_t type)
{
	switch (type) {
	case PROTO_REQUEST: return "request";
	case PROTO_PREQUERY: return "prequery";
	case PROTO_REPLY: return "reply";
	case PROTO_ERROR: return "error";
	}
	return "unknown";
}
