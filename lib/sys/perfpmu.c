// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cpu.h"
#include "errmsg.h"
#include "perfpmu.h"
#include "sysfs.h"

#define DEVICES "bus/event_source/devices"

/*
 * A small sysfs file into buf, strictly: -EFBIG when it fills buf (a
 * value this long is not one of ours: never silently cut), -EINVAL with
 * a NUL byte inside. The path is also written to path for messages.
 */
__attribute__((format(printf, 5, 6)))
static int rd(char *buf, size_t len, char *path, size_t plen, const char *fmt, ...)
{
	char rel[400];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, plen, "%s/%s", sysfs_root(), rel);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	n = sysfs_read(buf, len, "%s", rel);
	if (n < 0)
		return n;
	if ((size_t)n >= len - 1)
		return -EFBIG;
	if (strlen(buf) != (size_t)n)
		return -EINVAL;
	return n;
}

/* A printable excerpt of a hostile value for a message. */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len && i < 40; i++)
		buf[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* A strict unsigned number, decimal or 0x hex, the whole string. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

static int valid_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n && n < max &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

int perfpmu_type(const char *pmu, uint32_t *type, char *err, size_t errlen)
{
	char buf[64], path[512], sh[48];
	uint64_t v;
	int n;

	if (!valid_name(pmu, 32)) {
		errmsg_set(err, errlen, "invalid PMU name '%s'", shown(pmu, sh, sizeof(sh)));
		return -EINVAL;
	}
	n = rd(buf, sizeof(buf), path, sizeof(path), DEVICES "/%s/type", pmu);
	if (n == -ENOENT || n == -ENOTDIR) {
		errmsg_set(err, errlen, "no %s PMU on this machine (no %s)", pmu, path);
		return -ENODEV;
	}
	if (n < 0 && n != -EFBIG && n != -EINVAL) {
		errmsg_set(err, errlen, "cannot read %s: %s", path, strerror(-n));
		return n;
	}
	/* types above 2^31 do not fit perf_event_attr's use of them */
	if (n < 0 || parse_u64(buf, &v) || v > INT32_MAX) {
		errmsg_set(err, errlen, "%s: '%s' is not a PMU type", path,
			   n < 0 ? "(too long)" : shown(buf, sh, sizeof(sh)));
		return -EINVAL;
	}
	*type = (uint32_t)v;
	return 0;
}

/*
 * Places value in the field a format file describes: "config:0-7",
 * "config1:3", "config:0-7,32-35" (the value's low bits fill the ranges
 * in order). -EINVAL when the format does not parse or the value does
 * not fit.
 */
static int place(const char *fmt, uint64_t value, struct perfpmu_event *ev)
{
	uint64_t *dst;
	const char *p;
	unsigned used = 0;

	if (!strncmp(fmt, "config:", 7)) {
		dst = &ev->config;
		p = fmt + 7;
	} else if (!strncmp(fmt, "config1:", 8)) {
		dst = &ev->config1;
		p = fmt + 8;
	} else if (!strncmp(fmt, "config2:", 8)) {
		dst = &ev->config2;
		p = fmt + 8;
	} else {
		return -EINVAL;
	}
	for (;;) {
		unsigned long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			hi = strtoul(end + 1, &end, 10);
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++, used++)
			if (used < 64 && (value >> used & 1))
				*dst |= 1ull << b;
		if (!*end)
			break;
		if (*end != ',')
			return -EINVAL;
		p = end + 1;
	}
	/* bits of the value beyond the field: it does not fit */
	if (used < 64 && value >> used)
		return -EINVAL;
	return 0;
}

/*
 * The event's text BUF (read from PATH), "event=0x02" or
 * "event=0x01,umask=0x10", into ev's config words as the PMU's format
 * files place each term; 0 or -errno (ERR says why).
 */
static int event_terms(const char *pmu, char *buf, const char *path,
		       struct perfpmu_event *ev, char *err, size_t errlen)
{
	char sh[48], fmt[128], fpath[512];
	char *save = NULL, *term;

	for (term = strtok_r(buf, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '=');
		uint64_t v = 1;		/* a bare term is a flag: 1 */
		int f;

		if (eq)
			*eq = '\0';
		if (!valid_name(term, 32) || (eq && parse_u64(eq + 1, &v))) {
			if (eq)
				*eq = '=';
			errmsg_set(err, errlen, "%s: bad term '%s'", path,
				   shown(term, sh, sizeof(sh)));
			return -EINVAL;
		}
		f = rd(fmt, sizeof(fmt), fpath, sizeof(fpath), DEVICES "/%s/format/%s",
		       pmu, term);
		if (f == -ENOENT && !strcmp(term, "event"))
			snprintf(fmt, sizeof(fmt), "config:0-63");
		else if (f == -ENOENT) {
			errmsg_set(err, errlen, "%s: term '%s' has no format file (%s)", path,
				   term, fpath);
			return -EINVAL;
		} else if (f < 0 && f != -EFBIG && f != -EINVAL) {
			errmsg_set(err, errlen, "cannot read %s: %s", fpath, strerror(-f));
			return f;
		}
		if ((f < 0 && f != -ENOENT) || place(fmt, v, ev)) {
			errmsg_set(err, errlen, "%s: value of '%s' does not fit its format '%s' (%s)",
				   path, term, f < 0 && f != -ENOENT ? "(unreadable)" :
				   shown(fmt, sh, sizeof(sh)), fpath);
			return -EINVAL;
		}
	}
	return 0;
}

/* NAME.scale: joules (or other units) per count, when the PMU gives one. */
static int event_scale(const char *pmu, const char *name, struct perfpmu_event *ev,
		       char *err, size_t errlen)
{
	char buf[256], path[512], sh[48], *end;
	int n = rd(buf, sizeof(buf), path, sizeof(path), DEVICES "/%s/events/%s.scale",
		   pmu, name);

	if (n >= 0) {
		errno = 0;
		ev->scale = n ? strtod(buf, &end) : 0;
		if (!n || errno || *end || !isfinite(ev->scale) || ev->scale <= 0 ||
		    !(isdigit((unsigned char)buf[0]) || buf[0] == '.')) {
			errmsg_set(err, errlen, "%s: '%s' is not a scale (a number above 0)",
				   path, shown(buf, sh, sizeof(sh)));
			return -EINVAL;
		}
		ev->has_scale = 1;
	} else if (n != -ENOENT) {
		errmsg_set(err, errlen, "%s: %s", path, n == -EFBIG || n == -EINVAL ?
			   "not a scale (too long or a NUL byte)" : strerror(-n));
		return n == -EFBIG ? -EINVAL : n;
	}
	return 0;
}

/* NAME.unit, when the PMU gives one. */
static int event_unit(const char *pmu, const char *name, struct perfpmu_event *ev,
		      char *err, size_t errlen)
{
	char buf[256], path[512], sh[48];
	int n = rd(buf, sizeof(buf), path, sizeof(path), DEVICES "/%s/events/%s.unit",
		   pmu, name);

	if (n >= 0) {
		if ((size_t)n >= sizeof(ev->unit) ||
		    strspn(buf, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 _-/%") !=
		    (size_t)n) {
			errmsg_set(err, errlen, "%s: '%s' is not a unit", path,
				   shown(buf, sh, sizeof(sh)));
			return -EINVAL;
		}
		memcpy(ev->unit, buf, (size_t)n + 1);
	} else if (n != -ENOENT) {
		errmsg_set(err, errlen, "%s: %s", path, n == -EFBIG || n == -EINVAL ?
			   "not a unit (too long or a NUL byte)" : strerror(-n));
		return n == -EFBIG ? -EINVAL : n;
	}
	return 0;
}

int perfpmu_event(const char *pmu, const char *name, struct perfpmu_event *ev,
		  char *err, size_t errlen)
{
	char buf[256], path[512], sh[48];
	int n, ret;

	memset(ev, 0, sizeof(*ev));
	ev->scale = 1;
	ret = perfpmu_type(pmu, &ev->type, err, errlen);
	if (ret)
		return ret;
	if (!valid_name(name, sizeof(ev->name))) {
		errmsg_set(err, errlen, "invalid %s event name '%s'", pmu,
			   shown(name, sh, sizeof(sh)));
		return -EINVAL;
	}
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	n = rd(buf, sizeof(buf), path, sizeof(path), DEVICES "/%s/events/%s", pmu, name);
	if (n == -ENOENT) {
		errmsg_set(err, errlen, "no %s/%s/ event (no %s)", pmu, name, path);
		return -ENOENT;
	}
	if (n < 0 && n != -EFBIG && n != -EINVAL) {
		errmsg_set(err, errlen, "cannot read %s: %s", path, strerror(-n));
		return n;
	}
	if (n <= 0) {
		errmsg_set(err, errlen, "%s: %s", path, n ? "not an event (too long or a NUL byte)" :
			   "empty");
		return -EINVAL;
	}
	ret = event_terms(pmu, buf, path, ev, err, errlen);
	if (!ret)
		ret = event_scale(pmu, name, ev, err, errlen);
	if (!ret)
		ret = event_unit(pmu, name, ev, err, errlen);
	return ret;
}

static int cmp_name(const void *a, const void *b)
{
	return strverscmp((const char *)a, (const char *)b);
}

int perfpmu_list(const char *pmu, const char *prefix, const char *suffix,
		 char (*names)[PERFPMU_NAME_LEN], int max)
{
	char dir[512];
	struct dirent *de;
	size_t lp = strlen(prefix), ls = strlen(suffix);
	int n = 0;
	DIR *d;

	if (!valid_name(pmu, 32))
		return -ENODEV;
	snprintf(dir, sizeof(dir), "%s/" DEVICES "/%s/events", sysfs_root(), pmu);
	d = opendir(dir);
	if (!d)
		return -ENODEV;
	while ((de = readdir(d)) && n < max) {
		size_t l = strlen(de->d_name);

		/* events only: NAME.scale, NAME.unit and odd names are not */
		if (!valid_name(de->d_name, PERFPMU_NAME_LEN) || l < lp + ls ||
		    strncmp(de->d_name, prefix, lp) || strcmp(de->d_name + l - ls, suffix))
			continue;
		memcpy(names[n++], de->d_name, l + 1);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_name);
	return n;
}

/*
 * A CPU list file ("0-3,8") into *cpus, ascending, allocated as large as
 * the list: no fixed number of CPUs. Returns how many.
 */
static int cpu_file(const char *rel, int **cpus, char *err, size_t errlen)
{
	char buf[4096], path[512], sh[48];
	struct cpuset *mask;
	int n, k = 0;

	*cpus = NULL;
	n = rd(buf, sizeof(buf), path, sizeof(path), "%s", rel);
	if (n == -ENOENT)
		return -ENOENT;
	if (n < 0 && n != -EFBIG && n != -EINVAL) {
		errmsg_set(err, errlen, "cannot read %s: %s", path, strerror(-n));
		return n;
	}
	mask = n < 0 ? NULL : cpuset_new(cpuset_list_span(buf));
	if (!mask || cpuset_parse_list(mask, buf) <= 0) {
		errmsg_set(err, errlen, "%s: '%s' is not a CPU list (below %d)", path,
			   n < 0 ? "(too long)" : shown(buf, sh, sizeof(sh)),
			   PERFPMU_MAX_CPUS);
		cpuset_free(mask);
		return -EINVAL;
	}
	*cpus = malloc((size_t)cpuset_count(mask) * sizeof(**cpus));
	if (!*cpus) {
		cpuset_free(mask);
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int c = cpuset_next(mask, 0); c >= 0; c = cpuset_next(mask, c + 1))
		(*cpus)[k++] = c;
	cpuset_free(mask);
	return k;
}

/* At most max of the file's CPUs into cpus[]. */
static int cpu_file_max(const char *rel, int *cpus, int max, char *err, size_t errlen)
{
	int *all, n = cpu_file(rel, &all, err, errlen);

	if (n < 0)
		return n;
	if (n > max)
		n = max;
	memcpy(cpus, all, (size_t)n * sizeof(*cpus));
	free(all);
	return n;
}

int perfpmu_cpumask(const char *pmu, int *cpus, int max, char *err, size_t errlen)
{
	char rel[128];

	if (!valid_name(pmu, 32))
		return -EINVAL;
	snprintf(rel, sizeof(rel), DEVICES "/%s/cpumask", pmu);
	return cpu_file_max(rel, cpus, max, err, errlen);
}

int perfpmu_cpumask_all(const char *pmu, int **cpus, char *err, size_t errlen)
{
	char rel[128];

	*cpus = NULL;
	if (!valid_name(pmu, 32))
		return -EINVAL;
	snprintf(rel, sizeof(rel), DEVICES "/%s/cpumask", pmu);
	return cpu_file(rel, cpus, err, errlen);
}

int perfpmu_online_all(int **cpus, char *err, size_t errlen)
{
	int n = cpu_file("devices/system/cpu/online", cpus, err, errlen);

	if (n == -ENOENT)
		errmsg_set(err, errlen, "no %s/devices/system/cpu/online", sysfs_root());
	return n;
}

int perfpmu_online(int *cpus, int max, char *err, size_t errlen)
{
	int n = cpu_file_max("devices/system/cpu/online", cpus, max, err, errlen);

	if (n == -ENOENT)
		errmsg_set(err, errlen, "no %s/devices/system/cpu/online", sysfs_root());
	return n;
}

int perfpmu_package_of(int cpu)
{
	uint64_t v;
	int ret = sysfs_read_u64(&v, "devices/system/cpu/cpu%d/topology/physical_package_id",
				 cpu);

	if (ret)
		return ret;
	return v > 65535 ? -EINVAL : (int)v;
}

int perfpmu_package_cpus(int *cpus, int *pkg, int max, char *err, size_t errlen)
{
	int *online, n, k = 0;

	n = perfpmu_online_all(&online, err, errlen);
	for (int i = 0; i < n; i++) {
		int p = perfpmu_package_of(online[i]), seen = 0;

		if (p < 0) {
			errmsg_set(err, errlen, "cannot read %s/devices/system/cpu/cpu%d/topology/physical_package_id: %s",
				   sysfs_root(), online[i], p == -EINVAL ?
				   "not a package number (0-65535)" : strerror(-p));
			k = p;
			break;
		}
		for (int j = 0; j < k; j++)
			seen |= pkg[j] == p;
		if (seen)
			continue;
		if (k == max)
			break;
		cpus[k] = online[i];
		pkg[k++] = p;
	}
	free(online);
	return n < 0 ? n : k;
}

void perfpmu_strerror(int err, char *buf, size_t len)
{
	char p[32] = "?";

	if (err == -EACCES || err == -EPERM) {
		if (file_read("/proc/sys/kernel/perf_event_paranoid", p, sizeof(p)) < 0)
			snprintf(p, sizeof(p), "?");
		for (char *c = p; *c; c++)
			if (!isprint((unsigned char)*c))
				*c = '?';
		errmsg_set(buf, len, "not permitted (perf_event_paranoid is %s: system-wide counters need root, CAP_PERFMON or perf_event_paranoid 0 or less)",
			   p);
	} else if (err == -ENOENT || err == -EOPNOTSUPP || err == -EINVAL ||
		   err == -ENODEV) {
		errmsg_set(buf, len, "the CPU does not count it (%s)", strerror(-err));
	} else {
		errmsg_set(buf, len, "%s", strerror(-err));
	}
}

static int real_open(const struct perf_event_attr *attr, int cpu)
{
	long fd = syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

static int real_read(int fd, uint64_t *value)
{
	ssize_t n = read(fd, value, sizeof(*value));

	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*value) ? 0 : -EIO;
}

static void real_close(int fd)
{
	close(fd);
}

/*
 * The TSC counts at one rate on every CPU and through idle only where
 * the CPU says constant_tsc and nonstop_tsc; the kernel chose it as its
 * clocksource only when it found it synchronized across CPUs. Then a
 * delta of rdtsc equals the delta msr/tsc would have counted.
 */
static int tsc_sound(void)
{
	static int sound = -1;
	char cs[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (sound >= 0)
		return sound;
	sound = 0;
	if (file_read("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      cs, sizeof(cs)) < 0 || strcmp(cs, "tsc"))
		return sound;
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return sound;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5))
			continue;
		line[strcspn(line, "\n")] = ' ';
		sound = strstr(line, " constant_tsc ") && strstr(line, " nonstop_tsc ");
		break;
	}
	free(line);
	fclose(f);
	return sound;
}

static int real_tsc(uint64_t *value)
{
#if defined(__x86_64__) || defined(__i386__)
	if (!tsc_sound())
		return -ENOTSUP;
	*value = __builtin_ia32_rdtsc();
	return 0;
#else
	(void)value;
	return -ENOTSUP;
#endif
}

static const struct perfpmu_ops real_ops = {
	.open = real_open,
	.read = real_read,
	.close = real_close,
	.tsc = real_tsc,
};

static const struct perfpmu_ops *cur_ops = &real_ops;

const struct perfpmu_ops *perfpmu_ops(void)
{
	return cur_ops;
}

void perfpmu_set_ops(const struct perfpmu_ops *ops)
{
	cur_ops = ops ? ops : &real_ops;
}

int perfpmu_open(const struct perfpmu_event *ev, int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.config1 = ev->config1;
	attr.config2 = ev->config2;
	return cur_ops->open(&attr, cpu);
}
