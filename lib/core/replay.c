// SPDX-License-Identifier: GPL-2.0
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

static int add_gap(struct replay *r, size_t *cap, uint64_t g)
{
	if (r->n == REPLAY_MAX_LINES)
		return -E2BIG;
	if (r->n == *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		uint64_t *n = realloc(r->gap_ns, c * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->gap_ns = n;
		*cap = c;
	}
	r->gap_ns[r->n++] = g;
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

/* One line (rfile_lines): 0 (added or skipped), or -errno, why says. */
static int replay_line(void *arg, char *line, char *why, size_t whylen)
{
	struct replay_rd *rd = arg;
	struct replay *r = rd->r;
	char *s = line + strspn(line, " \t"), *end;
	uint64_t v, scaled;
	int ret;

	end = s + strcspn(s, " \t\r,");
	if (!*s || *s == '#' || *s == '\r')
		return 0;
	if (end[strspn(end, " \t\r")]) {
		snprintf(why, whylen, "one number a line (op and key columns are not read)");
		return -EINVAL;
	}
	*end = '\0';
	if (replay_parse_us(s, &v)) {
		snprintf(why, whylen, "'%.24s': microseconds such as 12 or 12.5 (at most %g)",
			 s, REPLAY_MAX_US);
		return -EINVAL;
	}
	if (rd->offsets && v < rd->last) {
		snprintf(why, whylen, "offset %s us is before the one above", s);
		return -EINVAL;
	}
	scaled = (uint64_t)llround((double)v * rd->scale);
	if (rd->offsets) {
		ret = add_gap(r, &rd->cap, scaled - rd->last_scaled);
		rd->last = v;
		rd->last_scaled = scaled;
	} else {
		ret = add_gap(r, &rd->cap, scaled);
	}
	if (ret)
		snprintf(why, whylen, "%s", ret == -E2BIG ?
			 "more than 1e9 requests" : strerror(-ret));
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
	r->gap_ns = NULL;
	r->n = 0;
}
