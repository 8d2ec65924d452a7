// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench trace export --format trace.dat: a recorded trace as
 * trace-cmd's data file, written by libtracecmd (lib/tracedat).
 *
 * libtracecmd reads the formats from a directory laid out like tracefs:
 * one is built in a temporary directory beside FILE from the trace's
 * formats/ (and its saved_cmdlines, for process names). The per-CPU
 * files go to libtracecmd as they are, once every page has passed
 * lib/tracefile's checks; a CPU with a corrupt page (--skip-corrupt) gets
 * a cleaned copy without it. FILE is written as .FILE.partial (lib/stage),
 * read back with libtracecmd's reader, its cpu_idle and marker counts
 * compared with wakebench's own decoding of the same pages, and renamed
 * only when they agree. The temporary files go on every way out:
 * errors, and SIGINT/SIGTERM/SIGHUP/SIGQUIT while writing.
 */
#include <dirent.h>
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

#include "outdir.h"
#include "rfile.h"
#include "stage.h"
#include "timeline.h"
#include "trace.h"
#include "tracedat.h"
#include "tracefile.h"
#include "wfile.h"

/*
 * The kernel's events/header_event, for traces recorded before trace
 * record saved formats/header_event: a constant text (the kernel prints
 * it from the ring buffer's fixed event types), copied from
 * /sys/kernel/tracing/events/header_event of Linux 6.18.
 */
static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define MAX_FORMATS 4096		/* event formats in one trace */
#define MAX_FORMAT_BYTES (1u << 20)	/* one format file */
#define MAX_CMDLINES_BYTES (16u << 20)	/* saved_cmdlines */
#define NAME_MAX_LEN 63			/* a system or event name */

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


/* A new file with text (registered for removal first). */
static int put_file(const char *path, const char *text, size_t len, char *err,
		    size_t errlen)
{
	int fd, ret;

	if (undo_add(path)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fd = wfile_create(path, 0600);
	if (fd < 0) {
		ret = fd;
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(-ret));
		return ret;
	}
	ret = wfile_write_all(fd, text, len);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-ret));
	return ret;
}

static int put_dir(const char *path, char *err, size_t errlen)
{
	if (undo_add(path)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (mkdir(path, 0700) && errno != EEXIST) {
		int ret = -errno;

		snprintf(err, errlen, "cannot create %s: %s", path, strerror(-ret));
		return ret;
	}
	return 0;
}

/* ---- the trace's event formats --------------------------------------------- */

struct fmt {
	char sys[NAME_MAX_LEN + 1], name[NAME_MAX_LEN + 1];
};

/* Names the kernel gives systems and events; nothing that walks paths. */
static int good_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > NAME_MAX_LEN || s[0] == '.')
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_-.") == n;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

static int fmt_cmp(const void *a, const void *b)
{
	const struct fmt *x = a, *y = b;
	int c = strcmp(x->sys, y->sys);

	return c ? c : strcmp(x->name, y->name);
}

/*
 * Every formats/SYS/EVENT/format of the trace, sorted. Returns how many
 * (in *out, free it), or -errno with a message.
 */
static long list_formats(const char *dir, struct fmt **out, char *err,
			 size_t errlen)
{
	char path[4096];
	struct fmt *f = NULL;
	struct dirent *se;
	long n = 0;
	DIR *sd;

	*out = NULL;
	pathf(path, sizeof(path), "%s/formats", dir);
	sd = opendir(path);
	if (!sd) {
		snprintf(err, errlen, "%s: %s (not a wakebench trace directory?)", path,
			 strerror(errno));
		return -EINVAL;
	}
	f = malloc(MAX_FORMATS * sizeof(*f));
	if (!f) {
		closedir(sd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while ((se = readdir(sd))) {
		struct dirent *ee;
		DIR *ed;

		if (se->d_name[0] == '.' || !strcmp(se->d_name, "header_page") ||
		    !strcmp(se->d_name, "header_event"))
			continue;
		pathf(path, sizeof(path), "%s/formats/%s", dir, se->d_name);
		if (!is_dir(path))
			continue;	/* not a system: nothing of ours */
		if (!good_name(se->d_name)) {
			snprintf(err, errlen, "%s: not an event system name", path);
			goto bad;
		}
		ed = opendir(path);
		if (!ed) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto bad;
		}
		while ((ee = readdir(ed))) {
			if (ee->d_name[0] == '.')
				continue;
			pathf(path, sizeof(path), "%s/formats/%s/%s", dir,
				 se->d_name, ee->d_name);
			if (!is_dir(path))
				continue;
			if (!good_name(ee->d_name)) {
				snprintf(err, errlen, "%s: not an event name", path);
				closedir(ed);
				goto bad;
			}
			if (n == MAX_FORMATS) {
				snprintf(err, errlen, "%s/formats: more than %d events",
					 dir, MAX_FORMATS);
				closedir(ed);
				goto bad;
			}
			/* good_name(): both fit */
			memcpy(f[n].sys, se->d_name, strlen(se->d_name) + 1);
			memcpy(f[n].name, ee->d_name, strlen(ee->d_name) + 1);
			n++;
		}
		closedir(ed);
	}
	closedir(sd);
	qsort(f, (size_t)n, sizeof(*f), fmt_cmp);
	*out = f;
	return n;
bad:
	closedir(sd);
	free(f);
	return -EINVAL;
}

/* ---- the export ------------------------------------------------------------- */

struct exp {
	const struct trace_xfer *x;
	struct trace_meta m;
	struct fmt *fmts;
	long nfmts;
	char tmp[4096];		/* the tracing dir we build */
	char **cpu_files;	/* what libtracecmd copies, per CPU */
	char empty[4096];	/* an empty file, for CPUs without data */
	struct tf_decoder *dec;
	struct timeline *t;
	struct tf_decode o;	/* wakebench's decoding */
	char *hp;		/* formats/header_page */
	size_t hplen;
};

/*
 * The trace's formats/header_page. libtracecmd's pages are the
 * sub-buffers it declares (lib/tracedat), the trace's are meta.txt's
 * subbuf_size bytes: they must agree. And the reader maps the pages from
 * the file: a page must be whole pages of memory.
 */
static int read_header_page(struct exp *e, char *err, size_t errlen)
{
	const char *dir = e->x->trace_dir;
	char src[4096];
	int ret, sub;

	pathf(src, sizeof(src), "%s/formats/header_page", dir);
	ret = rfile_slurp(src, MAX_FORMAT_BYTES, &e->hp, &e->hplen, err, errlen);
	if (ret == -ENOENT)
		snprintf(err, errlen, "%s: missing (not a wakebench trace directory?)", src);
	if (ret)
		return ret;
	sub = tracedat_subbuf_size(e->hp, e->hplen);
	if (sub <= 0) {
		snprintf(err, errlen, "%s: no sub-buffer layout in it (not a header_page)", src);
		return -EINVAL;
	}
	if ((uint32_t)sub != e->m.subbuf_size) {
		snprintf(err, errlen, "%s declares %d-byte pages, %s/meta.txt %u-byte ones: libtracecmd would cut the data at the wrong places",
			 src, sub, dir, e->m.subbuf_size);
		return -EINVAL;
	}
	if (sub & (sub - 1) || sub % getpagesize()) {
		snprintf(err, errlen, "%s/meta.txt: %u-byte pages: trace.dat needs a power of two and a multiple of this machine's %d-byte page",
			 dir, e->m.subbuf_size, getpagesize());
		return -EINVAL;
	}
	return 0;
}

/*
 * libtracecmd 1.3 copies a CPU's data with a 32-bit count: a CPU file of
 * 2 GiB or more fails after minutes of copying ("did not match size of
 * 2477670400 to -1817296896", found with a 100 M-event trace). Said
 * before anything is written.
 */
#define TRACEDAT_CPU_MAX 0x7fffffffll

static int cpu_files_fit(struct exp *e, char *err, size_t errlen)
{
	for (uint32_t cpu = 0; cpu < e->m.ncpus; cpu++) {
		char path[4096];
		struct stat st;

		pathf(path, sizeof(path), "%s/cpu%u.raw", e->x->trace_dir, cpu);
		if (stat(path, &st) || st.st_size <= TRACEDAT_CPU_MAX)
			continue;
		snprintf(err, errlen, "%s: %lld bytes; libtracecmd cannot write a CPU's data of 2 GiB or more (record shorter traces, or fewer events per CPU)",
			 path, (long long)st.st_size);
		return -EFBIG;
	}
	return 0;
}

/*
 * The formats as libtracecmd reads them: events/header_page,
 * events/header_event, events/SYS/EVENT/format, and saved_cmdlines.
 * Each format is parsed first (a trace's files are not trusted): one
 * that does not parse, whose name is not its directory's, or whose id is
 * another's is an error naming it.
 */
static int build_tracing_dir(struct exp *e, char *err, size_t errlen)
{
	const char *dir = e->x->trace_dir;
	char src[4096], dst[4200], *buf = NULL;
	struct tep_handle *tep = tep_alloc();
	int *ids = NULL, ret;
	size_t len;

	if (!tep || !(ids = malloc(((size_t)e->nfmts + 1) * sizeof(*ids)))) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	pathf(dst, sizeof(dst), "%s/events", e->tmp);
	if ((ret = put_dir(dst, err, errlen)))
		goto out;

	pathf(dst, sizeof(dst), "%s/events/header_page", e->tmp);
	if ((ret = put_file(dst, e->hp, e->hplen, err, errlen)))
		goto out;

	/* Saved by trace record since header_event export; the kernel's text
	 * otherwise (it is a constant). */
	pathf(src, sizeof(src), "%s/formats/header_event", dir);
	ret = rfile_slurp(src, MAX_FORMAT_BYTES, &buf, &len, err, errlen);
	if (ret && ret != -ENOENT)
		goto out;
	pathf(dst, sizeof(dst), "%s/events/header_event", e->tmp);
	ret = buf ? put_file(dst, buf, len, err, errlen) :
		put_file(dst, header_event, sizeof(header_event) - 1, err, errlen);
	if (ret)
		goto out;
	free(buf);
	buf = NULL;

	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	for (long i = 0; i < e->nfmts; i++) {
		const struct fmt *f = &e->fmts[i];
		struct tep_event *ev = NULL;

		pathf(src, sizeof(src), "%s/formats/%s/%s/format", dir, f->sys,
			 f->name);
		ret = rfile_slurp(src, MAX_FORMAT_BYTES, &buf, &len, err, errlen);
		if (ret == -ENOENT)
			snprintf(err, errlen, "%s: missing", src);
		if (ret)
			goto out;
		if (tep_parse_format(tep, &ev, buf, len, f->sys) || !ev) {
			snprintf(err, errlen, "%s: not an event format libtraceevent parses",
				 src);
			ret = -EINVAL;
			goto out;
		}
		if (strcmp(ev->name, f->name)) {
			snprintf(err, errlen, "%s: the format of event '%.64s', not %s",
				 src, ev->name, f->name);
			ret = -EINVAL;
			goto out;
		}
		for (long k = 0; k < i; k++) {
			if (ids[k] == ev->id) {
				snprintf(err, errlen, "%s: id %d, the id of %s:%s too",
					 src, ev->id, e->fmts[k].sys, e->fmts[k].name);
				ret = -EINVAL;
				goto out;
			}
		}
		ids[i] = ev->id;
		pathf(dst, sizeof(dst), "%s/events/%s", e->tmp, f->sys);
		if (!i || strcmp(f->sys, e->fmts[i - 1].sys))
			if ((ret = put_dir(dst, err, errlen)))
				goto out;
		pathf(dst, sizeof(dst), "%s/events/%s/%s", e->tmp, f->sys, f->name);
		if ((ret = put_dir(dst, err, errlen)))
			goto out;
		pathf(dst, sizeof(dst), "%s/events/%s/%s/format", e->tmp, f->sys,
			 f->name);
		if ((ret = put_file(dst, buf, len, err, errlen)))
			goto out;
		free(buf);
		buf = NULL;
	}

	/* Process names for trace-cmd report, when trace record saved them. */
	pathf(src, sizeof(src), "%s/saved_cmdlines", dir);
	ret = rfile_slurp(src, MAX_CMDLINES_BYTES, &buf, &len, err, errlen);
	if (!ret) {
		pathf(dst, sizeof(dst), "%s/saved_cmdlines", e->tmp);
		ret = put_file(dst, buf, len, err, errlen);
	} else if (ret == -ENOENT) {
		ret = 0;
	}
out:
	free(buf);
	free(ids);
	if (tep)
		tep_free(tep);
	return ret;
}


/* The first len bytes of in (from its start) to out. */
static int copy_head(int in, int out, uint64_t len, void *buf, size_t bufsz)
{
	uint64_t at = 0;

	while (at < len) {
		size_t want = len - at < bufsz ? (size_t)(len - at) : bufsz;
		ssize_t n = pread(in, buf, want, (off_t)at);
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		ret = wfile_write_all(out, buf, (size_t)n);
		if (ret)
			return ret;
		at += (uint64_t)n;
	}
	return 0;
}

/* An empty file for the CPUs without data (made once). */
static int empty_file(struct exp *e, uint32_t cpu, char *err, size_t errlen)
{
	int ret;

	if (!e->empty[0]) {
		pathf(e->empty, sizeof(e->empty), "%s/empty", e->tmp);
		if ((ret = put_file(e->empty, "", 0, err, errlen)))
			return ret;
	}
	e->cpu_files[cpu] = strdup(e->empty);
	return 0;
}

/*
 * CPU cpu's pages without the corrupt ones (--skip-corrupt), for a trace
 * whose decoding skipped some: its pages are checked again one at a time
 * with the same decoder, and from its first corrupt page on the good
 * ones are copied to a temporary file (with the pages before it). A CPU
 * without corrupt pages keeps its file: nothing is copied without need.
 * Adds the pages left out to *left.
 */
static int clean_cpu(struct exp *e, uint32_t cpu, uint64_t *left, char *err,
		     size_t errlen)
{
	uint32_t sub = e->m.subbuf_size;
	char path[4096], clean[4200], why[4800];
	struct tf_decode o = { .skip_corrupt = 1 };
	struct timeline *scratch = NULL;
	int fd, out = -1, ret = 0;
	uint8_t *page = NULL;

	pathf(path, sizeof(path), "%s/cpu%u.raw", e->x->trace_dir, cpu);
	pathf(clean, sizeof(clean), "%s/cpu%u.raw", e->tmp, cpu);
	fd = rfile_open(path, err, errlen);
	if (fd == -ENOENT)
		return empty_file(e, cpu, err, errlen);
	if (fd < 0)
		return fd;
	/* The events go nowhere: the counts come from the first decoding. */
	scratch = timeline_new(e->m.ncpus, e->m.start_ns);
	page = malloc(sub);
	if (!scratch || !page) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto done;
	}
	for (uint64_t pg = 0;; pg++) {
		ssize_t got = rfile_read_full(fd, page, sub);
		uint64_t before = o.corrupt_pages;

		if (got < 0) {
			ret = (int)got;
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
			goto done;
		}
		if (!got)
			break;
		ret = tracefile_decode_pages(e->dec, page, (size_t)got, sub, cpu,
					     path, scratch, &o, why, sizeof(why));
		if (ret) {
			snprintf(err, errlen, "%s", why);
			goto done;
		}
		if (o.corrupt_pages != before) {
			(*left)++;
			if (out < 0) {
				if (undo_add(clean)) {
					snprintf(err, errlen, "out of memory");
					ret = -ENOMEM;
					goto done;
				}
				out = wfile_create(clean, 0600);
				ret = out < 0 ? out :
				      copy_head(fd, out, pg * sub, page, sub);
				if (ret)
					goto write_failed;
			}
		} else if (out >= 0) {
			ret = wfile_write_all(out, page, sub);
			if (ret)
				goto write_failed;
		}
		if ((size_t)got < sub)
			break;
	}
	if (out >= 0) {
		ret = close(out) ? -errno : 0;
		out = -1;
		if (ret)
			goto write_failed;
	}
	e->cpu_files[cpu] = strdup(o.corrupt_pages ? clean : path);
	goto done;
write_failed:
	snprintf(err, errlen, "cannot write %s (CPU %u without its corrupt pages): %s",
		 clean, cpu, strerror(-ret));
done:
	if (out >= 0)
		close(out);
	close(fd);
	free(page);
	if (scratch)
		timeline_free(scratch);
	return ret;
}

/*
 * What libtracecmd copies for each CPU: its file as it is (all pages
 * passed the checks), a cleaned copy (some were left out), or an empty
 * file (a CPU that was not recorded: --cpus).
 */
static int cpu_files(struct exp *e, char *err, size_t errlen)
{
	uint64_t left = 0;
	int ret = 0;

	for (uint32_t cpu = 0; !ret && cpu < e->m.ncpus; cpu++) {
		char path[4096];

		if (e->o.corrupt_pages) {
			ret = clean_cpu(e, cpu, &left, err, errlen);
		} else {
			pathf(path, sizeof(path), "%s/cpu%u.raw", e->x->trace_dir, cpu);
			if (access(path, F_OK) && errno == ENOENT)
				ret = empty_file(e, cpu, err, errlen);
			else
				e->cpu_files[cpu] = strdup(path);
		}
		if (!ret && !e->cpu_files[cpu]) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
		}
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
 * libtracecmd opens every CPU's file at once: a trace of many CPUs needs
 * that many descriptors (the soft limit is raised up to the hard one, for
 * this process only).
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


static int export(struct exp *e, char *err, size_t errlen)
{
	const struct trace_xfer *x = e->x;
	char outdir[4096], base[256], partial[4400];
	struct tracedat_count c;
	struct tracedat_src src;
	struct stage *st = NULL;
	uint64_t idle = 0, recorded;
	size_t nmarkers;
	sigset_t stops, old;
	const char *clock;
	struct stat sb;
	int ret;

	if (strlen(x->trace_dir) > MAX_ARG || strlen(x->file) > MAX_ARG) {
		snprintf(err, errlen, "%s path longer than %d characters",
			 strlen(x->file) > MAX_ARG ? "the FILE" : "the trace DIR",
			 MAX_ARG);
		return -ENAMETOOLONG;
	}
	if (outdir_split(x->file, outdir, sizeof(outdir), base, sizeof(base))) {
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
	if ((ret = tracefile_meta(x->trace_dir, &e->m, err, errlen)))
		return ret;
	/* wakebench traces are CLOCK_MONOTONIC (DESIGN.md "Time and
	 * alignment"); one that does not say is taken as such. */
	clock = e->m.clock[0] ? e->m.clock : "mono";
	if (!good_clock(clock)) {
		snprintf(err, errlen, "%s/meta.txt: bad clock '%s'", x->trace_dir, clock);
		return -EINVAL;
	}
	if ((ret = read_header_page(e, err, errlen)))
		return ret;
	if ((ret = cpu_files_fit(e, err, errlen)))
		return ret;
	if ((ret = enough_files(e->m.ncpus, err, errlen)))
		return ret;
	e->nfmts = list_formats(x->trace_dir, &e->fmts, err, errlen);
	if (e->nfmts < 0)
		return (int)e->nfmts;
	e->cpu_files = calloc(e->m.ncpus, sizeof(*e->cpu_files));
	/* tmp, events, two headers, a system directory, event directory and
	 * format per event, saved_cmdlines, empty, a file per CPU, partial */
	undo.cap = 8 + 3 * (size_t)e->nfmts + e->m.ncpus;
	undo.path = calloc(undo.cap, sizeof(*undo.path));
	st = stage_new(outdir);
	if (!e->cpu_files || !undo.path || !st) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ret = stage_add(st, base, partial, sizeof(partial));
	if (ret) {
		snprintf(err, errlen, "%s: %s", x->file, strerror(-ret));
		goto out;
	}
	/*
	 * wakebench's own decoding of every page first, the one trace
	 * timeline makes (its counts are what the file must hold): a corrupt
	 * page, or a directory that is no trace, fails here before anything
	 * is made.
	 */
	e->t = timeline_new(e->m.ncpus, e->m.start_ns);
	if (!e->t) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	e->o.skip_corrupt = x->skip_corrupt;
	ret = tracefile_decode_opts(x->trace_dir, &e->m, e->t, &e->o, err, errlen);
	if (ret == -EBADMSG && !x->skip_corrupt && strstr(err, "page"))
		snprintf(err + strlen(err), errlen - strlen(err),
			 " (--skip-corrupt leaves such pages out)");
	if (ret)
		goto out;
	if (e->o.corrupt_pages &&
	    (ret = tracefile_decoder_new(x->trace_dir, &e->dec, err, errlen)))
		goto out;

	catch_signals();
	/* mkdtemp and its registration as one step for the handler. */
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
	if (ret)
		goto out;
	if ((ret = build_tracing_dir(e, err, errlen)))
		goto out;
	if ((ret = cpu_files(e, err, errlen)))
		goto out;
	recorded = e->o.recorded;
	for (uint32_t cpu = 0; cpu < e->m.ncpus; cpu++)
		idle += timeline_idle_events(e->t, cpu);
	timeline_markers(e->t, &nmarkers);

	if (undo_add(partial)) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	src = (struct tracedat_src){ .tracing_dir = e->tmp, .clock = clock,
				     .ncpus = (int)e->m.ncpus,
				     .cpu_files = e->cpu_files };
	if ((ret = tracedat_write(partial, &src, err, errlen)))
		goto out;
	if ((ret = tracedat_count(partial, &c, err, errlen)))
		goto out;
	if (c.page_size != (int)e->m.subbuf_size) {
		snprintf(err, errlen, "check failed: libtracecmd wrote %d-byte pages, the trace's are %u bytes",
			 c.page_size, e->m.subbuf_size);
		ret = -EIO;
		goto out;
	}
	if (c.events != recorded || c.cpu_idle != idle || c.markers != nmarkers) {
		int n = snprintf(err, errlen, "check failed: %s holds %llu events (cpu_idle %llu, markers %llu), wakebench decodes %llu (cpu_idle %llu, markers %zu) from %s",
				 x->file, (unsigned long long)c.events,
				 (unsigned long long)c.cpu_idle,
				 (unsigned long long)c.markers,
				 (unsigned long long)recorded,
				 (unsigned long long)idle, nmarkers, x->trace_dir);

		if (timeline_rejected(e->t) && n > 0 && (size_t)n < errlen)
			snprintf(err + n, errlen - (size_t)n, "; %llu of its events are out of time order and not counted",
				 (unsigned long long)timeline_rejected(e->t));
		ret = -EIO;
		goto out;
	}
	ret = stage_commit(st, err, errlen);
	if (ret)
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
	/* Temporary files, and FILE's .partial when it failed. */
	undo_run();
	release_signals();
	undo_free();
	for (uint32_t cpu = 0; e.cpu_files && cpu < e.m.ncpus; cpu++)
		free(e.cpu_files[cpu]);
	free(e.cpu_files);
	free(e.fmts);
	free(e.hp);
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
