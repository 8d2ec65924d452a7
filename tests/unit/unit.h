/* SPDX-License-Identifier: GPL-2.0 */
/* One Check suite per lib/ module; main.c runs them all. */
#ifndef WB_UNIT_H
#define WB_UNIT_H

#include <check.h>

/* Writes text to path (created or truncated); fails the test on error. */
void unit_put(const char *path, const char *text);
/* A file's text (at most 8 KiB, static buffer; "" when it cannot be read). */
char *unit_slurp(const char *path);
/* Removes a test's scratch tree (no shell); 0 or -1. */
int unit_rmtree(const char *dir);

Suite *prng_suite(void);
Suite *arrival_suite(void);
Suite *hist_suite(void);
Suite *proto_suite(void);
Suite *clock_suite(void);
Suite *opt_suite(void);
Suite *csv_suite(void);
Suite *cstate_suite(void);
Suite *hillclimb_suite(void);
Suite *timeline_suite(void);
Suite *attrib_suite(void);
Suite *trace_suite(void);
Suite *stats_suite(void);
Suite *runcheck_suite(void);
Suite *wbinst_suite(void);
Suite *srvlimit_suite(void);
Suite *relay_suite(void);
Suite *pqplan_suite(void);
Suite *tally_suite(void);
Suite *schedule_suite(void);
Suite *stage_suite(void);
Suite *sweepspec_suite(void);
Suite *sweepcsv_suite(void);
Suite *sweepcollect_suite(void);
Suite *cli_suite(void);
Suite *serve_suite(void);
Suite *sweepplan_suite(void);
Suite *sweepcmd_suite(void);
Suite *kv_suite(void);
Suite *energy_suite(void);
Suite *figdata_suite(void);
Suite *tracewrite_suite(void);
Suite *socwatch_suite(void);
Suite *hwcstate_suite(void);
Suite *sweepmerge_suite(void);
Suite *spectrum_suite(void);
Suite *ivstat_suite(void);
Suite *gof_suite(void);
Suite *wake_suite(void);
Suite *cpuset_suite(void);
Suite *govstat_suite(void);
Suite *proccpu_suite(void);
Suite *datfile_suite(void);
Suite *rateprof_suite(void);
Suite *hdrlog_suite(void);
Suite *sweepsearch_suite(void);

#endif
