// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-internal collect, run-ok, pairs: a sweep's sweep.csv from its
 * runs (lib/sweepcollect), whether one run is done, and the data of the
 * report's figures 1 and 2 (lib/figpairs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "figpairs.h"
#include "internal.h"
#include "rfile.h"
#include "sweepcollect.h"
#include "wfile.h"

#define PROG "wakebench-internal"

/* collect DIR */
int verb_collect(int nargs, char **args, void *opts)
{
	char err[1024];
	size_t rows;
	int ret = sweepcollect_dir(args[0], &rows, err, sizeof(err));

	(void)nargs;
	(void)opts;
	if (ret == -ENOMEM)
		opt_die(PROG, "out of memory");
	if (ret)
		opt_die(PROG, "collect: %s", err);
	return 0;
}

/* run-ok RUNDIR: 0 ok, 1 not (a malformed summary is named) */
int verb_run_ok(int nargs, char **args, void *opts)
{
	char err[1024];
	int ret = sweepcollect_run_ok(args[0], err, sizeof(err));

	(void)nargs;
	(void)opts;
	if (ret < 0)
		fprintf(stderr, "%s: run-ok: %s\n", PROG, err);
	return ret == 1 ? 0 : 1;
}

/* Opens OUTDIR/NAME for writing; exits on error. */
static FILE *open_dat(const char *outdir, const char *name, char *path, size_t len)
{
	FILE *f;

	if ((size_t)snprintf(path, len, "%s/%s", outdir, name) >= len)
		opt_die(PROG, "%s: path too long", outdir);
	f = wfile_open(path);
	if (!f)
		opt_die(PROG, "cannot write %s: %s", path, strerror(errno));
	return f;
}

/* Closes a .dat file; the first error (*ret) is the one told. */
static void close_dat(FILE *f, const char *path, int *ret, char *err, size_t errlen)
{
	if (fclose(f) && !*ret) {
		snprintf(err, errlen, "writing %.900s failed", path);
		*ret = -EIO;
	}
}

/* pairs OUTDIR SUMMARY...: one sweep summary, or client run summaries */
int verb_pairs(int nargs, char **args, void *opts)
{
	char bpath[4096], spath[4096], err[1024], *hdr = NULL;
	char **files = args + 1;
	size_t hcap = 0, n = (size_t)nargs - 1;
	int sweep, ret;
	FILE *f, *bars, *sp;

	(void)opts;
	f = rfile_fopen_quiet(files[0]);
	if (!f)
		opt_die(PROG, "cannot read %s: %s", files[0], rfile_strerror(errno));
	/* a sweep summary has speedups; a client run's has none */
	sweep = rfile_getline(f, &hdr, &hcap, RFILE_LINE_MAX) > 0 &&
		strstr(hdr, "speedup_p50");
	free(hdr);
	rewind(f);
	if (sweep && n > 1)
		opt_usage(PROG " pairs", "give one sweep summary, or client run summaries");
	bars = open_dat(args[0], "bars.dat", bpath, sizeof(bpath));
	sp = open_dat(args[0], "speedup.dat", spath, sizeof(spath));
	if (sweep)
		ret = figpairs_sweep(f, files[0], bars, sp, err, sizeof(err));
	else
		ret = figpairs_runs(files, n, bars, sp, err, sizeof(err));
	fclose(f);
	close_dat(bars, bpath, &ret, err, sizeof(err));
	close_dat(sp, spath, &ret, err, sizeof(err));
	if (ret)
		opt_die(PROG, "pairs: %s", err);
	return 0;
}
