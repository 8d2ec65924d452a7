// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "replay.h"
#include "rfile.h"

int replay_parse_us(const char *s, uint64_t *ns)
{
	uint64_t us = 0, frac = 0;
	int digits = 0, fd = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		us = us * 10 + (uint64_t)(*s - '0');
		if (us > (uint64_t)REPLAY_MAX_US)
			return -1;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++, fd++) {
			if (fd < 3)
				frac = frac * 10 + (uint64_t)(*s - '0');
			else if (fd == 3 && *s >= '5')
				frac++;	/* to the nearest ns */
		}
	}
	if (!digits || *s)
		return -1;
	for (; fd < 3; fd++)
		frac *= 10;
	*ns = us * 1000 + frac;
	return *ns > (uint64_t)(REPLAY_MAX_US * 1e3) ? -1 : 0;
}

/* Room for one more request (its op and key too when keyed). */
static int grow(struct replay *r, size_t *cap)
{
	size_t c = *cap ? *cap * 2 : 4096;
	uint64_t *g, *k;
	uint8_t *o;

	if (r->n == REPLAY_MAX_LINES)
		return -E2BIG;
	if (r->n < *cap)
		return 0;
	g = realloc(r->gap_ns, c * sizeof(*g));
	if (!g)
		return -ENOMEM;
	r->gap_ns = g;
	if (r->keyed) {
		k = realloc(r->key, c * sizeof(*k));
		if (!k)
			return -ENOMEM;
		r->key = k;
		o = realloc(r->op, c * sizeof(*o));
		if (!o)
			return -ENOMEM;
		r->op = o;
	}
	*cap = c;
	return 0;
}

/* Reading state: the trace, the last offset, scaled and not. */
struct replay_rd {
	struct replay *r;
	int offsets;
	double scale;
	uint64_t last, last_scaled;
	size_t cap;
};

/* "get 17" or "set 17" into r's next op and key: 0 or -EINVAL. */
static int parse_op_key(struct replay *r, char **w, char *why, size_t whylen)
{
	char *end;

	if (strcmp(w[1], "get") && strcmp(w[1], "set")) {
		snprintf(why, whylen, "'%.16s': the op is get or set", w[1]);
		return -EINVAL;
	}
	errno = 0;
	r->key[r->n] = strtoull(w[2], &end, 10);
	if (!isdigit((unsigned char)*w[2]) || *end || errno) {
		snprintf(why, whylen, "'%.24s': the key is a key number (0, 1, ...)",
			 w[2]);
		return -EINVAL;
	}
	r->op[r->n] = w[1][0] == 'g' ? REPLAY_OP_GET : REPLAY_OP_SET;
	if (r->key[r->n] > r->max_key)
		r->max_key = r->key[r->n];
	return 0;
}

/* The line's words (up to 4), split at blanks and commas: how many. */
static int words(char *line, char **w)
{
	char *save = NULL;
	int n = 0;

	for (char *t = strtok_r(line, " \t\r,", &save); t && n < 4;
	     t = strtok_r(NULL, " \t\r,", &save))
		w[n++] = t;
	return n;
}

/* The gap of a line's number: offsets scaled, then their difference. */
static int take_gap(struct replay_rd *rd, const char *w, char *why,
		    size_t whylen)
{
	struct replay *r = rd->r;
	uint64_t v, scaled;

	if (replay_parse_us(w, &v)) {
		snprintf(why, whylen, "'%.24s': microseconds such as 12 or 12.5 (at most %g)",
			 w, REPLAY_MAX_US);
		return -EINVAL;
	}
	if (rd->offsets && v < rd->last) {
		snprintf(why, whylen, "offset %s us is before the one above", w);
		return -EINVAL;
	}
	scaled = (uint64_t)llround((double)v * rd->scale);
	r->gap_ns[r->n] = rd->offsets ? scaled - rd->last_scaled : scaled;
	rd->last = v;
	rd->last_scaled = scaled;
	return 0;
}

/* One line (rfile_lines): 0 (added or skipped), or -errno, why says. */
static int replay_line(void *arg, char *line, char *why, size_t whylen)
{
	struct replay_rd *rd = arg;
	struct replay *r = rd->r;
	char *w[4];
	int n, ret;

	line += strspn(line, " \t\r");
	if (!*line || *line == '#')
		return 0;
	n = words(line, w);
	if (!r->n)
		r->keyed = n == 3;	/* the first line says */
	if (n != (r->keyed ? 3 : 1)) {
		snprintf(why, whylen, "%s", r->keyed ?
			 "expected 'GAP OP KEY', as on the first line" :
			 "expected one number, as on the first line (or 'GAP OP KEY' on every line)");
		return -EINVAL;
	}
	ret = grow(r, &rd->cap);
	if (!ret)
		ret = take_gap(rd, w[0], why, whylen);
	if (!ret && r->keyed)
		ret = parse_op_key(r, w, why, whylen);
	if (ret == -E2BIG || ret == -ENOMEM)
		snprintf(why, whylen, "%s", ret == -E2BIG ?
			 "more than 1e9 requests" : strerror(-ret));
	if (!ret)
		r->n++;
	return ret;
}

int replay_load(const char *path, int offsets, double scale,
		struct replay *r, char *err, size_t errlen)
{
	struct replay_rd rd = { .r = r, .offsets = offsets, .scale = scale };
	int ret;

	memset(r, 0, sizeof(*r));
	if (!(scale > 0 && scale <= 1e6)) {
		snprintf(err, errlen, "scale %g: above 0, at most 1e6", scale);
		return -EINVAL;
	}
	ret = rfile_lines(path, replay_line, &rd, err, errlen);
	if (!ret && !r->n) {
		snprintf(err, errlen, "%s: no gaps (one number of microseconds a line)",
			 path);
		ret = -EINVAL;
	}
	if (ret)
		replay_free(r);
	return ret;
}

void replay_free(struct replay *r)
{
	free(r->gap_ns);
	free(r->op);
	free(r->key);
	memset(r, 0, sizeof(*r));
}
