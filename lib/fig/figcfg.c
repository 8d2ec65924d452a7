// SPDX-License-Identifier: GPL-2.0
/* figcfg: configurations as the report's figures name them (figcfg.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvtable.h"
#include "figcfg.h"

enum {
	P_WARMUP = 3, P_CSTATES, P_SERVICE, P_REQUESTS, P_TIERS, P_CLOSED,
	P_AT, P_ACK, P_RCV, P_WUMODE, P_SLACK, P_SCS, P_CCS, P_MCS, P_CPU,
	P_DELAY, P_WORK, P_HW, P_BACKEND, P_SBP, P_SOBP, P_GOV, P_HPNS,
};
_Static_assert(P_HPNS < FIGCFG_NPARAMS, "figcfg's parameters are sweepcsv's");

/* Sets a value: numbers in their shortest form ("200.000" is "200"), so
 * that a run's summary and a sweep's parameters compare equal. */
static void setv(char *dst, const char *v)
{
	double x;

	if (!csvtable_num(v, &x))
		snprintf(dst, FIGCFG_VLEN, "%.10g", x);
	else
		snprintf(dst, FIGCFG_VLEN, "%s", v);
	/* the words go into gnuplot data and labels: no control bytes */
	for (char *p = dst; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

void figcfg_from_params(struct figcfg *c, const char *const *param)
{
	for (int k = 0; k < FIGCFG_NPARAMS; k++)
		setv(c->v[k], param[k] ? param[k] : "");
}

void figcfg_from_sweep_row(struct figcfg *c, const struct csvtable *t, size_t r)
{
	for (int k = 0; k < FIGCFG_NPARAMS; k++)
		setv(c->v[k], csvtable_get(t, r, csvtable_col(t, sweepcsv_params[k])));
}

void figcfg_from_client_row(struct figcfg *c, const struct csvtable *t, size_t r)
{
#define COL(name) csvtable_get(t, r, csvtable_col(t, name))
	const char *pq = COL("prequery"), *closed = COL("closed"), *proto = COL("proto");

	memset(c, 0, sizeof(*c));
	setv(c->v[FIGCFG_DIST], COL("dist"));
	setv(c->v[FIGCFG_INTERVAL], COL("interval_us"));
	if (!strcmp(pq, "fixed"))
		setv(c->v[FIGCFG_PREQUERY], COL("prequery_lead_us"));
	else
		setv(c->v[FIGCFG_PREQUERY], pq);
	setv(c->v[P_WARMUP], COL("warmup"));
	setv(c->v[P_CSTATES], COL("cstates"));
	setv(c->v[P_SERVICE], COL("service_us"));
	if (*closed)
		setv(c->v[P_CLOSED], strcmp(closed, "0") ? "yes" : "no");
	setv(c->v[P_AT], COL("prequery_at"));
	if (!strcmp(proto, "memcached") || !strcmp(proto, "redis"))
		setv(c->v[P_BACKEND], proto);
#undef COL
}

int figcfg_pq_param(const struct figcfg *c)
{
	return !strcmp(c->v[P_TIERS], "3") ? P_DELAY : FIGCFG_PREQUERY;
}

int figcfg_is_off(const struct figcfg *c)
{
	const char *v = c->v[figcfg_pq_param(c)];

	return !*v || !strcmp(v, "off");
}

int figcfg_same_except(const struct figcfg *a, const struct figcfg *b, int skip)
{
	for (int k = 0; k < FIGCFG_NPARAMS; k++)
		if (k != skip && strcmp(a->v[k], b->v[k]))
			return 0;
	return 1;
}

int figcfg_baseline_of(const struct figcfg *on, const struct figcfg *off,
		       int skip)
{
	for (int k = 0; k < FIGCFG_NPARAMS; k++)
		if (k != skip && *off->v[k] && strcmp(on->v[k], off->v[k]))
			return 0;
	return 1;
}

/* Values in order: "" and "off" first, numbers numerically, then text. */
static int vcmp(const char *a, const char *b)
{
	double x, y;
	int na = !csvtable_num(a, &x), nb = !csvtable_num(b, &y);
	int oa = !*a || !strcmp(a, "off"), ob = !*b || !strcmp(b, "off");

	if (oa != ob)
		return ob - oa;
	if (na && nb)
		return (x > y) - (x < y);
	if (na != nb)
		return nb - na;
	return strcmp(a, b);
}

int figcfg_cmp(const struct figcfg *a, const struct figcfg *b)
{
	int pa = figcfg_pq_param(a), pb = figcfg_pq_param(b), d;

	for (int k = 0; k < FIGCFG_NPARAMS; k++) {
		if (k == pa || k == pb)
			continue;
		d = vcmp(a->v[k], b->v[k]);
		if (d)
			return d;
	}
	d = vcmp(a->v[pa], b->v[pa]);
	return d ? d : vcmp(a->v[pb], b->v[pb]);
}

void figcfg_varying(const struct figcfg *c, size_t n, unsigned char *mask)
{
	for (int k = 0; k < FIGCFG_NPARAMS; k++) {
		const char *v0 = NULL;

		/* a value a file does not have ("") tells nothing apart */
		mask[k] = 0;
		for (size_t i = 0; i < n && !mask[k]; i++) {
			if (!*c[i].v[k])
				continue;
			if (!v0)
				v0 = c[i].v[k];
			else
				mask[k] = strcmp(c[i].v[k], v0) != 0;
		}
	}
}

void figcfg_us_words(const char *us, char *buf, size_t len)
{
	double v;

	if (csvtable_num(us, &v))
		snprintf(buf, len, "%s", us);
	else if (v >= 1000)
		snprintf(buf, len, "%g ms", v / 1000);
	else
		snprintf(buf, len, "%g µs", v);
}

/* Appends ", " (unless first) and the formatted words. */
static size_t add(char *buf, size_t len, size_t off, const char *fmt, const char *v)
{
	int n;

	if (off >= len)
		return off;
	if (off) {
		n = snprintf(buf + off, len - off, ", ");
		off += n > 0 ? (size_t)n : 0;
		if (off >= len)
			return len - 1;
	}
	n = snprintf(buf + off, len - off, fmt, v);
	off += n > 0 ? (size_t)n : 0;
	return off < len ? off : len - 1;
}

size_t figcfg_pq_words(const struct figcfg *c, char *buf, size_t len)
{
	int k = figcfg_pq_param(c);
	const char *v = c->v[k], *what = k == P_DELAY ? "delay" : "lead";
	char us[32];
	int n;

	if (figcfg_is_off(c))
		n = snprintf(buf, len, "no pre-query");
	else if (!strcmp(v, "adaptive"))
		n = snprintf(buf, len, "adaptive %s", what);
	else {
		figcfg_us_words(v, us, sizeof(us));
		n = snprintf(buf, len, "%s %s", what, us);
	}
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

size_t figcfg_words(const struct figcfg *c, const unsigned char *mask,
		    int flags, char *buf, size_t len)
{
	/* the words of each parameter; NULL: not named this way */
	static const char *const fmt[FIGCFG_NPARAMS] = {
		[P_WARMUP] = "warm-up %s", [P_CSTATES] = "C-states %s",
		[P_REQUESTS] = "%s requests", [P_TIERS] = "%s tiers",
		[P_AT] = "pre-query at %s", [P_RCV] = "pre-query to %s",
		[P_WUMODE] = "warm-up mode %s", [P_SLACK] = "slack %s ns",
		[P_SCS] = "server C-states %s", [P_CCS] = "client C-states %s",
		[P_MCS] = "midtier C-states %s", [P_CPU] = "cpu %s",
		[P_HW] = "helper %s", [P_BACKEND] = "%s",
		[P_SOBP] = "SO_BUSY_POLL %s µs",
		[P_GOV] = "governor %s", [P_HPNS] = "haltpoll window %s ns",
	};
	int pq = figcfg_pq_param(c);
	char us[48], gap[2 * FIGCFG_VLEN + 48];
	size_t off = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	figcfg_us_words(c->v[FIGCFG_INTERVAL], us, sizeof(us));
	if (!(flags & FIGCFG_W_NOGAP) && (*c->v[FIGCFG_DIST] || *c->v[FIGCFG_INTERVAL])) {
		snprintf(gap, sizeof(gap), "%s%s%s", c->v[FIGCFG_DIST],
			 *c->v[FIGCFG_DIST] && *us ? " " : "", us);
		off = add(buf, len, off, "%s", gap);
	}
	for (int k = FIGCFG_PREQUERY + 1; k < FIGCFG_NPARAMS && mask; k++) {
		const char *v = c->v[k];

		if (!mask[k] || !*v || k == pq || (k == P_DELAY && pq != P_DELAY &&
						    !strcmp(v, "off")))
			continue;
		switch (k) {
		case P_SERVICE:
		case P_WORK:
		case P_DELAY:
			figcfg_us_words(v, us, sizeof(us));
			off = add(buf, len, off, k == P_SERVICE ? "service %s" :
				  k == P_WORK ? "work %s" : "delay %s", us);
			break;
		case P_CLOSED:
			off = add(buf, len, off, "%s", strcmp(v, "yes") ? "open loop" :
				  "closed loop");
			break;
		case P_SBP:
			off = add(buf, len, off, "%s", strcmp(v, "yes") ?
				  "blocking server" : "busy-polling server");
			break;
		case P_ACK:
			off = add(buf, len, off, "%s", strcmp(v, "yes") ?
				  "pre-query unacked" : "pre-query acked");
			break;
		default:
			if (fmt[k])
				off = add(buf, len, off, fmt[k], v);
		}
	}
	if (flags & FIGCFG_W_PQ) {
		char w[96];

		figcfg_pq_words(c, w, sizeof(w));
		off = add(buf, len, off, "%s", w);
	}
	return off;
}
