// SPDX-License-Identifier: GPL-2.0
/* lib/kvkey, lib/keydist and the key-value protocol entries
 * (lib/wire_memcached, lib/wire_redis over lib/kvwire). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "keydist.h"
#include "kvkey.h"
#include "wire.h"

START_TEST(key_text_and_parse)
{
	char t[KVKEY_MAX + 1];
	uint64_t k;
	unsigned size;

	ck_assert_int_eq(kvkey_text(42, 8, t), 8);
	ck_assert_str_eq(t, "wb000042");
	ck_assert_int_eq(kvkey_text(0, 3, t), 3);
	ck_assert_str_eq(t, "wb0");
	ck_assert_int_eq(kvkey_text(10, 3, t), -EINVAL);	/* 2 digits, 1 place */
	ck_assert_int_eq(kvkey_text(1, 2, t), -EINVAL);
	ck_assert_int_eq(kvkey_text(1, 251, t), -EINVAL);
	ck_assert_int_eq(kvkey_text(UINT64_MAX, 22, t), 22);
	ck_assert_int_eq(kvkey_parse("wb000042", 8, &k, &size), 0);
	ck_assert_uint_eq(k, 42);
	ck_assert_uint_eq(size, 8);
	ck_assert_int_eq(kvkey_parse("wb00004x", 8, &k, &size), -EINVAL);
	ck_assert_int_eq(kvkey_parse("xb000042", 8, &k, &size), -EINVAL);
	ck_assert_int_eq(kvkey_parse("wb", 2, &k, &size), -EINVAL);
	/* 20 significant digits overflow: refused, not wrapped */
	ck_assert_int_eq(kvkey_parse("wb99999999999999999999", 22, &k, &size), -EINVAL);
	ck_assert_uint_eq(kvkey_min_size(1), 3);
	ck_assert_uint_eq(kvkey_min_size(10), 3);
	ck_assert_uint_eq(kvkey_min_size(11), 4);
	ck_assert_uint_eq(kvkey_min_size(100000), 7);
}
END_TEST

START_TEST(route_is_stable_and_spreads)
{
	unsigned out[4], count[4] = { 0 };

	/* FNV-1a 64 of "wb0": fixed for ever (a sweep's keys must land on
	 * the same backend on every machine and after every restart) */
	ck_assert_uint_eq(kvkey_hash(0, 3), 0x5ea435194874e384ull);
	ck_assert_uint_eq(kvkey_route(10, 4, 1, out), 1);
	ck_assert_uint_eq(out[0], 2);
	ck_assert_uint_eq(kvkey_route(11, 4, 3, out), 3);
	ck_assert_uint_eq(out[0], 3);
	ck_assert_uint_eq(out[1], 0);
	ck_assert_uint_eq(out[2], 1);
	ck_assert_uint_eq(kvkey_route(11, 2, 5, out), 2);	/* clamped */
	ck_assert_uint_eq(kvkey_route(11, 0, 1, out), 0);
	for (uint64_t k = 0; k < 40000; k++) {
		kvkey_route(kvkey_hash(k, 10), 4, 1, out);
		count[out[0]]++;
	}
	for (int b = 0; b < 4; b++)
		ck_assert_msg(count[b] > 9500 && count[b] < 10500,
			      "backend %d got %u of 40000 keys", b, count[b]);
}
END_TEST

START_TEST(keydist_parse_names)
{
	struct keydist_spec s;
	char name[32];

	ck_assert_int_eq(keydist_parse("uniform", &s), 0);
	ck_assert_int_eq(s.kind, KEYDIST_UNIFORM);
	ck_assert_int_eq(keydist_parse("zipf:0.99", &s), 0);
	ck_assert_int_eq(s.kind, KEYDIST_ZIPF);
	ck_assert(fabs(s.s - 0.99) < 1e-12);
	keydist_name(&s, name, sizeof(name));
	ck_assert_str_eq(name, "zipf:0.99");
	ck_assert_int_eq(keydist_parse("zipf:", &s), -EINVAL);
	ck_assert_int_eq(keydist_parse("zipf:0", &s), -EINVAL);
	ck_assert_int_eq(keydist_parse("zipf:-1", &s), -EINVAL);
	ck_assert_int_eq(keydist_parse("zipf:nan", &s), -EINVAL);
	ck_assert_int_eq(keydist_parse("zipf:1x", &s), -EINVAL);
	ck_assert_int_eq(keydist_parse("zipf:11", &s), -EINVAL);
	ck_assert_int_eq(keydist_parse("normal", &s), -EINVAL);
}
END_TEST

/* Frequencies against the exact probabilities 1/(k+1)^s / H(n, s). */
static void check_zipf(double sexp, uint64_t n)
{
	struct keydist_spec spec = { KEYDIST_ZIPF, sexp };
	struct keydist d;
	struct prng p;
	const int draws = 400000;
	uint64_t *count = calloc(n, sizeof(*count));
	double hn = 0;

	ck_assert_ptr_nonnull(count);
	ck_assert_int_eq(keydist_init(&d, &spec, n), 0);
	prng_seed(&p, 7);
	for (int i = 0; i < draws; i++) {
		uint64_t k = keydist_next(&d, &p);

		ck_assert_uint_lt(k, n);
		count[k]++;
	}
	for (uint64_t k = 1; k <= n; k++)
		hn += pow((double)k, -sexp);
	for (uint64_t k = 0; k < 5; k++) {
		double want = pow((double)(k + 1), -sexp) / hn * draws;

		/* 5 standard deviations of a binomial count */
		ck_assert_msg(fabs((double)count[k] - want) < 5 * sqrt(want) + 1,
			      "s=%g key %llu: %llu draws, expected %.0f", sexp,
			      (unsigned long long)k, (unsigned long long)count[k], want);
	}
	free(count);
}

START_TEST(zipf_matches_its_law)
{
	check_zipf(0.99, 1000);
	check_zipf(1.0, 50);
	check_zipf(2.0, 100000);
	check_zipf(0.5, 10);
}
END_TEST

START_TEST(uniform_and_seeded)
{
	struct keydist_spec spec = { KEYDIST_UNIFORM, 0 };
	struct keydist d;
	struct prng a, b;
	uint64_t count[10] = { 0 };

	ck_assert_int_eq(keydist_init(&d, &spec, 10), 0);
	ck_assert_int_eq(keydist_init(&d, &spec, 0), -EINVAL);
	ck_assert_int_eq(keydist_init(&d, &spec, 10), 0);
	prng_seed(&a, 3);
	prng_seed(&b, 3);
	for (int i = 0; i < 100000; i++) {
		uint64_t k = keydist_next(&d, &a);

		ck_assert_uint_eq(k, keydist_next(&d, &b));
		count[k]++;
	}
	for (int k = 0; k < 10; k++)
		ck_assert(count[k] > 9500 && count[k] < 10500);
}
END_TEST

/* ---- protocols ---------------------------------------------------------- */

struct got {
	struct proto_msg m[16];
	int n;
};

static int collect(const struct proto_msg *m, void *arg)
{
	struct got *g = arg;

	ck_assert_int_lt(g->n, 16);
	g->m[g->n++] = *m;
	return 0;
}

static struct proto_msg req(uint8_t type, uint8_t op, uint64_t seq,
			    uint64_t key, uint32_t value)
{
	return (struct proto_msg){ .type = type, .op = op, .seq = seq,
				   .client_send_ns = 1000 + seq, .key = key,
				   .key_size = 6,
				   .payload_len = op == PROTO_OP_SET ? value : 0 };
}

static size_t enc(struct wire_conn *c, struct proto_msg m, uint8_t *buf)
{
	ssize_t n = c->ops->encode(c, &m, buf, 4096);

	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq((size_t)n, c->ops->msg_len(&m));
	return (size_t)n;
}

/* Feeds text one byte at a time (every split point) and all at once. */
static int feed_text(struct wire_conn *c, const char *text, struct got *g,
		     int bytewise)
{
	size_t len = strlen(text);
	int ret = 0;

	if (!bytewise)
		return wire_feed(c, (const uint8_t *)text, len, collect, g);
	for (size_t i = 0; i < len && !ret; i++)
		ret = wire_feed(c, (const uint8_t *)text + i, 1, collect, g);
	return ret;
}

START_TEST(memcached_client_round_trip)
{
	for (int bytewise = 0; bytewise < 2; bytewise++) {
		struct wire_conn c;
		uint8_t buf[4096];
		struct got g = { 0 };
		size_t n;

		wire_conn_init(&c, &wire_memcached, 65536);
		n = enc(&c, req(PROTO_REQUEST, PROTO_OP_SET, 0, 7, 5), buf);
		ck_assert_int_eq(memcmp(buf, "set wb0007 0 0 5\r\nxxxxx\r\n", n), 0);
		n = enc(&c, req(PROTO_PREQUERY, 0, 1, 0, 0), buf);
		ck_assert_int_eq(memcmp(buf, "mn\r\n", n), 0);
		n = enc(&c, req(PROTO_REQUEST, PROTO_OP_GET, 1, 7, 0), buf);
		ck_assert_int_eq(memcmp(buf, "get wb0007\r\n", n), 0);
		enc(&c, req(PROTO_REQUEST, PROTO_OP_GET, 2, 8, 0), buf);
		enc(&c, req(PROTO_REQUEST, PROTO_OP_GET, 3, 9, 0), buf);
		ck_assert_int_eq(feed_text(&c, "STORED\r\nMN\r\nVALUE wb0007 0 5\r\nxxxxx\r\nEND\r\n"
					   "END\r\nSERVER_ERROR out of memory\r\n", &g, bytewise), 0);
		ck_assert_int_eq(g.n, 5);
		ck_assert_uint_eq(g.m[0].seq, 0);
		ck_assert_int_eq(g.m[0].type, PROTO_REPLY);
		ck_assert_uint_eq(g.m[0].client_send_ns, 1000);
		ck_assert(g.m[1].flags & PROTO_F_ACK);	/* the pre-query's */
		ck_assert_uint_eq(g.m[1].seq, 1);
		ck_assert_uint_eq(g.m[2].seq, 1);
		ck_assert(!(g.m[2].flags & (PROTO_F_MISS | PROTO_F_ACK)));
		ck_assert_uint_eq(g.m[2].payload_len, 5);
		ck_assert_uint_eq(g.m[2].key, 7);
		ck_assert(g.m[3].flags & PROTO_F_MISS);
		ck_assert_uint_eq(g.m[3].seq, 2);
		ck_assert_int_eq(g.m[4].type, PROTO_ERROR);
		ck_assert_uint_eq(g.m[4].seq, 3);
		ck_assert(!wire_partial(&c));
		wire_conn_free(&c);
		wire_conn_free(&c);	/* twice is harmless */
	}
}
END_TEST

/* A reply that is not the request's is an error naming its seq. */
static void mc_wrong(const char *sent_op, const char *reply, const char *msg)
{
	struct wire_conn c;
	uint8_t buf[4096];
	struct got g = { 0 };
	struct proto_msg m = !strcmp(sent_op, "mn") ? req(PROTO_PREQUERY, 0, 41, 0, 0) :
			     req(PROTO_REQUEST, !strcmp(sent_op, "set") ?
				 PROTO_OP_SET : PROTO_OP_GET, 41, 3, 10);

	wire_conn_init(&c, &wire_memcached, 100);
	enc(&c, m, buf);
	ck_assert_int_lt(feed_text(&c, reply, &g, 0), 0);
	ck_assert_int_eq(g.n, 0);
	ck_assert_ptr_nonnull(wire_conn_error(&c));
	ck_assert_msg(strstr(wire_conn_error(&c), msg), "'%s' lacks '%s'",
		      wire_conn_error(&c), msg);
	wire_conn_free(&c);
}

START_TEST(memcached_client_rejects)
{
	mc_wrong("get", "STORED\r\n", "get of seq 41");
	mc_wrong("get", "VALUE wb0004 0 3\r\nabc\r\nEND\r\n", "wb0003");
	mc_wrong("get", "VALUE wb0003 0 3\r\nabcd\r\nEND\r\n", "CRLF");
	mc_wrong("get", "VALUE wb0003 0 3\r\nabc\r\nSTORED\r\n", "not END");
	mc_wrong("get", "VALUE wb0003 0 101\r\n", "at most 100");
	mc_wrong("get", "VALUE wb0003 x 3\r\n", "bad VALUE");
	mc_wrong("set", "NOT_STORED\r\n", "set of seq 41");
	mc_wrong("mn", "END\r\n", "pre-query of seq 41");
	mc_wrong("get", "END\n", "CRLF");
	{
		/* nothing outstanding */
		struct wire_conn c;
		struct got g = { 0 };

		wire_conn_init(&c, &wire_memcached, 100);
		ck_assert_int_lt(feed_text(&c, "END\r\n", &g, 0), 0);
		ck_assert(strstr(wire_conn_error(&c), "no request outstanding"));
		wire_conn_free(&c);
	}
	{
		/* a line without end is bounded */
		struct wire_conn c;
		struct got g = { 0 };
		char *big = malloc(3000);

		memset(big, 'A', 2999);
		big[2999] = 0;
		wire_conn_init(&c, &wire_memcached, 100);
		ck_assert_int_lt(feed_text(&c, big, &g, 0), 0);
		wire_conn_free(&c);
		free(big);
	}
}
END_TEST

START_TEST(memcached_server_orders_replies)
{
	struct wire_conn c;
	struct got g = { 0 };
	uint8_t buf[4096];
	ssize_t n;

	wire_conn_init_server(&c, &wire_memcached, 1000);
	ck_assert_int_eq(feed_text(&c, "get wb0001\r\nset wb0002 0 0 3\r\nabc\r\nmn\r\nget wb0003\r\n",
				   &g, 1), 0);
	ck_assert_int_eq(g.n, 4);
	ck_assert_uint_eq(g.m[0].seq, 0);
	ck_assert_int_eq(g.m[0].op, PROTO_OP_GET);
	ck_assert_uint_eq(g.m[0].key, 1);
	ck_assert_uint_eq(g.m[0].key_size, 6);
	ck_assert_int_eq(g.m[1].op, PROTO_OP_SET);
	ck_assert_uint_eq(g.m[1].payload_len, 3);
	ck_assert_int_eq(g.m[2].type, PROTO_PREQUERY);
	ck_assert(g.m[2].flags & PROTO_F_ACK);
	ck_assert_uint_eq(g.m[3].seq, 3);
	/* answered out of order: nothing leaves before request 0's reply */
	struct proto_msg r = { .type = PROTO_REPLY, .seq = 2 };

	ck_assert_int_eq(c.ops->encode(&c, &r, buf, sizeof(buf)), 0);
	r.seq = 1;
	ck_assert_int_eq(c.ops->encode(&c, &r, buf, sizeof(buf)), 0);
	ck_assert_int_eq(c.ops->drain(&c, buf, sizeof(buf)), 0);
	ck_assert_int_lt(c.ops->encode(&c, &r, buf, sizeof(buf)), 0);	/* twice */
	r = (struct proto_msg){ .type = PROTO_REPLY, .seq = 0, .payload_len = 4 };
	ck_assert_int_eq(c.ops->encode(&c, &r, buf, sizeof(buf)), 0);
	n = c.ops->drain(&c, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	buf[n] = 0;
	ck_assert_str_eq((char *)buf, "VALUE wb0001 0 4\r\nxxxx\r\nEND\r\nSTORED\r\nMN\r\n");
	r = (struct proto_msg){ .type = PROTO_ERROR, .seq = 3 };
	ck_assert_int_eq(c.ops->encode(&c, &r, buf, sizeof(buf)), 0);
	n = c.ops->drain(&c, buf, sizeof(buf));
	buf[n] = 0;
	ck_assert_str_eq((char *)buf, "SERVER_ERROR backend unavailable\r\n");
	r.seq = 9;	/* never read */
	ck_assert_int_lt(c.ops->encode(&c, &r, buf, sizeof(buf)), 0);
	wire_conn_free(&c);

	/* a miss, and the commands a relay refuses */
	const char *bad[] = { "get foo\r\n", "get wb1 wb2\r\n", "set wb1 0 0 1001\r\n",
			      "set wb1 0 0 3 noreply\r\n", "stats\r\n", "set wb1 0 0 3\r\nabcd\r\n" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct got h = { 0 };

		wire_conn_init_server(&c, &wire_memcached, 1000);
		ck_assert_msg(feed_text(&c, bad[i], &h, 0) < 0, "accepted %s", bad[i]);
		ck_assert_int_eq(h.n, 0);
		wire_conn_free(&c);
	}
	wire_conn_init_server(&c, &wire_memcached, 1000);
	g.n = 0;
	feed_text(&c, "get wb9\r\n", &g, 0);
	r = (struct proto_msg){ .type = PROTO_REPLY, .seq = 0, .flags = PROTO_F_MISS };
	c.ops->encode(&c, &r, buf, sizeof(buf));
	n = c.ops->drain(&c, buf, sizeof(buf));
	buf[n] = 0;
	ck_assert_str_eq((char *)buf, "END\r\n");
	wire_conn_free(&c);
}
END_TEST

/* issue 35: a reply's msg_len is what the server end writes (the texts
 * the tests above check), and wire_cost adds a run's messages up */
START_TEST(reply_lengths_and_cost)
{
	static const struct {
		const struct wb_proto_ops *ops;
		struct proto_msg m;
		const char *text;
	} r[] = {
		{ &wire_memcached, { .type = PROTO_REPLY, .op = PROTO_OP_GET, .key_size = 6,
				     .payload_len = 4 }, "VALUE wb0001 0 4\r\nxxxx\r\nEND\r\n" },
		{ &wire_memcached, { .type = PROTO_REPLY, .op = PROTO_OP_SET }, "STORED\r\n" },
		{ &wire_memcached, { .type = PROTO_REPLY, .flags = PROTO_F_ACK }, "MN\r\n" },
		{ &wire_memcached, { .type = PROTO_REPLY, .flags = PROTO_F_MISS }, "END\r\n" },
		{ &wire_memcached, { .type = PROTO_ERROR }, "SERVER_ERROR backend unavailable\r\n" },
		{ &wire_redis, { .type = PROTO_REPLY, .op = PROTO_OP_SET }, "+OK\r\n" },
		{ &wire_redis, { .type = PROTO_REPLY, .flags = PROTO_F_ACK }, "+PONG\r\n" },
		{ &wire_redis, { .type = PROTO_REPLY, .payload_len = 3 }, "$3\r\nxxx\r\n" },
		{ &wire_redis, { .type = PROTO_REPLY, .flags = PROTO_F_MISS }, "$-1\r\n" },
		{ &wire_redis, { .type = PROTO_ERROR }, "-ERR backend unavailable\r\n" },
		{ &wire_wakebench, { .type = PROTO_REPLY }, NULL },
	};
	struct wire_counts c = { .requests = 10, .replies = 10, .prequeries = 5, .payload = 8 };
	uint64_t msgs, bytes;

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		ck_assert_msg(r[i].ops->msg_len(&r[i].m) ==
			      (r[i].text ? strlen(r[i].text) : PROTO_HDR_LEN),
			      "%s reply %zu: %zu", r[i].ops->name, i, r[i].ops->msg_len(&r[i].m));
	/* wakebench: 64-byte requests, 56-byte replies and pre-queries */
	wire_cost(&wire_wakebench, &c, &msgs, &bytes);
	ck_assert_uint_eq(msgs, 25);
	ck_assert_uint_eq(bytes, 10 * 64 + 10 * 56 + 5 * 56);
	c.acked = 1;
	wire_cost(&wire_wakebench, &c, &msgs, &bytes);
	ck_assert_uint_eq(msgs, 30);
	ck_assert_uint_eq(bytes, 10 * 64 + 10 * 56 + 10 * 56);
	/* memcached: 6 gets (2 misses) and 4 sets of 4 bytes, 3 mn answered */
	c = (struct wire_counts){ .requests = 10, .gets = 6, .sets = 4, .replies = 10,
				  .misses = 2, .prequeries = 3, .key_size = 6, .value_size = 4 };
	wire_cost(&wire_memcached, &c, &msgs, &bytes);
	ck_assert_uint_eq(msgs, 26);
	ck_assert_uint_eq(bytes, 6 * 12 + 2 * 5 + 4 * 29 + 4 * 24 + 4 * 8 + 3 * 4 + 3 * 4);
}
END_TEST

START_TEST(redis_round_trip)
{
	for (int bytewise = 0; bytewise < 2; bytewise++) {
		struct wire_conn c, s;
		uint8_t buf[4096], all[4096];
		struct got g = { 0 }, h = { 0 };
		size_t n, len = 0;
		ssize_t k;

		wire_conn_init(&c, &wire_redis, 65536);
		wire_conn_init_server(&s, &wire_redis, 65536);
		n = enc(&c, req(PROTO_REQUEST, PROTO_OP_SET, 0, 7, 5), buf);
		ck_assert_int_eq(memcmp(buf, "*3\r\n$3\r\nSET\r\n$6\r\nwb0007\r\n$5\r\nxxxxx\r\n", n), 0);
		memcpy(all + len, buf, n);
		len += n;
		n = enc(&c, req(PROTO_PREQUERY, 0, 1, 0, 0), buf);
		ck_assert_int_eq(memcmp(buf, "*1\r\n$4\r\nPING\r\n", n), 0);
		memcpy(all + len, buf, n);
		len += n;
		n = enc(&c, req(PROTO_REQUEST, PROTO_OP_GET, 1, 7, 0), buf);
		memcpy(all + len, buf, n);
		len += n;
		n = enc(&c, req(PROTO_REQUEST, PROTO_OP_GET, 2, 8, 0), buf);
		memcpy(all + len, buf, n);
		len += n;
		all[len] = 0;
		/* what the client sent, read by a relay's server end */
		ck_assert_int_eq(feed_text(&s, (char *)all, &h, bytewise), 0);
		ck_assert_int_eq(h.n, 4);
		ck_assert_int_eq(h.m[0].op, PROTO_OP_SET);
		ck_assert_uint_eq(h.m[0].payload_len, 5);
		ck_assert_uint_eq(h.m[0].key, 7);
		ck_assert_int_eq(h.m[1].type, PROTO_PREQUERY);
		ck_assert_int_eq(h.m[2].op, PROTO_OP_GET);
		ck_assert_uint_eq(h.m[3].key, 8);
		/* the relay's replies, given in reverse order */
		struct proto_msg r[4] = {
			{ .type = PROTO_REPLY, .seq = 3, .flags = PROTO_F_MISS },
			{ .type = PROTO_REPLY, .seq = 2, .payload_len = 3 },
			{ .type = PROTO_REPLY, .seq = 1, .flags = PROTO_F_ACK },
			{ .type = PROTO_REPLY, .seq = 0 },
		};
		for (int i = 0; i < 4; i++)
			ck_assert_int_eq(s.ops->encode(&s, &r[i], buf, sizeof(buf)), 0);
		k = s.ops->drain(&s, buf, sizeof(buf));
		ck_assert_int_gt(k, 0);
		buf[k] = 0;
		ck_assert_str_eq((char *)buf, "+OK\r\n+PONG\r\n$3\r\nxxx\r\n$-1\r\n");
		/* and the client takes them */
		ck_assert_int_eq(feed_text(&c, (char *)buf, &g, bytewise), 0);
		ck_assert_int_eq(g.n, 4);
		ck_assert(g.m[1].flags & PROTO_F_ACK);
		ck_assert_uint_eq(g.m[2].seq, 1);
		ck_assert_uint_eq(g.m[2].payload_len, 3);
		ck_assert(g.m[3].flags & PROTO_F_MISS);
		ck_assert_uint_eq(g.m[3].seq, 2);
		wire_conn_free(&c);
		wire_conn_free(&s);
	}
}
END_TEST

START_TEST(redis_rejects)
{
	const char *replies[] = { "+OK\r\n", "$3\r\nabcd\r\n", ":1\r\n", "$70000\r\n", "\r\n" };
	const char *cmds[] = { "PING\r\n", "*2\r\n$3\r\nDEL\r\n$3\r\nwb1\r\n",
			       "*2\r\n$3\r\nGET\r\n$4\r\nwb1\r\n",
			       "*3\r\n$3\r\nGET\r\n$3\r\nwb1\r\n$1\r\nx\r\n",
			       "*2\r\n$3\r\nSET\r\n$3\r\nwb1\r\n", "*4\r\n",
			       "*2\r\n$3\r\nGET\r\n$3\r\nabc\r\n" };

	for (size_t i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
		struct wire_conn c;
		uint8_t buf[256];
		struct got g = { 0 };

		wire_conn_init(&c, &wire_redis, 65536);
		enc(&c, req(PROTO_REQUEST, PROTO_OP_GET, 12, 1, 0), buf);
		ck_assert_msg(feed_text(&c, replies[i], &g, 0) < 0 && !g.n,
			      "accepted reply %zu", i);
		if (i < 3)
			ck_assert(strstr(wire_conn_error(&c), "seq 12") ||
				  strstr(wire_conn_error(&c), "CRLF"));
		wire_conn_free(&c);
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct wire_conn s;
		struct got g = { 0 };

		wire_conn_init_server(&s, &wire_redis, 65536);
		ck_assert_msg(feed_text(&s, cmds[i], &g, 0) < 0 && !g.n,
			      "accepted command %zu", i);
		wire_conn_free(&s);
	}
	{
		/* an error reply is an ERROR for the request */
		struct wire_conn c;
		uint8_t buf[256];
		struct got g = { 0 };

		wire_conn_init(&c, &wire_redis, 65536);
		enc(&c, req(PROTO_REQUEST, PROTO_OP_GET, 12, 1, 0), buf);
		ck_assert_int_eq(feed_text(&c, "-ERR backend unavailable\r\n", &g, 0), 0);
		ck_assert_int_eq(g.m[0].type, PROTO_ERROR);
		ck_assert_uint_eq(g.m[0].seq, 12);
		wire_conn_free(&c);
	}
}
END_TEST

/*
 * A request fits a buffer of exactly msg_len bytes and nothing is written
 * past it (a get's text ended in sprintf's NUL, one byte beyond: found by
 * fuzz_kv, tests/fuzz/corpus/kv/crash-get-encode-nul).
 */
START_TEST(encode_stays_in_its_buffer)
{
	const struct wb_proto_ops *ops[] = { &wire_memcached, &wire_redis };

	for (size_t p = 0; p < 2; p++) {
		for (int kind = 0; kind < 3; kind++) {
			for (unsigned ks = KVKEY_MIN; ks <= KVKEY_MAX; ks += KVKEY_MAX - KVKEY_MIN) {
				struct wire_conn c;
				struct proto_msg m = req(kind ? PROTO_REQUEST : PROTO_PREQUERY,
							 kind == 2 ? PROTO_OP_SET : PROTO_OP_GET,
							 0, 5, 0);
				uint8_t buf[512];
				size_t len;

				m.key_size = (uint16_t)ks;
				len = ops[p]->msg_len(&m);
				memset(buf, '#', sizeof(buf));
				wire_conn_init(&c, ops[p], 100);
				ck_assert_int_eq(ops[p]->encode(&c, &m, buf, len - 1), -ENOSPC);
				ck_assert_int_eq(ops[p]->encode(&c, &m, buf, len), (ssize_t)len);
				ck_assert_msg(buf[len] == '#', "%s kind %d key size %u: byte %zu written",
					      ops[p]->name, kind, ks, len);
				ck_assert(buf[len - 2] == '\r' && buf[len - 1] == '\n');
				wire_conn_free(&c);
			}
		}
	}
}
END_TEST

START_TEST(table_lists_them)
{
	ck_assert_ptr_eq(wire_find("memcached"), &wire_memcached);
	ck_assert_ptr_eq(wire_find("redis"), &wire_redis);
	ck_assert_ptr_eq(wire_find("wakebench"), &wire_wakebench);
	ck_assert_ptr_null(wire_find("http"));
	ck_assert(wire_memcached.keyed && wire_memcached.ordered);
	ck_assert(!wire_wakebench.keyed && !wire_wakebench.ordered);
	/* no UDP framing for these */
	struct proto_msg m;

	ck_assert_int_lt(wire_memcached.decode((const uint8_t *)"mn\r\n", 4, 10, &m), 0);
}
END_TEST

Suite *kv_suite(void)
{
	Suite *s = suite_create("kv");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, key_text_and_parse);
	tcase_add_test(tc, route_is_stable_and_spreads);
	tcase_add_test(tc, keydist_parse_names);
	tcase_add_test(tc, zipf_matches_its_law);
	tcase_add_test(tc, uniform_and_seeded);
	tcase_add_test(tc, memcached_client_round_trip);
	tcase_add_test(tc, memcached_client_rejects);
	tcase_add_test(tc, memcached_server_orders_replies);
	tcase_add_test(tc, redis_round_trip);
	tcase_add_test(tc, reply_lengths_and_cost);
	tcase_add_test(tc, redis_rejects);
	tcase_add_test(tc, encode_stays_in_its_buffer);
	tcase_add_test(tc, table_lists_them);
	suite_add_tcase(s, tc);
	return s;
}
