// SPDX-License-Identifier: GPL-2.0
#include <cpuidle.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "idlestate.h"
#include "opt.h"
#include "sysfs.h"

#define STATE_DIR "devices/system/cpu/cpu%u/cpuidle/state%u"

int idlestate_cpu_count(void)
{
	char path[512];
	struct dirent *de;
	DIR *d;
	int max = -1;

	snprintf(path, sizeof(path), "%s/devices/system/cpu", sysfs_root());
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long n;

		if (strncmp(de->d_name, "cpu", 3) || de->d_name[3] < '0' ||
		    de->d_name[3] > '9')
			continue;
		n = strtol(de->d_name + 3, &end, 10);
		if (!*end && n > max)
			max = (int)n;
	}
	closedir(d);
	return max + 1;
}

int idlestate_count(unsigned int cpu)
{
	unsigned int n = 0;
	char buf[8];

	if (sysfs_is_real())
		return (int)cpuidle_state_count(cpu);
	while (sysfs_read(buf, sizeof(buf), STATE_DIR "/name", cpu, n) >= 0)
		n++;
	return (int)n;
}

static void copy_free(char *dst, size_t len, char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
	free(src);
}

int idlestate_get(unsigned int cpu, unsigned int idx,
		      struct idlestate *st)
{
	uint64_t v;

	memset(st, 0, sizeof(*st));
	st->index = idx;
	if ((int)idx >= idlestate_count(cpu))
		return -ENOENT;
	/* libcpupower has no target residency: read it directly. */
	if (!sysfs_read_u64(&v, STATE_DIR "/residency", cpu, idx))
		st->residency_us = v;
	if (sysfs_is_real()) {
		copy_free(st->name, sizeof(st->name),
			  cpuidle_state_name(cpu, idx));
		copy_free(st->desc, sizeof(st->desc),
			  cpuidle_state_desc(cpu, idx));
		st->latency_us = cpuidle_state_latency(cpu, idx);
		st->usage = cpuidle_state_usage(cpu, idx);
		st->time_us = cpuidle_state_time(cpu, idx);
		st->disabled = cpuidle_is_state_disabled(cpu, idx) == 1;
		return 0;
	}
	if (sysfs_read(st->name, sizeof(st->name), STATE_DIR "/name", cpu,
		       idx) < 0)
		return -ENOENT;
	sysfs_read(st->desc, sizeof(st->desc), STATE_DIR "/desc", cpu, idx);
	if (!sysfs_read_u64(&v, STATE_DIR "/latency", cpu, idx))
		st->latency_us = v;
	if (!sysfs_read_u64(&v, STATE_DIR "/usage", cpu, idx))
		st->usage = v;
	if (!sysfs_read_u64(&v, STATE_DIR "/time", cpu, idx))
		st->time_us = v;
	if (!sysfs_read_u64(&v, STATE_DIR "/disable", cpu, idx))
		st->disabled = v != 0;
	return 0;
}

int idlestate_set_disabled(unsigned int cpu, unsigned int idx,
			       int disabled)
{
	int ret;

	if ((int)idx >= idlestate_count(cpu))
		return -ENOENT;
	if (!sysfs_is_real())
		return sysfs_write(disabled ? "1" : "0", STATE_DIR "/disable",
				   cpu, idx);
	errno = 0;
	ret = cpuidle_state_disable(cpu, idx, disabled ? 1 : 0);
	switch (ret) {
	case 0:
		return 0;
	case -1:
		return -ENOENT;
	case -2:
		return -EOPNOTSUPP;	/* kernel without per-state disable */
	default:
		return errno ? -errno : -EACCES;
	}
}

void idlestate_driver(char *buf, size_t len)
{
	if (sysfs_is_real()) {
		char *d = cpuidle_get_driver();

		if (d) {
			copy_free(buf, len, d);
			return;
		}
	}
	if (sysfs_read(buf, len, "devices/system/cpu/cpuidle/current_driver") < 0)
		snprintf(buf, len, "none");
}

void idlestate_governor(char *buf, size_t len)
{
	if (sysfs_is_real()) {
		char *g = cpuidle_get_governor();

		if (g) {
			copy_free(buf, len, g);
			return;
		}
	}
	if (sysfs_read(buf, len, "devices/system/cpu/cpuidle/current_governor") < 0 &&
	    sysfs_read(buf, len, "devices/system/cpu/cpuidle/current_governor_ro") < 0)
		snprintf(buf, len, "none");
}

int idlestate_governors(char *buf, size_t len)
{
	int n = sysfs_read(buf, len, "devices/system/cpu/cpuidle/available_governors");

	if (n < 0)
		buf[0] = '\0';
	return n < 0 ? n : 0;
}

int idlestate_governor_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		size_t w;

		p += strspn(p, " \t");
		w = strcspn(p, " \t");
		if (w && w == n && !strncmp(p, name, n))
			return 1;
		p += w;
	}
	return 0;
}

int idlestate_resolve(unsigned int cpu, const char *spec)
{
	int n = idlestate_count(cpu);
	uint64_t idx;

	if (!opt_u64(spec, 0, UINT32_MAX, &idx))
		return (int)idx < n ? (int)idx : -ENOENT;
	for (int i = 0; i < n; i++) {
		struct idlestate st;

		if (!idlestate_get(cpu, (unsigned int)i, &st) &&
		    !strcasecmp(st.name, spec))
			return i;
	}
	return -ENOENT;
}
