// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cpuset.h"
#include "die.h"
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
