// SPDX-License-Identifier: GPL-2.0
/*
 * wb-tracegen: a synthetic wakebench trace directory, written with
 * lib/tracewrite (tests of trace export/import, the trace readers).
 *
 *   wb-tracegen [--idle-miss] [--busy LIST] DIR [EVENTS [CPUS [SEED]]]
 *
 * EVENTS (default 2000) cpu_idle events in all over CPUS (default 3, up
 * to 8192) CPUs but the last, which gets none (like a CPU whose idle loop
 * emits no cpu_idle events): each CPU alternates between running and one
 * of the states POLL, C1, C1E, C6 (every CPU has them: CCn collisions for
 * the SocWatch mapping), stays of 1 us to 3 ms and now and then 0.2 s
 * (a time extend), an IRQ entry and exit before most idle exits, a
 * marker now and then.
 *
 * --busy LIST: a big host as it is measured: the CPUs of LIST (e.g.
 * "2,3") share nine tenths of EVENTS as above, and every other CPU but
 * the last is idle over the same time, with few events: a few deep stays
 * (C6, now and then C1E) each ended by a local timer or a device IRQ,
 * the last tenth of EVENTS spread over them (at least one stay each).
 *
 * --idle-miss: the trace also records power:cpu_idle_miss (the
 * governor's misses): 50 ns after a third of the busy CPUs' idle exits a
 * miss above (too deep), after another third one below (too shallow).
 *
 * Reproducible from SEED. Prints the events written and the time it took.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "die.h"
#include "opt.h"
#include "cpuset.h"
#include "prng.h"
#include "tracewrite.h"

#define PROG "wb-tracegen"

static int idle_miss;	/* --idle-miss */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put(struct tracewrite *w, uint64_t ts, uint32_t cpu, enum tl_type type,
		uint32_t arg, const char *str, uint64_t *n)
{
	struct tl_event e = { .ts = ts, .cpu = cpu, .type = type, .arg = arg, .str = str };

	if (tracewrite_event(w, &e))
		opt_die(PROG, "%s", tracewrite_error(w));
	(*n)++;
}

/* One busy CPU's n events from start on; returns the time of its last. */
static uint64_t busy_cpu(struct tracewrite *w, struct prng *rng, uint32_t cpu,
			 uint64_t n, uint64_t start, uint64_t *written)
{
	uint64_t ts = start, last = start;
	char text[64];

	/* CPUs start at different times: unknown before */
	ts += 1000 + prng_next(rng) % 2000000;
	for (uint64_t i = 0; i < n; i += 2) {
		uint64_t r = prng_next(rng);
		uint32_t state = (uint32_t)(r % 4);
		uint64_t stay = r % 97 == 0 ? 200000000 : 1000 + (r >> 8) % 3000000;

		put(w, ts, cpu, TL_IDLE, state, NULL, written);
		ts += stay;
		if (r % 5) {
			put(w, ts - 400, cpu, TL_IRQ_ENTRY, 40 + cpu,
			    cpu ? "virtio0-input.0" : "i40e-enp94s0f0-TxRx-1", written);
			put(w, ts - 100, cpu, TL_IRQ_EXIT, 40 + cpu, NULL, written);
		}
		put(w, ts, cpu, TL_IDLE, TL_EXIT, NULL, written);
		last = ts;
		if (idle_miss && (r >> 4) % 3) {
			struct tl_event e = { .ts = ts + 50, .cpu = cpu,
					      .type = TL_IDLE_MISS, .arg = state,
					      .arg2 = (r >> 4) % 3 == 2 };

			if (tracewrite_event(w, &e))
				opt_die(PROG, "%s", tracewrite_error(w));
			(*written)++;
			last = ts + 50;
		}
		if (r % 7 == 0) {
			snprintf(text, sizeof(text), "wb recv %llu", (unsigned long long)i);
			put(w, ts + 1000, cpu, TL_MARKER, 0, text, written);
			last = ts + 1000;
		}
		ts += 2000 + (r >> 20) % 500000;
	}
	return last;
}

/*
 * One idle CPU of a big host over [start, end]: k deep stays, one in
 * each k-th of the span, each after a short run (5-65 us) and ended by a
 * local timer (three in four) or a device IRQ.
 */
static void idle_cpu(struct tracewrite *w, struct prng *rng, uint32_t cpu,
		     uint64_t k, uint64_t start, uint64_t end, uint64_t *written)
{
	uint64_t slot = (end - start) / k;

	for (uint64_t i = 0; i < k; i++) {
		uint64_t r = prng_next(rng);
		uint64_t in = start + i * slot + 5000 + r % 60000;
		uint64_t out = start + (i + 1) * slot - 1000;

		if (out <= in + 1000)
			out = in + 1000;
		put(w, in, cpu, TL_IDLE, r % 8 ? 3 : 2, NULL, written);
		if ((r >> 16) % 4) {
			put(w, out - 300, cpu, TL_TIMER, 0, NULL, written);
		} else {
			put(w, out - 600, cpu, TL_IRQ_ENTRY, 100 + cpu % 64,
			    "nvme0q1", written);
			put(w, out - 300, cpu, TL_IRQ_EXIT, 100 + cpu % 64, NULL, written);
		}
		put(w, out, cpu, TL_IDLE, TL_EXIT, NULL, written);
	}
}

/* --busy: the busy CPUs first, then the idle ones over the same span. */
static void big_host(struct tracewrite *w, struct prng *rng, const struct cpuset *busy,
		     uint32_t ncpus, uint64_t events, uint64_t start, uint64_t *written)
{
	uint32_t nbusy = (uint32_t)cpuset_count(busy), nidle = 0;
	uint64_t end = start + 1000000, k;

	for (uint32_t cpu = 0; cpu < ncpus; cpu++) {
		uint64_t last;

		if (!cpuset_test(busy, (int)cpu)) {
			nidle += cpu + 1 < ncpus;
			continue;
		}
		last = busy_cpu(w, rng, cpu, events * 9 / 10 / nbusy, start, written);
		if (last > end)
			end = last;
	}
	/* a stay is three or four events */
	k = nidle ? events / 10 / nidle / 3 : 0;
	if (k < 1)
		k = 1;
	for (uint32_t cpu = 0; cpu + 1 < ncpus; cpu++)
		if (!cpuset_test(busy, (int)cpu))
			idle_cpu(w, rng, cpu, k, start, end, written);
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "POLL", "C1", "C1E", "C6" };
	static const char usage[] = "usage: wb-tracegen [--idle-miss] [--busy LIST] DIR [EVENTS [CPUS [SEED]]]";
	uint64_t events = 2000, ncpus = 3, seed = 1, written = 0;
	const uint64_t start = 5000000000ull;
	struct trace_meta m = { 0 };
	struct tracewrite_opts o = { .command = "wb-tracegen", .source = "synthetic" };
	struct cpuset *busy = NULL;
	const char *busy_list = NULL;
	struct tracewrite *w;
	struct prng rng;
	char err[600];
	double t0;

	if (argc > 1 && !strcmp(argv[1], "--idle-miss")) {
		idle_miss = 1;
		o.idle_miss = 1;
		argc--;
		argv++;
	}
	if (argc > 2 && !strcmp(argv[1], "--busy")) {
		busy_list = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || argc > 5 || (argc > 2 && opt_u64(argv[2], 1, UINT64_MAX, &events)) ||
	    (argc > 3 && opt_u64(argv[3], 1, TRACEFILE_MAX_CPUS, &ncpus)) ||
	    (argc > 4 && opt_u64(argv[4], 0, UINT64_MAX, &seed)))
		opt_usage(PROG, usage);
	if (busy_list) {
		busy = cpuset_new((int)ncpus);
		if (!busy)
			opt_die(PROG, "out of memory");
		if (cpuset_parse_list(busy, busy_list) <= 0)
			opt_usage(PROG, "--busy %s: not a list of CPUs 0-%llu", busy_list,
				  (unsigned long long)ncpus - 1);
	}
	prng_seed(&rng, seed);
	m.ncpus = (uint32_t)ncpus;
	m.start_ns = start;
	m.names = calloc(ncpus, sizeof(*m.names));
	if (!m.names)
		opt_die(PROG, "out of memory");
	for (uint32_t c = 0; c < ncpus; c++)
		for (int s = 0; s < 4; s++)
			snprintf(m.names[c][s], sizeof(m.names[c][s]), "%s", names[s]);
	snprintf(m.driver, sizeof(m.driver), "synthetic");
	t0 = now();
	if (tracewrite_open(argv[1], &m, &o, &w, err, sizeof(err)))
		opt_die(PROG, "%s", err);
	if (busy)
		big_host(w, &rng, busy, m.ncpus, events, start, &written);
	else
		for (uint32_t cpu = 0; cpu + 1 < ncpus || ncpus == 1; cpu++) {
			busy_cpu(w, &rng, cpu, events / (ncpus > 1 ? ncpus - 1 : 1), start,
				 &written);
			if (ncpus == 1)
				break;
		}
	if (tracewrite_close(w, err, sizeof(err)))
		opt_die(PROG, "%s", err);
	printf("%llu events in %s, %.3f s\n", (unsigned long long)written, argv[1],
	       now() - t0);
	free(m.names);
	cpuset_free(busy);
	return 0;
}
