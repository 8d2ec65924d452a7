// SPDX-License-Identifier: GPL-2.0
/*
 * behind-count: how many runs each behind-schedule rule flags (issue 31,
 * for bench/RESULTS.md).
 *
 *   behind-count [-v] DIR...
 *
 * Each DIR is a sweep (DIR/sweep.csv), a client --out directory
 * (DIR/summary.csv) or a run directory (DIR/client/summary.csv); any
 * other directory is searched for those, four levels deep. Over the ok
 * runs it prints how many the legacy rule flags (recomputed with
 * lib/runcheck's runcheck_legacy_behind from late_sends, the requests,
 * pace_p99_us and interval_us), how many the client flagged
 * (behind_schedule: the current rule), and the new rule's causes from
 * behind_reason: the gap test, and each percentile pacing moved out of
 * its CI (a run may have several). A run whose reason is the legacy
 * rule's wording was judged by an older client: counted apart. -v lists
 * every run either rule flags.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "csvtable.h"
#include "die.h"
#include "runcheck.h"

#define PROG "behind-count"
#define MAX_FILE (64u << 20)
#define MAX_DEPTH 4
#define NPCT 4

static const char *const pct_names[NPCT] = { "p50", "p90", "p99", "p99.9" };

struct counts {
	size_t runs, not_ok, old, old_unknown, now, gap, pct[NPCT];
	size_t unchecked, old_client;
};

static int verbose;

/* The percentile names behind_reason says pacing moved. */
static void count_pcts(const char *why, struct counts *c)
{
	const char *m = strstr(why, "pacing moves ");
	const char *also;

	if (!m)
		return;
	also = strstr(m, " (also ");
	for (int i = 0; i < NPCT; i++) {
		size_t l = strlen(pct_names[i]);
		const char *s = m + strlen("pacing moves ");
		int hit = !strncmp(s, pct_names[i], l) && s[l] == ' ';

		for (s = also; !hit && s && (s = strstr(s, pct_names[i])); s += l)
			hit = s[l] == '/' || s[l] == ')';
		c->pct[i] += hit;
	}
}

/* The client's verdict and its causes. */
static void count_new(const char *flag, const char *why, struct counts *c)
{
	if (!strncmp(why, "not checked", 11))
		c->unchecked++;
	if (strcmp(flag, "1"))
		return;
	if (strstr(why, "of sends late") || strstr(why, "of the mean gap")) {
		c->old_client++;
		return;
	}
	c->now++;
	c->gap += strstr(why, "gap test: ") != NULL;	/* "agent 2: gap test: ..." too */
	count_pcts(why, c);
}

struct cols {
	int status, late, req, count, errors, unans, pace, gap, flag, why, point,
	    rep;
};

static void find_cols(const struct csvtable *t, struct cols *k)
{
	k->status = csvtable_col(t, "status");
	k->late = csvtable_col(t, "late_sends");
	k->req = csvtable_col(t, "requests");
	k->count = csvtable_col(t, "count");
	k->errors = csvtable_col(t, "errors");
	k->unans = csvtable_col(t, "unanswered");
	k->pace = csvtable_col(t, "pace_p99_us");
	k->gap = csvtable_col(t, "interval_us");
	k->flag = csvtable_col(t, "behind_schedule");
	k->why = csvtable_col(t, "behind_reason");
	k->point = csvtable_col(t, "point");
	k->rep = csvtable_col(t, "rep");
}

/* A number of row r, 0 when empty; -1 (message printed) when not one. */
static int num(const struct csvtable *t, size_t r, int c, double *v)
{
	char err[256];
	int ret;

	*v = 0;
	ret = csvtable_getnum(t, r, c, v, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, PROG ": %s\n", err);
	return ret < 0 ? -1 : 0;
}

/* The legacy rule on row r: 1, 0, -1 (cannot tell), -2 (bad number). */
static int legacy(const struct csvtable *t, size_t r, const struct cols *k,
		  char *why, size_t len)
{
	struct runcheck_legacy_in in = { 0 };
	double late, req = 0, a, b, e;
	int ret;

	if (num(t, r, k->late, &late) || num(t, r, k->pace, &in.pacing_p99_us) ||
	    num(t, r, k->gap, &in.mean_gap_us))
		return -2;
	if (k->req >= 0) {	/* sweep.csv: the run's requests */
		if (num(t, r, k->req, &req))
			return -2;
	} else {		/* a client summary: its measured sends */
		if (num(t, r, k->count, &a) || num(t, r, k->errors, &b) ||
		    num(t, r, k->unans, &e))
			return -2;
		req = a + b + e;
	}
	in.late = (uint64_t)late;
	in.requests = (uint64_t)req;
	ret = runcheck_legacy_behind(&in, why, len);
	return ret < 0 || !csvtable_get(t, r, k->late)[0] ? -1 : ret;
}

/* -v: "FILE:LINE [POINT rep N]: legacy WHY; now behind: WHY" */
static void print_run(const struct csvtable *t, size_t r, const struct cols *k,
		      const char *old)
{
	int now = !strcmp(csvtable_get(t, r, k->flag), "1");

	printf("%s:%zu", t->name, t->ln[r]);
	if (k->point >= 0)
		printf(" %s rep %s", csvtable_get(t, r, k->point),
		       csvtable_get(t, r, k->rep));
	printf(": legacy %s; now %s%s\n", old, now ? "behind: " : "kept",
	       now ? csvtable_get(t, r, k->why) : "");
}

static int count_file(const char *path, struct counts *c)
{
	struct csvtable t;
	struct cols k;
	char err[512];

	if (csvtable_read(path, MAX_FILE, &t, err, sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return -1;
	}
	find_cols(&t, &k);
	for (size_t r = 0; r < t.n; r++) {
		const char *flag = csvtable_get(&t, r, k.flag);
		const char *why = csvtable_get(&t, r, k.why);
		char owhy[128];
		int old;

		if (strcmp(csvtable_get(&t, r, k.status), "ok")) {
			c->not_ok++;
			continue;
		}
		old = legacy(&t, r, &k, owhy, sizeof(owhy));
		if (old == -2)
			goto bad;
		c->runs++;
		c->old += old == 1;
		c->old_unknown += old < 0;
		count_new(flag, why, c);
		if (verbose && (old == 1 || !strcmp(flag, "1")))
			print_run(&t, r, &k, old == 1 ? owhy : old ? "-" : "kept");
	}
	csvtable_free(&t);
	return 0;
bad:
	csvtable_free(&t);
	return -1;
}

static int is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* A client's summary.csv, not stats' (a sweep's): it has late_sends. */
static int client_summary(const char *path)
{
	struct csvtable t;
	char err[512];
	int yes;

	if (csvtable_read(path, MAX_FILE, &t, err, sizeof(err)))
		return 0;
	yes = csvtable_col(&t, "late_sends") >= 0;
	csvtable_free(&t);
	return yes;
}

/* sweep.csv, else a client summary.csv (client/ or here), else below. */
static int count_dir(const char *dir, int depth, struct counts *c, int *found)
{
	static const char *const names[] = { "sweep.csv", "summary.csv",
					     "client/summary.csv" };
	char path[4096];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!is_file(path) || (i == 1 && !client_summary(path)))
			continue;
		(*found)++;
		return count_file(path, c);
	}
	if (depth >= MAX_DEPTH || !(d = opendir(dir)))
		return 0;
	while (!ret && (e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!stat(path, &st) && S_ISDIR(st.st_mode))
			ret = count_dir(path, depth + 1, c, found);
	}
	closedir(d);
	return ret;
}

static void print_counts(const struct counts *c)
{
	double n = c->runs ? (double)c->runs : 1;

	printf("runs (status ok)         %6zu", c->runs);
	if (c->not_ok)
		printf("   (%zu not ok, left out)", c->not_ok);
	printf("\nlegacy rule flags        %6zu  %5.1f %%", c->old,
	       100 * (double)c->old / n);
	if (c->old_unknown)
		printf("   (%zu cannot tell: no late_sends)", c->old_unknown);
	printf("\nnew rule flags           %6zu  %5.1f %%\n", c->now,
	       100 * (double)c->now / n);
	printf("  gap test fails         %6zu\n", c->gap);
	for (int i = 0; i < NPCT; i++)
		printf("  pacing moves %-6s    %6zu\n", pct_names[i], c->pct[i]);
	printf("not checked              %6zu\n", c->unchecked);
	if (c->old_client)
		printf("flagged by an older client (legacy reason)  %zu\n",
		       c->old_client);
}

int main(int argc, char **argv)
{
	struct counts c = { 0 };
	int first = 1;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("Usage: behind-count [-v] DIR...\n");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		first = 2;
	}
	if (argc <= first)
		opt_usage(PROG, "give one or more sweep, run or client directories");
	for (int i = first; i < argc; i++) {
		int found = 0;

		if (count_dir(argv[i], 0, &c, &found))
			return 1;
		if (!found) {
			fprintf(stderr, PROG ": %s: no sweep.csv or client summary.csv\n",
				argv[i]);
			return 1;
		}
	}
	print_counts(&c);
	return 0;
}
