// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "cli.h"
#include "clishared.h"
#include "cpu.h"
#include "cpuset.h"
#include "hillclimb.h"

struct t_opts {
	uint16_t port;
	int have_port;
	uint64_t svc_ns;
	double rate;
	int cpu;
	int mode;
	int flag;
	const char *path;
	struct cli_hostport server;
	struct cstate_spec cs;
	int have_cs;
	struct hillclimb_cfg hc;
	uint32_t small;
	int counter;
};

static const char *const modes[] = { "spin", "sleep", "hybrid", NULL };

static int parse_even(const char *arg, void *dest)
{
	int v = atoi(arg);

	if (v % 2)
		return -1;
	*(int *)dest = v;
	return 0;
}

#define AT(f) CLI_AT(struct t_opts, f)

static const struct cli_opt t_options[] = {
	{ .name = "port", .short_name = 'p', .kind = CLI_UINT,
	  .store = CLI_U16, .arg = "PORT", .max = 65535,
	  .help = "the port", .off = AT(port), .seen = AT(have_port) },
	{ .name = "service-us", .kind = CLI_REAL, .arg = "US", .max = 1e7,
	  .scale = 1e3, .hint = CLI_RANGE, .help = "service\nsecond line",
	  .off = AT(svc_ns) },
	{ .name = "rate", .kind = CLI_REAL, .store = CLI_DOUBLE, .arg = "N",
	  .min = 0.5, .max = 1e9, .hint = "per second", .off = AT(rate),
	  .help = "rate" },
	CLI_OPT_CPU(struct t_opts, cpu, "pin"),
	{ .name = "wait", .kind = CLI_ENUM, .names = modes, .off = AT(mode),
	  .help = "how to wait, with a help text long enough" },
	{ .kind = CLI_TEXT, .help = "\nGroup:", .col = 20 },
	{ .name = "flag", .kind = CLI_FLAG, .off = AT(flag), .help = "a flag" },
	{ .name = "path", .short_name = 'o', .kind = CLI_STRING, .arg = "DIR",
	  .off = AT(path), .help = "where" },
	{ .name = "server", .kind = CLI_HOSTPORT, .arg = "HOST:PORT",
	  .hint = "HOST:PORT", .off = AT(server), .help = "server" },
	CLI_OPT_CSTATES(struct t_opts, cs, have_cs, "idle states"),
	CLI_OPTS_HILLCLIMB(struct t_opts, hc, "max-lead-us"),
	{ .name = "small", .kind = CLI_UINT, .store = CLI_U32, .arg = "N",
	  .min = 10, .max = 1048576, .hint = CLI_RANGE, .off = AT(small),
	  .help = "u32" },
	{ .name = "even", .kind = CLI_CUSTOM, .arg = "N", .parse = parse_even,
	  .off = AT(counter), .help = "an even number" },
	{ .name = "old-flag", .kind = CLI_FLAG, .hidden = 1, .off = AT(flag) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

static const struct cli_cmd t_cmd = {
	.prog = "wakebench-test",
	.usage = "Usage: wakebench test [options]",
	.about = "About it.\n",
	.footer = "The end.\n",
	.col = 24,
	.max_args = 1,
	.opts = t_options,
};

START_TEST(parse_every_kind)
{
	char *argv[] = {
		"prog", "-p", "8080", "--service-us", "2.5", "--rate", "1e3",
		"--cpu", "0", "--wait", "hybrid", "--flag", "-o", "/tmp/x",
		"--server", "[::1]:99", "--cstates", "max-latency-us=20",
		"--window", "7", "--max-lead-us", "500", "--small", "1048576",
		"--even", "42", "positional", NULL
	};
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 1;
	struct t_opts o = { .mode = -1 };
	int first;

	hillclimb_defaults(&o.hc);
	first = cli_parse(&t_cmd, argc, argv, &o);
	ck_assert_int_eq(first, argc - 1);
	ck_assert_str_eq(argv[first], "positional");
	ck_assert_uint_eq(o.port, 8080);
	ck_assert_int_eq(o.have_port, 1);
	ck_assert_uint_eq(o.svc_ns, 2500);
	ck_assert_double_eq(o.rate, 1000);
	ck_assert_int_eq(o.cpu, 0);
	ck_assert_int_eq(o.mode, 2);
	ck_assert_int_eq(o.flag, 1);
	ck_assert_str_eq(o.path, "/tmp/x");
	ck_assert_str_eq(o.server.host, "::1");
	ck_assert_uint_eq(o.server.port, 99);
	ck_assert_int_eq(o.have_cs, 1);
	ck_assert_int_eq(o.cs.mode, CSTATE_MAXLAT);
	ck_assert_uint_eq(o.cs.max_latency_us, 20);
	ck_assert_uint_eq(o.hc.window, 7);
	ck_assert_double_eq(o.hc.max_us, 500);
	ck_assert_double_eq(o.hc.step_us, 100);	/* untouched default */
	ck_assert_uint_eq(o.small, 1048576);
	ck_assert_int_eq(o.counter, 42);
}
END_TEST

START_TEST(parse_twice)
{
	/* A table parsed again starts from the first argument. */
	char *a1[] = { "prog", "--flag", NULL };
	char *a2[] = { "prog", "-p", "1", NULL };
	struct t_opts o = { 0 };

	cli_parse(&t_cmd, 2, a1, &o);
	cli_parse(&t_cmd, 3, a2, &o);
	ck_assert_int_eq(o.flag, 1);
	ck_assert_uint_eq(o.port, 1);
}
END_TEST

static void bad(const char *name, const char *arg, const char *want)
{
	const struct cli_opt *o = cli_find(&t_cmd, name);
	struct t_opts before = { .port = 7, .cpu = -1 }, t = before;
	char err[512];

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(cli_value(o, arg, &t, err, sizeof(err)), -1);
	ck_assert_str_eq(err, want);
	/* nothing stored, nothing marked given */
	ck_assert_int_eq(memcmp(&t, &before, sizeof(t)), 0);
}

START_TEST(bad_values_and_hints)
{
	char cpus[128];

	bad("port", "70000", "invalid --port '70000'");
	bad("port", "0x10", "invalid --port '0x10'");
	bad("port", "-1", "invalid --port '-1'");
	bad("service-us", "nan", "invalid --service-us 'nan' (0-1e7)");
	bad("service-us", "1e999", "invalid --service-us '1e999' (0-1e7)");
	bad("rate", "0.1", "invalid --rate '0.1' (per second)");
	bad("wait", "Spin", "invalid --wait 'Spin' (spin, sleep or hybrid)");
	bad("server", "nohostport", "invalid --server 'nohostport' (HOST:PORT)");
	bad("cstates", "bogus",
	    "invalid --cstates 'bogus' (on, off, max-latency-us=N, system-off or system-max-latency-us=N)");
	bad("window", "0", "invalid --window '0'");
	bad("small", "9", "invalid --small '9' (10-1048576)");
	bad("even", "3", "invalid --even '3'");
	snprintf(cpus, sizeof(cpus),
		 "invalid --cpu '%d' (this machine has CPUs 0-%d)",
		 cpu_count(), cpu_count() - 1);
	{
		char arg[16];

		snprintf(arg, sizeof(arg), "%d", cpu_count());
		bad("cpu", arg, cpus);
	}
	ck_assert_ptr_null(cli_find(&t_cmd, "bogus"));
	ck_assert_ptr_null(cli_find(&t_cmd, "cpus"));
}
END_TEST

/* A CPU list lands as a set of cpu_count() CPUs; a later one replaces
 * it; a bad one stores nothing and names the machine's CPUs. */
START_TEST(cpu_lists)
{
	static const struct cli_opt o = { .name = "cpus", .kind = CLI_CPUS,
					  .off = 1 };
	struct cpuset *mask = NULL;
	char err[256], want[64];
	int n = cpu_count();

	ck_assert_int_eq(cli_value(&o, "0", &mask, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(mask);
	ck_assert_int_eq(mask->n, n);
	ck_assert_int_eq(cpuset_test(mask, 0), 1);
	ck_assert_int_eq(cpuset_count(mask), 1);
	if (n > 1) {
		struct cpuset *old = mask;

		ck_assert_int_eq(cli_value(&o, "1", &mask, err, sizeof(err)), 0);
		ck_assert_ptr_ne(mask, old);
		ck_assert_int_eq(cpuset_test(mask, 0), 0);
		ck_assert_int_eq(cpuset_test(mask, 1), 1);
	}
	snprintf(want, sizeof(want), "invalid --cpus '%d' (CPUs 0-%d)", n,
		 n - 1);
	snprintf(err, sizeof(err), "x");
	{
		char arg[16];
		struct cpuset *keep = mask;

		snprintf(arg, sizeof(arg), "%d", n);
		ck_assert_int_eq(cli_value(&o, arg, &mask, err, sizeof(err)), -1);
		ck_assert_str_eq(err, want);
		ck_assert_ptr_eq(mask, keep);
		ck_assert_int_eq(cli_value(&o, "0-", &mask, err, sizeof(err)), -1);
	}
	cpuset_free(mask);
}
END_TEST

START_TEST(help_layout)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *want =
"Usage: wakebench test [options]\n"
"\n"
"About it.\n"
"\n"
"  -p, --port PORT       the port\n"
"      --service-us US   service\n"
"                        second line\n"
"      --rate N          rate\n"
"  -c, --cpu N           pin\n"
"      --wait spin|sleep|hybrid\n"
"                        how to wait, with a help text long enough\n"
"\n"
"Group:\n"
"      --flag        a flag\n"
"  -o, --path DIR    where\n"
"      --server HOST:PORT\n"
"                    server\n"
"      --cstates on|off|max-latency-us=N|system-off|system-max-latency-us=N\n"
"                    idle states\n"
"      --window N    adaptive window in replies (default 1000)\n"
"      --step-us US  adaptive initial step (default 100)\n"
"      --min-step-us US\n"
"                    adaptive step floor (default 3)\n"
"      --max-lead-us US\n"
"                    adaptive upper bound (default 1000000)\n"
"      --small N     u32\n"
"      --even N      an even number\n"
"  -h, --help        this help\n"
"\n"
"The end.\n";

	ck_assert_ptr_nonnull(f);
	cli_help(&t_cmd, f);
	fclose(f);
	ck_assert_str_eq(buf, want);
	/* an alias is parsed but not listed */
	ck_assert_ptr_null(strstr(buf, "old-flag"));
	ck_assert_ptr_nonnull(cli_find(&t_cmd, "old-flag"));
	free(buf);
}
END_TEST

/* A verb table: a verb's options, its count of arguments, its run. */
struct v_opts {
	int flag;
	const char *path;
};

static struct v_opts v_got;
static int v_nargs;
static char *v_first;

static int v_run(int nargs, char **args, void *opts)
{
	if (opts)
		v_got = *(struct v_opts *)opts;
	v_nargs = nargs;
	v_first = nargs ? args[0] : NULL;
	return 7;
}

static const struct cli_opt v_options[] = {
	{ .name = "flag", .kind = CLI_FLAG, .off = CLI_AT(struct v_opts, flag),
	  .help = "a flag" },
	{ .name = "path", .kind = CLI_STRING, .arg = "P",
	  .off = CLI_AT(struct v_opts, path), .help = "a path" },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

static struct v_opts v_base;

static const struct cli_verb v_verbs[] = {
	{ .name = "two", .run = v_run, .opts = v_options, .base = &v_base,
	  .min_args = 2, .max_args = 2, .args = "A B", .help = "two words" },
	{ .name = "many", .run = v_run, .min_args = 1, .max_args = -1,
	  .args = "X...", .help = "one or more" },
	{ .name = "raw", .run = v_run, .raw = 1, .help = "its own" },
	{ .name = NULL }
};

static const struct cli_verbs v_table = { .prog = "t-verbs", .verbs = v_verbs };

static int v_main(int argc, const char *const *words)
{
	static char buf[8][32];
	char *argv[9];

	for (int i = 0; i < argc; i++) {
		snprintf(buf[i], sizeof(buf[i]), "%s", words[i]);
		argv[i] = buf[i];
	}
	argv[argc] = NULL;
	return cli_verb_main(&v_table, argc, argv);
}

START_TEST(verbs_dispatch)
{
	const char *a[] = { "t", "two", "--flag", "x", "--path", "p", "y" };
	const char *b[] = { "t", "many", "1", "2", "3" };
	const char *c[] = { "t", "raw", "--anything", "goes" };

	ck_assert_int_eq(v_main(7, a), 7);
	ck_assert_int_eq(v_got.flag, 1);
	ck_assert_str_eq(v_got.path, "p");
	ck_assert_int_eq(v_nargs, 2);
	ck_assert_str_eq(v_first, "x");
	ck_assert_int_eq(v_main(5, b), 7);
	ck_assert_int_eq(v_nargs, 3);
	ck_assert_int_eq(v_main(4, c), 7);
	ck_assert_int_eq(v_nargs, 2);
	ck_assert_str_eq(v_first, "--anything");
	ck_assert_ptr_nonnull(cli_verb_find(&v_table, "many"));
	ck_assert_ptr_null(cli_verb_find(&v_table, "mani"));
}
END_TEST

/* usage errors: exit 2 (the forked test's exit status) */
START_TEST(verb_unknown)
{
	const char *a[] = { "t", "tow", "x", "y" };

	v_main(4, a);
}
END_TEST

START_TEST(verb_none)
{
	const char *a[] = { "t" };

	v_main(1, a);
}
END_TEST

START_TEST(verb_too_few)
{
	const char *a[] = { "t", "two", "x" };

	v_main(3, a);
}
END_TEST

START_TEST(verb_too_many)
{
	const char *a[] = { "t", "two", "x", "y", "z" };

	v_main(5, a);
}
END_TEST

START_TEST(verb_bad_option)
{
	const char *a[] = { "t", "many", "--flag", "x" };

	v_main(4, a);
}
END_TEST

START_TEST(verb_help)
{
	const char *a[] = { "t", "two", "--help" };

	/* the help itself is cli_help's, tested above */
	ck_assert_ptr_nonnull(freopen("/dev/null", "w", stdout));
	v_main(3, a);
}
END_TEST

Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, parse_every_kind);
	tcase_add_test(tc, parse_twice);
	tcase_add_test(tc, bad_values_and_hints);
	tcase_add_test(tc, help_layout);
	tcase_add_test(tc, cpu_lists);
	tcase_add_test(tc, verbs_dispatch);
	/* a usage error exits: only a forked test can see it (CK_FORK=no,
	 * as make asan runs, would end the whole run; t-collect checks the
	 * same exits through wakebench-internal there) */
	if (!getenv("CK_FORK") || strcmp(getenv("CK_FORK"), "no")) {
		tcase_add_exit_test(tc, verb_unknown, 2);
		tcase_add_exit_test(tc, verb_none, 2);
		tcase_add_exit_test(tc, verb_too_few, 2);
		tcase_add_exit_test(tc, verb_too_many, 2);
		tcase_add_exit_test(tc, verb_bad_option, 2);
		tcase_add_exit_test(tc, verb_help, 0);
	}
	suite_add_tcase(s, tc);
	return s;
}
