// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "traceout.h"

#define TIMELINE "wakebench trace timeline DIR"
#define ATTRIBUTE "wakebench trace attribute DIR --requests ..."

const struct traceout_file traceout_files[] = {
	{ TRACEOUT_CSTATE_FMT, 1, TIMELINE },
	{ TRACEOUT_WAKEUPS, 0, TIMELINE },
	{ TRACEOUT_IRQ, 0, TIMELINE },
	{ TRACEOUT_RESIDENCY, 0, TIMELINE },
	{ TRACEOUT_MARKERS, 0, TIMELINE },
	{ TRACEOUT_ATTRIBUTION, 0, ATTRIBUTE },
	{ TRACEOUT_ATTR_SUMMARY, 0, ATTRIBUTE },
	{ TRACEOUT_BREAKDOWN, 0, ATTRIBUTE },
	{ NULL, 0, NULL }
};

/* NAME is FMT ("PRE%uSUF") for some CPU: digits only, no sign, no
 * leading zero but "0". */
static int per_cpu_name(const char *fmt, const char *name)
{
	const char *pct = strstr(fmt, "%u"), *suf = pct + 2;
	size_t pre = (size_t)(pct - fmt), len = strlen(name), slen = strlen(suf);
	size_t digits;

	if (len <= pre + slen || strncmp(name, fmt, pre) ||
	    strcmp(name + len - slen, suf))
		return 0;
	digits = len - pre - slen;
	if (digits > 10 || (digits > 1 && name[pre] == '0'))
		return 0;
	for (size_t i = 0; i < digits; i++)
		if (name[pre + i] < '0' || name[pre + i] > '9')
			return 0;
	return 1;
}

const struct traceout_file *traceout_match(const char *name)
{
	for (const struct traceout_file *f = traceout_files; f->name; f++)
		if (f->per_cpu ? per_cpu_name(f->name, name) : !strcmp(name, f->name))
			return f;
	return NULL;
}

int traceout_held_trace(const char *dir)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/meta.txt", dir);
	if (!lstat(path, &st))
		return 1;
	snprintf(path, sizeof(path), "%s/formats", dir);
	return !lstat(path, &st);
}

int traceout_remove(const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0, ret = 0;

	if (!d) {
		if (errno == ENOENT)
			return 0;	/* nothing there yet */
		ret = -errno;
		errmsg_set(err, errlen, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	while ((de = readdir(d))) {
		if (!traceout_match(de->d_name))
			continue;
		/* unlinkat: a link of that name goes, not what it points to */
		if (unlinkat(dirfd(d), de->d_name, 0)) {
			if (errno == ENOENT)
				continue;
			ret = -errno;
			errmsg_set(err, errlen, "cannot remove the earlier %s/%s: %s", dir,
				   de->d_name, strerror(-ret));
			break;
		}
		n++;
	}
	closedir(d);
	return ret ? ret : n;
}

static long long ns(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000ll + t->tv_nsec;
}

int traceout_check_fresh(const char *dir, char *err, size_t errlen)
{
	struct stat meta, st;
	char path[4096];
	DIR *d;
	struct dirent *de;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/meta.txt", dir);
	if (lstat(path, &meta)) {
		ret = -errno;
		errmsg_set(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		errmsg_set(err, errlen, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	while ((de = readdir(d))) {
		const struct traceout_file *f = traceout_match(de->d_name);
		char cmd[4200];
		const char *at;

		if (!f || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (ns(&st.st_mtim) + TRACEOUT_SLACK_NS >= ns(&meta.st_mtim))
			continue;
		/* the writer's command with this DIR */
		at = strstr(f->writer, "DIR");
		snprintf(cmd, sizeof(cmd), "%.*s%s%s", (int)(at - f->writer), f->writer,
			 dir, at + 3);
		errmsg_set(err, errlen, "%s/%s is older than %s/meta.txt: it was made from an earlier trace; run '%s' again (or remove it)",
			   dir, de->d_name, dir, cmd);
		ret = -ESTALE;
		break;
	}
	closedir(d);
	return ret;
}
