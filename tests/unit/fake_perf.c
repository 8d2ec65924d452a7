// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fake_perf.h"
#include "perfpmu.h"
#include "unit.h"

#define MAX_FAKE 128
#define FD0 1000	/* fake fds: FD0 + index, never a real one */

static struct fake_counter fk[MAX_FAKE];
static int nfk, phase, opens;
static unsigned char is_open[MAX_FAKE];
static int tsc_err = -ENOTSUP, tsc_reads;
static uint64_t tsc_start, tsc_delta;

static void mkdirs(const char *path)
{
	char tmp[1024];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
	mkdir(tmp, 0755);
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024];
	char *slash;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	unit_put(path, text);
}

void fake_pmu(const char *root, const char *pmu, const char *type, const char *cpumask)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/type", pmu);
	put(root, rel, type);
	if (cpumask) {
		snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/cpumask", pmu);
		put(root, rel, cpumask);
	}
}

void fake_pmu_event(const char *root, const char *pmu, const char *name,
		    const char *text, const char *scale, const char *unit)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/events/%s", pmu, name);
	put(root, rel, text);
	if (scale) {
		snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/events/%s.scale",
			 pmu, name);
		put(root, rel, scale);
	}
	if (unit) {
		snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/events/%s.unit",
			 pmu, name);
		put(root, rel, unit);
	}
}

void fake_pmu_format(const char *root, const char *pmu, const char *term,
		     const char *text)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/format/%s", pmu, term);
	put(root, rel, text);
}

void fake_topology(const char *root, const char *online, const int *pkg, int n)
{
	char rel[256], v[32];

	put(root, "devices/system/cpu/online", online);
	for (int i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%d/topology/physical_package_id", i);
		snprintf(v, sizeof(v), "%d\n", pkg[i]);
		put(root, rel, v);
	}
}

static int f_open(const struct perf_event_attr *attr, int cpu)
{
	opens++;
	ck_assert_uint_eq(attr->size, sizeof(*attr));
	for (int i = 0; i < nfk; i++) {
		if (fk[i].type != attr->type || fk[i].config != attr->config ||
		    fk[i].cpu != cpu)
			continue;
		if (fk[i].open_err)
			return fk[i].open_err;
		ck_assert(!is_open[i]);	/* one counter, opened once */
		is_open[i] = 1;
		return FD0 + i;
	}
	return -ENOENT;	/* the kernel: no such event on that PMU */
}

static int f_read(int fd, uint64_t *v)
{
	int i = fd - FD0;

	ck_assert(i >= 0 && i < nfk && is_open[i]);
	if (fk[i].read_err)
		return fk[i].read_err;
	*v = fk[i].value[phase];
	return 0;
}

static void f_close(int fd)
{
	int i = fd - FD0;

	ck_assert(i >= 0 && i < nfk && is_open[i]);
	is_open[i] = 0;
}

static int f_tsc(uint64_t *v)
{
	if (tsc_err)
		return tsc_err;
	*v = tsc_start + (phase ? tsc_delta : 0);
	tsc_reads++;
	return 0;
}

static const struct perfpmu_ops fake_ops = {
	.open = f_open, .read = f_read, .close = f_close, .tsc = f_tsc,
};

void fake_perf_install(const struct fake_counter *c, int n)
{
	ck_assert_int_le(n, MAX_FAKE);
	memcpy(fk, c, (size_t)n * sizeof(*c));
	nfk = n;
	phase = 0;
	opens = 0;
	memset(is_open, 0, sizeof(is_open));
	tsc_err = -ENOTSUP;
	perfpmu_set_ops(&fake_ops);
}

void fake_perf_phase(int p)
{
	phase = p;
}

void fake_perf_tsc(int err, uint64_t start, uint64_t delta)
{
	tsc_err = err;
	tsc_start = start;
	tsc_delta = delta;
}

int fake_perf_open_fds(void)
{
	int n = 0;

	for (int i = 0; i < nfk; i++)
		n += is_open[i];
	return n;
}

int fake_perf_opens(void)
{
	return opens;
}

void fake_perf_remove(void)
{
	perfpmu_set_ops(NULL);
}
