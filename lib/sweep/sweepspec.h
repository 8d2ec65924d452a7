/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweepspec: the spec of a wakebench sweep. One table of keys (list or
 * scalar, validator, default); a spec text of `key = v1 v2` lines ('#'
 * comments, '_' or '-' in keys) read with FILE:LINE errors; command-line
 * overrides merged on top; every value type-checked; defaults resolved
 * (rate -> interval-us, server-bind, the three CPUs); the result written
 * canonically, one `key = value` line per key, sorted. --resume compares
 * what it is given with the spec a sweep recorded.
 *
 * Errors come back as -errno with a message; a value that fails its type
 * says "invalid <key with underscores> '<value>' (<what is expected>)".
 */
#ifndef WB_SWEEPSPEC_H
#define WB_SWEEPSPEC_H

#include <stddef.h>
#include <stdio.h>

#include "sweepdim.h"

/*
 * The keys. Those of the dimensions added since lib/sweep/sweepdim.h's
 * table come from it, after the others (the older ones are listed here:
 * their order is the order --resume reports differences in).
 */
enum sweepspec_key {
	SK_DIST, SK_INTERVAL_US, SK_RATE, SK_PREQUERY, SK_WINDOW, SK_WARMUP,
	SK_CSTATES, SK_SERVICE_US, SK_REQUESTS, SK_REPS, SK_SEED, SK_WAIT,
	SK_CLIENT_CPU, SK_SERVER_CPU, SK_SERVER_EXEC, SK_CLIENT_EXEC,
	SK_SERVER_ADDR, SK_SERVER_BIND, SK_SERVER_PORT,
	/* the thesis' modes (issue 15): dimensions unless noted */
	SK_TIERS, SK_CLOSED, SK_PREQUERY_AT, SK_PREQUERY_ACK,
	SK_PREQUERY_RECEIVER, SK_WARMUP_MODE,
	SK_WARMUP_INTERVAL_US, SK_WARMUP_DIST,		/* one value */
	SK_TIMER_SLACK_NS, SK_PERCENTILE_RULE,		/* rule: one value */
	SK_SERVER_CSTATES, SK_CLIENT_CSTATES, SK_MIDTIER_CSTATES,
	SK_CPU, SK_DELAY, SK_WORK_US, SK_HELPER_WAIT,
	SK_MIDTIER_CPU, SK_HELPER_CPU, SK_DURATION,	/* one value */
	SK_TURBOSTAT_SHOW, SK_TURBOSTAT_HIDE,		/* one value */
	/* real servers (issue 16): backend a dimension, the rest one value */
	SK_BACKEND, SK_LEAVES, SK_ROUTE, SK_GET_RATIO, SK_KEYS, SK_KEY_SIZE,
	SK_VALUE_SIZE, SK_KEY_DIST, SK_PRELOAD,
	/* several client agents (issue 19): one value */
	SK_START_MARGIN_MS,
	/* the order of the runs (issue 31): one value */
	SK_ORDER,
	/* where the default CPUs go on a big host (issue 33): one value */
	SK_PLACEMENT,
	/* a point this machine cannot apply: skipped (issue 35): one value */
	SK_SKIP_UNSUPPORTED,
	/* sweep --search (issue 36, lib/sweepsearch): one value each */
	SK_SEARCH, SK_SEARCH_RANGE, SK_SEARCH_TOL,
#define SWEEPSPEC_KEY_(id, ...) SK_##id,
	SWEEPDIM_ADDED(SWEEPSPEC_KEY_)
#undef SWEEPSPEC_KEY_
	SK_NKEYS
};

/* Where a value came from: the default, a spec file, the command line. */
enum sweepspec_src { SS_DEFAULT, SS_FILE, SS_CLI };

struct sweepspec {
	char *val[SK_NKEYS];		/* never NULL after init */
	unsigned char src[SK_NKEYS];	/* enum sweepspec_src */
};

/* Whether key names A and B are the same, '-' and '_' alike. */
int sweepspec_same_key(const char *a, const char *b);
/* The key named NAME ('-' or '_'), or -1. */
int sweepspec_key(const char *name);
/* The option name of key K ("interval-us"). */
const char *sweepspec_name(int k);

/* The number of words of a list value V (white space separated). */
size_t sweepspec_count_words(const char *v);
/*
 * The end of a plain decimal at P (digits, optionally '.' and digits: no
 * sign, exponent, "inf" or hex, which strtod alone would take), or NULL
 * when P does not start with one.
 */
const char *sweepspec_decimal_end(const char *p);

/* The default value of key K ("" for one resolved later or empty). */
const char *sweepspec_default(int k);

/* Every key at its default; -ENOMEM. */
int sweepspec_init(struct sweepspec *s);
void sweepspec_free(struct sweepspec *s);

/* Sets key NAME to VAL (from SRC); -ENOENT for an unknown key. */
int sweepspec_set(struct sweepspec *s, const char *name, const char *val,
		  enum sweepspec_src src);

/*
 * Reads a spec text (LEN bytes, NULs are errors) named FNAME in messages:
 * "FNAME:LINE: expected 'key = values'", "FNAME:LINE: unknown key 'k'".
 * Returns 0, -EINVAL with the message, or -ENOMEM.
 */
int sweepspec_parse(struct sweepspec *s, const char *text, size_t len,
		    const char *fname, enum sweepspec_src src, char *err,
		    size_t errlen);

/*
 * Checks every value for its type, in a fixed order (the first bad one
 * is reported) and resolves the defaults: interval-us from rate (refused
 * when interval-us came from the command line too), server-bind from
 * server-addr, the server CPU (0, or the first CPU that is not the
 * client's) and the client CPU (the first that is not the server's) out
 * of NCPUS. Lists are rewritten with single spaces. -EINVAL with the
 * message, or -ENOMEM.
 */
int sweepspec_resolve(struct sweepspec *s, int ncpus, char *err,
		      size_t errlen);

/*
 * Whether this machine can apply value V of dimension D (enum
 * sweepdim_index) of a resolved spec whose server runs here (not through
 * server-exec): a governor must be in cpuidle's available_governors, an
 * so_busy_poll settable (tried on a socket), a haltpoll_ns needs the
 * haltpoll cpuidle driver and its writable guest_halt_poll_ns; other
 * dimensions are not checked. 0, or -EOPNOTSUPP with the value and the
 * reason in ERR.
 */
int sweepspec_here(const struct sweepspec *s, int d, const char *v, char *err,
		   size_t errlen);
/*
 * Whether this machine can apply every value V of a point (one per
 * dimension, in table order, after collapse): sweepspec_here for each,
 * and for memcached and redis an so_busy_poll through the sysctls
 * net.core.busy_read and busy_poll (writable). 0, or -EOPNOTSUPP with
 * the first value that cannot be applied and why in ERR.
 */
int sweepspec_here_point(const struct sweepspec *s, const char *const *v,
			 char *err, size_t errlen);

/*
 * The type check of key K alone (what resolve does for it, without the
 * defaults): 0, or -EINVAL with the message.
 */
int sweepspec_check(const struct sweepspec *s, int k, int ncpus, char *err,
		    size_t errlen);

/*
 * --resume: REC is the recorded, resolved spec; every key GIVEN has from
 * a spec file or the command line must equal it (lists compared word by
 * word), except reps, which may grow (the plan then grows with it).
 * -EINVAL naming the key, the recorded and the given value.
 */
int sweepspec_compare(const struct sweepspec *rec,
		      const struct sweepspec *given, char *err, size_t errlen);

/*
 * Client agents: client-exec holds one command prefix per agent, the
 * word '|' between two (`ssh hostA | ssh hostB`; an empty prefix runs
 * that agent on this host). At most SWEEPSPEC_MAX_AGENTS.
 */
#define SWEEPSPEC_MAX_AGENTS 64
#define SWEEPSPEC_AGENT_SEP "|"
/* The number of client agents of S (1 without a '|'). */
int sweepspec_agents(const struct sweepspec *s);
/*
 * Agent K's prefix (0-based): its words joined by single spaces into BUF
 * ("" for this host). 0, -ENOENT (no agent K) or -ENAMETOOLONG.
 */
int sweepspec_agent_exec(const struct sweepspec *s, int k, char *buf,
			 size_t len);

/* `key = value` lines, sorted by key. 0 or -EIO. */
int sweepspec_write(const struct sweepspec *s, FILE *f);

#endif
