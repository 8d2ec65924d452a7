// SPDX-License-Identifier: GPL-2.0
/*
 * The proof of lib/sweep/sweepdim.h (issue 32): lib/sweep and lib/fig are
 * compiled here with -DSWEEPDIM_TEST, which adds the two rows of
 * sweepdim-test.h to the table and touches nothing else. A dimension
 * that the table alone declares must then parse and type-check, plan,
 * collapse, name its points, appear in plan.txt, sweep.csv (written by
 * sweepcollect, read back by sweepcsv), the figure labels and the help.
 * Exit 0 when it does, 1 naming each check that failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "figpairs.h"
#include "sweepcollect.h"
#include "sweepcsv.h"
#include "sweepdim.h"
#include "sweepplan.h"
#include "sweepspec.h"

static int failed;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "sweepdim-extra:%d: %s\n", __LINE__, #cond); \
		failed = 1;						\
	}								\
} while (0)

static const char spec_text[] =
	"prequery = off 50\n"
	"frobs = 1 2\n"
	"pq_frobs = no yes\n"
	"reps = 1\n";

static int resolved(struct sweepspec *s, const char *text, char *err,
		    size_t errlen)
{
	int ret = sweepspec_init(s);

	if (!ret)
		ret = sweepspec_parse(s, text, strlen(text), "t.spec", SS_FILE,
				      err, errlen);
	if (!ret)
		ret = sweepspec_resolve(s, 2, err, errlen);
	return ret;
}

/* the key: known by both spellings, its default, its type check */
static void check_spec(void)
{
	struct sweepspec s;
	char err[256] = "", *out = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(sweepspec_key("frobs") == SK_FROBS);
	CHECK(sweepspec_key("pq_frobs") == SK_PQ_FROBS);
	CHECK(!strcmp(sweepspec_default(SK_FROBS), "1"));
	CHECK(resolved(&s, "frobs = 1 x\n", err, sizeof(err)) == -EINVAL);
	CHECK(!strcmp(err, "invalid frobs 'x' (a whole number)"));
	sweepspec_free(&s);
	CHECK(resolved(&s, spec_text, err, sizeof(err)) == 0);
	f = open_memstream(&out, &len);
	CHECK(f && !sweepspec_write(&s, f));
	if (f)
		fclose(f);
	CHECK(out && strstr(out, "\nfrobs = 1 2\n"));
	CHECK(out && strstr(out, "\npq-frobs = no yes\n"));
	free(out);
	sweepspec_free(&s);
}

static int has_point(const struct sweepplan *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->run[i].point, name))
			return 1;
	return 0;
}

#define BASE "dist-exp_int-1000_pq-"
#define MID "_wu-0_cs-on_svc-0_fr-"

/* 2 x 2 x 2 values, pq_frobs collapsed without a pre-query: 6 points */
static void check_plan(const struct sweepspec *s, struct sweepplan *p)
{
	char err[256] = "", *out = NULL, line[4096];
	struct sweepplan_run r;
	size_t len = 0;
	FILE *f;

	CHECK(sweepplan_build(s, 1, 1, p) == 0);
	CHECK(p->n == 6);
	CHECK(has_point(p, BASE "off" MID "1"));
	CHECK(has_point(p, BASE "off" MID "2"));
	CHECK(has_point(p, BASE "50" MID "1_pqf-no"));
	CHECK(has_point(p, BASE "50" MID "2_pqf-yes"));
	for (size_t i = 0; i < p->n; i++)
		CHECK(strcmp(p->run[i].val[SWEEPDIM_PREQUERY], "off") ||
		      !strcmp(p->run[i].val[SWEEPDIM_PQ_FROBS], "-"));
	f = open_memstream(&out, &len);
	CHECK(f && !sweepplan_write(p, 0, f));
	if (f)
		fclose(f);
	/* after issue 35's rows, the table's last before the test's */
	CHECK(out && strstr(out, " backend=wakebench server_busy_poll=no so_busy_poll=0 "
			    "governor=- haltpoll_ns=- frobs=2 pq_frobs=yes\n"));
	CHECK(out && !sweepplan_check(s, out, len, "plan.txt", err, sizeof(err)));
	/* a plan line read back */
	snprintf(line, sizeof(line), "%.*s", out ? (int)strcspn(out, "\n") : 0,
		 out ? out : "");
	CHECK(!sweepplan_parse_line(line, &r, "plan.txt", 1, err, sizeof(err)));
	CHECK(*r.val[SWEEPDIM_FROBS] && *r.val[SWEEPDIM_PQ_FROBS]);
	free(out);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* the sweep directory: its spec, plan and one ok run */
static int make_sweep(const char *dir, const struct sweepspec *s,
		      const struct sweepplan *p, const char **okpoint)
{
	char path[4096];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/sweep.spec", dir);
	f = fopen(path, "w");
	if (!f || sweepspec_write(s, f) || fclose(f))
		return -1;
	snprintf(path, sizeof(path), "%s/plan.txt", dir);
	f = fopen(path, "w");
	if (!f || sweepplan_write(p, 0, f) || fclose(f))
		return -1;
	for (i = 0; i < p->n; i++)
		if (strstr(p->run[i].point, "pq-50") && strstr(p->run[i].point, "fr-2_pqf-yes"))
			break;
	if (i == p->n)
		return -1;
	*okpoint = p->run[i].point;
	snprintf(path, sizeof(path), "%s/%s", dir, p->run[i].point);
	mkdir(path, 0755);
	strcat(path, "/rep-1");
	mkdir(path, 0755);
	strcat(path, "/client");
	mkdir(path, 0755);
	strcat(path, "/summary.csv");
	return write_file(path, "status,count,lat_avg_us,lat_p50_us,lat_p99_us,lat_p999_us\n"
			  "ok,1000,10,9,20,30\n");
}

static int param(const char *name)
{
	for (int k = 0; k < SWEEPCSV_NPARAMS; k++)
		if (!strcmp(sweepcsv_params[k], name))
			return k;
	return -1;
}

/* sweep.csv: the new rows' columns appended at the end, after the
 * costs and the other added dimensions, filled, and read back */
static void check_csv(const char *dir, const struct sweepspec *s,
		      const struct sweepplan *p)
{
	char path[4096], err[256] = "", hdr[8192] = "";
	const char *ok = NULL;
	struct sweepcsv c;
	size_t rows = 0;
	FILE *f;

	CHECK(make_sweep(dir, s, p, &ok) == 0);
	CHECK(sweepcollect_dir(dir, &rows, err, sizeof(err)) == 0);
	CHECK(rows == 6);
	snprintf(path, sizeof(path), "%s/sweep.csv", dir);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fgets(hdr, sizeof(hdr), f) != NULL);
	CHECK(strstr(hdr, ",backend,lat_p95_us,") != NULL);
	CHECK(strstr(hdr, ",cost_bytes_per_req,server_busy_poll,so_busy_poll,governor,"
		     "haltpoll_ns,frobs,pq_frobs\n") != NULL);
	rewind(f);
	CHECK(sweepcsv_read(f, path, &c, err, sizeof(err)) == 0);
	fclose(f);
	CHECK(c.n == 1);
	CHECK(param("frobs") >= 0 && param("pq_frobs") >= 0);
	if (c.n == 1 && param("frobs") >= 0 && param("pq_frobs") >= 0) {
		CHECK(!strcmp(c.run[0].point, ok));
		CHECK(!strcmp(c.run[0].param[param("frobs")], "2"));
		CHECK(!strcmp(c.run[0].param[param("pq_frobs")], "yes"));
	}
	sweepcsv_free(&c);
}

/* a summary's pair: frobs in the configuration's label, pq_frobs in the
 * pre-query side's */
static void check_fig(void)
{
	static const char sum[] =
		"point,dist,interval_us,prequery,n,avg_median_us,avg_ci_lo_us,"
		"avg_ci_hi_us,p99_median_us,p99_ci_lo_us,p99_ci_hi_us,"
		"speedup_avg,speedup_p50,speedup_p99,warmup,cstates,service_us,"
		"tiers,frobs,pq_frobs\n"
		"a,exp,1000,off,5,10,9,11,20,19,21,,,,0,on,0,2,2,\n"
		"b,exp,1000,50,5,8,7,9,15,14,16,1.25,1.1,1.3,0,on,0,2,2,yes\n";
	static const char want[] = "exp:1000us/fr-2/pq50/pqf-yes ";
	char err[256] = "", *bars = NULL, *sp = NULL;
	size_t bl = 0, sl = 0;
	FILE *in = fmemopen((void *)sum, sizeof(sum) - 1, "r");
	FILE *b = open_memstream(&bars, &bl), *s = open_memstream(&sp, &sl);

	CHECK(in && b && s);
	if (!in || !b || !s)
		return;
	CHECK(figpairs_sweep(in, "summary.csv", b, s, err, sizeof(err)) == 0);
	fclose(in);
	fclose(b);
	fclose(s);
	CHECK(bars && !strncmp(bars, want, strlen(want)));
	free(bars);
	free(sp);
}

static void check_usage(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CHECK(f && !sweepdim_usage(f));
	if (f)
		fclose(f);
	CHECK(out && strstr(out, "\n  --frobs LIST           frobs per request (default: 1)\n"));
	free(out);
}

int main(void)
{
	char dir[] = "/tmp/wb-sweepdim-XXXXXX", cmd[64];
	struct sweepplan p = { 0 };
	struct sweepspec s;
	char err[256] = "";

	CHECK(sweepdim_find("frobs") == SWEEPDIM_FROBS);
	CHECK(SWEEPDIM_N == 27 && SK_PQ_FROBS == SK_NKEYS - 1);
	check_spec();
	CHECK(resolved(&s, spec_text, err, sizeof(err)) == 0);
	check_plan(&s, &p);
	CHECK(mkdtemp(dir) != NULL);
	check_csv(dir, &s, &p);
	check_fig();
	check_usage();
	sweepplan_free(&p);
	sweepspec_free(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		failed = 1;
	if (!failed)
		printf("sweepdim-extra: a dimension added to the table alone: ok\n");
	return failed;
}
