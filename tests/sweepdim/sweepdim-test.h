/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two dimensions that exist only in tests/sweepdim's build: rows added to
 * lib/sweep/sweepdim.h's table (SWEEPDIM_ADDED) and nothing else. frobs
 * applies to every point; pq_frobs only where the client pre-queries.
 */
#ifndef WB_SWEEPDIM_TEST_H
#define WB_SWEEPDIM_TEST_H

#define SWEEPDIM_TEST_ROWS(X)						\
	X(FROBS, "frobs", "frobs", "fr", LIST, isint, "1",		\
	  "a whole number", "", "-", NULL, CONFIG, "fr-",		\
	  "frobs per request (default: 1)")				\
	X(PQ_FROBS, "pq-frobs", "pq_frobs", "pqf", LIST, isyesno, "no",	\
	  "no or yes", "prequery!=off", "-", NULL, PAIR, "pqf-",		\
	  "no yes: frob the pre-query (default: no)")

#endif
