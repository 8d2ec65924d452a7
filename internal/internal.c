// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-internal VERB [OPTIONS] ARGS: the helpers wakebench's scripts
 * run, one verb each (lib/cli's verb table parses them, as rtla's
 * subcommands). Not a user's command: `wakebench --help` does not list
 * it, and a verb's output may change with the scripts that read it.
 */
#include "cli.h"
#include "internal.h"

/* the demo's settings, as scripts/demo.sh sets them by default */
static struct demo_opts demo = { .pairs = 10, .requests = 180, .seed = 1,
				 .lead = "100" };

#define DEMO_AT(field) CLI_AT(struct demo_opts, field)

static const struct cli_opt demo_options[] = {
	{ .name = "pairs", .kind = CLI_UINT, .store = CLI_U32, .arg = "N",
	  .min = 1, .max = 1000000, .off = DEMO_AT(pairs),
	  .help = "pairs of runs (default 10)" },
	{ .name = "requests", .kind = CLI_UINT, .store = CLI_U32, .arg = "N",
	  .min = 1, .max = 4e9, .off = DEMO_AT(requests),
	  .help = "measured requests a run (default 180)" },
	{ .name = "lead", .kind = CLI_STRING, .arg = "US", .off = DEMO_AT(lead),
	  .help = "the pre-query's lead, its prequery value (default 100)" },
	{ .name = "seed", .kind = CLI_UINT, .store = CLI_U64, .arg = "S",
	  .max = 1e15, .off = DEMO_AT(seed),
	  .help = "the seed base: pair N ran seed S + N (default 1)" },
	{ .name = "server-cpu", .kind = CLI_UINT, .store = CLI_U32, .arg = "CPU",
	  .max = 1 << 20, .off = DEMO_AT(server_cpu), .help = "the server's CPU" },
	{ .name = "client-cpu", .kind = CLI_UINT, .store = CLI_U32, .arg = "CPU",
	  .max = 1 << 20, .off = DEMO_AT(client_cpu), .help = "the client's CPU" },
	{ .name = "included", .kind = CLI_STRING, .arg = "FILE",
	  .off = DEMO_AT(included),
	  .help = "stats --include-behind's summary: the effect with the pairs\n"
		  "behind schedule counted too" },
	{ .name = "help", .short_name = 'h', .kind = CLI_HELP, .help = "this help" },
	{ .kind = CLI_END }
};

static const struct cli_verb verbs[] = {
	{ .name = "spec", .run = verb_spec, .raw = 1,
	  .help = "check and resolve a sweep's spec and values (see spec --help)" },
	{ .name = "plan", .run = verb_plan, .min_args = 1, .max_args = 1,
	  .args = "SPEC",
	  .help = "print the plan of a resolved spec, in the spec's order" },
	{ .name = "plan-update", .run = verb_plan_update, .min_args = 3,
	  .max_args = 3, .args = "OLDSPEC NEWSPEC PLAN",
	  .help = "check that PLAN is OLDSPEC's, print it and the runs NEWSPEC adds" },
	{ .name = "estimate", .run = verb_estimate, .min_args = 1, .max_args = 1,
	  .args = "SPEC",
	  .help = "the number of runs of a resolved spec and their duration" },
	{ .name = "agents", .run = verb_agents, .min_args = 7, .max_args = 7,
	  .args = "N SEED INTERVAL_US REQUESTS WARMUP WARMUP_INTERVAL_US MARGIN_MS",
	  .help = "each client agent's share of a run, the first at MARGIN_MS from now" },
	{ .name = "port-holders", .run = verb_port_holders, .min_args = 1,
	  .max_args = -1, .args = "PORT...",
	  .help = "read 'ss -Hltnup' on standard input, print who holds each PORT" },
	{ .name = "collect", .run = verb_collect, .min_args = 1, .max_args = 1,
	  .args = "DIR",
	  .help = "build DIR/sweep.csv from its plan, spec and runs' summaries" },
	{ .name = "run-ok", .run = verb_run_ok, .min_args = 1, .max_args = 1,
	  .args = "RUNDIR",
	  .help = "exit 0 when RUNDIR/client/summary.csv says ok, else 1" },
	{ .name = "pairs", .run = verb_pairs, .min_args = 2, .max_args = -1,
	  .args = "OUTDIR SUMMARY...",
	  .help = "OUTDIR/bars.dat and speedup.dat (report figures 1, 2) from summaries" },
	{ .name = "sweep-usage", .run = verb_sweep_usage,
	  .help = "print 'wakebench sweep --help'" },
	{ .name = "sweep-cmd", .run = verb_sweep_cmd, .min_args = 5,
	  .max_args = 7, .args = "SPEC RUNDIR WAKEBENCH TRACE LINE [SHARED START_AT]",
	  .help = "one sweep run's command lines (or its agents'), NUL-separated" },
	{ .name = "run-agents", .run = verb_run_agents, .min_args = 1,
	  .max_args = 1, .args = "FILE",
	  .help = "start the client agents FILE lists, wait for them all" },
	{ .name = "sweep-agents-done", .run = verb_sweep_agents_done, .min_args = 6,
	  .max_args = 6, .args = "SPEC RUNDIR POINT REP RC SHARED",
	  .help = "copy back and merge a run's client agents, say what failed" },
	{ .name = "sweep-agents", .run = verb_sweep_agents, .min_args = 3,
	  .max_args = 3, .args = "SPEC OUT WAKEBENCH",
	  .help = "the sweep's client agents: --start-at, shared DIR, prefixes" },
	{ .name = "sweep-ports", .run = verb_sweep_ports, .min_args = 4,
	  .max_args = -1, .args = "SPEC POINT REP PORT...",
	  .help = "wait until no socket holds a PORT on the server side" },
	{ .name = "sweep-ready", .run = verb_sweep_ready, .min_args = 9,
	  .max_args = 9, .args = "SPEC PID KIND NAME READY WANT POINT REP ERRFILE",
	  .help = "wait until a tier the sweep started is ready" },
	{ .name = "sweep-plan", .run = verb_sweep_plan, .min_args = 2,
	  .max_args = 2, .args = "OUT SPEC",
	  .help = "write OUT/plan.txt and sweep.spec, or check and extend them (--resume)" },
	{ .name = "sweep-exec", .run = verb_sweep_exec, .min_args = 2,
	  .max_args = 2, .args = "SPEC OUT",
	  .help = "the --server-exec prefix's words; OUT a plain path with prefixes" },
	{ .name = "sweep-search", .run = verb_sweep_search, .min_args = 1,
	  .max_args = 1, .args = "OUT",
	  .help = "--search: measure the probes, add the next step to the plan (exit 0) or end (1)" },
	{ .name = "sweep-search-report", .run = verb_sweep_search_report, .min_args = 1,
	  .max_args = 1, .args = "OUT",
	  .help = "--search: the outcome in one line (nothing without a search)" },
	{ .name = "demo-report", .run = verb_demo_report, .opts = demo_options,
	  .base = &demo, .min_args = 1, .max_args = 1, .args = "DIR",
	  .help = "what the demo prints after its runs, from the sweep's files" },
	{ .name = "demo-behind", .run = verb_demo_behind, .opts = demo_options,
	  .base = &demo, .min_args = 1, .max_args = 1, .args = "DIR",
	  .help = "the demo's pairs left out as behind schedule (0: none)" },
	{ .name = "demo-point", .run = verb_demo_point, .min_args = 2,
	  .max_args = 2, .args = "DIR PREQUERY",
	  .help = "the point (directory) of sweep.csv with that prequery value" },
	{ .name = NULL }
};

static const struct cli_verbs internal = {
	.prog = "wakebench-internal",
	.about =
"The helpers of wakebench's scripts (sweep, report, demo), one verb each.\n"
"Not a user's command: a verb's arguments and output follow the scripts.\n",
	.verbs = verbs,
};

int main(int argc, char **argv)
{
	return cli_verb_main(&internal, argc, argv);
}
