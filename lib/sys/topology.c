// SPDX-License-Identifier: GPL-2.0
/*
 * topology: a CPU's package, die, core and SMT siblings, and the default
 * placement of the server and the client (see topology.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "errmsg.h"
#include "sysfs.h"
#include "topology.h"

/*
 * A topology id: a whole number below 2^31, or -1 (what the kernel shows
 * where it does not know, and what an absent file gives).
 */
static int read_id(int cpu, const char *name, int *v)
{
	char buf[32], *end;
	long n;
	int ret;

	ret = sysfs_read(buf, sizeof(buf), "devices/system/cpu/cpu%d/topology/%s",
			 cpu, name);
	if (ret == -ENOENT) {
		*v = -1;
		return 0;
	}
	if (ret < 0)
		return ret;
	if (!strcmp(buf, "-1")) {
		*v = -1;
		return 0;
	}
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	n = strtol(buf, &end, 10);
	if (errno || *end || n > INT32_MAX)
		return -EINVAL;
	*v = (int)n;
	return 0;
}

int topology_get(int cpu, struct topology_cpu *t)
{
	char buf[64];
	int ret;

	memset(t, 0, sizeof(*t));
	t->cpu = cpu;
	t->package = t->die = t->core = -1;
	if (cpu < 0)
		return -ENOENT;
	if (sysfs_read(buf, sizeof(buf), "devices/system/cpu/cpu%d/topology/core_id",
		       cpu) == -ENOENT)
		return -ENOENT;
	ret = read_id(cpu, "physical_package_id", &t->package);
	if (!ret)
		ret = read_id(cpu, "die_id", &t->die);
	if (!ret)
		ret = read_id(cpu, "core_id", &t->core);
	if (ret)
		return ret;
	if (sysfs_read(buf, sizeof(buf),
		       "devices/system/cpu/cpu%d/topology/thread_siblings_list",
		       cpu) >= 0 && strspn(buf, "0123456789,-") == strlen(buf))
		memcpy(t->siblings, buf, sizeof(t->siblings));
	return 0;
}

/* The topology of CPUs 0..n-1; ok[c] 0 where a CPU has none readable. */
static struct topology_cpu *read_all(int n, int *nok)
{
	struct topology_cpu *t = calloc((size_t)n, sizeof(*t));

	*nok = 0;
	if (!t)
		return NULL;
	for (int c = 0; c < n; c++) {
		if (topology_get(c, &t[c]))
			t[c].cpu = -1;
		else
			(*nok)++;
	}
	return t;
}

static int same_core(const struct topology_cpu *a, const struct topology_cpu *b)
{
	return a->package == b->package && a->die == b->die &&
	       a->core == b->core && a->core >= 0;
}

static int is_big(const struct topology_cpu *t, int n)
{
	if (n > 4)
		return 1;
	for (int c = 1; c < n; c++)
		if (t[c].cpu >= 0 && t[0].cpu >= 0 &&
		    t[c].package != t[0].package)
			return 1;
	return 0;
}

int topology_is_big(int ncpus)
{
	struct topology_cpu *t;
	int nok, big;

	if (ncpus > 4)
		return 1;
	if (ncpus < 2)
		return 0;
	t = read_all(ncpus, &nok);
	big = t && nok ? is_big(t, ncpus) : 0;
	free(t);
	return big;
}

int topology_packages(int ncpus)
{
	struct topology_cpu *t;
	int nok, n = 0;

	if (ncpus < 1)
		return 0;
	t = read_all(ncpus, &nok);
	for (int c = 0; t && c < ncpus; c++) {
		int seen = 0;

		if (t[c].cpu < 0)
			continue;
		for (int d = 0; d < c && !seen; d++)
			seen = t[d].cpu >= 0 && t[d].package == t[c].package;
		n += !seen;
	}
	free(t);
	return n;
}

static int usable_cpu(const struct cpuset *usable, int c)
{
	return !usable || cpuset_test(usable, c);
}

/*
 * The CPU for one side beside OTHER (the other side's CPU, or -1): the
 * lowest id with the fewest broken rules, weighted so a rule gives way
 * only to the ones before it: usable, the package (same as REF's, or
 * another one with CROSS), not CPU 0, not on CPU 0's core, not on
 * OTHER's core.
 */
static int pick_one(const struct topology_cpu *t, int n, int other, int ref,
		    int cross, const struct cpuset *usable)
{
	int best = -1, best_score = 0, other_pkg = 0;

	for (int c = 0; c < n && cross; c++)
		if (t[c].cpu >= 0 && t[c].package != t[ref].package)
			other_pkg = 1;
	for (int c = 0; c < n; c++) {
		int score = 0;

		if (t[c].cpu < 0 || c == other)
			continue;
		if (!usable_cpu(usable, c))
			score += 16;
		if (cross && other_pkg ? t[c].package == t[ref].package :
		    t[c].package != t[ref].package)
			score += 8;
		if (c == 0)
			score += 4;
		if (t[0].cpu >= 0 && same_core(&t[c], &t[0]))
			score += 2;
		if (other >= 0 && same_core(&t[c], &t[other]))
			score += 2;
		if (best < 0 || score < best_score) {
			best = c;
			best_score = score;
		}
	}
	return best;
}

/* The lowest usable CPU that is not CPU, else the lowest that is not. */
static int first_not(int cpu, int ncpus, const struct cpuset *usable)
{
	for (int c = 0; c < ncpus; c++)
		if (c != cpu && usable_cpu(usable, c))
			return c;
	for (int c = 0; c < ncpus; c++)
		if (c != cpu)
			return c;
	return 0;
}

int topology_pick(int ncpus, int cross, const struct cpuset *usable,
		  int *server, int *client, char *err, size_t errlen)
{
	struct topology_cpu *t = NULL;
	int nok = 0;

	if (ncpus < 1) {
		errmsg_set(err, errlen, "no CPUs to place the server and client on");
		return -EINVAL;
	}
	if (*server >= 0 && *client >= 0)
		return 0;
	if (ncpus > 1)
		t = read_all(ncpus, &nok);
	if (t && nok && t[0].cpu >= 0 && is_big(t, ncpus)) {
		/* the reference package: CPU 0's, or the given side's */
		if (*server < 0) {
			int ref = *client >= 0 && t[*client].cpu >= 0 ? *client : 0;

			*server = pick_one(t, ncpus, *client, ref,
					   *client >= 0 ? cross : 0, usable);
		}
		if (*client < 0 && *server >= 0 && t[*server].cpu >= 0)
			*client = pick_one(t, ncpus, *server, *server, cross,
					   usable);
	}
	free(t);
	if (*server < 0)
		*server = first_not(*client, ncpus, usable);
	if (*client < 0)
		*client = first_not(*server, ncpus, usable);
	return 0;
}
