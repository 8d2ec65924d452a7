// SPDX-License-Identifier: GPL-2.0
/*
 * wb-tracegen: a synthetic wakebench trace directory, written with
 * lib/tracewrite (tests of trace export/import, the trace readers).
 *
 *   wb-tracegen DIR [EVENTS [CPUS [SEED [idle-miss]]]]
 *
 * EVENTS (default 2000) cpu_idle events in all over CPUS (default 3)
 * CPUs but the last, which gets none (like a CPU whose idle loop emits
 * no cpu_idle events): each CPU alternates between running and one of
 * the states POLL, C1, C1E, C6 (every CPU has them: CCn collisions for
 * the SocWatch mapping), stays of 1 us to 3 ms and now and then 0.2 s
 * (a time extend), an IRQ entry and exit before most idle exits, a
 * marker now and then. Reproducible from SEED. Prints the events
 * written and the time it took. With idle-miss the trace also records
 * power:cpu_idle_miss: 50 ns after a third of the idle exits a miss
 * above (too deep), after another third one below (too shallow).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "die.h"
#include "opt.h"
#include "prng.h"
#include "tracewrite.h"

#define PROG "wb-tracegen"

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

int main(int argc, char **argv)
{
	static const char *const names[] = { "POLL", "C1", "C1E", "C6" };
	uint64_t events = 2000, ncpus = 3, seed = 1, written = 0;
	int miss = 0;
	const uint64_t start = 5000000000ull;
	struct trace_meta m = { 0 };
	struct tracewrite_opts o = { .command = "wb-tracegen", .source = "synthetic" };
	struct tracewrite *w;
	struct prng rng;
	char err[600];
	double t0;

	if (argc < 2 || argc > 6 || (argc > 2 && opt_u64(argv[2], 1, UINT64_MAX, &events)) ||
	    (argc > 3 && opt_u64(argv[3], 1, TRACEFILE_MAX_CPUS, &ncpus)) ||
	    (argc > 4 && opt_u64(argv[4], 0, UINT64_MAX, &seed)) ||
	    (argc > 5 && strcmp(argv[5], "idle-miss")))
		opt_usage(PROG, "usage: wb-tracegen DIR [EVENTS [CPUS [SEED [idle-miss]]]]");
	miss = argc > 5;
	o.idle_miss = miss;
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
	for (uint32_t cpu = 0; cpu + 1 < ncpus || ncpus == 1; cpu++) {
		uint64_t n = events / (ncpus > 1 ? ncpus - 1 : 1), ts = start;
		char text[64];

		/* CPUs start at different times: unknown before */
		ts += 1000 + prng_next(&rng) % 2000000;
		for (uint64_t i = 0; i < n; i += 2) {
			uint64_t r = prng_next(&rng);
			uint32_t state = (uint32_t)(r % 4);
			uint64_t stay = r % 97 == 0 ? 200000000 : 1000 + (r >> 8) % 3000000;

			put(w, ts, cpu, TL_IDLE, state, NULL, &written);
			ts += stay;
			if (r % 5) {
				put(w, ts - 400, cpu, TL_IRQ_ENTRY, 40 + cpu,
				    cpu ? "virtio0-input.0" : "i40e-enp94s0f0-TxRx-1", &written);
				put(w, ts - 100, cpu, TL_IRQ_EXIT, 40 + cpu, NULL, &written);
			}
			put(w, ts, cpu, TL_IDLE, TL_EXIT, NULL, &written);
			if (miss && (r >> 4) % 3) {
				struct tl_event e = { .ts = ts + 50, .cpu = cpu,
						      .type = TL_IDLE_MISS, .arg = state,
						      .arg2 = (r >> 4) % 3 == 2 };

				if (tracewrite_event(w, &e))
					opt_die(PROG, "%s", tracewrite_error(w));
				written++;
			}
			if (r % 7 == 0) {
				snprintf(text, sizeof(text), "wb recv %llu", (unsigned long long)i);
				put(w, ts + 1000, cpu, TL_MARKER, 0, text, &written);
			}
			ts += 2000 + (r >> 20) % 500000;
		}
		if (ncpus == 1)
			break;
	}
	if (tracewrite_close(w, err, sizeof(err)))
		opt_die(PROG, "%s", err);
	printf("%llu events in %s, %.3f s\n", (unsigned long long)written, argv[1],
	       now() - t0);
	free(m.names);
	return 0;
}
