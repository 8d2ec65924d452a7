/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tally: what a client summary counts (DESIGN.md "Client").
 *
 * The run has one record per request, warm-up first, and tallies each
 * once it is done (tally_add; tally_run over an array). Every counter of a
 * summary (requests, errors, unanswered, late sends, pre-queries sent,
 * skipped and late) is over the MEASURED requests only, those from index
 * `warmup` on that were sent. The warm-up requests are tallied apart, in
 * their own struct, and a summary shows them only under warmup_* names.
 * A pre-query belongs to the request it was planned for, so a measured
 * request's pre-query counts even when it left during the warm-up's last
 * gap. For every measured request sent with pre-queries on,
 * prequeries_sent + prequeries_skipped is 1.
 */
#ifndef WB_TALLY_H
#define WB_TALLY_H

#include <stdint.h>

enum req_pq {
	REQ_PQ_NONE,		/* pre-queries off */
	REQ_PQ_SENT,
	REQ_PQ_SKIPPED,
	/*
	 * Skipped too, because the client reached its planned time too
	 * late to send it alone before its request (lib/pqplan_fits): a
	 * hiccup at that moment, though the request itself may be on time.
	 */
	REQ_PQ_MISSED,
};

/*
 * One request's life; all times CLOCK_MONOTONIC ns, 0 = did not happen.
 * The client keeps one while the request is in flight and streams it to
 * its row of requests.csv once done (a fixed-size record).
 */
struct req_rec {
	uint64_t seq;		/* in the schedule, warm-up first */
	uint64_t intended_ns;
	uint64_t sent_ns;
	uint64_t recv_ns;
	uint64_t server_recv_ns;
	uint64_t server_send_ns;
	uint64_t prequery_sent_ns;
	uint64_t prequery_plan_ns;	/* planned pre-query send time */
	uint64_t applied_ns;	/* service time the REPLY says the server
				 * applied (it caps at its --max-service-us) */
	uint64_t key;		/* key-value: key number */
	double lead_us;		/* lead in force when it was scheduled */
	uint32_t window;	/* adaptive window it was sent in */
	uint8_t pq;		/* enum req_pq */
	uint8_t error;		/* answered with PROTO_ERROR */
	uint8_t miss;		/* key-value get: the key had no value */
	uint8_t op;		/* key-value: enum proto_op */
};

struct tally {
	uint64_t sent;		/* requests sent */
	uint64_t ok;		/* answered with a reply */
	uint64_t errors;	/* answered with an error */
	uint64_t unanswered;
	uint64_t late;		/* sent more than late_ns after intended */
	uint64_t prequeries_sent, prequeries_skipped;
	uint64_t prequeries_missed;	/* of the skipped: REQ_PQ_MISSED */
	uint64_t prequeries_late;	/* sent more than late_ns after planned */
};

/* Adds one sent request to t. */
void tally_add(struct tally *t, const struct req_rec *q, uint64_t late_ns);
/* Adds src's counts to dst (the threads of one client). */
void tally_merge(struct tally *dst, const struct tally *src);

/*
 * Tallies the first nsent records: those below warmup into *warm (may be
 * NULL), the rest into *measured.
 */
void tally_run(const struct req_rec *reqs, uint64_t nsent, uint64_t warmup,
	       uint64_t late_ns, struct tally *measured, struct tally *warm);

#endif
