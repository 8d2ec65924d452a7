// SPDX-License-Identifier: GPL-2.0
/*
 * sweepdim: the table of a sweep's dimensions as data, its collapse rules
 * and the help lines (see sweepdim.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "sweepdim.h"
#include "sweepspec.h"

#define SWEEPDIM_ROW_(id, opt, col, abbr, kind, valid, def, hint, needs,	\
		      gone, follows, fig, tag, help)			\
	[SWEEPDIM_##id] = { SK_##id, opt, col, abbr, SWEEPDIM_##kind, def,	\
			    hint, needs, gone, follows, SWEEPDIM_FIG_##fig,	\
			    tag, help },
const struct sweepdim sweepdim_table[SWEEPDIM_N] = {
	SWEEPDIM_TABLE(SWEEPDIM_ROW_)
};
#undef SWEEPDIM_ROW_

int sweepdim_find(const char *name)
{
	for (int d = 0; d < SWEEPDIM_N; d++)
		if (sweepspec_same_key(sweepdim_table[d].col, name) ||
		    sweepspec_same_key(sweepdim_table[d].opt, name))
			return d;
	return -1;
}

/* One condition of row D's NEEDS, the word W (N bytes), into C. */
static int parse_need(int d, const char *w, size_t n, struct sweepdim_need *c,
		      char *err, size_t errlen)
{
	const char *eq = memchr(w, '=', n);
	char col[64];
	size_t cn;

	if (!eq || eq == w) {
		errmsg_set(err, errlen, "sweepdim: %s: '%.*s' is not COL=VALUE",
			   sweepdim_table[d].col, (int)n, w);
		return -EINVAL;
	}
	c->neg = eq[-1] == '!';
	cn = (size_t)(eq - w) - (size_t)c->neg;
	snprintf(col, sizeof(col), "%.*s", (int)cn, w);
	c->dim = sweepdim_find(col);
	if (c->dim < 0 || c->dim == d) {
		errmsg_set(err, errlen, "sweepdim: %s needs '%s', not another dimension",
			   sweepdim_table[d].col, col);
		return -EINVAL;
	}
	c->val = eq + 1;
	c->len = n - (size_t)(eq + 1 - w);
	return 0;
}

int sweepdim_rules(struct sweepdim_rules *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	for (int d = 0; d < SWEEPDIM_N; d++) {
		const struct sweepdim *t = &sweepdim_table[d];
		const char *p = t->needs;

		r->follows[d] = t->follows ? sweepdim_find(t->follows) : -1;
		if (t->follows && (r->follows[d] < 0 || r->follows[d] == d)) {
			errmsg_set(err, errlen, "sweepdim: %s follows '%s', not another dimension",
				   t->col, t->follows);
			return -EINVAL;
		}
		for (;;) {
			size_t n;
			int ret;

			p += strspn(p, " ");
			n = strcspn(p, " ");
			if (!n)
				break;
			if (r->nneeds[d] == SWEEPDIM_MAX_NEEDS) {
				errmsg_set(err, errlen, "sweepdim: %s needs more than %d conditions",
					   t->col, SWEEPDIM_MAX_NEEDS);
				return -EINVAL;
			}
			ret = parse_need(d, p, n, &r->need[d][r->nneeds[d]++], err, errlen);
			if (ret)
				return ret;
			p += n;
		}
	}
	return 0;
}

int sweepdim_applies(const struct sweepdim_rules *r, int d,
		     const char *const *v)
{
	for (int i = 0; i < r->nneeds[d]; i++) {
		const struct sweepdim_need *c = &r->need[d][i];
		const char *o = v[c->dim];
		int eq = strlen(o) == c->len && !memcmp(o, c->val, c->len);

		if (eq == c->neg)
			return 0;
	}
	return 1;
}

void sweepdim_collapse(const struct sweepdim_rules *r, const char **v)
{
	int changed;

	/* Each value changes at most twice (to its follows', then to
	 * GONE), so this ends. */
	do {
		changed = 0;
		for (int d = 0; d < SWEEPDIM_N; d++) {
			const char *nv = v[d];

			if (!sweepdim_applies(r, d, v))
				nv = sweepdim_table[d].gone;
			else if (!*v[d] && r->follows[d] >= 0)
				nv = v[r->follows[d]];
			if (strcmp(nv, v[d])) {
				v[d] = nv;
				changed = 1;
			}
		}
	} while (changed);
}

/* Row D's help lines; an option line of its own for one starting '\t'. */
static void usage_row(FILE *f, int d)
{
	const struct sweepdim *t = &sweepdim_table[d];
	const char *h = t->help;
	char opt[64];
	int n = snprintf(opt, sizeof(opt), "%s LIST", t->opt);

	/* the option column is 21 wide; a longer option takes two spaces */
	fprintf(f, "  --%s%*s", opt, n < 21 ? 21 - n : 2, "");
	for (int first = 1; *h; first = 0) {
		size_t len = strcspn(h, "\n");

		if (!first && *h == '\t')
			fprintf(f, "  %.*s\n", (int)len - 1, h + 1);
		else
			fprintf(f, "%*s%.*s\n", first ? 0 : 25, "", (int)len, h);
		h += len + (h[len] == '\n');
	}
}

int sweepdim_usage(FILE *f)
{
	for (int d = 0; d < SWEEPDIM_N; d++) {
		if (sweepdim_table[d].follows)
			continue;
		usage_row(f, d);
		/* a tier's own list right under the one it follows */
		for (int e = 0; e < SWEEPDIM_N; e++)
			if (sweepdim_table[e].follows &&
			    sweepdim_find(sweepdim_table[e].follows) == d)
				usage_row(f, e);
	}
	return fflush(f) || ferror(f) ? -EIO : 0;
}
