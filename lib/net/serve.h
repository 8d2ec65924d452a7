/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve: the event loop of wakebench's servers (server and midtier).
 *
 * One thread, one epoll set: a signalfd for SIGINT/SIGTERM/SIGHUP (they
 * stop the loop; SIGPIPE is ignored), the listeners (TCP or UDP, each
 * with the program's tag, e.g. request port vs pre-query port), the
 * accepted connections and any fd the program adds (the midtier's backend
 * connection). What the loop owns:
 *
 * - accepting: at most max_conns connections at once, the rest accepted
 *   and closed at once (refused); out of fds, a spare fd is given up to
 *   refuse the pending connection, and when even that fails accepting
 *   pauses for 100 ms so the loop does not spin on a ready listener;
 *   the soft RLIMIT_NOFILE is raised to what max_conns needs, or
 *   max_conns lowered to what the hard limit allows (srvlimit.h);
 * - reading: each read is stamped with CLOCK_MONOTONIC right after it
 *   returns and handed to the program's on_data with that stamp. With
 *   .peek the bytes are peeked and only what on_data consumed is taken
 *   off the socket, so a program can end a connection's turn early and
 *   leave the rest queued in the kernel (level-triggered epoll brings
 *   the connection back after the other ready ones);
 * - fair turns, whatever the program does: a connection's turn ends
 *   once it was handed SERVE_TURN_BYTES, or SERVE_TURN_NS after it began
 *   (checked after each on_data; without .peek a read is at most
 *   SERVE_READ_CHUNK, so a turn overruns by one chunk's handling at
 *   most); a UDP socket's after SERVE_TURN_DGRAMS datagrams or the same
 *   time. What is left stays queued in the kernel and the connection
 *   comes back after the other ready ones, so one pipelining peer
 *   delays another by about one turn, not by its whole backlog;
 * - the connection list, most recently active first, and idle expiry;
 * - connection lifetime: a connection the program closes stays allocated
 *   while the program holds references to it (serve_conn_hold), and is
 *   freed only at the end of a loop turn, so no pointer up the stack or
 *   in this turn's events dangles;
 * - the port file: the bound port of every listener, in the order they
 *   were opened, on one line.
 *
 * Functions return 0 or -errno; those that can fail for a reason worth
 * telling fill the caller's message buffer. Nothing here prints or exits.
 */
#ifndef WB_SERVE_H
#define WB_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include "net.h"

struct serve;

/* Fair turns (see above): the most one connection gets per turn. */
#define SERVE_TURN_BYTES (64 * 1024)
#define SERVE_TURN_NS 1000000ull
#define SERVE_TURN_DGRAMS 64
#define SERVE_READ_CHUNK 4096

/* An accepted stream connection. The fields are read-only for programs. */
struct serve_conn {
	int fd;
	int tag;		/* the tag of the listener it came in on */
	uint64_t id;		/* 1, 2, ... in accept order */
	int closed;		/* serve_conn_close()d: fd no longer valid */
	int rd_closed;		/* peer shut its write side, kept for replies */
	int paused;		/* not read until resumed (serve_conn_pause) */
	/* private */
	unsigned refs;		/* serve_conn_hold()s not yet put */
	uint64_t last_ns;
	struct serve_conn *prev, *next;
	int ep_kind;
	/* the program's conn_priv bytes follow the struct */
};

/* A datagram received on a UDP listener. */
struct serve_dgram {
	int fd;			/* the listener's socket, to answer on */
	int tag;
	const struct sockaddr_storage *peer;
	socklen_t peerlen;
};

/* An fd of the program's own in the loop (e.g. an outgoing connection). */
struct serve_fd {
	int fd;
	void (*fn)(struct serve_fd *w, uint32_t events, void *arg);
	/* private */
	int ep_kind;
};

struct serve_ops {
	/* c was accepted: set up its private state (optional). */
	void (*conn_open)(struct serve_conn *c, void *arg);
	/* c is being freed: free what conn_open allocated (optional). */
	void (*conn_free)(struct serve_conn *c, void *arg);
	/* A connection's turn starts (optional). */
	void (*turn_begin)(struct serve_conn *c, void *arg);
	/* With .peek: bytes to peek next, 0 to end the turn early. */
	size_t (*read_want)(struct serve_conn *c, void *arg);
	/*
	 * len bytes from c, read at rx_ns. Returns the bytes consumed (all
	 * of them without .peek), or -1 to close c (the program counts why).
	 * The program may also close c itself; the loop then stops reading.
	 */
	ssize_t (*on_data)(struct serve_conn *c, const uint8_t *buf,
			   size_t len, uint64_t rx_ns, void *arg);
	/*
	 * c's peer shut its side (err 0) or the read failed (-errno).
	 * Return 1 to keep c open for replies still owed (only for err 0:
	 * c leaves the epoll set and rd_closed is set), 0 to close it.
	 */
	int (*on_eof)(struct serve_conn *c, int err, void *arg);
	/* A datagram; return 1 to end the socket's turn early. */
	int (*on_datagram)(const struct serve_dgram *d, const uint8_t *buf,
			   size_t len, uint64_t rx_ns, void *arg);
	/*
	 * Called before each wait (optional): return the longest wait in
	 * ms the program allows (-1: no limit).
	 */
	int (*tick)(void *arg);
};

struct serve_cfg {
	const struct serve_ops *ops;
	void *arg;
	uint64_t max_conns;		/* 0: 1024 */
	uint64_t idle_timeout_ns;	/* 0: connections never expire */
	int busy_poll;			/* never block in epoll_wait */
	unsigned int so_busy_poll_us;	/* SO_BUSY_POLL on every socket (0: off) */
	int peek;			/* see on_data */
	size_t conn_priv;		/* bytes of program state per connection */
};

struct serve_stats {
	uint64_t connections;	/* accepted and served */
	uint64_t refused;	/* over max_conns, out of fds or memory */
	uint64_t idle_closed;	/* expired by idle_timeout_ns */
};

/*
 * Creates the loop: blocks SIGINT/SIGTERM/SIGHUP into a signalfd and
 * ignores SIGPIPE; fits max_conns to RLIMIT_NOFILE (when lowered, a
 * warning is written to note, else note is ""). 0 or -errno (msg says).
 */
int serve_open(const struct serve_cfg *cfg, struct serve **out,
	       char *note, size_t notelen, char *msg, size_t msglen);
/* Closes every connection and the loop's own fds; NULL is a no-op. */
void serve_close(struct serve *s);

/* Listens on host:port with tag; *bound gets the port (0 picks one). */
int serve_listen(struct serve *s, enum net_proto proto, const char *host,
		 uint16_t port, int tag, uint16_t *bound, char *msg,
		 size_t msglen);
/* Writes the listeners' ports ("P1 P2\n") to path. */
int serve_write_port_file(struct serve *s, const char *path, char *msg,
			  size_t msglen);

/* Runs until a signal or serve_stop(). 0, or -errno from epoll_wait. */
int serve_run(struct serve *s);
void serve_stop(struct serve *s);
/* True when SIGINT/SIGTERM/SIGHUP is waiting (for long busy-waits). */
int serve_signal_pending(struct serve *s);

/* max_conns in force (after serve_open fitted it). */
uint64_t serve_max_conns(const struct serve *s);
void serve_stats(const struct serve *s, struct serve_stats *st);

void *serve_conn_priv(struct serve_conn *c);
/* Closes c's fd now; c itself is freed once unreferenced, after the turn. */
void serve_conn_close(struct serve *s, struct serve_conn *c);
void serve_conn_hold(struct serve_conn *c);
/*
 * pause 1: c is not read (its turn ends at once) until called again with
 * 0; its requests wait in the kernel. For a program's back-pressure, e.g.
 * a relay that stops reading a client with too many requests in flight.
 */
void serve_conn_pause(struct serve *s, struct serve_conn *c, int pause);
/* The holds on c not yet put (e.g. a relay's requests in flight for it). */
static inline unsigned serve_conn_refs(const struct serve_conn *c)
{
	return c->refs;
}
void serve_conn_put(struct serve *s, struct serve_conn *c);

/* The program's own fds: events are EPOLLIN/EPOLLOUT bits. */
int serve_fd_add(struct serve *s, struct serve_fd *w, uint32_t events);
int serve_fd_mod(struct serve *s, struct serve_fd *w, uint32_t events);
void serve_fd_del(struct serve *s, struct serve_fd *w);

#endif
