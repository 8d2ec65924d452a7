// SPDX-License-Identifier: GPL-2.0
/*
 * wb-bigtrace: a synthetic trace of loopback request-response runs as
 * long as wanted, for the trace-analysis scale benchmark
 * (bench/trace-analysis.sh), with the server log that goes with it,
 * written with lib/tracewrite.
 *
 *   wb-bigtrace DIR EVENTS [SEED [CPUS]]
 *
 * Two server/client pairs of CPUs (0 serving, 1 sending; 2 and 3), each
 * CPU's file under 2 GiB up to 100 M events (libtracecmd's limit for a
 * CPU's data in trace.dat). The events of each request are those a
 * traced loopback run records (measured here, 2026-11, cpuidle none,
 * HLT): on the client's CPU its "wb send" marker and the NET_RX softirq
 * of the send; on the server's CPU, asleep in the idle state, the
 * call_function_single IPI of the
 * remote wake-up queue, the server thread's sched_wakeup inside it, the
 * idle exit, the sched_switch to the thread, its "wb recv" marker, and
 * after the reply the idle entry; one request in eight also an IRQ entry
 * and exit on CPU 1 and a local timer on CPU 0. Gaps are exponential
 * around 100 us, the wake's steps a few microseconds each with jitter.
 * DIR/server.csv is the --log of the server on CPU 0 (seq,type,recv_ns,
 * send_ns,service_ns,conn); its thread's pid is 4242 (CPU 2's: 4244).
 * With CPUS (default 4) above 4, a big host as it is measured: the pairs
 * on CPUs 0-3 as above and every other CPU idle over the same time, in
 * state 1 woken every 50-150 ms by its local timer (one wake in eight by
 * an IRQ, nvme0q1), three or four events a wake: the idle CPUs' events
 * come on top of EVENTS.
 * Reproducible from SEED; prints the events written and the time taken.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "die.h"
#include "opt.h"
#include "prng.h"
#include "tracewrite.h"

#define PROG "wb-bigtrace"
#define SERVER_PID 4242
#define CLIENT_PID 4243

static uint64_t written;

static void put(struct tracewrite *w, uint64_t ts, uint32_t cpu,
		enum tl_type type, uint32_t arg, uint32_t pid, const char *str)
{
	struct tl_event e = { .ts = ts, .cpu = cpu, .type = type, .arg = arg,
			      .pid = pid, .str = str };

	if (tracewrite_event(w, &e))
		opt_die(PROG, "%s", tracewrite_error(w));
	written++;
}

/* a step of mean us microseconds, +-50 % */
static uint64_t step(struct prng *r, double us)
{
	return (uint64_t)(us * 1000 * (0.5 + (double)(prng_next(r) % 1000) / 1000));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One server/client pair: its CPUs, pids and where its time is. */
struct pair {
	uint32_t srv, cli;
	uint32_t srv_pid, cli_pid;
	uint64_t ts, seq;
	FILE *log;		/* NULL: not logged */
};

/* The events of one request of pair p. */
static void request(struct tracewrite *w, struct prng *r, struct pair *p)
{
	uint64_t gap = (uint64_t)(-log1p(-(double)(prng_next(r) % 1000000) / 1e6) * 100000) + 20000;
	uint64_t send = p->ts + gap, t, recv, reply;
	int extra = prng_next(r) % 8 == 0;
	char text[64];

	/* the client: its marker and the send's receive path */
	snprintf(text, sizeof(text), "wb send %llu", (unsigned long long)p->seq);
	put(w, send, p->cli, TL_MARKER, 0, p->cli_pid, text);
	if (extra) {
		put(w, send + 300, p->cli, TL_IRQ_ENTRY, 24, 0, "virtio0-input.0");
		put(w, send + 900, p->cli, TL_IRQ_EXIT, 24, 0, NULL);
	}
	put(w, send + 1500, p->cli, TL_SOFTIRQ, 3, p->cli_pid, NULL);
	/* the server's core wakes */
	t = send + 1500 + step(r, 3);
	if (extra)
		put(w, t - 1000, p->srv, TL_TIMER, 0, 0, NULL);
	put(w, t, p->srv, TL_IPI, TL_IPI_CALL_FUNCTION_SINGLE, 0, NULL);
	t += step(r, 2);
	if (tracewrite_wakeup(w, t, p->srv, p->srv_pid, "wakebench-serve", 120, p->srv))
		opt_die(PROG, "%s", tracewrite_error(w));
	written++;
	t += step(r, 4);
	put(w, t, p->srv, TL_IDLE, TL_EXIT, 0, NULL);
	t += step(r, 3);
	put(w, t, p->srv, TL_SWITCH, p->srv_pid, 0, NULL);
	recv = t + step(r, 8);
	snprintf(text, sizeof(text), "wb recv %llu", (unsigned long long)p->seq);
	put(w, recv, p->srv, TL_MARKER, 0, p->srv_pid, text);
	reply = recv + step(r, 20);
	if (p->log)
		fprintf(p->log, "%llu,request,%llu,%llu,20000,1\n", (unsigned long long)p->seq,
			(unsigned long long)recv, (unsigned long long)reply);
	p->ts = reply + step(r, 6);
	put(w, p->ts, p->srv, TL_IDLE, 1, 0, NULL);
	p->seq++;
}

/* An idle CPU of a big host over [start, end]: woken every 50-150 ms. */
static uint64_t idle_cpu(struct tracewrite *w, struct prng *r, uint32_t cpu,
			 uint64_t start, uint64_t end)
{
	uint64_t t = start + prng_next(r) % 100000000, n = written;

	while (t + 150000000 < end) {
		uint64_t out = t + 50000000 + prng_next(r) % 100000000;

		put(w, t, cpu, TL_IDLE, 1, 0, NULL);
		if (prng_next(r) % 8) {
			put(w, out - 300, cpu, TL_TIMER, 0, 0, NULL);
		} else {
			put(w, out - 900, cpu, TL_IRQ_ENTRY, 130, 0, "nvme0q1");
			put(w, out - 300, cpu, TL_IRQ_EXIT, 130, 0, NULL);
		}
		put(w, out, cpu, TL_IDLE, TL_EXIT, 0, NULL);
		t = out + 5000 + prng_next(r) % 60000;
	}
	return written - n;
}

int main(int argc, char **argv)
{
	uint64_t events, seed = 1, ncpus = 4, idle = 0;
	struct trace_meta m = { .ncpus = 4, .start_ns = 5000000000ull };
	struct tracewrite_opts o = { .command = "wb-bigtrace", .source = "synthetic" };
	struct pair pairs[2] = {
		{ 0, 1, SERVER_PID, CLIENT_PID, 5000000000ull, 0, NULL },
		{ 2, 3, SERVER_PID + 2, CLIENT_PID + 2, 5000000000ull, 0, NULL },
	};
	struct tracewrite *w;
	struct prng r;
	char err[600], path[4096];
	double t0 = now();

	if (argc < 3 || argc > 5 || opt_u64(argv[2], 10, UINT64_MAX, &events) ||
	    (argc > 3 && opt_u64(argv[3], 0, UINT64_MAX, &seed)) ||
	    (argc > 4 && opt_u64(argv[4], 4, TRACEFILE_MAX_CPUS, &ncpus)))
		opt_usage(PROG, "usage: wb-bigtrace DIR EVENTS [SEED [CPUS]]");
	prng_seed(&r, seed);
	m.ncpus = (uint32_t)ncpus;
	m.names = calloc(m.ncpus, sizeof(*m.names));
	if (!m.names)
		opt_die(PROG, "out of memory");
	for (uint32_t c = 0; c < m.ncpus; c++)
		snprintf(m.names[c][1], sizeof(m.names[c][1]), "default-idle");
	snprintf(m.driver, sizeof(m.driver), "none");
	if (tracewrite_open(argv[1], &m, &o, &w, err, sizeof(err)))
		opt_die(PROG, "%s", err);
	snprintf(path, sizeof(path), "%s/server.csv", argv[1]);
	pairs[0].log = fopen(path, "w");
	if (!pairs[0].log)
		opt_die(PROG, "cannot write %s", path);
	setvbuf(pairs[0].log, NULL, _IOFBF, 1 << 20);
	fprintf(pairs[0].log, "seq,type,recv_ns,send_ns,service_ns,conn\n");
	for (int k = 0; k < 2; k++)
		put(w, pairs[k].ts, pairs[k].srv, TL_IDLE, 1, 0, NULL);
	while (written < events)
		request(w, &r, &pairs[pairs[1].ts < pairs[0].ts]);
	for (uint32_t cpu = 4; cpu < m.ncpus; cpu++)
		idle += idle_cpu(w, &r, cpu, m.start_ns,
				 pairs[0].ts > pairs[1].ts ? pairs[0].ts : pairs[1].ts);
	if (fclose(pairs[0].log))
		opt_die(PROG, "cannot write %s", path);
	if (tracewrite_close(w, err, sizeof(err)))
		opt_die(PROG, "%s", err);
	printf("%llu events, %llu requests (%llu on cpu0) in %s, %.1f s",
	       (unsigned long long)written,
	       (unsigned long long)(pairs[0].seq + pairs[1].seq),
	       (unsigned long long)pairs[0].seq, argv[1], now() - t0);
	if (m.ncpus > 4)
		printf("; %u CPUs, %llu events on the %u idle ones", m.ncpus,
		       (unsigned long long)idle, m.ncpus - 4);
	printf("\n");
	free(m.names);
	return 0;
}
