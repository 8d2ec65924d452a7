// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd/trace-cmd.h>
#include <unistd.h>

#include "errmsg.h"
#include "tracedat.h"

/*
 * The page size of a file libtracecmd opened: exported by libtracecmd but
 * declared only in trace-cmd's private header (trace-cmd-private.h of
 * trace-cmd v3.1.6, libtracecmd 1.3.1).
 */
int tracecmd_page_size(struct tracecmd_input *handle);

/* " (cause)" from errno, or "" when the library left none. */
static const char *cause(int e, char *buf, size_t len)
{
	if (!e)
		return "";
	snprintf(buf, len, " (%s)", strerror(e));
	return buf;
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
