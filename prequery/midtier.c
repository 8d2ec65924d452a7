// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench midtier: client -> midtier -> backend relay with a pre-query
 * helper thread (the thesis' HDSearch/Router set-up).
 *
 * The main thread, pinned to --cpu, takes each client request, raises a
 * flag naming it, does the midtier's own work (--work-us of busy-waiting)
 * and forwards it to the backend. The helper thread waits for the flag,
 * busy-waits the pre-query delay while the flag stays raised, then sends
 * a PREQUERY to the backend unless the main thread already forwarded the
 * request: a pre-query is reactive here and races the request. The flag
 * is claimed with compare-and-swap by whichever side gets there first, so
 * a request gets at most one pre-query and is always forwarded.
 *
 * When the helper claims the flag, the main thread waits until the
 * helper's send() of the pre-query has returned before it forwards the
 * request: a pre-query that is sent always left the midtier before its
 * request (they travel on different connections, so the backend may still
 * read them in either order).
 *
 * Several backends (--backend repeated), as the thesis' Router: --route
 * hash sends a get to the backend its key hashes to (lib/kvkey) and a set
 * to --replicas backends from there; --route all sends every request to
 * every backend, as HDSearch's buckets, and replies once all answered (an
 * error or an outage of any of them: an ERROR reply at once). --proto
 * says what both sides speak: wakebench, memcached or redis (a memcached
 * client in front of memcached leaves). One helper thread sends the
 * pre-queries of a request to each backend it will reach, one after the
 * other on the helper's own connection to each: one helper, as in the
 * thesis, because more threads would compete for the few cores a
 * midtier has (two here) and each extra backend costs the helper one
 * more send(), small beside the delays studied (tens of microseconds).
 *
 * The delay is fixed (--prequery-delay-us) or hill-climbed on each
 * window's average backend response time (--prequery-adaptive). Backend
 * down or slow: the client gets an ERROR reply, the midtier goes on and
 * reconnects (non-blocking connects with --connect-timeout-ms; the helper
 * owns its pre-query connection and reconnects it with bounded backoff).
 */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "clishared.h"
#include "clock.h"
#include "cpu.h"
#include "csv.h"
#include "cstate.h"
#include "hillclimb.h"
#include "hist.h"
#include "kvkey.h"
#include "net.h"
#include "cmdline.h"
#include "die.h"
#include "opt.h"
#include "proto.h"
#include "relay.h"
#include "serve.h"
#include "snapshot.h"
#include "wire.h"

#define PROG "wakebench-midtier"
#define SLOTS 65536		/* requests in flight to the backend */
/*
 * A client with this many requests in flight is not read until half of
 * them are answered: each backend has one in-order connection, so a
 * client that pipelines without end would otherwise queue up to SLOTS
 * requests there ahead of every other client's (lib/serve's fair turns
 * only share the reading).
 */
#define CLIENT_INFLIGHT_MAX 1024u
#define RX_BUF 65536
#define SEND_TIMEOUT_NS 1000000ull
/* pending flag: 0 = none, else (midtier seq + 1); CLAIMED bit once the
 * helper took it, SENT bit too once its send() returned (sent or failed) */
#define CLAIMED (1ull << 63)
#define SENT (1ull << 62)
#define MS 1000000ull
#define RECONNECT_MIN_NS (10 * MS)	/* first wait after a failed connect */
#define LIVENESS_NS (100 * MS)		/* idle helper checks its connection */
#define MAX_BACKENDS KVKEY_BACKENDS_MAX

struct mt_backends {
	struct cli_hostport hp[MAX_BACKENDS];
	unsigned n;
};

enum route { ROUTE_HASH, ROUTE_ALL };

struct mt_opts {
	const char *bind;
	uint16_t port;
	struct mt_backends backends;
	int route;		/* enum route */
	uint64_t replicas;
	int proto;		/* index in proto_names */
	uint16_t backend_pq_port;
	int have_listen, have_backend;
	int cpu, helper_cpu;
	int helper_spin;	/* idle helper spins (thesis) or blocks */
	int prequery, adaptive;
	double delay_us;
	struct hillclimb_cfg hc;
	uint64_t work_ns;
	uint64_t timeout_ns;
	uint64_t max_conns;
	uint64_t connect_timeout_ns, reconnect_max_ns;
	uint32_t max_payload;
	const char *log_path, *traj_path, *port_file, *summary_path;
	int have_cstates;
	struct cstate_spec cstates;
	int quiet;
	char *cmdline;
};

/*
 * A client connection's state (serve_conn_priv). Each slot pointing at
 * the connection holds a reference to it (serve_conn_hold), so a client
 * that closes with requests in flight stays allocated until they finish,
 * and serve_conn_refs() is the number of its requests in flight.
 */
struct client {
	struct wire_conn w;
};

#define BIT(b) (1ull << (b))

struct slot {
	int used;
	uint64_t targets;	/* backends it goes to */
	uint64_t want;		/* of them, those that owe a reply */
	uint64_t queued;	/* of them, those it waits to connect */
	uint64_t bseq;		/* the midtier sequence this slot holds */
	struct serve_conn *client;
	uint64_t client_seq, client_send_ns, service_ns;
	uint32_t payload_len;
	uint8_t op;
	uint16_t key_size;
	uint64_t key;
	struct proto_msg reply;	/* merged from the backends' replies */
	uint64_t recv_ns, forward_ns;
	_Atomic uint64_t prequery_ns;	/* written by the helper */
	double delay_us;
	uint64_t window;
};

struct mt;

struct backend {
	unsigned idx;
	struct mt *m;
	struct serve_fd fd;
	struct wire_conn w;	/* its replies */
	enum { BK_DOWN, BK_CONNECTING, BK_UP } state;
	uint64_t connect_deadline;
	struct backoff bo;
	int ever_up, outage_told;
	uint64_t reconnects;
};

struct mt {
	struct mt_opts o;
	struct serve *loop;
	const struct wb_proto_ops *wire;
	struct backend bk[MAX_BACKENDS];
	unsigned nbk;
	uint8_t *fwd;		/* a forwarded request, payload included */
	size_t fwd_cap;
	uint8_t *rbuf;		/* replies to a client */
	size_t rbuf_cap;
	struct slot *slots;
	uint64_t next_seq;	/* midtier sequence to the backend */
	uint64_t oldest;	/* lowest seq possibly outstanding */
	struct csv *log, *traj;
	struct hist *rtt;	/* backend round trips of ok replies, ns */
	struct hillclimb hc;
	struct cstate_session *cs;
	uint8_t rx[RX_BUF];
	uint64_t rx_ns;
	/* shared with the helper */
	_Atomic uint64_t pending;
	_Atomic uint32_t wake;		/* futex word: bumped per request */
	_Atomic uint64_t pending_recv_ns;
	_Atomic uint64_t delay_ns;
	_Atomic int stop;
	_Atomic uint64_t pq_sent, pq_failed;
	_Atomic uint64_t helper_up;	/* backends the helper is connected to */
	_Atomic uint64_t pq_reconnects;
	uint64_t pq_skipped;
	/* counters */
	uint64_t requests, forwarded, errors, timeouts, late_replies;
	uint64_t bogus_replies, too_large, backend_reconnects;
	uint64_t rejected;
};

static const char *const helper_wait_names[] = { "block", "spin", NULL };
static const char *const route_names[] = { "hash", "all", NULL };
static const char *const proto_names[] = { "wakebench", "memcached", "redis", NULL };

/* --backend, repeated: appended (dest NULL: only checked) */
static int parse_backend(const char *arg, void *dest)
{
	struct mt_backends *b = dest;
	struct cli_hostport hp;

	if (opt_hostport(arg, "127.0.0.1", hp.host, sizeof(hp.host), &hp.port))
		return -1;
	if (!b)
		return 0;
	if (b->n == MAX_BACKENDS)
		return -1;
	b->hp[b->n++] = hp;
	return 0;
}

#define AT(field) CLI_AT(struct mt_opts, field)

static const struct cli_opt mt_options[] = {
	{ .name = "listen", .short_name = 'l', .kind = CLI_UINT,
	  .store = CLI_U16, .arg = "PORT", .max = 65535, .hint = "a port",
	  .help = "client port (0: any free port)", .off = AT(port),
	  .seen = AT(have_listen) },
	{ .name = "bind", .short_name = 'b', .kind = CLI_STRING, .arg = "ADDR",
	  .help = "address to listen on (default 127.0.0.1)", .off = AT(bind) },
	{ .name = "backend", .short_name = 'B', .kind = CLI_CUSTOM,
	  .arg = "HOST:PORT", .parse = parse_backend,
	  .hint = "HOST:PORT, at most 64 backends",
	  .help = "backend server; repeat for several (their\n"
		  "index, 0, 1, ..., is the order given)",
	  .off = AT(backends), .seen = AT(have_backend) },
	{ .name = "route", .kind = CLI_ENUM, .names = route_names,
	  .help = "hash (default): a request to the backend its\n"
		  "key hashes to (wakebench: its seq), a set to\n"
		  "--replicas from there; all: to every backend,\n"
		  "the reply once all answered",
	  .off = AT(route) },
	{ .name = "replicas", .kind = CLI_UINT, .arg = "R", .min = 1,
	  .max = MAX_BACKENDS, .hint = CLI_RANGE,
	  .help = "backends a set goes to with --route hash\n"
		  "(default 1)",
	  .off = AT(replicas) },
	{ .name = "proto", .kind = CLI_ENUM, .names = proto_names,
	  .help = "what clients and backends speak: wakebench\n"
		  "(default), memcached or redis",
	  .off = AT(proto) },
	{ .name = "backend-prequery-port", .kind = CLI_UINT, .store = CLI_U16,
	  .arg = "P", .min = 1, .max = 65535, .tight = 1,
	  .help = "send pre-queries to this port of each backend\n"
		  "(default: the backend's port, own connection)",
	  .off = AT(backend_pq_port) },
	CLI_OPT_CPU(struct mt_opts, cpu, "pin the main thread to CPU N"),
	{ .name = "helper-cpu", .kind = CLI_CPU, .arg = "M",
	  .help = "pin the pre-query helper to CPU M", .off = AT(helper_cpu) },
	{ .name = "helper-wait", .kind = CLI_ENUM, .names = helper_wait_names,
	  .help = "how the idle helper waits for a request:\n"
		  "block on a futex (default) or spin, as in the\n"
		  "thesis (needs a core of its own)",
	  .off = AT(helper_spin) },
	{ .name = "prequery-delay-us", .kind = CLI_REAL, .store = CLI_DOUBLE,
	  .arg = "D", .max = 1e7,
	  .help = "fixed helper delay (no pre-queries without it\n"
		  "or --prequery-policy adaptive)",
	  .off = AT(delay_us), .seen = AT(prequery) },
	CLI_OPT_PREQUERY_POLICY(struct mt_opts, adaptive,
				"adaptive: hill-climb the delay from 0 on each\n"
				"window's average backend response time"),
	/* the old spelling of --prequery-policy adaptive */
	{ .name = "prequery-adaptive", .kind = CLI_FLAG, .hidden = 1,
	  .off = AT(adaptive) },
	CLI_OPTS_HILLCLIMB(struct mt_opts, hc, "max-delay-us"),
	{ .name = "work-us", .kind = CLI_REAL, .arg = "US", .max = 6e7,
	  .scale = 1e3,
	  .help = "midtier work per request before forwarding\n"
		  "(busy-wait, default 0)",
	  .off = AT(work_ns) },
	{ .name = "backend-timeout-ms", .kind = CLI_UINT, .arg = "MS",
	  .min = 1, .max = 3600000, .scale = 1e6,
	  .help = "error reply after MS without a backend reply\n"
		  "(default 1000)",
	  .off = AT(timeout_ns) },
	{ .name = "connect-timeout-ms", .kind = CLI_UINT, .arg = "MS",
	  .min = 1, .max = 600000, .scale = 1e6, .hint = CLI_RANGE,
	  .help = "give up on a backend connect after MS\n"
		  "(default 1000; never blocks the relay)",
	  .off = AT(connect_timeout_ns) },
	{ .name = "reconnect-max-ms", .kind = CLI_UINT, .arg = "MS",
	  .min = 10, .max = 600000, .scale = 1e6, .hint = CLI_RANGE,
	  .help = "longest wait between reconnect attempts\n"
		  "(default 200; doubles from 10 ms)",
	  .off = AT(reconnect_max_ns) },
	{ .name = "max-payload", .kind = CLI_UINT, .store = CLI_U32,
	  .arg = "BYTES", .max = PROTO_MAX_PAYLOAD, .hint = CLI_RANGE,
	  .help = "largest request payload forwarded; larger\n"
		  "requests get an ERROR reply (default 65536,\n"
		  "the server's default)",
	  .off = AT(max_payload) },
	{ .name = "max-conns", .kind = CLI_UINT, .arg = "N", .min = 1,
	  .max = 1000000,
	  .help = "client connections at once (default 1024)",
	  .off = AT(max_conns) },
	CLI_OPT_LOG(0, struct mt_opts, log_path,
		    "per-request CSV (and FILE.snapshot.json)"),
	{ .name = "trajectory", .kind = CLI_STRING, .arg = "FILE",
	  .help = "adaptive trajectory CSV (default: beside --log)",
	  .off = AT(traj_path) },
	{ .name = "summary", .kind = CLI_STRING, .arg = "FILE",
	  .help = "at exit, one CSV row of counters and the backend\n"
		  "round trip (what a sweep's sweep.csv takes)",
	  .off = AT(summary_path) },
	CLI_OPT_PORT_FILE(struct mt_opts, port_file,
			  "write the bound port once listening"),
	CLI_OPT_CSTATES(struct mt_opts, cstates, have_cstates,
			"idle states on --cpu only for the run, restored\n"
			"at exit; system-* also holds /dev/cpu_dma_latency"),
	CLI_OPT_QUIET(struct mt_opts, quiet, "no start-up line"),
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

static const struct cli_cmd mt_cmd = {
	.prog = PROG,
	.usage = "Usage: wakebench midtier --listen PORT --backend HOST:PORT [options]",
	.about =
"Relays client requests to a backend and the replies back. A helper thread\n"
"sends the backend a PREQUERY when a request has waited --prequery-delay-us\n"
"in the midtier without being forwarded yet.\n",
	.footer =
"Log columns: seq,conn,backend_seq,recv_ns,prequery_ns,forward_ns,\n"
"backend_reply_ns,reply_ns,delay_us,status,backend (prequery_ns empty: no\n"
"pre-query; set: its send() returned before the request's forward began;\n"
"backend: the indices of the backends it went to, joined by '+').\n"
"With memcached or redis, keys must be wakebench's (\"wb\" and digits) and a\n"
"value read through the midtier is the backend's length of 'x' bytes.\n"
"Trajectory columns: window,value_us,step_us,window_avg_ns,best_us,next_us\n"
"(per window: the delay used in it, its average; see wakebench-client(1)).\n"
"--prequery-adaptive is the old spelling of --prequery-policy adaptive.\n",
	.col = 31,
	.opts = mt_options,
};

static void parse_opts(struct mt_opts *o, int argc, char **argv)
{
	*o = (struct mt_opts){ .bind = "127.0.0.1", .cpu = -1, .helper_cpu = -1,
			       .replicas = 1,
			       .timeout_ns = 1000000000ull, .max_conns = 1024,
			       .connect_timeout_ns = 1000 * MS,
			       .reconnect_max_ns = 200 * MS,
			       .max_payload = 65536 };
	hillclimb_defaults(&o->hc);
	cli_parse(&mt_cmd, argc, argv, o);
	if (o->adaptive)
		o->prequery = 1;
	if (!o->have_listen)
		opt_usage(PROG, "--listen PORT is required");
	if (!o->have_backend)
		opt_usage(PROG, "--backend HOST:PORT is required");
	if (o->adaptive && o->delay_us > 0)
		opt_usage(PROG, "give --prequery-delay-us or --prequery-policy adaptive, not both");
	if (o->adaptive && o->hc.min_step_us > o->hc.step_us)
		opt_usage(PROG, "--min-step-us exceeds --step-us");
	if (o->replicas > o->backends.n)
		opt_usage(PROG, "--replicas %llu exceeds the %u backends given",
			  (unsigned long long)o->replicas, o->backends.n);
	if (o->replicas > 1 && o->route != ROUTE_HASH)
		opt_usage(PROG, "--replicas is for --route hash (all: every backend)");
	if (o->backend_pq_port && !o->prequery)
		opt_usage(PROG, "--backend-prequery-port needs --prequery-delay-us or --prequery-policy adaptive");
}

/* ---- the helper thread ------------------------------------------------ */

static void futex_wait(_Atomic uint32_t *word, uint32_t val, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static int stopping(struct mt *m)
{
	return atomic_load_explicit(&m->stop, memory_order_relaxed);
}

/* Sleep up to ns, woken early at exit (the main thread bumps wake). */
static void helper_sleep(struct mt *m, uint64_t ns)
{
	uint32_t w = atomic_load(&m->wake);

	if (!stopping(m))
		futex_wait(&m->wake, w, ns);
}

/* " (#b)" after a backend's address when there are several, else "" */
static const char *bk_tag(const struct mt *m, unsigned b)
{
	static __thread char t[16];

	if (m->nbk < 2)
		return "";
	snprintf(t, sizeof(t), " (#%u)", b);
	return t;
}

static uint16_t pq_port(const struct mt *m, unsigned b)
{
	return m->o.backend_pq_port ? m->o.backend_pq_port :
	       m->o.backends.hp[b].port;
}

static int helper_stop(void *arg)
{
	return stopping(arg);
}

/*
 * Connect the pre-query connection to backend b: non-blocking, given up
 * after --connect-timeout-ms, and within one slice when the midtier stops.
 * Returns the fd or -errno.
 */
static int helper_connect(struct mt *m, unsigned b)
{
	return net_connect_until(NET_TCP, m->o.backends.hp[b].host,
				 pq_port(m, b), m->o.connect_timeout_ns,
				 helper_stop, m);
}

static int drop_reply(const struct proto_msg *r, void *arg)
{
	(void)r;
	(void)arg;
	return 0;
}

/*
 * Still connected? Reads what the backend sent (memcached's MN, Redis'
 * +PONG: checked and dropped, which also frees their place in the
 * connection's FIFO); 0 when it closed, reset or sent garbage.
 */
static int conn_alive(int fd, struct wire_conn *pw)
{
	uint8_t buf[4096];

	for (;;) {
		ssize_t n = net_read(fd, buf, sizeof(buf));

		if (n == -EAGAIN)
			return 1;
		if (n <= 0 || wire_feed(pw, buf, (size_t)n, drop_reply, NULL))
			return 0;
	}
}

/* The helper's connections, one per backend: this thread's alone. */
struct helper_conn {
	int fd;
	struct wire_conn pw;
	struct backoff bo;
	int ever_up;
	uint64_t failed_connects;
};

static void helper_lost(struct mt *m, struct helper_conn *h, unsigned b,
			const char *why)
{
	close(h->fd);
	h->fd = -1;
	wire_conn_free(&h->pw);
	atomic_fetch_and(&m->helper_up, ~BIT(b));
	fprintf(stderr, "%s: pre-query connection to %s:%u%s lost (%s); reconnecting\n",
		PROG, m->o.backends.hp[b].host, pq_port(m, b), bk_tag(m, b), why);
}

/* (Re)connects what is down and due; returns the earliest due time of
 * those still down, or 0 when all are up. */
static uint64_t helper_connect_all(struct mt *m, struct helper_conn *hc)
{
	uint64_t next = 0;

	for (unsigned b = 0; b < m->nbk && !stopping(m); b++) {
		struct helper_conn *h = &hc[b];

		if (h->fd >= 0)
			continue;
		if (!backoff_due(&h->bo, clock_now_ns())) {
			if (!next || h->bo.next_ns < next)
				next = h->bo.next_ns;
			continue;
		}
		h->fd = helper_connect(m, b);
		if (h->fd < 0) {
			if (h->fd != -EINTR && !h->failed_connects++ && !h->ever_up)
				fprintf(stderr, "%s: pre-query connection to %s:%u%s: %s; retrying\n",
					PROG, m->o.backends.hp[b].host, pq_port(m, b),
					bk_tag(m, b), strerror(-h->fd));
			backoff_fail(&h->bo, clock_now_ns());
			if (!next || h->bo.next_ns < next)
				next = h->bo.next_ns;
			continue;
		}
		backoff_reset(&h->bo);
		wire_conn_init(&h->pw, m->wire, PROTO_MAX_PAYLOAD);
		if (h->ever_up) {
			atomic_fetch_add(&m->pq_reconnects, 1);
			fprintf(stderr, "%s: pre-query connection restored%s\n",
				PROG, bk_tag(m, b));
		}
		h->ever_up = 1;
		h->failed_connects = 0;
		atomic_fetch_or(&m->helper_up, BIT(b));
	}
	return next;
}

/* The pre-query of request id to backend b; 0 or -errno. */
static int helper_send(struct mt *m, struct helper_conn *h, uint64_t id)
{
	uint8_t buf[PROTO_HDR_LEN + 64];
	struct proto_msg pq = { .type = PROTO_PREQUERY, .seq = id - 1,
				.client_send_ns = clock_now_ns() };
	ssize_t len = m->wire->encode(&h->pw, &pq, buf, sizeof(buf));

	return len < 0 ? (int)len :
	       net_send_all(h->fd, buf, (size_t)len, SEND_TIMEOUT_NS);
}

/*
 * A connection the backend closed would swallow its pre-query silently:
 * those of the backends in MASK that are closed are lost (helper_up).
 */
static void helper_check_alive(struct mt *m, struct helper_conn *hc, uint64_t mask)
{
	for (unsigned b = 0; b < m->nbk; b++)
		if ((mask & BIT(b)) && hc[b].fd >= 0 &&
		    !conn_alive(hc[b].fd, &hc[b].pw))
			helper_lost(m, &hc[b], b, "closed by the backend");
}

/*
 * Request ID claimed: the main thread now waits for SENT before it
 * forwards the request. One pre-query per target backend.
 */
static void helper_send_all(struct mt *m, struct helper_conn *hc, uint64_t id,
			    uint64_t targets)
{
	_Atomic uint64_t *logged = &m->slots[(id - 1) % SLOTS].prequery_ns;
	int any = 0;

	for (unsigned b = 0; b < m->nbk; b++) {
		int err;

		if (!(targets & BIT(b)))
			continue;
		if (hc[b].fd < 0) {
			atomic_fetch_add(&m->pq_failed, 1);
			continue;
		}
		if (!any++)
			atomic_store(logged, clock_now_ns());
		err = helper_send(m, &hc[b], id);
		if (err) {
			atomic_fetch_add(&m->pq_failed, 1);
			helper_lost(m, &hc[b], b, strerror(-err));
		} else {
			atomic_fetch_add(&m->pq_sent, 1);
		}
	}
	atomic_store_explicit(&m->pending, id | CLAIMED | SENT,
			      memory_order_release);
}

/*
 * The helper owns its connections: it connects them, reconnects after a
 * failure with bounded backoff, and tells the main thread through
 * helper_up which backends can get pre-queries.
 */
static void *helper_main(void *arg)
{
	struct mt *m = arg;
	struct helper_conn hc[MAX_BACKENDS];
	uint64_t last = 0, next_check = 0;

	if (m->o.helper_cpu >= 0)
		cpu_pin_self(m->o.helper_cpu);
	for (unsigned b = 0; b < m->nbk; b++) {
		hc[b] = (struct helper_conn){ .fd = -1 };
		backoff_init(&hc[b].bo, RECONNECT_MIN_NS, m->o.reconnect_max_ns);
	}
	while (!stopping(m)) {
		uint64_t now = clock_now_ns();
		uint64_t up = atomic_load(&m->helper_up);

		if (up != (m->nbk == 64 ? ~0ull : BIT(m->nbk) - 1)) {
			uint64_t next = helper_connect_all(m, hc);

			up = atomic_load(&m->helper_up);
			if (!up) {	/* nothing to send on: wait */
				now = clock_now_ns();
				helper_sleep(m, next > now ? next - now : MS);
				continue;
			}
		}

		uint32_t w = atomic_load_explicit(&m->wake, memory_order_acquire);
		uint64_t id = atomic_load_explicit(&m->pending, memory_order_acquire);
		uint64_t deadline, targets;

		if (!id || (id & CLAIMED) || id == last) {
			/* Idle until the main thread flags the next request;
			 * now and then make sure the backends are still there. */
			if (!m->o.helper_spin)
				futex_wait(&m->wake, w, LIVENESS_NS);
			now = clock_now_ns();
			if (now >= next_check) {
				next_check = now + LIVENESS_NS;
				helper_check_alive(m, hc, ~0ull);
			}
			continue;
		}
		last = id;
		targets = m->slots[(id - 1) % SLOTS].targets;
		/* A connection the backend closed would swallow its
		 * pre-query silently: look first (the main thread counts
		 * the pre-query as failed once its helper_up bit is 0). */
		helper_check_alive(m, hc, targets);
		if (!(targets & atomic_load(&m->helper_up)))
			continue;
		deadline = atomic_load(&m->pending_recv_ns) +
			   atomic_load(&m->delay_ns);
		do {
			now = clock_now_ns();
		} while (now < deadline &&
			 atomic_load_explicit(&m->pending, memory_order_acquire) == id);
		uint64_t expect = id;

		if (!atomic_compare_exchange_strong(&m->pending, &expect,
						    id | CLAIMED))
			continue;	/* forwarded first: counted there */
		helper_send_all(m, hc, id, targets);
	}
	for (unsigned b = 0; b < m->nbk; b++) {
		if (hc[b].fd >= 0) {
			close(hc[b].fd);
			wire_conn_free(&hc[b].pw);
		}
	}
	return NULL;
}

/* ---- main thread ------------------------------------------------------ */

static void client_close(struct mt *m, struct serve_conn *c)
{
	serve_conn_close(m->loop, c);
}

/*
 * A reply to client request seq: type REPLY or ERROR; br, the merged
 * backend reply (times, applied service, a key-value hit's length or
 * miss), or NULL. An ordered protocol holds it until the replies before
 * it are out (lib/kvwire), then sends all that are due.
 */
static void reply_client(struct mt *m, struct serve_conn *c, uint8_t type,
			 uint64_t seq, uint64_t client_send_ns,
			 const struct proto_msg *br)
{
	struct client *cl = serve_conn_priv(c);
	struct proto_msg r = {
		.type = type, .seq = seq, .client_send_ns = client_send_ns,
	};
	ssize_t len;

	if (br) {
		r.server_recv_ns = br->server_recv_ns;
		r.server_send_ns = br->server_send_ns;
		/* what the backend applied (it caps at --max-service-us):
		 * the client records a cap from it */
		r.service_ns = br->service_ns;
		r.flags = br->flags & (PROTO_F_MISS | PROTO_F_ACK);
		r.payload_len = br->payload_len;
	}
	if (c->closed)
		return;
	len = m->wire->encode(&cl->w, &r, m->rbuf, m->rbuf_cap);
	if (len < 0 || (len && net_send_all(c->fd, m->rbuf, (size_t)len,
					    SEND_TIMEOUT_NS))) {
		client_close(m, c);
		return;
	}
	while (m->wire->drain) {
		len = m->wire->drain(&cl->w, m->rbuf, m->rbuf_cap);
		if (len <= 0) {
			if (len < 0)
				client_close(m, c);
			return;
		}
		if (net_send_all(c->fd, m->rbuf, (size_t)len, SEND_TIMEOUT_NS)) {
			client_close(m, c);
			return;
		}
	}
}

/* "0", "1+3": the backends of a mask */
static void backend_list(uint64_t mask, char *out, size_t len)
{
	size_t off = 0;

	out[0] = '\0';
	for (unsigned b = 0; b < MAX_BACKENDS && off + 4 < len; b++)
		if (mask & BIT(b))
			off += (size_t)snprintf(out + off, len - off, "%s%u",
						off ? "+" : "", b);
}

static void log_row(struct mt *m, const struct slot *s, uint64_t bseq,
		    uint64_t backend_reply_ns, uint64_t reply_ns,
		    const char *status)
{
	uint64_t pq = atomic_load(&s->prequery_ns);
	char bl[4 * MAX_BACKENDS];

	if (!m->log)
		return;
	csv_u64(m->log, s->client_seq);
	csv_u64(m->log, s->client->id);
	csv_u64(m->log, bseq);
	csv_u64(m->log, s->recv_ns);
	if (pq)
		csv_u64(m->log, pq);
	else
		csv_empty(m->log);
	if (s->forward_ns)
		csv_u64(m->log, s->forward_ns);
	else
		csv_empty(m->log);
	if (backend_reply_ns)
		csv_u64(m->log, backend_reply_ns);
	else
		csv_empty(m->log);
	csv_u64(m->log, reply_ns);
	if (m->o.prequery)
		csv_double(m->log, s->delay_us, 3);
	else
		csv_empty(m->log);
	csv_str(m->log, status);
	backend_list(s->targets, bl, sizeof(bl));
	csv_str(m->log, bl);
	csv_end_row(m->log);
}

/* Finish slot bseq: reply (or error) to its client, log, free the slot. */
static void finish(struct mt *m, uint64_t bseq, int ok, const char *status)
{
	struct slot *s = &m->slots[bseq % SLOTS];
	uint64_t now;

	if (ok)
		reply_client(m, s->client, PROTO_REPLY, s->client_seq,
			     s->client_send_ns, &s->reply);
	else
		reply_client(m, s->client, PROTO_ERROR, s->client_seq,
			     s->client_send_ns, NULL);
	now = clock_now_ns();
	if (!ok)
		m->errors++;
	log_row(m, s, bseq, ok ? m->rx_ns : 0, now, status);
	s->used = 0;
	s->want = s->queued = 0;
	/* A client that half-closed is closed once it has all its replies. */
	if (s->client->rd_closed && serve_conn_refs(s->client) == 1)
		client_close(m, s->client);
	if (s->client->paused &&
	    serve_conn_refs(s->client) <= CLIENT_INFLIGHT_MAX / 2)
		serve_conn_pause(m->loop, s->client, 0);
	serve_conn_put(m->loop, s->client);
}

/* Every request in flight to backend b (all: any) gets an ERROR reply. */
static void fail_outstanding(struct mt *m, uint64_t mask, const char *status)
{
	for (uint64_t q = m->oldest; q < m->next_seq; q++) {
		struct slot *s = &m->slots[q % SLOTS];

		if (s->used && (s->want & mask))
			finish(m, q, 0, status);
	}
}

static void backend_close(struct backend *b)
{
	serve_fd_del(b->m->loop, &b->fd);
	close(b->fd.fd);
	b->fd.fd = -1;
	wire_conn_free(&b->w);
	b->state = BK_DOWN;
}

static void backend_down(struct backend *b, const char *why)
{
	struct mt *m = b->m;
	uint64_t inflight = 0;

	if (b->state != BK_UP)
		return;
	for (uint64_t q = m->oldest; q < m->next_seq; q++)
		inflight += m->slots[q % SLOTS].used &&
			    (m->slots[q % SLOTS].want & BIT(b->idx));
	fprintf(stderr, "%s: backend %s:%u%s %s; %llu requests in flight get error replies; reconnecting\n",
		PROG, m->o.backends.hp[b->idx].host, m->o.backends.hp[b->idx].port,
		bk_tag(m, b->idx), why, (unsigned long long)inflight);
	backend_close(b);
	b->outage_told = 1;
	fail_outstanding(m, BIT(b->idx), "backend_down");
}

/* A connection attempt failed: its queued requests get ERROR replies. A
 * refused connect costs nothing, so the next request may try again at
 * once (that is how a restarted backend is found on its first request);
 * a slow failure (timeout) waits the backoff first. */
static void backend_connect_failed(struct backend *b, int err)
{
	struct mt *m = b->m;

	if (b->state == BK_CONNECTING)
		backend_close(b);
	if (err != -ECONNREFUSED)
		backoff_fail(&b->bo, clock_now_ns());
	if (!b->outage_told) {
		fprintf(stderr, b->ever_up ?
			"%s: backend %s:%u%s: cannot reconnect (%s); its requests get error replies until it is back\n" :
			"%s: backend %s:%u%s not reachable yet (%s); its requests get error replies until it is\n",
			PROG, m->o.backends.hp[b->idx].host,
			m->o.backends.hp[b->idx].port, bk_tag(m, b->idx),
			strerror(-err));
		b->outage_told = 1;
	}
	fail_outstanding(m, BIT(b->idx), "backend_down");
}

/* Sends slot s's request to backend b; 0 or -errno (b is then down). */
static int forward_one(struct mt *m, struct slot *s, struct backend *b)
{
	struct proto_msg f = { .type = PROTO_REQUEST, .seq = s->bseq,
			       .service_ns = s->service_ns,
			       .payload_len = s->payload_len, .op = s->op,
			       .key = s->key, .key_size = s->key_size };
	ssize_t len;
	int err;

	f.client_send_ns = s->forward_ns = clock_now_ns();
	len = m->wire->encode(&b->w, &f, m->fwd, m->fwd_cap);
	err = len < 0 ? (int)len :
	      net_send_all(b->fd.fd, m->fwd, (size_t)len, SEND_TIMEOUT_NS);
	if (err) {
		backend_down(b, strerror(-err));
		return err;
	}
	s->queued &= ~BIT(b->idx);
	return 0;
}

static void backend_connected(struct backend *b)
{
	struct mt *m = b->m;
	int err = serve_fd_mod(m->loop, &b->fd, EPOLLIN);

	if (err) {
		backend_connect_failed(b, err);
		return;
	}
	b->state = BK_UP;
	backoff_reset(&b->bo);
	if (b->ever_up) {
		b->reconnects++;
		m->backend_reconnects++;
		fprintf(stderr, "%s: backend %s:%u%s reconnected\n", PROG,
			m->o.backends.hp[b->idx].host,
			m->o.backends.hp[b->idx].port, bk_tag(m, b->idx));
	}
	b->ever_up = 1;
	b->outage_told = 0;
	/* The requests that waited for the connection, in order. */
	for (uint64_t q = m->oldest; q < m->next_seq; q++) {
		struct slot *s = &m->slots[q % SLOTS];

		if (s->used && (s->queued & BIT(b->idx))) {
			if (forward_one(m, s, b))
				return;
			if (!s->queued)
				m->forwarded++;
		}
	}
}

/* Starts a non-blocking connect; never waits. */
static void backend_connect(struct backend *b)
{
	struct mt *m = b->m;
	int done, fd;

	if (b->state != BK_DOWN)
		return;
	fd = net_connect_start(m->o.backends.hp[b->idx].host,
			       m->o.backends.hp[b->idx].port, &done);
	if (fd < 0) {
		backend_connect_failed(b, fd);
		return;
	}
	b->fd.fd = fd;
	wire_conn_init(&b->w, m->wire, PROTO_MAX_PAYLOAD);
	if (serve_fd_add(m->loop, &b->fd, EPOLLIN | EPOLLOUT)) {
		close(fd);
		b->fd.fd = -1;
		wire_conn_free(&b->w);
		backend_connect_failed(b, -EIO);
		return;
	}
	b->state = BK_CONNECTING;
	b->connect_deadline = clock_now_ns() + m->o.connect_timeout_ns;
	if (done)
		backend_connected(b);
}

/* The backend's fd is writable or in error while connecting. */
static void backend_connect_progress(struct backend *b)
{
	int ret = net_connect_finish(b->fd.fd);

	if (!ret)
		backend_connected(b);
	else if (ret != -EINPROGRESS)
		backend_connect_failed(b, ret);
}

/* Merges backend reply r into the slot's: a get is a hit when any hit. */
static void merge_reply(struct slot *s, const struct proto_msg *r, int first)
{
	if (first) {
		s->reply = *r;
		return;
	}
	if ((s->reply.flags & PROTO_F_MISS) && !(r->flags & PROTO_F_MISS)) {
		s->reply.flags &= ~PROTO_F_MISS;
		s->reply.payload_len = r->payload_len;
	}
	/* the last to answer sets the times: it decided the latency */
	s->reply.server_recv_ns = r->server_recv_ns;
	s->reply.server_send_ns = r->server_send_ns;
	s->reply.service_ns = r->service_ns;
}

static int on_backend_msg(const struct proto_msg *r, void *arg)
{
	struct backend *b = arg;
	struct mt *m = b->m;
	struct slot *s = &m->slots[r->seq % SLOTS];
	uint64_t bit = BIT(b->idx);

	switch (relay_reply_match(r->seq, s->used && (s->want & bit) &&
				  !(s->queued & bit), s->bseq, m->next_seq)) {
	case RELAY_LATE:
		/* Answered already by a timeout or backend error; its slot
		 * may hold a later request now, which this must not finish. */
		m->late_replies++;
		return 0;
	case RELAY_BOGUS:
		m->bogus_replies++;
		return 0;
	case RELAY_MATCH:
		break;
	}
	if (r->type != PROTO_REPLY || (r->flags & PROTO_F_ACK)) {
		/* A backend that is itself a relay: pass its ERROR on. */
		if (r->type == PROTO_ERROR) {
			finish(m, r->seq, 0, "backend_error");
			return 0;
		}
		m->bogus_replies++;
		return 0;
	}
	if (m->rtt)
		hist_add(m->rtt, m->rx_ns - s->forward_ns);
	merge_reply(s, r, s->want == s->targets);
	s->want &= ~bit;
	if (s->want)
		return 0;	/* --route all: the others still owe theirs */
	if (m->o.adaptive && s->window == m->hc.windows &&
	    hillclimb_add(&m->hc, m->rx_ns - s->forward_ns)) {
		atomic_store(&m->delay_ns,
			     (uint64_t)llround(hillclimb_value_us(&m->hc) * 1e3));
		if (m->traj)
			hillclimb_row_write(m->traj, &m->hc.row);
	}
	finish(m, r->seq, 1, "ok");
	return 0;
}

static void backend_read(struct backend *b)
{
	struct mt *m = b->m;

	for (;;) {
		ssize_t n = net_read(b->fd.fd, m->rx, sizeof(m->rx));
		int ret;

		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			backend_down(b, n ? strerror((int)-n) : "closed the connection");
			return;
		}
		m->rx_ns = clock_now_ns();
		ret = wire_feed(&b->w, m->rx, (size_t)n, on_backend_msg, b);
		if (ret < 0) {
			char why[300];

			snprintf(why, sizeof(why), "sent a malformed reply (%s)",
				 wire_conn_error(&b->w) ? wire_conn_error(&b->w) :
				 m->wire->strerror(ret));
			backend_down(b, why);
			return;
		}
	}
}

/* A backend's fd: connecting (writable or in error), or replies. */
static void backend_event(struct serve_fd *w, uint32_t events, void *arg)
{
	struct backend *b = (struct backend *)((char *)w - offsetof(struct backend, fd));

	(void)events;
	(void)arg;
	if (b->state == BK_CONNECTING)
		backend_connect_progress(b);
	else if (b->state == BK_UP)
		backend_read(b);
}

struct client_ctx {
	struct mt *m;
	struct serve_conn *c;
};

/* Answer a request that gets no slot with an ERROR reply, and log it. */
static int refuse_request(struct mt *m, struct serve_conn *c, const struct proto_msg *q,
			  uint64_t targets, const char *status)
{
	struct slot tmp = { .client = c, .client_seq = q->seq,
			    .client_send_ns = q->client_send_ns,
			    .recv_ns = m->rx_ns, .targets = targets };

	reply_client(m, c, PROTO_ERROR, q->seq, q->client_send_ns, NULL);
	m->errors++;
	log_row(m, &tmp, 0, 0, clock_now_ns(), status);
	return c->closed;
}

/* The midtier's own work: busy-wait until `until`, but look for a
 * pending SIGINT/SIGTERM/SIGHUP every millisecond and stop early. */
static void do_work(struct mt *m, uint64_t until)
{
	uint64_t now, next = 0;

	while ((now = clock_now_ns()) < until) {
		if (now >= next) {
			if (serve_signal_pending(m->loop)) {
				serve_stop(m->loop);
				return;
			}
			next = now + MS;
		}
	}
}

/*
 * Hand the request's pre-query over: take the flag back (no pre-query:
 * skipped, or failed when the helper has no connection to its backends),
 * or, when the helper claimed it, wait until its sends have returned, so
 * a pre-query never leaves after its request.
 */
static void prequery_resolve(struct mt *m, uint64_t id, uint64_t targets)
{
	uint64_t expect = id;

	if (atomic_compare_exchange_strong(&m->pending, &expect, 0)) {
		if ((atomic_load(&m->helper_up) & targets) == targets)
			m->pq_skipped++;	/* forwarded before the delay ran out */
		else
			atomic_fetch_add(&m->pq_failed, 1);
		return;
	}
	/* The helper's sends are bounded (SEND_TIMEOUT_NS each); yield so
	 * that a helper sharing this CPU can finish them. */
	for (unsigned spins = 0;
	     atomic_load_explicit(&m->pending, memory_order_acquire) == (id | CLAIMED);
	     spins++)
		if (spins > 64)
			sched_yield();
}

/*
 * The backends request q goes to (lib/kvkey): hash, one backend for the
 * key (wakebench: for the client's seq), a set's replicas after it; all,
 * every backend.
 */
static uint64_t route(const struct mt *m, const struct proto_msg *q)
{
	unsigned out[MAX_BACKENDS], n;
	uint64_t mask = 0, h;

	if (m->o.route == ROUTE_ALL)
		return m->nbk == 64 ? ~0ull : BIT(m->nbk) - 1;
	h = m->wire->keyed ? kvkey_hash(q->key, q->key_size) :
	    kvkey_hash(q->seq, KVKEY_MAX);
	n = kvkey_route(h, m->nbk, q->op == PROTO_OP_SET ?
			(unsigned)m->o.replicas : 1, out);
	for (unsigned i = 0; i < n; i++)
		mask |= BIT(out[i]);
	return mask;
}

/* One client request: flag it for the helper, work, forward. */
static int handle_request(const struct proto_msg *q, void *arg)
{
	struct client_ctx *ctx = arg;
	struct mt *m = ctx->m;
	struct serve_conn *c = ctx->c;
	uint64_t bseq = m->next_seq, targets;
	struct slot *s = &m->slots[bseq % SLOTS];
	int queued = 0;

	if (q->type == PROTO_PREQUERY) {
		/* A client pre-query: the midtier is awake now. One that
		 * asks (memcached's mn, Redis' PING always do) is answered. */
		if (q->flags & PROTO_F_ACK) {
			struct proto_msg ack = { .flags = PROTO_F_ACK };

			reply_client(m, c, PROTO_REPLY, q->seq, q->client_send_ns, &ack);
		}
		return c->closed;
	}
	if (q->type != PROTO_REQUEST) {
		m->rejected++;
		return 1;
	}
	m->requests++;
	targets = route(m, q);
	if (q->payload_len > m->o.max_payload) {
		/* The backend would reset the shared connection and fail
		 * every other client's requests with it. */
		m->too_large++;
		return refuse_request(m, c, q, targets, "too_large");
	}
	if (s->used)
		return refuse_request(m, c, q, targets, "overloaded");
	for (unsigned b = 0; b < m->nbk; b++) {
		struct backend *bk = &m->bk[b];

		if (!(targets & BIT(b)))
			continue;
		if (bk->state == BK_DOWN && backoff_due(&bk->bo, clock_now_ns()))
			backend_connect(bk);
		if (bk->state == BK_DOWN)
			return refuse_request(m, c, q, targets, "backend_down");
	}
	/* Up, or connecting: then the request waits in its slot. */
	m->next_seq++;
	*s = (struct slot){ .used = 1, .targets = targets, .want = targets,
			    .queued = targets, .bseq = bseq, .client = c,
			    .client_seq = q->seq,
			    .client_send_ns = q->client_send_ns,
			    .service_ns = q->service_ns,
			    .payload_len = q->payload_len, .op = q->op,
			    .key = q->key, .key_size = q->key_size,
			    .recv_ns = m->rx_ns, .window = m->hc.windows };
	atomic_store(&s->prequery_ns, 0);
	s->delay_us = atomic_load(&m->delay_ns) / 1e3;
	serve_conn_hold(c);
	if (serve_conn_refs(c) >= CLIENT_INFLIGHT_MAX)
		serve_conn_pause(m->loop, c, 1);
	if (m->o.prequery) {
		atomic_store(&m->pending_recv_ns, m->rx_ns);
		atomic_store_explicit(&m->pending, bseq + 1, memory_order_release);
		if (!m->o.helper_spin) {
			atomic_fetch_add_explicit(&m->wake, 1, memory_order_release);
			futex_wake(&m->wake);
		}
	}
	if (m->o.work_ns)
		do_work(m, m->rx_ns + m->o.work_ns);
	if (m->o.prequery)
		prequery_resolve(m, bseq + 1, targets);
	for (unsigned b = 0; b < m->nbk && s->used && s->bseq == bseq; b++) {
		if (!(targets & BIT(b)))
			continue;
		if (m->bk[b].state == BK_UP)
			forward_one(m, s, &m->bk[b]);
		else
			queued = 1;
	}
	if (s->used && s->bseq == bseq && !queued && !s->queued)
		m->forwarded++;
	/* c stays allocated until the loop's turn ends, even if closed. */
	return c->closed;
}

/* ---- the serving loop's callbacks (serve.h) --------------------------- */

static void on_conn_open(struct serve_conn *c, void *arg)
{
	struct mt *m = arg;
	struct client *cl = serve_conn_priv(c);

	/* Any size the protocol allows: too large ones get an ERROR reply. */
	wire_conn_init_server(&cl->w, m->wire, PROTO_MAX_PAYLOAD);
}

static void on_conn_free(struct serve_conn *c, void *arg)
{
	(void)arg;
	wire_conn_free(&((struct client *)serve_conn_priv(c))->w);
}

static ssize_t on_data(struct serve_conn *c, const uint8_t *buf, size_t len,
		       uint64_t rx_ns, void *arg)
{
	struct mt *m = arg;
	struct client *cl = serve_conn_priv(c);
	struct client_ctx ctx = { m, c };
	int ret;

	m->rx_ns = rx_ns;
	ret = wire_feed(&cl->w, buf, len, handle_request, &ctx);
	if (ret < 0)
		m->rejected++;
	return ret ? -1 : (ssize_t)len;
}

/*
 * A client that shut its write side sends no more requests, but the
 * replies to those in flight still go: keep it open until they have.
 */
static int on_eof(struct serve_conn *c, int err, void *arg)
{
	struct mt *m = arg;
	struct client *cl = serve_conn_priv(c);

	if (err || wire_partial(&cl->w)) {
		m->rejected++;
		return 0;
	}
	return serve_conn_refs(c) > 0;
}

static void check_timeouts(struct mt *m)
{
	uint64_t now = clock_now_ns();
	int drained = 0;

	while (m->oldest < m->next_seq) {
		struct slot *s = &m->slots[m->oldest % SLOTS];

		if (s->used) {
			if (s->queued ||
			    now - s->forward_ns < m->o.timeout_ns)
				return;	/* queued: the connect timeout rules */
			if (!drained) {
				/* After a stall of this process its reply may
				 * be waiting unread: read before calling it
				 * lost (the reads may finish this slot). */
				for (unsigned b = 0; b < m->nbk; b++)
					if (m->bk[b].state == BK_UP)
						backend_read(&m->bk[b]);
				drained = 1;
				continue;
			}
			m->timeouts++;
			finish(m, m->oldest, 0, "timeout");
		}
		m->oldest++;
	}
}

/* Before each wait: time out what is due; poll while anything is. */
static int on_tick(void *arg)
{
	struct mt *m = arg;
	int connecting = 0;

	for (unsigned b = 0; b < m->nbk; b++) {
		struct backend *bk = &m->bk[b];

		/* Past the deadline, ask the socket before giving up: after
		 * a stall of this process the connect may have completed
		 * with its event not yet read. */
		if (bk->state == BK_CONNECTING &&
		    clock_now_ns() >= bk->connect_deadline) {
			backend_connect_progress(bk);
			if (bk->state == BK_CONNECTING)
				backend_connect_failed(bk, -ETIMEDOUT);
		}
		connecting |= bk->state == BK_CONNECTING;
	}
	check_timeouts(m);
	return m->oldest < m->next_seq || connecting ? 10 : 1000;
}

static const struct serve_ops mt_loop_ops = {
	.conn_open = on_conn_open,
	.conn_free = on_conn_free,
	.on_data = on_data,
	.on_eof = on_eof,
	.tick = on_tick,
};

/* The wire, the backends' state and the buffers; -ENOMEM (MSG says so). */
static int setup_buffers(struct mt *m, char *msg, size_t msglen)
{
	struct mt_opts *o = &m->o;
	struct proto_msg biggest = { .type = PROTO_REQUEST, .op = PROTO_OP_SET,
				     .key_size = KVKEY_MAX,
				     .payload_len = o->max_payload };

	m->wire = o->proto == 1 ? &wire_memcached : o->proto == 2 ? &wire_redis :
		  &wire_wakebench;
	m->nbk = o->backends.n;
	for (unsigned b = 0; b < m->nbk; b++) {
		m->bk[b] = (struct backend){ .idx = b, .m = m };
		m->bk[b].fd.fd = -1;
		m->bk[b].fd.fn = backend_event;
		backoff_init(&m->bk[b].bo, RECONNECT_MIN_NS, o->reconnect_max_ns);
	}
	m->slots = calloc(SLOTS, sizeof(*m->slots));
	/* the largest request handle_request lets through */
	m->fwd_cap = m->wire->msg_len(&biggest);
	m->fwd = malloc(m->fwd_cap);
	/* the largest reply: a backend's value of up to PROTO_MAX_PAYLOAD */
	m->rbuf_cap = m->wire->reply_max(PROTO_MAX_PAYLOAD);
	m->rbuf = malloc(m->rbuf_cap);
	m->rtt = o->summary_path ? hist_new(1) : NULL;
	if (!m->slots || !m->fwd || !m->rbuf || (o->summary_path && !m->rtt)) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* The event loop, the C-states and the listening socket (its port in BOUND). */
static int setup_listen(struct mt *m, uint16_t *bound, char *msg, size_t msglen)
{
	struct mt_opts *o = &m->o;
	struct serve_cfg cfg = {
		.ops = &mt_loop_ops, .arg = m, .max_conns = o->max_conns,
		.conn_priv = sizeof(struct client),
	};
	char note[256], why[256];
	int ret;

	ret = serve_open(&cfg, &m->loop, note, sizeof(note), msg, msglen);
	if (ret)
		return ret;
	if (note[0])
		fprintf(stderr, "%s: warning: %s\n", PROG, note);
	/*
	 * C-states before listening, as in the server: a client that can
	 * connect is served under the configured idle states (a later setup
	 * failure exits, and the atexit hook restores them).
	 */
	if (o->have_cstates) {
		m->cs = cstate_run_begin(&o->cstates, o->cpu, o->cmdline, msg,
					 msglen);
		if (!m->cs)
			return -EINVAL;
		if (cstate_warning(m->cs)[0])
			fprintf(stderr, "%s: warning: --cstates: %s\n", PROG,
				cstate_warning(m->cs));
	}
	ret = serve_listen(m->loop, NET_TCP, o->bind, o->port, 0, bound,
			   why, sizeof(why));
	if (ret)
		snprintf(msg, msglen, "cannot listen on %s port %u: %s",
			 o->bind, o->port, why);
	return ret;
}

/* --log (with its snapshot) and the adaptive trajectory beside it. */
static int open_logs(struct mt *m, char *msg, size_t msglen)
{
	struct mt_opts *o = &m->o;
	int ret;

	if (o->log_path) {
		size_t n = strlen(o->log_path);

		m->log = csv_open(o->log_path);
		if (!m->log) {
			ret = -errno;
			snprintf(msg, msglen, "cannot write %s: %s",
				 o->log_path, strerror(-ret));
			return ret;
		}
		csv_header(m->log, "seq,conn,backend_seq,recv_ns,prequery_ns,"
			   "forward_ns,backend_reply_ns,reply_ns,delay_us,status,"
			   "backend");
		if (n > 4 && !strcmp(o->log_path + n - 4, ".csv"))
			n -= 4;
		if (o->adaptive && !o->traj_path) {
			static char traj[4096];

			snprintf(traj, sizeof(traj), "%.*s.trajectory.csv",
				 (int)n, o->log_path);
			o->traj_path = traj;
		}
		ret = snapshot_write_beside(o->log_path, "midtier", o->cmdline,
					    msg, msglen);
		if (ret)
			return ret;
	}
	if (o->adaptive && o->traj_path) {
		m->traj = csv_open(o->traj_path);
		if (!m->traj) {
			ret = -errno;
			snprintf(msg, msglen, "cannot write %s: %s",
				 o->traj_path, strerror(-ret));
			return ret;
		}
		csv_header(m->traj, HILLCLIMB_CSV_HEADER);
	}
	return 0;
}

/* The line saying what listens where and forwards to whom. */
static void announce(const struct mt *m, uint16_t bound)
{
	const struct mt_opts *o = &m->o;
	char list[64 * 300] = "";
	size_t off = 0;

	for (unsigned b = 0; b < m->nbk; b++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s:%u",
					b ? "," : "", o->backends.hp[b].host,
					o->backends.hp[b].port);
	fprintf(stderr, "%s: %s %s:%u -> %s%s cpu=%d helper-cpu=%d prequery=%s\n",
		PROG, m->wire->name, o->bind, bound, list,
		m->nbk > 1 ? (o->route == ROUTE_ALL ? " route=all" : " route=hash") : "",
		o->cpu, o->helper_cpu, !o->prequery ? "off" :
		o->adaptive ? "adaptive" : "fixed");
}

static int setup(struct mt *m, char *msg, size_t msglen)
{
	struct mt_opts *o = &m->o;
	uint16_t bound = 0;
	int ret;

	ret = setup_buffers(m, msg, msglen);
	if (ret)
		return ret;
	ret = setup_listen(m, &bound, msg, msglen);
	if (ret)
		return ret;
	if (o->adaptive) {
		o->hc.initial_us = 0;
		if (hillclimb_init(&m->hc, &o->hc)) {
			snprintf(msg, msglen, "invalid adaptive settings");
			return -EINVAL;
		}
	}
	atomic_store(&m->delay_ns, (uint64_t)llround(o->delay_us * 1e3));
	ret = open_logs(m, msg, msglen);
	if (ret)
		return ret;
	ret = cpu_pin_opt(o->cpu, msg, msglen);
	if (ret)
		return ret;
	/* Started here, finished by the event loop (it says when a
	 * backend cannot be reached). */
	for (unsigned b = 0; b < m->nbk; b++)
		backend_connect(&m->bk[b]);
	if (o->port_file) {
		ret = serve_write_port_file(m->loop, o->port_file, msg, msglen);
		if (ret)
			return ret;
	}
	if (!o->quiet)
		announce(m, bound);
	return 0;
}

/*
 * --summary: the run's counters and backend round trips in one CSV row.
 * prequeries_raced counts requests the main thread forwarded before the
 * helper's delay ran out (the request won the race: no pre-query).
 */
static int write_summary(struct mt *m, const char *path)
{
	struct csv *c = csv_open(path);
	double q[] = { 0.5, 0.99 };

	if (!c)
		return -errno;
	csv_header(c, "requests,forwarded,prequeries_sent,prequeries_raced,"
		   "prequery_failures,errors,timeouts,backend_replies,"
		   "backend_rtt_avg_us,backend_rtt_p50_us,backend_rtt_p99_us,"
		   "prequery,delay_us,work_us,helper_wait,proto,route,backends,"
		   "replicas");
	csv_u64(c, m->requests);
	csv_u64(c, m->forwarded);
	csv_u64(c, atomic_load(&m->pq_sent));
	csv_u64(c, m->pq_skipped);
	csv_u64(c, atomic_load(&m->pq_failed));
	csv_u64(c, m->errors);
	csv_u64(c, m->timeouts);
	csv_u64(c, hist_count(m->rtt));
	if (hist_count(m->rtt)) {
		csv_double(c, hist_mean(m->rtt) / 1e3, 3);
		for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
			csv_double(c, hist_percentile_exact(m->rtt, q[i]) / 1e3, 3);
	} else {
		/* no reply: no round trip, not a zero one */
		csv_empty(c);
		csv_empty(c);
		csv_empty(c);
	}
	csv_str(c, !m->o.prequery && !m->o.adaptive ? "off" :
		m->o.adaptive ? "adaptive" : "fixed");
	if (m->o.prequery || m->o.adaptive)
		csv_double(c, atomic_load(&m->delay_ns) / 1e3, 3);
	else
		csv_empty(c);
	csv_double(c, m->o.work_ns / 1e3, 3);
	csv_str(c, m->o.helper_spin ? "spin" : "block");
	csv_str(c, m->wire->name);
	csv_str(c, route_names[m->o.route]);
	csv_u64(c, m->nbk);
	csv_u64(c, m->o.replicas);
	csv_end_row(c);
	return csv_close(c);
}

int main(int argc, char **argv)
{
	struct mt *m = calloc(1, sizeof(*m));
	struct serve_stats ls = { 0 };
	pthread_t helper;
	char msg[4400];
	int rc = 0, ret;

	if (!m)
		opt_die(PROG, "out of memory");
	parse_opts(&m->o, argc, argv);
	m->o.cmdline = opt_cmdline(argc, argv);
	if (!m->o.cmdline)
		opt_die(PROG, "out of memory");
	if (setup(m, msg, sizeof(msg)))
		opt_die(PROG, "%s", msg);
	if (m->o.prequery && pthread_create(&helper, NULL, helper_main, m))
		opt_die(PROG, "cannot start the helper thread");
	ret = serve_run(m->loop);
	if (ret) {
		fprintf(stderr, "%s: epoll_wait: %s\n", PROG, strerror(-ret));
		rc = 1;
	}
	atomic_store(&m->stop, 1);
	/* Ends a helper busy-waiting the delay for a request. */
	atomic_store(&m->pending, 0);
	if (m->o.prequery) {
		atomic_fetch_add(&m->wake, 1);
		futex_wake(&m->wake);
		pthread_join(helper, NULL);
	}
	serve_stats(m->loop, &ls);
	serve_close(m->loop);
	for (unsigned b = 0; b < m->nbk; b++) {
		if (m->bk[b].state != BK_DOWN)
			close(m->bk[b].fd.fd);
		wire_conn_free(&m->bk[b].w);
	}
	ret = csv_close(m->log);
	if (!ret)
		ret = csv_close(m->traj);
	if (ret) {
		fprintf(stderr, "%s: writing logs: %s\n", PROG, strerror(-ret));
		rc = 1;
	}
	ret = cstate_end(m->cs);
	if (ret < 0) {
		fprintf(stderr, "%s: restoring idle states: %s (run 'wakebench cstate restore')\n",
			PROG, strerror(-ret));
		rc = 1;
	}
	if (m->o.summary_path) {
		ret = write_summary(m, m->o.summary_path);
		if (ret) {
			fprintf(stderr, "%s: writing %s: %s\n", PROG,
				m->o.summary_path, strerror(-ret));
			rc = 1;
		}
	}
	hist_free(m->rtt);
	fprintf(stderr,
		"%s: requests=%llu forwarded=%llu prequeries=%llu prequeries_skipped=%llu prequery_failures=%llu errors=%llu timeouts=%llu late_replies=%llu connections=%llu rejected=%llu refused=%llu bogus_replies=%llu too_large=%llu backend_reconnects=%llu prequery_reconnects=%llu\n",
		PROG, (unsigned long long)m->requests,
		(unsigned long long)m->forwarded,
		(unsigned long long)atomic_load(&m->pq_sent),
		(unsigned long long)m->pq_skipped,
		(unsigned long long)atomic_load(&m->pq_failed),
		(unsigned long long)m->errors, (unsigned long long)m->timeouts,
		(unsigned long long)m->late_replies,
		(unsigned long long)ls.connections,
		(unsigned long long)m->rejected, (unsigned long long)ls.refused,
		(unsigned long long)m->bogus_replies,
		(unsigned long long)m->too_large,
		(unsigned long long)m->backend_reconnects,
		(unsigned long long)atomic_load(&m->pq_reconnects));
	free(m->fwd);
	free(m->rbuf);
	free(m->slots);
	free(m->o.cmdline);
	free(m);
	return rc;
}
