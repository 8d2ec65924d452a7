// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "csvread.h"

int csvr_split(char *line, char **fields, int max)
{
	size_t len = strlen(line);
	char *r = line, *w = line;
	int n = 0;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	for (;;) {
		if (n == max)
			return -E2BIG;
		fields[n++] = w;
		if (*r == '"') {
			r++;
			for (;;) {
				if (!*r)
					return -EINVAL;	/* unterminated */
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
			if (*r && *r != ',')
				return -EINVAL;	/* text after the closing quote */
		} else {
			while (*r && *r != ',') {
				if (*r == '"')
					return -EINVAL;
				*w++ = *r++;
			}
		}
		if (!*r) {
			*w = '\0';
			return n;
		}
		*w++ = '\0';	/* the comma */
		r++;
	}
}

int csvr_col(char *const *fields, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(fields[i], name))
			return i;
	return -1;
}

int csvr_u64(const char *s, uint64_t max, uint64_t *out, char *err,
	     size_t errlen)
{
	uint64_t v = 0;
	const char *p = s;

	if (!*s) {
		snprintf(err, errlen, "empty (a number is needed)");
		return -EINVAL;
	}
	for (; *p; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (d > 9) {
			snprintf(err, errlen, "'%.40s' is not an unsigned integer", s);
			return -EINVAL;
		}
		if (v > (UINT64_MAX - d) / 10 || v * 10 + d > max) {
			snprintf(err, errlen, "'%.40s' is out of range (0 to %llu)", s,
				 (unsigned long long)max);
			return -ERANGE;
		}
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}
