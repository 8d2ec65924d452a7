// SPDX-License-Identifier: GPL-2.0
/* Attribution of requests to the C-state their core was in, and the
 * breakdown of their wakes, on synthetic event streams. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "unit.h"
#include "attrib.h"

#define MAXR 512

/* Events and messages from arrays, through the streaming engine. */
struct arrays {
	const struct tl_event *ev;
	size_t nev, i;
	const struct attr_msg *m;
	size_t nm, j;
	struct attr_result r[MAXR];
	size_t nr;
};

static int next_ev(void *ctx, struct tl_event *e, char *err, size_t errlen)
{
	struct arrays *a = ctx;

	(void)err;
	(void)errlen;
	if (a->i == a->nev)
		return 0;
	*e = a->ev[a->i++];
	return 1;
}

static int next_msg(void *ctx, struct attr_msg *m, char *err, size_t errlen)
{
	struct arrays *a = ctx;

	(void)err;
	(void)errlen;
	if (a->j == a->nm)
		return 0;
	*m = a->m[a->j++];
	return 1;
}

static int keep(void *ctx, const struct attr_result *r)
{
	struct arrays *a = ctx;

	ck_assert_uint_lt(a->nr, MAXR);
	a->r[a->nr++] = *r;
	return 0;
}

/* The CPUs of the trace's two that were recorded (NULL: both). */
static const unsigned char *recorded;
/* The trace recorded power:cpu_idle_miss. */
static int with_miss;

/* Runs the engine for cpu 0 (pid: the server's thread, -1 unknown);
 * messages NULL: the markers in the events. Returns its status. */
static int run_pid(struct arrays *a, const struct tl_event *ev, size_t nev,
		   const struct attr_msg *m, size_t nm, int64_t pid,
		   uint64_t end, char *err)
{
	struct timeline *t = timeline_stream(2, 0, NULL);
	struct attr_source src = { .ctx = a, .next_event = next_ev,
				   .next_msg = m ? next_msg : NULL };
	struct attr_opts o = { .cpu = m ? 0 : -1, .pid = pid, .fn = keep, .ctx = a,
			       .recorded = recorded, .ncpus = 2,
			       .idle_miss = with_miss };
	struct attr_stats st;
	int ret;

	a->ev = ev;
	a->nev = nev;
	a->i = 0;
	a->m = m;
	a->nm = nm;
	a->j = 0;
	a->nr = 0;
	ck_assert_ptr_nonnull(t);
	ret = attrib_run(t, &src, &o, end, &st, err, 512);
	timeline_free(t);
	return ret;
}

static size_t run(struct arrays *a, const struct tl_event *ev, size_t nev,
		  const struct attr_msg *m, size_t nm)
{
	char err[512];

	ck_assert_int_eq(run_pid(a, ev, nev, m, nm, -1, 1000, err), 0);
	return a->nr;
}

#define IDLE(t, s) { .ts = (t), .cpu = 0, .type = TL_IDLE, .arg = (s) }
#define N(x) (sizeof(x) / sizeof((x)[0]))

/*
 * cpu0: idle state 1 on [100, 200), C0 [200, 300), state 2 [300, 500),
 * C0 [500, 520), state 1 [520, 600), C0 from 600.
 */
static const struct tl_event sample[] = {
	IDLE(50, TL_EXIT), IDLE(100, 1), IDLE(200, TL_EXIT), IDLE(300, 2),
	IDLE(500, TL_EXIT), IDLE(520, 1), IDLE(600, TL_EXIT),
};

static struct arrays A;

START_TEST(state_at_arrival)
{
	struct attr_msg m[] = {
		{ .seq = 1, .recv_ns = 210, .send_ns = 250 },	/* woke at 200 */
		{ .seq = 2, .recv_ns = 260, .send_ns = 280 },	/* still awake */
		{ .seq = 3, .recv_ns = 505, .send_ns = 510 },	/* woke at 500 */
		{ .seq = 4, .recv_ns = 700, .send_ns = 710 },	/* woke at 600 */
	};
	struct attr_result *r = A.r;

	ck_assert_uint_eq(run(&A, sample, N(sample), m, 4), 4);
	ck_assert_int_eq(r[0].state, 1);
	ck_assert_uint_eq(r[0].idle_end_ns, 200);
	ck_assert_uint_eq(r[0].exit_to_recv_ns, 10);
	ck_assert_int_eq(r[1].state, TL_C0);
	ck_assert_uint_eq(r[1].idle_end_ns, 0);
	ck_assert_int_eq(r[2].state, 2);
	ck_assert_uint_eq(r[2].exit_to_recv_ns, 5);
	ck_assert_int_eq(r[3].state, 1);
	ck_assert_uint_eq(r[3].idle_end_ns, 600);
}
END_TEST

/* Receive exactly at the idle exit, and a previous send exactly at an
 * exit: boundaries belong to the later interval. */
START_TEST(interval_boundaries)
{
	struct attr_msg m[] = {
		{ .seq = 1, .recv_ns = 200, .send_ns = 500 },	/* at the exit */
		{ .seq = 2, .recv_ns = 505, .send_ns = 506 },	/* woke at 500 = prev send */
	};

	ck_assert_uint_eq(run(&A, sample, N(sample), m, 2), 2);
	ck_assert_int_eq(A.r[0].state, 1);
	ck_assert_uint_eq(A.r[0].exit_to_recv_ns, 0);
	/* The idle period [300, 500) ended at the previous activity, not
	 * after it: the core was not woken for message 2. */
	ck_assert_int_eq(A.r[1].state, TL_C0);
}
END_TEST

START_TEST(prequery_woke_the_core)
{
	struct attr_msg m[] = {
		{ .seq = 7, .prequery = 1, .recv_ns = 205 },	/* woke at 200 */
		{ .seq = 7, .recv_ns = 240, .send_ns = 250 },	/* core awake */
		{ .seq = 8, .prequery = 1, .recv_ns = 270 },	/* core awake */
		{ .seq = 8, .recv_ns = 505, .send_ns = 510 },	/* slept again */
		{ .seq = 9, .recv_ns = 605, .send_ns = 610 },	/* no pre-query */
	};
	struct attr_result *r = A.r;

	ck_assert_uint_eq(run(&A, sample, N(sample), m, 5), 3);
	ck_assert_int_eq(r[0].state, TL_C0);
	ck_assert_int_eq(r[0].prequery_woke, 1);
	ck_assert_int_eq(r[0].prequery, ATTR_PQ_WOKE);
	ck_assert_int_eq(r[1].state, 2);	/* pre-query too early */
	ck_assert_int_eq(r[1].prequery_woke, 0);
	ck_assert_int_eq(r[1].prequery, ATTR_PQ_AWAKE);
	ck_assert_int_eq(r[2].prequery_woke, 0);
	ck_assert_int_eq(r[2].prequery, ATTR_PQ_NONE);
}
END_TEST

/* Before the first event the state is unknown, and reported so. */
START_TEST(unknown_before_first_event)
{
	struct tl_event ev[] = { IDLE(20, TL_EXIT) };
	struct attr_msg m[] = { { .seq = 1, .recv_ns = 30, .send_ns = 35 },
				{ .seq = 2, .recv_ns = 40, .send_ns = 45 } };
	struct tl_event none[] = { { .ts = 5, .cpu = 1, .type = TL_IDLE, .arg = 1 } };

	ck_assert_uint_eq(run(&A, ev, 1, m, 1), 1);
	ck_assert_int_eq(A.r[0].state, TL_UNKNOWN);
	ck_assert_uint_eq(A.r[0].idle_end_ns, 20);
	/* a CPU with no event at all: unknown throughout */
	ck_assert_uint_eq(run(&A, none, 1, m, 2), 2);
	ck_assert_int_eq(A.r[0].state, TL_UNKNOWN);
	ck_assert_int_eq(A.r[1].state, TL_UNKNOWN);
	ck_assert_uint_eq(A.r[1].idle_end_ns, 0);
}
END_TEST

/*
 * An in-band pre-query and its request read by one read(): one receive
 * time. The pre-query gave no head start: "together", not woke, and the
 * request is given the state the pair found (idle state 1, left at 200).
 */
START_TEST(prequery_together_in_one_read)
{
	struct attr_msg m[] = {
		{ .seq = 7, .prequery = 1, .recv_ns = 210 },
		{ .seq = 7, .recv_ns = 210, .send_ns = 250 },
		/* the request logged first, its pre-query after it */
		{ .seq = 8, .recv_ns = 505, .send_ns = 510 },
		{ .seq = 8, .prequery = 1, .recv_ns = 505 },
	};
	struct attr_result *r = A.r;

	ck_assert_uint_eq(run(&A, sample, N(sample), m, 4), 2);
	ck_assert_int_eq(r[0].prequery, ATTR_PQ_TOGETHER);
	ck_assert_int_eq(r[0].prequery_woke, 0);
	ck_assert_int_eq(r[0].state, 1);
	ck_assert_uint_eq(r[0].idle_end_ns, 200);
	ck_assert_uint_eq(r[0].exit_to_recv_ns, 10);
	ck_assert_uint_eq(r[0].seq, 7);
	ck_assert_uint_eq(r[0].send_ns, 250);
	ck_assert_int_eq(r[1].prequery, ATTR_PQ_TOGETHER);
	ck_assert_int_eq(r[1].prequery_woke, 0);
	ck_assert_int_eq(r[1].state, 2);
	ck_assert_str_eq(attrib_pq_name(ATTR_PQ_TOGETHER), "together");
	ck_assert_str_eq(attrib_pq_name(ATTR_PQ_WOKE), "woke");
}
END_TEST

/*
 * Read together but sent apart: the demo's 100 us pre-query reached a
 * core that took longer than that to wake, so the server read pre-query
 * and request at once; the pre-query still began the wake. Only the
 * client's effective lead tells the two cases apart.
 */
START_TEST(together_but_sent_apart_woke)
{
	struct attr_msg m[] = {
		{ .seq = 7, .prequery = 1, .recv_ns = 210 },
		{ .seq = 7, .recv_ns = 210, .send_ns = 250 },
		{ .seq = 8, .prequery = 1, .recv_ns = 505 },
		{ .seq = 8, .recv_ns = 505, .send_ns = 510 },
	};
	struct attr_result *r = A.r, c0 = { .state = TL_C0,
					    .prequery = ATTR_PQ_TOGETHER };

	ck_assert_uint_eq(run(&A, sample, N(sample), m, 4), 2);
	attrib_client_lead(&r[0], 100000);	/* sent 100 us apart */
	ck_assert_int_eq(r[0].prequery, ATTR_PQ_WOKE);
	ck_assert_int_eq(r[0].prequery_woke, 1);
	attrib_client_lead(&r[1], 0);		/* sent in one send() */
	ck_assert_int_eq(r[1].prequery, ATTR_PQ_TOGETHER);
	ck_assert_int_eq(r[1].prequery_woke, 0);
	attrib_client_lead(&c0, 100000);	/* the core was up: no wake */
	ck_assert_int_eq(c0.prequery, ATTR_PQ_TOGETHER);
}
END_TEST

/* A tied log (pairs read by one read()): every request of a pair is
 * "together" whatever order the pair was logged in. */
START_TEST(tied_pairs_all_together)
{
	enum { N = 400 };
	struct attr_msg *m = malloc(N * sizeof(*m));

	for (int i = 0; i < N; i++)
		m[i] = (struct attr_msg){ .seq = (uint64_t)(i / 2),
					  .prequery = (i / 2) % 3 ? !(i & 1) : (i & 1),
					  .recv_ns = 700 + (uint64_t)(i / 2) * 3 };
	ck_assert_uint_eq(run(&A, sample, N(sample), m, N), N / 2);
	for (size_t i = 0; i < A.nr; i++) {
		ck_assert_int_eq(A.r[i].prequery, ATTR_PQ_TOGETHER);
		ck_assert_int_eq(A.r[i].prequery_woke, 0);
	}
	free(m);
}
END_TEST

/* A message logged while the trace still shows its core idle (the log's
 * clock a little ahead): it found that idle state, whose exit is later. */
START_TEST(logged_inside_idle)
{
	struct attr_msg m[] = { { .seq = 1, .recv_ns = 195, .send_ns = 230 },
				{ .seq = 2, .recv_ns = 198, .send_ns = 240 } };

	ck_assert_uint_eq(run(&A, sample, N(sample), m, 2), 2);
	ck_assert_int_eq(A.r[0].state, 1);
	ck_assert_uint_eq(A.r[0].idle_end_ns, 200);
	ck_assert_uint_eq(A.r[0].exit_to_recv_ns, 0);
	ck_assert_int_eq(A.r[1].state, TL_C0);	/* after the first's send */
}
END_TEST

/* Messages in a log that goes back in time, and a log of another CPU
 * (messages while the core stays idle) are errors, not results. */
START_TEST(bad_logs_refused)
{
	struct attr_msg back[] = { { .seq = 1, .recv_ns = 210 }, { .seq = 2, .recv_ns = 205 } };
	struct tl_event idle_long[] = { IDLE(10, 1), IDLE(900000, TL_EXIT) };
	struct attr_msg *many = malloc(70000 * sizeof(*many));
	char err[512];

	ck_assert_int_eq(run_pid(&A, sample, N(sample), back, 2, -1, 1000, err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "out of receive order"));
	for (int i = 0; i < 70000; i++)
		many[i] = (struct attr_msg){ .seq = (uint64_t)i, .recv_ns = 100 + (uint64_t)i,
					     .send_ns = 100 + (uint64_t)i };
	ck_assert_int_eq(run_pid(&A, idle_long, 2, many, 70000, -1, 1000000, err), -E2BIG);
	ck_assert_ptr_nonnull(strstr(err, "while the trace shows cpu0 idle"));
	free(many);
}
END_TEST

/* ---- the breakdown of a wake -------------------------------------------- */

#define WAKEUP(t, p, c) { .ts = (t), .cpu = (c), .type = TL_WAKEUP, .arg = (p), .arg2 = 0 }
#define IPI(t, k) { .ts = (t), .cpu = 0, .type = TL_IPI, .arg = (k) }
#define SWITCH(t, p) { .ts = (t), .cpu = 0, .type = TL_SWITCH, .arg = (p) }
#define MARK(t, s) { .ts = (t), .cpu = 0, .type = TL_MARKER, .str = (s), .pid = 42 }

static void check_bd(const struct attr_result *r, uint64_t hw, uint64_t kernel,
		     uint64_t sched, uint64_t wake)
{
	ck_assert_int_eq(r->have_breakdown, 1);
	ck_assert_uint_eq(r->hw_exit_ns, hw);
	ck_assert_uint_eq(r->kernel_ns, kernel);
	ck_assert_uint_eq(r->sched_ns, sched);
	ck_assert_uint_eq(r->wake_ns, wake);
	ck_assert_uint_eq(r->hw_exit_ns + r->kernel_ns + r->sched_ns, r->wake_ns);
}

/*
 * HLT: the IPI's handler runs inside the halt and does the wakeup (the
 * remote wake-up queue), then the exit is traced: H < W < E < R. The wake
 * starts at H; no hardware exit is visible.
 */
START_TEST(breakdown_handler_inside_idle)
{
	struct tl_event ev[] = {
		IDLE(100, 1), IPI(1000, TL_IPI_CALL_FUNCTION_SINGLE),
		WAKEUP(1003, 42, 0), IDLE(1010, TL_EXIT), SWITCH(1012, 42),
	};
	struct attr_msg m[] = { { .seq = 1, .recv_ns = 1020, .send_ns = 1030 } };
	char err[512];

	ck_assert_int_eq(run_pid(&A, ev, N(ev), m, 1, 42, 2000, err), 0);
	ck_assert_int_eq(A.r[0].state, 1);
	ck_assert_uint_eq(A.r[0].cause, TL_CAUSE_IPI);
	ck_assert_uint_eq(A.r[0].cause_ns, 1000);
	ck_assert_uint_eq(A.r[0].wakeup_ns, 1003);
	ck_assert_uint_eq(A.r[0].switch_ns, 1012);
	ck_assert_uint_eq(A.r[0].exit_to_recv_ns, 10);
	check_bd(&A.r[0], 0, 3, 17, 20);
}
END_TEST

/* mwait (interrupts off while idle): the exit first, then the handler:
 * E < H < W < R; and a wakeup from another CPU before the IPI that tells
 * this core (W < H): no kernel path on this core. */
START_TEST(breakdown_exit_first_and_remote_wakeup)
{
	struct tl_event ev[] = {
		IDLE(100, 2), IDLE(1000, TL_EXIT),
		{ .ts = 1004, .cpu = 0, .type = TL_IRQ_ENTRY, .arg = 30, .str = "eth0" },
		WAKEUP(1009, 42, 0), { .ts = 1010, .cpu = 0, .type = TL_IRQ_EXIT, .arg = 30 },
		IDLE(2000, 2), WAKEUP(2995, 42, 1), IDLE(3000, TL_EXIT),
		IPI(3002, TL_IPI_RESCHEDULE),
	};
	struct attr_msg m[] = { { .seq = 1, .recv_ns = 1025, .send_ns = 1030 },
				{ .seq = 2, .recv_ns = 3010, .send_ns = 3020 } };
	char err[512];

	ck_assert_int_eq(run_pid(&A, ev, N(ev), m, 2, 42, 4000, err), 0);
	ck_assert_uint_eq(A.r[0].cause, TL_CAUSE_IRQ);
	check_bd(&A.r[0], 4, 5, 16, 25);
	ck_assert_uint_eq(A.r[1].cause_ns, 3002);
	ck_assert_uint_eq(A.r[1].wakeup_ns, 2995);
	check_bd(&A.r[1], 2, 0, 8, 10);
}
END_TEST

/* A polling state woken with no interrupt (cause none): H is E. Without
 * the thread's wakeup the last two segments are unknown; a request in C0
 * has only scheduling, from a wakeup after the previous activity. */
START_TEST(breakdown_no_handler_no_wakeup_and_c0)
{
	struct tl_event ev[] = {
		IDLE(100, 0), WAKEUP(990, 42, 1), IDLE(1000, TL_EXIT),
		IDLE(2000, 1), IDLE(2500, TL_EXIT),
		WAKEUP(3000, 42, 1),
	};
	struct attr_msg m[] = { { .seq = 1, .recv_ns = 1006, .send_ns = 1010 },
				{ .seq = 2, .recv_ns = 2510, .send_ns = 2520 },
				{ .seq = 3, .recv_ns = 3007, .send_ns = 3010 },
				{ .seq = 4, .recv_ns = 3011, .send_ns = 3015 } };
	char err[512];

	ck_assert_int_eq(run_pid(&A, ev, N(ev), m, 4, 42, 4000, err), 0);
	ck_assert_uint_eq(A.r[0].cause, TL_CAUSE_NONE);
	check_bd(&A.r[0], 0, 0, 6, 6);
	/* the wakeup at 990 is before the previous activity (1010) */
	ck_assert_int_eq(A.r[1].state, 1);
	ck_assert_int_eq(A.r[1].have_breakdown, 0);
	ck_assert_uint_eq(A.r[1].wake_ns, 10);
	/* C0: woken at 3000, received at 3007 */
	ck_assert_int_eq(A.r[2].state, TL_C0);
	check_bd(&A.r[2], 0, 0, 7, 7);
	/* C0, the thread running (no wakeup after 3010) */
	check_bd(&A.r[3], 0, 0, 0, 0);
	/* the thread unknown: nothing but the hardware part */
	ck_assert_int_eq(run_pid(&A, ev, N(ev), m, 4, -1, 4000, err), 0);
	ck_assert_int_eq(A.r[0].have_breakdown, 0);
	ck_assert_int_eq(A.r[2].have_breakdown, 0);
	ck_assert_uint_eq(A.r[0].wakeup_ns, 0);
}
END_TEST

/* From markers: the server's CPU and thread are the first marker's; a
 * wakeup seen before that marker still counts; markers of other CPUs
 * are left out; a pre-query read with its request gives the request the
 * pair's breakdown. */
START_TEST(breakdown_from_markers)
{
	struct tl_event ev[] = {
		IDLE(100, 1), IPI(1000, TL_IPI_CALL_FUNCTION_SINGLE),
		WAKEUP(1002, 42, 0), IDLE(1005, TL_EXIT),
		MARK(1020, "wb pqrecv 5"), MARK(1020, "wb recv 5"),
		{ .ts = 1030, .cpu = 1, .type = TL_MARKER, .str = "wb recv 9", .pid = 7 },
		MARK(1040, "something else"),
	};
	char err[512];

	ck_assert_int_eq(run_pid(&A, ev, N(ev), NULL, 0, -1, 2000, err), 0);
	ck_assert_uint_eq(A.nr, 1);
	ck_assert_uint_eq(A.r[0].seq, 5);
	ck_assert_int_eq(A.r[0].prequery, ATTR_PQ_TOGETHER);
	ck_assert_int_eq(A.r[0].state, 1);
	ck_assert_uint_eq(A.r[0].wakeup_ns, 1002);
	check_bd(&A.r[0], 0, 2, 18, 20);
}
END_TEST

/*
 * The core woke for something else and was busy when the request came
 * (seen here: a timer ended the idle stay, other work ran on the core for
 * milliseconds, then the request's IPI woke the server's thread): the
 * request found C0, not the idle state. An exit-first wake whose handler
 * woke the thread stays idle, also with a softirq between (a NIC's IRQ,
 * then NET_RX doing the wakeup), but not with another interrupt between.
 */
START_TEST(breakdown_busy_core)
{
	struct tl_event hlt[] = {
		IDLE(100, 1), { .ts = 1000, .cpu = 0, .type = TL_TIMER },
		IDLE(1002, TL_EXIT),
		IPI(16000, TL_IPI_CALL_FUNCTION_SINGLE), WAKEUP(16002, 42, 0),
	};
	struct tl_event exit_first[] = {
		/* 1: an IRQ, its softirq doing the wakeup */
		IDLE(100, 2), IDLE(1000, TL_EXIT),
		{ .ts = 1003, .cpu = 0, .type = TL_IRQ_ENTRY, .arg = 30, .str = "eth0" },
		{ .ts = 1005, .cpu = 0, .type = TL_IRQ_EXIT, .arg = 30 },
		{ .ts = 1006, .cpu = 0, .type = TL_SOFTIRQ, .arg = 3 },
		WAKEUP(1008, 42, 0),
		/* 2: a timer ends the stay, the request's IPI comes later */
		IDLE(2000, 2), IDLE(3000, TL_EXIT), { .ts = 3001, .cpu = 0, .type = TL_TIMER },
		IPI(9000, TL_IPI_CALL_FUNCTION_SINGLE), WAKEUP(9002, 42, 0),
	};
	struct attr_msg m1[] = { { .seq = 1, .recv_ns = 16010, .send_ns = 16020 } };
	struct attr_msg m2[] = { { .seq = 1, .recv_ns = 1020, .send_ns = 1030 },
				 { .seq = 2, .recv_ns = 9010, .send_ns = 9020 } };
	char err[512];

	ck_assert_int_eq(run_pid(&A, hlt, N(hlt), m1, 1, 42, 20000, err), 0);
	ck_assert_int_eq(A.r[0].state, TL_C0);
	ck_assert_uint_eq(A.r[0].idle_end_ns, 0);
	check_bd(&A.r[0], 0, 0, 8, 8);
	/* without the thread's wakeup the old rule stands: it found state 1 */
	ck_assert_int_eq(run_pid(&A, hlt, N(hlt), m1, 1, -1, 20000, err), 0);
	ck_assert_int_eq(A.r[0].state, 1);
	ck_assert_int_eq(run_pid(&A, exit_first, N(exit_first), m2, 2, 42, 20000, err), 0);
	ck_assert_int_eq(A.r[0].state, 2);
	ck_assert_uint_eq(A.r[0].cause, TL_CAUSE_IRQ);
	check_bd(&A.r[0], 3, 5, 12, 20);
	ck_assert_int_eq(A.r[1].state, TL_C0);
	check_bd(&A.r[1], 0, 0, 8, 8);
}
END_TEST

/*
 * A trace of cpu0 only (trace record --cpus 0): the server's thread was
 * woken from cpu1, not recorded, so its sched_wakeup is missing and the
 * first rule alone says idle: uncertain. The same events with both CPUs
 * recorded are certain (nothing woke the thread elsewhere), and so is a
 * request whose wakeup the trace has, or one that found C0.
 */
START_TEST(uncertain_without_the_waking_cpu)
{
	static const unsigned char only0[2] = { 1, 0 };
	struct tl_event ev[] = {
		IDLE(100, 1), { .ts = 1000, .cpu = 0, .type = TL_TIMER },
		IDLE(1002, TL_EXIT),			/* request 1: no wakeup */
		IDLE(2000, 1), IPI(3000, TL_IPI_RESCHEDULE),
		WAKEUP(3001, 42, 0), IDLE(3002, TL_EXIT),	/* request 2 */
	};
	struct attr_msg m[] = { { .seq = 1, .recv_ns = 1500, .send_ns = 1510 },
				{ .seq = 2, .recv_ns = 3010, .send_ns = 3020 },
				{ .seq = 3, .recv_ns = 3030, .send_ns = 3040 } };
	char err[512];

	recorded = only0;
	ck_assert_int_eq(run_pid(&A, ev, N(ev), m, 3, 42, 4000, err), 0);
	recorded = NULL;
	ck_assert_uint_eq(A.nr, 3);
	ck_assert_int_eq(A.r[0].state, 1);	/* the first rule's guess */
	ck_assert_int_eq(A.r[0].uncertain, 1);
	ck_assert_int_eq(A.r[1].state, 1);
	ck_assert_int_eq(A.r[1].uncertain, 0);
	ck_assert_int_eq(A.r[2].state, TL_C0);
	ck_assert_int_eq(A.r[2].uncertain, 0);
	/* every CPU recorded: no wakeup means none happened elsewhere */
	ck_assert_int_eq(run_pid(&A, ev, N(ev), m, 3, 42, 4000, err), 0);
	ck_assert_int_eq(A.r[0].uncertain, 0);
	/* the thread unknown on a partial trace: every idle one is a guess */
	recorded = only0;
	ck_assert_int_eq(run_pid(&A, ev, N(ev), m, 3, -1, 4000, err), 0);
	recorded = NULL;
	ck_assert_int_eq(A.r[0].uncertain, 1);
	ck_assert_int_eq(A.r[1].uncertain, 1);
	ck_assert_int_eq(A.r[2].uncertain, 0);
}
END_TEST

/*
 * An idle exit before the client sent the request cannot be its wake:
 * the core was up from then to the receive, so it found C0. An exit at
 * or after the send stands, and a send time after the receive (another
 * host's clock) is not used.
 */
START_TEST(exit_before_send_is_busy)
{
	struct attr_msg m[] = { { .seq = 4, .recv_ns = 700, .send_ns = 710 } };
	struct attr_result r;

	ck_assert_uint_eq(run(&A, sample, N(sample), m, 1), 1);
	ck_assert_int_eq(A.r[0].state, 1);
	ck_assert_uint_eq(A.r[0].idle_end_ns, 600);
	r = A.r[0];
	attrib_client_send(&r, 600);	/* sent at the exit: stands */
	ck_assert_int_eq(r.state, 1);
	attrib_client_send(&r, 0);	/* unknown */
	ck_assert_int_eq(r.state, 1);
	attrib_client_send(&r, 701);	/* after the receive: another clock */
	ck_assert_int_eq(r.state, 1);
	r.uncertain = 1;
	attrib_client_send(&r, 650);	/* the exit 50 ns before the send */
	ck_assert_int_eq(r.state, TL_C0);
	ck_assert_uint_eq(r.idle_end_ns, 0);
	ck_assert_uint_eq(r.exit_to_recv_ns, 0);
	ck_assert_uint_eq(r.cause_ns, 0);
	ck_assert_uint_eq(r.hw_exit_ns, 0);
	ck_assert_int_eq(r.uncertain, 0);
	/* a pair read together then stays together, not woke */
	r = A.r[0];
	r.prequery = ATTR_PQ_TOGETHER;
	attrib_client_send(&r, 650);
	attrib_client_lead(&r, 100);
	ck_assert_int_eq(r.prequery, ATTR_PQ_TOGETHER);
	ck_assert_int_eq(r.prequery_woke, 0);
}
END_TEST

#define MISS(t, c, s, below) { .ts = (t), .cpu = (c), .type = TL_IDLE_MISS, \
				.arg = (s), .arg2 = (below) }

/*
 * power:cpu_idle_miss, emitted on the way out of an idle: each request
 * gets the miss of its core's last idle before it (above: too deep,
 * below: too shallow), none when that idle had none, unknown when the
 * trace did not record the event or the core is idle to the end.
 */
START_TEST(idle_miss_per_request)
{
	static const struct tl_event ev[] = {
		IDLE(100, 2), IDLE(200, TL_EXIT), MISS(203, 0, 2, 0),
		IDLE(300, 1), IDLE(400, TL_EXIT), MISS(402, 0, 1, 1),
		IDLE(500, 1), IDLE(600, TL_EXIT), MISS(605, 1, 1, 0),
		IDLE(700, 2),
	};
	struct attr_msg m[] = {
		{ .seq = 1, .recv_ns = 210, .send_ns = 220 },	/* too deep */
		{ .seq = 2, .recv_ns = 410, .send_ns = 420 },	/* too shallow */
		{ .seq = 3, .recv_ns = 610, .send_ns = 620 },	/* cpu1's miss */
		{ .seq = 4, .recv_ns = 650, .send_ns = 660 },	/* C0: none */
		{ .seq = 5, .recv_ns = 750, .send_ns = 0 },	/* idle to the end */
	};
	static const struct tl_event mk[] = {
		IDLE(100, 1), IDLE(200, TL_EXIT), MISS(201, 0, 1, 1),
		{ .ts = 220, .cpu = 0, .type = TL_MARKER, .str = "wb recv 1", .pid = 42 },
	};
	char err[512];

	with_miss = 1;
	ck_assert_uint_eq(run(&A, ev, N(ev), m, N(m)), 5);
	ck_assert_int_eq(A.r[0].idle_miss, ATTR_MISS_ABOVE);
	ck_assert_int_eq(A.r[1].idle_miss, ATTR_MISS_BELOW);
	ck_assert_int_eq(A.r[2].idle_miss, ATTR_MISS_NONE);
	ck_assert_int_eq(A.r[3].state, TL_C0);
	ck_assert_int_eq(A.r[3].idle_miss, ATTR_MISS_NONE);
	ck_assert_int_eq(A.r[4].idle_miss, ATTR_MISS_UNKNOWN);
	ck_assert_str_eq(attrib_miss_name(A.r[0].idle_miss), "above");
	ck_assert_str_eq(attrib_miss_name(A.r[1].idle_miss), "below");
	ck_assert_str_eq(attrib_miss_name(ATTR_MISS_UNKNOWN), "");
	/* from markers: a miss before the first marker names the core */
	ck_assert_int_eq(run_pid(&A, mk, N(mk), NULL, 0, -1, 1000, err), 0);
	ck_assert_uint_eq(A.nr, 1);
	ck_assert_int_eq(A.r[0].idle_miss, ATTR_MISS_BELOW);
	/* not recorded: unknown, whatever the events */
	with_miss = 0;
	ck_assert_uint_eq(run(&A, ev, N(ev), m, N(m)), 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(A.r[i].idle_miss, ATTR_MISS_UNKNOWN);
}
END_TEST

/* The traced wake beside the latency: the means over the same requests. */
START_TEST(wake_share_of_latency)
{
	struct attr_share sh = { 0 }, nolat = { 0 };
	struct attr_result idle = { .state = 1, .idle_end_ns = 500, .wake_ns = 12500 };
	struct attr_result c0 = { .state = TL_C0, .have_breakdown = 1, .wake_ns = 3000 };
	struct attr_result c0_nothread = { .state = TL_C0, .wake_ns = 0 };
	struct attr_result unknown = { .state = TL_UNKNOWN, .wake_ns = 99999 };

	ck_assert(attrib_wake_known(&idle));
	ck_assert(attrib_wake_known(&c0));
	ck_assert(!attrib_wake_known(&c0_nothread));
	ck_assert(!attrib_wake_known(&unknown));
	ck_assert(isnan(attrib_share_pct(&sh)) && isnan(attrib_share_wake(&sh)));
	/* the example: 12.5 us of 57.6 us */
	attrib_share_add(&sh, &idle, 57600);
	ck_assert_uint_eq(attrib_share_n(&sh), 1);
	ck_assert(fabs(attrib_share_pct(&sh) - 100.0 * 12.5 / 57.6) < 1e-9);
	/* unknown wakes are left out of both means */
	attrib_share_add(&sh, &unknown, 1000000);
	attrib_share_add(&sh, &c0_nothread, 1000000);
	attrib_share_add(&sh, &c0, 42400);
	ck_assert_uint_eq(attrib_share_n(&sh), 2);
	ck_assert(fabs(attrib_share_latency(&sh) - 50000) < 1e-9);
	ck_assert(fabs(attrib_share_wake(&sh) - 7750) < 1e-9);
	ck_assert(fabs(attrib_share_pct(&sh) - 15.5) < 1e-9);
	/* a request without a latency counts in the wake only when no
	 * request of the group has one */
	attrib_share_add(&sh, &idle, 0);
	ck_assert_uint_eq(attrib_share_n(&sh), 2);
	ck_assert(fabs(attrib_share_wake(&sh) - 7750) < 1e-9);
	attrib_share_add(&nolat, &idle, 0);
	attrib_share_add(&nolat, &c0, 0);
	ck_assert_uint_eq(attrib_share_n(&nolat), 2);
	ck_assert(fabs(attrib_share_wake(&nolat) - 7750) < 1e-9);
	ck_assert(isnan(attrib_share_pct(&nolat)));
	ck_assert(isnan(attrib_share_latency(&nolat)));
}
END_TEST

Suite *attrib_suite(void)
{
	Suite *s = suite_create("attrib");
	TCase *tc = tcase_create("synthetic");

	tcase_add_test(tc, state_at_arrival);
	tcase_add_test(tc, interval_boundaries);
	tcase_add_test(tc, prequery_woke_the_core);
	tcase_add_test(tc, unknown_before_first_event);
	tcase_add_test(tc, prequery_together_in_one_read);
	tcase_add_test(tc, together_but_sent_apart_woke);
	tcase_add_test(tc, tied_pairs_all_together);
	tcase_add_test(tc, logged_inside_idle);
	tcase_add_test(tc, bad_logs_refused);
	suite_add_tcase(s, tc);
	tc = tcase_create("breakdown");
	tcase_add_test(tc, breakdown_handler_inside_idle);
	tcase_add_test(tc, breakdown_exit_first_and_remote_wakeup);
	tcase_add_test(tc, breakdown_no_handler_no_wakeup_and_c0);
	tcase_add_test(tc, breakdown_from_markers);
	tcase_add_test(tc, breakdown_busy_core);
	suite_add_tcase(s, tc);
	tc = tcase_create("partial");
	tcase_add_test(tc, uncertain_without_the_waking_cpu);
	tcase_add_test(tc, exit_before_send_is_busy);
	tcase_add_test(tc, idle_miss_per_request);
	tcase_add_test(tc, wake_share_of_latency);
	suite_add_tcase(s, tc);
	return s;
}
