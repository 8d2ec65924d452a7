// SPDX-License-Identifier: GPL-2.0
/*
 * Runs every unit suite. Check's closing line ("100%: Checks: N, ...") is
 * what CI reads; the exit code is non-zero on any failure.
 */
#include <stdlib.h>
#include "unit.h"

int main(void)
{
	Suite *(*const suites[])(void) = {
		prng_suite, arrival_suite, hist_suite, proto_suite,
		clock_suite, opt_suite, csv_suite, cstate_suite,
		hillclimb_suite, timeline_suite, attrib_suite,
		trace_suite, stats_suite, runcheck_suite, wbinst_suite, srvlimit_suite,
		relay_suite, pqplan_suite, tally_suite, schedule_suite,
		stage_suite, sweepspec_suite, sweepcsv_suite, sweepcollect_suite,
		cli_suite, serve_suite, sweepplan_suite, sweepcmd_suite, kv_suite, energy_suite,
		figdata_suite,
		tracewrite_suite, socwatch_suite,
		hwcstate_suite, sweepmerge_suite, spectrum_suite, ivstat_suite,
		gof_suite,
		wake_suite,
		cpuset_suite,
		govstat_suite,
		proccpu_suite,
		datfile_suite,
		rateprof_suite,
		hdrlog_suite,
		sweepsearch_suite,
	};
	SRunner *sr;
	int failed;

	/*
	 * Check's 4 s default turns a busy shared machine into failures;
	 * the tests are bounded by their own sizes, not by wall time.
	 */
	setenv("CK_DEFAULT_TIMEOUT", "300", 0);
	sr = srunner_create(NULL);
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
