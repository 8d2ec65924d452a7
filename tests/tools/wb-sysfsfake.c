// SPDX-License-Identifier: GPL-2.0
/*
 * wb-sysfsfake: a fake sysfs tree (a WAKEBENCH_SYSFS root) from a dump
 * of a real machine in pepc's emulation format.
 *
 *   wb-sysfsfake INLINEFILES ROOT [CPUINFO]
 *
 * INLINEFILES has lines "ro|/sys/PATH|VALUE" or "rw|/sys/PATH|VALUE"
 * ('#' starts a comment); each becomes the file ROOT/PATH holding VALUE
 * and a newline, as sysfs shows it. pepc keeps the topology in
 * /proc/cpuinfo rather than in sysfs, so with CPUINFO (its "processor",
 * "physical id" and "core id" lines) the tool also writes every CPU's
 * topology/physical_package_id, core_id, thread_siblings_list,
 * core_cpus_list and package_cpus_list, lists in the kernel's "0-3,8"
 * form. Without a cpu/possible in the dump, possible is written as
 * present. ROOT must not exist yet (it is created); a path with ".." or a
 * path outside /sys is refused. Exit 0, 1 on an error, 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* processor numbers of a dump's cpuinfo: Linux's largest NR_CPUS, a
 * guard against a broken dump (the arrays are static: a test tool) */
#define MAX_CPUS 8192

static const char *prog = "wb-sysfsfake";

/* mkdir -p of the directories of root/rel, then write value + "\n". */
static int put(const char *root, const char *rel, const char *value)
{
	char path[4096];
	int fd, n;

	/* The directory made last: dumps list a directory's files together,
	 * so most files need no mkdir at all. */
	static char made[4096];
	char *slash;

	n = snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	slash = strrchr(path, '/');
	*slash = 0;
	if (strcmp(made, path)) {
		*slash = '/';
		for (char *s = path + strlen(root) + 1; (s = strchr(s, '/'));
		     s++) {
			*s = 0;
			if (mkdir(path, 0755) && errno != EEXIST)
				return -errno;
			*s = '/';
		}
		*slash = 0;
		strcpy(made, path);
	}
	*slash = '/';
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return -errno;
	if (dprintf(fd, "%s\n", value) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return close(fd) ? -errno : 0;
}

static int inlinefiles(const char *file, const char *root)
{
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	ssize_t len;
	int ret = 0;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
		return 1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *path, *value;
		int err;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		if (!*line || *line == '#')
			continue;
		path = strchr(line, '|');
		value = path ? strchr(path + 1, '|') : NULL;
		if (!value || strncmp(path + 1, "/sys/", 5) ||
		    strstr(path, "/../") || strstr(path, "/./")) {
			fprintf(stderr, "%s: %s:%ld: not ro|/sys/PATH|VALUE\n",
				prog, file, lineno);
			ret = 1;
			break;
		}
		*value++ = 0;
		/* sysfs values end without the padding some dumps keep. */
		for (char *e = value + strlen(value);
		     e > value && e[-1] == ' '; )
			*--e = 0;
		err = put(root, path + 6, value);
		if (err) {
			fprintf(stderr, "%s: %s:%ld: %s: %s\n", prog, file,
				lineno, path + 1, strerror(-err));
			ret = 1;
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

/* Writes the CPUs i with key[i] == want (and present) as "0-3,8". */
static void cpu_list(char *buf, size_t len, const int *pkg, const int *core,
		     int n, int want_pkg, int want_core)
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		int j = i;

		if (pkg[i] != want_pkg || (want_core >= 0 && core[i] != want_core))
			continue;
		while (j + 1 < n && pkg[j + 1] == want_pkg &&
		       (want_core < 0 || core[j + 1] == want_core))
			j++;
		used += (size_t)snprintf(buf + used, len - used,
					 j > i ? "%s%d-%d" : "%s%d",
					 used ? "," : "", i, j);
		if (used >= len)
			return;
		i = j;
	}
}

static int cpuinfo(const char *file, const char *root)
{
	static int pkg[MAX_CPUS], core[MAX_CPUS];
	FILE *f = fopen(file, "re");
	char line[512], rel[256], list[65536], val[32];
	int cpu = -1, n = 0, ret = 0;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
		return 1;
	}
	for (int i = 0; i < MAX_CPUS; i++)
		pkg[i] = core[i] = -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		int v;

		if (!colon || sscanf(colon + 1, "%d", &v) != 1)
			continue;
		if (!strncmp(line, "processor", 9)) {
			if (v < 0 || v >= MAX_CPUS) {
				fprintf(stderr, "%s: %s: CPU %d out of range\n",
					prog, file, v);
				fclose(f);
				return 1;
			}
			cpu = v;
			if (cpu + 1 > n)
				n = cpu + 1;
		} else if (cpu >= 0 && !strncmp(line, "physical id", 11)) {
			pkg[cpu] = v;
		} else if (cpu >= 0 && !strncmp(line, "core id", 7)) {
			core[cpu] = v;
		}
	}
	fclose(f);
	for (int i = 0; i < n && !ret; i++) {
		static const char *const names[] = {
			"thread_siblings_list", "core_cpus_list",
		};
		int err = 0;

		if (pkg[i] < 0 || core[i] < 0)
			continue;
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%d/topology/physical_package_id", i);
		snprintf(val, sizeof(val), "%d", pkg[i]);
		err = put(root, rel, val);
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%d/topology/core_id", i);
		snprintf(val, sizeof(val), "%d", core[i]);
		if (!err)
			err = put(root, rel, val);
		cpu_list(list, sizeof(list), pkg, core, n, pkg[i], core[i]);
		for (size_t k = 0; k < 2 && !err; k++) {
			snprintf(rel, sizeof(rel),
				 "devices/system/cpu/cpu%d/topology/%s", i,
				 names[k]);
			err = put(root, rel, list);
		}
		cpu_list(list, sizeof(list), pkg, core, n, pkg[i], -1);
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%d/topology/package_cpus_list", i);
		if (!err)
			err = put(root, rel, list);
		if (err) {
			fprintf(stderr, "%s: %s: %s\n", prog, rel, strerror(-err));
			ret = 1;
		}
	}
	return ret;
}

/*
 * pepc's dumps keep cpu/present and online but not possible, which sizes
 * wakebench's CPU sets: where the dump has none, possible is present
 * (as on these servers, without hot-plug slots).
 */
static int possible_from_present(const char *root)
{
	char path[4096], list[4096];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/possible", root);
	if (!access(path, F_OK))
		return 0;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/present", root);
	f = fopen(path, "re");
	if (!f)
		return 0;	/* no CPU lists at all: nothing to copy */
	if (!fgets(list, sizeof(list), f))
		list[0] = 0;
	fclose(f);
	list[strcspn(list, "\n")] = 0;
	err = put(root, "devices/system/cpu/possible", list);
	if (err)
		fprintf(stderr, "%s: devices/system/cpu/possible: %s\n", prog,
			strerror(-err));
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s INLINEFILES ROOT [CPUINFO]\n", prog);
		return 2;
	}
	if (mkdir(argv[2], 0755)) {
		fprintf(stderr, "%s: %s: %s\n", prog, argv[2], strerror(errno));
		return 1;
	}
	if (inlinefiles(argv[1], argv[2]) || possible_from_present(argv[2]))
		return 1;
	return argc == 4 ? cpuinfo(argv[3], argv[2]) : 0;
}
