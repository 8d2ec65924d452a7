// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "unit.h"
#include "framer.h"
#include "proto.h"

static struct proto_msg sample(void)
{
	return (struct proto_msg){
		.type = PROTO_REQUEST, .flags = PROTO_F_ACK,
		.seq = 0x0102030405060708ull, .client_send_ns = UINT64_MAX,
		.service_ns = 12345, .server_recv_ns = 1, .server_send_ns = 2,
		.payload_len = 100,
	};
}

START_TEST(round_trip)
{
	for (int type = PROTO_REQUEST; type <= PROTO_ERROR; type++) {
		struct proto_msg m = sample(), d;
		uint8_t buf[PROTO_HDR_LEN];

		m.type = (uint8_t)type;
		proto_encode(&m, buf);
		ck_assert_int_eq(proto_decode(buf, sizeof(buf), 1000, &d), PROTO_OK);
		ck_assert_int_eq(d.type, type);
		ck_assert_uint_eq(d.flags, m.flags);
		ck_assert_uint_eq(d.seq, m.seq);
		ck_assert_uint_eq(d.client_send_ns, m.client_send_ns);
		ck_assert_uint_eq(d.service_ns, m.service_ns);
		ck_assert_uint_eq(d.server_recv_ns, m.server_recv_ns);
		ck_assert_uint_eq(d.server_send_ns, m.server_send_ns);
		ck_assert_uint_eq(d.payload_len, m.payload_len);
	}
}
END_TEST

START_TEST(little_endian_layout)
{
	struct proto_msg m = sample();
	uint8_t buf[PROTO_HDR_LEN];

	proto_encode(&m, buf);
	ck_assert_mem_eq(buf, "WKB1", 4);
	ck_assert_uint_eq(buf[4], PROTO_VERSION);
	ck_assert_uint_eq(buf[5], PROTO_REQUEST);
	ck_assert_uint_eq(buf[8], 0x08);	/* seq LSB first */
	ck_assert_uint_eq(buf[15], 0x01);
	ck_assert_uint_eq(buf[48], 100);
	for (int i = 52; i < 56; i++)
		ck_assert_uint_eq(buf[i], 0);
}
END_TEST

/* Every malformed field is rejected with its own error. */
START_TEST(rejects_each_field)
{
	struct {
		int off;
		uint8_t val;
		int err;
	} cases[] = {
		{ 0, 'X', PROTO_EMAGIC }, { 3, '2', PROTO_EMAGIC },
		{ 4, 0, PROTO_EVERSION }, { 4, 2, PROTO_EVERSION },
		{ 5, 0, PROTO_ETYPE }, { 5, 5, PROTO_ETYPE },
		{ 5, 255, PROTO_ETYPE }, { 6, 0x02, PROTO_EFLAGS },
		{ 7, 0x80, PROTO_EFLAGS }, { 49, 0x04, PROTO_ELEN },
		{ 51, 0x01, PROTO_ELEN }, { 52, 1, PROTO_ERESERVED },
		{ 55, 0x80, PROTO_ERESERVED },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct proto_msg m = sample(), d;
		uint8_t buf[PROTO_HDR_LEN];

		proto_encode(&m, buf);
		buf[cases[i].off] = cases[i].val;
		ck_assert_msg(proto_decode(buf, sizeof(buf), 1000, &d) ==
			      cases[i].err, "case %zu", i);
		ck_assert_str_ne(proto_strerror(cases[i].err), "unknown error");
	}
}
END_TEST

START_TEST(rejects_short_and_capped)
{
	struct proto_msg m = sample(), d;
	uint8_t buf[PROTO_HDR_LEN];

	proto_encode(&m, buf);
	for (size_t len = 0; len < PROTO_HDR_LEN; len++)
		ck_assert_int_eq(proto_decode(buf, len, 1000, &d), PROTO_ESHORT);
	ck_assert_int_eq(proto_decode(buf, sizeof(buf), 99, &d), PROTO_ELEN);
	ck_assert_int_eq(proto_decode(buf, sizeof(buf), 100, &d), PROTO_OK);
	m.payload_len = PROTO_MAX_PAYLOAD + 1;
	proto_encode(&m, buf);
	ck_assert_int_eq(proto_decode(buf, sizeof(buf), UINT32_MAX, &d),
			 PROTO_ELEN);
}
END_TEST

struct seen {
	int n;
	uint64_t seqs[16];
	int stop_at;
};

static int collect(const struct proto_msg *m, void *arg)
{
	struct seen *s = arg;

	s->seqs[s->n++] = m->seq;
	return s->n == s->stop_at ? 7 : 0;
}

/* Three messages with payloads, fed one byte at a time and in one go. */
START_TEST(framer_reassembles)
{
	uint8_t stream[3 * (PROTO_HDR_LEN + 10)];
	size_t len = 0;

	for (int i = 0; i < 3; i++) {
		struct proto_msg m = sample();

		m.seq = (uint64_t)i + 10;
		m.payload_len = (uint32_t)(i * 5);
		proto_encode(&m, stream + len);
		len += PROTO_HDR_LEN;
		memset(stream + len, 0xee, m.payload_len);
		len += m.payload_len;
	}
	for (size_t chunk = 1; chunk <= len; chunk += chunk < 8 ? 1 : 37) {
		struct framer f;
		struct seen s = { 0 };

		framer_init(&f, 1000);
		for (size_t off = 0; off < len; off += chunk) {
			size_t n = len - off < chunk ? len - off : chunk;

			ck_assert_int_eq(framer_feed(&f, stream + off, n,
						     collect, &s), 0);
		}
		ck_assert_int_eq(s.n, 3);
		ck_assert_uint_eq(s.seqs[0], 10);
		ck_assert_uint_eq(s.seqs[2], 12);
		ck_assert(!framer_partial(&f));
	}
}
END_TEST

START_TEST(framer_errors)
{
	struct proto_msg m = sample();
	uint8_t buf[PROTO_HDR_LEN * 2];
	struct framer f;
	struct seen s = { 0 };

	m.payload_len = 0;
	proto_encode(&m, buf);
	proto_encode(&m, buf + PROTO_HDR_LEN);
	buf[PROTO_HDR_LEN] = 0;	/* second header bad */
	framer_init(&f, 1000);
	ck_assert_int_eq(framer_feed(&f, buf, sizeof(buf), collect, &s),
			 PROTO_EMAGIC);
	ck_assert_int_eq(s.n, 1);
	/* A callback's non-zero return stops the feed and is passed up. */
	proto_encode(&m, buf + PROTO_HDR_LEN);
	framer_init(&f, 1000);
	s = (struct seen){ .stop_at = 1 };
	ck_assert_int_eq(framer_feed(&f, buf, sizeof(buf), collect, &s), 7);
	ck_assert_int_eq(s.n, 1);
	/* Partial message state. */
	framer_init(&f, 1000);
	ck_assert_int_eq(framer_feed(&f, buf, 10, collect, &s), 0);
	ck_assert(framer_partial(&f));
}
END_TEST

Suite *proto_suite(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, little_endian_layout);
	tcase_add_test(tc, rejects_each_field);
	tcase_add_test(tc, rejects_short_and_capped);
	tcase_add_test(tc, framer_reassembles);
	tcase_add_test(tc, framer_errors);
	suite_add_tcase(s, tc);
	return s;
}
