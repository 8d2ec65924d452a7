// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset.h"
#include "cstate.h"
#include "idlestate.h"
#include "opt.h"
#include "pmqos.h"
#include "procpid.h"
#include "rfile.h"
#include "runsignals.h"
#include "sysfs.h"
#include "wfile.h"

#define STATE_MAGIC "wakebench-cstate 1"
#define RESUME_FILE "devices/system/cpu/cpu%u/power/pm_qos_resume_latency_us"
#define GOVERNOR_FILE "devices/system/cpu/cpuidle/current_governor"
#define VAL_LEN 24

/*
 * K_GOVERNOR: the machine's cpuidle governor (cpu 0, one per machine);
 * K_HALTPOLL: the guest haltpoll driver's poll window (one per machine);
 * K_SYSCTL: a sysctl of sysctls[] (idx: which).
 */
enum kind { K_STATE, K_RESUME, K_GOVERNOR, K_HALTPOLL, K_SYSCTL };

/* The sysctls a session may hold: socket busy polling (issue 35). */
static const char *const sysctls[] = { "net.core.busy_read", "net.core.busy_poll" };
#define NSYSCTLS (sizeof(sysctls) / sizeof(*sysctls))

/* One setting and the values around a change of it. */
struct change {
	enum kind kind;
	unsigned int cpu, idx;		/* idx: K_STATE only */
	char name[IDLESTATE_NAME_LEN];	/* K_STATE: the state's name, or "" */
	char orig[VAL_LEN], set[VAL_LEN];
};

struct changes {
	struct change *v;
	int n, cap;
};

struct cstate_session {
	struct cstate_session *next;	/* this process's live sessions */
	char path[512];
	char *cmdline;
	unsigned long long start;
	struct changes ch;
	int pmqos_fd;
	int32_t pmqos_us;
	int force;
	char err[512];
	char warning[600];	/* what its changes cannot do ("": none) */
};

/* A state file read back. */
struct record {
	char path[600];
	int pid;
	unsigned long long start;
	char cmd[200];
	int has_pmqos;
	int32_t pmqos_us;
	struct changes ch;
	int bad_line;		/* first line not understood (0: none) */
	char bad[96];
	int alive;
};

static struct cstate_session *live_sessions;
/* What this process's last cstate_apply() could change (cstate_effect). */
static char run_effect[64];

int cstate_spec_parse(const char *s, struct cstate_spec *spec)
{
	int system = 0;
	uint64_t v;

	if (!strncmp(s, "system-", 7)) {
		system = 1;
		s += 7;
	}
	if (!strcmp(s, "on") && !system) {
		*spec = (struct cstate_spec){ .mode = CSTATE_ON };
		return 0;
	}
	if (!strcmp(s, "off")) {
		*spec = (struct cstate_spec){ .mode = CSTATE_OFF,
					      .system = system };
		return 0;
	}
	if (!strncmp(s, "max-latency-us=", 15) &&
	    !opt_u64(s + 15, 0, INT32_MAX, &v)) {
		*spec = (struct cstate_spec){ .mode = CSTATE_MAXLAT,
					      .max_latency_us = v,
					      .system = system };
		return 0;
	}
	return -1;
}

const char *cstate_state_dir(void)
{
	const char *d = getenv("WAKEBENCH_STATE_DIR");

	return d && *d ? d : "/run/wakebench";
}

int cstate_parse_starttime(const char *stat, unsigned long long *start)
{
	/* The command name (field 2) may hold spaces and ')'. */
	const char *p = strrchr(stat, ')');
	char *end;

	if (!p)
		return -1;
	p++;
	/* Fields 3 to 21, then the start time. */
	for (int field = 3; field <= 22; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -1;
		if (field == 22)
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*start = strtoull(p, &end, 10);
	if (errno || (*end && *end != ' ' && *end != '\n'))
		return -1;
	return 0;
}

static unsigned long long proc_starttime(int pid, int *err)
{
	char path[64], buf[1024];
	unsigned long long start;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	n = file_read(path, buf, sizeof(buf));
	if (n < 0) {
		*err = n;
		return 0;
	}
	if (cstate_parse_starttime(buf, &start)) {
		*err = -EINVAL;
		return 0;
	}
	*err = 0;
	return start;
}

int cstate_owner_alive(int pid, unsigned long long start)
{
	unsigned long long now;
	int err;

	if (pid <= 0)
		return 0;
	if (kill(pid, 0) && errno == ESRCH)
		return 0;
	if (!start)
		return 1;	/* a file from before start times: PID only */
	now = proc_starttime(pid, &err);
	if (err == -ENOENT || err == -ESRCH)
		return 0;	/* exited just now */
	if (err)
		return 1;	/* cannot tell (hidepid): assume it runs */
	return now == start;
}

/* Own-PID files are alive while their session is. */
static int record_alive(const struct record *r)
{
	if (r->pid == (int)getpid()) {
		for (struct cstate_session *s = live_sessions; s; s = s->next)
			if (!strcmp(s->path, r->path))
				return 1;
		return 0;
	}
	return cstate_owner_alive(r->pid, r->start);
}

struct cstate_session *cstate_begin(const char *cmdline)
{
	struct cstate_session *s = calloc(1, sizeof(*s));
	int err, k = 0;

	if (!s)
		return NULL;
	s->pmqos_fd = -1;
	s->cmdline = strdup(cmdline ? cmdline : "");
	if (!s->cmdline) {
		free(s);
		return NULL;
	}
	/* One line in the state file. */
	for (char *c = s->cmdline; *c; c++)
		if (*c == '\n')
			*c = ' ';
	s->start = proc_starttime((int)getpid(), &err);
	/* Further sessions of this process get their own file. */
	for (;;) {
		struct cstate_session *o;

		if (k)
			snprintf(s->path, sizeof(s->path), "%s/cstate.%d.%d.state",
				 cstate_state_dir(), (int)getpid(), k);
		else
			snprintf(s->path, sizeof(s->path), "%s/cstate.%d.state",
				 cstate_state_dir(), (int)getpid());
		for (o = live_sessions; o; o = o->next)
			if (!strcmp(o->path, s->path))
				break;
		if (!o)
			break;
		k++;
	}
	s->next = live_sessions;
	live_sessions = s;
	return s;
}

int cstate_changes(const struct cstate_session *s)
{
	return s->ch.n;
}

void cstate_force(struct cstate_session *s, int force)
{
	s->force = force;
}

const char *cstate_error(const struct cstate_session *s)
{
	return s->err;
}

const char *cstate_resume_value(uint64_t us, char *buf, size_t len)
{
	/* "0" would mean no constraint; "n/a" tolerates no latency at all. */
	if (!us)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%llu", (unsigned long long)us);
	return buf;
}

/* A governor's name as the kernel has them (CPUIDLE_NAME_LEN 16). */
static int valid_governor(const char *v)
{
	size_t n = strlen(v);

	if (!n || n > 15)
		return 0;
	for (const char *c = v; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return 0;
	return 1;
}

/* A plain decimal number (the haltpoll window, a sysctl's value). */
static int valid_num(const char *v)
{
	size_t n = strlen(v);

	return n && n < VAL_LEN && strspn(v, "0123456789") == n;
}

/* K_SYSCTL's index of NAME ("net.core.busy_read"), or -1. */
static int sysctl_index(const char *name)
{
	for (size_t i = 0; i < NSYSCTLS; i++)
		if (!strcmp(name, sysctls[i]))
			return (int)i;
	return -1;
}

/* "net/core/busy_read": a sysctl's file under the sysctl root */
static void sysctl_rel(unsigned int idx, char *buf, size_t len)
{
	snprintf(buf, len, "%s", sysctls[idx]);
	for (char *p = buf; *p; p++)
		if (*p == '.')
			*p = '/';
}

static int valid_resume(const char *v)
{
	if (!strcmp(v, "n/a"))
		return 1;
	if (!*v)
		return 0;
	for (const char *c = v; *c; c++)
		if (!isdigit((unsigned char)*c))
			return 0;
	return 1;
}

/* ---- the machine-wide lock ---- */

/*
 * flock(2) on the state directory itself: nothing is left behind in it
 * (tests and the harness guard expect an empty directory after a run).
 * -ENOENT when there is no directory yet: then there are no other
 * sessions either, and the first change creates it (save()). Nothing is
 * created for a request that changes nothing, so unprivileged runs that
 * need no change write nothing.
 */
static int lock_dir(void)
{
	int fd;

	fd = open(cstate_state_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			int err = -errno;

			close(fd);
			return err;
		}
	}
	return fd;
}

static void unlock_dir(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the flock */
}

/* ---- settings ---- */

static const char *setting_desc(const struct change *c, char *buf,
				size_t len)
{
	if (c->kind == K_RESUME)
		snprintf(buf, len, "cpu%u pm_qos_resume_latency_us", c->cpu);
	else if (c->kind == K_GOVERNOR)
		snprintf(buf, len, "cpuidle governor");
	else if (c->kind == K_HALTPOLL)
		snprintf(buf, len, "haltpoll guest_halt_poll_ns");
	else if (c->kind == K_SYSCTL)
		snprintf(buf, len, "sysctl %s", sysctls[c->idx]);
	else if (c->name[0])
		snprintf(buf, len, "cpu%u state%u (%s)", c->cpu, c->idx,
			 c->name);
	else
		snprintf(buf, len, "cpu%u state%u", c->cpu, c->idx);
	return buf;
}

/*
 * A state recorded by name may have moved (another driver, a reboot):
 * finds it by name. -ENOENT when the CPU has no state of that name.
 */
static int locate(struct change *c)
{
	struct idlestate st;
	int n;

	if (c->kind != K_STATE || !c->name[0])
		return 0;
	if (!idlestate_get(c->cpu, c->idx, &st) && !strcmp(st.name, c->name))
		return 0;
	n = idlestate_count(c->cpu);
	for (int i = 0; i < n; i++) {
		if (!idlestate_get(c->cpu, (unsigned int)i, &st) &&
		    !strcmp(st.name, c->name)) {
			c->idx = (unsigned int)i;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * The file behind a setting other than an idle state's: under the sysfs
 * root (0) or the sysctl root (1), its path in REL. -1 for K_STATE, which
 * goes through idlestate (the state may have moved: locate()).
 */
static int setting_file(const struct change *c, char *rel, size_t len)
{
	switch (c->kind) {
	case K_RESUME:
		snprintf(rel, len, RESUME_FILE, c->cpu);
		return 0;
	case K_GOVERNOR:
		snprintf(rel, len, "%s", GOVERNOR_FILE);
		return 0;
	case K_HALTPOLL:
		snprintf(rel, len, "%s", CSTATE_HALTPOLL_FILE);
		return 0;
	case K_SYSCTL:
		sysctl_rel(c->idx, rel, len);
		return 1;
	case K_STATE:
		break;
	}
	return -1;
}

static int setting_get(const struct change *c, char *val, size_t len)
{
	struct idlestate st;
	char rel[128];
	int err;

	switch (setting_file(c, rel, sizeof(rel))) {
	case 0:
		err = sysfs_read(val, len, "%s", rel);
		return err < 0 ? err : 0;
	case 1:
		err = procsys_read(val, len, rel);
		return err < 0 ? err : 0;
	}
	err = idlestate_get(c->cpu, c->idx, &st);
	if (err)
		return err;
	snprintf(val, len, "%d", st.disabled);
	return 0;
}

static int setting_put(const struct change *c, const char *val)
{
	char rel[128];

	switch (setting_file(c, rel, sizeof(rel))) {
	case 0:
		return sysfs_write(val, "%s", rel);
	case 1:
		return procsys_write(val, rel);
	}
	return idlestate_set_disabled(c->cpu, c->idx, !strcmp(val, "1"));
}

static int same_setting(const struct change *a, const struct change *b)
{
	return a->kind == b->kind && a->cpu == b->cpu &&
	       ((a->kind != K_STATE && a->kind != K_SYSCTL) || a->idx == b->idx);
}

static struct change *changes_add(struct changes *cs)
{
	if (cs->n == cs->cap) {
		int ncap = cs->cap ? 2 * cs->cap : 16;
		struct change *nv = realloc(cs->v, (size_t)ncap * sizeof(*nv));

		if (!nv)
			return NULL;
		cs->v = nv;
		cs->cap = ncap;
	}
	memset(&cs->v[cs->n], 0, sizeof(cs->v[0]));
	return &cs->v[cs->n++];
}

static struct change *changes_find(struct changes *cs, const struct change *key)
{
	for (int i = 0; i < cs->n; i++)
		if (same_setting(&cs->v[i], key))
			return &cs->v[i];
	return NULL;
}

/* ---- state files ---- */

/* Copies with truncation (snprintf "%s" warns about it). */
static void scopy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void chomp(char *line)
{
	size_t n = strlen(line);

	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
}

/* "haltpoll ORIG SET", "sysctl NAME ORIG SET"; -EBADMSG otherwise */
static int parse_mitigation(struct record *r, const char *line)
{
	char a[VAL_LEN], b[VAL_LEN], name[32];
	struct change *c;
	int n = -1, idx = 0;

	if (sscanf(line, "haltpoll %23s %23s%n", a, b, &n) != 2) {
		n = -1;
		if (sscanf(line, "sysctl %31s %23s %23s%n", name, a, b, &n) != 3)
			return -EBADMSG;
		idx = sysctl_index(name);
	}
	if (n != (int)strlen(line) || idx < 0 || !valid_num(a) || !valid_num(b))
		return -EBADMSG;
	c = changes_add(&r->ch);
	if (!c)
		return -ENOMEM;
	c->kind = line[0] == 'h' ? K_HALTPOLL : K_SYSCTL;
	c->idx = (unsigned int)idx;
	snprintf(c->orig, sizeof(c->orig), "%s", a);
	snprintf(c->set, sizeof(c->set), "%s", b);
	return 0;
}

static int parse_line(struct record *r, char *line)
{
	unsigned int cpu, idx;
	unsigned long long start;
	char a[VAL_LEN], b[VAL_LEN];
	int pid, orig, set, us, n = -1;
	struct change *c;

	chomp(line);
	if (!*line)
		return 0;
	if (!strncmp(line, "command ", 8) || !strcmp(line, "command")) {
		scopy(r->cmd, sizeof(r->cmd), line[7] ? line + 8 : "");
		return 0;
	}
	if (sscanf(line, "pid %d start %llu%n", &pid, &start, &n) == 2 &&
	    n == (int)strlen(line) && pid > 0) {
		r->pid = pid;
		r->start = start;
		return 0;
	}
	n = -1;
	if (sscanf(line, "pid %d%n", &pid, &n) == 1 &&
	    n == (int)strlen(line) && pid > 0) {
		r->pid = pid;
		return 0;
	}
	n = -1;
	if (sscanf(line, "pmqos %d%n", &us, &n) == 1 &&
	    n == (int)strlen(line) && us >= 0) {
		r->has_pmqos = 1;
		r->pmqos_us = us;
		return 0;
	}
	n = -1;
	if (sscanf(line, "state %u %u %d %d%n", &cpu, &idx, &orig, &set,
		   &n) == 4 && n > 0 && (orig == 0 || orig == 1) &&
	    (set == 0 || set == 1) &&
	    (!line[n] || (line[n] == ' ' && line[n + 1]))) {
		c = changes_add(&r->ch);
		if (!c)
			return -ENOMEM;
		c->kind = K_STATE;
		c->cpu = cpu;
		c->idx = idx;
		snprintf(c->orig, sizeof(c->orig), "%d", orig);
		snprintf(c->set, sizeof(c->set), "%d", set);
		if (line[n])
			scopy(c->name, sizeof(c->name), line + n + 1);
		return 0;
	}
	n = -1;
	if (sscanf(line, "resume %u %23s %23s%n", &cpu, a, b, &n) == 3 &&
	    n == (int)strlen(line) && valid_resume(a) && valid_resume(b)) {
		c = changes_add(&r->ch);
		if (!c)
			return -ENOMEM;
		c->kind = K_RESUME;
		c->cpu = cpu;
		snprintf(c->orig, sizeof(c->orig), "%s", a);
		snprintf(c->set, sizeof(c->set), "%s", b);
		return 0;
	}
	n = -1;
	if (sscanf(line, "governor %23s %23s%n", a, b, &n) == 2 &&
	    n == (int)strlen(line) && valid_governor(a) && valid_governor(b)) {
		c = changes_add(&r->ch);
		if (!c)
			return -ENOMEM;
		c->kind = K_GOVERNOR;
		snprintf(c->orig, sizeof(c->orig), "%s", a);
		snprintf(c->set, sizeof(c->set), "%s", b);
		return 0;
	}
	return parse_mitigation(r, line);
}

/* 0, -errno, or -EINVAL when it is not a wakebench state file. */
static int read_record(const char *path, struct record *r)
{
	char line[4096];
	int lineno = 1, ret = 0;
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", path);
	/* a state file is trusted only as a regular file, never through a link */
	f = rfile_fopen_quiet(path);
	if (!f)
		return errno ? -errno : -EINVAL;
	if (!fgets(line, sizeof(line), f) ||
	    strncmp(line, STATE_MAGIC, strlen(STATE_MAGIC))) {
		fclose(f);
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		int err;

		lineno++;
		err = parse_line(r, line);
		if (err == -ENOMEM) {
			ret = err;
			break;
		}
		if (err && !r->bad_line) {
			r->bad_line = lineno;
			scopy(r->bad, sizeof(r->bad), line);
		}
	}
	fclose(f);
	if (!ret && !r->pid && !r->bad_line) {
		r->bad_line = 2;
		snprintf(r->bad, sizeof(r->bad), "(no pid line)");
	}
	return ret;
}

static void free_records(struct record *rs, int n)
{
	for (int i = 0; i < n; i++)
		free(rs[i].ch.v);
	free(rs);
}

/* Every other state file in the state directory (call under the lock). */
static int load_others(const char *self, struct record **out, int *nout)
{
	struct record *rs = NULL;
	int n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir(cstate_state_dir());

	*out = NULL;
	*nout = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char path[600];

		if (strncmp(de->d_name, "cstate.", 7) || len < 13 ||
		    strcmp(de->d_name + len - 6, ".state"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", cstate_state_dir(),
			 de->d_name);
		if (self && !strcmp(path, self))
			continue;
		if (n == cap) {
			int ncap = cap ? 2 * cap : 8;
			struct record *nr = realloc(rs, (size_t)ncap * sizeof(*nr));

			if (!nr) {
				closedir(d);
				free_records(rs, n);
				return -ENOMEM;
			}
			rs = nr;
			cap = ncap;
		}
		if (read_record(path, &rs[n])) {
			free(rs[n].ch.v);
			continue;
		}
		rs[n].alive = record_alive(&rs[n]);
		/* A killed PM QoS holder: the kernel dropped its hold. */
		if (!rs[n].alive && !rs[n].ch.n && !rs[n].bad_line) {
			unlink(path);
			free(rs[n].ch.v);
			continue;
		}
		n++;
	}
	closedir(d);
	*out = rs;
	*nout = n;
	return 0;
}

/* The last live holder of a setting among the records, or NULL. */
static const struct change *live_holder(struct record *rs, int n,
					const struct change *key,
					const struct record **who)
{
	const struct change *found = NULL;

	for (int i = 0; i < n; i++) {
		struct change *c;

		if (!rs[i].alive)
			continue;
		c = changes_find(&rs[i].ch, key);
		if (c) {
			found = c;
			*who = &rs[i];
		}
	}
	return found;
}

/* Rewrites the state file: a temporary file renamed over the old one. */
static int save(struct cstate_session *s)
{
	char tmp[600];
	FILE *f;

	if (mkdir(cstate_state_dir(), 0755) && errno != EEXIST)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s.tmp", s->path);
	f = wfile_open(tmp);
	if (!f)
		return -errno;
	fprintf(f, STATE_MAGIC "\npid %d start %llu\ncommand %s\n",
		(int)getpid(), s->start, s->cmdline);
	if (s->pmqos_fd >= 0)
		fprintf(f, "pmqos %d\n", (int)s->pmqos_us);
	for (int i = 0; i < s->ch.n; i++) {
		const struct change *c = &s->ch.v[i];

		if (c->kind == K_RESUME)
			fprintf(f, "resume %u %s %s\n", c->cpu, c->orig, c->set);
		else if (c->kind == K_GOVERNOR)
			fprintf(f, "governor %s %s\n", c->orig, c->set);
		else if (c->kind == K_HALTPOLL)
			fprintf(f, "haltpoll %s %s\n", c->orig, c->set);
		else if (c->kind == K_SYSCTL)
			fprintf(f, "sysctl %s %s %s\n", sysctls[c->idx], c->orig,
				c->set);
		else if (c->name[0])
			fprintf(f, "state %u %u %s %s %s\n", c->cpu, c->idx,
				c->orig, c->set, c->name);
		else
			fprintf(f, "state %u %u %s %s\n", c->cpu, c->idx,
				c->orig, c->set);
	}
	if (fclose(f)) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, s->path)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}

static void holder_msg(char *buf, size_t len, const char *what,
		       const char *val, const struct record *who)
{
	snprintf(buf, len,
		 "%s is held at %s by pid %d (%s); use --force to override",
		 what, val, who->pid, who->cmd[0] ? who->cmd : "?");
}

/*
 * Takes a setting to val in s (call under the lock, with the other
 * sessions' records): joins a live holder of the same value, refuses a
 * different value unless forced, records the true original, saves, then
 * writes.
 */
static int take(struct cstate_session *s, struct record *rs, int nrec,
		const struct change *key, const char *val)
{
	char cur[VAL_LEN], desc[96];
	struct change *c;
	int err, added = 0;

	err = setting_get(key, cur, sizeof(cur));
	if (err)
		return err;
	c = changes_find(&s->ch, key);
	if (!c) {
		const char *orig = cur;
		int held = 0;

		for (int i = 0; i < nrec; i++) {
			struct change *o = changes_find(&rs[i].ch, key);

			if (!o)
				continue;
			held = 1;
			if (rs[i].alive && strcmp(o->set, val) && !s->force) {
				holder_msg(s->err, sizeof(s->err),
					   setting_desc(key, desc, sizeof(desc)),
					   o->kind == K_STATE ?
					   (!strcmp(o->set, "1") ? "disabled" :
					    "enabled") : o->set, &rs[i]);
				return -EBUSY;
			}
			/* Its holder set what is there: it knows the original. */
			if (!strcmp(o->set, cur))
				orig = o->orig;
		}
		/* Already so, and no session to join: nothing to hold. */
		if (!held && !strcmp(cur, val))
			return 0;
		c = changes_add(&s->ch);
		if (!c)
			return -ENOMEM;
		*c = *key;
		snprintf(c->orig, sizeof(c->orig), "%s", orig);
		added = 1;
	}
	snprintf(c->set, sizeof(c->set), "%s", val);
	/* The original is on disk before the kernel sees the change. */
	err = save(s);
	if (err && added && !strcmp(cur, val) &&
	    (err == -EACCES || err == -EPERM || err == -EROFS)) {
		s->ch.n--;	/* joining needs no write: go on unrecorded */
		return 0;
	}
	if (err)
		return err;
	if (!strcmp(cur, val))
		return 0;
	return setting_put(c, val);
}

static int state_key(unsigned int cpu, unsigned int idx, struct change *key)
{
	struct idlestate st;
	int err = idlestate_get(cpu, idx, &st);

	if (err)
		return err;
	memset(key, 0, sizeof(*key));
	key->kind = K_STATE;
	key->cpu = cpu;
	key->idx = idx;
	snprintf(key->name, sizeof(key->name), "%s", st.name);
	return 0;
}

static int take_locked(struct cstate_session *s, const struct change *key,
		       const char *val)
{
	struct record *rs;
	int nrec, err, fd = lock_dir();

	s->err[0] = '\0';
	if (fd < 0 && fd != -ENOENT)
		return fd;
	err = load_others(s->path, &rs, &nrec);
	if (!err)
		err = take(s, rs, nrec, key, val);
	free_records(rs, nrec);
	unlock_dir(fd);
	return err;
}

int cstate_set(struct cstate_session *s, unsigned int cpu, unsigned int idx,
	       int disabled)
{
	struct change key;
	int err = state_key(cpu, idx, &key);

	if (err)
		return err;
	return take_locked(s, &key, disabled ? "1" : "0");
}

int cstate_set_governor(struct cstate_session *s, const char *name)
{
	struct change key = { .kind = K_GOVERNOR };

	if (!valid_governor(name))
		return -EINVAL;
	return take_locked(s, &key, name);
}

int cstate_set_haltpoll_ns(struct cstate_session *s, uint64_t ns)
{
	struct change key = { .kind = K_HALTPOLL };
	char val[VAL_LEN];

	snprintf(val, sizeof(val), "%llu", (unsigned long long)ns);
	return take_locked(s, &key, val);
}

int cstate_set_busy_poll(struct cstate_session *s, uint64_t us)
{
	char val[VAL_LEN];
	int err = 0;

	snprintf(val, sizeof(val), "%llu", (unsigned long long)us);
	for (unsigned int i = 0; i < NSYSCTLS && !err; i++) {
		struct change key = { .kind = K_SYSCTL, .idx = i };

		err = take_locked(s, &key, val);
	}
	return err;
}

int cstate_set_resume(struct cstate_session *s, unsigned int cpu,
		      const char *val)
{
	struct change key = { .kind = K_RESUME, .cpu = cpu };

	if (!valid_resume(val))
		return -EINVAL;
	return take_locked(s, &key, val);
}

static const char *pmqos_dev(void)
{
	const char *dev = getenv("WAKEBENCH_PMQOS_DEV");

	return dev && *dev ? dev : CSTATE_PMQOS_DEV;
}

int cstate_pmqos_read(int32_t *us)
{
	int fd = open(pmqos_dev(), O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (read(fd, us, sizeof(*us)) != sizeof(*us))
		ret = -EIO;
	close(fd);
	return ret;
}

int cstate_resume_read(unsigned int cpu, char *buf, size_t len)
{
	int n = sysfs_read(buf, len, RESUME_FILE, cpu);

	return n < 0 ? n : 0;
}

/* Call under the lock. */
static int pmqos_take(struct cstate_session *s, struct record *rs, int nrec,
		      int32_t us)
{
	int fd;

	for (int i = 0; i < nrec && !s->force; i++) {
		if (rs[i].alive && rs[i].has_pmqos && rs[i].pmqos_us != us) {
			snprintf(s->err, sizeof(s->err),
				 "%s is held at %d us by pid %d (%s); use --force to override",
				 CSTATE_PMQOS_DEV, (int)rs[i].pmqos_us, rs[i].pid,
				 rs[i].cmd[0] ? rs[i].cmd : "?");
			return -EBUSY;
		}
	}
	fd = open(pmqos_dev(), O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, &us, sizeof(us)) != sizeof(us)) {
		int err = errno ? -errno : -EIO;

		close(fd);
		return err;
	}
	if (s->pmqos_fd >= 0)
		close(s->pmqos_fd);
	s->pmqos_fd = fd;
	s->pmqos_us = us;
	/* Recorded for the conflict check of other sessions only. */
	return save(s);
}

int cstate_pmqos_hold(struct cstate_session *s, int32_t us)
{
	struct record *rs;
	int nrec, err, fd = lock_dir();

	s->err[0] = '\0';
	if (fd < 0) {
		/* Without a state directory the hold still works. */
		rs = NULL;
		nrec = 0;
		err = 0;
	} else {
		err = load_others(s->path, &rs, &nrec);
	}
	if (!err) {
		err = pmqos_take(s, rs, nrec, us);
		if (fd < 0 && err && s->pmqos_fd >= 0)
			err = 0;	/* held; only the record failed */
	}
	free_records(rs, nrec);
	unlock_dir(fd);
	return err;
}

/*
 * Gives back one setting of an ending session (under the lock): to the
 * value of a remaining live holder, else to the original where it still
 * holds the value set. 1 when left alone because it changed since.
 */
static int give_back(const struct change *c, struct record *rs, int nrec,
		     int *err)
{
	const struct record *who = NULL;
	const struct change *other = live_holder(rs, nrec, c, &who);
	char cur[VAL_LEN];

	*err = setting_get(c, cur, sizeof(cur));
	if (*err)
		return 0;
	if (strcmp(cur, c->set))
		return other ? 0 : 1;
	if (other) {
		if (strcmp(other->set, cur))
			*err = setting_put(c, other->set);
		return 0;
	}
	if (strcmp(cur, c->orig))
		*err = setting_put(c, c->orig);
	return 0;
}

/* Gives back s's changes from index from on (call under the lock). */
static int restore_changes(struct cstate_session *s, int from,
			   struct record *rs, int nrec)
{
	int left = 0, first_err = 0;

	for (int i = s->ch.n - 1; i >= from; i--) {
		int err;

		left += give_back(&s->ch.v[i], rs, nrec, &err);
		if (err && !first_err)
			first_err = err;
	}
	s->ch.n = from;
	if (first_err)
		return first_err;
	return left;
}

static struct cstate_session *exit_session;

static void unlink_session(struct cstate_session *s)
{
	for (struct cstate_session **p = &live_sessions; *p; p = &(*p)->next) {
		if (*p == s) {
			*p = s->next;
			break;
		}
	}
	if (exit_session == s)
		exit_session = NULL;
}

static void free_session(struct cstate_session *s)
{
	if (s->pmqos_fd >= 0)
		close(s->pmqos_fd);
	free(s->ch.v);
	free(s->cmdline);
	free(s);
}

int cstate_end(struct cstate_session *s)
{
	struct record *rs = NULL;
	int ret, nrec = 0, fd;

	if (!s)
		return 0;
	unlink_session(s);
	fd = s->ch.n ? lock_dir() : -1;
	if (s->ch.n && fd < 0 && fd != -ENOENT) {
		ret = fd;
	} else {
		ret = load_others(s->path, &rs, &nrec);
		if (!ret)
			ret = restore_changes(s, 0, rs, nrec);
	}
	/* Keep the state file when a restore failed: `restore` can retry. */
	if (ret >= 0)
		unlink(s->path);
	free_records(rs, nrec);
	unlock_dir(fd);
	free_session(s);
	return ret;
}

void cstate_detach(struct cstate_session *s)
{
	unlink_session(s);
	free_session(s);
}

static void end_at_exit(void)
{
	if (exit_session)
		cstate_end(exit_session);
}

void cstate_end_at_exit(struct cstate_session *s)
{
	static int registered;

	exit_session = s;
	if (!registered && !atexit(end_at_exit))
		registered = 1;
}

static int want_state(const struct cstate_spec *spec,
		      const struct idlestate *st)
{
	switch (spec->mode) {
	case CSTATE_ON:
		return 0;
	case CSTATE_OFF:
		return st->latency_us > 0;
	default:
		return st->latency_us > spec->max_latency_us;
	}
}

static const char *needs_root(int err)
{
	return err == -EACCES || err == -EPERM ? " (needs root)" : "";
}

/*
 * What an applied spec can do here. Without a cpuidle driver the CPUs
 * have no idle states to disable, and the PM QoS limits set are read by
 * no one (the governors that read them come with the driver): the
 * change succeeds and acts on nothing, so it is said, in the session's
 * warning and in the effect the run's snapshot records.
 */
static void note_effect(struct cstate_session *s, const struct cstate_spec *spec,
			int nstates, const struct cpuset *resumed,
			const char *resume)
{
	char drv[64], list[128] = "", sys[96] = "";

	if (spec->mode == CSTATE_ON) {
		run_effect[0] = '\0';
		return;
	}
	if (nstates) {
		snprintf(run_effect, sizeof(run_effect), "idle_states_and_pm_qos");
		return;
	}
	snprintf(run_effect, sizeof(run_effect), "pm_qos_only: no cpuidle driver");
	idlestate_driver(drv, sizeof(drv));
	if (cpuset_format_list(resumed, list, sizeof(list)) < 0)
		snprintf(list, sizeof(list), "%d CPUs", cpuset_count(resumed));
	if (spec->system)
		snprintf(sys, sizeof(sys), "%s%s held at %d us",
			 list[0] ? ", " : "", CSTATE_PMQOS_DEV,
			 spec->mode == CSTATE_OFF ? 0 : (int)spec->max_latency_us);
	snprintf(s->warning, sizeof(s->warning),
		 "no cpuidle driver (current_driver: %s): no idle state was disabled; only PM QoS changed (%s%s%s%s%s), which nothing reads without a cpuidle driver",
		 drv[0] ? drv : "none", list[0] ? "pm_qos_resume_latency_us of CPUs " : "",
		 list, list[0] ? " to " : "", list[0] ? resume : "", sys);
	if (!list[0] && !sys[0])
		snprintf(s->warning, sizeof(s->warning),
			 "no cpuidle driver (current_driver: %s): nothing changed (no idle states, no pm_qos_resume_latency_us files)",
			 drv[0] ? drv : "none");
}

const char *cstate_warning(const struct cstate_session *s)
{
	return s ? s->warning : "";
}

const char *cstate_effect(void)
{
	return run_effect;
}

/* What cstate_apply() carries from CPU to CPU. */
struct apply {
	struct cstate_session *s;
	const struct cstate_spec *spec;
	struct record *rs;	/* the other sessions */
	int nrec;
	const char *resume;	/* the resume latency limit to set */
	char *err;
	size_t errlen;
	int nstates;		/* idle states seen (pass 1) */
	struct cpuset *resumed;	/* CPUs whose resume latency limit was set */
};

/*
 * One CPU of cstate_apply(): its states, then its resume latency limit
 * where it has one. Pass 0 only checks; pass 1 changes. 0 or -errno
 * with the message in a->err.
 */
static int apply_cpu(struct apply *a, int cpu, int pass)
{
	struct cstate_session *s = a->s;
	struct change key;
	char cur[VAL_LEN];
	int n = idlestate_count((unsigned int)cpu), ret;

	a->nstates += pass ? n : 0;
	for (int i = 0; i < n; i++) {
		struct idlestate st;

		ret = idlestate_get((unsigned int)cpu, (unsigned int)i, &st);
		if (ret) {
			snprintf(a->err, a->errlen, "cpu%d state%d: %s", cpu, i,
				 strerror(-ret));
			return ret;
		}
		if (!pass)
			continue;
		ret = state_key((unsigned int)cpu, (unsigned int)i, &key);
		if (!ret)
			ret = take(s, a->rs, a->nrec, &key,
				   want_state(a->spec, &st) ? "1" : "0");
		if (ret) {
			snprintf(a->err, a->errlen, "cannot %s cpu%d state%d (%s): %s%s",
				 want_state(a->spec, &st) ? "disable" : "enable",
				 cpu, i, st.name, ret == -EBUSY ? s->err :
				 strerror(-ret), needs_root(ret));
			return ret;
		}
	}
	key = (struct change){ .kind = K_RESUME, .cpu = (unsigned int)cpu };
	if (setting_get(&key, cur, sizeof(cur)) || !pass)
		return 0;
	ret = take(s, a->rs, a->nrec, &key, a->resume);
	if (ret) {
		snprintf(a->err, a->errlen,
			 "cannot set cpu%d pm_qos_resume_latency_us to %s: %s%s",
			 cpu, a->resume, ret == -EBUSY ? s->err : strerror(-ret),
			 needs_root(ret));
		return ret;
	}
	cpuset_set(a->resumed, cpu);
	return 0;
}

int cstate_apply(struct cstate_session *s, const struct cstate_spec *spec,
		 const struct cpuset *mask, char *err, size_t errlen)
{
	struct apply a = { .s = s, .spec = spec, .err = err, .errlen = errlen };
	int from = s->ch.n, ret = 0, fd;
	int cpus = idlestate_cpu_count();
	char resume[VAL_LEN];

	s->err[0] = '\0';
	s->warning[0] = '\0';
	if (mask && mask->n < cpus)
		cpus = mask->n;
	/* on lifts a per-CPU limit: "0" is no constraint. */
	if (spec->mode == CSTATE_ON)
		snprintf(resume, sizeof(resume), "0");
	else
		cstate_resume_value(spec->mode == CSTATE_OFF ? 0 :
				    spec->max_latency_us, resume,
				    sizeof(resume));
	a.resume = resume;
	a.resumed = cpuset_new(cpus > 0 ? cpus : 1);
	if (!a.resumed) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fd = lock_dir();
	if (fd < 0 && fd != -ENOENT) {
		ret = fd;
		snprintf(err, errlen, "cannot lock %s: %s%s", cstate_state_dir(),
			 strerror(-ret), needs_root(ret));
		cpuset_free(a.resumed);
		return ret;
	}
	ret = load_others(s->path, &a.rs, &a.nrec);
	if (ret) {
		snprintf(err, errlen, "cannot read %s: %s", cstate_state_dir(),
			 strerror(-ret));
		goto out;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (int cpu = 0; cpu < cpus; cpu++) {
			if (mask && !cpuset_test(mask, cpu))
				continue;
			ret = apply_cpu(&a, cpu, pass);
			if (ret)
				goto fail;
		}
	}
	if (spec->system && spec->mode != CSTATE_ON) {
		int32_t us = spec->mode == CSTATE_OFF ? 0 :
			     (int32_t)spec->max_latency_us;

		ret = pmqos_take(s, a.rs, a.nrec, us);
		if (ret) {
			snprintf(err, errlen, "cannot hold %s: %s%s",
				 CSTATE_PMQOS_DEV, ret == -EBUSY ? s->err :
				 strerror(-ret), needs_root(ret));
			goto fail;
		}
	}
	note_effect(s, spec, a.nstates, a.resumed, resume);
	goto out;
fail:
	restore_changes(s, from, a.rs, a.nrec);
	save(s);
out:
	cpuset_free(a.resumed);
	free_records(a.rs, a.nrec);
	unlock_dir(fd);
	return ret;
}

int cstate_restore_file(const char *path, void (*report)(const char *msg))
{
	struct record r, *rs = NULL;
	char msg[1600], desc[96], bad[700];
	int restored = 0, ret = 0, nrec = 0, fd;

	ret = read_record(path, &r);
	if (ret) {
		free(r.ch.v);
		return ret;
	}
	if (r.pid && record_alive(&r)) {
		free(r.ch.v);
		return -EBUSY;
	}
	if (r.bad_line && report) {
		snprintf(msg, sizeof(msg), "%s line %d not understood: '%s'",
			 path, r.bad_line, r.bad);
		report(msg);
	}
	/* A file without an owner line: nothing in it can be trusted. */
	if (!r.pid)
		r.ch.n = 0;
	fd = lock_dir();
	if (fd >= 0 && load_others(path, &rs, &nrec))
		r.ch.n = 0;	/* out of memory: try again later */
	for (int i = 0; i < r.ch.n; i++) {
		struct change *c = &r.ch.v[i];
		const struct record *who = NULL;
		int err, left;

		if (locate(c)) {
			snprintf(msg, sizeof(msg), "%s: no such state now; skipped",
				 setting_desc(c, desc, sizeof(desc)));
			if (report)
				report(msg);
			continue;
		}
		setting_desc(c, desc, sizeof(desc));
		if (live_holder(rs, nrec, c, &who)) {
			snprintf(msg, sizeof(msg), "%s held by pid %d (%s); left for it",
				 desc, who->pid, who->cmd);
			if (report)
				report(msg);
			continue;
		}
		left = give_back(c, NULL, 0, &err);
		if (left) {
			snprintf(msg, sizeof(msg), "%s changed since; left as is",
				 desc);
		} else if (err) {
			snprintf(msg, sizeof(msg), "%s: %s", desc, strerror(-err));
			if (!ret)
				ret = err;
		} else if (c->kind != K_STATE) {
			/* "cpu1 pm_qos_resume_latency_us 0", "cpuidle governor menu" */
			snprintf(msg, sizeof(msg), "%s %s", desc, c->orig);
			restored++;
		} else {
			/* "cpuN stateI disabled (name)" */
			snprintf(msg, sizeof(msg), "cpu%u state%u %s%s%s%s", c->cpu,
				 c->idx, !strcmp(c->orig, "1") ? "disabled" :
				 "enabled", c->name[0] ? " (" : "", c->name,
				 c->name[0] ? ")" : "");
			restored++;
		}
		if (report)
			report(msg);
	}
	free_records(rs, nrec);
	if (r.bad_line && !ret) {
		/* Not understood: moved aside so it does not stay forever. */
		snprintf(bad, sizeof(bad), "%s.bad", path);
		ret = rename(path, bad) ? -errno : -EBADMSG;
		if (report && ret == -EBADMSG) {
			snprintf(msg, sizeof(msg), "%s moved aside to %s", path, bad);
			report(msg);
		}
	} else if (!ret) {
		unlink(path);
	}
	unlock_dir(fd);
	free(r.ch.v);
	return ret ? ret : restored;
}

int cstate_describe_file(const char *path,
			 void (*line)(void *ctx, const char *text), void *ctx)
{
	struct record r;
	char msg[1600], desc[96], cur[VAL_LEN];
	int ret = read_record(path, &r), alive;

	if (ret) {
		free(r.ch.v);
		return ret;
	}
	alive = r.pid && record_alive(&r);
	snprintf(msg, sizeof(msg), "%s: pid %d%s%s%s, %s", path, r.pid,
		 r.cmd[0] ? " (" : "", r.cmd, r.cmd[0] ? ")" : "",
		 !r.pid ? "no owner line" : alive ? "running" : "not running");
	line(ctx, msg);
	for (int i = 0; i < r.ch.n; i++) {
		struct change *c = &r.ch.v[i];

		if (locate(c)) {
			snprintf(msg, sizeof(msg), "  %s: no such state now",
				 setting_desc(c, desc, sizeof(desc)));
		} else if (setting_get(c, cur, sizeof(cur))) {
			snprintf(msg, sizeof(msg), "  %s: cannot be read now",
				 setting_desc(c, desc, sizeof(desc)));
		} else {
			/* "cpu1 state1 (C1) disable 1 -> 0": now -> restored */
			setting_desc(c, desc, sizeof(desc));
			snprintf(msg, sizeof(msg), "  %s%s %s -> %s%s%s", desc,
				 c->kind == K_STATE ? " disable" : "", cur, c->orig,
				 strcmp(cur, c->set) ? " (changed since it was set to " :
				 !strcmp(cur, c->orig) ? " (already the original)" : "",
				 strcmp(cur, c->set) ? c->set : "");
			if (strcmp(cur, c->set))
				snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
					 ": left as is)");
		}
		line(ctx, msg);
	}
	if (r.has_pmqos) {
		snprintf(msg, sizeof(msg), "  %s held at %d us (the kernel drops it when the process ends: nothing to restore)",
			 CSTATE_PMQOS_DEV, r.pmqos_us);
		line(ctx, msg);
	}
	if (r.bad_line) {
		snprintf(msg, sizeof(msg), "  line %d not understood: '%s'",
			 r.bad_line, r.bad);
		line(ctx, msg);
	}
	free(r.ch.v);
	return alive;
}

struct cstate_session *cstate_run_begin_cpus(const struct cstate_spec *spec,
					     const struct cpuset *mask,
					     const char *cmdline,
					     char *err, size_t errlen)
{
	struct cstate_session *s;

	cstate_run_signals();
	s = cstate_begin(cmdline);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	cstate_end_at_exit(s);
	if (cstate_apply(s, spec, mask, err, errlen)) {
		cstate_end(s);
		s = NULL;
	}
	return s;
}

struct cstate_session *cstate_run_begin(const struct cstate_spec *spec,
					int cpu, const char *cmdline,
					char *err, size_t errlen)
{
	struct cstate_session *s;
	struct cpuset *mask = NULL;

	if (cpu >= 0) {
		mask = cpuset_new(cpu + 1);
		if (!mask) {
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		cpuset_set(mask, cpu);
	}
	s = cstate_run_begin_cpus(spec, mask, cmdline, err, errlen);
	cpuset_free(mask);
	return s;
}

const char *cstate_spec_name(const struct cstate_spec *spec, char *buf,
			     size_t len)
{
	const char *sys = spec->system ? "system-" : "";

	switch (spec->mode) {
	case CSTATE_ON:
		snprintf(buf, len, "on");
		break;
	case CSTATE_OFF:
		snprintf(buf, len, "%soff", sys);
		break;
	case CSTATE_MAXLAT:
		snprintf(buf, len, "%smax-latency-us=%llu", sys,
			 (unsigned long long)spec->max_latency_us);
		break;
	}
	return buf;
}

/* Lower case, with '_' and '-' for a space. */
static int name_eq(const char *name, const char *spec)
{
	for (;; name++, spec++) {
		int a = tolower((unsigned char)*name);
		int b = tolower((unsigned char)*spec);

		if (b == '_' || b == '-')
			b = ' ';
		if (a != b)
			return 0;
		if (!a)
			return 1;
	}
}

int cstate_resolve(unsigned int cpu, const char *spec)
{
	int n = idlestate_count(cpu), idx, found = -ENOENT;
	size_t len = strlen(spec);

	idx = idlestate_resolve(cpu, spec);
	if (idx >= 0 || !len)
		return idx;
	for (int i = 0; i < n; i++) {
		struct idlestate st;

		if (!idlestate_get(cpu, (unsigned int)i, &st) &&
		    name_eq(st.name, spec))
			return i;
	}
	/* The first word of exactly one name. */
	for (int i = 0; i < n; i++) {
		struct idlestate st;

		if (idlestate_get(cpu, (unsigned int)i, &st) ||
		    strlen(st.name) <= len || st.name[len] != ' ' ||
		    strncasecmp(st.name, spec, len))
			continue;
		if (found >= 0)
			return -ENOTUNIQ;
		found = i;
	}
	return found;
}
