// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-internal agents, port-holders: each client agent's share of a
 * sweep's run (lib/sweepagent), and who holds the ports the sweep needs
 * (lib/portheld, from ss).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "die.h"
#include "internal.h"
#include "opt.h"
#include "portheld.h"
#include "sweepagent.h"
#include "sweepspec.h"

#define PROG SWEEP_PROG
/* The most of ss's output read. */
#define MAX_SS ((size_t)64 << 20)

/* Standard input whole, NUL-terminated; exits on error. */
static char *read_stdin(void)
{
	char *text = NULL;
	size_t cap = 0, len = 0;

	for (;;) {
		size_t got;

		if (len + 4096 + 1 > cap) {
			char *t;

			cap = cap ? 2 * cap : 65536;
			if (cap > MAX_SS)
				opt_die(PROG, "ss output larger than 64 MiB");
			t = realloc(text, cap);
			if (!t)
				opt_die(PROG, "out of memory");
			text = t;
		}
		got = fread(text + len, 1, cap - len - 1, stdin);
		len += got;
		if (!got)
			break;
	}
	if (ferror(stdin))
		opt_die(PROG, "reading ss output failed");
	text[len] = '\0';
	return text;
}

/* port-holders PORT...: who holds each PORT, from ss on stdin */
int verb_port_holders(int nargs, char **ports, void *opts)
{
	char *text, who[512];
	uint64_t p;

	(void)opts;
	for (int i = 0; i < nargs; i++)
		if (opt_u64(ports[i], 1, 65535, &p))
			opt_usage(PROG, "invalid port '%s'", ports[i]);
	text = read_stdin();
	for (int i = 0; i < nargs; i++) {
		opt_u64(ports[i], 1, 65535, &p);
		if (portheld_find(text, (unsigned)p, who, sizeof(who)))
			printf("%s\n", who);
	}
	free(text);
	return 0;
}

/* A whole number of 1 to 20 digits (a u64). */
static uint64_t arg_u64(const char *what, const char *a)
{
	uint64_t v;

	if (opt_u64(a, 0, UINT64_MAX, &v))
		opt_usage(PROG, "--agents: invalid %s '%s'", what, a);
	return v;
}

static double arg_us(const char *what, const char *a, double min)
{
	double v;

	if (opt_double(a, min, 1e12, &v))
		opt_usage(PROG, "--agents: invalid %s '%s'", what, a);
	return v;
}

/* The arguments of agents, checked, into IN; exits on a bad one. */
static void agents_in(char **a, struct sweepagent_in *in)
{
	struct timespec now;
	uint64_t margin;

	in->n = (unsigned)arg_u64("N", a[0]);
	if (in->n < 1 || in->n > SWEEPSPEC_MAX_AGENTS)
		opt_usage(PROG, "--agents: N must be 1 to %d", SWEEPSPEC_MAX_AGENTS);
	in->seed = arg_u64("SEED", a[1]);
	in->interval_us = arg_us("INTERVAL_US", a[2], 1e-3);
	in->requests = strcmp(a[3], "-") ? arg_u64("REQUESTS", a[3]) : 0;
	if (strcmp(a[3], "-") && !in->requests)
		opt_usage(PROG, "--agents: REQUESTS must be at least 1");
	in->warmup = arg_u64("WARMUP", a[4]);
	in->warmup_interval_us = strcmp(a[5], "-") ?
				 arg_us("WARMUP_INTERVAL_US", a[5], 1e-3) : 0;
	margin = arg_u64("MARGIN_MS", a[6]);
	if (margin > 3600000)
		opt_usage(PROG, "--agents: MARGIN_MS above an hour");
	if (clock_gettime(CLOCK_REALTIME, &now))
		opt_die(PROG, "clock_gettime: %s", strerror(errno));
	in->start_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec +
		       (int64_t)margin * 1000000;
}

/*
 * agents N SEED INTERVAL_US REQUESTS WARMUP WARMUP_INTERVAL_US MARGIN_MS:
 * each agent's share of a run (lib/sweepagent), one line each.
 */
int verb_agents(int nargs, char **a, void *opts)
{
	struct sweepagent_in in = { 0 };
	char iv[64], wiv[64];

	(void)nargs;
	(void)opts;
	agents_in(a, &in);
	for (unsigned k = 0; k < in.n; k++) {
		struct sweepagent g;

		if (sweepagent_split(&in, k, &g))
			opt_usage(PROG, "--agents: cannot share %s requests among %u agents",
				  a[3], in.n);
		if (sweepagent_us(g.interval_us, iv, sizeof(iv)) ||
		    sweepagent_us(g.warmup_interval_us, wiv, sizeof(wiv)))
			opt_usage(PROG, "--agents: a gap out of range");
		printf("%llu %s ", (unsigned long long)g.seed, iv);
		if (g.requests)
			printf("%llu ", (unsigned long long)g.requests);
		else
			printf("- ");
		printf("%llu %s %lld\n", (unsigned long long)g.warmup,
		       in.warmup_interval_us > 0 ? wiv : "-", (long long)g.start_at_ns);
	}
	return fflush(stdout) ? 1 : 0;
}
