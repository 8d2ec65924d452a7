// SPDX-License-Identifier: GPL-2.0
/*
 * sweepspec: read, check, resolve and write the spec of a wakebench
 * sweep (see sweepspec.h). Every value but the two command prefixes is
 * data with a fixed type; nothing here runs anything.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "arrival.h"
#include "cpuset.h"
#include "cstate.h"
#include "errmsg.h"
#include "keydist.h"
#include "kvkey.h"
#include "idlestate.h"
#include "net.h"
#include "proto.h"
#include "sweepsearch.h"
#include "sweepspec.h"
#include "sysfs.h"
#include "topology.h"

enum kind {
	K_LIST,		/* one or more words, each valid */
	K_OPTLIST,	/* empty, or a K_LIST */
	K_ONE,		/* exactly one valid word */
	K_OPTONE,	/* empty (resolved later), or a K_ONE */
	K_CMD,		/* a command prefix: words, run by design */
};

struct keydef {
	const char *name;
	enum kind kind;
	const char *def;
	int (*valid)(const char *w, int ncpus);
	const char *hint;	/* "%d" is the CPU count */
};

const char *sweepspec_decimal_end(const char *p)
{
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

/* a decimal number: digits, optionally '.' and digits */
static int isnum(const char *w, int ncpus)
{
	const char *end = sweepspec_decimal_end(w);

	(void)ncpus;
	return end && !*end;
}

/* a whole number without leading zeros, at most 9 digits */
static int isint(const char *w, int ncpus)
{
	size_t n = strlen(w);

	(void)ncpus;
	if (!strcmp(w, "0"))
		return 1;
	if (n < 1 || n > 9 || w[0] < '1' || w[0] > '9')
		return 0;
	return strspn(w, "0123456789") == n;
}

static int ispos(const char *w, int ncpus)
{
	return isint(w, ncpus) && strcmp(w, "0");
}

static int isposnum(const char *w, int ncpus)
{
	return isnum(w, ncpus) && strpbrk(w, "123456789");
}

static int isport(const char *w, int ncpus)
{
	return ispos(w, ncpus) && atol(w) <= 65534;
}

static int iscpu(const char *w, int ncpus)
{
	return isint(w, ncpus) && atol(w) < ncpus;
}

/* the warm-up's laws: without parameters */
static int iswdist(const char *w, int ncpus)
{
	(void)ncpus;
	return !strcmp(w, "fixed") || !strcmp(w, "exp") ||
	       !strcmp(w, "exponential") || !strcmp(w, "poisson");
}

/*
 * A law the client's --dist takes (lib/arrival), parameters included
 * (onoff:5,20): sweepplan writes its ':' and ',' as '-' and '_' in the
 * point's name.
 */
static int isdist(const char *w, int ncpus)
{
	struct arrival_law l;
	char err[256];

	(void)ncpus;
	return strlen(w) < 64 && !arrival_law_parse(w, &l, err, sizeof(err));
}

static int ispq(const char *w, int ncpus)
{
	return !strcmp(w, "off") || !strcmp(w, "adaptive") || isnum(w, ncpus);
}

static int iscs(const char *w, int ncpus)
{
	if (!strcmp(w, "on"))
		return 1;
	if (!strncmp(w, "system-", 7))
		w += 7;
	if (!strcmp(w, "off"))
		return 1;
	return !strncmp(w, "max-latency-us=", 15) && isint(w + 15, ncpus);
}

static int iswait(const char *w, int ncpus)
{
	(void)ncpus;
	return !strcmp(w, "spin") || !strcmp(w, "sleep") || !strcmp(w, "hybrid");
}

static int isin(const char *w, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(w, *names))
			return 1;
	return 0;
}

#define ONE_OF(fn, ...)							\
static int fn(const char *w, int ncpus)					\
{									\
	(void)ncpus;							\
	return isin(w, (const char *const[]){ __VA_ARGS__, NULL });	\
}
ONE_OF(istiers, "2", "3")
ONE_OF(isyesno, "no", "yes")
ONE_OF(isat, "lead", "gap-start", "sleep-after")
ONE_OF(isreceiver, "server", "separate")
ONE_OF(iswumode, "schedule", "burst")
ONE_OF(isrule, "nearest-rank", "floor-index")
ONE_OF(ispin, "pinned", "none")
ONE_OF(ishelperwait, "block", "spin")
ONE_OF(isbackend, "wakebench", "memcached", "redis")
ONE_OF(isroute, "hash", "all")
ONE_OF(isorder, "shuffle", "pairs")
ONE_OF(isplacement, "socket", "cross-socket")

/* SO_BUSY_POLL's microseconds: the server's --so-busy-poll range */
static int isbusypoll(const char *w, int ncpus)
{
	return isint(w, ncpus) && strlen(w) <= 7 && atol(w) <= 1000000;
}

/* a cpuidle governor's name as the kernel spells them, or "-": as it is */
static int isgov(const char *w, int ncpus)
{
	size_t n = strlen(w);

	(void)ncpus;
	return !strcmp(w, "-") || (n && n < 16 && islower((unsigned char)w[0]) &&
				   strspn(w, "abcdefghijklmnopqrstuvwxyz0123456789_") == n);
}

/* the haltpoll window in ns (at most 999999999), or "-": as it is */
static int ishaltpoll(const char *w, int ncpus)
{
	return !strcmp(w, "-") || isint(w, ncpus);
}

/* sweep --search's target, range and tolerance (lib/sweepsearch) */
static int issearch(const char *w, int ncpus)
{
	struct sweepsearch_target t;

	(void)ncpus;
	return !sweepsearch_parse(w, &t, NULL, 0);
}

static int isrange(const char *w, int ncpus)
{
	double lo, hi;

	(void)ncpus;
	return !sweepsearch_range(w, &lo, &hi, NULL, 0);
}

static int istol(const char *w, int ncpus)
{
	double pct;

	(void)ncpus;
	return !sweepsearch_tol(w, &pct, NULL, 0);
}

static int isleaves(const char *w, int ncpus)
{
	return ispos(w, ncpus) && atol(w) <= KVKEY_BACKENDS_MAX;
}

static int isratio(const char *w, int ncpus)
{
	return isnum(w, ncpus) && atof(w) <= 1;
}

static int iskeysize(const char *w, int ncpus)
{
	return ispos(w, ncpus) && atol(w) >= KVKEY_MIN && atol(w) <= KVKEY_MAX;
}

static int isvaluesize(const char *w, int ncpus)
{
	return isint(w, ncpus) && atol(w) <= (long)PROTO_MAX_PAYLOAD;
}

static int iskeydist(const char *w, int ncpus)
{
	struct keydist_spec k;

	(void)ncpus;
	return strlen(w) < 32 && !keydist_parse(w, &k);
}

static int isslack(const char *w, int ncpus)
{
	return ispos(w, ncpus);
}

/* turbostat --show/--hide: comma-separated column names */
/* auto: the sweep measures its prefixes' start-up */
static int ismargin(const char *w, int ncpus)
{
	return !strcmp(w, "auto") || ispos(w, ncpus);
}

static int iscols(const char *w, int ncpus)
{
	size_t n = strlen(w);

	(void)ncpus;
	return n && n < 200 && isalnum((unsigned char)w[0]) &&
	       strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789%_,.-") == n;
}

/*
 * IPv4, IPv6 (hex digits, colons, dots) or a host name: nothing a shell,
 * a path or a remote command line could read as syntax.
 */
static int isaddr(const char *w, int ncpus)
{
	size_t n = strlen(w);

	(void)ncpus;
	if (n >= 1 && n <= 253 && isalnum((unsigned char)w[0]) &&
	    strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789.-") == n)
		return 1;
	return n >= 2 && n <= 45 && strspn(w, "0123456789ABCDEFabcdef:.") == n;
}

/* the dimensions' keys: lib/sweep/sweepdim.h */
#define SWEEPSPEC_DIMKEY_(id, opt, col, abbr, kind, valid, def, hint, ...) \
	[SK_##id] = { opt, K_##kind, def, valid, hint },

static const struct keydef keys[SK_NKEYS] = {
	SWEEPDIM_TABLE(SWEEPSPEC_DIMKEY_)
	[SK_RATE] = { "rate", K_OPTLIST, "", isposnum,
		      "requests per second, above 0" },
	[SK_WINDOW] = { "window", K_ONE, "1000", ispos,
			"a whole number of requests, at least 1" },
	[SK_REQUESTS] = { "requests", K_ONE, "1000", ispos,
			  "a whole number of requests, at least 1" },
	[SK_REPS] = { "reps", K_ONE, "5", ispos, "a whole number, at least 1" },
	[SK_SEED] = { "seed", K_ONE, "1", isint, "a whole number" },
	[SK_WAIT] = { "wait", K_ONE, "spin", iswait, "spin, sleep or hybrid" },
	[SK_CLIENT_CPU] = { "client-cpu", K_OPTONE, "", iscpu,
			    "a CPU number below %d" },
	[SK_SERVER_CPU] = { "server-cpu", K_OPTONE, "", iscpu,
			    "a CPU number below %d" },
	[SK_SERVER_EXEC] = { "server-exec", K_CMD, "", NULL,
			     "one line of words, without '#'" },
	[SK_CLIENT_EXEC] = { "client-exec", K_CMD, "", NULL,
			     "one line of words, without '#'" },
	[SK_SERVER_ADDR] = { "server-addr", K_ONE, "127.0.0.1", isaddr,
			     "an IP address or host name" },
	[SK_SERVER_BIND] = { "server-bind", K_OPTONE, "", isaddr,
			     "an IP address or host name" },
	[SK_SERVER_PORT] = { "server-port", K_ONE, "17000", isport,
			     "1-65534; pre-queries use PORT+1" },
	[SK_WARMUP_INTERVAL_US] = { "warmup-interval-us", K_OPTONE, "", isposnum,
				    "a mean gap in us, above 0" },
	[SK_WARMUP_DIST] = { "warmup-dist", K_OPTONE, "", iswdist,
			     "fixed, exp, poisson" },
	[SK_PERCENTILE_RULE] = { "percentile-rule", K_ONE, "nearest-rank",
				 isrule, "nearest-rank or floor-index" },
	[SK_MIDTIER_CPU] = { "midtier-cpu", K_OPTONE, "", iscpu,
			     "a CPU number below %d" },
	[SK_HELPER_CPU] = { "helper-cpu", K_OPTONE, "", iscpu,
			     "a CPU number below %d" },
	[SK_DURATION] = { "duration", K_OPTONE, "", isposnum,
			  "seconds per run, above 0 (instead of requests)" },
	[SK_TURBOSTAT_SHOW] = { "turbostat-show", K_OPTONE, "", iscols,
				"turbostat column names, comma-separated" },
	[SK_TURBOSTAT_HIDE] = { "turbostat-hide", K_OPTONE, "", iscols,
				"turbostat column names, comma-separated" },
	[SK_LEAVES] = { "leaves", K_ONE, "1", isleaves,
			"1 to 64 backends behind the midtier" },
	[SK_ROUTE] = { "route", K_ONE, "hash", isroute, "hash or all" },
	[SK_GET_RATIO] = { "get-ratio", K_ONE, "0.9", isratio,
			   "a share of gets from 0 to 1" },
	[SK_KEYS] = { "keys", K_ONE, "10000", ispos,
		      "a whole number of keys, at least 1" },
	[SK_KEY_SIZE] = { "key-size", K_ONE, "16", iskeysize,
			  "a key length from 3 to 250 bytes" },
	[SK_VALUE_SIZE] = { "value-size", K_ONE, "64", isvaluesize,
			    "a value length from 0 to 1048576 bytes" },
	[SK_KEY_DIST] = { "key-dist", K_ONE, "uniform", iskeydist,
			  "uniform or zipf:S (0 < S <= 10)" },
	[SK_PRELOAD] = { "preload", K_ONE, "yes", isyesno, "no or yes" },
	[SK_START_MARGIN_MS] = { "start-margin-ms", K_ONE, "auto", ismargin,
				 "auto or a whole number of ms, at least 1" },
	[SK_ORDER] = { "order", K_ONE, "shuffle", isorder, "shuffle or pairs" },
	[SK_PLACEMENT] = { "placement", K_ONE, "socket", isplacement,
			   "socket or cross-socket" },
	[SK_SKIP_UNSUPPORTED] = { "skip-unsupported", K_ONE, "no", isyesno,
				  "no or yes" },
	[SK_SEARCH] = { "search", K_OPTONE, "", issearch, SWEEPSEARCH_HINT },
	[SK_SEARCH_RANGE] = { "search-range", K_OPTONE, "", isrange,
			      "LO,HI requests per second, 0 < LO < HI" },
	[SK_SEARCH_TOL] = { "search-tol", K_ONE, SWEEPSEARCH_TOL_DEF, istol,
			    "a tolerance in percent of the rate, 0.1 to 50" },
};

/*
 * The order values are checked in: the first bad one is reported. The
 * keys of dimensions added to the table since (after SK_SKIP_UNSUPPORTED)
 * come last.
 */
static const int check_order[] = {
	SK_DIST, SK_PREQUERY, SK_CSTATES, SK_WARMUP, SK_SERVICE_US,
	SK_REQUESTS, SK_REPS, SK_SEED, SK_WINDOW, SK_WAIT, SK_SERVER_PORT,
	SK_SERVER_ADDR, SK_SERVER_BIND, SK_CLIENT_CPU, SK_SERVER_CPU,
	SK_RATE, SK_INTERVAL_US, SK_SERVER_EXEC, SK_CLIENT_EXEC,
	SK_TIERS, SK_CLOSED, SK_PREQUERY_AT, SK_PREQUERY_ACK,
	SK_PREQUERY_RECEIVER, SK_WARMUP_MODE, SK_WARMUP_INTERVAL_US,
	SK_WARMUP_DIST, SK_TIMER_SLACK_NS, SK_PERCENTILE_RULE,
	SK_SERVER_CSTATES, SK_CLIENT_CSTATES, SK_MIDTIER_CSTATES, SK_CPU,
	SK_DELAY, SK_WORK_US, SK_HELPER_WAIT, SK_MIDTIER_CPU, SK_HELPER_CPU, SK_DURATION,
	SK_TURBOSTAT_SHOW, SK_TURBOSTAT_HIDE, SK_BACKEND, SK_LEAVES, SK_ROUTE,
	SK_GET_RATIO, SK_KEYS, SK_KEY_SIZE, SK_VALUE_SIZE, SK_KEY_DIST,
	SK_PRELOAD, SK_START_MARGIN_MS, SK_ORDER, SK_PLACEMENT,
	SK_SKIP_UNSUPPORTED,
};
_Static_assert(sizeof(check_order) / sizeof(*check_order) == SK_SKIP_UNSUPPORTED + 1,
	       "check_order names every key up to SK_SKIP_UNSUPPORTED");

int sweepspec_same_key(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return 0;
	return !*a && !*b;
}

int sweepspec_key(const char *name)
{
	for (int k = 0; k < SK_NKEYS; k++)
		if (sweepspec_same_key(keys[k].name, name))
			return k;
	return -1;
}

const char *sweepspec_name(int k)
{
	return k >= 0 && k < SK_NKEYS ? keys[k].name : "?";
}

const char *sweepspec_default(int k)
{
	return k >= 0 && k < SK_NKEYS ? keys[k].def : "";
}

static int set_val(struct sweepspec *s, int k, const char *v, size_t n)
{
	char *c = malloc(n + 1);

	if (!c)
		return -ENOMEM;
	memcpy(c, v, n);
	c[n] = '\0';
	free(s->val[k]);
	s->val[k] = c;
	return 0;
}

int sweepspec_init(struct sweepspec *s)
{
	memset(s, 0, sizeof(*s));
	for (int k = 0; k < SK_NKEYS; k++) {
		if (set_val(s, k, keys[k].def, strlen(keys[k].def))) {
			sweepspec_free(s);
			return -ENOMEM;
		}
		s->src[k] = SS_DEFAULT;
	}
	return 0;
}

void sweepspec_free(struct sweepspec *s)
{
	for (int k = 0; k < SK_NKEYS; k++) {
		free(s->val[k]);
		s->val[k] = NULL;
	}
}

int sweepspec_set(struct sweepspec *s, const char *name, const char *val,
		  enum sweepspec_src src)
{
	int k = sweepspec_key(name), ret;

	if (k < 0)
		return -ENOENT;
	ret = set_val(s, k, val, strlen(val));
	if (!ret)
		s->src[k] = (unsigned char)src;
	return ret;
}

int sweepspec_parse(struct sweepspec *s, const char *text, size_t len,
		    const char *fname, enum sweepspec_src src, char *err,
		    size_t errlen)
{
	unsigned long lineno = 0;
	size_t pos = 0;

	while (pos < len) {
		const char *line = text + pos, *eq, *nl;
		size_t n, kn = 0, vb, ve;
		char key[64];
		int k, ret;

		nl = memchr(line, '\n', len - pos);
		n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + 1;
		lineno++;
		if (memchr(line, '\0', n)) {
			errmsg_set(err, errlen, "%s:%lu: a NUL byte", fname, lineno);
			return -EINVAL;
		}
		eq = memchr(line, '#', n);
		if (eq)
			n = (size_t)(eq - line);
		vb = 0;
		while (vb < n && isspace((unsigned char)line[vb]))
			vb++;
		if (vb == n)
			continue;
		eq = memchr(line, '=', n);
		if (!eq) {
			errmsg_set(err, errlen, "%s:%lu: expected 'key = values'", fname,
			    lineno);
			return -EINVAL;
		}
		for (const char *p = line; p < eq; p++) {
			if (isspace((unsigned char)*p))
				continue;
			if (kn + 1 < sizeof(key))
				key[kn++] = *p == '_' ? '-' : *p;
		}
		key[kn] = '\0';
		k = sweepspec_key(key);
		if (k < 0) {
			errmsg_set(err, errlen, "%s:%lu: unknown key '%s'", fname, lineno,
			    key);
			return -EINVAL;
		}
		vb = (size_t)(eq - line) + 1;
		ve = n;
		while (vb < ve && isspace((unsigned char)line[vb]))
			vb++;
		while (ve > vb && isspace((unsigned char)line[ve - 1]))
			ve--;
		ret = set_val(s, k, line + vb, ve - vb);
		if (ret)
			return ret;
		s->src[k] = (unsigned char)src;
	}
	return 0;
}

/* Bash's word splitting of an unquoted expansion: space, tab, newline. */
#define IFS " \t\n"

/* The next word of *p (advanced past it) at *w; its length, 0 at the end. */
static size_t next_word(const char **p, const char **w)
{
	size_t n;

	*p += strspn(*p, IFS);
	*w = *p;
	n = strcspn(*p, IFS);
	*p += n;
	return n;
}

size_t sweepspec_count_words(const char *v)
{
	const char *w;
	size_t n = 0;

	while (next_word(&v, &w))
		n++;
	return n;
}

/* The words of V that are the agent separator '|'. */
static size_t count_seps(const char *v)
{
	const char *w;
	size_t n, seps = 0;

	while ((n = next_word(&v, &w)))
		seps += n == 1 && *w == '|';
	return seps;
}

int sweepspec_agents(const struct sweepspec *s)
{
	return (int)count_seps(s->val[SK_CLIENT_EXEC]) + 1;
}

int sweepspec_agent_exec(const struct sweepspec *s, int k, char *buf,
			 size_t len)
{
	const char *v = s->val[SK_CLIENT_EXEC], *w;
	size_t n, o = 0;
	int at = 0;

	if (k < 0 || k >= sweepspec_agents(s) || !len)
		return -ENOENT;
	buf[0] = '\0';
	while ((n = next_word(&v, &w))) {
		if (n == 1 && *w == '|') {
			at++;
			continue;
		}
		if (at != k)
			continue;
		if (o + !!o + n + 1 > len)
			return -ENAMETOOLONG;
		if (o)
			buf[o++] = ' ';
		memcpy(buf + o, w, n);
		o += n;
		buf[o] = '\0';
	}
	return 0;
}

/* V with its words joined by single spaces; NULL when out of memory. */
static char *canon(const char *v)
{
	char *c = malloc(strlen(v) + 1), *o = c;
	const char *w;
	size_t n;

	if (!c)
		return NULL;
	while ((n = next_word(&v, &w))) {
		if (o != c)
			*o++ = ' ';
		memcpy(o, w, n);
		o += n;
	}
	*o = '\0';
	return c;
}

static int bad(int k, const char *val, const char *hint, int ncpus, char *err,
	       size_t len)
{
	char name[32], h[128];
	size_t i;

	for (i = 0; keys[k].name[i] && i + 1 < sizeof(name); i++)
		name[i] = keys[k].name[i] == '-' ? '_' : keys[k].name[i];
	name[i] = '\0';
	if (strstr(hint, "%d"))
		snprintf(h, sizeof(h), "a CPU number below %d", ncpus);
	else
		snprintf(h, sizeof(h), "%s", hint);
	errmsg_set(err, len, "invalid %s '%s' (%s)", name, val, h);
	return -EINVAL;
}

int sweepspec_check(const struct sweepspec *s, int k, int ncpus, char *err,
		    size_t errlen)
{
	const struct keydef *d = &keys[k];
	const char *v = s->val[k], *p = v, *w;
	size_t n, words = sweepspec_count_words(v);
	char word[256];

	switch (d->kind) {
	case K_CMD:
		for (const char *c = v; *c; c++)
			if (*c == '#' || ((unsigned char)*c < 0x20 && *c != '\t') ||
			    *c == 0x7f)
				return bad(k, v, d->hint, ncpus, err, errlen);
		n = count_seps(v);
		/* the server side is one prefix: a '|' there is a mistake */
		if (k != SK_CLIENT_EXEC && n)
			return bad(k, v, "one command prefix: '|' separates client agents, in client_exec only",
				   ncpus, err, errlen);
		if (n + 1 > SWEEPSPEC_MAX_AGENTS) {
			snprintf(word, sizeof(word), "at most %d client agents",
				 SWEEPSPEC_MAX_AGENTS);
			return bad(k, v, word, ncpus, err, errlen);
		}
		return 0;
	case K_OPTLIST:
	case K_OPTONE:
		if (!words)
			return 0;
		break;
	case K_LIST:
	case K_ONE:
		if (!words)
			return bad(k, v, d->kind == K_LIST ? "an empty list" :
				   "one value expected", ncpus, err, errlen);
		break;
	}
	if ((d->kind == K_ONE || d->kind == K_OPTONE) && words != 1)
		return bad(k, v, "one value expected", ncpus, err, errlen);
	while ((n = next_word(&p, &w))) {
		if (n >= sizeof(word)) {
			snprintf(word, sizeof(word), "%.*s", (int)n, w);
			return bad(k, word, "too long", ncpus, err, errlen);
		}
		memcpy(word, w, n);
		word[n] = '\0';
		if (!d->valid(word, ncpus))
			return bad(k, d->kind == K_LIST || d->kind == K_OPTLIST ?
				   word : v, d->hint, ncpus, err, errlen);
	}
	return 0;
}

static int set_str(struct sweepspec *s, int k, const char *v);

/*
 * The server's and client's CPUs where the spec leaves them: on a big host
 * one socket, off CPU 0, not SMT siblings (lib/sys/topology); on a small
 * one the server on 0 (the last CPU may never report idle on some VMs)
 * and the client on the first other one.
 */
static int place_cpus(struct sweepspec *s, int ncpus, char *err,
		      size_t errlen)
{
	int server = s->val[SK_SERVER_CPU][0] ? atoi(s->val[SK_SERVER_CPU]) : -1;
	int client = s->val[SK_CLIENT_CPU][0] ? atoi(s->val[SK_CLIENT_CPU]) : -1;
	int cross = !strcmp(s->val[SK_PLACEMENT], "cross-socket");
	struct topology_cpu ts, tc;
	struct cpuset *usable;
	char b[16];
	int ret;

	if (cross && topology_packages(ncpus) < 2) {
		errmsg_set(err, errlen, "placement cross-socket: this host's CPUs are on one package (socket)");
		return -EINVAL;
	}
	usable = cpuset_usable(ncpus);
	ret = topology_pick(ncpus, cross, usable, &server, &client, err,
			    errlen);
	cpuset_free(usable);
	if (ret)
		return ret;
	/* the usable CPUs (taskset, a cpuset) may all be on one package */
	if (cross && !topology_get(server, &ts) && !topology_get(client, &tc) &&
	    ts.package == tc.package && ts.package >= 0) {
		errmsg_set(err, errlen, "placement cross-socket: server CPU %d and client CPU %d are on one package (socket): give --server-cpu and --client-cpu on two, or allow CPUs of two packages",
			   server, client);
		return -EINVAL;
	}
	snprintf(b, sizeof(b), "%d", server);
	ret = set_str(s, SK_SERVER_CPU, b);
	if (ret)
		return ret;
	snprintf(b, sizeof(b), "%d", client);
	return set_str(s, SK_CLIENT_CPU, b);
}

static int set_str(struct sweepspec *s, int k, const char *v)
{
	return set_val(s, k, v, strlen(v));
}

/* interval-us from rate: 1e6 / r for each rate, "%.10g" as awk writes it */
static int rate_to_interval(struct sweepspec *s)
{
	const char *p = s->val[SK_RATE], *w;
	size_t n, cap = sweepspec_count_words(p) * 24 + 1, len = 0;
	char *out = malloc(cap);
	int ret;

	if (!out)
		return -ENOMEM;
	out[0] = '\0';
	while ((n = next_word(&p, &w))) {
		char word[256];

		snprintf(word, sizeof(word), "%.*s", (int)n, w);
		len += (size_t)snprintf(out + len, cap - len, "%s%.10g",
					len ? " " : "", 1e6 / strtod(word, NULL));
	}
	ret = set_str(s, SK_INTERVAL_US, out);
	free(out);
	return ret;
}

/* a tier's C-state list: its own, or cstates when it has none */
static const char *tier_cs(const struct sweepspec *s, int k)
{
	return s->val[k][0] ? s->val[k] : s->val[SK_CSTATES];
}

/*
 * The C-state lists must mean one setting per CPU and point: two pinned
 * tiers on one CPU (the midtier on the client's or the server's) hold
 * the same states, so their lists must be the same single value unless
 * both follow cstates; and a cstates list that no tier uses would only
 * repeat runs.
 */
static int check_cstates(const struct sweepspec *s, char *err, size_t errlen)
{
	static const int other[2] = { SK_CLIENT_CSTATES, SK_SERVER_CSTATES };
	static const int cpu[2] = { SK_CLIENT_CPU, SK_SERVER_CPU };
	int three = strstr(s->val[SK_TIERS], "3") != NULL;

	if (sweepspec_count_words(s->val[SK_CSTATES]) > 1 && s->val[SK_SERVER_CSTATES][0] &&
	    s->val[SK_CLIENT_CSTATES][0] &&
	    (!three || s->val[SK_MIDTIER_CSTATES][0])) {
		errmsg_set(err, errlen, "cstates '%s' is not used: server_cstates and client_cstates%s are given",
		    s->val[SK_CSTATES], three ? " and midtier_cstates" : "");
		return -EINVAL;
	}
	if (!three || !strcmp(s->val[SK_CPU], "none"))
		return 0;
	for (int i = 0; i < 2; i++) {
		const char *a = tier_cs(s, SK_MIDTIER_CSTATES), *b = tier_cs(s, other[i]);

		if (strcmp(s->val[SK_MIDTIER_CPU], s->val[cpu[i]]))
			continue;
		if (!s->val[SK_MIDTIER_CSTATES][0] && !s->val[other[i]][0])
			continue;	/* both follow cstates: one value a point */
		if (sweepspec_count_words(a) == 1 && !strcmp(a, b))
			continue;
		errmsg_set(err, errlen, "the midtier shares CPU %s with the %s: give both the same single C-state value (midtier_cstates '%s', %s '%s')",
		    s->val[SK_MIDTIER_CPU], i ? "server" : "client", a,
		    i ? "server_cstates" : "client_cstates", b);
		return -EINVAL;
	}
	return 0;
}

/*
 * Checks across keys once key k is known good: the leaves are on
 * server_port, then server_port + 3, + 4, ... (+1 is the pre-query port,
 * +2 the midtier's), only behind a midtier; the keys fit the key size.
 */
static int check_leaves(const struct sweepspec *s, int k, char *err,
			size_t errlen)
{
	long leaves = atol(s->val[SK_LEAVES]);

	if (k == SK_LEAVES && leaves > 1 && !strstr(s->val[SK_TIERS], "3")) {
		errmsg_set(err, errlen, "leaves %ld needs tiers 3 (the midtier fans out to them)",
			   leaves);
		return -EINVAL;
	}
	if (k == SK_LEAVES && leaves > 1 &&
	    atol(s->val[SK_SERVER_PORT]) + leaves + 1 > 65535) {
		errmsg_set(err, errlen, "%ld leaves take ports server_port + 3 to + %ld: server_port must be at most %ld",
			   leaves, leaves + 1, 65535 - 1 - leaves);
		return -EINVAL;
	}
	if (k == SK_KEY_SIZE &&
	    (unsigned long)atol(s->val[SK_KEY_SIZE]) < kvkey_min_size((uint64_t)atol(s->val[SK_KEYS]))) {
		errmsg_set(err, errlen, "key_size %s cannot hold %s keys (\"wb\" and their digits: at least %u)",
			   s->val[SK_KEY_SIZE], s->val[SK_KEYS],
			   kvkey_min_size((uint64_t)atol(s->val[SK_KEYS])));
		return -EINVAL;
	}
	return 0;
}

/* Key K's checks, alone and with the keys checked before it. */
static int resolve_key(struct sweepspec *s, int k, int ncpus, char *err,
		       size_t errlen)
{
	int ret;

	if (k == SK_RATE && sweepspec_count_words(s->val[SK_RATE]) &&
	    s->src[SK_INTERVAL_US] == SS_CLI) {
		errmsg_set(err, errlen, "give --interval-us or --rate, not both");
		return -EINVAL;
	}
	if (k == SK_TIERS && strstr(s->val[SK_TIERS], "3") &&
	    atol(s->val[SK_SERVER_PORT]) > 65533) {
		errmsg_set(err, errlen, "with tiers 3 the midtier listens on server_port + 2: server_port must be at most 65533");
		return -EINVAL;
	}
	if (k == SK_CSTATES && s->src[SK_CSTATES] != SS_DEFAULT &&
	    sweepspec_count_words(s->val[SK_SERVER_CSTATES]) &&
	    sweepspec_count_words(s->val[SK_CLIENT_CSTATES]) &&
	    sweepspec_count_words(s->val[SK_MIDTIER_CSTATES])) {
		errmsg_set(err, errlen, "cstates is not used when server_cstates, client_cstates and midtier_cstates are all given");
		return -EINVAL;
	}
	ret = sweepspec_check(s, k, ncpus, err, errlen);
	if (ret)
		return ret;
	ret = check_leaves(s, k, err, errlen);
	if (ret)
		return ret;
	if (k == SK_RATE && sweepspec_count_words(s->val[SK_RATE]))
		return rate_to_interval(s);
	return 0;
}

int sweepspec_resolve(struct sweepspec *s, int ncpus, char *err,
		      size_t errlen)
{
	int ret;

	if (!sweepspec_count_words(s->val[SK_SERVER_BIND])) {
		ret = set_str(s, SK_SERVER_BIND, s->val[SK_SERVER_ADDR]);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < sizeof(check_order) / sizeof(*check_order); i++) {
		ret = resolve_key(s, check_order[i], ncpus, err, errlen);
		if (ret)
			return ret;
	}
	for (int k = SK_SKIP_UNSUPPORTED + 1; k < SK_NKEYS; k++) {
		ret = resolve_key(s, k, ncpus, err, errlen);
		if (ret)
			return ret;
	}
	for (int k = 0; k < SK_NKEYS; k++) {
		char *c = canon(s->val[k]);

		if (!c)
			return -ENOMEM;
		free(s->val[k]);
		s->val[k] = c;
	}
	ret = place_cpus(s, ncpus, err, errlen);
	if (ret)
		return ret;
	/* The midtier shares the client's CPU unless told: the server's is
	 * the one measured, and it should idle between requests. */
	if (!s->val[SK_MIDTIER_CPU][0]) {
		ret = set_str(s, SK_MIDTIER_CPU, s->val[SK_CLIENT_CPU]);
		if (ret)
			return ret;
	}
	/* the helper with its main thread: no core of its own on 2 CPUs */
	if (!s->val[SK_HELPER_CPU][0]) {
		ret = set_str(s, SK_HELPER_CPU, s->val[SK_MIDTIER_CPU]);
		if (ret)
			return ret;
	}
	/* each agent measures its share of the requests: one at least */
	if (sweepspec_agents(s) > 1 && !s->val[SK_DURATION][0] &&
	    atol(s->val[SK_REQUESTS]) < sweepspec_agents(s)) {
		errmsg_set(err, errlen, "requests %s is fewer than the %d client agents (client_exec): each measures its share",
			   s->val[SK_REQUESTS], sweepspec_agents(s));
		return -EINVAL;
	}
	ret = check_cstates(s, err, errlen);
	return ret ? ret : sweepsearch_resolve(s, err, errlen);
}

/* whether A and B have the same words */
static int same_words(const char *a, const char *b)
{
	const char *wa, *wb;
	size_t na, nb;

	do {
		na = next_word(&a, &wa);
		nb = next_word(&b, &wb);
		if (na != nb || memcmp(wa, wb, na))
			return 0;
	} while (na);
	return 1;
}

/*
 * A haltpoll window acts only where the cpuidle driver is haltpoll (a
 * KVM guest's), through the module's parameter, which root writes.
 */
static int haltpoll_here(const char *v, char *err, size_t errlen)
{
	char drv[64], path[512];

	idlestate_driver(drv, sizeof(drv));
	snprintf(path, sizeof(path), "%s/" CSTATE_HALTPOLL_FILE, sysfs_root());
	if (strcmp(drv, "haltpoll"))
		errmsg_set(err, errlen, "haltpoll_ns %s cannot be applied here: the cpuidle driver is %s, not haltpoll",
			   v, drv);
	else if (access(path, W_OK))
		errmsg_set(err, errlen, "haltpoll_ns %s cannot be applied here: %s: %s",
			   v, path, errno == EACCES ? "not writable (it needs root)" :
			   strerror(errno));
	else
		return 0;
	return -EOPNOTSUPP;
}

/* memcached's and redis' busy polling: the sysctls, which root writes */
static int sysctl_busy_here(const char *v, char *err, size_t errlen)
{
	static const char *const names[] = { "busy_read", "busy_poll" };
	char path[512];

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/net/core/%s", procsys_root(), names[i]);
		if (!access(path, W_OK))
			continue;
		errmsg_set(err, errlen, "so_busy_poll %s cannot be applied here: %s: %s",
			   v, path, errno == EACCES ? "not writable (it needs root)" :
			   strerror(errno));
		return -EOPNOTSUPP;
	}
	return 0;
}

int sweepspec_here_point(const struct sweepspec *s, const char *const *v,
			 char *err, size_t errlen)
{
	int kv = strcmp(v[SWEEPDIM_BACKEND], "wakebench");

	for (int d = 0; d < SWEEPDIM_N; d++) {
		int ret;

		if (kv && d == SWEEPDIM_SO_BUSY_POLL && !s->val[SK_SERVER_EXEC][0] &&
		    strcmp(v[d], "0") && strcmp(v[d], "-"))
			ret = sysctl_busy_here(v[d], err, errlen);
		else
			ret = sweepspec_here(s, d, v[d], err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

int sweepspec_here(const struct sweepspec *s, int d, const char *v, char *err,
		   size_t errlen)
{
	char avail[256];

	/* through --server-exec the server is on another host (or a
	 * namespace): this one cannot say what that one accepts */
	if (s->val[SK_SERVER_EXEC][0] || !*v || !strcmp(v, "-"))
		return 0;
	if (d == SWEEPDIM_GOVERNOR) {
		idlestate_governors(avail, sizeof(avail));
		if (idlestate_governor_listed(avail, v))
			return 0;
		errmsg_set(err, errlen, "governor '%s' cannot be applied here: this kernel's cpuidle available_governors are %s",
			   v, avail[0] ? avail : "none");
		return -EOPNOTSUPP;
	}
	if (d == SWEEPDIM_HALTPOLL_NS)
		return haltpoll_here(v, err, errlen);
	if (d == SWEEPDIM_SO_BUSY_POLL && strcmp(v, "0")) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int ret = fd < 0 ? -errno : net_busy_poll(fd, (unsigned)atol(v));

		if (fd >= 0)
			close(fd);
		if (!ret)
			return 0;
		errmsg_set(err, errlen, "so_busy_poll %s cannot be applied here: SO_BUSY_POLL: %s",
			   v, ret == -EPERM ? "not permitted without CAP_NET_ADMIN" :
			   strerror(-ret));
		return -EOPNOTSUPP;
	}
	return 0;
}

int sweepspec_compare(const struct sweepspec *rec,
		      const struct sweepspec *given, char *err, size_t errlen)
{
	for (int k = 0; k < SK_NKEYS; k++) {
		if (given->src[k] == SS_DEFAULT ||
		    same_words(rec->val[k], given->val[k]))
			continue;
		/* more repetitions extend the plan; fewer would lose runs */
		if (k == SK_REPS && strtoul(given->val[k], NULL, 10) >
				    strtoul(rec->val[k], NULL, 10))
			continue;
		errmsg_set(err, errlen, "%s: recorded '%s', given '%s'", keys[k].name,
		    rec->val[k], given->val[k]);
		return -EINVAL;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(keys[*(const int *)a].name, keys[*(const int *)b].name);
}

int sweepspec_write(const struct sweepspec *s, FILE *f)
{
	int order[SK_NKEYS];

	for (int k = 0; k < SK_NKEYS; k++)
		order[k] = k;
	qsort(order, SK_NKEYS, sizeof(*order), by_name);
	for (int i = 0; i < SK_NKEYS; i++)
		fprintf(f, "%s = %s\n", keys[order[i]].name, s->val[order[i]]);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
