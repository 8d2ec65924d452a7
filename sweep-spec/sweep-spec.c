// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-sweep-spec: internal helper of `wakebench sweep`. Reads the
 * spec file and the command-line values, checks every value for its type
 * (lib/sweepspec), resolves the defaults and prints the resolved spec, one
 * `key = value` line per key, sorted. With --recorded FILE (a sweep's
 * DIR/sweep.spec, for --resume) it prints the recorded spec instead and
 * refuses any value given here that differs from it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <math.h>
#include <time.h>

#include "die.h"
#include "opt.h"
#include "portheld.h"
#include "sweepagent.h"
#include "sweepplan.h"
#include "sweepspec.h"
#include "rfile.h"

#define PROG "wakebench-sweep"
#define MAX_SPEC (1 << 20)

static void usage(void)
{
	printf("Usage: wakebench sweep-spec [--recorded FILE] [--spec FILE] [--KEY VALUE]...\n\n"
	       "Internal helper of 'wakebench sweep' (see wakebench-sweep(1)): checks a\n"
	       "sweep's spec file and option values, resolves the defaults and prints\n"
	       "the resolved spec, one 'key = value' line per key, sorted. Keys are the\n"
	       "options of 'wakebench sweep --help' that take a value.\n\n"
	       "  --spec FILE      spec file ('key = v1 v2' lines, '#' comments)\n"
	       "  --recorded FILE  a sweep's DIR/sweep.spec (--resume): print it; a\n"
	       "                   value given here that differs is an error\n"
	       "  --port-holders PORT...  read 'ss -Hltnup' output on standard input and\n"
	       "                   print one line per PORT that a socket holds\n"
	       "  --plan SPEC      print the plan of a resolved spec file, shuffled (or\n"
	       "                   in pairs: its order key)\n"
	       "  --plan-update OLDSPEC NEWSPEC PLAN  check that PLAN is OLDSPEC's and\n"
	       "                   print it followed by the runs NEWSPEC's larger reps\n"
	       "                   add (shuffled among themselves, or in pairs)\n"
	       "  --estimate SPEC  the number of runs and their estimated duration\n"
	       "  --agents N SEED INTERVAL_US REQUESTS WARMUP WARMUP_INTERVAL_US MARGIN_MS\n"
	       "                   one line per client agent: seed interval_us\n"
	       "                   requests warmup warmup_interval_us start_at_ns\n"
	       "                   ('-' for REQUESTS with a duration, for\n"
	       "                   WARMUP_INTERVAL_US when not given); the first\n"
	       "                   starts MARGIN_MS from now (CLOCK_REALTIME)\n"
	       "  -h, --help       this help\n\n"
	       "--client-exec may be given more than once: one client agent each,\n"
	       "joined with the word '|' in the resolved spec.\n\n"
	       "Exit status 2 for an invalid value (naming the key), 1 for a file that\n"
	       "cannot be read.\n");
}

/* Reads FILE whole into *text (NUL-terminated, *len bytes); -errno. */
static int slurp_max(const char *path, char **text, size_t *len, size_t max);

static int slurp(const char *path, char **text, size_t *len)
{
	return slurp_max(path, text, len, MAX_SPEC);
}

/* A plan: a million runs of up to ~800 bytes each. */
#define MAX_PLAN ((size_t)1 << 30)

static int slurp_max(const char *path, char **text, size_t *len, size_t max)
{
	FILE *f = rfile_fopen_quiet(path);
	char *buf;
	size_t n;

	if (!f)
		return -errno;
	buf = NULL;
	n = 0;
	for (size_t cap = 0;;) {
		size_t got;
		char *nb;

		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			if (cap > max + 1)
				cap = max + 1;
			if (n == cap) {
				free(buf);
				fclose(f);
				return -EFBIG;
			}
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (!got)
			break;
	}
	if (ferror(f) || n > max) {
		int e = ferror(f) ? EIO : EFBIG;

		free(buf);
		fclose(f);
		return -e;
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* Reads spec file PATH into S; exits on error. */
static void read_spec(struct sweepspec *s, const char *path, enum sweepspec_src src,
		      const char *what)
{
	char err[512], *text = NULL;
	size_t len = 0;
	int ret = slurp(path, &text, &len);

	if (ret)
		opt_die(PROG, "cannot read %s %s: %s", what, path, rfile_strerror(-ret));
	ret = sweepspec_parse(s, text, len, path, src, err, sizeof(err));
	free(text);
	if (ret == -ENOMEM)
		opt_die(PROG, "out of memory");
	if (ret && src == SS_DEFAULT)
		opt_die(PROG, "cannot resume: %s", err);
	if (ret)
		opt_usage(PROG, "%s", err);
}

/* --port-holders PORT...: who holds each PORT, from ss on stdin */
static int port_holders(int n, char **ports)
{
	char *text = NULL, who[512];
	size_t cap = 0, len = 0;
	uint64_t p;

	if (!n)
		opt_usage(PROG, "--port-holders needs a PORT");
	for (int i = 0; i < n; i++)
		if (opt_u64(ports[i], 1, 65535, &p))
			opt_usage(PROG, "invalid port '%s'", ports[i]);
	for (;;) {
		size_t got;

		if (len + 4096 + 1 > cap) {
			char *t;

			cap = cap ? 2 * cap : 65536;
			if (cap > 64 << 20)
				opt_die(PROG, "ss output larger than 64 MiB");
			t = realloc(text, cap);
			if (!t)
				opt_die(PROG, "out of memory");
			text = t;
		}
		got = fread(text + len, 1, cap - len - 1, stdin);
		len += got;
		if (!got)
			break;
	}
	if (ferror(stdin))
		opt_die(PROG, "reading ss output failed");
	text[len] = '\0';
	for (int i = 0; i < n; i++) {
		opt_u64(ports[i], 1, 65535, &p);
		if (portheld_find(text, (unsigned)p, who, sizeof(who)))
			printf("%s\n", who);
	}
	free(text);
	return 0;
}

/* A resolved spec file (sweep.spec, or the output of a resolve). */
static void read_resolved(struct sweepspec *s, const char *path, int ncpus)
{
	char err[1024];
	int ret;

	if (sweepspec_init(s))
		opt_die(PROG, "out of memory");
	read_spec(s, path, SS_DEFAULT, "the recorded spec");
	ret = sweepspec_resolve(s, ncpus, err, sizeof(err));
	if (ret == -ENOMEM)
		opt_die(PROG, "out of memory");
	if (ret)
		opt_die(PROG, "%s: %s", path, err);
}

static unsigned long spec_ul(const struct sweepspec *s, int k)
{
	return strtoul(s->val[k], NULL, 10);
}

static void plan_die(int ret)
{
	if (ret == -E2BIG)
		opt_usage(PROG, "the sweep has too many runs (a million at most)");
	if (ret == -ENAMETOOLONG)
		opt_usage(PROG, "a point's directory name would be longer than %d bytes: shorten its values",
			  SWEEPPLAN_NAME_MAX);
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

/* --plan SPEC: every run of the spec, in the spec's order */
static int plan(const char *path, int ncpus)
{
	struct sweepspec s;
	struct sweepplan p = { 0 };
	int ret;

	read_resolved(&s, path, ncpus);
	ret = sweepplan_build(&s, 1, spec_ul(&s, SK_REPS), &p);
	if (ret)
		plan_die(ret);
	order_runs(&s, &p, 0, spec_ul(&s, SK_SEED));
	if (sweepplan_write(&p, 0, stdout))
		opt_die(PROG, "writing the plan failed");
	sweepplan_free(&p);
	sweepspec_free(&s);
	return 0;
}

/*
 * --plan-update OLDSPEC NEWSPEC PLAN: a resumed sweep. PLAN, read back
 * from disk, must be OLDSPEC's runs exactly; with more reps in NEWSPEC
 * the added repetitions follow, shuffled among themselves (or in pairs),
 * so the runs already planned keep their order.
 */
static int plan_update(const char *oldpath, const char *newpath,
		       const char *planpath, int ncpus)
{
	struct sweepspec o, n;
	struct sweepplan p = { 0 };
	char err[1024], *text = NULL;
	size_t len = 0;
	unsigned long from;
	int ret;

	read_resolved(&o, oldpath, ncpus);
	read_resolved(&n, newpath, ncpus);
	ret = slurp_max(planpath, &text, &len, MAX_PLAN);
	if (ret)
		opt_die(PROG, "cannot read %s: %s", planpath, rfile_strerror(-ret));
	ret = sweepplan_check(&o, text, len, planpath, err, sizeof(err));
	from = spec_ul(&o, SK_REPS) + 1;
	/* a plan already extended to NEWSPEC (stopped before the spec was
	 * renamed into place) */
	if (ret == -EINVAL && spec_ul(&n, SK_REPS) > spec_ul(&o, SK_REPS) &&
	    !sweepplan_check(&n, text, len, planpath, NULL, 0)) {
		ret = 0;
		from = spec_ul(&n, SK_REPS) + 1;
	}
	if (ret == -ENOMEM)
		opt_die(PROG, "out of memory");
	if (ret)
		opt_die(PROG, "%s (edited or damaged): start a new sweep", err);
	fwrite(text, 1, len, stdout);
	if (spec_ul(&n, SK_REPS) >= from) {
		ret = sweepplan_build(&n, from, spec_ul(&n, SK_REPS), &p);
		if (ret)
			plan_die(ret);
		order_runs(&n, &p, 0, spec_ul(&n, SK_SEED) + from);
		if (sweepplan_write(&p, 0, stdout))
			opt_die(PROG, "writing the plan failed");
	}
	if (fflush(stdout))
		opt_die(PROG, "writing the plan failed");
	free(text);
	sweepplan_free(&p);
	sweepspec_free(&o);
	sweepspec_free(&n);
	return 0;
}

/* --estimate SPEC: how many runs, and how long they should take */
static int estimate(const char *path, int ncpus)
{
	struct sweepspec s;
	struct sweepplan p = { 0 };
	struct sweepplan_estimate e;
	unsigned long t;
	int ret;

	read_resolved(&s, path, ncpus);
	ret = sweepplan_build(&s, 1, spec_ul(&s, SK_REPS), &p);
	if (ret)
		plan_die(ret);
	sweepplan_estimate(&s, &p, 0, &e);
	t = (unsigned long)ceil(e.total_s);
	printf("%zu runs (%zu points x %lu reps), estimated %luh%02lum%02lus: "
	       "%.1f s of measured requests, %.1f s of warm-up, %.1f s of per-run "
	       "overhead (%.1f s a run, %.1f s with memcached or redis: starting and "
	       "stopping the tiers and the capture, measured on a 2-CPU VM)",
	       e.runs, e.runs / spec_ul(&s, SK_REPS), spec_ul(&s, SK_REPS),
	       t / 3600, t / 60 % 60, t % 60, e.measure_s, e.warmup_s,
	       e.overhead_s, SWEEPPLAN_OVERHEAD_S, SWEEPPLAN_OVERHEAD_KV_S);
	if (e.margin_s > 0)
		printf(", %.1f s of the %d client agents' start margin", e.margin_s,
		       sweepspec_agents(&s));
	printf("\n");
	sweepplan_free(&p);
	sweepspec_free(&s);
	return fflush(stdout) ? 1 : 0;
}

/* A whole number of 1 to 20 digits (a u64). */
static uint64_t arg_u64(const char *what, const char *a)
{
	uint64_t v;

	if (opt_u64(a, 0, UINT64_MAX, &v))
		opt_usage(PROG, "--agents: invalid %s '%s'", what, a);
	return v;
}

static double arg_us(const char *what, const char *a, double min)
{
	double v;

	if (opt_double(a, min, 1e12, &v))
		opt_usage(PROG, "--agents: invalid %s '%s'", what, a);
	return v;
}

/*
 * --agents N SEED INTERVAL_US REQUESTS WARMUP WARMUP_INTERVAL_US MARGIN_MS:
 * each agent's share of a run (lib/sweepagent), one line each.
 */
static int agents(char **a)
{
	struct sweepagent_in in = { 0 };
	struct timespec now;
	uint64_t margin;
	char iv[64], wiv[64];

	in.n = (unsigned)arg_u64("N", a[0]);
	if (in.n < 1 || in.n > SWEEPSPEC_MAX_AGENTS)
		opt_usage(PROG, "--agents: N must be 1 to %d", SWEEPSPEC_MAX_AGENTS);
	in.seed = arg_u64("SEED", a[1]);
	in.interval_us = arg_us("INTERVAL_US", a[2], 1e-3);
	in.requests = strcmp(a[3], "-") ? arg_u64("REQUESTS", a[3]) : 0;
	if (strcmp(a[3], "-") && !in.requests)
		opt_usage(PROG, "--agents: REQUESTS must be at least 1");
	in.warmup = arg_u64("WARMUP", a[4]);
	in.warmup_interval_us = strcmp(a[5], "-") ?
				arg_us("WARMUP_INTERVAL_US", a[5], 1e-3) : 0;
	margin = arg_u64("MARGIN_MS", a[6]);
	if (margin > 3600000)
		opt_usage(PROG, "--agents: MARGIN_MS above an hour");
	if (clock_gettime(CLOCK_REALTIME, &now))
		opt_die(PROG, "clock_gettime: %s", strerror(errno));
	in.start_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec +
		      (int64_t)margin * 1000000;
	for (unsigned k = 0; k < in.n; k++) {
		struct sweepagent g;

		if (sweepagent_split(&in, k, &g))
			opt_usage(PROG, "--agents: cannot share %s requests among %u agents",
				  a[3], in.n);
		if (sweepagent_us(g.interval_us, iv, sizeof(iv)) ||
		    sweepagent_us(g.warmup_interval_us, wiv, sizeof(wiv)))
			opt_usage(PROG, "--agents: a gap out of range");
		printf("%llu %s ", (unsigned long long)g.seed, iv);
		if (g.requests)
			printf("%llu ", (unsigned long long)g.requests);
		else
			printf("- ");
		printf("%llu %s %lld\n", (unsigned long long)g.warmup,
		       in.warmup_interval_us > 0 ? wiv : "-", (long long)g.start_at_ns);
	}
	return fflush(stdout) ? 1 : 0;
}

/*
 * Sets key NAME from the command line; a second --client-exec adds an
 * agent (joined with the word '|'), the first replaces a spec file's.
 */
static void set_cli(struct sweepspec *s, const char *name, const char *val,
		    int *agents_given)
{
	int k = sweepspec_key(name);

	if (k == SK_CLIENT_EXEC && (*agents_given)++) {
		size_t n = strlen(s->val[k]) + strlen(val) + 4;
		char *j = malloc(n);

		if (!j)
			opt_die(PROG, "out of memory");
		snprintf(j, n, "%s %s %s", s->val[k], SWEEPSPEC_AGENT_SEP, val);
		if (sweepspec_set(s, name, j, SS_CLI))
			opt_die(PROG, "out of memory");
		free(j);
		return;
	}
	if (sweepspec_set(s, name, val, SS_CLI))
		opt_die(PROG, "out of memory");
}

int main(int argc, char **argv)
{
	const char *spec = NULL, *recorded = NULL;
	struct sweepspec s, rec;
	char err[1024];
	long nc = sysconf(_SC_NPROCESSORS_ONLN);
	int ncpus = nc > 0 && nc < 1 << 20 ? (int)nc : 1, ret;

	if (argc >= 2 && !strcmp(argv[1], "--port-holders"))
		return port_holders(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "--plan"))
		return plan(argv[2], ncpus);
	if (argc == 5 && !strcmp(argv[1], "--plan-update"))
		return plan_update(argv[2], argv[3], argv[4], ncpus);
	if (argc == 3 && !strcmp(argv[1], "--estimate"))
		return estimate(argv[2], ncpus);
	if (argc == 9 && !strcmp(argv[1], "--agents"))
		return agents(argv + 2);
	/* the values given, as option-value pairs: first pass for the two
	 * files and errors */
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage();
			return 0;
		}
		if (strncmp(a, "--", 2))
			opt_usage(PROG, "unexpected argument '%s'", a);
		if (strcmp(a, "--spec") && strcmp(a, "--recorded") &&
		    (sweepspec_key(a + 2) < 0 || strchr(a, '_')))
			opt_usage(PROG, "unknown option '%s'", a);
		if (i + 1 >= argc)
			opt_usage(PROG, "%s needs a value", a);
		if (!strcmp(a, "--spec"))
			spec = argv[i + 1];
		else if (!strcmp(a, "--recorded"))
			recorded = argv[i + 1];
	}
	if (sweepspec_init(&s))
		opt_die(PROG, "out of memory");
	if (spec)
		read_spec(&s, spec, SS_FILE, "spec file");
	for (int i = 1, ag = 0; i < argc; i += 2)
		if (strcmp(argv[i], "--spec") && strcmp(argv[i], "--recorded"))
			set_cli(&s, argv[i] + 2, argv[i + 1], &ag);

	if (!recorded) {
		ret = sweepspec_resolve(&s, ncpus, err, sizeof(err));
		if (ret == -ENOMEM)
			opt_die(PROG, "out of memory");
		if (ret)
			opt_usage(PROG, "%s", err);
		if (sweepspec_write(&s, stdout))
			opt_die(PROG, "writing the spec failed");
		sweepspec_free(&s);
		return 0;
	}

	/* --resume: the recorded spec, and nothing given that differs */
	for (int k = 0; k < SK_NKEYS; k++) {
		if (s.src[k] == SS_DEFAULT)
			continue;
		ret = sweepspec_check(&s, k, ncpus, err, sizeof(err));
		if (ret)
			opt_usage(PROG, "%s", err);
	}
	if (sweepspec_init(&rec))
		opt_die(PROG, "out of memory");
	read_spec(&rec, recorded, SS_DEFAULT, "the recorded spec");
	ret = sweepspec_resolve(&rec, ncpus, err, sizeof(err));
	if (ret == -ENOMEM)
		opt_die(PROG, "out of memory");
	if (ret)
		opt_die(PROG, "cannot resume: %s: %s", recorded, err);
	ret = sweepspec_compare(&rec, &s, err, sizeof(err));
	/* more repetitions: the plan grows (--plan-update) */
	if (!ret && s.src[SK_REPS] != SS_DEFAULT &&
	    spec_ul(&s, SK_REPS) > spec_ul(&rec, SK_REPS) &&
	    sweepspec_set(&rec, "reps", s.val[SK_REPS], SS_CLI))
		opt_die(PROG, "out of memory");
	if (ret)
		opt_usage(PROG, "--resume: a value differs from the sweep's recorded spec "
			  "%s: %s (resume with no options, or the same values)",
			  recorded, err);
	if (sweepspec_write(&rec, stdout))
		opt_die(PROG, "writing the spec failed");
	sweepspec_free(&rec);
	sweepspec_free(&s);
	return 0;
}
