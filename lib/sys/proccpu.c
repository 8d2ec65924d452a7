// SPDX-License-Identifier: GPL-2.0
/* proccpu: a process tree's CPU time from /proc/PID/stat (see the header). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proccpu.h"

/* the fields read: 3 state, 4 ppid, 14 utime, 15 stime, 22 starttime */
#define F_LAST 22
/* a stat line is about 300 bytes; the name alone is at most 16 */
#define STAT_MAX 4096
#define COMM_MAX 64

/* [-]digits, at most 20 of them; *V its value (0 when negative). */
static int field(const char **pp, const char *end, uint64_t *v, int *neg)
{
	const char *p = *pp;
	uint64_t x = 0;
	int n = 0;

	*neg = p < end && *p == '-';
	p += *neg;
	for (; p < end && *p >= '0' && *p <= '9'; p++, n++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (!n || n > 20 || (p < end && *p != ' '))
		return -EINVAL;
	*v = *neg ? 0 : x;
	*pp = p;
	return 0;
}

/* "PID (" at the start; the name up to the last ')', then " S ". */
static int head(const char *line, const char *end, struct proccpu *p,
		const char **rest)
{
	const char *q = line, *close = NULL;
	uint64_t pid;
	int neg;

	if (field(&q, end, &pid, &neg) || neg || !pid || pid > 0x7fffffff ||
	    end - q < 2 || q[1] != '(')
		return -EINVAL;
	for (const char *s = q + 2; s < end; s++)
		if (*s == ')')
			close = s;
	/* the name: at most COMM_MAX bytes, no NUL (the line is text) */
	if (!close || close - (q + 2) > COMM_MAX || memchr(q + 2, '\0', (size_t)(close - q - 2)))
		return -EINVAL;
	q = close + 1;
	if (end - q < 3 || q[0] != ' ' || q[1] < 'A' || q[1] > 'z' || q[2] != ' ')
		return -EINVAL;
	p->pid = (int)pid;
	p->state = q[1];
	*rest = q + 2;
	return 0;
}

int proccpu_parse(const char *line, size_t len, struct proccpu *p)
{
	const char *end = line + len, *q;
	uint64_t v;
	int neg;

	memset(p, 0, sizeof(*p));
	if (len && line[len - 1] == '\n')
		end--;
	if (len > STAT_MAX || head(line, end, p, &q))
		return -EINVAL;
	for (int f = 4; f <= F_LAST; f++) {
		if (q >= end || *q != ' ')
			return -EINVAL;
		q++;
		if (field(&q, end, &v, &neg))
			return -EINVAL;
		/* the fields kept are never negative */
		if (neg && (f == 4 || f == 14 || f == 15 || f == F_LAST))
			return -EINVAL;
		if (f == 4)
			p->ppid = v > 0x7fffffff ? -1 : (int)v;
		else if (f == 14)
			p->utime = v;
		else if (f == 15)
			p->stime = v;
		else if (f == F_LAST)
			p->starttime = v;
	}
	if (p->ppid < 0 || (q < end && *q != ' '))
		return -EINVAL;
	return 0;
}

int proccpu_read(int pid, struct proccpu *p)
{
	char path[64], buf[STAT_MAX + 1];
	ssize_t n;
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* one read: the kernel writes the line whole */
	n = read(fd, buf, sizeof(buf));
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	if (!n || n > STAT_MAX)
		return -EINVAL;
	ret = proccpu_parse(buf, (size_t)n, p);
	/* the line of another PID is not this process's */
	return ret ? ret : p->pid == pid ? 0 : -EINVAL;
}

int proccpu_threads_ns(int pid, uint64_t *ns)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	int ret = 0;

	*ns = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)) && !ret) {
		char p[96], buf[128], *end;
		unsigned long long v;
		ssize_t n;
		int fd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%d/task/%.16s/schedstat", pid, e->d_name);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			int gone = errno == ENOENT;

			/* a thread that ended meanwhile is not counted; a
			 * live one without the file: no schedstat here */
			snprintf(p, sizeof(p), "/proc/%d/task/%.16s", pid, e->d_name);
			ret = gone && access(p, F_OK) ? 0 : -ENOENT;
			continue;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0) {
			ret = n < 0 ? -errno : -EINVAL;
			continue;
		}
		buf[n] = '\0';
		/* "RUNTIME_NS WAIT_NS SLICES": digits, then a space */
		errno = 0;
		v = strtoull(buf, &end, 10);
		if (buf[0] < '0' || buf[0] > '9' || *end != ' ' || errno)
			ret = -EINVAL;
		else
			*ns += v;
	}
	closedir(d);
	return ret;
}

static int by_pid(const void *a, const void *b)
{
	const struct proccpu *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int proccpu_table_read(struct proccpu_table *t)
{
	DIR *d = opendir("/proc");
	struct proccpu *nv;
	size_t cap = 0;
	struct dirent *e;

	memset(t, 0, sizeof(*t));
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *endp;
		long pid = strtol(e->d_name, &endp, 10);

		if (*endp || pid <= 0 || e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (t->n == cap) {
			cap = cap ? 2 * cap : 256;
			nv = realloc(t->p, cap * sizeof(*nv));
			if (!nv) {
				proccpu_table_free(t);
				closedir(d);
				return -ENOMEM;
			}
			t->p = nv;
		}
		/* gone meanwhile, or unreadable: not ours to count */
		if (!proccpu_read((int)pid, &t->p[t->n]))
			t->n++;
	}
	closedir(d);
	/* by PID: a parent is found by bsearch */
	if (t->n)
		qsort(t->p, t->n, sizeof(*t->p), by_pid);
	return 0;
}

void proccpu_table_free(struct proccpu_table *t)
{
	free(t->p);
	memset(t, 0, sizeof(*t));
}

/* Whether PID is an ancestor of process P (through at most 256 parents). */
static int below(const struct proccpu_table *t, const struct proccpu *p, int pid)
{
	for (int depth = 0; depth < 256 && p; depth++) {
		struct proccpu key = { .pid = p->ppid };

		if (p->ppid == pid)
			return 1;
		if (p->ppid <= 0)
			return 0;
		p = bsearch(&key, t->p, t->n, sizeof(*t->p), by_pid);
	}
	return 0;
}

/* NS += the threads' nanoseconds of PID, or UINT64_MAX once one fails. */
static void add_ns(uint64_t *ns, int pid)
{
	uint64_t v;

	if (!ns || *ns == UINT64_MAX)
		return;
	*ns = proccpu_threads_ns(pid, &v) ? UINT64_MAX : *ns + v;
}

int proccpu_tree_in(const struct proccpu_table *t, int pid, uint64_t *ticks,
		    uint64_t *ns, int *nproc, char *err, size_t errlen)
{
	struct proccpu top;
	int count = 1, ret = proccpu_read(pid, &top);

	*ticks = 0;
	if (ns)
		*ns = 0;
	if (nproc)
		*nproc = 0;
	if (ret) {
		snprintf(err, errlen, "PID %d: %s", pid,
			 ret == -ENOENT ? "no such process" : ret == -EINVAL ?
			 "unreadable /proc/PID/stat" : strerror(-ret));
		return ret;
	}
	*ticks = top.utime + top.stime;
	add_ns(ns, pid);
	for (size_t i = 0; i < t->n; i++) {
		if (t->p[i].pid == pid || !below(t, &t->p[i], pid))
			continue;
		count++;
		*ticks += t->p[i].utime + t->p[i].stime;
		add_ns(ns, t->p[i].pid);
	}
	if (nproc)
		*nproc = count;
	return 0;
}

int proccpu_tree(int pid, uint64_t *ticks, uint64_t *ns, int *nproc, char *err,
		 size_t errlen)
{
	struct proccpu_table t;
	int ret = proccpu_table_read(&t);

	if (ret) {
		*ticks = 0;
		snprintf(err, errlen, "reading /proc: %s", strerror(-ret));
		return ret;
	}
	ret = proccpu_tree_in(&t, pid, ticks, ns, nproc, err, errlen);
	proccpu_table_free(&t);
	return ret;
}

double proccpu_ticks_us(uint64_t ticks)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? (double)ticks * 1e6 / (double)hz : NAN;
}
