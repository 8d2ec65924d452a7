// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-internal plan, plan-update, estimate: a resolved spec's runs
 * (lib/sweepplan), in the spec's order, and how long they should take.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "internal.h"
#include "rfile.h"
#include "sweepplan.h"
#include "sweepspec.h"

#define PROG SWEEP_PROG
/* A plan: a million runs of up to ~800 bytes each. */
#define MAX_PLAN ((size_t)1 << 30)

static void plan_die(int ret)
{
	if (ret == -E2BIG)
		opt_usage(PROG, "the sweep has too many runs (a million at most)");
	if (ret == -ENAMETOOLONG)
		opt_usage(PROG, "a point's directory name would be longer than %d bytes: shorten its values",
			  SWEEPPLAN_NAME_MAX);
	if (ret == -ENOTUNIQ)
		opt_usage(PROG, "%s", SWEEPPLAN_NOTUNIQ_MSG);
	opt_die(PROG, "out of memory");
}

/*
 * Runs [FROM, n) of P in the spec's order: shuffled with SEED (order
 * effects, drift and warm caches, spread evenly over the points), or in
 * pairs (lib/sweepplan: each repetition's points back to back, their
 * order alternating), for a paired comparison of two points.
 */
static void order_runs(const struct sweepspec *s, struct sweepplan *p,
		       size_t from, uint64_t seed)
{
	if (strcmp(s->val[SK_ORDER], "pairs")) {
		sweepplan_shuffle(p, from, seed);
		return;
	}
	if (sweepplan_pairs(p, from))
		opt_die(PROG, "out of memory");
}

/*
 * skip-unsupported: the points this machine cannot apply out of P, into
 * SK, each said on stderr; none left to run is an error.
 */
static void skip_unsupported(const struct sweepspec *s, struct sweepplan *p,
			     struct sweepplan_skips *sk, int say)
{
	if (strcmp(s->val[SK_SKIP_UNSUPPORTED], "yes"))
		return;
	if (sweepplan_skip_unsupported(s, p, 0, sk))
		opt_die(PROG, "out of memory");
	for (size_t i = 0; say && i < sk->n; i++)
		fprintf(stderr, "%s: point %s skipped (--skip-unsupported): %s\n", PROG,
			sk->v[i].point, sk->v[i].why);
	if (!p->n && sk->n)
		opt_die(PROG, "no point of the sweep can be applied here, nothing to run (point %s: %s)",
			sk->v[0].point, sk->v[0].why);
}

/*
 * plan SPEC: every run of the spec, in the spec's order; with
 * skip-unsupported the points skipped first, as notes
 */
int verb_plan(int nargs, char **args, void *opts)
{
	struct sweepspec s;
	struct sweepplan p = { 0 };
	struct sweepplan_skips sk = { 0 };
	int ret;

	(void)nargs;
	(void)opts;
	internal_read_resolved(&s, args[0], internal_ncpus());
	ret = sweepplan_build(&s, 1, internal_spec_ul(&s, SK_REPS), &p);
	if (ret)
		plan_die(ret);
	skip_unsupported(&s, &p, &sk, 1);
	order_runs(&s, &p, 0, internal_spec_ul(&s, SK_SEED));
	if (sweepplan_write_skips(&sk, stdout) || sweepplan_write(&p, 0, stdout))
		opt_die(PROG, "writing the plan failed");
	sweepplan_skips_free(&sk);
	sweepplan_free(&p);
	sweepspec_free(&s);
	return 0;
}

/*
 * The runs of OLD's plan in TEXT already done: from the repetition
 * returned on, NEW's runs are to be added. Exits when TEXT is not the
 * plan of OLD (nor of NEW: a plan already extended, stopped before the
 * spec was renamed into place).
 */
static unsigned long plan_from(const struct sweepspec *o, const struct sweepspec *n,
			       const char *text, size_t len, const char *planpath)
{
	char err[1024];
	int ret = sweepplan_check(o, text, len, planpath, err, sizeof(err));

	if (ret == -EINVAL && internal_spec_ul(n, SK_REPS) > internal_spec_ul(o, SK_REPS) &&
	    !sweepplan_check(n, text, len, planpath, NULL, 0))
		return internal_spec_ul(n, SK_REPS) + 1;
	if (ret == -ENOMEM)
		opt_die(PROG, "out of memory");
	if (ret)
		opt_die(PROG, "%s (edited or damaged): start a new sweep", err);
	return internal_spec_ul(o, SK_REPS) + 1;
}

/*
 * plan-update OLDSPEC NEWSPEC PLAN: a resumed sweep. PLAN, read back from
 * disk, must be OLDSPEC's runs exactly; with more reps in NEWSPEC the
 * added repetitions follow, shuffled among themselves (or in pairs), so
 * the runs already planned keep their order.
 */
int verb_plan_update(int nargs, char **args, void *opts)
{
	const char *planpath = args[2];
	struct sweepspec o, n;
	struct sweepplan p = { 0 };
	struct sweepplan_skips sk = { 0 };
	char *text = NULL;
	size_t len = 0;
	unsigned long from;
	int ret;

	(void)nargs;
	(void)opts;
	internal_read_resolved(&o, args[0], internal_ncpus());
	internal_read_resolved(&n, args[1], internal_ncpus());
	ret = internal_slurp(planpath, &text, &len, MAX_PLAN);
	if (ret)
		opt_die(PROG, "cannot read %s: %s", planpath, rfile_strerror(-ret));
	from = plan_from(&o, &n, text, len, planpath);
	fwrite(text, 1, len, stdout);
	if (internal_spec_ul(&n, SK_REPS) >= from) {
		ret = sweepplan_build(&n, from, internal_spec_ul(&n, SK_REPS), &p);
		if (ret)
			plan_die(ret);
		/* the points the sweep skipped stay skipped */
		if (sweepplan_read_skips(text, len, &sk))
			opt_die(PROG, "out of memory");
		sweepplan_drop_skipped(&p, 0, &sk);
		order_runs(&n, &p, 0, internal_spec_ul(&n, SK_SEED) + from);
		if (sweepplan_write(&p, 0, stdout))
			opt_die(PROG, "writing the plan failed");
	}
	if (fflush(stdout))
		opt_die(PROG, "writing the plan failed");
	free(text);
	sweepplan_skips_free(&sk);
	sweepplan_free(&p);
	sweepspec_free(&o);
	sweepspec_free(&n);
	return 0;
}

/* estimate SPEC: how many runs, and how long they should take */
int verb_estimate(int nargs, char **args, void *opts)
{
	struct sweepspec s;
	struct sweepplan p = { 0 };
	struct sweepplan_estimate e;
	struct sweepplan_skips sk = { 0 };
	unsigned long t;
	int ret;

	(void)nargs;
	(void)opts;
	internal_read_resolved(&s, args[0], internal_ncpus());
	ret = sweepplan_build(&s, 1, internal_spec_ul(&s, SK_REPS), &p);
	if (ret)
		plan_die(ret);
	skip_unsupported(&s, &p, &sk, 0);
	sweepplan_estimate(&s, &p, 0, &e);
	t = (unsigned long)ceil(e.total_s);
	printf("%zu runs (%zu points x %lu reps), estimated %luh%02lum%02lus: "
	       "%.1f s of measured requests, %.1f s of warm-up, %.1f s of per-run "
	       "overhead (%.1f s a run, %.1f s with memcached or redis: starting and "
	       "stopping the tiers and the capture, measured on a 2-CPU VM)",
	       e.runs, e.runs / internal_spec_ul(&s, SK_REPS), internal_spec_ul(&s, SK_REPS),
	       t / 3600, t / 60 % 60, t % 60, e.measure_s, e.warmup_s,
	       e.overhead_s, SWEEPPLAN_OVERHEAD_S, SWEEPPLAN_OVERHEAD_KV_S);
	if (e.margin_s > 0)
		printf(", %.1f s of the %d client agents' start margin", e.margin_s,
		       sweepspec_agents(&s));
	if (sk.n)
		printf(", %zu point%s skipped (cannot be applied here)", sk.n,
		       sk.n == 1 ? "" : "s");
	printf("\n");
	sweepplan_skips_free(&sk);
	sweepplan_free(&p);
	sweepspec_free(&s);
	return fflush(stdout) ? 1 : 0;
}
