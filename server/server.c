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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cli.h"
#include "clishared.h"
#include "clock.h"
#include "cpu.h"
#include "cstate.h"
#include "csv.h"
#include "net.h"
#include "cmdline.h"
#include "die.h"
#include "marker.h"
#include "proto.h"
#include "snapshot.h"
#include "serve.h"
#include "srvlimit.h"
#include "wire.h"

#define PROG "wakebench-server"
/* Replies to the requests of one read go out together (see queue_reply). */
#define TX_BUF (PROTO_HDR_LEN * 256)
/* A client that leaves its replies unread this long is dropped. */
#define SEND_TIMEOUT_NS 1000000ull

/* Listener tags: which port a message came in on. */
enum { PORT_REQUEST, PORT_PREQUERY };

struct server_opts {
	const char *bind;
	uint16_t port, prequery_port;
	int have_prequery_port;
	enum net_proto proto;
	int cpu;
	int busy_poll;
	uint32_t so_busy_poll_us;
	int prequery_only;
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
	uint64_t requests, prequeries, rejected, dropped;
};

struct server {
	struct server_opts o;
	struct server_stats st;
	struct serve *loop;
	const struct wb_proto_ops *wire;
	struct csv *log;
	struct cstate_session *cs;
	int marker_fd;		/* trace_marker, or -1 */
	uint64_t rx_ns;		/* when the bytes being parsed were read */
	uint64_t turn_msgs, turn_ns;	/* this turn's messages, service */
	size_t txn;		/* bytes of replies waiting in tx */
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
	{ .name = "so-busy-poll", .kind = CLI_UINT, .store = CLI_U32,
	  .arg = "US", .max = 1000000, .hint = CLI_RANGE,
	  .help = "SO_BUSY_POLL on every socket: the kernel polls the\n"
		  "device queue this long before the thread sleeps\n"
		  "(default 0: off; older kernels want CAP_NET_ADMIN)",
	  .off = CLI_AT(struct server_opts, so_busy_poll_us) },
	{ .name = "prequery-only", .kind = CLI_FLAG,
	  .help = "a pre-query receiver: requests are rejected (the\n"
		  "thesis' second server process on the same core)",
	  .off = CLI_AT(struct server_opts, prequery_only) },
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
static int flush_replies(struct server *s, int fd)
{
	int err = s->txn ? net_send_all(fd, s->tx, s->txn, SEND_TIMEOUT_NS) : 0;

	s->txn = 0;
	if (err) {
		s->st.dropped++;
		return -1;
	}
	return 0;
}

/* Where a message came from and where its reply goes. */
struct origin {
	int fd;
	uint64_t conn;			/* connection id; 0 for UDP */
	struct wire_conn *w;		/* the stream's state; NULL for UDP */
	const struct serve_dgram *d;	/* the datagram's sender, or NULL */
};

/*
 * Serve one message: busy-wait the service time from when we start on it,
 * then reply. Returns 0, or -1 when the reply cannot be sent (the
 * connection is then dropped).
 */
static int serve_msg(struct server *s, const struct origin *from,
		     const struct proto_msg *m)
{
	struct proto_msg r;
	uint64_t service_ns = 0, send_ns = 0;
	int want_reply;

	s->turn_msgs++;
	if (s->marker_fd >= 0 && m->type <= PROTO_PREQUERY)
		marker_write(s->marker_fd, m->type == PROTO_REQUEST ? "recv" :
			     "pqrecv", m->seq);
	switch (m->type) {
	case PROTO_REQUEST:
		if (s->o.prequery_only) {
			/* the thesis' pre-query receiver serves nothing else */
			s->st.rejected++;
			return -1;
		}
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
		ssize_t len;

		/* Replies waiting must not wait for this one's service too. */
		if (service_ns && s->txn && flush_replies(s, from->fd))
			return -1;
		start = clock_now_ns();
		if (service_ns)
			clock_spin_until(start + service_ns);
		s->turn_ns += service_ns;
		r = (struct proto_msg){
			.type = PROTO_REPLY, .seq = m->seq,
			/* a pre-query's reply says so: the client drops it */
			.flags = m->type == PROTO_PREQUERY ? PROTO_F_ACK : 0,
			.client_send_ns = m->client_send_ns,
			.service_ns = service_ns,
			.server_recv_ns = s->rx_ns,
		};
		r.server_send_ns = send_ns = clock_now_ns();
		if (from->d) {
			uint8_t buf[PROTO_HDR_LEN];

			len = s->wire->encode(NULL, &r, buf, sizeof(buf));
			if (len < 0 ||
			    sendto(from->fd, buf, (size_t)len, MSG_NOSIGNAL,
				   (const struct sockaddr *)from->d->peer,
				   from->d->peerlen) < 0)
				s->st.dropped++;
		} else {
			len = s->wire->encode(from->w, &r, s->tx + s->txn,
					      sizeof(s->tx) - s->txn);
			if (len < 0) {
				if (flush_replies(s, from->fd)) {
					log_msg(s, m, s->rx_ns, 0, service_ns,
						from->conn);
					return -1;
				}
				len = s->wire->encode(from->w, &r, s->tx,
						      sizeof(s->tx));
			}
			if (len > 0)
				s->txn += (size_t)len;
		}
	}
	log_msg(s, m, s->rx_ns, send_ns, service_ns, from->conn);
	return 0;
}

struct stream_ctx {
	struct server *s;
	struct origin from;
};

static int on_conn_msg(const struct proto_msg *m, void *arg)
{
	struct stream_ctx *ctx = arg;

	return serve_msg(ctx->s, &ctx->from, m) ? 1 : 0;
}

/* ---- the serving loop's callbacks (serve.h) --------------------------- */

static void on_turn(struct serve_conn *c, void *arg)
{
	struct server *s = arg;

	(void)c;
	s->turn_msgs = s->turn_ns = 0;
}

/*
 * A connection's turn (see srvlimit.h) peeks no more than the messages
 * it may still serve; what it does not consume stays queued in the
 * kernel, so the connection stays ready and level-triggered epoll brings
 * it back after the other ready connections have had their turn.
 */
static size_t on_read_want(struct serve_conn *c, void *arg)
{
	struct server *s = arg;
	struct wire_conn *w = serve_conn_priv(c);

	if (srv_turn_over(s->turn_msgs, s->turn_ns))
		return 0;
	return (SRV_TURN_MSGS - s->turn_msgs) * PROTO_HDR_LEN +
	       (wire_partial(w) ? s->wire->feed_step(w) : 0);
}

static ssize_t on_data(struct serve_conn *c, const uint8_t *buf, size_t len,
		       uint64_t rx_ns, void *arg)
{
	struct server *s = arg;
	struct wire_conn *w = serve_conn_priv(c);
	struct stream_ctx ctx = {
		s, { .fd = c->fd, .conn = c->id, .w = w },
	};
	size_t pos = 0;
	int ret = 0;

	s->rx_ns = rx_ns;
	/* Each piece fed completes at most one message. */
	while (pos < len && !ret && !srv_turn_over(s->turn_msgs, s->turn_ns)) {
		size_t k = s->wire->feed_step(w);

		if (k > len - pos)
			k = len - pos;
		ret = wire_feed(w, buf + pos, k, on_conn_msg, &ctx);
		pos += k;
	}
	if (ret < 0)
		s->st.rejected++;
	/* Replies to what came before a bad frame still go out. */
	if (flush_replies(s, c->fd) && !ret)
		ret = 1;
	return ret ? -1 : (ssize_t)pos;
}

static int on_eof(struct serve_conn *c, int err, void *arg)
{
	struct server *s = arg;

	/* A read error, or EOF mid-message: a truncated frame. */
	if (err || wire_partial(serve_conn_priv(c)))
		s->st.rejected++;
	return 0;
}

/* A UDP socket's turn is bounded like a connection's (srvlimit.h). */
static int on_datagram(const struct serve_dgram *d, const uint8_t *buf,
		       size_t len, uint64_t rx_ns, void *arg)
{
	struct server *s = arg;
	struct origin from = { .fd = d->fd, .d = d };
	struct proto_msg m;

	s->rx_ns = rx_ns;
	if (s->wire->decode(buf, len, s->o.max_payload, &m)) {
		s->st.rejected++;
		s->turn_msgs++;
	} else {
		serve_msg(s, &from, &m);
	}
	return srv_turn_over(s->turn_msgs, s->turn_ns);
}

static void on_conn_open(struct serve_conn *c, void *arg)
{
	struct server *s = arg;

	wire_conn_init(serve_conn_priv(c), s->wire, s->o.max_payload);
}

static const struct serve_ops server_loop_ops = {
	.conn_open = on_conn_open,
	.turn_begin = on_turn,
	.read_want = on_read_want,
	.on_data = on_data,
	.on_eof = on_eof,
	.on_datagram = on_datagram,
};

/*
 * C-states first: once the port accepts connections a client may start,
 * and its first request must see the configured idle states (a later
 * setup failure exits, and the atexit hook restores them). Then the
 * request port and the pre-query port (their ports in BOUND, PQ_BOUND).
 */
static int setup_listen(struct server *s, uint16_t *bound, uint16_t *pq_bound,
			char *msg, size_t msglen)
{
	struct server_opts *o = &s->o;
	char why[256];
	int ret;

	if (o->have_cstates) {
		s->cs = cstate_run_begin(&o->cstates, o->cpu, o->cmdline, msg,
					 msglen);
		if (!s->cs)
			return -EINVAL;
		if (cstate_warning(s->cs)[0])
			fprintf(stderr, "%s: warning: --cstates: %s\n", PROG,
				cstate_warning(s->cs));
	}
	ret = serve_listen(s->loop, o->proto, o->bind, o->port, PORT_REQUEST,
			   bound, why, sizeof(why));
	if (ret) {
		snprintf(msg, msglen, "cannot listen on %s port %u: %s",
			 o->bind, o->port, why);
		return ret;
	}
	if (o->have_prequery_port) {
		ret = serve_listen(s->loop, o->proto, o->bind, o->prequery_port,
				   PORT_PREQUERY, pq_bound, why, sizeof(why));
		if (ret) {
			snprintf(msg, msglen,
				 "cannot listen on %s pre-query port %u: %s",
				 o->bind, o->prequery_port, why);
			return ret;
		}
	}
	return 0;
}

/* The line saying what listens where, on which CPU, and how. */
static void announce(const struct server *s, uint16_t bound, uint16_t pq_bound)
{
	const struct server_opts *o = &s->o;

	fprintf(stderr, "%s: %s %s:%u", PROG, net_proto_name(o->proto),
		o->bind, bound);
	if (o->have_prequery_port)
		fprintf(stderr, " prequery:%u", pq_bound);
	fprintf(stderr, " cpu=%d %s", o->cpu,
		o->busy_poll ? "busy-poll" : "blocking");
	if (o->so_busy_poll_us)
		fprintf(stderr, " so_busy_poll=%uus", o->so_busy_poll_us);
	fputc('\n', stderr);
}

static int setup(struct server *s, char *msg, size_t msglen)
{
	struct server_opts *o = &s->o;
	struct serve_cfg cfg = {
		.ops = &server_loop_ops, .arg = s,
		.max_conns = o->max_conns,
		.idle_timeout_ns = o->idle_timeout_ns,
		.busy_poll = o->busy_poll, .peek = 1,
		.so_busy_poll_us = o->so_busy_poll_us,
		.conn_priv = sizeof(struct wire_conn),
	};
	char note[256];
	uint16_t bound = 0, pq_bound = 0;
	int ret;

	s->wire = &wire_wakebench;
	s->marker_fd = -1;
	ret = serve_open(&cfg, &s->loop, note, sizeof(note), msg, msglen);
	if (ret)
		return ret;
	if (note[0])
		fprintf(stderr, "%s: warning: %s\n", PROG, note);
	ret = setup_listen(s, &bound, &pq_bound, msg, msglen);
	if (ret)
		return ret;
	if (o->log_path) {
		s->log = csv_open(o->log_path);
		if (!s->log) {
			ret = -errno;
			snprintf(msg, msglen, "cannot write log %s: %s",
				 o->log_path, strerror(errno));
			return ret;
		}
		csv_header(s->log, "seq,type,recv_ns,send_ns,service_ns,conn");
	}
	if (o->trace_markers) {
		s->marker_fd = marker_open(NULL);
		if (s->marker_fd < 0) {
			snprintf(msg, msglen, "--trace-markers: %s",
				 s->marker_fd == -ENOENT ?
				 "no trace instance (run under 'wakebench trace record -- ...')" :
				 strerror(-s->marker_fd));
			return s->marker_fd;
		}
	}
	if (o->log_path) {
		ret = snapshot_write_beside(o->log_path, "server", o->cmdline,
					    msg, msglen);
		if (ret)
			return ret;
	}
	ret = cpu_pin_opt(o->cpu, msg, msglen);
	if (ret)
		return ret;
	if (o->port_file) {
		ret = serve_write_port_file(s->loop, o->port_file, msg, msglen);
		if (ret)
			return ret;
	}
	if (!o->quiet)
		announce(s, bound, pq_bound);
	return 0;
}

int main(int argc, char **argv)
{
	struct server *s = calloc(1, sizeof(*s));
	struct serve_stats ls = { 0 };
	char msg[4400];
	int ret, rc = 0;

	if (!s)
		opt_die(PROG, "out of memory");
	parse_opts(&s->o, argc, argv);
	s->o.cmdline = opt_cmdline(argc, argv);
	if (!s->o.cmdline)
		opt_die(PROG, "out of memory");
	if (setup(s, msg, sizeof(msg)))
		opt_die(PROG, "%s", msg);
	ret = serve_run(s->loop);
	if (ret) {
		fprintf(stderr, "%s: epoll_wait: %s\n", PROG, strerror(-ret));
		rc = 1;
	}
	serve_stats(s->loop, &ls);
	serve_close(s->loop);
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
		(unsigned long long)ls.connections,
		(unsigned long long)ls.refused,
		(unsigned long long)s->st.dropped,
		(unsigned long long)ls.idle_closed);
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
