// SPDX-License-Identifier: GPL-2.0
/* figplane: the latency-cost plane, figure 14 (figplane.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csvtable.h"
#include "errmsg.h"
#include "figgp.h"
#include "figplane.h"

#define MAX_SUMMARY (64u << 20)

/* the summary's columns of each value: NAME_median_UNIT, _ci_lo_, _ci_hi_ */
static const char *const col_metric[FIGPLANE_NV] = {
	"cost_cpu_per_req", "energy_per_request", "p50", "p99",
};
static const char *const col_unit[FIGPLANE_NV] = { "us", "uj", "us", "us" };

void figplane_init(struct figplane *fp)
{
	memset(fp, 0, sizeof(*fp));
}

void figplane_free(struct figplane *fp)
{
	for (int i = 0; i < fp->nsrc; i++)
		free(fp->src[i]);
	free(fp->src);
	free(fp->p);
	memset(fp, 0, sizeof(*fp));
}

static struct figplane_pt *new_point(struct figplane *fp)
{
	struct figplane_pt *p;

	if (fp->n == fp->cap) {
		size_t nc = fp->cap ? 2 * fp->cap : 32;

		p = realloc(fp->p, nc * sizeof(*p));
		if (!p)
			return NULL;
		fp->p = p;
		fp->cap = nc;
	}
	p = &fp->p[fp->n++];
	memset(p, 0, sizeof(*p));
	return p;
}

/* Row R's medians and CIs into P */
static int read_values(const struct csvtable *t, size_t r, struct figplane_pt *p,
		       char *err, size_t errlen)
{
	static const char *const what[3] = { "median", "ci_lo", "ci_hi" };
	char c[96];
	int ret = 0;

	for (int m = 0; m < FIGPLANE_NV && !ret; m++) {
		double *dst[3] = { &p->med[m], &p->lo[m], &p->hi[m] };

		for (int k = 0; k < 3 && !ret; k++) {
			snprintf(c, sizeof(c), "%s_%s_%s", col_metric[m], what[k],
				 col_unit[m]);
			ret = csvtable_getnum_nan(t, r, c, dst[k], err, errlen);
		}
	}
	return ret;
}

/* A copy of NAME as the next series; its index, or -ENOMEM */
static int add_src(struct figplane *fp, const char *name)
{
	char **ns = realloc(fp->src, ((size_t)fp->nsrc + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	fp->src = ns;
	ns[fp->nsrc] = strdup(name);
	if (!ns[fp->nsrc])
		return -ENOMEM;
	return fp->nsrc++;
}

int figplane_add_sweep(struct figplane *fp, const char *path, const char *name,
		       char *err, size_t errlen)
{
	struct csvtable t;
	int ret = csvtable_read(path, MAX_SUMMARY, &t, err, errlen), src;

	if (ret)
		return ret;
	if (csvtable_col(&t, "p50_median_us") < 0 || csvtable_col(&t, "n") < 0) {
		errmsg_set(err, errlen, "%s has no n or p50_median_us column (not a "
			   "wakebench stats summary)", path);
		ret = -EINVAL;
		goto out;
	}
	src = add_src(fp, name);
	if (src < 0) {
		ret = src;
		goto nomem;
	}
	for (size_t r = 0; r < t.n && !ret; r++) {
		struct figplane_pt *p;
		double n;

		ret = csvtable_getnum_nan(&t, r, "n", &n, err, errlen);
		if (ret || !(n > 0))	/* nothing in its medians: nothing to draw */
			continue;
		p = new_point(fp);
		if (!p) {
			ret = -ENOMEM;
			goto nomem;
		}
		figcfg_from_sweep_row(&p->cfg, &t, r);
		snprintf(p->name, sizeof(p->name), "%s",
			 csvtable_get(&t, r, csvtable_col(&t, "point")));
		p->src = src;
		ret = read_values(&t, r, p, err, errlen);
		if (!fp->cilabel[0])
			snprintf(fp->cilabel, sizeof(fp->cilabel), "%s",
				 csvtable_get(&t, r, csvtable_col(&t, "ci_label")));
	}
	goto out;
nomem:
	errmsg_set(err, errlen, "out of memory");
out:
	csvtable_free(&t);
	return ret;
}

/* the x axis: the CPU time where any point has one, else the energy */
static int cost_metric(const struct figplane *fp)
{
	int energy = 0;

	for (size_t i = 0; i < fp->n; i++) {
		if (isfinite(fp->p[i].med[FIGPLANE_CPU]))
			return FIGPLANE_CPU;
		energy |= isfinite(fp->p[i].med[FIGPLANE_ENERGY]);
	}
	return energy ? FIGPLANE_ENERGY : FIGPLANE_CPU;
}

/* Each series' fronts over cost metric X, into every point's marks */
static int mark_fronts(struct figplane *fp, int x)
{
	double *c = malloc((fp->n ? fp->n : 1) * 2 * sizeof(*c)), *l = c + fp->n;
	enum pareto_mark *m = malloc((fp->n ? fp->n : 1) * sizeof(*m));
	size_t *idx = malloc((fp->n ? fp->n : 1) * sizeof(*idx));

	if (!c || !m || !idx) {
		free(c);
		free(m);
		free(idx);
		return -ENOMEM;
	}
	for (int s = 0; s < fp->nsrc; s++)
		for (int w = 0; w < 2; w++) {
			size_t k = 0;

			for (size_t i = 0; i < fp->n; i++)
				if (fp->p[i].src == s) {
					idx[k] = i;
					c[k] = fp->p[i].med[x];
					l[k++] = fp->p[i].med[w ? FIGPLANE_P99 : FIGPLANE_P50];
				}
			pareto_front(c, l, k, m, NULL);
			for (size_t j = 0; j < k; j++)
				fp->p[idx[j]].front[w] = m[j];
		}
	free(c);
	free(m);
	free(idx);
	return 0;
}

static int by_src_cost(const void *a, const void *b, void *arg)
{
	const struct figplane *fp = arg;
	const struct figplane_pt *x = &fp->p[*(const size_t *)a];
	const struct figplane_pt *y = &fp->p[*(const size_t *)b];
	int m = cost_metric(fp);

	if (x->src != y->src)
		return x->src - y->src;
	return (x->med[m] > y->med[m]) - (x->med[m] < y->med[m]);
}

/*
 * A tier's C-states that follow the cstates list (no list of its own)
 * say nothing more: not named, so "C-states off" is not said three times.
 */
static void same_as_cstates(const struct figcfg *c, size_t n, unsigned char *mask)
{
	static const char *const tier[] = {
		"server_cstates", "client_cstates", "midtier_cstates",
	};
	int cs = -1;

	for (int k = 0; k < FIGCFG_NPARAMS; k++)
		if (!strcmp(sweepcsv_params[k], "cstates"))
			cs = k;
	for (size_t t = 0; t < sizeof(tier) / sizeof(tier[0]) && cs >= 0; t++)
		for (int k = 0; k < FIGCFG_NPARAMS; k++) {
			size_t i = 0;

			if (strcmp(sweepcsv_params[k], tier[t]))
				continue;
			while (i < n && (!c[i].v[k][0] || !strcmp(c[i].v[k], c[i].v[cs])))
				i++;
			if (i == n)
				mask[k] = 0;
		}
}

/* P's label: the parameters that vary in its series, else its name */
static void label_of(const struct figplane *fp, const struct figplane_pt *p,
		     char *buf, size_t len)
{
	unsigned char mask[FIGCFG_NPARAMS];
	struct figcfg *c = malloc((fp->n ? fp->n : 1) * sizeof(*c));
	size_t k = 0;
	int flags = FIGCFG_W_PQ;

	buf[0] = '\0';
	if (c) {
		for (size_t i = 0; i < fp->n; i++)
			if (fp->p[i].src == p->src)
				c[k++] = fp->p[i].cfg;
		figcfg_varying(c, k, mask);
		same_as_cstates(c, k, mask);
		free(c);
		if (!mask[FIGCFG_DIST] && !mask[FIGCFG_INTERVAL])
			flags |= FIGCFG_W_NOGAP;
		figcfg_words(&p->cfg, mask, flags, buf, len);
	}
	if (!buf[0])
		snprintf(buf, len, "%s", p->name);
}

/* one row of DAT */
static void write_row(const struct figplane *fp, const struct figplane_pt *p,
		      int x, int odd, int num, FILE *dat)
{
	const int m[3] = { x, FIGPLANE_P50, FIGPLANE_P99 };
	char lab[320];

	for (int k = 0; k < 3; k++) {
		figgp_num(dat, p->med[m[k]]);
		fputc(' ', dat);
		figgp_num(dat, p->lo[m[k]]);
		fputc(' ', dat);
		figgp_num(dat, p->hi[m[k]]);
		fputc(' ', dat);
	}
	fprintf(dat, "%d %d ", p->front[0] == PARETO_FRONT, p->front[1] == PARETO_FRONT);
	label_of(fp, p, lab, sizeof(lab));
	figgp_label(dat, lab);
	fprintf(dat, " %d %d\n", odd, num);
}

/* FRONT's two blocks of series S (ORD: the points by series and cost) */
static void write_fronts(const struct figplane *fp, const size_t *ord, size_t nord,
			 int s, int x, FILE *front)
{
	for (int w = 0; w < 2; w++) {
		if (s || w)
			fprintf(front, "\n\n");
		for (size_t i = 0; i < nord; i++) {
			const struct figplane_pt *p = &fp->p[ord[i]];

			if (p->src != s || p->front[w] != PARETO_FRONT)
				continue;
			figgp_num(front, p->med[x]);
			fputc(' ', front);
			figgp_num(front, p->med[w ? FIGPLANE_P99 : FIGPLANE_P50]);
			fputc('\n', front);
		}
	}
}

/* VARS: the series, the axis and its scale */
static void write_vars(const struct figplane *fp, int x, double lo, double hi,
		       FILE *vars)
{
	figgp_var_num(vars, "nsrc", fp->nsrc);
	figgp_array(vars, "sname", (size_t)fp->nsrc);
	for (int s = 0; s < fp->nsrc; s++)
		figgp_elem_str(vars, "sname", (size_t)s + 1, fp->src[s]);
	figgp_var_str(vars, "xlabel", x == FIGPLANE_CPU ?
		      "server-side CPU time per request (µs)" :
		      "energy per request (µJ, RAPL)");
	figgp_var_num(vars, "xlog", lo > 0 && hi / lo > 20);
	figgp_var_str(vars, "cilabel", fp->cilabel[0] ? fp->cilabel : "CI");
}

/* VARS: npts, plab[] (the label of each point by its number), pmax
 * (the longest label's characters): the figure's numbered key */
static void write_key(const struct figplane *fp, const size_t *ord, size_t nord,
		      FILE *vars)
{
	char lab[320], num[340];
	size_t k = 0, longest = 0;

	figgp_var_num(vars, "npts", (double)nord);
	figgp_array(vars, "plab", nord);
	for (int s = 0; s < fp->nsrc; s++)
		for (size_t i = 0; i < nord; i++) {
			if (fp->p[ord[i]].src != s)
				continue;
			label_of(fp, &fp->p[ord[i]], lab, sizeof(lab));
			snprintf(num, sizeof(num), "%zu %s%s", ++k, fp->nsrc > 1 ? fp->src[s] : "",
				 fp->nsrc > 1 ? ": " : "");
			snprintf(num + strlen(num), sizeof(num) - strlen(num), "%s", lab);
			figgp_elem_str(vars, "plab", k, num);
			if (figgp_chars(num) > longest)
				longest = figgp_chars(num);
		}
	figgp_var_num(vars, "pmax", (double)longest);
}

int figplane_write(struct figplane *fp, FILE *dat, FILE *front, FILE *vars,
		   size_t *nout)
{
	int x = cost_metric(fp), drawn = 0;
	size_t *ord = malloc((fp->n ? fp->n : 1) * sizeof(*ord)), nord = 0;
	double lo = INFINITY, hi = 0;

	*nout = 0;
	if (!ord || mark_fronts(fp, x)) {
		free(ord);
		return -ENOMEM;
	}
	for (size_t i = 0; i < fp->n; i++) {
		if (fp->p[i].front[0] == PARETO_OUT) {
			(*nout)++;
			continue;
		}
		ord[nord++] = i;
		lo = fmin(lo, fp->p[i].med[x]);
		hi = fmax(hi, fp->p[i].med[x]);
	}
	qsort_r(ord, nord, sizeof(*ord), by_src_cost, fp);
	for (int s = 0; s < fp->nsrc; s++) {
		int k = 0;

		if (s)
			fprintf(dat, "\n\n");
		for (size_t i = 0; i < nord; i++)
			if (fp->p[ord[i]].src == s) {
				write_row(fp, &fp->p[ord[i]], x, k++ % 2, ++drawn, dat);
			}
		write_fronts(fp, ord, nord, s, x, front);
	}
	write_vars(fp, x, lo, hi, vars);
	write_key(fp, ord, nord, vars);
	free(ord);
	return drawn;
}
