// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>
#include <tracefs.h>
#include <unistd.h>

#include "errmsg.h"
#include "tracedat.h"
#include "wfile.h"

/*
 * libtracecmd's writer. Debian's libtracecmd-dev installs only the public
 * reader header (trace-cmd/trace-cmd.h), but the library exports the
 * functions trace-cmd itself writes its files with (nm -D libtracecmd.so.1)
 * and declares them in trace-cmd's private header. These prototypes are
 * copied from lib/trace-cmd/include/private/trace-cmd-private.h of
 * trace-cmd v3.1.6 (libtracecmd 1.3.1, the version the Makefile builds
 * against); the sequence of calls follows tracecmd/trace-record.c's
 * create_output() and record_data().
 */
struct tracecmd_output;
struct tracecmd_option;
struct tracecmd_event_list;

struct tracecmd_output *tracecmd_output_create(const char *output_file);
int tracecmd_output_set_trace_dir(struct tracecmd_output *handle, const char *tracing_dir);
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle, const char *kallsyms);
int tracecmd_output_write_headers(struct tracecmd_output *handle,
				  struct tracecmd_event_list *list);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet);
void tracecmd_set_out_clock(struct tracecmd_output *handle, const char *clock);
struct tracecmd_option *tracecmd_add_option(struct tracecmd_output *handle,
					    unsigned short id, int size,
					    const void *data);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_append_cpu_data(struct tracecmd_output *handle,
			     int cpus, char * const *cpu_data_files);
void tracecmd_output_close(struct tracecmd_output *handle);
int tracecmd_page_size(struct tracecmd_input *handle);

/* TRACECMD_OPTION_TRACECLOCK of the private header's enum
 * tracecmd_option_id: a number of the file format. */
#define TRACEDAT_OPTION_TRACECLOCK 4

/*
 * The kallsyms libtracecmd copies into the file: a path that cannot exist
 * (nothing is under /dev/null), so the section is empty. For a kallsyms
 * that exists libtracecmd writes '0' to /proc/sys/kernel/kptr_restrict
 * around reading it, a system change an export must not make; and the
 * kernel's symbols would be this machine's, not the recording one's.
 */
#define NO_KALLSYMS "/dev/null/kallsyms"

/*
 * libtracecmd 1.3.1 keeps the kallsyms path it is given in a strdup that
 * tracecmd_output_free() never frees (it frees the tracing dir, clock and
 * strings only): 19 bytes per file written, the library's. LeakSanitizer
 * (make asan) reads these hooks of the sanitizer runtime; without ASan
 * they are unused functions.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_output_set_kallsyms\n";
}

/* ... and says nothing of it at exit (on a command's standard error). */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

/* " (cause)" from errno, or "" when the library left none. */
static const char *cause(int e, char *buf, size_t len)
{
	if (!e)
		return "";
	snprintf(buf, len, " (%s)", strerror(e));
	return buf;
}

int tracedat_write(const char *file, const struct tracedat_src *s, char *err,
		   size_t errlen)
{
	struct tracecmd_output *out = NULL;
	char clock[64], why[128], *dir;
	const char *step = "create";
	char self[64];
	int ret = -EIO, n, fd;

	n = snprintf(clock, sizeof(clock), "[%s]", s->clock);
	if (n < 0 || (size_t)n >= sizeof(clock)) {
		errmsg_set(err, errlen, "trace clock '%.40s' too long", s->clock);
		return -EINVAL;
	}
	dir = strdup(s->tracing_dir);
	if (!dir) {
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/*
	 * libtracecmd sizes its pages when the handle is made, from the
	 * header_page of libtracefs' tracing dir (tracecmd_output_create ->
	 * get_trace_page_size), before a tracing dir can be given to it: the
	 * live tracefs, which libtracefs would even mount. Pointed at ours,
	 * the pages are the trace's own and the system is not touched.
	 */
	errno = 0;
	if (tracefs_set_tracing_dir(dir)) {
		free(dir);
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/*
	 * libtracecmd opens its file with O_CREAT|O_TRUNC, which writes
	 * through a link planted at the name: the file is made here, with
	 * O_EXCL, and the library is given the descriptor's own
	 * /proc/self/fd name, which can only reopen this very file.
	 */
	fd = wfile_create(file, 0644);
	if (fd < 0) {
		free(dir);
		tracefs_set_tracing_dir(NULL);
		errmsg_set(err, errlen, "cannot create %s: %s", file, strerror(-fd));
		return fd;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	out = tracecmd_output_create(self);
	close(fd);
	if (!out)
		goto fail;
	tracecmd_set_quiet(out, true);
	step = "set up";
	if (tracecmd_output_set_trace_dir(out, dir) ||
	    tracecmd_output_set_kallsyms(out, NO_KALLSYMS))
		goto fail;
	/* The clock of the buffer and the TRACECLOCK option, which trace-cmd
	 * report reads as "[clock]" (the selected one of trace_clock). */
	tracecmd_set_out_clock(out, s->clock);
	step = "write the headers (event formats) of";
	errno = 0;
	if (tracecmd_output_write_headers(out, NULL))
		goto fail;
	step = "add the trace clock to";
	if (!tracecmd_add_option(out, TRACEDAT_OPTION_TRACECLOCK,
				 (int)strlen(clock) + 1, clock))
		goto fail;
	step = "write the process names to";
	errno = 0;
	if (tracecmd_write_cmdlines(out))
		goto fail;
	step = "write the CPU data to";
	errno = 0;
	if (tracecmd_append_cpu_data(out, s->ncpus, s->cpu_files))
		goto fail;
	/* The options and strings sections are written on close, which
	 * says nothing of a failure: the caller reads the file back. */
	tracecmd_output_close(out);
	out = NULL;
	ret = 0;
	goto out;
fail:
	ret = errno ? -errno : -EIO;
	errmsg_set(err, errlen, "libtracecmd cannot %s %s%s", step, file,
		   cause(errno, why, sizeof(why)));
	if (out)
		tracecmd_output_close(out);
out:
	tracefs_set_tracing_dir(NULL);
	free(dir);
	return ret;
}

int tracedat_subbuf_size(const char *header_page, size_t len)
{
	struct tep_handle *tep = tep_alloc();
	int size = 0;

	if (!tep)
		return 0;
	/* The long size libtracecmd parses it with (get_trace_page_size). */
	if (!tep_parse_header_page(tep, (char *)header_page, (unsigned long)len,
				   (int)sizeof(long long)))
		size = tep_get_sub_buffer_size(tep);
	tep_free(tep);
	return size > 0 ? size : 0;
}

struct count_ctx {
	struct tep_handle *tep;
	int idle_id, print_id;
	struct tracedat_count *c;
};

static int count_event(struct tracecmd_input *h, struct tep_record *rec,
		       int cpu, void *arg)
{
	struct count_ctx *x = arg;
	int id = tep_data_type(x->tep, rec);

	(void)h;
	(void)cpu;
	x->c->events++;
	if (id == x->idle_id)
		x->c->cpu_idle++;
	else if (id == x->print_id)
		x->c->markers++;
	return 0;
}

static int event_id(struct tep_handle *tep, const char *sys, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(tep, sys, name);

	return ev ? ev->id : -1;
}

int tracedat_count(const char *file, struct tracedat_count *c, char *err,
		   size_t errlen)
{
	struct tracecmd_input *h;
	struct count_ctx x = { .c = c };
	char why[128];

	memset(c, 0, sizeof(*c));
	errno = 0;
	/* No plugins: they change how events print, not what the file holds. */
	h = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		errmsg_set(err, errlen, "libtracecmd cannot open %s%s", file,
			   cause(errno, why, sizeof(why)));
		return errno ? -errno : -EBADMSG;
	}
	x.tep = tracecmd_get_tep(h);
	x.idle_id = event_id(x.tep, "power", "cpu_idle");
	x.print_id = event_id(x.tep, "ftrace", "print");
	c->page_size = tracecmd_page_size(h);
	if (tracecmd_iterate_events(h, NULL, 0, count_event, &x) < 0) {
		errmsg_set(err, errlen, "libtracecmd cannot read the events of %s",
			   file);
		tracecmd_close(h);
		return -EBADMSG;
	}
	tracecmd_close(h);
	return 0;
}
