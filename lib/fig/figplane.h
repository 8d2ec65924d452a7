/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figplane: the report's latency-cost plane (issue 35), figure 14, from
 * sweep summaries (wakebench stats' summary.csv): per point the cost per
 * request on x (the server-side CPU time, cost_cpu_per_req; where no
 * point has one, the RAPL energy, energy_per_request) and its p50 and
 * p99 latency on y (two panels), every value a median with its CI. Each
 * sweep is a series with its own Pareto front (lib/core/pareto over the
 * medians drawn, the same marks as stats' pareto_p50/pareto_p99 for the
 * CPU cost). A point is labelled by the parameters that vary within its
 * sweep (lib/fig/figcfg's words), so a mitigation's point says what
 * differs from the baseline. Points without a cost are left out and
 * counted.
 */
#ifndef WB_FIGPLANE_H
#define WB_FIGPLANE_H

#include <stddef.h>
#include <stdio.h>

#include "figcfg.h"
#include "pareto.h"

enum { FIGPLANE_CPU, FIGPLANE_ENERGY, FIGPLANE_P50, FIGPLANE_P99, FIGPLANE_NV };

struct figplane_pt {
	struct figcfg cfg;
	char name[160];			/* the sweep's point name */
	int src;
	double med[FIGPLANE_NV], lo[FIGPLANE_NV], hi[FIGPLANE_NV];	/* NAN: none */
	enum pareto_mark front[2];	/* over (cost, p50), (cost, p99) */
};

struct figplane {
	struct figplane_pt *p;
	size_t n, cap;
	char **src;			/* each sweep's name */
	int nsrc;
	char cilabel[64];		/* the first point's CI label */
};

void figplane_init(struct figplane *fp);
void figplane_free(struct figplane *fp);

/*
 * Adds the points of a stats summary.csv at PATH (points with n = 0 left
 * out) as series NAME. 0, or -errno with the message (not a summary, a
 * malformed number naming FILE:LINE).
 */
int figplane_add_sweep(struct figplane *fp, const char *path, const char *name,
		       char *err, size_t errlen);

/*
 * Figure 14. DAT: per series a block (blocks apart by two blank lines),
 * rows sorted by cost:
 *   COST LO HI  P50 LO HI  P99 LO HI  FRONT_P50 FRONT_P99 "LABEL" ODD NUM
 * (ODD: 1 on every other row, whose number goes below its marker so that
 * neighbours' numbers do not print over each other; NUM: the point's
 * number in the key, from 1 across the series)
 * FRONT: per series two blocks, its p50 front then its p99 front, rows
 * "COST LATENCY" sorted by cost (the front joined). VARS: nsrc, sname[],
 * xlabel, xlog (1: the costs span more than a factor 20), cilabel, and
 * the key: npts, plab[NUM] ("NUM LABEL", the series named when several),
 * pmax (the longest one's characters).
 * *NOUT: points left out without a cost. Returns the points drawn, or
 * -ENOMEM.
 */
int figplane_write(struct figplane *fp, FILE *dat, FILE *front, FILE *vars,
		   size_t *nout);

#endif
