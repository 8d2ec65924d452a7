/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefile: a recorded trace directory (wakebench trace record).
 *
 *   meta.txt           "key value" lines: format version, clock, CPUs,
 *                      start/end, events, idle state names, missed events
 *   trace.dat          trace-cmd's data file (lib/datfile): the formats
 *                      and each CPU's ring-buffer sub-buffers, as the
 *                      kernel wrote them (trace record writes it)
 *   or, in traces of earlier versions (still read):
 *   formats/           header_page and each event's format file
 *   cpuN.raw           CPU N's sub-buffers from trace_pipe_raw
 *
 * The reader walks sub-buffers itself (every length bounds-checked), decodes
 * the events with libtraceevent (power:cpu_idle, irq:irq_handler_entry/
 * exit, ftrace:print markers, and where recorded irq:softirq_entry, the
 * irq_vectors IPI and timer entries, sched:sched_wakeup/sched_switch and
 * net:netif_receive_skb) and hands them out merged over the CPUs in time
 * order, a page per CPU in memory at a time. It never parses the text
 * `trace` file.
 */
#ifndef WB_TRACEFILE_H
#define WB_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>
#include "timeline.h"

#define TRACEFILE_MAX_STATES 16
/* CPUs a trace may have: the kernel's largest NR_CPUS (x86 MAXSMP); trace
 * record writes the machine's count, so a lower bound here made the
 * traces of the biggest hosts unreadable. */
#define TRACEFILE_MAX_CPUS 8192

struct trace_meta {
	uint32_t ncpus;
	uint64_t start_ns, end_ns;
	uint32_t subbuf_size;
	char clock[16];
	char driver[64];
	/* names[cpu][state]; "" where unknown */
	char (*names)[TRACEFILE_MAX_STATES][32];
	uint64_t *overrun, *dropped;	/* per CPU */
	int no_causes;		/* "wake_causes unknown": no interrupts in
				 * the source, no wake's cause is known */
};

/* Reads DIR/meta.txt. Returns 0 or -errno with a message in err. */
int tracefile_meta(const char *dir, struct trace_meta *m, char *err,
		   size_t errlen);
void tracefile_meta_free(struct trace_meta *m);
/* "C0", "unknown", the recorded name, or "stateN". */
const char *tracefile_state_name(const struct trace_meta *m, uint32_t cpu,
				 int32_t state, char *buf, size_t len);
/* 1 when trace DIR recorded event SYS:NAME (its formats/ has the format). */
int tracefile_has_event(const char *dir, const char *sys, const char *name);
/*
 * Which of the trace's ncpus CPUs were recorded (trace record --cpus):
 * rec[cpu] 1 or 0. Returns 0 or -errno with a message in err.
 */
int tracefile_recorded(const char *dir, uint32_t ncpus, uint8_t *rec,
		       char *err, size_t errlen);
/* Sub-buffer sizes a trace may declare (the kernel's are 4 KB to 1 MB). */
#define TRACEFILE_MIN_SUBBUF 64
#define TRACEFILE_MAX_SUBBUF (16u << 20)

/* One event of a ring-buffer page: its time and its data (the event's
 * payload, common header first), `offset` its byte in the page. */
struct tf_event {
	uint64_t ts;
	const void *data;
	uint32_t size;
	uint32_t offset;
};

/* A page's header: base time, the commit word, bytes of data, and the
 * events the kernel lost before it (UINT64_MAX: some, count unknown). */
struct tf_page {
	uint64_t ts, commit;
	size_t data_len;
	uint64_t missed;
};

typedef int (*tf_event_fn)(void *ctx, const struct tf_event *ev);

/*
 * Walks one ring-buffer page of len bytes whose header is a u64 time
 * stamp and a commit word of long_size (4 or 8) bytes, calling fn (may be
 * NULL) for each data event in order; a negative return from fn stops
 * the walk and is returned. Every length is checked against the page:
 * a commit larger than the page, an event or time stamp cut by the end
 * of the data, an event length below 4 are -EBADMSG with the reason in
 * err and the byte of the page in *bad_off. Returns the number of data
 * events. Padding ends the page's data.
 */
long tracefile_page_walk(const void *page, size_t len, int long_size,
			 tf_event_fn fn, void *ctx, struct tf_page *info,
			 size_t *bad_off, char *err, size_t errlen);

struct tf_decode {
	int skip_corrupt;	/* in: count corrupt pages instead of failing */
	int prefetch;		/* in: a stream decodes ahead in a thread */
	/* out */
	uint64_t recorded;	/* events of any kind */
	uint64_t fed;		/* events handed out (those wakebench reads) */
	uint64_t pages;		/* pages decoded */
	uint64_t missed_pages;	/* pages after which the kernel lost events */
	uint64_t corrupt_pages;	/* skipped (skip_corrupt) */
	char first_corrupt[4800];	/* the first one's message */
};

/*
 * The events of every CPU of trace DIR, one at a time in time order (ties:
 * the lower CPU first): tracefile_stream_next gives 1 with *e filled (its
 * string valid until the next call), 0 at the end, or -errno with a
 * message in err (a corrupt or truncated page names the file, CPU, page
 * and offset, unless o->skip_corrupt: then it is skipped and counted in
 * *o). *o is kept up to date while the stream is open; with o->prefetch
 * (decoding in a thread of the stream's, ahead of the caller by at most
 * four batches) its counts other than fed are final once next
 * has returned 0 or an error. Memory: one page and its events per CPU
 * (and with prefetch, a ring of 4 batches, each of 16384 events and
 * 1 MiB of their strings).
 */
struct tf_stream;
int tracefile_stream_open(const char *dir, const struct trace_meta *m,
			  struct tf_decode *o, struct tf_stream **s, char *err,
			  size_t errlen);
int tracefile_stream_next(struct tf_stream *s, struct tl_event *e, char *err,
			  size_t errlen);
void tracefile_stream_close(struct tf_stream *s);

/*
 * Decodes every CPU's raw data into t (created by the caller with
 * m->ncpus CPUs). A corrupt or truncated page is an error naming the
 * file, CPU, page and offset (-EBADMSG), or with o->skip_corrupt a page
 * skipped and counted. Returns 0 or -errno with a message in err.
 */
int tracefile_decode_opts(const char *dir, const struct trace_meta *m,
			  struct timeline *t, struct tf_decode *o, char *err,
			  size_t errlen);
/*
 * The same in parts: a decoder for the formats of trace DIR, and pages of
 * one CPU from memory (buf of len bytes; a short last page is a
 * truncated page; name is the file named in messages).
 */
struct tf_decoder;
int tracefile_decoder_new(const char *dir, struct tf_decoder **d, char *err,
			  size_t errlen);
void tracefile_decoder_free(struct tf_decoder *d);
int tracefile_decode_pages(struct tf_decoder *d, const void *buf, size_t len,
			   uint32_t subbuf, uint32_t cpu, const char *name,
			   struct timeline *t, struct tf_decode *o, char *err,
			   size_t errlen);
/* The same without skipping: the number of events fed, or -errno;
 * *recorded (if not NULL) gets the number of events of any kind. */
long tracefile_decode(const char *dir, const struct trace_meta *m,
		      struct timeline *t, uint64_t *recorded, char *err,
		      size_t errlen);

#endif
