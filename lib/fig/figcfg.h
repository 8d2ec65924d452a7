/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figcfg: the configuration of a run or a sweep point as wakebench
 * report's figures name, order and group it. The parameters are those of
 * a sweep (lib/sweepcsv's sweepcsv_params: dist, interval_us, prequery,
 * ...); a client run's summary.csv is mapped onto them. A parameter a
 * file does not have is "".
 *
 * Labels are words ("exp 5 ms, lead 50 µs, C-states off"): the
 * distribution and mean gap always, then every other parameter that
 * varies across the set being drawn (figcfg_varying), the pre-query
 * last.
 */
#ifndef WB_FIGCFG_H
#define WB_FIGCFG_H

#include <stddef.h>

#include "sweepcsv.h"

#define FIGCFG_NPARAMS SWEEPCSV_NPARAMS
#define FIGCFG_VLEN 64

enum {
	FIGCFG_DIST = 0,
	FIGCFG_INTERVAL = 1,
	FIGCFG_PREQUERY = 2,
	FIGCFG_REQUESTS = 6,
};

struct figcfg {
	char v[FIGCFG_NPARAMS][FIGCFG_VLEN];
};

struct csvtable;

/* The parameters of row R of a sweep.csv or a stats summary.csv. */
void figcfg_from_sweep_row(struct figcfg *c, const struct csvtable *t, size_t r);
/* The parameters of row R of a client summary.csv (dist, interval_us,
 * prequery: off, the lead of a fixed one or adaptive; warmup, cstates,
 * service_us, closed, prequery_at when present). */
void figcfg_from_client_row(struct figcfg *c, const struct csvtable *t, size_t r);
/* From sweepcsv's parameter strings. */
void figcfg_from_params(struct figcfg *c, const char *const *param);

/* The index of the parameter that is the pre-query: delay with three
 * tiers, else prequery. */
int figcfg_pq_param(const struct figcfg *c);
/* Whether the configuration runs without pre-query ("off" or ""). */
int figcfg_is_off(const struct figcfg *c);
/* Whether A and B are equal in every parameter but SKIP (-1: none). */
int figcfg_same_except(const struct figcfg *a, const struct figcfg *b, int skip);
/*
 * Whether OFF (without pre-query) is ON's baseline: equal in every
 * parameter but the pre-query (SKIP) and those OFF does not have. A sweep
 * collapses what does not apply without a pre-query (prequery_at,
 * prequery_ack, prequery_receiver; helper_wait without a delay) to ""
 * in its summary, while ON has them.
 */
int figcfg_baseline_of(const struct figcfg *on, const struct figcfg *off,
		       int skip);

/*
 * Order for figures: distribution, mean gap (numerically), then the other
 * parameters in sweep order (numbers numerically, "off" first), the
 * pre-query last. <0, 0, >0.
 */
int figcfg_cmp(const struct figcfg *a, const struct figcfg *b);

/* MASK[k] = 1 for each parameter with two different values within
 * C[0..N) ("", a value a file does not have, is none). */
void figcfg_varying(const struct figcfg *c, size_t n, unsigned char *mask);

/* figcfg_words' flags */
#define FIGCFG_W_PQ 1		/* name the pre-query */
#define FIGCFG_W_NOGAP 2	/* leave out the distribution and mean gap */
/*
 * The words of C: dist and interval (unless FIGCFG_W_NOGAP), the others
 * where MASK[k] (NULL: none), the pre-query last with FIGCFG_W_PQ.
 * Returns the length (truncated to len - 1, always terminated).
 */
size_t figcfg_words(const struct figcfg *c, const unsigned char *mask,
		    int flags, char *buf, size_t len);
/* The words of the pre-query alone: "no pre-query", "lead 50 µs",
 * "adaptive lead", "delay 20 µs" (three tiers). */
size_t figcfg_pq_words(const struct figcfg *c, char *buf, size_t len);
/* A gap or time in µs as words: "200 µs", "5 ms", "1.5 ms". */
void figcfg_us_words(const char *us, char *buf, size_t len);

#endif
