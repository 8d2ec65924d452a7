// SPDX-License-Identifier: GPL-2.0
/*
 * The client's event loop: one thread sends every request at its intended
 * time (open loop, the schedule is fixed before the run) and collects the
 * replies in between, so a slow reply never delays the next send.
 * Latency is reply time minus intended time (coordinated-omission free,
 * as in wrk2); the pacing error sent - intended is kept for every request.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "client.h"
#include "keydist.h"
#include "marker.h"
#include "proto.h"
#include "schedule.h"
#include "wire.h"

/* Below this distance to a send time we stop polling and spin on the clock. */
#define SPIN_GUARD_NS 2000ull
#define RX_BUF 65536
/* Requests already due when the client is behind go out in one send()
 * of at most this many bytes (TCP); see send_due(). */
#define TX_BATCH_BYTES 16384

struct conn {
	int fd;
	struct wire_conn w;
};

struct loop {
	struct run *r;
	const struct client_opts *o;
	const struct wb_proto_ops *wire;
	struct conn *conns;
	uint64_t nconns;
	struct conn *pq;	/* pre-query connection, NULL: in-band */
	int marker_fd;		/* trace_marker, or -1 */
	int epfd, sigfd;
	uint64_t oldest;	/* lowest seq that may still be outstanding */
	uint64_t polls;
	uint64_t behind;	/* sends made late in a row */
	uint8_t *txbuf;
	size_t txlen;
	uint8_t rx[RX_BUF];
};

/*
 * SIGINT, SIGTERM (and SIGHUP, turned into SIGTERM) are blocked from
 * before the first C-state change and read from a signalfd once the run
 * starts; one pending while a long schedule is drawn stops the drawing.
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
 * Key-value protocols: each request's operation and key, drawn from a
 * generator of their own (seeded from --seed), so the gaps are the same
 * as those of the same seed over wakebench's protocol.
 */
static int draw_keys(struct run *r, const struct client_opts *o)
{
	struct keydist kd;
	struct prng p;

	if (!o->wire->keyed)
		return 0;
	if (keydist_init(&kd, &o->key_dist, o->keys))
		return -EINVAL;
	r->op = malloc(r->total ? r->total : 1);
	r->key = malloc((r->total ? r->total : 1) * sizeof(*r->key));
	if (!r->op || !r->key)
		return -ENOMEM;
	prng_seed(&p, o->seed ^ 0x6b65792d6f707321ull);
	for (uint64_t i = 0; i < r->total; i++) {
		if (!(i % SCHEDULE_CANCEL_EVERY) && signal_pending(NULL))
			return -EINTR;
		r->op[i] = prng_uniform(&p) < o->get_ratio ? PROTO_OP_GET :
			   PROTO_OP_SET;
		r->key[i] = keydist_next(&kd, &p);
	}
	return 0;
}

int run_schedule(struct run *r, const struct client_opts *o)
{
	struct schedule_cfg cfg = {
		.dist = o->dist, .mean_ns = o->interval_ns, .seed = o->seed,
		.warmup = o->warmup_mode == WARMUP_BURST ? 0 : o->warmup,
		.requests = o->requests,
		.warmup_dist = (enum arrival_dist)o->warmup_dist,
		.warmup_mean_ns = o->warmup_interval_ns,
		/* sleep-after: the lead adds to every gap */
		.gap_add_ns = o->prequery && o->prequery_at == PQPLAN_AT_SLEEP_AFTER ?
			      (uint64_t)llround(o->lead_us * 1e3) : 0,
		.duration_ns = o->requests ? 0 : (uint64_t)(o->duration_s * 1e9),
		.cancel = signal_pending,
	};
	struct schedule sch;
	int ret;

	memset(r, 0, sizeof(*r));
	r->o = o;
	pqplan_cost_init(&r->send_cost);
	ret = schedule_build(&sch, &cfg);
	if (ret)
		return ret;
	r->total = sch.n;
	r->warmup = sch.warmup;
	r->reqs = calloc(r->total, sizeof(*r->reqs));
	r->applied_ns = calloc(r->total, sizeof(*r->applied_ns));
	if (!r->reqs || !r->applied_ns) {
		free(r->reqs);
		free(r->applied_ns);
		r->reqs = NULL;
		r->applied_ns = NULL;
		schedule_free(&sch);
		return -ENOMEM;
	}
	/*
	 * Relative until run_experiment() adds the start time. Filling a
	 * long run's rows faults in gigabytes and takes longer than the
	 * drawing: a stop signal is honoured here too.
	 */
	for (uint64_t i = 0; i < r->total; i++) {
		if (!(i % SCHEDULE_CANCEL_EVERY) && signal_pending(NULL)) {
			run_free(r);
			schedule_free(&sch);
			return -EINTR;
		}
		r->reqs[i].intended_ns = sch.intended_ns[i];
	}
	r->gap_ns = sch.gap_ns;
	free(sch.intended_ns);
	ret = draw_keys(r, o);
	if (ret) {
		run_free(r);
		return ret;
	}
	return 0;
}

void run_free(struct run *r)
{
	free(r->gap_ns);
	free(r->reqs);
	free(r->applied_ns);
	free(r->traj);
	free(r->op);
	free(r->key);
}

__attribute__((format(printf, 2, 3)))
static void fail(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->status == RUN_FAILED)
		return;	/* keep the first error */
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->status = RUN_FAILED;
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

static int on_reply(struct loop *l, const struct proto_msg *m, uint64_t now)
{
	struct run *r = l->r;
	struct req_rec *q;

	/* A reply to a pre-query (--prequery-ack): read, dropped. */
	if (m->type == PROTO_REPLY && (m->flags & PROTO_F_ACK)) {
		/* memcached and Redis answer every pre-query (mn, PING) */
		if (!l->o->prequery_ack && !l->wire->keyed) {
			fail(r, "reply to a pre-query that asked for none (seq %llu)",
			     (unsigned long long)m->seq);
			return -1;
		}
		r->prequery_acks++;
		return 0;
	}
	if (m->type != PROTO_REPLY && m->type != PROTO_ERROR) {
		fail(r, "unexpected %s message from the server (seq %llu)",
		     proto_type_name(m->type), (unsigned long long)m->seq);
		return -1;
	}
	if (m->seq >= r->sent || r->reqs[m->seq].recv_ns) {
		fail(r, "reply does not match any outstanding request (seq %llu)",
		     (unsigned long long)m->seq);
		return -1;
	}
	q = &r->reqs[m->seq];
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
	r->applied_ns[m->seq] = m->service_ns;
	r->received++;
	/* Only replies to requests sent under the current value count. */
	if (l->o->adaptive && m->type == PROTO_REPLY &&
	    q->window == r->hc.windows &&
	    hillclimb_add(&r->hc, q->recv_ns - q->sent_ns))
		traj_add(r);
	if (m->type == PROTO_ERROR) {
		q->error = 1;
		r->error_replies++;
	}
	q->miss = !!(m->flags & PROTO_F_MISS);
	return 0;
}

struct feed_ctx {
	struct loop *l;
	uint64_t now;
};

static int on_stream_msg(const struct proto_msg *m, void *arg)
{
	struct feed_ctx *ctx = arg;

	return on_reply(ctx->l, m, ctx->now) ? 1 : 0;
}

/* Drains one connection; returns -1 after a fatal error. */
static int conn_drain(struct loop *l, struct conn *c)
{
	struct run *r = l->r;

	for (;;) {
		ssize_t n = net_read(c->fd, l->rx, sizeof(l->rx));
		uint64_t now = clock_now_ns();

		if (n == -EAGAIN)
			return 0;
		if (n == -ECONNREFUSED) {
			fail(r, "server refused the datagram (is it running on %s:%u?)",
			     l->o->server.host, l->o->server.port);
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
		if (l->o->proto == NET_UDP) {
			struct proto_msg m;
			int err = l->wire->decode(l->rx, (size_t)n,
						  PROTO_MAX_PAYLOAD, &m);

			if (err) {
				fail(r, "malformed reply: %s",
				     l->wire->strerror(err));
				return -1;
			}
			if (on_reply(l, &m, now))
				return -1;
			continue;
		}
		struct feed_ctx ctx = { l, now };
		int ret = wire_feed(&c->w, l->rx, (size_t)n, on_stream_msg, &ctx);

		if (ret < 0)
			fail(r, "malformed reply: %s", wire_conn_error(&c->w) ?
			     wire_conn_error(&c->w) : l->wire->strerror(ret));
		if (ret)
			return -1;
	}
}

/*
 * Waits for events for at most timeout_ns (0: poll) and handles them.
 * Returns -1 after a fatal error or a signal.
 */
static int poll_replies(struct loop *l, uint64_t timeout_ns)
{
	struct epoll_event evs[16];
	struct timespec ts = clock_ts(timeout_ns);
	int n;

	/*
	 * Spinning on one connection: a non-blocking recv() is one syscall
	 * where epoll plus recv is two, and it is the path every reply
	 * takes in spin mode. Signals are checked every 1024 polls.
	 */
	if (!timeout_ns && l->nconns == 1 && (++l->polls & 1023))
		return conn_drain(l, &l->conns[0]);
	n = epoll_pwait2(l->epfd, evs, 16, &ts, NULL);

	if (n < 0) {
		if (errno == EINTR)
			return 0;
		fail(l->r, "epoll_pwait2: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (evs[i].data.ptr == NULL) {
			l->r->status = RUN_INTERRUPTED;
			return -1;
		}
		if (conn_drain(l, evs[i].data.ptr))
			return -1;
	}
	return 0;
}

static int check_timeouts(struct loop *l, uint64_t now)
{
	struct run *r = l->r;

	while (l->oldest < r->sent && r->reqs[l->oldest].recv_ns)
		l->oldest++;
	if (l->oldest < r->sent &&
	    now - r->reqs[l->oldest].sent_ns > l->o->timeout_ns) {
		fail(r, "no reply to request %llu within %llu ms",
		     (unsigned long long)l->oldest,
		     (unsigned long long)(l->o->timeout_ns / 1000000));
		return -1;
	}
	return 0;
}

/*
 * Returns at target_ns, having handled every reply that arrived before.
 * spin: poll without blocking, then spin on the clock for the last
 * SPIN_GUARD_NS; sleep: block in epoll until the target; hybrid: block
 * until margin before, then as spin.
 */
static int wait_until(struct loop *l, uint64_t target)
{
	const struct client_opts *o = l->o;

	for (;;) {
		uint64_t now = clock_now_ns();
		uint64_t left;

		if (check_timeouts(l, now))
			return -1;
		if (now >= target) {
			/*
			 * Behind schedule: keep reading replies now and then,
			 * or a server whose replies go unread blocks (and
			 * drops us) while we catch up.
			 */
			if (!(++l->behind & 7) && poll_replies(l, 0))
				return -1;
			return 0;
		}
		l->behind = 0;
		left = target - now;
		if (o->wait == WAIT_SLEEP ||
		    (o->wait == WAIT_HYBRID && left > o->spin_margin_ns)) {
			uint64_t block = o->wait == WAIT_SLEEP ? left :
					 left - o->spin_margin_ns;

			if (poll_replies(l, block))
				return -1;
			continue;
		}
		if (left <= SPIN_GUARD_NS) {
			clock_spin_until(target);
			return 0;
		}
		if (poll_replies(l, 0))
			return -1;
	}
}

/*
 * Message seq of the run. Key-value protocols: request seq's operation
 * and key (seq past the schedule: a set, the largest message, which is
 * what frame_len asks for).
 */
static struct proto_msg message(const struct loop *l, uint8_t type,
				uint64_t seq, uint64_t now)
{
	const struct client_opts *o = l->o;
	struct proto_msg m = {
		.type = type, .seq = seq, .client_send_ns = now,
		.flags = type == PROTO_PREQUERY && o->prequery_ack ? PROTO_F_ACK : 0,
		.service_ns = type == PROTO_REQUEST ? o->service_ns : 0,
		.payload_len = type == PROTO_REQUEST ? (uint32_t)o->payload : 0,
	};

	if (l->wire->keyed && type == PROTO_REQUEST) {
		int known = seq < l->r->total;

		m.op = known ? l->r->op[seq] : PROTO_OP_SET;
		m.key = known ? l->r->key[seq] : 0;
		m.key_size = (uint16_t)o->key_size;
		m.payload_len = m.op == PROTO_OP_SET ? (uint32_t)o->value_size : 0;
	}
	return m;
}

/* A request or pre-query for connection c at buf (txbuf has room for a
 * pre-query and a request, or a batch of requests: see send_due). */
static size_t encode(struct loop *l, struct conn *c, uint8_t type,
		     uint64_t seq, uint64_t now, uint8_t *buf)
{
	struct proto_msg m = message(l, type, seq, now);
	ssize_t len = l->wire->encode(&c->w, &m, buf,
				      l->txlen - (size_t)(buf - l->txbuf));

	return len < 0 ? 0 : (size_t)len;
}

static size_t frame_len(struct loop *l, uint8_t type)
{
	struct proto_msg m = message(l, type, UINT64_MAX, 0);

	return l->wire->msg_len(&m);
}

static int send_msg(struct loop *l, struct conn *c, uint8_t type,
		    uint64_t seq, uint64_t *sent_ns)
{
	int err;

	size_t len;

	*sent_ns = clock_now_ns();
	len = encode(l, c, type, seq, *sent_ns, l->txbuf);
	err = len ? net_send_all(c->fd, l->txbuf, len, l->o->timeout_ns) :
	      -EMSGSIZE;
	/* What a pre-query's own send() costs decides how early it must go. */
	if (!err && type == PROTO_PREQUERY)
		pqplan_cost_add(&l->r->send_cost, clock_now_ns() - *sent_ns);
	if (!err && l->marker_fd >= 0)
		marker_write(l->marker_fd, type == PROTO_REQUEST ? "send" : "pq", seq);
	if (err) {
		fail(l->r, "send %s %llu: %s", proto_type_name(type),
		     (unsigned long long)seq, strerror(-err));
		return -1;
	}
	return 0;
}

/*
 * Pre-query and request i in one system call, so the request does not
 * wait for a send() of its own pre-query: one send() on TCP, one
 * sendmmsg() of two datagrams on UDP. Both share one send time.
 */
static int send_together(struct loop *l, uint64_t i)
{
	const struct client_opts *o = l->o;
	struct run *r = l->r;
	struct req_rec *q = &r->reqs[i];
	struct conn *c = &l->conns[i % l->nconns];
	uint64_t now = clock_now_ns();
	/* the lengths encoded: a key-value request's varies */
	size_t pql = encode(l, c, PROTO_PREQUERY, i, now, l->txbuf);
	size_t rql = pql ? encode(l, c, PROTO_REQUEST, i, now, l->txbuf + pql) : 0;
	int err = 0;

	if (!rql) {
		fail(r, "send request %llu with its pre-query: cannot encode them",
		     (unsigned long long)i);
		return -1;
	}
	if (o->proto == NET_TCP) {
		err = net_send_all(c->fd, l->txbuf, pql + rql, o->timeout_ns);
	} else {
		struct iovec iov[2] = {
			{ l->txbuf, pql }, { l->txbuf + pql, rql },
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
		     (unsigned long long)i, strerror(-err));
		return -1;
	}
	/* A send that carries a pre-query, alone or not, wakes the server
	 * alike: it is a sample of the cost too, so the estimate keeps
	 * following the host while pre-queries go together. */
	pqplan_cost_add(&r->send_cost, clock_now_ns() - now);
	if (l->marker_fd >= 0) {
		marker_write(l->marker_fd, "pq", i);
		marker_write(l->marker_fd, "send", i);
	}
	q->prequery_sent_ns = q->sent_ns = now;
	q->pq = REQ_PQ_SENT;
	r->sent = i + 1;
	return 0;
}

static int send_request(struct loop *l, uint64_t i)
{
	struct run *r = l->r;
	struct conn *c = &l->conns[i % l->nconns];

	if (send_msg(l, c, PROTO_REQUEST, i, &r->reqs[i].sent_ns))
		return -1;
	r->sent = i + 1;
	return 0;
}

/*
 * The pre-query for request i, due at send_ns with the previous one due
 * at prev_ns, as lib/pqplan plans it: skipped, sent alone ahead of the
 * request (done here), or to go together with the request (returns 1).
 * Returns 0 when the request goes alone, 1 together, -1 on a fatal error.
 */
static int prequery(struct loop *l, uint64_t i, uint64_t prev_ns,
		    uint64_t send_ns)
{
	struct run *r = l->r;
	struct req_rec *q = &r->reqs[i];
	int in_band = !l->pq;
	struct pqplan p;
	uint64_t lead_ns;

	if (!l->o->prequery)
		return 0;
	q->lead_us = l->o->adaptive ? hillclimb_value_us(&r->hc) : l->o->lead_us;
	q->window = (uint32_t)r->hc.windows;
	lead_ns = (uint64_t)llround(q->lead_us * 1e3);
	p = pqplan_decide_at((enum pqplan_at)l->o->prequery_at, prev_ns,
			     send_ns, lead_ns, pqplan_cost_ns(&r->send_cost),
			     in_band);
	if (p.action == PQPLAN_SKIP) {
		q->pq = REQ_PQ_SKIPPED;
		return 0;
	}
	q->prequery_plan_ns = p.at_ns;
	if (p.action == PQPLAN_TOGETHER)
		return 1;
	if (wait_until(l, p.at_ns))
		return -1;
	/* Reached too late to go alone: never delay the request for it
	 * (sleep-after sends it alone anyway, as the thesis' code did). */
	if (!pqplan_at_strict((enum pqplan_at)l->o->prequery_at) &&
	    !pqplan_fits(clock_now_ns(), p.at_ns, send_ns,
			 pqplan_cost_ns(&r->send_cost))) {
		if (in_band)
			return 1;
		q->pq = REQ_PQ_MISSED;
		q->prequery_plan_ns = 0;
		return 0;
	}
	if (send_msg(l, l->pq ? l->pq : &l->conns[i % l->nconns],
		     PROTO_PREQUERY, i, &q->prequery_sent_ns))
		return -1;
	q->pq = REQ_PQ_SENT;
	return 0;
}

/* Waits for every outstanding reply, or the timeout. */
static int drain_all(struct loop *l)
{
	struct run *r = l->r;

	while (r->received < r->sent) {
		uint64_t now = clock_now_ns();

		if (check_timeouts(l, now))
			return -1;
		if (poll_replies(l, l->o->wait == WAIT_SLEEP ? 1000000 : 0))
			return -1;
	}
	return 0;
}

/*
 * Sends request i and, on a single TCP connection without pre-queries,
 * every following request already due, in one send(): when the client
 * is behind, one syscall per request would keep it behind. They share
 * one send time. Returns the number sent, or -1.
 */
static int64_t send_due(struct loop *l, uint64_t i)
{
	struct run *r = l->r;
	const struct client_opts *o = l->o;
	size_t frame = frame_len(l, PROTO_REQUEST), off = 0;
	uint64_t n = 1, now;
	int err;

	if (l->nconns != 1 || o->proto != NET_TCP || o->prequery ||
	    l->txlen < 2 * frame)
		return send_request(l, i) ? -1 : 1;
	now = clock_now_ns();
	while (i + n < r->total && r->reqs[i + n].intended_ns <= now &&
	       (n + 1) * frame <= l->txlen)
		n++;
	if (n == 1)
		return send_request(l, i) ? -1 : 1;
	/* frame is the largest request: a key-value get is shorter */
	for (uint64_t k = 0; k < n; k++) {
		size_t len = encode(l, &l->conns[0], PROTO_REQUEST, i + k, now,
				    l->txbuf + off);

		if (!len) {
			fail(r, "send request %llu: cannot encode it",
			     (unsigned long long)(i + k));
			return -1;
		}
		off += len;
		r->reqs[i + k].sent_ns = now;
	}
	err = net_send_all(l->conns[0].fd, l->txbuf, off, o->timeout_ns);
	if (err) {
		fail(r, "send request %llu: %s", (unsigned long long)i,
		     strerror(-err));
		return -1;
	}
	if (l->marker_fd >= 0)
		for (uint64_t k = 0; k < n; k++)
			marker_write(l->marker_fd, "send", i + k);
	r->sent = i + n;
	return (int64_t)n;
}

/*
 * The thesis' warm-up: --warmup pre-queries back to back, before the
 * schedule starts, to the pre-query receiver (the pre-query port, else
 * the request connection); replies, with --prequery-ack, are dropped.
 * Their sequence numbers follow the schedule's last (total, total + 1,
 * ...): a server log or trace joins pre-queries to requests by seq, and
 * a burst message must not pass for request k's pre-query.
 */
static int burst_warmup(struct loop *l)
{
	struct conn *c = l->pq ? l->pq : &l->conns[0];

	/* No trace markers and no send-cost samples: they are the run's. */
	for (uint64_t k = 0; k < l->o->warmup; k++) {
		size_t len = encode(l, c, PROTO_PREQUERY, l->r->total + k,
				    clock_now_ns(), l->txbuf);
		int err = len ? net_send_all(c->fd, l->txbuf, len,
					     l->o->timeout_ns) : -EMSGSIZE;

		if (err) {
			fail(l->r, "burst warm-up, message %llu: %s",
			     (unsigned long long)k, strerror(-err));
			return -1;
		}
		l->r->burst_sent++;
		/* read what came back so far: replies do not pile up */
		if (poll_replies(l, 0))
			return -1;
	}
	return 0;
}

struct preload_ctx {
	struct loop *l;
	uint64_t next;		/* key the next reply must be for */
};

static int on_preload_reply(const struct proto_msg *m, void *arg)
{
	struct preload_ctx *p = arg;

	if (m->type != PROTO_REPLY || m->seq != p->next) {
		fail(p->l->r, "--preload: set of key %llu: %s",
		     (unsigned long long)m->seq, m->type == PROTO_ERROR ?
		     "the server answered with an error" : "unexpected reply");
		return 1;
	}
	p->next++;
	return 0;
}

/*
 * --preload: sets every key once, before the schedule starts, in batches
 * on the first connection (each batch answered before the next, so the
 * server's buffers stay bounded); the run's seq numbers are not used:
 * message k of the preload is key k.
 */
static int preload(struct loop *l)
{
	const struct client_opts *o = l->o;
	struct run *r = l->r;
	struct conn *c = &l->conns[0];
	struct preload_ctx ctx = { l, 0 };
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

		while (k < o->keys && off + l->wire->msg_len(&m) <= l->txlen &&
		       k - ctx.next < 256) {
			ssize_t len;

			m.seq = m.key = k;
			len = l->wire->encode(&c->w, &m, l->txbuf + off,
					      l->txlen - off);
			if (len <= 0) {
				fail(r, "--preload: cannot encode key %llu",
				     (unsigned long long)k);
				return -1;
			}
			off += (size_t)len;
			k++;
		}
		err = net_send_all(c->fd, l->txbuf, off, o->timeout_ns);
		if (err) {
			fail(r, "--preload: send: %s", strerror(-err));
			return -1;
		}
		deadline = clock_now_ns() + o->timeout_ns;
		while (ctx.next < k) {
			struct pollfd p = { .fd = c->fd, .events = POLLIN };
			ssize_t n;
			int ret;

			if (clock_now_ns() >= deadline) {
				fail(r, "--preload: no reply to the set of key %llu within %llu ms",
				     (unsigned long long)ctx.next,
				     (unsigned long long)(o->timeout_ns / 1000000));
				return -1;
			}
			if (signal_pending(NULL)) {
				r->status = RUN_INTERRUPTED;
				return -1;
			}
			if (poll(&p, 1, 10) <= 0)
				continue;
			n = net_read(c->fd, l->rx, sizeof(l->rx));
			if (n == -EAGAIN)
				continue;
			if (n <= 0) {
				fail(r, "--preload: %s", n ? strerror((int)-n) :
				     "server closed the connection");
				return -1;
			}
			ret = wire_feed(&c->w, l->rx, (size_t)n, on_preload_reply, &ctx);
			if (ret < 0)
				fail(r, "--preload: malformed reply: %s",
				     wire_conn_error(&c->w) ? wire_conn_error(&c->w) :
				     l->wire->strerror(ret));
			if (ret)
				return -1;
		}
	}
	r->preloaded = o->keys;
	r->preload_ns = clock_now_ns() - start;
	return 0;
}

/*
 * The energy window: from the first measured request (before its
 * pre-query; a batch that crossed from the warm-up opens it at the next
 * send) to the last reply.
 */
static void energy_begin(struct run *r, uint64_t i)
{
	if (i < r->warmup || !r->energy.n || r->energy.start_ns)
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

static int open_loop(struct loop *l)
{
	struct run *r = l->r;

	for (uint64_t i = 0; i < r->total;) {
		uint64_t prev = i ? r->reqs[i - 1].intended_ns : r->start_ns;
		int together;
		int64_t n;

		energy_begin(r, i);
		together = prequery(l, i, prev, r->reqs[i].intended_ns);
		if (together < 0 || wait_until(l, r->reqs[i].intended_ns))
			return -1;
		if (together)
			n = send_together(l, i) ? -1 : 1;
		else
			n = send_due(l, i);
		if (n < 0)
			return -1;
		i += (uint64_t)n;
	}
	if (drain_all(l))
		return -1;
	energy_end(r);
	return 0;
}

/* The thesis' closed loop: one request outstanding, the gap after each reply. */
static int closed_loop(struct loop *l)
{
	struct run *r = l->r;
	uint64_t next = clock_now_ns();

	for (uint64_t i = 0; i < r->total; i++) {
		uint64_t prev = next;
		int together;

		energy_begin(r, i);
		next += r->gap_ns[i];
		together = prequery(l, i, prev, next);
		if (together < 0 || wait_until(l, next))
			return -1;
		if (together ? send_together(l, i) : send_request(l, i))
			return -1;
		r->reqs[i].intended_ns = r->reqs[i].sent_ns;
		if (drain_all(l))
			return -1;
		next = clock_now_ns();
	}
	energy_end(r);
	return 0;
}

static int loop_setup(struct loop *l)
{
	const struct client_opts *o = l->o;
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t mask;

	/* sleep and hybrid pacing wake at the send time, not 50 us after
	 * (unless --timer-slack-ns asks for the thesis' usleep) */
	clock_timer_slack(o->timer_slack_ns);
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		fail(l->r, "epoll_create1: %s", strerror(errno));
		return -1;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	l->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	ev.data.ptr = NULL;
	if (l->sigfd < 0 || epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->sigfd, &ev)) {
		fail(l->r, "signalfd: %s", strerror(errno));
		return -1;
	}
	if (o->trace_markers) {
		l->marker_fd = marker_open(NULL);
		if (l->marker_fd < 0) {
			fail(l->r, "--trace-markers: %s", l->marker_fd == -ENOENT ?
			     "no trace instance (run under 'wakebench trace record -- ...')" :
			     strerror(-l->marker_fd));
			return -1;
		}
	}
	/* room for a pre-query and its request (send_together) */
	l->txlen = frame_len(l, PROTO_PREQUERY) + frame_len(l, PROTO_REQUEST);
	if (l->txlen < TX_BATCH_BYTES)
		l->txlen = TX_BATCH_BYTES;
	l->txbuf = calloc(1, l->txlen);
	l->conns = calloc(o->connections + 1, sizeof(*l->conns));
	if (!l->txbuf || !l->conns) {
		fail(l->r, "out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < o->connections; i++) {
		struct conn *c = &l->conns[i];
		int fd = net_connect(o->proto, o->server.host, o->server.port);

		if (fd < 0) {
			fail(l->r, "cannot connect to %s:%u: %s", o->server.host,
			     o->server.port, strerror(-fd));
			return -1;
		}
		c->fd = fd;
		l->nconns++;
		wire_conn_init(&c->w, l->wire, PROTO_MAX_PAYLOAD);
		ev.data.ptr = c;
		if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			fail(l->r, "epoll_ctl: %s", strerror(errno));
			return -1;
		}
	}
	if (o->prequery && o->prequery_port) {
		/* One extra slot after the request connections. */
		struct conn *c = &l->conns[o->connections];
		int fd = net_connect(o->proto, o->server.host, o->prequery_port);

		if (fd < 0) {
			fail(l->r, "cannot connect to the pre-query port %s:%u: %s",
			     o->server.host, o->prequery_port, strerror(-fd));
			return -1;
		}
		c->fd = fd;
		wire_conn_init(&c->w, l->wire, PROTO_MAX_PAYLOAD);
		ev.data.ptr = c;
		if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			fail(l->r, "epoll_ctl: %s", strerror(errno));
			return -1;
		}
		l->pq = c;
	}
	return 0;
}

static void loop_teardown(struct loop *l)
{
	if (l->pq) {
		close(l->pq->fd);
		wire_conn_free(&l->pq->w);
	}
	for (uint64_t i = 0; i < l->nconns; i++) {
		close(l->conns[i].fd);
		wire_conn_free(&l->conns[i].w);
	}
	if (l->sigfd >= 0)
		close(l->sigfd);
	if (l->marker_fd >= 0)
		close(l->marker_fd);
	if (l->epfd >= 0)
		close(l->epfd);
	free(l->conns);
	free(l->txbuf);
}

void run_experiment(struct run *r)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l) {
		fail(r, "out of memory");
		return;
	}
	l->r = r;
	l->o = r->o;
	l->wire = r->o->wire;
	l->epfd = l->sigfd = l->marker_fd = -1;
	if (r->o->adaptive && hillclimb_init(&r->hc, &r->o->hc)) {
		fail(r, "invalid adaptive pre-query settings");
		goto out;
	}
	if (energy_open(&r->energy, r->energy_note, sizeof(r->energy_note)) < 0)
		r->energy.n = 0;
	if (loop_setup(l))
		goto out;
	if (r->o->preload && preload(l))
		goto out;
	if (r->o->warmup_mode == WARMUP_BURST && burst_warmup(l))
		goto out;
	/* Start one millisecond from now so set-up costs do not count. */
	r->start_ns = clock_now_ns() + 1000000;
	for (uint64_t i = 0; i < r->total; i++)
		r->reqs[i].intended_ns += r->start_ns;
	if (r->o->closed)
		closed_loop(l);
	else
		open_loop(l);
	r->end_ns = clock_now_ns();
out:
	energy_close(&r->energy);	/* perf counters; the figures stay */
	loop_teardown(l);
	free(l);
}
