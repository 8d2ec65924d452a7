// SPDX-License-Identifier: GPL-2.0
/*
 * The client's event loop: a thread sends every request of its share at
 * its intended time (open loop) and collects the replies in between, so
 * a slow reply never delays the next send. Latency is reply time minus
 * intended time (coordinated-omission free, as in wrk2); the pacing error
 * sent - intended is kept for every request.
 *
 * Memory does not grow with the run (DESIGN.md "Bounded memory"): each
 * thread draws the schedule as it goes (lib/schedule), keeps a request
 * only from its draw until it is done (the ring below: what is in flight,
 * bounded by the rate times --timeout-ms, never by the run's length),
 * then adds it to its counts and histograms and streams its record to a
 * spool (lib/spool) that output.c turns into requests.csv after the run.
 *
 * --threads N: thread k sends requests k, k + N, k + 2N, ... of the one
 * schedule, on its own connections, pinned to the k-th CPU of --cpu. Each
 * thread draws the whole schedule and keeps its share (a draw costs tens
 * of nanoseconds), so the requests, their times, ops and keys are the
 * very ones a single thread would send. The threads start together at
 * one start time and their counts merge after the run.
 *
 * --report-interval: each thread also adds every done request to its
 * lib/ivstat (no lock, no system call), which client/report.c's thread
 * takes at each interval's end to print a line while the run goes.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "client.h"
#include "cpu.h"
#include "hist.h"
#include "ivstat.h"
#include "marker.h"
#include "proto.h"
#include "spool.h"
#include "validity.h"
#include "wire.h"

/* Below this distance to a send time we stop polling and spin on the clock. */
#define SPIN_GUARD_NS 2000ull
#define RX_BUF 65536
/* Requests already due when the client is behind go out in one send()
 * of at most this many bytes (TCP); see send_due(). */
#define TX_BATCH_BYTES 16384
/* The in-flight ring's first size (it doubles when more are in flight). */
#define RING_INITIAL 4096
/*
 * The spool writes a chunk when what its writes took lately (the median
 * of the last SPOOL_COST_N) plus a margin fits before the next send (see
 * spool_spare()); a 16 KB write() takes 6 us typically on this VM (15 us
 * at p99), assumed 8 us before any was timed.
 */
#define SPOOL_COST_N 7
#define SPOOL_COST_INITIAL_NS 8000ull
#define SPOOL_MARGIN_NS 2000ull
/* --start-at: block until this long before the start, then pace as usual. */
#define START_MARGIN_NS 2000000ull

/* What the threads share while they run. */
struct run_shared {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	atomic_int stop;	/* a thread failed, or a signal: every one stops */
	atomic_int signal_taken;	/* a thread read the signal that stopped it */
	atomic_int energy_started;
	int stop_fd;		/* eventfd, readable once stop is set */
	unsigned int arrived;	/* threads ready to start */
	int go;			/* the start time is set */
};

struct conn {
	int fd;
	struct wire_conn w;
};

/* A request from its draw until it is done. */
struct slot {
	struct req_rec q;
	uint64_t gap_ns;	/* closed loop: waited after each reply */
	uint64_t prev_ns;	/* the schedule's previous request's intended time */
};

struct worker {
	struct run *r;
	const struct client_opts *o;
	const struct wb_proto_ops *wire;
	unsigned int id, n;	/* thread k of n */
	int cpu;		/* to pin to (n > 1), or -1 */
	pthread_t tid;
	int started;		/* the thread was created */
	/* the schedule, drawn as the run goes */
	struct schedule_gen gen;
	uint64_t last_t;	/* relative time of the last request drawn */
	int gen_done;
	/* the ring of requests drawn and not yet done, by local index j
	 * (seq = id + j * n): head (oldest not done) <= sent <= drawn */
	struct slot *ring;
	uint64_t cap, mask;
	uint64_t head, sent, drawn;
	struct conn *conns;
	uint64_t nconns;
	struct conn *pq;	/* pre-query connection, NULL: in-band */
	int marker_fd;		/* trace_marker, or -1 */
	int epfd, sigfd;
	uint64_t polls;
	uint64_t behind;	/* sends made late in a row */
	uint8_t *txbuf;
	size_t txlen;
	struct pqplan_cost send_cost;	/* a lone pre-query's send() */
	struct run_acc acc;
	struct spool *spool;	/* records kept for requests.csv, or NULL */
	struct ivstat *iv;	/* --report-interval counts, or NULL */
	uint64_t spool_cost[SPOOL_COST_N];	/* the last writes' durations */
	uint64_t spool_writes;
	uint64_t spool_need;	/* time a write needs before a send */
	uint64_t received, error_replies, prequery_acks, burst_sent;
	uint8_t rx[RX_BUF];
};

/*
 * SIGINT, SIGTERM (and SIGHUP, turned into SIGTERM) are blocked from
 * before the first C-state change and read from a signalfd once the run
 * starts; one pending while a long schedule is counted stops the count.
 */
static int signal_pending(void *arg)
{
	sigset_t set;

	(void)arg;
	return !sigpending(&set) && (sigismember(&set, SIGINT) == 1 ||
				     sigismember(&set, SIGTERM) == 1 ||
				     sigismember(&set, SIGHUP) == 1);
}

/*
 * Takes the pending stop signals (every thread is joined, all of them
 * blocked), when the one that stopped the run was only noticed, not read:
 * a second one must be told from it.
 */
static void take_signals(void)
{
	const struct timespec zero = { 0, 0 };
	sigset_t set;

	client_stop_signals(&set);
	while (sigtimedwait(&set, NULL, &zero) > 0)
		;
}

int run_init(struct run *r, const struct client_opts *o)
{
	struct schedule_cfg cfg = {
		.dist = o->dist, .mean_ns = o->interval_ns, .seed = o->seed,
		.profile = o->rate_profile ? &o->profile : NULL,
		.replay = o->arrivals ? &o->replay : NULL,
		.warmup = o->warmup_mode == WARMUP_BURST ? 0 : o->warmup,
		.requests = o->requests,
		.warmup_dist = (enum arrival_dist)o->warmup_dist,
		.warmup_mean_ns = o->warmup_interval_ns,
		/* sleep-after: the lead adds to every gap */
		.gap_add_ns = o->prequery && o->prequery_at == PQPLAN_AT_SLEEP_AFTER ?
			      (uint64_t)llround(o->lead_us * 1e3) : 0,
		.duration_ns = o->requests ? 0 : (uint64_t)(o->duration_s * 1e9),
		.keyed = o->wire->keyed, .get_ratio = o->get_ratio,
		.keys = o->keys, .key_dist = o->key_dist,
		.cancel = signal_pending,
	};
	struct schedule_gen g;
	int ret;

	memcpy(cfg.dist_par, o->law.par, sizeof(cfg.dist_par));
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->sched = cfg;
	r->warmup = cfg.warmup;
	r->nthreads = (unsigned int)o->threads;
	ret = schedule_gen_init(&g, &cfg);
	if (ret)
		return ret;
	if (o->requests)
		r->total = cfg.warmup + o->requests;
	/* The burst's sequence numbers follow the schedule's last: by a
	 * duration, it is counted through first (no memory, ~10 ns a gap). */
	else if (o->warmup_mode == WARMUP_BURST)
		return schedule_count(&cfg, &r->total);
	return 0;
}

void run_free(struct run *r)
{
	free(r->traj);
	hist_free(r->acc.lat);
	hist_free(r->acc.svc);
	hist_free(r->acc.pace);
	validity_log_free(r->acc.vlog);
	r->acc.vlog = NULL;
	for (unsigned int k = 0; r->spools && k < r->nthreads; k++)
		spool_close(r->spools[k]);
	free(r->spools);
	r->traj = NULL;
	r->spools = NULL;
	r->acc.lat = r->acc.svc = r->acc.pace = NULL;
}

/* Every thread stops at its next look (the ring's eventfd wakes those
 * blocked in epoll). */
static void stop_all(struct run *r)
{
	uint64_t one = 1;

	if (atomic_exchange(&r->sh->stop, 1))
		return;
	if (write(r->sh->stop_fd, &one, sizeof(one)) < 0) {
		/* the flag alone stops the threads that spin */
	}
}

static int stopped(const struct run *r)
{
	return atomic_load_explicit(&r->sh->stop, memory_order_relaxed);
}

__attribute__((format(printf, 2, 3)))
static void fail(struct run *r, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&r->sh->lock);
	if (r->status != RUN_FAILED) {	/* keep the first error */
		va_start(ap, fmt);
		vsnprintf(r->err, sizeof(r->err), fmt, ap);
		va_end(ap);
		r->status = RUN_FAILED;
	}
	pthread_mutex_unlock(&r->sh->lock);
	stop_all(r);
}

static void interrupted(struct run *r)
{
	pthread_mutex_lock(&r->sh->lock);
	if (r->status == RUN_OK)
		r->status = RUN_INTERRUPTED;
	pthread_mutex_unlock(&r->sh->lock);
	stop_all(r);
}

static void traj_add(struct run *r)
{
	if (r->ntraj == r->traj_cap) {
		uint64_t ncap = r->traj_cap ? 2 * r->traj_cap : 64;
		struct hillclimb_row *n = realloc(r->traj, ncap * sizeof(*n));

		if (!n)
			return;	/* the trajectory is a log: drop, do not fail */
		r->traj = n;
		r->traj_cap = ncap;
	}
	r->traj[r->ntraj++] = r->hc.row;
}

static inline struct slot *slot_of(struct worker *w, uint64_t j)
{
	return &w->ring[j & w->mask];
}

/* Room for one more request in the ring: it doubles, in order. */
static int ring_grow(struct worker *w)
{
	uint64_t ncap = w->cap ? 2 * w->cap : RING_INITIAL;
	struct slot *n = malloc(ncap * sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (uint64_t j = w->head; j < w->drawn; j++)
		n[j & (ncap - 1)] = *slot_of(w, j);
	free(w->ring);
	w->ring = n;
	w->cap = ncap;
	w->mask = ncap - 1;
	return 0;
}

/*
 * Draws the schedule up to this thread's next request and puts it in the
 * ring. 1, 0 when the schedule has ended, -1 (out of memory).
 */
static int draw(struct worker *w)
{
	struct run *r = w->r;
	struct schedule_req sr;
	struct slot *s;

	for (;;) {
		uint64_t prev_t = w->last_t;

		if (w->gen_done || !schedule_gen_next(&w->gen, &sr)) {
			w->gen_done = 1;
			return 0;
		}
		w->last_t = sr.t_ns;
		if (w->n > 1 && sr.seq % w->n != w->id)
			continue;
		if (w->drawn - w->head == w->cap && ring_grow(w)) {
			fail(r, "out of memory: %llu requests in flight",
			     (unsigned long long)(w->drawn - w->head));
			return -1;
		}
		s = slot_of(w, w->drawn);
		memset(s, 0, sizeof(*s));
		s->q.seq = sr.seq;
		s->q.intended_ns = r->start_ns + sr.t_ns;
		s->q.op = sr.op;
		s->q.key = sr.key;
		s->gap_ns = sr.gap_ns;
		/* the first request's previous is the start */
		s->prev_ns = r->start_ns + prev_t;
		w->drawn++;
		return 1;
	}
}

/* 1 when local request j is in the ring (drawn now if need be), 0 past
 * the schedule's end, -1 on a fatal error. */
static int have(struct worker *w, uint64_t j)
{
	while (w->drawn <= j) {
		int d = draw(w);

		if (d <= 0)
			return d;
	}
	return 1;
}

/* A REPLY (not an ERROR) carries the service time the server applied. */
static int replied(const struct req_rec *q)
{
	return q->recv_ns && !q->error;
}

/*
 * The energy window: from the first measured request (before its
 * pre-query; a batch that crossed from the warm-up opens it at the next
 * send) to the last reply. One thread opens it.
 */
static void energy_begin(struct run *r, uint64_t seq)
{
	if (seq < r->warmup || !r->energy.n ||
	    atomic_load_explicit(&r->sh->energy_started, memory_order_relaxed) ||
	    atomic_exchange(&r->sh->energy_started, 1))
		return;
	if (energy_start(&r->energy, r->energy_note, sizeof(r->energy_note)))
		r->energy.n = 0;	/* the note says why */
}

static void energy_end(struct run *r)
{
	if (r->energy.n && r->energy.start_ns &&
	    !energy_stop(&r->energy, r->energy_note, sizeof(r->energy_note)))
		r->energy_ok = 1;
}

/* Whether request seq's row goes to requests.csv (--raw). */
static int keep_row(const struct worker *w, uint64_t seq)
{
	const struct client_opts *o = w->o;

	if (!w->spool || seq < w->r->warmup)
		return 0;
	return o->raw.mode == RAW_ALL ||
	       (o->raw.mode == RAW_SAMPLE &&
		(seq - w->r->warmup) % o->raw.every == 0);
}

/*
 * Request q is done (answered, or never will be): it counts, and its
 * record goes to the spool. What the summary of the old, array-based
 * client computed after the run, one request at a time. 0 or -1.
 */
static int finish(struct worker *w, const struct req_rec *q)
{
	struct run *r = w->r;
	struct run_acc *a = &w->acc;
	int ret;

	/* the lines while the run goes: a few nanoseconds, never a wait */
	if (w->iv)
		ivstat_add(w->iv, q, q->seq >= r->warmup, w->o->late_ns);
	if (q->seq < r->warmup) {
		tally_add(&a->warm, q, w->o->late_ns);
		return 0;
	}
	tally_add(&a->meas, q, w->o->late_ns);
	if (a->meas.sent == 1)
		a->first_sent_ns = q->sent_ns;
	a->last_sent_ns = q->sent_ns;
	if (hist_add(a->pace, q->sent_ns - q->intended_ns))
		goto nomem;
	if (validity_log_add(a->vlog, q->sent_ns, replied(q) ?
			     q->recv_ns - q->intended_ns : VALIDITY_NO_REPLY) < 0)
		goto nomem;
	if (replied(q)) {
		if (hist_add(a->lat, q->recv_ns - q->intended_ns) ||
		    hist_add(a->svc, q->recv_ns - q->sent_ns))
			goto nomem;
		if (w->wire->keyed) {
			if (q->op == PROTO_OP_GET) {
				a->gets++;
				a->misses += q->miss;
			} else {
				a->sets++;
			}
		} else if (q->applied_ns < w->o->service_ns) {
			a->capped++;
			if (q->applied_ns < a->min_applied_ns)
				a->min_applied_ns = q->applied_ns;
		}
	}
	if (!keep_row(w, q->seq))
		return 0;
	ret = spool_add(w->spool, q);
	if (ret) {
		fail(r, "cannot write %s/requests.csv: %s (run stopped)",
		     w->o->out_dir, strerror(-ret));
		return -1;
	}
	a->rows++;
	return 0;
nomem:
	fail(r, "out of memory for the latency samples");
	return -1;
}

/* The oldest requests, once answered, are done, in order. */
static int retire(struct worker *w)
{
	while (w->head < w->sent) {
		struct slot *s = slot_of(w, w->head);

		if (!s->q.recv_ns)
			return 0;
		if (finish(w, &s->q))
			return -1;
		w->head++;
	}
	return 0;
}

static int on_reply(struct worker *w, const struct proto_msg *m, uint64_t now)
{
	struct run *r = w->r;
	struct req_rec *q;
	uint64_t j;

	/* A reply to a pre-query (--prequery-ack): read, dropped. */
	if (m->type == PROTO_REPLY && (m->flags & PROTO_F_ACK)) {
		/* memcached and Redis answer every pre-query (mn, PING) */
		if (!w->o->prequery_ack && !w->wire->keyed) {
			fail(r, "reply to a pre-query that asked for none (seq %llu)",
			     (unsigned long long)m->seq);
			return -1;
		}
		w->prequery_acks++;
		return 0;
	}
	if (m->type != PROTO_REPLY && m->type != PROTO_ERROR) {
		fail(r, "unexpected %s message from the server (seq %llu)",
		     proto_type_name(m->type), (unsigned long long)m->seq);
		return -1;
	}
	j = m->seq / w->n;
	if (m->seq % w->n != w->id || j < w->head || j >= w->sent ||
	    slot_of(w, j)->q.recv_ns) {
		fail(r, "reply does not match any outstanding request (seq %llu)",
		     (unsigned long long)m->seq);
		return -1;
	}
	q = &slot_of(w, j)->q;
	if (m->client_send_ns != q->sent_ns) {
		fail(r, "reply to seq %llu echoes send time %llu, sent at %llu",
		     (unsigned long long)m->seq,
		     (unsigned long long)m->client_send_ns,
		     (unsigned long long)q->sent_ns);
		return -1;
	}
	q->recv_ns = now;
	q->server_recv_ns = m->server_recv_ns;
	q->server_send_ns = m->server_send_ns;
	/* What the server applied: it caps at its --max-service-us. */
	q->applied_ns = m->service_ns;
	w->received++;
	/* Only replies to requests sent under the current value count
	 * (adaptive runs have one thread). */
	if (w->o->adaptive && m->type == PROTO_REPLY &&
	    q->window == r->hc.windows &&
	    hillclimb_add(&r->hc, q->recv_ns - q->sent_ns))
		traj_add(r);
	if (m->type == PROTO_ERROR) {
		q->error = 1;
		w->error_replies++;
	}
	q->miss = !!(m->flags & PROTO_F_MISS);
	return j == w->head ? retire(w) : 0;
}

struct feed_ctx {
	struct worker *w;
	uint64_t now;
};

static int on_stream_msg(const struct proto_msg *m, void *arg)
{
	struct feed_ctx *ctx = arg;

	return on_reply(ctx->w, m, ctx->now) ? 1 : 0;
}

/* Drains one connection; returns -1 after a fatal error. */
static int conn_drain(struct worker *w, struct conn *c)
{
	struct run *r = w->r;

	for (;;) {
		ssize_t n = net_read(c->fd, w->rx, sizeof(w->rx));
		uint64_t now = clock_now_ns();

		if (n == -EAGAIN)
			return 0;
		if (n == -ECONNREFUSED) {
			fail(r, "server refused the datagram (is it running on %s:%u?)",
			     w->o->server.host, w->o->server.port);
			return -1;
		}
		if (n == -ECONNRESET) {
			fail(r, "server reset the connection (it died or closed with data unread)");
			return -1;
		}
		if (n < 0) {
			fail(r, "receive: %s", strerror((int)-n));
			return -1;
		}
		if (n == 0) {
			fail(r, "server closed the connection");
			return -1;
		}
		if (w->o->proto == NET_UDP) {
			struct proto_msg m;
			int err = w->wire->decode(w->rx, (size_t)n,
						  PROTO_MAX_PAYLOAD, &m);

			if (err) {
				fail(r, "malformed reply: %s",
				     w->wire->strerror(err));
				return -1;
			}
			if (on_reply(w, &m, now))
				return -1;
			continue;
		}
		struct feed_ctx ctx = { w, now };
		int ret = wire_feed(&c->w, w->rx, (size_t)n, on_stream_msg, &ctx);

		if (ret < 0)
			fail(r, "malformed reply: %s", wire_conn_error(&c->w) ?
			     wire_conn_error(&c->w) : w->wire->strerror(ret));
		if (ret)
			return -1;
	}
}

/* The epoll tags of the signalfd and of the run's stop eventfd. */
#define TAG_SIGNAL NULL
static char tag_stop;

/*
 * Waits for events for at most timeout_ns (0: poll) and handles them.
 * Returns -1 after a fatal error, a signal, or another thread's stop.
 */
static int poll_replies(struct worker *w, uint64_t timeout_ns)
{
	struct epoll_event evs[16];
	struct timespec ts = clock_ts(timeout_ns);
	int n;

	/*
	 * Spinning on one connection: a non-blocking recv() is one syscall
	 * where epoll plus recv is two, and it is the path every reply
	 * takes in spin mode. Signals are checked every 1024 polls.
	 */
	if (!timeout_ns && w->nconns == 1 && (++w->polls & 1023))
		return conn_drain(w, &w->conns[0]);
	n = epoll_pwait2(w->epfd, evs, 16, &ts, NULL);

	if (n < 0) {
		if (errno == EINTR)
			return 0;
		fail(w->r, "epoll_pwait2: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (evs[i].data.ptr == TAG_SIGNAL) {
			struct signalfd_siginfo si;

			/* Taken at once (another thread's signalfd may have
			 * it first): one more, even right after, is a second
			 * signal, which stops the writing of the results. */
			if (read(w->sigfd, &si, sizeof(si)) == sizeof(si))
				atomic_store(&w->r->sh->signal_taken, 1);
			interrupted(w->r);
			return -1;
		}
		if (evs[i].data.ptr == &tag_stop)
			return -1;
		if (conn_drain(w, evs[i].data.ptr))
			return -1;
	}
	return 0;
}

/* The oldest request in flight when it is past the timeout at NOW. */
static const struct req_rec *overdue(struct worker *w, uint64_t now)
{
	const struct req_rec *q;

	if (w->head == w->sent)
		return NULL;
	q = &slot_of(w, w->head)->q;
	return now - q->sent_ns > w->o->timeout_ns ? q : NULL;
}

static int check_timeouts(struct worker *w, uint64_t now)
{
	const struct req_rec *q;

	if (!overdue(w, now))
		return 0;
	/* After a stall of this process its reply may be waiting unread:
	 * read what is there before calling it lost (a poll handles up to
	 * 16 connections). */
	for (uint64_t i = 0; i <= w->nconns / 16; i++)
		if (poll_replies(w, 0))
			return -1;
	q = overdue(w, now);
	if (q) {
		fail(w->r, "no reply to request %llu within %llu ms",
		     (unsigned long long)q->seq,
		     (unsigned long long)(w->o->timeout_ns / 1000000));
		return -1;
	}
	return 0;
}

/*
 * Spare time before the next send (left): the spool writes a chunk that
 * waits when one fits, as what its writes took lately (the median, and a
 * margin) says: when nothing is in flight (no reply to delay), or when
 * half of its chunks wait. Without such time (a rate whose gaps are
 * shorter than a write), spool_add() writes eight chunks at once when all
 * are full: fewer, larger writes make fewer sends late than many small
 * ones (measured: bench/RESULTS.md, Memory of long runs). 1 written, 0
 * not, -1.
 */
static int spool_spare(struct worker *w, uint64_t left)
{
	uint64_t t0, c[SPOOL_COST_N];
	unsigned int b;
	int ret;

	if (!w->spool || left < w->spool_need ||
	    !(b = spool_backlog(w->spool)) ||
	    (w->head < w->sent && b < SPOOL_CHUNKS / 2))
		return 0;
	t0 = clock_now_ns();
	ret = spool_flush(w->spool);
	if (ret < 0) {
		fail(w->r, "cannot write %s/requests.csv: %s (run stopped)",
		     w->o->out_dir, strerror(-ret));
		return -1;
	}
	w->spool_cost[w->spool_writes++ % SPOOL_COST_N] = clock_now_ns() - t0;
	/* the median of the last writes, kept here so the loop only reads it */
	memcpy(c, w->spool_cost, sizeof(c));
	hist_sort_u64(c, SPOOL_COST_N);
	w->spool_need = c[SPOOL_COST_N / 2] + SPOOL_MARGIN_NS;
	return 1;
}

/*
 * Returns at target_ns, having handled every reply that arrived before.
 * spin: poll without blocking, then spin on the clock for the last
 * SPIN_GUARD_NS; sleep: block in epoll until the target; hybrid: block
 * until margin before, then as spin.
 */
static int wait_until(struct worker *w, uint64_t target)
{
	const struct client_opts *o = w->o;

	for (;;) {
		uint64_t now = clock_now_ns();
		uint64_t left;
		int ret;

		if (check_timeouts(w, now) || stopped(w->r))
			return -1;
		if (now >= target) {
			/*
			 * Behind schedule: keep reading replies now and then,
			 * or a server whose replies go unread blocks (and
			 * drops us) while we catch up.
			 */
			if (!(++w->behind & 7) && poll_replies(w, 0))
				return -1;
			return 0;
		}
		w->behind = 0;
		left = target - now;
		ret = spool_spare(w, left);
		if (ret < 0)
			return -1;
		if (ret)
			continue;
		if (o->wait == WAIT_SLEEP ||
		    (o->wait == WAIT_HYBRID && left > o->spin_margin_ns)) {
			uint64_t block = o->wait == WAIT_SLEEP ? left :
					 left - o->spin_margin_ns;

			if (poll_replies(w, block))
				return -1;
			continue;
		}
		if (left <= SPIN_GUARD_NS) {
			clock_spin_until(target);
			return 0;
		}
		if (poll_replies(w, 0))
			return -1;
	}
}

/*
 * A message of the run. Key-value protocols: the request's operation and
 * key (no request: a set, the largest message, which is what frame_len
 * asks for).
 */
static struct proto_msg message(const struct worker *w, uint8_t type,
				const struct req_rec *q, uint64_t seq,
				uint64_t now)
{
	const struct client_opts *o = w->o;
	struct proto_msg m = {
		.type = type, .seq = seq, .client_send_ns = now,
		.flags = type == PROTO_PREQUERY && o->prequery_ack ? PROTO_F_ACK : 0,
		.service_ns = type == PROTO_REQUEST ? o->service_ns : 0,
		.payload_len = type == PROTO_REQUEST ? (uint32_t)o->payload : 0,
	};

	if (w->wire->keyed && type == PROTO_REQUEST) {
		m.op = q ? q->op : PROTO_OP_SET;
		m.key = q ? q->key : 0;
		m.key_size = (uint16_t)o->key_size;
		m.payload_len = m.op == PROTO_OP_SET ? (uint32_t)o->value_size : 0;
	}
	return m;
}

/* A request or pre-query for connection c at buf (txbuf has room for a
 * pre-query and a request, or a batch of requests: see send_due). */
static size_t encode(struct worker *w, struct conn *c, uint8_t type,
		     const struct req_rec *q, uint64_t seq, uint64_t now,
		     uint8_t *buf)
{
	struct proto_msg m = message(w, type, q, seq, now);
	ssize_t len = w->wire->encode(&c->w, &m, buf,
				      w->txlen - (size_t)(buf - w->txbuf));

	return len < 0 ? 0 : (size_t)len;
}

static size_t frame_len(struct worker *w, uint8_t type)
{
	struct proto_msg m = message(w, type, NULL, UINT64_MAX, 0);

	return w->wire->msg_len(&m);
}

/* The connection of local request j: round-robin. */
static struct conn *conn_of(struct worker *w, uint64_t j)
{
	return &w->conns[j % w->nconns];
}

static int send_msg(struct worker *w, struct conn *c, uint8_t type,
		    const struct req_rec *q, uint64_t *sent_ns)
{
	size_t len;
	int err;

	*sent_ns = clock_now_ns();
	len = encode(w, c, type, q, q->seq, *sent_ns, w->txbuf);
	err = len ? net_send_all(c->fd, w->txbuf, len, w->o->timeout_ns) :
	      -EMSGSIZE;
	/* What a pre-query's own send() costs decides how early it must go. */
	if (!err && type == PROTO_PREQUERY)
		pqplan_cost_add(&w->send_cost, clock_now_ns() - *sent_ns);
	if (!err && w->marker_fd >= 0)
		marker_write(w->marker_fd, type == PROTO_REQUEST ? "send" : "pq",
			     q->seq);
	if (err) {
		fail(w->r, "send %s %llu: %s", proto_type_name(type),
		     (unsigned long long)q->seq, strerror(-err));
		return -1;
	}
	return 0;
}

/*
 * Pre-query and the next request in one system call, so the request does
 * not wait for a send() of its own pre-query: one send() on TCP, one
 * sendmmsg() of two datagrams on UDP. Both share one send time.
 */
static int send_together(struct worker *w)
{
	const struct client_opts *o = w->o;
	struct run *r = w->r;
	uint64_t j = w->sent;
	struct req_rec *q = &slot_of(w, j)->q;
	struct conn *c = conn_of(w, j);
	uint64_t now = clock_now_ns();
	/* the lengths encoded: a key-value request's varies */
	size_t pql = encode(w, c, PROTO_PREQUERY, q, q->seq, now, w->txbuf);
	size_t rql = pql ? encode(w, c, PROTO_REQUEST, q, q->seq, now,
				  w->txbuf + pql) : 0;
	int err = 0;

	if (!rql) {
		fail(r, "send request %llu with its pre-query: cannot encode them",
		     (unsigned long long)q->seq);
		return -1;
	}
	if (o->proto == NET_TCP) {
		err = net_send_all(c->fd, w->txbuf, pql + rql, o->timeout_ns);
	} else {
		struct iovec iov[2] = {
			{ w->txbuf, pql }, { w->txbuf + pql, rql },
		};
		struct mmsghdr mm[2] = {
			{ .msg_hdr = { .msg_iov = &iov[0], .msg_iovlen = 1 } },
			{ .msg_hdr = { .msg_iov = &iov[1], .msg_iovlen = 1 } },
		};
		int done = 0;

		/* A full socket buffer: the datagrams left go one by one. */
		while (done < 2) {
			int n = sendmmsg(c->fd, mm + done, 2 - done, 0);

			if (n < 0) {
				if (errno == EINTR)
					continue;
				if (errno != EAGAIN) {
					err = -errno;
					break;
				}
				err = net_send_all(c->fd, iov[done].iov_base,
						   iov[done].iov_len, o->timeout_ns);
				if (err)
					break;
				n = 1;
			}
			done += n;
		}
	}
	if (err) {
		fail(r, "send request %llu with its pre-query: %s",
		     (unsigned long long)q->seq, strerror(-err));
		return -1;
	}
	/* A send that carries a pre-query, alone or not, wakes the server
	 * alike: it is a sample of the cost too, so the estimate keeps
	 * following the host while pre-queries go together. */
	pqplan_cost_add(&w->send_cost, clock_now_ns() - now);
	if (w->marker_fd >= 0) {
		marker_write(w->marker_fd, "pq", q->seq);
		marker_write(w->marker_fd, "send", q->seq);
	}
	q->prequery_sent_ns = q->sent_ns = now;
	q->pq = REQ_PQ_SENT;
	w->sent = j + 1;
	return 0;
}

static int send_request(struct worker *w)
{
	uint64_t j = w->sent;
	struct req_rec *q = &slot_of(w, j)->q;

	if (send_msg(w, conn_of(w, j), PROTO_REQUEST, q, &q->sent_ns))
		return -1;
	w->sent = j + 1;
	return 0;
}

/*
 * The pre-query for the next request, due at send_ns with the previous
 * one of the schedule due at prev_ns, as lib/pqplan plans it: skipped,
 * sent alone ahead of the request (done here), or to go together with the
 * request (returns 1). Returns 0 when the request goes alone, 1 together,
 * -1 on a fatal error.
 */
static int prequery(struct worker *w, uint64_t prev_ns, uint64_t send_ns)
{
	struct run *r = w->r;
	uint64_t j = w->sent;
	struct req_rec *q = &slot_of(w, j)->q;
	int in_band = !w->pq;
	struct pqplan p;
	uint64_t lead_ns;

	if (!w->o->prequery)
		return 0;
	q->lead_us = w->o->adaptive ? hillclimb_value_us(&r->hc) : w->o->lead_us;
	q->window = (uint32_t)r->hc.windows;
	lead_ns = (uint64_t)llround(q->lead_us * 1e3);
	p = pqplan_decide_at((enum pqplan_at)w->o->prequery_at, prev_ns,
			     send_ns, lead_ns, pqplan_cost_ns(&w->send_cost),
			     in_band);
	if (p.action == PQPLAN_SKIP) {
		if (p.by_cost)
			pqplan_cost_relax(&w->send_cost);
		q->pq = REQ_PQ_SKIPPED;
		return 0;
	}
	q->prequery_plan_ns = p.at_ns;
	if (p.action == PQPLAN_TOGETHER)
		return 1;
	if (wait_until(w, p.at_ns))
		return -1;
	/* The ring may have grown while waiting (replies never draw, but
	 * keep to the index). */
	q = &slot_of(w, j)->q;
	/* Reached too late to go alone: never delay the request for it
	 * (sleep-after sends it alone anyway, as the thesis' code did). */
	if (!pqplan_at_strict((enum pqplan_at)w->o->prequery_at) &&
	    !pqplan_fits(clock_now_ns(), p.at_ns, send_ns,
			 pqplan_cost_ns(&w->send_cost))) {
		if (in_band)
			return 1;
		/* not sent, so not measured: as a skip for the cost */
		pqplan_cost_relax(&w->send_cost);
		q->pq = REQ_PQ_MISSED;
		q->prequery_plan_ns = 0;
		return 0;
	}
	if (send_msg(w, w->pq ? w->pq : conn_of(w, j), PROTO_PREQUERY, q,
		     &q->prequery_sent_ns))
		return -1;
	q->pq = REQ_PQ_SENT;
	return 0;
}

/* Waits for every outstanding reply, or the timeout. */
static int drain_all(struct worker *w)
{
	while (w->head < w->sent) {
		uint64_t now = clock_now_ns();

		if (check_timeouts(w, now) || stopped(w->r))
			return -1;
		if (poll_replies(w, w->o->wait == WAIT_SLEEP ? 1000000 : 0))
			return -1;
	}
	return 0;
}

/*
 * Sends the next request and, on a single TCP connection without
 * pre-queries, every following request already due, in one send(): when
 * the client is behind, one syscall per request would keep it behind.
 * They share one send time. Returns 0 or -1.
 *
 * A request that is on time (less than --late-us past its time) goes
 * alone and at once: looking for the next one due draws it first, and
 * that draw (a cold slot of the ring after a long gap) took 1.6 us at the
 * median and 9 us at p90 on a VM, all of it charged to this request's
 * pacing error. Runs with a pre-query never came here, so the baseline
 * of every pre-query comparison carried that delay and its pairs were
 * flagged behind for it.
 */
static int send_due(struct worker *w)
{
	const struct client_opts *o = w->o;
	uint64_t j = w->sent, n = 1, now = clock_now_ns();
	size_t frame, off = 0;
	int err, h;

	if (w->nconns != 1 || o->proto != NET_TCP || o->prequery ||
	    now < slot_of(w, j)->q.intended_ns + o->late_ns)
		return send_request(w);
	frame = frame_len(w, PROTO_REQUEST);
	if (w->txlen < 2 * frame)
		return send_request(w);
	while ((n + 1) * frame <= w->txlen && (h = have(w, j + n)) > 0 &&
	       slot_of(w, j + n)->q.intended_ns <= now)
		n++;
	if (stopped(w->r))
		return -1;	/* out of memory in have() */
	if (n == 1)
		return send_request(w);
	/* frame is the largest request: a key-value get is shorter */
	for (uint64_t k = 0; k < n; k++) {
		struct req_rec *q = &slot_of(w, j + k)->q;
		size_t len = encode(w, &w->conns[0], PROTO_REQUEST, q, q->seq,
				    now, w->txbuf + off);

		if (!len) {
			fail(w->r, "send request %llu: cannot encode it",
			     (unsigned long long)q->seq);
			return -1;
		}
		off += len;
		q->sent_ns = now;
	}
	err = net_send_all(w->conns[0].fd, w->txbuf, off, o->timeout_ns);
	if (err) {
		fail(w->r, "send request %llu: %s",
		     (unsigned long long)slot_of(w, j)->q.seq, strerror(-err));
		return -1;
	}
	if (w->marker_fd >= 0)
		for (uint64_t k = 0; k < n; k++)
			marker_write(w->marker_fd, "send",
				     slot_of(w, j + k)->q.seq);
	w->sent = j + n;
	return 0;
}

/*
 * The thesis' warm-up: --warmup pre-queries back to back, before the
 * schedule starts, to the pre-query receiver (the pre-query port, else
 * the request connection); replies, with --prequery-ack, are dropped.
 * Their sequence numbers follow the schedule's last (total, total + 1,
 * ...): a server log or trace joins pre-queries to requests by seq, and
 * a burst message must not pass for request k's pre-query. Thread 0
 * sends it, before every thread starts.
 */
static int burst_warmup(struct worker *w)
{
	struct conn *c = w->pq ? w->pq : &w->conns[0];
	struct req_rec q = { 0 };

	/* No trace markers and no send-cost samples: they are the run's. */
	for (uint64_t k = 0; k < w->o->warmup; k++) {
		size_t len;
		int err;

		q.seq = w->r->total + k;
		len = encode(w, c, PROTO_PREQUERY, &q, q.seq, clock_now_ns(),
			     w->txbuf);
		err = len ? net_send_all(c->fd, w->txbuf, len,
					 w->o->timeout_ns) : -EMSGSIZE;
		if (err) {
			fail(w->r, "burst warm-up, message %llu: %s",
			     (unsigned long long)k, strerror(-err));
			return -1;
		}
		w->burst_sent++;
		/* read what came back so far: replies do not pile up */
		if (poll_replies(w, 0))
			return -1;
	}
	return 0;
}

struct preload_ctx {
	struct worker *w;
	uint64_t next;		/* key the next reply must be for */
};

static int on_preload_reply(const struct proto_msg *m, void *arg)
{
	struct preload_ctx *p = arg;

	if (m->type != PROTO_REPLY || m->seq != p->next) {
		fail(p->w->r, "--preload: set of key %llu: %s",
		     (unsigned long long)m->seq, m->type == PROTO_ERROR ?
		     "the server answered with an error" : "unexpected reply");
		return 1;
	}
	p->next++;
	return 0;
}

/*
 * --preload: sets every key once, before the schedule starts, in batches
 * on the first connection of thread 0 (each batch answered before the
 * next, so the server's buffers stay bounded); the run's seq numbers are
 * not used: message k of the preload is key k.
 */
static int preload(struct worker *w)
{
	const struct client_opts *o = w->o;
	struct run *r = w->r;
	struct conn *c = &w->conns[0];
	struct preload_ctx ctx = { w, 0 };
	uint64_t start = clock_now_ns();

	for (uint64_t k = 0; k < o->keys;) {
		struct proto_msg m = {
			.type = PROTO_REQUEST, .op = PROTO_OP_SET,
			.key_size = (uint16_t)o->key_size,
			.payload_len = (uint32_t)o->value_size,
		};
		size_t off = 0;
		uint64_t deadline;
		int err;

		while (k < o->keys && off + w->wire->msg_len(&m) <= w->txlen &&
		       k - ctx.next < 256) {
			ssize_t len;

			m.seq = m.key = k;
			len = w->wire->encode(&c->w, &m, w->txbuf + off,
					      w->txlen - off);
			if (len <= 0) {
				fail(r, "--preload: cannot encode key %llu",
				     (unsigned long long)k);
				return -1;
			}
			off += (size_t)len;
			k++;
		}
		err = net_send_all(c->fd, w->txbuf, off, o->timeout_ns);
		if (err) {
			fail(r, "--preload: send: %s", strerror(-err));
			return -1;
		}
		deadline = clock_now_ns() + o->timeout_ns;
		while (ctx.next < k) {
			struct pollfd p = { .fd = c->fd, .events = POLLIN };
			uint64_t before = ctx.next;
			ssize_t n;
			int ret;

			if (signal_pending(NULL)) {
				interrupted(r);
				return -1;
			}
			if (stopped(r))
				return -1;
			n = poll(&p, 1, 10) > 0 ?
			    net_read(c->fd, w->rx, sizeof(w->rx)) : -EAGAIN;
			if (n <= 0 && n != -EAGAIN) {
				fail(r, "--preload: %s", n ? strerror((int)-n) :
				     "server closed the connection");
				return -1;
			}
			ret = n > 0 ? wire_feed(&c->w, w->rx, (size_t)n,
						on_preload_reply, &ctx) : 0;
			if (ret < 0)
				fail(r, "--preload: malformed reply: %s",
				     wire_conn_error(&c->w) ? wire_conn_error(&c->w) :
				     w->wire->strerror(ret));
			if (ret)
				return -1;
			/* Judged after reading: a stall of this process is no
			 * timeout, and bytes that complete no reply do not put
			 * it off. */
			if (ctx.next == before && clock_now_ns() >= deadline) {
				fail(r, "--preload: no reply to the set of key %llu within %llu ms",
				     (unsigned long long)ctx.next,
				     (unsigned long long)(o->timeout_ns / 1000000));
				return -1;
			}
		}
	}
	r->preloaded = o->keys;
	r->preload_ns = clock_now_ns() - start;
	return 0;
}

static int open_loop(struct worker *w)
{
	for (;;) {
		struct slot *s;
		int together, h = have(w, w->sent);

		if (h < 0)
			return -1;
		if (!h)
			break;
		s = slot_of(w, w->sent);
		energy_begin(w->r, s->q.seq);
		together = prequery(w, s->prev_ns, s->q.intended_ns);
		/* (the slot stays put: only draw() grows the ring) */
		if (together < 0 || wait_until(w, s->q.intended_ns))
			return -1;
		if (together ? send_together(w) : send_due(w))
			return -1;
	}
	return drain_all(w);
}

/* The thesis' closed loop: one request outstanding, the gap after each
 * reply (one thread). */
static int closed_loop(struct worker *w)
{
	uint64_t next = clock_now_ns();

	for (;;) {
		uint64_t prev = next;
		struct req_rec *q;
		int together, h = have(w, w->sent);

		if (h < 0)
			return -1;
		if (!h)
			break;
		q = &slot_of(w, w->sent)->q;
		energy_begin(w->r, q->seq);
		next += slot_of(w, w->sent)->gap_ns;
		together = prequery(w, prev, next);
		if (together < 0 || wait_until(w, next))
			return -1;
		if (together ? send_together(w) : send_request(w))
			return -1;
		q->intended_ns = q->sent_ns;
		if (drain_all(w))
			return -1;
		next = clock_now_ns();
	}
	return 0;
}

/* A connect stops on a signal, or when another thread stopped the run. */
static int connect_stop(void *arg)
{
	struct worker *w = arg;

	return stopped(w->r) || signal_pending(NULL);
}

/*
 * Connects to the server's port (what: "" or "the pre-query port "),
 * never waiting past --connect-timeout-ms nor past a signal (a full
 * accept queue drops SYNs: a blocking connect() sat out minutes of the
 * kernel's retries with SIGINT pending). The fd, or -1 with the run
 * failed or interrupted.
 */
static int connect_server(struct worker *w, uint16_t port, const char *what)
{
	const struct client_opts *o = w->o;
	int fd = net_connect_until(o->proto, o->server.host, port,
				   o->connect_timeout_ns, connect_stop, w);

	if (fd == -EINTR) {
		if (signal_pending(NULL))
			interrupted(w->r);
	} else if (fd == -ETIMEDOUT) {
		fail(w->r, "cannot connect to %s%s:%u: no connection within %llu ms (--connect-timeout-ms)",
		     what, o->server.host, port,
		     (unsigned long long)(o->connect_timeout_ns / 1000000));
	} else if (fd < 0) {
		fail(w->r, "cannot connect to %s%s:%u: %s", what,
		     o->server.host, port, strerror(-fd));
	}
	return fd < 0 ? -1 : fd;
}

/*
 * The pacing state and this thread's accumulators, sized for its share
 * of the samples; -1 when they cannot be made (fail() says why).
 */
static int setup_samples(struct worker *w)
{
	const struct client_opts *o = w->o;
	struct run *r = w->r;
	uint64_t bound = (o->exact_samples + w->n - 1) / w->n;
	double expect;

	/* sleep and hybrid pacing wake at the send time, not 50 us after
	 * (unless --timer-slack-ns asks for the thesis' usleep) */
	clock_timer_slack(o->timer_slack_ns);
	pqplan_cost_init(&w->send_cost);
	for (int i = 0; i < SPOOL_COST_N; i++)
		w->spool_cost[i] = SPOOL_COST_INITIAL_NS;
	w->spool_need = SPOOL_COST_INITIAL_NS + SPOOL_MARGIN_NS;
	/* Made by the thread that uses them, so they sit on its CPU's node.
	 * Each thread keeps its share of the exact samples. */
	w->acc.lat = hist_new(1);
	w->acc.svc = hist_new(1);
	w->acc.pace = hist_new(1);
	w->acc.min_applied_ns = UINT64_MAX;
	if (!w->acc.lat || !w->acc.svc || !w->acc.pace || ring_grow(w)) {
		fail(r, "out of memory");
		return -1;
	}
	hist_set_exact_max(w->acc.lat, bound);
	hist_set_exact_max(w->acc.svc, bound);
	hist_set_exact_max(w->acc.pace, bound);
	w->acc.vlog = validity_log_new(bound);
	if (!w->acc.vlog) {
		fail(r, "out of memory");
		return -1;
	}
	/* the samples this thread will keep, in one allocation: growing the
	 * array as it goes would copy megabytes between two sends */
	expect = (o->requests ? (double)o->requests :
		  o->duration_s * 1e9 / o->interval_ns) / w->n * 1.01 + 1024;
	if (expect < (double)bound)
		bound = (uint64_t)expect;
	hist_reserve(w->acc.lat, bound);
	hist_reserve(w->acc.svc, bound);
	hist_reserve(w->acc.pace, bound);
	if (schedule_gen_init(&w->gen, &r->sched)) {
		fail(r, "invalid schedule");
		return -1;
	}
	return 0;
}

/* The epoll set with the stop signals and the stop pipe; the trace marker. */
static int setup_events(struct worker *w)
{
	const struct client_opts *o = w->o;
	struct run *r = w->r;
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t mask;

	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0) {
		fail(r, "epoll_create1: %s", strerror(errno));
		return -1;
	}
	client_stop_signals(&mask);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	w->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	ev.data.ptr = TAG_SIGNAL;
	if (w->sigfd < 0 || epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->sigfd, &ev)) {
		fail(r, "signalfd: %s", strerror(errno));
		return -1;
	}
	ev.data.ptr = &tag_stop;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, r->sh->stop_fd, &ev)) {
		fail(r, "epoll_ctl: %s", strerror(errno));
		return -1;
	}
	if (o->trace_markers) {
		w->marker_fd = marker_open(NULL);
		if (w->marker_fd < 0) {
			fail(r, "--trace-markers: %s", w->marker_fd == -ENOENT ?
			     "no trace instance (run under 'wakebench trace record -- ...')" :
			     strerror(-w->marker_fd));
			return -1;
		}
	}
	return 0;
}

/* The send buffer and the connections (and the pre-query port's), in the epoll set. */
static int setup_conns(struct worker *w)
{
	const struct client_opts *o = w->o;
	struct run *r = w->r;
	struct epoll_event ev = { .events = EPOLLIN };

	/* room for a pre-query and its request (send_together) */
	w->txlen = frame_len(w, PROTO_PREQUERY) + frame_len(w, PROTO_REQUEST);
	if (w->txlen < TX_BATCH_BYTES)
		w->txlen = TX_BATCH_BYTES;
	w->txbuf = calloc(1, w->txlen);
	w->conns = calloc(o->connections + 1, sizeof(*w->conns));
	if (!w->txbuf || !w->conns) {
		fail(r, "out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < o->connections; i++) {
		struct conn *c = &w->conns[i];
		int fd = connect_server(w, o->server.port, "");

		if (fd < 0)
			return -1;
		c->fd = fd;
		w->nconns++;
		wire_conn_init(&c->w, w->wire, PROTO_MAX_PAYLOAD);
		ev.data.ptr = c;
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			fail(r, "epoll_ctl: %s", strerror(errno));
			return -1;
		}
	}
	if (o->prequery && o->prequery_port) {
		/* One extra slot after the request connections. */
		struct conn *c = &w->conns[o->connections];
		int fd = connect_server(w, o->prequery_port,
					"the pre-query port ");

		if (fd < 0)
			return -1;
		c->fd = fd;
		wire_conn_init(&c->w, w->wire, PROTO_MAX_PAYLOAD);
		ev.data.ptr = c;
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			fail(r, "epoll_ctl: %s", strerror(errno));
			return -1;
		}
		w->pq = c;
	}
	return 0;
}

static int loop_setup(struct worker *w)
{
	if (setup_samples(w) || setup_events(w) || setup_conns(w))
		return -1;
	return 0;
}

static void loop_teardown(struct worker *w)
{
	if (w->pq) {
		close(w->pq->fd);
		wire_conn_free(&w->pq->w);
	}
	for (uint64_t i = 0; i < w->nconns; i++) {
		close(w->conns[i].fd);
		wire_conn_free(&w->conns[i].w);
	}
	if (w->sigfd >= 0)
		close(w->sigfd);
	if (w->marker_fd >= 0)
		close(w->marker_fd);
	if (w->epfd >= 0)
		close(w->epfd);
	free(w->conns);
	free(w->txbuf);
	free(w->ring);
	w->conns = NULL;
	w->txbuf = NULL;
	w->ring = NULL;
}

/*
 * Blocks until target (CLOCK_MONOTONIC), a signal or a stop: 0, or -1
 * (interrupted: the run's status says so).
 */
static int block_until(struct run *r, uint64_t target)
{
	sigset_t mask;
	struct pollfd p[2];
	int ret = 0;

	client_stop_signals(&mask);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	p[0].fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	p[1].fd = r->sh->stop_fd;
	p[0].events = p[1].events = POLLIN;
	if (p[0].fd < 0) {
		fail(r, "signalfd: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		uint64_t now = clock_now_ns();
		struct timespec ts;

		if (now >= target || stopped(r))
			break;
		ts = clock_ts(target - now);
		if (ppoll(p, 2, &ts, NULL) > 0) {
			if (p[0].revents) {
				r->start_wait_interrupted = 1;
				interrupted(r);
			}
			break;
		}
	}
	if (stopped(r))
		ret = -1;
	close(p[0].fd);
	return ret;
}

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, read back to back (the closest
 * of a few readings). */
static int64_t realtime_offset(void)
{
	int64_t best = 0;
	uint64_t span = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		struct timespec rt;
		uint64_t a = clock_now_ns(), b, real;

		clock_gettime(CLOCK_REALTIME, &rt);
		b = clock_now_ns();
		real = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
		if (b - a < span) {
			span = b - a;
			best = (int64_t)(real - (a + (b - a) / 2));
		}
	}
	return best;
}

/*
 * The schedule's start: one millisecond from now, so set-up costs do not
 * count, or --start-at (several clients started together), waited for
 * blocked until shortly before. 0 or -1 (past, or interrupted).
 */
static int pick_start(struct run *r)
{
	const struct client_opts *o = r->o;
	int64_t off;
	uint64_t now;

	if (!o->start_at_ns) {
		r->start_ns = clock_now_ns() + 1000000;
		return 0;
	}
	off = realtime_offset();
	now = clock_now_ns();
	if ((int64_t)o->start_at_ns - off <= (int64_t)now) {
		fail(r, "--start-at %llu passed %.3f ms before the run could start (set-up took longer)",
		     (unsigned long long)o->start_at_ns,
		     ((double)now - ((double)o->start_at_ns - (double)off)) / 1e6);
		return -1;
	}
	r->start_ns = (uint64_t)((int64_t)o->start_at_ns - off);
	if (r->start_ns > now + START_MARGIN_NS)
		return block_until(r, r->start_ns - START_MARGIN_NS);
	return 0;
}

/*
 * Threads wait here for the start time: the last to arrive wakes the
 * caller of run_experiment, which sets it (one thread: it sets it).
 */
static void wait_go(struct worker *w)
{
	struct run_shared *sh = w->r->sh;

	if (w->n == 1) {
		if (!stopped(w->r) && !pick_start(w->r))
			reporter_go(w->r->rep, w->r->start_ns);
		return;
	}
	pthread_mutex_lock(&sh->lock);
	sh->arrived++;
	pthread_cond_broadcast(&sh->cv);
	while (!sh->go)
		pthread_cond_wait(&sh->cv, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
}

static void worker_run(struct worker *w)
{
	struct run *r = w->r;
	const struct client_opts *o = w->o;
	char msg[256];

	if (w->n > 1 && w->cpu >= 0 && cpu_pin_opt(w->cpu, msg, sizeof(msg)))
		fail(r, "thread %u: %s", w->id, msg);
	if (!stopped(r))
		loop_setup(w);
	if (!w->id && !stopped(r) && o->preload)
		preload(w);
	if (!w->id && !stopped(r) && o->warmup_mode == WARMUP_BURST)
		burst_warmup(w);
	wait_go(w);
	if (!stopped(r)) {
		if (o->closed)
			closed_loop(w);
		else
			open_loop(w);
	}
	/* What was sent and not done (a failure, a signal): unanswered. */
	while (w->head < w->sent && w->ring) {
		if (finish(w, &slot_of(w, w->head)->q))
			break;
		w->head++;
	}
	loop_teardown(w);
}

static void *worker_thread(void *arg)
{
	worker_run(arg);
	return NULL;
}

/* Adds thread w's counts to the run's. */
static void merge(struct run *r, struct worker *w)
{
	struct run_acc *a = &r->acc, *b = &w->acc;

	tally_merge(&a->meas, &b->meas);
	tally_merge(&a->warm, &b->warm);
	if (b->lat) {
		int e1 = hist_merge(a->lat, b->lat), e2 = hist_merge(a->svc, b->svc);
		int e3 = hist_merge(a->pace, b->pace);

		/* still a valid histogram: the percentiles say they are not
		 * exact, the run goes on */
		if (e1 || e2 || e3)
			fprintf(stderr, "%s: out of memory merging the threads' samples: percentiles from the histogram\n",
				PROG);
	}
	a->gets += b->gets;
	a->sets += b->sets;
	a->misses += b->misses;
	a->capped += b->capped;
	if (b->capped && b->min_applied_ns < a->min_applied_ns)
		a->min_applied_ns = b->min_applied_ns;
	if (b->meas.sent && (!a->first_sent_ns || b->first_sent_ns < a->first_sent_ns))
		a->first_sent_ns = b->first_sent_ns;
	if (b->meas.sent && b->last_sent_ns > a->last_sent_ns)
		a->last_sent_ns = b->last_sent_ns;
	a->rows += b->rows;
	/* How far the schedule was drawn: each thread draws all of it, so
	 * the one that got furthest says (every one at its end: all of it). */
	if (w->gen.i > r->drawn)
		r->drawn = w->gen.i;
	if (w->gen_done && !r->total)
		r->total = w->gen.i;
	r->sent += w->sent;
	r->received += w->received;
	r->error_replies += w->error_replies;
	r->prequery_acks += w->prequery_acks;
	r->burst_sent += w->burst_sent;
	hist_free(b->lat);
	hist_free(b->svc);
	hist_free(b->pace);
	b->lat = b->svc = b->pace = NULL;
	if (b->vlog && validity_log_merge(a->vlog, b->vlog))
		fprintf(stderr, "%s: out of memory merging the threads' send times: the workload tests see part of the run\n",
			PROG);
	validity_log_free(b->vlog);
	b->vlog = NULL;
}

/* The run's spools, one per thread, in --out (none with --raw none). */
static int open_spools(struct run *r)
{
	const struct client_opts *o = r->o;
	int ret;

	r->spools = calloc(r->nthreads, sizeof(*r->spools));
	if (!r->spools) {
		fail(r, "out of memory");
		return -1;
	}
	if (!o->out_dir || o->raw.mode == RAW_NONE)
		return 0;
	for (unsigned int k = 0; k < r->nthreads; k++) {
		ret = spool_open(&r->spools[k], o->out_dir, sizeof(struct req_rec));
		if (ret) {
			r->spool_err = ret;
			fail(r, "cannot write %s/requests.csv: %s", o->out_dir,
			     strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/*
 * The run's histograms' rule, spools, adaptive state, energy counters
 * and reporter; -1 when one cannot be made (fail() says why).
 */
static int run_prepare(struct run *r)
{
	hist_set_rule(r->acc.lat, (enum hist_rule)r->o->percentile_rule);
	hist_set_rule(r->acc.svc, (enum hist_rule)r->o->percentile_rule);
	hist_set_rule(r->acc.pace, (enum hist_rule)r->o->percentile_rule);
	if (open_spools(r))
		return -1;
	if (r->o->adaptive && hillclimb_init(&r->hc, &r->o->hc)) {
		fail(r, "invalid adaptive pre-query settings");
		return -1;
	}
	if (energy_open(&r->energy, r->energy_note, sizeof(r->energy_note)) < 0)
		r->energy.n = 0;
	if (r->o->report_interval_s > 0) {
		char msg[256];

		r->rep = reporter_new(r->o, r->nthreads, msg, sizeof(msg));
		if (!r->rep) {
			fail(r, "%s", msg);
			return -1;
		}
	}
	return 0;
}

/* Each of the N workers: its thread number, CPU, spool and reporter slot. */
static void workers_init(struct run *r, struct worker *ws, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++) {
		struct worker *w = &ws[k];

		w->r = r;
		w->o = r->o;
		w->wire = r->o->wire;
		w->id = k;
		w->n = n;
		w->cpu = r->o->cpus.n == (int)n && n > 1 ? r->o->cpus.cpu[k] : -1;
		w->epfd = w->sigfd = w->marker_fd = -1;
		w->spool = r->spools[k];
		w->iv = reporter_ivstat(r->rep, k);
	}
}

/*
 * The N workers run: one on this thread, or one thread each, started
 * together once every one is set up. Returns how many ran (and joined).
 */
static unsigned int workers_run(struct run *r, struct worker *ws, unsigned int n)
{
	struct run_shared *sh = r->sh;
	unsigned int created = 0;
	sigset_t mask;

	if (n == 1) {
		worker_run(&ws[0]);
		return 1;
	}
	/* The threads inherit the blocked signals: a signalfd each. */
	client_stop_signals(&mask);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	for (; created < n; created++) {
		int ret = pthread_create(&ws[created].tid, NULL, worker_thread,
					 &ws[created]);

		if (ret) {
			fail(r, "cannot start thread %u: %s", created,
			     strerror(ret));
			break;
		}
		ws[created].started = 1;
	}
	/* Every thread set up (or stopped): the start time, then go. */
	pthread_mutex_lock(&sh->lock);
	while (sh->arrived < created)
		pthread_cond_wait(&sh->cv, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	if (!stopped(r) && !pick_start(r))
		reporter_go(r->rep, r->start_ns);
	pthread_mutex_lock(&sh->lock);
	sh->go = 1;
	pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->lock);
	for (unsigned int k = 0; k < created; k++)
		pthread_join(ws[k].tid, NULL);
	return created;
}

void run_experiment(struct run *r)
{
	struct run_shared sh = { .stop_fd = -1 };
	struct worker *ws;
	unsigned int n = r->nthreads, created = 0;

	pthread_mutex_init(&sh.lock, NULL);
	pthread_cond_init(&sh.cv, NULL);
	atomic_init(&sh.stop, 0);
	atomic_init(&sh.signal_taken, 0);
	atomic_init(&sh.energy_started, 0);
	r->sh = &sh;
	ws = calloc(n, sizeof(*ws));
	r->acc.lat = hist_new(1);
	r->acc.svc = hist_new(1);
	r->acc.pace = hist_new(1);
	r->acc.vlog = validity_log_new(r->o->exact_samples);
	r->acc.min_applied_ns = UINT64_MAX;
	sh.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!ws || !r->acc.lat || !r->acc.svc || !r->acc.pace || !r->acc.vlog) {
		fail(r, "out of memory");
		goto out;
	}
	if (sh.stop_fd < 0) {
		fail(r, "eventfd: %s", strerror(errno));
		goto out;
	}
	if (run_prepare(r))
		goto out;
	workers_init(r, ws, n);
	created = workers_run(r, ws, n);
	r->end_ns = clock_now_ns();
	/* every thread done: the last stretch's line, before the summary */
	reporter_end(r->rep);
	r->rep = NULL;
	if (r->status == RUN_OK)
		energy_end(r);
	for (unsigned int k = 0; k < created; k++)
		merge(r, &ws[k]);
out:
	reporter_end(r->rep);	/* a failure before the threads ran */
	r->rep = NULL;
	energy_close(&r->energy);	/* perf counters; the figures stay */
	for (unsigned int k = 0; ws && k < n; k++) {
		hist_free(ws[k].acc.lat);
		hist_free(ws[k].acc.svc);
		hist_free(ws[k].acc.pace);
		validity_log_free(ws[k].acc.vlog);
	}
	free(ws);
	if (sh.stop_fd >= 0)
		close(sh.stop_fd);
	pthread_cond_destroy(&sh.cv);
	pthread_mutex_destroy(&sh.lock);
	r->sh = NULL;
	/* noticed without being read (the --preload and connect waits,
	 * --start-at): still pending */
	if (r->status == RUN_INTERRUPTED && !atomic_load(&sh.signal_taken))
		take_signals();
}
