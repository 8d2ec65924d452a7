// SPDX-License-Identifier: GPL-2.0
/* figtrace: the report's figures drawn from traces (see figtrace.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "csvread.h"
#include "csv.h"
#include "csvtable.h"
#include "errmsg.h"
#include "figdist.h"
#include "figgp.h"
#include "figtrace.h"
#include "rfile.h"
#include "tracefile.h"

#define MAXCOL 32
/* a trace's CPUs: 4096 drew no figure of the largest hosts' traces */
#define MAXCPU TRACEFILE_MAX_CPUS
#define MAX_SMALL (64u << 20)
#define MAXSTATES 16
/* p99 of fewer requests is one or two of them: not shown */
#define MIN_P99 100

/*
 * A line of a trace directory's file, bounded before it is held (getline
 * would hold a 2 GB line whole): its length, 0 at the end. A longer line
 * or a read error ends the file here; no file wakebench writes has one.
 */
static ssize_t fline(FILE *f, char **line, size_t *cap)
{
	ssize_t n = rfile_getline(f, line, cap, RFILE_LINE_MAX);

	return n < 0 ? 0 : n;
}

/* meta.txt's start_ns and ncpus; -errno with the message. */
static int read_meta(const char *dir, uint64_t *start, unsigned *ncpus, char *err,
		     size_t errlen)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	int ret = 0, have = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/meta.txt", dir);
	f = rfile_fopen_quiet(path);
	if (!f) {
		ret = -errno;
		errmsg_set(err, errlen, "cannot read %s: %s", path, rfile_strerror(errno));
		return ret;
	}
	*start = 0;
	*ncpus = 0;
	while (fline(f, &line, &cap) > 0) {
		char k[32];
		unsigned long long v;

		if (sscanf(line, "%31s %llu", k, &v) != 2)
			continue;
		if (!strcmp(k, "start_ns")) {
			*start = v;
			have |= 1;
		} else if (!strcmp(k, "ncpus") && v <= MAXCPU) {
			*ncpus = (unsigned)v;
			have |= 2;
		}
	}
	free(line);
	fclose(f);
	if (have != 3) {
		errmsg_set(err, errlen, "%s has no start_ns or ncpus (at most %d)", path,
			   MAXCPU);
		return -EINVAL;
	}
	return 0;
}

/* A time in ms to the ns the traces have (no -0.000000 from rounding). */
static double ms_ns(double ms)
{
	return round(ms * 1e6) / 1e6 + 0.0;
}

/* Opens DIR/NAME; NULL (errno set) when it is not there. */
static FILE *open_in(const char *dir, const char *name, char *path, size_t len)
{
	if ((size_t)snprintf(path, len, "%s/%s", dir, name) >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return rfile_fopen_quiet(path);
}

/* ---- figure 5 ---------------------------------------------------------- */

enum mark_kind {
	MK_REQ, MK_PQ, MK_IRQ, MK_IPI, MK_TIMER, MK_SOFTIRQ, MK_HWIRQ, MK_NONE,
	MK_N
};

static const char *const mark_name[MK_N] = {
	"request", "pre-query", "IRQ handler", "woken by IPI", "woken by timer",
	"woken by softirq", "woken by IRQ", "woken: no cause found",
};

static const char *const idle_rgb[] = {
	"9ecae1", "3182bd", "08519c", "6a51a3", "fd8d3c", "e6550d", "756bb1",
	"636363",
};

struct tl {
	char *state[MAXSTATES];
	char rgb[MAXSTATES][8];
	int nstates;
	size_t kcount[MK_N];
};

/* The colour index of state NAME (added when new); -1 when full. */
static int state_idx(struct tl *t, const char *name)
{
	int k;

	for (k = 0; k < t->nstates; k++)
		if (!strcmp(t->state[k], name))
			return k;
	if (k == MAXSTATES)
		return -1;
	t->state[k] = strdup(name);
	if (!t->state[k])
		return -1;
	if (!strcmp(name, "unknown"))
		snprintf(t->rgb[k], sizeof(t->rgb[k]), "bdbdbd");
	else if (!strcmp(name, "C0"))
		snprintf(t->rgb[k], sizeof(t->rgb[k]), "31a354");
	else {
		int idle = 0;

		for (int j = 0; j < k; j++)
			idle += strcmp(t->state[j], "unknown") && strcmp(t->state[j], "C0");
		snprintf(t->rgb[k], sizeof(t->rgb[k]), "%s",
			 idle_rgb[idle % (int)(sizeof(idle_rgb) / sizeof(idle_rgb[0]))]);
	}
	t->nstates++;
	return k;
}

/* A wake cause ("ipi:call_function_single", "timer", ...) as a kind. */
static int cause_kind(const char *c)
{
	if (!*c)
		return -1;
	if (!strncmp(c, "ipi", 3))
		return MK_IPI;
	if (!strncmp(c, "timer", 5))
		return MK_TIMER;
	if (!strncmp(c, "softirq", 7))
		return MK_SOFTIRQ;
	if (!strncmp(c, "irq", 3))
		return MK_HWIRQ;
	return MK_NONE;
}

/*
 * The reference of a trace (its first request: the client's first "wb
 * send" marker, else the server's first "wb recv"; without markers the
 * trace start) and *span_ms, the time from it to the K-th request (NAN
 * with fewer than two).
 */
static int first_requests(const char *dir, uint64_t start, int k, uint64_t *ref,
			  double *span_ms, char *err, size_t errlen)
{
	char path[4096], *line = NULL, *fl[MAXCOL];
	size_t cap = 0;
	int n[2] = { 0, 0 }, ret = 0, w;
	uint64_t first[2] = { 0, 0 }, kth[2] = { 0, 0 };
	FILE *f = open_in(dir, "markers.csv", path, sizeof(path));

	*ref = start;
	*span_ms = NAN;
	if (!f)
		return 0;
	/* [0]: receives, [1]: sends; read until the K-th receive */
	while (n[0] < k && fline(f, &line, &cap) > 0) {
		int nf = csvr_split(line, fl, MAXCOL), kind;
		uint64_t ts;
		char e[128];

		if (nf < 3)
			continue;
		if (!strncmp(fl[2], "wb recv ", 8))
			kind = 0;
		else if (!strncmp(fl[2], "wb send ", 8))
			kind = 1;
		else
			continue;
		if (csvr_u64(fl[0], UINT64_MAX, &ts, e, sizeof(e))) {
			errmsg_set(err, errlen, "%s: ts_ns: %s", path, e);
			ret = -EINVAL;
			break;
		}
		if (!n[kind]++)
			first[kind] = ts;
		if (n[kind] <= k)
			kth[kind] = ts;
	}
	free(line);
	fclose(f);
	if (ret)
		return ret;
	/* the client's sends keep to the schedule: traces of one schedule
	 * line up on them; the receives include each run's latency */
	w = n[1] ? 1 : 0;
	if (!n[w])
		return 0;
	*ref = first[w];
	/* the window reaches the K-th request's receive */
	if ((n[0] > 1 || n[1] > 1) && (kth[0] > kth[1] ? kth[0] : kth[1]) > first[w])
		*span_ms = (double)((kth[0] > kth[1] ? kth[0] : kth[1]) - first[w]) / 1e6;
	return 0;
}

static int cpu_wanted(const struct figtrace_window *w, unsigned c)
{
	return !w->cpus || cpuset_test(w->cpus, (int)c);
}

/* Whether CPU C of the trace has any state other than unknown. */
static int cpu_has_events(const char *dir, unsigned c)
{
	char name[64], path[4096], *line = NULL, *fl[MAXCOL];
	size_t cap = 0;
	int found = 0;
	FILE *f;

	snprintf(name, sizeof(name), "cstate-cpu%u.csv", c);
	f = open_in(dir, name, path, sizeof(path));
	if (!f)
		return 0;
	if (fline(f, &line, &cap) > 0)
		while (!found && fline(f, &line, &cap) > 0) {
			int nf = csvr_split(line, fl, MAXCOL);

			found = nf >= 3 && strcmp(fl[2], "unknown");
		}
	free(line);
	fclose(f);
	return found;
}

struct row {
	const struct figtrace_src *src;
	unsigned cpu;
	uint64_t start, ref;
};

/* Writes one CPU's intervals and wake causes in the window. */
static int tl_cpu(const struct row *r, int y, double a, double b, struct tl *t,
		  FILE *ivs, FILE *marks, size_t *nivs, char *err, size_t errlen)
{
	char name[64], path[4096], *line = NULL, *fl[MAXCOL];
	size_t cap = 0, lineno = 1;
	int ret = 0, cc = -1, nf;
	/* ms from the trace's start to its reference */
	double off = ((double)r->ref - (double)r->start) / 1e6;
	FILE *f;

	snprintf(name, sizeof(name), "cstate-cpu%u.csv", r->cpu);
	f = open_in(r->src->dir, name, path, sizeof(path));
	if (!f)
		return 0;
	if (fline(f, &line, &cap) > 0 && (nf = csvr_split(line, fl, MAXCOL)) > 0)
		cc = csvr_col(fl, nf, "Wake Cause");
	while (fline(f, &line, &cap) > 0) {
		double e, d, s;
		int k;

		lineno++;
		nf = csvr_split(line, fl, MAXCOL);
		if (nf < 4)
			continue;
		if (csvtable_num(fl[1], &e) || csvtable_num(fl[3], &d) || d < 0) {
			errmsg_set(err, errlen, "%s:%zu: a time that is not a number", path,
				   lineno);
			ret = -EINVAL;
			break;
		}
		e = ms_ns(e - off);
		s = ms_ns(e - d);
		if (e < a)
			continue;
		if (s > b)
			break;
		k = state_idx(t, fl[2]);
		if (k < 0) {
			errmsg_set(err, errlen, "%s: more than %d states", path, MAXSTATES);
			ret = -EINVAL;
			break;
		}
		/* clipped: gnuplot drops boxes centred outside the range */
		fprintf(ivs, "%d %.6f %.6f %lu\n", y, fmax(s, a), fmin(e, b),
			strtoul(t->rgb[k], NULL, 16));
		(*nivs)++;
		/* the wake that ended this idle period, at its end */
		if (cc >= 0 && cc < nf && e <= b && strcmp(fl[2], "C0") &&
		    strcmp(fl[2], "unknown")) {
			int kind = cause_kind(fl[cc]);

			if (kind >= 0) {
				fprintf(marks, "%.6f %d %d\n", e, y, kind);
				t->kcount[kind]++;
			}
		}
	}
	free(line);
	fclose(f);
	return ret;
}

/* Markers and IRQs of one trace onto its rows (ROWY[cpu], -1: none). */
static int tl_marks(const struct row *r, const int *rowy, unsigned ncpus, double a,
		    double b, struct tl *t, FILE *marks)
{
	char path[4096], *line = NULL, *fl[MAXCOL];
	size_t cap = 0;
	FILE *f = open_in(r->src->dir, "markers.csv", path, sizeof(path));

	while (f && fline(f, &line, &cap) > 0) {
		int nf = csvr_split(line, fl, MAXCOL), kind;
		uint64_t ts, cpu;
		char e[64];
		double x;

		if (nf < 3 || csvr_u64(fl[0], UINT64_MAX, &ts, e, sizeof(e)) ||
		    csvr_u64(fl[1], ncpus ? ncpus - 1 : 0, &cpu, e, sizeof(e)) ||
		    rowy[cpu] < 0)
			continue;
		if (!strncmp(fl[2], "wb recv ", 8) || !strncmp(fl[2], "wb send ", 8))
			kind = MK_REQ;
		else if (!strncmp(fl[2], "wb pqrecv ", 10) || !strncmp(fl[2], "wb pq ", 6))
			kind = MK_PQ;
		else
			continue;
		x = ms_ns(((double)ts - (double)r->ref) / 1e6);
		if (x < a || x > b)
			continue;
		fprintf(marks, "%.6f %d %d\n", x, rowy[cpu], kind);
		t->kcount[kind]++;
	}
	if (f)
		fclose(f);
	f = open_in(r->src->dir, "irq.csv", path, sizeof(path));
	/* Sample #, Continuous Time (ms), IRQ No, Interface, Duration, CPU */
	if (f && fline(f, &line, &cap) <= 0) {
		fclose(f);
		f = NULL;
	}
	while (f && fline(f, &line, &cap) > 0) {
		int nf = csvr_split(line, fl, MAXCOL);
		uint64_t cpu;
		double ms, x;
		char e[64];

		if (nf < 6 || csvtable_num(fl[1], &ms) ||
		    csvr_u64(fl[5], ncpus ? ncpus - 1 : 0, &cpu, e, sizeof(e)) || rowy[cpu] < 0)
			continue;
		x = ms_ns(ms - ((double)r->ref - (double)r->start) / 1e6);
		if (x < a || x > b)
			continue;
		fprintf(marks, "%.6f %d %d\n", x, rowy[cpu], MK_IRQ);
		t->kcount[MK_IRQ]++;
	}
	if (f)
		fclose(f);
	free(line);
	return 0;
}

/*
 * The timeline's rows: each traced CPU of each trace that has events
 * (and --cpus wants), with its trace's start and first request; SPAN,
 * the longest first requests' span. 0 or -errno (ERR says why).
 */
static int timeline_rows(const struct figtrace_src *src, size_t n,
			 const struct figtrace_window *w, struct row **rows,
			 size_t *nrows, double *span, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t start = 0, ref = 0;
		unsigned ncpus = 0;
		double sp;
		int ret = read_meta(src[i].dir, &start, &ncpus, err, errlen);

		if (!ret)
			ret = first_requests(src[i].dir, start, w->requests > 0 ? w->requests : 3,
					     &ref, &sp, err, errlen);
		if (ret)
			return ret;
		if (isfinite(sp) && sp > *span)
			*span = sp;
		for (unsigned c = 0; c < ncpus; c++) {
			struct row *nr;

			if (!cpu_wanted(w, c) || !cpu_has_events(src[i].dir, c))
				continue;
			nr = realloc(*rows, (*nrows + 1) * sizeof(*nr));
			if (!nr) {
				errmsg_set(err, errlen, "out of memory");
				return -ENOMEM;
			}
			*rows = nr;
			(*rows)[(*nrows)++] = (struct row){ &src[i], c, start, ref };
		}
	}
	return 0;
}

/* The legend: unknown, C0, then the idle states as they came; the marks' kinds. */
static void timeline_legend(const struct tl *t, FILE *vars)
{
	figgp_var_num(vars, "nstates", t->nstates);
	figgp_array(vars, "sname", (size_t)t->nstates);
	figgp_array(vars, "scolor", (size_t)t->nstates);
	for (int pass = 0, e = 0; pass < 3; pass++) {
		for (int k = 0; k < t->nstates; k++) {
			char rgb[16];
			int p = !strcmp(t->state[k], "unknown") ? 0 :
				!strcmp(t->state[k], "C0") ? 1 : 2;

			if (p != pass)
				continue;
			snprintf(rgb, sizeof(rgb), "#%s", t->rgb[k]);
			figgp_elem_str(vars, "sname", (size_t)++e, t->state[k]);
			figgp_elem_str(vars, "scolor", (size_t)e, rgb);
		}
	}
	figgp_var_num(vars, "nkinds", MK_N);
	figgp_array(vars, "kname", MK_N);
	figgp_array(vars, "kcount", MK_N);
	for (int k = 0; k < MK_N; k++) {
		figgp_elem_str(vars, "kname", (size_t)k + 1, mark_name[k]);
		figgp_elem_num(vars, "kcount", (size_t)k + 1, (double)t->kcount[k]);
	}
}

int figtrace_timeline(const struct figtrace_src *src, size_t n,
		      const struct figtrace_window *w, FILE *ivs, FILE *marks,
		      FILE *vars, char *err, size_t errlen)
{
	struct row *rows = NULL;
	int *rowy = NULL;
	size_t nrows = 0, nivs = 0;
	struct tl t = { 0 };
	double a = w->a_ms, b = w->b_ms, span = 0;
	int ret = 0;
	char name[1200];

	ret = timeline_rows(src, n, w, &rows, &nrows, &span, err, errlen);
	if (ret)
		goto out;
	/* the default window: the first few requests and a margin */
	if (!(a < b)) {
		double m = fmax(0.2, span * 0.1);

		a = -m;
		b = span + m;
	}
	rowy = malloc((MAXCPU + 1) * sizeof(*rowy));
	if (!rowy) {
		ret = -ENOMEM;
		errmsg_set(err, errlen, "out of memory");
		goto out;
	}
	figgp_var_num(vars, "x0", a);
	figgp_var_num(vars, "x1", b);
	figgp_var_num(vars, "nrows", (double)nrows);
	figgp_array(vars, "rowname", nrows);
	for (size_t i = 0; i < nrows && !ret; i++) {
		int y = (int)(nrows - 1 - i);

		snprintf(name, sizeof(name), "%s cpu%u", rows[i].src->label, rows[i].cpu);
		figgp_elem_str(vars, "rowname", i + 1, name);
		ret = tl_cpu(&rows[i], y, a, b, &t, ivs, marks, &nivs, err, errlen);
		/* the trace's markers once, after its last row */
		if (!ret && (i + 1 == nrows || rows[i + 1].src != rows[i].src)) {
			for (int c = 0; c <= MAXCPU; c++)
				rowy[c] = -1;
			for (size_t j = 0; j <= i; j++)
				if (rows[j].src == rows[i].src)
					rowy[rows[j].cpu] = (int)(nrows - 1 - j);
			ret = tl_marks(&rows[i], rowy, MAXCPU, a, b, &t, marks);
		}
	}
	if (ret)
		goto out;
	timeline_legend(&t, vars);
	ret = (int)nivs;
out:
	for (int k = 0; k < t.nstates; k++)
		free(t.state[k]);
	free(rows);
	free(rowy);
	return ret;
}

/* ---- figure 6 ---------------------------------------------------------- */

/* Per trace and CPU (at trace * (MAXCPU + 1) + cpu): C0 %, idle entries, known time (ms). */
struct res_acc {
	double *c0, *ent, *ms;
	unsigned char *seen;
	unsigned maxcpu;
};

/*
 * Trace I's residency.csv into the accumulators (a trace without one,
 * its timeline failed, has no bars of its own); 0 or -errno (ERR).
 */
static int residency_read(const struct figtrace_src *s, size_t i, struct res_acc *acc,
			  char *err, size_t errlen)
{
	char path[4096];
	struct csvtable t;
	int cc, cs, cp, ce, ct, ret;

	snprintf(path, sizeof(path), "%s/residency.csv", s->dir);
	ret = csvtable_read(path, MAX_SMALL, &t, err, errlen);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	cc = csvtable_col(&t, "cpu");
	cs = csvtable_col(&t, "state");
	cp = csvtable_col(&t, "percent");
	ce = csvtable_col(&t, "entries");
	ct = csvtable_col(&t, "time_ms");
	if (cc < 0 || cs < 0 || cp < 0 || ce < 0 || ct < 0) {
		errmsg_set(err, errlen, "%s has no cpu, state, percent, entries or "
			   "time_ms column", path);
		ret = -EINVAL;
	}
	for (size_t r = 0; r < t.n && !ret; r++) {
		const char *st = csvtable_get(&t, r, cs);
		double cpu, pct, e, tm;
		size_t at;

		if (csvtable_getnum(&t, r, cc, &cpu, err, errlen) != 1 ||
		    cpu < 0 || cpu > MAXCPU || cpu != floor(cpu) ||
		    csvtable_getnum(&t, r, cp, &pct, err, errlen) != 1 ||
		    csvtable_getnum(&t, r, ce, &e, err, errlen) != 1 ||
		    csvtable_getnum(&t, r, ct, &tm, err, errlen) != 1) {
			errmsg_set(err, errlen, "%s:%zu: cpu, percent, entries and "
				   "time_ms must be numbers", path, t.ln[r]);
			ret = -EINVAL;
			break;
		}
		at = i * (MAXCPU + 1) + (size_t)cpu;
		/* time before the first event is not a state */
		if (!strcmp(st, "unknown"))
			continue;
		acc->seen[at] = 1;
		acc->ms[at] += tm;
		if (!strcmp(st, "C0"))
			acc->c0[at] = pct;
		else
			acc->ent[at] += e;
		if ((unsigned)cpu > acc->maxcpu)
			acc->maxcpu = (unsigned)cpu;
	}
	csvtable_free(&t);
	return ret;
}

/* A row per CPU any of the N traces saw: C0 % each, then entries a second each. */
static int residency_write(const struct res_acc *acc, size_t n, FILE *dat)
{
	int rows = 0;

	for (unsigned c = 0; c <= acc->maxcpu; c++) {
		int any = 0;

		for (size_t i = 0; i < n; i++)
			any |= acc->seen[i * (MAXCPU + 1) + c];
		if (!any)
			continue;
		fprintf(dat, "%d \"cpu%u\"", rows++, c);
		for (size_t i = 0; i < n; i++) {
			size_t at = i * (MAXCPU + 1) + c;

			fputc(' ', dat);
			figgp_num(dat, acc->seen[at] ? acc->c0[at] : NAN);
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = i * (MAXCPU + 1) + c;

			fputc(' ', dat);
			figgp_num(dat, acc->seen[at] && acc->ms[at] > 0 ?
				  acc->ent[at] / (acc->ms[at] / 1e3) : NAN);
		}
		fputc('\n', dat);
	}
	return rows;
}

int figtrace_residency(const struct figtrace_src *src, size_t n, FILE *dat,
		       FILE *vars, char *err, size_t errlen)
{
	struct res_acc acc = { 0 };
	int ret = 0, rows;

	acc.c0 = calloc(n * (MAXCPU + 1) + 1, sizeof(*acc.c0));
	acc.ent = calloc(n * (MAXCPU + 1) + 1, sizeof(*acc.ent));
	acc.ms = calloc(n * (MAXCPU + 1) + 1, sizeof(*acc.ms));
	acc.seen = calloc(n * (MAXCPU + 1) + 1, 1);
	if (!acc.c0 || !acc.ent || !acc.ms || !acc.seen) {
		ret = -ENOMEM;
		errmsg_set(err, errlen, "out of memory");
		goto out;
	}
	figgp_var_num(vars, "ntraces", (double)n);
	figgp_array(vars, "names", n);
	for (size_t i = 0; i < n && !ret; i++) {
		figgp_elem_str(vars, "names", i + 1, src[i].label);
		ret = residency_read(&src[i], i, &acc, err, errlen);
	}
	if (ret)
		goto out;
	rows = residency_write(&acc, n, dat);
	figgp_var_num(vars, "ncpus", rows);
	ret = rows;
out:
	free(acc.c0);
	free(acc.ent);
	free(acc.ms);
	free(acc.seen);
	return ret;
}

/* ---- figure 9 ---------------------------------------------------------- */

static const char *const pq_class[] = { "none", "woke", "awake", "together" };

static int class_idx(const char *c)
{
	for (int k = 0; k < 4; k++)
		if (!strcmp(c, pq_class[k]))
			return k;
	return 4;
}

struct grp {
	const char *state, *cls;
	int sorder, corder;
	size_t row;		/* figure 10: the group's row */
	double *v;
	size_t n, cap;
};

static int grp_cmp(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;

	if (x->sorder != y->sorder)
		return x->sorder - y->sorder;
	if (x->corder != y->corder)
		return x->corder - y->corder;
	return strcmp(x->cls, y->cls);
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The state's place: unknown, C0, then idle states in order of first
 * appearance. */
static int state_order(const char *s, int first_seen)
{
	if (!strcmp(s, "unknown"))
		return 0;
	if (!strcmp(s, "C0"))
		return 1;
	return 2 + first_seen;
}

/* Whether PATH (attribution.csv) has a client latency in any row. */
static int has_client_latency(const char *path)
{
	char *line = NULL, *fl[MAXCOL];
	size_t cap = 0;
	int c = -1, nf, found = 0;
	FILE *f = rfile_fopen_quiet(path);

	if (!f)
		return 0;
	if (fline(f, &line, &cap) > 0 && (nf = csvr_split(line, fl, MAXCOL)) > 0)
		c = csvr_col(fl, nf, "latency_us");
	while (c >= 0 && !found && fline(f, &line, &cap) > 0) {
		nf = csvr_split(line, fl, MAXCOL);
		found = nf > c && *fl[c];
	}
	free(line);
	fclose(f);
	return found;
}

static void groups_free(struct grp *g, size_t ng)
{
	for (size_t k = 0; k < ng; k++) {
		free((char *)g[k].state);
		free((char *)g[k].cls);
		free(g[k].v);
	}
	free(g);
}

/*
 * The group of state ST and pre-query class CL in *g (*ng of them), made
 * when new (a state keeps the order it first got; NIDLE counts the idle
 * states met): its index in *k. 0 or -ENOMEM.
 */
static int group_of(struct grp **g, size_t *ng, const char *st, const char *cl,
		    int *nidle, size_t *k)
{
	struct grp *grown;
	int so = -1;

	for (*k = 0; *k < *ng; (*k)++)
		if (!strcmp((*g)[*k].state, st) && !strcmp((*g)[*k].cls, cl))
			return 0;
	grown = realloc(*g, (*ng + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	*g = grown;
	for (size_t j = 0; j < *ng && so < 0; j++)
		if (!strcmp(grown[j].state, st))
			so = grown[j].sorder;
	if (so < 0)
		so = state_order(st, (*nidle)++);
	grown[*ng] = (struct grp){ strdup(st), strdup(cl), so, class_idx(cl), 0,
				   NULL, 0, 0 };
	if (!grown[*ng].state || !grown[*ng].cls) {
		free((char *)grown[*ng].state);
		free((char *)grown[*ng].cls);
		return -ENOMEM;
	}
	(*ng)++;
	return 0;
}

/* V appended to the group's values; 0 or -ENOMEM. */
static int group_push(struct grp *g, double v)
{
	if (g->n == g->cap) {
		size_t nc = g->cap ? 2 * g->cap : 256;
		double *nv = realloc(g->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		g->v = nv;
		g->cap = nc;
	}
	g->v[g->n++] = v;
	return 0;
}

/*
 * The groups (state, pre-query class) of PATH's rows and their values of
 * column COL, streamed: memory grows with the requests' values, not the
 * file. -ENOENT when there is no file; -errno with the message.
 */
static int read_groups(const char *path, const char *col, struct grp **gp,
		       size_t *ngp, char *err, size_t errlen)
{
	char *line = NULL, *fl[MAXCOL];
	size_t cap = 0, ng = 0, lineno = 1;
	struct grp *g = NULL;
	int cs, cc, cv, nf, ret = 0, nidle = 0;
	FILE *f = rfile_fopen_quiet(path);
	ssize_t got;

	*gp = NULL;
	*ngp = 0;
	if (!f) {
		ret = -errno;
		if (ret != -ENOENT)	/* a link, a FIFO: refused, and said */
			errmsg_set(err, errlen, "cannot read %s: %s", path, rfile_strerror(-ret));
		return ret;
	}
	if (fline(f, &line, &cap) <= 0 || (nf = csvr_split(line, fl, MAXCOL)) < 0) {
		nf = 0;
	}
	cs = csvr_col(fl, nf, "state");
	cc = csvr_col(fl, nf, "prequery");
	cv = csvr_col(fl, nf, col);
	if (cs < 0 || cv < 0) {
		errmsg_set(err, errlen, "%s has no state or %s column", path, col);
		ret = -EINVAL;
	}
	while (!ret && (got = rfile_getline(f, &line, &cap, RFILE_LINE_MAX))) {
		const char *st, *cl;
		double v;
		size_t k;

		lineno++;
		if (got < 0) {
			errmsg_set(err, errlen, "%s:%zu: %s", path, lineno, got == -E2BIG ?
				   "a line longer than 64 KiB" : strerror((int)-got));
			ret = got == -E2BIG ? -EINVAL : -EIO;
			break;
		}
		nf = csvr_split(line, fl, MAXCOL);
		if (nf < 0) {
			errmsg_set(err, errlen, "%s:%zu: not a CSV row", path, lineno);
			ret = -EINVAL;
			break;
		}
		if (cv >= nf || !*fl[cv])
			continue;
		if (csvtable_num(fl[cv], &v)) {
			errmsg_set(err, errlen, "%s:%zu: column '%s': '%.40s' is not a number",
				   path, lineno, col, fl[cv]);
			ret = -EINVAL;
			break;
		}
		st = cs < nf ? fl[cs] : "";
		cl = cc >= 0 && cc < nf ? fl[cc] : "";
		ret = group_of(&g, &ng, st, cl, &nidle, &k);
		if (!ret)
			ret = group_push(&g[k], v);
	}
	if (!ret && ferror(f)) {
		errmsg_set(err, errlen, "reading %s failed", path);
		ret = -EIO;
	}
	if (ret == -ENOMEM)
		errmsg_set(err, errlen, "out of memory");
	free(line);
	fclose(f);
	if (ret) {
		groups_free(g, ng);
		return ret;
	}
	*gp = g;
	*ngp = ng;
	return 0;
}

int figtrace_states(const struct figtrace_src *src, size_t n, FILE *dat,
		    FILE *vars, char *err, size_t errlen)
{
	size_t npanels = 0, hidden = 0, maxlab = 0;
	int ret = 0, client = 0;
	char lab[512];

	/* client latency where any trace has it, else idle exit to receive */
	for (size_t i = 0; i < n && !client; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/attribution.csv", src[i].dir);
		client = has_client_latency(path);
	}
	figgp_array(vars, "ptitle", n);
	figgp_array(vars, "pcount", n);
	for (size_t i = 0; i < n && !ret; i++) {
		char path[4096];
		struct grp *g;
		size_t ng;

		snprintf(path, sizeof(path), "%s/attribution.csv", src[i].dir);
		ret = read_groups(path, client ? "latency_us" : "exit_to_recv_us", &g, &ng,
				  err, errlen);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (ret) {
			if (ret != -EINVAL && ret != -ENOMEM && ret != -EIO)
				errmsg_set(err, errlen, "cannot read %s: %s", path, strerror(-ret));
			break;
		}
		if (ng) {
			qsort(g, ng, sizeof(*g), grp_cmp);
			if (npanels)
				fputs("\n\n", dat);
			for (size_t k = 0; k < ng; k++) {
				double p99;

				qsort(g[k].v, g[k].n, sizeof(double), dcmp);
				snprintf(lab, sizeof(lab), "%s%s%s (n=%zu)", g[k].state,
					 *g[k].cls ? ", pre-query " : "", g[k].cls, g[k].n);
				if (figgp_chars(lab) > maxlab)
					maxlab = figgp_chars(lab);
				fprintf(dat, "%zu ", k);
				figgp_label(dat, lab);
				fprintf(dat, " %zu ", g[k].n);
				figgp_num(dat, figdist_rank(g[k].v, g[k].n, 0.5));
				fputc(' ', dat);
				figgp_num(dat, figdist_rank(g[k].v, g[k].n, 0.9));
				fputc(' ', dat);
				p99 = figdist_rank(g[k].v, g[k].n, 0.99);
				if (g[k].n < MIN_P99) {
					p99 = NAN;
					hidden++;
				}
				figgp_num(dat, p99);
				fputc('\n', dat);
			}
			figgp_elem_str(vars, "ptitle", npanels + 1, src[i].label);
			figgp_elem_num(vars, "pcount", npanels + 1, (double)ng);
			npanels++;
		}
		groups_free(g, ng);
	}
	if (ret)
		return ret;
	figgp_var_num(vars, "npanels", (double)npanels);
	figgp_var_str(vars, "metric", client ? "client latency" : "idle exit to receive");
	figgp_var_num(vars, "hidden", (double)hidden);
	figgp_var_num(vars, "minp99", MIN_P99);
	figgp_var_num(vars, "maxlab", (double)maxlab);
	return (int)npanels;
}

/* ---- figure 10 --------------------------------------------------------- */

struct bar {
	double x, v[4], complete;	/* v: hw_exit, kernel, sched, wake */
	char *label;
	int c0;
};

struct bars {
	struct bar *b;
	size_t n, cap;
};

static int bars_push(struct bars *bs, const struct bar *b, char *err, size_t errlen)
{
	if (bs->n == bs->cap) {
		size_t ncap = bs->cap ? 2 * bs->cap : 16;
		struct bar *nb = realloc(bs->b, ncap * sizeof(*nb));

		if (!nb) {
			errmsg_set(err, errlen, "out of memory");
			return -ENOMEM;
		}
		bs->b = nb;
		bs->cap = ncap;
	}
	bs->b[bs->n] = *b;
	bs->b[bs->n].label = strdup(b->label);
	if (!bs->b[bs->n].label) {
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	bs->n++;
	return 0;
}

static void bars_free(struct bars *bs)
{
	for (size_t i = 0; i < bs->n; i++)
		free(bs->b[i].label);
	free(bs->b);
}

/*
 * One trace's bars from its breakdown.csv, in figure order (state, then
 * pre-query class), from x on; *x moves past them. -ENOENT: no file.
 */
static int bd_trace(const char *dir, struct bars *bs, double *x, char *err,
		    size_t errlen)
{
	static const char *const seg[] = {
		"hw_exit_avg_us", "kernel_avg_us", "sched_avg_us", "wake_avg_us",
	};
	char path[4096];
	struct csvtable t;
	struct grp *g;
	int cs, cq, ck, cseg[4], ret;

	snprintf(path, sizeof(path), "%s/breakdown.csv", dir);
	ret = csvtable_read(path, MAX_SMALL, &t, err, errlen);
	if (ret)
		return ret;
	cs = csvtable_col(&t, "state");
	cq = csvtable_col(&t, "prequery");
	ck = csvtable_col(&t, "complete");
	for (int k = 0; k < 4; k++)
		cseg[k] = csvtable_col(&t, seg[k]);
	if (cs < 0 || cq < 0 || ck < 0 || cseg[0] < 0 || cseg[1] < 0 ||
	    cseg[2] < 0 || cseg[3] < 0) {
		errmsg_set(err, errlen, "%s has no state, prequery, complete or "
			   "*_avg_us columns", path);
		csvtable_free(&t);
		return -EINVAL;
	}
	g = calloc(t.n + 1, sizeof(*g));
	if (!g) {
		csvtable_free(&t);
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t r = 0, nidle = 0; r < t.n; r++) {
		const char *st = csvtable_get(&t, r, cs);
		int so = -1;

		for (size_t j = 0; j < r && so < 0; j++)
			if (!strcmp(g[j].state, st))
				so = g[j].sorder;
		g[r] = (struct grp){ st, csvtable_get(&t, r, cq),
				     so >= 0 ? so : state_order(st, (int)nidle++),
				     class_idx(csvtable_get(&t, r, cq)), r, NULL, 0, 0 };
	}
	qsort(g, t.n, sizeof(*g), grp_cmp);
	for (size_t k = 0; k < t.n && !ret; k++) {
		struct bar b = { .x = *x, .c0 = !strcmp(g[k].state, "C0") };
		char lab[512];
		int got = csvtable_getnum(&t, g[k].row, ck, &b.complete, err, errlen);

		for (int s = 0; s < 4 && got > 0; s++)
			got = csvtable_getnum(&t, g[k].row, cseg[s], &b.v[s], err, errlen);
		if (got < 0)
			ret = got;
		/* a group without a complete breakdown has no bar */
		if (got <= 0 || !(b.complete > 0))
			continue;
		snprintf(lab, sizeof(lab), "%s, %s (n=%.0f)", g[k].state, g[k].cls,
			 b.complete);
		b.label = lab;
		ret = bars_push(bs, &b, err, errlen);
		*x += 1;
	}
	free(g);
	csvtable_free(&t);
	return ret;
}

/*
 * Figure 10's y bound: 0 (gnuplot's own) unless a bar reaches past 1.5
 * times the tallest bar of an idle state (or, with none, the median
 * bar): then that. A few stalled requests in C0 (hundreds of µs of
 * scheduling) would otherwise squash the bars that show the wakes.
 */
static double bd_ymax(const struct bars *bs)
{
	double ref = 0, top = 0, *all;

	if (!bs->n)
		return 0;
	for (size_t i = 0; i < bs->n; i++) {
		double h = bs->b[i].v[0] + bs->b[i].v[1] + bs->b[i].v[2];

		if (h > top)
			top = h;
		if (!bs->b[i].c0 && h > ref)
			ref = h;
	}
	all = malloc(bs->n * sizeof(*all));
	if (all) {
		for (size_t i = 0; i < bs->n; i++)
			all[i] = bs->b[i].v[0] + bs->b[i].v[1] + bs->b[i].v[2];
		qsort(all, bs->n, sizeof(*all), dcmp);
		if (all[(bs->n - 1) / 2] > ref)
			ref = all[(bs->n - 1) / 2];
		free(all);
	}
	return ref > 0 && top > 1.5 * ref ? 1.5 * ref : 0;
}

int figtrace_breakdown(const struct figtrace_src *src, size_t n, FILE *dat,
		       FILE *vars, char *err, size_t errlen)
{
	struct bars bs = { 0 };
	size_t ntr = 0, maxlab = 0, ncut = 0;
	double x = 0, ymax;
	int ret = 0;

	figgp_array(vars, "tname", n);
	figgp_array(vars, "tx", n);
	for (size_t i = 0; i < n && !ret; i++) {
		size_t first = bs.n;
		double x0 = x;

		ret = bd_trace(src[i].dir, &bs, &x, err, errlen);
		if (ret == -ENOENT)
			ret = 0;
		if (ret || bs.n == first)
			continue;
		figgp_elem_str(vars, "tname", ntr + 1, src[i].label);
		figgp_elem_num(vars, "tx", ntr + 1, (x0 + x - 1) / 2);
		ntr++;
		x += 0.8;	/* the gap between traces */
	}
	if (ret) {
		bars_free(&bs);
		return ret;
	}
	ymax = bd_ymax(&bs);
	for (size_t i = 0; i < bs.n; i++) {
		const struct bar *b = &bs.b[i];

		if (figgp_chars(b->label) > maxlab)
			maxlab = figgp_chars(b->label);
		ncut += ymax > 0 && b->v[0] + b->v[1] + b->v[2] > ymax;
		figgp_num(dat, b->x);
		fputc(' ', dat);
		figgp_label(dat, b->label);
		for (int s = 0; s < 4; s++) {
			fputc(' ', dat);
			figgp_num(dat, b->v[s]);
		}
		fprintf(dat, " %.0f\n", b->complete);
	}
	figgp_var_num(vars, "ntraces", (double)ntr);
	figgp_var_num(vars, "nbars", (double)bs.n);
	figgp_var_num(vars, "xmax", x > 0.8 ? x - 0.8 : 0);
	figgp_var_num(vars, "maxlab", (double)maxlab);
	figgp_var_num(vars, "ymax", ymax);
	figgp_var_num(vars, "ncut", (double)ncut);
	n = bs.n;
	bars_free(&bs);
	return (int)n;
}

/* ---- the index's wake-share table -------------------------------------- */

/* One trace's state_prequery rows onto out; the number written. */
static int share_rows(const struct figtrace_src *src, struct csv *out, char *err,
		      size_t errlen)
{
	static const char *const col[] = {
		"group", "value", "count", "avg_us", "wake_n", "wake_avg_us",
		"wake_share_pct",
	};
	char path[4096];
	struct csvtable t;
	int c[7], ret, rows = 0;

	snprintf(path, sizeof(path), "%s/attribution-summary.csv", src->dir);
	ret = csvtable_read(path, MAX_SMALL, &t, err, errlen);
	if (ret)
		return ret;
	for (int k = 0; k < 7; k++)
		c[k] = csvtable_col(&t, col[k]);
	/* an older summary has no shares: nothing to show */
	for (size_t r = 0; r < t.n && c[0] >= 0 && c[6] >= 0; r++) {
		const char *v = csvtable_get(&t, r, c[1]), *slash = strrchr(v, '/');
		char state[256];

		if (strcmp(csvtable_get(&t, r, c[0]), "state_prequery") || !slash)
			continue;
		snprintf(state, sizeof(state), "%.*s", (int)(slash - v), v);
		csv_str(out, src->label);
		csv_str(out, state);
		csv_str(out, slash + 1);
		for (int k = 2; k < 7; k++)
			csv_str(out, csvtable_get(&t, r, c[k]));
		csv_end_row(out);
		rows++;
	}
	csvtable_free(&t);
	return rows;
}

int figtrace_wakeshare(const struct figtrace_src *src, size_t n, struct csv *out,
		       char *err, size_t errlen)
{
	int rows = 0;

	for (size_t i = 0; i < n; i++) {
		int r = share_rows(&src[i], out, err, errlen);

		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		rows += r;
	}
	return rows;
}
