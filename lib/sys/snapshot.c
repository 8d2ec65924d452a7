// SPDX-License-Identifier: GPL-2.0
/*
 * Configuration snapshot: what a result depends on besides the code.
 * Written with every client result and beside every server log, on
 * whichever host runs it, because client-side power settings alone can
 * move latency by tens of percent.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "cstate.h"
#include "pmqos.h"
#include "idlestate.h"
#include "snapshot.h"
#include "sysfs.h"
#include "topology.h"

/* Two renderings of one walk: JSON, or indented "key: value" text. */
struct emit {
	struct json *j;
	FILE *f;
	int depth;
};

static void e_begin(struct emit *e, const char *key, int array)
{
	if (e->j) {
		if (array)
			json_arr_begin(e->j, key);
		else
			json_obj_begin(e->j, key);
		return;
	}
	fprintf(e->f, "%*s%s:\n", 2 * e->depth, "", key ? key : "-");
	e->depth++;
}

static void e_end(struct emit *e, int array)
{
	if (e->j) {
		if (array)
			json_arr_end(e->j);
		else
			json_obj_end(e->j);
		return;
	}
	e->depth--;
}

static void e_str(struct emit *e, const char *key, const char *v)
{
	if (e->j)
		json_str(e->j, key, v);
	else
		fprintf(e->f, "%*s%s: %s\n", 2 * e->depth, "", key ? key : "-",
			v ? v : "(unknown)");
}

static void e_u64(struct emit *e, const char *key, uint64_t v)
{
	if (e->j) {
		json_u64(e->j, key, v);
		return;
	}
	fprintf(e->f, "%*s%s: %llu\n", 2 * e->depth, "", key,
		(unsigned long long)v);
}

static void e_bool(struct emit *e, const char *key, int v)
{
	if (e->j)
		json_bool(e->j, key, v);
	else
		fprintf(e->f, "%*s%s: %s\n", 2 * e->depth, "", key,
			v ? "yes" : "no");
}

/* A sysfs value as a string, or null when absent. */
static void e_sysfs(struct emit *e, const char *key, const char *rel)
{
	char buf[256];

	e_str(e, key, sysfs_read(buf, sizeof(buf), "%s", rel) >= 0 ? buf :
		      NULL);
}

static void cpu_model(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 2;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

static void emit_cpuidle(struct emit *e)
{
	char buf[64];
	int ncpu = idlestate_cpu_count();

	e_begin(e, "cpuidle", 0);
	idlestate_driver(buf, sizeof(buf));
	e_str(e, "driver", buf);
	idlestate_governor(buf, sizeof(buf));
	e_str(e, "governor", buf);
	/* the haltpoll driver's poll window (null: no haltpoll module) */
	e_sysfs(e, "guest_halt_poll_ns", CSTATE_HALTPOLL_FILE);
	e_begin(e, "cpus", 1);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int n = idlestate_count((unsigned int)cpu);

		e_begin(e, NULL, 0);
		e_u64(e, "cpu", (uint64_t)cpu);
		e_begin(e, "states", 1);
		for (int i = 0; i < n; i++) {
			struct idlestate st;

			if (idlestate_get((unsigned int)cpu, (unsigned int)i, &st))
				continue;
			e_begin(e, NULL, 0);
			e_u64(e, "index", st.index);
			e_str(e, "name", st.name);
			e_str(e, "desc", st.desc);
			e_u64(e, "latency_us", st.latency_us);
			e_u64(e, "residency_us", st.residency_us);
			e_bool(e, "disabled", st.disabled);
			e_end(e, 0);
		}
		e_end(e, 1);
		e_end(e, 0);
	}
	e_end(e, 1);
	e_end(e, 0);
}

static void emit_cpufreq(struct emit *e)
{
	int ncpu = idlestate_cpu_count();
	char buf[128];

	e_begin(e, "cpufreq", 0);
	e_sysfs(e, "boost", "devices/system/cpu/cpufreq/boost");
	e_sysfs(e, "intel_pstate_no_turbo",
		"devices/system/cpu/intel_pstate/no_turbo");
	e_begin(e, "cpus", 1);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		static const char *const keys[] = {
			"scaling_driver", "scaling_governor", "scaling_min_freq",
			"scaling_max_freq", "scaling_cur_freq",
			"energy_performance_preference",
		};

		if (sysfs_read(buf, sizeof(buf),
			       "devices/system/cpu/cpu%d/cpufreq/scaling_driver",
			       cpu) < 0)
			continue;
		e_begin(e, NULL, 0);
		e_u64(e, "cpu", (uint64_t)cpu);
		for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
			char rel[128];

			snprintf(rel, sizeof(rel),
				 "devices/system/cpu/cpu%d/cpufreq/%s", cpu,
				 keys[k]);
			e_sysfs(e, keys[k], rel);
		}
		e_end(e, 0);
	}
	e_end(e, 1);
	e_end(e, 0);
}

static void emit_pmqos(struct emit *e)
{
	int32_t v;
	int fd = open(CSTATE_PMQOS_DEV, O_RDONLY | O_CLOEXEC);

	e_begin(e, "pm_qos", 0);
	if (fd >= 0 && read(fd, &v, sizeof(v)) == sizeof(v)) {
		/* 2000000000 is the kernel's "no constraint" default. */
		e_u64(e, "cpu_dma_latency_us", (uint64_t)v);
		e_bool(e, "constrained", v != 2000000000);
	} else {
		e_str(e, "cpu_dma_latency_us", NULL);
	}
	if (fd >= 0)
		close(fd);
	/* Per CPU: "0" no constraint, "n/a" no latency tolerated. */
	e_begin(e, "resume_latency_us", 1);
	for (int cpu = 0; cpu < idlestate_cpu_count(); cpu++) {
		char buf[32];

		if (sysfs_read(buf, sizeof(buf),
			       "devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us",
			       cpu) < 0)
			continue;
		e_begin(e, NULL, 0);
		e_u64(e, "cpu", (uint64_t)cpu);
		e_str(e, "value", buf);
		e_end(e, 0);
	}
	e_end(e, 1);
	e_end(e, 0);
}

/* The kernel's socket busy polling (sysctls; a sweep's so_busy_poll). */
static void emit_busy_poll(struct emit *e)
{
	char buf[32];

	e_begin(e, "busy_poll", 0);
	e_str(e, "net_core_busy_read_us",
	      procsys_read(buf, sizeof(buf), "net/core/busy_read") >= 0 ? buf : NULL);
	e_str(e, "net_core_busy_poll_us",
	      procsys_read(buf, sizeof(buf), "net/core/busy_poll") >= 0 ? buf : NULL);
	e_end(e, 0);
}

/* Each NIC's MSI IRQs and where they may run. */
static void emit_irqs(struct emit *e)
{
	char path[512];
	struct dirent *de;
	DIR *d;

	e_begin(e, "nic_irqs", 1);
	snprintf(path, sizeof(path), "%s/class/net", sysfs_root());
	d = opendir(path);
	while (d && (de = readdir(d))) {
		struct dirent *ie;
		DIR *id;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lo"))
			continue;
		snprintf(path, sizeof(path), "%s/class/net/%s/device/msi_irqs",
			 sysfs_root(), de->d_name);
		id = opendir(path);
		if (!id) {	/* virtio: the PCI function is the parent */
			snprintf(path, sizeof(path),
				 "%s/class/net/%s/device/../msi_irqs",
				 sysfs_root(), de->d_name);
			id = opendir(path);
		}
		while (id && (ie = readdir(id))) {
			char aff[128], p2[300];

			if (ie->d_name[0] == '.')
				continue;
			snprintf(p2, sizeof(p2), "/proc/irq/%s/smp_affinity_list",
				 ie->d_name);
			e_begin(e, NULL, 0);
			e_str(e, "interface", de->d_name);
			e_str(e, "irq", ie->d_name);
			e_str(e, "affinity", file_read(p2, aff, sizeof(aff)) >= 0 ?
			      aff : NULL);
			e_end(e, 0);
		}
		if (id)
			closedir(id);
	}
	if (d)
		closedir(d);
	e_end(e, 1);
}

/* a topology id, null where the kernel does not know it */
static void e_id(struct emit *e, const char *key, int v)
{
	if (v < 0)
		e_str(e, key, NULL);
	else
		e_u64(e, key, (uint64_t)v);
}

/*
 * Where every CPU sits: a result depends on whether the server and the
 * client shared a core, a die or a package.
 */
static void emit_topology(struct emit *e)
{
	int ncpu = idlestate_cpu_count();

	e_begin(e, "topology", 1);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct topology_cpu t;

		if (topology_get(cpu, &t))
			continue;
		e_begin(e, NULL, 0);
		e_u64(e, "cpu", (uint64_t)cpu);
		e_id(e, "package", t.package);
		e_id(e, "die", t.die);
		e_id(e, "core", t.core);
		e_str(e, "smt_siblings", t.siblings[0] ? t.siblings : NULL);
		e_end(e, 0);
	}
	e_end(e, 1);
}

static void emit_all(struct emit *e, const char *role, const char *cmdline,
		     const char *software)
{
	struct utsname u;
	char buf[4096];
	time_t now = time(NULL);

	e_begin(e, NULL, 0);
	e_str(e, "wakebench_version", WB_VERSION);
	e_str(e, "role", role);
	e_str(e, "command", cmdline);
	if (software)
		e_str(e, "server_software", software);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	e_str(e, "time_utc", buf);
	if (!uname(&u)) {
		e_str(e, "hostname", u.nodename);
		e_str(e, "kernel", u.release);
		e_str(e, "kernel_version", u.version);
		e_str(e, "machine", u.machine);
	}
	e_str(e, "kernel_cmdline", file_read("/proc/cmdline", buf,
					     sizeof(buf)) >= 0 ? buf : NULL);
	cpu_model(buf, sizeof(buf));
	e_str(e, "cpu_model", buf);
	e_sysfs(e, "cpus_online", "devices/system/cpu/online");
	e_sysfs(e, "smt_control", "devices/system/cpu/smt/control");
	e_str(e, "sysfs_root", sysfs_root());
	/* what this process's --cstates could change (none: no key) */
	if (cstate_effect()[0])
		e_str(e, "cstates_effect", cstate_effect());
	emit_cpuidle(e);
	emit_topology(e);
	emit_cpufreq(e);
	emit_pmqos(e);
	emit_busy_poll(e);
	emit_irqs(e);
	e_end(e, 0);
}

int snapshot_write_json_software(const char *path, const char *role,
				 const char *cmdline, const char *software)
{
	struct emit e = { .j = json_open(path) };

	if (!e.j)
		return -errno;
	emit_all(&e, role, cmdline, software);
	return json_close(e.j);
}

int snapshot_write_json(const char *path, const char *role,
			const char *cmdline)
{
	return snapshot_write_json_software(path, role, cmdline, NULL);
}

int snapshot_write_beside(const char *log_path, const char *role,
			  const char *cmdline, char *msg, size_t msglen)
{
	size_t n = strlen(log_path);
	char *snap;
	int ret;

	if (n > 4 && !strcmp(log_path + n - 4, ".csv"))
		n -= 4;
	snap = malloc(n + sizeof(".snapshot.json"));
	if (!snap) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	memcpy(snap, log_path, n);
	strcpy(snap + n, ".snapshot.json");
	ret = snapshot_write_json(snap, role, cmdline);
	if (ret)
		snprintf(msg, msglen, "cannot write %s: %s", snap,
			 strerror(-ret));
	free(snap);
	return ret;
}

void snapshot_print(FILE *f, const char *role, const char *cmdline,
		    const char *software)
{
	struct emit e = { .f = f };

	emit_all(&e, role, cmdline, software);
}
