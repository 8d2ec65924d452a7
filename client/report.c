// SPDX-License-Identifier: GPL-2.0
/*
 * The lines a client prints while it runs (--report-interval). A thread
 * of its own wakes at every interval's end, counted from the schedule's
 * start, takes what each sending thread counted since the last line
 * (lib/ivstat: the sending threads never wait for it) and prints one line
 * for all of them. Formatting and the write to stdout happen here, never
 * on a sending thread, and this thread is kept off --cpu's CPUs when the
 * machine has others, so it does not take a sender's CPU at a send time.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "clock.h"
#include "cpu.h"
#include "cpuset.h"
#include "hdrlog.h"
#include "hist.h"
#include "ivstat.h"

struct reporter {
	const struct client_opts *o;
	unsigned int n;
	struct ivstat *iv;	/* one per sending thread */
	struct ivstat_slot acc;	/* the interval being reported */
	uint64_t period_ns;
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cv;	/* on CLOCK_MONOTONIC */
	int go, end;		/* under lock */
	uint64_t start_ns;
	struct hdrh hdr;	/* --hdr-log: an interval's, reused */
	int hdr_err;		/* -errno of the first failed hdr line */
};

/* The wall-clock time (s since the epoch) of CLOCK_MONOTONIC t. */
static double wall_s(uint64_t t)
{
	struct timespec ts;
	uint64_t now = clock_now_ns();

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9 - ((double)now - (double)t) / 1e9;
}

/* One --hdr-log line: src's counts, tagged, from start_s for len_s. */
static int hdr_line(FILE *f, struct hdrh *h, const char *tag,
		    const struct hist *src, double start_s, double len_s)
{
	hdrh_reset(h);
	hdrh_add_hist(h, src);
	return hdrlog_line(f, tag, start_s, len_s, h);
}

/* Both tags of one interval: latency and service latency. */
static int hdr_lines(FILE *f, struct hdrh *h, const struct hist *lat,
		     const struct hist *svc, double start_s, double len_s)
{
	int ret = hdr_line(f, h, "lat", lat, start_s, len_s);

	return ret ? ret : hdr_line(f, h, "svc", svc, start_s, len_s);
}

/* Takes every thread's counts since the last call and prints them as the
 * interval ending at now_ns, span_ns long (0: no rate); an empty one only
 * when always. */
static void report(struct reporter *rep, uint64_t from_ns, uint64_t now_ns,
		   uint64_t span_ns, int always)
{
	char line[512];
	FILE *hl = rep->o->hdr_file;

	for (unsigned int k = 0; k < rep->n; k++)
		ivstat_collect(&rep->iv[k], &rep->acc);
	if (always || rep->acc.meas.sent || rep->acc.warm) {
		if (!rep->o->quiet) {
			ivstat_line(line, sizeof(line),
				    (double)(now_ns - rep->start_ns) / 1e9,
				    (double)span_ns / 1e9, &rep->acc);
			puts(line);
			fflush(stdout);
		}
		if (hl && !rep->hdr_err)
			rep->hdr_err = hdr_lines(hl, &rep->hdr, rep->acc.lat,
						 rep->acc.svc,
						 (double)(from_ns - rep->start_ns) / 1e9,
						 (double)(now_ns - from_ns) / 1e9);
	}
	ivstat_slot_reset(&rep->acc);
}

/* Waits until t (CLOCK_MONOTONIC) or the end; lock held. 1 at the end. */
static int wait_until(struct reporter *rep, uint64_t t)
{
	struct timespec ts = clock_ts(t);

	while (!rep->end && clock_now_ns() < t) {
		int ret = pthread_cond_timedwait(&rep->cv, &rep->lock, &ts);

		if (ret && ret != ETIMEDOUT)
			break;	/* EINVAL: cannot wait; report now */
	}
	return rep->end;
}

static void *reporter_thread(void *arg)
{
	struct reporter *rep = arg;
	uint64_t last, next;
	sigset_t mask;

	/* the run's signals are the sending threads' to read (signalfd) */
	client_stop_signals(&mask);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	pthread_mutex_lock(&rep->lock);
	while (!rep->go && !rep->end)
		pthread_cond_wait(&rep->cv, &rep->lock);
	if (!rep->go) {
		/* the run never started (it failed before): no line */
		pthread_mutex_unlock(&rep->lock);
		return NULL;
	}
	last = rep->start_ns;
	if (rep->o->hdr_file)
		rep->hdr_err = hdrlog_header(rep->o->hdr_file, wall_s(last));
	for (;;) {
		next = last + rep->period_ns;
		if (wait_until(rep, next))
			break;
		pthread_mutex_unlock(&rep->lock);
		report(rep, last, next, rep->period_ns, 1);
		pthread_mutex_lock(&rep->lock);
		last = next;
	}
	pthread_mutex_unlock(&rep->lock);
	/*
	 * The last stretch, every sending thread done: what it counted, so
	 * the lines add up to the run (nothing counted: no line). A
	 * stretch under a tenth of the interval gets no rate (a few
	 * requests over a few milliseconds).
	 */
	{
		uint64_t now = clock_now_ns(), span = now > last ? now - last : 0;

		if (span < rep->period_ns / 10)
			span = 0;
		report(rep, last, now, span, 0);
	}
	return NULL;
}

/* This thread's CPUs: those --cpu leaves free, or every CPU (none left,
 * or no --cpu: a pinned main thread must not pass its CPU on). */
static void place(pthread_attr_t *attr, const struct client_opts *o)
{
	/* the running kernel's CPUs, whatever sysfs tree a test fakes */
	struct cpuset *cpus = cpuset_new(cpuset_kernel_possible());
	cpu_set_t *set = NULL;
	size_t size;

	if (!cpus)
		return;	/* no memory: the thread runs anywhere */
	for (int c = 0; c < cpus->n; c++)
		cpuset_set(cpus, c);
	for (int i = 0; i < o->cpus.n; i++)
		cpuset_clear(cpus, o->cpus.cpu[i]);
	if (!cpuset_count(cpus))
		for (int c = 0; c < cpus->n; c++)
			cpuset_set(cpus, c);
	set = cpuset_affinity(cpus, &size);
	if (set)
		pthread_attr_setaffinity_np(attr, size, set);
	CPU_FREE(set);
	cpuset_free(cpus);
}

/* Frees rep and its first made ivstats (the thread joined, or never made). */
static void reporter_free(struct reporter *rep, unsigned int made)
{
	for (unsigned int k = 0; k < made; k++)
		ivstat_free(&rep->iv[k]);
	ivstat_slot_free(&rep->acc);
	hdrh_free(&rep->hdr);
	free(rep->iv);
	free(rep);
}

struct reporter *reporter_new(const struct client_opts *o, unsigned int n,
			      char *err, size_t errlen)
{
	struct reporter *rep = calloc(1, sizeof(*rep));
	pthread_condattr_t ca;
	pthread_attr_t attr;
	unsigned int made = 0;
	int ret;

	if (!rep || !(rep->iv = calloc(n, sizeof(*rep->iv))) ||
	    ivstat_slot_init(&rep->acc) ||
	    (o->hdr_file && hdrh_init(&rep->hdr)))
		goto nomem;
	for (; made < n; made++)
		if (ivstat_init(&rep->iv[made]))
			goto nomem;
	/* the interval's percentiles under the run's rule */
	hist_set_rule(rep->acc.lat, (enum hist_rule)o->percentile_rule);
	rep->o = o;
	rep->n = n;
	rep->period_ns = (uint64_t)(o->report_interval_s * 1e9);
	pthread_mutex_init(&rep->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&rep->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&attr);
	place(&attr, o);
	ret = pthread_create(&rep->tid, &attr, reporter_thread, rep);
	pthread_attr_destroy(&attr);
	if (ret) {
		snprintf(err, errlen, "cannot start the reporting thread: %s",
			 strerror(ret));
		pthread_cond_destroy(&rep->cv);
		pthread_mutex_destroy(&rep->lock);
		goto out;
	}
	return rep;
nomem:
	snprintf(err, errlen, "out of memory for the interval counts");
out:
	if (rep)
		reporter_free(rep, made);
	return NULL;
}

struct ivstat *reporter_ivstat(struct reporter *rep, unsigned int k)
{
	return rep && k < rep->n ? &rep->iv[k] : NULL;
}

void reporter_go(struct reporter *rep, uint64_t start_ns)
{
	if (!rep)
		return;
	pthread_mutex_lock(&rep->lock);
	rep->start_ns = start_ns;
	rep->go = 1;
	pthread_cond_broadcast(&rep->cv);
	pthread_mutex_unlock(&rep->lock);
}

void reporter_end(struct reporter *rep)
{
	if (!rep)
		return;
	pthread_mutex_lock(&rep->lock);
	rep->end = 1;
	pthread_cond_broadcast(&rep->cv);
	pthread_mutex_unlock(&rep->lock);
	pthread_join(rep->tid, NULL);
	pthread_cond_destroy(&rep->cv);
	pthread_mutex_destroy(&rep->lock);
	reporter_free(rep, rep->n);
}

int client_hdr_open(struct client_opts *o, char *err, size_t errlen)
{
	o->hdr_file = fopen(o->hdr_log, "w");
	if (!o->hdr_file) {
		snprintf(err, errlen, "%s: %s", o->hdr_log, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Without --report-interval: the whole run as one interval. */
static int hdr_whole_run(FILE *f, const struct run *r)
{
	struct hdrh h;
	int ret;

	if (!r->start_ns || r->end_ns < r->start_ns)
		return 0;	/* the run never started: the file stays empty */
	ret = hdrh_init(&h);
	if (ret)
		return ret;
	ret = hdrlog_header(f, wall_s(r->start_ns));
	if (!ret)
		ret = hdr_lines(f, &h, r->acc.lat, r->acc.svc, 0,
				(double)(r->end_ns - r->start_ns) / 1e9);
	hdrh_free(&h);
	return ret;
}

int client_hdr_close(struct client_opts *o, const struct run *r, char *err,
		     size_t errlen)
{
	int ret = 0;

	if (!o->hdr_file)
		return 0;
	if (o->report_interval_s <= 0)
		ret = hdr_whole_run(o->hdr_file, r);
	if (ferror(o->hdr_file) && !ret)
		ret = -EIO;
	if (fclose(o->hdr_file) && !ret)
		ret = -errno;
	o->hdr_file = NULL;
	if (ret)
		snprintf(err, errlen, "--hdr-log %s: %s", o->hdr_log, strerror(-ret));
	return ret;
}
