// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "csv.h"
#include "csvread.h"
#include "errmsg.h"
#include "hwcstate.h"
#include "perfpmu.h"
#include "rfile.h"

#define MAX_EVENTS 16
/* a hw-residency.csv or perf stat output larger than this is not ours */
#define MAX_LINE 4096
#define MAX_ROWS (1 << 20)

struct counter {
	enum hwcstate_scope scope;
	int cpu, fd, ok;
	char state[HWCSTATE_STATE_LEN];
	uint64_t start, delta;
};

/* msr/tsc on one CPU */
struct tscc {
	int cpu, fd, ok;
	uint64_t start, delta;
};

struct hwcstate {
	struct counter *c;
	int n;
	struct tscc *t;
	int nt;
	/* rdtsc around the window: the fallback for a CPU without msr/tsc */
	int rd_ok;
	uint64_t rd_start, rd_delta;
	int stopped;
	char note[512];
};

static const char *const pmus[] = { "cstate_core", "cstate_pkg" };

const char *hwcstate_scope_name(enum hwcstate_scope scope)
{
	return scope == HWCSTATE_PACKAGE ? "package" : "core";
}

/* Appends "; what" to the note (the first few: it stays one line). */
static void note_add(struct hwcstate *hw, const char *what)
{
	size_t n = strlen(hw->note);

	if (n + 3 >= sizeof(hw->note))
		return;
	errmsg_set(hw->note + n, sizeof(hw->note) - n, "%s%s", n ? "; " : "", what);
}

/* "c6-residency" -> "C6" (core) or "PC6" (package); -1 when not cN. */
static int state_name(const char *event, enum hwcstate_scope scope, char *out,
		      size_t len)
{
	size_t n = strcspn(event, "-");

	if (n < 2 || n > 4 || event[0] != 'c' || strspn(event + 1, "0123456789") != n - 1 ||
	    strcmp(event + n, "-residency"))
		return -1;
	errmsg_set(out, len, "%sC%.*s", scope == HWCSTATE_PACKAGE ? "P" : "", (int)n - 1,
		 event + 1);
	return 0;
}

static int has_cpu(const struct hwcstate *hw, int cpu)
{
	for (int i = 0; i < hw->nt; i++)
		if (hw->t[i].cpu == cpu)
			return 1;
	return 0;
}

/* msr/tsc on every CPU that has a counter; the rdtsc fallback. */
static int open_tsc(struct hwcstate *hw, char *note, size_t notelen)
{
	const struct perfpmu_ops *ops = perfpmu_ops();
	struct perfpmu_event ev;
	char err[600], why[700];
	int ret, missing = 0;
	uint64_t v;

	hw->t = calloc((size_t)hw->n, sizeof(*hw->t));
	if (!hw->t) {
		errmsg_set(note, notelen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < hw->n; i++)
		if (!has_cpu(hw, hw->c[i].cpu)) {
			hw->t[hw->nt].cpu = hw->c[i].cpu;
			hw->t[hw->nt++].fd = -1;
		}
	ret = perfpmu_event("msr", "tsc", &ev, err, sizeof(err));
	if (ret && ret != -ENODEV && ret != -ENOENT) {
		errmsg_set(note, notelen, "msr PMU: %s", err);
		return ret;
	}
	for (int i = 0; !ret && i < hw->nt; i++) {
		int fd = perfpmu_open(&ev, hw->t[i].cpu);

		if (fd < 0) {
			if (!missing++) {
				perfpmu_strerror(fd, err, sizeof(err));
				errmsg_set(why, sizeof(why), "msr/tsc/ on CPU %d: %s",
					 hw->t[i].cpu, err);
				note_add(hw, why);
			}
			continue;
		}
		hw->t[i].fd = fd;
	}
	if (ret)
		note_add(hw, ret == -ENODEV ? "no msr PMU" : "no msr/tsc/ event");
	hw->rd_ok = !ops->tsc(&v);
	if ((ret || missing) && !hw->rd_ok)
		note_add(hw, "no sound TSC read either (rdtsc: not a constant, nonstop clocksource TSC): those percents are unknown");
	return 0;
}

/* What opening the PMUs' counters tallies for hwcstate_open's note. */
struct pmu_tally {
	int absent;		/* bit p: pmus[p] is not on this machine */
	int failed;		/* counters that did not open */
	char first[800];	/* why the first of them did not */
	int *cpus;		/* the current PMU's CPUs */
};

/*
 * EV's counter (STATE of SCOPE) on each of the NCPU CPUs of PMU P; 1 when
 * perf may not be used here (NOTE says why: no counters at all), else 0.
 * hw->c has room for them.
 */
static int open_event(struct hwcstate *hw, struct pmu_tally *t, int p, int ncpu,
		      const char *name, const struct perfpmu_event *ev,
		      enum hwcstate_scope scope, const char *state,
		      char *note, size_t notelen)
{
	char err[600];

	for (int c = 0; c < ncpu; c++) {
		struct counter *ct = &hw->c[hw->n];
		int fd = perfpmu_open(ev, t->cpus[c]);

		if (fd == -EACCES || fd == -EPERM) {
			perfpmu_strerror(fd, err, sizeof(err));
			errmsg_set(note, notelen, "%s/%s/: %s", pmus[p], name, err);
			return 1;
		}
		if (fd < 0) {
			if (!t->failed++) {
				perfpmu_strerror(fd, err, sizeof(err));
				errmsg_set(t->first, sizeof(t->first), "%s/%s/ on CPU %d: %s",
					   pmus[p], name, t->cpus[c], err);
			}
			continue;
		}
		memset(ct, 0, sizeof(*ct));
		ct->scope = scope;
		ct->cpu = t->cpus[c];
		ct->fd = fd;
		memcpy(ct->state, state, HWCSTATE_STATE_LEN);
		hw->n++;
	}
	return 0;
}

/*
 * PMU P's residency counters on its CPUs: 0 to go on with the next PMU,
 * 1 to stop with no counters (NOTE says why), -errno (NOTE says why).
 */
static int open_pmu(struct hwcstate *hw, struct pmu_tally *t, int p,
		    char *note, size_t notelen)
{
	enum hwcstate_scope scope = p ? HWCSTATE_PACKAGE : HWCSTATE_CORE;
	char names[MAX_EVENTS][PERFPMU_NAME_LEN], err[600], why[800];
	uint32_t type;
	int nev, ncpu, ret;
	struct counter *grown;

	ret = perfpmu_type(pmus[p], &type, err, sizeof(err));
	if (ret == -ENODEV) {
		t->absent |= 1 << p;
		return 0;
	}
	if (ret) {
		errmsg_set(note, notelen, "%s", err);
		return ret;
	}
	nev = perfpmu_list(pmus[p], "", "-residency", names, MAX_EVENTS);
	if (nev <= 0) {
		errmsg_set(why, sizeof(why), "%s lists no residency events", pmus[p]);
		note_add(hw, why);
		return 0;
	}
	free(t->cpus);
	t->cpus = NULL;
	ncpu = perfpmu_cpumask_all(pmus[p], &t->cpus, err, sizeof(err));
	if (ncpu == -ENOENT)	/* no cpumask: every online CPU */
		ncpu = perfpmu_online_all(&t->cpus, err, sizeof(err));
	if (ncpu < 0) {
		errmsg_set(note, notelen, "%s: %s", pmus[p], err);
		return ncpu;
	}
	grown = realloc(hw->c, (size_t)(hw->n + nev * ncpu) * sizeof(*hw->c));
	if (!grown) {
		errmsg_set(note, notelen, "out of memory");
		return -ENOMEM;
	}
	hw->c = grown;
	for (int k = 0; k < nev; k++) {
		struct perfpmu_event ev;
		char state[HWCSTATE_STATE_LEN];

		if (state_name(names[k], scope, state, sizeof(state)))
			continue;	/* not cN-residency */
		ret = perfpmu_event(pmus[p], names[k], &ev, err, sizeof(err));
		if (ret == -ENOENT)
			continue;
		if (ret) {
			errmsg_set(note, notelen, "%s", err);
			return ret;
		}
		if (open_event(hw, t, p, ncpu, names[k], &ev, scope, state, note, notelen))
			return 1;
	}
	return 0;
}

int hwcstate_open(struct hwcstate **out, char *note, size_t notelen)
{
	struct hwcstate *hw = calloc(1, sizeof(*hw));
	struct pmu_tally t = { 0 };
	char why[800];
	int ret = 0;

	*out = NULL;
	if (!hw) {
		errmsg_set(note, notelen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	for (int p = 0; p < 2; p++) {
		ret = open_pmu(hw, &t, p, note, notelen);
		if (ret) {
			ret = ret > 0 ? 0 : ret;	/* 1: none, NOTE says why */
			goto out;
		}
	}
	if (t.absent == 3) {
		errmsg_set(note, notelen, "no cstate_core or cstate_pkg PMU on this machine");
		goto out;
	}
	if (t.absent) {
		errmsg_set(why, sizeof(why), "no %s PMU on this machine", pmus[t.absent == 1 ? 0 : 1]);
		note_add(hw, why);
	}
	if (t.failed) {
		errmsg_set(why, sizeof(why), "%d counter%s did not open (%s)", t.failed,
			 t.failed == 1 ? "" : "s", t.first);
		note_add(hw, why);
	}
	if (!hw->n) {
		errmsg_set(note, notelen, "no residency counter opened: %s",
			   hw->note[0] ? hw->note : "no events");
		goto out;
	}
	ret = open_tsc(hw, note, notelen);
	if (ret)
		goto out;
	errmsg_set(note, notelen, "%s", hw->note);
	*out = hw;
	ret = hw->n;
	hw = NULL;
out:
	hwcstate_close(hw);
	free(t.cpus);
	return ret;
}

/* Reads everything: the TSCs first, both times, so their windows match
 * the counters' (each shifted by the same few microseconds). */
static int read_all(struct hwcstate *hw, int stop, char *err, size_t errlen)
{
	const struct perfpmu_ops *ops = perfpmu_ops();
	char why[200];
	int bad = 0, good = 0, last = 0;
	uint64_t v;

	if (hw->rd_ok) {
		if (ops->tsc(&v))
			hw->rd_ok = 0;
		else if (stop)
			hw->rd_delta = v - hw->rd_start;
		else
			hw->rd_start = v;
	}
	for (int i = 0; i < hw->nt; i++) {
		struct tscc *t = &hw->t[i];

		if (t->fd < 0 || (stop && !t->ok))
			continue;
		if (ops->read(t->fd, &v)) {
			t->ok = 0;
			continue;
		}
		if (stop) {
			t->delta = v - t->start;
		} else {
			t->start = v;
			t->ok = 1;
		}
	}
	for (int i = 0; i < hw->n; i++) {
		struct counter *c = &hw->c[i];
		int ret;

		if (stop && !c->ok)
			continue;
		ret = ops->read(c->fd, &v);
		if (ret) {
			c->ok = 0;
			if (!bad++) {
				errmsg_set(why, sizeof(why), "%s %s on CPU %d could not be read: %s",
					 hwcstate_scope_name(c->scope), c->state, c->cpu,
					 strerror(-ret));
				note_add(hw, why);
			}
			last = ret;
			continue;
		}
		if (stop) {
			c->delta = v - c->start;
		} else {
			c->start = v;
			c->ok = 1;
		}
		good++;
	}
	if (stop)
		hw->stopped = 1;
	if (!good) {
		errmsg_set(err, errlen, "no residency counter could be read (%s)",
			   strerror(last ? -last : EIO));
		return last ? last : -EIO;
	}
	return 0;
}

int hwcstate_start(struct hwcstate *hw, char *err, size_t errlen)
{
	hw->stopped = 0;
	return read_all(hw, 0, err, errlen);
}

int hwcstate_stop(struct hwcstate *hw, char *err, size_t errlen)
{
	return read_all(hw, 1, err, errlen);
}

static int cmp_row(const void *a, const void *b)
{
	const struct hwcstate_row *x = a, *y = b;

	if (x->scope != y->scope)
		return x->scope < y->scope ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return strverscmp(x->state, y->state);
}

int hwcstate_rows(const struct hwcstate *hw, struct hwcstate_row *rows, int max)
{
	int k = 0;

	for (int i = 0; hw->stopped && i < hw->n && k < max; i++) {
		const struct counter *c = &hw->c[i];
		uint64_t tsc = 0;
		struct hwcstate_row *r = &rows[k];

		if (!c->ok)
			continue;
		for (int t = 0; t < hw->nt; t++)
			if (hw->t[t].cpu == c->cpu && hw->t[t].ok)
				tsc = hw->t[t].delta;
		if (!tsc && hw->rd_ok)
			tsc = hw->rd_delta;
		r->scope = c->scope;
		r->cpu = c->cpu;
		memcpy(r->state, c->state, sizeof(r->state));
		r->count = c->delta;
		r->percent = tsc ? 100.0 * (double)c->delta / (double)tsc : NAN;
		k++;
	}
	qsort(rows, (size_t)k, sizeof(*rows), cmp_row);
	return k;
}

const char *hwcstate_note(const struct hwcstate *hw)
{
	return hw->note;
}

const char *hwcstate_tsc_source(const struct hwcstate *hw)
{
	int msr = 0, all = 1;

	for (int i = 0; i < hw->nt; i++) {
		msr |= hw->t[i].ok;
		all &= hw->t[i].ok;
	}
	if (msr && (all || !hw->rd_ok))
		return "msr/tsc";
	if (msr)
		return "msr/tsc+rdtsc";
	return hw->rd_ok ? "rdtsc" : "none";
}

void hwcstate_close(struct hwcstate *hw)
{
	const struct perfpmu_ops *ops = perfpmu_ops();

	if (!hw)
		return;
	for (int i = 0; i < hw->n; i++)
		ops->close(hw->c[i].fd);
	for (int i = 0; i < hw->nt; i++)
		if (hw->t[i].fd >= 0)
			ops->close(hw->t[i].fd);
	free(hw->c);
	free(hw->t);
	free(hw);
}

int hwcstate_write_csv(const char *path, const struct hwcstate_row *rows, int n)
{
	struct csv *c = csv_open(path);

	if (!c)
		return -errno;
	csv_header(c, "scope,cpu,state,percent,count");
	for (int i = 0; i < n; i++) {
		csv_str(c, hwcstate_scope_name(rows[i].scope));
		if (rows[i].cpu >= 0)
			csv_u64(c, (uint64_t)rows[i].cpu);
		else
			csv_str(c, "all");
		csv_str(c, rows[i].state);
		csv_double(c, rows[i].percent, 4);
		csv_u64(c, rows[i].count);
		csv_end_row(c);
	}
	return csv_close(c);
}

/* Lines of a file, each cut of its newline; -EFBIG past MAX_LINE. */
struct lines {
	FILE *f;
	char *buf;
	size_t cap;
	unsigned no;
};

static int next_line(struct lines *l, char **line)
{
	/* bounded before it is held: getline would hold a 2 GB line whole */
	ssize_t n = rfile_getline(l->f, &l->buf, &l->cap, MAX_LINE);

	if (!n)
		return 0;
	l->no++;
	if (n == -E2BIG)
		return -EFBIG;
	if (n < 0)
		return n == -ENOMEM ? -ENOMEM : -EIO;
	if ((size_t)n != strlen(l->buf))
		return -EINVAL;	/* a NUL byte */
	while (n && (l->buf[n - 1] == '\n' || l->buf[n - 1] == '\r'))
		l->buf[--n] = '\0';
	*line = l->buf;
	return 1;
}

static int push(struct hwcstate_row **rows, int *n, int *cap, const struct hwcstate_row *r)
{
	if (*n == MAX_ROWS)
		return -E2BIG;
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 64;
		struct hwcstate_row *g = realloc(*rows, (size_t)nc * sizeof(*g));

		if (!g)
			return -ENOMEM;
		*rows = g;
		*cap = nc;
	}
	(*rows)[(*n)++] = *r;
	return 0;
}

/* A strict percent: digits, one point, digits; 0 to 1000 (a few
 * cycles' skew between reads may pass 100; more is not a share). */
static int parse_pct(const char *s, double *v)
{
	char *end;

	if (!isdigit((unsigned char)s[0]) || strspn(s, "0123456789.") != strlen(s))
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	return errno || *end || !(*v <= 1000) ? -EINVAL : 0;
}

static int valid_state(const char *s)
{
	size_t n = strlen(s);

	return n && n < HWCSTATE_STATE_LEN &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == n;
}

/* One hw-residency.csv row's fields, checked. 0 or -EINVAL (e: why). */
static int parse_row(const char *scope, const char *cpu, const char *state,
		     const char *pct, const char *count, struct hwcstate_row *r,
		     char *e, size_t elen)
{
	uint64_t v;

	memset(r, 0, sizeof(*r));
	r->percent = NAN;
	if (!strcmp(scope, "core")) {
		r->scope = HWCSTATE_CORE;
	} else if (!strcmp(scope, "package")) {
		r->scope = HWCSTATE_PACKAGE;
	} else {
		errmsg_set(e, elen, "scope is not core or package");
		return -EINVAL;
	}
	if (!strcmp(cpu, "all")) {
		r->cpu = -1;
	} else if (csvr_u64(cpu, PERFPMU_MAX_CPUS - 1, &v, e, elen)) {
		return -EINVAL;
	} else {
		r->cpu = (int)v;
	}
	if (!valid_state(state)) {
		errmsg_set(e, elen, "state is not C<n> or PC<n>");
		return -EINVAL;
	}
	memcpy(r->state, state, strlen(state) + 1);
	if (*pct && parse_pct(pct, &r->percent)) {
		errmsg_set(e, elen, "percent is not a number from 0 to 1000");
		return -EINVAL;
	}
	return csvr_u64(count, UINT64_MAX, &r->count, e, elen) ? -EINVAL : 0;
}

int hwcstate_read_csv(const char *path, struct hwcstate_row **rows, char *err,
		      size_t errlen)
{
	static const char *const cols[] = { "scope", "cpu", "state", "percent", "count" };
	struct lines l = { 0 };
	char *line, *f[32], e[200];
	int idx[5], n = 0, cap = 0, nf, ret;

	*rows = NULL;
	l.f = rfile_fopen_quiet(path);
	if (!l.f) {
		ret = -errno;
		errmsg_set(err, errlen, "%s: %s", path, rfile_strerror(-ret));
		return ret;
	}
	ret = next_line(&l, &line);
	if (ret <= 0) {
		errmsg_set(err, errlen, "%s: %s", path, ret ? "unreadable header" : "empty (no header)");
		ret = -EINVAL;
		goto out;
	}
	nf = csvr_split(line, f, 32);
	for (int i = 0; i < 5; i++) {
		idx[i] = nf > 0 ? csvr_col(f, nf, cols[i]) : -1;
		if (idx[i] < 0) {
			errmsg_set(err, errlen, "%s:1: no %s column (not a hw-residency.csv)",
				   path, cols[i]);
			ret = -EINVAL;
			goto out;
		}
	}
	while ((ret = next_line(&l, &line)) > 0) {
		struct hwcstate_row r;

		if (!*line)
			continue;
		nf = csvr_split(line, f, 32);
		if (nf < 0 || nf <= idx[0] || nf <= idx[1] || nf <= idx[2] || nf <= idx[3] ||
		    nf <= idx[4]) {
			errmsg_set(err, errlen, "%s:%u: too few fields", path, l.no);
			ret = -EINVAL;
			goto out;
		}
		ret = parse_row(f[idx[0]], f[idx[1]], f[idx[2]], f[idx[3]], f[idx[4]], &r,
				e, sizeof(e));
		if (!ret)
			ret = push(rows, &n, &cap, &r);
		if (ret) {
			errmsg_set(err, errlen, "%s:%u: %s", path, l.no, ret == -EINVAL ? e :
				   ret == -E2BIG ? "too many rows" : strerror(-ret));
			goto out;
		}
	}
	if (ret < 0)
		errmsg_set(err, errlen, "%s:%u: %s", path, l.no, ret == -EFBIG ?
			   "line too long" : ret == -EINVAL ? "NUL byte" : strerror(-ret));
out:
	free(l.buf);
	fclose(l.f);
	if (ret < 0) {
		free(*rows);
		*rows = NULL;
		return ret;
	}
	return n;
}

/* perf's msr/tsc/ counts, by CPU: grown to the highest CPU seen */
struct tscs {
	uint64_t *v;
	unsigned char *have;
	int n;
};

/* Room in ts for cpu (< PERFPMU_MAX_CPUS); 0 or -ENOMEM. */
static int tscs_grow(struct tscs *ts, int cpu)
{
	int n = ts->n ? ts->n : 64;
	uint64_t *v;
	unsigned char *have;

	if (cpu < ts->n)
		return 0;
	while (n <= cpu)
		n *= 2;
	v = realloc(ts->v, (size_t)n * sizeof(*v));
	if (v)
		ts->v = v;
	have = realloc(ts->have, (size_t)n);
	if (have)
		ts->have = have;
	if (!v || !have)
		return -ENOMEM;
	memset(ts->v + ts->n, 0, (size_t)(n - ts->n) * sizeof(*v));
	memset(ts->have + ts->n, 0, (size_t)(n - ts->n));
	ts->n = n;
	return 0;
}

/* What reading perf stat's lines keeps between them. */
struct perf_stat {
	const char *path;
	const struct lines *l;		/* l->no: the line number */
	struct hwcstate_row **rows;
	int n, cap;
	int *skipped;
	struct tscs *ts;
};

/* CPU's msr/tsc/ count V; 0 or -errno (ERR says why). */
static int perf_stat_tsc(struct perf_stat *ps, int cpu, uint64_t v, char *err,
			 size_t errlen)
{
	if (cpu < 0)
		return 0;	/* a total: no CPU's own */
	if (tscs_grow(ps->ts, cpu)) {
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (ps->ts->have[cpu]) {
		errmsg_set(err, errlen, "%s:%u: a second msr/tsc/ count for CPU %d",
			   ps->path, ps->l->no, cpu);
		return -EINVAL;
	}
	ps->ts->have[cpu] = 1;
	ps->ts->v[cpu] = v;
	return 0;
}

/*
 * "CPU0,224611191,,msr/tsc/,107161592,100.00,,": an optional CPU, the
 * count, its unit, the event, the time it ran, the share of it counted,
 * a metric. A residency count becomes a row, a TSC count goes to ts,
 * any other event is passed over; 0 or -errno (ERR says where).
 */
static int perf_stat_line(struct perf_stat *ps, char *line, char *err, size_t errlen)
{
	struct hwcstate_row r = { .percent = NAN };
	const char *path = ps->path;
	unsigned no = ps->l->no;
	char pmu[32], name[PERFPMU_NAME_LEN], *f[16], e[200];
	int nf, cpu = -1, a = 0, dup = 0, ret;
	uint64_t v;
	size_t len;

	nf = csvr_split(line, f, 16);
	if (nf < 0) {
		errmsg_set(err, errlen, "%s:%u: not perf stat -x, output", path, no);
		return -EINVAL;
	}
	if (nf > 0 && !strncmp(f[0], "CPU", 3)) {
		if (csvr_u64(f[0] + 3, PERFPMU_MAX_CPUS - 1, &v, e, sizeof(e))) {
			errmsg_set(err, errlen, "%s:%u: CPU field '%.20s': %s", path,
				   no, f[0], e);
			return -EINVAL;
		}
		cpu = (int)v;
		a = 1;
	}
	if (nf < a + 3) {
		errmsg_set(err, errlen, "%s:%u: too few fields for perf stat -x, output",
			   path, no);
		return -EINVAL;
	}
	/* the event: PMU/NAME/ */
	len = strlen(f[a + 2]);
	if (sscanf(f[a + 2], "%31[a-z_]/%47[a-z0-9-]/", pmu, name) != 2 ||
	    strlen(pmu) + strlen(name) + 2 != len)
		return 0;	/* another event: not ours */
	if (!strcmp(f[a], "<not counted>") || !strcmp(f[a], "<not supported>")) {
		if (strcmp(pmu, "msr"))
			++*ps->skipped;
		return 0;
	}
	if (csvr_u64(f[a], UINT64_MAX, &v, e, sizeof(e))) {
		errmsg_set(err, errlen, "%s:%u: count of %s: %s", path, no, f[a + 2], e);
		return -EINVAL;
	}
	if (!strcmp(pmu, "msr") && !strcmp(name, "tsc"))
		return perf_stat_tsc(ps, cpu, v, err, errlen);
	if (!strcmp(pmu, "cstate_core"))
		r.scope = HWCSTATE_CORE;
	else if (!strcmp(pmu, "cstate_pkg"))
		r.scope = HWCSTATE_PACKAGE;
	else
		return 0;
	if (state_name(name, r.scope, r.state, sizeof(r.state)))
		return 0;
	for (int i = 0; i < ps->n; i++)
		dup |= (*ps->rows)[i].cpu == cpu && (*ps->rows)[i].scope == r.scope &&
		       !strcmp((*ps->rows)[i].state, r.state);
	if (dup) {
		errmsg_set(err, errlen, "%s:%u: a second %s count for CPU %d", path,
			   no, f[a + 2], cpu);
		return -EINVAL;
	}
	r.cpu = cpu;
	r.count = v;
	ret = push(ps->rows, &ps->n, &ps->cap, &r);
	if (ret)
		errmsg_set(err, errlen, "%s:%u: %s", path, no,
			   ret == -E2BIG ? "too many rows" : strerror(-ret));
	return ret;
}

int hwcstate_parse_perf_stat(const char *path, struct hwcstate_row **rows,
			     int *skipped, char *err, size_t errlen)
{
	struct lines l = { 0 };
	struct tscs *ts = calloc(1, sizeof(*ts));
	struct perf_stat ps = { .path = path, .l = &l, .rows = rows,
				.skipped = skipped, .ts = ts };
	char *line;
	int ret = 0;

	*rows = NULL;
	*skipped = 0;
	if (!ts) {
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	l.f = rfile_fopen_quiet(path);
	if (!l.f) {
		ret = -errno;
		errmsg_set(err, errlen, "%s: %s", path, rfile_strerror(-ret));
		free(ts);
		return ret;
	}
	/* "# started on ..." and blank lines are not counts */
	while ((ret = next_line(&l, &line)) > 0) {
		if (!*line || *line == '#')
			continue;
		ret = perf_stat_line(&ps, line, err, errlen);
		if (ret)
			goto out;
	}
	if (ret < 0) {
		errmsg_set(err, errlen, "%s:%u: %s", path, l.no, ret == -EFBIG ?
			   "line too long" : ret == -EINVAL ? "NUL byte" : strerror(-ret));
		goto out;
	}
	/* each CPU's share of its own TSC; perf's totals have none */
	for (int i = 0; i < ps.n; i++) {
		int c = (*rows)[i].cpu;

		if (c >= 0 && c < ts->n && ts->have[c] && ts->v[c])
			(*rows)[i].percent = 100.0 * (double)(*rows)[i].count /
					     (double)ts->v[c];
	}
	if (ps.n)
		qsort(*rows, (size_t)ps.n, sizeof(**rows), cmp_row);
out:
	free(l.buf);
	fclose(l.f);
	free(ts->v);
	free(ts->have);
	free(ts);
	if (ret < 0) {
		free(*rows);
		*rows = NULL;
		return ret;
	}
	return ps.n;
}
