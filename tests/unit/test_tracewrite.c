// SPDX-License-Identifier: GPL-2.0
/*
 * lib/tracewrite: events written into a trace directory and read back by
 * lib/tracefile (meta, formats, pages) give the timeline the same events
 * give directly: intervals, IRQs with their names, markers, wake causes;
 * across time extends and absolute stamps, many pages, several CPUs and
 * a CPU without events. Also what it refuses and what it leaves.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>

#include "unit.h"
#include "timeline.h"
#include "tracefile.h"
#include "tracewrite.h"

static char *tmpdir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/wbtw.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	return dir;
}

static int exists(const char *dir, const char *name)
{
	char path[512];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &sb);
}

/* A trace's meta for writing: ncpus, start, end (0: the last event). */
static void meta(struct trace_meta *m, uint32_t ncpus, uint64_t start,
		 uint64_t end, uint32_t subbuf)
{
	memset(m, 0, sizeof(*m));
	m->ncpus = ncpus;
	m->start_ns = start;
	m->end_ns = end;
	m->subbuf_size = subbuf;
	m->names = calloc(ncpus, sizeof(*m->names));
	ck_assert_ptr_nonnull(m->names);
	for (uint32_t c = 0; c < ncpus; c++) {
		snprintf(m->names[c][0], 32, "POLL");
		snprintf(m->names[c][1], 32, "C1");
		snprintf(m->names[c][2], 32, "C1E");
		snprintf(m->names[c][3], 32, "haltpoll idle");
	}
}

/* The same timeline both ways: the direct one and the written-read one. */
static void same(const struct timeline *a, const struct timeline *b)
{
	size_t na, nb;
	const struct tl_irq *qa, *qb;
	const struct tl_marker *ma, *mb;

	ck_assert_uint_eq(timeline_ncpus(a), timeline_ncpus(b));
	for (uint32_t c = 0; c < timeline_ncpus(a); c++) {
		const struct tl_interval *ia = timeline_intervals(a, c, &na);
		const struct tl_interval *ib = timeline_intervals(b, c, &nb);
		const struct tl_wake *wa, *wb;

		ck_assert_uint_eq(na, nb);
		for (size_t i = 0; i < na; i++) {
			ck_assert_uint_eq(ia[i].start, ib[i].start);
			ck_assert_uint_eq(ia[i].end, ib[i].end);
			ck_assert_int_eq(ia[i].state, ib[i].state);
		}
		ck_assert_uint_eq(timeline_idle_events(a, c), timeline_idle_events(b, c));
		wa = timeline_wakes(a, c, &na);
		wb = timeline_wakes(b, c, &nb);
		ck_assert_uint_eq(na, nb);
		for (size_t i = 0; i < na; i++) {
			ck_assert_uint_eq(wa[i].ts, wb[i].ts);
			ck_assert_uint_eq(wa[i].cause, wb[i].cause);
			ck_assert_str_eq(timeline_string(a, wa[i].detail),
					 timeline_string(b, wb[i].detail));
		}
	}
	qa = timeline_irqs(a, &na);
	qb = timeline_irqs(b, &nb);
	ck_assert_uint_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		/* decoded CPU by CPU: find the same interrupt */
		size_t k;

		for (k = 0; k < nb; k++)
			if (qb[k].ts == qa[i].ts && qb[k].cpu == qa[i].cpu &&
			    qb[k].irq == qa[i].irq)
				break;
		ck_assert_msg(k < nb, "IRQ %u at %llu on cpu %u not read back", qa[i].irq,
			      (unsigned long long)qa[i].ts, qa[i].cpu);
		ck_assert_uint_eq(qa[i].handler_ns, qb[k].handler_ns);
		ck_assert_str_eq(timeline_string(a, qa[i].name), timeline_string(b, qb[k].name));
	}
	ma = timeline_markers(a, &na);
	mb = timeline_markers(b, &nb);
	ck_assert_uint_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		size_t k;

		for (k = 0; k < nb; k++)
			if (mb[k].ts == ma[i].ts && mb[k].cpu == ma[i].cpu)
				break;
		ck_assert(k < nb);
		ck_assert_str_eq(timeline_string(a, ma[i].text), timeline_string(b, mb[k].text));
	}
}

/* Reads dir back into a finished timeline; its meta in *m. */
static struct timeline *read_back(const char *dir, struct trace_meta *m,
				  uint64_t *recorded)
{
	char err[6000];
	struct timeline *t;
	long n;

	ck_assert_msg(!tracefile_meta(dir, m, err, sizeof(err)), "%s", err);
	t = timeline_new(m->ncpus, m->start_ns);
	ck_assert_ptr_nonnull(t);
	n = tracefile_decode(dir, m, t, recorded, err, sizeof(err));
	ck_assert_msg(n >= 0, "%s", err);
	timeline_finish(t, m->end_ns);
	return t;
}

/* A stream of events: written, and fed to a reference timeline. */
struct both {
	struct tracewrite *w;
	struct timeline *ref;
	uint64_t n;
};

static void ev(struct both *b, uint64_t ts, uint32_t cpu, enum tl_type type,
	       uint32_t arg, const char *str)
{
	struct tl_event e = { .ts = ts, .cpu = cpu, .type = type, .arg = arg, .str = str };
	int ret = tracewrite_event(b->w, &e);

	ck_assert_msg(!ret, "%s", tracewrite_error(b->w));
	ck_assert_int_eq(timeline_add(b->ref, &e), 0);
	b->n++;
}

/* A mixed stream on three CPUs (cpu2: nothing), with gaps past 2^27 ns
 * and 2^32 ns, long markers, every event type. */
static void mixed(struct both *b, uint64_t t0, int rounds)
{
	char lng[256];
	uint64_t t = t0 + 1000;

	memset(lng, 'm', 255);
	lng[255] = '\0';
	for (int round = 0; round < rounds; round++) {
		ev(b, t, 0, TL_IDLE, 1, NULL);
		ev(b, t + 10, 1, TL_IDLE, 3, NULL);
		ev(b, t + 500, 0, TL_IRQ_ENTRY, 41, "virtio3-rx");
		ev(b, t + 520, 0, TL_IDLE, TL_EXIT, NULL);
		ev(b, t + 900, 0, TL_IRQ_EXIT, 41, NULL);
		ev(b, t + 950, 0, TL_MARKER, 0, round % 2 ? "wb recv 17" : lng);
		ev(b, t + 1000, 1, TL_IPI, TL_IPI_CALL_FUNCTION_SINGLE, NULL);
		ev(b, t + 1001, 1, TL_IDLE, TL_EXIT, NULL);
		ev(b, t + 1100, 1, TL_SOFTIRQ, 3, NULL);
		ev(b, t + 1200, 0, TL_IDLE, 2, NULL);
		ev(b, t + 1300, 0, TL_TIMER, 0, NULL);
		ev(b, t + 1301, 0, TL_IDLE, TL_EXIT, NULL);
		ev(b, t + 1400, 1, TL_IRQ_ENTRY, 11, "a-long-handler-name-for-a-queue-of-a-nic-0123456789");
		ev(b, t + 1450, 1, TL_IRQ_EXIT, 11, NULL);
		/* gaps: 2^27 + 5 ns (an extend), 5 s (extend with a
		 * high word), a short one */
		t += round % 3 == 0 ? (1ull << 27) + 5 : round % 3 == 1 ? 5000000000ull : 3000;
	}
	ev(b, t, 0, TL_IDLE, 0, NULL);
}

static void write_and_compare(const struct tracewrite_opts *o, uint32_t subbuf,
			      int rounds, uint64_t *pages)
{
	char *dir = tmpdir(), err[600];
	struct trace_meta m, r;
	struct both b = { 0 };
	struct timeline *back;
	uint64_t start = 1000000000ull, recorded;

	meta(&m, 3, start, 0, subbuf);
	ck_assert_msg(!tracewrite_open(dir, &m, o, &b.w, err, sizeof(err)), "%s", err);
	b.ref = timeline_new(3, start);
	mixed(&b, start, rounds);
	*pages = tracewrite_pages(b.w);
	ck_assert_msg(!tracewrite_close(b.w, err, sizeof(err)), "%s", err);
	back = read_back(dir, &r, &recorded);
	/* end 0: the last event's time */
	ck_assert_uint_eq(r.end_ns, timeline_end(b.ref));
	timeline_finish(b.ref, r.end_ns);
	ck_assert_uint_eq(recorded, b.n);
	ck_assert_uint_eq(r.ncpus, 3);
	ck_assert_str_eq(r.names[1][3], "haltpoll idle");
	ck_assert_str_eq(r.names[2][2], "C1E");
	ck_assert_uint_eq(r.subbuf_size, subbuf ? subbuf : 4096);
	same(b.ref, back);
	ck_assert(exists(dir, "cpu2.raw"));
	ck_assert(!exists(dir, ".cpu0.raw.partial"));
	timeline_free(back);
	timeline_free(b.ref);
	tracefile_meta_free(&r);
	free(m.names);
	unit_rmtree(dir);
}

START_TEST(round_trip)
{
	uint64_t pages;

	write_and_compare(NULL, 0, 50, &pages);
}
END_TEST

/* Every type the writer takes, read back event by event by the
 * reader's stream: type, CPU, time, arguments, pid and text. */
START_TEST(inverse_of_the_reader)
{
	static const struct tl_event evs[] = {
		{ 100, 0, TL_IDLE, 2, 0, 0, NULL },
		{ 150, 1, TL_IRQ_ENTRY, 41, 0, 0, "virtio3-rx" },
		{ 160, 1, TL_SOFTIRQ, 3, 0, 0, NULL },
		{ 170, 1, TL_IRQ_EXIT, 41, 0, 0, NULL },
		{ 180, 0, TL_IPI, TL_IPI_RESCHEDULE, 0, 0, NULL },
		{ 181, 0, TL_TIMER, 0, 0, 0, NULL },
		{ 190, 0, TL_IDLE, TL_EXIT, 0, 0, NULL },
		{ 200, 1, TL_WAKEUP, 4242, 1, 0, "wakebench-serve" },
		{ 210, 0, TL_SWITCH, 4242, 0, 0, "wakebench-serve" },
		{ 220, 0, TL_NETRX, 1500, 0, 0, "lo" },
		{ 230, 0, TL_MARKER, 0, 0, 4242, "wb recv 7" },
		{ (1ull << 33) + 5, 1, TL_IDLE, 1, 0, 0, NULL },
	};
	char *dir = tmpdir(), err[6000];
	struct trace_meta m, r;
	struct tracewrite *w;
	struct tf_decode o = { 0 };
	struct tf_stream *st;
	struct tl_event e;
	size_t i = 0;
	int ret;

	meta(&m, 2, 0, 0, 0);
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	for (size_t k = 0; k < sizeof(evs) / sizeof(evs[0]); k++) {
		struct tl_event x = evs[k];

		if (x.type == TL_WAKEUP)
			x.arg2 = 1;
		if (x.type == TL_SWITCH)
			x.arg2 = 0;	/* from the idle task */
		x.pid = x.type == TL_MARKER || x.type == TL_WAKEUP ? 4242 : 0;
		ck_assert_msg(!tracewrite_event(w, &x), "%s", tracewrite_error(w));
	}
	ck_assert(!tracewrite_close(w, err, sizeof(err)));
	ck_assert(!tracefile_meta(dir, &r, err, sizeof(err)));
	ck_assert_msg(!tracefile_stream_open(dir, &r, &o, &st, err, sizeof(err)), "%s", err);
	while ((ret = tracefile_stream_next(st, &e, err, sizeof(err))) == 1) {
		const struct tl_event *x = &evs[i];

		ck_assert_uint_lt(i, sizeof(evs) / sizeof(evs[0]));
		ck_assert_int_eq(e.type, x->type);
		ck_assert_uint_eq(e.ts, x->ts);
		ck_assert_uint_eq(e.cpu, x->cpu);
		if (x->type != TL_TIMER && x->type != TL_NETRX)
			ck_assert_uint_eq(e.arg, x->arg);
		if (x->type == TL_WAKEUP)
			ck_assert_uint_eq(e.arg2, 1);
		ck_assert_uint_eq(e.pid, x->type == TL_MARKER || x->type == TL_WAKEUP ? 4242 : 0);
		if (x->type == TL_IRQ_ENTRY || x->type == TL_MARKER)
			ck_assert_str_eq(e.str, x->str);
		i++;
	}
	ck_assert_msg(ret == 0, "%s", err);
	ck_assert_uint_eq(i, sizeof(evs) / sizeof(evs[0]));
	tracefile_stream_close(st);
	tracefile_meta_free(&r);
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

/*
 * power:cpu_idle_miss (the governor's misses): written only where asked
 * (its format then says it was recorded), read back with its state and
 * below flag (1: too shallow, 0: above, too deep).
 */
START_TEST(idle_miss_round_trip)
{
	static const struct tl_event evs[] = {
		{ 100, 0, TL_IDLE, 2, 0, 0, NULL },
		{ 190, 0, TL_IDLE, TL_EXIT, 0, 0, NULL },
		{ 195, 0, TL_IDLE_MISS, 2, 1, 0, NULL },
		{ 300, 1, TL_IDLE_MISS, 1, 0, 0, NULL },
	};
	struct tracewrite_opts wo = { .source = "test", .idle_miss = 1 };
	char *dir = tmpdir(), err[6000];
	struct trace_meta m, r;
	struct tracewrite *w;
	struct tf_decode o = { 0 };
	struct tf_stream *st;
	struct tl_event e;
	size_t i = 0;
	int ret;

	meta(&m, 2, 0, 0, 0);
	/* not asked for: refused, and no format */
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	ck_assert_int_eq(tracewrite_event(w, &evs[2]), -EINVAL);
	tracewrite_close(w, err, sizeof(err));
	ck_assert_int_eq(tracefile_has_event(dir, "power", "cpu_idle_miss"), 0);
	ck_assert_int_eq(tracefile_has_event(dir, "power", "cpu_idle"), 1);
	unit_rmtree(dir);
	dir = tmpdir();
	ck_assert(!tracewrite_open(dir, &m, &wo, &w, err, sizeof(err)));
	for (size_t k = 0; k < sizeof(evs) / sizeof(evs[0]); k++)
		ck_assert_msg(!tracewrite_event(w, &evs[k]), "%s", tracewrite_error(w));
	ck_assert(!tracewrite_close(w, err, sizeof(err)));
	ck_assert_int_eq(tracefile_has_event(dir, "power", "cpu_idle_miss"), 1);
	ck_assert(!tracefile_meta(dir, &r, err, sizeof(err)));
	ck_assert_msg(!tracefile_stream_open(dir, &r, &o, &st, err, sizeof(err)), "%s", err);
	while ((ret = tracefile_stream_next(st, &e, err, sizeof(err))) == 1) {
		ck_assert_uint_lt(i, sizeof(evs) / sizeof(evs[0]));
		ck_assert_int_eq(e.type, evs[i].type);
		ck_assert_uint_eq(e.ts, evs[i].ts);
		ck_assert_uint_eq(e.cpu, evs[i].cpu);
		ck_assert_uint_eq(e.arg, evs[i].arg);
		if (e.type == TL_IDLE_MISS)
			ck_assert_uint_eq(e.arg2, evs[i].arg2);
		i++;
	}
	ck_assert_msg(ret == 0, "%s", err);
	ck_assert_uint_eq(i, sizeof(evs) / sizeof(evs[0]));
	tracefile_stream_close(st);
	tracefile_meta_free(&r);
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

/*
 * A stream with o->prefetch (decoded in a thread, handed out in batches
 * of 16384 with their strings copied) gives the same events, strings and
 * counts as one decoded in the caller's thread; a corrupt page stops it
 * after the same events with the same message; closing it early (the
 * thread blocked on a full ring) neither hangs nor leaks.
 */
static int read_all(const char *dir, int prefetch, size_t stop_after,
		    struct tl_event **out, char ***strs, size_t *n,
		    struct tf_decode *o, char *err, size_t errlen)
{
	struct trace_meta r;
	struct tf_stream *st;
	struct tl_event e;
	size_t cap = 0;
	int ret;

	*n = 0;
	*out = NULL;
	*strs = NULL;
	memset(o, 0, sizeof(*o));
	o->prefetch = prefetch;
	ck_assert(!tracefile_meta(dir, &r, err, errlen));
	ck_assert_msg(!tracefile_stream_open(dir, &r, o, &st, err, errlen), "%s", err);
	while ((ret = tracefile_stream_next(st, &e, err, errlen)) == 1) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 4096;
			*out = realloc(*out, cap * sizeof(**out));
			*strs = realloc(*strs, cap * sizeof(**strs));
			ck_assert(*out && *strs);
		}
		(*strs)[*n] = e.str ? strdup(e.str) : NULL;
		(*out)[(*n)++] = e;
		if (*n == stop_after)
			break;
	}
	tracefile_stream_close(st);
	tracefile_meta_free(&r);
	return ret;
}

static void free_read(struct tl_event *ev, char **strs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(strs[i]);
	free(strs);
	free(ev);
}

START_TEST(prefetch_same_stream)
{
	char *dir = tmpdir(), err[6000], err2[6000], path[4200];
	struct tl_event *a, *b;
	char **sa, **sb;
	struct tf_decode oa, ob;
	struct trace_meta m;
	struct tracewrite *w;
	size_t na, nb;
	uint64_t t = 1000;
	int ra, rb;
	FILE *f;

	meta(&m, 2, 0, 0, 0);
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	/* 20000 requests: idle entry/exit and a marker each, on two CPUs;
	 * markers short in the first half (batches closed when full) and
	 * 160-239 bytes in the second (closed by their strings' room) */
	for (uint32_t i = 0; i < 20000; i++) {
		char text[256];
		struct tl_event ev[3] = {
			{ t, i & 1, TL_IDLE, 1, 0, 0, NULL },
			{ t + 40, i & 1, TL_IDLE, TL_EXIT, 0, 0, NULL },
			{ t + 50, i & 1, TL_MARKER, 0, 0, 4242, text },
		};

		snprintf(text, sizeof(text), "wb recv %u %.*s", i,
			 (int)(i < 10000 ? i % 20 : 160 + i % 80),
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		for (int k = 0; k < 3; k++)
			ck_assert_msg(!tracewrite_event(w, &ev[k]), "%s", tracewrite_error(w));
		t += 100;
	}
	ck_assert(!tracewrite_close(w, err, sizeof(err)));

	ra = read_all(dir, 0, 0, &a, &sa, &na, &oa, err, sizeof(err));
	rb = read_all(dir, 1, 0, &b, &sb, &nb, &ob, err2, sizeof(err2));
	ck_assert_msg(ra == 0 && rb == 0, "%s / %s", err, err2);
	ck_assert_uint_eq(na, 60000);
	ck_assert_uint_eq(nb, na);
	ck_assert_uint_eq(ob.fed, oa.fed);
	ck_assert_uint_eq(ob.recorded, oa.recorded);
	ck_assert_uint_eq(ob.pages, oa.pages);
	for (size_t i = 0; i < na; i++) {
		static const uint64_t at[3] = { 0, 40, 50 };

		/* the order written: runs of three on alternating CPUs */
		ck_assert_uint_eq(a[i].ts, 1000 + 100 * (i / 3) + at[i % 3]);
		ck_assert_uint_eq(a[i].cpu, (i / 3) & 1);
		ck_assert_uint_eq(b[i].ts, a[i].ts);
		ck_assert_uint_eq(b[i].cpu, a[i].cpu);
		ck_assert_int_eq(b[i].type, a[i].type);
		ck_assert_uint_eq(b[i].arg, a[i].arg);
		ck_assert_uint_eq(b[i].pid, a[i].pid);
		ck_assert_int_eq(!sb[i], !sa[i]);
		if (sa[i])
			ck_assert_str_eq(sb[i], sa[i]);
	}
	free_read(a, sa, na);
	free_read(b, sb, nb);

	/* closed after 10 events: the thread is stopped and joined */
	rb = read_all(dir, 1, 10, &b, &sb, &nb, &ob, err2, sizeof(err2));
	ck_assert_int_eq(rb, 1);
	ck_assert_uint_eq(nb, 10);
	free_read(b, sb, nb);

	/* a corrupt page in CPU 1's file (its 5th): same events, same error */
	snprintf(path, sizeof(path), "%s/cpu1.raw", dir);
	f = fopen(path, "r+");
	ck_assert(f);
	ck_assert(!fseek(f, 4 * 4096 + 8, SEEK_SET));
	ck_assert(fwrite("\xff\xff\xff\x7f", 1, 4, f) == 4);
	fclose(f);
	ra = read_all(dir, 0, 0, &a, &sa, &na, &oa, err, sizeof(err));
	rb = read_all(dir, 1, 0, &b, &sb, &nb, &ob, err2, sizeof(err2));
	ck_assert_int_lt(ra, 0);
	ck_assert_int_eq(rb, ra);
	ck_assert_str_eq(err2, err);
	ck_assert(strstr(err, "page 4"));
	ck_assert_uint_eq(nb, na);
	ck_assert_uint_gt(na, 0);
	free_read(a, sa, na);
	free_read(b, sb, nb);
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

/* 512-byte pages: hundreds of them, events cut at every page end. */
struct seq_ev {
	uint64_t ts;
	uint32_t cpu, seq;
};

static int seq_cmp(const void *x, const void *y)
{
	const struct seq_ev *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/*
 * The merge of four CPUs' files: runs of 1 to 6 events on one CPU, many
 * times equal across CPUs, a CPU that ends early and one with nothing.
 * Out in time order, equal times by CPU, each CPU's own order kept:
 * exactly the sorted list, in both modes (the top reader's run is
 * handed out without the heap while it is before the next reader).
 */
START_TEST(merge_runs_and_ties)
{
	enum { N = 60000 };
	char *dir = tmpdir(), err[6000];
	struct seq_ev *want = malloc(N * sizeof(*want));
	uint64_t ts[4] = { 5000, 5000, 5000, 5000 };
	uint32_t x = 12345, n = 0, seq[4] = { 0 };
	struct trace_meta m;
	struct tracewrite *w;

	ck_assert_ptr_nonnull(want);
	while (n < N) {
		uint32_t cpu, run;

		x = x * 1103515245 + 12345;
		cpu = (x >> 16) % 3;	/* cpu3: nothing */
		if (cpu == 2 && n > N / 2)
			cpu = 0;	/* cpu2 ends half way */
		run = 1 + (x >> 8) % 6;
		for (uint32_t k = 0; k < run && n < N; k++) {
			ts[cpu] += (x >> (k + 3)) % 3;	/* 0: a tie, often */
			want[n++] = (struct seq_ev){ ts[cpu], cpu, seq[cpu]++ };
		}
	}
	qsort(want, N, sizeof(*want), seq_cmp);
	meta(&m, 4, 1000, 0, 0);
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	for (uint32_t i = 0; i < N; i++) {
		struct tl_event e = { want[i].ts, want[i].cpu, TL_IDLE,
				      want[i].seq % 2 ? TL_EXIT : 1, 0, want[i].seq, NULL };

		ck_assert_msg(!tracewrite_event(w, &e), "%s", tracewrite_error(w));
	}
	ck_assert(!tracewrite_close(w, err, sizeof(err)));
	for (int prefetch = 0; prefetch < 2; prefetch++) {
		struct tl_event *got;
		struct tf_decode o;
		char **strs;
		size_t ng;

		ck_assert_int_eq(read_all(dir, prefetch, 0, &got, &strs, &ng, &o,
					  err, sizeof(err)), 0);
		ck_assert_uint_eq(ng, N);
		for (size_t i = 0; i < ng; i++) {
			ck_assert_uint_eq(got[i].ts, want[i].ts);
			ck_assert_uint_eq(got[i].cpu, want[i].cpu);
			ck_assert_uint_eq(got[i].pid, want[i].seq);
		}
		free_read(got, strs, ng);
	}
	free(want);
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

/* The heap in use, every arena and mmapped block counted. */
static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/*
 * A big host as measured (issue 33): 512 CPUs, one busy over many pages
 * (more than a read's worth), 510 with a page of a few events each (an
 * IRQ with its name among them), one without events. Every event comes
 * out in time order, strings whole, and the stream's memory once each
 * reader holds its first page is a few KB a CPU: before, a reader held a
 * read buffer of 16 pages, an event array and a path of a page's worth
 * each, 93 KB a CPU, 47 MB here.
 */
START_TEST(big_host_memory_per_cpu)
{
	char *dir = tmpdir(), err[6000];
	struct trace_meta m, r;
	struct tracewrite *w;
	struct tf_decode o = { 0 };
	struct tf_stream *st;
	struct tl_event e;
	uint64_t n = 0, want = 0, last = 0, strs = 0;
	size_t before, after_start = 0;
	uint32_t last_cpu = 0;
	int ret;

	meta(&m, 512, 0, 0, 0);
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	for (uint64_t i = 0; i < 10000; i++) {
		struct tl_event x = { 1000 + i * 1000, 0, TL_IDLE, i % 2 ? TL_EXIT : 1, 0, 0, NULL };

		ck_assert_msg(!tracewrite_event(w, &x), "%s", tracewrite_error(w));
		want++;
	}
	for (uint32_t cpu = 1; cpu < 511; cpu++)
		for (uint64_t k = 0; k < 4; k++) {
			uint64_t t = 5000 + cpu * 7 + k * 2000000;
			struct tl_event in = { t, cpu, TL_IDLE, 3, 0, 0, NULL };
			struct tl_event irq = { t + 900000, cpu, TL_IRQ_ENTRY, 100, 0, 0, "nvme0q1" };
			struct tl_event out = { t + 1000000, cpu, TL_IDLE, TL_EXIT, 0, 0, NULL };

			ck_assert(!tracewrite_event(w, &in));
			ck_assert(!tracewrite_event(w, &irq));
			ck_assert(!tracewrite_event(w, &out));
			want += 3;
		}
	ck_assert(!tracewrite_close(w, err, sizeof(err)));
	ck_assert(!tracefile_meta(dir, &r, err, sizeof(err)));
	before = heap_used();
	ck_assert_msg(!tracefile_stream_open(dir, &r, &o, &st, err, sizeof(err)), "%s", err);
	while ((ret = tracefile_stream_next(st, &e, err, sizeof(err))) == 1) {
		if (!n++)
			after_start = heap_used();
		ck_assert(e.ts > last || (e.ts == last && e.cpu >= last_cpu));
		ck_assert_uint_lt(e.cpu, 511);
		if (e.type == TL_IRQ_ENTRY) {
			ck_assert_str_eq(e.str, "nvme0q1");
			strs++;
		}
		last = e.ts;
		last_cpu = e.cpu;
	}
	ck_assert_msg(ret == 0, "%s", err);
	ck_assert_uint_eq(n, want);
	ck_assert_uint_eq(strs, 510 * 4);
	ck_assert_msg(after_start - before < 512 * 16384,
		      "%zu bytes for the readers of 512 CPUs", after_start - before);
	tracefile_stream_close(st);
	tracefile_meta_free(&r);
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

START_TEST(many_small_pages)
{
	uint64_t pages;

	write_and_compare(NULL, 512, 300, &pages);
	ck_assert_uint_gt(pages, 100);
}
END_TEST

/* The headers of one CPU's file by type: [30] extends, [31] stamps,
 * [29] padding (the walk stops at padding, so counted per page). */
static void count_types(const char *path, uint32_t subbuf, uint64_t *types)
{
	FILE *f = fopen(path, "r");
	uint8_t *page = malloc(subbuf);

	ck_assert_ptr_nonnull(f);
	memset(types, 0, 32 * sizeof(*types));
	while (fread(page, 1, subbuf, f) == subbuf) {
		uint64_t commit;
		size_t off = 0, size;

		memcpy(&commit, page + 8, 8);
		size = commit & ((1u << 27) - 1);
		while (off + 4 <= size) {
			uint32_t w, tl;

			memcpy(&w, page + 16 + off, 4);
			tl = w & 31;
			types[tl]++;
			if (tl == 29)
				break;
			if (tl == 30 || tl == 31) {
				off += 8;
			} else if (tl == 0) {
				uint32_t l;

				memcpy(&l, page + 16 + off + 4, 4);
				off += 4 + l;
			} else {
				off += 4 + 4 * tl;
			}
		}
	}
	fclose(f);
	free(page);
}

START_TEST(absolute_stamps)
{
	struct tracewrite_opts o = { .absolute = 1 };
	char *dir = tmpdir(), err[600], path[300];
	struct trace_meta m, r;
	struct both b = { 0 };
	struct timeline *back;
	uint64_t types[32], start = 7;

	meta(&m, 2, start, 0, 0);
	ck_assert(!tracewrite_open(dir, &m, &o, &b.w, err, sizeof(err)));
	b.ref = timeline_new(2, start);
	for (int i = 0; i < 20; i++) {
		ev(&b, start + (uint64_t)i * 3000000000ull, 1, TL_IDLE, i % 2 ? TL_EXIT : 1,
		   NULL);
		ev(&b, start + (uint64_t)i * 3000000000ull + 5, 1, TL_MARKER, 0, "x");
	}
	ck_assert(!tracewrite_close(b.w, err, sizeof(err)));
	back = read_back(dir, &r, NULL);
	timeline_finish(b.ref, r.end_ns);
	same(b.ref, back);
	snprintf(path, sizeof(path), "%s/cpu1.raw", dir);
	count_types(path, 4096, types);
	ck_assert_uint_eq(types[31], 19);	/* one per 3 s gap */
	ck_assert_uint_eq(types[30], 0);
	timeline_free(back);
	timeline_free(b.ref);
	tracefile_meta_free(&r);
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

/* Extends by default, and padding where an event did not fit. */
START_TEST(extends_and_padding)
{
	char *dir = tmpdir(), err[600], path[300];
	struct trace_meta m;
	struct tracewrite *w;
	uint64_t types[32];

	meta(&m, 1, 0, 0, 128);
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	for (uint64_t i = 0; i < 100; i++) {
		struct tl_event e = { .ts = i << 28, .type = TL_MARKER, .str = "012345678901" };

		ck_assert(!tracewrite_event(w, &e));
	}
	ck_assert(!tracewrite_close(w, err, sizeof(err)));
	snprintf(path, sizeof(path), "%s/cpu0.raw", dir);
	count_types(path, 128, types);
	ck_assert_uint_gt(types[30], 0);
	ck_assert_uint_gt(types[29], 0);
	ck_assert_uint_eq(types[31], 0);
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

/* Gaps past what an extend holds (2^59 ns) start a new page; so do
 * absolute stamps whose top bits differ from the page's. */
START_TEST(huge_gaps)
{
	for (int abs = 0; abs < 2; abs++) {
		struct tracewrite_opts o = { .absolute = abs };
		char *dir = tmpdir(), err[600];
		struct trace_meta m, r;
		struct both b = { 0 };
		struct timeline *back;

		meta(&m, 1, 0, 0, 0);
		ck_assert(!tracewrite_open(dir, &m, &o, &b.w, err, sizeof(err)));
		b.ref = timeline_new(1, 0);
		ev(&b, 5, 0, TL_IDLE, 1, NULL);
		ev(&b, (1ull << 60) + 7, 0, TL_IDLE, TL_EXIT, NULL);
		ev(&b, (1ull << 60) + 8, 0, TL_MARKER, 0, "after 2^60 ns");
		ev(&b, (1ull << 62) + 9, 0, TL_IDLE, 2, NULL);
		ck_assert_uint_eq(tracewrite_pages(b.w), 2);	/* two pages ended */
		ck_assert(!tracewrite_close(b.w, err, sizeof(err)));
		back = read_back(dir, &r, NULL);
		timeline_finish(b.ref, r.end_ns);
		ck_assert_uint_eq(r.end_ns, (1ull << 62) + 9);
		same(b.ref, back);
		timeline_free(back);
		timeline_free(b.ref);
		tracefile_meta_free(&r);
		free(m.names);
		unit_rmtree(dir);
	}
}
END_TEST

START_TEST(refused_events)
{
	char *dir = tmpdir(), err[600];
	struct trace_meta m;
	struct tracewrite *w;
	char big[300];
	struct tl_event e = { .ts = 2000, .cpu = 0, .type = TL_IDLE, .arg = 1 };

	meta(&m, 2, 1000, 5000, 256);
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	ck_assert_int_eq(tracewrite_event(w, &e), 0);
	e.ts = 1999;
	ck_assert_int_eq(tracewrite_event(w, &e), -EINVAL);
	ck_assert_str_eq(tracewrite_error(w),
			 "cpu 0: event at 1999 ns before the previous one at 2000 ns");
	e.ts = 6000;
	ck_assert_int_eq(tracewrite_event(w, &e), -EINVAL);
	ck_assert_str_eq(tracewrite_error(w),
			 "cpu 0: event at 6000 ns outside the trace (1000-5000 ns)");
	e.ts = 3000;
	e.cpu = 2;
	ck_assert_int_eq(tracewrite_event(w, &e), -EINVAL);
	ck_assert_str_eq(tracewrite_error(w), "event on cpu 2: the trace has 2 CPUs");
	e.cpu = 1;
	e.type = (enum tl_type)99;
	ck_assert_int_eq(tracewrite_event(w, &e), -EINVAL);
	ck_assert_str_eq(tracewrite_error(w), "cpu 1: event type 99 is not one tracewrite writes");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	e.type = TL_MARKER;
	e.str = big;
	ck_assert_int_eq(tracewrite_event(w, &e), -EMSGSIZE);
	ck_assert_str_eq(tracewrite_error(w),
			 "cpu 1: an event of 317 bytes does not fit a 256-byte page");
	/* refused events leave the writer usable */
	e.str = "fits";
	ck_assert_int_eq(tracewrite_event(w, &e), 0);
	ck_assert(!tracewrite_close(w, err, sizeof(err)));
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

static int fields_ok;

static int check_wakeup(void *ctx, const struct tf_event *ev)
{
	struct tep_handle *tep = ctx;
	struct tep_record rec = { .ts = ev->ts, .data = (void *)ev->data,
				  .size = (int)ev->size };
	struct tep_event *e = tep_find_event(tep, tep_data_type(tep, &rec));
	unsigned long long pid, target;

	if (!e || strcmp(e->name, "sched_wakeup"))
		return 0;
	ck_assert(!tep_get_field_val(NULL, e, "pid", &rec, &pid, 0));
	ck_assert(!tep_get_field_val(NULL, e, "target_cpu", &rec, &target, 0));
	ck_assert_uint_eq(pid, 4242);
	ck_assert_uint_eq(target, 1);
	ck_assert_str_eq((const char *)ev->data + 8, "wakebench-serve");	/* 15 + NUL */
	fields_ok++;
	return 0;
}

/* sched:sched_wakeup: its fields where its format file says. */
START_TEST(wakeup_fields)
{
	char *dir = tmpdir(), err[6000], path[300], *buf;
	struct trace_meta m, r;
	struct tracewrite *w;
	struct tep_handle *tep = tep_alloc();
	struct tep_event *e = NULL;
	uint64_t recorded;
	struct timeline *back;
	FILE *f;
	long len;
	uint8_t page[4096];

	meta(&m, 2, 0, 0, 0);
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	for (int i = 0; i < 3; i++)
		ck_assert(!tracewrite_wakeup(w, 100 + (uint64_t)i, 0, 4242, "wakebench-server",
					     120, 1));
	ck_assert(!tracewrite_close(w, err, sizeof(err)));
	back = read_back(dir, &r, &recorded);
	ck_assert_uint_eq(recorded, 3);
	snprintf(path, sizeof(path), "%s/formats/sched/sched_wakeup/format", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	buf = calloc(1, 4096);
	len = (long)fread(buf, 1, 4095, f);
	fclose(f);
	ck_assert(!tep_parse_format(tep, &e, buf, (unsigned long)len, "sched"));
	snprintf(path, sizeof(path), "%s/cpu0.raw", dir);
	f = fopen(path, "r");
	ck_assert_uint_eq(fread(page, 1, sizeof(page), f), sizeof(page));
	fclose(f);
	fields_ok = 0;
	ck_assert_int_eq(tracefile_page_walk(page, sizeof(page), 8, check_wakeup, tep, NULL,
					     NULL, err, sizeof(err)), 3);
	ck_assert_int_eq(fields_ok, 3);
	tep_free(tep);
	free(buf);
	timeline_free(back);
	tracefile_meta_free(&r);
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

/* An earlier trace in the directory: replaced at the close, other files
 * kept; until then it stays whole. */
START_TEST(replaces_earlier_trace)
{
	char *dir = tmpdir(), err[600], path[300];
	struct trace_meta m, r;
	struct tracewrite *w;
	struct tl_event e = { .ts = 10, .type = TL_IDLE, .arg = 1 };

	meta(&m, 4, 0, 100, 0);
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	ck_assert(!tracewrite_close(w, err, sizeof(err)));
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	unit_put(path, "mine\n");
	ck_assert(exists(dir, "cpu3.raw"));
	free(m.names);
	meta(&m, 2, 0, 50, 0);
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	ck_assert(!tracewrite_event(w, &e));
	/* not yet replaced */
	ck_assert_msg(!tracefile_meta(dir, &r, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(r.ncpus, 4);
	tracefile_meta_free(&r);
	ck_assert(!tracewrite_close(w, err, sizeof(err)));
	ck_assert(!tracefile_meta(dir, &r, err, sizeof(err)));
	ck_assert_uint_eq(r.ncpus, 2);
	ck_assert_uint_eq(r.end_ns, 50);
	tracefile_meta_free(&r);
	ck_assert(!exists(dir, "cpu2.raw"));
	ck_assert(!exists(dir, "cpu3.raw"));
	ck_assert(exists(dir, "cpu1.raw"));
	ck_assert(exists(dir, "notes.txt"));
	ck_assert(exists(dir, "formats/power/cpu_idle/format"));
	ck_assert(!exists(dir, ".formats.partial"));
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

/* Abort: nothing of the new trace, the directory too when it made it. */
START_TEST(abort_leaves_nothing)
{
	char *dir = tmpdir(), err[600], sub[300];
	struct trace_meta m;
	struct tracewrite *w;
	struct tl_event e = { .ts = 10, .type = TL_IDLE, .arg = 1 };

	snprintf(sub, sizeof(sub), "%s/new", dir);
	meta(&m, 1, 0, 0, 0);
	ck_assert(!tracewrite_open(sub, &m, NULL, &w, err, sizeof(err)));
	ck_assert(!tracewrite_event(w, &e));
	ck_assert(exists(dir, "new"));
	tracewrite_abort(w);
	ck_assert(!exists(dir, "new"));
	/* an existing directory stays, without the temporary files */
	ck_assert(!tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)));
	ck_assert(exists(dir, ".cpu0.raw.partial"));
	tracewrite_abort(w);
	ck_assert(!exists(dir, ".cpu0.raw.partial"));
	ck_assert(exists(dir, "."));
	/* bad metas */
	m.ncpus = 0;
	ck_assert_int_eq(tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err + strlen(dir), ": 0 CPUs (1-8192)");
	m.ncpus = 1;
	m.subbuf_size = 100;
	ck_assert_int_eq(tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)), -EINVAL);
	m.subbuf_size = 0;
	snprintf(m.names[0][1], 32, "two\nlines");
	ck_assert_int_eq(tracewrite_open(dir, &m, NULL, &w, err, sizeof(err)), -EINVAL);
	free(m.names);
	unit_rmtree(dir);
}
END_TEST

Suite *tracewrite_suite(void)
{
	Suite *s = suite_create("tracewrite");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, inverse_of_the_reader);
	tcase_add_test(tc, idle_miss_round_trip);
	tcase_add_test(tc, prefetch_same_stream);
	tcase_add_test(tc, merge_runs_and_ties);
	tcase_add_test(tc, big_host_memory_per_cpu);
	tcase_add_test(tc, many_small_pages);
	tcase_add_test(tc, absolute_stamps);
	tcase_add_test(tc, extends_and_padding);
	tcase_add_test(tc, huge_gaps);
	tcase_add_test(tc, refused_events);
	tcase_add_test(tc, wakeup_fields);
	tcase_add_test(tc, replaces_earlier_trace);
	tcase_add_test(tc, abort_leaves_nothing);
	suite_add_tcase(s, tc);
	return s;
}
