/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweepcmd: the command lines of one run of a sweep, from its resolved
 * spec (lib/sweepspec) and its plan line (lib/sweepplan): the ports that
 * must be free, each tier the run starts (wakebench servers, memcached or
 * redis-server, the pre-query server, the midtier) with how to tell it is
 * ready and how to find it again through --server-exec, the preloads,
 * the capture around the client, and the client's own command line (one
 * client, or each client agent's share).
 *
 * Every command is a list of words, never a shell line: the sweep runs
 * them as they are (bash "${argv[@]}"), so a value is never re-parsed or
 * globbed. The steps come in the order the sweep runs them; the sweep
 * script only starts, waits for and stops what they name.
 *
 * Errors are -errno with a message; nothing is printed.
 */
#ifndef WB_SWEEPCMD_H
#define WB_SWEEPCMD_H

#include <stddef.h>
#include <stdio.h>

#include "sweepplan.h"
#include "sweepspec.h"

struct sweepcmd_words {
	char **w;
	size_t n, cap;
};

enum sweepcmd_kind {
	SWEEPCMD_PORTS,		/* argv: the server side's ports that must be free */
	SWEEPCMD_TIER,		/* a wakebench tier: ready once file READY holds WANT */
	SWEEPCMD_KV,		/* memcached/redis (WANT): ready once port READY listens */
	SWEEPCMD_SNAPSHOT,	/* the snapshot of kind WANT's server, up to
				 * --software: the caller appends the server's
				 * version, then --out READY */
	SWEEPCMD_RUN,		/* must succeed before the next step; READY says what
				 * it does ("preloading leaf 0") */
	SWEEPCMD_CAPTURE,	/* 'trace capture ... --': the client's command follows */
	SWEEPCMD_CLIENT,	/* the one client of the run */
	SWEEPCMD_AGENT,		/* one client agent: READY is its stderr file */
	SWEEPCMD_NKINDS
};

/* The kinds' names in sweepcmd_write's output ("tier", "kv", ...). */
extern const char *const sweepcmd_kinds[SWEEPCMD_NKINDS];

struct sweepcmd_step {
	enum sweepcmd_kind kind;
	char *name;		/* the file stem in the run directory (NAME.err) */
	char *ready;		/* see the kinds; "" when unused */
	char *want;
	char *pattern;		/* pkill -f pattern of the tier ("" none) */
	struct sweepcmd_words argv;
};

struct sweepcmd {
	struct sweepcmd_step *step;
	size_t n, cap;
};

/* One run: what sweepcmd_build reads. */
struct sweepcmd_in {
	const struct sweepspec *s;	/* resolved */
	const struct sweepplan_run *r;	/* the plan line */
	const char *wb;			/* the wakebench command */
	const char *rundir;		/* DIR/POINT/rep-N */
	const char *user;		/* memcached's -u (the sweep's user) */
	int trace;			/* --trace: the tiers and clients mark */
};

/*
 * The steps of run IN, in order: PORTS, the tiers, the preloads, CAPTURE
 * and, with one client agent, CLIENT. 0, -EINVAL (a plan line without a
 * value the run needs) with the message, or -ENOMEM.
 */
int sweepcmd_build(const struct sweepcmd_in *in, struct sweepcmd *c,
		   char *err, size_t errlen);

/*
 * With several client agents: one AGENT step each, the run's share of
 * requests, gaps, seeds and start times (lib/sweepagent), the first
 * starting MARGIN_MS after NOW_NS (CLOCK_REALTIME); START_AT 0 when an
 * agent's client lacks --start-at. 0, -EINVAL with the message, -ENOMEM.
 */
int sweepcmd_agents(const struct sweepcmd_in *in, long long now_ns,
		    unsigned long margin_ms, int start_at, struct sweepcmd *c,
		    char *err, size_t errlen);

/*
 * Writes the steps of C as NUL-terminated words: per step KIND NAME READY
 * WANT PATTERN ARGC ARGV... (what the sweep script reads with mapfile -d
 * ''). 0 or -EIO.
 */
int sweepcmd_write(const struct sweepcmd *c, FILE *f);

/*
 * Reads what sweepcmd_write wrote (TEXT, LEN bytes) back into C. 0,
 * -EINVAL (truncated or not that format) or -ENOMEM.
 */
int sweepcmd_read(const char *text, size_t len, struct sweepcmd *c);

void sweepcmd_free(struct sweepcmd *c);

/*
 * What went wrong with a client agent, from its stderr TEXT (LEN bytes):
 * its last line that is not a "Try '...--help'" hint, with a hint of its
 * own when it names --start-at (the agent started after the agreed
 * time), or "no message". Into BUF, cut to LEN.
 */
void sweepcmd_agent_err(const char *text, size_t len, char *buf, size_t buflen);

/*
 * Splits command prefix TEXT into words at spaces and tabs (as bash's
 * read -a does), appending them to W. 0 or -ENOMEM.
 */
int sweepcmd_split(const char *text, struct sweepcmd_words *w);

/* Appends WORD to W. 0 or -ENOMEM. */
int sweepcmd_add(struct sweepcmd_words *w, const char *word);

#endif
