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
 * The delay is fixed (--prequery-delay-us) or hill-climbed on each
 * window's average backend response time (--prequery-adaptive). Backend
 * down or slow: the client gets an ERROR reply, the midtier goes on.
 */
#include <errno.h>
#include <getopt.h>
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
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "cpu.h"
#include "csv.h"
#include "cstate.h"
#include "framer.h"
#include "hillclimb.h"
#include "net.h"
#include "opt.h"
#include "proto.h"
#include "snapshot.h"

#define PROG "wakebench-midtier"
#define SLOTS 65536		/* requests in flight to the backend */
#define RX_BUF 65536
#define SEND_TIMEOUT_NS 1000000ull
/* pending flag: 0 = none, else (midtier seq + 1); CLAIMED bit once taken */
#define CLAIMED (1ull << 63)

struct mt_opts {
	const char *bind;
	uint16_t port;
	char backend_host[256];
	uint16_t backend_port, backend_pq_port;
	int cpu, helper_cpu;
	int helper_spin;	/* idle helper spins (thesis) or blocks */
	int prequery, adaptive;
	double delay_us;
	struct hillclimb_cfg hc;
	uint64_t work_ns;
	uint64_t timeout_ns;
	uint64_t max_conns;
	const char *log_path, *traj_path, *port_file;
	int have_cstates;
	struct cstate_spec cstates;
	int quiet;
	char *cmdline;
};

enum ep_kind { EP_SIGNAL, EP_LISTEN, EP_CLIENT, EP_BACKEND };

struct ep {
	enum ep_kind kind;
	int fd;
	uint64_t id;
	int closed;
	uint64_t outstanding;	/* slots pointing at this client */
	struct framer fr;
	struct ep *prev, *next;	/* clients not yet freed, for shutdown */
};

struct slot {
	int used;
	struct ep *client;
	uint64_t client_seq, client_send_ns;
	uint64_t recv_ns, forward_ns;
	_Atomic uint64_t prequery_ns;	/* written by the helper */
	double delay_us;
	uint64_t window;
};

struct mt {
	struct mt_opts o;
	int epfd;
	struct ep sig, listen, backend;
	struct ep *clients;
	int backend_up;
	struct slot *slots;
	uint64_t next_seq;	/* midtier sequence to the backend */
	uint64_t oldest;	/* lowest seq possibly outstanding */
	struct csv *log, *traj;
	struct hillclimb hc;
	uint64_t nconns, next_conn_id;
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
	uint64_t pq_skipped;
	int helper_fd;
	/* counters */
	uint64_t requests, forwarded, errors, timeouts, late_replies;
	uint64_t connections, rejected, refused;
};

static void usage(void)
{
	printf(
"Usage: wakebench midtier --listen PORT --backend HOST:PORT [options]\n"
"\n"
"Relays client requests to a backend and the replies back. A helper thread\n"
"sends the backend a PREQUERY when a request has waited --prequery-delay-us\n"
"in the midtier without being forwarded yet.\n"
"\n"
"  -l, --listen PORT            client port (0: any free port)\n"
"  -b, --bind ADDR              address to listen on (default 127.0.0.1)\n"
"  -B, --backend HOST:PORT      backend server\n"
"      --backend-prequery-port P send pre-queries to this backend port\n"
"                               (default: the backend port, own connection)\n"
"  -c, --cpu N                  pin the main thread to CPU N\n"
"      --helper-cpu M           pin the pre-query helper to CPU M\n"
"      --helper-wait block|spin how the idle helper waits for a request:\n"
"                               block on a futex (default) or spin, as in the\n"
"                               thesis (needs a core of its own)\n"
"      --prequery-delay-us D    fixed helper delay (no pre-queries without it\n"
"                               or --prequery-adaptive)\n"
"      --prequery-adaptive      hill-climb the delay on each window's average\n"
"                               backend response time\n"
"      --window N               adaptive window in replies (default 1000)\n"
"      --step-us US             adaptive initial step (default 100)\n"
"      --min-step-us US         adaptive step floor (default 3)\n"
"      --max-delay-us US        adaptive upper bound (default 1000000)\n"
"      --work-us US             midtier work per request before forwarding\n"
"                               (busy-wait, default 0)\n"
"      --backend-timeout-ms MS  error reply after MS without a backend reply\n"
"                               (default 1000)\n"
"      --max-conns N            client connections at once (default 1024)\n"
"      --log FILE               per-request CSV (and FILE.snapshot.json)\n"
"      --trajectory FILE        adaptive trajectory CSV (default: beside --log)\n"
"      --port-file FILE         write the bound port once listening\n"
"      --cstates on|off|max-latency-us=N  for the run, restored at exit\n"
"  -q, --quiet                  no start-up line\n"
"  -h, --help                   this help\n"
"\n"
"Log columns: seq,conn,backend_seq,recv_ns,prequery_ns,forward_ns,\n"
"backend_reply_ns,reply_ns,delay_us,status (prequery_ns empty: no pre-query).\n"
"Trajectory columns: window,value_us,step_us,window_avg_ns,best_us.\n");
}

static void parse_opts(struct mt_opts *o, int argc, char **argv)
{
	enum { O_BPQ = 256, O_HELPER, O_DELAY, O_ADAPT, O_WINDOW, O_STEP,
	       O_MINSTEP, O_MAXDELAY, O_WORK, O_TIMEOUT, O_MAXCONN, O_LOG,
	       O_TRAJ, O_PORTFILE, O_CSTATES, O_HWAIT };
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "bind", required_argument, NULL, 'b' },
		{ "backend", required_argument, NULL, 'B' },
		{ "backend-prequery-port", required_argument, NULL, O_BPQ },
		{ "cpu", required_argument, NULL, 'c' },
		{ "helper-cpu", required_argument, NULL, O_HELPER },
		{ "helper-wait", required_argument, NULL, O_HWAIT },
		{ "prequery-delay-us", required_argument, NULL, O_DELAY },
		{ "prequery-adaptive", no_argument, NULL, O_ADAPT },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "step-us", required_argument, NULL, O_STEP },
		{ "min-step-us", required_argument, NULL, O_MINSTEP },
		{ "max-delay-us", required_argument, NULL, O_MAXDELAY },
		{ "work-us", required_argument, NULL, O_WORK },
		{ "backend-timeout-ms", required_argument, NULL, O_TIMEOUT },
		{ "max-conns", required_argument, NULL, O_MAXCONN },
		{ "log", required_argument, NULL, O_LOG },
		{ "trajectory", required_argument, NULL, O_TRAJ },
		{ "port-file", required_argument, NULL, O_PORTFILE },
		{ "cstates", required_argument, NULL, O_CSTATES },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int have_listen = 0, have_backend = 0, c, idx = 0;
	uint64_t v;
	double d;

	*o = (struct mt_opts){ .bind = "127.0.0.1", .cpu = -1, .helper_cpu = -1,
			       .timeout_ns = 1000000000ull, .max_conns = 1024 };
	hillclimb_defaults(&o->hc);
	while ((c = getopt_long(argc, argv, "l:b:B:c:qh", longopts, &idx)) != -1) {
		switch (c) {
		case 'l':
			if (opt_u64(optarg, 0, 65535, &v))
				opt_usage(PROG, "invalid --listen '%s' (a port)", optarg);
			o->port = (uint16_t)v;
			have_listen = 1;
			break;
		case 'b':
			o->bind = optarg;
			break;
		case 'B':
			if (opt_hostport(optarg, "127.0.0.1", o->backend_host,
					 sizeof(o->backend_host), &o->backend_port))
				opt_usage(PROG, "invalid --backend '%s' (HOST:PORT)", optarg);
			have_backend = 1;
			break;
		case O_BPQ:
			if (opt_u64(optarg, 1, 65535, &v))
				opt_usage(PROG, "invalid --backend-prequery-port '%s'", optarg);
			o->backend_pq_port = (uint16_t)v;
			break;
		case 'c':
		case O_HELPER:
			if (opt_u64(optarg, 0, (uint64_t)cpu_count() - 1, &v))
				opt_usage(PROG, "invalid CPU '%s' (this machine has CPUs 0-%d)",
					  optarg, cpu_count() - 1);
			if (c == 'c')
				o->cpu = (int)v;
			else
				o->helper_cpu = (int)v;
			break;
		case O_HWAIT:
			if (!strcmp(optarg, "spin"))
				o->helper_spin = 1;
			else if (strcmp(optarg, "block"))
				opt_usage(PROG, "invalid --helper-wait '%s' (block or spin)",
					  optarg);
			break;
		case O_DELAY:
			if (opt_double(optarg, 0, 1e7, &o->delay_us))
				opt_usage(PROG, "invalid --prequery-delay-us '%s'", optarg);
			o->prequery = 1;
			break;
		case O_ADAPT:
			o->adaptive = o->prequery = 1;
			break;
		case O_WINDOW:
		case O_STEP:
		case O_MINSTEP:
		case O_MAXDELAY:
			if (hillclimb_cfg_parse(&o->hc, (enum hillclimb_knob)(c - O_WINDOW),
						optarg))
				opt_usage(PROG, "invalid --%s '%s'", longopts[idx].name,
					  optarg);
			break;
		case O_WORK:
			if (opt_double(optarg, 0, 6e7, &d))
				opt_usage(PROG, "invalid --work-us '%s'", optarg);
			o->work_ns = (uint64_t)llround(d * 1e3);
			break;
		case O_TIMEOUT:
			if (opt_u64(optarg, 1, 3600000, &v))
				opt_usage(PROG, "invalid --backend-timeout-ms '%s'", optarg);
			o->timeout_ns = v * 1000000ull;
			break;
		case O_MAXCONN:
			if (opt_u64(optarg, 1, 1000000, &v))
				opt_usage(PROG, "invalid --max-conns '%s'", optarg);
			o->max_conns = v;
			break;
		case O_LOG:
			o->log_path = optarg;
			break;
		case O_TRAJ:
			o->traj_path = optarg;
			break;
		case O_PORTFILE:
			o->port_file = optarg;
			break;
		case O_CSTATES:
			cstate_spec_opt(PROG, optarg, &o->cstates);
			o->have_cstates = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage();
			exit(0);
		default:
			opt_bad_option(PROG);
		}
	}
	if (optind < argc)
		opt_usage(PROG, "unexpected argument '%s'", argv[optind]);
	if (!have_listen)
		opt_usage(PROG, "--listen PORT is required");
	if (!have_backend)
		opt_usage(PROG, "--backend HOST:PORT is required");
	if (o->adaptive && o->delay_us > 0)
		opt_usage(PROG, "give --prequery-delay-us or --prequery-adaptive, not both");
	if (o->adaptive && o->hc.min_step_us > o->hc.step_us)
		opt_usage(PROG, "--min-step-us exceeds --step-us");
	if (o->backend_pq_port && !o->prequery)
		opt_usage(PROG, "--backend-prequery-port needs --prequery-delay-us or --prequery-adaptive");
}

/* ---- the helper thread ------------------------------------------------ */

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 100000000 };

	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *helper_main(void *arg)
{
	struct mt *m = arg;
	uint64_t last = 0;
	uint8_t buf[PROTO_HDR_LEN];

	if (m->o.helper_cpu >= 0)
		cpu_pin_self(m->o.helper_cpu);
	while (!atomic_load_explicit(&m->stop, memory_order_relaxed)) {
		uint32_t w = atomic_load_explicit(&m->wake, memory_order_acquire);
		uint64_t id = atomic_load_explicit(&m->pending, memory_order_acquire);
		uint64_t deadline, now;

		if (!id || (id & CLAIMED) || id == last) {
			/* Idle until the main thread flags the next request. */
			if (!m->o.helper_spin)
				futex_wait(&m->wake, w);
			continue;
		}
		last = id;
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
		struct proto_msg pq = { .type = PROTO_PREQUERY, .seq = id - 1 };

		_Atomic uint64_t *logged = &m->slots[(id - 1) % SLOTS].prequery_ns;

		pq.client_send_ns = now = clock_now_ns();
		proto_encode(&pq, buf);
		/* Stored before the send: the reply, and the log row, may
		 * come back before this thread runs again. */
		atomic_store(logged, now);
		if (m->helper_fd < 0 ||
		    net_send_all(m->helper_fd, buf, sizeof(buf), SEND_TIMEOUT_NS)) {
			atomic_store(logged, 0);
			atomic_fetch_add(&m->pq_failed, 1);
			continue;
		}
		atomic_fetch_add(&m->pq_sent, 1);
	}
	return NULL;
}

/* ---- main thread ------------------------------------------------------ */

static int ep_add(struct mt *m, struct ep *e)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = e };

	return epoll_ctl(m->epfd, EPOLL_CTL_ADD, e->fd, &ev) ? -errno : 0;
}

static void client_free(struct mt *m, struct ep *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		m->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
}

static void client_release(struct mt *m, struct ep *c)
{
	if (c->closed && !c->outstanding)
		client_free(m, c);
}

static void client_close(struct mt *m, struct ep *c)
{
	if (c->closed)
		return;
	epoll_ctl(m->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->closed = 1;
	m->nconns--;
	client_release(m, c);
}

static void reply_client(struct mt *m, struct ep *c, uint8_t type,
			 uint64_t seq, uint64_t client_send_ns,
			 uint64_t srv_recv, uint64_t srv_send)
{
	uint8_t buf[PROTO_HDR_LEN];
	struct proto_msg r = {
		.type = type, .seq = seq, .client_send_ns = client_send_ns,
		.server_recv_ns = srv_recv, .server_send_ns = srv_send,
	};

	if (c->closed)
		return;
	proto_encode(&r, buf);
	if (net_send_all(c->fd, buf, sizeof(buf), SEND_TIMEOUT_NS))
		client_close(m, c);
}

static void log_row(struct mt *m, const struct slot *s, uint64_t bseq,
		    uint64_t backend_reply_ns, uint64_t reply_ns,
		    const char *status)
{
	uint64_t pq = atomic_load(&s->prequery_ns);

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
	csv_end_row(m->log);
}

/* Finish slot bseq: reply (or error) to its client, log, free the slot. */
static void finish(struct mt *m, uint64_t bseq, const struct proto_msg *br,
		   const char *status)
{
	struct slot *s = &m->slots[bseq % SLOTS];
	uint64_t now;

	if (br)
		reply_client(m, s->client, PROTO_REPLY, s->client_seq,
			     s->client_send_ns, br->server_recv_ns,
			     br->server_send_ns);
	else
		reply_client(m, s->client, PROTO_ERROR, s->client_seq,
			     s->client_send_ns, 0, 0);
	now = clock_now_ns();
	if (!br)
		m->errors++;
	log_row(m, s, bseq, br ? m->rx_ns : 0, now, status);
	s->used = 0;
	s->client->outstanding--;
	client_release(m, s->client);
}

static void backend_down(struct mt *m, const char *why)
{
	if (!m->backend_up)
		return;
	fprintf(stderr, "%s: backend %s:%u %s\n", PROG, m->o.backend_host,
		m->o.backend_port, why);
	epoll_ctl(m->epfd, EPOLL_CTL_DEL, m->backend.fd, NULL);
	close(m->backend.fd);
	m->backend_up = 0;
	for (uint64_t b = m->oldest; b < m->next_seq; b++)
		if (m->slots[b % SLOTS].used)
			finish(m, b, NULL, "backend_down");
	m->oldest = m->next_seq;
}

static int backend_connect(struct mt *m)
{
	int fd;

	if (m->backend_up)
		return 0;
	fd = net_connect(NET_TCP, m->o.backend_host, m->o.backend_port);
	if (fd < 0)
		return fd;
	m->backend.kind = EP_BACKEND;
	m->backend.fd = fd;
	framer_init(&m->backend.fr, PROTO_MAX_PAYLOAD);
	if (ep_add(m, &m->backend)) {
		close(fd);
		return -EIO;
	}
	m->backend_up = 1;
	return 0;
}

static void helper_connect(struct mt *m)
{
	uint16_t port = m->o.backend_pq_port ? m->o.backend_pq_port :
			m->o.backend_port;

	if (m->helper_fd >= 0 || !m->o.prequery)
		return;
	m->helper_fd = net_connect(NET_TCP, m->o.backend_host, port);
}

static int on_backend_msg(const struct proto_msg *r, void *arg)
{
	struct mt *m = arg;
	struct slot *s;

	if (r->type != PROTO_REPLY || r->seq >= m->next_seq ||
	    !m->slots[r->seq % SLOTS].used) {
		/* Answered already by a timeout error, or not ours. */
		m->late_replies++;
		return 0;
	}
	s = &m->slots[r->seq % SLOTS];
	if (m->o.adaptive && s->window == m->hc.windows &&
	    hillclimb_add(&m->hc, m->rx_ns - s->forward_ns)) {
		atomic_store(&m->delay_ns,
			     (uint64_t)llround(hillclimb_value_us(&m->hc) * 1e3));
		if (m->traj) {
			csv_u64(m->traj, m->hc.windows);
			csv_double(m->traj, m->hc.value_us, 3);
			csv_double(m->traj, m->hc.step_us, 3);
			csv_double(m->traj, m->hc.last_avg_ns, 1);
			csv_double(m->traj, m->hc.best_us, 3);
			csv_end_row(m->traj);
		}
	}
	finish(m, r->seq, r, "ok");
	return 0;
}

static void backend_read(struct mt *m)
{
	for (;;) {
		ssize_t n = net_read(m->backend.fd, m->rx, sizeof(m->rx));
		int ret;

		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			backend_down(m, n ? strerror((int)-n) : "closed the connection");
			return;
		}
		m->rx_ns = clock_now_ns();
		ret = framer_feed(&m->backend.fr, m->rx, (size_t)n,
				  on_backend_msg, m);
		if (ret < 0) {
			backend_down(m, "sent a malformed reply");
			return;
		}
	}
}

struct client_ctx {
	struct mt *m;
	struct ep *c;
};

/* One client request: flag it for the helper, work, forward. */
static int handle_request(const struct proto_msg *q, void *arg)
{
	struct client_ctx *ctx = arg;
	struct mt *m = ctx->m;
	struct ep *c = ctx->c;
	uint64_t bseq = m->next_seq, expect;
	struct slot *s = &m->slots[bseq % SLOTS];
	uint8_t buf[PROTO_HDR_LEN];
	struct proto_msg f;
	int err;

	if (q->type == PROTO_PREQUERY)
		return 0;	/* a client pre-query: the midtier is awake now */
	if (q->type != PROTO_REQUEST) {
		m->rejected++;
		return 1;
	}
	m->requests++;
	if (s->used || backend_connect(m)) {
		struct slot tmp = { .client = c, .client_seq = q->seq,
				    .client_send_ns = q->client_send_ns,
				    .recv_ns = m->rx_ns };

		reply_client(m, c, PROTO_ERROR, q->seq, q->client_send_ns, 0, 0);
		m->errors++;
		log_row(m, &tmp, 0, 0, clock_now_ns(),
			s->used ? "overloaded" : "backend_down");
		return c->closed;
	}
	m->next_seq++;
	*s = (struct slot){ .used = 1, .client = c, .client_seq = q->seq,
			    .client_send_ns = q->client_send_ns,
			    .recv_ns = m->rx_ns, .window = m->hc.windows };
	atomic_store(&s->prequery_ns, 0);
	s->delay_us = atomic_load(&m->delay_ns) / 1e3;
	c->outstanding++;
	if (m->o.prequery) {
		atomic_store(&m->pending_recv_ns, m->rx_ns);
		atomic_store_explicit(&m->pending, bseq + 1, memory_order_release);
		if (!m->o.helper_spin) {
			atomic_fetch_add_explicit(&m->wake, 1, memory_order_release);
			futex_wake(&m->wake);
		}
	}
	if (m->o.work_ns)
		clock_spin_until(m->rx_ns + m->o.work_ns);
	/* Claim the request back; if the helper took it, its pre-query is
	 * on the way and the request follows it. */
	expect = bseq + 1;
	if (m->o.prequery &&
	    atomic_compare_exchange_strong(&m->pending, &expect, 0))
		m->pq_skipped++;	/* forwarded before the delay ran out */
	f = (struct proto_msg){ .type = PROTO_REQUEST, .seq = bseq,
				.service_ns = q->service_ns,
				.payload_len = q->payload_len };
	f.client_send_ns = s->forward_ns = clock_now_ns();
	proto_encode(&f, buf);
	err = net_send_all(m->backend.fd, buf, sizeof(buf), SEND_TIMEOUT_NS);
	for (uint32_t left = q->payload_len; !err && left;) {
		uint32_t n = left < sizeof(m->rx) ? left : sizeof(m->rx);

		memset(m->rx, 0, n);
		err = net_send_all(m->backend.fd, m->rx, n, SEND_TIMEOUT_NS);
		left -= n;
	}
	if (err)
		backend_down(m, strerror(-err));
	else
		m->forwarded++;
	return c->closed;
}

static void client_read(struct mt *m, struct ep *c)
{
	struct client_ctx ctx = { m, c };

	for (;;) {
		uint8_t buf[RX_BUF];
		ssize_t n = net_read(c->fd, buf, sizeof(buf));
		int ret;

		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			if (n < 0 || framer_partial(&c->fr))
				m->rejected++;
			client_close(m, c);
			return;
		}
		m->rx_ns = clock_now_ns();
		ret = framer_feed(&c->fr, buf, (size_t)n, handle_request, &ctx);
		if (ret < 0)
			m->rejected++;
		if (ret) {
			client_close(m, c);
			return;
		}
	}
}

static void do_accept(struct mt *m)
{
	for (;;) {
		int fd = accept4(m->listen.fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;
		struct ep *c;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		if (m->nconns >= m->o.max_conns || !(c = calloc(1, sizeof(*c)))) {
			m->refused++;
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->kind = EP_CLIENT;
		c->fd = fd;
		c->id = ++m->next_conn_id;
		framer_init(&c->fr, PROTO_MAX_PAYLOAD);
		if (ep_add(m, c)) {
			close(fd);
			free(c);
			m->refused++;
			continue;
		}
		c->next = m->clients;
		if (c->next)
			c->next->prev = c;
		m->clients = c;
		m->nconns++;
		m->connections++;
	}
}

static void check_timeouts(struct mt *m)
{
	uint64_t now = clock_now_ns();

	while (m->oldest < m->next_seq) {
		struct slot *s = &m->slots[m->oldest % SLOTS];

		if (s->used) {
			if (now - s->forward_ns < m->o.timeout_ns)
				return;
			m->timeouts++;
			finish(m, m->oldest, NULL, "timeout");
		}
		m->oldest++;
	}
}

static const char *setup(struct mt *m)
{
	static char msg[4400];
	struct mt_opts *o = &m->o;
	uint16_t bound = 0;
	sigset_t mask;
	int fd;

	m->helper_fd = -1;
	m->slots = calloc(SLOTS, sizeof(*m->slots));
	m->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!m->slots || m->epfd < 0)
		return "out of memory";
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	m->sig.kind = EP_SIGNAL;
	m->sig.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (m->sig.fd < 0 || ep_add(m, &m->sig))
		return "signalfd failed";
	/*
	 * C-states before listening, as in the server: a client that can
	 * connect is served under the configured idle states (a later setup
	 * failure exits, and the atexit hook restores them).
	 */
	if (o->have_cstates) {
		m->cs = cstate_run_begin(&o->cstates, o->cpu, o->cmdline, msg,
					 sizeof(msg));
		if (!m->cs)
			return msg;
	}
	fd = net_listen(NET_TCP, o->bind, o->port, 1024, &bound);
	if (fd < 0) {
		snprintf(msg, sizeof(msg), "cannot listen on %s port %u: %s",
			 o->bind, o->port, strerror(-fd));
		return msg;
	}
	m->listen.kind = EP_LISTEN;
	m->listen.fd = fd;
	ep_add(m, &m->listen);
	if (o->adaptive) {
		o->hc.initial_us = 0;
		if (hillclimb_init(&m->hc, &o->hc))
			return "invalid adaptive settings";
	}
	atomic_store(&m->delay_ns, (uint64_t)llround(o->delay_us * 1e3));
	if (o->log_path) {
		char snap[4096];
		size_t n = strlen(o->log_path);
		int ret;

		m->log = csv_open(o->log_path);
		if (!m->log) {
			snprintf(msg, sizeof(msg), "cannot write %s: %s",
				 o->log_path, strerror(errno));
			return msg;
		}
		csv_header(m->log, "seq,conn,backend_seq,recv_ns,prequery_ns,"
			   "forward_ns,backend_reply_ns,reply_ns,delay_us,status");
		if (n > 4 && !strcmp(o->log_path + n - 4, ".csv"))
			n -= 4;
		if (o->adaptive && !o->traj_path) {
			static char traj[4096];

			snprintf(traj, sizeof(traj), "%.*s.trajectory.csv",
				 (int)n, o->log_path);
			o->traj_path = traj;
		}
		snprintf(snap, sizeof(snap), "%.*s.snapshot.json", (int)n,
			 o->log_path);
		ret = snapshot_write_json(snap, "midtier", o->cmdline);
		if (ret) {
			snprintf(msg, sizeof(msg), "cannot write %s: %s", snap,
				 strerror(-ret));
			return msg;
		}
	}
	if (o->adaptive && o->traj_path) {
		m->traj = csv_open(o->traj_path);
		if (!m->traj) {
			snprintf(msg, sizeof(msg), "cannot write %s: %s",
				 o->traj_path, strerror(errno));
			return msg;
		}
		csv_header(m->traj, "window,value_us,step_us,window_avg_ns,best_us");
	}
	if (o->cpu >= 0 && cpu_pin_self(o->cpu)) {
		snprintf(msg, sizeof(msg), "cannot pin to CPU %d", o->cpu);
		return msg;
	}
	if (backend_connect(m))
		fprintf(stderr, "%s: backend %s:%u not reachable yet; requests get error replies until it is\n",
			PROG, o->backend_host, o->backend_port);
	helper_connect(m);
	if (o->port_file) {
		FILE *f = fopen(o->port_file, "w");

		if (!f || fprintf(f, "%u\n", bound) < 0 || fclose(f)) {
			snprintf(msg, sizeof(msg), "cannot write %s", o->port_file);
			return msg;
		}
	}
	if (!o->quiet)
		fprintf(stderr, "%s: tcp %s:%u -> %s:%u cpu=%d helper-cpu=%d prequery=%s\n",
			PROG, o->bind, bound, o->backend_host, o->backend_port,
			o->cpu, o->helper_cpu, !o->prequery ? "off" :
			o->adaptive ? "adaptive" : "fixed");
	return NULL;
}

static void run(struct mt *m)
{
	struct epoll_event evs[64];
	int stop = 0;

	while (!stop) {
		/* Poll for timeouts while anything is outstanding. */
		int timeout = m->oldest < m->next_seq ? 10 : 1000;
		int n = epoll_wait(m->epfd, evs, 64, timeout);

		for (int i = 0; i < n; i++) {
			struct ep *e = evs[i].data.ptr;

			switch (e->kind) {
			case EP_SIGNAL:
				stop = 1;
				break;
			case EP_LISTEN:
				do_accept(m);
				break;
			case EP_BACKEND:
				backend_read(m);
				break;
			case EP_CLIENT:
				client_read(m, e);
				break;
			}
		}
		check_timeouts(m);
		if (m->o.prequery && m->helper_fd < 0 && m->backend_up)
			helper_connect(m);
	}
}

int main(int argc, char **argv)
{
	struct mt *m = calloc(1, sizeof(*m));
	pthread_t helper;
	const char *err;
	int rc = 0, ret;

	if (!m)
		opt_die(PROG, "out of memory");
	parse_opts(&m->o, argc, argv);
	m->o.cmdline = opt_cmdline(argc, argv);
	err = setup(m);
	if (err)
		opt_die(PROG, "%s", err);
	if (m->o.prequery && pthread_create(&helper, NULL, helper_main, m))
		opt_die(PROG, "cannot start the helper thread");
	run(m);
	atomic_store(&m->stop, 1);
	if (m->o.prequery) {
		atomic_fetch_add(&m->wake, 1);
		futex_wake(&m->wake);
		pthread_join(helper, NULL);
	}
	while (m->clients) {
		if (!m->clients->closed)
			close(m->clients->fd);
		client_free(m, m->clients);
	}
	if (m->backend_up)
		close(m->backend.fd);
	if (m->helper_fd >= 0)
		close(m->helper_fd);
	ret = csv_close(m->log);
	if (!ret)
		ret = csv_close(m->traj);
	if (ret) {
		fprintf(stderr, "%s: writing logs: %s\n", PROG, strerror(-ret));
		rc = 1;
	}
	ret = cstate_end(m->cs);
	if (ret < 0)
		rc = 1;
	fprintf(stderr,
		"%s: requests=%llu forwarded=%llu prequeries=%llu prequeries_skipped=%llu prequery_failures=%llu errors=%llu timeouts=%llu late_replies=%llu connections=%llu rejected=%llu refused=%llu\n",
		PROG, (unsigned long long)m->requests,
		(unsigned long long)m->forwarded,
		(unsigned long long)atomic_load(&m->pq_sent),
		(unsigned long long)m->pq_skipped,
		(unsigned long long)atomic_load(&m->pq_failed),
		(unsigned long long)m->errors, (unsigned long long)m->timeouts,
		(unsigned long long)m->late_replies,
		(unsigned long long)m->connections,
		(unsigned long long)m->rejected, (unsigned long long)m->refused);
	free(m->slots);
	free(m->o.cmdline);
	free(m);
	return rc;
}
