// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rateprof.h"
#include "rfile.h"

/* A number of the line: it ends at blank or the end; 0 or -1. */
static int take_num(const char **s, double *v)
{
	char *end;

	*v = strtod(*s, &end);
	if (end == *s || !isfinite(*v) || (*end && *end != ' ' && *end != '\t'))
		return -1;
	*s = end + strspn(end, " \t");
	return 0;
}

int rateprof_parse_line(const char *line, const struct rateprof_pt *prev,
			struct rateprof_pt *pt, char *err, size_t errlen)
{
	const char *s = line + strspn(line, " \t\r");
	double t, rate;
	size_t len;

	if (!*s || *s == '#')
		return 0;
	if (take_num(&s, &t) || take_num(&s, &rate)) {
		snprintf(err, errlen, "expected 'T_S RATE [step|ramp]'");
		return -EINVAL;
	}
	len = strcspn(s, " \t\r");
	pt->ramp = len == 4 && !strncmp(s, "ramp", 4);
	if (len && !pt->ramp && !(len == 4 && !strncmp(s, "step", 4))) {
		snprintf(err, errlen, "'%.*s': the third column is step or ramp",
			 (int)(len > 20 ? 20 : len), s);
		return -EINVAL;
	}
	s += len;
	if (s[strspn(s, " \t\r")]) {
		snprintf(err, errlen, "more than 3 columns");
		return -EINVAL;
	}
	if (!prev && t != 0) {
		snprintf(err, errlen, "the first point is at 0 s, not %g", t);
		return -EINVAL;
	}
	if (prev && !(t > prev->t_ns / 1e9 && t <= RATEPROF_MAX_T_S)) {
		snprintf(err, errlen, "%g s: times increase (after %g s) up to %g",
			 t, prev->t_ns / 1e9, RATEPROF_MAX_T_S);
		return -EINVAL;
	}
	if (!(rate >= 0 && rate <= RATEPROF_MAX_RATE)) {
		snprintf(err, errlen, "rate %g: 0 to %g requests per second",
			 rate, RATEPROF_MAX_RATE);
		return -EINVAL;
	}
	pt->t_ns = t * 1e9;
	pt->rate = rate;
	return 1;
}

static int add_point(struct rateprof *p, const struct rateprof_pt *pt)
{
	struct rateprof_pt *n;

	if (p->n == RATEPROF_MAX_POINTS)
		return -E2BIG;
	n = realloc(p->pt, (p->n + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->pt = n;
	p->pt[p->n++] = *pt;
	return 0;
}

/* The whole profile is read: one past the last point must be usable. */
static int check_end(const struct rateprof *p, const char *path, char *err,
		     size_t errlen)
{
	if (!p->n) {
		snprintf(err, errlen, "%s: no points (lines 'T_S RATE [step|ramp]')",
			 path);
		return -EINVAL;
	}
	if (p->pt[p->n - 1].ramp) {
		snprintf(err, errlen, "%s: the last point ramps to nothing", path);
		return -EINVAL;
	}
	if (!(p->pt[p->n - 1].rate > 0)) {
		snprintf(err, errlen, "%s: the last rate holds to the end: it must be above 0",
			 path);
		return -EINVAL;
	}
	return 0;
}

/* One line of the file (rfile_lines). */
static int profile_line(void *arg, char *line, char *why, size_t whylen)
{
	struct rateprof *p = arg;
	struct rateprof_pt pt;
	int ret;

	ret = rateprof_parse_line(line, p->n ? &p->pt[p->n - 1] : NULL, &pt,
				  why, whylen);
	if (ret <= 0)
		return ret;
	ret = add_point(p, &pt);
	if (ret)
		snprintf(why, whylen, "%s", ret == -E2BIG ?
			 "more than 1000000 points" : strerror(-ret));
	return ret;
}

int rateprof_load(const char *path, struct rateprof *p, char *err,
		  size_t errlen)
{
	int ret;

	memset(p, 0, sizeof(*p));
	ret = rfile_lines(path, profile_line, p, err, errlen);
	if (!ret)
		ret = check_end(p, path, err, errlen);
	if (ret)
		rateprof_free(p);
	return ret;
}

void rateprof_free(struct rateprof *p)
{
	free(p->pt);
	p->pt = NULL;
	p->n = 0;
}

/* Segment k: its rate per ns at its start, slope, length (inf: last). */
static void segment(const struct rateprof *p, size_t k, double *r0,
		    double *slope, double *len)
{
	const struct rateprof_pt *a = &p->pt[k];

	*r0 = a->rate / 1e9;
	*slope = 0;
	*len = INFINITY;
	if (k + 1 < p->n) {
		*len = p->pt[k + 1].t_ns - a->t_ns;
		if (a->ramp)
			*slope = (p->pt[k + 1].rate - a->rate) / 1e9 / *len;
	}
}

/* The requests expected in the first d ns of segment k. */
static double seg_count(double r0, double slope, double d)
{
	return r0 * d + slope * d * d / 2;
}

double rateprof_count(const struct rateprof *p, double t_ns)
{
	double lam = 0;

	for (size_t k = 0; k < p->n; k++) {
		double r0, slope, len;

		segment(p, k, &r0, &slope, &len);
		if (t_ns - p->pt[k].t_ns <= len)
			return lam + seg_count(r0, slope, t_ns - p->pt[k].t_ns);
		lam += seg_count(r0, slope, len);
	}
	return lam;
}

double rateprof_time(const struct rateprof *p, struct rateprof_pos *pos,
		     double u)
{
	double r0, slope, len, du, disc;

	for (;;) {
		double all;

		segment(p, pos->k, &r0, &slope, &len);
		all = isinf(len) ? INFINITY : seg_count(r0, slope, len);
		if (u < pos->lam0 + all)
			break;
		pos->lam0 += all;
		pos->k++;
		pos->t0 = p->pt[pos->k].t_ns;
	}
	du = u - pos->lam0;
	if (du <= 0)
		return pos->t0;
	/* r0 d + slope d^2 / 2 = du, in the form without cancellation */
	disc = r0 * r0 + 2 * slope * du;
	return pos->t0 + 2 * du / (r0 + sqrt(disc > 0 ? disc : 0));
}
