// SPDX-License-Identifier: GPL-2.0
/* wakebench trace residency / turbostat: residency without tracing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "cpuset.h"
#include "errmsg.h"
#include "csv.h"
#include "cmdline.h"
#include "die.h"
#include "residency.h"
#include "runcmd.h"
#include "trace.h"
#include "turbostat.h"
#include "rfile.h"

struct window {
	double duration;
	char **cmd;
};

/* Runs the window: the command, or a sleep of the duration. */
static int run_window(const struct window *w)
{
	int sig;

	if (w->cmd)
		return runcmd_run(w->cmd, &sig);
	struct timespec ts = { (time_t)w->duration,
			       (long)((w->duration - (time_t)w->duration) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return 0;
}

static int residency_window(const struct window *w, const struct cpuset *mask,
			    const char *out)
{
	struct res_snap a, b;
	struct res_row *rows;
	struct csv *c = NULL;
	int rc, n, max;

	if (residency_snap(&a))
		opt_die(TRACE_PROG, "cannot read the idle counters");
	rc = run_window(w);
	if (residency_snap(&b))
		opt_die(TRACE_PROG, "cannot read the idle counters");
	/* every state and C0 of every CPU: no fixed number of rows */
	max = (a.ncpus > b.ncpus ? a.ncpus : b.ncpus) * (RES_MAX_STATES + 2);
	rows = calloc((size_t)max, sizeof(*rows));
	if (!rows)
		opt_die(TRACE_PROG, "out of memory");
	n = residency_diff(&a, &b, rows, max);
	if (out) {
		c = csv_open(out);
		if (!c)
			opt_die(TRACE_PROG, "cannot write %s: %s", out, strerror(errno));
		csv_header(c, "cpu,state,percent,usage,time_us,source,from_ns,to_ns");
	}
	printf("residency over %.3f s (%s)\n", (b.at_ns - a.at_ns) / 1e9,
	       n && !strcmp(rows[0].source, "cpuidle") ? "cpuidle usage/time via libcpupower" :
	       "/proc/stat idle time: this kernel has no cpuidle states");
	printf("%-4s %-12s %8s %10s %14s\n", "cpu", "state", "percent", "usage", "time_us");
	for (int i = 0; i < n; i++) {
		if (mask && !cpuset_test(mask, rows[i].cpu))
			continue;
		printf("%-4d %-12s %8.3f %10llu %14llu\n", rows[i].cpu, rows[i].state,
		       rows[i].percent, (unsigned long long)rows[i].usage,
		       (unsigned long long)rows[i].time_us);
		if (c) {
			csv_u64(c, (uint64_t)rows[i].cpu);
			csv_str(c, rows[i].state);
			csv_double(c, rows[i].percent, 4);
			csv_u64(c, rows[i].usage);
			csv_u64(c, rows[i].time_us);
			csv_str(c, rows[i].source);
			csv_u64(c, a.at_ns);
			csv_u64(c, b.at_ns);
			csv_end_row(c);
		}
	}
	if (c && trace_csv_close(c, out))
		rc = rc ? rc : 1;
	residency_free(&a);
	residency_free(&b);
	free(rows);
	return rc;
}

struct window_opts {
	double duration;
	const char *out;
	struct cpuset *mask;
};

#define WINDOW_DURATION							\
	{ .name = "duration", .short_name = 'D', .kind = CLI_REAL,	\
	  .store = CLI_DOUBLE, .arg = "S", .min = 0.001, .max = 1e6,	\
	  .hint = "seconds",						\
	  .help = "measure this long (or around -- COMMAND...)",	\
	  .off = CLI_AT(struct window_opts, duration) }

static const struct cli_opt residency_options[] = {
	WINDOW_DURATION,
	{ .name = "out", .short_name = 'o', .kind = CLI_STRING, .arg = "FILE",
	  .help = "also write the table as CSV (cpu,state,percent,usage,\n"
		  "time_us,source,from_ns,to_ns)",
	  .off = CLI_AT(struct window_opts, out) },
	{ .name = "cpus", .short_name = 'c', .kind = CLI_CPUS, .arg = "LIST",
	  .help = "these CPUs only (default: all)",
	  .off = CLI_AT(struct window_opts, mask) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

const struct cli_cmd trace_residency_cmd = {
	.prog = TRACE_PROG,
	.usage = "Usage: wakebench trace residency [options] (--duration S | -- COMMAND...)",
	.about =
"Residency per CPU and idle state over the window, from cpuidle usage/time\n"
"deltas (libcpupower), or /proc/stat idle time where the kernel has no\n"
"cpuidle states. No tracing, no root.\n",
	.col = 22,
	.max_args = 1000000,	/* checked below, with a hint about -- */
	.opts = residency_options,
};

static const struct cli_opt turbostat_options[] = {
	WINDOW_DURATION,
	{ .name = "out", .short_name = 'o', .kind = CLI_STRING, .arg = "DIR",
	  .help = "turbostat.txt and turbostat.csv here (default: .)",
	  .off = CLI_AT(struct window_opts, out) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

const struct cli_cmd trace_turbostat_cmd = {
	.prog = TRACE_PROG,
	.usage = "Usage: wakebench trace turbostat [--out DIR] (--duration S | -- COMMAND...)",
	.about =
"turbostat around the window, its table as CSV; where it cannot run (no\n"
"MSR access, not installed), says why and falls back to residency.\n",
	.col = 22,
	.max_args = 1000000,
	.opts = turbostat_options,
};

static void parse_window_opts(const struct cli_cmd *cmd, int argc,
			      char **argv, struct window *w,
			      struct window_opts *o)
{
	int first;

	argc = opt_split_command(TRACE_PROG, argc, argv, &w->cmd);
	first = cli_parse(cmd, argc, argv, o);
	w->duration = o->duration;
	if (first < argc)
		opt_usage(TRACE_PROG, "unexpected argument '%s' (a command goes after --)",
			  argv[first]);
	if ((w->duration > 0) == (w->cmd != NULL))
		opt_usage(TRACE_PROG, "give --duration S or -- COMMAND (one of them)");
}

int trace_residency(int argc, char **argv)
{
	struct window w = { 0 };
	struct window_opts o = { 0 };
	int rc;

	parse_window_opts(&trace_residency_cmd, argc, argv, &w, &o);
	rc = residency_window(&w, o.mask, o.out);
	cpuset_free(o.mask);
	return rc;
}

/*
 * Runs argv with stdout+stderr to a buffer; returns its exit status (or
 * -1 if it could not start).
 */
static int capture(char *const argv[], char *buf, size_t len)
{
	int p[2], status;
	size_t got = 0;
	pid_t pid;

	buf[0] = '\0';
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execvp(argv[0], argv);
		printf("cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		ssize_t n = read(p[0], buf + got, len - 1 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == len - 1)
			break;
	}
	buf[got] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int trace_turbostat_csv(const char *txt, const char *csv, size_t max,
			size_t *rows, int *cols, char *err, size_t errlen)
{
	FILE *f = rfile_fopen_quiet(txt);
	struct ts_table t;
	char *text;
	long len;
	int ret;

	if (!f) {
		errmsg_set(err, errlen, "turbostat wrote no %s", txt);
		return -ENOENT;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	/* at most MAX bytes of it (0: all) */
	if (len >= 0 && max && (size_t)len > max)
		len = (long)max;
	text = len >= 0 ? calloc(1, (size_t)len + 1) : NULL;
	if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
		fclose(f);
		free(text);
		errmsg_set(err, errlen, "cannot read %s", txt);
		return -EIO;
	}
	fclose(f);
	if (!len || turbostat_parse(text, &t) < 0) {
		free(text);
		errmsg_set(err, errlen, "no turbostat table in %s", txt);
		return -EINVAL;
	}
	ret = turbostat_write_csv(&t, csv);
	if (ret)
		errmsg_set(err, errlen, "cannot write %s", csv);
	*rows = t.nrows;
	*cols = t.ncols;
	turbostat_free(&t);
	free(text);
	return ret;
}

int trace_turbostat(int argc, char **argv)
{
	struct window w = { 0 };
	struct window_opts o = { 0 };
	const char *out;
	char msg[4096], outfile[4096], dur[32];
	char *probe[] = { "turbostat", "--quiet", "--num_iterations", "1",
			  "--interval", "0.1", NULL };
	int rc;

	parse_window_opts(&trace_turbostat_cmd, argc, argv, &w, &o);
	out = o.out;
	if (out && mkdir(out, 0755) && errno != EEXIST)
		opt_die(TRACE_PROG, "cannot create %s: %s", out, strerror(errno));
	rc = capture(probe, msg, sizeof(msg));
	if (rc != 0 || strstr(msg, "Failed") || strstr(msg, "cannot") ||
	    !strchr(msg, '\t')) {
		msg[strcspn(msg, "\n")] = '\0';
		fprintf(stderr, "%s: turbostat cannot run here (%s); falling back to sysfs residency\n",
			TRACE_PROG, msg[0] ? msg : "not installed (Debian: linux-cpupower)");
		if (out)
			snprintf(outfile, sizeof(outfile), "%s/residency.csv", out);
		return residency_window(&w, NULL, out ? outfile : NULL);
	}
	/* turbostat runs the window itself and writes its table to a file. */
	snprintf(outfile, sizeof(outfile), "%s/turbostat.txt", out ? out : ".");
	{
		char *args[64];
		int n = 0;

		args[n++] = "turbostat";
		args[n++] = "--quiet";
		args[n++] = "--out";
		args[n++] = outfile;
		if (w.cmd) {
			for (int i = 0; w.cmd[i] && n < 62; i++)
				args[n++] = w.cmd[i];
		} else {
			snprintf(dur, sizeof(dur), "%g", w.duration);
			args[n++] = "--num_iterations";
			args[n++] = "1";
			args[n++] = "--interval";
			args[n++] = dur;
		}
		args[n] = NULL;
		int sig;

		rc = runcmd_run(args, &sig);
	}
	{
		char csv[4096], err[8300];
		size_t rows;
		int cols;

		snprintf(csv, sizeof(csv), "%s/turbostat.csv", out ? out : ".");
		if (trace_turbostat_csv(outfile, csv, 0, &rows, &cols, err, sizeof(err)))
			opt_die(TRACE_PROG, "%s", err);
		printf("turbostat: %zu rows, %d columns -> %s\n", rows, cols, csv);
	}
	return rc;
}
