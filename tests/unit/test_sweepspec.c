// SPDX-License-Identifier: GPL-2.0
/* lib/sweepspec: the sweep's spec; lib/portheld: who holds a port (ss). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "portheld.h"
#include "fake_sysfs.h"
#include "sweepspec.h"

static char err[512];

/* S resolved from spec TEXT (may be NULL) and CLI pairs, on NCPUS */
static int resolve(struct sweepspec *s, const char *text, const char *const *cli,
		   int ncpus)
{
	int ret;

	ck_assert_int_eq(sweepspec_init(s), 0);
	err[0] = '\0';
	if (text) {
		ret = sweepspec_parse(s, text, strlen(text), "t.spec", SS_FILE, err,
				      sizeof(err));
		if (ret)
			return ret;
	}
	for (; cli && cli[0]; cli += 2)
		ck_assert_int_eq(sweepspec_set(s, cli[0], cli[1], SS_CLI), 0);
	return sweepspec_resolve(s, ncpus, err, sizeof(err));
}

static const char *get(struct sweepspec *s, const char *key)
{
	return s->val[sweepspec_key(key)];
}

/* issue 35: the new dimensions' words, and what this machine can apply */
START_TEST(mitigation_values)
{
	struct sweepspec s;

	ck_assert_int_eq(resolve(&s, "governor = menu teo\nso_busy_poll = 0 50\n"
				 "server_busy_poll = no yes\n", NULL, 2), 0);
	ck_assert_str_eq(get(&s, "governor"), "menu teo");
	ck_assert_str_eq(get(&s, "so_busy_poll"), "0 50");
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, NULL, NULL, 2), 0);
	ck_assert_str_eq(get(&s, "governor"), "-");	/* as it is */
	ck_assert_str_eq(get(&s, "server_busy_poll"), "no");
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, "governor = Menu\n", NULL, 2), -EINVAL);
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, "governor = a/b\n", NULL, 2), -EINVAL);
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, "so_busy_poll = 1000001\n", NULL, 2), -EINVAL);
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, "server_busy_poll = maybe\n", NULL, 2), -EINVAL);
	sweepspec_free(&s);
	/* a machine whose kernel lists menu and teo */
	fake_sysfs_create(2, 2);
	fake_sysfs_put("devices/system/cpu/cpuidle/available_governors", "menu teo\n");
	ck_assert_int_eq(resolve(&s, NULL, NULL, 2), 0);
	ck_assert_int_eq(sweepspec_here(&s, SWEEPDIM_GOVERNOR, "teo", err, sizeof(err)), 0);
	ck_assert_int_eq(sweepspec_here(&s, SWEEPDIM_GOVERNOR, "-", err, sizeof(err)), 0);
	ck_assert_int_eq(sweepspec_here(&s, SWEEPDIM_GOVERNOR, "ladder", err, sizeof(err)),
			 -EOPNOTSUPP);
	ck_assert_str_eq(err, "governor 'ladder' cannot be applied here: this kernel's cpuidle "
			 "available_governors are menu teo");
	ck_assert_int_eq(sweepspec_here(&s, SWEEPDIM_DIST, "nonsense", err, sizeof(err)), 0);
	sweepspec_free(&s);
	/* through --server-exec: another host's, not checked here */
	ck_assert_int_eq(resolve(&s, "server_exec = ip netns exec srv\n", NULL, 2), 0);
	ck_assert_int_eq(sweepspec_here(&s, SWEEPDIM_GOVERNOR, "ladder", err, sizeof(err)), 0);
	sweepspec_free(&s);
	fake_sysfs_destroy();
}
END_TEST

START_TEST(defaults)
{
	struct sweepspec s;

	ck_assert_int_eq(resolve(&s, NULL, NULL, 4), 0);
	ck_assert_str_eq(get(&s, "dist"), "exp");
	ck_assert_str_eq(get(&s, "interval-us"), "1000");
	ck_assert_str_eq(get(&s, "requests"), "1000");
	ck_assert_str_eq(get(&s, "reps"), "5");
	ck_assert_str_eq(get(&s, "server-port"), "17000");
	ck_assert_str_eq(get(&s, "server-bind"), "127.0.0.1");
	ck_assert_str_eq(get(&s, "server-cpu"), "0");
	ck_assert_str_eq(get(&s, "client-cpu"), "1");
	ck_assert_str_eq(get(&s, "server-exec"), "");
	sweepspec_free(&s);
}
END_TEST

START_TEST(cpus)
{
	struct sweepspec s;
	const char *const c0[] = { "client-cpu", "0", NULL };
	const char *const s3[] = { "server-cpu", "3", NULL };

	ck_assert_int_eq(resolve(&s, NULL, c0, 2), 0);
	ck_assert_str_eq(get(&s, "server-cpu"), "1");
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, NULL, s3, 4), 0);
	ck_assert_str_eq(get(&s, "client-cpu"), "0");
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, NULL, s3, 2), -EINVAL);
	ck_assert_str_eq(err, "invalid server_cpu '3' (a CPU number below 2)");
	sweepspec_free(&s);
}
END_TEST

START_TEST(spec_text)
{
	struct sweepspec s;
	const char *text = "# a comment\n\n  dist = fixed   exp # trailing\n"
			   "interval_us=500\r\n service-us = 5\nreps = 2\n";
	const char *const cli[] = { "reps", "3", NULL };

	ck_assert_int_eq(resolve(&s, text, cli, 2), 0);
	ck_assert_str_eq(get(&s, "dist"), "fixed exp");
	ck_assert_str_eq(get(&s, "interval-us"), "500");
	ck_assert_str_eq(get(&s, "service-us"), "5");
	ck_assert_str_eq(get(&s, "reps"), "3");	/* the command line wins */
	ck_assert_int_eq(s.src[SK_REPS], SS_CLI);
	ck_assert_int_eq(s.src[SK_DIST], SS_FILE);
	ck_assert_int_eq(s.src[SK_SEED], SS_DEFAULT);
	sweepspec_free(&s);
}
END_TEST

START_TEST(spec_errors)
{
	struct sweepspec s;

	ck_assert_int_eq(resolve(&s, "dist = exp\nbogus = 1\n", NULL, 2), -EINVAL);
	ck_assert_str_eq(err, "t.spec:2: unknown key 'bogus'");
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, "\n\ndist exp\n", NULL, 2), -EINVAL);
	ck_assert_str_eq(err, "t.spec:3: expected 'key = values'");
	sweepspec_free(&s);
	ck_assert_int_eq(sweepspec_init(&s), 0);
	ck_assert_int_eq(sweepspec_parse(&s, "dist = e\0xp\n", 12, "t.spec", SS_FILE,
					 err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.spec:1: a NUL byte");
	sweepspec_free(&s);
}
END_TEST

/* The messages t-sweep-input relies on: exit 2 naming key and value. */
START_TEST(invalid_values)
{
	static const struct { const char *key, *val, *msg; } cases[] = {
		{ "server-addr", "127.0.0.1/1;id;#",
		  "invalid server_addr '127.0.0.1/1;id;#' (an IP address or host name)" },
		{ "server-addr", "127.0.0.1/1;touch x;#",
		  "invalid server_addr '127.0.0.1/1;touch x;#' (one value expected)" },
		{ "server-bind", "$(x)", "invalid server_bind '$(x)'" },
		{ "seed", "1.5", "invalid seed '1.5' (a whole number)" },
		{ "seed", "010", "invalid seed '010'" },
		{ "reps", "0", "invalid reps '0'" },
		{ "reps", "2 3", "invalid reps '2 3' (one value expected)" },
		{ "requests", "1e3", "invalid requests '1e3'" },
		{ "window", "-1", "invalid window '-1'" },
		{ "wait", "spin;x", "invalid wait 'spin;x'" },
		{ "cstates", "on max-latency-us=1;x", "invalid cstates 'max-latency-us=1;x'" },
		{ "server-port", "65535", "invalid server_port '65535'" },
		{ "interval-us", "*", "invalid interval_us '*'" },
		{ "rate", "0", "invalid rate '0' (requests per second, above 0)" },
		{ "warmup", "1.5", "invalid warmup '1.5'" },
		{ "dist", "", "invalid dist '' (an empty list)" },
		/* issue 36: laws with parameters, checked as the client does */
		{ "dist", "exp onoff:5", "invalid dist 'onoff:5'" },
		{ "dist", "pareto:1", "invalid dist 'pareto:1'" },
		{ "warmup-dist", "fb-etc", "invalid warmup_dist 'fb-etc'" },
		{ "prequery", " ", "invalid prequery ' ' (an empty list)" },
		{ "server-exec", "ssh x # y", "invalid server_exec 'ssh x # y'" },
		{ "client-exec", "a\nb", "invalid client_exec 'a\nb'" },
		{ "backend", "memcached mysql", "invalid backend 'mysql' (wakebench, memcached or redis)" },
		{ "leaves", "65", "invalid leaves '65'" },
		{ "leaves", "2", "leaves 2 needs tiers 3" },
		{ "route", "random", "invalid route 'random' (hash or all)" },
		{ "get-ratio", "1.5", "invalid get_ratio '1.5'" },
		{ "key-size", "2", "invalid key_size '2'" },
		{ "key-size", "5", "key_size 5 cannot hold 10000 keys" },
		{ "value-size", "1048577", "invalid value_size '1048577'" },
		{ "key-dist", "zipf:0", "invalid key_dist 'zipf:0' (uniform or zipf:S (0 < S <= 10))" },
		{ "preload", "maybe", "invalid preload 'maybe' (no or yes)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct sweepspec s;
		const char *const cli[] = { cases[i].key, cases[i].val, NULL };

		ck_assert_msg(resolve(&s, NULL, cli, 2) == -EINVAL, "%s '%s' accepted",
			      cases[i].key, cases[i].val);
		ck_assert_msg(!strncmp(err, cases[i].msg, strlen(cases[i].msg)),
			      "%s: '%s'", cases[i].key, err);
		sweepspec_free(&s);
	}
}
END_TEST

START_TEST(valid_values)
{
	struct sweepspec s;
	const char *const cli[] = {
		"cstates", "on off system-off max-latency-us=10 system-max-latency-us=0",
		"prequery", "off adaptive 20 2.5", "dist", "fixed exponential poisson fb-etc onoff:5,20 mmpp:1,10,5,50",
		"server-addr", "fe80::1", "server-port", "65534", "seed", "0",
		"server-exec", "ip netns\texec  srv", NULL,
	};

	ck_assert_int_eq(resolve(&s, NULL, cli, 2), 0);
	ck_assert_str_eq(get(&s, "server-bind"), "fe80::1");
	ck_assert_str_eq(get(&s, "server-exec"), "ip netns exec srv");
	sweepspec_free(&s);
}
END_TEST

START_TEST(rate)
{
	struct sweepspec s;
	const char *const r[] = { "rate", "1000 3", NULL };
	const char *const both[] = { "rate", "1000", "interval-us", "5", NULL };

	ck_assert_int_eq(resolve(&s, NULL, r, 2), 0);
	ck_assert_str_eq(get(&s, "interval-us"), "1000 333333.3333");
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, NULL, both, 2), -EINVAL);
	ck_assert_str_eq(err, "give --interval-us or --rate, not both");
	sweepspec_free(&s);
	/* in a spec file, the rate wins (as before) */
	ck_assert_int_eq(resolve(&s, "rate = 500\ninterval-us = 7\n", NULL, 2), 0);
	ck_assert_str_eq(get(&s, "interval-us"), "2000");
	sweepspec_free(&s);
}
END_TEST

/* write, read back, resolve: the same spec (what --resume relies on) */
START_TEST(round_trip)
{
	struct sweepspec s, t;
	const char *const cli[] = { "rate", "300", "dist", " fixed  exp ",
				    "client-exec", "ip netns exec c", NULL };
	char *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;
	FILE *f;

	ck_assert_int_eq(resolve(&s, NULL, cli, 2), 0);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(sweepspec_write(&s, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "client-cpu = 1\nclient-cstates = \nclient-exec = ip netns exec c\n"));
	ck_assert_ptr_nonnull(strstr(buf, "dist = fixed exp\n"));
	ck_assert_ptr_nonnull(strstr(buf, "server-cpu = 0\n"));
	ck_assert_int_eq(resolve(&t, buf, NULL, 2), 0);
	f = open_memstream(&buf2, &len2);
	ck_assert_int_eq(sweepspec_write(&t, f), 0);
	fclose(f);
	ck_assert_str_eq(buf, buf2);
	ck_assert_int_eq(sweepspec_compare(&s, &t, err, sizeof(err)), 0);
	free(buf);
	free(buf2);
	sweepspec_free(&s);
	sweepspec_free(&t);
}
END_TEST

START_TEST(compare)
{
	struct sweepspec rec, g;
	const char *const r[] = { "requests", "20", "dist", "fixed exp", NULL };

	ck_assert_int_eq(resolve(&rec, NULL, r, 2), 0);
	/* nothing given: fine; same values (other spacing): fine */
	ck_assert_int_eq(sweepspec_init(&g), 0);
	ck_assert_int_eq(sweepspec_compare(&rec, &g, err, sizeof(err)), 0);
	ck_assert_int_eq(sweepspec_set(&g, "dist", "fixed   exp", SS_CLI), 0);
	ck_assert_int_eq(sweepspec_set(&g, "requests", "20", SS_FILE), 0);
	ck_assert_int_eq(sweepspec_compare(&rec, &g, err, sizeof(err)), 0);
	/* a different value: named, with both values */
	ck_assert_int_eq(sweepspec_set(&g, "requests", "30", SS_CLI), 0);
	ck_assert_int_eq(sweepspec_compare(&rec, &g, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "requests: recorded '20', given '30'");
	/* a default given explicitly is compared too */
	ck_assert_int_eq(sweepspec_set(&g, "requests", "20", SS_CLI), 0);
	ck_assert_int_eq(sweepspec_set(&g, "server_cpu", "1", SS_CLI), 0);
	ck_assert_int_eq(sweepspec_compare(&rec, &g, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "server-cpu: recorded '0', given '1'");
	sweepspec_free(&g);
	sweepspec_free(&rec);
}
END_TEST

START_TEST(keys)
{
	ck_assert_int_eq(sweepspec_key("interval_us"), SK_INTERVAL_US);
	ck_assert_int_eq(sweepspec_key("interval-us"), SK_INTERVAL_US);
	ck_assert_int_eq(sweepspec_key("interval"), -1);
	ck_assert_int_eq(sweepspec_key("interval-us-x"), -1);
	ck_assert_int_eq(sweepspec_key(""), -1);
	ck_assert_str_eq(sweepspec_name(SK_SERVER_PORT), "server-port");
}
END_TEST

START_TEST(port_holders)
{
	const char *ss =
		"tcp LISTEN 0 128 0.0.0.0:2024 0.0.0.0:*\n"
		"tcp LISTEN 0 8 127.0.0.1:17000 0.0.0.0:* users:((\"python3\",pid=4242,fd=3))\n"
		"udp UNCONN 0 0 [::1]:17001 [::]:* users:((\"wakebench-serve\",pid=7,fd=4),(\"x\",pid=8,fd=5))\n"
		"tcp LISTEN 0 8 127.0.0.53%lo:53 0.0.0.0:* users:((\"resolved\",pid=9,fd=1))\n"
		"garbage\n";
	char who[256];

	ck_assert_int_eq(portheld_find(ss, 17000, who, sizeof(who)), 1);
	ck_assert_str_eq(who, "tcp 127.0.0.1:17000 held by python3 (pid 4242)");
	ck_assert_int_eq(portheld_find(ss, 17001, who, sizeof(who)), 1);
	ck_assert_str_eq(who, "udp [::1]:17001 held by wakebench-serve (pid 7) and 1 more");
	ck_assert_int_eq(portheld_find(ss, 2024, who, sizeof(who)), 1);
	ck_assert_str_eq(who, "tcp 0.0.0.0:2024 held by an unknown process");
	ck_assert_int_eq(portheld_find(ss, 53, who, sizeof(who)), 1);
	/* 1700 is a prefix of 17000, 170001 not a port; the peer column is not ours */
	ck_assert_int_eq(portheld_find(ss, 1700, who, sizeof(who)), 0);
	ck_assert_int_eq(portheld_find(ss, 128, who, sizeof(who)), 0);
	ck_assert_int_eq(portheld_find("", 17000, who, sizeof(who)), 0);
	ck_assert_int_eq(portheld_find("tcp LISTEN 0 8 *:17000 *:* users:((\"a\x01" "b\",pid=1,fd=2))",
				       17000, who, sizeof(who)), 1);
	ck_assert_str_eq(who, "tcp *:17000 held by a?b (pid 1)");
}
END_TEST

/* The thesis' keys: their checks, defaults and the rules between them. */
START_TEST(thesis_keys)
{
	struct sweepspec s, rec, g;
	const char *const bad[][2] = {
		{ "tiers", "4" }, { "closed", "maybe" }, { "prequery-at", "early" },
		{ "prequery-receiver", "both" }, { "warmup-mode", "slow" },
		{ "timer-slack-ns", "0" }, { "percentile-rule", "p" },
		{ "server-cstates", "sometimes" }, { "cpu", "0" }, { "delay", "-5" },
		{ "work-us", "x" }, { "helper-wait", "sleep" }, { "midtier-cpu", "2" },
		{ "duration", "0" }, { "turbostat-show", "Busy%;rm" },
		{ "warmup-interval-us", "0" }, { "warmup-dist", "zipf" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const cli[] = { bad[i][0], bad[i][1], NULL };

		ck_assert_msg(resolve(&s, NULL, cli, 2) == -EINVAL, "accepted %s '%s'",
			      bad[i][0], bad[i][1]);
		ck_assert(!strncmp(err, "invalid ", 8));
		sweepspec_free(&s);
	}
	/* the midtier and its helper share the client's CPU by default */
	ck_assert_int_eq(resolve(&s, "tiers = 2 3\ndelay = off 50 adaptive\n", NULL, 2), 0);
	ck_assert_str_eq(get(&s, "midtier-cpu"), "1");
	ck_assert_str_eq(get(&s, "helper-cpu"), "1");
	ck_assert_str_eq(get(&s, "tiers"), "2 3");
	sweepspec_free(&s);
	/* three tiers need PORT+2 */
	ck_assert_int_eq(resolve(&s, "tiers = 3\nserver_port = 65534\n", NULL, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "server_port must be at most 65533"));
	sweepspec_free(&s);
	/* cstates given while every tier has its own list: refused */
	ck_assert_int_eq(resolve(&s, "cstates = off\nserver_cstates = on\n"
				 "client_cstates = on\nmidtier_cstates = on\n", NULL, 2),
			 -EINVAL);
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, "cstates = off\nserver_cstates = on off\n", NULL, 2), 0);
	sweepspec_free(&s);
	/* a cstates list no tier uses would only repeat runs */
	ck_assert_int_eq(resolve(&s, "cstates = on off\nserver_cstates = on\nclient_cstates = on\n",
				 NULL, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "is not used"));
	sweepspec_free(&s);
	/* the midtier shares the client's CPU: one C-state setting there */
	ck_assert_int_eq(resolve(&s, "tiers = 3\nclient_cstates = on\nmidtier_cstates = off\n",
				 NULL, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "the midtier shares CPU 1 with the client"));
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, "tiers = 3\nclient_cstates = on\nmidtier_cstates = on\n"
				 "server_cstates = on off\n", NULL, 2), 0);
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, "tiers = 3\nclient_cstates = on\nmidtier_cstates = off\n"
				 "midtier_cpu = 0\nserver_cstates = off\n", NULL, 2), 0);
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, "tiers = 3\nmidtier_cpu = 0\nserver_cstates = on off\n",
				 NULL, 2), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "with the server"));
	sweepspec_free(&s);
	/* --resume: more reps is allowed (the plan grows), fewer is not */
	ck_assert_int_eq(resolve(&rec, "reps = 3\n", NULL, 2), 0);
	ck_assert_int_eq(sweepspec_init(&g), 0);
	ck_assert_int_eq(sweepspec_set(&g, "reps", "5", SS_CLI), 0);
	ck_assert_int_eq(sweepspec_compare(&rec, &g, err, sizeof(err)), 0);
	ck_assert_int_eq(sweepspec_set(&g, "reps", "2", SS_CLI), 0);
	ck_assert_int_eq(sweepspec_compare(&rec, &g, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "reps: recorded '3', given '2'");
	sweepspec_free(&g);
	sweepspec_free(&rec);
}
END_TEST

/* client-exec: one prefix per agent, '|' between two (issue 19) */
START_TEST(agents)
{
	struct sweepspec s;
	const char *const two[] = { "client-exec", "ssh  a |ssh b -p 2", NULL };
	const char *const local[] = { "client-exec", " | ip netns exec c", NULL };
	const char *const few[] = { "client-exec", "| |", "requests", "2", NULL };
	const char *const dur[] = { "client-exec", "| |", "requests", "2",
				    "duration", "1", NULL };
	const char *const srv[] = { "server-exec", "ssh a | ssh b", NULL };
	const char *const margin[] = { "start-margin-ms", "0", NULL };
	char buf[64], many[256] = "";

	ck_assert_int_eq(resolve(&s, NULL, NULL, 2), 0);
	ck_assert_int_eq(sweepspec_agents(&s), 1);
	ck_assert_int_eq(sweepspec_agent_exec(&s, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(sweepspec_agent_exec(&s, 1, buf, sizeof(buf)), -ENOENT);
	ck_assert_str_eq(get(&s, "start-margin-ms"), "auto");
	sweepspec_free(&s);
	/* "ssh  a |ssh b": '|' is a word of its own, not a character */
	ck_assert_int_eq(resolve(&s, NULL, two, 2), 0);
	ck_assert_int_eq(sweepspec_agents(&s), 1);
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, "client-exec = ssh a | ssh b -p 2\n", NULL, 2), 0);
	ck_assert_int_eq(sweepspec_agents(&s), 2);
	ck_assert_int_eq(sweepspec_agent_exec(&s, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ssh a");
	ck_assert_int_eq(sweepspec_agent_exec(&s, 1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ssh b -p 2");
	ck_assert_int_eq(sweepspec_agent_exec(&s, 1, buf, 5), -ENAMETOOLONG);
	sweepspec_free(&s);
	/* an empty prefix: that agent runs on this host */
	ck_assert_int_eq(resolve(&s, NULL, local, 2), 0);
	ck_assert_int_eq(sweepspec_agents(&s), 2);
	ck_assert_int_eq(sweepspec_agent_exec(&s, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(sweepspec_agent_exec(&s, 1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ip netns exec c");
	sweepspec_free(&s);
	/* each agent measures a request at least; a duration is each's */
	ck_assert_int_eq(resolve(&s, NULL, few, 2), -EINVAL);
	ck_assert_str_eq(err, "requests 2 is fewer than the 3 client agents (client_exec): each measures its share");
	sweepspec_free(&s);
	ck_assert_int_eq(resolve(&s, NULL, dur, 2), 0);
	ck_assert_int_eq(sweepspec_agents(&s), 3);
	sweepspec_free(&s);
	/* the server side is one prefix */
	ck_assert_int_eq(resolve(&s, NULL, srv, 2), -EINVAL);
	ck_assert_str_eq(err, "invalid server_exec 'ssh a | ssh b' (one command prefix: '|' separates client agents, in client_exec only)");
	sweepspec_free(&s);
	for (int i = 0; i < 64; i++)
		strcat(many, "| ");
	{
		const char *const m[] = { "client-exec", many, NULL };

		ck_assert_int_eq(resolve(&s, NULL, m, 2), -EINVAL);
		ck_assert_ptr_nonnull(strstr(err, "(at most 64 client agents)"));
		sweepspec_free(&s);
	}
	ck_assert_int_eq(resolve(&s, NULL, margin, 2), -EINVAL);
	ck_assert_str_eq(err, "invalid start_margin_ms '0' (auto or a whole number of ms, at least 1)");
	sweepspec_free(&s);
}
END_TEST

Suite *sweepspec_suite(void)
{
	Suite *s = suite_create("sweepspec");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, mitigation_values);
	tcase_add_test(tc, cpus);
	tcase_add_test(tc, spec_text);
	tcase_add_test(tc, spec_errors);
	tcase_add_test(tc, invalid_values);
	tcase_add_test(tc, valid_values);
	tcase_add_test(tc, rate);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, compare);
	tcase_add_test(tc, keys);
	tcase_add_test(tc, port_holders);
	tcase_add_test(tc, thesis_keys);
	tcase_add_test(tc, agents);
	suite_add_tcase(s, tc);
	return s;
}
