// SPDX-License-Identifier: GPL-2.0
/* Per-interval counts taken by another thread while they are recorded. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include "unit.h"
#include "hist.h"
#include "ivstat.h"

/* Request i: sent 3 ns late every 4th, latency 1000 + i % 1000 ns; every
 * 50th answered with an error, every 70th unanswered. */
static struct req_rec req(uint64_t i)
{
	struct req_rec q = { .seq = i };

	q.intended_ns = 1000000 + i * 100;
	q.sent_ns = q.intended_ns + (i % 4 ? 1 : 3);
	if (i % 70 != 69)
		q.recv_ns = q.intended_ns + 1000 + i % 1000;
	q.error = i % 50 == 49;
	return q;
}

START_TEST(collect_moves_counts)
{
	struct ivstat v;
	struct ivstat_slot acc;
	struct req_rec q;

	ck_assert_int_eq(ivstat_init(&v), 0);
	ck_assert_int_eq(ivstat_slot_init(&acc), 0);
	for (uint64_t i = 0; i < 3; i++) {
		q = req(i);
		ivstat_add(&v, &q, 0, 2);	/* warm-up */
	}
	for (uint64_t i = 0; i < 100; i++) {
		q = req(i);
		ivstat_add(&v, &q, 1, 2);
	}
	ivstat_collect(&v, &acc);
	ck_assert_uint_eq(acc.warm, 3);
	ck_assert_uint_eq(acc.meas.sent, 100);
	ck_assert_uint_eq(acc.meas.errors, 2);
	ck_assert_uint_eq(acc.meas.unanswered, 1);
	ck_assert_uint_eq(acc.meas.ok, 97);
	ck_assert_uint_eq(acc.meas.late, 25);
	ck_assert_uint_eq(hist_count(acc.lat), 97);
	ck_assert_uint_eq(hist_min(acc.lat), 1000);
	/* service latency (recv - sent) of the same answered ones */
	ck_assert_uint_eq(hist_count(acc.svc), 97);
	ck_assert_uint_eq(hist_min(acc.svc), 997);
	ck_assert_uint_eq(hist_max(acc.svc), 1097);
	/* nothing since: the next collect adds nothing */
	ivstat_collect(&v, &acc);
	ck_assert_uint_eq(acc.meas.sent, 100);
	ck_assert_uint_eq(hist_count(acc.lat), 97);
	/* an interval of its own: reset, then only what came after */
	ivstat_slot_reset(&acc);
	ck_assert_uint_eq(hist_count(acc.lat), 0);
	for (uint64_t i = 100; i < 110; i++) {
		q = req(i);
		ivstat_add(&v, &q, 1, 2);
	}
	ivstat_collect(&v, &acc);
	ck_assert_uint_eq(acc.meas.sent, 10);
	ck_assert_uint_eq(acc.warm, 0);
	ck_assert_uint_eq(hist_count(acc.lat), 10);
	ck_assert_uint_eq(hist_min(acc.lat), 1100);
	ck_assert_uint_eq(hist_count(acc.svc), 10);
	ck_assert_uint_eq(hist_min(acc.svc), 1097);
	ivstat_slot_free(&acc);
	ivstat_free(&v);
}
END_TEST

#define NREQ 300000

struct writer {
	struct ivstat *v;
	atomic_int done;
	atomic_uint_fast64_t collects;
};

static void *write_all(void *arg)
{
	struct writer *w = arg;

	for (uint64_t i = 0; i < NREQ; i++) {
		struct req_rec q = req(i);

		/* Half way, wait for a collect: the writer may otherwise finish
		 * before the collector first runs (a fresh CI machine did). */
		if (i == NREQ / 2) {
			uint64_t seen = atomic_load(&w->collects);

			while (atomic_load(&w->collects) < seen + 2)
				sched_yield();
		}
		ivstat_add(w->v, &q, i % 10 != 0, 2);
	}
	atomic_store(&w->done, 1);
	return NULL;
}

/* A reporter collecting all along while another thread records: every
 * request is counted once, whatever the interleaving. */
START_TEST(concurrent_exact)
{
	struct ivstat v;
	struct ivstat_slot acc, part;
	struct writer w = { .v = &v };
	pthread_t t;
	uint64_t want_ok = 0;

	ck_assert_int_eq(ivstat_init(&v), 0);
	ck_assert_int_eq(ivstat_slot_init(&acc), 0);
	ck_assert_int_eq(ivstat_slot_init(&part), 0);
	atomic_init(&w.done, 0);
	atomic_init(&w.collects, 0);
	ck_assert_int_eq(pthread_create(&t, NULL, write_all, &w), 0);
	while (!atomic_load(&w.done)) {
		/* each collect an interval of its own, then added up */
		ivstat_collect(&v, &part);
		ivstat_slot_merge(&acc, &part);
		ivstat_slot_reset(&part);
		atomic_fetch_add(&w.collects, 1);
	}
	pthread_join(t, NULL);
	ivstat_collect(&v, &acc);
	for (uint64_t i = 0; i < NREQ; i++) {
		struct req_rec q = req(i);

		want_ok += i % 10 != 0 && q.recv_ns && !q.error;
	}
	ck_assert_uint_eq(acc.warm, NREQ / 10);
	ck_assert_uint_eq(acc.meas.sent, NREQ - NREQ / 10);
	ck_assert_uint_eq(acc.meas.ok, want_ok);
	ck_assert_uint_eq(hist_count(acc.lat), want_ok);
	/* at least one collect ran while the writer was half way */
	ck_assert_uint_ge(atomic_load(&w.collects), 2);
	ivstat_slot_free(&acc);
	ivstat_slot_free(&part);
	ivstat_free(&v);
}
END_TEST

START_TEST(line_format)
{
	struct ivstat_slot acc;
	char buf[256];

	ck_assert_int_eq(ivstat_slot_init(&acc), 0);
	acc.meas.sent = 10000;
	acc.meas.ok = 9990;
	acc.meas.late = 3;
	for (uint64_t i = 1; i <= 100; i++)
		hist_add(acc.lat, i * 1000);	/* 1..100 us */
	ivstat_line(buf, sizeof(buf), 10, 10, &acc);
	/* from the histogram: p99 99 us is its bucket's middle, 99.1 us */
	ck_assert_str_eq(buf, "[   10.0 s] sent 10000 (1000.0/s) answered 9990 late 3 p50 50.0 us p99 99.1 us");
	acc.meas.errors = 4;
	acc.meas.unanswered = 6;
	acc.warm = 7;
	ivstat_line(buf, sizeof(buf), 12.5, 2.5, &acc);
	ck_assert_str_eq(buf, "[   12.5 s] sent 10000 (4000.0/s) answered 9990 late 3 p50 50.0 us p99 99.1 us errors 4 unanswered 6 warm-up 7");
	ivstat_slot_reset(&acc);
	acc.meas.sent = 5;
	acc.meas.unanswered = 5;
	ivstat_line(buf, sizeof(buf), 1, 1, &acc);
	ck_assert_str_eq(buf, "[    1.0 s] sent 5 (5.0/s) answered 0 late 0 no replies unanswered 5");
	/* no span, no rate */
	ivstat_line(buf, sizeof(buf), 3.02, 0, &acc);
	ck_assert_str_eq(buf, "[    3.0 s] sent 5 answered 0 late 0 no replies unanswered 5");
	/* a short buffer is cut, never overrun */
	ivstat_line(buf, 12, 1, 1, &acc);
	ck_assert_str_eq(buf, "[    1.0 s]");
	ivstat_slot_free(&acc);
}
END_TEST

Suite *ivstat_suite(void)
{
	Suite *s = suite_create("ivstat");
	TCase *tc = tcase_create("ivstat");

	tcase_add_test(tc, collect_moves_counts);
	tcase_add_test(tc, concurrent_exact);
	tcase_add_test(tc, line_format);
	suite_add_tcase(s, tc);
	return s;
}
