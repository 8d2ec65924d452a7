// SPDX-License-Identifier: GPL-2.0
/* jsonflat: JSON scalars with their paths (see jsonflat.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "jsonflat.h"

struct jr {
	const char *s;
	size_t len, pos;
	char path[JSONFLAT_MAX_PATH];
	size_t plen;
	int depth;
	jsonflat_fn fn;
	void *ctx;
	char *err;
	size_t errlen;
	char *buf;		/* a string's value */
	size_t bcap;
};

static int bad(struct jr *r, const char *what)
{
	errmsg_set(r->err, r->errlen, "offset %zu: %s", r->pos, what);
	return -EINVAL;
}

static void ws(struct jr *r)
{
	while (r->pos < r->len && strchr(" \t\r\n", r->s[r->pos]) && r->s[r->pos])
		r->pos++;
}

static int put(struct jr *r, size_t *n, char c)
{
	if (*n + 2 > r->bcap) {
		size_t nc = r->bcap ? 2 * r->bcap : 256;
		char *nb = realloc(r->buf, nc);

		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->bcap = nc;
	}
	r->buf[(*n)++] = c;
	return 0;
}

static int put_utf8(struct jr *r, size_t *n, uint32_t cp)
{
	int ret = 0;

	if (cp < 0x80)
		return put(r, n, (char)cp);
	if (cp < 0x800) {
		ret |= put(r, n, (char)(0xc0 | cp >> 6));
	} else if (cp < 0x10000) {
		ret |= put(r, n, (char)(0xe0 | cp >> 12));
		ret |= put(r, n, (char)(0x80 | ((cp >> 6) & 0x3f)));
	} else {
		ret |= put(r, n, (char)(0xf0 | cp >> 18));
		ret |= put(r, n, (char)(0x80 | ((cp >> 12) & 0x3f)));
		ret |= put(r, n, (char)(0x80 | ((cp >> 6) & 0x3f)));
	}
	ret |= put(r, n, (char)(0x80 | (cp & 0x3f)));
	return ret ? -ENOMEM : 0;
}

static int hex4(struct jr *r, uint32_t *v)
{
	*v = 0;
	if (r->len - r->pos < 4)
		return bad(r, "a \\u escape cut short");
	for (int i = 0; i < 4; i++) {
		char c = r->s[r->pos++];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return bad(r, "a \\u escape that is not hex");
		*v = *v << 4 | (uint32_t)d;
	}
	return 0;
}

/* A string at r->pos (on its quote) into r->buf, NUL-terminated. */
static int string(struct jr *r)
{
	size_t n = 0;
	int ret;

	r->pos++;
	for (;;) {
		unsigned char c;

		if (r->pos >= r->len)
			return bad(r, "a string without its closing quote");
		c = (unsigned char)r->s[r->pos++];
		if (c == '"')
			break;
		if (c < 0x20)
			return bad(r, "a control byte in a string");
		if (c != '\\') {
			if ((ret = put(r, &n, (char)c)))
				return ret;
			continue;
		}
		if (r->pos >= r->len)
			return bad(r, "an escape cut short");
		c = (unsigned char)r->s[r->pos++];
		switch (c) {
		case '"': case '\\': case '/':
			ret = put(r, &n, (char)c);
			break;
		case 'b': ret = put(r, &n, '\b'); break;
		case 'f': ret = put(r, &n, '\f'); break;
		case 'n': ret = put(r, &n, '\n'); break;
		case 'r': ret = put(r, &n, '\r'); break;
		case 't': ret = put(r, &n, '\t'); break;
		case 'u': {
			uint32_t cp, lo;

			if ((ret = hex4(r, &cp)))
				return ret;
			if (cp >= 0xd800 && cp < 0xdc00 && r->len - r->pos >= 6 &&
			    r->s[r->pos] == '\\' && r->s[r->pos + 1] == 'u') {
				size_t at = r->pos;

				r->pos += 2;
				if ((ret = hex4(r, &lo)))
					return ret;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					r->pos = at;
			}
			if (cp == 0)
				return bad(r, "a NUL in a string");
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			ret = put_utf8(r, &n, cp);
			break;
		}
		default:
			return bad(r, "an unknown escape");
		}
		if (ret)
			return ret;
	}
	if ((ret = put(r, &n, '\0')))
		return ret;
	return 0;
}

/* A number as written (RFC 8259 grammar), copied into r->buf. */
static int number(struct jr *r)
{
	size_t st = r->pos, n = 0;
	int ret;

#define DIGITS() do { if (r->pos >= r->len || r->s[r->pos] < '0' || r->s[r->pos] > '9') \
			return bad(r, "a malformed number"); \
		while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9') r->pos++; \
	} while (0)
	if (r->s[r->pos] == '-')
		r->pos++;
	if (r->pos < r->len && r->s[r->pos] == '0')
		r->pos++;
	else
		DIGITS();
	if (r->pos < r->len && r->s[r->pos] == '.') {
		r->pos++;
		DIGITS();
	}
	if (r->pos < r->len && (r->s[r->pos] == 'e' || r->s[r->pos] == 'E')) {
		r->pos++;
		if (r->pos < r->len && (r->s[r->pos] == '+' || r->s[r->pos] == '-'))
			r->pos++;
		DIGITS();
	}
#undef DIGITS
	for (size_t i = st; i < r->pos; i++)
		if ((ret = put(r, &n, r->s[i])))
			return ret;
	return put(r, &n, '\0');
}

static int emit(struct jr *r, const char *v)
{
	return r->fn(r->ctx, r->path, v);
}

/* Appends ".KEY" or "[I]" to the path; the old length in *old. */
static int push(struct jr *r, const char *key, long idx, size_t *old)
{
	int n;

	*old = r->plen;
	if (key)
		n = snprintf(r->path + r->plen, sizeof(r->path) - r->plen, "%s%s",
			     r->plen ? "." : "", key);
	else
		n = snprintf(r->path + r->plen, sizeof(r->path) - r->plen, "[%ld]", idx);
	if (n < 0 || (size_t)n >= sizeof(r->path) - r->plen) {
		r->path[r->plen] = '\0';
		return bad(r, "a path longer than the limit");
	}
	r->plen += (size_t)n;
	return 0;
}

static void pop(struct jr *r, size_t old)
{
	r->plen = old;
	r->path[old] = '\0';
}

static int value(struct jr *r);

static int object(struct jr *r)
{
	long n = 0;
	int ret;

	r->pos++;
	ws(r);
	if (r->pos < r->len && r->s[r->pos] == '}') {
		r->pos++;
		return emit(r, "{}");
	}
	for (;;) {
		size_t old;
		char *key;

		ws(r);
		if (r->pos >= r->len || r->s[r->pos] != '"')
			return bad(r, "an object key must be a string");
		if ((ret = string(r)))
			return ret;
		/* the key is in r->buf, which the value reuses */
		key = strdup(r->buf);
		if (!key)
			return -ENOMEM;
		ret = push(r, key, 0, &old);
		free(key);
		if (ret)
			return ret;
		ws(r);
		if (r->pos >= r->len || r->s[r->pos] != ':')
			return bad(r, "':' expected after a key");
		r->pos++;
		if ((ret = value(r)))
			return ret;
		pop(r, old);
		n++;
		ws(r);
		if (r->pos < r->len && r->s[r->pos] == ',') {
			r->pos++;
			continue;
		}
		if (r->pos < r->len && r->s[r->pos] == '}') {
			r->pos++;
			return 0;
		}
		return bad(r, "',' or '}' expected in an object");
	}
}

static int array(struct jr *r)
{
	long i = 0;
	int ret;

	r->pos++;
	ws(r);
	if (r->pos < r->len && r->s[r->pos] == ']') {
		r->pos++;
		return emit(r, "[]");
	}
	for (;; i++) {
		size_t old;

		if ((ret = push(r, NULL, i, &old)))
			return ret;
		if ((ret = value(r)))
			return ret;
		pop(r, old);
		ws(r);
		if (r->pos < r->len && r->s[r->pos] == ',') {
			r->pos++;
			continue;
		}
		if (r->pos < r->len && r->s[r->pos] == ']') {
			r->pos++;
			return 0;
		}
		return bad(r, "',' or ']' expected in an array");
	}
}

static int word(struct jr *r, const char *w)
{
	size_t n = strlen(w);

	if (r->len - r->pos < n || memcmp(r->s + r->pos, w, n))
		return bad(r, "an unexpected character");
	r->pos += n;
	return emit(r, w);
}

static int value(struct jr *r)
{
	int ret;
	char c;

	ws(r);
	if (r->pos >= r->len)
		return bad(r, "a value expected");
	c = r->s[r->pos];
	if (c == '{' || c == '[') {
		if (r->depth >= JSONFLAT_MAX_DEPTH)
			return bad(r, "nested too deep");
		r->depth++;
		ret = c == '{' ? object(r) : array(r);
		r->depth--;
		return ret;
	}
	if (c == '"') {
		if ((ret = string(r)))
			return ret;
		return emit(r, r->buf);
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		if ((ret = number(r)))
			return ret;
		return emit(r, r->buf);
	}
	if (c == 't')
		return word(r, "true");
	if (c == 'f')
		return word(r, "false");
	if (c == 'n')
		return word(r, "null");
	return bad(r, "an unexpected character");
}

int jsonflat_walk(const char *text, size_t len, jsonflat_fn fn, void *ctx,
		  char *err, size_t errlen)
{
	struct jr r = { .s = text, .len = len, .fn = fn, .ctx = ctx, .err = err,
			.errlen = errlen };
	int ret = value(&r);

	if (!ret) {
		ws(&r);
		if (r.pos < r.len)
			ret = bad(&r, "text after the JSON value");
	}
	if (ret == -ENOMEM)
		errmsg_set(err, errlen, "out of memory");
	free(r.buf);
	return ret;
}
