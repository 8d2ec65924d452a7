// SPDX-License-Identifier: GPL-2.0
/* sweepcmd: one sweep run's command lines (see sweepcmd.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "sweepagent.h"
#include "sweepcmd.h"

const char *const sweepcmd_kinds[SWEEPCMD_NKINDS] = {
	[SWEEPCMD_PORTS] = "ports", [SWEEPCMD_TIER] = "tier",
	[SWEEPCMD_KV] = "kv", [SWEEPCMD_SNAPSHOT] = "snapshot",
	[SWEEPCMD_RUN] = "run", [SWEEPCMD_CAPTURE] = "capture",
	[SWEEPCMD_CLIENT] = "client", [SWEEPCMD_AGENT] = "agent",
};

/*
 * Appends one word, formatted; -ENOMEM. The list stays NULL-terminated
 * (w[n] == NULL), so it can be handed to execvp as it is.
 */
static int __attribute__((format(printf, 2, 3)))
add(struct sweepcmd_words *w, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (w->n + 1 >= w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 32;
		char **nw = realloc(w->w, cap * sizeof(*nw));

		if (!nw)
			return -ENOMEM;
		w->w = nw;
		w->cap = cap;
	}
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	w->w[w->n++] = s;
	w->w[w->n] = NULL;
	return 0;
}

/* Appends every word of FROM. */
static int add_all(struct sweepcmd_words *w, const struct sweepcmd_words *from)
{
	for (size_t i = 0; i < from->n; i++)
		if (add(w, "%s", from->w[i]))
			return -ENOMEM;
	return 0;
}

static void words_free(struct sweepcmd_words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->w[i]);
	free(w->w);
	memset(w, 0, sizeof(*w));
}

int sweepcmd_add(struct sweepcmd_words *w, const char *word)
{
	return add(w, "%s", word);
}

int sweepcmd_split(const char *text, struct sweepcmd_words *w)
{
	const char *p = text;

	for (;;) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (!n)
			return 0;
		if (add(w, "%.*s", (int)n, p))
			return -ENOMEM;
		p += n;
	}
}

/* A new step of C; NULL when out of memory. */
static struct sweepcmd_step *step(struct sweepcmd *c, enum sweepcmd_kind kind,
				  const char *name, const char *ready,
				  const char *want, const char *pattern)
{
	struct sweepcmd_step *s;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		struct sweepcmd_step *ns = realloc(c->step, cap * sizeof(*ns));

		if (!ns)
			return NULL;
		c->step = ns;
		c->cap = cap;
	}
	s = &c->step[c->n];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->name = strdup(name);
	s->ready = strdup(ready);
	s->want = strdup(want);
	s->pattern = strdup(pattern);
	c->n++;
	if (!s->name || !s->ready || !s->want || !s->pattern)
		return NULL;
	return s;
}

void sweepcmd_free(struct sweepcmd *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->step[i].name);
		free(c->step[i].ready);
		free(c->step[i].want);
		free(c->step[i].pattern);
		words_free(&c->step[i].argv);
	}
	free(c->step);
	memset(c, 0, sizeof(*c));
}

/*
 * What one run needs, read once: the plan line's values by name, the
 * ports, the command prefixes.
 */
struct run {
	const struct sweepcmd_in *in;
	const char *v[SWEEPPLAN_NDIMS];
	unsigned port, pqport, mtport, leaf[64];
	unsigned nleaves;
	int three, sep, kv, pinned;
	struct sweepcmd_words server_exec, client_exec;
	struct sweepcmd_words cargs;	/* the point's client options */
};

enum { D_DIST, D_INTERVAL_US, D_PREQUERY, D_WARMUP, D_SERVICE_US, D_TIERS,
       D_CLOSED, D_PREQUERY_AT, D_PREQUERY_ACK, D_PREQUERY_RECEIVER,
       D_WARMUP_MODE, D_TIMER_SLACK_NS, D_SERVER_CSTATES, D_CLIENT_CSTATES,
       D_MIDTIER_CSTATES, D_CPU, D_DELAY, D_WORK_US, D_HELPER_WAIT,
       D_BACKEND, D_N };

/* the dimensions a run reads, by name: the plan's order may change */
static const char *const dim_names[D_N] = {
	"dist", "interval_us", "prequery", "warmup", "service_us", "tiers",
	"closed", "prequery_at", "prequery_ack", "prequery_receiver",
	"warmup_mode", "timer_slack_ns", "server_cstates", "client_cstates",
	"midtier_cstates", "cpu", "delay", "work_us", "helper_wait", "backend",
};

static const char *S(const struct run *r, int k)
{
	return r->in->s->val[k];
}

static int is(const char *a, const char *b)
{
	return !strcmp(a, b);
}

/* The values of the plan line by D_*, the ports and prefixes. */
static int run_init(struct run *r, const struct sweepcmd_in *in, char *err,
		    size_t errlen)
{
	char first[4096];
	unsigned long leaves = strtoul(in->s->val[SK_LEAVES], NULL, 10);

	memset(r, 0, sizeof(*r));
	r->in = in;
	for (int d = 0; d < D_N; d++) {
		int i = sweepplan_dim(dim_names[d]);

		r->v[d] = i >= 0 ? in->r->val[i] : NULL;
		if (!r->v[d] || !*r->v[d]) {
			errmsg_set(err, errlen, "plan line for %s has no %s", in->r->point,
				   dim_names[d]);
			return -EINVAL;
		}
	}
	r->port = (unsigned)strtoul(S(r, SK_SERVER_PORT), NULL, 10);
	r->pqport = r->port + 1;
	r->mtport = r->port + 2;
	r->three = is(r->v[D_TIERS], "3");
	r->sep = is(r->v[D_PREQUERY_RECEIVER], "separate");
	r->kv = !is(r->v[D_BACKEND], "wakebench");
	r->pinned = !is(r->v[D_CPU], "none");
	/* the servers: one, or --leaves behind a midtier (PORT, PORT+3, ...) */
	r->leaf[0] = r->port;
	r->nleaves = 1;
	for (; r->three && r->nleaves < leaves && r->nleaves < 64; r->nleaves++)
		r->leaf[r->nleaves] = r->port + 2 + r->nleaves;
	if (sweepspec_agent_exec(in->s, 0, first, sizeof(first))) {
		errmsg_set(err, errlen, "client-exec too long");
		return -EINVAL;
	}
	if (sweepcmd_split(S(r, SK_SERVER_EXEC), &r->server_exec) ||
	    sweepcmd_split(first, &r->client_exec))
		return -ENOMEM;
	return 0;
}

static void run_free(struct run *r)
{
	words_free(&r->server_exec);
	words_free(&r->client_exec);
	words_free(&r->cargs);
}

/* --cpu CPU, or nothing in a cpu=none point */
static int cpu_args(const struct run *r, struct sweepcmd_words *w, int k)
{
	if (!r->pinned)
		return 0;
	return add(w, "--cpu") || add(w, "%s", S(r, k)) ? -ENOMEM : 0;
}

#define TRY(x) do { if (x) return -ENOMEM; } while (0)

/* Issue 35's dimensions: empty (a plan from before them) is the default. */
static const char *mit(const struct run *r, int d, const char *def)
{
	const char *v = r->in->r->val[d];

	return v && *v && !is(v, "-") ? v : def;
}

/* 'wakebench cstate VERB VALUE --' */
static int cstate_prefix(const struct run *r, const char *verb, const char *v,
			 struct sweepcmd_words *w)
{
	return add(w, "%s", r->in->wb) || add(w, "cstate") || add(w, "%s", verb) ||
	       add(w, "%s", v) || add(w, "--") ? -ENOMEM : 0;
}

/*
 * The point's machine-wide settings around the server (the first server
 * tier): 'wakebench cstate governor NAME --', 'cstate haltpoll NS --'
 * and, for memcached and redis, whose sockets the sweep cannot reach,
 * so_busy_poll as 'cstate busy-poll US --' (the sysctls) before its
 * command, through --server-exec as the server, so the machine the
 * server runs on holds them while the server runs and gets its own back
 * when it stops.
 */
static int settings_prefix(const struct run *r, const char *name,
			   struct sweepcmd_words *w)
{
	const char *g = mit(r, SWEEPDIM_GOVERNOR, NULL);
	const char *hp = mit(r, SWEEPDIM_HALTPOLL_NS, NULL);
	const char *so = mit(r, SWEEPDIM_SO_BUSY_POLL, "0");

	if (!is(name, "server"))
		return 0;
	if (g && cstate_prefix(r, "governor", g, w))
		return -ENOMEM;
	if (hp && cstate_prefix(r, "haltpoll", hp, w))
		return -ENOMEM;
	if (r->kv && !is(so, "0"))
		return cstate_prefix(r, "busy-poll", so, w);
	return 0;
}

/* A request server's busy polling: the point's server_busy_poll, so_busy_poll. */
static int busy_poll_args(const struct run *r, struct sweepcmd_words *w)
{
	const char *so = mit(r, SWEEPDIM_SO_BUSY_POLL, "0");

	if (is(mit(r, SWEEPDIM_SERVER_BUSY_POLL, "no"), "yes"))
		TRY(add(w, "--busy-poll"));
	if (!is(so, "0"))
		TRY(add(w, "--so-busy-poll") || add(w, "%s", so));
	return 0;
}

/* A wakebench server on PORT (NAME: server, server-1, prequery-server). */
static int server_step(struct sweepcmd *c, const struct run *r,
		       const char *name, unsigned port)
{
	const struct sweepcmd_in *in = r->in;
	struct sweepcmd_step *s;
	struct sweepcmd_words *w;
	char pf[4096], want[32], pat[128];
	int main_server = is(name, "server");

	snprintf(pf, sizeof(pf), "%s/%s.port", in->rundir, name);
	if (main_server && !r->sep)
		snprintf(want, sizeof(want), "%u %u", port, r->pqport);
	else
		snprintf(want, sizeof(want), "%u", port);
	snprintf(pat, sizeof(pat), "wakebench-server .*--port %u( |$)", port);
	s = step(c, SWEEPCMD_TIER, name, pf, want, pat);
	if (!s)
		return -ENOMEM;
	w = &s->argv;
	TRY(add_all(w, &r->server_exec) || settings_prefix(r, name, w) ||
	    add(w, "%s", in->wb) || add(w, "server") ||
	    add(w, "--bind") || add(w, "%s", S(r, SK_SERVER_BIND)) ||
	    add(w, "--port") || add(w, "%u", port));
	if (!is(name, "prequery-server"))
		TRY(busy_poll_args(r, w));
	if (main_server && !r->sep)
		TRY(add(w, "--prequery-port") || add(w, "%u", r->pqport));
	if (is(name, "prequery-server"))
		TRY(add(w, "--prequery-only"));
	TRY(cpu_args(r, w, SK_SERVER_CPU));
	if (main_server)
		TRY(add(w, "--cstates") || add(w, "%s", r->v[D_SERVER_CSTATES]));
	TRY(add(w, "--log") || add(w, "%s/%s.csv", in->rundir, name) ||
	    add(w, "--port-file") || add(w, "%s", pf));
	if (main_server && in->trace)
		TRY(add(w, "--trace-markers"));
	return add(w, "-q");
}

/*
 * A real server has no --cstates: 'wakebench cstate limit' holds the
 * point's server_cstates around it (off: exit latency 0, only POLL left;
 * system-*: /dev/cpu_dma_latency too) and restores them.
 */
static int cstate_limit(const struct run *r, struct sweepcmd_words *w)
{
	const char *cs = r->v[D_SERVER_CSTATES], *lat = NULL;
	int sys = 0;

	if (is(cs, "off") || is(cs, "system-off")) {
		lat = "0";
		sys = is(cs, "system-off");
	} else if (!strncmp(cs, "max-latency-us=", 15)) {
		lat = cs + 15;
	} else if (!strncmp(cs, "system-max-latency-us=", 22)) {
		lat = cs + 22;
		sys = 1;
	}
	if (!lat)
		return 0;
	TRY(add(w, "%s", r->in->wb) || add(w, "cstate") || add(w, "limit") ||
	    add(w, "--max-latency-us") || add(w, "%s", lat));
	if (sys)
		TRY(add(w, "--system"));
	if (r->pinned)
		TRY(add(w, "--cpus") || add(w, "%s", S(r, SK_SERVER_CPU)));
	return add(w, "--");
}

/* memcached (-t 1: one worker thread) or redis-server (nothing saved) */
static int kv_argv(const struct run *r, struct sweepcmd_words *w, unsigned port)
{
	const char *bind = S(r, SK_SERVER_BIND);

	if (is(r->v[D_BACKEND], "memcached"))
		return add(w, "memcached") || add(w, "-p") || add(w, "%u", port) ||
		       add(w, "-l") || add(w, "%s", bind) || add(w, "-U") ||
		       add(w, "0") || add(w, "-t") || add(w, "1") || add(w, "-c") ||
		       add(w, "4096") || add(w, "-u") || add(w, "%s", r->in->user) ?
		       -ENOMEM : 0;
	return add(w, "redis-server") || add(w, "--port") || add(w, "%u", port) ||
	       add(w, "--bind") || add(w, "%s", bind) || add(w, "--save") ||
	       add(w, "%s", "") || add(w, "--appendonly") || add(w, "no") ||
	       add(w, "--protected-mode") || add(w, "no") || add(w, "--io-threads") ||
	       add(w, "1") || add(w, "--daemonize") || add(w, "no") ||
	       add(w, "--logfile") || add(w, "%s", "") ? -ENOMEM : 0;
}

/* Leaf I as memcached or redis-server, pinned to the server CPU. */
static int kv_step(struct sweepcmd *c, const struct run *r, unsigned i)
{
	struct sweepcmd_step *s;
	char name[32], port[16], pat[128];
	const char *prog = is(r->v[D_BACKEND], "memcached") ? "memcached" : "redis-server";

	if (i)
		snprintf(name, sizeof(name), "server-%u", i);
	else
		snprintf(name, sizeof(name), "server");
	snprintf(port, sizeof(port), "%u", r->leaf[i]);
	snprintf(pat, sizeof(pat), "^%s .*(-p|--port) %u( |$)", prog, r->leaf[i]);
	s = step(c, SWEEPCMD_KV, name, port, r->v[D_BACKEND], pat);
	if (!s)
		return -ENOMEM;
	TRY(add_all(&s->argv, &r->server_exec) || settings_prefix(r, name, &s->argv) ||
	    cstate_limit(r, &s->argv));
	if (r->pinned)
		TRY(add(&s->argv, "taskset") || add(&s->argv, "-c") ||
		    add(&s->argv, "%s", S(r, SK_SERVER_CPU)));
	return kv_argv(r, &s->argv, r->leaf[i]);
}

/*
 * The real server's snapshot, up to --software: the caller appends the
 * version it asks the server for, then --out READY.
 */
static int snapshot_step(struct sweepcmd *c, const struct run *r)
{
	char out[4096];
	struct sweepcmd_step *s;

	snprintf(out, sizeof(out), "%s/server.snapshot.json", r->in->rundir);
	s = step(c, SWEEPCMD_SNAPSHOT, "server", out, r->v[D_BACKEND], "");
	if (!s)
		return -ENOMEM;
	return add_all(&s->argv, &r->server_exec) || add(&s->argv, "%s", r->in->wb) ||
	       add(&s->argv, "snapshot") || add(&s->argv, "--role") ||
	       add(&s->argv, "server") || add(&s->argv, "--software") ? -ENOMEM : 0;
}

/*
 * --preload behind a midtier: every leaf gets every key directly, so the
 * midtier's counters and round trips are the run's alone.
 */
static int preload_steps(struct sweepcmd *c, const struct run *r)
{
	for (unsigned i = 0; i < r->nleaves; i++) {
		struct sweepcmd_step *s;
		struct sweepcmd_words *w;
		char name[32], what[64];

		snprintf(name, sizeof(name), "preload-%u", i);
		snprintf(what, sizeof(what), "preloading leaf %u", i);
		s = step(c, SWEEPCMD_RUN, name, what, "", "");
		if (!s)
			return -ENOMEM;
		w = &s->argv;
		TRY(add_all(w, &r->client_exec) || add(w, "%s", r->in->wb) ||
		    add(w, "client") || add(w, "--server") ||
		    add(w, "%s:%u", S(r, SK_SERVER_ADDR), r->leaf[i]) ||
		    add(w, "--proto") || add(w, "%s", r->v[D_BACKEND]) ||
		    add(w, "--keys") || add(w, "%s", S(r, SK_KEYS)) ||
		    add(w, "--key-size") || add(w, "%s", S(r, SK_KEY_SIZE)) ||
		    add(w, "--value-size") || add(w, "%s", S(r, SK_VALUE_SIZE)) ||
		    add(w, "--preload") || add(w, "--requests") || add(w, "1") ||
		    add(w, "-q"));
	}
	return 0;
}

/* The midtier's pre-query: off, a delay, or adaptive. */
static int midtier_prequery(const struct run *r, struct sweepcmd_words *w)
{
	const char *d = r->v[D_DELAY];

	if (is(d, "off"))
		return 0;
	if (is(d, "adaptive"))
		TRY(add(w, "--prequery-policy") || add(w, "adaptive") ||
		    add(w, "--window") || add(w, "%s", S(r, SK_WINDOW)));
	else
		TRY(add(w, "--prequery-delay-us") || add(w, "%s", d));
	if (!r->kv && r->nleaves == 1)
		TRY(add(w, "--backend-prequery-port") || add(w, "%u", r->pqport));
	return 0;
}

static int midtier_step(struct sweepcmd *c, const struct run *r)
{
	const struct sweepcmd_in *in = r->in;
	struct sweepcmd_step *s;
	struct sweepcmd_words *w;
	char pf[4096], want[16], pat[128];

	snprintf(pf, sizeof(pf), "%s/midtier.port", in->rundir);
	snprintf(want, sizeof(want), "%u", r->mtport);
	snprintf(pat, sizeof(pat), "wakebench-midtier .*--listen %u( |$)", r->mtport);
	s = step(c, SWEEPCMD_TIER, "midtier", pf, want, pat);
	if (!s)
		return -ENOMEM;
	w = &s->argv;
	TRY(add_all(w, &r->server_exec) || add(w, "%s", in->wb) || add(w, "midtier") ||
	    add(w, "--listen") || add(w, "%u", r->mtport) ||
	    add(w, "--bind") || add(w, "%s", S(r, SK_SERVER_BIND)));
	for (unsigned i = 0; i < r->nleaves; i++)
		TRY(add(w, "--backend") || add(w, "%s:%u", S(r, SK_SERVER_ADDR), r->leaf[i]));
	if (r->nleaves > 1)
		TRY(add(w, "--route") || add(w, "%s", S(r, SK_ROUTE)));
	TRY(add(w, "--proto") || add(w, "%s", r->v[D_BACKEND]) ||
	    cpu_args(r, w, SK_MIDTIER_CPU));
	if (r->pinned)
		TRY(add(w, "--helper-cpu") || add(w, "%s", S(r, SK_HELPER_CPU)));
	if (!is(r->v[D_HELPER_WAIT], "-"))
		TRY(add(w, "--helper-wait") || add(w, "%s", r->v[D_HELPER_WAIT]));
	TRY(midtier_prequery(r, w) || add(w, "--work-us") || add(w, "%s", r->v[D_WORK_US]));
	if (!is(r->v[D_MIDTIER_CSTATES], "-"))
		TRY(add(w, "--cstates") || add(w, "%s", r->v[D_MIDTIER_CSTATES]));
	return add(w, "--log") || add(w, "%s/midtier.csv", in->rundir) ||
	       add(w, "--summary") || add(w, "%s/midtier-summary.csv", in->rundir) ||
	       add(w, "--port-file") || add(w, "%s", pf) || add(w, "-q") ? -ENOMEM : 0;
}

/* The ports that must be free, then every tier in the order they start. */
static int tier_steps(struct sweepcmd *c, const struct run *r)
{
	struct sweepcmd_step *s = step(c, SWEEPCMD_PORTS, "ports", "", "", "");

	if (!s)
		return -ENOMEM;
	for (unsigned i = 0; i < r->nleaves; i++)
		TRY(add(&s->argv, "%u", r->leaf[i]));
	TRY(add(&s->argv, "%u", r->pqport));
	if (r->three)
		TRY(add(&s->argv, "%u", r->mtport));
	if (!r->kv) {
		TRY(server_step(c, r, "server", r->port));
		for (unsigned i = 1; i < r->nleaves; i++) {
			char name[32];

			snprintf(name, sizeof(name), "server-%u", i);
			TRY(server_step(c, r, name, r->leaf[i]));
		}
	} else {
		for (unsigned i = 0; i < r->nleaves; i++)
			TRY(kv_step(c, r, i));
		TRY(snapshot_step(c, r));
	}
	if (r->sep)
		TRY(server_step(c, r, "prequery-server", r->pqport));
	if (r->kv && r->three && is(S(r, SK_PRELOAD), "yes"))
		TRY(preload_steps(c, r));
	if (r->three)
		TRY(midtier_step(c, r));
	return 0;
}

/* The client's pre-query options (a real server: in-band, no port). */
static int client_prequery(const struct run *r, struct sweepcmd_words *w)
{
	const char *pq = r->v[D_PREQUERY];

	if (is(pq, "off"))
		return 0;
	if (is(pq, "adaptive"))
		TRY(add(w, "--prequery-policy") || add(w, "adaptive") ||
		    add(w, "--window") || add(w, "%s", S(r, SK_WINDOW)));
	else
		TRY(add(w, "--prequery-lead-us") || add(w, "%s", pq));
	/*
	 * a real server has no pre-query port: in-band, on the request
	 * connection (a lead shorter than one send() then goes in the
	 * request's own send(); alone, the request could wait for it)
	 */
	if (!r->kv)
		TRY(add(w, "--prequery-port") || add(w, "%u", r->pqport));
	TRY(add(w, "--prequery-at") || add(w, "%s", r->v[D_PREQUERY_AT]));
	if (is(r->v[D_PREQUERY_ACK], "yes"))
		TRY(add(w, "--prequery-ack"));
	return 0;
}

/* The point's client options; the share of the load comes on top. */
static int client_args(struct run *r)
{
	struct sweepcmd_words *w = &r->cargs;

	TRY(add(w, "--dist") || add(w, "%s", r->v[D_DIST]) ||
	    add(w, "--wait") || add(w, "%s", S(r, SK_WAIT)));
	/* '-': not this tier's to set (unpinned, the server's alone applies) */
	if (!is(r->v[D_CLIENT_CSTATES], "-"))
		TRY(add(w, "--cstates") || add(w, "%s", r->v[D_CLIENT_CSTATES]));
	TRY(add(w, "--timer-slack-ns") || add(w, "%s", r->v[D_TIMER_SLACK_NS]) ||
	    add(w, "--percentile-rule") || add(w, "%s", S(r, SK_PERCENTILE_RULE)));
	if (!r->kv) {
		TRY(add(w, "--service-us") || add(w, "%s", r->v[D_SERVICE_US]));
	} else {
		TRY(add(w, "--proto") || add(w, "%s", r->v[D_BACKEND]) ||
		    add(w, "--get-ratio") || add(w, "%s", S(r, SK_GET_RATIO)) ||
		    add(w, "--keys") || add(w, "%s", S(r, SK_KEYS)) ||
		    add(w, "--key-size") || add(w, "%s", S(r, SK_KEY_SIZE)) ||
		    add(w, "--value-size") || add(w, "%s", S(r, SK_VALUE_SIZE)) ||
		    add(w, "--key-dist") || add(w, "%s", S(r, SK_KEY_DIST)));
		if (is(S(r, SK_PRELOAD), "yes") && !r->three)
			TRY(add(w, "--preload"));
	}
	if (is(r->v[D_CLOSED], "yes"))
		TRY(add(w, "--closed"));
	if (!is(r->v[D_WARMUP_MODE], "-"))
		TRY(add(w, "--warmup-mode") || add(w, "%s", r->v[D_WARMUP_MODE]));
	if (*S(r, SK_WARMUP_DIST))
		TRY(add(w, "--warmup-dist") || add(w, "%s", S(r, SK_WARMUP_DIST)));
	return client_prequery(r, w);
}

/* What the thesis captured per run, around the client. */
static int capture_step(struct sweepcmd *c, const struct run *r)
{
	struct sweepcmd_step *s = step(c, SWEEPCMD_CAPTURE, "capture", "", "", "");
	struct sweepcmd_words *w;

	if (!s)
		return -ENOMEM;
	w = &s->argv;
	TRY(add(w, "%s", r->in->wb) || add(w, "trace") || add(w, "capture") ||
	    add(w, "--out") || add(w, "%s/capture", r->in->rundir) || add(w, "--cpu"));
	if (!r->pinned)
		TRY(add(w, "server=none"));
	else
		TRY(add(w, "server=%s", S(r, SK_SERVER_CPU)));
	if (r->three && r->pinned && !is(S(r, SK_MIDTIER_CPU), S(r, SK_SERVER_CPU)))
		TRY(add(w, "--cpu") || add(w, "midtier=%s", S(r, SK_MIDTIER_CPU)));
	if (*S(r, SK_TURBOSTAT_SHOW))
		TRY(add(w, "--turbostat-show") || add(w, "%s", S(r, SK_TURBOSTAT_SHOW)));
	if (*S(r, SK_TURBOSTAT_HIDE))
		TRY(add(w, "--turbostat-hide") || add(w, "%s", S(r, SK_TURBOSTAT_HIDE)));
	return add(w, "--");
}

/* The client's command up to its share: prefix, server, CPU, options. */
static int client_head(const struct run *r, struct sweepcmd_words *w,
		       const struct sweepcmd_words *prefix)
{
	unsigned target = r->three ? r->mtport : r->port;

	TRY(add_all(w, prefix) || add(w, "%s", r->in->wb) || add(w, "client") ||
	    add(w, "--server") || add(w, "%s:%u", S(r, SK_SERVER_ADDR), target) ||
	    cpu_args(r, w, SK_CLIENT_CPU));
	return add_all(w, &r->cargs);
}

/* The one client: the whole load. */
static int client_step(struct sweepcmd *c, const struct run *r)
{
	struct sweepcmd_step *s = step(c, SWEEPCMD_CLIENT, "client", "", "", "");
	struct sweepcmd_words *w;
	unsigned long long seed = strtoull(S(r, SK_SEED), NULL, 10) + r->in->r->rep;

	if (!s)
		return -ENOMEM;
	w = &s->argv;
	TRY(client_head(r, w, &r->client_exec) ||
	    add(w, "--interval-us") || add(w, "%s", r->v[D_INTERVAL_US]) ||
	    add(w, "--warmup") || add(w, "%s", r->v[D_WARMUP]) ||
	    add(w, "--seed") || add(w, "%llu", seed));
	if (*S(r, SK_DURATION))
		TRY(add(w, "--duration") || add(w, "%s", S(r, SK_DURATION)));
	else
		TRY(add(w, "--requests") || add(w, "%s", S(r, SK_REQUESTS)));
	if (*S(r, SK_WARMUP_INTERVAL_US))
		TRY(add(w, "--warmup-interval-us") || add(w, "%s", S(r, SK_WARMUP_INTERVAL_US)));
	if (r->in->trace)
		TRY(add(w, "--trace-markers"));
	return add(w, "--out") || add(w, "%s/client", r->in->rundir) || add(w, "-q") ?
	       -ENOMEM : 0;
}

int sweepcmd_build(const struct sweepcmd_in *in, struct sweepcmd *c,
		   char *err, size_t errlen)
{
	struct run r;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = run_init(&r, in, err, errlen);
	if (!ret)
		ret = tier_steps(c, &r);
	if (!ret)
		ret = client_args(&r);
	if (!ret)
		ret = capture_step(c, &r);
	if (!ret && sweepspec_agents(in->s) == 1)
		ret = client_step(c, &r);
	if (ret == -ENOMEM)
		errmsg_set(err, errlen, "out of memory");
	run_free(&r);
	if (ret)
		sweepcmd_free(c);
	return ret;
}

/* Agent K's share of the load (lib/sweepagent) after its options. */
static int agent_share(const struct run *r, const struct sweepagent *g,
		       int start_at, struct sweepcmd_words *w)
{
	char iv[64], wiv[64];

	if (sweepagent_us(g->interval_us, iv, sizeof(iv)) ||
	    sweepagent_us(g->warmup_interval_us, wiv, sizeof(wiv)))
		return -ERANGE;
	TRY(add(w, "--interval-us") || add(w, "%s", iv) ||
	    add(w, "--warmup") || add(w, "%llu", (unsigned long long)g->warmup) ||
	    add(w, "--seed") || add(w, "%llu", (unsigned long long)g->seed));
	if (g->requests)
		TRY(add(w, "--requests") || add(w, "%llu", (unsigned long long)g->requests));
	else
		TRY(add(w, "--duration") || add(w, "%s", S(r, SK_DURATION)));
	if (g->warmup_interval_us > 0)
		TRY(add(w, "--warmup-interval-us") || add(w, "%s", wiv));
	if (start_at)
		TRY(add(w, "--start-at") || add(w, "%lld", (long long)g->start_at_ns));
	return 0;
}

/* One agent's step: markers only on this host's kernel. */
static int agent_step(struct sweepcmd *c, const struct run *r, unsigned k,
		      const struct sweepagent *g, int start_at)
{
	const struct sweepcmd_in *in = r->in;
	struct sweepcmd_words pre = { 0 };
	struct sweepcmd_step *s;
	char name[32], errf[4096], prefix[4096];
	int ret = -ENOMEM;

	snprintf(name, sizeof(name), "client-%u", k + 1);
	snprintf(errf, sizeof(errf), "%s/client-%u.err", in->rundir, k + 1);
	if (sweepspec_agent_exec(in->s, (int)k, prefix, sizeof(prefix)))
		return -EINVAL;
	s = step(c, SWEEPCMD_AGENT, name, errf, "", "");
	if (!s || sweepcmd_split(prefix, &pre))
		goto out;
	ret = client_head(r, &s->argv, &pre);
	if (!ret)
		ret = agent_share(r, g, start_at, &s->argv);
	/* markers need this host's trace instance: this kernel only */
	if (!ret && in->trace && (!*prefix || !strncmp(prefix, "ip netns exec ", 14)))
		ret = add(&s->argv, "--trace-markers");
	/* --out last: the sweep finds a remote agent by it */
	if (!ret)
		ret = add(&s->argv, "-q") || add(&s->argv, "--out") ||
		      add(&s->argv, "%s/%s", in->rundir, name) ? -ENOMEM : 0;
out:
	words_free(&pre);
	return ret;
}

int sweepcmd_agents(const struct sweepcmd_in *in, long long now_ns,
		    unsigned long margin_ms, int start_at, struct sweepcmd *c,
		    char *err, size_t errlen)
{
	struct sweepagent_in a = { 0 };
	struct run r;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = run_init(&r, in, err, errlen);
	if (ret)
		return ret;
	a.n = (unsigned)sweepspec_agents(in->s);
	a.seed = strtoull(S(&r, SK_SEED), NULL, 10) + in->r->rep;
	a.interval_us = strtod(r.v[D_INTERVAL_US], NULL);
	a.requests = *S(&r, SK_DURATION) ? 0 : strtoull(S(&r, SK_REQUESTS), NULL, 10);
	a.warmup = strtoull(r.v[D_WARMUP], NULL, 10);
	a.warmup_interval_us = strtod(S(&r, SK_WARMUP_INTERVAL_US), NULL);
	a.start_ns = now_ns + (long long)margin_ms * 1000000;
	ret = client_args(&r);
	for (unsigned k = 0; !ret && k < a.n; k++) {
		struct sweepagent g;

		ret = sweepagent_split(&a, k, &g);
		if (ret)
			errmsg_set(err, errlen, "cannot share it among %u client agents", a.n);
		else
			ret = agent_step(c, &r, k, &g, start_at);
	}
	if (ret == -ENOMEM)
		errmsg_set(err, errlen, "out of memory");
	else if (ret == -ERANGE)
		errmsg_set(err, errlen, "a client agent's gap is out of range");
	run_free(&r);
	if (ret)
		sweepcmd_free(c);
	return ret;
}

static int put(FILE *f, const char *w)
{
	return fputs(w, f) < 0 || fputc('\0', f) == EOF;
}

int sweepcmd_write(const struct sweepcmd *c, FILE *f)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct sweepcmd_step *s = &c->step[i];

		if (put(f, sweepcmd_kinds[s->kind]) || put(f, s->name) ||
		    put(f, s->ready) || put(f, s->want) || put(f, s->pattern) ||
		    fprintf(f, "%zu", s->argv.n) < 0 || fputc('\0', f) == EOF)
			return -EIO;
		for (size_t j = 0; j < s->argv.n; j++)
			if (put(f, s->argv.w[j]))
				return -EIO;
	}
	return fflush(f) ? -EIO : 0;
}

/* The next NUL-terminated word of TEXT at *POS; NULL at a truncation. */
static const char *word(const char *text, size_t len, size_t *pos)
{
	const char *w = text + *pos, *nul;

	if (*pos >= len)
		return NULL;
	nul = memchr(w, '\0', len - *pos);
	if (!nul)
		return NULL;
	*pos = (size_t)(nul - text) + 1;
	return w;
}

/* One step at *POS into C; 1 at the end, -EINVAL, -ENOMEM. */
static int read_step(const char *text, size_t len, size_t *pos, struct sweepcmd *c)
{
	const char *f[6], *kind;
	struct sweepcmd_step *s;
	char *end;
	unsigned long n;
	int k;

	if (*pos == len)
		return 1;
	for (int i = 0; i < 6; i++)
		if (!(f[i] = word(text, len, pos)))
			return -EINVAL;
	kind = f[0];
	for (k = 0; k < SWEEPCMD_NKINDS && strcmp(sweepcmd_kinds[k], kind); k++)
		;
	errno = 0;
	n = strtoul(f[5], &end, 10);
	if (k == SWEEPCMD_NKINDS || *end || end == f[5] || errno || n > 100000)
		return -EINVAL;
	s = step(c, (enum sweepcmd_kind)k, f[1], f[2], f[3], f[4]);
	if (!s)
		return -ENOMEM;
	for (unsigned long i = 0; i < n; i++) {
		const char *w = word(text, len, pos);

		if (!w)
			return -EINVAL;
		TRY(add(&s->argv, "%s", w));
	}
	return 0;
}

int sweepcmd_read(const char *text, size_t len, struct sweepcmd *c)
{
	size_t pos = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	while (!(ret = read_step(text, len, &pos, c)))
		;
	if (ret < 0)
		sweepcmd_free(c);
	return ret < 0 ? ret : 0;
}

void sweepcmd_agent_err(const char *text, size_t len, char *buf, size_t buflen)
{
	const char *end = text + len, *best = NULL;
	size_t blen = 0;

	for (const char *l = text; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = nl ? (size_t)(nl - l) : (size_t)(end - l);

		if (n < 5 || strncmp(l, "Try '", 5)) {
			best = l;
			blen = n;
		}
		l += n + 1;
	}
	if (!best || !blen) {
		snprintf(buf, buflen, "no message");
		return;
	}
	if (memmem(best, blen, "--start-at", 10))
		snprintf(buf, buflen, "%.*s (a start margin too short: raise --start-margin-ms)",
			 (int)blen, best);
	else
		snprintf(buf, buflen, "%.*s", (int)blen, best);
}
