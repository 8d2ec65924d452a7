// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-internal spec: reads the sweep's spec file and the
 * command-line values, checks every value for its type (lib/sweepspec),
 * resolves the defaults and prints the resolved spec, one `key = value`
 * line per key, sorted. With --recorded FILE (a sweep's DIR/sweep.spec,
 * for --resume) it prints the recorded spec instead and refuses any value
 * given here that differs from it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "cpu.h"
#include "internal.h"
#include "rfile.h"
#include "sweepplan.h"
#include "sweepspec.h"

#define PROG SWEEP_PROG
#define MAX_SPEC (1 << 20)

static void usage(void)
{
	printf("Usage: wakebench-internal spec [--recorded FILE] [--spec FILE] [--KEY VALUE]...\n\n"
	       "Internal helper of 'wakebench sweep' (see wakebench-sweep(1)): checks a\n"
	       "sweep's spec file and option values, resolves the defaults and prints\n"
	       "the resolved spec, one 'key = value' line per key, sorted. Keys are the\n"
	       "options of 'wakebench sweep --help' that take a value; this verb reads\n"
	       "them itself (they come from lib/sweep's key table).\n\n"
	       "  --spec FILE      spec file ('key = v1 v2' lines, '#' comments)\n"
	       "  --recorded FILE  a sweep's DIR/sweep.spec (--resume): print it; a\n"
	       "                   value given here that differs is an error\n"
	       "  -h, --help       this help\n\n"
	       "--client-exec may be given more than once: one client agent each,\n"
	       "joined with the word '|' in the resolved spec.\n\n"
	       "Exit status 2 for an invalid value (naming the key), 1 for a file that\n"
	       "cannot be read.\n");
}

/*
 * The CPU ids a spec may name: the kernel's possible CPUs (cpu_count, of
 * $WAKEBENCH_SYSFS when set), not the online count, which is too low for
 * the ids of a host with CPUs offline in the middle ("0-3,8").
 */
int internal_ncpus(void)
{
	return cpu_count();
}

int internal_slurp(const char *path, char **text, size_t *len, size_t max)
{
	FILE *f = rfile_fopen_quiet(path);
	char *buf = NULL;
	size_t n = 0;
	int e = 0;

	if (!f)
		return -errno;
	for (size_t cap = 0;;) {
		size_t got;
		char *nb;

		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			if (cap > max + 1)
				cap = max + 1;
			if (n == cap) {
				e = EFBIG;
				goto out;
			}
			nb = realloc(buf, cap + 1);
			if (!nb) {
				e = ENOMEM;
				goto out;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (!got)
			break;
	}
	if (ferror(f) || n > max)
		e = ferror(f) ? EIO : EFBIG;
out:
	fclose(f);
	if (e) {
		free(buf);
		return -e;
	}
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
	int ret = internal_slurp(path, &text, &len, MAX_SPEC);

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

void internal_read_resolved(struct sweepspec *s, const char *path, int ncpus)
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

unsigned long internal_spec_ul(const struct sweepspec *s, int k)
{
	return strtoul(s->val[k], NULL, 10);
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

/*
 * The values given, as option-value pairs, into S (after the spec file's);
 * *recorded: --recorded's FILE or NULL. The first pass finds the two files
 * and the errors, so a bad key is named before any file is read.
 */
static void parse_given(struct sweepspec *s, int n, char **a, const char **recorded)
{
	const char *spec = NULL;

	*recorded = NULL;
	for (int i = 0; i < n; i += 2) {
		if (!strcmp(a[i], "-h") || !strcmp(a[i], "--help")) {
			usage();
			exit(0);
		}
		if (strncmp(a[i], "--", 2))
			opt_usage(PROG, "unexpected argument '%s'", a[i]);
		if (strcmp(a[i], "--spec") && strcmp(a[i], "--recorded") &&
		    (sweepspec_key(a[i] + 2) < 0 || strchr(a[i], '_')))
			opt_usage(PROG, "unknown option '%s'", a[i]);
		if (i + 1 >= n)
			opt_usage(PROG, "%s needs a value", a[i]);
		if (!strcmp(a[i], "--spec"))
			spec = a[i + 1];
		else if (!strcmp(a[i], "--recorded"))
			*recorded = a[i + 1];
	}
	if (sweepspec_init(s))
		opt_die(PROG, "out of memory");
	if (spec)
		read_spec(s, spec, SS_FILE, "spec file");
	for (int i = 0, ag = 0; i < n; i += 2)
		if (strcmp(a[i], "--spec") && strcmp(a[i], "--recorded"))
			set_cli(s, a[i] + 2, a[i + 1], &ag);
}

/* --resume: the recorded spec, and nothing given that differs */
static void resume(struct sweepspec *s, const char *recorded, int ncpus)
{
	struct sweepspec rec;
	char err[1024];
	int ret;

	for (int k = 0; k < SK_NKEYS; k++) {
		if (s->src[k] == SS_DEFAULT)
			continue;
		ret = sweepspec_check(s, k, ncpus, err, sizeof(err));
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
	ret = sweepspec_compare(&rec, s, err, sizeof(err));
	/* more repetitions: the plan grows (plan-update) */
	if (!ret && s->src[SK_REPS] != SS_DEFAULT &&
	    internal_spec_ul(s, SK_REPS) > internal_spec_ul(&rec, SK_REPS) &&
	    sweepspec_set(&rec, "reps", s->val[SK_REPS], SS_CLI))
		opt_die(PROG, "out of memory");
	if (ret)
		opt_usage(PROG, "--resume: a value differs from the sweep's recorded spec "
			  "%s: %s (resume with no options, or the same values)",
			  recorded, err);
	if (sweepspec_write(&rec, stdout))
		opt_die(PROG, "writing the spec failed");
	sweepspec_free(&rec);
}

/*
 * A value this machine cannot apply (issue 35: a governor, an
 * so_busy_poll, a haltpoll window): refused before anything runs, naming
 * the first point; with skip-unsupported the plan skips such points
 * instead (verb plan) and says so in plan.txt.
 */
static void check_here(const struct sweepspec *s)
{
	struct sweepplan p = { 0 };
	char err[512];
	int ret;

	if (!strcmp(s->val[SK_SKIP_UNSUPPORTED], "yes"))
		return;
	ret = sweepplan_build(s, 1, 1, &p);
	if (ret == -ENOTUNIQ)
		opt_usage(PROG, "%s", SWEEPPLAN_NOTUNIQ_MSG);
	if (ret)
		opt_die(PROG, "out of memory");
	for (size_t i = 0; i < p.n; i++)
		if (sweepspec_here_point(s, (const char *const *)p.run[i].val, err,
					 sizeof(err)))
			opt_die(PROG, "point %s: %s (refused before anything ran; --skip-unsupported skips such points)",
				p.run[i].point, err);
	sweepplan_free(&p);
}

int verb_spec(int nargs, char **args, void *opts)
{
	const char *recorded;
	struct sweepspec s;
	char err[1024];
	int ncpus = internal_ncpus(), ret;

	(void)opts;
	parse_given(&s, nargs, args, &recorded);
	if (recorded) {
		resume(&s, recorded, ncpus);
		sweepspec_free(&s);
		return 0;
	}
	ret = sweepspec_resolve(&s, ncpus, err, sizeof(err));
	if (ret == -ENOMEM)
		opt_die(PROG, "out of memory");
	if (ret)
		opt_usage(PROG, "%s", err);
	check_here(&s);
	if (sweepspec_write(&s, stdout))
		opt_die(PROG, "writing the spec failed");
	sweepspec_free(&s);
	return 0;
}
