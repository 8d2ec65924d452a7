// SPDX-License-Identifier: GPL-2.0
/* lib/sweepcmd: a sweep run's command lines from its spec and plan line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "sweepcmd.h"
#include "sweepplan.h"
#include "sweepspec.h"

static char err[1024];

/* S resolved from spec TEXT on 2 CPUs */
static void spec(struct sweepspec *s, const char *text)
{
	ck_assert_int_eq(sweepspec_init(s), 0);
	ck_assert_int_eq(sweepspec_parse(s, text, strlen(text), "t.spec", SS_FILE, err,
					 sizeof(err)), 0);
	ck_assert_int_eq(sweepspec_resolve(s, 2, err, sizeof(err)), 0);
}

/* The steps of plan LINE of spec S in C; the line's storage in BUF. */
static void build(const struct sweepspec *s, const char *line, int trace,
		  struct sweepcmd *c)
{
	static char buf[4096];
	static struct sweepplan_run r;
	struct sweepcmd_in in = { .s = s, .r = &r, .wb = "wb", .rundir = "D",
				  .user = "u", .trace = trace };

	snprintf(buf, sizeof(buf), "%s", line);
	ck_assert_int_eq(sweepplan_parse_line(buf, &r, "plan.txt", 1, err, sizeof(err)), 0);
	ck_assert_msg(!sweepcmd_build(&in, c, err, sizeof(err)), "%s", err);
}

/* The words of W joined by spaces. */
static const char *joined(const struct sweepcmd_words *w)
{
	static char buf[8192];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < w->n; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "", w->w[i]);
	return buf;
}

/* The kinds of C's steps joined by spaces. */
static const char *kinds(const struct sweepcmd *c)
{
	static char buf[512];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->n; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "",
				      sweepcmd_kinds[c->step[i].kind]);
	return buf;
}

/* the first plan line of spec S with the words WANT in it */
static char *line_with(const struct sweepspec *s, const char *want1, const char *want2)
{
	static char buf[1 << 16];
	struct sweepplan p = { 0 };
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	char *l;

	ck_assert_int_eq(sweepplan_build(s, 1, 1, &p), 0);
	ck_assert_int_eq(sweepplan_write(&p, 0, f), 0);
	fclose(f);
	sweepplan_free(&p);
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (strstr(l, want1) && (!want2 || strstr(l, want2)))
			return l;
	ck_abort_msg("no plan line with %s %s", want1, want2 ? want2 : "");
	return NULL;
}

/*
 * Issue 35's mitigations: the governor around the first server tier
 * (through cstate governor, restored when it stops), the request
 * servers' busy polling; the pre-query receiver and real servers keep
 * their own loops.
 */
START_TEST(mitigations)
{
	struct sweepspec s;
	struct sweepcmd c;
	const char *a;

	spec(&s, "prequery = 20\nprequery_receiver = separate\nserver_cpu = 0\n"
		 "client_cpu = 1\nserver_busy_poll = yes\nso_busy_poll = 50\n"
		 "governor = ladder\n");
	build(&s, line_with(&s, "gov-ladder", "sobp-50"), 0, &c);
	ck_assert_str_eq(kinds(&c), "ports tier tier capture client");
	ck_assert_str_eq(joined(&c.step[1].argv),
			 "wb cstate governor ladder -- wb server --bind 127.0.0.1 --port 17000 "
			 "--busy-poll --so-busy-poll 50 --cpu 0 --cstates on --log D/server.csv "
			 "--port-file D/server.port -q");
	ck_assert_str_eq(c.step[2].name, "prequery-server");
	a = joined(&c.step[2].argv);
	ck_assert_msg(!strncmp(a, "wb server ", 10) && !strstr(a, "busy-poll"), "%s", a);
	sweepcmd_free(&c);
	sweepspec_free(&s);
	/* memcached: the governor outside the C-state limit; no busy poll */
	spec(&s, "backend = memcached\nserver_cpu = 0\nclient_cpu = 1\n"
		 "server_cstates = off\nserver_busy_poll = yes\ngovernor = menu\n");
	build(&s, line_with(&s, "gov-menu", NULL), 0, &c);
	a = joined(&c.step[1].argv);
	ck_assert_msg(!strncmp(a, "wb cstate governor menu -- wb cstate limit --max-latency-us 0 "
			       "--cpus 0 -- taskset -c 0 memcached ", 82), "%s", a);
	ck_assert_ptr_null(strstr(a, "busy-poll"));
	sweepcmd_free(&c);
	sweepspec_free(&s);
	/* the haltpoll window around the server; memcached's so_busy_poll
	 * through the sysctls (cstate busy-poll), on the first leaf only */
	spec(&s, "backend = memcached\nserver_cpu = 0\nclient_cpu = 1\ntiers = 3\n"
		 "leaves = 2\nso_busy_poll = 50\nhaltpoll_ns = 100000\n");
	build(&s, line_with(&s, "sobp-50", "hpns-100000"), 0, &c);
	a = joined(&c.step[1].argv);
	ck_assert_msg(!strncmp(a, "wb cstate haltpoll 100000 -- wb cstate busy-poll 50 -- "
			       "taskset -c 0 memcached ", 78), "%s", a);
	a = joined(&c.step[2].argv);
	ck_assert_msg(!strncmp(a, "taskset -c 0 memcached ", 23), "%s", a);
	sweepcmd_free(&c);
	sweepspec_free(&s);
	spec(&s, "server_cpu = 0\nclient_cpu = 1\nhaltpoll_ns = 5\nso_busy_poll = 50\n");
	build(&s, line_with(&s, "hpns-5", NULL), 0, &c);
	a = joined(&c.step[1].argv);
	ck_assert_msg(!strncmp(a, "wb cstate haltpoll 5 -- wb server ", 34) &&
		      strstr(a, " --so-busy-poll 50 ") && !strstr(a, "cstate busy-poll"), "%s", a);
	sweepcmd_free(&c);
	sweepspec_free(&s);
	/* the defaults, or a plan from before these keys: nothing added */
	spec(&s, "server_cpu = 0\nclient_cpu = 1\n");
	build(&s, "p 1 dist=exp interval_us=1000 prequery=off warmup=0 cstates=on "
	      "service_us=0 tiers=2 closed=no prequery_at=- prequery_ack=- "
	      "prequery_receiver=- warmup_mode=- timer_slack_ns=1 server_cstates=on "
	      "client_cstates=on midtier_cstates=- cpu=pinned delay=- work_us=- "
	      "helper_wait=- backend=wakebench", 0, &c);
	a = joined(&c.step[1].argv);
	ck_assert_msg(!strncmp(a, "wb server ", 10) && !strstr(a, "busy-poll"), "%s", a);
	sweepcmd_free(&c);
	sweepspec_free(&s);
}
END_TEST

/* two tiers, the defaults: the server, the capture, one client */
START_TEST(two_tiers)
{
	struct sweepspec s;
	struct sweepcmd c;

	spec(&s, "prequery = 20\nserver_cpu = 0\nclient_cpu = 1\n");
	build(&s, line_with(&s, "pq-20", NULL), 0, &c);
	ck_assert_str_eq(kinds(&c), "ports tier capture client");
	ck_assert_str_eq(joined(&c.step[0].argv), "17000 17001");
	ck_assert_str_eq(c.step[1].name, "server");
	ck_assert_str_eq(c.step[1].ready, "D/server.port");
	ck_assert_str_eq(c.step[1].want, "17000 17001");
	ck_assert_str_eq(c.step[1].pattern, "wakebench-server .*--port 17000( |$)");
	ck_assert_str_eq(joined(&c.step[1].argv),
			 "wb server --bind 127.0.0.1 --port 17000 --prequery-port 17001 --cpu 0 "
			 "--cstates on --log D/server.csv --port-file D/server.port -q");
	ck_assert_str_eq(joined(&c.step[2].argv),
			 "wb trace capture --out D/capture --cpu server=0 --");
	ck_assert_str_eq(joined(&c.step[3].argv),
			 "wb client --server 127.0.0.1:17000 --cpu 1 --dist exp --wait spin "
			 "--cstates on --timer-slack-ns 1 --percentile-rule nearest-rank "
			 "--service-us 0 --prequery-lead-us 20 --prequery-port 17001 "
			 "--prequery-at lead --interval-us 1000 --warmup 0 --seed 2 "
			 "--requests 1000 --out D/client -q");
	sweepcmd_free(&c);
	sweepspec_free(&s);
}
END_TEST

/* the thesis' layout: a second server for pre-queries; traced; unpinned */
START_TEST(separate_receiver)
{
	struct sweepspec s;
	struct sweepcmd c;

	spec(&s, "prequery = adaptive\nprequery_receiver = separate\nwindow = 20\n"
		 "cpu = none\nserver_cstates = off\nserver_exec = ip netns exec srv\n"
		 "duration = 2\n");
	build(&s, line_with(&s, "pq-adaptive", NULL), 1, &c);
	ck_assert_str_eq(kinds(&c), "ports tier tier capture client");
	ck_assert_str_eq(c.step[1].want, "17000");
	ck_assert_str_eq(joined(&c.step[1].argv),
			 "ip netns exec srv wb server --bind 127.0.0.1 --port 17000 "
			 "--cstates off --log D/server.csv --port-file D/server.port "
			 "--trace-markers -q");
	ck_assert_str_eq(c.step[2].name, "prequery-server");
	ck_assert_str_eq(joined(&c.step[2].argv),
			 "ip netns exec srv wb server --bind 127.0.0.1 --port 17001 "
			 "--prequery-only --log D/prequery-server.csv "
			 "--port-file D/prequery-server.port -q");
	ck_assert_str_eq(joined(&c.step[3].argv),
			 "wb trace capture --out D/capture --cpu server=none --");
	ck_assert_str_eq(joined(&c.step[4].argv),
			 "wb client --server 127.0.0.1:17000 --dist exp --wait spin "
			 "--timer-slack-ns 1 --percentile-rule nearest-rank --service-us 0 "
			 "--prequery-policy adaptive --window 20 --prequery-port 17001 "
			 "--prequery-at lead --interval-us 1000 --warmup 0 --seed 2 "
			 "--duration 2 --trace-markers --out D/client -q");
	sweepcmd_free(&c);
	sweepspec_free(&s);
}
END_TEST

/* three tiers, memcached leaves: C-states held, preloads, the midtier */
START_TEST(three_tiers_kv)
{
	struct sweepspec s;
	struct sweepcmd c;

	spec(&s, "tiers = 3\nbackend = memcached\nleaves = 2\nroute = all\n"
		 "server_cstates = max-latency-us=5\ndelay = 30\nserver_cpu = 0\n"
		 "client_cpu = 1\n");
	build(&s, line_with(&s, "be-memcached", NULL), 0, &c);
	ck_assert_str_eq(kinds(&c), "ports kv kv snapshot run run tier capture client");
	ck_assert_str_eq(joined(&c.step[0].argv), "17000 17003 17001 17002");
	ck_assert_str_eq(c.step[1].ready, "17000");
	ck_assert_str_eq(c.step[1].want, "memcached");
	ck_assert_str_eq(c.step[2].name, "server-1");
	ck_assert_str_eq(c.step[2].pattern, "^memcached .*(-p|--port) 17003( |$)");
	ck_assert_str_eq(joined(&c.step[2].argv),
			 "wb cstate limit --max-latency-us 5 --cpus 0 -- taskset -c 0 "
			 "memcached -p 17003 -l 127.0.0.1 -U 0 -t 1 -c 4096 -u u");
	ck_assert_str_eq(joined(&c.step[3].argv), "wb snapshot --role server --software");
	ck_assert_str_eq(c.step[3].ready, "D/server.snapshot.json");
	ck_assert_str_eq(c.step[5].ready, "preloading leaf 1");
	ck_assert_str_eq(joined(&c.step[5].argv),
			 "wb client --server 127.0.0.1:17003 --proto memcached --keys 10000 "
			 "--key-size 16 --value-size 64 --preload --requests 1 -q");
	ck_assert_str_eq(c.step[6].want, "17002");
	ck_assert_str_eq(joined(&c.step[6].argv),
			 "wb midtier --listen 17002 --bind 127.0.0.1 --backend 127.0.0.1:17000 "
			 "--backend 127.0.0.1:17003 --route all --proto memcached --cpu 1 "
			 "--helper-cpu 1 --helper-wait block --prequery-delay-us 30 --work-us 0 "
			 "--cstates on --log D/midtier.csv --summary D/midtier-summary.csv "
			 "--port-file D/midtier.port -q");
	ck_assert_str_eq(joined(&c.step[7].argv),
			 "wb trace capture --out D/capture --cpu server=0 --cpu midtier=1 --");
	/* behind a midtier the leaves were preloaded: the client does not */
	ck_assert_ptr_null(strstr(joined(&c.step[8].argv), "--preload"));
	ck_assert_ptr_nonnull(strstr(joined(&c.step[8].argv),
				     "--server 127.0.0.1:17002 --cpu 1 "));
	sweepcmd_free(&c);
	sweepspec_free(&s);
}
END_TEST

/* redis with two tiers: the client preloads; its pre-queries in-band */
START_TEST(redis_in_band)
{
	struct sweepspec s;
	struct sweepcmd c;

	spec(&s, "backend = redis\nprequery = 10\nserver_cstates = system-off\n");
	build(&s, line_with(&s, "be-redis", NULL), 0, &c);
	ck_assert_str_eq(kinds(&c), "ports kv snapshot capture client");
	ck_assert_str_eq(c.step[1].pattern, "^redis-server .*(-p|--port) 17000( |$)");
	ck_assert_str_eq(joined(&c.step[1].argv),
			 "wb cstate limit --max-latency-us 0 --system --cpus 0 -- taskset -c 0 "
			 "redis-server --port 17000 --bind 127.0.0.1 --save  --appendonly no "
			 "--protected-mode no --io-threads 1 --daemonize no --logfile ");
	ck_assert_ptr_nonnull(strstr(joined(&c.step[4].argv),
		"--key-dist uniform --preload --prequery-lead-us 10 --prequery-at lead "));
	sweepcmd_free(&c);
	sweepspec_free(&s);
}
END_TEST

/* several agents: shares, seeds, start times; markers on this kernel only */
START_TEST(agents)
{
	struct sweepspec s;
	struct sweepcmd c;
	static struct sweepplan_run r;
	char line[4096];
	struct sweepcmd_in in = { .s = &s, .r = &r, .wb = "wb", .rundir = "D",
				  .user = "u", .trace = 1 };

	spec(&s, "client_exec = | ip netns exec cli | ssh h\nrequests = 100\n"
		 "warmup = 10\nwarmup_interval_us = 50\nserver_cpu = 0\nclient_cpu = 1\n");
	snprintf(line, sizeof(line), "%s", line_with(&s, "wu-10", NULL));
	ck_assert_int_eq(sweepplan_parse_line(line, &r, "plan.txt", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(sweepcmd_build(&in, &c, err, sizeof(err)), 0);
	/* no CLIENT step: the agents' come with their start time */
	ck_assert_str_eq(kinds(&c), "ports tier capture");
	sweepcmd_free(&c);
	ck_assert_int_eq(sweepcmd_agents(&in, 1000000000LL, 500, 1, &c, err, sizeof(err)), 0);
	ck_assert_str_eq(kinds(&c), "agent agent agent");
	ck_assert_str_eq(c.step[0].ready, "D/client-1.err");
	ck_assert_str_eq(joined(&c.step[0].argv),
			 "wb client --server 127.0.0.1:17000 --cpu 1 --dist exp --wait spin "
			 "--cstates on --timer-slack-ns 1 --percentile-rule nearest-rank "
			 "--service-us 0 --warmup-mode schedule --interval-us 3000 --warmup 4 "
			 "--seed 2 --requests 34 "
			 "--warmup-interval-us 150 --start-at 1500000000 --trace-markers "
			 "-q --out D/client-1");
	ck_assert_ptr_nonnull(strstr(joined(&c.step[1].argv), "ip netns exec cli wb client "));
	ck_assert_ptr_nonnull(strstr(joined(&c.step[1].argv),
		"--seed 4294967298 --requests 33 --warmup-interval-us 150 "
		"--start-at 1501000000 --trace-markers -q --out D/client-2"));
	/* another host's kernel has no trace instance of ours */
	ck_assert_ptr_nonnull(strstr(joined(&c.step[2].argv),
		"--start-at 1502000000 -q --out D/client-3"));
	ck_assert_str_eq(c.step[2].argv.w[0], "ssh");
	sweepcmd_free(&c);
	/* without --start-at on an agent, and fewer requests than agents */
	ck_assert_int_eq(sweepcmd_agents(&in, 0, 0, 0, &c, err, sizeof(err)), 0);
	ck_assert_ptr_null(strstr(joined(&c.step[0].argv), "--start-at"));
	sweepcmd_free(&c);
	ck_assert_int_eq(sweepspec_set(&s, "requests", "2", SS_CLI), 0);
	ck_assert_int_eq(sweepcmd_agents(&in, 0, 0, 1, &c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "cannot share it among 3 client agents");
	sweepspec_free(&s);
}
END_TEST

/* what the script reads back, and what run-agents reads */
START_TEST(write_read)
{
	struct sweepspec s;
	struct sweepcmd c, d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	spec(&s, "backend = redis\n");
	build(&s, line_with(&s, "be-redis", NULL), 0, &c);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(sweepcmd_write(&c, f), 0);
	fclose(f);
	ck_assert_int_eq(sweepcmd_read(buf, len, &d), 0);
	ck_assert_uint_eq(d.n, c.n);
	for (size_t i = 0; i < c.n; i++) {
		ck_assert_int_eq(d.step[i].kind, c.step[i].kind);
		ck_assert_str_eq(d.step[i].pattern, c.step[i].pattern);
		ck_assert_str_eq(joined(&d.step[i].argv), joined(&c.step[i].argv));
		/* run-agents hands the list to execvp as it is */
		if (d.step[i].argv.n)
			ck_assert_ptr_null(d.step[i].argv.w[d.step[i].argv.n]);
	}
	sweepcmd_free(&d);
	/* a truncated list is refused, not half-read */
	ck_assert_int_eq(sweepcmd_read(buf, len - 3, &d), -EINVAL);
	ck_assert_int_eq(sweepcmd_read("tier\0a\0b\0c\0d\0x\0", 16, &d), -EINVAL);
	ck_assert_int_eq(sweepcmd_read("", 0, &d), 0);
	ck_assert_uint_eq(d.n, 0);
	free(buf);
	sweepcmd_free(&c);
	sweepspec_free(&s);
}
END_TEST

/* a legacy plan line lacks the newer dimensions: an error, not a guess */
START_TEST(missing_value)
{
	struct sweepspec s;
	struct sweepcmd c;
	static struct sweepplan_run r;
	char line[] = "dist-exp_int-1000_pq-off_wu-0_cs-on_svc-0 1 exp 1000 off 0 on 0";
	struct sweepcmd_in in = { .s = &s, .r = &r, .wb = "wb", .rundir = "D", .user = "u" };
	struct sweepcmd_words w = { 0 };

	spec(&s, "");
	ck_assert_int_eq(sweepplan_parse_line(line, &r, "plan.txt", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(sweepcmd_build(&in, &c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "plan line for dist-exp_int-1000_pq-off_wu-0_cs-on_svc-0 has no tiers");
	ck_assert_int_eq(sweepcmd_split("  ssh\t-p 22  host ", &w), 0);
	ck_assert_str_eq(joined(&w), "ssh -p 22 host");
	ck_assert_ptr_null(w.w[w.n]);
	for (size_t i = 0; i < w.n; i++)
		free(w.w[i]);
	free(w.w);
	sweepspec_free(&s);
}
END_TEST

/* an agent's error: its last line that is not a --help hint */
START_TEST(agent_errors)
{
	char b[256];
	const char *t1 = "wakebench-client: cannot connect\nTry 'wakebench-client --help'.\n";
	const char *t2 = "wakebench-client: --start-at is in the past\n";

	sweepcmd_agent_err(t1, strlen(t1), b, sizeof(b));
	ck_assert_str_eq(b, "wakebench-client: cannot connect");
	sweepcmd_agent_err(t2, strlen(t2), b, sizeof(b));
	ck_assert_str_eq(b, "wakebench-client: --start-at is in the past "
			 "(a start margin too short: raise --start-margin-ms)");
	sweepcmd_agent_err("", 0, b, sizeof(b));
	ck_assert_str_eq(b, "no message");
	sweepcmd_agent_err("Try 'x'\n", 8, b, sizeof(b));
	ck_assert_str_eq(b, "no message");
	sweepcmd_agent_err("last words", 10, b, 5);
	ck_assert_str_eq(b, "last");
}
END_TEST

Suite *sweepcmd_suite(void)
{
	Suite *s = suite_create("sweepcmd");
	TCase *t = tcase_create("core");

	tcase_add_test(t, two_tiers);
	tcase_add_test(t, mitigations);
	tcase_add_test(t, separate_receiver);
	tcase_add_test(t, three_tiers_kv);
	tcase_add_test(t, redis_in_band);
	tcase_add_test(t, agents);
	tcase_add_test(t, write_read);
	tcase_add_test(t, missing_value);
	tcase_add_test(t, agent_errors);
	suite_add_tcase(s, t);
	return s;
}
