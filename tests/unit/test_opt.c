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

START_TEST(cpu_lists)
{
	unsigned char m[8];

	ck_assert_int_eq(cpu_parse_list("0", m, 8), 1);
	ck_assert_int_eq(cpu_parse_list("0-3,6", m, 8), 5);
	ck_assert(m[0] && m[3] && !m[4] && m[6] && !m[7]);
	ck_assert_int_eq(cpu_parse_list("1,1,0-1", m, 8), 2);
	ck_assert_int_eq(cpu_parse_list("8", m, 8), -1);
	ck_assert_int_eq(cpu_parse_list("3-1", m, 8), -1);
	ck_assert_int_eq(cpu_parse_list("1,", m, 8), -1);
	ck_assert_int_eq(cpu_parse_list("a", m, 8), -1);
	ck_assert_int_eq(cpu_parse_list("", m, 8), -1);
	ck_assert_int_eq(cpu_parse_list("1-", m, 8), -1);
}
END_TEST

/*
 * tracing_cpumask text: comma-separated 32-bit groups for any number of
 * CPUs (one 64-bit word dropped CPUs >= 64, and its 9 to 16 digits
 * without a comma the kernel refuses with EOVERFLOW).
 */
static char *mask_text(int n, const int *cpus, size_t k)
{
	unsigned char *m = calloc((size_t)n, 1);
	size_t len = cpu_mask_len(n);
	char *buf = malloc(len);

	for (size_t i = 0; i < k; i++)
		m[cpus[i]] = 1;
	ck_assert_int_eq(cpu_mask_format(m, n, buf, len), (int)len - 1);
	ck_assert_int_eq(cpu_mask_format(m, n, buf, len - 1), -ENOSPC);
	/* and back */
	ck_assert_int_eq(cpu_mask_parse(buf, m, n), (int)k);
	for (size_t i = 0; i < k; i++)
		ck_assert(m[cpus[i]]);
	free(m);
	return buf;
}

START_TEST(cpu_mask_text)
{
	static const int one[] = { 0 }, c33[] = { 0, 32 }, c512[] = { 0, 511 };
	static const int c8192[] = { 0, 31, 32, 4100, 8191 };
	int all65[65];
	char *s, want[2400];
	unsigned char m[64];

	for (int i = 0; i < 65; i++)
		all65[i] = i;
	s = mask_text(1, one, 1);
	ck_assert_str_eq(s, "1");
	free(s);
	s = mask_text(33, c33, 2);
	ck_assert_str_eq(s, "1,00000001");
	free(s);
	s = mask_text(33, c33 + 1, 1);
	ck_assert_str_eq(s, "1,00000000");
	free(s);
	s = mask_text(65, all65, 65);
	ck_assert_str_eq(s, "1,ffffffff,ffffffff");
	free(s);
	s = mask_text(40, all65 + 32, 8);	/* CPUs 32-39 */
	ck_assert_str_eq(s, "ff,00000000");
	free(s);
	s = mask_text(512, c512, 2);
	ck_assert_str_eq(s, "80000000,00000000,00000000,00000000,00000000,00000000,"
			 "00000000,00000000,00000000,00000000,00000000,00000000,"
			 "00000000,00000000,00000000,00000001");
	free(s);
	/* 8192 CPUs: 256 groups; CPU 4100 is bit 4 of group 128 */
	s = mask_text(8192, c8192, 5);
	ck_assert_uint_eq(strlen(s), 256 * 9 - 1);
	strcpy(want, "80000000,");
	for (int g = 254; g >= 2; g--)
		strcat(want, g == 128 ? "00000010," : "00000000,");
	strcat(want, "00000001,80000001");
	ck_assert_str_eq(s, want);
	ck_assert_str_eq(s + strlen(s) - 17, "00000001,80000001");
	free(s);
	ck_assert_int_eq(cpu_mask_format(m, 0, want, sizeof(want)), -EINVAL);

	/* what the kernel shows: a newline, leading groups, too many bits */
	ck_assert_int_eq(cpu_mask_parse("3\n", m, 2), 2);
	ck_assert_int_eq(cpu_mask_parse("00000000,00000003", m, 2), 2);
	ck_assert_int_eq(cpu_mask_parse("4", m, 2), -EOVERFLOW);
	ck_assert_int_eq(cpu_mask_parse("1,00000000", m, 32), -EOVERFLOW);
	ck_assert_int_eq(cpu_mask_parse("100000000", m, 64), -EINVAL);
	ck_assert_int_eq(cpu_mask_parse(",1", m, 64), -EINVAL);
	ck_assert_int_eq(cpu_mask_parse("1,,1", m, 64), -EINVAL);
	ck_assert_int_eq(cpu_mask_parse("x", m, 64), -EINVAL);
	ck_assert_int_eq(cpu_mask_parse("", m, 64), -EINVAL);
	ck_assert_int_eq(cpu_mask_parse("F,0000000a", m, 64), 6);
	ck_assert(m[1] && m[3] && m[32] && m[35] && !m[36] && !m[0]);
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
	tcase_add_test(tc, cpu_lists);
	tcase_add_test(tc, cpu_mask_text);
	tcase_add_test(tc, cpu_pinning);
	tcase_add_test(tc, net_loopback);
	suite_add_tcase(s, tc);
	return s;
}
