// SPDX-License-Identifier: GPL-2.0
/* wakebench snapshot: this host's configuration, as text or JSON. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "snapshot.h"

#define PROG "wakebench-snapshot"

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "role", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *out = NULL, *role = "host";
	char *cmdline;
	int json = 0, c, ret;

	while ((c = getopt_long(argc, argv, "jo:r:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'o':
			out = optarg;
			json = 1;
			break;
		case 'r':
			role = optarg;
			break;
		case 'h':
			printf("Usage: wakebench snapshot [--json] [--out FILE] [--role NAME]\n"
			       "\n"
			       "Kernel and command line, CPU model, online CPUs, SMT control,\n"
			       "cpuidle driver/governor and per-CPU states with their disabled\n"
			       "flags, cpufreq driver/governor/limits, turbo/boost, PM QoS in\n"
			       "force, NIC IRQ affinity, wakebench version and command line.\n"
			       "Text by default; --json (or --out FILE) writes JSON.\n");
			return 0;
		default:
			opt_bad_option(PROG);
		}
	}
	if (optind < argc)
		opt_usage(PROG, "unexpected argument '%s'", argv[optind]);
	cmdline = opt_cmdline(argc, argv);
	if (!json) {
		snapshot_print(stdout, role, cmdline);
		free(cmdline);
		return 0;
	}
	ret = snapshot_write_json(out ? out : "-", role, cmdline);
	free(cmdline);
	if (ret)
		opt_die(PROG, "cannot write %s: %s", out ? out : "stdout",
			strerror(-ret));
	return 0;
}
