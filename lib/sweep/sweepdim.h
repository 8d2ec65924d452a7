/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweepdim: the dimensions of a sweep, declared once.
 *
 * A dimension is a spec key whose value is a list: every value is a point
 * of the sweep's matrix. Each row of SWEEPDIM_TABLE below says everything
 * the sweep does with one: the spec parser (lib/sweep/sweepspec), the
 * plan, its collapse rules and point names (sweepplan), the sweep.csv
 * column (sweepcollect, sweepcsv, wakebench stats), the figure labels
 * (lib/fig/figpairs) and the help of `wakebench sweep` (sweepdim_usage)
 * all read it, and none has a list of its own.
 *
 * A row is
 *   X(ID, OPT, COL, ABBR, KIND, VALID, DEF, HINT, NEEDS, GONE, FOLLOWS,
 *     FIG, TAG, HELP)
 *   ID      the key's name in code: enum sweepspec_key SK_<ID>, and
 *           enum sweepdim_index SWEEPDIM_<ID> (its place in the table)
 *   OPT     spec key and option name ("interval-us")
 *   COL     plan.txt key and sweep.csv column ("interval_us")
 *   ABBR    in point names: "_<ABBR>-<value>"
 *   KIND    LIST (one value at least) or OPTLIST (empty: see FOLLOWS)
 *   VALID   the word check, a validator of lib/sweep/sweepspec.c
 *           (isint: a whole number, isnum, isposnum, isyesno, ...)
 *   DEF     the default list
 *   HINT    what a bad value's message says is expected
 *   NEEDS   when the dimension applies to a point: "" (always) or
 *           space-separated conditions on the point's other values after
 *           their own collapse, COL=VALUE or COL!=VALUE, all of which
 *           must hold ("tiers=3 cpu!=none")
 *   GONE    the value where it does not apply ("-": empty in sweep.csv)
 *   FOLLOWS NULL, or the COL whose value an empty list takes (a tier's
 *           C-states follow cstates); such a key is in point names when
 *           given at all, and left out of labels when it equals that one
 *   FIG     NONE (not in figure labels: dist and interval_us make the
 *           label's base, prequery and delay are the pair's two sides),
 *           CONFIG (the configuration's label) or PAIR (the pre-query
 *           side's label only)
 *   TAG     the label part: "/<TAG><value>", left out for the default
 *   HELP    `wakebench sweep --help` text after "--OPT LIST", lines
 *           separated by '\n'; a line starting with a tab is an option
 *           line of its own (another spelling: --rate for --interval-us)
 *
 * The table's order is the plan's and plan.txt's. Three groups, in that
 * order: SWEEPDIM_FIRST, the six of sweep.csv's first version, always in
 * point names, its columns before `requests`; SWEEPDIM_LATER, those three
 * tiers and real servers added (their SK_ keys predate the table, in
 * sweepspec.h's enum), their columns after behind_reason in sweep.csv and
 * after ci_label in stats' summary.csv; and SWEEPDIM_ADDED: a new
 * dimension is one row at its end, and nothing else (its SK_ key comes
 * from the row).
 *
 * Columns are only ever appended: users' scripts index sweep.csv and
 * summary.csv by position. So SWEEPDIM_ADDED's columns are not next to
 * the others but the files' last block, in table order (sweep.csv: after
 * the cost_* columns; summary.csv: after pareto_p99), from
 * SWEEPDIM_ADDED_FROM on: a new row's column is appended at the end of
 * both files by itself. The price: a metric column added later must be
 * written after this block, explicitly, by the writer that adds it
 * (sweepcollect_header and _row, stats' summary_header and summary_row),
 * never before it; and from then on a new row no longer lands at the end
 * by itself: it starts a group of its own, written after that metric.
 * The released headers in tests/golden/released/ must stay prefixes of
 * today's (t-golden, and unit sweepcollect's released_header_prefix).
 *
 * Built with -DSWEEPDIM_TEST (tests/sweepdim), the rows of
 * SWEEPDIM_TEST_ROWS in sweepdim-test.h are added at the end: the test
 * that a row alone makes a dimension.
 */
#ifndef WB_SWEEPDIM_H
#define WB_SWEEPDIM_H

#include <stddef.h>
#include <stdio.h>

#define SWEEPDIM_CS_HINT \
	"on, off, max-latency-us=N, system-off or system-max-latency-us=N"

#define SWEEPDIM_FIRST(X)						\
	X(DIST, "dist", "dist", "dist", LIST, isdist, "exp",		\
	  "a gap law of the client's --dist: exp, fb-etc, onoff:20,80...", \
	  "",								\
	  "-", NULL, NONE, NULL,					\
	  "gap laws of the client's --dist, parameters included:\n"	\
	  "fixed exp poisson lognormal:SIGMA pareto:ALPHA gev:XI,SIGMA\n" \
	  "weibull:K fb-etc onoff:ON_MS,OFF_MS mmpp:R1,R2,T12,T21\n"	\
	  "(default: exp)")						\
	X(INTERVAL_US, "interval-us", "interval_us", "int", LIST,	\
	  isposnum, "1000", "a mean gap in us, above 0", "", "-", NULL,	\
	  NONE, NULL,							\
	  "mean gaps in us (default: 1000)\n"				\
	  "\t--rate LIST            requests per second instead of --interval-us") \
	X(PREQUERY, "prequery", "prequery", "pq", LIST, ispq, "off",	\
	  "off, adaptive or a lead in us", "tiers=2", "off", NULL,	\
	  NONE, NULL,							\
	  "the client's: off, a lead in us, or adaptive\n"		\
	  "(default: off; two tiers only)")				\
	X(WARMUP, "warmup", "warmup", "wu", LIST, isint, "0",		\
	  "a whole number of requests", "", "-", NULL, CONFIG, "wu",	\
	  "warm-up requests (default: 0)")				\
	X(CSTATES, "cstates", "cstates", "cs", LIST, iscs, "on",	\
	  SWEEPDIM_CS_HINT, "", "-", NULL, CONFIG, "cs-",		\
	  "on off max-latency-us=N system-off ... (default:\n"		\
	  "on), for every tier without a list of its own:")		\
	X(SERVICE_US, "service-us", "service_us", "svc", LIST, isnum,	\
	  "0", "a number of us", "backend=wakebench", "-", NULL,	\
	  CONFIG, "svc",						\
	  "the server's work per request (default: 0)")

#define SWEEPDIM_LATER(X)						\
	X(TIERS, "tiers", "tiers", "tiers", LIST, istiers, "2",		\
	  "2 (client, server) or 3 (client, midtier, server)", "", "-",	\
	  NULL, CONFIG, "tiers-",					\
	  "2 (client -> server) or 3 (client -> midtier ->\n"		\
	  "server) (default: 2)")					\
	X(CLOSED, "closed", "closed", "closed", LIST, isyesno, "no",	\
	  "no or yes", "", "-", NULL, CONFIG, "closed-",		\
	  "no yes: closed loop (default: no)")				\
	X(PREQUERY_AT, "prequery-at", "prequery_at", "at", LIST, isat,	\
	  "lead", "lead, gap-start or sleep-after", "prequery!=off",	\
	  "-", NULL, PAIR, "at-",					\
	  "lead gap-start sleep-after (default: lead)")			\
	X(PREQUERY_ACK, "prequery-ack", "prequery_ack", "ack", LIST,	\
	  isyesno, "no", "no or yes",					\
	  "prequery!=off backend=wakebench", "-", NULL, PAIR, "ack-",	\
	  "no yes: the pre-query gets a reply the client\n"		\
	  "discards (default: no)")					\
	X(PREQUERY_RECEIVER, "prequery-receiver", "prequery_receiver",	\
	  "rcv", LIST, isreceiver, "server", "server or separate",	\
	  "prequery!=off backend=wakebench", "-", NULL, PAIR, "rcv-",	\
	  "server: the server's pre-query port;\n"			\
	  "separate: a second server process with\n"			\
	  "--prequery-only on the server's CPU (the\n"			\
	  "thesis' layout) (default: server)")				\
	X(WARMUP_MODE, "warmup-mode", "warmup_mode", "wum", LIST,	\
	  iswumode, "schedule", "schedule or burst", "warmup!=0", "-",	\
	  NULL, CONFIG, "wum-",						\
	  "schedule burst (default: schedule)")				\
	X(TIMER_SLACK_NS, "timer-slack-ns", "timer_slack_ns", "slack",	\
	  LIST, isslack, "1", "a whole number of ns, at least 1", "",	\
	  "-", NULL, CONFIG, "slack-",					\
	  "the client's timer slack (default: 1)")			\
	X(SERVER_CSTATES, "server-cstates", "server_cstates", "scs",	\
	  OPTLIST, iscs, "", SWEEPDIM_CS_HINT, "", "-", "cstates",	\
	  CONFIG, "scs-",						\
	  "the server's (the thesis: the server only)")			\
	X(CLIENT_CSTATES, "client-cstates", "client_cstates", "ccs",	\
	  OPTLIST, iscs, "", SWEEPDIM_CS_HINT, "cpu!=none", "-",	\
	  "cstates", CONFIG, "ccs-", "the client's")			\
	X(MIDTIER_CSTATES, "midtier-cstates", "midtier_cstates", "mcs",	\
	  OPTLIST, iscs, "", SWEEPDIM_CS_HINT, "tiers=3 cpu!=none", "-",	\
	  "cstates", CONFIG, "mcs-", "the midtier's")			\
	X(CPU, "cpu", "cpu", "cpu", LIST, ispin, "pinned",		\
	  "pinned (each tier on its CPU) or none (the scheduler's)", "",	\
	  "-", NULL, CONFIG, "cpu-",					\
	  "pinned (each tier on its CPU) or none (every\n"		\
	  "tier left to the scheduler) (default: pinned)")		\
	X(DELAY, "delay", "delay", "delay", LIST, ispq, "off",		\
	  "off, adaptive or the midtier's pre-query delay in us",	\
	  "tiers=3", "-", NULL, NONE, NULL,				\
	  "the midtier's pre-query: off, a delay in us, or\n"		\
	  "adaptive (default: off; three tiers only)")			\
	X(WORK_US, "work-us", "work_us", "work", LIST, isnum, "0",	\
	  "a number of us", "tiers=3", "-", NULL, CONFIG, "work-",	\
	  "the midtier's own work per request (default: 0)")		\
	X(HELPER_WAIT, "helper-wait", "helper_wait", "hw", LIST,	\
	  ishelperwait, "block", "block or spin", "tiers=3 delay!=off",	\
	  "-", NULL, PAIR, "hw-",					\
	  "block spin: how the midtier's idle helper waits\n"		\
	  "(default: block)")						\
	X(BACKEND, "backend", "backend", "be", LIST, isbackend,		\
	  "wakebench", "wakebench, memcached or redis", "", "-", NULL,	\
	  CONFIG, "be-",						\
	  "wakebench memcached redis: the server (default:\n"		\
	  "wakebench); memcached (-t 1) and redis-server\n"		\
	  "are started pinned to the server CPU for each\n"		\
	  "run, their version in rep-<n>/server.snapshot.json;\n"	\
	  "the client's pre-queries go in-band")

#ifdef SWEEPDIM_TEST
#include "sweepdim-test.h"
#else
#define SWEEPDIM_TEST_ROWS(X)
#endif

/* New dimensions: one row each, at the end (see above). Issue 35's
 * mitigations first: what each costs is in sweep.csv's cost_* columns. */
#define SWEEPDIM_ADDED(X)						\
	X(SERVER_BUSY_POLL, "server-busy-poll", "server_busy_poll",	\
	  "sbp", LIST, isyesno, "no", "no or yes", "backend=wakebench",	\
	  "-", NULL, CONFIG, "sbp-",					\
	  "no yes: the wakebench server polls without\n"		\
	  "blocking (--busy-poll), its core never idles\n"		\
	  "(default: no)")						\
	X(SO_BUSY_POLL, "so-busy-poll", "so_busy_poll", "sobp", LIST,	\
	  isbusypoll, "0", "a whole number of us, at most 1000000",	\
	  "", "-", NULL, CONFIG, "sobp-",				\
	  "SO_BUSY_POLL in us on the wakebench server's\n"		\
	  "sockets (--so-busy-poll); memcached and redis:\n"		\
	  "the sysctls net.core.busy_read and busy_poll\n"		\
	  "while they run ('wakebench cstate busy-poll',\n"		\
	  "restored) (default: 0, off: as it is)")			\
	X(GOVERNOR, "governor", "governor", "gov", LIST, isgov, "-",	\
	  "a cpuidle governor's name, or - (as it is)", "", "-", NULL,	\
	  CONFIG, "gov-",						\
	  "menu teo ladder haltpoll: the cpuidle governor\n"		\
	  "while the server runs ('wakebench cstate\n"		\
	  "governor', restored) (default: -, as it is)")		\
	X(HALTPOLL_NS, "haltpoll-ns", "haltpoll_ns", "hpns", LIST,	\
	  ishaltpoll, "-", "a whole number of ns, or - (as it is)", "",	\
	  "-", NULL, CONFIG, "hpns-",					\
	  "the guest haltpoll driver's poll window in ns\n"		\
	  "while the server runs ('wakebench cstate\n"		\
	  "haltpoll', restored); a haltpoll guest only\n"		\
	  "(default: -, as it is)")					\
	SWEEPDIM_TEST_ROWS(X)

#define SWEEPDIM_TABLE(X) SWEEPDIM_FIRST(X) SWEEPDIM_LATER(X) SWEEPDIM_ADDED(X)

/* SWEEPDIM_<ID>: a dimension's index in the table; SWEEPDIM_N of them. */
#define SWEEPDIM_INDEX_(id, ...) SWEEPDIM_##id,
enum sweepdim_index { SWEEPDIM_TABLE(SWEEPDIM_INDEX_) SWEEPDIM_N };
#undef SWEEPDIM_INDEX_
/* The six of SWEEPDIM_FIRST (an int). */
#define SWEEPDIM_ONE_(...) + 1
#define SWEEPDIM_NFIRST (0 SWEEPDIM_FIRST(SWEEPDIM_ONE_))
/* The index of SWEEPDIM_ADDED's first dimension: the columns from here on
 * are the last block of sweep.csv and summary.csv (see above). */
#define SWEEPDIM_ADDED_FROM (SWEEPDIM_NFIRST + (0 SWEEPDIM_LATER(SWEEPDIM_ONE_)))
/* ",dist,interval_us,...": string literals of the first six columns. */
#define SWEEPDIM_COMMA_COL_(id, opt, col, ...) "," col
#define SWEEPDIM_FIRST_COLS SWEEPDIM_FIRST(SWEEPDIM_COMMA_COL_)

enum sweepdim_kind { SWEEPDIM_LIST, SWEEPDIM_OPTLIST };
enum sweepdim_fig { SWEEPDIM_FIG_NONE, SWEEPDIM_FIG_CONFIG, SWEEPDIM_FIG_PAIR };

/* One row, as data (the validator stays with sweepspec). */
struct sweepdim {
	int key;		/* enum sweepspec_key */
	const char *opt, *col, *abbr;
	enum sweepdim_kind kind;
	const char *def, *hint, *needs, *gone, *follows;
	enum sweepdim_fig fig;
	const char *tag, *help;
};
extern const struct sweepdim sweepdim_table[SWEEPDIM_N];

/* The dimension whose COL or OPT is NAME ('-' and '_' alike), or -1. */
int sweepdim_find(const char *name);

/*
 * The collapse rules in a form quick to apply: each dimension's NEEDS
 * with the dimensions they name found, and its FOLLOWS.
 */
#define SWEEPDIM_MAX_NEEDS 4
struct sweepdim_rules {
	struct sweepdim_need {
		int dim, neg;		/* COL!=VALUE: neg 1 */
		const char *val;	/* not NUL-terminated: len bytes */
		size_t len;
	} need[SWEEPDIM_N][SWEEPDIM_MAX_NEEDS];
	int nneeds[SWEEPDIM_N];
	int follows[SWEEPDIM_N];	/* -1: none */
};
/*
 * Reads the table's NEEDS and FOLLOWS into R: 0, or -EINVAL naming the row
 * (a condition that is not COL=VALUE or names no dimension).
 */
int sweepdim_rules(struct sweepdim_rules *r, char *err, size_t errlen);
/* Whether dimension D applies to a point of values V (after collapse). */
int sweepdim_applies(const struct sweepdim_rules *r, int d,
		     const char *const *v);
/*
 * Collapses V (one value per dimension, in table order; "" for an empty
 * OPTLIST) in place: a value that does not apply becomes its GONE, an
 * empty one its FOLLOWS' value, until nothing changes (a rule reads the
 * other values after their own collapse).
 */
void sweepdim_collapse(const struct sweepdim_rules *r, const char **v);

/*
 * `wakebench sweep --help`'s dimension lines, in table order, a tier's
 * list right after the one it follows:
 * "  --OPT LIST" padded to column 25, then HELP. 0 or -EIO.
 */
int sweepdim_usage(FILE *f);

#endif
