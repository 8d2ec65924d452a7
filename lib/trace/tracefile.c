// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>

#include "arr.h"
#include "datfile.h"
#include "opt.h"
#include "rfile.h"
#include "tracefile.h"

__attribute__((format(printf, 3, 4)))
static int err_set(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}


/* Splits "A B rest" into two numbers and the rest (trimmed). */
static int meta_two(char *val, uint64_t *a, uint64_t *b, char **rest)
{
	char *sa = val, *sb, *r;

	sb = strchr(sa, ' ');
	if (!sb)
		return -1;
	*sb++ = '\0';
	r = strchr(sb, ' ');
	if (r)
		*r++ = '\0';
	if (opt_u64(sa, 0, UINT32_MAX, a) || opt_u64(sb, 0, UINT64_MAX, b))
		return -1;
	*rest = r ? r : sb + strlen(sb);
	return 0;
}

/*
 * One "KEY VALUE" line of meta.txt (LINENO of PATH) into m: 0, or -errno
 * with ERR saying where. A key this version does not know is ignored.
 */
static int meta_key(struct trace_meta *m, const char *path, unsigned int lineno,
		    const char *key, char *val, char *err, size_t errlen)
{
	uint64_t a, b;
	int ret = 0;

	if (!strcmp(key, "ncpus")) {
		if (m->ncpus || opt_u64(val, 1, TRACEFILE_MAX_CPUS, &a)) {
			return err_set(err, errlen, "%s:%u: bad ncpus '%.40s' (1-%u, once)",
				       path, lineno, val, TRACEFILE_MAX_CPUS);
		}
		m->ncpus = (uint32_t)a;
		m->names = calloc(a, sizeof(*m->names));
		m->overrun = calloc(a, sizeof(*m->overrun));
		m->dropped = calloc(a, sizeof(*m->dropped));
		if (!m->names || !m->overrun || !m->dropped) {
			ret = -ENOMEM;
			snprintf(err, errlen, "out of memory");
		}
	} else if (!strcmp(key, "start_ns") || !strcmp(key, "end_ns")) {
		if (opt_u64(val, 0, UINT64_MAX, &a)) {
			return err_set(err, errlen, "%s:%u: bad %s '%.40s'", path,
				       lineno, key, val);
		}
		*(key[0] == 's' ? &m->start_ns : &m->end_ns) = a;
	} else if (!strcmp(key, "subbuf_size")) {
		if (opt_u64(val, TRACEFILE_MIN_SUBBUF, TRACEFILE_MAX_SUBBUF, &a)) {
			return err_set(err, errlen, "%s:%u: bad subbuf_size '%.40s' (%u-%u)",
				       path, lineno, val, TRACEFILE_MIN_SUBBUF,
				       TRACEFILE_MAX_SUBBUF);
		}
		m->subbuf_size = (uint32_t)a;
	} else if (!strcmp(key, "clock")) {
		snprintf(m->clock, sizeof(m->clock), "%s", val);
	} else if (!strcmp(key, "wake_causes")) {
		/* an import of a source without interrupts */
		m->no_causes = !strcmp(val, "unknown");
	} else if (!strcmp(key, "idle_driver")) {
		snprintf(m->driver, sizeof(m->driver), "%s", val);
	} else if (!strcmp(key, "state")) {
		/* "state CPU INDEX NAME": the name is the rest of the
		 * line, spaces included ("haltpoll idle"). */
		char *name;

		if (!m->ncpus || meta_two(val, &a, &b, &name) || a >= m->ncpus ||
		    !*name) {
			return err_set(err, errlen, "%s:%u: bad state line (state CPU INDEX NAME, after ncpus)",
				       path, lineno);
		}
		if (b >= TRACEFILE_MAX_STATES)
			return 0;	/* named "stateN" */
		if (strlen(name) >= sizeof(m->names[0][0])) {
			return err_set(err, errlen, "%s:%u: state name '%.40s' longer than %zu characters",
				       path, lineno, name, sizeof(m->names[0][0]) - 1);
		}
		snprintf(m->names[a][b], sizeof(m->names[0][0]), "%s", name);
	} else if (!strcmp(key, "missed")) {
		char *rest;
		uint64_t c;

		if (!m->ncpus || meta_two(val, &a, &b, &rest) || a >= m->ncpus ||
		    opt_u64(rest, 0, UINT64_MAX, &c)) {
			return err_set(err, errlen, "%s:%u: bad missed line (missed CPU OVERRUN DROPPED, after ncpus)",
				       path, lineno);
		}
		m->overrun[a] = b;
		m->dropped[a] = c;
	}
	return ret;
}

int tracefile_meta(const char *dir, struct trace_meta *m, char *err,
		   size_t errlen)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned int lineno = 1;
	FILE *f;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/meta.txt", dir);
	f = rfile_fopen(path, err, errlen);
	if (!f) {
		int e = errno;

		if (e == ENOENT)
			snprintf(err, errlen, "%s: %s (not a wakebench trace directory?)",
				 path, strerror(e));
		return -e;
	}
	/* lines bounded before they are held: a 2 GB line would cost 2 GB */
	if (rfile_getline(f, &line, &cap, RFILE_LINE_MAX) < 17 ||
	    strncmp(line, "wakebench-trace 1", 17)) {
		free(line);
		fclose(f);
		return err_set(err, errlen, "%s: not a wakebench trace (version line)",
			       path);
	}
	while (!ret && (len = rfile_getline(f, &line, &cap, RFILE_LINE_MAX))) {
		char *key = line, *val;

		lineno++;
		if (len < 0) {
			ret = err_set(err, errlen, "%s:%u: %s", path, lineno, len == -E2BIG ?
				      "a line longer than 64 KiB" : strerror((int)-len));
			break;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
			       line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = '\0';
		if ((size_t)len != strlen(line)) {
			ret = err_set(err, errlen, "%s:%u: NUL byte", path, lineno);
			break;
		}
		val = strchr(line, ' ');
		if (!val)
			continue;	/* a key of a later version: ignored */
		*val++ = '\0';
		ret = meta_key(m, path, lineno, key, val, err, errlen);
	}
	free(line);
	fclose(f);
	if (!ret && (!m->ncpus || !m->subbuf_size || m->end_ns < m->start_ns))
		ret = err_set(err, errlen, "%s: incomplete (ncpus, subbuf_size, start/end)",
			      path);
	if (ret)
		tracefile_meta_free(m);
	return ret;
}

void tracefile_meta_free(struct trace_meta *m)
{
	free(m->names);
	free(m->overrun);
	free(m->dropped);
	memset(m, 0, sizeof(*m));
}

const char *tracefile_state_name(const struct trace_meta *m, uint32_t cpu,
				 int32_t state, char *buf, size_t len)
{
	if (state == TL_C0)
		return "C0";
	if (state == TL_UNKNOWN)
		return "unknown";
	if (m && cpu < m->ncpus && state >= 0 && state < TRACEFILE_MAX_STATES &&
	    m->names[cpu][state][0])
		return m->names[cpu][state];
	snprintf(buf, len, "state%d", state);
	return buf;
}


/* The IPI and timer vectors a wake cause can be (irq_vectors:*). */
static const struct { const char *name; int type; uint32_t arg; } vectors[] = {
	{ "reschedule_entry", TL_IPI, TL_IPI_RESCHEDULE },
	{ "call_function_entry", TL_IPI, TL_IPI_CALL_FUNCTION },
	{ "call_function_single_entry", TL_IPI, TL_IPI_CALL_FUNCTION_SINGLE },
	{ "irq_work_entry", TL_IPI, TL_IPI_IRQ_WORK },
	{ "local_timer_entry", TL_TIMER, 0 },
};
#define NVECTORS (sizeof(vectors) / sizeof(vectors[0]))

struct tf_decoder {
	struct tep_handle *tep;
	int idle_id, irq_entry_id, irq_exit_id, print_id, softirq_id;
	int wakeup_id, switch_id, netrx_id, miss_id;	/* -1: not recorded */
	int vector_id[NVECTORS];	/* -1: not recorded */
	struct tep_format_field *idle_state, *irq_entry_irq, *irq_entry_name;
	struct tep_format_field *irq_exit_irq, *print_buf, *softirq_vec;
	struct tep_format_field *wakeup_pid, *wakeup_cpu;
	struct tep_format_field *switch_next, *switch_prev;
	struct tep_format_field *miss_state, *miss_below;
	struct tep_format_field *common_pid, *common_type;
	int subbuf;		/* header_page's sub-buffer size; 0: none */
	/* while decoder_init runs on a trace.dat: its formats */
	const struct datfile_hdr *dat;
};

/* A format file is a few kB; a trace's are not trusted. */
#define FORMAT_MAX (1u << 20)

static int load_event(struct tf_decoder *d, const char *dir, const char *sys,
		      const char *name)
{
	char path[4096], why[512];
	size_t len;
	char *buf;
	struct tep_event *ev = NULL;
	int ret;

	if (d->dat) {
		const struct datfile_fmt *f = datfile_hdr_find(d->dat, sys, name);

		if (!f)
			return -1;	/* not recorded */
		ret = tep_parse_format(d->tep, &ev, f->text, f->len, sys);
		return ret || !ev ? -1 : ev->id;
	}
	snprintf(path, sizeof(path), "%s/formats/%s/%s/format", dir, sys, name);
	if (rfile_slurp(path, FORMAT_MAX, &buf, &len, why, sizeof(why)))
		return -1;	/* not recorded */
	ret = tep_parse_format(d->tep, &ev, buf, len, sys);
	free(buf);
	return ret || !ev ? -1 : ev->id;
}

/*
 * DIR/trace.dat's path into path when the trace is one (trace record
 * writes it; older traces are cpuN.raw files beside formats/): 1, or 0.
 */
static int dat_path(const char *dir, char *path, size_t len)
{
	struct stat sb;
	int n = snprintf(path, len, "%s/trace.dat", dir);

	return n > 0 && (size_t)n < len && !stat(path, &sb) && S_ISREG(sb.st_mode);
}

int tracefile_has_event(const char *dir, const char *sys, const char *name)
{
	char path[4096], why[512];
	struct datfile df;
	struct stat sb;
	int n;

	if (dat_path(dir, path, sizeof(path))) {
		if (datfile_open(path, &df, why, sizeof(why)))
			return 0;
		n = datfile_hdr_find(&df.h, sys, name) != NULL;
		datfile_free(&df);
		return n;
	}
	n = snprintf(path, sizeof(path), "%s/formats/%s/%s/format", dir, sys, name);

	return n > 0 && (size_t)n < sizeof(path) && !stat(path, &sb) &&
	       S_ISREG(sb.st_mode);
}

/* The "ID: N" line of a format file's text; -1 without one. */
static long format_id(const char *text)
{
	const char *p = text;

	while (p) {
		if (!strncmp(p, "ID:", 3)) {
			char *end;
			long id = strtol(p + 3, &end, 10);

			return end != p + 3 && id >= 0 && id <= 65535 ? id : -1;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

struct fmt_id {
	long id;
	char name[128];		/* SYS/EVENT */
};

#define MAX_FORMATS 4096

/*
 * Every format under DIR/formats declares an id of its own. Two formats
 * with one id contradict each other: the events of one would be decoded
 * as the other's (a cpu_idle format with irq_handler_entry's id read
 * IRQ 41 as "state41"), and nothing says which is right.
 */
static int formats_unique(const char *dir, char *err, size_t errlen)
{
	char path[4096], why[512];
	struct fmt_id *ids = NULL;
	struct dirent *se, *ee;
	DIR *sd, *ed;
	size_t n = 0;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/formats", dir);
	sd = opendir(path);
	if (!sd)
		return 0;	/* no formats: header_page's error says so */
	ids = malloc(MAX_FORMATS * sizeof(*ids));
	if (!ids) {
		closedir(sd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (!ret && (se = readdir(sd))) {
		if (se->d_name[0] == '.' || strlen(se->d_name) > 60)
			continue;
		snprintf(path, sizeof(path), "%s/formats/%s", dir, se->d_name);
		ed = opendir(path);
		if (!ed)
			continue;	/* header_page, header_event */
		while (!ret && (ee = readdir(ed))) {
			size_t len;
			char *buf;
			long id;

			if (ee->d_name[0] == '.' || strlen(ee->d_name) > 60)
				continue;
			snprintf(path, sizeof(path), "%s/formats/%s/%s/format", dir,
				 se->d_name, ee->d_name);
			if (rfile_slurp(path, FORMAT_MAX, &buf, &len, why, sizeof(why)))
				continue;	/* not a format: not loaded either */
			id = format_id(buf);
			free(buf);
			if (id < 0)
				continue;
			for (size_t i = 0; i < n; i++) {
				if (ids[i].id != id)
					continue;
				ret = err_set(err, errlen, "%s: id %ld, as in %s/formats/%s/format: the trace's formats contradict each other (an id is one event's)",
					      path, id, dir, ids[i].name);
				break;
			}
			if (ret)
				break;
			if (n == MAX_FORMATS) {
				ret = err_set(err, errlen, "%s/formats: more than %d event formats",
					      dir, MAX_FORMATS);
				break;
			}
			ids[n].id = id;
			/* event names are at most 60 here (above); systems too */
			snprintf(ids[n].name, sizeof(ids[n].name), "%.60s/%.60s",
				 se->d_name, ee->d_name);
			n++;
		}
		closedir(ed);
	}
	closedir(sd);
	free(ids);
	return ret;
}

static struct tep_format_field *field(struct tep_handle *tep, int id,
				      const char *name)
{
	struct tep_event *ev = id >= 0 ? tep_find_event(tep, id) : NULL;

	return ev ? tep_find_field(ev, name) : NULL;
}

/* A trace.dat's formats, as formats_unique checks a directory's. */
static int dat_unique(const struct datfile_hdr *h, const char *path, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < h->nfmts; i++) {
		long id = format_id(h->fmts[i].text);

		for (size_t j = 0; id >= 0 && j < i; j++)
			if (format_id(h->fmts[j].text) == id)
				return err_set(err, errlen, "%s: %s/%s and %s/%s both have id %ld: the trace's formats contradict each other (an id is one event's)",
					       path, h->fmts[i].sys, h->fmts[i].name,
					       h->fmts[j].sys, h->fmts[j].name, id);
	}
	return 0;
}

/* The header_page text (to free) of the trace's formats/, or of dat. */
static int header_page(const struct tf_decoder *d, const char *dir, char *path,
		       size_t pathlen, char **hp, size_t *len, char *err,
		       size_t errlen)
{
	if (d->dat) {
		snprintf(path, pathlen, "%s/trace.dat: header_page", dir);
		*len = d->dat->header_page_len;
		*hp = malloc(*len + 1);
		if (!*hp) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		memcpy(*hp, d->dat->header_page, *len + 1);
		return 0;
	}
	snprintf(path, pathlen, "%s/formats/header_page", dir);
	return rfile_slurp(path, FORMAT_MAX, hp, len, err, errlen) ? -EINVAL : 0;
}

static int decoder_init_src(struct tf_decoder *d, const char *dir,
			    const struct datfile_hdr *dat, char *err,
			    size_t errlen)
{
	char path[4096];
	size_t len;
	char *hp;

	memset(d, 0, sizeof(*d));
	d->dat = dat;
	d->tep = tep_alloc();
	if (!d->tep) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	tep_set_file_bigendian(d->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(d->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(d->tep, sizeof(long));
	if (header_page(d, dir, path, sizeof(path), &hp, &len, err, errlen))
		return -EINVAL;
	if (tep_parse_header_page(d->tep, hp, len, sizeof(long))) {
		free(hp);
		return err_set(err, errlen, "%s: cannot parse", path);
	}
	free(hp);
	d->subbuf = tep_get_sub_buffer_size(d->tep);
	d->idle_id = load_event(d, dir, "power", "cpu_idle");
	d->irq_entry_id = load_event(d, dir, "irq", "irq_handler_entry");
	d->irq_exit_id = load_event(d, dir, "irq", "irq_handler_exit");
	d->print_id = load_event(d, dir, "ftrace", "print");
	/* wake causes: optional, decoded when recorded */
	d->softirq_id = load_event(d, dir, "irq", "softirq_entry");
	d->softirq_vec = field(d->tep, d->softirq_id, "vec");
	for (size_t i = 0; i < NVECTORS; i++)
		d->vector_id[i] = load_event(d, dir, "irq_vectors", vectors[i].name);
	d->wakeup_id = load_event(d, dir, "sched", "sched_wakeup");
	d->wakeup_pid = field(d->tep, d->wakeup_id, "pid");
	d->wakeup_cpu = field(d->tep, d->wakeup_id, "target_cpu");
	d->switch_id = load_event(d, dir, "sched", "sched_switch");
	d->switch_next = field(d->tep, d->switch_id, "next_pid");
	d->switch_prev = field(d->tep, d->switch_id, "prev_pid");
	d->netrx_id = load_event(d, dir, "net", "netif_receive_skb");
	/* the governor's misses (kernel 6.1+), where recorded */
	d->miss_id = load_event(d, dir, "power", "cpu_idle_miss");
	d->miss_state = field(d->tep, d->miss_id, "state");
	d->miss_below = field(d->tep, d->miss_id, "below");
	d->idle_state = field(d->tep, d->idle_id, "state");
	if (d->idle_id >= 0) {
		struct tep_event *ev = tep_find_event(d->tep, d->idle_id);

		d->common_pid = ev ? tep_find_common_field(ev, "common_pid") : NULL;
		d->common_type = ev ? tep_find_common_field(ev, "common_type") : NULL;
	}
	d->irq_entry_irq = field(d->tep, d->irq_entry_id, "irq");
	d->irq_entry_name = field(d->tep, d->irq_entry_id, "name");
	d->irq_exit_irq = field(d->tep, d->irq_exit_id, "irq");
	d->print_buf = field(d->tep, d->print_id, "buf");
	d->dat = NULL;		/* the caller's, freed after this */
	if (d->idle_id < 0 || !d->idle_state)
		return err_set(err, errlen, "%s: no power:cpu_idle format", dir);
	return dat ? dat_unique(dat, dir, err, errlen) : formats_unique(dir, err, errlen);
}

/* A decoder for the formats of trace DIR: of its trace.dat, or formats/. */
static int decoder_init(struct tf_decoder *d, const char *dir, char *err,
			size_t errlen)
{
	char path[4096];
	struct datfile df;
	int ret;

	if (!dat_path(dir, path, sizeof(path)))
		return decoder_init_src(d, dir, NULL, err, errlen);
	ret = datfile_open(path, &df, err, errlen);
	if (ret)
		return ret;
	ret = decoder_init_src(d, dir, &df.h, err, errlen);
	datfile_free(&df);
	return ret;
}

/*
 * A number field inside an event of `size` bytes (0 when the event has no
 * such field); -1 when it lies outside. Read directly: the trace and this
 * host are little-endian (decoder_init), and tep_read_number_field per
 * event costs a tenth of a trace analysis.
 */
static inline __attribute__((always_inline))
int num(struct tep_format_field *f, const void *data, int size, uint32_t *out)
{
	const uint8_t *p = (const uint8_t *)data + (f ? f->offset : 0);

	*out = 0;
	if (!f)
		return 0;
	if (f->offset < 0 || f->size <= 0 || f->size > 8 ||
	    f->offset + f->size > size)
		return -1;
	switch (f->size) {
	case 1:
		*out = p[0];
		return 0;
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		*out = v;
		return 0;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		*out = v;
		return 0;
	}
	case 8: {
		uint64_t v;

		memcpy(&v, p, 8);
		*out = (uint32_t)v;
		return 0;
	}
	default:
		return -1;
	}
}

/* A string field: __data_loc (dynamic) or a trailing char[]. */
static int str(struct tep_format_field *f, const void *data, int size,
	       char *out, size_t len, size_t *outlen)
{
	const char *p, *nl;
	size_t max;

	out[0] = '\0';
	*outlen = 0;
	if (!f)
		return 0;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (num(f, data, size, &loc))
			return -1;
		if ((loc & 0xffff) + (size_t)(loc >> 16) > (size_t)size)
			return -1;
		p = (const char *)data + (loc & 0xffff);
		max = loc >> 16;
	} else {
		if (f->offset < 0 || f->offset > size)
			return -1;
		p = (const char *)data + f->offset;
		max = (size_t)(size - f->offset);
	}
	if (max >= len)
		max = len - 1;
	/* up to the first NUL or newline: one bounded scan, one copy */
	max = strnlen(p, max);
	nl = memchr(p, '\n', max);
	if (nl)
		max = (size_t)(nl - p);
	memcpy(out, p, max);
	out[max] = '\0';
	*outlen = max;
	return 0;
}

/* ---- ring-buffer pages -------------------------------------------------- */

#define PAGE_COMMIT_MASK ((1u << 27) - 1)
#define PAGE_MISSED_EVENTS (1ull << 31)
#define PAGE_MISSED_STORED (1ull << 30)
#define RB_TS_SHIFT 27
#define RB_TS_MSB (0xf8ull << 56)
enum { RB_PADDING = 29, RB_TIME_EXTEND = 30, RB_TIME_STAMP = 31 };

/* The files are little-endian (the decoder says so); so is the host. */
static uint32_t rd4(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd8(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

__attribute__((format(printf, 5, 6)))
static long page_bad(size_t at, size_t *bad_off, char *err, size_t errlen,
		     const char *fmt, ...)
{
	va_list ap;

	if (bad_off)
		*bad_off = at;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* A page being walked: its data (after the header) and the walk's place. */
struct page_walk {
	const uint8_t *d;
	size_t hdr, size, off;	/* header and data bytes; offset in the data */
	size_t next;		/* the offset after the event just read */
	uint64_t ts;		/* the time stamp so far */
	size_t *bad_off;
	char *err;
	size_t errlen;
};

/* The page's header: its time stamp, data size and missed events. */
static long page_header(struct page_walk *w, const uint8_t *p, size_t len,
			int long_size, struct tf_page *info)
{
	uint64_t commit;

	if (long_size != 4 && long_size != 8)
		return page_bad(0, w->bad_off, w->err, w->errlen,
				"commit field of %d bytes (4 or 8 expected)", long_size);
	w->hdr = 8 + (size_t)long_size;
	if (len < w->hdr)
		return page_bad(0, w->bad_off, w->err, w->errlen,
				"page of %zu bytes is shorter than its %zu-byte header",
				len, w->hdr);
	w->ts = rd8(p);
	commit = long_size == 8 ? rd8(p + 8) : rd4(p + 8);
	w->size = (size_t)(commit & PAGE_COMMIT_MASK);
	if (info)
		*info = (struct tf_page){ .ts = w->ts, .commit = commit,
					  .data_len = w->size };
	if (w->size > len - w->hdr)
		return page_bad(8, w->bad_off, w->err, w->errlen,
				"commit %#llx: %zu bytes of data in a %zu-byte page",
				(unsigned long long)commit, w->size, len);
	if ((commit & PAGE_MISSED_EVENTS) && (commit & PAGE_MISSED_STORED)) {
		if ((size_t)long_size > len - w->hdr - w->size)
			return page_bad(8, w->bad_off, w->err, w->errlen,
					"commit %#llx: no room for the missed-events count",
					(unsigned long long)commit);
		if (info)
			info->missed = long_size == 8 ? rd8(p + w->hdr + w->size) :
				       rd4(p + w->hdr + w->size);
	} else if (commit & PAGE_MISSED_EVENTS && info) {
		info->missed = UINT64_MAX;	/* some, count unknown */
	}
	w->d = p + w->hdr;
	return 0;
}

/* What the record at the walk's offset was. */
enum { PAGE_EVENT, PAGE_SKIP, PAGE_END };

/* A time extend or absolute time stamp (type TL, DELTA): the time moved. */
static long page_time(struct page_walk *w, uint32_t tl, uint32_t delta)
{
	uint64_t ext;

	if (w->size - w->off < 8)
		return page_bad(w->hdr + w->off, w->bad_off, w->err, w->errlen,
				"time stamp cut by the end of data (%zu bytes)", w->size);
	ext = ((uint64_t)rd4(w->d + w->off + 4) << RB_TS_SHIFT) + delta;
	w->ts = tl == RB_TIME_EXTEND ? w->ts + ext : ext | (w->ts & RB_TS_MSB);
	w->off += 8;
	return PAGE_SKIP;
}

/*
 * The record at the walk's offset: an event (PAGE_EVENT, in *EV, w->next
 * the offset after it), a time stamp or discarded event walked past
 * (PAGE_SKIP), the padding that ends the data (PAGE_END), or -EBADMSG.
 */
static long page_record(struct page_walk *w, struct tf_event *ev)
{
	uint32_t word, tl, delta;
	size_t evlen, at, off = w->off, size = w->size;

	if (size - off < 4)
		return page_bad(w->hdr + off, w->bad_off, w->err, w->errlen,
				"event header cut by the end of data (%zu bytes)", size);
	word = rd4(w->d + off);
	tl = word & 31;
	delta = word >> 5;
	switch (tl) {
	case RB_PADDING:
		/* The rest of the page, or a discarded event. */
		if (!delta || size - off < 8)
			return PAGE_END;
		w->off += 4 + (size_t)rd4(w->d + off + 4);
		return PAGE_SKIP;
	case RB_TIME_EXTEND:
	case RB_TIME_STAMP:
		return page_time(w, tl, delta);
	case 0: {
		uint32_t l;

		if (size - off < 8)
			return page_bad(w->hdr + off, w->bad_off, w->err, w->errlen,
					"event length cut by the end of data (%zu bytes)",
					size);
		l = rd4(w->d + off + 4);
		if (l < 4)
			return page_bad(w->hdr + off, w->bad_off, w->err, w->errlen,
					"event length %u (at least 4)", l);
		evlen = (((size_t)l - 4) + 3) & ~(size_t)3;
		at = off + 8;
		break;
	}
	default:
		evlen = (size_t)tl * 4;
		at = off + 4;
		break;
	}
	if (evlen > size - at)
		return page_bad(w->hdr + off, w->bad_off, w->err, w->errlen,
				"event of %zu bytes runs past the end of data (%zu bytes)",
				evlen, size);
	w->ts += delta;
	*ev = (struct tf_event){ .ts = w->ts, .data = w->d + at,
				 .size = (uint32_t)evlen,
				 .offset = (uint32_t)(w->hdr + off) };
	w->next = at + evlen;
	return PAGE_EVENT;
}

long tracefile_page_walk(const void *page, size_t len, int long_size,
			 tf_event_fn fn, void *ctx, struct tf_page *info,
			 size_t *bad_off, char *err, size_t errlen)
{
	struct page_walk w = { .bad_off = bad_off, .err = err, .errlen = errlen };
	long n = 0, r;

	r = page_header(&w, page, len, long_size, info);
	if (r)
		return r;
	while (w.off < w.size) {
		struct tf_event ev;

		r = page_record(&w, &ev);
		if (r < 0)
			return r;
		if (r == PAGE_END)
			return n;
		if (r == PAGE_SKIP)
			continue;
		if (fn) {
			int e = fn(ctx, &ev);

			if (e < 0) {
				if (bad_off)
					*bad_off = w.hdr + w.off;
				return e;
			}
		}
		n++;
		w.off = w.next;
	}
	return n;
}

/* ---- decoding ------------------------------------------------------------ */

/*
 * Each CPU's file is read a page at a time; a page's events are decoded
 * whole into a small array (their strings into an arena), so a corrupt
 * page yields none of its events, and the merge below hands them out
 * across CPUs in time order. Memory: per CPU its page's events and their
 * strings (array and arena grown as far as a page needs), and its pages
 * read but not yet decoded, whatever the trace's length.
 */
#define STR_MAX 256		/* a marker or handler name, as kept */
#define COMMON_HEADER 8		/* common_type, flags, preempt_count, pid */

struct cpu_reader {
	uint32_t cpu;
	const char *name;	/* the file, in messages */
	char *path;		/* name's storage (malloc'd: 4 KB each was a
				 * page a CPU on hosts of hundreds) */
	int fd;			/* -1: reading from buf */
	const uint8_t *buf;
	size_t len, off;	/* buf, or the read buffer's bytes read */
	uint64_t remain;	/* bytes of fd still to read (its trace.dat part) */
	uint8_t *rbuf;		/* pages read at once from fd */
	size_t rcap;
	uint64_t pg;		/* the next page's index */
	struct tl_event *ev;
	size_t nev, pos, cap;
	char *arena;
	size_t used, arena_cap;
	int done;
};

/*
 * With o->prefetch, a thread of the stream's own decodes and merges
 * ahead into a ring of batches (events, their strings copied), and
 * tracefile_stream_next hands them out: decoding on one core, the
 * caller's analysis and output on another. A batch is closed when full
 * or when its strings' room could not take one more of STR_MAX.
 */
#define PF_BATCH 16384
#define PF_STR (PF_BATCH * 64)
#define PF_RING 4

struct pf_batch {
	struct tl_event ev[PF_BATCH];
	char str[PF_STR];
	size_t n, used;
	int end;		/* the stream's last batch */
	int ret;		/* with end: 0, or the -errno of perr */
};

struct tf_prefetch {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, freed;
	struct pf_batch *ring;	/* PF_RING */
	unsigned int full, put, take;
	int stop;
	struct pf_batch *cur;	/* the caller's: being handed out */
	size_t pos;
	char perr[6000];	/* the thread's error message */
};

/* A reader in the merge, with the time of its next event kept beside
 * it: the comparisons touch nothing else. */
struct heap_ent {
	uint64_t ts;
	uint32_t cpu;
};

struct tf_stream {
	struct tf_decoder *d;
	struct tf_prefetch *pf;	/* NULL: decoded in the caller's thread */
	int own_decoder;
	uint32_t subbuf;
	uint64_t lo, hi;	/* every event's time is inside */
	struct tf_decode *o;
	struct cpu_reader *r;
	uint32_t nr;
	struct heap_ent *heap;	/* readers with an event, earliest first */
	uint32_t nheap;
	/* with nheap > 1: the earliest below the top. While the top reader's
	 * next event is before it, the top stays and the heap is not
	 * touched: a CPU's events come in runs. */
	struct heap_ent next2;
	int started;
	int advance;		/* the reader handed out last: step it first */
};

/* An irq_vectors event id: its type and argument into e; 0 if not one. */
static int vector_event(const struct tf_decoder *d, int id, struct tl_event *e)
{
	for (size_t i = 0; i < NVECTORS; i++) {
		if (d->vector_id[i] == id) {
			e->type = (enum tl_type)vectors[i].type;
			e->arg = vectors[i].arg;
			return 1;
		}
	}
	return 0;
}

struct page_ctx {
	struct tf_decoder *d;
	struct cpu_reader *r;
	uint64_t lo, hi;	/* the recording's times (meta.txt) */
	uint64_t recorded;
	char *err;
	size_t errlen;
};

/*
 * Room in the arena for one more string: a new one of twice the size,
 * the page's strings so far moved there with their events' pointers.
 * The arena starts small: most CPUs of a big host have a few names a
 * page, and a page's worth (4.8 KB) was a page of memory a CPU.
 */
static int arena_grow(struct cpu_reader *r)
{
	size_t ncap = r->arena_cap ? 2 * r->arena_cap : 2 * STR_MAX;
	char *n = malloc(ncap);

	if (!n)
		return -1;
	if (r->used)
		memcpy(n, r->arena, r->used);
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].str)
			r->ev[i].str = n + (r->ev[i].str - r->arena);
	free(r->arena);
	r->arena = n;
	r->arena_cap = ncap;
	return 0;
}

/* A string field into the reader's arena. */
static int arena_str(struct cpu_reader *r, struct tep_format_field *f,
		     const void *data, int size, const char **out)
{
	char *p;
	size_t len;

	if (r->arena_cap - r->used < STR_MAX && arena_grow(r))
		return -1;
	p = r->arena + r->used;
	if (str(f, data, size, p, STR_MAX, &len))
		return -1;
	*out = p;
	r->used += len + 1;
	return 0;
}

/* One event of a page: decoded into the reader's array, or skipped. */
static int collect(void *arg, const struct tf_event *ev)
{
	struct page_ctx *c = arg;
	struct tf_decoder *d = c->d;
	struct cpu_reader *r = c->r;
	struct tep_record rec = { .ts = ev->ts, .data = (void *)ev->data,
				  .size = (int)ev->size, .cpu = (int)r->cpu };
	struct tl_event e = { .ts = ev->ts, .cpu = r->cpu };
	const char *what = NULL;
	int id, bad = 0;

	if (ev->size < COMMON_HEADER) {
		snprintf(c->err, c->errlen, "event of %u bytes, shorter than the common header",
			 ev->size);
		return -EBADMSG;
	}
	/* An event the recording cannot hold: a page's garbage time, or a
	 * meta.txt whose start_ns or end_ns lies (an export of nothing). */
	if (ev->ts < c->lo || ev->ts > c->hi) {
		snprintf(c->err, c->errlen, "event at %llu ns, outside the recording (meta.txt: start_ns %llu, end_ns %llu)",
			 (unsigned long long)ev->ts, (unsigned long long)c->lo,
			 (unsigned long long)c->hi);
		return -EBADMSG;
	}
	c->recorded++;
	if (d->common_type) {
		uint32_t type;

		/* read directly: tep_data_type costs as much as the rest */
		if (num(d->common_type, ev->data, rec.size, &type))
			return 0;
		id = (int)type;
	} else {
		id = tep_data_type(d->tep, &rec);
	}
	if (id < 0)
		return 0;
	if (id == d->idle_id) {
		e.type = TL_IDLE;
		bad = num(d->idle_state, ev->data, rec.size, &e.arg);
		what = "power:cpu_idle state";
	} else if (id == d->irq_entry_id) {
		e.type = TL_IRQ_ENTRY;
		bad = num(d->irq_entry_irq, ev->data, rec.size, &e.arg) ||
		      arena_str(r, d->irq_entry_name, ev->data, rec.size, &e.str);
		what = "irq:irq_handler_entry irq or name";
	} else if (id == d->irq_exit_id) {
		e.type = TL_IRQ_EXIT;
		bad = num(d->irq_exit_irq, ev->data, rec.size, &e.arg);
		what = "irq:irq_handler_exit irq";
	} else if (id == d->print_id) {
		e.type = TL_MARKER;
		bad = arena_str(r, d->print_buf, ev->data, rec.size, &e.str);
		what = "ftrace:print buf";
	} else if (id == d->softirq_id) {
		e.type = TL_SOFTIRQ;
		bad = num(d->softirq_vec, ev->data, rec.size, &e.arg);
		what = "irq:softirq_entry vec";
	} else if (id == d->wakeup_id) {
		e.type = TL_WAKEUP;
		bad = num(d->wakeup_pid, ev->data, rec.size, &e.arg) ||
		      num(d->wakeup_cpu, ev->data, rec.size, &e.arg2);
		what = "sched:sched_wakeup pid or target_cpu";
	} else if (id == d->switch_id) {
		e.type = TL_SWITCH;
		bad = num(d->switch_next, ev->data, rec.size, &e.arg) ||
		      num(d->switch_prev, ev->data, rec.size, &e.arg2);
		what = "sched:sched_switch next_pid or prev_pid";
	} else if (id == d->netrx_id) {
		e.type = TL_NETRX;
	} else if (id == d->miss_id) {
		e.type = TL_IDLE_MISS;
		bad = num(d->miss_state, ev->data, rec.size, &e.arg) ||
		      num(d->miss_below, ev->data, rec.size, &e.arg2);
		e.arg2 = e.arg2 != 0;
		what = "power:cpu_idle_miss state or below";
	} else if (!vector_event(d, id, &e)) {
		return 0;	/* an event wakebench does not read */
	}
	if (!bad)
		bad = num(d->common_pid, ev->data, rec.size, &e.pid);
	if (bad) {
		snprintf(c->err, c->errlen, "%s field outside the %u-byte event",
			 what ? what : "common_pid", ev->size);
		return -EBADMSG;
	}
	if (r->nev == r->cap &&
	    arr_grow((void **)&r->ev, &r->cap, r->nev + 1, sizeof(*r->ev), 64))
		return -ENOMEM;
	r->ev[r->nev++] = e;
	return 0;
}


/*
 * One corrupt page: an error, or with skip_corrupt a count and the first
 * message kept. Returns 0 to go on, -EBADMSG to stop.
 */
static int corrupt(struct tf_decode *o, char *err, size_t errlen,
		   const char *msg)
{
	if (!o->skip_corrupt) {
		snprintf(err, errlen, "%s", msg);
		return -EBADMSG;
	}
	if (!o->corrupt_pages++)
		snprintf(o->first_corrupt, sizeof(o->first_corrupt), "%s", msg);
	return 0;
}

/*
 * Loads r's next page with events into its array: 1, 0 when the file
 * ends, -errno (err set). Corrupt pages are skipped or fatal (corrupt()).
 */
/* The reader's buffer, allocated at its first read: 0 or -ENOMEM. */
static int reader_buf(struct cpu_reader *r)
{
	if (!r->rbuf)
		r->rbuf = malloc(r->rcap);
	return r->rbuf ? 0 : -ENOMEM;
}

/*
 * Once the last of a CPU's pages is decoded (its strings are in the
 * arena), its buffer goes back and the reader is done (no read of
 * nothing later, in a buffer of its own again): on a big host the idle
 * CPUs' pages are decoded one after another at the start, each in the
 * buffer the one before gave back.
 */
static void reader_read_all(struct cpu_reader *r)
{
	if (r->fd >= 0 && r->off == r->len && (r->len < r->rcap || !r->remain)) {
		free(r->rbuf);
		r->rbuf = NULL;
		r->buf = NULL;
		r->done = 1;
	}
}

static int load_page(struct tf_stream *s, struct cpu_reader *r, char *err,
		     size_t errlen)
{
	int long_size = tep_get_header_page_size(s->d->tep);
	char why[512], msg[4800];

	for (;;) {
		struct page_ctx c = { .d = s->d, .r = r, .lo = s->lo, .hi = s->hi,
				      .err = why, .errlen = sizeof(why) };
		uint64_t pg = r->pg++, at = pg * s->subbuf;
		struct tf_page info;
		size_t got, bad = 0;
		long n;
		int ret;

		const uint8_t *page;

		r->nev = r->pos = r->used = 0;
		if (r->done)
			return 0;
		if (r->fd >= 0 && r->off == r->len) {
			/* many pages a read(): a syscall per page is a
			 * tenth of an analysis */
			ssize_t g = reader_buf(r) ? -ENOMEM :
				    rfile_read_full(r->fd, r->rbuf,
						    r->rcap < r->remain ? r->rcap :
						    (size_t)r->remain);

			if (g > 0)
				r->remain -= (uint64_t)g;
			if (g < 0) {
				snprintf(err, errlen, "%s: %s", r->name, strerror((int)-g));
				return (int)g;
			}
			r->buf = r->rbuf;
			r->len = (size_t)g;
			r->off = 0;
		}
		got = r->len - r->off < s->subbuf ? r->len - r->off : s->subbuf;
		page = r->buf + r->off;
		r->off += got;
		if (got < s->subbuf)
			r->done = 1;
		if (!got)
			return 0;
		if (got < s->subbuf) {
			snprintf(msg, sizeof(msg),
				 "%s: CPU %u, page %llu, offset %llu: truncated page (%zu of %u bytes)",
				 r->name, r->cpu, (unsigned long long)pg,
				 (unsigned long long)at, got, s->subbuf);
			ret = corrupt(s->o, err, errlen, msg);
			if (ret)
				return ret;
			continue;
		}
		n = tracefile_page_walk(page, s->subbuf, long_size, collect, &c,
					&info, &bad, why, sizeof(why));
		reader_read_all(r);
		if (n == -ENOMEM) {
			snprintf(err, errlen, "%s: out of memory", r->name);
			return -ENOMEM;
		}
		if (n < 0) {
			r->nev = 0;
			snprintf(msg, sizeof(msg),
				 "%s: CPU %u, page %llu, offset %llu (byte %zu of the page): %s",
				 r->name, r->cpu, (unsigned long long)pg,
				 (unsigned long long)(at + bad), bad, why);
			ret = corrupt(s->o, err, errlen, msg);
			if (ret)
				return ret;
			continue;
		}
		s->o->recorded += c.recorded;
		s->o->pages++;
		if (info.missed)
			s->o->missed_pages++;
		if (r->nev)
			return 1;
	}
}

static int earlier(const struct heap_ent *x, const struct heap_ent *y)
{
	return x->ts != y->ts ? x->ts < y->ts : x->cpu < y->cpu;
}

static void sift_down(struct tf_stream *s, uint32_t i)
{
	struct heap_ent e = s->heap[i];

	for (;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= s->nheap)
			break;
		m = l + 1 < s->nheap && earlier(&s->heap[l + 1], &s->heap[l]) ? l + 1 : l;
		if (!earlier(&s->heap[m], &e))
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	s->heap[i] = e;
}

/* next2 after the heap changed: the earlier of the top's children */
static void runner_up(struct tf_stream *s)
{
	if (s->nheap > 2 && earlier(&s->heap[2], &s->heap[1]))
		s->next2 = s->heap[2];
	else if (s->nheap > 1)
		s->next2 = s->heap[1];
}

static int reader_init(struct cpu_reader *r, uint32_t cpu)
{
	r->cpu = cpu;
	r->fd = -1;
	/* grown as a page needs (collect): most CPUs of a big host have a
	 * few events a page, and a page's worth is 20 KB a CPU */
	r->ev = malloc(64 * sizeof(*r->ev));
	r->cap = 64;
	/* the arena grows as strings come (arena_grow) */
	r->arena_cap = 0;
	r->arena = NULL;
	return r->ev ? 0 : -ENOMEM;
}

static void stream_free(struct tf_stream *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nr; i++) {
		if (s->r[i].fd >= 0)
			close(s->r[i].fd);
		free(s->r[i].rbuf);
		free(s->r[i].path);
		free(s->r[i].ev);
		free(s->r[i].arena);
	}
	free(s->r);
	free(s->heap);
	if (s->own_decoder)
		tracefile_decoder_free(s->d);
	free(s);
}

static struct tf_stream *stream_alloc(struct tf_decoder *d, uint32_t nr,
				      uint32_t subbuf, struct tf_decode *o)
{
	struct tf_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->d = d;
	s->subbuf = subbuf;
	s->hi = UINT64_MAX;
	s->o = o;
	s->r = calloc(nr ? nr : 1, sizeof(*s->r));
	s->heap = calloc(nr ? nr : 1, sizeof(*s->heap));
	if (!s->r || !s->heap) {
		stream_free(s);
		return NULL;
	}
	for (uint32_t i = 0; i < nr; i++) {
		s->r[i].fd = -1;
		s->nr = i + 1;
		if (reader_init(&s->r[i], i)) {
			stream_free(s);
			return NULL;
		}
	}
	return s;
}

static void reset_counts(struct tf_decode *o)
{
	o->recorded = o->fed = o->pages = o->missed_pages = o->corrupt_pages = 0;
	o->first_corrupt[0] = '\0';
}

/* Pages read at once per CPU: 32, fewer on machines of many CPUs (the
 * buffers together at most 8 MB: 4 pages a read at 512 CPUs; the reader
 * of an idle CPU holds its buffer the whole trace long, its few events
 * spread over it, and 32 MB of them was most of an analysis's memory). */
static uint32_t read_pages(const struct trace_meta *m)
{
	uint64_t per_cpu = (8ull << 20) / m->ncpus / m->subbuf_size;

	return per_cpu < 1 ? 1 : per_cpu > 32 ? 32 : (uint32_t)per_cpu;
}

/*
 * The page size a trace is read with (meta.txt's subbuf_size) against the
 * one its formats/header_page declares: pages cut at other places lose
 * events without a word (8192 on 4096-byte pages read the first half of
 * each). what: meta.txt or the file the pages come from.
 */
static int subbuf_agrees(const struct tf_decoder *d, uint32_t subbuf,
			 const char *what, char *err, size_t errlen)
{
	if (d->subbuf > 0 && (uint32_t)d->subbuf == subbuf)
		return 0;
	if (d->subbuf <= 0)
		return err_set(err, errlen, "%s: the trace's formats/header_page declares no page layout (no data field)",
			       what);
	return err_set(err, errlen, "%s: %u-byte pages, but the trace's formats/header_page declares %d-byte ones: its pages would be cut at the wrong places and events lost",
		       what, subbuf, d->subbuf);
}

/*
 * A stream holds every CPU's cpuN.raw open: past about 1000 CPUs the
 * usual soft limit of 1024 files made the open fail (EMFILE). The soft
 * limit is raised as far as that needs, up to the hard one, for this
 * process only.
 */
static int files_for_cpus(const char *dir, uint32_t ncpus, char *err,
			  size_t errlen)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)ncpus + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return err_set(err, errlen, "%s: a trace of %u CPUs needs %llu open files; the limit is %llu (ulimit -n)",
			       dir, ncpus, (unsigned long long)need,
			       (unsigned long long)rl.rlim_max);
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot raise the open file limit to %llu: %s",
			 dir, (unsigned long long)need, strerror(e));
		return -e;
	}
	return 0;
}

/*
 * The size of a reader's buffer of pages read at once: no larger than
 * the pages it has to read, plus one so that the read that gets them all
 * comes back short (reader_read_all). Most CPUs of a big host have a page
 * or two; 32 pages each at once was most of an analysis's memory.
 */
static void reader_size(struct cpu_reader *r, const struct trace_meta *m)
{
	uint64_t have = r->remain, pages;
	struct stat sb;

	if (have == UINT64_MAX && !fstat(r->fd, &sb))
		have = (uint64_t)sb.st_size;
	pages = have / m->subbuf_size + 1;
	r->rcap = (size_t)(pages < read_pages(m) ? pages : read_pages(m)) * m->subbuf_size;
}

/* Each CPU's cpuN.raw; a CPU without one was not recorded. */
static int open_raw(struct tf_stream *s, const char *dir,
		    const struct trace_meta *m, char *err, size_t errlen)
{
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		struct cpu_reader *r = &s->r[cpu];

		if (asprintf(&r->path, "%s/cpu%u.raw", dir, cpu) < 0) {
			r->path = NULL;
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		r->name = r->path;
		r->remain = UINT64_MAX;
		r->fd = rfile_open(r->path, err, errlen);
		if (r->fd == -ENOENT) {	/* a CPU not recorded: no data */
			r->done = 1;
			continue;
		}
		if (r->fd < 0)
			return r->fd;
		reader_size(r, m);
	}
	return 0;
}

/*
 * Each CPU's part of trace.dat at path, read through a descriptor of its
 * own placed at the part's start. The file's page size is the trace's.
 */
static int open_dat(struct tf_stream *s, const char *path,
		    const struct trace_meta *m, char *err, size_t errlen)
{
	struct datfile df;
	int ret = datfile_open(path, &df, err, errlen);

	if (ret)
		return ret;
	if (df.h.page_size != m->subbuf_size || df.h.ncpus > m->ncpus)
		ret = err_set(err, errlen, "%s: %u CPUs of %u-byte pages, but meta.txt says %u of %u",
			      path, df.h.ncpus, df.h.page_size, m->ncpus, m->subbuf_size);
	for (uint32_t cpu = 0; !ret && cpu < m->ncpus; cpu++) {
		struct cpu_reader *r = &s->r[cpu];

		r->path = strdup(path);
		if (!r->path) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
			break;
		}
		r->name = r->path;
		if (cpu >= df.h.ncpus || !df.size[cpu]) {
			r->done = 1;	/* no pages */
			continue;
		}
		r->remain = df.size[cpu];
		r->fd = rfile_open(path, err, errlen);
		if (r->fd < 0) {
			ret = r->fd;
			break;
		}
		if (lseek(r->fd, (off_t)df.off[cpu], SEEK_SET) < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			break;
		}
		reader_size(r, m);
	}
	datfile_free(&df);
	return ret;
}

int tracefile_stream_open(const char *dir, const struct trace_meta *m,
			  struct tf_decode *o, struct tf_stream **out,
			  char *err, size_t errlen)
{
	struct tf_decoder *d;
	struct tf_stream *s;
	char meta[4200], dat[4096];
	int ret;

	*out = NULL;
	reset_counts(o);
	if (m->subbuf_size < TRACEFILE_MIN_SUBBUF || m->subbuf_size > TRACEFILE_MAX_SUBBUF)
		return err_set(err, errlen, "%s/meta.txt: subbuf_size %u out of range",
			       dir, m->subbuf_size);
	ret = files_for_cpus(dir, m->ncpus, err, errlen);
	if (ret)
		return ret;
	ret = tracefile_decoder_new(dir, &d, err, errlen);
	if (ret)
		return ret;
	snprintf(meta, sizeof(meta), "%s/meta.txt: subbuf_size %u", dir, m->subbuf_size);
	ret = subbuf_agrees(d, m->subbuf_size, meta, err, errlen);
	if (ret) {
		tracefile_decoder_free(d);
		return ret;
	}
	s = stream_alloc(d, m->ncpus, m->subbuf_size, o);
	if (!s) {
		tracefile_decoder_free(d);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->own_decoder = 1;
	s->lo = m->start_ns;
	s->hi = m->end_ns;
	ret = dat_path(dir, dat, sizeof(dat)) ? open_dat(s, dat, m, err, errlen) :
	      open_raw(s, dir, m, err, errlen);
	if (ret) {
		stream_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int tracefile_recorded(const char *dir, uint32_t ncpus, uint8_t *rec,
		       char *err, size_t errlen)
{
	char path[4096];
	struct datfile df;
	struct stat sb;
	int ret;

	if (!dat_path(dir, path, sizeof(path))) {
		for (uint32_t cpu = 0; cpu < ncpus; cpu++) {
			snprintf(path, sizeof(path), "%s/cpu%u.raw", dir, cpu);
			rec[cpu] = !(lstat(path, &sb) && errno == ENOENT);
		}
		return 0;
	}
	ret = datfile_open(path, &df, err, errlen);
	if (ret)
		return ret;
	/* datfile.h: a CPU left out has offset 0 */
	for (uint32_t cpu = 0; cpu < ncpus; cpu++)
		rec[cpu] = cpu < df.h.ncpus && df.off[cpu];
	datfile_free(&df);
	return 0;
}

/* Readers start lazily: the first pages are read by the first next(). */
static int stream_start(struct tf_stream *s, char *err, size_t errlen)
{
	s->started = 1;
	s->advance = -1;
	for (uint32_t i = 0; i < s->nr; i++) {
		int ret = load_page(s, &s->r[i], err, errlen);

		if (ret < 0)
			return ret;
		if (ret)
			s->heap[s->nheap++] = (struct heap_ent){ s->r[i].ev[0].ts, i };
	}
	for (uint32_t i = s->nheap / 2; i-- > 0;)
		sift_down(s, i);
	runner_up(s);
	return 0;
}

/* The next event in time order, decoded in the calling thread. */
static inline __attribute__((always_inline))
int merge_next(struct tf_stream *s, struct tl_event *e, char *err, size_t errlen)
{
	struct cpu_reader *r;
	int ret;

	if (!s->started) {
		ret = stream_start(s, err, errlen);
		if (ret)
			return ret;
	}
	if (s->advance >= 0) {
		/* what was handed out last may point into its page: step
		 * its reader only now */
		int more = 1;

		r = &s->r[s->advance];
		s->advance = -1;
		if (++r->pos == r->nev) {
			ret = load_page(s, r, err, errlen);
			if (ret < 0)
				return ret;
			more = ret;
		}
		if (more) {
			s->heap[0].ts = r->ev[r->pos].ts;
			if (s->nheap > 1 && !earlier(&s->heap[0], &s->next2)) {
				sift_down(s, 0);
				runner_up(s);
			}
		} else {
			s->heap[0] = s->heap[--s->nheap];
			if (s->nheap > 1)
				sift_down(s, 0);
			runner_up(s);
		}
	}
	if (!s->nheap)
		return 0;
	r = &s->r[s->heap[0].cpu];
	*e = r->ev[r->pos];
	s->advance = (int)s->heap[0].cpu;
	return 1;
}

/* The prefetch thread: fills batches until the stream ends or stops. */
static void *prefetch_main(void *arg)
{
	struct tf_stream *s = arg;
	struct tf_prefetch *pf = s->pf;

	for (;;) {
		struct pf_batch *b;
		int ret = 1;

		pthread_mutex_lock(&pf->lock);
		while (pf->full == PF_RING && !pf->stop)
			pthread_cond_wait(&pf->freed, &pf->lock);
		if (pf->stop) {
			pthread_mutex_unlock(&pf->lock);
			return NULL;
		}
		b = &pf->ring[pf->put];
		pthread_mutex_unlock(&pf->lock);

		b->n = b->used = 0;
		b->end = b->ret = 0;
		while (b->n < PF_BATCH && PF_STR - b->used >= STR_MAX) {
			struct tl_event *e = &b->ev[b->n];

			ret = merge_next(s, e, pf->perr, sizeof(pf->perr));
			if (ret <= 0)
				break;
			if (e->str) {
				size_t len = strnlen(e->str, STR_MAX - 1);

				memcpy(b->str + b->used, e->str, len);
				b->str[b->used + len] = '\0';
				e->str = b->str + b->used;
				b->used += len + 1;
			}
			b->n++;
		}
		if (ret <= 0) {
			b->end = 1;
			b->ret = ret;
		}
		pthread_mutex_lock(&pf->lock);
		pf->full++;
		pf->put = (pf->put + 1) % PF_RING;
		pthread_cond_signal(&pf->filled);
		pthread_mutex_unlock(&pf->lock);
		if (b->end)
			return NULL;
	}
}

static void prefetch_free(struct tf_prefetch *pf)
{
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->filled);
	pthread_cond_destroy(&pf->freed);
	free(pf->ring);
	free(pf);
}

/* Starts the thread; on failure the stream decodes in the caller's. */
static void prefetch_start(struct tf_stream *s)
{
	struct tf_prefetch *pf = calloc(1, sizeof(*pf));

	if (!pf)
		return;
	pf->ring = malloc(PF_RING * sizeof(*pf->ring));
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->filled, NULL);
	pthread_cond_init(&pf->freed, NULL);
	s->pf = pf;
	if (!pf->ring || pthread_create(&pf->thread, NULL, prefetch_main, s)) {
		s->pf = NULL;
		prefetch_free(pf);
	}
}

static int prefetch_next(struct tf_prefetch *pf, struct tl_event *e,
			 char *err, size_t errlen)
{
	for (;;) {
		struct pf_batch *b = pf->cur;

		if (b && pf->pos < b->n) {
			*e = b->ev[pf->pos++];
			return 1;
		}
		if (b && b->end) {
			/* every later call says the same */
			if (b->ret < 0)
				snprintf(err, errlen, "%s", pf->perr);
			return b->ret;
		}
		pthread_mutex_lock(&pf->lock);
		if (b) {
			pf->full--;
			pf->take = (pf->take + 1) % PF_RING;
			pthread_cond_signal(&pf->freed);
		}
		while (!pf->full)
			pthread_cond_wait(&pf->filled, &pf->lock);
		pf->cur = &pf->ring[pf->take];
		pf->pos = 0;
		pthread_mutex_unlock(&pf->lock);
	}
}

int tracefile_stream_next(struct tf_stream *s, struct tl_event *e, char *err,
			  size_t errlen)
{
	int ret;

	if (s->o->prefetch && !s->pf && !s->started)
		prefetch_start(s);
	ret = s->pf ? prefetch_next(s->pf, e, err, errlen) :
		      merge_next(s, e, err, errlen);
	if (ret > 0)
		s->o->fed++;
	return ret;
}

void tracefile_stream_close(struct tf_stream *s)
{
	if (s && s->pf) {
		pthread_mutex_lock(&s->pf->lock);
		s->pf->stop = 1;
		pthread_cond_signal(&s->pf->freed);
		pthread_mutex_unlock(&s->pf->lock);
		pthread_join(s->pf->thread, NULL);
		prefetch_free(s->pf);
		s->pf = NULL;
	}
	stream_free(s);
}

int tracefile_decoder_new(const char *dir, struct tf_decoder **out, char *err,
			  size_t errlen)
{
	struct tf_decoder *d = calloc(1, sizeof(*d));
	int ret;

	*out = NULL;
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = decoder_init(d, dir, err, errlen);
	if (ret) {
		tracefile_decoder_free(d);
		return ret;
	}
	*out = d;
	return 0;
}

void tracefile_decoder_free(struct tf_decoder *d)
{
	if (!d)
		return;
	if (d->tep)
		tep_free(d->tep);
	free(d);
}

/* Feeds a stream's events into t; a timeline error other than an event
 * out of order (counted there) stops it. */
static int feed_all(struct tf_stream *s, struct timeline *t, char *err,
		    size_t errlen)
{
	struct tl_event e;
	int ret;

	while ((ret = tracefile_stream_next(s, &e, err, errlen)) > 0) {
		ret = timeline_add(t, &e);
		if (ret && ret != -EINVAL) {
			snprintf(err, errlen, "%s", ret == -E2BIG ?
				 "corrupt trace: more idle states or IRQ numbers than a kernel has" :
				 ret == -ENOMEM ? "out of memory" : strerror(-ret));
			return ret;
		}
	}
	return ret;
}

int tracefile_decode_pages(struct tf_decoder *d, const void *buf, size_t len,
			   uint32_t subbuf, uint32_t cpu, const char *name,
			   struct timeline *t, struct tf_decode *o, char *err,
			   size_t errlen)
{
	struct tf_stream *s;
	int ret;

	if (subbuf < TRACEFILE_MIN_SUBBUF || subbuf > TRACEFILE_MAX_SUBBUF)
		return err_set(err, errlen, "%s: sub-buffer size %u out of range",
			       name, subbuf);
	ret = subbuf_agrees(d, subbuf, name, err, errlen);
	if (ret)
		return ret;
	s = stream_alloc(d, 1, subbuf, o);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->r[0].cpu = cpu;
	s->r[0].name = name;
	s->r[0].buf = buf;
	s->r[0].len = len;
	ret = feed_all(s, t, err, errlen);
	stream_free(s);
	return ret;
}

int tracefile_decode_opts(const char *dir, const struct trace_meta *m,
			  struct timeline *t, struct tf_decode *o, char *err,
			  size_t errlen)
{
	struct tf_stream *s;
	int ret = tracefile_stream_open(dir, m, o, &s, err, errlen);

	if (ret)
		return ret;
	ret = feed_all(s, t, err, errlen);
	tracefile_stream_close(s);
	return ret;
}

long tracefile_decode(const char *dir, const struct trace_meta *m,
		      struct timeline *t, uint64_t *recorded, char *err,
		      size_t errlen)
{
	struct tf_decode o = { 0 };
	int ret = tracefile_decode_opts(dir, m, t, &o, err, errlen);

	if (recorded)
		*recorded = o.recorded;
	return ret ? ret : (long)o.fed;
}
