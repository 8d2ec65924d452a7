// SPDX-License-Identifier: GPL-2.0
/* wake: exit latency per idle state (see wake.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "clock.h"
#include "cpu.h"
#include "errmsg.h"
#include "hist.h"
#include "prng.h"
#include "qci.h"
#include "sysfs.h"
#include "wake.h"

static const char *const src_names[WAKE_NSRC] = { "timer", "ipi", "packet" };

const char *wake_source_name(int src)
{
	return src >= 0 && src < WAKE_NSRC ? src_names[src] : "?";
}

/* Splits a comma list and looks each word up in names[0..n). */
static int list_parse(const char *s, const char *const *names, int n,
		      int *out, int *nout)
{
	unsigned int seen = 0;
	const char *p = s;
	int k = 0;

	if (!s || !*s)
		return -1;
	for (;;) {
		size_t len = strcspn(p, ",");
		int i;

		for (i = 0; i < n; i++)
			if (strlen(names[i]) == len && !strncmp(p, names[i], len))
				break;
		if (i == n || (seen & (1u << i)))
			return -1;
		seen |= 1u << i;
		out[k++] = i;
		if (!p[len])
			break;
		p += len + 1;
	}
	*nout = k;
	return 0;
}

int wake_sources_parse(const char *s, unsigned int *mask)
{
	int v[WAKE_NSRC], n;

	if (list_parse(s, src_names, WAKE_NSRC, v, &n))
		return -1;
	*mask = 0;
	for (int i = 0; i < n; i++)
		*mask |= 1u << v[i];
	return 0;
}

int wake_settings_parse(const char *s, int *out, int *n)
{
	static const char *const names[] = { "all", "each", "none" };

	return list_parse(s, names, 3, out, n);
}

int wake_attribute(const uint64_t *before, const uint64_t *after,
		   unsigned int n)
{
	int state = WAKE_ST_BUSY;

	if (!n)
		return WAKE_ST_UNKNOWN;
	for (unsigned int i = 0; i < n; i++) {
		if (after[i] == before[i])
			continue;
		if (state != WAKE_ST_BUSY)
			return WAKE_ST_MIXED;
		state = (int)i;
	}
	return state;
}

/* ---- counters ---- */

#define STATE_FILE "%s/devices/system/cpu/cpu%u/cpuidle/state%u/%s"

static int open_state_file(unsigned int cpu, unsigned int i, const char *f)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), STATE_FILE, sysfs_root(), cpu, i, f);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int pread_u64(int fd, uint64_t *v)
{
	char buf[32], *end;
	ssize_t n;

	if (fd < 0) {
		*v = 0;
		return 0;
	}
	/* kernfs makes the value anew on a read at offset 0 */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

int wake_cpuidle_open(struct wake_cpuidle *ci, unsigned int cpu, char *err,
		      size_t errlen)
{
	char buf[64];
	unsigned int n = 0;
	int ret;

	memset(ci, 0, sizeof(*ci));
	ci->cpu = cpu;
	for (int i = 0; i < WAKE_MAX_STATES; i++)
		ci->fd_usage[i] = ci->fd_time[i] = ci->fd_above[i] =
			ci->fd_below[i] = -1;
	while (sysfs_read(buf, sizeof(buf),
			  "devices/system/cpu/cpu%u/cpuidle/state%u/name", cpu,
			  n) >= 0) {
		if (n == WAKE_MAX_STATES) {
			errmsg_set(err, errlen, "CPU %u has more than %d idle states",
				   cpu, WAKE_MAX_STATES);
			ret = -E2BIG;
			goto fail;
		}
		/* a longer name is cut: labels only */
		buf[sizeof(ci->name[n]) - 1] = 0;
		memcpy(ci->name[n], buf, sizeof(ci->name[n]));
		sysfs_read_u64(&ci->latency_us[n],
			       "devices/system/cpu/cpu%u/cpuidle/state%u/latency",
			       cpu, n);
		sysfs_read_u64(&ci->residency_us[n],
			       "devices/system/cpu/cpu%u/cpuidle/state%u/residency",
			       cpu, n);
		ret = open_state_file(cpu, n, "usage");
		if (ret < 0)
			goto fail_file;
		ci->fd_usage[n] = ret;
		ret = open_state_file(cpu, n, "time");
		if (ret < 0)
			goto fail_file;
		ci->fd_time[n] = ret;
		/* above/below: kernel 5.6 and later; optional */
		ci->fd_above[n] = open_state_file(cpu, n, "above");
		ci->fd_below[n] = open_state_file(cpu, n, "below");
		if (ci->fd_above[n] >= 0 && ci->fd_below[n] >= 0)
			ci->has_above = 1;
		n++;
		ci->n = n;
	}
	return 0;
fail_file:
	errmsg_set(err, errlen, "cannot open the counters of CPU %u state %u under %s: %s",
		   cpu, n, sysfs_root(), strerror(-ret));
fail:
	ci->n = n;
	wake_cpuidle_close(ci);
	return ret;
}

/* State I's time, above and below into C. */
static int read_entered(const struct wake_cpuidle *ci, unsigned int i,
			struct wake_counters *c)
{
	int ret = pread_u64(ci->fd_time[i], &c->time_us[i]);

	if (!ret)
		ret = pread_u64(ci->fd_above[i], &c->above[i]);
	if (!ret)
		ret = pread_u64(ci->fd_below[i], &c->below[i]);
	c->reads += 3;
	return ret;
}

int wake_cpuidle_read(const struct wake_cpuidle *ci, struct wake_counters *c)
{
	int ret;

	for (unsigned int i = 0; i < ci->n; i++) {
		ret = pread_u64(ci->fd_usage[i], &c->usage[i]);
		c->reads++;
		if (!ret)
			ret = read_entered(ci, i, c);
		if (ret)
			return ret;
	}
	return 0;
}

int wake_cpuidle_update(const struct wake_cpuidle *ci, struct wake_counters *c)
{
	int ret;

	for (unsigned int i = 0; i < ci->n; i++) {
		uint64_t usage;

		ret = pread_u64(ci->fd_usage[i], &usage);
		c->reads++;
		if (ret)
			return ret;
		if (usage == c->usage[i])
			continue;
		c->usage[i] = usage;
		/* cpuidle_enter_state() adds to time, above and below of
		 * the state it entered when it adds to its usage */
		ret = read_entered(ci, i, c);
		if (ret)
			return ret;
	}
	return 0;
}

void wake_cpuidle_close(struct wake_cpuidle *ci)
{
	for (unsigned int i = 0; i < ci->n && i < WAKE_MAX_STATES; i++) {
		int *fds[] = { &ci->fd_usage[i], &ci->fd_time[i],
			       &ci->fd_above[i], &ci->fd_below[i] };

		for (int k = 0; k < 4; k++) {
			if (*fds[k] >= 0)
				close(*fds[k]);
			*fds[k] = -1;
		}
	}
	ci->n = 0;
}

const char *wake_state_label(const struct wake_cpuidle *ci, int state)
{
	switch (state) {
	case WAKE_ST_BUSY:
		return "busy";
	case WAKE_ST_MIXED:
		return "mixed";
	case WAKE_ST_UNKNOWN:
		return "unknown";
	case WAKE_ST_NONE:
		return "none";
	}
	if (ci && state >= 0 && (unsigned int)state < ci->n)
		return ci->name[state];
	return "?";
}

/* ---- summary ---- */

const double wake_pct[WAKE_NPCT] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };
const char *const wake_pct_name[WAKE_NPCT] = {
	"p50", "p90", "p99", "p99_9", "p99_99",
};

void wake_summary_init(struct wake_summary *s, size_t exact_max)
{
	memset(s, 0, sizeof(*s));
	s->exact_max = exact_max;
}

void wake_summary_free(struct wake_summary *s)
{
	for (int i = 0; i < s->ngroups; i++)
		hist_free(s->group[i].h);
	s->ngroups = 0;
}

int wake_summary_setting(struct wake_summary *s, const char *label,
			 int is_floor)
{
	for (int i = 0; i < s->nsettings; i++)
		if (!strcmp(s->setting[i], label))
			return i;
	if (s->nsettings == WAKE_MAX_SETTINGS)
		return -ENOSPC;
	snprintf(s->setting[s->nsettings], sizeof(s->setting[0]), "%s", label);
	s->is_floor[s->nsettings] = is_floor;
	return s->nsettings++;
}

struct wake_group *wake_summary_find(struct wake_summary *s, int source,
				     int setting, int state)
{
	for (int i = 0; i < s->ngroups; i++) {
		struct wake_group *g = &s->group[i];

		if (g->source == source && g->setting == setting &&
		    g->state == state)
			return g;
	}
	return NULL;
}

int wake_summary_add(struct wake_summary *s, const struct wake_point *p)
{
	struct wake_group *g;

	if (p->source < 0 || p->source >= WAKE_NSRC || p->setting < 0 ||
	    p->setting >= s->nsettings)
		return -EINVAL;
	s->total[p->source][p->setting]++;
	if (p->state == WAKE_ST_BUSY) {
		s->busy[p->source][p->setting]++;
		return 0;
	}
	if (p->state == WAKE_ST_MIXED) {
		s->mixed[p->source][p->setting]++;
		return 0;
	}
	g = wake_summary_find(s, p->source, p->setting, p->state);
	if (!g) {
		if (s->ngroups == WAKE_MAX_GROUPS)
			return -ENOSPC;
		g = &s->group[s->ngroups];
		memset(g, 0, sizeof(*g));
		g->h = hist_new(1);
		if (!g->h)
			return -ENOMEM;
		if (s->exact_max)
			hist_set_exact_max(g->h, s->exact_max);
		g->source = p->source;
		g->setting = p->setting;
		g->state = p->state;
		s->ngroups++;
	}
	g->above += p->above;
	g->below += p->below;
	return hist_add(g->h, p->latency_ns);
}

struct wake_group *wake_summary_floor(struct wake_summary *s, int source)
{
	for (int i = 0; i < s->nsettings; i++) {
		if (!s->is_floor[i])
			continue;
		return wake_summary_find(s, source, i, WAKE_ST_NONE);
	}
	return NULL;
}

/* The value at a 1-based rank of n, exact or from the histogram. */
static double at_rank(struct hist *h, uint64_t rank, uint64_t n)
{
	double p = (double)rank / (double)n;
	uint64_t v = hist_exact(h) ? hist_percentile_exact(h, p) :
				     hist_percentile(h, p);

	return v / 1e3;
}

void wake_group_stats(struct wake_group *g, struct wake_stats *st)
{
	uint64_t n = g && g->h ? hist_count(g->h) : 0;

	memset(st, 0, sizeof(*st));
	st->n = n;
	st->min = st->mean = st->max = st->sd = NAN;
	for (int k = 0; k < WAKE_NPCT; k++)
		st->pct[k] = st->lo[k] = st->hi[k] = NAN;
	if (!n)
		return;
	st->exact = hist_exact(g->h);
	st->min = hist_min(g->h) / 1e3;
	st->max = hist_max(g->h) / 1e3;
	st->mean = hist_mean(g->h) / 1e3;
	st->sd = n > 1 ? hist_stddev(g->h) / 1e3 : NAN;
	for (int k = 0; k < WAKE_NPCT; k++) {
		struct qci ci;

		st->pct[k] = at_rank(g->h, hist_rank(wake_pct[k], n), n);
		if (qci_ranks(n, wake_pct[k], QCI_LEVEL95, &ci))
			continue;
		st->ci_ok[k] = 1;
		st->lo[k] = at_rank(g->h, ci.lo, n);
		st->hi[k] = at_rank(g->h, ci.hi, n);
	}
}

int wake_cost(const struct wake_stats *st, const struct wake_stats *floor,
	      double *p50_us, double *mean_us)
{
	*p50_us = *mean_us = NAN;
	if (!st || !floor || !st->n || !floor->n)
		return -ENOENT;
	*p50_us = st->pct[0] - floor->pct[0];
	*mean_us = st->mean - floor->mean;
	return 0;
}

/* ---- the engine ---- */

struct wake_run {
	struct wake_cfg cfg;
	pthread_t sleeper, sender, spinner;
	int has_sender, has_spinner;
	atomic_int stop;
	atomic_int finished;
	atomic_uint_fast64_t points;
	/* sleeper -> sender: the request word (futex) and its launch time */
	_Atomic uint32_t req;
	atomic_uint_fast64_t req_launch;
	atomic_int req_src;
	/* sender -> sleeper: when it sent */
	atomic_uint_fast64_t sent_ns;
	int efd;			/* ipi: the eventfd the sleeper reads */
	int rx, tx;			/* packet: bound and connected UDP */
	int ret;
	char err[256];
	int hret;			/* a helper thread's failure */
	char herr[256];
};

static long futex(_Atomic uint32_t *addr, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)addr, op, val, NULL, NULL, 0);
}

static int pin_and_class(int cpu, int policy, int prio, char *err,
			 size_t errlen, const char *who)
{
	struct sched_param sp = { .sched_priority = prio };
	int ret = cpu_pin_self(cpu);

	if (ret) {
		errmsg_set(err, errlen, "cannot pin the %s to CPU %d: %s", who,
			   cpu, strerror(-ret));
		return ret;
	}
	if (policy == SCHED_OTHER)
		return 0;
	ret = pthread_setschedparam(pthread_self(), policy, &sp);
	if (ret) {
		errmsg_set(err, errlen, "cannot give the %s %s%s: %s", who,
			   policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_IDLE",
			   ret == EPERM ? " (needs CAP_SYS_NICE)" : "",
			   strerror(ret));
		return -ret;
	}
	return 0;
}

/* Wakes the sleeper of an ipi or packet datapoint. */
static void poke(struct wake_run *r)
{
	uint64_t one = 1;
	ssize_t n;

	if (r->efd >= 0)
		n = write(r->efd, &one, sizeof(one));
	if (r->tx >= 0)
		n = send(r->tx, &one, sizeof(one), MSG_DONTWAIT);
	(void)n;
}

static void *sender_main(void *arg)
{
	struct wake_run *r = arg;
	uint32_t seen = 0;

	r->hret = pin_and_class(r->cfg.sender_cpu, SCHED_OTHER, 0, r->herr,
				sizeof(r->herr), "sender");
	if (r->hret)
		goto out;
	while (!atomic_load(&r->stop)) {
		uint32_t req = atomic_load(&r->req);
		uint64_t launch, now;
		int src;

		if (req == seen) {
			/* a wake from the stop path is fine: the loop looks */
			futex(&r->req, FUTEX_WAIT_PRIVATE, seen);
			continue;
		}
		seen = req;
		launch = atomic_load(&r->req_launch);
		src = atomic_load(&r->req_src);
		/* sleep to a margin before the launch, spin the rest: the
		 * sender must not be what is late */
		now = clock_now_ns();
		if (launch > now + 300000) {
			struct timespec ts = clock_ts(launch - 250000);

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		while ((now = clock_now_ns()) < launch &&
		       !atomic_load(&r->stop))
			;
		atomic_store(&r->sent_ns, now);
		if (src == WAKE_SRC_IPI) {
			uint64_t one = 1;

			if (write(r->efd, &one, sizeof(one)) < 0)
				break;
		} else {
			uint64_t s = req;

			if (send(r->tx, &s, sizeof(s), 0) < 0)
				break;
		}
	}
out:
	/* whatever ended the loop, the sleeper must not stay blocked */
	atomic_store(&r->stop, 1);
	poke(r);
	return NULL;
}

static void *spinner_main(void *arg)
{
	struct wake_run *r = arg;
	char err[256];
	int ret = pin_and_class(r->cfg.cpu, SCHED_IDLE, 0, err, sizeof(err),
				"floor spinner");

	if (ret) {
		snprintf(r->herr, sizeof(r->herr), "%s", err);
		r->hret = ret;
		wake_run_stop(r);
		return NULL;
	}
	while (!atomic_load(&r->stop) && !atomic_load(&r->finished))
		;
	return NULL;
}

int wake_pick_source(unsigned int sources, const uint64_t *left, int by_count,
		     struct prng *g)
{
	uint64_t total = 0, x;
	int srcs[WAKE_NSRC], n = 0;

	for (int s = 0; s < WAKE_NSRC; s++) {
		if (!(sources & (1u << s)))
			continue;
		srcs[n++] = s;
		total += left[s];
	}
	if (!n)
		return -1;
	if (!by_count)
		return srcs[prng_next(g) % (uint64_t)n];
	if (!total)
		return -1;
	/* weighted by what is left: a uniform shuffle of the datapoints */
	x = prng_next(g) % total;
	for (int i = 0; i < n; i++) {
		if (x < left[srcs[i]])
			return srcs[i];
		x -= left[srcs[i]];
	}
	return -1;
}

uint64_t wake_draw_ldist(struct prng *g, uint64_t min_ns, uint64_t max_ns)
{
	uint64_t span = max_ns - min_ns, d;

	if (!span)
		return min_ns;
	/* u * (span + 1) can round up to span + 1 for u just below 1 */
	d = (uint64_t)(prng_uniform(g) * (double)(span + 1));
	return min_ns + (d > span ? span : d);
}

/*
 * The sleeper's wait for SRC, launched LD after now (the sleeper last
 * ran here): a timer it sets itself, or the sender's IPI or packet. The
 * launch and wake times go to P; 0 or -errno (r->err says why).
 */
static int sleep_until_woken(struct wake_run *r, int src, uint64_t ld,
			     struct wake_point *p)
{
	uint64_t now = clock_now_ns(), v;
	ssize_t n;

	if (src == WAKE_SRC_TIMER) {
		struct timespec ts = clock_ts(now + ld);

		p->launch_ns = now + ld;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
				       &ts, NULL) == EINTR)
			;
		p->wake_ns = clock_now_ns();
		return 0;
	}
	atomic_store(&r->req_launch, now + ld);
	atomic_store(&r->req_src, src);
	atomic_fetch_add(&r->req, 1);
	futex(&r->req, FUTEX_WAKE_PRIVATE, 1);
	do {
		if (src == WAKE_SRC_IPI)
			n = read(r->efd, &v, sizeof(v));
		else
			n = recv(r->rx, &v, sizeof(v), 0);
	} while (n < 0 && errno == EINTR);
	p->wake_ns = clock_now_ns();
	if (n < 0) {
		int ret = -errno;

		errmsg_set(r->err, sizeof(r->err), "%s wait: %s",
			   wake_source_name(src), strerror(errno));
		return ret;
	}
	p->launch_ns = atomic_load(&r->sent_ns);
	return 0;
}

/* P's latency, the state it woke from, and the counters' moves over the wait. */
static void point_attribute(const struct wake_cfg *c, const struct wake_counters *before,
			    const struct wake_counters *after, struct wake_point *p)
{
	p->latency_ns = p->wake_ns > p->launch_ns ? p->wake_ns - p->launch_ns : 0;
	p->state = wake_attribute(before->usage, after->usage, c->ci->n);
	/* the floor: no idle state, or one that exits at no cost (a
	 * polling state, all the kernel leaves when PM QoS allows no
	 * latency or every state is disabled) */
	if (c->floor && (p->state == WAKE_ST_BUSY ||
			 p->state == WAKE_ST_UNKNOWN ||
			 (p->state >= 0 && !c->ci->latency_us[p->state])))
		p->state = WAKE_ST_NONE;
	for (unsigned int i = 0; i < c->ci->n; i++)
		p->silent_ns += (after->time_us[i] - before->time_us[i]) * 1000;
	if (p->state >= 0) {
		p->above = after->above[p->state] - before->above[p->state];
		p->below = after->below[p->state] - before->below[p->state];
	}
}

static void *sleeper_main(void *arg)
{
	struct wake_run *r = arg;
	const struct wake_cfg *c = &r->cfg;
	struct wake_counters before, cur = { 0 };
	uint64_t left[WAKE_NSRC] = { 0 }, seq = c->seq0, start;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct prng g;
	int ret;

	ret = pin_and_class(c->cpu, c->priority ? SCHED_FIFO : SCHED_OTHER,
			    c->priority, r->err, sizeof(r->err), "sleeper");
	if (ret)
		goto out;
	prng_seed(&g, c->seed);
	/* read once in full; after each wake only what moved (one read
	 * per state and three per state entered): at 0-100 us launch
	 * distances four reads per state around every datapoint limited
	 * the rate (issue 34) */
	ret = wake_cpuidle_read(c->ci, &cur);
	if (ret)
		goto out_read;
	for (int s = 0; s < WAKE_NSRC; s++)
		if (c->sources & (1u << s))
			left[s] = c->count;
	start = clock_now_ns();
	for (;;) {
		struct wake_point p = { .seq = seq, .setting = c->setting,
					.tid = tid };
		uint64_t ld;
		int src = wake_pick_source(c->sources, left, c->count != 0, &g);

		if (src < 0 || atomic_load(&r->stop))
			break;
		if (!c->count && clock_now_ns() - start >= c->duration_ns)
			break;
		ld = wake_draw_ldist(&g, c->ldist_min_ns, c->ldist_max_ns);
		/* the counters as the previous datapoint's wake left them:
		 * the sleeper ran since, so the CPU did not idle */
		before = cur;
		p.source = src;
		ret = sleep_until_woken(r, src, ld, &p);
		if (ret)
			goto out;
		/* a wake by the stop path is no datapoint */
		if (atomic_load(&r->stop))
			break;
		ret = wake_cpuidle_update(c->ci, &cur);
		if (ret)
			goto out_read;
		point_attribute(c, &before, &cur, &p);
		if (c->count)
			left[src]--;
		seq++;
		atomic_fetch_add(&r->points, 1);
		if (c->on_point && c->on_point(c->arg, &p)) {
			ret = -ECANCELED;
			snprintf(r->err, sizeof(r->err), "stopped by the datapoint's consumer");
			goto out;
		}
	}
	ret = 0;
	goto out;
out_read:
	errmsg_set(r->err, sizeof(r->err), "cannot read CPU %d's idle-state counters: %s",
		   c->cpu, strerror(-ret));
out:
	r->ret = ret;
	atomic_store(&r->finished, 1);
	atomic_store(&r->stop, 1);
	atomic_fetch_add(&r->req, 1);
	futex(&r->req, FUTEX_WAKE_PRIVATE, 1);
	return NULL;
}

static int udp_pair(struct wake_run *r, char *err, size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = r->cfg.packet_rx_addr ? r->cfg.packet_rx_addr :
			    htonl(INADDR_LOOPBACK);
	r->rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* the caller's socket is the caller's: a copy is closed here */
	r->tx = r->cfg.packet_rx_addr ? fcntl(r->cfg.packet_tx_fd, F_DUPFD_CLOEXEC, 0) :
		socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (r->rx < 0 || r->tx < 0 ||
	    bind(r->rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(r->rx, (struct sockaddr *)&a, &len) ||
	    connect(r->tx, (struct sockaddr *)&a, sizeof(a))) {
		int e = errno;

		errmsg_set(err, errlen, "cannot set up the %s UDP socket pair: %s",
			   r->cfg.packet_rx_addr ? "veth" : "loopback", strerror(e));
		return -e;
	}
	return 0;
}

/* Closes the run's descriptors and frees it (the threads joined). */
static void run_free(struct wake_run *r)
{
	if (r->efd >= 0)
		close(r->efd);
	if (r->rx >= 0)
		close(r->rx);
	if (r->tx >= 0)
		close(r->tx);
	free(r);
}

int wake_run_start(const struct wake_cfg *cfg, struct wake_run **out,
		   char *err, size_t errlen)
{
	struct wake_run *r = calloc(1, sizeof(*r));
	int ret;

	if (!r) {
		errmsg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->cfg = *cfg;
	r->efd = r->rx = r->tx = -1;
	if (cfg->sources & (1u << WAKE_SRC_IPI)) {
		r->efd = eventfd(0, EFD_CLOEXEC);
		if (r->efd < 0) {
			ret = -errno;
			errmsg_set(err, errlen, "eventfd: %s", strerror(errno));
			goto fail;
		}
	}
	if (cfg->sources & (1u << WAKE_SRC_PACKET)) {
		ret = udp_pair(r, err, errlen);
		if (ret)
			goto fail;
	}
	if (cfg->floor && !cfg->floor_nospin) {
		ret = pthread_create(&r->spinner, NULL, spinner_main, r);
		if (ret)
			goto fail_thread;
		r->has_spinner = 1;
	}
	if (cfg->sources & ~(1u << WAKE_SRC_TIMER)) {
		ret = pthread_create(&r->sender, NULL, sender_main, r);
		if (ret)
			goto fail_thread;
		r->has_sender = 1;
	}
	ret = pthread_create(&r->sleeper, NULL, sleeper_main, r);
	if (ret)
		goto fail_thread;
	*out = r;
	return 0;
fail_thread:
	errmsg_set(err, errlen, "cannot start a thread: %s", strerror(ret));
	ret = -ret;
	atomic_store(&r->stop, 1);
	atomic_store(&r->finished, 1);
	atomic_fetch_add(&r->req, 1);
	futex(&r->req, FUTEX_WAKE_PRIVATE, 1);
	if (r->has_sender)
		pthread_join(r->sender, NULL);
	if (r->has_spinner)
		pthread_join(r->spinner, NULL);
fail:
	run_free(r);
	return ret;
}

void wake_run_stop(struct wake_run *r)
{
	atomic_store(&r->stop, 1);
	atomic_fetch_add(&r->req, 1);
	futex(&r->req, FUTEX_WAKE_PRIVATE, 1);
	poke(r);
}

int wake_run_finished(struct wake_run *r)
{
	return atomic_load(&r->finished);
}

uint64_t wake_run_points(struct wake_run *r)
{
	return atomic_load(&r->points);
}

int wake_run_join(struct wake_run *r, char *err, size_t errlen)
{
	int ret;

	pthread_join(r->sleeper, NULL);
	wake_run_stop(r);
	if (r->has_sender)
		pthread_join(r->sender, NULL);
	if (r->has_spinner)
		pthread_join(r->spinner, NULL);
	ret = r->ret;
	if (ret)
		errmsg_set(err, errlen, "%s", r->err);
	else if (r->hret) {
		ret = r->hret;
		errmsg_set(err, errlen, "%s", r->herr);
	}
	run_free(r);
	return ret;
}
