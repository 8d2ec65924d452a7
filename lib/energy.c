// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "energy.h"
#include "errmsg.h"
#include "sysfs.h"

#define POWERCAP "class/powercap"

static int cmp_zone(const void *a, const void *b)
{
	return strcmp(((const struct energy_zone *)a)->path,
		      ((const struct energy_zone *)b)->path);
}

int energy_open(struct energy *e, char *msg, size_t msglen)
{
	char dir[4096];
	struct dirent *de;
	DIR *d;

	memset(e, 0, sizeof(*e));
	snprintf(dir, sizeof(dir), "%s/%s", sysfs_root(), POWERCAP);
	d = opendir(dir);
	if (!d) {
		errmsg_set(msg, msglen, "no RAPL energy counters here (no %s)", dir);
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
		e->n++;
	}
	closedir(d);
	if (!e->n) {
		errmsg_set(msg, msglen, "no RAPL energy counters here (no readable intel-rapl zone in %s)",
			   dir);
		return 0;
	}
	qsort(e->z, e->n, sizeof(e->z[0]), cmp_zone);
	return (int)e->n;
}

static int read_all(struct energy *e, int stop, char *msg, size_t msglen)
{
	for (unsigned i = 0; i < e->n; i++) {
		struct energy_zone *z = &e->z[i];
		uint64_t v;
		int ret = sysfs_read_u64(&v, POWERCAP "/%s/energy_uj", z->path);

		if (ret < 0) {
			errmsg_set(msg, msglen, "cannot read %s/%s/%s/energy_uj: %s",
				   sysfs_root(), POWERCAP, z->path, strerror(-ret));
			return ret;
		}
		if (stop)
			z->delta_uj = energy_delta_uj(z->start_uj, v, z->max_uj);
		else
			z->start_uj = v;
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
	uint64_t uj = 0;

	for (unsigned i = 0; i < e->n; i++)
		if (e->z[i].package)
			uj += e->z[i].delta_uj;
	return (double)uj / 1e6;
}
