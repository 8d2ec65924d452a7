// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "outdir.h"

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t len = strlen(dir);

	if (!len || len >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, len + 1);
	for (char *p = path + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

static int is_owned(const char *name, const char *const *owned)
{
	for (; owned && *owned; owned++)
		if (!strcmp(name, *owned))
			return 1;
	return 0;
}

int outdir_prepare(const char *dir, const char *const *owned, int force,
		   char *err, size_t errlen)
{
	char probe[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret, fd;

	ret = make_dirs(dir);
	if (ret) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-ret));
		return ret;
	}
	if (stat(dir, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a directory", dir);
		return -ENOTDIR;
	}
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", dir, strerror(errno));
		return ret;
	}
	ret = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!force) {
			snprintf(err, errlen,
				 "%s is not empty (holds %s): choose a new directory, or --force to replace a previous run's files",
				 dir, de->d_name);
			ret = -ENOTEMPTY;
			break;
		}
		if (!is_owned(de->d_name, owned))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) && errno != ENOENT) {
			ret = -errno;
			snprintf(err, errlen, "cannot remove %s/%s: %s", dir,
				 de->d_name, strerror(errno));
			break;
		}
	}
	closedir(d);
	if (ret)
		return ret;
	snprintf(probe, sizeof(probe), "%s/.wb-write-test.%d", dir, (int)getpid());
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot write in %s: %s", dir, strerror(errno));
		return ret;
	}
	close(fd);
	unlink(probe);
	return 0;
}

int outdir_split(const char *file, char *dir, size_t dlen, char *base,
		 size_t blen)
{
	const char *slash = strrchr(file, '/');
	const char *b = slash ? slash + 1 : file;

	if (!*b || !strcmp(b, ".") || !strcmp(b, "..") || strlen(b) >= blen)
		return -EINVAL;
	snprintf(base, blen, "%s", b);
	if (!slash)
		snprintf(dir, dlen, ".");
	else if (slash == file)
		snprintf(dir, dlen, "/");
	else
		snprintf(dir, dlen, "%.*s", (int)(slash - file), file);
	return 0;
}
