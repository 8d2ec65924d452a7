// SPDX-License-Identifier: GPL-2.0
/* The timeline builder on synthetic event streams. */
#include "unit.h"
#include <errno.h>
#include <stdlib.h>
#include "timeline.h"

#define US 1000ull

static void idle(struct timeline *t, uint32_t cpu, uint64_t ts, uint32_t state)
{
	struct tl_event e = { .ts = ts, .cpu = cpu, .type = TL_IDLE, .arg = state };

	ck_assert_int_eq(timeline_add(t, &e), 0);
}

static void irq(struct timeline *t, uint32_t cpu, uint64_t ts, uint32_t n,
		int entry)
{
	struct tl_event e = { .ts = ts, .cpu = cpu, .arg = n, .str = "eth0",
			      .type = entry ? TL_IRQ_ENTRY : TL_IRQ_EXIT };

	ck_assert_int_eq(timeline_add(t, &e), 0);
}

static void ev(struct timeline *t, uint32_t cpu, uint64_t ts,
	       enum tl_type type, uint32_t arg)
{
	struct tl_event e = { .ts = ts, .cpu = cpu, .type = type, .arg = arg,
			      .str = "virtio0-input.0" };

	ck_assert_int_eq(timeline_add(t, &e), 0);
}

static void check_wake(const struct timeline *t, const struct tl_wake *w,
		       uint64_t ts, int32_t state, const char *cause,
		       const char *detail)
{
	ck_assert_uint_eq(w->ts, ts);
	ck_assert_int_eq(w->state, state);
	ck_assert_str_eq(timeline_cause_name(w->cause), cause);
	ck_assert_str_eq(timeline_string(t, w->detail), detail);
}

static void check_iv(const struct tl_interval *iv, uint64_t s, uint64_t e,
		     int32_t state)
{
	ck_assert_uint_eq(iv->start, s);
	ck_assert_uint_eq(iv->end, e);
	ck_assert_int_eq(iv->state, state);
}

/* Every idle exit gets the first interrupt, IPI, timer or softirq after
 * its entry, before or after the exit; nothing before the next entry is
 * "none"; the trace's end leaves it "unknown". */
START_TEST(wake_causes)
{
	struct timeline *t = timeline_new(2, 0);
	const struct tl_wake *w;
	size_t n;

	/* 1: an IPI inside the idle period (HLT: the handler runs first) */
	idle(t, 0, 10 * US, 1);
	ev(t, 0, 20 * US, TL_IPI, TL_IPI_RESCHEDULE);
	idle(t, 0, 21 * US, TL_EXIT);
	/* 2: after the exit; the softirq that follows the IRQ is not it */
	idle(t, 0, 30 * US, 1);
	idle(t, 0, 40 * US, TL_EXIT);
	irq(t, 0, 41 * US, 11, 1);
	ev(t, 0, 42 * US, TL_SOFTIRQ, 3);
	irq(t, 0, 43 * US, 11, 0);
	/* 3: a softirq alone */
	idle(t, 0, 50 * US, 0);
	idle(t, 0, 60 * US, TL_EXIT);
	ev(t, 0, 61 * US, TL_SOFTIRQ, 3);
	/* 4: nothing before the next entry (a polling state) */
	idle(t, 0, 70 * US, 0);
	idle(t, 0, 80 * US, TL_EXIT);
	/* 5: the local timer; an exit repeated is the same wake */
	idle(t, 0, 90 * US, 1);
	ev(t, 0, 95 * US, TL_TIMER, 0);
	idle(t, 0, 100 * US, TL_EXIT);
	idle(t, 0, 101 * US, TL_EXIT);
	/* 6: an interrupt seen in C0 (before any entry) names no wake */
	ev(t, 0, 105 * US, TL_IPI, TL_IPI_CALL_FUNCTION);
	idle(t, 0, 110 * US, 1);
	idle(t, 0, 120 * US, TL_EXIT);	/* then the trace ends */
	/* cpu 1: the trace begins inside an idle period; softirq vector 42 */
	ev(t, 1, 5 * US, TL_SOFTIRQ, 42);
	idle(t, 1, 6 * US, TL_EXIT);
	timeline_finish(t, 200 * US);

	w = timeline_wakes(t, 0, &n);
	ck_assert_uint_eq(n, 6);
	check_wake(t, &w[0], 21 * US, 1, "ipi", "reschedule");
	check_wake(t, &w[1], 40 * US, 1, "irq", "eth0");
	check_wake(t, &w[2], 60 * US, 0, "softirq", "NET_RX");
	check_wake(t, &w[3], 80 * US, 0, "none", "");
	check_wake(t, &w[4], 100 * US, 1, "timer", "local_timer");
	check_wake(t, &w[5], 120 * US, 1, "unknown", "");
	w = timeline_wakes(t, 1, &n);
	ck_assert_uint_eq(n, 1);
	check_wake(t, &w[0], 6 * US, TL_UNKNOWN, "softirq", "vec42");
	ck_assert_ptr_null(timeline_wakes(t, 2, &n));
	ck_assert_str_eq(timeline_ipi_name(TL_IPI_CALL_FUNCTION_SINGLE), "call_function_single");
	ck_assert_str_eq(timeline_cause_name(99), "unknown");
	timeline_free(t);
}
END_TEST

START_TEST(entry_exit_pairing)
{
	struct timeline *t = timeline_new(1, 0);
	const struct tl_interval *iv;
	size_t n;

	idle(t, 0, 10 * US, TL_EXIT);	/* first event an exit: unknown before */
	idle(t, 0, 20 * US, 1);
	idle(t, 0, 50 * US, TL_EXIT);
	idle(t, 0, 60 * US, 2);
	idle(t, 0, 60 * US, 2);		/* repeated entry: no new interval */
	idle(t, 0, 90 * US, TL_EXIT);
	idle(t, 0, 95 * US, TL_EXIT);	/* repeated exit: still one C0 */
	timeline_finish(t, 100 * US);
	iv = timeline_intervals(t, 0, &n);
	ck_assert_uint_eq(n, 6);
	check_iv(&iv[0], 0, 10 * US, TL_UNKNOWN);
	check_iv(&iv[1], 10 * US, 20 * US, TL_C0);
	check_iv(&iv[2], 20 * US, 50 * US, 1);
	check_iv(&iv[3], 50 * US, 60 * US, TL_C0);
	check_iv(&iv[4], 60 * US, 90 * US, 2);
	check_iv(&iv[5], 90 * US, 100 * US, TL_C0);
	timeline_free(t);
}
END_TEST

/* A CPU idle at the end of the trace: its last stay ends there. */
START_TEST(missing_exit_at_end)
{
	struct timeline *t = timeline_new(2, 1000);
	const struct tl_interval *iv;
	size_t n;

	idle(t, 0, 2000, 1);
	timeline_finish(t, 9000);
	iv = timeline_intervals(t, 0, &n);
	ck_assert_uint_eq(n, 2);
	check_iv(&iv[0], 1000, 2000, TL_UNKNOWN);
	check_iv(&iv[1], 2000, 9000, 1);
	/* A CPU with no event at all is unknown throughout. */
	iv = timeline_intervals(t, 1, &n);
	ck_assert_uint_eq(n, 1);
	check_iv(&iv[0], 1000, 9000, TL_UNKNOWN);
	ck_assert_uint_eq(timeline_end(t), 9000);
	timeline_free(t);
}
END_TEST

/* CPUs interleave freely; time going back on one CPU is rejected. */
START_TEST(out_of_order_cpus)
{
	struct timeline *t = timeline_new(2, 0);
	struct tl_event bad = { .ts = 5, .cpu = 0, .type = TL_IDLE, .arg = 1 };
	struct tl_event far = { .ts = 50, .cpu = 7, .type = TL_IDLE, .arg = 1 };
	size_t n0, n1;

	idle(t, 1, 40, 1);
	idle(t, 0, 10, 1);
	idle(t, 1, 45, TL_EXIT);
	idle(t, 0, 20, TL_EXIT);
	ck_assert_int_eq(timeline_add(t, &bad), -EINVAL);
	ck_assert_int_eq(timeline_add(t, &far), -EINVAL);
	ck_assert_uint_eq(timeline_rejected(t), 2);
	timeline_finish(t, 60);
	timeline_intervals(t, 0, &n0);
	timeline_intervals(t, 1, &n1);
	ck_assert_uint_eq(n0, 3);
	ck_assert_uint_eq(n1, 3);
	ck_assert_int_eq(timeline_at(t, 0, 15)->state, 1);
	ck_assert_int_eq(timeline_at(t, 1, 15)->state, TL_UNKNOWN);
	timeline_free(t);
}
END_TEST

START_TEST(lookup_at_boundaries)
{
	struct timeline *t = timeline_new(1, 0);

	idle(t, 0, 100, 1);
	idle(t, 0, 200, TL_EXIT);
	timeline_finish(t, 300);
	/* Intervals are [start, end): a boundary belongs to the next one. */
	ck_assert_int_eq(timeline_at(t, 0, 99)->state, TL_UNKNOWN);
	ck_assert_int_eq(timeline_at(t, 0, 100)->state, 1);
	ck_assert_int_eq(timeline_at(t, 0, 199)->state, 1);
	ck_assert_int_eq(timeline_at(t, 0, 200)->state, TL_C0);
	ck_assert_ptr_null(timeline_at(t, 0, 300));
	ck_assert_ptr_null(timeline_at(t, 3, 10));
	timeline_free(t);
}
END_TEST

START_TEST(residency_sums)
{
	struct timeline *t = timeline_new(1, 0);
	struct tl_residency *r;
	uint64_t sum = 0;
	ssize_t n;

	idle(t, 0, 10, 2);
	idle(t, 0, 30, TL_EXIT);
	idle(t, 0, 40, 1);
	idle(t, 0, 45, TL_EXIT);
	idle(t, 0, 60, 2);
	idle(t, 0, 90, TL_EXIT);
	timeline_finish(t, 100);
	n = timeline_residency(t, 0, 0, UINT64_MAX, &r);
	ck_assert_uint_eq(n, 4);	/* unknown, C0, 1, 2 in state order */
	ck_assert_int_eq(r[0].state, TL_UNKNOWN);
	ck_assert_uint_eq(r[0].time_ns, 10);
	ck_assert_int_eq(r[1].state, TL_C0);
	ck_assert_uint_eq(r[1].time_ns, 10 + 15 + 10);
	ck_assert_uint_eq(r[1].entries, 3);
	ck_assert_int_eq(r[2].state, 1);
	ck_assert_uint_eq(r[2].time_ns, 5);
	ck_assert_int_eq(r[3].state, 2);
	ck_assert_uint_eq(r[3].time_ns, 50);
	ck_assert_uint_eq(r[3].entries, 2);
	for (ssize_t i = 0; i < n; i++)
		sum += r[i].time_ns;
	ck_assert_uint_eq(sum, 100);
	free(r);
	/* A window [35, 70): C0 35-40 and 45-60, state 1 40-45, state 2 60-70. */
	n = timeline_residency(t, 0, 35, 70, &r);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(r[0].state, TL_C0);
	ck_assert_uint_eq(r[0].time_ns, 5 + 15);
	ck_assert_uint_eq(r[0].entries, 1);	/* the stay from 30 began before */
	ck_assert_uint_eq(r[1].time_ns, 5);
	ck_assert_uint_eq(r[2].time_ns, 10);
	free(r);
	timeline_free(t);
}
END_TEST

/* A corrupt trace can name any number of states: past the small-table
 * path the rows come from sort and merge, still one per state, in order,
 * summing to the trace (found by fuzz_timeline). */
START_TEST(residency_many_states)
{
	struct timeline *t = timeline_new(1, 0);
	struct tl_residency *r;
	uint64_t sum = 0, ts = 0;
	ssize_t n;

	for (uint32_t k = 0; k < 300; k++) {
		idle(t, 0, ts += 7, 1000 - k % 150);	/* 150 states, each twice */
		idle(t, 0, ts += 3, TL_EXIT);
	}
	timeline_finish(t, ts + 10);
	n = timeline_residency(t, 0, 0, UINT64_MAX, &r);
	ck_assert_int_eq(n, 1 + 1 + 150);	/* unknown, C0, 150 idle states */
	for (ssize_t i = 0; i < n; i++) {
		sum += r[i].time_ns;
		if (i)
			ck_assert_int_lt(r[i - 1].state, r[i].state);
		if (r[i].state >= 0) {
			ck_assert_uint_eq(r[i].time_ns, 2 * 3);
			ck_assert_uint_eq(r[i].entries, 2);
		}
	}
	ck_assert_uint_eq(sum, ts + 10);
	free(r);
	timeline_free(t);
}
END_TEST

/* IRQ samples: time since the previous interrupt of the same number,
 * handler time from entry to exit, nested handlers on one CPU. */
START_TEST(irq_durations_and_nesting)
{
	struct timeline *t = timeline_new(2, 0);
	const struct tl_irq *q;
	size_t n;

	irq(t, 0, 100, 24, 1);
	irq(t, 0, 110, 30, 1);	/* nested inside 24 */
	irq(t, 0, 115, 30, 0);
	irq(t, 0, 130, 24, 0);
	irq(t, 1, 200, 24, 1);	/* same IRQ on another CPU */
	irq(t, 1, 205, 24, 0);
	irq(t, 0, 400, 30, 1);
	irq(t, 0, 401, 30, 0);
	irq(t, 0, 500, 99, 0);	/* exit without entry: ignored */
	q = timeline_irqs(t, &n);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(q[0].irq, 24);
	ck_assert_uint_eq(q[0].since_prev_ns, 0);
	ck_assert_uint_eq(q[0].handler_ns, 30);
	ck_assert_uint_eq(q[1].irq, 30);
	ck_assert_uint_eq(q[1].handler_ns, 5);
	ck_assert_uint_eq(q[2].since_prev_ns, 100);	/* 24: 100 -> 200 */
	ck_assert_uint_eq(q[2].cpu, 1);
	ck_assert_uint_eq(q[3].since_prev_ns, 290);	/* 30: 110 -> 400 */
	ck_assert_str_eq(timeline_string(t, q[3].name), "eth0");
	timeline_free(t);
}
END_TEST

START_TEST(markers_kept)
{
	struct timeline *t = timeline_new(1, 0);
	struct tl_event m = { .ts = 5, .cpu = 0, .type = TL_MARKER, .str = "wb req 7" };
	const struct tl_marker *mk;
	size_t n;

	ck_assert_int_eq(timeline_add(t, &m), 0);
	m.ts = 9;
	m.str = "wb pq 8";
	ck_assert_int_eq(timeline_add(t, &m), 0);
	mk = timeline_markers(t, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(timeline_string(t, mk[0].text), "wb req 7");
	ck_assert_str_eq(timeline_string(t, mk[1].text), "wb pq 8");
	ck_assert_uint_eq(mk[1].ts, 9);
	timeline_free(t);
}
END_TEST

/* CPUs without any cpu_idle event are told apart (their state is unknown
 * throughout, and callers warn). */
START_TEST(idle_events_counted_per_cpu)
{
	struct timeline *t = timeline_new(3, 0);
	struct tl_event mk = { .ts = 5, .cpu = 2, .type = TL_MARKER, .str = "x" };

	idle(t, 0, 10, 1);
	idle(t, 0, 20, TL_EXIT);
	irq(t, 1, 15, 3, 1);	/* an IRQ is no idle event */
	ck_assert_int_eq(timeline_add(t, &mk), 0);
	timeline_finish(t, 100);
	ck_assert_uint_eq(timeline_idle_events(t, 0), 2);
	ck_assert_uint_eq(timeline_idle_events(t, 1), 0);
	ck_assert_uint_eq(timeline_idle_events(t, 2), 0);
	ck_assert_uint_eq(timeline_idle_events(t, 7), 0);
	timeline_free(t);
}
END_TEST

Suite *timeline_suite(void)
{
	Suite *s = suite_create("timeline");
	TCase *tc = tcase_create("synthetic");

	tcase_add_test(tc, entry_exit_pairing);
	tcase_add_test(tc, wake_causes);
	tcase_add_test(tc, missing_exit_at_end);
	tcase_add_test(tc, out_of_order_cpus);
	tcase_add_test(tc, lookup_at_boundaries);
	tcase_add_test(tc, residency_sums);
	tcase_add_test(tc, residency_many_states);
	tcase_add_test(tc, irq_durations_and_nesting);
	tcase_add_test(tc, markers_kept);
	tcase_add_test(tc, idle_events_counted_per_cpu);
	suite_add_tcase(s, tc);
	return s;
}
