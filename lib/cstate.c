// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cstate.h"
#include "idlestate.h"
#include "opt.h"

#define STATE_MAGIC "wakebench-cstate 1"

struct change {
	unsigned int cpu, idx;
	int orig, set;
};

struct cstate_session {
	char path[512];
	char *cmdline;
	struct change *ch;
	int n, cap;
	int pmqos_fd;
};

int cstate_spec_parse(const char *s, struct cstate_spec *spec)
{
	uint64_t v;

	if (!strcmp(s, "on")) {
		*spec = (struct cstate_spec){ .mode = CSTATE_ON };
		return 0;
	}
	if (!strcmp(s, "off")) {
		*spec = (struct cstate_spec){ .mode = CSTATE_OFF };
		return 0;
	}
	if (!strncmp(s, "max-latency-us=", 15) &&
	    !opt_u64(s + 15, 0, INT32_MAX, &v)) {
		*spec = (struct cstate_spec){ .mode = CSTATE_MAXLAT,
					      .max_latency_us = v };
		return 0;
	}
	return -1;
}

void cstate_spec_opt(const char *prog, const char *arg,
		     struct cstate_spec *spec)
{
	if (cstate_spec_parse(arg, spec))
		opt_usage(prog, "invalid --cstates '%s' (on, off or max-latency-us=N)",
			  arg);
}

const char *cstate_state_dir(void)
{
	const char *d = getenv("WAKEBENCH_STATE_DIR");

	return d && *d ? d : "/run/wakebench";
}

struct cstate_session *cstate_begin(const char *cmdline)
{
	struct cstate_session *s = calloc(1, sizeof(*s));

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
	snprintf(s->path, sizeof(s->path), "%s/cstate.%d.state",
		 cstate_state_dir(), (int)getpid());
	return s;
}

int cstate_changes(const struct cstate_session *s)
{
	return s->n;
}

/* Rewrites the state file: a temporary file renamed over the old one. */
static int save(struct cstate_session *s)
{
	char tmp[600];
	FILE *f;

	if (mkdir(cstate_state_dir(), 0755) && errno != EEXIST)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s.tmp", s->path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, STATE_MAGIC "\npid %d\ncommand %s\n", (int)getpid(),
		s->cmdline);
	for (int i = 0; i < s->n; i++)
		fprintf(f, "state %u %u %d %d\n", s->ch[i].cpu, s->ch[i].idx,
			s->ch[i].orig, s->ch[i].set);
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

int cstate_set(struct cstate_session *s, unsigned int cpu, unsigned int idx,
	       int disabled)
{
	struct idlestate st;
	struct change *c = NULL;
	int err;

	err = idlestate_get(cpu, idx, &st);
	if (err)
		return err;
	for (int i = 0; i < s->n; i++)
		if (s->ch[i].cpu == cpu && s->ch[i].idx == idx)
			c = &s->ch[i];
	if (!c) {
		if (s->n == s->cap) {
			int ncap = s->cap ? 2 * s->cap : 16;
			struct change *nc = realloc(s->ch, ncap * sizeof(*nc));

			if (!nc)
				return -ENOMEM;
			s->ch = nc;
			s->cap = ncap;
		}
		c = &s->ch[s->n++];
		*c = (struct change){ cpu, idx, st.disabled, disabled };
	}
	c->set = disabled;
	/* The original is on disk before the kernel sees the change. */
	err = save(s);
	if (err)
		return err;
	return idlestate_set_disabled(cpu, idx, disabled);
}

int cstate_pmqos_hold(struct cstate_session *s, int32_t us)
{
	const char *dev = getenv("WAKEBENCH_PMQOS_DEV");
	int fd;

	if (!dev || !*dev)
		dev = CSTATE_PMQOS_DEV;
	fd = open(dev, O_WRONLY | O_CLOEXEC);
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
	return 0;
}

/* Restore one state under the compare rule; 1 if left alone. */
static int restore_one(unsigned int cpu, unsigned int idx, int orig, int set,
		       int *err)
{
	struct idlestate st;

	*err = idlestate_get(cpu, idx, &st);
	if (*err)
		return 0;
	if (st.disabled != set)
		return 1;
	if (st.disabled != orig)
		*err = idlestate_set_disabled(cpu, idx, orig);
	return 0;
}

static int restore_changes(struct cstate_session *s, int from)
{
	int left = 0, first_err = 0;

	for (int i = s->n - 1; i >= from; i--) {
		int err;

		left += restore_one(s->ch[i].cpu, s->ch[i].idx, s->ch[i].orig,
				    s->ch[i].set, &err);
		if (err && !first_err)
			first_err = err;
	}
	s->n = from;
	if (first_err)
		return first_err;
	return left;
}

static struct cstate_session *exit_session;

int cstate_end(struct cstate_session *s)
{
	int ret;

	if (!s)
		return 0;
	if (exit_session == s)
		exit_session = NULL;
	ret = restore_changes(s, 0);
	if (s->pmqos_fd >= 0)
		close(s->pmqos_fd);
	/* Keep the state file when a restore failed: `restore` can retry. */
	if (ret >= 0)
		unlink(s->path);
	free(s->ch);
	free(s->cmdline);
	free(s);
	return ret;
}

void cstate_detach(struct cstate_session *s)
{
	if (exit_session == s)
		exit_session = NULL;
	if (s->pmqos_fd >= 0)
		close(s->pmqos_fd);
	free(s->ch);
	free(s->cmdline);
	free(s);
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

int cstate_apply(struct cstate_session *s, const struct cstate_spec *spec,
		 const unsigned char *mask, int ncpus, char *err,
		 size_t errlen)
{
	int from = s->n, ret = 0;
	int cpus = idlestate_cpu_count();

	if (mask && ncpus < cpus)
		cpus = ncpus;
	for (int pass = 0; pass < 2; pass++) {
		for (int cpu = 0; cpu < cpus; cpu++) {
			int n;

			if (mask && !mask[cpu])
				continue;
			n = idlestate_count((unsigned int)cpu);
			for (int i = 0; i < n; i++) {
				struct idlestate st;
				int want;

				ret = idlestate_get((unsigned int)cpu,
						    (unsigned int)i, &st);
				if (ret) {
					snprintf(err, errlen, "cpu%d state%d: %s",
						 cpu, i, strerror(-ret));
					goto fail;
				}
				switch (spec->mode) {
				case CSTATE_ON:
					want = 0;
					break;
				case CSTATE_OFF:
					want = st.latency_us > 0;
					break;
				default:
					want = st.latency_us > spec->max_latency_us;
					break;
				}
				/* Pass 0 only checks; pass 1 changes. */
				if (!pass || want == st.disabled)
					continue;
				ret = cstate_set(s, (unsigned int)cpu,
						 (unsigned int)i, want);
				if (ret) {
					snprintf(err, errlen,
						 "cannot %s cpu%d state%d (%s): %s%s",
						 want ? "disable" : "enable", cpu,
						 i, st.name, strerror(-ret),
						 ret == -EACCES || ret == -EPERM ?
						 " (needs root)" : "");
					goto fail;
				}
			}
		}
	}
	if (spec->mode != CSTATE_ON) {
		int32_t us = spec->mode == CSTATE_OFF ? 0 :
			     (int32_t)spec->max_latency_us;

		ret = cstate_pmqos_hold(s, us);
		if (ret) {
			snprintf(err, errlen, "cannot hold %s: %s%s",
				 CSTATE_PMQOS_DEV, strerror(-ret),
				 ret == -EACCES || ret == -EPERM ?
				 " (needs root)" : "");
			goto fail;
		}
	}
	return 0;
fail:
	restore_changes(s, from);
	return ret;
}

int cstate_restore_file(const char *path, void (*report)(const char *msg))
{
	char line[4096], msg[256];
	int pid = 0, restored = 0, ret = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f) ||
	    strncmp(line, STATE_MAGIC, strlen(STATE_MAGIC))) {
		fclose(f);
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned int cpu, idx;
		int orig, set, err;

		if (sscanf(line, "pid %d", &pid) == 1) {
			if (pid != getpid() && pid > 0 && !kill(pid, 0)) {
				ret = -EBUSY;
				break;
			}
			continue;
		}
		if (sscanf(line, "state %u %u %d %d", &cpu, &idx, &orig,
			   &set) != 4)
			continue;
		if (restore_one(cpu, idx, orig, set, &err)) {
			snprintf(msg, sizeof(msg),
				 "cpu%u state%u changed since; left as is", cpu,
				 idx);
		} else if (err) {
			snprintf(msg, sizeof(msg), "cpu%u state%u: %s", cpu,
				 idx, strerror(-err));
			if (!ret)
				ret = err;
		} else {
			snprintf(msg, sizeof(msg), "cpu%u state%u %s", cpu,
				 idx, orig ? "disabled" : "enabled");
			restored++;
		}
		if (report)
			report(msg);
	}
	fclose(f);
	if (ret)
		return ret;
	unlink(path);
	return restored;
}

struct cstate_session *cstate_run_begin(const struct cstate_spec *spec,
					int cpu, const char *cmdline,
					char *err, size_t errlen)
{
	struct cstate_session *s = cstate_begin(cmdline);
	unsigned char *mask = NULL;
	int ncpus = idlestate_cpu_count();

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (cpu >= 0) {
		if (cpu >= ncpus)
			ncpus = cpu + 1;
		mask = calloc((size_t)ncpus, 1);
		if (!mask) {
			cstate_end(s);
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		mask[cpu] = 1;
	}
	cstate_end_at_exit(s);
	if (cstate_apply(s, spec, mask, ncpus, err, errlen)) {
		cstate_end(s);
		s = NULL;
	}
	free(mask);
	return s;
}

const char *cstate_spec_name(const struct cstate_spec *spec, char *buf,
			     size_t len)
{
	switch (spec->mode) {
	case CSTATE_ON:
		snprintf(buf, len, "on");
		break;
	case CSTATE_OFF:
		snprintf(buf, len, "off");
		break;
	case CSTATE_MAXLAT:
		snprintf(buf, len, "max-latency-us=%llu",
			 (unsigned long long)spec->max_latency_us);
		break;
	}
	return buf;
}
