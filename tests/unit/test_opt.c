// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "unit.h"
#include "net.h"
#include "cpu.h"
#include "cmdline.h"
#include "opt.h"

START_TEST(parse_u64)
{
	uint64_t v;

	ck_assert_int_eq(opt_u64("42", 0, 100, &v), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(opt_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(opt_u64("18446744073709551616", 0, UINT64_MAX, &v), -1);
	ck_assert_int_eq(opt_u64("-1", 0, 100, &v), -1);
	ck_assert_int_eq(opt_u64("+1", 0, 100, &v), -1);
	ck_assert_int_eq(opt_u64(" 1", 0, 100, &v), -1);
	ck_assert_int_eq(opt_u64("1x", 0, 100, &v), -1);
	ck_assert_int_eq(opt_u64("", 0, 100, &v), -1);
	ck_assert_int_eq(opt_u64("101", 0, 100, &v), -1);
	ck_assert_int_eq(opt_u64("0", 1, 100, &v), -1);
}
END_TEST

START_TEST(parse_double)
{
	double d;

	ck_assert_int_eq(opt_double("2.5", 0, 10, &d), 0);
	ck_assert_double_eq(d, 2.5);
	ck_assert_int_eq(opt_double("1e3", 0, 1e4, &d), 0);
	ck_assert_double_eq(d, 1000);
	ck_assert_int_eq(opt_double("nan", 0, 10, &d), -1);
	ck_assert_int_eq(opt_double("inf", 0, 1e300, &d), -1);
	ck_assert_int_eq(opt_double("-1", 0, 10, &d), -1);
	ck_assert_int_eq(opt_double("3us", 0, 10, &d), -1);
	ck_assert_int_eq(opt_double("", 0, 10, &d), -1);
	/* Decimal only: strtod would read these as 16, 1, 0.5 and 5. */
	ck_assert_int_eq(opt_double("0x10", 0, 100, &d), -1);
	ck_assert_int_eq(opt_double("0X1p0", 0, 100, &d), -1);
	ck_assert_int_eq(opt_double(".5e", 0, 100, &d), -1);
	ck_assert_int_eq(opt_double(" 5", 0, 100, &d), -1);
	ck_assert_int_eq(opt_double("+5", 0, 100, &d), -1);
	ck_assert_int_eq(opt_double(".", 0, 100, &d), -1);
	ck_assert_int_eq(opt_double(".5", 0, 100, &d), 0);
	ck_assert_double_eq(d, 0.5);
	ck_assert_int_eq(opt_double("5.", 0, 100, &d), 0);
	ck_assert_int_eq(opt_double("1.5E+1", 0, 100, &d), 0);
	ck_assert_double_eq(d, 15);
	ck_assert_int_eq(opt_double("-0.5", -1, 100, &d), 0);
}
END_TEST

START_TEST(parse_hostport)
{
	char host[64];
	uint16_t port;

	ck_assert_int_eq(opt_hostport("10.0.0.1:7000", "x", host, sizeof(host), &port), 0);
	ck_assert_str_eq(host, "10.0.0.1");
	ck_assert_uint_eq(port, 7000);
	ck_assert_int_eq(opt_hostport(":80", "127.0.0.1", host, sizeof(host), &port), 0);
	ck_assert_str_eq(host, "127.0.0.1");
	ck_assert_int_eq(opt_hostport("[::1]:9", "x", host, sizeof(host), &port), 0);
	ck_assert_str_eq(host, "::1");
	ck_assert_uint_eq(port, 9);
	ck_assert_int_eq(opt_hostport("node0:1", "x", host, sizeof(host), &port), 0);
	ck_assert_str_eq(host, "node0");
	ck_assert_int_eq(opt_hostport("::1:9", "x", host, sizeof(host), &port), -1);
	ck_assert_int_eq(opt_hostport("host", "x", host, sizeof(host), &port), -1);
	ck_assert_int_eq(opt_hostport("host:0", "x", host, sizeof(host), &port), -1);
	ck_assert_int_eq(opt_hostport("host:65536", "x", host, sizeof(host), &port), -1);
	ck_assert_int_eq(opt_hostport("[::1]9", "x", host, sizeof(host), &port), -1);
	ck_assert_int_eq(opt_hostport("averyveryverylonghostname:1", "x", host, 8, &port), -1);
}
END_TEST

START_TEST(cmdline_quoting)
{
	char *argv[] = { "wakebench-client", "--out", "my dir", "it's", "" };
	char *s = opt_cmdline(5, argv);

	ck_assert_str_eq(s, "wakebench-client --out 'my dir' 'it'\\''s' ''");
	free(s);
}
END_TEST

START_TEST(cpu_pinning)
{
	ck_assert_int_eq(cpu_pin_self(0), 0);
	ck_assert_int_eq(sched_getcpu(), 0);
	ck_assert_int_eq(cpu_pin_self(-1), -EINVAL);
	ck_assert_int_lt(cpu_pin_self(cpu_count() + 5), 0);
	ck_assert_int_ge(cpu_count(), 1);
}
END_TEST

/* A loopback listener on a free port, a connect, a round trip. */
START_TEST(net_loopback)
{
	uint16_t port = 0;
	int l = net_listen(NET_TCP, "127.0.0.1", 0, 4, &port), c, a;
	char buf[4];
	enum net_proto p;

	ck_assert_int_ge(l, 0);
	ck_assert_uint_gt(port, 0);
	c = net_connect(NET_TCP, "127.0.0.1", port);
	ck_assert_int_ge(c, 0);
	a = accept(l, NULL, NULL);
	ck_assert_int_ge(a, 0);
	ck_assert_int_eq(net_send_all(c, "ping", 4, 1000000000ull), 0);
	ck_assert_int_eq(read(a, buf, 4), 4);
	ck_assert_mem_eq(buf, "ping", 4);
	close(a);
	close(c);
	/* The port is taken: a second listener fails with an errno. */
	ck_assert_int_eq(net_listen(NET_TCP, "127.0.0.1", port, 4, NULL),
			 -EADDRINUSE);
	close(l);
	ck_assert_int_lt(net_connect(NET_TCP, "127.0.0.1", port), 0);
	ck_assert_int_eq(net_listen(NET_TCP, "no.such.host.invalid", 0, 4, NULL),
			 -EADDRNOTAVAIL);
	ck_assert_int_eq(net_proto_parse("udp", &p), 0);
	ck_assert_int_eq(p, NET_UDP);
	ck_assert_int_eq(net_proto_parse("sctp", &p), -1);
}
END_TEST

Suite *opt_suite(void)
{
	Suite *s = suite_create("opt");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, parse_u64);
	tcase_add_test(tc, parse_double);
	tcase_add_test(tc, parse_hostport);
	tcase_add_test(tc, cmdline_quoting);
	tcase_add_test(tc, cpu_pinning);
	tcase_add_test(tc, net_loopback);
	suite_add_tcase(s, tc);
	return s;
}
