/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figsum: the figures of wakebench report drawn from summaries: a sweep's
 * summary.csv (wakebench stats: medians with their CIs per point) and
 * client runs' summary.csv (single runs, no interval). Each input belongs
 * to a side (a directory given to wakebench report, named); several sides
 * give one series per side.
 *
 *  figure 1  latency bars, without and with pre-query (avg, p50, p99)
 *  figure 2  speedups (without / with), flagged where the CIs overlap
 *  figure 7  latency against load, one series per full configuration
 *  figure 11 energy per request and power, without and with pre-query
 *
 * A pair is a configuration with pre-query and the one without that is
 * equal in every other parameter, on the same side (else on the one
 * other side that has it). Speedups are ratios of the medians (the
 * baseline's / this, as wakebench stats writes them); CIs overlap when
 * neither lies wholly above the other. Pairs and series come sorted by
 * figcfg_cmp (distribution, mean gap, ..., pre-query), then side.
 */
#ifndef WB_FIGSUM_H
#define WB_FIGSUM_H

#include <stddef.h>
#include <stdio.h>

#include "figcfg.h"

struct figref;

enum { FIGSUM_AVG, FIGSUM_P50, FIGSUM_P99, FIGSUM_EPR, FIGSUM_POWER, FIGSUM_NM };

/*
 * A sweep point's paired effect against its baseline (wakebench stats'
 * paired_* columns, issue 31) for avg, p50 and p99: the median of the
 * ratios baseline / point of runs of the same rep, its CI (NAN: fewer
 * pairs than a 95 % interval needs) and verdict. n = 0: none.
 */
struct figsum_paired {
	double n, coverage;
	double med[3], lo[3], hi[3];
	int verdict[3];			/* enum stats_verdict; -1: none */
};

struct figsum_point {
	struct figcfg cfg;
	char *point;			/* a sweep point's name, else NULL */
	int side;
	int src;			/* the input it came from */
	struct figsum_paired paired;	/* a sweep point's, else n = 0 */
	int single;			/* a client run: no interval */
	double med[FIGSUM_NM], lo[FIGSUM_NM], hi[FIGSUM_NM];	/* NAN: none */
	double n;			/* runs in the medians */
	double n_behind;
	char ci_label[64];		/* "" for a single run */
};

struct figsum {
	struct figsum_point *p;
	size_t n, cap;
	char **side;			/* side names, by index */
	int nsides;
	size_t behind_points;		/* sweep points left without a run:
					 * all of theirs fell behind */
	int nsrc;			/* inputs added */
	struct figref *ref;		/* reference speedups to draw (set by
					 * the caller), or NULL */
};

void figsum_init(struct figsum *s);
void figsum_free(struct figsum *s);
/* The index of side NAME, added when new; -ENOMEM. */
int figsum_side(struct figsum *s, const char *name);

/*
 * Adds the points of a stats summary.csv (points with n = 0 left out,
 * counted in behind_points when their runs fell behind).
 * 0, or -errno with the message (a missing dist/interval_us/prequery
 * column, a malformed number).
 */
int figsum_add_sweep(struct figsum *s, const char *path, int side, char *err,
		     size_t errlen);
/*
 * Adds a client run's summary.csv. Returns 0, 1 when the run is left
 * out (status not ok, or behind schedule without INCLUDE_BEHIND: why in
 * err), or -errno with the message. A run behind its schedule that is
 * kept counts in n_behind, as a sweep point's runs do.
 */
int figsum_add_run(struct figsum *s, const char *path, int side,
		   int include_behind, char *err, size_t errlen);

/*
 * Figure 1, one line per pair:
 *   I "LABEL" N_OFF N_ON  then for avg, p50 and p99:
 *   OFF_MED OFF_LO OFF_HI ON_MED ON_LO ON_HI
 * Figure 2: I "LABEL" SP_AVG SP_P50 SP_P99 OV_AVG OV_P50 OV_P99 (OV: 1
 * the CIs overlap, 0 not, -1 unknown: a single run), then for avg, p50
 * and p99 the paired effect PMED PLO PHI (NaN where there is none: the
 * pair is not a sweep point against its own sweep's baseline, or too
 * few pairs for an interval).
 * VARS gets npairs, cilabel (the sides' CI labels, or "single runs, no
 * interval"), minmax (1 when an interval is the min-max of n < 6 runs),
 * maxlab (the longest label's characters, for the figure's margin),
 * npaired (the pairs with a paired interval).
 * With a reference (s->ref), each line ends in REF_AVG REF_P50 REF_P99,
 * the reference speedups of the pair's point (NaN: none), the rows drawn
 * get their used flag, and VARS gets nref (the values drawn) and refsrc
 * (their distinct sources). Without one, neither.
 * Returns the number of pairs, or -ENOMEM.
 */
int figsum_write_pairs(const struct figsum *s, FILE *bars, FILE *speedup,
		       FILE *vars);

/*
 * The paired effects of the pairs that have one (as figure 2), as CSV
 * for the report's table: configuration,pairs,coverage,avg,p50,p99, each
 * metric "2.857 [2.500, 3.125] faster" (lib/stats' stats_paired_str);
 * with a reference (s->ref) a last column reference, "avg 1.967, p99
 * 1.099: SOURCE" (grouped by source, "; " between groups).
 * Returns the number of rows, or -ENOMEM.
 */
struct csv;
int figsum_write_paired(const struct figsum *s, struct csv *out);

/*
 * Figure 11, the pairs with an energy per request on both sides:
 *   I "LABEL" N_OFF N_ON EPR(off med lo hi, on med lo hi) POWER(same)
 * VARS: npairs, cilabel, maxlab. Returns the number of pairs, or -ENOMEM.
 */
int figsum_write_energy(const struct figsum *s, FILE *dat, FILE *vars);

/*
 * Figure 7: one data block per series (a side and a configuration but
 * for its mean gap and request count), blocks separated by two blank
 * lines (gnuplot's index), rows sorted by load:
 *   LOAD_PER_S X P50 LO HI P99 LO HI N
 * X is LOAD shifted a little per series (log axis) so that the CI bars
 * of series at one load do not overlap. VARS: nseries, names[] (words),
 * nloads, xmin and xmax (the axis: the loads with room), cilabel,
 * maxlab. *NLOADS: the distinct loads (a figure needs two).
 * Returns the number of series, or -ENOMEM.
 */
int figsum_write_load(const struct figsum *s, FILE *dat, FILE *vars,
		      size_t *nloads);

#endif
