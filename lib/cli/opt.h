/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opt: command-line value parsing shared by every command. Parsers return
 * 0 or -1 and never print; opt_usage() is the one place that reports a
 * usage error (one line, exit 2, as every wakebench command does).
 */
#ifndef WB_OPT_H
#define WB_OPT_H

#include <stdint.h>
#include <sys/socket.h>

/* Decimal unsigned integer in [min, max], no sign, no trailing junk. */
int opt_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Finite decimal number in [min, max], no trailing junk. */
int opt_double(const char *s, double min, double max, double *out);
/* "host:port", "[v6]:port" or ":port" (host defaults to def_host). */
int opt_hostport(const char *s, const char *def_host, char *host,
		 size_t hostlen, uint16_t *port);
/* Resolve host/port into a sockaddr for SOCK_STREAM or SOCK_DGRAM. */
int opt_resolve(const char *host, uint16_t port, int socktype,
		struct sockaddr_storage *ss, socklen_t *len);

/* Report "PROG: MSG" and "Try 'PROG --help'." on stderr, exit 2. */
__attribute__((noreturn, format(printf, 2, 3)))
void opt_usage(const char *prog, const char *fmt, ...);
/* After getopt printed its own complaint: "Try 'PROG --help'.", exit 2. */
__attribute__((noreturn))
void opt_bad_option(const char *prog);
/* Report "PROG: MSG" on stderr, exit 1 (runtime errors). */
__attribute__((noreturn, format(printf, 2, 3)))
void opt_die(const char *prog, const char *fmt, ...);

/*
 * Cuts "-- COMMAND ARGS" off argv: returns the argc before "--" and sets
 * *cmd to the command (NULL without "--"). "--" with nothing after it is
 * a usage error.
 */
int opt_split_command(const char *prog, int argc, char **argv, char ***cmd);
/*
 * The --cpus option: a CPU list ("0,2-3") of CPUs below ncpus, as a set
 * of ncpus (cpuset_free it); reports a usage error (exit 2) when invalid.
 */
struct cpuset;
struct cpuset *opt_cpus(const char *prog, const char *arg, int ncpus);

/* The exact command line, shell-quoted where needed; caller frees. */
char *opt_cmdline(int argc, char **argv);

#endif
