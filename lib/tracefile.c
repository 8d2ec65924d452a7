// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

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

int tracefile_meta(const char *dir, struct trace_meta *m, char *err,
		   size_t errlen)
{
	char path[4096], line[4096];
	FILE *f;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/meta.txt", dir);
	f = fopen(path, "r");
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "%s: %s (not a wakebench trace directory?)",
			 path, strerror(e));
		return -e;
	}
	if (!fgets(line, sizeof(line), f) || strncmp(line, "wakebench-trace 1", 17)) {
		fclose(f);
		return err_set(err, errlen, "%s: not a wakebench trace (version line)",
			       path);
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned int cpu, idx;
		unsigned long long a, b;
		char name[32];

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "ncpus %u", &cpu) == 1) {
			if (!cpu || cpu > 4096 || m->ncpus) {
				ret = err_set(err, errlen, "%s: bad ncpus", path);
				break;
			}
			m->ncpus = cpu;
			m->names = calloc(cpu, sizeof(*m->names));
			m->overrun = calloc(cpu, sizeof(*m->overrun));
			m->dropped = calloc(cpu, sizeof(*m->dropped));
			if (!m->names || !m->overrun || !m->dropped) {
				ret = -ENOMEM;
				snprintf(err, errlen, "out of memory");
				break;
			}
		} else if (sscanf(line, "start_ns %llu", &a) == 1) {
			m->start_ns = a;
		} else if (sscanf(line, "end_ns %llu", &a) == 1) {
			m->end_ns = a;
		} else if (sscanf(line, "subbuf_size %u", &idx) == 1) {
			m->subbuf_size = idx;
		} else if (sscanf(line, "clock %15s", m->clock) == 1) {
			continue;
		} else if (sscanf(line, "idle_driver %63s", m->driver) == 1) {
			continue;
		} else if (sscanf(line, "state %u %u %31s", &cpu, &idx, name) == 3) {
			if (cpu < m->ncpus && idx < TRACEFILE_MAX_STATES)
				snprintf(m->names[cpu][idx], 32, "%s", name);
		} else if (sscanf(line, "missed %u %llu %llu", &cpu, &a, &b) == 3) {
			if (cpu < m->ncpus) {
				m->overrun[cpu] = a;
				m->dropped[cpu] = b;
			}
		}
	}
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

static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

struct decoder {
	struct tep_handle *tep;
	int idle_id, irq_entry_id, irq_exit_id, print_id;
	struct tep_format_field *idle_state, *irq_entry_irq, *irq_entry_name;
	struct tep_format_field *irq_exit_irq, *print_buf;
};

static int load_event(struct decoder *d, const char *dir, const char *sys,
		      const char *name)
{
	char path[4096];
	size_t len;
	char *buf;
	struct tep_event *ev = NULL;
	int ret;

	snprintf(path, sizeof(path), "%s/formats/%s/%s/format", dir, sys, name);
	buf = slurp(path, &len);
	if (!buf)
		return -1;	/* not recorded */
	ret = tep_parse_format(d->tep, &ev, buf, len, sys);
	free(buf);
	return ret || !ev ? -1 : ev->id;
}

static struct tep_format_field *field(struct tep_handle *tep, int id,
				      const char *name)
{
	struct tep_event *ev = id >= 0 ? tep_find_event(tep, id) : NULL;

	return ev ? tep_find_field(ev, name) : NULL;
}

static int decoder_init(struct decoder *d, const char *dir, char *err,
			size_t errlen)
{
	char path[4096];
	size_t len;
	char *hp;

	memset(d, 0, sizeof(*d));
	d->tep = tep_alloc();
	if (!d->tep)
		return -ENOMEM;
	tep_set_file_bigendian(d->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(d->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(d->tep, sizeof(long));
	snprintf(path, sizeof(path), "%s/formats/header_page", dir);
	hp = slurp(path, &len);
	if (!hp)
		return err_set(err, errlen, "%s: missing", path);
	if (tep_parse_header_page(d->tep, hp, len, sizeof(long))) {
		free(hp);
		return err_set(err, errlen, "%s: cannot parse", path);
	}
	free(hp);
	d->idle_id = load_event(d, dir, "power", "cpu_idle");
	d->irq_entry_id = load_event(d, dir, "irq", "irq_handler_entry");
	d->irq_exit_id = load_event(d, dir, "irq", "irq_handler_exit");
	d->print_id = load_event(d, dir, "ftrace", "print");
	d->idle_state = field(d->tep, d->idle_id, "state");
	d->irq_entry_irq = field(d->tep, d->irq_entry_id, "irq");
	d->irq_entry_name = field(d->tep, d->irq_entry_id, "name");
	d->irq_exit_irq = field(d->tep, d->irq_exit_id, "irq");
	d->print_buf = field(d->tep, d->print_id, "buf");
	if (d->idle_id < 0 || !d->idle_state)
		return err_set(err, errlen, "%s: no power:cpu_idle format", dir);
	return 0;
}

static uint32_t num(struct tep_format_field *f, void *data)
{
	unsigned long long v = 0;

	if (f)
		tep_read_number_field(f, data, &v);
	return (uint32_t)v;
}

/* A string field: __data_loc (dynamic) or a trailing char[]. */
static void str(struct tep_format_field *f, void *data, int size, char *out,
		size_t len)
{
	const char *p;
	size_t max;

	out[0] = '\0';
	if (!f)
		return;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc = num(f, data);

		if ((int)(loc & 0xffff) >= size)
			return;
		p = (const char *)data + (loc & 0xffff);
		max = loc >> 16;
		if ((loc & 0xffff) + max > (size_t)size)
			max = (size_t)size - (loc & 0xffff);
	} else {
		if (f->offset >= size)
			return;
		p = (const char *)data + f->offset;
		max = (size_t)(size - f->offset);
	}
	if (max >= len)
		max = len - 1;
	memcpy(out, p, max);
	out[max] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

static long decode_cpu(struct decoder *d, const char *path, uint32_t cpu,
		       uint32_t subbuf, struct timeline *t, uint64_t *recorded)
{
	struct kbuffer *kb = tep_kbuffer(d->tep);
	char *page = malloc(subbuf);
	long events = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !page || !kb) {
		if (fd >= 0)
			close(fd);
		free(page);
		kbuffer_free(kb);
		return fd < 0 ? 0 : -ENOMEM;	/* a CPU with no file: no data */
	}
	while (read(fd, page, subbuf) == (ssize_t)subbuf) {
		unsigned long long ts;
		void *data;

		if (kbuffer_load_subbuffer(kb, page))
			continue;
		for (data = kbuffer_read_event(kb, &ts); data;
		     data = kbuffer_next_event(kb, &ts)) {
			struct tep_record rec = { .ts = ts, .data = data,
						  .size = kbuffer_event_size(kb),
						  .cpu = (int)cpu };
			struct tl_event e = { .ts = ts, .cpu = cpu };
			char s[256];
			int id = tep_data_type(d->tep, &rec);

			(*recorded)++;
			if (id == d->idle_id) {
				e.type = TL_IDLE;
				e.arg = num(d->idle_state, data);
			} else if (id == d->irq_entry_id) {
				e.type = TL_IRQ_ENTRY;
				e.arg = num(d->irq_entry_irq, data);
				str(d->irq_entry_name, data, rec.size, s, sizeof(s));
				e.str = s;
			} else if (id == d->irq_exit_id) {
				e.type = TL_IRQ_EXIT;
				e.arg = num(d->irq_exit_irq, data);
			} else if (id == d->print_id) {
				e.type = TL_MARKER;
				str(d->print_buf, data, rec.size, s, sizeof(s));
				e.str = s;
			} else {
				continue;
			}
			if (timeline_add(t, &e) == -ENOMEM) {
				events = -ENOMEM;
				goto out;
			}
			events++;
		}
	}
out:
	close(fd);
	free(page);
	kbuffer_free(kb);
	return events;
}

long tracefile_decode(const char *dir, const struct trace_meta *m,
		      struct timeline *t, uint64_t *recorded, char *err,
		      size_t errlen)
{
	struct decoder d;
	long total = 0;
	uint64_t all = 0;
	int ret = decoder_init(&d, dir, err, errlen);

	if (ret)
		goto out;
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		char path[4096];
		long n;

		snprintf(path, sizeof(path), "%s/cpu%u.raw", dir, cpu);
		n = decode_cpu(&d, path, cpu, m->subbuf_size, t, &all);
		if (n < 0) {
			ret = (int)n;
			snprintf(err, errlen, "%s: %s", path, strerror((int)-n));
			goto out;
		}
		total += n;
	}
out:
	if (d.tep)
		tep_free(d.tep);
	if (recorded)
		*recorded = all;
	return ret ? ret : total;
}
