// SPDX-License-Identifier: GPL-2.0
/*
 * cliverb: a program of verbs ("PROG VERB [options] ARGS"), each parsed
 * by its own option table, as rtla dispatches "rtla timerlat top".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "die.h"

/* The options of a verb that declares none: --help. */
static const struct cli_opt help_only[] = {
	{ .name = "help", .short_name = 'h', .kind = CLI_HELP,
	  .help = "this help" },
	{ .kind = CLI_END }
};

const struct cli_verb *cli_verb_find(const struct cli_verbs *v, const char *name)
{
	for (const struct cli_verb *e = v->verbs; e->name; e++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

static void verbs_help(const struct cli_verbs *v, FILE *f)
{
	fprintf(f, "Usage: %s VERB [OPTIONS] [ARGS]\n", v->prog);
	if (v->about)
		fprintf(f, "\n%s", v->about);
	fprintf(f, "\nVerbs:\n");
	for (const struct cli_verb *e = v->verbs; e->name; e++)
		fprintf(f, "  %-14s %s\n", e->name, e->help);
	fprintf(f, "\nRun '%s VERB --help' for a verb's options.\n", v->prog);
}

int cli_verb_main(const struct cli_verbs *v, int argc, char **argv)
{
	const struct cli_verb *e;
	char prog[128], usage[512], about[512];
	struct cli_cmd cmd;
	int first;

	if (argc < 2)
		opt_usage(v->prog, "give a verb");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		verbs_help(v, stdout);
		exit(0);
	}
	e = cli_verb_find(v, argv[1]);
	if (!e)
		opt_usage(v->prog, "unknown verb '%s'", argv[1]);
	if (e->raw)
		return e->run(argc - 2, argv + 2, e->base);
	snprintf(prog, sizeof(prog), "%s %s", v->prog, e->name);
	snprintf(usage, sizeof(usage), "Usage: %s%s%s%s", prog,
		 e->opts ? " [OPTIONS]" : "", e->args ? " " : "",
		 e->args ? e->args : "");
	/* the verb's help line goes between usage and options */
	snprintf(about, sizeof(about), "%s\n", e->help);
	cmd = (struct cli_cmd){
		.prog = prog,
		.usage = usage,
		.about = about,
		.col = 24,
		/* more than max: cli_parse names the first one too many */
		.max_args = e->max_args < 0 ? argc : e->max_args,
		.opts = e->opts ? e->opts : help_only,
	};
	/* getopt's own complaints name argv[0]: the verb's full name */
	argv[1] = prog;
	first = cli_parse(&cmd, argc - 1, argv + 1, e->base);
	argv[1] = (char *)e->name;
	if (argc - 1 - first < e->min_args)
		opt_usage(prog, "missing arguments: give %s", e->args);
	return e->run(argc - 1 - first, argv + 1 + first, e->base);
}
