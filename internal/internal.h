/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wakebench-internal: the helpers that wakebench's scripts run (the
 * sweep's spec, plan and agents, sweep.csv, a run's verdict, the report's
 * figure data, the demo's verdict), verbs of one program hidden from
 * `wakebench --help`. Each verb's run function, by file.
 */
#ifndef WB_INTERNAL_H
#define WB_INTERNAL_H

#include "sweepspec.h"

/*
 * The sweep's verbs speak as the sweep: their errors are what a user of
 * `wakebench sweep` reads (an invalid value, a spec that cannot resume).
 */
#define SWEEP_PROG "wakebench-sweep"

/* spec.c */
int verb_spec(int nargs, char **args, void *opts);
/* A resolved spec file into s (initialized here); exits on error. */
void internal_read_resolved(struct sweepspec *s, const char *path, int ncpus);
/* Reads FILE whole into *text (NUL-terminated, *len bytes); -errno. */
int internal_slurp(const char *path, char **text, size_t *len, size_t max);
/* Key K of a resolved spec, a number. */
unsigned long internal_spec_ul(const struct sweepspec *s, int k);
/* The CPUs online: what the spec's defaults are resolved against. */
int internal_ncpus(void);

/* plan.c */
int verb_plan(int nargs, char **args, void *opts);
int verb_plan_update(int nargs, char **args, void *opts);
int verb_estimate(int nargs, char **args, void *opts);

/* agents.c */
int verb_agents(int nargs, char **args, void *opts);
int verb_port_holders(int nargs, char **args, void *opts);

/* demo.c: the demo's settings (scripts/demo.sh) */
struct demo_opts {
	unsigned pairs, requests, server_cpu, client_cpu;
	unsigned long long seed;
	const char *lead;	/* the pre-query's prequery value */
	const char *included;	/* stats --include-behind's summary.csv */
};
int verb_demo_report(int nargs, char **args, void *opts);
int verb_demo_behind(int nargs, char **args, void *opts);
int verb_demo_point(int nargs, char **args, void *opts);

/* collect.c */
int verb_collect(int nargs, char **args, void *opts);
int verb_run_ok(int nargs, char **args, void *opts);
int verb_pairs(int nargs, char **args, void *opts);

/* sweeprun.c (helper sweepsh): the sweep script's usage, runs, agents */
int verb_sweep_usage(int nargs, char **args, void *opts);
int verb_sweep_cmd(int nargs, char **args, void *opts);
int verb_run_agents(int nargs, char **args, void *opts);
int verb_sweep_agents_done(int nargs, char **args, void *opts);
int verb_sweep_agents(int nargs, char **args, void *opts);
int verb_sweep_ports(int nargs, char **args, void *opts);
int verb_sweep_ready(int nargs, char **args, void *opts);
int verb_sweep_plan(int nargs, char **args, void *opts);
int verb_sweep_exec(int nargs, char **args, void *opts);
/* search.c: sweep --search */
int verb_sweep_search(int nargs, char **args, void *opts);
int verb_sweep_search_report(int nargs, char **args, void *opts);

#endif
