// SPDX-License-Identifier: GPL-2.0
/* lib/sweepplan: a sweep's runs from its spec; lib/irqstat: /proc/interrupts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "fake_sysfs.h"
#include "irqstat.h"
#include "residency.h"
#include "sweepcsv.h"
#include "sweepdim.h"
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

static const char *val(const struct sweepplan_run *r, const char *dim)
{
	return r->val[sweepplan_dim(dim)];
}

/* the plan's text for reps 1..REPS, unshuffled */
static char *plan_text(const struct sweepspec *s, unsigned long reps,
		       struct sweepplan *p)
{
	static char buf[65536];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	memset(p, 0, sizeof(*p));
	ck_assert_int_eq(sweepplan_build(s, 1, reps, p), 0);
	ck_assert_int_eq(sweepplan_write(p, 0, f), 0);
	fclose(f);
	return buf;
}

/*
 * Issue 35's --skip-unsupported: a point whose governor the kernel lacks
 * or whose haltpoll window has no haltpoll driver leaves the plan, noted
 * once with why; the notes read back; a plan with notes is still its
 * spec's plan (--resume), and one whose notes do not match is not.
 */
START_TEST(skip_unsupported)
{
	struct sweepspec s;
	struct sweepplan p = { 0 };
	struct sweepplan_skips sk = { 0 }, back = { 0 };
	char buf[65536];
	FILE *f;

	fake_sysfs_create(2, 2);
	fake_sysfs_put("devices/system/cpu/cpuidle/available_governors", "menu teo\n");
	spec(&s, "governor = menu ladder\nhaltpoll_ns = - 100\nskip_unsupported = yes\nreps = 2\n");
	ck_assert_int_eq(sweepplan_build(&s, 1, 2, &p), 0);
	ck_assert_uint_eq(p.n, 8);
	ck_assert_int_eq(sweepplan_skip_unsupported(&s, &p, 0, &sk), 0);
	ck_assert_uint_eq(p.n, 2);
	ck_assert_str_eq(val(&p.run[0], "governor"), "menu");
	ck_assert_str_eq(val(&p.run[0], "haltpoll_ns"), "-");
	ck_assert_uint_eq(sk.n, 3);
	ck_assert_str_eq(sk.v[0].why, "haltpoll_ns 100 cannot be applied here: the cpuidle "
			 "driver is fake_idle, not haltpoll");
	ck_assert_ptr_nonnull(strstr(sk.v[1].point, "_gov-ladder"));
	ck_assert_ptr_nonnull(strstr(sk.v[1].why, "governor 'ladder' cannot be applied here"));
	f = fmemopen(buf, sizeof(buf), "w");
	ck_assert_int_eq(sweepplan_write_skips(&sk, f), 0);
	ck_assert_int_eq(sweepplan_write(&p, 0, f), 0);
	fclose(f);
	ck_assert_int_eq(strncmp(buf, "# unsupported dist-exp_int-1000_pq-off_wu-0_cs-on_svc-0_"
				 "gov-menu_hpns-100: haltpoll_ns 100", 85), 0);
	ck_assert_int_eq(sweepplan_read_skips(buf, strlen(buf), &back), 0);
	ck_assert_uint_eq(back.n, 3);
	ck_assert_str_eq(back.v[2].point, sk.v[2].point);
	ck_assert_str_eq(back.v[2].why, sk.v[2].why);
	ck_assert_msg(!sweepplan_check(&s, buf, strlen(buf), "plan.txt", err, sizeof(err)), "%s", err);
	/* without its notes the plan lacks six runs */
	ck_assert_int_eq(sweepplan_check(&s, strstr(buf, "\ndist") + 1,
					 strlen(strstr(buf, "\ndist") + 1), "plan.txt", err,
					 sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "2 runs planned, 8 expected"));
	sweepplan_skips_free(&sk);
	sweepplan_skips_free(&back);
	sweepplan_free(&p);
	sweepspec_free(&s);
	fake_sysfs_destroy();
}
END_TEST

START_TEST(legacy_names)
{
	struct sweepspec s;
	struct sweepplan p;

	spec(&s, "dist = fixed exp\nprequery = off 20\n");
	plan_text(&s, 2, &p);
	ck_assert_uint_eq(p.n, 8);
	/* the original six dimensions name a point, as they always did */
	ck_assert_str_eq(p.run[0].point, "dist-fixed_int-1000_pq-off_wu-0_cs-on_svc-0");
	ck_assert_uint_eq(p.run[0].rep, 1);
	ck_assert_uint_eq(p.run[1].rep, 2);
	ck_assert_str_eq(p.run[2].point, "dist-fixed_int-1000_pq-20_wu-0_cs-on_svc-0");
	ck_assert_str_eq(val(&p.run[2], "prequery_at"), "lead");
	ck_assert_str_eq(val(&p.run[0], "prequery_at"), "-");
	ck_assert_str_eq(val(&p.run[0], "server_cstates"), "on");
	ck_assert_str_eq(val(&p.run[0], "delay"), "-");
	sweepplan_free(&p);
	sweepspec_free(&s);
}
END_TEST

/* Real servers: no service time, every pre-query answered on the
 * server's own port: those dimensions collapse. */
START_TEST(backend_collapse)
{
	struct sweepspec s;
	struct sweepplan p;
	int kv = 0, wkb = 0;

	spec(&s, "backend = wakebench memcached redis\nprequery = off 20\n"
		 "service_us = 0 5\nprequery_ack = no yes\n");
	plan_text(&s, 1, &p);
	/* wakebench: 2 pq x 2 svc, ack for pq 20 only: 2 + 4 = 6 points;
	 * memcached, redis: 2 pq each */
	ck_assert_uint_eq(p.n, 6 + 2 + 2);
	for (size_t i = 0; i < p.n; i++) {
		if (!strcmp(val(&p.run[i], "backend"), "wakebench")) {
			wkb++;
			ck_assert_str_ne(val(&p.run[i], "service_us"), "-");
			continue;
		}
		kv++;
		ck_assert_str_eq(val(&p.run[i], "service_us"), "-");
		ck_assert_str_eq(val(&p.run[i], "prequery_ack"), "-");
		ck_assert_str_eq(val(&p.run[i], "prequery_receiver"), "-");
		ck_assert_ptr_nonnull(strstr(p.run[i].point, "_be-"));
	}
	ck_assert_int_eq(wkb, 6);
	ck_assert_int_eq(kv, 4);
	sweepplan_free(&p);
	sweepspec_free(&s);
}
END_TEST

START_TEST(collapse_and_names)
{
	struct sweepspec s;
	struct sweepplan p;
	int three = 0, two = 0;

	/* 2 tiers x 4 delays x 2 prequery: the midtier's delays apply to
	 * three tiers only, the client's pre-query to two only */
	spec(&s, "tiers = 2 3\ndelay = off 0 50 adaptive\nprequery = off 10\n"
		 "helper_wait = block spin\nserver_cstates = off\n");
	plan_text(&s, 1, &p);
	for (size_t i = 0; i < p.n; i++) {
		const struct sweepplan_run *r = &p.run[i];

		if (!strcmp(val(r, "tiers"), "3")) {
			three++;
			ck_assert_str_eq(val(r, "prequery"), "off");
			ck_assert_str_eq(val(r, "midtier_cstates"), "on");
			ck_assert(strstr(r->point, "_tiers-3_"));
			if (!strcmp(val(r, "delay"), "off"))
				ck_assert_str_eq(val(r, "helper_wait"), "-");
		} else {
			two++;
			ck_assert_str_eq(val(r, "delay"), "-");
			ck_assert_str_eq(val(r, "helper_wait"), "-");
			ck_assert(!strstr(r->point, "delay"));
		}
		ck_assert_str_eq(val(r, "server_cstates"), "off");
		ck_assert_str_eq(val(r, "client_cstates"), "on");
		ck_assert(strstr(r->point, "_scs-off"));
		ck_assert(!strstr(r->point, "_ccs-"));
	}
	/* two tiers: prequery off, 10; three: delay off + 3 delays x 2 waits */
	ck_assert_int_eq(two, 2);
	ck_assert_int_eq(three, 7);
	/* names are unique */
	for (size_t i = 0; i < p.n; i++)
		for (size_t j = i + 1; j < p.n; j++)
			ck_assert_str_ne(p.run[i].point, p.run[j].point);
	sweepplan_free(&p);
	sweepspec_free(&s);
}
END_TEST

START_TEST(shuffle_and_check)
{
	struct sweepspec s, t;
	struct sweepplan p, q;
	char *text, copy[65536];

	spec(&s, "dist = fixed exp poisson\nprequery = off 10\nreps = 3\n");
	text = plan_text(&s, 3, &p);
	snprintf(copy, sizeof(copy), "%s", text);
	ck_assert_int_eq(sweepplan_check(&s, copy, strlen(copy), "plan.txt", err,
					 sizeof(err)), 0);
	/* shuffled with a seed: the same runs, in an order the seed fixes */
	memset(&q, 0, sizeof(q));
	ck_assert_int_eq(sweepplan_build(&s, 1, 3, &q), 0);
	sweepplan_shuffle(&q, 0, 1);
	sweepplan_shuffle(&p, 0, 1);
	for (size_t i = 0; i < p.n; i++) {
		ck_assert_str_eq(p.run[i].point, q.run[i].point);
		ck_assert_uint_eq(p.run[i].rep, q.run[i].rep);
	}
	{
		char buf[65536];
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		sweepplan_write(&p, 0, f);
		fclose(f);
		ck_assert_str_ne(buf, copy);	/* 18 runs: not the matrix order */
		ck_assert_int_eq(sweepplan_check(&s, buf, strlen(buf), "plan.txt",
						 err, sizeof(err)), 0);
	}
	/* a run missing, one added, one edited */
	ck_assert_int_eq(sweepplan_check(&s, copy, strchr(copy, '\n') - copy + 1,
					 "plan.txt", err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "1 runs planned, 18 expected"));
	copy[5] = 'X';
	ck_assert_int_eq(sweepplan_check(&s, copy, strlen(copy), "plan.txt", err,
					 sizeof(err)), -EINVAL);
	/* no final newline, an empty line: refused (what --plan-update
	 * appends must start a line; every line is a run) */
	{
		char nl[65536];
		size_t l;

		snprintf(nl, sizeof(nl), "%s", text);
		l = strlen(nl);
		ck_assert_int_eq(sweepplan_check(&s, nl, l - 1, "plan.txt", err,
						 sizeof(err)), -EINVAL);
		ck_assert_ptr_nonnull(strstr(err, "no final newline"));
		snprintf(nl, sizeof(nl), "\n%s", text);
		ck_assert_int_eq(sweepplan_check(&s, nl, strlen(nl), "plan.txt", err,
						 sizeof(err)), -EINVAL);
	}
	/* more reps: the added runs are reps 4..5 only */
	spec(&t, "dist = fixed exp poisson\nprequery = off 10\nreps = 5\n");
	sweepplan_free(&q);
	memset(&q, 0, sizeof(q));
	ck_assert_int_eq(sweepplan_build(&t, 4, 5, &q), 0);
	ck_assert_uint_eq(q.n, 12);
	for (size_t i = 0; i < q.n; i++)
		ck_assert(q.run[i].rep == 4 || q.run[i].rep == 5);
	sweepplan_free(&q);
	sweepplan_free(&p);
	sweepspec_free(&s);
	sweepspec_free(&t);
}
END_TEST

/*
 * order = pairs (issue 31): each repetition's points back to back, their
 * order alternating, so each point runs first in half of the pairs.
 */
START_TEST(pairs_order)
{
	static const char *const ab[] = { "pq-off", "pq-10", "pq-10", "pq-off",
					  "pq-off", "pq-10", "pq-10", "pq-off" };
	static const char *const abc[] = { "dist-fixed", "dist-exp",
					   "dist-poisson", "dist-poisson",
					   "dist-exp", "dist-fixed" };
	struct sweepspec s;
	struct sweepplan p;

	spec(&s, "prequery = off 10\norder = pairs\nreps = 4\n");
	ck_assert_str_eq(s.val[SK_ORDER], "pairs");
	plan_text(&s, 4, &p);
	ck_assert_int_eq(sweepplan_pairs(&p, 0), 0);
	ck_assert_uint_eq(p.n, 8);
	for (size_t i = 0; i < p.n; i++) {
		ck_assert_uint_eq(p.run[i].rep, i / 2 + 1);
		ck_assert_ptr_nonnull(strstr(p.run[i].point, ab[i]));
	}
	/* repetitions added by a larger --reps continue the alternation */
	ck_assert_int_eq(sweepplan_build(&s, 5, 6, &p), 0);
	ck_assert_int_eq(sweepplan_pairs(&p, 8), 0);
	ck_assert_uint_eq(p.n, 12);
	for (size_t i = 0; i < 8; i++)
		ck_assert_ptr_nonnull(strstr(p.run[i].point, ab[i]));
	for (size_t i = 8; i < 12; i++) {
		ck_assert_uint_eq(p.run[i].rep, i / 2 + 1);
		ck_assert_ptr_nonnull(strstr(p.run[i].point, ab[i - 8]));
	}
	sweepplan_free(&p);
	sweepspec_free(&s);
	/* more points: a block per repetition, read backwards every other */
	spec(&s, "dist = fixed exp poisson\norder = pairs\nreps = 2\n");
	plan_text(&s, 2, &p);
	ck_assert_int_eq(sweepplan_pairs(&p, 0), 0);
	for (size_t i = 0; i < p.n; i++) {
		ck_assert_uint_eq(p.run[i].rep, i / 3 + 1);
		ck_assert_ptr_nonnull(strstr(p.run[i].point, abc[i]));
	}
	sweepplan_free(&p);
	sweepspec_free(&s);
	/* the default is the seeded shuffle */
	spec(&s, "");
	ck_assert_str_eq(s.val[SK_ORDER], "shuffle");
	sweepspec_free(&s);
	ck_assert_int_eq(sweepspec_init(&s), 0);
	ck_assert_int_eq(sweepspec_parse(&s, "order = random\n", 15, "t.spec",
					 SS_FILE, err, sizeof(err)), 0);
	ck_assert_int_eq(sweepspec_resolve(&s, 2, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "invalid order 'random' (shuffle or pairs)");
	sweepspec_free(&s);
}
END_TEST

/* unpinned: only the server's C-states apply */
START_TEST(unpinned)
{
	struct sweepspec s;
	struct sweepplan p;

	spec(&s, "tiers = 3\ncpu = pinned none\nserver_cstates = on off\n");
	plan_text(&s, 1, &p);
	ck_assert_uint_eq(p.n, 4);
	for (size_t i = 0; i < p.n; i++) {
		int none = !strcmp(val(&p.run[i], "cpu"), "none");

		ck_assert_str_eq(val(&p.run[i], "client_cstates"), none ? "-" : "on");
		ck_assert_str_eq(val(&p.run[i], "midtier_cstates"), none ? "-" : "on");
	}
	sweepplan_free(&p);
	sweepspec_free(&s);
}
END_TEST

START_TEST(too_many)
{
	struct sweepspec s;
	struct sweepplan p = { 0 };

	spec(&s, "interval_us = 1 2 3 4 5 6 7 8 9 10\nservice_us = 1 2 3 4 5 6 7 8 9 10\n"
		 "warmup = 1 2 3 4 5 6 7 8 9 10\nwork_us = 1 2 3 4 5 6 7 8 9 10\n"
		 "tiers = 3\ntimer_slack_ns = 1 2 3 4 5 6 7 8 9 10\ndist = fixed exp\n");
	ck_assert_int_eq(sweepplan_build(&s, 1, 1, &p), -E2BIG);
	sweepplan_free(&p);
	sweepspec_free(&s);
}
END_TEST

/* issue 36: gap laws with parameters are values; names stay plain */
START_TEST(law_names)
{
	struct sweepspec s;
	struct sweepplan p, q = { 0 };
	struct sweepplan_run r;
	char *text, line[512];

	spec(&s, "dist = exp onoff:20,80 gev:-0.1,0.2\nreps = 1\n");
	text = plan_text(&s, 1, &p);
	ck_assert_uint_eq(p.n, 3);
	ck_assert_str_eq(p.run[0].point, "dist-exp_int-1000_pq-off_wu-0_cs-on_svc-0");
	ck_assert_str_eq(p.run[1].point, "dist-onoff-20_80_int-1000_pq-off_wu-0_cs-on_svc-0");
	ck_assert_str_eq(p.run[2].point, "dist-gev--0.1_0.2_int-1000_pq-off_wu-0_cs-on_svc-0");
	ck_assert_str_eq(val(&p.run[1], "dist"), "onoff:20,80");
	/* the plan line keeps the value itself, and reads back */
	ck_assert_ptr_nonnull(strstr(text, " dist=onoff:20,80 "));
	ck_assert_int_eq(sweepplan_check(&s, text, strlen(text), "plan.txt", err,
					 sizeof(err)), 0);
	snprintf(line, sizeof(line), "%s", strchr(text, '\n') + 1);
	line[strcspn(line, "\n")] = '\0';
	ck_assert_int_eq(sweepplan_parse_line(line, &r, "plan.txt", 2, err, sizeof(err)), 0);
	ck_assert_str_eq(r.point, p.run[1].point);
	ck_assert_str_eq(r.val[sweepplan_dim("dist")], "onoff:20,80");
	sweepplan_free(&p);
	/* two values that read alike in a name are refused, not merged */
	free(s.val[SK_DIST]);
	s.val[SK_DIST] = strdup("a:b a-b");
	ck_assert_int_eq(sweepplan_build(&s, 1, 1, &q), -ENOTUNIQ);
	sweepplan_free(&q);
	ck_assert_int_eq(sweepplan_check(&s, "x 1\n", 4, "plan.txt", err, sizeof(err)),
			 -ENOTUNIQ);
	ck_assert_ptr_nonnull(strstr(err, "one point name"));
	sweepspec_free(&s);
}
END_TEST

START_TEST(parse_lines)
{
	struct sweepplan_run r;
	char l[512];
	const char *bad[] = {
		"a 1 exp 1000 off 0 on", "../x 1 dist=exp", "a/b 1 dist=exp",
		".. 1 dist=exp", "a 01x dist=exp", "a 0 dist=exp", "a x dist=exp",
		"a 1 dist=1;2", "", "a 1234567890 dist=exp", "a 1 nope=1",
		"a 1 dist=exp dist=fixed", "a 1 dist=exp bare", "a 1 dist=\"x\"",
		"a 1 dist=a/b", "-a 1 dist=exp",
	};

	snprintf(l, sizeof(l), "pt-a 3 dist=exp tiers=3 delay=50 cstates=max-latency-us=5");
	ck_assert_int_eq(sweepplan_parse_line(l, &r, "plan.txt", 1, err, sizeof(err)), 0);
	ck_assert_str_eq(r.point, "pt-a");
	ck_assert_uint_eq(r.rep, 3);
	ck_assert_str_eq(r.val[sweepplan_dim("delay")], "50");
	ck_assert_str_eq(r.val[sweepplan_dim("cstates")], "max-latency-us=5");
	ck_assert_str_eq(r.val[sweepplan_dim("work_us")], "");
	/* a plan of an older sweep: eight words */
	snprintf(l, sizeof(l), "p 2 fixed 500 off 10 off 5");
	ck_assert_int_eq(sweepplan_parse_line(l, &r, "plan.txt", 1, err, sizeof(err)), 0);
	ck_assert_str_eq(r.val[sweepplan_dim("service_us")], "5");
	ck_assert_str_eq(r.val[sweepplan_dim("tiers")], "");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(l, sizeof(l), "%s", bad[i]);
		ck_assert_msg(sweepplan_parse_line(l, &r, "plan.txt", 4, err, sizeof(err)) ==
			      -EINVAL, "accepted '%s'", bad[i]);
		ck_assert(!strncmp(err, "plan.txt:4: ", 12));
	}
}
END_TEST

#define IRQ_A "           CPU0       CPU1       \n" \
	"  0:         10          0   IO-APIC   2-edge      timer\n" \
	" 24:          1          5   PCI-MSIX  eth0-rx-0\n" \
	"NMI:          0          0   Non-maskable interrupts\n" \
	"LOC:       1000       2000   Local timer interrupts\n" \
	"ERR:          3\n"
#define IRQ_B "           CPU0       CPU1       \n" \
	"  0:         10          0   IO-APIC   2-edge      timer\n" \
	" 24:          9          5   PCI-MSIX  eth0-rx-0\n" \
	" 25:          2          1   PCI-MSIX  eth0-rx-1\n" \
	"NMI:          0          0   Non-maskable interrupts\n" \
	"LOC:       1100       2050   Local timer interrupts\n" \
	"ERR:          3\n"

/* --dry-run's estimate: each term by hand */
START_TEST(estimate)
{
	struct sweepspec s;
	struct sweepplan p;
	struct sweepplan_estimate e;

	spec(&s, "dist = fixed\ninterval_us = 1000 500\nrequests = 1000\nreps = 2\n"
	     "warmup = 0 100\nbackend = wakebench redis\n");
	plan_text(&s, 2, &p);
	sweepplan_estimate(&s, &p, 0, &e);
	ck_assert_uint_eq(e.runs, 16);
	/* 8 runs of 1000 x 1 ms, 8 of 1000 x 0.5 ms */
	ck_assert_double_eq_tol(e.measure_s, 8 * 1.0 + 8 * 0.5, 1e-9);
	/* warm-up 100: 4 runs at 1 ms, 4 at 0.5 ms */
	ck_assert_double_eq_tol(e.warmup_s, 4 * 0.1 + 4 * 0.05, 1e-9);
	ck_assert_double_eq_tol(e.overhead_s, 8 * SWEEPPLAN_OVERHEAD_S +
				8 * SWEEPPLAN_OVERHEAD_KV_S, 1e-9);
	ck_assert_double_eq_tol(e.margin_s, 0, 1e-9);
	ck_assert_double_eq_tol(e.total_s, e.measure_s + e.warmup_s + e.overhead_s, 1e-9);
	/* the runs from index 4 on only */
	sweepplan_estimate(&s, &p, 4, &e);
	ck_assert_uint_eq(e.runs, 12);
	sweepplan_free(&p);
	sweepspec_free(&s);

	/* a duration per run; a burst warm-up takes no schedule; the lead
	 * adds to the gap with sleep-after; agents wait for their start */
	spec(&s, "duration = 2\nreps = 1\nwarmup = 50\nwarmup_mode = burst\n"
	     "client_exec = | \nstart_margin_ms = 1500\n");
	plan_text(&s, 1, &p);
	sweepplan_estimate(&s, &p, 0, &e);
	ck_assert_uint_eq(e.runs, 1);
	ck_assert_double_eq_tol(e.measure_s, 2, 1e-9);
	ck_assert_double_eq_tol(e.warmup_s, 0, 1e-9);
	ck_assert_double_eq_tol(e.margin_s, 1.5, 1e-9);
	sweepplan_free(&p);
	sweepspec_free(&s);
	spec(&s, "interval_us = 100\nrequests = 10\nreps = 1\nprequery = 50\n"
	     "prequery_at = sleep-after\nclient_exec = |\n");
	plan_text(&s, 1, &p);
	sweepplan_estimate(&s, &p, 0, &e);
	ck_assert_double_eq_tol(e.measure_s, 10 * 150e-6, 1e-12);
	ck_assert_double_eq_tol(e.margin_s, SWEEPPLAN_AUTO_MARGIN_S, 1e-9);
	sweepplan_free(&p);
	sweepspec_free(&s);
}
END_TEST

static char seen[512];

static void note(void *arg, const struct irqstat_row *row, uint64_t delta)
{
	size_t n = strlen(seen);

	(void)arg;
	snprintf(seen + n, sizeof(seen) - n, "%s=%llu(%s);", row->label,
		 (unsigned long long)delta, row->desc);
}

START_TEST(irq_deltas)
{
	struct irqstat a, b;

	ck_assert_int_eq(irqstat_parse(IRQ_A, &a), 0);
	ck_assert_int_eq(irqstat_parse(IRQ_B, &b), 0);
	ck_assert_int_eq(a.ncpus, 2);
	ck_assert_uint_eq(a.n, 5);
	ck_assert_int_eq(a.row[4].ncounts, 1);	/* ERR: one count */
	seen[0] = '\0';
	ck_assert_uint_eq(irqstat_delta(&a, &b, 0, note, NULL), 110);
	ck_assert_str_eq(seen, "24=8(PCI-MSIX eth0-rx-0);25=2(PCI-MSIX eth0-rx-1);"
			 "LOC=100(Local timer interrupts);");
	ck_assert_uint_eq(irqstat_delta(&a, &b, 1, NULL, NULL), 51);
	ck_assert_uint_eq(irqstat_delta(&a, &b, -1, NULL, NULL), 161);
	/* a CPU that is not a column: nothing, not a zero from nowhere */
	ck_assert_int_eq(irqstat_has_cpu(&a, 7), 0);
	ck_assert_uint_eq(irqstat_delta(&a, &b, 7, NULL, NULL), 0);
	/* a counter that went down reports no growth */
	ck_assert_uint_eq(irqstat_delta(&b, &a, 0, NULL, NULL), 0);
	irqstat_free(&a);
	irqstat_free(&b);
}
END_TEST

START_TEST(irq_bad)
{
	struct irqstat s;
	const char *bad[] = {
		"", "CPU0\n 0 10\n", "  CPUx\n", "CPU0 CPU99999999\n",
		"CPU0\n:  1\n", "CPU0\nthis-label-is-longer-than-thirty-one-bytes: 1\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(irqstat_parse(bad[i], &s) == -EINVAL, "accepted #%zu", i);
	/* 20 digits is not a counter: the description starts there */
	ck_assert_int_eq(irqstat_parse("CPU0 CPU1\n 5: 7 18446744073709551616 d\n", &s), 0);
	ck_assert_int_eq(s.row[0].ncounts, 1);
	irqstat_free(&s);
	/* counts that stop early, descriptions with digits */
	ck_assert_int_eq(irqstat_parse("CPU0 CPU1\n 5: 7 2x desc\nMIS: 1\n", &s), 0);
	ck_assert_int_eq(s.row[0].ncounts, 1);
	ck_assert_str_eq(s.row[0].desc, "2x desc");
	irqstat_free(&s);
	ck_assert_int_eq(irqstat_read("/nonexistent/interrupts", &s), -ENOENT);
}
END_TEST

START_TEST(colnames)
{
	char c[16];

	residency_colname("haltpoll idle", c, sizeof(c));
	ck_assert_str_eq(c, "haltpoll_idle");
	residency_colname("C1E-HSW/x", c, sizeof(c));
	ck_assert_str_eq(c, "C1E_HSW_x");
	residency_colname("a-very-long-state-name", c, 8);
	ck_assert_str_eq(c, "a_very_");
}
END_TEST

/* lib/sweep/sweepdim.h: one table, read the same way everywhere */
START_TEST(dim_table)
{
	struct sweepdim_rules r;
	const char *v[SWEEPDIM_N];
	char msg[256] = "";
	int k = 0;

	ck_assert_int_eq(sweepdim_rules(&r, msg, sizeof(msg)), 0);
	ck_assert_int_eq(SWEEPPLAN_NDIMS, 25);	/* issue 35 added four */
	for (int d = 0; d < SWEEPDIM_N; d++) {
		ck_assert_str_eq(sweepplan_dims[d], sweepdim_table[d].col);
		ck_assert_int_eq(sweepdim_find(sweepdim_table[d].opt), d);
		ck_assert_int_eq(sweepspec_key(sweepdim_table[d].col), sweepdim_table[d].key);
		/* sweepcsv's parameters: the dimensions and requests after six */
		if (k == SWEEPDIM_NFIRST)
			ck_assert_str_eq(sweepcsv_params[k++], "requests");
		ck_assert_str_eq(sweepcsv_params[k++], sweepdim_table[d].col);
		v[d] = sweepdim_table[d].def;
	}
	ck_assert_int_eq(sweepdim_find("nosuch"), -1);
	/* the rules read the other values after their own collapse: three
	 * tiers turn prequery off, which takes prequery_at with it */
	v[SWEEPDIM_TIERS] = "3";
	v[SWEEPDIM_PREQUERY] = "50";
	v[SWEEPDIM_CPU] = "none";
	sweepdim_collapse(&r, v);
	ck_assert_str_eq(v[SWEEPDIM_PREQUERY], "off");
	ck_assert_str_eq(v[SWEEPDIM_PREQUERY_AT], "-");
	ck_assert_str_eq(v[SWEEPDIM_SERVER_CSTATES], "on");
	ck_assert_str_eq(v[SWEEPDIM_CLIENT_CSTATES], "-");
	ck_assert_str_eq(v[SWEEPDIM_HELPER_WAIT], "-");
	ck_assert_str_eq(v[SWEEPDIM_WORK_US], "0");
}
END_TEST

Suite *sweepplan_suite(void)
{
	Suite *s = suite_create("sweepplan");
	TCase *t = tcase_create("core");

	tcase_add_test(t, legacy_names);
	tcase_add_test(t, skip_unsupported);
	tcase_add_test(t, backend_collapse);
	tcase_add_test(t, collapse_and_names);
	tcase_add_test(t, shuffle_and_check);
	tcase_add_test(t, pairs_order);
	tcase_add_test(t, too_many);
	tcase_add_test(t, unpinned);
	tcase_add_test(t, parse_lines);
	tcase_add_test(t, law_names);
	tcase_add_test(t, irq_deltas);
	tcase_add_test(t, irq_bad);
	tcase_add_test(t, colnames);
	tcase_add_test(t, estimate);
	tcase_add_test(t, dim_table);
	suite_add_tcase(s, t);
	return s;
}
