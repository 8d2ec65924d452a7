// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench trace export --format trace.dat: a recorded trace as
 * trace-cmd's data file, written by wakebench's own writer (lib/datfile).
 *
 * A trace recorded as trace.dat is written again from its own header and
 * pages; an older one (cpuN.raw beside formats/) from its formats/, its
 * saved_cmdlines (process names) and its pages. Every page passes
 * lib/tracefile's checks first; a CPU with a corrupt page (--skip-corrupt)
 * gets a cleaned copy without it, in a temporary directory beside FILE.
 * FILE is written as .FILE.partial (lib/stage), read back with
 * libtracecmd's reader (trace-cmd report's), its counts compared with
 * wakebench's own decoding of the same pages, and renamed only when they
 * agree. The temporary files go on every way out: errors, and SIGINT/
 * SIGTERM/SIGHUP/SIGQUIT while writing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>

#include "datfile.h"
#include "outdir.h"
#include "rfile.h"
#include "stage.h"
#include "timeline.h"
#include "trace.h"
#include "tracedat.h"
#include "tracefile.h"
#include "wfile.h"

/* ---- what to remove on the way out (signal handlers included) ---------- */

/*
 * Every temporary path, registered before it is made, removed in reverse
 * order (files before the directories holding them). The array is sized
 * before the first one is made, so the signal handler only reads it and
 * calls unlink/rmdir (async-signal-safe).
 */
static struct {
	char **path;
	size_t cap;
	volatile sig_atomic_t n;
} undo;

static void undo_run(void)
{
	int e = errno;

	for (sig_atomic_t i = undo.n; i-- > 0;)
		if (unlink(undo.path[i]))
			rmdir(undo.path[i]);
	errno = e;
}

static void undo_free(void)
{
	for (sig_atomic_t i = 0; i < undo.n; i++)
		free(undo.path[i]);
	free(undo.path);
	memset(&undo, 0, sizeof(undo));
}

static int undo_add(const char *path)
{
	char *p;

	if ((size_t)undo.n >= undo.cap || !(p = strdup(path)))
		return -ENOMEM;
	undo.path[undo.n] = p;
	undo.n = undo.n + 1;	/* published whole */
	return 0;
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))
static struct sigaction saved_sa[NSTOP];
static int caught;

static void on_stop(int sig)
{
	undo_run();
	signal(sig, SIG_DFL);
	raise(sig);	/* delivered when the handler returns */
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &sa, &saved_sa[i]);
	caught = 1;
}

static void release_signals(void)
{
	for (size_t i = 0; caught && i < NSTOP; i++)
		sigaction(stop_signals[i], &saved_sa[i], NULL);
	caught = 0;
}

/* ---- small files ---------------------------------------------------------- */

/*
 * A path. The trace directory and FILE are bounded up front (MAX_ARG), so
 * every path fits; one that would not is left empty rather than cut (a
 * cut path could name another file).
 */
#define MAX_ARG 2048

__attribute__((format(printf, 3, 4)))
static void pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		buf[0] = '\0';
}


/* ---- the export ------------------------------------------------------------- */

struct exp {
	const struct trace_xfer *x;
	struct trace_meta m;
	struct datfile src;	/* the trace's trace.dat, when it has one */
	int is_dat;
	struct datfile_hdr h;	/* what FILE's header holds */
	char tmp[4096];		/* cleaned CPUs (--skip-corrupt) */
	int *cpu_fd;		/* what goes in, per CPU: -1 not recorded */
	uint64_t *cpu_len;
	struct tf_decoder *dec;
	struct timeline *t;
	struct tf_decode o;	/* wakebench's decoding */
};

/*
 * Each format of an older trace's formats/ parses (a trace's files are not
 * trusted): one that does not is named, as trace-cmd report would choke
 * on it.
 */
static int formats_parse(const struct exp *e, char *err, size_t errlen)
{
	struct tep_handle *tep = tep_alloc();
	int ret = 0;

	if (!tep) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; !ret && i < e->h.nfmts; i++) {
		const struct datfile_fmt *f = &e->h.fmts[i];
		struct tep_event *ev = NULL;

		if (tep_parse_format(tep, &ev, f->text, f->len, f->sys) || !ev) {
			snprintf(err, errlen, "%s/formats/%s/%s/format: not an event format",
				 e->x->trace_dir, f->sys, f->name);
			ret = -EINVAL;
		}
	}
	tep_free(tep);
	return ret;
}

/* FILE's header: the trace.dat's own, or made from formats/. */
static int load_header(struct exp *e, const char *clock, char *err, size_t errlen)
{
	const char *dir = e->x->trace_dir;
	char path[4096], cmd[4096];
	struct stat sb;
	int ret;

	pathf(path, sizeof(path), "%s/trace.dat", dir);
	e->is_dat = !stat(path, &sb) && S_ISREG(sb.st_mode);
	if (e->is_dat) {
		ret = datfile_open(path, &e->src, err, errlen);
		if (ret)
			return ret;
		e->h = e->src.h;	/* borrowed: freed with src */
		e->h.ncpus = e->m.ncpus;
		return 0;
	}
	pathf(path, sizeof(path), "%s/formats", dir);
	pathf(cmd, sizeof(cmd), "%s/saved_cmdlines", dir);
	ret = datfile_hdr_load(&e->h, path, cmd, NULL, err, errlen);
	if (ret == -ENOENT)
		snprintf(err + strlen(err), errlen - strlen(err),
			 " (not a wakebench trace directory?)");
	if (ret)
		return ret;
	e->h.page_size = e->m.subbuf_size;
	e->h.ncpus = e->m.ncpus;
	snprintf(e->h.clock, sizeof(e->h.clock), "%s", clock);
	return formats_parse(e, err, errlen);
}

/*
 * CPU cpu's pages as they are: its part of trace.dat (fd placed at its
 * start) or its cpuN.raw; *fd -1 for a CPU not recorded. 0 or -errno.
 */
static int open_cpu(struct exp *e, uint32_t cpu, int *fd, uint64_t *len,
		    char *name, size_t namelen, char *err, size_t errlen)
{
	*len = UINT64_MAX;
	*fd = -1;
	if (e->is_dat) {
		pathf(name, namelen, "%s/trace.dat", e->x->trace_dir);
		if (cpu >= e->src.h.ncpus || !e->src.off[cpu])
			return 0;
		*len = e->src.size[cpu];
		*fd = rfile_open(name, err, errlen);
		if (*fd >= 0 && lseek(*fd, (off_t)e->src.off[cpu], SEEK_SET) < 0) {
			snprintf(err, errlen, "%s: %s", name, strerror(errno));
			close(*fd);
			*fd = -1;
			return -EIO;
		}
		return *fd < 0 ? *fd : 0;
	}
	pathf(name, namelen, "%s/cpu%u.raw", e->x->trace_dir, cpu);
	*fd = rfile_open(name, err, errlen);
	if (*fd == -ENOENT)
		*fd = -1;	/* not recorded */
	return *fd < -1 ? *fd : 0;
}

/* Appends the page to a cleaned copy, made (and registered) at the first. */
static int clean_put(const char *clean, int *out, const void *page, size_t len)
{
	if (*out < 0) {
		if (undo_add(clean))
			return -ENOMEM;
		*out = wfile_create(clean, 0600);
		if (*out < 0)
			return *out;
	}
	return wfile_write_all(*out, page, len);
}

/*
 * CPU cpu's pages without the corrupt ones (--skip-corrupt), checked one
 * at a time with the decoder of the first reading; the good ones go to a
 * temporary file, which replaces the CPU's source in e->cpu_fd. Adds the
 * pages left out to *left.
 */
static int clean_cpu(struct exp *e, uint32_t cpu, uint64_t *left, char *err,
		     size_t errlen)
{
	uint32_t sub = e->m.subbuf_size;
	char name[4096], clean[4200], why[4800];
	struct tf_decode o = { .skip_corrupt = 1 };
	struct timeline *scratch = timeline_new(e->m.ncpus, e->m.start_ns);
	uint8_t *page = malloc(sub);
	int in = e->cpu_fd[cpu], out = -1, ret = 0;
	uint64_t done = 0, len = e->cpu_len[cpu];

	pathf(clean, sizeof(clean), "%s/cpu%u.raw", e->tmp, cpu);
	pathf(name, sizeof(name), "%s/cpu%u.raw", e->x->trace_dir, cpu);
	if (!scratch || !page) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	while (!ret && done < len) {
		size_t want = len - done < sub ? (size_t)(len - done) : sub;
		ssize_t got = rfile_read_full(in, page, want);
		uint64_t before = o.corrupt_pages;

		if (got <= 0) {
			ret = got < 0 ? (int)got : 0;
			if (ret)
				snprintf(err, errlen, "%s: %s", name, strerror(-ret));
			break;
		}
		done += (uint64_t)got;
		ret = tracefile_decode_pages(e->dec, page, (size_t)got, sub, cpu,
					     name, scratch, &o, why, sizeof(why));
		if (ret) {
			snprintf(err, errlen, "%s", why);
			break;
		}
		if (o.corrupt_pages != before)
			(*left)++;
		else if ((ret = clean_put(clean, &out, page, (size_t)got)))
			snprintf(err, errlen, "cannot write %s (CPU %u without its corrupt pages): %s",
				 clean, cpu, strerror(-ret));
	}
	if (out >= 0 && close(out) && !ret)
		ret = -errno;
	close(in);
	e->cpu_fd[cpu] = -1;
	e->cpu_len[cpu] = UINT64_MAX;
	if (!ret) {	/* the CPU stays recorded, with what is left */
		e->cpu_fd[cpu] = open(out >= 0 ? clean : "/dev/null", O_RDONLY);
		if (e->cpu_fd[cpu] < 0)
			ret = -errno;
	}
	free(page);
	if (scratch)
		timeline_free(scratch);
	return ret;
}

/* What goes in for each CPU; with corrupt pages, cleaned copies. */
static int cpu_sources(struct exp *e, char *err, size_t errlen)
{
	uint64_t left = 0;
	char name[4096];
	int ret = 0;

	for (uint32_t cpu = 0; !ret && cpu < e->m.ncpus; cpu++) {
		ret = open_cpu(e, cpu, &e->cpu_fd[cpu], &e->cpu_len[cpu], name,
			       sizeof(name), err, errlen);
		if (!ret && e->o.corrupt_pages && e->cpu_fd[cpu] >= 0)
			ret = clean_cpu(e, cpu, &left, err, errlen);
	}
	/* The files changed between the two readings. */
	if (!ret && left != e->o.corrupt_pages) {
		snprintf(err, errlen, "%s: %llu corrupt pages on the first reading, %llu on the second (is the trace being written?)",
			 e->x->trace_dir, (unsigned long long)e->o.corrupt_pages,
			 (unsigned long long)left);
		ret = -EIO;
	}
	return ret;
}

/*
 * A trace of many CPUs has that many sources open at once (the soft
 * limit is raised up to the hard one, for this process only).
 */
static int enough_files(uint32_t ncpus, char *err, size_t errlen)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)ncpus + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		snprintf(err, errlen, "a trace of %u CPUs needs %llu open files; the limit is %llu (ulimit -n)",
			 ncpus, (unsigned long long)need,
			 (unsigned long long)rl.rlim_max);
		return -EMFILE;
	}
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		snprintf(err, errlen, "cannot raise the open file limit to %llu: %s",
			 (unsigned long long)need, strerror(errno));
		return -errno;
	}
	return 0;
}

/* A clock name as trace_clock lists them. */
static int good_clock(const char *c)
{
	size_t n = strlen(c);

	return n && strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/* FILE: a name, not a directory, not replaced without --force. */
static int check_file(const struct trace_xfer *x, char *outdir, size_t outlen,
		      char *base, size_t baselen, char *err, size_t errlen)
{
	struct stat sb;

	if (strlen(x->trace_dir) > MAX_ARG || strlen(x->file) > MAX_ARG) {
		snprintf(err, errlen, "%s path longer than %d characters",
			 strlen(x->file) > MAX_ARG ? "the FILE" : "the trace DIR",
			 MAX_ARG);
		return -ENAMETOOLONG;
	}
	if (outdir_split(x->file, outdir, outlen, base, baselen)) {
		snprintf(err, errlen, "%s: not a file name", x->file);
		return -EINVAL;
	}
	if (!lstat(x->file, &sb)) {
		if (S_ISDIR(sb.st_mode)) {
			snprintf(err, errlen, "%s is a directory", x->file);
			return -EISDIR;
		}
		if (!x->force) {
			snprintf(err, errlen, "%s exists (--force replaces it)", x->file);
			return -EEXIST;
		}
	}
	return 0;
}

/*
 * wakebench's own decoding of every page first, the one trace timeline
 * makes (its counts are what the file must hold): a corrupt page, or a
 * directory that is no trace, fails here before anything is made.
 */
static int decode_first(struct exp *e, char *err, size_t errlen)
{
	const struct trace_xfer *x = e->x;
	int ret;

	e->t = timeline_new(e->m.ncpus, e->m.start_ns);
	if (!e->t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e->o.skip_corrupt = x->skip_corrupt;
	ret = tracefile_decode_opts(x->trace_dir, &e->m, e->t, &e->o, err, errlen);
	if (ret == -EBADMSG && !x->skip_corrupt && strstr(err, "page"))
		snprintf(err + strlen(err), errlen - strlen(err),
			 " (--skip-corrupt leaves such pages out)");
	if (!ret && e->o.corrupt_pages)
		ret = tracefile_decoder_new(x->trace_dir, &e->dec, err, errlen);
	return ret;
}

/* The temporary directory of cleaned CPUs, made and registered as one
 * step for the signal handler. */
static int make_tmp(struct exp *e, const char *outdir, const char *base,
		    char *err, size_t errlen)
{
	sigset_t stops, old;
	int ret = 0;

	sigemptyset(&stops);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&stops, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &stops, &old);
	pathf(e->tmp, sizeof(e->tmp), "%s/.%s.tdat-XXXXXX", outdir, base);
	if (!mkdtemp(e->tmp)) {
		ret = -errno;
		snprintf(err, errlen, "cannot create a temporary directory in %s: %s",
			 outdir, strerror(-ret));
	} else if (undo_add(e->tmp)) {
		rmdir(e->tmp);
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/* FILE read back with libtracecmd holds what wakebench decoded. */
static int check_counts(struct exp *e, const char *partial,
			struct tracedat_count *c, char *err, size_t errlen)
{
	uint64_t idle = 0;
	size_t nmarkers;
	int ret, n;

	if ((ret = tracedat_count(partial, c, err, errlen)))
		return ret;
	for (uint32_t cpu = 0; cpu < e->m.ncpus; cpu++)
		idle += timeline_idle_events(e->t, cpu);
	timeline_markers(e->t, &nmarkers);
	if (c->events == e->o.recorded && c->cpu_idle == idle && c->markers == nmarkers)
		return 0;
	n = snprintf(err, errlen, "check failed: %s holds %llu events (cpu_idle %llu, markers %llu), wakebench decodes %llu (cpu_idle %llu, markers %zu) from %s",
		     e->x->file, (unsigned long long)c->events,
		     (unsigned long long)c->cpu_idle, (unsigned long long)c->markers,
		     (unsigned long long)e->o.recorded, (unsigned long long)idle,
		     nmarkers, e->x->trace_dir);
	if (timeline_rejected(e->t) && n > 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, "; %llu of its events are out of time order and not counted",
			 (unsigned long long)timeline_rejected(e->t));
	return -EIO;
}

/* FILE's temporary name written and checked. */
static int write_file(struct exp *e, const char *partial, struct tracedat_count *c,
		      char *err, size_t errlen)
{
	int fd, ret;

	if (undo_add(partial)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fd = wfile_create(partial, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", partial, strerror(-fd));
		return fd;
	}
	ret = datfile_write(fd, &e->h, e->cpu_fd, e->cpu_len, e->x->file, err, errlen);
	if (close(fd) && !ret) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", e->x->file, strerror(errno));
	}
	return ret ? ret : check_counts(e, partial, c, err, errlen);
}

static int export(struct exp *e, char *err, size_t errlen)
{
	const struct trace_xfer *x = e->x;
	char outdir[4096], base[256], partial[4400];
	struct tracedat_count c;
	struct stage *st = NULL;
	const char *clock;
	int ret;

	if ((ret = check_file(x, outdir, sizeof(outdir), base, sizeof(base), err, errlen)))
		return ret;
	if ((ret = tracefile_meta(x->trace_dir, &e->m, err, errlen)))
		return ret;
	/* wakebench traces are CLOCK_MONOTONIC (DESIGN.md "Time and
	 * alignment"); one that does not say is taken as such. */
	clock = e->m.clock[0] ? e->m.clock : "mono";
	if (!good_clock(clock)) {
		snprintf(err, errlen, "%s/meta.txt: bad clock '%s'", x->trace_dir, clock);
		return -EINVAL;
	}
	if ((ret = enough_files(e->m.ncpus, err, errlen)) ||
	    (ret = load_header(e, clock, err, errlen)))
		return ret;
	e->cpu_fd = malloc(e->m.ncpus * sizeof(*e->cpu_fd));
	e->cpu_len = malloc(e->m.ncpus * sizeof(*e->cpu_len));
	/* the temporary directory, cleaned CPUs, partial */
	undo.cap = 3 + (size_t)e->m.ncpus;
	undo.path = calloc(undo.cap, sizeof(*undo.path));
	st = stage_new(outdir);
	if (!e->cpu_fd || !e->cpu_len || !undo.path || !st) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t cpu = 0; cpu < e->m.ncpus; cpu++)
		e->cpu_fd[cpu] = -1;
	ret = stage_add(st, base, partial, sizeof(partial));
	if (ret) {
		snprintf(err, errlen, "%s: %s", x->file, strerror(-ret));
		goto out;
	}
	if ((ret = decode_first(e, err, errlen)))
		goto out;
	catch_signals();
	if ((ret = make_tmp(e, outdir, base, err, errlen)) ||
	    (ret = cpu_sources(e, err, errlen)) ||
	    (ret = write_file(e, partial, &c, err, errlen)) ||
	    (ret = stage_commit(st, err, errlen)))
		goto out;
	if (e->o.corrupt_pages)
		fprintf(stderr, "%s: warning: left out %llu corrupt page%s (--skip-corrupt); the first: %s\n",
			TRACE_PROG, (unsigned long long)e->o.corrupt_pages,
			e->o.corrupt_pages == 1 ? "" : "s", e->o.first_corrupt);
	printf("wrote %s: %llu events (cpu_idle %llu, markers %llu), checked with libtracecmd\n",
	       x->file, (unsigned long long)c.events, (unsigned long long)c.cpu_idle,
	       (unsigned long long)c.markers);
out:
	stage_free(st);
	return ret;
}

int trace_export_tracedat(const struct trace_xfer *x)
{
	struct exp e = { .x = x };
	char err[6000] = "";
	int ret;

	/* A closed standard error is no reason to stop half way. */
	signal(SIGPIPE, SIG_IGN);
	ret = export(&e, err, sizeof(err));
	for (uint32_t cpu = 0; e.cpu_fd && cpu < e.m.ncpus; cpu++)
		if (e.cpu_fd[cpu] >= 0)
			close(e.cpu_fd[cpu]);
	/* Temporary files, and FILE's .partial when it failed. */
	undo_run();
	release_signals();
	undo_free();
	free(e.cpu_fd);
	free(e.cpu_len);
	if (e.is_dat)
		datfile_free(&e.src);
	else
		datfile_hdr_free(&e.h);
	if (e.t)
		timeline_free(e.t);
	tracefile_decoder_free(e.dec);
	tracefile_meta_free(&e.m);
	if (ret) {
		fprintf(stderr, "%s: export %s: %s\n", TRACE_PROG, x->trace_dir, err);
		return 1;
	}
	return 0;
}
