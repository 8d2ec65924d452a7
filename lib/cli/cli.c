// SPDX-License-Identifier: GPL-2.0
/*
 * cli: option tables that drive parsing, --help and usage errors.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cpu.h"
#include "cpuset.h"
#include "die.h"
#include "opt.h"

/* Widest help line the layout aims for. */
#define CLI_WIDTH 80
/* Short option values above 'z' that getopt_long returns for long-only ones. */
#define CLI_LONG_BASE 256

static int is_option(const struct cli_opt *o)
{
	return o->kind != CLI_TEXT;
}

static int takes_arg(const struct cli_opt *o)
{
	return o->kind != CLI_FLAG && o->kind != CLI_HELP;
}

static void *at(void *base, size_t off)
{
	return (char *)base + off - 1;
}

/*
 * A range end as the help and messages write it: whole numbers plainly,
 * powers of ten from a million up as 1eN, others as %g.
 */
static void fmt_num(char *buf, size_t len, double v)
{
	if (v == floor(v) && fabs(v) < 1e15) {
		double e = log10(v);

		if (v >= 1e6 && e == floor(e))
			snprintf(buf, len, "1e%d", (int)e);
		else
			snprintf(buf, len, "%.0f", v);
		return;
	}
	snprintf(buf, len, "%g", v);
}

/* "a, b or c" from an enum's names. */
static void fmt_names(char *buf, size_t len, const char *const *names)
{
	size_t n = 0, used = 0;

	while (names[n])
		n++;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
		int w = snprintf(buf + used, len - used, "%s%s", sep, names[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static void fmt_hint(const struct cli_opt *o, char *buf, size_t len)
{
	char lo[32], hi[32], names[256];

	buf[0] = '\0';
	if (o->kind == CLI_CPU) {
		snprintf(buf, len, " (this machine has CPUs 0-%d)",
			 cpu_count() - 1);
	} else if (o->kind == CLI_CPUS) {
		snprintf(buf, len, " (CPUs 0-%d)", cpu_count() - 1);
	} else if (o->kind == CLI_ENUM && !o->hint) {
		fmt_names(names, sizeof(names), o->names);
		snprintf(buf, len, " (%s)", names);
	} else if (o->hint == CLI_RANGE) {
		fmt_num(lo, sizeof(lo), o->min);
		fmt_num(hi, sizeof(hi), o->max);
		snprintf(buf, len, " (%s-%s)", lo, hi);
	} else if (o->hint) {
		snprintf(buf, len, " (%s)", o->hint);
	}
}

static void store_num(const struct cli_opt *o, void *dest, double v)
{
	switch (o->store) {
	case CLI_U64:
		*(uint64_t *)dest = (uint64_t)llround(v);
		break;
	case CLI_U32:
		*(uint32_t *)dest = (uint32_t)llround(v);
		break;
	case CLI_U16:
		*(uint16_t *)dest = (uint16_t)llround(v);
		break;
	case CLI_INT:
		*(int *)dest = (int)llround(v);
		break;
	case CLI_DOUBLE:
		*(double *)dest = v;
		break;
	}
}

int cli_value(const struct cli_opt *o, const char *arg, void *base,
	      char *err, size_t errlen)
{
	void *dest = o->off ? at(base, o->off) : NULL;
	double scale = o->scale > 0 ? o->scale : 1;
	char hint[320];
	uint64_t u;
	double d;
	int bad = 0;

	switch (o->kind) {
	case CLI_FLAG:
		if (dest)
			*(int *)dest = 1;
		break;
	case CLI_UINT:
		/* The range is exact below 2^53; UINT64_MAX means "any". */
		bad = opt_u64(arg, (uint64_t)o->min,
			      o->max >= 18446744073709551615.0 ? UINT64_MAX :
			      (uint64_t)o->max, &u);
		if (!bad && dest) {
			if (o->store == CLI_U64 && scale == 1)
				*(uint64_t *)dest = u;
			else
				store_num(o, dest, (double)u * scale);
		}
		break;
	case CLI_REAL:
		bad = opt_double(arg, o->min, o->max, &d);
		if (!bad && dest)
			store_num(o, dest, d * scale);
		break;
	case CLI_CPU:
		bad = opt_u64(arg, 0, (uint64_t)cpu_count() - 1, &u);
		if (!bad && dest)
			*(int *)dest = (int)u;
		break;
	case CLI_CPUS: {
		struct cpuset *set = cpuset_possible_new();

		bad = !set || cpuset_parse_list(set, arg) < 0;
		if (bad || !dest) {
			cpuset_free(set);
			break;
		}
		cpuset_free(*(struct cpuset **)dest);
		*(struct cpuset **)dest = set;
		break;
	}
	case CLI_HOSTPORT: {
		struct cli_hostport hp;

		bad = opt_hostport(arg, "127.0.0.1", hp.host, sizeof(hp.host),
				   &hp.port);
		if (!bad && dest)
			*(struct cli_hostport *)dest = hp;
		break;
	}
	case CLI_ENUM:
		bad = 1;
		for (int i = 0; o->names[i]; i++) {
			if (!strcmp(arg, o->names[i])) {
				if (dest)
					*(int *)dest = i;
				bad = 0;
				break;
			}
		}
		break;
	case CLI_STRING:
		if (dest)
			*(const char **)dest = arg;
		break;
	case CLI_CUSTOM:
		bad = o->parse(arg, dest);
		break;
	case CLI_END:
	case CLI_TEXT:
	case CLI_HELP:
		break;
	}
	if (bad) {
		fmt_hint(o, hint, sizeof(hint));
		snprintf(err, errlen, "invalid --%s '%s'%s", o->name, arg, hint);
		return -1;
	}
	if (o->seen)
		*(int *)at(base, o->seen) = 1;
	return 0;
}

const struct cli_opt *cli_find(const struct cli_cmd *cmd, const char *name)
{
	for (const struct cli_opt *o = cmd->opts; o->kind != CLI_END; o++)
		if (is_option(o) && o->name && !strcmp(o->name, name))
			return o;
	return NULL;
}

/* Prints the help lines of text, the first after pad, the rest at col. */
static void put_lines(FILE *f, const char *text, int col)
{
	const char *p = text;

	for (int first = 1; *p || first; first = 0) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);

		if (!first)
			fprintf(f, "%*s", col, "");
		fprintf(f, "%.*s\n", n, p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

static void help_option(FILE *f, const struct cli_opt *o, int col)
{
	char left[256], names[256];
	const char *arg = o->arg;
	int n;

	if (!arg && o->kind == CLI_ENUM) {
		names[0] = '\0';
		for (int i = 0; o->names[i]; i++) {
			strncat(names, i ? "|" : "", sizeof(names) - strlen(names) - 1);
			strncat(names, o->names[i], sizeof(names) - strlen(names) - 1);
		}
		arg = names;
	}
	if (o->short_name)
		n = snprintf(left, sizeof(left), "  -%c, --%s", o->short_name,
			     o->name);
	else
		n = snprintf(left, sizeof(left), "      --%s", o->name);
	if (takes_arg(o) && arg)
		n += snprintf(left + n, sizeof(left) - (size_t)n, " %s", arg);
	if (!o->help) {
		fprintf(f, "%s\n", left);
		return;
	}
	if (n < col)
		fprintf(f, "%-*s", col, left);
	else if (o->tight)
		fprintf(f, "%s ", left);
	else
		fprintf(f, "%s\n%*s", left, col, "");
	put_lines(f, o->help, col);
}

void cli_help(const struct cli_cmd *cmd, FILE *f)
{
	int col = cmd->col;

	fprintf(f, "%s\n", cmd->usage);
	if (cmd->about)
		fprintf(f, "\n%s", cmd->about);
	fprintf(f, "\n");
	for (const struct cli_opt *o = cmd->opts; o->kind != CLI_END; o++) {
		if (o->kind == CLI_TEXT) {
			if (o->help)
				fprintf(f, "%s\n", o->help);
			if (o->col)
				col = o->col;
			continue;
		}
		if (!o->hidden)
			help_option(f, o, col);
	}
	if (cmd->footer)
		fprintf(f, "\n%s", cmd->footer);
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *base)
{
	struct option longopts[128];
	char shorts[128], err[640];
	const struct cli_opt *by_val[128];
	size_t nl = 0, ns = 0;
	int c, idx;

	for (const struct cli_opt *o = cmd->opts; o->kind != CLI_END; o++) {
		if (!is_option(o))
			continue;
		if (nl + 1 >= sizeof(longopts) / sizeof(longopts[0]) ||
		    ns + 3 >= sizeof(shorts))
			opt_die(cmd->prog, "internal: option table too large");
		by_val[nl] = o;
		longopts[nl] = (struct option){
			.name = o->name,
			.has_arg = takes_arg(o) ? required_argument : no_argument,
			.flag = NULL,
			.val = o->short_name ? o->short_name :
			       CLI_LONG_BASE + (int)nl,
		};
		nl++;
		if (o->short_name) {
			shorts[ns++] = (char)o->short_name;
			if (takes_arg(o))
				shorts[ns++] = ':';
		}
	}
	longopts[nl] = (struct option){ 0 };
	shorts[ns] = '\0';

	/* Tables may be parsed more than once (tests, subcommands). */
	optind = 0;
	while ((c = getopt_long(argc, argv, shorts, longopts, &idx)) != -1) {
		const struct cli_opt *o = NULL;

		if (c >= CLI_LONG_BASE && c < CLI_LONG_BASE + (int)nl) {
			o = by_val[c - CLI_LONG_BASE];
		} else if (c != '?' && c != ':') {
			for (size_t i = 0; i < nl; i++)
				if (by_val[i]->short_name == c)
					o = by_val[i];
		}
		if (!o)
			opt_bad_option(cmd->prog);
		if (o->kind == CLI_HELP) {
			cli_help(cmd, stdout);
			exit(0);
		}
		if (cli_value(o, optarg, base, err, sizeof(err)))
			opt_usage(cmd->prog, "%s", err);
	}
	if (argc - optind > cmd->max_args)
		opt_usage(cmd->prog, "unexpected argument '%s'",
			  argv[optind + cmd->max_args]);
	return optind;
}
