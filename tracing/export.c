// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench trace export / import: a recorded trace in the formats of the
 * ecosystem. Each format is one entry of a table (its writer or reader
 * lives in a file of its own); this file parses the command line once
 * and dispatches.
 */
#include <stdio.h>
#include <string.h>

#include "die.h"
#include "trace.h"

struct export_opts {
	int format;
	const char *out;
	int skip;
	int force;
};

static const char *const export_formats[] = { "trace.dat", "socwatch", NULL };
static const char *const import_formats[] = { "socwatch", NULL };

static const struct cli_opt export_options[] = {
	{ .name = "format", .short_name = 'F', .kind = CLI_ENUM,
	  .arg = "trace.dat|socwatch", .names = export_formats,
	  .help = "trace.dat: trace-cmd's file (trace-cmd report,\n"
		  "KernelShark), every recorded event and the\n"
		  "markers; socwatch: SocWatch's CSV layout\n"
		  "(preamble, a C-state section per core, IRQs)",
	  .off = CLI_AT(struct export_opts, format) },
	{ .name = "out", .short_name = 'o', .kind = CLI_STRING, .arg = "FILE",
	  .help = "write here (whole or not at all)",
	  .off = CLI_AT(struct export_opts, out) },
	{ .name = "force", .kind = CLI_FLAG,
	  .help = "replace FILE when it exists",
	  .off = CLI_AT(struct export_opts, force) },
	{ .name = "skip-corrupt", .kind = CLI_FLAG,
	  .help = "leave out a corrupt or truncated page, counted\n"
		  "and warned about (default: an error)",
	  .off = CLI_AT(struct export_opts, skip) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

const struct cli_cmd trace_export_cmd = {
	.prog = TRACE_PROG,
	.usage = "Usage: wakebench trace export DIR --format trace.dat|socwatch --out FILE [options]",
	.about =
"A recorded trace (wakebench trace record, or one made by trace import) in\n"
"another tool's format.\n",
	.col = 24,
	.max_args = 1,
	.opts = export_options,
};

static const struct cli_opt import_options[] = {
	{ .name = "format", .short_name = 'F', .kind = CLI_ENUM,
	  .arg = "socwatch", .names = import_formats,
	  .help = "socwatch: a SocWatch CSV (C-state sections,\n"
		  "the IRQ section when present)",
	  .off = CLI_AT(struct export_opts, format) },
	{ .name = "out", .short_name = 'o', .kind = CLI_STRING, .arg = "DIR",
	  .help = "the wakebench trace directory to make\n"
		  "(created; an existing non-empty one is refused\n"
		  "unless --force)",
	  .off = CLI_AT(struct export_opts, out) },
	{ .name = "force", .kind = CLI_FLAG,
	  .help = "replace the trace files in an existing DIR",
	  .off = CLI_AT(struct export_opts, force) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

const struct cli_cmd trace_import_cmd = {
	.prog = TRACE_PROG,
	.usage = "Usage: wakebench trace import FILE --format socwatch --out DIR [options]",
	.about =
"Another tool's trace as a wakebench trace directory, which trace timeline,\n"
"trace attribute and report accept.\n",
	.col = 24,
	.max_args = 1,
	.opts = import_options,
};

static int parse(const struct cli_cmd *cmd, int argc, char **argv,
		 struct export_opts *o, const char *what)
{
	int first;

	o->format = -1;
	first = cli_parse(cmd, argc, argv, o);
	if (first + 1 != argc)
		opt_usage(TRACE_PROG, "%s needs one %s", argv[0] + strlen(TRACE_PROG) + 1,
			  what);
	if (o->format < 0)
		opt_usage(TRACE_PROG, "%s needs --format", argv[0] + strlen(TRACE_PROG) + 1);
	if (!o->out || !*o->out)
		opt_usage(TRACE_PROG, "%s needs --out", argv[0] + strlen(TRACE_PROG) + 1);
	return first;
}

int trace_export(int argc, char **argv)
{
	struct export_opts o = { 0 };
	int first = parse(&trace_export_cmd, argc, argv, &o, "trace DIR");
	struct trace_xfer x = { .trace_dir = argv[first], .file = o.out,
				.force = o.force, .skip_corrupt = o.skip };

	switch (o.format) {
	case 0:
		return trace_export_tracedat(&x);
	default:
		return trace_export_socwatch(&x);
	}
}

int trace_import(int argc, char **argv)
{
	struct export_opts o = { 0 };
	int first = parse(&trace_import_cmd, argc, argv, &o, "FILE");
	struct trace_xfer x = { .trace_dir = o.out, .file = argv[first],
				.force = o.force };

	/* socwatch, the one import format */
	return trace_import_socwatch(&x);
}
