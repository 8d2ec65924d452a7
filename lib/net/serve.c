// SPDX-License-Identifier: GPL-2.0
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

#include "clock.h"
#include "serve.h"
#include "srvlimit.h"
#include "wfile.h"

#define MAX_EVENTS 64
#define MAX_LISTENERS 4
#define RX_BUF (64 * 1024)
/* Out of fds even after refusing with the spare one: stop accepting this long. */
#define ACCEPT_PAUSE_NS 100000000ull

/* What an epoll event's data.ptr points at: the first member says. */
enum ep_kind { EP_SIGNAL = 1, EP_LISTEN, EP_UDP, EP_CONN, EP_USER };

struct listener {
	int ep_kind;		/* first: EP_LISTEN or EP_UDP */
	int fd;
	int tag;
	uint16_t port;
};

struct serve {
	struct serve_cfg cfg;
	struct serve_stats st;
	int epfd;
	int sig_kind;		/* EP_SIGNAL: the signalfd's event target */
	int sigfd;
	sigset_t sigs;
	struct listener ls[MAX_LISTENERS];
	int nls;
	struct serve_conn conns;	/* list head, most recently active first */
	uint64_t nconns, next_id;
	struct serve_conn *graveyard;	/* closed, freed at the end of the turn */
	int spare_fd;		/* given up to refuse a connection on EMFILE */
	uint64_t accept_resume_ns;	/* listeners paused until then, or 0 */
	int stop;
	unsigned int polls;	/* busy polls of one connection: every
				 * BUSY_EPOLL_EVERY-th goes through epoll */
	uint8_t rx[RX_BUF];
};

/*
 * Busy polling one connection: a non-blocking read of it is one system
 * call where epoll_wait and then the read are two, both on the path of
 * every request (measured: 2.2 us of a 14.7 us loopback round trip,
 * bench/rtt-sockperf.sh). Every BUSY_EPOLL_EVERY-th poll still goes
 * through epoll, for signals, new connections and the ticks.
 */
#define BUSY_EPOLL_EVERY 64

static int ep_ctl(struct serve *s, int op, int fd, uint32_t events, void *ptr)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	return epoll_ctl(s->epfd, op, fd, &ev) ? -errno : 0;
}

/* Every connection is an fd: fit max_conns to RLIMIT_NOFILE. */
static void fd_budget(struct serve *s, char *note, size_t notelen)
{
	struct srv_fd_budget b;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (!srv_fd_budget(s->cfg.max_conns,
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
	snprintf(note, notelen,
		 "open file limit %llu (ulimit -n): --max-conns lowered from %llu to %llu",
		 (unsigned long long)b.soft,
		 (unsigned long long)s->cfg.max_conns,
		 (unsigned long long)b.max_conns);
	s->cfg.max_conns = b.max_conns;
}

int serve_open(const struct serve_cfg *cfg, struct serve **out,
	       char *note, size_t notelen, char *msg, size_t msglen)
{
	struct serve *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (notelen)
		note[0] = 0;
	if (!s) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	s->cfg = *cfg;
	if (!s->cfg.max_conns)
		s->cfg.max_conns = 1024;
	s->conns.next = s->conns.prev = &s->conns;
	s->sigfd = -1;
	fd_budget(s, note, notelen);
	s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		ret = -errno;
		snprintf(msg, msglen, "epoll_create1: %s", strerror(-ret));
		goto fail;
	}
	sigemptyset(&s->sigs);
	sigaddset(&s->sigs, SIGINT);
	sigaddset(&s->sigs, SIGTERM);
	sigaddset(&s->sigs, SIGHUP);	/* the terminal closed: stop cleanly too */
	sigprocmask(SIG_BLOCK, &s->sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sig_kind = EP_SIGNAL;
	s->sigfd = signalfd(-1, &s->sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->sigfd < 0) {
		ret = -errno;
		snprintf(msg, msglen, "signalfd: %s", strerror(-ret));
		goto fail;
	}
	ret = ep_ctl(s, EPOLL_CTL_ADD, s->sigfd, EPOLLIN, &s->sig_kind);
	if (ret) {
		snprintf(msg, msglen, "epoll_ctl: %s", strerror(-ret));
		goto fail;
	}
	*out = s;
	return 0;
fail:
	serve_close(s);
	return ret;
}

static void conn_unlink(struct serve_conn *c)
{
	c->prev->next = c->next;
	c->next->prev = c->prev;
	c->prev = c->next = c;
}

/* Frees c and, first, what the program keeps in its private bytes. */
static void conn_free(struct serve *s, struct serve_conn *c)
{
	if (s->cfg.ops->conn_free)
		s->cfg.ops->conn_free(c, s->cfg.arg);
	free(c);
}

static void reap(struct serve *s)
{
	while (s->graveyard) {
		struct serve_conn *c = s->graveyard;

		s->graveyard = c->next;
		conn_free(s, c);
	}
}

void serve_close(struct serve *s)
{
	if (!s)
		return;
	while (s->conns.next != &s->conns) {
		struct serve_conn *c = s->conns.next;

		if (!c->closed)
			close(c->fd);
		conn_unlink(c);
		conn_free(s, c);
	}
	reap(s);
	for (int i = 0; i < s->nls; i++)
		close(s->ls[i].fd);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->spare_fd >= 0)
		close(s->spare_fd);
	free(s);
}

int serve_listen(struct serve *s, enum net_proto proto, const char *host,
		 uint16_t port, int tag, uint16_t *bound, char *msg,
		 size_t msglen)
{
	struct listener *l;
	int fd, ret;

	if (s->nls == MAX_LISTENERS) {
		snprintf(msg, msglen, "too many listeners");
		return -EMFILE;
	}
	fd = net_listen(proto, host, port, 1024, bound);
	if (fd < 0) {
		snprintf(msg, msglen, "%s", strerror(-fd));
		return fd;
	}
	/* the connections accepted get it too (accept_ready) */
	ret = s->cfg.so_busy_poll_us ? net_busy_poll(fd, s->cfg.so_busy_poll_us) : 0;
	if (ret) {
		close(fd);
		snprintf(msg, msglen, "SO_BUSY_POLL %u us: %s", s->cfg.so_busy_poll_us,
			 ret == -EPERM ? "not permitted (it needs CAP_NET_ADMIN)" :
			 strerror(-ret));
		return ret;
	}
	l = &s->ls[s->nls];
	*l = (struct listener){
		.ep_kind = proto == NET_TCP ? EP_LISTEN : EP_UDP,
		.fd = fd, .tag = tag, .port = *bound,
	};
	ret = ep_ctl(s, EPOLL_CTL_ADD, fd, EPOLLIN, l);
	if (ret) {
		close(fd);
		snprintf(msg, msglen, "epoll_ctl: %s", strerror(-ret));
		return ret;
	}
	s->nls++;
	return 0;
}

int serve_write_port_file(struct serve *s, const char *path, char *msg,
			  size_t msglen)
{
	/* made anew: a link planted at the name is not written through */
	FILE *f = wfile_open(path);
	int ret = 0;

	if (!f) {
		ret = -errno;
		goto out;
	}
	for (int i = 0; i < s->nls; i++)
		if (fprintf(f, i ? " %u" : "%u", s->ls[i].port) < 0)
			ret = -EIO;
	if (fputc('\n', f) == EOF)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
out:
	if (ret)
		snprintf(msg, msglen, "cannot write %s: %s", path,
			 strerror(-ret));
	return ret;
}

uint64_t serve_max_conns(const struct serve *s)
{
	return s->cfg.max_conns;
}

void serve_stats(const struct serve *s, struct serve_stats *st)
{
	*st = s->st;
}

void serve_stop(struct serve *s)
{
	s->stop = 1;
}

int serve_signal_pending(struct serve *s)
{
	sigset_t p;

	if (sigpending(&p))
		return 0;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&s->sigs, sig) && sigismember(&p, sig))
			return 1;
	return 0;
}

void *serve_conn_priv(struct serve_conn *c)
{
	return c + 1;	/* allocated together: see do_accept() */
}

/* A closed connection nobody holds goes to the graveyard. */
static void conn_release(struct serve *s, struct serve_conn *c)
{
	if (!c->closed || c->refs || c->ep_kind != EP_CONN)
		return;
	conn_unlink(c);
	c->ep_kind = 0;		/* dead: in the graveyard */
	c->next = s->graveyard;
	s->graveyard = c;
}

void serve_conn_close(struct serve *s, struct serve_conn *c)
{
	if (c->closed)
		return;
	if (!c->rd_closed)
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->closed = 1;
	s->nconns--;
	conn_release(s, c);
}

void serve_conn_pause(struct serve *s, struct serve_conn *c, int pause)
{
	if (c->closed || !c->paused == !pause)
		return;
	c->paused = !!pause;
	/* Out of the epoll set's readiness, or back: level-triggered, so
	 * bytes that came meanwhile bring it back at once. */
	if (!c->rd_closed)
		ep_ctl(s, EPOLL_CTL_MOD, c->fd, pause ? 0 : EPOLLIN, &c->ep_kind);
}

void serve_conn_hold(struct serve_conn *c)
{
	c->refs++;
}

void serve_conn_put(struct serve *s, struct serve_conn *c)
{
	if (c->refs)
		c->refs--;
	conn_release(s, c);
}

int serve_fd_add(struct serve *s, struct serve_fd *w, uint32_t events)
{
	w->ep_kind = EP_USER;
	return ep_ctl(s, EPOLL_CTL_ADD, w->fd, events, &w->ep_kind);
}

int serve_fd_mod(struct serve *s, struct serve_fd *w, uint32_t events)
{
	return ep_ctl(s, EPOLL_CTL_MOD, w->fd, events, &w->ep_kind);
}

void serve_fd_del(struct serve *s, struct serve_fd *w)
{
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, w->fd, NULL);
}

/* Connections are kept most recently active first: expire from the tail. */
static void conn_touch(struct serve *s, struct serve_conn *c, uint64_t now)
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
static int close_idle(struct serve *s)
{
	uint64_t now = clock_now_ns(), limit = s->cfg.idle_timeout_ns;
	struct serve_conn *c = s->conns.prev;

	while (c != &s->conns) {
		struct serve_conn *prev = c->prev;
		uint64_t idle = now - c->last_ns;

		/* Those kept for replies (rd_closed) expire like the rest. */
		if (!c->closed) {
			if (idle < limit)
				return (int)((limit - idle) / 1000000) + 1;
			s->st.idle_closed++;
			serve_conn_close(s, c);
		}
		c = prev;
	}
	return -1;
}

static void eof(struct serve *s, struct serve_conn *c, int err)
{
	const struct serve_ops *ops = s->cfg.ops;

	if (!err && ops->on_eof && ops->on_eof(c, 0, s->cfg.arg) && !c->closed) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		c->rd_closed = 1;
		return;
	}
	if (err && ops->on_eof)
		ops->on_eof(c, err, s->cfg.arg);
	serve_conn_close(s, c);
}

/*
 * One turn of a connection. Without .peek: reads of at most
 * SERVE_READ_CHUNK, each handed over whole. With .peek: the bytes waiting
 * are peeked, and only what on_data consumed is taken off the socket;
 * when it consumed less, or read_want says the turn is over, the rest
 * stays queued in the kernel for the connection's next turn. Either way
 * the turn ends after SERVE_TURN_BYTES or SERVE_TURN_NS: the loop's own
 * fair turns, so no program can let one peer that pipelines without end
 * keep the loop from the others (level-triggered epoll brings a
 * connection with bytes left back after the other ready ones).
 */
static void conn_read(struct serve *s, struct serve_conn *c)
{
	const struct serve_ops *ops = s->cfg.ops;
	int peek = s->cfg.peek;
	size_t taken = 0;	/* bytes handed over in this turn */
	uint64_t begin = 0;

	if (ops->turn_begin)
		ops->turn_begin(c, s->cfg.arg);
	while (!c->closed && !c->rd_closed && !c->paused) {
		size_t want = peek ? sizeof(s->rx) : SERVE_READ_CHUNK;
		ssize_t n, used;

		if (peek && ops->read_want) {
			want = ops->read_want(c, s->cfg.arg);
			if (!want)
				return;
			if (want > sizeof(s->rx))
				want = sizeof(s->rx);
		}
		if (want > SERVE_TURN_BYTES - taken)
			want = SERVE_TURN_BYTES - taken;
		do
			n = recv(c->fd, s->rx, want,
				 MSG_DONTWAIT | (peek ? MSG_PEEK : 0));
		while (n < 0 && errno == EINTR);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			eof(s, c, n ? -errno : 0);
			return;
		}
		uint64_t rx_ns = clock_now_ns();

		if (!begin)
			begin = rx_ns;
		if (s->cfg.idle_timeout_ns)
			conn_touch(s, c, rx_ns);
		used = ops->on_data(c, s->rx, (size_t)n, rx_ns, s->cfg.arg);
		if (c->closed)
			return;
		if (used < 0) {
			serve_conn_close(s, c);
			return;
		}
		if (peek) {
			/* Take what was consumed off the socket (MSG_TRUNC:
			 * no copy). */
			if (used && recv(c->fd, NULL, (size_t)used,
					 MSG_TRUNC | MSG_DONTWAIT) != used) {
				eof(s, c, -EIO);
				return;
			}
			if (used < n)
				return;
		}
		taken += (size_t)n;
		/* A short read emptied the socket: nothing more to read. */
		if ((size_t)n < want || taken >= SERVE_TURN_BYTES ||
		    clock_now_ns() - begin >= SERVE_TURN_NS)
			return;
	}
}

/*
 * A UDP socket's turn: until on_datagram says it is over, none waits, or
 * SERVE_TURN_DGRAMS or SERVE_TURN_NS have gone by (fair turns).
 */
static void udp_read(struct serve *s, struct listener *l)
{
	const struct serve_ops *ops = s->cfg.ops;
	uint64_t begin = 0;

	if (ops->turn_begin)
		ops->turn_begin(NULL, s->cfg.arg);
	for (unsigned k = 1;; k++) {
		struct sockaddr_storage peer;
		struct serve_dgram d = { .fd = l->fd, .tag = l->tag,
					 .peer = &peer };
		socklen_t plen = sizeof(peer);
		ssize_t n = recvfrom(l->fd, s->rx, sizeof(s->rx), MSG_TRUNC,
				     (struct sockaddr *)&peer, &plen);
		uint64_t rx_ns;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		d.peerlen = plen;
		rx_ns = clock_now_ns();
		if (!begin)
			begin = rx_ns;
		/* MSG_TRUNC: n is the datagram's real length, maybe > rx */
		if (ops->on_datagram(&d, s->rx, (size_t)n, rx_ns, s->cfg.arg) ||
		    k >= SERVE_TURN_DGRAMS ||
		    clock_now_ns() - begin >= SERVE_TURN_NS)
			return;
	}
}

static void listeners_events(struct serve *s, uint32_t events)
{
	for (int i = 0; i < s->nls; i++)
		if (s->ls[i].ep_kind == EP_LISTEN)
			ep_ctl(s, EPOLL_CTL_MOD, s->ls[i].fd, events, &s->ls[i]);
}

/*
 * Out of file descriptors (EMFILE, ENFILE) or memory: the pending
 * connection would wake epoll again at once, forever. Give up the spare
 * fd, accept the connection and close it (counted as refused), take the
 * spare back. Returns 1 when one was refused, 0 when none is pending,
 * -1 when that did not work either (the caller then pauses accepting).
 */
static int refuse_one(struct serve *s, struct listener *l)
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

static void do_accept(struct serve *s, struct listener *l)
{
	for (;;) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct serve_conn *c;
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
		c = s->nconns < s->cfg.max_conns ?
		    calloc(1, sizeof(*c) + s->cfg.conn_priv) : NULL;
		if (!c) {
			s->st.refused++;
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		/* allowed once the listener took it: a failure is not expected */
		if (s->cfg.so_busy_poll_us)
			net_busy_poll(fd, s->cfg.so_busy_poll_us);
		c->ep_kind = EP_CONN;
		c->fd = fd;
		c->tag = l->tag;
		c->id = ++s->next_id;
		c->last_ns = clock_now_ns();
		if (s->cfg.ops->conn_open)
			s->cfg.ops->conn_open(c, s->cfg.arg);
		if (ep_ctl(s, EPOLL_CTL_ADD, fd, EPOLLIN, &c->ep_kind)) {
			close(fd);
			conn_free(s, c);
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

static int min_timeout(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

int serve_run(struct serve *s)
{
	const struct serve_ops *ops = s->cfg.ops;
	struct epoll_event evs[MAX_EVENTS];
	int idle_ms = -1;

	while (!s->stop) {
		int timeout = idle_ms, n;

		if (s->cfg.busy_poll && s->nconns == 1 &&
		    ++s->polls % BUSY_EPOLL_EVERY) {
			struct serve_conn *c = s->conns.next;

			if (!c->closed && !c->rd_closed && !c->paused) {
				conn_read(s, c);
				reap(s);
				continue;
			}
		}
		if (ops->tick)
			timeout = min_timeout(timeout, ops->tick(s->cfg.arg));
		if (s->stop)
			break;
		if (s->accept_resume_ns) {
			uint64_t now = clock_now_ns();

			if (now >= s->accept_resume_ns) {
				s->accept_resume_ns = 0;
				listeners_events(s, EPOLLIN);
			} else {
				timeout = min_timeout(timeout,
					(int)((s->accept_resume_ns - now) /
					      1000000) + 1);
			}
		}
		if (s->cfg.busy_poll)
			timeout = 0;
		n = epoll_wait(s->epfd, evs, MAX_EVENTS, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < n && !s->stop; i++) {
			int *kind = evs[i].data.ptr;

			switch (*kind) {
			case EP_SIGNAL:
				s->stop = 1;
				break;
			case EP_LISTEN:
				do_accept(s, (struct listener *)kind);
				break;
			case EP_UDP:
				udp_read(s, (struct listener *)kind);
				break;
			case EP_CONN: {
				struct serve_conn *c = (struct serve_conn *)
					((char *)kind - offsetof(struct serve_conn, ep_kind));

				if (!c->closed && !c->rd_closed && !c->paused)
					conn_read(s, c);
				break;
			}
			case EP_USER: {
				struct serve_fd *w = (struct serve_fd *)
					((char *)kind - offsetof(struct serve_fd, ep_kind));

				w->fn(w, evs[i].events, s->cfg.arg);
				break;
			}
			default:
				/* a connection closed earlier in this turn */
				break;
			}
		}
		if (s->cfg.idle_timeout_ns)
			idle_ms = close_idle(s);
		/* The one place connections are freed. */
		reap(s);
	}
	return 0;
}
