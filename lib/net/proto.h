/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proto: the wire format shared by client, server and midtier.
 *
 * Every message is a fixed 56-byte little-endian header followed by
 * payload_len bytes of payload:
 *
 *   off size field
 *     0    4 magic          "WKB1" (0x31424b57 read as LE u32)
 *     4    1 version        PROTO_VERSION
 *     5    1 type           REQUEST, PREQUERY, REPLY, ERROR
 *     6    2 flags          PROTO_F_* (unknown bits rejected)
 *     8    8 seq            request sequence number, echoed in the reply
 *    16    8 client_send_ns client's CLOCK_MONOTONIC send time, echoed
 *    24    8 service_ns     requested service time
 *    32    8 server_recv_ns REPLY: server receive time (else 0)
 *    40    8 server_send_ns REPLY: server send time (else 0)
 *    48    4 payload_len    bytes following the header
 *    52    4 reserved       must be 0
 *
 * proto_decode() is the one place that validates a header; it is fuzzed.
 */
#ifndef WB_PROTO_H
#define WB_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_MAGIC 0x31424b57u
#define PROTO_VERSION 1
#define PROTO_HDR_LEN 56
/* Largest payload any peer accepts; servers may set a lower cap. */
#define PROTO_MAX_PAYLOAD (1u << 20)
/* Largest payload that fits in one UDP datagram with the header. */
#define PROTO_MAX_UDP_PAYLOAD (65507u - PROTO_HDR_LEN)

enum proto_type {
	PROTO_REQUEST = 1,
	PROTO_PREQUERY = 2,
	PROTO_REPLY = 3,
	PROTO_ERROR = 4,	/* a relay could not serve the request */
};

/* The sender wants a REPLY to this PREQUERY (default: none). */
#define PROTO_F_ACK 0x0001u
#define PROTO_F_ALL PROTO_F_ACK
/*
 * Not on wakebench's wire (its decoder rejects it): a reply of a key-value
 * protocol (wire_memcached) saying a get found no value.
 */
#define PROTO_F_MISS 0x0100u

/* A request's operation in a key-value protocol (proto_msg.op). */
enum proto_op {
	PROTO_OP_NONE = 0,	/* wakebench: a request is a request */
	PROTO_OP_GET,
	PROTO_OP_SET,
};

struct proto_msg {
	uint8_t type;
	uint16_t flags;
	uint64_t seq;
	uint64_t client_send_ns;
	uint64_t service_ns;
	uint64_t server_recv_ns;
	uint64_t server_send_ns;
	uint32_t payload_len;
	/* key-value protocols only (never on wakebench's wire): */
	uint8_t op;		/* enum proto_op */
	uint16_t key_size;	/* bytes of the key */
	uint64_t key;		/* key number: "wb" and zero-padded digits */
};

enum proto_err {
	PROTO_OK = 0,
	PROTO_ESHORT = -1,	/* fewer than PROTO_HDR_LEN bytes */
	PROTO_EMAGIC = -2,
	PROTO_EVERSION = -3,
	PROTO_ETYPE = -4,
	PROTO_EFLAGS = -5,
	PROTO_ELEN = -6,	/* payload_len above the cap */
	PROTO_ERESERVED = -7,
	PROTO_EDGRAM = -8,	/* datagram not exactly one whole message */
};

/* Writes the header into buf[PROTO_HDR_LEN]. */
void proto_encode(const struct proto_msg *m, uint8_t *buf);
/*
 * Validates and decodes the header at buf (len bytes available);
 * payload_cap bounds payload_len. Returns PROTO_OK or a proto_err.
 */
int proto_decode(const uint8_t *buf, size_t len, uint32_t payload_cap,
		 struct proto_msg *m);
const char *proto_strerror(int err);
const char *proto_type_name(uint8_t type);

#endif
