/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reqlog: the per-request files `wakebench trace attribute` joins with a
 * trace, read strictly (every field checked for type and range; a bad
 * row is "FILE:LINE: what is wrong", never skipped):
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

/* Reads the server log into *msgs (malloc'd, file order). 0 or -errno. */
int reqlog_read_server(const char *path, struct attr_msg **msgs, size_t *n,
		       char *err, size_t errlen);

struct cli_row {
	uint64_t seq;
	uint64_t latency_ns;		/* 0: no reply */
	uint64_t srv_recv_ns, srv_send_ns;	/* 0: unknown */
	uint64_t pq_lead_ns;		/* prequery_lead_ns; 0: none, together
					 * or an older file without it */
	unsigned int line;
};

struct cli_rows {
	struct cli_row *by_seq, *by_time;
	size_t n;
};

/* Reads requests.csv; a seq seen twice is an error. 0 or -errno. */
int reqlog_read_client(const char *path, struct cli_rows *c, char *err,
		       size_t errlen);
void reqlog_client_free(struct cli_rows *c);
const struct cli_row *reqlog_by_seq(const struct cli_rows *c, uint64_t seq);
/* The row with these server times (both non-zero), or NULL. */
const struct cli_row *reqlog_by_times(const struct cli_rows *c,
				      uint64_t recv_ns, uint64_t send_ns);

/*
 * A request marker: 1 with *seq and *prequery set for "wb recv SEQ" or
 * "wb pqrecv SEQ", 0 for any other text, -EINVAL for one of those with a
 * bad SEQ (what in err).
 */
int reqlog_marker(const char *text, uint64_t *seq, int *prequery, char *err,
		  size_t errlen);

#endif
