// SPDX-License-Identifier: GPL-2.0
/*
 * The serving loop on real loopback sockets. Each test scripts the peer
 * side from the loop's tick callback (called before every wait), so one
 * thread plays both ends; a 3 s deadline stops a loop that would hang.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include "unit.h"
#include "clock.h"
#include "net.h"
#include "serve.h"
#include "wire.h"

struct harness {
	struct serve *s;
	uint16_t port;
	uint64_t deadline;
	int step, timed_out;
	int peer[4];
	/* what the callbacks saw */
	char got[64];
	size_t ngot;
	int calls, eofs, datagrams, opened;
	int keep_open;		/* on_eof's answer */
	size_t consume;		/* bytes on_data takes per call (0: all) */
	size_t nbytes;		/* bytes on_data took in all */
	uint64_t spin_ns;	/* on_data's work per call */
	size_t sent;		/* bytes the script wrote */
	int pause_on_data;	/* on_data pauses its connection */
	uint64_t t;		/* a script's own time mark */
	uint64_t min_rx, max_rx;
	struct serve_conn *held;
	int (*script)(struct harness *h);
};

static void h_conn_open(struct serve_conn *c, void *arg)
{
	struct harness *h = arg;

	h->opened++;
	*(int *)serve_conn_priv(c) = 4242;
}

static ssize_t h_on_data(struct serve_conn *c, const uint8_t *buf, size_t len,
			 uint64_t rx_ns, void *arg)
{
	struct harness *h = arg;
	size_t take = h->consume && h->consume < len ? h->consume : len;

	ck_assert_int_eq(*(int *)serve_conn_priv(c), 4242);
	h->calls++;
	if (!h->min_rx || rx_ns < h->min_rx)
		h->min_rx = rx_ns;
	if (rx_ns > h->max_rx)
		h->max_rx = rx_ns;
	/* got: what each call saw first, to see what stayed queued */
	if (h->ngot < sizeof(h->got) - 1)
		h->got[h->ngot++] = (char)buf[0];
	if (!h->held) {
		h->held = c;
		serve_conn_hold(c);
	}
	h->nbytes += take;
	if (h->pause_on_data)
		serve_conn_pause(h->s, c, 1);
	if (h->spin_ns)
		clock_spin_until(clock_now_ns() + h->spin_ns);
	return (ssize_t)take;
}

static int h_on_eof(struct serve_conn *c, int err, void *arg)
{
	struct harness *h = arg;

	(void)c;
	(void)err;
	h->eofs++;
	return h->keep_open;
}

static int h_on_datagram(const struct serve_dgram *d, const uint8_t *buf,
			 size_t len, uint64_t rx_ns, void *arg)
{
	struct harness *h = arg;

	(void)rx_ns;
	h->datagrams++;
	ck_assert_int_eq(d->tag, 9);
	ck_assert_uint_eq(len, 5);
	ck_assert(!memcmp(buf, "hello", 5));
	sendto(d->fd, "olleh", 5, 0, (const struct sockaddr *)d->peer,
	       d->peerlen);
	return 0;
}

static int h_tick(void *arg)
{
	struct harness *h = arg;

	if (clock_now_ns() > h->deadline) {
		h->timed_out = 1;
		serve_stop(h->s);
		return 0;
	}
	if (h->script(h))
		serve_stop(h->s);
	return 5;
}

static const struct serve_ops h_ops = {
	.conn_open = h_conn_open,
	.on_data = h_on_data,
	.on_eof = h_on_eof,
	.on_datagram = h_on_datagram,
	.tick = h_tick,
};

/*
 * Takes any SIGINT/SIGTERM/SIGHUP pending on the process: with
 * CK_FORK=no every test shares it, and an earlier one may leave one
 * queued (serve_open blocks them, so it would stop the loop at once).
 */
static void drain_stop_signals(void)
{
	const struct timespec zero = { 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	while (sigtimedwait(&set, NULL, &zero) > 0)
		;
}

static void h_start(struct harness *h, struct serve_cfg *cfg,
		    enum net_proto proto, int tag)
{
	char note[128], msg[256];

	cfg->ops = &h_ops;
	cfg->arg = h;
	cfg->conn_priv = sizeof(int);
	for (int i = 0; i < 4; i++)
		h->peer[i] = -1;
	ck_assert_int_eq(serve_open(cfg, &h->s, note, sizeof(note), msg,
				    sizeof(msg)), 0);
	drain_stop_signals();
	ck_assert_int_eq(serve_listen(h->s, proto, "127.0.0.1", 0, tag,
				      &h->port, msg, sizeof(msg)), 0);
	ck_assert_uint_gt(h->port, 0);
	h->deadline = clock_now_ns() + 3000000000ull;
}

static void h_finish(struct harness *h)
{
	ck_assert_int_eq(serve_run(h->s), 0);
	ck_assert_msg(!h->timed_out, "loop still running at step %d", h->step);
}

static void h_close(struct harness *h)
{
	sigset_t set;

	/* Leave the process as it was: nothing pending, nothing blocked. */
	drain_stop_signals();
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	serve_close(h->s);
	for (int i = 0; i < 4; i++)
		if (h->peer[i] >= 0)
			close(h->peer[i]);
}

/* Blocks up to 1 s for the peer's next bytes: count, 0 at EOF, -1. */
static ssize_t peer_read(int fd, char *buf, size_t len)
{
	uint64_t end = clock_now_ns() + 1000000000ull;

	while (clock_now_ns() < end) {
		ssize_t n = net_read(fd, buf, len);

		if (n != -EAGAIN)
			return n;
		usleep(1000);
	}
	return -1;
}

/* ---- peek: what on_data does not consume stays for the next turn ---- */

static int script_peek(struct harness *h)
{
	switch (h->step) {
	case 0:
		h->peer[0] = net_connect(NET_TCP, "127.0.0.1", h->port);
		ck_assert_int_ge(h->peer[0], 0);
		ck_assert_int_eq(write(h->peer[0], "abcdef", 6), 6);
		h->step++;
		return 0;
	case 1:
		return h->ngot >= 3;
	}
	return 1;
}

START_TEST(peek_leaves_the_rest_queued)
{
	struct harness h = { .consume = 2, .script = script_peek };
	struct serve_cfg cfg = { .peek = 1 };
	uint64_t before = clock_now_ns();

	h_start(&h, &cfg, NET_TCP, 7);
	h_finish(&h);
	/* three turns: "abcdef", then "cdef", then "ef" */
	ck_assert_int_eq(h.calls, 3);
	ck_assert_str_eq(h.got, "ace");
	ck_assert_int_eq(h.held->tag, 7);
	ck_assert_uint_eq(h.held->id, 1);
	ck_assert_uint_ge(h.min_rx, before);
	ck_assert_uint_le(h.max_rx, clock_now_ns());
	serve_conn_put(h.s, h.held);
	h_close(&h);
}
END_TEST

/*
 * ---- fair turns: without any help from the program, a connection with
 * a long backlog gets a bounded turn, then the other ready one its own --
 */

/* Writes up to len bytes of c without blocking; returns what went. */
static size_t peer_fill(int fd, char c, size_t len)
{
	static char buf[16384];
	size_t done = 0;

	memset(buf, c, sizeof(buf));
	while (done < len) {
		size_t k = len - done < sizeof(buf) ? len - done : sizeof(buf);
		ssize_t n = send(fd, buf, k, MSG_DONTWAIT);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return done;
}

static int script_fair(struct harness *h)
{
	switch (h->step) {
	case 0:
		h->peer[0] = net_connect(NET_TCP, "127.0.0.1", h->port);
		h->peer[1] = net_connect(NET_TCP, "127.0.0.1", h->port);
		ck_assert_int_ge(h->peer[1], 0);
		h->step++;
		return 0;
	case 1:
		if (h->opened < 2)
			return 0;
		/* the first's backlog is there before the second's byte */
		h->sent = peer_fill(h->peer[0], 'a', h->consume);
		h->consume = 0;
		h->sent += peer_fill(h->peer[1], 'z', 1);
		h->step++;
		return 0;
	}
	return h->nbytes >= h->sent;
}

/* The calls for the first connection before the second one's turn. */
static size_t calls_before_z(const struct harness *h)
{
	const char *z = strchr(h->got, 'z');

	ck_assert_msg(z, "the second connection was never read: %s", h->got);
	/* and the first still had bytes left when the second got its turn */
	ck_assert_msg(strchr(z, 'a'), "the first connection was drained first: %s",
		      h->got);
	return (size_t)(z - h->got);
}

START_TEST(fair_turns_by_bytes)
{
	/* consume: the first peer's backlog (the script's step 1) */
	struct harness h = { .consume = 3 * SERVE_TURN_BYTES / 2,
			     .script = script_fair };
	struct serve_cfg cfg = { 0 };

	h_start(&h, &cfg, NET_TCP, 0);
	h_finish(&h);
	ck_assert_uint_gt(h.sent, SERVE_TURN_BYTES + 1);
	/* reads of SERVE_READ_CHUNK, SERVE_TURN_BYTES in a turn */
	ck_assert_uint_le(calls_before_z(&h),
			  SERVE_TURN_BYTES / SERVE_READ_CHUNK);
	serve_conn_put(h.s, h.held);
	h_close(&h);
}
END_TEST

START_TEST(fair_turns_by_time)
{
	/* 10 reads of 300 us each: the turn ends after about 4 */
	struct harness h = { .consume = 10 * SERVE_READ_CHUNK,
			     .spin_ns = 300000, .script = script_fair };
	struct serve_cfg cfg = { 0 };

	h_start(&h, &cfg, NET_TCP, 0);
	h_finish(&h);
	ck_assert_uint_eq(h.sent, 10 * SERVE_READ_CHUNK + 1);
	ck_assert_uint_le(calls_before_z(&h),
			  SERVE_TURN_NS / h.spin_ns + 1);
	serve_conn_put(h.s, h.held);
	h_close(&h);
}
END_TEST

/* ---- a paused connection is not read until resumed ------------------ */

static int script_pause(struct harness *h)
{
	switch (h->step) {
	case 0:
		h->peer[0] = net_connect(NET_TCP, "127.0.0.1", h->port);
		ck_assert_int_ge(h->peer[0], 0);
		ck_assert_int_eq(write(h->peer[0], "a", 1), 1);
		h->step++;
		return 0;
	case 1:
		if (h->calls < 1)
			return 0;
		/* paused by on_data: "b" waits in the kernel */
		ck_assert(h->held->paused);
		ck_assert_int_eq(write(h->peer[0], "b", 1), 1);
		h->t = clock_now_ns();
		h->step++;
		return 0;
	case 2:
		if (clock_now_ns() - h->t < 50000000ull)
			return 0;
		ck_assert_int_eq(h->calls, 1);
		h->pause_on_data = 0;
		serve_conn_pause(h->s, h->held, 0);
		ck_assert(!h->held->paused);
		h->step++;
		return 0;
	}
	return h->calls == 2;
}

START_TEST(paused_connection_waits)
{
	struct harness h = { .pause_on_data = 1, .script = script_pause };
	struct serve_cfg cfg = { 0 };

	h_start(&h, &cfg, NET_TCP, 0);
	h_finish(&h);
	ck_assert_str_eq(h.got, "ab");
	serve_conn_put(h.s, h.held);
	h_close(&h);
}
END_TEST

/* ---- max_conns: the connection over the limit is accepted and closed -- */

static int script_refuse(struct harness *h)
{
	struct serve_stats st;
	char c;

	switch (h->step) {
	case 0:
		h->peer[0] = net_connect(NET_TCP, "127.0.0.1", h->port);
		h->peer[1] = net_connect(NET_TCP, "127.0.0.1", h->port);
		ck_assert_int_ge(h->peer[1], 0);
		h->step++;
		return 0;
	case 1:
		serve_stats(h->s, &st);
		if (st.connections + st.refused < 2)
			return 0;
		ck_assert_uint_eq(st.connections, 1);
		ck_assert_uint_eq(st.refused, 1);
		/* the second one was closed: EOF (or a reset) */
		ck_assert_int_le(peer_read(h->peer[1], &c, 1), 0);
		return 1;
	}
	return 1;
}

START_TEST(max_conns_refuses)
{
	struct harness h = { .script = script_refuse };
	struct serve_cfg cfg = { .max_conns = 1 };

	h_start(&h, &cfg, NET_TCP, 0);
	ck_assert_uint_eq(serve_max_conns(h.s), 1);
	h_finish(&h);
	ck_assert_int_eq(h.opened, 1);
	h_close(&h);
}
END_TEST

/* ---- idle expiry ------------------------------------------------------ */

static int script_idle(struct harness *h)
{
	struct serve_stats st;
	char c;

	switch (h->step) {
	case 0:
		h->peer[0] = net_connect(NET_TCP, "127.0.0.1", h->port);
		ck_assert_int_ge(h->peer[0], 0);
		h->step++;
		return 0;
	case 1:
		serve_stats(h->s, &st);
		if (!st.idle_closed)
			return 0;
		ck_assert_uint_eq(st.connections, 1);
		ck_assert_int_eq(peer_read(h->peer[0], &c, 1), 0);
		return 1;
	}
	return 1;
}

START_TEST(idle_connections_expire)
{
	struct harness h = { .script = script_idle };
	struct serve_cfg cfg = { .idle_timeout_ns = 50000000ull };
	uint64_t start = clock_now_ns();

	h_start(&h, &cfg, NET_TCP, 0);
	h_finish(&h);
	ck_assert_uint_ge(clock_now_ns() - start, 50000000ull);
	h_close(&h);
}
END_TEST

/*
 * ---- a half-closed peer kept for its replies; a held connection
 * outlives its close until put ---------------------------------------- */

static int script_halfclose(struct harness *h)
{
	char buf[8];

	switch (h->step) {
	case 0:
		h->peer[0] = net_connect(NET_TCP, "127.0.0.1", h->port);
		ck_assert_int_ge(h->peer[0], 0);
		ck_assert_int_eq(write(h->peer[0], "q", 1), 1);
		shutdown(h->peer[0], SHUT_WR);
		h->step++;
		return 0;
	case 1:
		if (!h->held || !h->held->rd_closed)
			return 0;
		/* the reply still goes out after the peer's EOF */
		ck_assert_int_eq(write(h->held->fd, "ok", 2), 2);
		serve_conn_close(h->s, h->held);
		ck_assert_int_eq(h->held->closed, 1);
		/* held: still allocated, its state still there */
		ck_assert_int_eq(*(int *)serve_conn_priv(h->held), 4242);
		ck_assert_int_eq(peer_read(h->peer[0], buf, sizeof(buf)), 2);
		ck_assert_int_eq(peer_read(h->peer[0], buf, sizeof(buf)), 0);
		serve_conn_put(h->s, h->held);
		h->held = NULL;
		h->step++;
		return 0;
	}
	return 1;	/* a turn later: freed (ASan would see a misuse) */
}

START_TEST(half_closed_kept_for_replies)
{
	struct harness h = { .keep_open = 1, .script = script_halfclose };
	struct serve_cfg cfg = { 0 };

	h_start(&h, &cfg, NET_TCP, 0);
	h_finish(&h);
	ck_assert_int_eq(h.eofs, 1);
	h_close(&h);
}
END_TEST

/* ---- UDP: one datagram, answered to its sender ------------------------ */

static int script_udp(struct harness *h)
{
	char buf[8];

	switch (h->step) {
	case 0:
		h->peer[0] = net_connect(NET_UDP, "127.0.0.1", h->port);
		ck_assert_int_ge(h->peer[0], 0);
		ck_assert_int_eq(write(h->peer[0], "hello", 5), 5);
		h->step++;
		return 0;
	case 1:
		if (!h->datagrams)
			return 0;
		ck_assert_int_eq(peer_read(h->peer[0], buf, sizeof(buf)), 5);
		ck_assert(!memcmp(buf, "olleh", 5));
		return 1;
	}
	return 1;
}

START_TEST(udp_datagram_answered)
{
	struct harness h = { .script = script_udp };
	struct serve_cfg cfg = { 0 };

	h_start(&h, &cfg, NET_UDP, 9);
	h_finish(&h);
	ck_assert_int_eq(h.datagrams, 1);
	h_close(&h);
}
END_TEST

/* ---- a signal stops the loop; the port file lists every listener ------ */

static int script_none(struct harness *h)
{
	(void)h;
	return 0;
}

START_TEST(signal_stops_and_port_file)
{
	struct harness h = { .script = script_none };
	struct serve_cfg cfg = { 0 };
	char path[] = "/tmp/wb-serve-XXXXXX", msg[256], want[32];
	uint16_t second;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	h_start(&h, &cfg, NET_TCP, 0);
	ck_assert_int_eq(serve_listen(h.s, NET_TCP, "127.0.0.1", 0, 1, &second,
				      msg, sizeof(msg)), 0);
	ck_assert_int_eq(serve_write_port_file(h.s, path, msg, sizeof(msg)), 0);
	snprintf(want, sizeof(want), "%u %u\n", h.port, second);
	ck_assert_str_eq(unit_slurp(path), want);
	unlink(path);
	ck_assert_int_lt(serve_write_port_file(h.s, "/nonexistent/dir/p", msg,
					       sizeof(msg)), 0);
	ck_assert_ptr_nonnull(strstr(msg, "cannot write /nonexistent/dir/p"));
	ck_assert_int_eq(serve_signal_pending(h.s), 0);
	kill(getpid(), SIGTERM);	/* blocked by serve_open: queued */
	ck_assert_int_eq(serve_signal_pending(h.s), 1);
	h_finish(&h);
	h_close(&h);
}
END_TEST

/*
 * ---- connects with a deadline and a stop: against a full accept queue
 * (SYNs dropped) a blocking connect() sat out the kernel's retries ----- */

struct stuck {
	int listener, queued[16], n;
	uint16_t port;
};

/* A loopback listener whose accept queue is full: connects to it hang. */
static void stuck_open(struct stuck *st)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int hanging = 0;

	st->n = 0;
	st->listener = net_listen(NET_TCP, "127.0.0.1", 0, 0, &st->port);
	ck_assert_int_ge(st->listener, 0);
	a.sin_port = htons(st->port);
	while (st->n < 16 && !hanging) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

		ck_assert_int_ge(fd, 0);
		st->queued[st->n++] = fd;
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			continue;
		ck_assert_int_eq(errno, EINPROGRESS);
		usleep(20000);
		hanging = net_connect_finish(fd) == -EINPROGRESS;
	}
	ck_assert_msg(hanging, "the accept queue never filled");
}

static void stuck_close(struct stuck *st)
{
	for (int i = 0; i < st->n; i++)
		close(st->queued[i]);
	close(st->listener);
}

static int stop_after(void *arg)
{
	return clock_now_ns() >= *(uint64_t *)arg;
}

START_TEST(connect_deadline_and_stop)
{
	struct stuck st;
	uint64_t t0, at;
	uint16_t port;
	int fd, l;

	stuck_open(&st);
	/* the deadline: -ETIMEDOUT after 200 ms, not minutes */
	t0 = clock_now_ns();
	ck_assert_int_eq(net_connect_until(NET_TCP, "127.0.0.1", st.port,
					   200000000ull, NULL, NULL),
			 -ETIMEDOUT);
	ck_assert_uint_ge(clock_now_ns() - t0, 200000000ull);
	ck_assert_uint_lt(clock_now_ns() - t0, 600000000ull);
	/* a stop 120 ms in ends a 10 s connect within one slice */
	t0 = clock_now_ns();
	at = t0 + 120000000ull;
	ck_assert_int_eq(net_connect_until(NET_TCP, "127.0.0.1", st.port,
					   10000000000ull, stop_after, &at),
			 -EINTR);
	ck_assert_uint_lt(clock_now_ns() - t0,
			  120000000ull + NET_CONNECT_SLICE_NS + 100000000ull);
	stuck_close(&st);

	/* a listener that is there: connected, non-blocking */
	l = net_listen(NET_TCP, "127.0.0.1", 0, 16, &port);
	ck_assert_int_ge(l, 0);
	fd = net_connect_until(NET_TCP, "127.0.0.1", port, 1000000000ull,
			       NULL, NULL);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(net_connect_finish(fd), 0);
	ck_assert_int_eq(net_read(fd, &at, 1), -EAGAIN);
	close(fd);
	close(l);
	/* nobody listens now: refused at once, not timed out */
	ck_assert_int_eq(net_connect_until(NET_TCP, "127.0.0.1", port,
					   1000000000ull, NULL, NULL),
			 -ECONNREFUSED);
}
END_TEST

/* ---- the protocol table's wakebench entry ------------------------------ */

struct msgs {
	unsigned n;
	struct proto_msg m[4];
};

static int collect(const struct proto_msg *m, void *arg)
{
	struct msgs *out = arg;

	if (out->n < 4)
		out->m[out->n] = *m;
	out->n++;
	return 0;
}

START_TEST(wire_wakebench_roundtrip)
{
	const struct wb_proto_ops *w = wire_find("wakebench");
	struct proto_msg a = { .type = PROTO_REQUEST, .seq = 5,
			       .service_ns = 1000, .payload_len = 10 };
	struct proto_msg b = { .type = PROTO_PREQUERY, .seq = 6 };
	struct msgs got = { 0 };
	struct proto_msg d;
	struct wire_conn c;
	uint8_t buf[256];
	size_t len, pos = 0;
	ssize_t n;

	ck_assert_ptr_eq(w, &wire_wakebench);
	ck_assert_ptr_null(wire_find("gopher"));
	ck_assert_uint_eq(w->msg_len(&a), PROTO_HDR_LEN + 10);
	ck_assert_int_eq(w->encode(NULL, &a, buf, PROTO_HDR_LEN), -ENOSPC);
	n = w->encode(NULL, &a, buf, sizeof(buf));
	ck_assert_int_eq(n, PROTO_HDR_LEN + 10);
	len = (size_t)n;
	n = w->encode(NULL, &b, buf + len, sizeof(buf) - len);
	ck_assert_int_eq(n, PROTO_HDR_LEN);
	len += (size_t)n;
	/* fed in steps of feed_step: never two messages in one piece */
	wire_conn_init(&c, w, 1024);
	while (pos < len) {
		size_t k = w->feed_step(&c);
		unsigned before = got.n;

		if (k > len - pos)
			k = len - pos;
		ck_assert_int_eq(wire_feed(&c, buf + pos, k, collect, &got), 0);
		ck_assert_uint_le(got.n - before, 1);
		pos += k;
	}
	ck_assert_uint_eq(got.n, 2);
	ck_assert_uint_eq(got.m[0].seq, 5);
	ck_assert_uint_eq(got.m[0].payload_len, 10);
	ck_assert_uint_eq(got.m[1].type, PROTO_PREQUERY);
	ck_assert(!wire_partial(&c));
	ck_assert_int_eq(wire_feed(&c, buf, 3, collect, &got), 0);
	ck_assert(wire_partial(&c));
	/* a datagram is one whole message, no more, no less */
	ck_assert_int_eq(w->decode(buf, PROTO_HDR_LEN + 10, 1024, &d), 0);
	ck_assert_int_eq(w->decode(buf, PROTO_HDR_LEN + 9, 1024, &d),
			 PROTO_EDGRAM);
	ck_assert_int_eq(w->decode(buf, len, 1024, &d), PROTO_EDGRAM);
	ck_assert_int_eq(w->decode(buf, PROTO_HDR_LEN + 10, 5, &d), PROTO_ELEN);
	ck_assert_str_eq(w->strerror(PROTO_EDGRAM),
			 "datagram length differs from its message");
}
END_TEST

/* issue 35: SO_BUSY_POLL set and read back (where it is permitted) */
START_TEST(busy_poll_read_back)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), v = -1, ret;
	socklen_t len = sizeof(v);

	ck_assert_int_ge(fd, 0);
	ret = net_busy_poll(fd, 50);
	if (ret == -EPERM) {
		close(fd);
		return;		/* no CAP_NET_ADMIN where the kernel wants it */
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(getsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, &len), 0);
	ck_assert_int_eq(v, 50);
	ck_assert_int_eq(net_busy_poll(fd, 0), 0);
	ck_assert_int_eq(getsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &v, &len), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(net_busy_poll(fd, 3000000000u), -EINVAL);
	close(fd);
}
END_TEST

Suite *serve_suite(void)
{
	Suite *s = suite_create("serve");
	TCase *tc = tcase_create("serve");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, peek_leaves_the_rest_queued);
	tcase_add_test(tc, fair_turns_by_bytes);
	tcase_add_test(tc, fair_turns_by_time);
	tcase_add_test(tc, paused_connection_waits);
	tcase_add_test(tc, max_conns_refuses);
	tcase_add_test(tc, idle_connections_expire);
	tcase_add_test(tc, busy_poll_read_back);
	tcase_add_test(tc, half_closed_kept_for_replies);
	tcase_add_test(tc, udp_datagram_answered);
	tcase_add_test(tc, signal_stops_and_port_file);
	tcase_add_test(tc, wire_wakebench_roundtrip);
	tcase_add_test(tc, connect_deadline_and_stop);
	suite_add_tcase(s, tc);
	return s;
}
