// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench wake's pure logic: the state a datapoint woke from (usage
 * deltas, also through a fake sysfs whose counters the test advances),
 * the summary's grouping, the statistics and the wake cost.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "fake_sysfs.h"
#include "hist.h"
#include "prng.h"
#include "wake.h"
#include "wakesplit.h"

START_TEST(attribute_from_usage)
{
	uint64_t b[3] = { 10, 20, 30 }, a[3];

	memcpy(a, b, sizeof(a));
	ck_assert_int_eq(wake_attribute(b, a, 3), WAKE_ST_BUSY);
	a[1] = 21;
	ck_assert_int_eq(wake_attribute(b, a, 3), 1);
	a[2] = 35;
	ck_assert_int_eq(wake_attribute(b, a, 3), WAKE_ST_MIXED);
	a[1] = 20;
	ck_assert_int_eq(wake_attribute(b, a, 3), 2);
	ck_assert_int_eq(wake_attribute(b, a, 0), WAKE_ST_UNKNOWN);
}
END_TEST

START_TEST(counters_on_fake_sysfs)
{
	struct wake_cpuidle ci;
	struct wake_counters c0, c1;
	char err[256];

	fake_sysfs_create(2, 3);
	ck_assert_int_eq(wake_cpuidle_open(&ci, 1, err, sizeof(err)), 0);
	ck_assert_uint_eq(ci.n, 3);
	ck_assert_str_eq(ci.name[2], "C6");
	ck_assert_str_eq(wake_state_label(&ci, 1), "C1");
	ck_assert_str_eq(wake_state_label(&ci, WAKE_ST_MIXED), "mixed");
	ck_assert_int_eq(wake_cpuidle_read(&ci, &c0), 0);
	/* the CPU idled once in C6 for 250 us: the fds stay open and each
	 * read sees the new value, as kernfs gives it */
	fake_sysfs_set(1, 2, "usage", "1000");
	c1 = c0;
	ck_assert_int_eq(wake_cpuidle_read(&ci, &c1), 0);
	ck_assert_int_eq(wake_attribute(c0.usage, c1.usage, ci.n), 2);
	ck_assert_int_eq(wake_attribute(c0.usage, c0.usage, ci.n), WAKE_ST_BUSY);
	/* another CPU's counters are not this one's */
	fake_sysfs_set(0, 1, "usage", "5000");
	ck_assert_int_eq(wake_cpuidle_read(&ci, &c0), 0);
	ck_assert_int_eq(wake_attribute(c1.usage, c0.usage, ci.n), WAKE_ST_BUSY);
	wake_cpuidle_close(&ci);
	fake_sysfs_destroy();
}
END_TEST

/* After a wake only what moved is read: every usage, and time, above and
 * below of the state entered (issue 34: 4n reads a datapoint limited the
 * rate at short launch distances); the result is a full read's. */
START_TEST(counters_update_reads_what_moved)
{
	struct wake_cpuidle ci;
	struct wake_counters c = { 0 }, full = { 0 };
	char err[256];

	fake_sysfs_create(2, 3);
	ck_assert_int_eq(wake_cpuidle_open(&ci, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(wake_cpuidle_read(&ci, &c), 0);
	ck_assert_uint_eq(c.reads, 12);
	/* the sleeper never idled: the usage counters only */
	ck_assert_int_eq(wake_cpuidle_update(&ci, &c), 0);
	ck_assert_uint_eq(c.reads, 15);
	/* one idle period in C6, 250 us */
	fake_sysfs_set(1, 2, "usage", "11");
	fake_sysfs_set(1, 2, "time", "350");
	ck_assert_int_eq(wake_cpuidle_update(&ci, &c), 0);
	ck_assert_uint_eq(c.reads, 15 + 3 + 3);
	ck_assert_uint_eq(c.usage[2], 11);
	ck_assert_uint_eq(c.time_us[2], 350);
	ck_assert_int_eq(wake_cpuidle_read(&ci, &full), 0);
	ck_assert_mem_eq(c.usage, full.usage, sizeof(full.usage));
	ck_assert_mem_eq(c.time_us, full.time_us, sizeof(full.time_us));
	ck_assert_mem_eq(c.above, full.above, sizeof(full.above));
	ck_assert_mem_eq(c.below, full.below, sizeof(full.below));
	wake_cpuidle_close(&ci);
	fake_sysfs_destroy();
}
END_TEST

START_TEST(no_cpuidle_states)
{
	struct wake_cpuidle ci;
	struct wake_counters c;
	char err[256];

	fake_sysfs_create(2, 0);
	ck_assert_int_eq(wake_cpuidle_open(&ci, 0, err, sizeof(err)), 0);
	ck_assert_uint_eq(ci.n, 0);
	ck_assert_int_eq(wake_cpuidle_read(&ci, &c), 0);
	ck_assert_int_eq(wake_attribute(c.usage, c.usage, ci.n), WAKE_ST_UNKNOWN);
	wake_cpuidle_close(&ci);
	fake_sysfs_destroy();
}
END_TEST

START_TEST(parse_lists)
{
	unsigned int m;
	int v[3], n;

	ck_assert_int_eq(wake_sources_parse("timer", &m), 0);
	ck_assert_uint_eq(m, 1u << WAKE_SRC_TIMER);
	ck_assert_int_eq(wake_sources_parse("packet,ipi", &m), 0);
	ck_assert_uint_eq(m, (1u << WAKE_SRC_IPI) | (1u << WAKE_SRC_PACKET));
	ck_assert_int_eq(wake_sources_parse("timer,timer", &m), -1);
	ck_assert_int_eq(wake_sources_parse("tim", &m), -1);
	ck_assert_int_eq(wake_sources_parse("timer,", &m), -1);
	ck_assert_int_eq(wake_sources_parse("", &m), -1);
	ck_assert_int_eq(wake_settings_parse("each,none", v, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(v[0], WAKE_SET_EACH);
	ck_assert_int_eq(v[1], WAKE_SET_NONE);
	ck_assert_int_eq(wake_settings_parse("all,bogus", v, &n), -1);
}
END_TEST

static struct wake_point pt(int src, int set, int state, uint64_t lat_us)
{
	return (struct wake_point){ .source = src, .setting = set,
				    .state = state, .latency_ns = lat_us * 1000,
				    .above = state >= 0, .below = 0 };
}

START_TEST(summary_groups)
{
	static struct wake_summary s;
	int all, none;

	wake_summary_init(&s, 0);
	all = wake_summary_setting(&s, "all", 0);
	none = wake_summary_setting(&s, "none", 1);
	ck_assert_int_eq(all, 0);
	ck_assert_int_eq(none, 1);
	ck_assert_int_eq(wake_summary_setting(&s, "all", 0), all);
	for (int i = 0; i < 10; i++) {
		struct wake_point p[] = {
			pt(WAKE_SRC_TIMER, all, 1, 50),
			pt(WAKE_SRC_TIMER, all, 2, 150),
			pt(WAKE_SRC_IPI, all, 1, 30),
			pt(WAKE_SRC_TIMER, none, WAKE_ST_NONE, 20),
		};

		for (size_t k = 0; k < sizeof(p) / sizeof(p[0]); k++)
			ck_assert_int_eq(wake_summary_add(&s, &p[k]), 0);
	}
	{
		struct wake_point busy = pt(WAKE_SRC_TIMER, all, WAKE_ST_BUSY, 1);
		struct wake_point mixed = pt(WAKE_SRC_TIMER, all, WAKE_ST_MIXED, 1);
		struct wake_point bad = pt(WAKE_SRC_TIMER, 7, 1, 1);

		ck_assert_int_eq(wake_summary_add(&s, &busy), 0);
		ck_assert_int_eq(wake_summary_add(&s, &busy), 0);
		ck_assert_int_eq(wake_summary_add(&s, &mixed), 0);
		ck_assert_int_eq(wake_summary_add(&s, &bad), -EINVAL);
	}
	/* busy and mixed are counted, not in any group */
	ck_assert_int_eq(s.ngroups, 4);
	ck_assert_uint_eq(s.total[WAKE_SRC_TIMER][all], 23);
	ck_assert_uint_eq(s.busy[WAKE_SRC_TIMER][all], 2);
	ck_assert_uint_eq(s.mixed[WAKE_SRC_TIMER][all], 1);
	ck_assert_uint_eq(s.busy[WAKE_SRC_IPI][all], 0);
	ck_assert_uint_eq(hist_count(wake_summary_find(&s, WAKE_SRC_TIMER, all, 1)->h), 10);
	ck_assert_uint_eq(wake_summary_find(&s, WAKE_SRC_TIMER, all, 2)->above, 10);
	ck_assert_ptr_null(wake_summary_find(&s, WAKE_SRC_IPI, all, 2));
	ck_assert_ptr_nonnull(wake_summary_floor(&s, WAKE_SRC_TIMER));
	ck_assert_ptr_null(wake_summary_floor(&s, WAKE_SRC_IPI));
	wake_summary_free(&s);
}
END_TEST

START_TEST(stats_and_cost)
{
	static struct wake_summary s;
	struct wake_stats st, fl;
	double p50, mean;
	int all, none;

	wake_summary_init(&s, 0);
	all = wake_summary_setting(&s, "all", 0);
	none = wake_summary_setting(&s, "none", 1);
	/* state 0: 1..100 us; the floor: 11..110 us minus 10 = 1..100 - 9 */
	for (uint64_t i = 1; i <= 100; i++) {
		struct wake_point a = pt(WAKE_SRC_PACKET, all, 0, 100 + i);
		struct wake_point f = pt(WAKE_SRC_PACKET, none, WAKE_ST_NONE, 10 + i);

		ck_assert_int_eq(wake_summary_add(&s, &a), 0);
		ck_assert_int_eq(wake_summary_add(&s, &f), 0);
	}
	wake_group_stats(wake_summary_find(&s, WAKE_SRC_PACKET, all, 0), &st);
	wake_group_stats(wake_summary_floor(&s, WAKE_SRC_PACKET), &fl);
	ck_assert_uint_eq(st.n, 100);
	ck_assert_double_eq_tol(st.min, 101, 1e-9);
	ck_assert_double_eq_tol(st.max, 200, 1e-9);
	ck_assert_double_eq_tol(st.pct[0], 150, 1e-9);	/* rank 50 */
	ck_assert_double_eq_tol(st.pct[1], 190, 1e-9);	/* rank 90 */
	/* p50 of 100 samples has an exact 95 % CI around rank 50 */
	ck_assert(st.ci_ok[0]);
	ck_assert(st.lo[0] < 150 && st.hi[0] > 150);
	/* p99.9 of 100 samples cannot be bounded: no interval */
	ck_assert(!st.ci_ok[3]);
	ck_assert(isnan(st.lo[3]) && isnan(st.hi[3]));
	/* the cost: 90 us above the floor, in median and mean */
	ck_assert_int_eq(wake_cost(&st, &fl, &p50, &mean), 0);
	ck_assert_double_eq_tol(p50, 90, 1e-9);
	ck_assert_double_eq_tol(mean, 90, 1e-9);
	/* no floor datapoint: no cost */
	wake_group_stats(NULL, &fl);
	ck_assert_uint_eq(fl.n, 0);
	ck_assert_int_eq(wake_cost(&st, &fl, &p50, &mean), -ENOENT);
	ck_assert(isnan(p50) && isnan(mean));
	wake_summary_free(&s);
}
END_TEST

START_TEST(launch_schedule)
{
	unsigned int m = (1u << WAKE_SRC_TIMER) | (1u << WAKE_SRC_PACKET);
	uint64_t left[WAKE_NSRC] = { 0 }, got[WAKE_NSRC] = { 0 };
	struct prng g, g2;
	int first[40], runs = 0, prev = -1, src;
	double sum = 0;

	/* by count: exactly N each, interleaved, the same order for a seed */
	left[WAKE_SRC_TIMER] = left[WAKE_SRC_PACKET] = 500;
	left[WAKE_SRC_IPI] = 7;		/* not in the mask: never drawn */
	prng_seed(&g, 42);
	for (int i = 0; (src = wake_pick_source(m, left, 1, &g)) >= 0; i++) {
		ck_assert(src == WAKE_SRC_TIMER || src == WAKE_SRC_PACKET);
		ck_assert_uint_gt(left[src], 0);
		left[src]--;
		got[src]++;
		if (i < 40)
			first[i] = src;
		runs += src != prev;
		prev = src;
	}
	ck_assert_uint_eq(got[WAKE_SRC_TIMER], 500);
	ck_assert_uint_eq(got[WAKE_SRC_PACKET], 500);
	ck_assert_uint_eq(got[WAKE_SRC_IPI], 0);
	/* a shuffle, not blocks: about n/2 runs */
	ck_assert_int_gt(runs, 400);
	left[WAKE_SRC_TIMER] = left[WAKE_SRC_PACKET] = 500;
	prng_seed(&g2, 42);
	for (int i = 0; i < 40; i++) {
		src = wake_pick_source(m, left, 1, &g2);
		ck_assert_int_eq(src, first[i]);
		left[src]--;
	}
	/* by duration: any of the mask, never one outside it */
	for (int i = 0; i < 1000; i++) {
		src = wake_pick_source(1u << WAKE_SRC_IPI, left, 0, &g);
		ck_assert_int_eq(src, WAKE_SRC_IPI);
	}
	ck_assert_int_eq(wake_pick_source(0, left, 0, &g), -1);
	/* launch distances: within [min, max], uniform (mean in the middle) */
	for (int i = 0; i < 100000; i++) {
		uint64_t d = wake_draw_ldist(&g, 100000, 2000000);

		ck_assert_uint_ge(d, 100000);
		ck_assert_uint_le(d, 2000000);
		sum += (double)d;
	}
	ck_assert_double_eq_tol(sum / 100000, 1050000, 10000);
	ck_assert_uint_eq(wake_draw_ldist(&g, 5000, 5000), 5000);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_le(wake_draw_ldist(&g, 0, 1), 1);
}
END_TEST

/* ---- the split of each wake, on synthetic events ---- */

struct evs {
	const struct tl_event *e;
	size_t n, i;
};

static int next_ev(void *ctx, struct tl_event *e, char *err, size_t errlen)
{
	struct evs *v = ctx;

	(void)err;
	(void)errlen;
	if (v->i == v->n)
		return 0;
	*e = v->e[v->i++];
	return 1;
}

#define EV(t, c, ty, a) { .ts = (t), .cpu = (c), .type = (ty), .arg = (a) }

START_TEST(split_of_each_wake)
{
	/*
	 * CPU 1 measured, sleeper tid 77.
	 * 1: timer, HLT: idle from 100, launch 1000, local timer 1010 inside
	 *    the halt, wakeup 1012, exit 1020, switch 1030, user 1040.
	 * 2: packet, mwait: idle from 2000, launch 3000 (sent on CPU 0),
	 *    exit 3100, IRQ 3110, NET_RX 3120, wakeup 3150, switch 3160,
	 *    user 3200; another task's wakeup ignored.
	 * 3: ipi: CPU busy at launch 4000 (exit at 3900), the sender wakes
	 *    the sleeper on CPU 0 at 4005, the IPI at 4020, no switch
	 *    recorded, user 4100.
	 * 4: no wakeup of the sleeper in the trace: unknown.
	 */
	static const struct tl_event ev[] = {
		EV(100, 1, TL_IDLE, 1),
		EV(1010, 1, TL_TIMER, 0),
		EV(1012, 1, TL_WAKEUP, 77),
		EV(1020, 1, TL_IDLE, TL_EXIT),
		EV(1030, 1, TL_SWITCH, 77),
		EV(2000, 1, TL_IDLE, 2),
		EV(3100, 1, TL_IDLE, TL_EXIT),
		EV(3110, 1, TL_IRQ_ENTRY, 30),
		EV(3120, 1, TL_SOFTIRQ, 3),
		EV(3140, 0, TL_WAKEUP, 99),
		EV(3150, 1, TL_WAKEUP, 77),
		EV(3160, 1, TL_SWITCH, 77),
		EV(3500, 1, TL_IDLE, 1),
		EV(3900, 1, TL_IDLE, TL_EXIT),
		EV(4005, 0, TL_WAKEUP, 77),
		EV(4020, 1, TL_IPI, TL_IPI_RESCHEDULE),
		EV(5010, 1, TL_TIMER, 0),
	};
	struct evs v = { ev, sizeof(ev) / sizeof(ev[0]), 0 };
	struct wake_splitter *w = wake_splitter_new(1, next_ev, &v);
	struct wake_split s;
	char err[128];

	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(wake_split_next(w, 1000, 1040, 77, &s, err, sizeof(err)), 0);
	ck_assert(s.known && s.idle && s.have_switch);
	ck_assert_uint_eq(s.cause, TL_CAUSE_TIMER);
	ck_assert_uint_eq(s.exit_ns, 1020);
	/* T0 = the handler inside the halt: no hardware exit seen */
	ck_assert_uint_eq(s.seg[WAKE_SEG_LAUNCH_EXIT], 10);
	ck_assert_uint_eq(s.seg[WAKE_SEG_HW_EXIT], 0);
	ck_assert_uint_eq(s.seg[WAKE_SEG_KERNEL], 2);
	ck_assert_uint_eq(s.seg[WAKE_SEG_SOFTIRQ], 0);
	ck_assert_uint_eq(s.seg[WAKE_SEG_SCHED], 18);
	ck_assert_uint_eq(s.seg[WAKE_SEG_TO_USER], 10);

	ck_assert_int_eq(wake_split_next(w, 3000, 3200, 77, &s, err, sizeof(err)), 0);
	ck_assert(s.known && s.idle && s.have_switch);
	ck_assert_uint_eq(s.cause, TL_CAUSE_IRQ);
	ck_assert_uint_eq(s.seg[WAKE_SEG_LAUNCH_EXIT], 100);
	ck_assert_uint_eq(s.seg[WAKE_SEG_HW_EXIT], 10);
	ck_assert_uint_eq(s.seg[WAKE_SEG_KERNEL], 40);
	ck_assert_uint_eq(s.seg[WAKE_SEG_SOFTIRQ], 30);
	ck_assert_uint_eq(s.seg[WAKE_SEG_SCHED], 10);
	ck_assert_uint_eq(s.seg[WAKE_SEG_TO_USER], 40);

	ck_assert_int_eq(wake_split_next(w, 4000, 4100, 77, &s, err, sizeof(err)), 0);
	ck_assert(s.known && !s.idle && !s.have_switch);
	ck_assert_uint_eq(s.cause, TL_CAUSE_IPI);
	/* busy at launch: the wake begins with the IPI, no hardware exit;
	 * the wakeup (on the sender's CPU) came before it: no kernel path */
	ck_assert_uint_eq(s.seg[WAKE_SEG_LAUNCH_EXIT], 20);
	ck_assert_uint_eq(s.seg[WAKE_SEG_HW_EXIT], 0);
	ck_assert_uint_eq(s.seg[WAKE_SEG_KERNEL], 0);
	ck_assert_uint_eq(s.seg[WAKE_SEG_SCHED], 80);
	ck_assert_uint_eq(s.seg[WAKE_SEG_TO_USER], 0);

	ck_assert_int_eq(wake_split_next(w, 5000, 5050, 77, &s, err, sizeof(err)), 0);
	ck_assert(!s.known);
	ck_assert_uint_eq(s.handler_ns, 5010);
	/* past the trace's end */
	ck_assert_int_eq(wake_split_next(w, 6000, 6050, 77, &s, err, sizeof(err)), 0);
	ck_assert(!s.known && !s.handler_ns);
	ck_assert_str_eq(wake_seg_name[WAKE_SEG_TO_USER], "to_user");
	wake_splitter_free(w);
}
END_TEST

Suite *wake_suite(void)
{
	Suite *s = suite_create("wake");
	TCase *tc = tcase_create("logic");

	tcase_add_test(tc, attribute_from_usage);
	tcase_add_test(tc, counters_on_fake_sysfs);
	tcase_add_test(tc, no_cpuidle_states);
	tcase_add_test(tc, counters_update_reads_what_moved);
	tcase_add_test(tc, parse_lists);
	tcase_add_test(tc, summary_groups);
	tcase_add_test(tc, stats_and_cost);
	tcase_add_test(tc, launch_schedule);
	tcase_add_test(tc, split_of_each_wake);
	suite_add_tcase(s, tc);
	return s;
}
