// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stage.h"
#include "traceout.h"
#include "tracewrite.h"
#include "wfile.h"

#ifndef WB_VERSION
#define WB_VERSION "0"
#endif

/* ---- the events and their format files ----------------------------------- */

/*
 * Ids of our own (a format file names its id; the reader goes by the
 * files). ftrace:print keeps the kernel's 5. Offsets after the common
 * header (common_type u16, flags u8, preempt_count u8, common_pid s32).
 */
enum {
	ID_PRINT = 5,
	ID_IDLE = 101, ID_IRQ_ENTRY, ID_IRQ_EXIT, ID_SOFTIRQ, ID_WAKEUP,
	ID_TIMER, ID_RESCHED, ID_CALL_FUNC, ID_CALL_FUNC_SINGLE, ID_IRQ_WORK,
	ID_SWITCH, ID_NETRX, ID_MISS,
};
#define COMMON 8
#define LONG ((unsigned int)sizeof(long))

/* x86's vectors, so the files read like a recording of that machine. */
static const struct {
	const char *name;
	int id;
	int32_t vector;
} vectors[] = {
	[TL_IPI_RESCHEDULE] = { "reschedule_entry", ID_RESCHED, 0xfd },
	[TL_IPI_CALL_FUNCTION] = { "call_function_entry", ID_CALL_FUNC, 0xfc },
	[TL_IPI_CALL_FUNCTION_SINGLE] = { "call_function_single_entry",
					  ID_CALL_FUNC_SINGLE, 0xfb },
	[TL_IPI_IRQ_WORK] = { "irq_work_entry", ID_IRQ_WORK, 0xf6 },
};
#define NVECTORS (sizeof(vectors) / sizeof(vectors[0]))
#define TIMER_VECTOR 0xec

static const char common_fields[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

/* The text of one format file, as the kernel words it. */
static int format_text(FILE *f, const char *name, int id, const char *fields,
		       const char *print)
{
	return fprintf(f, "name: %s\nID: %d\nformat:\n%s%s\nprint fmt: %s\n", name,
		       id, common_fields, fields, print) < 0 ? -1 : 0;
}

static const char vector_fields[] =
	"\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n";

/* ---- writer state ---------------------------------------------------------- */

#define RB_TS_BITS 27
#define RB_MAX_DELTA ((1ull << RB_TS_BITS) - 1)
#define RB_EXTEND_MAX (1ull << 59)	/* 27 + 32 bits */
#define RB_MAX_SMALL 112		/* type_len 28 * 4 */
enum { RB_PADDING = 29, RB_TIME_EXTEND = 30, RB_TIME_STAMP = 31 };

struct twcpu {
	uint8_t *chunk;		/* run of pages; the current one is last */
	uint32_t npages;	/* finished pages in chunk */
	size_t used;		/* bytes of data in the current page */
	uint64_t page_ts;	/* its time stamp */
	uint64_t last_ts;	/* the previous event's */
	int any;		/* an event was seen */
	char tmp[4096];		/* the temporary cpuN.raw */
};

struct tracewrite {
	char *dir;
	struct trace_meta m;	/* copied; names etc. owned */
	struct tracewrite_opts o;
	char *command, *source, *note;
	uint32_t subbuf;
	size_t data_size;	/* subbuf - header */
	uint32_t chunk_pages;
	struct twcpu *cpu;
	struct stage *st;
	uint64_t last_event;	/* the latest event over all CPUs */
	uint64_t pages;
	int made_dir;
	int io_err;		/* sticky */
	char err[512];
};

__attribute__((format(printf, 3, 4)))
static int fail(struct tracewrite *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return ret;
}

static void put4(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);	/* little-endian, as the reader expects */
}

static void put8(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Appends the full pages of the chunk to the CPU's file. */
static int flush_chunk(struct tracewrite *w, uint32_t cpu)
{
	struct twcpu *c = &w->cpu[cpu];
	int fd, ret;

	if (!c->npages)
		return 0;
	/* Opened per run of pages: 4096 CPUs need no 4096 descriptors. */
	/* O_NOFOLLOW: a link put in place of ours between two runs is not
	 * written through (ELOOP); the file is the one wfile_create made. */
	fd = open(c->tmp, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = wfile_write_all(fd, c->chunk, (size_t)c->npages * w->subbuf);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		return ret;
	c->npages = 0;
	return 0;
}

/*
 * Ends the current page: its header, and with pad the rest of the data
 * as padding (the kernel's "discarded event" when there is room for its
 * length word, else a bare padding header), so the commit covers the
 * page; without pad (the last page) the commit is what was written.
 */
static int finish_page(struct tracewrite *w, uint32_t cpu, int pad)
{
	struct twcpu *c = &w->cpu[cpu];
	uint8_t *page = c->chunk + (size_t)c->npages * w->subbuf;
	uint8_t *data = page + 8 + LONG;
	size_t left = w->data_size - c->used, commit = c->used;

	if (pad && left >= 8) {
		put4(data + c->used, RB_PADDING | (1u << 5));
		put4(data + c->used + 4, (uint32_t)(left - 4));
		memset(data + c->used + 8, 0, left - 8);
		commit = w->data_size;
	} else if (pad && left >= 4) {
		/* Too short for a length: the kernel marks it and leaves it
		 * out of the commit (rb_reset_tail), and readers such as
		 * libtraceevent's kbuffer read a padding's length word past
		 * it when it is counted in (past the mapping on the last page). */
		put4(data + c->used, RB_PADDING);
		memset(data + c->used + 4, 0, left - 4);
	} else {
		memset(data + c->used, 0, left);
	}
	put8(page, c->page_ts);
	if (LONG == 8)
		put8(page + 8, commit);
	else
		put4(page + 8, (uint32_t)commit);
	c->used = 0;
	c->npages++;
	w->pages++;
	if (c->npages == w->chunk_pages)
		return flush_chunk(w, cpu);
	return 0;
}

/*
 * One event of len payload bytes at ts on cpu: its header (and a time
 * extend or stamp before it when needed) in the current page, or in a
 * new one; returns where its payload goes, NULL with the error set.
 */
static uint8_t *reserve(struct tracewrite *w, uint32_t cpu, uint64_t ts,
			size_t len, int *ret)
{
	struct twcpu *c = &w->cpu[cpu];
	size_t body = (len + 3) & ~(size_t)3;
	size_t evlen = len <= RB_MAX_SMALL ? 4 + body : 8 + body;
	uint64_t delta = 0;
	size_t stamp = 0;
	uint8_t *data, *p;

	if (evlen > w->data_size) {
		*ret = fail(w, -EMSGSIZE, "cpu %u: an event of %zu bytes does not fit a %u-byte page",
			    cpu, len, w->subbuf);
		return NULL;
	}
	if (c->used) {
		delta = ts - c->last_ts;
		if (delta > RB_MAX_DELTA)
			stamp = 8;
		/* A time stamp keeps the page's top 5 bits; an extend
		 * reaches 2^59 ns: past either, a new page. */
		if (stamp && (w->o.absolute ? (ts >> 59) != (c->page_ts >> 59) :
			      delta >= RB_EXTEND_MAX))
			stamp = w->data_size + 1;
		if (c->used + stamp + evlen > w->data_size) {
			*ret = finish_page(w, cpu, 1);
			if (*ret) {
				w->io_err = *ret;
				fail(w, *ret, "%s/cpu%u.raw: %s", w->dir, cpu,
				     strerror(-*ret));
				return NULL;
			}
		}
	}
	if (!c->used) {
		c->page_ts = ts;
		delta = 0;
		stamp = 0;
	}
	data = c->chunk + (size_t)c->npages * w->subbuf + 8 + LONG;
	p = data + c->used;
	if (stamp && w->o.absolute) {
		put4(p, RB_TIME_STAMP | (uint32_t)((ts & RB_MAX_DELTA) << 5));
		put4(p + 4, (uint32_t)(ts >> RB_TS_BITS));
		delta = 0;
		p += 8;
	} else if (stamp) {
		put4(p, RB_TIME_EXTEND | (uint32_t)((delta & RB_MAX_DELTA) << 5));
		put4(p + 4, (uint32_t)(delta >> RB_TS_BITS));
		delta = 0;
		p += 8;
	}
	if (len <= RB_MAX_SMALL) {
		put4(p, (uint32_t)(body / 4) | (uint32_t)(delta << 5));
		p += 4;
	} else {
		/* The kernel's length word counts itself. */
		put4(p, (uint32_t)(delta << 5));
		put4(p + 4, (uint32_t)(body + 4));
		p += 8;
	}
	/* the tail of the payload's last word */
	if (body > len)
		memset(p + len, 0, body - len);
	c->used += stamp + evlen;
	c->last_ts = ts;
	*ret = 0;
	return p;
}

static void common(uint8_t *p, int id, int32_t pid)
{
	uint16_t type = (uint16_t)id;

	memcpy(p, &type, 2);
	p[2] = 0;	/* flags */
	p[3] = 0;	/* preempt count */
	memcpy(p + 4, &pid, 4);
}

/* Checks the CPU and the time; 0 or -EINVAL with the reason set. */
static int check(struct tracewrite *w, uint32_t cpu, uint64_t ts)
{
	struct twcpu *c;

	if (w->io_err)
		return w->io_err;
	if (cpu >= w->m.ncpus)
		return fail(w, -EINVAL, "event on cpu %u: the trace has %u CPUs", cpu,
			    w->m.ncpus);
	c = &w->cpu[cpu];
	if (c->any && ts < c->last_ts)
		return fail(w, -EINVAL, "cpu %u: event at %llu ns before the previous one at %llu ns",
			    cpu, (unsigned long long)ts,
			    (unsigned long long)c->last_ts);
	if (ts < w->m.start_ns || (w->m.end_ns && ts > w->m.end_ns))
		return fail(w, -EINVAL, "cpu %u: event at %llu ns outside the trace (%llu-%llu ns)",
			    cpu, (unsigned long long)ts,
			    (unsigned long long)w->m.start_ns,
			    (unsigned long long)w->m.end_ns);
	return 0;
}

static void seen(struct tracewrite *w, uint32_t cpu, uint64_t ts)
{
	w->cpu[cpu].any = 1;
	if (ts > w->last_event)
		w->last_event = ts;
}

/* sched:sched_wakeup's fields after the common header */
static void wakeup_fields(uint8_t *p, uint32_t pid, const char *comm, int32_t prio,
			  uint32_t target_cpu)
{
	memset(p + 8, 0, 16);
	if (comm)
		memcpy(p + 8, comm, strnlen(comm, 15));
	put4(p + 24, pid);
	put4(p + 28, (uint32_t)prio);
	put4(p + 32, target_cpu);
}

/*
 * Reserves event ID with FIXED bytes after the common header, then E's
 * string as a __data_loc field at the end: the loc word (the string's
 * length, its NUL counted, in the high half; its offset in the event in
 * the low one) goes at LOC. WHAT names the string in an error.
 */
static uint8_t *reserve_data_loc(struct tracewrite *w, const struct tl_event *e,
				 int32_t pid, int id, size_t fixed, size_t loc,
				 const char *what, int *ret)
{
	const char *s = e->str ? e->str : "";
	size_t slen = strlen(s) + 1, at = COMMON + fixed;
	uint8_t *p;

	if (slen > 0xffff) {
		*ret = fail(w, -EMSGSIZE, "cpu %u: %s of %zu bytes", e->cpu, what, slen - 1);
		return NULL;
	}
	p = reserve(w, e->cpu, e->ts, at + slen, ret);
	if (!p)
		return NULL;
	common(p, id, pid);
	put4(p + loc, (uint32_t)(slen << 16) | (uint32_t)at);
	memcpy(p + at, s, slen);
	return p;
}

/* irq:irq_handler_entry: the IRQ and its name (__data_loc) */
static int ev_irq_entry(struct tracewrite *w, const struct tl_event *e, int32_t pid)
{
	uint8_t *p;
	int ret;

	p = reserve_data_loc(w, e, pid, ID_IRQ_ENTRY, 8, 12, "an IRQ name", &ret);
	if (!p)
		return ret;
	put4(p + 8, e->arg);
	return 0;
}

/* ftrace:print: a marker's text */
static int ev_marker(struct tracewrite *w, const struct tl_event *e, int32_t pid)
{
	const char *s = e->str ? e->str : "";
	size_t slen, len;
	uint8_t *p;
	int ret;

	/* trace_marker ends the text with a newline, then a NUL */
	slen = strlen(s);
	len = COMMON + LONG + slen + 2;
	p = reserve(w, e->cpu, e->ts, len, &ret);
	if (!p)
		return ret;
	common(p, ID_PRINT, pid);
	memset(p + COMMON, 0, LONG);	/* ip */
	memcpy(p + COMMON + LONG, s, slen);
	p[COMMON + LONG + slen] = '\n';
	p[COMMON + LONG + slen + 1] = '\0';
	return 0;
}

/* An IPI's or the local timer's irq_vectors entry */
static int ev_vector(struct tracewrite *w, const struct tl_event *e, int32_t pid)
{
	uint8_t *p;
	uint32_t v;
	int ret, id;

	if (e->type == TL_IPI && e->arg >= NVECTORS)
		return fail(w, -EINVAL, "cpu %u: IPI kind %u (0-%zu)", e->cpu, e->arg,
			    NVECTORS - 1);
	id = e->type == TL_TIMER ? ID_TIMER : vectors[e->arg].id;
	v = e->type == TL_TIMER ? TIMER_VECTOR : (uint32_t)vectors[e->arg].vector;
	p = reserve(w, e->cpu, e->ts, COMMON + 4, &ret);
	if (!p)
		return ret;
	common(p, id, pid);
	put4(p + 8, v);
	return 0;
}

/* sched:sched_switch to the thread e->arg (str: its name) */
static int ev_switch(struct tracewrite *w, const struct tl_event *e, int32_t pid)
{
	const char *s = e->str ? e->str : "";
	uint8_t *p;
	int ret;

	/* prev_comm[16] prev_pid prev_prio, long prev_state,
	 * next_comm[16] next_pid next_prio; str: next_comm */
	p = reserve(w, e->cpu, e->ts, COMMON + 48 + LONG, &ret);
	if (!p)
		return ret;
	common(p, ID_SWITCH, pid);
	memset(p + 8, 0, 40 + LONG);
	put4(p + 24, e->arg2);
	put4(p + 28, 120);
	memcpy(p + 32 + LONG, s, strnlen(s, 15));
	put4(p + 48 + LONG, e->arg);
	put4(p + 52 + LONG, 120);
	return 0;
}

/* power:cpu_idle_miss, when the writer records it */
static int ev_idle_miss(struct tracewrite *w, const struct tl_event *e, int32_t pid)
{
	uint8_t *p;
	int ret;

	if (!w->o.idle_miss)
		return fail(w, -EINVAL, "cpu %u: power:cpu_idle_miss not recorded (tracewrite_opts.idle_miss)",
			    e->cpu);
	p = reserve(w, e->cpu, e->ts, COMMON + 12, &ret);
	if (!p)
		return ret;
	common(p, ID_MISS, pid);
	put4(p + 8, e->cpu);
	put4(p + 12, e->arg);
	memset(p + 16, 0, 4);
	p[16] = e->arg2 != 0;
	return 0;
}

/* net:netif_receive_skb: the length and the device (__data_loc) */
static int ev_netrx(struct tracewrite *w, const struct tl_event *e, int32_t pid)
{
	uint8_t *p;
	int ret;

	/* void *skbaddr, len (arg), __data_loc name (str: device) */
	p = reserve_data_loc(w, e, pid, ID_NETRX, LONG + 8, COMMON + LONG + 4,
			     "a device name", &ret);
	if (!p)
		return ret;
	memset(p + COMMON, 0, LONG);
	put4(p + COMMON + LONG, e->arg);
	return 0;
}

int tracewrite_event(struct tracewrite *w, const struct tl_event *e)
{
	uint8_t *p;
	int ret = check(w, e->cpu, e->ts);
	int32_t pid = (int32_t)e->pid;

	if (ret)
		return ret;
	switch (e->type) {
	case TL_IDLE:
		p = reserve(w, e->cpu, e->ts, COMMON + 8, &ret);
		if (!p)
			return ret;
		common(p, ID_IDLE, pid);
		put4(p + 8, e->arg);
		put4(p + 12, e->cpu);
		break;
	case TL_IRQ_ENTRY:
		ret = ev_irq_entry(w, e, pid);
		break;
	case TL_IRQ_EXIT:
		p = reserve(w, e->cpu, e->ts, COMMON + 8, &ret);
		if (!p)
			return ret;
		common(p, ID_IRQ_EXIT, pid);
		put4(p + 8, e->arg);
		put4(p + 12, 1);	/* IRQ_HANDLED */
		break;
	case TL_MARKER:
		ret = ev_marker(w, e, pid);
		break;
	case TL_SOFTIRQ:
		p = reserve(w, e->cpu, e->ts, COMMON + 4, &ret);
		if (!p)
			return ret;
		common(p, ID_SOFTIRQ, pid);
		put4(p + 8, e->arg);
		break;
	case TL_IPI:
	case TL_TIMER:
		ret = ev_vector(w, e, pid);
		break;
	case TL_WAKEUP:
		p = reserve(w, e->cpu, e->ts, COMMON + 28, &ret);
		if (!p)
			return ret;
		common(p, ID_WAKEUP, pid);
		wakeup_fields(p, e->arg, e->str, 120, e->arg2);
		break;
	case TL_SWITCH:
		ret = ev_switch(w, e, pid);
		break;
	case TL_IDLE_MISS:
		ret = ev_idle_miss(w, e, pid);
		break;
	case TL_NETRX:
		ret = ev_netrx(w, e, pid);
		break;
	default:
		return fail(w, -EINVAL, "cpu %u: event type %d is not one tracewrite writes",
			    e->cpu, (int)e->type);
	}
	if (ret)
		return ret;
	seen(w, e->cpu, e->ts);
	return 0;
}

int tracewrite_wakeup(struct tracewrite *w, uint64_t ts, uint32_t cpu,
		      uint32_t pid, const char *comm, int32_t prio,
		      uint32_t target_cpu)
{
	int ret = check(w, cpu, ts);
	uint8_t *p;

	if (ret)
		return ret;
	p = reserve(w, cpu, ts, COMMON + 28, &ret);
	if (!p)
		return ret;
	common(p, ID_WAKEUP, 0);
	wakeup_fields(p, pid, comm, prio, target_cpu);
	seen(w, cpu, ts);
	return 0;
}

const char *tracewrite_error(const struct tracewrite *w)
{
	return w->err;
}

uint64_t tracewrite_pages(const struct tracewrite *w)
{
	return w->pages;
}

/* ---- open ------------------------------------------------------------------- */

/* A copy with newlines as spaces: one meta.txt line. */
static char *one_line(const char *s)
{
	char *d = strdup(s ? s : "");

	for (char *p = d; p && *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return d;
}

static void free_w(struct tracewrite *w)
{
	if (!w)
		return;
	for (uint32_t c = 0; w->cpu && c < w->m.ncpus; c++)
		free(w->cpu[c].chunk);
	free(w->cpu);
	free(w->m.names);
	free(w->m.overrun);
	free(w->m.dropped);
	free(w->command);
	free(w->source);
	free(w->note);
	free(w->dir);
	free(w);
}

/* What open is given: CPUs, sub-buffer size, start before end, state names. */
static int check_meta(const char *dir, const struct trace_meta *m, char *err, size_t errlen)
{
	uint32_t n = m->ncpus;

	if (n < 1 || n > TRACEFILE_MAX_CPUS) {
		snprintf(err, errlen, "%s: %u CPUs (1-%u)", dir, n, TRACEFILE_MAX_CPUS);
		return -EINVAL;
	}
	if (m->subbuf_size && (m->subbuf_size < TRACEFILE_MIN_SUBBUF ||
			       m->subbuf_size > TRACEFILE_MAX_SUBBUF ||
			       m->subbuf_size % 8)) {
		snprintf(err, errlen, "%s: sub-buffer size %u (%u-%u, a multiple of 8)",
			 dir, m->subbuf_size, TRACEFILE_MIN_SUBBUF, TRACEFILE_MAX_SUBBUF);
		return -EINVAL;
	}
	if (m->end_ns && m->end_ns < m->start_ns) {
		snprintf(err, errlen, "%s: trace end %llu ns before its start %llu ns", dir,
			 (unsigned long long)m->end_ns, (unsigned long long)m->start_ns);
		return -EINVAL;
	}
	for (uint32_t c = 0; m->names && c < n; c++) {
		for (int s = 0; s < TRACEFILE_MAX_STATES; s++) {
			const char *name = m->names[c][s];
			size_t l = strnlen(name, sizeof(m->names[0][0]));

			if (l == sizeof(m->names[0][0]) || strpbrk(name, "\n\r")) {
				snprintf(err, errlen, "%s: cpu %u state %d: a name of 32 characters or more, or with a newline",
					 dir, c, s);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* w's metadata, options and buffers from m and o; 0 or -ENOMEM. */
static int writer_fill(struct tracewrite *w, const char *dir, const struct trace_meta *m,
		       const struct tracewrite_opts *o)
{
	uint32_t n = m->ncpus;

	w->m.ncpus = n;
	w->m.start_ns = m->start_ns;
	w->m.end_ns = m->end_ns;
	w->subbuf = m->subbuf_size ? m->subbuf_size : 4096;
	w->m.subbuf_size = w->subbuf;
	snprintf(w->m.clock, sizeof(w->m.clock), "%s", m->clock[0] ? m->clock : "mono");
	snprintf(w->m.driver, sizeof(w->m.driver), "%s", m->driver[0] ? m->driver : "none");
	w->data_size = w->subbuf - 8 - LONG;
	/* 16 pages per CPU, fewer past 4 MiB in all: memory stays bounded
	 * with thousands of CPUs, and writes are 64 KiB at 4 KiB pages. */
	w->chunk_pages = (uint32_t)((4u << 20) / ((size_t)n * w->subbuf));
	if (w->chunk_pages > 16)
		w->chunk_pages = 16;
	if (!w->chunk_pages)
		w->chunk_pages = 1;
	if (o)
		w->o = *o;
	w->dir = strdup(dir);
	w->command = one_line(o ? o->command : NULL);
	w->source = one_line(o ? o->source : NULL);
	w->note = one_line(o ? o->note : NULL);
	w->cpu = calloc(n, sizeof(*w->cpu));
	w->m.names = calloc(n, sizeof(*w->m.names));
	w->m.overrun = calloc(n, sizeof(*w->m.overrun));
	w->m.dropped = calloc(n, sizeof(*w->m.dropped));
	if (!w->dir || !w->command || !w->source || !w->note || !w->cpu || !w->m.names ||
	    !w->m.overrun || !w->m.dropped)
		return -ENOMEM;
	for (uint32_t c = 0; c < n; c++) {
		if (m->names)
			memcpy(w->m.names[c], m->names[c], sizeof(w->m.names[c]));
		if (m->overrun)
			w->m.overrun[c] = m->overrun[c];
		if (m->dropped)
			w->m.dropped[c] = m->dropped[c];
		w->cpu[c].chunk = malloc((size_t)w->chunk_pages * w->subbuf);
		if (!w->cpu[c].chunk)
			return -ENOMEM;
	}
	return 0;
}

/* DIR (made when missing) and each CPU's cpuN.raw under its temporary name. */
static int writer_files(struct tracewrite *w, const char *dir, char *err, size_t errlen)
{
	uint32_t n = w->m.ncpus;
	struct stat sb;
	int ret;

	if (!stat(dir, &sb)) {
		if (!S_ISDIR(sb.st_mode)) {
			snprintf(err, errlen, "%s: not a directory", dir);
			return -ENOTDIR;
		}
	} else if (errno == ENOENT && !mkdir(dir, 0755)) {
		w->made_dir = 1;
	} else {
		ret = -errno;
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-ret));
		return ret;
	}
	w->st = stage_new(dir);
	if (!w->st) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < n; c++) {
		char name[32];
		int fd;

		snprintf(name, sizeof(name), "cpu%u.raw", c);
		ret = stage_add(w->st, name, w->cpu[c].tmp, sizeof(w->cpu[c].tmp));
		if (ret) {
			snprintf(err, errlen, "%s/%s: %s", dir, name, strerror(-ret));
			return ret;
		}
		fd = wfile_create(w->cpu[c].tmp, 0644);
		if (fd < 0 || close(fd)) {
			ret = fd < 0 ? fd : -errno;
			snprintf(err, errlen, "cannot create %s: %s", w->cpu[c].tmp,
				 strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int tracewrite_open(const char *dir, const struct trace_meta *m,
		    const struct tracewrite_opts *o, struct tracewrite **out,
		    char *err, size_t errlen)
{
	struct tracewrite *w;
	int ret;

	*out = NULL;
	ret = check_meta(dir, m, err, errlen);
	if (ret)
		return ret;
	w = calloc(1, sizeof(*w));
	if (!w || writer_fill(w, dir, m, o))
		goto nomem;
	ret = writer_files(w, dir, err, errlen);
	if (ret)
		goto out;
	*out = w;
	return 0;
nomem:
	ret = -ENOMEM;
	snprintf(err, errlen, "out of memory");
out:
	tracewrite_abort(w);
	return ret;
}

/* ---- close -------------------------------------------------------------------- */


/* path/SYS/NAME/format with text; directories made as needed. */
static int put_format(const char *base, const char *sys, const char *name,
		      const char *text, size_t len)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", base, sys);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s/%s", base, sys, name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s/%s/format", base, sys, name);
	return wfile_write_new(path, text, len);
}

/* One format file, its text built in memory first. */
static int one_format(const char *base, const char *sys, const char *name, int id,
		      const char *fields, const char *print)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	ret = format_text(f, name, id, fields, print);
	if (fclose(f) || ret) {
		free(buf);
		return -ENOMEM;
	}
	ret = put_format(base, sys, name, buf, len);
	free(buf);
	return ret;
}

static int write_formats(const struct tracewrite *w, const char *base)
{
	char text[512], fields[512], path[4300];
	int ret, n;

	if (mkdir(base, 0755) && errno != EEXIST)
		return -errno;
	n = snprintf(text, sizeof(text),
		     "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		     "\tfield: local_t commit;\toffset:8;\tsize:%u;\tsigned:1;\n"
		     "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		     "\tfield: char data;\toffset:%u;\tsize:%zu;\tsigned:0;\n",
		     LONG, 8 + LONG, w->data_size);
	snprintf(path, sizeof(path), "%s/header_page", base);
	ret = wfile_write_new(path, text, (size_t)n);
	if (!ret)
		ret = one_format(base, "power", "cpu_idle", ID_IDLE,
				 "\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n"
				 "\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n",
				 "\"state=%lu cpu_id=%lu\", (unsigned long)REC->state, (unsigned long)REC->cpu_id");
	if (!ret)
		ret = one_format(base, "irq", "irq_handler_entry", ID_IRQ_ENTRY,
				 "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
				 "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n",
				 "\"irq=%d name=%s\", REC->irq, __get_str(name)");
	if (!ret)
		ret = one_format(base, "irq", "irq_handler_exit", ID_IRQ_EXIT,
				 "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
				 "\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n",
				 "\"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"");
	if (!ret) {
		snprintf(fields, sizeof(fields),
			 "\tfield:unsigned long ip;\toffset:8;\tsize:%u;\tsigned:0;\n"
			 "\tfield:char buf[];\toffset:%u;\tsize:0;\tsigned:0;\n",
			 LONG, 8 + LONG);
		ret = one_format(base, "ftrace", "print", ID_PRINT, fields,
				 "\"%ps: %s\", (void *)REC->ip, REC->buf");
	}
	if (!ret)
		ret = one_format(base, "irq", "softirq_entry", ID_SOFTIRQ,
				 "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n",
				 "\"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, { 0, \"HI\" }, { 1, \"TIMER\" }, { 2, \"NET_TX\" }, { 3, \"NET_RX\" }, { 4, \"BLOCK\" }, { 5, \"IRQ_POLL\" }, { 6, \"TASKLET\" }, { 7, \"SCHED\" }, { 8, \"HRTIMER\" }, { 9, \"RCU\" })");
	if (!ret)
		ret = one_format(base, "sched", "sched_wakeup", ID_WAKEUP,
				 "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
				 "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
				 "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
				 "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n",
				 "\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu");
	if (!ret) {
		snprintf(fields, sizeof(fields),
			 "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
			 "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
			 "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
			 "\tfield:long prev_state;\toffset:32;\tsize:%u;\tsigned:1;\n"
			 "\tfield:char next_comm[16];\toffset:%u;\tsize:16;\tsigned:0;\n"
			 "\tfield:pid_t next_pid;\toffset:%u;\tsize:4;\tsigned:1;\n"
			 "\tfield:int next_prio;\toffset:%u;\tsize:4;\tsigned:1;\n",
			 LONG, 32 + LONG, 48 + LONG, 52 + LONG);
		ret = one_format(base, "sched", "sched_switch", ID_SWITCH, fields,
				 "\"prev_comm=%s prev_pid=%d prev_prio=%d ==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->next_comm, REC->next_pid, REC->next_prio");
	}
	if (!ret) {
		snprintf(fields, sizeof(fields),
			 "\tfield:void * skbaddr;\toffset:8;\tsize:%u;\tsigned:0;\n"
			 "\tfield:unsigned int len;\toffset:%u;\tsize:4;\tsigned:0;\n"
			 "\tfield:__data_loc char[] name;\toffset:%u;\tsize:4;\tsigned:0;\n",
			 LONG, 8 + LONG, 12 + LONG);
		ret = one_format(base, "net", "netif_receive_skb", ID_NETRX, fields,
				 "\"dev=%s skbaddr=%p len=%u\", __get_str(name), REC->skbaddr, REC->len");
	}
	if (!ret)
		ret = one_format(base, "irq_vectors", "local_timer_entry", ID_TIMER,
				 vector_fields, "\"vector=%d\", REC->vector");
	for (size_t i = 0; !ret && i < NVECTORS; i++)
		ret = one_format(base, "irq_vectors", vectors[i].name, vectors[i].id,
				 vector_fields, "\"vector=%d\", REC->vector");
	/* only where asked: its format says the event was recorded */
	if (!ret && w->o.idle_miss)
		ret = one_format(base, "power", "cpu_idle_miss", ID_MISS,
				 "\tfield:u32 cpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
				 "\tfield:u32 state;\toffset:12;\tsize:4;\tsigned:0;\n"
				 "\tfield:bool below;\toffset:16;\tsize:1;\tsigned:0;\n",
				 "\"cpu_id=%lu state=%lu type=%s\", (unsigned long)REC->cpu_id, (unsigned long)REC->state, (REC->below)?\"below\":\"above\"");
	return ret;
}

static char *meta_text(const struct tracewrite *w, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	uint64_t end = w->m.end_ns ? w->m.end_ns :
		       w->last_event > w->m.start_ns ? w->last_event : w->m.start_ns;

	if (!f)
		return NULL;
	fprintf(f, "wakebench-trace 1\nversion %s\nclock %s\nncpus %u\n"
		"start_ns %llu\nend_ns %llu\nsubbuf_size %u\nidle_driver %s\n"
		"pages %llu\nwriter tracewrite\n", WB_VERSION, w->m.clock, w->m.ncpus,
		(unsigned long long)w->m.start_ns, (unsigned long long)end, w->subbuf,
		w->m.driver, (unsigned long long)w->pages);
	if (w->o.no_interrupts) {
		/* a reader must not take "no interrupt seen" for "none" */
		fprintf(f, "events power:cpu_idle ftrace:print\nwake_causes unknown\n");
	} else {
		fprintf(f, "events power:cpu_idle irq:irq_handler_entry irq:irq_handler_exit "
			"irq:softirq_entry sched:sched_wakeup sched:sched_switch net:netif_receive_skb "
			"irq_vectors:local_timer_entry");
		for (size_t i = 0; i < NVECTORS; i++)
			fprintf(f, " irq_vectors:%s", vectors[i].name);
		fprintf(f, "%s ftrace:print\n", w->o.idle_miss ? " power:cpu_idle_miss" : "");
	}
	if (*w->command)
		fprintf(f, "command %s\n", w->command);
	if (*w->source)
		fprintf(f, "source %s\n", w->source);
	if (*w->note)
		fprintf(f, "note %s\n", w->note);
	for (uint32_t c = 0; c < w->m.ncpus; c++) {
		for (int s = 0; s < TRACEFILE_MAX_STATES; s++)
			if (w->m.names[c][s][0])
				fprintf(f, "state %u %d %s\n", c, s, w->m.names[c][s]);
		fprintf(f, "missed %u %llu %llu\n", c,
			(unsigned long long)w->m.overrun[c],
			(unsigned long long)w->m.dropped[c]);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Removes path and what is under it (formats/: a few levels). */
static int rm_tree(const char *path, int depth)
{
	struct stat sb;
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (lstat(path, &sb))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(sb.st_mode))
		return unlink(path) ? -errno : 0;
	if (depth > 4)
		return -ELOOP;
	d = opendir(path);
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		char sub[4200];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		ret = rm_tree(sub, depth + 1);
	}
	closedir(d);
	if (!ret && rmdir(path))
		ret = -errno;
	return ret;
}

/* cpuN.raw of an earlier trace with more CPUs than this one. */
static int remove_stale(const struct tracewrite *w)
{
	DIR *d = opendir(w->dir);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		unsigned int cpu;
		char tail[8], path[4200];

		if (sscanf(de->d_name, "cpu%u.ra%7s", &cpu, tail) != 2 ||
		    strcmp(tail, "w") || cpu < w->m.ncpus)
			continue;
		snprintf(path, sizeof(path), "%s/%s", w->dir, de->d_name);
		if (unlink(path) && errno != ENOENT && !ret)
			ret = -errno;
	}
	closedir(d);
	return ret;
}

/* Each CPU's last page and chunk written out; 0 or -errno (ERR). */
static int close_flush(struct tracewrite *w, char *err, size_t errlen)
{
	for (uint32_t c = 0; c < w->m.ncpus; c++) {
		int ret = w->cpu[c].used ? finish_page(w, c, 0) : 0;

		if (!ret)
			ret = flush_chunk(w, c);
		if (ret) {
			snprintf(err, errlen, "%s/cpu%u.raw: %s", w->dir, c, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * meta.txt under its temporary name, added last: renamed last, so a
 * meta.txt means a complete trace. 0 or -errno (ERR).
 */
static int close_meta(struct tracewrite *w, char *err, size_t errlen)
{
	char meta_tmp[4200];
	size_t len = 0;
	char *text = meta_text(w, &len);
	int ret;

	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = stage_add(w->st, "meta.txt", meta_tmp, sizeof(meta_tmp));
	if (!ret)
		ret = wfile_write_new(meta_tmp, text, len);
	free(text);
	if (ret)
		snprintf(err, errlen, "%s/meta.txt: %s", w->dir, strerror(-ret));
	return ret;
}

/*
 * What was made from the earlier trace (timeline, attribute), and the
 * files of trace record this writer has none of: each would pass for
 * this trace's. 0 or -errno (ERR).
 */
static int close_drop_earlier(struct tracewrite *w, char *err, size_t errlen)
{
	int ret = traceout_remove(w->dir, err, errlen);

	for (size_t i = 0; ret >= 0 && i < 3; i++) {
		/* trace.dat: a recording's pages, read before cpuN.raw */
		static const char *const recorded[] = { "saved_cmdlines", "hw-residency.csv",
							"trace.dat" };
		char old[4200];

		snprintf(old, sizeof(old), "%s/%s", w->dir, recorded[i]);
		if (unlink(old) && errno != ENOENT) {
			ret = -errno;
			snprintf(err, errlen, "cannot remove the earlier %s: %s", old,
				 strerror(-ret));
		}
	}
	return ret;
}

int tracewrite_close(struct tracewrite *w, char *err, size_t errlen)
{
	char fmt_tmp[4200], path[4200];
	int ret = w->io_err, held;
	/* formats/, temporary then final until the commit: a stop signal
	 * removes it with the staged files, or a rerun finds DIR not empty */
	struct stage_tmpdir *fmt_reg = NULL;

	if (ret) {
		snprintf(err, errlen, "%s", w->err);
		goto fail;
	}
	ret = close_flush(w, err, errlen);
	if (!ret)
		ret = close_meta(w, err, errlen);
	if (ret)
		goto fail;
	snprintf(fmt_tmp, sizeof(fmt_tmp), "%s/.formats.partial", w->dir);
	rm_tree(fmt_tmp, 0);
	fmt_reg = stage_tmpdir_register(fmt_tmp);
	ret = write_formats(w, fmt_tmp);
	if (ret) {
		snprintf(err, errlen, "%s/formats: %s", w->dir, strerror(-ret));
		goto fail;
	}
	held = traceout_held_trace(w->dir);
	/* From here an earlier trace is being replaced: its meta.txt first,
	 * so that no mix of two traces passes for a complete one. */
	snprintf(path, sizeof(path), "%s/meta.txt", w->dir);
	if (unlink(path) && errno != ENOENT) {
		ret = -errno;
		snprintf(err, errlen, "cannot remove the earlier %s: %s", path,
			 strerror(-ret));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/formats", w->dir);
	ret = rm_tree(path, 0);
	if (!ret && rename(fmt_tmp, path))
		ret = -errno;
	if (!ret) {
		stage_tmpdir_release(fmt_reg);
		fmt_reg = stage_tmpdir_register(path);
	}
	if (!ret)
		ret = remove_stale(w);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		goto fail;
	}
	/* a directory that never held a trace keeps its files */
	ret = held ? close_drop_earlier(w, err, errlen) : 0;
	if (ret < 0)
		goto fail;
	ret = stage_commit(w->st, err, errlen);
	if (ret) {
		rm_tree(path, 0);
		goto fail;
	}
	stage_tmpdir_release(fmt_reg);
	stage_free(w->st);
	w->st = NULL;
	free_w(w);
	return 0;
fail:
	snprintf(fmt_tmp, sizeof(fmt_tmp), "%s/.formats.partial", w->dir);
	rm_tree(fmt_tmp, 0);
	stage_tmpdir_release(fmt_reg);
	tracewrite_abort(w);
	return ret;
}

void tracewrite_abort(struct tracewrite *w)
{
	if (!w)
		return;
	stage_free(w->st);
	if (w->made_dir) {
		char path[4200];

		/* only what this writer made: formats/ and the directory */
		snprintf(path, sizeof(path), "%s/formats", w->dir);
		rm_tree(path, 0);
		rmdir(w->dir);
	}
	free_w(w);
}
