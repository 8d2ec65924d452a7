// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "cmdline.h"
#include "die.h"

int opt_split_command(const char *prog, int argc, char **argv, char ***cmd)
{
	*cmd = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		if (!argv[i + 1])
			opt_usage(prog, "nothing after '--'");
		*cmd = argv + i + 1;
		return i;
	}
	return argc;
}

static int needs_quotes(const char *s)
{
	if (!*s)
		return 1;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-_./:=,@+%", *s))
			return 1;
	return 0;
}

char *opt_cmdline(int argc, char **argv)
{
	size_t len = 1;
	char *out, *p;

	for (int i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	out = p = malloc(len);
	if (!out)
		return NULL;
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];

		if (i)
			*p++ = ' ';
		if (!needs_quotes(s)) {
			p = stpcpy(p, s);
			continue;
		}
		*p++ = '\'';
		for (; *s; s++) {
			if (*s == '\'') {
				p = stpcpy(p, "'\\''");
				continue;
			}
			*p++ = *s;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return out;
}
