/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opt: command-line value parsing shared by every command. Parsers return
 * 0 or -1 and never print; opt_usage() (die.h) is the one place that
 * reports a usage error (one line, exit 2, as every wakebench command
 * does). Resolving a host is resolve.h's, the command line cmdline.h's.
 */
#ifndef WB_OPT_H
#define WB_OPT_H

#include <stddef.h>
#include <stdint.h>

/* Decimal unsigned integer in [min, max], no sign, no trailing junk. */
int opt_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Finite decimal number in [min, max], no trailing junk. */
int opt_double(const char *s, double min, double max, double *out);
/* "host:port", "[v6]:port" or ":port" (host defaults to def_host). */
int opt_hostport(const char *s, const char *def_host, char *host,
		 size_t hostlen, uint16_t *port);

/*
 * The --cpus option: a CPU list ("0,2-3") of CPUs below ncpus, as a set
 * of ncpus (cpuset_free it); reports a usage error (exit 2) when invalid.
 */
struct cpuset;
struct cpuset *opt_cpus(const char *prog, const char *arg, int ncpus);

#endif
