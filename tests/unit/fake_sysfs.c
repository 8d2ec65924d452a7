// SPDX-License-Identifier: GPL-2.0
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fake_sysfs.h"
#include "unit.h"

static char root[64];

static void put(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	fprintf(f, "%s\n", val);
	fclose(f);
}

static void mkdirs(const char *path)
{
	char tmp[512];

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

const char *fake_sysfs_create(int ncpus, int nstates)
{
	static const char *const names[] = { "POLL", "C1", "C6" };
	static const char *const lat[] = { "0", "2", "120" };
	char path[512], buf[600];
	FILE *f;

	snprintf(root, sizeof(root), "/tmp/wb-fakesys-XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpuidle", root);
	mkdirs(path);
	snprintf(buf, sizeof(buf), "%s/current_driver", path);
	put(buf, nstates ? "fake_idle" : "none");
	snprintf(buf, sizeof(buf), "%s/current_governor_ro", path);
	put(buf, "menu");
	for (int cpu = 0; cpu < ncpus; cpu++) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/power", root, cpu);
		mkdirs(path);
		snprintf(buf, sizeof(buf), "%s/pm_qos_resume_latency_us", path);
		put(buf, "0");
		for (int s = 0; s < nstates; s++) {
			snprintf(path, sizeof(path),
				 "%s/devices/system/cpu/cpu%d/cpuidle/state%d",
				 root, cpu, s);
			mkdirs(path);
			snprintf(buf, sizeof(buf), "%s/name", path);
			put(buf, names[s]);
			snprintf(buf, sizeof(buf), "%s/desc", path);
			put(buf, s ? "fake idle" : "CPUIDLE CORE POLL IDLE");
			snprintf(buf, sizeof(buf), "%s/latency", path);
			put(buf, lat[s]);
			snprintf(buf, sizeof(buf), "%s/residency", path);
			put(buf, s == 2 ? "600" : lat[s]);
			snprintf(buf, sizeof(buf), "%s/usage", path);
			put(buf, "100");
			snprintf(buf, sizeof(buf), "%s/time", path);
			put(buf, "5000");
			snprintf(buf, sizeof(buf), "%s/disable", path);
			put(buf, "0");
		}
	}
	setenv("WAKEBENCH_SYSFS", root, 1);
	snprintf(path, sizeof(path), "%s/state", root);
	setenv("WAKEBENCH_STATE_DIR", path, 1);
	snprintf(path, sizeof(path), "%s/pmqos", root);
	f = fopen(path, "w");	/* empty until a PM QoS hold writes it */
	if (!f)
		abort();
	fclose(f);
	setenv("WAKEBENCH_PMQOS_DEV", path, 1);
	return root;
}

void fake_sysfs_set(int cpu, int state, const char *file, const char *val)
{
	char path[512];

	snprintf(path, sizeof(path),
		 "%s/devices/system/cpu/cpu%d/cpuidle/state%d/%s", root, cpu,
		 state, file);
	put(path, val);
}

void fake_sysfs_put(const char *rel, const char *val)
{
	char path[512], *slash;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	put(path, val);
}

int fake_sysfs_disabled(int cpu, int state)
{
	char path[512];
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path),
		 "%s/devices/system/cpu/cpu%d/cpuidle/state%d/disable", root,
		 cpu, state);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

void fake_sysfs_set_resume(int cpu, const char *val)
{
	char path[512];

	snprintf(path, sizeof(path),
		 "%s/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us",
		 root, cpu);
	put(path, val);
}

const char *fake_sysfs_resume(int cpu)
{
	static char val[4][32];
	char path[512];
	FILE *f;
	char *v = val[cpu & 3];

	snprintf(path, sizeof(path),
		 "%s/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us",
		 root, cpu);
	snprintf(v, sizeof(val[0]), "(missing)");
	f = fopen(path, "r");
	if (!f)
		return v;
	if (!fgets(v, sizeof(val[0]), f))
		snprintf(v, sizeof(val[0]), "(empty)");
	v[strcspn(v, "\n")] = '\0';
	fclose(f);
	return v;
}

static int rm_entry(const char *path, const struct stat *sb, int type,
		    struct FTW *ftw)
{
	(void)sb; (void)type; (void)ftw;
	return remove(path);
}

void unit_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

char *unit_slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

int unit_rmtree(const char *dir)
{
	return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

void fake_sysfs_destroy(void)
{
	if (unit_rmtree(root))
		return;
	unsetenv("WAKEBENCH_SYSFS");
	unsetenv("WAKEBENCH_STATE_DIR");
	unsetenv("WAKEBENCH_PMQOS_DEV");
}
