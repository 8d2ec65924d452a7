// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpuset.h"
#include "csv.h"
#include "govstat.h"
#include "json.h"
#include "residency.h"
#include "sysfs.h"

#define STATE_DIR "devices/system/cpu/cpu%d/cpuidle/state%d"

const char *const govstat_file[GOVSTAT_NCTR] = {
	"usage", "time", "above", "below", "rejected",
};

const char *const govstat_col[GOVSTAT_NCTR] = {
	"usage", "time_us", "above", "below", "rejected",
};

/* Appends "; text" (or text) to a note, cut at its size. */
__attribute__((format(printf, 2, 3)))
static void note_add(char *note, const char *fmt, ...)
{
	size_t n = strlen(note);
	va_list ap;

	if (n + 3 >= GOVSTAT_NOTE_LEN)
		return;
	if (n)
		n += (size_t)snprintf(note + n, GOVSTAT_NOTE_LEN - n, "; ");
	va_start(ap, fmt);
	vsnprintf(note + n, GOVSTAT_NOTE_LEN - n, fmt, ap);
	va_end(ap);
}

/*
 * A state's name: 1 to IDLESTATE_NAME_LEN - 1 printable ASCII bytes (the
 * kernel's are at most 15). 1 when read and valid, 0 when there is no
 * such state, -EINVAL for a name that is not one.
 */
static int read_name(int cpu, int idx, char *name)
{
	char buf[128];
	int n = sysfs_read(buf, sizeof(buf), STATE_DIR "/name", cpu, idx);

	if (n < 0)
		return 0;
	if (n == 0 || n >= IDLESTATE_NAME_LEN)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e)
			return -EINVAL;
	memcpy(name, buf, (size_t)n + 1);
	return 1;
}

/* One CPU's states; 0, or -EINVAL with the note saying why. */
static int snap_cpu(struct govstat_cpu *c, int cpu, char *note)
{
	char more[IDLESTATE_NAME_LEN];
	int idx, r;

	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	for (idx = 0; idx < GOVSTAT_MAX_STATES; idx++) {
		r = read_name(cpu, idx, c->name[idx]);
		if (r < 0) {
			note_add(note, "cpu%d state%d: its name is not a name: CPU left out",
				 cpu, idx);
			return -EINVAL;
		}
		if (!r)
			break;
		for (int k = 0; k < GOVSTAT_NCTR; k++) {
			/* strict decimal (sysfs_read_u64): junk is unknown */
			if (!sysfs_read_u64(&c->v[idx][k], STATE_DIR "/%s", cpu, idx,
					    govstat_file[k]))
				c->have[idx] |= (unsigned char)(1u << k);
		}
	}
	if (idx == GOVSTAT_MAX_STATES && read_name(cpu, idx, more) != 0) {
		note_add(note, "cpu%d: more than %d idle states: CPU left out",
			 cpu, GOVSTAT_MAX_STATES);
		return -EINVAL;
	}
	c->nstates = idx;
	return 0;
}

int govstat_snap(struct govstat_snap *s, const struct cpuset *cpus)
{
	int max = cpus ? cpus->n : idlestate_cpu_count();
	int count = cpus ? cpuset_count(cpus) : max;

	memset(s, 0, sizeof(*s));
	idlestate_driver(s->driver, sizeof(s->driver));
	idlestate_governor(s->governor, sizeof(s->governor));
	s->cpu = calloc(count > 0 ? (size_t)count : 1, sizeof(*s->cpu));
	if (!s->cpu)
		return -ENOMEM;
	for (int cpu = cpus ? cpuset_next(cpus, 0) : 0;
	     cpu >= 0 && cpu < max && s->n < count;
	     cpu = cpus ? cpuset_next(cpus, cpu + 1) : cpu + 1) {
		struct govstat_cpu *c = &s->cpu[s->n];

		if (!snap_cpu(c, cpu, s->note) && c->nstates)
			s->n++;
	}
	if (!s->n && !s->note[0])
		note_add(s->note, "%s", !strcmp(s->driver, "none") ? GOVSTAT_NO_DRIVER :
			 "no idle states on the measured CPUs");
	return 0;
}

void govstat_free(struct govstat_snap *s)
{
	free(s->cpu);
	s->cpu = NULL;
	s->n = 0;
}

/* The CPU in a snapshot (kept in CPU order), or NULL. */
static const struct govstat_cpu *find_cpu(const struct govstat_snap *s, int cpu)
{
	int lo = 0, hi = s->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (s->cpu[mid].cpu == cpu)
			return &s->cpu[mid];
		if (s->cpu[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The state's slot in d, added with every counter known; -1 when full. */
static int slot(struct govstat_delta *d, const char *name)
{
	for (int i = 0; i < d->nstates; i++)
		if (!strcmp(d->st[i].name, name))
			return i;
	if (d->nstates == GOVSTAT_MAX_STATES)
		return -1;
	snprintf(d->st[d->nstates].name, sizeof(d->st[0].name), "%s", name);
	d->st[d->nstates].have = (1u << GOVSTAT_NCTR) - 1;
	return d->nstates++;
}

/* What went wrong while summing, said once each in the note. */
struct faults {
	unsigned char unread;	/* bit k: counter k missing somewhere */
	int backwards, overflow, changed, gone;
};

static void add_cpu(struct govstat_delta *d, const struct govstat_cpu *x,
		    const struct govstat_cpu *y, struct faults *f)
{
	for (int i = 0; i < x->nstates; i++) {
		int s = slot(d, x->name[i]);

		for (int k = 0; s >= 0 && k < GOVSTAT_NCTR; k++) {
			unsigned char bit = (unsigned char)(1u << k);
			uint64_t *sum = &d->st[s].v[k];

			if (!(x->have[i] & y->have[i] & bit)) {
				f->unread |= bit;
				d->st[s].have &= (unsigned char)~bit;
			} else if (y->v[i][k] < x->v[i][k]) {
				/* reset by hot-plug or a driver reload: the
				 * difference means nothing */
				if (!f->backwards++)
					note_add(d->note, "cpu%d %s %s went backwards (CPU offlined or driver reloaded?): left empty",
						 x->cpu, x->name[i], govstat_file[k]);
				d->st[s].have &= (unsigned char)~bit;
			} else if (__builtin_add_overflow(*sum, y->v[i][k] - x->v[i][k], sum)) {
				if (!f->overflow++)
					note_add(d->note, "%s %s: the sum overflows: left empty",
						 x->name[i], govstat_file[k]);
				d->st[s].have &= (unsigned char)~bit;
			}
		}
	}
}

static int same_states(const struct govstat_cpu *x, const struct govstat_cpu *y)
{
	if (x->nstates != y->nstates)
		return 0;
	for (int i = 0; i < x->nstates; i++)
		if (strcmp(x->name[i], y->name[i]))
			return 0;
	return 1;
}

static void fault_notes(struct govstat_delta *d, const struct faults *f)
{
	if (f->changed)
		note_add(d->note, "%d CPU(s) changed idle states during the window: left out",
			 f->changed);
	if (f->gone)
		note_add(d->note, "%d CPU(s) lost their idle states during the window: left out",
			 f->gone);
	for (int k = 0; k < GOVSTAT_NCTR; k++)
		if (f->unread & (1u << k))
			note_add(d->note, "%s: not readable on every CPU (older kernel?): left empty",
				 govstat_file[k]);
}

int govstat_delta(const struct govstat_snap *a, const struct govstat_snap *b,
		  int cpu, struct govstat_delta *d)
{
	struct faults f = { 0 };

	memset(d, 0, sizeof(*d));
	snprintf(d->driver, sizeof(d->driver), "%s", b->driver);
	snprintf(d->governor, sizeof(d->governor), "%s", b->governor);
	if (a->note[0])
		note_add(d->note, "%s", a->note);
	if (b->note[0] && strcmp(a->note, b->note))
		note_add(d->note, "%s", b->note);
	for (int i = 0; i < a->n; i++) {
		const struct govstat_cpu *x = &a->cpu[i], *y;

		if (cpu >= 0 && x->cpu != cpu)
			continue;
		y = find_cpu(b, x->cpu);
		if (!y) {
			f.gone++;
		} else if (!same_states(x, y)) {
			f.changed++;
		} else {
			add_cpu(d, x, y, &f);
			d->ncpus++;
		}
	}
	fault_notes(d, &f);
	if (!d->ncpus) {
		d->nstates = 0;
		if (cpu >= 0 && a->n)
			note_add(d->note, "cpu%d has no idle states", cpu);
		else if (!d->note[0])
			note_add(d->note, "no idle states on the measured CPUs");
	}
	return d->nstates;
}

int govstat_csv_header(const struct govstat_delta *d, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (int i = 0; i < d->nstates; i++) {
		char col[IDLESTATE_NAME_LEN];

		residency_colname(d->st[i].name, col, sizeof(col));
		for (int k = 0; k < GOVSTAT_NCTR; k++) {
			int w = snprintf(buf + n, len - n, ",%s_%s", govstat_col[k], col);

			if (w < 0 || (size_t)w >= len - n)
				return -ENOSPC;
			n += (size_t)w;
		}
	}
	return 0;
}

void govstat_csv_row(struct csv *c, const struct govstat_delta *d)
{
	for (int i = 0; i < d->nstates; i++)
		for (int k = 0; k < GOVSTAT_NCTR; k++) {
			if (d->st[i].have & (1u << k))
				csv_u64(c, d->st[i].v[k]);
			else
				csv_empty(c);
		}
}

void govstat_json(struct json *j, const char *key, const struct govstat_delta *d,
		  const char *cpus)
{
	json_obj_begin(j, key);
	json_str(j, "driver", d->driver);
	json_str(j, "governor", d->governor);
	json_str(j, "cpus", cpus);
	json_u64(j, "cpus_counted", (uint64_t)d->ncpus);
	json_str(j, "note", d->note[0] ? d->note : NULL);
	json_arr_begin(j, "states");
	for (int i = 0; i < d->nstates; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "name", d->st[i].name);
		for (int k = 0; k < GOVSTAT_NCTR; k++) {
			if (d->st[i].have & (1u << k))
				json_u64(j, govstat_col[k], d->st[i].v[k]);
			else
				json_str(j, govstat_col[k], NULL);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

void govstat_text(const struct govstat_delta *d, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int i = 0; i < d->nstates && n < len; i++) {
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      d->st[i].name);
		for (int k = 0; k < GOVSTAT_NCTR && n < len; k++) {
			if (d->st[i].have & (1u << k))
				n += (size_t)snprintf(buf + n, len - n, " %s %llu",
						      govstat_col[k],
						      (unsigned long long)d->st[i].v[k]);
			else
				n += (size_t)snprintf(buf + n, len - n, " %s -",
						      govstat_col[k]);
		}
	}
}
