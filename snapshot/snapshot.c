// SPDX-License-Identifier: GPL-2.0
/* wakebench snapshot: this host's configuration, as text or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clishared.h"
#include "cmdline.h"
#include "die.h"
#include "snapshot.h"

#define PROG "wakebench-snapshot"

struct snapshot_opts {
	int json;
	const char *out;
	const char *role;
	const char *software;
};

#define AT(field) CLI_AT(struct snapshot_opts, field)

static const struct cli_opt snapshot_options[] = {
	{ .name = "json", .short_name = 'j', .kind = CLI_FLAG,
	  .help = "JSON instead of text, on standard output",
	  .off = AT(json) },
	{ .name = "out", .short_name = 'o', .kind = CLI_STRING, .arg = "FILE",
	  .help = "write the JSON to FILE (implies --json)", .off = AT(out) },
	{ .name = "role", .short_name = 'r', .kind = CLI_STRING, .arg = "NAME",
	  .help = "recorded as \"role\" (default host)", .off = AT(role) },
	{ .name = "software", .short_name = 's', .kind = CLI_STRING,
	  .arg = "TEXT",
	  .help = "recorded as \"server_software\": the server\n"
		  "that ran when not wakebench's (\"memcached 1.6.18\")",
	  .off = AT(software) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

static const struct cli_cmd snapshot_cmd = {
	.prog = PROG,
	.usage = "Usage: wakebench snapshot [--json] [--out FILE] [--role NAME] [--software TEXT]",
	.about =
"Kernel and command line, CPU model, online CPUs, SMT control,\n"
"cpuidle driver/governor and per-CPU states with their disabled\n"
"flags, cpufreq driver/governor/limits, turbo/boost, PM QoS in\n"
"force, NIC IRQ affinity, wakebench version and command line.\n"
"Text by default; --json (or --out FILE) writes JSON.\n",
	.col = 20,
	.opts = snapshot_options,
};

int main(int argc, char **argv)
{
	struct snapshot_opts o = { .role = "host" };
	char *cmdline;
	int ret;

	cli_parse(&snapshot_cmd, argc, argv, &o);
	if (o.out)
		o.json = 1;
	cmdline = opt_cmdline(argc, argv);
	if (!o.json) {
		snapshot_print(stdout, o.role, cmdline, o.software);
		free(cmdline);
		return 0;
	}
	ret = snapshot_write_json_software(o.out ? o.out : "-", o.role, cmdline,
					   o.software);
	free(cmdline);
	if (ret)
		opt_die(PROG, "cannot write %s: %s", o.out ? o.out : "stdout",
			strerror(-ret));
	return 0;
}
