// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench server: a minimal request/reply server pinned to one core.
 *
 * It waits in epoll_wait by default so that its core really idles between
 * requests (the point of the experiment); --busy-poll keeps the core in C0
 * as the control. Each REQUEST is served by busy-waiting its service time
 * (capped), then answered with a REPLY that carries the server's receive
 * and send times. PREQUERY messages, on the request port or on the
 * separate --prequery-port, only wake the core: no reply unless the
 * sender sets PROTO_F_ACK. A malformed message closes its connection
 * (TCP) or is dropped (UDP) and is counted; everyone else is served on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cli.h"
#include "clishared.h"
#include "clock.h"
#include "cpu.h"
#include "cstate.h"
#include "csv.h"
#include "framer.h"
#include "net.h"
#include "opt.h"
#include "marker.h"
#include "proto.h"
#include "snapshot.h"
#include "srvlimit.h"

#define PROG "wakebench-server"
#define MAX_EVENTS 64
#define RX_BUF (64 * 1024)
/* Replies to the requests of one read go out together (see queue_reply). */
#define TX_BUF (PROTO_HDR_LEN * 256)
/* A client that leaves its replies unread this long is dropped. */
#define SEND_TIMEOUT_NS 1000000ull
/* Out of fds even after refusing with the spare one: stop accepting this long. */
#define ACCEPT_PAUSE_NS 100000000ull

enum ep_kind {
	EP_SIGNAL,
	EP_LISTEN,	/* TCP listener */
	EP_UDP,		/* UDP socket */
	EP_CONN,	/* accepted TCP connection */
};

struct endpoint {
	enum ep_kind kind;
	int fd;
	int prequery_port;	/* arrived on --prequery-port */
	uint64_t id;
	uint64_t last_ns;	/* last activity, for --idle-timeout-ms */
	struct framer fr;
	struct endpoint *prev, *next;	/* live connections */
};

struct server_opts {
	const char *bind;
	uint16_t port, prequery_port;
	int have_prequery_port;
	enum net_proto proto;
	int cpu;
	int busy_poll;
	uint64_t max_service_ns;
	uint32_t max_payload;
	uint64_t max_conns;
	uint64_t idle_timeout_ns;
	const char *log_path;
	const char *port_file;
	int quiet;
	int have_cstates;
	struct cstate_spec cstates;
	int trace_markers;
	char *cmdline;
};

struct server_stats {
	uint64_t requests, prequeries, rejected, connections, refused, dropped;
	uint64_t idle_closed;
};

struct server {
	struct server_opts o;
	struct server_stats st;
	int epfd;
	struct endpoint sig, main_ep, pq_ep;
	struct endpoint conns;	/* list head */
	uint64_t nconns, next_id;
	struct csv *log;
	struct cstate_session *cs;
	int marker_fd;		/* trace_marker, or -1 */
	uint64_t rx_ns;		/* when the bytes being parsed were read */
	int stop;		/* SIGINT, SIGTERM or SIGHUP seen */
	uint64_t turn_msgs, turn_ns;	/* this turn's messages, service */
	int spare_fd;		/* given up to refuse a connection on EMFILE */
	uint64_t accept_resume_ns;	/* listeners paused until then, or 0 */
	size_t txn;		/* bytes of replies waiting in tx */
	uint8_t rx[RX_BUF];
	uint8_t tx[TX_BUF];
};

static const struct cli_opt server_options[] = {
	{ .name = "port", .short_name = 'p', .kind = CLI_UINT,
	  .store = CLI_U16, .arg = "PORT", .max = 65535,
	  .help = "request port (default 7000; 0 = any free port)",
	  .off = CLI_AT(struct server_opts, port) },
	{ .name = "prequery-port", .short_name = 'P', .kind = CLI_UINT,
	  .store = CLI_U16, .arg = "PORT", .max = 65535,
	  .help = "separate pre-query listener (same thread, same core)",
	  .off = CLI_AT(struct server_opts, prequery_port),
	  .seen = CLI_SEEN(struct server_opts, have_prequery_port) },
	{ .name = "bind", .short_name = 'b', .kind = CLI_STRING,
	  .arg = "ADDR", .help = "address to bind (default 127.0.0.1)",
	  .off = CLI_AT(struct server_opts, bind) },
	CLI_OPT_CPU(struct server_opts, cpu, "pin the server thread to CPU N"),
	CLI_OPT_PROTO(struct server_opts, proto),
	{ .name = "busy-poll", .kind = CLI_FLAG,
	  .help = "poll without blocking: the core never idles",
	  .off = CLI_AT(struct server_opts, busy_poll) },
	{ .name = "max-service-us", .kind = CLI_UINT, .arg = "US",
	  .max = 60000000, .scale = 1000, .hint = CLI_RANGE,
	  .help = "cap on a request's service time (default 10000)",
	  .off = CLI_AT(struct server_opts, max_service_ns) },
	{ .name = "max-payload", .kind = CLI_UINT, .store = CLI_U32,
	  .arg = "BYTES", .max = PROTO_MAX_PAYLOAD, .hint = CLI_RANGE,
	  .help = "largest accepted payload (default 65536)",
	  .off = CLI_AT(struct server_opts, max_payload) },
	{ .name = "max-conns", .kind = CLI_UINT, .arg = "N",
	  .min = 1, .max = 1000000, .hint = CLI_RANGE,
	  .help = "connections served at once (default 1024)",
	  .off = CLI_AT(struct server_opts, max_conns) },
	{ .name = "idle-timeout-ms", .kind = CLI_UINT, .arg = "MS",
	  .max = 86400000, .scale = 1e6,
	  .help = "close connections idle this long (default 0: never)",
	  .off = CLI_AT(struct server_opts, idle_timeout_ns) },
	CLI_OPT_LOG('l', struct server_opts, log_path,
		    "per-request CSV: seq,type,recv_ns,send_ns,service_ns,conn\n"
		    "and the host snapshot beside it (FILE.snapshot.json)"),
	CLI_OPT_CSTATES(struct server_opts, cstates, have_cstates,
			"idle states for the run on --cpu only (all CPUs\n"
			"without it), restored at exit; system-* also holds\n"
			"/dev/cpu_dma_latency (see wakebench cstate)"),
	CLI_OPT_TRACE_MARKERS(struct server_opts, trace_markers,
			      "mark each message (\"wb recv SEQ\", \"wb pqrecv SEQ\")\n"
			      "in the trace instance of 'wakebench trace record'"),
	CLI_OPT_PORT_FILE(struct server_opts, port_file,
			  "write the bound ports (\"PORT [PQPORT]\") once listening"),
	CLI_OPT_QUIET(struct server_opts, quiet, "no start-up line"),
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

static const struct cli_cmd server_cmd = {
	.prog = PROG,
	.usage = "Usage: wakebench server [options]",
	.about =
"Request/reply server pinned to one core; blocks in epoll_wait so the core\n"
"idles between requests.\n",
	.footer =
"Ready connections are served in turns of at most 64 messages or 1 ms of\n"
"service time each, round-robin, so one client cannot starve the others.\n"
"\n"
"SIGINT/SIGTERM/SIGHUP: stop, flush the log, print a one-line summary.\n",
	.col = 28,
	.opts = server_options,
};

static void parse_opts(struct server_opts *o, int argc, char **argv)
{
	*o = (struct server_opts){
		.bind = "127.0.0.1", .port = 7000, .proto = NET_TCP,
		.cpu = -1, .max_service_ns = 10000000ull,
		.max_payload = 65536, .max_conns = 1024,
	};
	cli_parse(&server_cmd, argc, argv, o);
	if (o->proto == NET_UDP && o->max_payload > PROTO_MAX_UDP_PAYLOAD)
		o->max_payload = PROTO_MAX_UDP_PAYLOAD;
	if (o->have_prequery_port && o->prequery_port &&
	    o->prequery_port == o->port)
		opt_usage(PROG, "--prequery-port must differ from --port");
}

static int ep_add(struct server *s, struct endpoint *ep)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ep };

	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, ep->fd, &ev) ? -errno : 0;
}

static void log_msg(struct server *s, const struct proto_msg *m,
		    uint64_t recv_ns, uint64_t send_ns, uint64_t service_ns,
		    uint64_t conn)
{
	if (!s->log)
		return;
	csv_u64(s->log, m->seq);
	csv_str(s->log, proto_type_name(m->type));
	csv_u64(s->log, recv_ns);
	if (send_ns)
		csv_u64(s->log, send_ns);
	else
		csv_empty(s->log);
	csv_u64(s->log, service_ns);
	csv_u64(s->log, conn);
	csv_end_row(s->log);
}

/*
 * Sends the replies queued for a stream connection. Under load one read
 * brings many requests: their replies leave in one send(), not one each
 * (server_send_ns is when each reply was ready). A client that leaves
 * them unread for SEND_TIMEOUT_NS is dropped: -1.
 */
static int flush_replies(struct server *s, struct endpoint *ep)
{
	int err = s->txn ? net_send_all(ep->fd, s->tx, s->txn, SEND_TIMEOUT_NS) : 0;

	s->txn = 0;
	if (err) {
		s->st.dropped++;
		return -1;
	}
	return 0;
}

/*
 * Serve one message: busy-wait the service time from when we start on it,
 * then reply. Returns 0, or -1 when the reply cannot be sent (the
 * connection is then dropped).
 */
static int serve_msg(struct server *s, struct endpoint *ep,
		     const struct proto_msg *m,
		     const struct sockaddr_storage *peer, socklen_t peerlen)
{
	uint8_t buf[PROTO_HDR_LEN];
	struct proto_msg r;
	uint64_t service_ns = 0, send_ns = 0;
	int want_reply;

	s->turn_msgs++;
	if (s->marker_fd >= 0 && m->type <= PROTO_PREQUERY)
		marker_write(s->marker_fd, m->type == PROTO_REQUEST ? "recv" :
			     "pqrecv", m->seq);
	switch (m->type) {
	case PROTO_REQUEST:
		s->st.requests++;
		service_ns = m->service_ns < s->o.max_service_ns ?
			     m->service_ns : s->o.max_service_ns;
		want_reply = 1;
		break;
	case PROTO_PREQUERY:
		s->st.prequeries++;
		want_reply = m->flags & PROTO_F_ACK;
		break;
	default:
		/* Replies and errors are never sent to a server. */
		s->st.rejected++;
		return -1;
	}
	if (want_reply) {
		uint64_t start;

		/* Replies waiting must not wait for this one's service too. */
		if (service_ns && s->txn && flush_replies(s, ep))
			return -1;
		start = clock_now_ns();
		if (service_ns)
			clock_spin_until(start + service_ns);
		s->turn_ns += service_ns;
		r = (struct proto_msg){
			.type = PROTO_REPLY, .seq = m->seq,
			.client_send_ns = m->client_send_ns,
			.service_ns = service_ns,
			.server_recv_ns = s->rx_ns,
		};
		r.server_send_ns = send_ns = clock_now_ns();
		if (ep->kind == EP_UDP) {
			proto_encode(&r, buf);
			if (sendto(ep->fd, buf, sizeof(buf), MSG_NOSIGNAL,
				   (const struct sockaddr *)peer, peerlen) < 0)
				s->st.dropped++;
		} else {
			if (s->txn + PROTO_HDR_LEN > sizeof(s->tx) &&
			    flush_replies(s, ep)) {
				log_msg(s, m, s->rx_ns, 0, service_ns, ep->id);
				return -1;
			}
			proto_encode(&r, s->tx + s->txn);
			s->txn += PROTO_HDR_LEN;
		}
	}
	log_msg(s, m, s->rx_ns, send_ns, service_ns, ep->id);
	return 0;
}

struct stream_ctx {
	struct server *s;
	struct endpoint *ep;
};

static int on_stream_msg(const struct proto_msg *m, void *arg)
{
	struct stream_ctx *ctx = arg;

	return serve_msg(ctx->s, ctx->ep, m, NULL, 0) ? 1 : 0;
}

static void conn_close(struct server *s, struct endpoint *c)
{
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->prev->next = c->next;
	c->next->prev = c->prev;
	s->nconns--;
	free(c);
}

/* Connections are kept most recently active first: expire from the tail. */
static void conn_touch(struct server *s, struct endpoint *c, uint64_t now)
{
	c->last_ns = now;
	if (s->conns.next == c)
		return;
	c->prev->next = c->next;
	c->next->prev = c->prev;
	c->next = s->conns.next;
	c->prev = &s->conns;
	s->conns.next->prev = c;
	s->conns.next = c;
}

/* Closes expired connections; returns ms until the next may expire. */
static int close_idle(struct server *s)
{
	uint64_t now = clock_now_ns();

	while (s->conns.prev != &s->conns) {
		struct endpoint *c = s->conns.prev;
		uint64_t idle = now - c->last_ns;

		if (idle < s->o.idle_timeout_ns)
			return (int)((s->o.idle_timeout_ns - idle) / 1000000) + 1;
		s->st.idle_closed++;
		conn_close(s, c);
	}
	return -1;
}

/*
 * One turn of a connection (see srvlimit.h): the bytes waiting are peeked,
 * fed to the framer message by message until the turn is over, and only
 * what was consumed is taken off the socket. The rest stays queued in the
 * kernel, so the connection stays ready and level-triggered epoll brings
 * it back after the other ready connections have had their turn.
 */
static void conn_read(struct server *s, struct endpoint *c)
{
	struct stream_ctx ctx = { s, c };

	s->turn_msgs = s->turn_ns = 0;
	for (;;) {
		size_t want = (SRV_TURN_MSGS - s->turn_msgs) * PROTO_HDR_LEN +
			      c->fr.skip;
		size_t pos = 0, len;
		ssize_t n;
		int ret = 0;

		if (want > sizeof(s->rx))
			want = sizeof(s->rx);
		do
			n = recv(c->fd, s->rx, want, MSG_PEEK | MSG_DONTWAIT);
		while (n < 0 && errno == EINTR);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			/* EOF mid-message: a truncated frame. */
			if (n < 0 || framer_partial(&c->fr))
				s->st.rejected++;
			conn_close(s, c);
			return;
		}
		s->rx_ns = clock_now_ns();
		if (s->o.idle_timeout_ns)
			conn_touch(s, c, s->rx_ns);
		len = (size_t)n;
		/* Each piece fed completes at most one message. */
		while (pos < len && !ret &&
		       !srv_turn_over(s->turn_msgs, s->turn_ns)) {
			size_t k = c->fr.skip ? (c->fr.skip < len - pos ?
				   (size_t)c->fr.skip : len - pos) :
				   PROTO_HDR_LEN - c->fr.have;

			if (k > len - pos)
				k = len - pos;
			ret = framer_feed(&c->fr, s->rx + pos, k, on_stream_msg,
					  &ctx);
			pos += k;
		}
		if (ret < 0)
			s->st.rejected++;
		/* Replies to what came before a bad frame still go out. */
		if (flush_replies(s, c) && !ret)
			ret = 1;
		/* Take what was consumed off the socket (MSG_TRUNC: no copy). */
		if (!ret && recv(c->fd, NULL, pos, MSG_TRUNC | MSG_DONTWAIT) !=
			    (ssize_t)pos) {
			s->st.rejected++;
			ret = 1;
		}
		if (ret) {
			conn_close(s, c);
			return;
		}
		if (pos < len || len < want ||
		    srv_turn_over(s->turn_msgs, s->turn_ns))
			return;
	}
}

static void listeners_events(struct server *s, uint32_t events)
{
	struct endpoint *ls[] = { &s->main_ep, &s->pq_ep };

	for (size_t i = 0; i < 2; i++) {
		struct epoll_event ev = { .events = events, .data.ptr = ls[i] };

		if (ls[i]->kind == EP_LISTEN)
			epoll_ctl(s->epfd, EPOLL_CTL_MOD, ls[i]->fd, &ev);
	}
}

/*
 * Out of file descriptors (EMFILE, ENFILE) or memory: the pending
 * connection would wake epoll again at once, forever. Give up the spare
 * fd, accept the connection and close it (counted as refused), take the
 * spare back. Returns 1 when one was refused, 0 when none is pending,
 * -1 when that did not work either (the caller then pauses accepting).
 */
static int refuse_one(struct server *s, struct endpoint *l)
{
	int fd;

	if (s->spare_fd < 0)
		return -1;
	close(s->spare_fd);
	fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		s->st.refused++;
	}
	s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return 1;
	return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
}

static void do_accept(struct server *s, struct endpoint *l)
{
	for (;;) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct endpoint *c;
		int one = 1;

		if (fd < 0) {
			int ret;

			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EMFILE && errno != ENFILE &&
			    errno != ENOBUFS && errno != ENOMEM)
				return;	/* EAGAIN */
			ret = refuse_one(s, l);
			if (ret > 0)
				continue;
			if (ret < 0) {
				/* Serve the connections we have; retry later. */
				listeners_events(s, 0);
				s->accept_resume_ns = clock_now_ns() +
						      ACCEPT_PAUSE_NS;
			}
			return;
		}
		if (s->nconns >= s->o.max_conns) {
			s->st.refused++;
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			s->st.refused++;
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->kind = EP_CONN;
		c->fd = fd;
		c->prequery_port = l->prequery_port;
		c->id = ++s->next_id;
		c->last_ns = clock_now_ns();
		framer_init(&c->fr, s->o.max_payload);
		if (ep_add(s, c)) {
			close(fd);
			free(c);
			s->st.refused++;
			continue;
		}
		c->next = s->conns.next;
		c->prev = &s->conns;
		s->conns.next->prev = c;
		s->conns.next = c;
		s->nconns++;
		s->st.connections++;
	}
}

/* A UDP socket's turn is bounded like a connection's (srvlimit.h). */
static void udp_read(struct server *s, struct endpoint *u)
{
	s->turn_msgs = s->turn_ns = 0;
	while (!srv_turn_over(s->turn_msgs, s->turn_ns)) {
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		struct proto_msg m;
		ssize_t n = recvfrom(u->fd, s->rx, sizeof(s->rx), MSG_TRUNC,
				     (struct sockaddr *)&peer, &plen);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		s->rx_ns = clock_now_ns();
		if (proto_decode(s->rx, (size_t)n, s->o.max_payload, &m) ||
		    (size_t)n != PROTO_HDR_LEN + m.payload_len) {
			s->st.rejected++;
			s->turn_msgs++;
			continue;
		}
		serve_msg(s, u, &m, &peer, plen);
	}
}



/*
 * Every connection is an fd: raise the soft RLIMIT_NOFILE to what
 * --max-conns needs, or lower --max-conns to what the hard limit allows.
 */
static void fd_budget(struct server *s)
{
	struct srv_fd_budget b;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (!srv_fd_budget(s->o.max_conns,
			   rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : rl.rlim_cur,
			   rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : rl.rlim_max,
			   &b)) {
		if (b.soft != (uint64_t)rl.rlim_cur) {
			rl.rlim_cur = (rlim_t)b.soft;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		return;
	}
	rl.rlim_cur = (rlim_t)b.soft;
	setrlimit(RLIMIT_NOFILE, &rl);
	fprintf(stderr, "%s: warning: open file limit %llu (ulimit -n): --max-conns lowered from %llu to %llu\n",
		PROG, (unsigned long long)b.soft,
		(unsigned long long)s->o.max_conns,
		(unsigned long long)b.max_conns);
	s->o.max_conns = b.max_conns;
}

static int setup(struct server *s, char **err)
{
	struct server_opts *o = &s->o;
	sigset_t mask;
	uint16_t bound = 0, pq_bound = 0;
	int fd;

	static char msg[4400];
	*err = msg;
	s->conns.next = s->conns.prev = &s->conns;
	fd_budget(s);
	s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		snprintf(msg, sizeof(msg), "epoll_create1: %s", strerror(errno));
		return -1;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);	/* the terminal closed: stop cleanly too */
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sig.kind = EP_SIGNAL;
	s->sig.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->sig.fd < 0 || ep_add(s, &s->sig)) {
		snprintf(msg, sizeof(msg), "signalfd: %s", strerror(errno));
		return -1;
	}

	/*
	 * C-states first: once the port accepts connections a client may
	 * start, and its first request must see the configured idle states
	 * (a later setup failure exits, and the atexit hook restores them).
	 */
	if (o->have_cstates) {
		s->cs = cstate_run_begin(&o->cstates, o->cpu, o->cmdline, msg,
					 sizeof(msg));
		if (!s->cs)
			return -1;
	}
	fd = net_listen(o->proto, o->bind, o->port, 1024, &bound);
	if (fd < 0) {
		snprintf(msg, sizeof(msg), "cannot listen on %s port %u: %s",
			 o->bind, o->port, strerror(-fd));
		return -1;
	}
	s->main_ep.kind = o->proto == NET_TCP ? EP_LISTEN : EP_UDP;
	s->main_ep.fd = fd;
	ep_add(s, &s->main_ep);
	if (o->have_prequery_port) {
		fd = net_listen(o->proto, o->bind, o->prequery_port, 1024,
				&pq_bound);
		if (fd < 0) {
			snprintf(msg, sizeof(msg),
				 "cannot listen on %s pre-query port %u: %s",
				 o->bind, o->prequery_port, strerror(-fd));
			return -1;
		}
		s->pq_ep.kind = s->main_ep.kind;
		s->pq_ep.fd = fd;
		s->pq_ep.prequery_port = 1;
		ep_add(s, &s->pq_ep);
	}
	if (o->log_path) {
		s->log = csv_open(o->log_path);
		if (!s->log) {
			snprintf(msg, sizeof(msg), "cannot write log %s: %s",
				 o->log_path, strerror(errno));
			return -1;
		}
		csv_header(s->log, "seq,type,recv_ns,send_ns,service_ns,conn");
	}
	s->marker_fd = -1;
	if (o->trace_markers) {
		s->marker_fd = marker_open(NULL);
		if (s->marker_fd < 0) {
			snprintf(msg, sizeof(msg), "--trace-markers: %s",
				 s->marker_fd == -ENOENT ?
				 "no trace instance (run under 'wakebench trace record -- ...')" :
				 strerror(-s->marker_fd));
			return -1;
		}
	}
	if (o->log_path) {
		char snap[4096];
		size_t n = strlen(o->log_path);
		int ret;

		/* server.csv -> server.snapshot.json, beside the log */
		if (n > 4 && !strcmp(o->log_path + n - 4, ".csv"))
			n -= 4;
		snprintf(snap, sizeof(snap), "%.*s.snapshot.json", (int)n,
			 o->log_path);
		ret = snapshot_write_json(snap, "server", o->cmdline);
		if (ret) {
			snprintf(msg, sizeof(msg), "cannot write %s: %s", snap,
				 strerror(-ret));
			return -1;
		}
	}
	if (o->cpu >= 0) {
		int ret = cpu_pin_self(o->cpu);

		if (ret) {
			snprintf(msg, sizeof(msg), "cannot pin to CPU %d: %s",
				 o->cpu, strerror(-ret));
			return -1;
		}
	}
	if (o->port_file) {
		FILE *f = fopen(o->port_file, "w");

		if (!f) {
			snprintf(msg, sizeof(msg), "cannot write %s: %s",
				 o->port_file, strerror(errno));
			return -1;
		}
		if (o->have_prequery_port)
			fprintf(f, "%u %u\n", bound, pq_bound);
		else
			fprintf(f, "%u\n", bound);
		if (fclose(f)) {
			snprintf(msg, sizeof(msg), "cannot write %s: %s",
				 o->port_file, strerror(errno));
			return -1;
		}
	}
	if (!o->quiet) {
		fprintf(stderr, "%s: %s %s:%u", PROG, net_proto_name(o->proto),
			o->bind, bound);
		if (o->have_prequery_port)
			fprintf(stderr, " prequery:%u", pq_bound);
		fprintf(stderr, " cpu=%d %s\n", o->cpu,
			o->busy_poll ? "busy-poll" : "blocking");
	}
	return 0;
}

static int run(struct server *s)
{
	struct epoll_event evs[MAX_EVENTS];
	int idle_ms = -1;

	while (!s->stop) {
		int timeout = s->o.busy_poll ? 0 : idle_ms;
		int n;

		if (s->accept_resume_ns) {
			uint64_t now = clock_now_ns();

			if (now >= s->accept_resume_ns) {
				s->accept_resume_ns = 0;
				listeners_events(s, EPOLLIN);
			} else {
				int ms = (int)((s->accept_resume_ns - now) /
					       1000000) + 1;

				if (timeout < 0 || ms < timeout)
					timeout = ms;
			}
		}
		n = epoll_wait(s->epfd, evs, MAX_EVENTS, timeout);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < n; i++) {
			struct endpoint *ep = evs[i].data.ptr;

			switch (ep->kind) {
			case EP_SIGNAL:
				s->stop = 1;
				break;
			case EP_LISTEN:
				do_accept(s, ep);
				break;
			case EP_UDP:
				udp_read(s, ep);
				break;
			case EP_CONN:
				conn_read(s, ep);
				break;
			}
		}
		if (s->o.idle_timeout_ns)
			idle_ms = close_idle(s);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct server *s = calloc(1, sizeof(*s));
	char *err;
	int ret, rc = 0;

	if (!s)
		opt_die(PROG, "out of memory");
	parse_opts(&s->o, argc, argv);
	s->o.cmdline = opt_cmdline(argc, argv);
	if (!s->o.cmdline)
		opt_die(PROG, "out of memory");
	if (setup(s, &err))
		opt_die(PROG, "%s", err);
	ret = run(s);
	if (ret) {
		fprintf(stderr, "%s: epoll_wait: %s\n", PROG, strerror(-ret));
		rc = 1;
	}
	while (s->conns.next != &s->conns)
		conn_close(s, s->conns.next);
	ret = csv_close(s->log);
	if (ret) {
		fprintf(stderr, "%s: writing %s: %s\n", PROG, s->o.log_path,
			strerror(-ret));
		rc = 1;
	}
	fprintf(stderr,
		"%s: requests=%llu prequeries=%llu rejected=%llu connections=%llu refused=%llu dropped=%llu idle_closed=%llu\n",
		PROG, (unsigned long long)s->st.requests,
		(unsigned long long)s->st.prequeries,
		(unsigned long long)s->st.rejected,
		(unsigned long long)s->st.connections,
		(unsigned long long)s->st.refused,
		(unsigned long long)s->st.dropped,
		(unsigned long long)s->st.idle_closed);
	ret = cstate_end(s->cs);
	if (ret < 0) {
		fprintf(stderr, "%s: restoring idle states: %s (run 'wakebench cstate restore')\n",
			PROG, strerror(-ret));
		rc = 1;
	}
	free(s->o.cmdline);
	free(s);
	return rc;
}
