// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arr.h"
#include "socwatch.h"
#include "rfile.h"

/* ---- strings ------------------------------------------------------------------ */

static uint32_t fnv(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static int rehash(struct sw_file *f, size_t cap)
{
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	/* 0 is "" (never looked up): slots hold offset + 1 */
	for (size_t i = 0; i < f->hcap; i++) {
		uint32_t v = f->hash[i];
		size_t k;

		if (!v)
			continue;
		k = fnv(f->str + v - 1, strlen(f->str + v - 1)) & (cap - 1);
		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = v;
	}
	free(f->hash);
	f->hash = h;
	f->hcap = cap;
	return 0;
}

/* The offset of s (len bytes) in the string table, added once. */
static int intern(struct sw_file *f, const char *s, size_t len, uint32_t *idx)
{
	size_t k;

	if (!len) {
		*idx = 0;
		return 0;
	}
	if ((f->hn + 1) * 2 > f->hcap && rehash(f, f->hcap ? f->hcap * 2 : 64))
		return -ENOMEM;
	k = fnv(s, len) & (f->hcap - 1);
	for (; f->hash[k]; k = (k + 1) & (f->hcap - 1)) {
		const char *t = f->str + f->hash[k] - 1;

		if (!strncmp(t, s, len) && !t[len]) {
			*idx = f->hash[k] - 1;
			return 0;
		}
	}
	if (f->slen + len + 1 > f->scap) {
		size_t cap = f->scap ? f->scap : 4096;
		char *n;

		while (cap < f->slen + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX - 1)
			return -E2BIG;
		n = realloc(f->str, cap);
		if (!n)
			return -ENOMEM;
		f->str = n;
		f->scap = cap;
	}
	memcpy(f->str + f->slen, s, len);
	f->str[f->slen + len] = '\0';
	*idx = (uint32_t)f->slen;
	f->hash[k] = (uint32_t)f->slen + 1;
	f->slen += len + 1;
	f->hn++;
	return 0;
}

const char *socwatch_str(const struct sw_file *f, uint32_t idx)
{
	return idx < f->slen ? f->str + idx : "";
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	return arr_grow(arr, cap, need, size, 16);
}

/* ---- numbers -------------------------------------------------------------------- */

#define NS_MAX (1ull << 62)	/* times past 146 years are corrupt */

/*
 * A plain decimal ("1169.26": digits, at most one point, at most 9
 * decimals) in units of scale ns: *ns rounded half up, *half the
 * rounding it carries (half a unit of its last digit, in ns, at least 1
 * when it has decimals finer than a ns). 0, or -EINVAL / -ERANGE with
 * why in msg.
 */
static int decimal(const char *s, uint64_t scale, uint64_t *ns, uint64_t *half,
		   char *msg, size_t len)
{
	uint64_t ip = 0, fp = 0, pow = 1;
	const char *p = s;
	int digits = 0, decs = 0;

	if (*p == '-') {
		snprintf(msg, len, "'%.40s' is negative", s);
		return -EINVAL;
	}
	for (; isdigit((unsigned char)*p); p++, digits++) {
		if (ip > (NS_MAX / 10)) {
			snprintf(msg, len, "'%.40s' is too large", s);
			return -ERANGE;
		}
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, decs++) {
			if (decs == 9) {
				snprintf(msg, len, "'%.40s' has more than 9 decimals", s);
				return -EINVAL;
			}
			fp = fp * 10 + (uint64_t)(*p - '0');
			pow *= 10;
		}
		if (!decs)
			digits = 0;
	}
	if (!digits || *p) {
		snprintf(msg, len, "'%.40s' is not a number (digits and a point)", s);
		return -EINVAL;
	}
	if (ip > NS_MAX / scale) {
		snprintf(msg, len, "'%.40s' is too large", s);
		return -ERANGE;
	}
	/* fp < 10^9 and scale <= 10^9: the products fit in 64 bits */
	*ns = ip * scale + (fp * scale * 2 + pow) / (2 * pow);
	*half = scale * 5 / (pow * 10);
	if (!*half && decs)
		*half = 1;
	return 0;
}

/* Digits only, at most max. */
static int whole(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

const char *socwatch_ms(uint64_t ns, char *buf, size_t len)
{
	uint64_t c = ns / 10000 + (ns % 10000 >= 5000);

	snprintf(buf, len, "%llu.%02llu", (unsigned long long)(c / 100),
		 (unsigned long long)(c % 100));
	return buf;
}

/* ns as ms for messages: as many decimals as it needs (at least 2). */
static const char *ms_text(uint64_t ns, char *buf, size_t len)
{
	char frac[12];
	int d = 6;

	snprintf(frac, sizeof(frac), "%06u", (unsigned int)(ns % 1000000));
	while (d > 2 && frac[d - 1] == '0')
		d--;
	frac[d] = '\0';
	snprintf(buf, len, "%llu.%s", (unsigned long long)(ns / 1000000), frac);
	return buf;
}

/* ---- the C-state mapping ---------------------------------------------------------- */

unsigned int socwatch_cc_number(const char *name)
{
	for (const char *p = name; *p; p++) {
		unsigned int n = 0;

		if (!isdigit((unsigned char)*p))
			continue;
		for (int k = 0; k < 3 && isdigit((unsigned char)*p); k++, p++)
			n = n * 10 + (unsigned int)(*p - '0');
		return n;
	}
	return strcasecmp(name, "POLL") ? 1 : 0;
}

int socwatch_is_c0(const char *token)
{
	return !strcasecmp(token, "CC0") || !strcasecmp(token, "C0");
}

static int token_taken(char (*tokens)[SW_MAX_STATE + 1], size_t n,
		       const char *t)
{
	if (!strcmp(t, "CC0"))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tokens[i], t))
			return 1;
	return 0;
}

void socwatch_cc_tokens(const char (*names)[32], size_t n,
			char (*tokens)[SW_MAX_STATE + 1])
{
	for (size_t i = 0; i < n; i++) {
		unsigned int cc;
		char t[SW_MAX_STATE + 1];
		int len;

		tokens[i][0] = '\0';
		if (!names[i][0])
			continue;
		cc = socwatch_cc_number(names[i]);
		snprintf(t, sizeof(t), "CC%u", cc);
		if (token_taken(tokens, i, t)) {
			/* CCn-NAME: the name upper case, other than letters
			 * and digits '_', so that it is one plain field */
			len = snprintf(t, sizeof(t), "CC%u-", cc);
			for (const char *p = names[i]; *p && len < SW_MAX_STATE; p++)
				t[len++] = isalnum((unsigned char)*p) ?
					   (char)toupper((unsigned char)*p) : '_';
			t[len] = '\0';
		}
		if (token_taken(tokens, i, t))
			snprintf(t, sizeof(t), "CC%u-S%zu", cc, i);
		memcpy(tokens[i], t, sizeof(t));
	}
}

/* ---- parsing ------------------------------------------------------------------------- */

struct src {
	const char *mem;
	size_t len, off;
	FILE *fp;
};

/* The next line without its "\n" into buf (SW_MAX_LINE + 1 bytes): 1, 0
 * at the end, -E2BIG for a longer line. */
static int next_line(struct src *s, char *buf, size_t *n)
{
	size_t k = 0;

	if (s->fp) {
		int c;

		while ((c = getc_unlocked(s->fp)) != EOF && c != '\n') {
			if (k == SW_MAX_LINE)
				return -E2BIG;
			buf[k++] = (char)c;
		}
		if (c == EOF && !k)
			return ferror(s->fp) ? -EIO : 0;
	} else {
		const char *p, *nl;
		size_t left;

		if (s->off >= s->len)
			return 0;
		p = s->mem + s->off;
		left = s->len - s->off;
		nl = memchr(p, '\n', left);
		k = nl ? (size_t)(nl - p) : left;
		if (k > SW_MAX_LINE)
			return -E2BIG;
		memcpy(buf, p, k);
		s->off += k + (nl ? 1 : 0);
	}
	buf[k] = '\0';
	*n = k;
	return 1;
}

enum { MAXF = 64 };

struct parser {
	struct sw_file *f;
	char *err;
	size_t errlen;
	uint32_t line;
	int in_pre;		/* before the first section */
	struct sw_section *cur;	/* the section whose rows come */
	int in_skip;		/* in a section of another kind */
	int block_start;	/* the line after a blank line */
	char ended[SW_MAX_FIELD + 1];	/* the section a blank line ended */
	/* cur's columns */
	int ncols, c_time, c_dur, c_state, c_irq, c_iface;
	uint64_t t_scale, d_scale;
	/* the line held to see whether a column line follows */
	char pend[SW_MAX_LINE + 1];
	uint32_t pend_line;
	int have_pend;
};

__attribute__((format(printf, 3, 4)))
static int bad(struct parser *ps, uint32_t line, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(ps->err, ps->errlen, "%s:%u: %s", ps->f->name, line, msg);
	else
		snprintf(ps->err, ps->errlen, "%s: %s", ps->f->name, msg);
	return -EINVAL;
}

static int nomem(struct parser *ps)
{
	snprintf(ps->err, ps->errlen, "%s: out of memory", ps->f->name);
	return -ENOMEM;
}

/* Spaces and tabs off both ends, in place. */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* Splits at commas, each field trimmed; a trailing empty field (a comma
 * at the end of the line) dropped. Returns the count, -1 past MAXF. */
static int split(char *s, char **fields)
{
	int n = 0;

	for (;;) {
		char *c = strchr(s, ',');

		if (n == MAXF)
			return -1;
		if (c)
			*c = '\0';
		fields[n++] = trim(s);
		if (!c)
			break;
		s = c + 1;
	}
	if (n > 1 && !*fields[n - 1])
		n--;
	return n;
}

static int is_columns(const char *t)
{
	return !strncasecmp(t, "Sample #", 8) || !strncasecmp(t, "Sample#", 7);
}

/* "Continuous Time (ms)" etc.: the unit's ns, 0 when name is not prefix
 * followed by a unit we know. */
static uint64_t unit_col(const char *name, const char *prefix)
{
	static const struct { const char *u; uint64_t ns; } units[] = {
		{ "(ms)", 1000000 }, { "(msec)", 1000000 }, { "(usec)", 1000 },
		{ "(us)", 1000 }, { "(ns)", 1 }, { "(sec)", 1000000000 },
		{ "(s)", 1000000000 },
	};
	size_t pl = strlen(prefix);

	if (strncasecmp(name, prefix, pl))
		return 0;
	name += pl;
	while (*name == ' ')
		name++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(name, units[i].u))
			return units[i].ns;
	return 0;
}

/* N of "/Name_N" (or "Name_N" at the start of the path) in t; -1. */
static int32_t topo(const char *t, const char *name)
{
	const char *p = t;
	size_t nl = strlen(name);

	while ((p = strstr(p, name))) {
		if ((p == t || p[-1] == '/' || p[-1] == ' ') && p[nl] == '_' &&
		    isdigit((unsigned char)p[nl + 1])) {
			uint64_t v = 0;

			for (p += nl + 1; isdigit((unsigned char)*p) && v < 1000000; p++)
				v = v * 10 + (uint64_t)(*p - '0');
			return v < 1000000 ? (int32_t)v : -1;
		}
		p += nl;
	}
	return -1;
}

static int end_section(struct parser *ps)
{
	if (ps->cur)
		snprintf(ps->ended, sizeof(ps->ended), "%s", ps->cur->title);
	ps->cur = NULL;
	ps->in_skip = 0;
	return 0;
}

/* Where a section's columns are, and their units' ns (-1: absent). */
struct sec_cols {
	int time, dur, state, irq, iface;
	uint64_t ts, ds;
};

/* The N column names C: the ones a section of ours needs found, once each. */
static int find_columns(struct parser *ps, char **c, int n, struct sec_cols *k)
{
	for (int i = 0; i < n; i++) {
		uint64_t u;
		int *slot = NULL;

		if (strlen(c[i]) > SW_MAX_FIELD)
			return bad(ps, ps->line, "a column name longer than %d characters",
				   SW_MAX_FIELD);
		if ((u = unit_col(c[i], "Continuous Time"))) {
			slot = &k->time;
			k->ts = u;
		} else if ((u = unit_col(c[i], "Duration"))) {
			slot = &k->dur;
			k->ds = u;
		} else if (!strcasecmp(c[i], "C-State")) {
			slot = &k->state;
		} else if (!strcasecmp(c[i], "IRQ No")) {
			slot = &k->irq;
		} else if (!strcasecmp(c[i], "Interface")) {
			slot = &k->iface;
		}
		if (slot && *slot >= 0)
			return bad(ps, ps->line, "column '%s' twice", c[i]);
		if (slot)
			*slot = i;
	}
	return 0;
}

/*
 * The section's kind from its title and columns: 0, 1 for a section
 * that is not ours (P-states, residency, bandwidth ...), or -EINVAL
 * for one of ours that lacks a column.
 */
static int section_kind(struct parser *ps, const char *title, const struct sec_cols *k,
			enum sw_kind *kind)
{
	if (k->state >= 0) {
		if (!strncasecmp(title, "Core C-State", 12))
			*kind = SW_CORE;
		else if (!strncasecmp(title, "Package C-State", 15))
			*kind = SW_PACKAGE;
		else
			*kind = SW_OTHER_CSTATE;
		if (k->time < 0 || k->dur < 0)
			return bad(ps, ps->line, "section '%s' has a C-State column but no %s (Sample #, Continuous Time (ms), C-State, Duration (ms))",
				   title, k->time < 0 ? "Continuous Time (ms)" : "Duration (ms)");
		return 0;
	}
	if (k->irq >= 0 && k->iface >= 0) {
		*kind = SW_IRQ;
		if (k->time < 0)
			return bad(ps, ps->line, "IRQ section '%s' has no Continuous Time (ms) column",
				   title);
		return 0;
	}
	return 1;
}

/* A new section of KIND titled TITLE (at line TLINE) in the file's list. */
static int add_section(struct parser *ps, const char *title, uint32_t tline,
		       enum sw_kind kind, struct sw_section **out)
{
	struct sw_file *f = ps->f;
	struct sw_section *s;

	if (grow((void **)&f->sec, &f->sec_cap, f->nsec + 1, sizeof(*f->sec)))
		return nomem(ps);
	s = &f->sec[f->nsec++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->line = tline;
	snprintf(s->title, sizeof(s->title), "%s", title);
	s->package = topo(title, "Package");
	s->die = topo(title, "Die");
	s->core = topo(title, "Core");
	s->thread = topo(title, "Thread");
	if (kind == SW_CORE) {
		/* "Core C-State (OS) - CPU/..." : "(OS)" */
		const char *v = title + 12, *dash = strstr(v, " - ");
		size_t l = dash ? (size_t)(dash - v) : strlen(v);
		char tmp[SW_MAX_FIELD + 1];

		memcpy(tmp, v, l);
		tmp[l] = '\0';
		snprintf(s->variant, sizeof(s->variant), "%s", trim(tmp));
		if (s->core < 0)
			return bad(ps, tline, "core section '%s' names no core (CPU/Package_0/Die_0/Core_N)",
				   title);
	}
	*out = s;
	return 0;
}

/* A title (held line) and the column line cols at ps->line. */
static int start_section(struct parser *ps, const char *title, uint32_t tline,
			 char *cols)
{
	struct sw_file *f = ps->f;
	char *c[MAXF];
	int n = split(cols, c), ret;
	struct sw_section *s = NULL;
	enum sw_kind kind = SW_OTHER_CSTATE;
	struct sec_cols k = { -1, -1, -1, -1, -1, 0, 0 };

	end_section(ps);
	ps->in_pre = 0;
	ps->block_start = 0;
	ps->ended[0] = '\0';
	if (strlen(title) > SW_MAX_FIELD)
		return bad(ps, tline, "a section title longer than %d characters",
			   SW_MAX_FIELD);
	if (n < 0)
		return bad(ps, ps->line, "more than %d columns", MAXF);
	ret = find_columns(ps, c, n, &k);
	if (!ret)
		ret = section_kind(ps, title, &k, &kind);
	if (ret == 1) {
		/* not ours */
		if (!f->skipped++)
			snprintf(f->first_skipped, sizeof(f->first_skipped), "%s", title);
		ps->in_skip = 1;
		return 0;
	}
	if (!ret)
		ret = add_section(ps, title, tline, kind, &s);
	if (ret)
		return ret;
	ps->cur = s;
	ps->ncols = n;
	ps->c_time = k.time;
	ps->c_dur = k.dur;
	ps->c_state = k.state;
	ps->c_irq = k.irq;
	ps->c_iface = k.iface;
	ps->t_scale = k.ts;
	ps->d_scale = k.ds;
	return 0;
}

static int row(struct parser *ps, char *t)
{
	struct sw_section *s = ps->cur;
	struct sw_row r = { .line = ps->line };
	char *c[MAXF], msg[200], a[40], b[40];
	int n = split(t, c);
	uint64_t h_end = 0, h_dur = 0, v;
	const struct sw_row *prev = s->nrows ? &s->rows[s->nrows - 1] : NULL;
	int ret;

	if (n != ps->ncols)
		return bad(ps, ps->line, "%d fields; the columns of '%s' are %d",
			   n < 0 ? MAXF + 1 : n, s->title, ps->ncols);
	for (int i = 0; i < n; i++)
		if (strlen(c[i]) > SW_MAX_FIELD)
			return bad(ps, ps->line, "field %d is longer than %d characters", i + 1,
				   SW_MAX_FIELD);
	if (whole(c[0], UINT64_MAX, &r.sample))
		return bad(ps, ps->line, "Sample # '%.40s' is not a whole number", c[0]);
	if (decimal(c[ps->c_time], ps->t_scale, &r.end_ns, &h_end, msg, sizeof(msg)))
		return bad(ps, ps->line, "Continuous Time: %s", msg);
	if (ps->c_dur >= 0 &&
	    decimal(c[ps->c_dur], ps->d_scale, &r.dur_ns, &h_dur, msg, sizeof(msg)))
		return bad(ps, ps->line, "Duration: %s", msg);
	if (prev && r.end_ns < prev->end_ns)
		return bad(ps, ps->line, "Continuous Time %s ms is before the previous row's %s ms (rows must be in time order)",
			   ms_text(r.end_ns, a, sizeof(a)), ms_text(prev->end_ns, b, sizeof(b)));
	if (s->kind == SW_IRQ) {
		const char *iface = c[ps->c_iface];

		if (whole(c[ps->c_irq], UINT32_MAX, &v))
			return bad(ps, ps->line, "IRQ No '%.40s' is not a whole number",
				   c[ps->c_irq]);
		r.irq = (uint32_t)v;
		/* (a handler's name: any byte but a tab, UTF-8 too) */
		if (strchr(iface, '\t'))
			return bad(ps, ps->line, "Interface: a tab");
		if ((ret = intern(ps->f, iface, strlen(iface), &r.text)))
			return ret == -ENOMEM ? nomem(ps) : bad(ps, ps->line, "too much text");
		r.start_ns = r.end_ns;
	} else {
		char *st = c[ps->c_state];
		uint64_t tol = h_end + h_dur;

		if (!*st)
			return bad(ps, ps->line, "no C-State");
		if (strlen(st) > SW_MAX_STATE)
			return bad(ps, ps->line, "C-State '%.40s' is longer than %d characters",
				   st, SW_MAX_STATE);
		for (char *p = st; *p; p++) {
			/* a trace's state name: plain text on one line */
			if (*p < 0x20 || *p > 0x7e)
				return bad(ps, ps->line, "C-State: a character other than printable ASCII");
			*p = (char)toupper((unsigned char)*p);
		}
		if ((ret = intern(ps->f, st, strlen(st), &r.text)))
			return ret == -ENOMEM ? nomem(ps) : bad(ps, ps->line, "too much text");
		if (r.dur_ns > r.end_ns + tol)
			return bad(ps, ps->line, "starts %s ms before the collection begins (Duration %s ms, Continuous Time %s ms)",
				   ms_text(r.dur_ns - r.end_ns, msg, sizeof(msg)),
				   ms_text(r.dur_ns, a, sizeof(a)), ms_text(r.end_ns, b, sizeof(b)));
		r.start_ns = r.end_ns > r.dur_ns ? r.end_ns - r.dur_ns : 0;
		if (prev) {
			/* both rounded: within their rounding, one instant */
			tol += prev->half_ns;
			if (r.start_ns + tol < prev->end_ns)
				return bad(ps, ps->line, "overlaps the previous row by %s ms (it starts at %s ms, the previous one ends at %s ms)",
					   ms_text(prev->end_ns - r.start_ns, msg, sizeof(msg)),
					   ms_text(r.start_ns, a, sizeof(a)),
					   ms_text(prev->end_ns, b, sizeof(b)));
			if (r.start_ns <= prev->end_ns + tol)
				r.start_ns = prev->end_ns;
		}
	}
	r.half_ns = h_end;
	if (grow((void **)&s->rows, &s->cap, s->nrows + 1, sizeof(*s->rows)))
		return nomem(ps);
	s->rows[s->nrows++] = r;
	return 0;
}

/* "CPU INDEX TOKEN NAME" of a "wakebench state" line. */
static int state_line(struct parser *ps, char *v)
{
	struct sw_file *f = ps->f;
	struct sw_state st = { .line = ps->line };
	char *w[3], *p = v;
	uint64_t cpu, idx;
	int ret;

	for (int i = 0; i < 3; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		w[i] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
	p = trim(p);
	if (whole(w[0], SW_MAX_CPUS - 1, &cpu) ||
	    whole(w[1], TRACEFILE_MAX_STATES - 1, &idx) || !*w[2] || !*p)
		return bad(ps, ps->line, "a wakebench state line is CPU (0-%d) INDEX (0-%d) TOKEN NAME",
			   SW_MAX_CPUS - 1, TRACEFILE_MAX_STATES - 1);
	if (strlen(w[2]) > SW_MAX_STATE || strlen(p) > SW_MAX_STATE)
		return bad(ps, ps->line, "a state token or name longer than %d characters",
			   SW_MAX_STATE);
	for (char *q = w[2]; *q; q++)
		*q = (char)toupper((unsigned char)*q);
	st.cpu = (uint32_t)cpu;
	st.index = (uint32_t)idx;
	if ((ret = intern(f, w[2], strlen(w[2]), &st.token)) ||
	    (ret = intern(f, p, strlen(p), &st.name)) ||
	    grow((void **)&f->states, &f->states_cap, f->nstates + 1, sizeof(*f->states)))
		return nomem(ps);
	f->states[f->nstates++] = st;
	return 0;
}

/* A key of the preamble, with or without a unit suffix. */
static int key_is(const char *k, const char *name, const char *unit)
{
	size_t n = strlen(name);

	if (strncasecmp(k, name, n))
		return 0;
	k += n;
	while (*k == ' ')
		k++;
	return !*k || (unit && !strcasecmp(k, unit));
}

static int preamble(struct parser *ps, char *t)
{
	struct sw_file *f = ps->f;
	char *colon = strchr(t, ':'), *k, *v, msg[200];
	struct sw_kv kv = { .line = ps->line };
	uint64_t x, h;

	if (!colon)
		return 0;	/* free text: a banner, a copyright line */
	*colon = '\0';
	k = trim(t);
	v = trim(colon + 1);
	if (!*k)
		return 0;
	if (intern(f, k, strlen(k), &kv.key) || intern(f, v, strlen(v), &kv.value) ||
	    grow((void **)&f->kv, &f->kv_cap, f->nkv + 1, sizeof(*f->kv)))
		return nomem(ps);
	f->kv[f->nkv++] = kv;
	if (key_is(k, "Collection begin timestamp", "(ns)")) {
		if (f->have_begin)
			return bad(ps, ps->line, "a second Collection begin timestamp");
		if (whole(v, NS_MAX, &f->begin_ns))
			return bad(ps, ps->line, "Collection begin timestamp '%.40s' is not a whole number of ns",
				   v);
		f->have_begin = 1;
	} else if (key_is(k, "Collection end timestamp", "(ns)")) {
		if (f->have_end)
			return bad(ps, ps->line, "a second Collection end timestamp");
		if (whole(v, NS_MAX, &f->end_ns))
			return bad(ps, ps->line, "Collection end timestamp '%.40s' is not a whole number of ns",
				   v);
		f->have_end = 1;
	} else if (key_is(k, "Collection duration", "(sec)")) {
		if (f->have_duration)
			return bad(ps, ps->line, "a second Collection duration");
		if (decimal(v, 1000000000, &x, &h, msg, sizeof(msg)))
			return bad(ps, ps->line, "Collection duration (sec): %s", msg);
		f->duration_ns = x;
		f->have_duration = 1;
	} else if (!strcasecmp(k, "wakebench state")) {
		return state_line(ps, v);
	}
	return 0;
}

/* A line that is no column line and no row of the section being read. */
static int plain(struct parser *ps, char *t, uint32_t line)
{
	uint32_t keep = ps->line;
	int ret;

	if (ps->cur)
		return bad(ps, line, "not a row of section '%s' (rows start with their Sample #; a blank line ends a section)",
			   ps->cur->title);
	if (ps->in_skip)
		return 0;
	if (ps->in_pre) {
		ps->line = line;
		ret = preamble(ps, t);
		ps->line = keep;
		return ret;
	}
	if (ps->block_start) {
		ps->block_start = 0;
		if (ps->ended[0] && isdigit((unsigned char)t[0]))
			return bad(ps, line, "a row after the blank line that ended section '%s' (a blank line ends a section)",
				   ps->ended);
		ps->f->blocks++;
	}
	return 0;
}

static int parse(struct sw_file *f, struct src *src, char *err, size_t errlen)
{
	struct parser *ps = calloc(1, sizeof(*ps));
	char *buf = malloc(SW_MAX_LINE + 1);
	int ret = 0;

	if (!ps || !buf) {
		free(ps);
		free(buf);
		snprintf(err, errlen, "%s: out of memory", f->name);
		return -ENOMEM;
	}
	ps->f = f;
	ps->err = err;
	ps->errlen = errlen;
	ps->in_pre = 1;
	while (!ret) {
		size_t n;
		char *t;
		int r = next_line(src, buf, &n);

		if (!r)
			break;
		ps->line++;
		if (r == -E2BIG) {
			ret = bad(ps, ps->line, "a line longer than %d bytes", SW_MAX_LINE);
			break;
		}
		if (r < 0) {
			ret = r;
			snprintf(err, errlen, "%s: %s", f->name, strerror(-r));
			break;
		}
		t = buf;
		if (ps->line == 1 && n >= 3 && !memcmp(t, "\xef\xbb\xbf", 3)) {
			t += 3;	/* a UTF-8 byte order mark */
			n -= 3;
		}
		if (n && t[n - 1] == '\r')
			t[--n] = '\0';
		for (size_t i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)t[i];

			if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
				ret = bad(ps, ps->line, "control character 0x%02x in column %zu", ch,
					  i + 1);
				break;
			}
		}
		if (ret)
			break;
		t = trim(t);
		if (is_columns(t)) {
			if (!ps->have_pend) {
				ret = bad(ps, ps->line, "a column line without a section title on the line before");
				break;
			}
			ps->have_pend = 0;
			ret = start_section(ps, ps->pend, ps->pend_line, t);
			continue;
		}
		if (ps->have_pend) {
			ps->have_pend = 0;
			ret = plain(ps, ps->pend, ps->pend_line);
			if (ret)
				break;
		}
		if (!*t) {
			end_section(ps);
			ps->block_start = 1;
			continue;
		}
		if (ps->cur && isdigit((unsigned char)t[0])) {
			ret = row(ps, t);
			continue;
		}
		if (ps->in_skip && isdigit((unsigned char)t[0]))
			continue;
		/* held: a title if a column line follows */
		memcpy(ps->pend, t, strlen(t) + 1);
		ps->pend_line = ps->line;
		ps->have_pend = 1;
	}
	if (!ret && ps->have_pend)
		ret = plain(ps, ps->pend, ps->pend_line);
	f->lines = ps->line;
	free(buf);
	free(ps);
	return ret;
}

static struct sw_file *file_new(const char *name)
{
	struct sw_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->name = strdup(name);
	/* offset 0 is "" */
	if (!f->name || grow((void **)&f->str, &f->scap, 1, 1)) {
		socwatch_free(f);
		return NULL;
	}
	f->str[0] = '\0';
	f->slen = 1;
	return f;
}

int socwatch_parse(const char *name, const void *buf, size_t len,
		   struct sw_file **out, char *err, size_t errlen)
{
	struct src s = { .mem = buf, .len = len };
	struct sw_file *f = file_new(name);
	int ret;

	*out = NULL;
	if (!f) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	ret = parse(f, &s, err, errlen);
	if (ret) {
		socwatch_free(f);
		return ret;
	}
	*out = f;
	return 0;
}

int socwatch_read(const char *path, struct sw_file **out, char *err,
		  size_t errlen)
{
	struct src s = { 0 };
	struct sw_file *f;
	int ret;

	*out = NULL;
	s.fp = rfile_fopen_quiet(path);
	if (!s.fp) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, rfile_strerror(-ret));
		return ret;
	}
	f = file_new(path);
	if (!f) {
		fclose(s.fp);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	ret = parse(f, &s, err, errlen);
	fclose(s.fp);
	if (ret) {
		socwatch_free(f);
		return ret;
	}
	*out = f;
	return 0;
}

void socwatch_free(struct sw_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nsec; i++)
		free(f->sec[i].rows);
	free(f->sec);
	free(f->kv);
	free(f->states);
	free(f->str);
	free(f->hash);
	free(f->name);
	free(f);
}

const char *socwatch_preamble(const struct sw_file *f, const char *key)
{
	for (size_t i = 0; i < f->nkv; i++)
		if (!strcasecmp(socwatch_str(f, f->kv[i].key), key))
			return socwatch_str(f, f->kv[i].value);
	return NULL;
}

/* ---- the import plan --------------------------------------------------------------- */

__attribute__((format(printf, 5, 6)))
static int plan_bad(const struct sw_file *f, uint32_t line, char *err,
		    size_t errlen, const char *fmt, ...)
{
	char msg[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(err, errlen, "%s:%u: %s", f->name, line, msg);
	else
		snprintf(err, errlen, "%s: %s", f->name, msg);
	return -EINVAL;
}

static int key_cmp(const struct sw_section *a, const struct sw_section *b)
{
	if (a->package != b->package)
		return a->package < b->package ? -1 : 1;
	if (a->die != b->die)
		return a->die < b->die ? -1 : 1;
	if (a->core != b->core)
		return a->core < b->core ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return 0;
}

static int cmp_sec(const void *x, const void *y, void *arg)
{
	const struct sw_file *f = arg;
	const struct sw_section *a = &f->sec[*(const size_t *)x];
	const struct sw_section *b = &f->sec[*(const size_t *)y];
	int c = key_cmp(a, b);

	if (c)
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_token(const void *x, const void *y, void *arg)
{
	const uint32_t *a = x, *b = y;
	const char *sa = socwatch_str(arg, *a), *sb = socwatch_str(arg, *b);
	unsigned int na = socwatch_cc_number(sa), nb = socwatch_cc_number(sb);

	if (na != nb)
		return na < nb ? -1 : 1;
	return strcmp(sa, sb);
}

static int map_add(struct sw_plan *p, uint32_t cpu, uint32_t text, int32_t state)
{
	if (p->nmap[cpu] == TRACEFILE_MAX_STATES + 2)
		return -1;
	p->map[cpu][p->nmap[cpu]++] = (struct sw_map){ text, state };
	return 0;
}

static int map_find(const struct sw_plan *p, uint32_t cpu, uint32_t text,
		    int32_t *state)
{
	for (uint32_t i = 0; i < p->nmap[cpu]; i++) {
		if (p->map[cpu][i].text == text) {
			*state = p->map[cpu][i].state;
			return 0;
		}
	}
	return -1;
}

/* The CPU of every section: core sections of the first variant, IRQ
 * sections by the core their title names. */
static int plan_cpus(const struct sw_file *f, struct sw_plan *p, char *err,
		     size_t errlen)
{
	const struct sw_section *first = NULL;
	size_t *order, n = 0;
	int ret = 0;

	for (size_t i = 0; i < f->nsec; i++) {
		const struct sw_section *s = &f->sec[i];

		p->cpu[i] = -1;
		if (s->kind == SW_PACKAGE)
			p->skipped_package++;
		else if (s->kind == SW_OTHER_CSTATE)
			p->skipped_other++;
		if (s->kind != SW_CORE)
			continue;
		if (!first) {
			first = s;
			snprintf(p->variant, sizeof(p->variant), "%s", s->variant);
		}
		if (strcmp(s->variant, first->variant)) {
			p->skipped_variant++;
			continue;
		}
		p->cpu[i] = 0;	/* imported; numbered below */
		/* Core_N is cpuN only within one package and die */
		if (s->package != first->package || s->die != first->die ||
		    s->thread != first->thread)
			p->by_rank = 1;
	}
	if (!first)
		return plan_bad(f, 0, err, errlen, "no Core C-State section (a title 'Core C-State - CPU/Package_0/Die_0/Core_N' and the columns Sample #, Continuous Time (ms), C-State, Duration (ms))");
	order = malloc(f->nsec * sizeof(*order));
	if (!order) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->nsec; i++)
		if (p->cpu[i] == 0)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), cmp_sec, (void *)f);
	for (size_t k = 0; k < n && !ret; k++) {
		const struct sw_section *s = &f->sec[order[k]];

		if (k && !key_cmp(s, &f->sec[order[k - 1]]))
			ret = plan_bad(f, s->line, err, errlen, "a second section for the core of '%s' (the first at line %u)",
				       s->title, f->sec[order[k - 1]].line);
		else if (!p->by_rank && s->core >= SW_MAX_CPUS)
			ret = plan_bad(f, s->line, err, errlen, "Core_%d: at most %d CPUs", s->core,
				       SW_MAX_CPUS);
		else if (p->by_rank && k >= SW_MAX_CPUS)
			ret = plan_bad(f, s->line, err, errlen, "more than %d core sections",
				       SW_MAX_CPUS);
		p->cpu[order[k]] = p->by_rank ? (int32_t)k : s->core;
	}
	p->cores = n;
	free(order);
	for (size_t i = 0; i < f->nsec && !ret; i++) {
		const struct sw_section *s = &f->sec[i];

		if (s->kind != SW_IRQ)
			continue;
		p->irq_sections++;
		if (s->core < 0) {
			p->cpu[i] = 0;	/* SoC Watch's one IRQ table */
		} else if (!p->by_rank) {
			if (s->core >= SW_MAX_CPUS)
				ret = plan_bad(f, s->line, err, errlen, "Core_%d: at most %d CPUs",
					       s->core, SW_MAX_CPUS);
			p->cpu[i] = s->core;
		} else {
			for (size_t k = 0; k < f->nsec; k++)
				if (f->sec[k].kind == SW_CORE && p->cpu[k] >= 0 &&
				    !key_cmp(&f->sec[k], s))
					p->cpu[i] = p->cpu[k];
			if (p->cpu[i] < 0)
				ret = plan_bad(f, s->line, err, errlen, "IRQ section '%s': no core C-state section of its core",
					       s->title);
		}
	}
	for (size_t i = 0; i < f->nsec; i++)
		if (p->cpu[i] >= 0 && (uint32_t)p->cpu[i] + 1 > p->ncpus)
			p->ncpus = (uint32_t)p->cpu[i] + 1;
	return ret;
}

/* Each C-state's idle state index, per CPU. */
static int plan_states(const struct sw_file *f, struct sw_plan *p, char *err,
		       size_t errlen)
{
	uint32_t c0[2], tokens[TRACEFILE_MAX_STATES];
	size_t ntok = 0;

	/* the texts C0 may come as */
	c0[0] = c0[1] = UINT32_MAX;
	for (uint32_t cpu = 0; cpu < p->ncpus; cpu++)
		p->nmap[cpu] = 0;
	if (f->nstates) {
		/* trace export's own lines: lossless */
		for (size_t i = 0; i < f->nstates; i++) {
			const struct sw_state *st = &f->states[i];
			const char *tok = socwatch_str(f, st->token);
			int32_t dummy;

			if (st->cpu >= p->ncpus)
				continue;	/* a CPU without a section */
			if (socwatch_is_c0(tok))
				return plan_bad(f, st->line, err, errlen, "wakebench state %s: CC0 is C0, not an idle state",
						tok);
			if (p->names[st->cpu][st->index][0] || !map_find(p, st->cpu, st->token, &dummy))
				return plan_bad(f, st->line, err, errlen, "a second wakebench state line for cpu %u state %u or %s",
						st->cpu, st->index, tok);
			snprintf(p->names[st->cpu][st->index], sizeof(p->names[0][0]), "%s",
				 socwatch_str(f, st->name));
			if (map_add(p, st->cpu, st->token, (int32_t)st->index))
				return plan_bad(f, st->line, err, errlen, "too many states");
		}
	}
	for (size_t i = 0; i < f->nsec; i++) {
		const struct sw_section *s = &f->sec[i];

		if (s->kind != SW_CORE || p->cpu[i] < 0)
			continue;
		for (size_t r = 0; r < s->nrows; r++) {
			uint32_t t = s->rows[r].text;
			const char *name = socwatch_str(f, t);
			int32_t st;
			size_t k;

			if (t == c0[0] || t == c0[1])
				continue;
			if (socwatch_is_c0(name)) {
				c0[c0[0] == UINT32_MAX ? 0 : 1] = t;
				continue;
			}
			if (f->nstates) {
				if (map_find(p, (uint32_t)p->cpu[i], t, &st))
					return plan_bad(f, s->rows[r].line, err, errlen, "C-State '%s' is not among cpu %d's states in the preamble's wakebench state lines",
							name, p->cpu[i]);
				continue;
			}
			for (k = 0; k < ntok && tokens[k] != t; k++)
				;
			if (k < ntok)
				continue;
			if (ntok == TRACEFILE_MAX_STATES)
				return plan_bad(f, s->rows[r].line, err, errlen, "C-State '%s': more than %d different idle states",
						name, TRACEFILE_MAX_STATES);
			tokens[ntok++] = t;
		}
	}
	if (!f->nstates) {
		/* by depth: CC1 before CC6, the same on every CPU */
		qsort_r(tokens, ntok, sizeof(tokens[0]), cmp_token, (void *)f);
		for (uint32_t cpu = 0; cpu < p->ncpus; cpu++) {
			for (size_t k = 0; k < ntok; k++) {
				snprintf(p->names[cpu][k], sizeof(p->names[0][0]), "%s",
					 socwatch_str(f, tokens[k]));
				map_add(p, cpu, tokens[k], (int32_t)k);
			}
		}
	}
	for (uint32_t cpu = 0; cpu < p->ncpus; cpu++)
		for (int k = 0; k < 2; k++)
			if (c0[k] != UINT32_MAX)
				map_add(p, cpu, c0[k], TL_C0);
	return 0;
}

void socwatch_plan_free(struct sw_plan *p)
{
	free(p->names);
	free(p->cpu);
	free(p->map);
	free(p->nmap);
	memset(p, 0, sizeof(*p));
}

/* A row's time, at most decl (when given) if only its rounding puts it
 * past it. */
static uint64_t sw_time(const struct sw_row *w, uint64_t decl)
{
	return decl && w->end_ns > decl && w->end_ns - decl <= w->half_ns ? decl :
	       w->end_ns;
}

int socwatch_plan(const struct sw_file *f, struct sw_plan *p, char *err,
		  size_t errlen)
{
	uint64_t end = 0, decl = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!f->have_begin)
		return plan_bad(f, 0, err, errlen, "no 'Collection begin timestamp' line in the preamble (the rows' times count from it, in ns)");
	p->cpu = calloc(f->nsec ? f->nsec : 1, sizeof(*p->cpu));
	if (!p->cpu)
		goto nomem;
	ret = plan_cpus(f, p, err, errlen);
	if (ret)
		goto fail;
	p->names = calloc(p->ncpus, sizeof(*p->names));
	p->map = calloc(p->ncpus, sizeof(*p->map));
	p->nmap = calloc(p->ncpus, sizeof(*p->nmap));
	if (!p->names || !p->map || !p->nmap)
		goto nomem;
	ret = plan_states(f, p, err, errlen);
	if (ret)
		goto fail;
	/* the collection's end as the preamble gives it */
	if (f->have_end) {
		if (f->end_ns < f->begin_ns) {
			ret = plan_bad(f, 0, err, errlen, "Collection end timestamp %llu ns is before its begin %llu ns",
				       (unsigned long long)f->end_ns,
				       (unsigned long long)f->begin_ns);
			goto fail;
		}
		decl = f->end_ns - f->begin_ns;
	} else if (f->have_duration) {
		decl = f->duration_ns;
	}
	end = decl;
	for (size_t i = 0; i < f->nsec; i++) {
		const struct sw_section *s = &f->sec[i];
		uint64_t b = 0, cov = 0;

		if (p->cpu[i] < 0)
			continue;
		for (size_t r = 0; r < s->nrows; r++) {
			const struct sw_row *w = &s->rows[r];
			uint64_t from;

			/* a row rounded up past the end does not move it */
			if (sw_time(w, decl) > end)
				end = sw_time(w, decl);
			if (s->kind == SW_IRQ)
				continue;
			/* the time the rows cover, overlaps once */
			from = r && w->start_ns < s->rows[r - 1].end_ns ?
			       s->rows[r - 1].end_ns : w->start_ns;
			if (w->end_ns > from)
				cov += w->end_ns - from;
			/* the same placing as socwatch_emit */
			b = r && w->start_ns <= b ? b + 1 : w->start_ns;
			if (b + 1 > end)
				end = b + 1;
			if (r && w->start_ns > s->rows[r - 1].end_ns) {
				uint64_t gap = w->start_ns - s->rows[r - 1].end_ns;

				p->gaps++;
				if (gap > p->max_gap_ns) {
					p->max_gap_ns = gap;
					p->max_gap_line = w->line;
				}
			}
		}
		if (s->kind == SW_IRQ) {
			p->irqs += s->nrows;
			continue;
		}
		p->cstate_rows += s->nrows;
		p->covered_ns += cov;
		if (!p->cover_sections++ || cov < p->min_cover_ns) {
			p->min_cover_ns = cov;
			p->min_cover_cpu = (uint32_t)p->cpu[i];
		}
	}
	if (end > UINT64_MAX - f->begin_ns) {
		ret = plan_bad(f, 0, err, errlen, "times past 2^64 ns from the collection begin");
		goto fail;
	}
	p->start_ns = f->begin_ns;
	p->end_ns = f->begin_ns + end;
	p->end_rel = end;
	return 0;
nomem:
	ret = -ENOMEM;
	snprintf(err, errlen, "out of memory");
fail:
	socwatch_plan_free(p);
	return ret;
}

/* ---- events -------------------------------------------------------------------------- */

struct cursor {
	const struct sw_section *s;
	size_t r;	/* the next row; nrows: the exit after the last */
	uint64_t b;	/* the previous C-state event's time (from begin) */
	int tail;	/* "unknown from here" follows the last row */
	int gap_done;	/* the gap before row r has had its event */
};

/* Row r starts after the previous one ended (beyond the rounding, which
 * the parser took up): no row covers the time between. */
static int gap_before(const struct cursor *c)
{
	return c->s->kind != SW_IRQ && c->r && c->r < c->s->nrows && !c->gap_done &&
	       c->s->rows[c->r].start_ns > c->s->rows[c->r - 1].end_ns;
}

/* When the cursor's next event is (from begin). */
static uint64_t next_ts(const struct cursor *c, uint64_t end)
{
	const struct sw_row *w;

	if (c->r == c->s->nrows)	/* the tail */
		return c->s->rows[c->r - 1].end_ns > c->b + 1 ?
		       c->s->rows[c->r - 1].end_ns : c->b + 1;
	w = &c->s->rows[c->r];
	if (c->s->kind == SW_IRQ)
		return w->end_ns < end ? w->end_ns : end;
	if (gap_before(c))	/* unknown from the previous row's end */
		return c->s->rows[c->r - 1].end_ns > c->b ?
		       c->s->rows[c->r - 1].end_ns : c->b + 1;
	return c->r && w->start_ns <= c->b ? c->b + 1 : w->start_ns;
}

int socwatch_emit(const struct sw_file *f, const struct sw_plan *p,
		  sw_event_fn fn, void *ctx)
{
	struct cursor *cur = malloc((f->nsec ? f->nsec : 1) * sizeof(*cur));
	uint64_t end = p->end_rel;
	int ret = 0;

	if (!cur)
		return -ENOMEM;
	for (uint32_t cpu = 0; cpu < p->ncpus && !ret; cpu++) {
		size_t n = 0;

		for (size_t i = 0; i < f->nsec; i++) {
			const struct sw_section *s = &f->sec[i];
			const struct sw_row *last = s->nrows ? &s->rows[s->nrows - 1] : NULL;

			if (p->cpu[i] != (int32_t)cpu || !last)
				continue;
			/*
			 * A last row that ends before the trace does: no row
			 * says what came after it (C0 or idle, a C0 row is
			 * not stretched to the end): unknown from then on.
			 */
			cur[n++] = (struct cursor){
				.s = s, .tail = s->kind != SW_IRQ &&
						last->end_ns + last->half_ns < end };
		}
		while (n && !ret) {
			size_t best = 0;
			uint64_t bt = next_ts(&cur[0], end);
			struct tl_event e = { .cpu = cpu };
			const struct sw_row *w;

			for (size_t k = 1; k < n; k++) {
				uint64_t t = next_ts(&cur[k], end);

				if (t < bt || (t == bt && cur[k].s->kind == SW_IRQ &&
					       cur[best].s->kind != SW_IRQ)) {
					best = k;
					bt = t;
				}
			}
			e.ts = p->start_ns + bt;
			if (cur[best].r == cur[best].s->nrows) {
				e.type = TL_IDLE;
				e.arg = TL_NO_DATA;
				cur[best].tail = 0;
				ret = fn(ctx, &e);
				cur[best] = cur[--n];
				continue;
			}
			if (gap_before(&cur[best])) {
				e.type = TL_IDLE;
				e.arg = TL_NO_DATA;
				cur[best].b = bt;
				cur[best].gap_done = 1;
				ret = fn(ctx, &e);
				continue;
			}
			w = &cur[best].s->rows[cur[best].r];
			cur[best].gap_done = 0;
			if (cur[best].s->kind == SW_IRQ) {
				e.type = TL_IRQ_ENTRY;
				e.arg = w->irq;
				e.str = socwatch_str(f, w->text);
			} else {
				int32_t st = TL_C0;

				map_find(p, cpu, w->text, &st);
				e.type = TL_IDLE;
				e.arg = st == TL_C0 ? TL_EXIT : (uint32_t)st;
				cur[best].b = bt;
			}
			ret = fn(ctx, &e);
			if (++cur[best].r == cur[best].s->nrows && !cur[best].tail)
				cur[best] = cur[--n];
		}
	}
	free(cur);
	return ret;
}
