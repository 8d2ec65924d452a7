/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sweepplan: the runs of a sweep, from its resolved spec (lib/sweepspec).
 *
 * A run is a point (one value of every dimension) and a repetition. The
 * dimensions are the spec's list keys, in the order of their table
 * (lib/sweep/sweepdim.h, which holds the rules below as data); a value that
 * does not apply to a point is collapsed so that no two runs measure the
 * same thing twice: the client's pre-query keys when it sends none,
 * the midtier's keys with two tiers, the client's pre-query with three
 * (the midtier pre-queries there), helper_wait without a midtier delay,
 * warmup_mode without a warm-up. A collapsed value is "-" (or "off" for
 * the client's prequery, whose column predates three tiers). The
 * per-side C-state keys, when empty, take the point's cstates value; in an
 * unpinned point (cpu = none) only the server's applies (a tier's setting
 * would hold every CPU), so the client's and midtier's are "-".
 *
 * plan.txt has one run per line: "POINT REP key=value ...", every
 * dimension in the fixed order. POINT is the directory name: the six
 * original dimensions always ("dist-exp_int-1000_pq-off_wu-0_cs-on_svc-0"),
 * then "_<abbr>-<value>" for every other dimension whose spec list is
 * not its single default, skipping "-". Plans of older sweeps (eight
 * words: point, rep and the six values) are read too.
 *
 * Errors are -errno with a message; nothing is printed.
 */
#ifndef WB_SWEEPPLAN_H
#define WB_SWEEPPLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sweepspec.h"

/* The dimensions (lib/sweep/sweepdim.h's table, by column name), in
 * plan and sweep.csv order. */
#define SWEEPPLAN_NDIMS SWEEPDIM_N
extern const char *const sweepplan_dims[SWEEPPLAN_NDIMS];
/* The first six: the columns of sweep.csv since its first version. */
#define SWEEPPLAN_NLEGACY SWEEPDIM_NFIRST
/* A point's name is a directory name: at most NAME_MAX bytes. */
#define SWEEPPLAN_NAME_MAX 255
/* sweepplan_build's -ENOTUNIQ, said to the user */
#define SWEEPPLAN_NOTUNIQ_MSG \
	"two values of a dimension give one point name (in names ':' reads '-' and ',' reads '_'): keep one of them"

struct sweepplan_run {
	char *point;
	unsigned long rep;
	char *val[SWEEPPLAN_NDIMS];	/* "-" where it does not apply */
};

struct sweepplan {
	struct sweepplan_run *run;
	size_t n, cap;
};

/*
 * Appends to P every point of the resolved spec S, for repetitions
 * FROM..TO (inclusive), in matrix order (dimensions in order, the last
 * fastest; repetitions innermost). 0, -E2BIG (more than a million runs
 * or 100000 points), -ENAMETOOLONG (a point name over
 * SWEEPPLAN_NAME_MAX bytes: values too long for a directory name),
 * -ENOTUNIQ (two values of a dimension that read alike in a name, where
 * ':' reads '-' and ',' reads '_') or -ENOMEM.
 */
int sweepplan_build(const struct sweepspec *s, unsigned long from,
		    unsigned long to, struct sweepplan *p);
/* Shuffles runs [FROM, n) of P with SEED (Fisher-Yates, lib/prng). */
void sweepplan_shuffle(struct sweepplan *p, size_t from, uint64_t seed);
/*
 * Orders runs [FROM, n) of P in pairs (the spec's order = pairs): by
 * repetition, all the points of a repetition back to back (with two
 * points, a pair run with one seed), in matrix order in odd repetitions
 * and reversed in even ones (AB BA AB ...). Each point then runs first in
 * half of the pairs, so what the position in a pair does (a machine that
 * warms or cools, a drift over the sweep) weighs on both points alike and
 * cancels in the pairs' median; a shuffle balances it only on average,
 * and a fixed order puts it into every pair's ratio. Within a
 * repetition, runs keep their relative order in P. 0 or -ENOMEM.
 */
int sweepplan_pairs(struct sweepplan *p, size_t from);
/* plan.txt lines for runs [FROM, n). 0 or -EIO. */
int sweepplan_write(const struct sweepplan *p, size_t from, FILE *f);
void sweepplan_free(struct sweepplan *p);

/*
 * --dry-run's estimate: what the runs [FROM, n) of P take, in seconds.
 * Per run, its measured part (the spec's duration, else requests times
 * the point's mean gap, plus the lead with prequery_at sleep-after), its
 * warm-up (warmup times warmup-interval-us or the mean gap; a burst: 0),
 * the per-run overhead (starting and stopping the tiers, ports checked,
 * the capture: SWEEPPLAN_OVERHEAD_S, SWEEPPLAN_OVERHEAD_KV_S for
 * memcached and redis, measured on a 2-CPU VM) and, with several client
 * agents, the start margin (auto: SWEEPPLAN_AUTO_MARGIN_S). Closed-loop runs count their gaps only (the
 * replies' time comes on top).
 */
#define SWEEPPLAN_OVERHEAD_S 0.5
#define SWEEPPLAN_OVERHEAD_KV_S 1.1
/* --start-margin-ms auto's guess (the sweep times it before each run) */
#define SWEEPPLAN_AUTO_MARGIN_S 1.0
struct sweepplan_estimate {
	size_t runs;
	double measure_s;	/* measured requests */
	double warmup_s;
	double overhead_s;	/* per-run overhead, all runs */
	double margin_s;	/* agents' start margin, all runs */
	double total_s;
};
void sweepplan_estimate(const struct sweepspec *s, const struct sweepplan *p,
			size_t from, struct sweepplan_estimate *e);

/* The dimension named NAME ('-' or '_'), or -1. */
int sweepplan_dim(const char *name);

/*
 * Splits plan LINE (newline removed, modified in place; the strings
 * point into it) into R (its val[] not owned; absent dimensions ""):
 * -EINVAL with "NAME:LINENO: ..." for a line that is neither form, a
 * point that is not a plain directory name, a rep that is not a whole
 * number, an unknown or repeated key, or a value holding ',' '"' or '/'.
 */
int sweepplan_parse_line(char *line, struct sweepplan_run *r,
			 const char *name, unsigned long lineno, char *err,
			 size_t errlen);

/*
 * Points this machine cannot apply (a governor the kernel lacks, a
 * haltpoll window without the haltpoll driver: sweepspec_here_point),
 * skipped with --skip-unsupported: plan.txt says so in a note before the
 * runs, "# unsupported POINT: WHY" (a line starting with '#' is not a
 * run), and has none of their runs.
 */
#define SWEEPPLAN_SKIP_TAG "# unsupported "
struct sweepplan_skip {
	char *point, *why;
};
struct sweepplan_skips {
	struct sweepplan_skip *v;
	size_t n, cap;
};
/*
 * Moves the runs [FROM, n) of P whose point this machine cannot apply
 * out of P, adding each such point once to SK with why. 0 or -ENOMEM.
 */
int sweepplan_skip_unsupported(const struct sweepspec *s, struct sweepplan *p,
			       size_t from, struct sweepplan_skips *sk);
/* Removes the runs [FROM, n) of P whose point is in SK. */
void sweepplan_drop_skipped(struct sweepplan *p, size_t from,
			    const struct sweepplan_skips *sk);
/* SK as plan.txt's notes. 0 or -EIO. */
int sweepplan_write_skips(const struct sweepplan_skips *sk, FILE *f);
/* The notes of plan text TEXT (LEN bytes) added to SK. 0 or -ENOMEM. */
int sweepplan_read_skips(const char *text, size_t len,
			 struct sweepplan_skips *sk);
void sweepplan_skips_free(struct sweepplan_skips *sk);

/*
 * Whether TEXT (LEN bytes, plan.txt of the sweep whose resolved spec is
 * S) holds exactly the runs of S, in any order, but those of the points
 * its notes skip: 0, or -EINVAL with what differs, -ENOMEM.
 */
int sweepplan_check(const struct sweepspec *s, const char *text, size_t len,
		    const char *name, char *err, size_t errlen);

#endif
