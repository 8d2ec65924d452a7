// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "energy.h"
#include "errmsg.h"
#include "perfpmu.h"
#include "sysfs.h"

#define POWERCAP "class/powercap"

static int cmp_zone(const void *a, const void *b)
{
	return strcmp(((const struct energy_zone *)a)->path,
		      ((const struct energy_zone *)b)->path);
}

/*
 * The readable intel-rapl zones. Returns how many; 0 with why in msg
 * (short: it goes inside energy_open's note).
 */
static int powercap_open(struct energy *e, char *msg, size_t msglen)
{
	char dir[4096];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", sysfs_root(), POWERCAP);
	d = opendir(dir);
	if (!d) {
		errmsg_set(msg, msglen, "no %s", dir);
		return 0;
	}
	while ((de = readdir(d)) && e->n < ENERGY_MAX_ZONES) {
		struct energy_zone *z = &e->z[e->n];
		uint64_t v;

		/* intel-rapl:0, intel-rapl:0:1 (not the intel-rapl
		 * control type itself, which has no counter) */
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "intel-rapl:", 11) || len >= sizeof(z->path))
			continue;
		memcpy(z->path, de->d_name, len + 1);
		if (sysfs_read(z->name, sizeof(z->name), POWERCAP "/%s/name", z->path) < 0) {
			/* no name file: the zone's directory name, cut to fit */
			len = len < sizeof(z->name) - 1 ? len : sizeof(z->name) - 1;
			memcpy(z->name, z->path, len);
			z->name[len] = '\0';
		}
		if (sysfs_read_u64(&z->max_uj, POWERCAP "/%s/max_energy_range_uj",
				   z->path) < 0)
			z->max_uj = 0;
		if (sysfs_read_u64(&v, POWERCAP "/%s/energy_uj", z->path) < 0)
			continue;	/* no readable counter: not a domain */
		z->package = !strncmp(z->name, "package", 7);
		z->fd = -1;
		e->n++;
	}
	closedir(d);
	if (!e->n) {
		errmsg_set(msg, msglen, "no readable intel-rapl zone in %s", dir);
		return 0;
	}
	qsort(e->z, e->n, sizeof(e->z[0]), cmp_zone);
	for (unsigned i = 0; i < e->n; i++)
		if (e->z[i].package)
			return (int)e->n;
	errmsg_set(msg, msglen, "no readable intel-rapl package zone in %s", dir);
	return 0;
}

/* A power event's zone name, as powercap names the same domain. */
static void perf_zone_name(const char *event, const char *pkg, char *name, size_t len)
{
	static const char *const map[][2] = {
		{ "energy-cores", "core" }, { "energy-gpu", "uncore" },
		{ "energy-ram", "dram" }, { "energy-psys", "psys" },
	};

	if (!strcmp(event, "energy-pkg")) {
		errmsg_set(name, len, "package-%s", pkg);
		return;
	}
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(event, map[i][0])) {
			errmsg_set(name, len, "%s", map[i][1]);
			return;
		}
	errmsg_set(name, len, "%s", event + 7);	/* after "energy-" */
}

/*
 * The packages to count on: the power PMU's cpumask, else the first
 * CPU of each topology package. label[i]: the package id ("0"; "0.1"
 * for a package's second CPU in the cpumask: a die of its own).
 */
static int perf_cpus(int *cpus, char (*label)[12], int max, char *msg, size_t msglen)
{
	int pkg[ENERGY_MAX_ZONES];
	int n = perfpmu_cpumask("power", cpus, max, msg, msglen);

	if (n == -ENOENT) {
		n = perfpmu_package_cpus(cpus, pkg, max, msg, msglen);
	} else {
		for (int i = 0; i < n; i++) {
			pkg[i] = perfpmu_package_of(cpus[i]);
			if (pkg[i] < 0)
				pkg[i] = i;	/* no topology: the mask's order */
		}
	}
	for (int i = 0; i < n; i++) {
		int dup = 0;

		for (int j = 0; j < i; j++)
			dup += pkg[j] == pkg[i];
		if (dup)
			errmsg_set(label[i], sizeof(label[0]), "%d.%d", pkg[i], dup);
		else
			errmsg_set(label[i], sizeof(label[0]), "%d", pkg[i]);
	}
	return n;
}

static void perf_close_from(struct energy *e, unsigned from)
{
	const struct perfpmu_ops *ops = perfpmu_ops();

	for (unsigned i = from; i < e->n; i++)
		if (e->z[i].fd >= 0)
			ops->close(e->z[i].fd);
	e->n = e->nfds = from;
}

/*
 * The perf power PMU's events on every package. Returns the number of
 * zones; 0 with why in msg (no PMU, refused, no package counter); or
 * -errno with why in msg (a sysfs value that does not parse).
 */
static int perf_open(struct energy *e, char *msg, size_t msglen)
{
	char names[16][PERFPMU_NAME_LEN], label[ENERGY_MAX_ZONES][12];
	char why[300] = "", err[600];
	int cpus[ENERGY_MAX_ZONES];
	int nev, ncpu, pkg_seen = 0, ret;
	uint32_t type;

	ret = perfpmu_type("power", &type, err, sizeof(err));
	if (ret == -ENODEV) {
		errmsg_set(msg, msglen, "no perf power PMU");
		return 0;
	}
	if (ret) {
		errmsg_set(msg, msglen, "perf power PMU: %s", err);
		return ret;
	}
	nev = perfpmu_list("power", "energy-", "", names, 16);
	if (nev <= 0) {
		errmsg_set(msg, msglen, "the perf power PMU lists no energy-* event");
		return 0;
	}
	/* the package event first: the zones' room goes to it before the rest */
	for (int k = 1; k < nev; k++)
		if (!strcmp(names[k], "energy-pkg")) {
			char t[PERFPMU_NAME_LEN];

			memcpy(t, names[0], sizeof(t));
			memcpy(names[0], names[k], sizeof(t));
			memcpy(names[k], t, sizeof(t));
		}
	ncpu = perf_cpus(cpus, label, ENERGY_MAX_ZONES, err, sizeof(err));
	if (ncpu <= 0) {
		errmsg_set(msg, msglen, "perf power PMU: %s", ncpu ? err : "no CPU to count on");
		return ncpu ? ncpu : 0;
	}
	for (int k = 0; k < nev; k++) {
		struct perfpmu_event ev;
		unsigned first = e->n;

		ret = perfpmu_event("power", names[k], &ev, err, sizeof(err));
		if (ret == -ENOENT)
			continue;	/* gone since the listing */
		if (!ret && (!ev.has_scale || strcmp(ev.unit, "Joules"))) {
			errmsg_set(err, sizeof(err), "power/%s/: %s", ev.name, !ev.has_scale ?
				   "no scale (joules per count)" : "its unit is not Joules");
			ret = -EINVAL;
		}
		if (ret) {
			perf_close_from(e, 0);
			errmsg_set(msg, msglen, "perf power PMU: %s", err);
			return ret;
		}
		if (e->n + (unsigned)ncpu > ENERGY_MAX_ZONES)
			continue;	/* all its packages or none: no partial sum */
		for (int c = 0; c < ncpu; c++) {
			struct energy_zone *z = &e->z[e->n];
			int fd = perfpmu_open(&ev, cpus[c]);

			if (fd == -EACCES || fd == -EPERM) {
				perf_close_from(e, 0);
				perfpmu_strerror(fd, err, sizeof(err));
				errmsg_set(msg, msglen, "perf power/%s/: %s", ev.name, err);
				return 0;
			}
			if (fd < 0) {
				/* not counted here: the event goes, on every package */
				perfpmu_strerror(fd, err, sizeof(err));
				if (!why[0] || !strcmp(ev.name, "energy-pkg"))
					errmsg_set(why, sizeof(why), "perf power/%s/ on CPU %d: %s",
						   ev.name, cpus[c], err);
				perf_close_from(e, first);
				break;
			}
			memset(z, 0, sizeof(*z));
			errmsg_set(z->path, sizeof(z->path), "%s:%s", ev.name, label[c]);
			perf_zone_name(ev.name, label[c], z->name, sizeof(z->name));
			z->package = !strcmp(ev.name, "energy-pkg");
			z->fd = fd;
			z->cpu = cpus[c];
			z->scale = ev.scale;
			e->n++;
			e->nfds = e->n;
		}
		for (unsigned i = first; i < e->n; i++)
			pkg_seen |= e->z[i].package;
	}
	if (!pkg_seen) {
		perf_close_from(e, 0);
		errmsg_set(msg, msglen, "%s", why[0] ? why : "the perf power PMU has no energy-pkg event");
		return 0;
	}
	return (int)e->n;
}

int energy_open(struct energy *e, char *msg, size_t msglen)
{
	char pc[300], pf[600];
	int ret;

	memset(e, 0, sizeof(*e));
	if (powercap_open(e, pc, sizeof(pc)) > 0) {
		e->source = ENERGY_POWERCAP;
		return (int)e->n;
	}
	memset(e, 0, sizeof(*e));
	ret = perf_open(e, pf, sizeof(pf));
	if (ret > 0) {
		e->source = ENERGY_PERF;
		return ret;
	}
	memset(e, 0, sizeof(*e));
	if (ret < 0) {
		errmsg_set(msg, msglen, "%s", pf);
		return ret;
	}
	errmsg_set(msg, msglen, "no RAPL energy counters here (%s; %s)", pc, pf);
	return 0;
}

void energy_close(struct energy *e)
{
	const struct perfpmu_ops *ops = perfpmu_ops();

	if (e->source != ENERGY_PERF)
		return;
	for (unsigned i = 0; i < e->nfds && i < ENERGY_MAX_ZONES; i++)
		if (e->z[i].fd >= 0) {
			ops->close(e->z[i].fd);
			e->z[i].fd = -1;
		}
	e->nfds = 0;
}

const char *energy_source_name(const struct energy *e)
{
	return e->source == ENERGY_POWERCAP ? "powercap" :
	       e->source == ENERGY_PERF ? "perf" : "none";
}

static int read_all(struct energy *e, int stop, char *msg, size_t msglen)
{
	const struct perfpmu_ops *ops = perfpmu_ops();

	for (unsigned i = 0; i < e->n; i++) {
		struct energy_zone *z = &e->z[i];
		uint64_t v;
		int ret;

		if (e->source == ENERGY_PERF) {
			ret = z->fd >= 0 ? ops->read(z->fd, &v) : -EBADF;
			if (ret < 0) {
				errmsg_set(msg, msglen, "cannot read perf power/%s/ on CPU %d: %s",
					   z->path, z->cpu, strerror(-ret));
				return ret;
			}
			if (!stop) {
				z->start_count = v;
				continue;
			}
			/* 64-bit counts (the kernel extends the MSR's 32) */
			z->delta_count = v - z->start_count;
			z->joules = (double)z->delta_count * z->scale;
			z->delta_uj = (uint64_t)llround(z->joules * 1e6);
			continue;
		}
		ret = sysfs_read_u64(&v, POWERCAP "/%s/energy_uj", z->path);
		if (ret < 0) {
			errmsg_set(msg, msglen, "cannot read %s/%s/%s/energy_uj: %s",
				   sysfs_root(), POWERCAP, z->path, strerror(-ret));
			return ret;
		}
		if (stop) {
			z->delta_uj = energy_delta_uj(z->start_uj, v, z->max_uj);
			z->joules = (double)z->delta_uj / 1e6;
		} else {
			z->start_uj = v;
		}
	}
	if (stop)
		e->stop_ns = clock_now_ns();
	else
		e->start_ns = clock_now_ns();
	return 0;
}

int energy_start(struct energy *e, char *msg, size_t msglen)
{
	return read_all(e, 0, msg, msglen);
}

int energy_stop(struct energy *e, char *msg, size_t msglen)
{
	return read_all(e, 1, msg, msglen);
}

uint64_t energy_delta_uj(uint64_t start, uint64_t end, uint64_t max_uj)
{
	if (end >= start)
		return end - start;
	/* wrapped: the counter counts 0 .. max_uj */
	return max_uj >= start ? max_uj - start + end + 1 : end;
}

double energy_total_j(const struct energy *e)
{
	double j = 0;

	for (unsigned i = 0; i < e->n; i++)
		if (e->z[i].package)
			j += e->z[i].joules;
	return j;
}
