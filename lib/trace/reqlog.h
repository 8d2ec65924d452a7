/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reqlog: the per-request files `wakebench trace attribute` joins with a
 * trace, read as streams (memory bounded whatever their length) and
 * strictly (every field checked for type and range; a bad row is
 * "FILE:LINE: what is wrong", never skipped):
 *   - the server's --log: seq,type,recv_ns,send_ns,... (type request or
 *     prequery; send_ns empty when not answered)
 *   - the client's requests.csv: seq,...,latency_ns,...,server_recv_ns,
 *     server_send_ns,... (empty latency: no reply)
 *   - request markers in a trace: "wb recv SEQ", "wb pqrecv SEQ"
 *
 * Joining client rows with the server's requests: the client's seq is
 * the server's seq only when the client talked to that server directly;
 * a midtier renumbers requests towards its backend (its own counter) but
 * passes the backend's receive and send times back to the client. So a
 * server log row joins the client row with the same (server_recv_ns,
 * server_send_ns); a marker (which has only seq and a time) joins the
 * client row of its seq only if the marker's time lies within that row's
 * server_recv_ns..server_send_ns, which a renumbered seq fails.
 */
#ifndef WB_REQLOG_H
#define WB_REQLOG_H

#include <stddef.h>
#include <stdint.h>
#include "attrib.h"

/*
 * The server's log, row by row in receive order (rows with one receive
 * time keep their file order). wakebench's server writes it in that
 * order; rows up to REQLOG_REORDER lines out of place are put back, one
 * further away is an error naming its line. Memory: REQLOG_REORDER rows.
 */
#define REQLOG_REORDER 4096
struct reqlog_server;
int reqlog_server_open(const char *path, struct reqlog_server **s, char *err,
		       size_t errlen);
/* 1 with *m, 0 at the end, -EINVAL (a bad row: "FILE:LINE: what"). */
int reqlog_server_next(struct reqlog_server *s, struct attr_msg *m, char *err,
		       size_t errlen);
void reqlog_server_close(struct reqlog_server *s);
/* The whole log into *msgs (malloc'd, receive order). 0 or -errno. */
int reqlog_read_server(const char *path, struct attr_msg **msgs, size_t *n,
		       char *err, size_t errlen);

struct cli_row {
	uint64_t seq;
	uint64_t latency_ns;		/* 0: no reply */
	uint64_t srv_recv_ns, srv_send_ns;	/* 0: unknown */
	uint64_t pq_lead_ns;		/* prequery_lead_ns; 0: none, together
					 * or an older file without it */
	uint64_t sent_ns;		/* the client's send (its clock); 0:
					 * unknown */
	unsigned int line;
};

/*
 * The client's rows joined to the server's messages as those come, in
 * receive order: by (server_recv_ns, server_send_ns) for a server log
 * (two rows with the same times cannot be told apart: neither joins), or
 * by seq for markers. requests.csv is in seq order, which is the servers'
 * receive order but for the requests in flight at once: the rows are read
 * ahead up to REQLOG_HORIZON_NS of server time past the message looked
 * for (at most REQLOG_WINDOW rows held), and let go once the server's
 * time has passed them. A row that comes later than that is counted
 * (reqlog_join_late), never joined wrongly. A seq seen twice in the
 * window is an error.
 */
#define REQLOG_HORIZON_NS 100000000ull
#define REQLOG_WINDOW (1u << 20)
struct reqlog_join;
int reqlog_join_open(const char *path, int by_seq, struct reqlog_join **j,
		     char *err, size_t errlen);
/* 1 with *row, 0 when no row joins, -EINVAL (a bad row) or -ENOMEM. */
int reqlog_join_find(struct reqlog_join *j, uint64_t seq, uint64_t recv_ns,
		     uint64_t send_ns, struct cli_row *row, char *err,
		     size_t errlen);
uint64_t reqlog_join_late(const struct reqlog_join *j);
void reqlog_join_close(struct reqlog_join *j);

/*
 * A request marker: 1 with *seq and *prequery set for "wb recv SEQ" or
 * "wb pqrecv SEQ", 0 for any other text, -EINVAL for one of those with a
 * bad SEQ (what in err).
 */
int reqlog_marker(const char *text, uint64_t *seq, int *prequery, char *err,
		  size_t errlen);

#endif
