// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "cpuset.h"
#include "opt.h"

int opt_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * A plain decimal: [-]digits[.digits][e[+-]digits], at least one digit
 * before the exponent. strtod alone also takes hex ("0x10" = 16), "inf",
 * "nan" and leading blanks, none of which a user means in an option.
 */
static int is_decimal(const char *s)
{
	int digits = 0;

	if (*s == '-')
		s++;
	for (; isdigit((unsigned char)*s); s++)
		digits++;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			digits++;
	if (!digits)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return 0;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

int opt_double(const char *s, double min, double max, double *out)
{
	double v;
	char *end;

	if (!s || !is_decimal(s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int opt_hostport(const char *s, const char *def_host, char *host,
		 size_t hostlen, uint16_t *port)
{
	const char *colon, *h = s;
	size_t n;
	uint64_t p;

	if (!s)
		return -1;
	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return -1;
		h = s + 1;
		n = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -1;
		n = (size_t)(colon - s);
		if (memchr(s, ':', n))	/* bare IPv6 needs brackets */
			return -1;
	}
	if (opt_u64(colon + 1, 1, 65535, &p))
		return -1;
	if (n == 0) {
		h = def_host;
		n = strlen(def_host);
	}
	if (n >= hostlen)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	*port = (uint16_t)p;
	return 0;
}

int opt_resolve(const char *host, uint16_t port, int socktype,
		struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = socktype }, *res;
	char service[8];

	snprintf(service, sizeof(service), "%u", port);
	if (getaddrinfo(host, service, &hints, &res))
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

void opt_usage(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	exit(2);
}

void opt_bad_option(const char *prog)
{
	fprintf(stderr, "Try '%s --help'.\n", prog);
	exit(2);
}

void opt_die(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

int opt_split_command(const char *prog, int argc, char **argv, char ***cmd)
{
	*cmd = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		if (!argv[i + 1])
			opt_usage(prog, "nothing after '--'");
		*cmd = argv + i + 1;
		return i;
	}
	return argc;
}

struct cpuset *opt_cpus(const char *prog, const char *arg, int ncpus)
{
	struct cpuset *set = cpuset_new(ncpus);

	if (!set)
		opt_die(prog, "out of memory");
	if (cpuset_parse_list(set, arg) < 0) {
		cpuset_free(set);
		opt_usage(prog, "invalid --cpus '%s' (CPUs 0-%d)", arg, ncpus - 1);
	}
	return set;
}

static int needs_quotes(const char *s)
{
	if (!*s)
		return 1;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-_./:=,@+%", *s))
			return 1;
	return 0;
}

char *opt_cmdline(int argc, char **argv)
{
	size_t len = 1;
	char *out, *p;

	for (int i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	out = p = malloc(len);
	if (!out)
		return NULL;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];

		if (i)
			*p++ = ' ';
		if (!needs_quotes(s)) {
			p = stpcpy(p, s);
			continue;
		}
		*p++ = '\'';
		for (; *s; s++) {
			if (*s == '\'') {
				p = stpcpy(p, "'\\''");
				continue;
			}
			*p++ = *s;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return out;
}
