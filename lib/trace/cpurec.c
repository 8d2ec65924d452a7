// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "cpurec.h"
#include "wfile.h"

struct cpurec_cpu {
	pthread_t thread;
	struct tracefs_cpu *tcpu;
	int cpu, fd, subbuf, running;
	int stop;		/* set by cpurec_stop (atomic) */
	int err;		/* the recorder's -errno, 0 */
	const char *what;	/* of err: "splicing", "flushing" */
	uint64_t bytes;		/* atomic */
	void *page;		/* the flush's */
};

struct cpurec {
	struct cpurec_cpu *c;
	int n;
	int stopped;
};

/* The partial pages left at the end, each padded to a whole sub-buffer. */
static int flush_rest(struct cpurec_cpu *c)
{
	for (;;) {
		int n = tracefs_cpu_flush(c->tcpu, c->page), ret;

		if (n <= 0)
			return n < 0 && errno != EAGAIN ? -errno : 0;
		if (n < c->subbuf)
			memset((char *)c->page + n, 0, (size_t)(c->subbuf - n));
		ret = wfile_write_all(c->fd, c->page, (size_t)c->subbuf);
		if (ret)
			return ret;
		__atomic_add_fetch(&c->bytes, (uint64_t)c->subbuf, __ATOMIC_RELAXED);
	}
}

static void *rec_main(void *arg)
{
	struct cpurec_cpu *c = arg;
	int n;

	/* blocked in the kernel until the buffer reaches its watermark or
	 * tracefs_cpu_stop wakes it */
	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		n = tracefs_cpu_write(c->tcpu, c->fd, false);
		if (n > 0)
			__atomic_add_fetch(&c->bytes, (uint64_t)n, __ATOMIC_RELAXED);
		else if (n < 0 && errno != EINTR && errno != EAGAIN) {
			c->what = "splicing its pages";
			__atomic_store_n(&c->err, -errno, __ATOMIC_RELEASE);
			return NULL;
		}
	}
	/* stopped: the reads no longer block; the whole pages, then the rest */
	while ((n = tracefs_cpu_write(c->tcpu, c->fd, true)) > 0)
		__atomic_add_fetch(&c->bytes, (uint64_t)n, __ATOMIC_RELAXED);
	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		c->err = -errno;
		c->what = "splicing its last pages";
		return NULL;
	}
	c->err = flush_rest(c);
	c->what = "writing its last page";
	return NULL;
}

static int start_one(struct cpurec_cpu *c, struct tracefs_instance *inst,
		     char *err, size_t errlen)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int ret;

	c->tcpu = tracefs_cpu_open(inst, c->cpu, false);
	if (!c->tcpu) {
		ret = errno ? -errno : -EIO;
		snprintf(err, errlen, "CPU %d: cannot open its trace_pipe_raw: %s",
			 c->cpu, strerror(-ret));
		return ret;
	}
	c->page = malloc((size_t)c->subbuf);
	if (!c->page) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_attr_init(&attr);
	/* tracefs_cpu_write keeps a sub-buffer on its stack */
	pthread_attr_setstacksize(&attr, (size_t)c->subbuf * 2 + (256u << 10));
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&c->thread, &attr, rec_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (ret) {
		snprintf(err, errlen, "CPU %d: cannot start its recorder: %s", c->cpu,
			 strerror(ret));
		return -ret;
	}
	c->running = 1;
	return 0;
}

int cpurec_start(struct tracefs_instance *inst, int ncpus, const int *fds,
		 int subbuf, struct cpurec **out, char *err, size_t errlen)
{
	struct cpurec *r = calloc(1, sizeof(*r));
	int ret = 0;

	*out = NULL;
	if (r)
		r->c = calloc((size_t)(ncpus > 0 ? ncpus : 1), sizeof(*r->c));
	if (!r || !r->c) {
		free(r);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->n = ncpus;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		r->c[cpu].cpu = cpu;
		r->c[cpu].fd = fds[cpu];
		r->c[cpu].subbuf = subbuf;
	}
	for (int cpu = 0; !ret && cpu < ncpus; cpu++)
		if (fds[cpu] >= 0)
			ret = start_one(&r->c[cpu], inst, err, errlen);
	if (ret) {
		cpurec_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

int cpurec_error(const struct cpurec *r, int *cpu)
{
	for (int i = 0; r && i < r->n; i++) {
		int e = __atomic_load_n(&r->c[i].err, __ATOMIC_ACQUIRE);

		if (e) {
			*cpu = i;
			return e;
		}
	}
	return 0;
}

int cpurec_stop(struct cpurec *r, int *bad_cpu, char *err, size_t errlen)
{
	int ret = 0;

	if (!r || r->stopped)
		return 0;
	r->stopped = 1;
	for (int i = 0; i < r->n; i++) {
		if (!r->c[i].running)
			continue;
		__atomic_store_n(&r->c[i].stop, 1, __ATOMIC_RELEASE);
		tracefs_cpu_stop(r->c[i].tcpu);
	}
	for (int i = 0; i < r->n; i++) {
		struct cpurec_cpu *c = &r->c[i];

		if (c->running)
			pthread_join(c->thread, NULL);
		c->running = 0;
		if (c->err && !ret) {
			ret = c->err;
			*bad_cpu = c->cpu;
			snprintf(err, errlen, "CPU %d's recorder, %s: %s", c->cpu,
				 c->what, strerror(-c->err));
		}
		tracefs_cpu_close(c->tcpu);
		c->tcpu = NULL;
	}
	return ret;
}

uint64_t cpurec_bytes(const struct cpurec *r)
{
	uint64_t sum = 0;

	for (int i = 0; r && i < r->n; i++)
		sum += __atomic_load_n(&r->c[i].bytes, __ATOMIC_RELAXED);
	return sum;
}

void cpurec_free(struct cpurec *r)
{
	char ignore[64];
	int bad;

	if (!r)
		return;
	cpurec_stop(r, &bad, ignore, sizeof(ignore));
	for (int i = 0; i < r->n; i++)
		free(r->c[i].page);
	free(r->c);
	free(r);
}

unsigned int cpurec_buffer_kb(double events_per_s, double stall_s)
{
	double kb = events_per_s * 32.0 * stall_s * 2.0 / 1024.0;

	if (!(kb >= 1024.0))	/* NaN and negative too */
		return 1024;
	return kb > 1048576.0 ? 1048576u : (unsigned int)(kb + 0.999);
}
