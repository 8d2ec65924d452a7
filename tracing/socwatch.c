// SPDX-License-Identifier: GPL-2.0
/*
 * trace export/import --format socwatch: a wakebench trace as Intel SoC
 * Watch's CSV and back (DESIGN.md "SocWatch interchange"; the layout,
 * the parser and the C-state mapping are lib/trace/socwatch.h's).
 *
 * Export: a preamble, then per CPU a core C-state section of its
 * intervals (rows: the time the state ended and how long it lasted, in ms
 * with two decimals, the state as CCn), then per CPU with interrupts an
 * IRQ section. The time before a CPU's first cpu_idle event is unknown to
 * the trace and has no row (SoC Watch has no such state); the import
 * gives it back as unknown. No package section: a package C-state needs
 * every core of the package (and the uncore) idle, which the per-CPU
 * OS events cannot show, and a CPU whose state is unknown (one without
 * cpu_idle events, like this VM's last CPU) leaves it unknowable.
 */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "outdir.h"
#include "socwatch.h"
#include "stage.h"
#include "sysfs.h"
#include "timeline.h"
#include "trace.h"
#include "tracefile.h"
#include "tracewrite.h"
#include "wfile.h"

/* ---- export ------------------------------------------------------------------ */

/* What the trace does not record, from this machine. */
struct machine {
	char host[256], model[256];
	int packages, cores, logical;
};

static void local_machine(struct machine *mc)
{
	struct utsname u;
	char line[512];
	FILE *f;
	int n = cpu_count();
	uint64_t *keys = n > 0 ? calloc((size_t)n, sizeof(*keys)) : NULL;
	uint64_t pkgs[256];
	int npkg = 0, ncore = 0, ok = keys != NULL;

	snprintf(mc->host, sizeof(mc->host), "%s", uname(&u) ? "unknown" : u.nodename);
	snprintf(mc->model, sizeof(mc->model), "unknown");
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(mc->model, sizeof(mc->model), "%s", colon);
		break;
	}
	if (f)
		fclose(f);
	/* distinct packages and (package, core) pairs over the CPUs */
	for (int cpu = 0; ok && cpu < n; cpu++) {
		uint64_t pkg, core, key;
		int seen = 0;

		if (sysfs_read_u64(&pkg, "devices/system/cpu/cpu%d/topology/physical_package_id",
				   cpu) ||
		    sysfs_read_u64(&core, "devices/system/cpu/cpu%d/topology/core_id", cpu)) {
			ok = 0;
			break;
		}
		key = pkg << 32 | (core & 0xffffffff);
		for (int k = 0; k < ncore; k++)
			seen |= keys[k] == key;
		if (!seen)
			keys[ncore++] = key;
		seen = 0;
		for (int k = 0; k < npkg; k++)
			seen |= pkgs[k] == pkg;
		if (!seen && npkg < 256)
			pkgs[npkg++] = pkg;
	}
	mc->packages = ok ? npkg : -1;
	mc->cores = ok ? ncore : -1;
	mc->logical = n;
	free(keys);
}

/* The command line as run, from /proc/self/cmdline. */
static void command_line(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/cmdline", "r");
	size_t n = 0;
	int c;

	buf[0] = '\0';
	while (f && (c = getc(f)) != EOF && n + 1 < len)
		buf[n++] = c ? (char)c : ' ';
	while (n && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* Field text: no comma (a column break) and no control character. */
static const char *field(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++)
		buf[n++] = *s == ',' || (unsigned char)*s < 0x20 ? '_' : *s;
	buf[n] = '\0';
	return buf;
}

static int cmp_irq(const void *a, const void *b)
{
	const struct tl_irq *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* hundredths of a ms, rounded half up */
static uint64_t cms(uint64_t ns)
{
	return ns / 10000 + (ns % 10000 >= 5000);
}

static const char *cms_text(uint64_t c, char *buf, size_t len)
{
	snprintf(buf, len, "%llu.%02llu", (unsigned long long)(c / 100),
		 (unsigned long long)(c % 100));
	return buf;
}

struct counts {
	uint64_t rows, irqs, unknown_ns;
	uint32_t irq_sections;
};

static void preamble(FILE *f, const char *dir, const struct trace_meta *m,
		     char (*tok)[TRACEFILE_MAX_STATES][SW_MAX_STATE + 1])
{
	struct machine mc;
	char cmd[4096], when[64], path[4200];
	struct stat sb;
	uint64_t span = m->end_ns - m->start_ns;

	local_machine(&mc);
	command_line(cmd, sizeof(cmd));
	snprintf(path, sizeof(path), "%s/meta.txt", dir);
	snprintf(when, sizeof(when), "unknown");
	if (!stat(path, &sb)) {
		time_t t0 = sb.st_mtime - (time_t)(span / 1000000000);
		struct tm tm;

		if (gmtime_r(&t0, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	}
	fprintf(f, "Intel(R) SoC Watch CSV layout, written by wakebench %s\n", WB_VERSION);
	fprintf(f, "Tool version: wakebench %s\n", WB_VERSION);
	fprintf(f, "Command line: %s\n", cmd);
	fprintf(f, "Data collection started: %s (estimated: the trace's meta.txt time less its duration)\n",
		when);
	fprintf(f, "Nano Clock Frequency (MHz): 1000.000000 (times in ns)\n");
	fprintf(f, "Collection duration (sec): %llu.%09llu\n",
		(unsigned long long)(span / 1000000000),
		(unsigned long long)(span % 1000000000));
	fprintf(f, "Collection begin timestamp: %llu\n", (unsigned long long)m->start_ns);
	fprintf(f, "Collection end timestamp: %llu\n", (unsigned long long)m->end_ns);
	fprintf(f, "System name: %s (this machine: the trace does not record it)\n", mc.host);
	fprintf(f, "CPU: %s (this machine: the trace does not record it)\n", mc.model);
	if (mc.packages > 0)
		fprintf(f, "Number of packages: %d (this machine)\n", mc.packages);
	else
		fprintf(f, "Number of packages: unknown\n");
	if (mc.cores > 0)
		fprintf(f, "Number of cores: %d (this machine)\n", mc.cores);
	else
		fprintf(f, "Number of cores: unknown\n");
	fprintf(f, "Number of logical processors: %u (the trace)\n", m->ncpus);
	fprintf(f, "Trace clock: %s (the trace's)\n", m->clock[0] ? m->clock : "unknown");
	fprintf(f, "Linux idle driver: %s (the trace's)\n", m->driver[0] ? m->driver : "unknown");
	fprintf(f, "Core sections: one per logical CPU of the trace (Core_N is cpuN); the time before a CPU's first cpu_idle event (unknown) has no row\n");
	fprintf(f, "C-State mapping: CCn with n the first digits of the Linux state's name (C1E: CC1), POLL CC0, no digits CC1; a state whose CCn its CPU has already is CCn-NAME; each below as CPU INDEX TOKEN NAME\n");
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++)
		for (int s = 0; s < TRACEFILE_MAX_STATES; s++)
			if (tok[cpu][s][0])
				fprintf(f, "wakebench state: %u %d %s %s\n", cpu, s, tok[cpu][s],
					m->names[cpu][s]);
	fprintf(f, "Precision: times and durations in ms rounded to two decimals (10 us)\n");
}

static void write_sections(FILE *f, const struct timeline *t,
			   const struct trace_meta *m,
			   char (*tok)[TRACEFILE_MAX_STATES][SW_MAX_STATE + 1],
			   const struct tl_irq *irqs, size_t nirqs,
			   struct counts *c)
{
	uint64_t start = timeline_start(t);
	char a[32], b[32], name[300];

	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		size_t n, width = 7;
		const struct tl_interval *iv = timeline_intervals(t, cpu, &n);
		uint64_t k = 0;

		for (int s = 0; s < TRACEFILE_MAX_STATES; s++)
			if (strlen(tok[cpu][s]) > width)
				width = strlen(tok[cpu][s]);
		fprintf(f, "\nCore C-State - CPU/Package_0/Die_0/Core_%u\n", cpu);
		fprintf(f, "Sample #, Continuous Time (ms), C-State, Duration (ms)\n");
		for (size_t i = 0; i < n; i++) {
			uint64_t e = cms(iv[i].end - start), s = cms(iv[i].start - start);

			if (iv[i].state == TL_UNKNOWN) {
				c->unknown_ns += iv[i].end - iv[i].start;
				continue;
			}
			/* the rounded end less the rounded start: each row
			 * starts where the previous one ended */
			fprintf(f, "%8llu, %20s, %*s, %13s\n", (unsigned long long)++k,
				cms_text(e, a, sizeof(a)), (int)width,
				iv[i].state == TL_C0 ? "CC0" : tok[cpu][iv[i].state],
				cms_text(e - s, b, sizeof(b)));
		}
		c->rows += k;
	}
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		uint64_t k = 0;
		size_t width = 9;

		for (size_t i = 0; i < nirqs; i++)
			if (irqs[i].cpu == cpu && strlen(timeline_string(t, irqs[i].name)) > width)
				width = strlen(timeline_string(t, irqs[i].name));
		for (size_t i = 0; i < nirqs; i++) {
			if (irqs[i].cpu != cpu)
				continue;
			if (!k) {
				fprintf(f, "\nIRQ - CPU/Package_0/Die_0/Core_%u\n", cpu);
				fprintf(f, "Sample #, Continuous Time (ms), IRQ No, Interface, Duration (ms)\n");
				c->irq_sections++;
			}
			fprintf(f, "%8llu, %20s, %6u, %*s, %13s\n", (unsigned long long)++k,
				cms_text(cms(irqs[i].ts - start), a, sizeof(a)), irqs[i].irq,
				(int)width,
				field(timeline_string(t, irqs[i].name), name, sizeof(name)),
				cms_text(cms(irqs[i].since_prev_ns), b, sizeof(b)));
		}
		c->irqs += k;
	}
}

/*
 * The C-state token of every state of every CPU, named in the trace or
 * seen in it (an unnamed one as "stateN", the reader's name for it): the
 * names go into m.
 */
static int tokens(const struct timeline *t, struct trace_meta *m,
		  char (*tok)[TRACEFILE_MAX_STATES][SW_MAX_STATE + 1], char *err,
		  size_t errlen)
{
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		char (*names)[32] = m->names[cpu];
		size_t n;
		const struct tl_interval *iv = timeline_intervals(t, cpu, &n);

		for (size_t i = 0; i < n; i++) {
			int32_t s = iv[i].state;

			if (s >= TRACEFILE_MAX_STATES) {
				snprintf(err, errlen, "cpu %u is in idle state %d: the SocWatch export takes states 0-%d",
					 cpu, s, TRACEFILE_MAX_STATES - 1);
				return -ERANGE;
			}
			if (s >= 0 && !names[s][0])
				snprintf(names[s], sizeof(names[s]), "state%d", s);
		}
		socwatch_cc_tokens((const char (*)[32])names, TRACEFILE_MAX_STATES, tok[cpu]);
	}
	return 0;
}


int trace_export_socwatch(const struct trace_xfer *x)
{
	char err[6000], dir[4096], tmp[4200], base[256];
	struct trace_meta m;
	struct timeline *t = NULL;
	struct tf_decode o = { .skip_corrupt = x->skip_corrupt };
	char (*tok)[TRACEFILE_MAX_STATES][SW_MAX_STATE + 1] = NULL;
	struct tl_irq *irqs = NULL;
	const struct tl_irq *q;
	struct counts c = { 0 };
	struct stage *st = NULL;
	struct stat sb;
	size_t nirqs;
	FILE *f;
	int ret, rc = 1;

	if (!lstat(x->file, &sb) && (S_ISDIR(sb.st_mode) || !x->force)) {
		fprintf(stderr, "%s: export: %s %s\n", TRACE_PROG, x->file,
			S_ISDIR(sb.st_mode) ? "is a directory" : "exists (--force replaces it)");
		return 1;
	}
	if (outdir_split(x->file, dir, sizeof(dir), base, sizeof(base))) {
		fprintf(stderr, "%s: export: %s names no file\n", TRACE_PROG, x->file);
		return 1;
	}
	if (tracefile_meta(x->trace_dir, &m, err, sizeof(err))) {
		fprintf(stderr, "%s: export: %s\n", TRACE_PROG, err);
		return 1;
	}
	t = timeline_new(m.ncpus, m.start_ns);
	tok = calloc(m.ncpus, sizeof(*tok));
	if (!t || !tok) {
		fprintf(stderr, "%s: export: out of memory\n", TRACE_PROG);
		goto out;
	}
	if (tracefile_decode_opts(x->trace_dir, &m, t, &o, err, sizeof(err))) {
		fprintf(stderr, "%s: export: %s%s\n", TRACE_PROG, err,
			strstr(err, "page") && !x->skip_corrupt ?
			" (--skip-corrupt leaves such pages out)" : "");
		goto out;
	}
	if (o.corrupt_pages)
		fprintf(stderr, "%s: warning: left out %llu corrupt page%s (--skip-corrupt); the first: %s\n",
			TRACE_PROG, (unsigned long long)o.corrupt_pages,
			o.corrupt_pages == 1 ? "" : "s", o.first_corrupt);
	timeline_finish(t, m.end_ns);
	if (tokens(t, &m, tok, err, sizeof(err))) {
		fprintf(stderr, "%s: export: %s: %s\n", TRACE_PROG, x->trace_dir, err);
		goto out;
	}
	q = timeline_irqs(t, &nirqs);
	irqs = malloc((nirqs ? nirqs : 1) * sizeof(*irqs));
	st = stage_new(dir);
	if (!irqs || !st) {
		fprintf(stderr, "%s: export: out of memory\n", TRACE_PROG);
		goto out;
	}
	if (nirqs)
		memcpy(irqs, q, nirqs * sizeof(*irqs));
	qsort(irqs, nirqs, sizeof(*irqs), cmp_irq);
	ret = stage_add(st, base, tmp, sizeof(tmp));
	f = ret ? NULL : wfile_open(tmp);
	if (!f) {
		fprintf(stderr, "%s: export: cannot write %s: %s\n", TRACE_PROG, x->file,
			strerror(ret ? -ret : errno));
		goto out;
	}
	preamble(f, x->trace_dir, &m, tok);
	write_sections(f, t, &m, tok, irqs, nirqs, &c);
	ret = wfile_close(f);
	if (ret) {
		fprintf(stderr, "%s: export: cannot write %s: %s\n", TRACE_PROG, x->file,
			strerror(-ret));
		goto out;
	}
	if (stage_commit(st, err, sizeof(err))) {
		fprintf(stderr, "%s: export: %s\n", TRACE_PROG, err);
		goto out;
	}
	printf("wrote %s: %u core sections, %llu C-state rows, %llu IRQs in %u IRQ sections (ms, two decimals)\n",
	       x->file, m.ncpus, (unsigned long long)c.rows, (unsigned long long)c.irqs,
	       c.irq_sections);
	if (c.unknown_ns)
		printf("the time before each CPU's first cpu_idle event (%.3f ms in all, state unknown) has no row\n",
		       c.unknown_ns / 1e6);
	rc = 0;
out:
	stage_free(st);
	free(irqs);
	free(tok);
	timeline_free(t);
	tracefile_meta_free(&m);
	return rc;
}

/* ---- import ------------------------------------------------------------------ */

/* 1 when dir exists with anything in it, 0 when missing or empty, -errno. */
static int has_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int any = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			any = 1;
	closedir(d);
	return any;
}

static int put_event(void *ctx, const struct tl_event *e)
{
	return tracewrite_event(ctx, e);
}

/* The first word of a preamble value ("mono (the trace's)": mono). */
static void first_word(const char *v, char *buf, size_t len, const char *def)
{
	size_t n = v ? strcspn(v, " \t") : 0;

	if (!n || n >= len)
		snprintf(buf, len, "%s", def);
	else
		snprintf(buf, len, "%.*s", (int)n, v);
}

/*
 * How much of the collection the core C-state rows cover, in words
 * (the rest is unknown in the trace): "1118.00 ms of 11363.00 ms
 * (9.8 %)", per CPU on average with the least one when there are more.
 */
static void cover_text(const struct sw_plan *p, char *buf, size_t len)
{
	double span = (double)p->end_rel * (double)p->cover_sections;
	double pct = span > 0 ? 100.0 * (double)p->covered_ns / span : 100.0;

	if (p->cover_sections <= 1)
		snprintf(buf, len, "the core C-state rows cover %.2f ms of the %.2f ms collection (%.1f %%)",
			 p->covered_ns / 1e6, p->end_rel / 1e6, pct);
	else
		snprintf(buf, len, "the core C-state rows cover %.1f %% of the %.2f ms collection on average over %zu CPUs (the least, cpu%u: %.2f ms, %.1f %%)",
			 pct, p->end_rel / 1e6, p->cover_sections, p->min_cover_cpu,
			 p->min_cover_ns / 1e6,
			 p->end_rel ? 100.0 * (double)p->min_cover_ns / (double)p->end_rel : 100.0);
}

int trace_import_socwatch(const struct trace_xfer *x)
{
	char err[6000], cmd[8400], src[4200], cover[400], note[700];
	struct sw_file *f = NULL;
	struct sw_plan p = { 0 };
	struct trace_meta m = { 0 };
	struct tracewrite_opts o = { 0 };
	struct tracewrite *w = NULL;
	struct stat sb;
	int ret, rc = 1;

	if (socwatch_read(x->file, &f, err, sizeof(err)) ||
	    socwatch_plan(f, &p, err, sizeof(err))) {
		fprintf(stderr, "%s: import: %s\n", TRACE_PROG, err);
		goto out;
	}
	if (!stat(x->trace_dir, &sb) && !S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "%s: import: %s is not a directory\n", TRACE_PROG, x->trace_dir);
		goto out;
	}
	ret = has_files(x->trace_dir);
	if (ret < 0 || (ret && !x->force)) {
		fprintf(stderr, "%s: import: %s %s\n", TRACE_PROG, x->trace_dir,
			ret < 0 ? strerror(-ret) :
			"is not empty (--force replaces the trace files in it)");
		goto out;
	}
	m.ncpus = p.ncpus;
	m.start_ns = p.start_ns;
	m.end_ns = p.end_ns;
	m.names = p.names;
	first_word(socwatch_preamble(f, "Trace clock"), m.clock, sizeof(m.clock), "socwatch");
	first_word(socwatch_preamble(f, "Linux idle driver"), m.driver, sizeof(m.driver),
		   "unknown");
	snprintf(cmd, sizeof(cmd), "wakebench trace import %s --format socwatch --out %s%s",
		 x->file, x->trace_dir, x->force ? " --force" : "");
	snprintf(src, sizeof(src), "socwatch %s", x->file);
	o.command = cmd;
	o.source = src;
	/* the time no row covers is unknown in the trace (socwatch_emit),
	 * and a file without IRQ sections says nothing of wake causes */
	cover_text(&p, cover, sizeof(cover));
	snprintf(note, sizeof(note), "%s; the rest is unknown%s", cover,
		 p.irq_sections ? "" : "; no IRQ sections: wake causes unknown");
	o.note = note;
	o.no_interrupts = !p.irq_sections;
	if (tracewrite_open(x->trace_dir, &m, &o, &w, err, sizeof(err))) {
		fprintf(stderr, "%s: import: %s\n", TRACE_PROG, err);
		goto out;
	}
	ret = socwatch_emit(f, &p, put_event, w);
	if (ret) {
		fprintf(stderr, "%s: import: %s: %s\n", TRACE_PROG, x->trace_dir,
			ret == -ENOMEM ? "out of memory" : tracewrite_error(w));
		tracewrite_abort(w);
		goto out;
	}
	if (tracewrite_close(w, err, sizeof(err))) {
		fprintf(stderr, "%s: import: %s\n", TRACE_PROG, err);
		goto out;
	}
	printf("imported %s into %s: %zu core section%s%s%s%s (%s; %u CPU%s), %llu C-state rows, %llu IRQs\n",
	       x->file, x->trace_dir, p.cores, p.cores == 1 ? "" : "s",
	       p.variant[0] ? " " : "", p.variant, p.variant[0] ? "" : "",
	       p.by_rank ? "numbered in order of package, die, core" : "Core_N as cpuN",
	       p.ncpus, p.ncpus == 1 ? "" : "s",
	       (unsigned long long)p.cstate_rows, (unsigned long long)p.irqs);
	if (p.skipped_variant || p.skipped_package || p.skipped_other || f->skipped)
		printf("not imported: %zu core sections of another variant, %zu package and %zu other C-state sections, %zu sections of other kinds%s%s%s\n",
		       p.skipped_variant, p.skipped_package, p.skipped_other, f->skipped,
		       f->skipped ? " (the first: '" : "", f->first_skipped,
		       f->skipped ? "')" : "");
	printf("%s\n", cover);
	if (p.cover_sections && p.covered_ns + p.cover_sections * 10000 < p.end_rel * p.cover_sections)
		fprintf(stderr, "%s: warning: %s; the rest is unknown in the trace (not C0)\n",
			TRACE_PROG, cover);
	if (!p.irq_sections)
		fprintf(stderr, "%s: warning: %s has no IRQ sections: the wake causes are unknown\n",
			TRACE_PROG, x->file);
	if (p.gaps)
		fprintf(stderr, "%s: warning: %llu C-state rows start after the previous one ended (the longest gap %.3f ms, %s:%u): no row covers a gap, its state is unknown\n",
			TRACE_PROG, (unsigned long long)p.gaps, p.max_gap_ns / 1e6, x->file,
			p.max_gap_line);
	rc = 0;
out:
	socwatch_plan_free(&p);
	socwatch_free(f);
	return rc;
}
