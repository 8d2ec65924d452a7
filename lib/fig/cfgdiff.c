// SPDX-License-Identifier: GPL-2.0
/* cfgdiff: snapshots and command lines side by side (see cfgdiff.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfgdiff.h"
#include "csv.h"
#include "errmsg.h"
#include "jsonflat.h"
#include "rfile.h"

#define MAX_SNAPSHOT (16u << 20)
#define MAX_CMDLINE (1u << 20)
#define ABSENT "(absent)"

/* A growing string. */
struct sb {
	char *s;
	size_t n, cap;
};

static int sb_put(struct sb *b, char c)
{
	if (b->n + 2 > b->cap) {
		size_t nc = b->cap ? 2 * b->cap : 64;
		char *ns = realloc(b->s, nc);

		if (!ns)
			return -ENOMEM;
		b->s = ns;
		b->cap = nc;
	}
	b->s[b->n++] = c;
	b->s[b->n] = '\0';
	return 0;
}

void cfgdiff_free_words(char **words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(words[i]);
	free(words);
}

static int add_word(char ***w, size_t *n, struct sb *b)
{
	char **nw = realloc(*w, (*n + 1) * sizeof(*nw));

	if (!nw)
		return -ENOMEM;
	*w = nw;
	(*w)[(*n)++] = b->s ? b->s : strdup("");
	memset(b, 0, sizeof(*b));
	return (*w)[*n - 1] ? 0 : -ENOMEM;
}

/* One $'...' escape at *p (after the backslash); the byte. */
static char ansi_escape(const char **p)
{
	char c = *(*p)++;
	int v = 0, k;

	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'a': return '\a';
	case 'b': return '\b';
	case 'e': case 'E': return 0x1b;
	case 'f': return '\f';
	case 'v': return '\v';
	case 'x':
		for (k = 0; k < 2 && strchr("0123456789abcdefABCDEF", **p) && **p; k++, (*p)++)
			v = v * 16 + (**p <= '9' ? **p - '0' : (**p | 0x20) - 'a' + 10);
		return (char)v;
	default:
		if (c >= '0' && c <= '7') {
			v = c - '0';
			for (k = 0; k < 2 && **p >= '0' && **p <= '7'; k++, (*p)++)
				v = v * 8 + (**p - '0');
			return (char)v;
		}
		return c;	/* \\ \' \" and the rest: the character */
	}
}

int cfgdiff_split(const char *line, char ***words, size_t *n)
{
	struct sb b = { 0 };
	const char *p = line;
	int inword = 0, ret = 0;

	*words = NULL;
	*n = 0;
	while (*p && !ret) {
		char c = *p++;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (inword)
				ret = add_word(words, n, &b);
			inword = 0;
			continue;
		}
		inword = 1;
		if (c == '\'') {
			while (*p && *p != '\'' && !ret)
				ret = sb_put(&b, *p++);
			if (!*p) {
				ret = -EINVAL;
				break;
			}
			p++;
			/* an empty '' is still a word */
			if (!b.s)
				ret = sb_put(&b, 'x'), b.n = 0, b.s[0] = '\0';
		} else if (c == '$' && *p == '\'') {
			p++;
			while (*p && *p != '\'' && !ret) {
				char x = *p++;

				if (x == '\\' && *p)
					x = ansi_escape(&p);
				ret = sb_put(&b, x);
			}
			if (!*p) {
				ret = -EINVAL;
				break;
			}
			p++;
		} else if (c == '"') {
			while (*p && *p != '"' && !ret) {
				if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
					p++;
				ret = sb_put(&b, *p++);
			}
			if (!*p) {
				ret = -EINVAL;
				break;
			}
			p++;
			if (!b.s)
				ret = sb_put(&b, 'x'), b.n = 0, b.s[0] = '\0';
		} else if (c == '\\' && *p) {
			ret = sb_put(&b, *p++);
		} else {
			ret = sb_put(&b, c);
		}
	}
	if (!ret && inword)
		ret = add_word(words, n, &b);
	free(b.s);
	if (ret) {
		cfgdiff_free_words(*words, *n);
		*words = NULL;
		*n = 0;
	}
	return ret;
}

/* key/value pairs in order */
struct kv {
	char **k, **v;
	size_t n, cap;
};

static void kv_free(struct kv *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->k[i]);
		free(m->v[i]);
	}
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static const char *kv_get(const struct kv *m, const char *k)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->k[i], k))
			return m->v[i];
	return NULL;
}

static int kv_add(struct kv *m, const char *k, const char *v)
{
	if (m->n == m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 64;
		char **nk = realloc(m->k, nc * sizeof(*nk)), **nv;

		if (!nk)
			return -ENOMEM;
		m->k = nk;
		nv = realloc(m->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		m->v = nv;
		m->cap = nc;
	}
	m->k[m->n] = strdup(k);
	m->v[m->n] = strdup(v);
	if (!m->k[m->n] || !m->v[m->n]) {
		free(m->k[m->n]);
		free(m->v[m->n]);
		return -ENOMEM;
	}
	m->n++;
	return 0;
}

/* Appends V to the value of K ("a b"), or adds it. */
static int kv_append(struct kv *m, const char *k, const char *v)
{
	for (size_t i = 0; i < m->n; i++) {
		if (strcmp(m->k[i], k))
			continue;
		{
			size_t a = strlen(m->v[i]), b = strlen(v);
			char *nv = realloc(m->v[i], a + b + 2);

			if (!nv)
				return -ENOMEM;
			nv[a] = ' ';
			memcpy(nv + a + 1, v, b + 1);
			m->v[i] = nv;
			return 0;
		}
	}
	return kv_add(m, k, v);
}

static int on_scalar(void *ctx, const char *path, const char *value)
{
	return kv_add(ctx, path, value);
}

/* The whole of PATH (at most MAX bytes): *text, *len; -errno. */
static int slurp(const char *path, size_t max, char **text, size_t *len)
{
	FILE *f = rfile_fopen_quiet(path);
	char *t;
	size_t n;

	if (!f)
		return -errno;
	t = malloc(max + 1);
	if (!t) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(t, 1, max + 1, f);
	if (ferror(f) || n > max) {
		int ferr = ferror(f);

		free(t);
		fclose(f);
		return ferr ? -EIO : -EFBIG;
	}
	fclose(f);
	t[n] = '\0';
	*text = t;
	*len = n;
	return 0;
}

static int read_snapshot(const char *path, struct kv *m, char *err, size_t errlen)
{
	char *text, e[256];
	size_t len;
	int ret;

	if (!path || !*path)
		return 0;
	ret = slurp(path, MAX_SNAPSHOT, &text, &len);
	if (!ret && strlen(text) != len) {
		free(text);
		errmsg_set(err, errlen, "%s: a NUL byte (not JSON)", path);
		return -EINVAL;
	}
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		errmsg_set(err, errlen, "cannot read %s: %s", path, rfile_strerror(-ret));
		return ret;
	}
	ret = jsonflat_walk(text, len, on_scalar, m, e, sizeof(e));
	free(text);
	if (ret == -ENOMEM)
		errmsg_set(err, errlen, "out of memory");
	else if (ret)
		errmsg_set(err, errlen, "%s: %s", path, e);
	return ret;
}

/*
 * The command line's words as keys: "command" (the program's name, its
 * directory left out), each option ("--x" or "-x", a "--x=v" split) with
 * the words up to the next option (or "(set)"), "argument N" for words
 * before any option. FULL: the line itself.
 */
static int read_cmdline(const char *path, struct kv *m, char **full, char *err,
			size_t errlen)
{
	char *text, **w, *opt = NULL, key[64];
	size_t len, nw, nargs = 0;
	int ret;

	*full = NULL;
	if (!path || !*path)
		return 0;
	ret = slurp(path, MAX_CMDLINE, &text, &len);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		errmsg_set(err, errlen, "cannot read %s: %s", path, rfile_strerror(-ret));
		return ret;
	}
	text[strcspn(text, "\n")] = '\0';
	ret = cfgdiff_split(text, &w, &nw);
	if (ret) {
		free(text);
		errmsg_set(err, errlen, ret == -ENOMEM ? "out of memory" :
			   "%s: an open quote", path);
		return ret;
	}
	*full = text;
	for (size_t i = 0; i < nw && !ret; i++) {
		if (!i) {
			const char *base = strrchr(w[0], '/');

			ret = kv_add(m, "command", base ? base + 1 : w[0]);
			continue;
		}
		if (w[i][0] == '-' && w[i][1] && !(w[i][1] >= '0' && w[i][1] <= '9')) {
			char *eq = strncmp(w[i], "--", 2) ? NULL : strchr(w[i], '=');

			free(opt);
			opt = strndup(w[i], eq ? (size_t)(eq - w[i]) : strlen(w[i]));
			if (!opt) {
				ret = -ENOMEM;
				break;
			}
			if (kv_get(m, opt))
				ret = kv_append(m, opt, eq ? eq + 1 : "(set)");
			else
				ret = kv_add(m, opt, eq ? eq + 1 : "(set)");
			if (eq) {
				free(opt);
				opt = NULL;
			}
			continue;
		}
		if (!opt) {
			snprintf(key, sizeof(key), "argument %zu", ++nargs);
			ret = kv_add(m, key, w[i]);
			continue;
		}
		/* the option's value: "(set)" replaced by the first word */
		for (size_t k = 0; k < m->n; k++) {
			if (strcmp(m->k[k], opt))
				continue;
			if (!strcmp(m->v[k], "(set)")) {
				char *nv = strdup(w[i]);

				if (!nv) {
					ret = -ENOMEM;
					break;
				}
				free(m->v[k]);
				m->v[k] = nv;
			} else {
				ret = kv_append(m, opt, w[i]);
			}
			break;
		}
	}
	free(opt);
	cfgdiff_free_words(w, nw);
	if (ret == -ENOMEM)
		errmsg_set(err, errlen, "out of memory");
	return ret;
}

/* Rows of the keys of MAPS[0..n) (union, in order of appearance) whose
 * values differ; PREFIX before each key; SKIP: keys left out. */
static int diff_rows(struct csv *c, const struct kv *maps, size_t n,
		     const char *prefix, const char *const *skip, int *rows)
{
	for (size_t s = 0; s < n; s++) {
		for (size_t i = 0; i < maps[s].n; i++) {
			const char *k = maps[s].k[i], *v0;
			int first = 1, differ = 0, skipped = 0;
			char what[1200];

			for (const char *const *x = skip; x && *x; x++)
				skipped |= !strcmp(*x, k);
			/* a key is handled by the first side that has it */
			for (size_t t = 0; t < s && first; t++)
				first = !kv_get(&maps[t], k);
			if (skipped || !first)
				continue;
			v0 = kv_get(&maps[0], k);
			for (size_t t = 1; t < n && !differ; t++) {
				const char *v = kv_get(&maps[t], k);

				differ = !v0 != !v || (v && strcmp(v, v0));
			}
			if (!differ)
				continue;
			snprintf(what, sizeof(what), "%s%s", prefix, k);
			csv_str(c, what);
			for (size_t t = 0; t < n; t++) {
				const char *v = kv_get(&maps[t], k);

				csv_str(c, v ? v : ABSENT);
			}
			csv_end_row(c);
			(*rows)++;
		}
	}
	return 0;
}

/* A CSV file to write, or -errno with the reason. */
static int open_out(const char *path, struct csv **c, char *err, size_t errlen)
{
	int e;

	*c = csv_open(path);
	if (*c)
		return 0;
	e = errno;
	errmsg_set(err, errlen, "cannot write %s: %s", path, strerror(e));
	return -e;
}

int cfgdiff_write(const struct cfgdiff_side *s, size_t n, const char *diff,
		  const char *prov, const char *snap_prefix, char *err,
		  size_t errlen)
{
	static const char *const skip[] = { "time_utc", "command", NULL };
	struct kv *snap = calloc(n + 1, sizeof(*snap));
	struct kv *cmd = calloc(n + 1, sizeof(*cmd));
	char **full = calloc(n + 1, sizeof(*full));
	int ret = 0, rows = 0;
	struct csv *c;

	if (!snap || !cmd || !full) {
		ret = -ENOMEM;
		errmsg_set(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		ret = read_snapshot(s[i].snapshot, &snap[i], err, errlen);
		if (!ret)
			ret = read_cmdline(s[i].cmdline, &cmd[i], &full[i], err, errlen);
	}
	if (ret)
		goto out;
	if (diff) {
		ret = open_out(diff, &c, err, errlen);
		if (ret)
			goto out;
		/* the header through csv_str: labels are anything */
		csv_str(c, "what");
		for (size_t i = 0; i < n; i++)
			csv_str(c, s[i].label);
		csv_end_row(c);
		diff_rows(c, cmd, n, "command line: ", NULL, &rows);
		diff_rows(c, snap, n, "snapshot: ", skip, &rows);
		ret = csv_close(c);
		if (ret) {
			errmsg_set(err, errlen, "writing %s failed", diff);
			goto out;
		}
	}
	if (prov) {
		ret = open_out(prov, &c, err, errlen);
		if (ret)
			goto out;
		csv_header(c, "source,wakebench,host,when,command");
		for (size_t i = 0; i < n; i++) {
			const char *v = kv_get(&snap[i], "wakebench_version");
			const char *h = kv_get(&snap[i], "hostname");
			const char *w = kv_get(&snap[i], "time_utc");
			const char *cm = full[i] ? full[i] : kv_get(&snap[i], "command");

			csv_str(c, s[i].label);
			csv_str(c, v ? v : ABSENT);
			csv_str(c, h ? h : ABSENT);
			csv_str(c, w ? w : ABSENT);
			csv_str(c, cm ? cm : ABSENT);
			csv_end_row(c);
		}
		ret = csv_close(c);
		if (ret) {
			errmsg_set(err, errlen, "writing %s failed", prov);
			goto out;
		}
	}
	for (size_t i = 0; snap_prefix && i < n; i++) {
		char path[4096];

		if (!snap[i].n)
			continue;
		snprintf(path, sizeof(path), "%s-%zu.csv", snap_prefix, i + 1);
		c = csv_open(path);
		if (!c) {
			ret = -errno;
			errmsg_set(err, errlen, "cannot write %s: %s", path, strerror(errno));
			goto out;
		}
		csv_header(c, "key,value");
		for (size_t k = 0; k < snap[i].n; k++) {
			csv_str(c, snap[i].k[k]);
			csv_str(c, snap[i].v[k]);
			csv_end_row(c);
		}
		ret = csv_close(c);
		if (ret) {
			errmsg_set(err, errlen, "writing %s failed", path);
			goto out;
		}
	}
	ret = rows;
out:
	for (size_t i = 0; i < n && snap && cmd && full; i++) {
		kv_free(&snap[i]);
		kv_free(&cmd[i]);
		free(full[i]);
	}
	free(snap);
	free(cmd);
	free(full);
	return ret;
}
