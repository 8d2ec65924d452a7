// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench trace capture: what the thesis recorded around every run,
 * without tracing. Around a command: the cpuidle residency and entry
 * counts per state (sysfs deltas), the /proc/interrupts delta per IRQ,
 * turbostat's table when turbostat can run, and the perf cstate_core
 * and cstate_pkg residency counters when those PMUs exist (with msr/tsc,
 * so each count becomes a share of the CPU's TSC cycles in
 * hw-residency.csv, lib/hwcstate's format), for the CPUs named by role
 * (server=0, midtier=1). A source that is absent leaves its columns
 * empty and says why in notes.txt: never a made-up zero.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline.h"
#include "cpu.h"
#include "csv.h"
#include "die.h"
#include "hwcstate.h"
#include "irqstat.h"
#include "opt.h"
#include "perfpmu.h"
#include "residency.h"
#include "runcmd.h"
#include "sysfs.h"
#include "trace.h"
#include "wfile.h"

#define MAX_ROLES 4
#define MAX_STATES 32

struct role {
	char name[17];
	int cpu;		/* -1: unpinned, all CPUs */
};

struct capture_opts {
	const char *out;
	struct role role[MAX_ROLES];
	int nroles;
	const char *show, *hide;
	const char *interrupts;	/* /proc/interrupts, or a test's file */
};

/* --cpu ROLE=N or ROLE=none */
static int parse_role(const char *arg, void *dest)
{
	struct capture_opts *o = (struct capture_opts *)((char *)dest -
				 offsetof(struct capture_opts, role));
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;
	struct role *r;
	uint64_t c;

	if (!eq || !n || n >= sizeof(r->name) || o->nroles == MAX_ROLES ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_-") != n)
		return 1;
	r = &o->role[o->nroles];
	memcpy(r->name, arg, n);
	r->name[n] = '\0';
	if (!strcmp(eq + 1, "none"))
		r->cpu = -1;
	else if (opt_u64(eq + 1, 0, (uint64_t)cpu_count() - 1, &c))
		return 1;
	else
		r->cpu = (int)c;
	for (int i = 0; i < o->nroles; i++)
		if (!strcmp(o->role[i].name, r->name))
			return 1;
	o->nroles++;
	return 0;
}

/* turbostat --show/--hide: column names and commas only */
static int parse_cols(const char *arg, void *dest)
{
	size_t n = strlen(arg);

	if (!n || n > 200 || !isalnum((unsigned char)arg[0]) ||
	    strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			"0123456789%_,.-") != n)
		return 1;
	*(const char **)dest = arg;
	return 0;
}

#define AT(f) CLI_AT(struct capture_opts, f)

static const struct cli_opt capture_options[] = {
	{ .name = "out", .short_name = 'o', .kind = CLI_STRING, .arg = "DIR",
	  .help = "capture.csv, cpuidle.csv, interrupts.csv, notes.txt\n"
		  "(and turbostat.*, perf-cstate.csv, hw-residency.csv\n"
		  "when they ran)",
	  .off = AT(out) },
	{ .name = "cpu", .short_name = 'c', .kind = CLI_CUSTOM,
	  .arg = "ROLE=N|ROLE=none", .parse = parse_role,
	  .hint = "a role name (a-z 0-9 _ -), '=', a CPU number or none; at most 4, each role once",
	  .help = "a CPU to report, under a role name (server=0);\n"
		  "none: all CPUs together (an unpinned process).\n"
		  "Repeat for each role (default: all=none)",
	  .off = AT(role) },
	{ .name = "turbostat-show", .kind = CLI_CUSTOM, .arg = "COLS",
	  .parse = parse_cols, .hint = "turbostat column names, comma-separated",
	  .help = "passed to turbostat --show", .off = AT(show) },
	{ .name = "turbostat-hide", .kind = CLI_CUSTOM, .arg = "COLS",
	  .parse = parse_cols, .hint = "turbostat column names, comma-separated",
	  .help = "passed to turbostat --hide", .off = AT(hide) },
	{ .name = "interrupts", .kind = CLI_STRING, .arg = "FILE",
	  .hidden = 1, .off = AT(interrupts) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

const struct cli_cmd trace_capture_cmd = {
	.prog = TRACE_PROG,
	.usage = "Usage: wakebench trace capture --out DIR [--cpu ROLE=N]... -- COMMAND...",
	.about =
"Runs COMMAND and records, for each role's CPU, what the thesis captured\n"
"per run: cpuidle residency and entries per state (sysfs deltas; state\n"
"names as the kernel gives them, other characters as '_'), the\n"
"/proc/interrupts delta per IRQ, turbostat's table (when it can run), and\n"
"the perf cstate_core and cstate_pkg residency counters with msr/tsc (when\n"
"the PMUs exist; hw-residency.csv: each state's share of the TSC). An\n"
"absent source leaves its columns empty and says why in notes.txt. Exits\n"
"with COMMAND's status; SIGINT/SIGTERM are passed on to it and the capture\n"
"still written.\n",
	.col = 22,
	.max_args = 1000000,
	.opts = capture_options,
};

/* A helper measuring until its stdin closes: turbostat or perf around cat. */
struct around {
	pid_t pid;
	int fd;		/* the write end of cat's stdin */
};

static int around_start(struct around *a, char *const argv[], const char *err)
{
	int p[2];

	a->pid = -1;
	a->fd = -1;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	a->pid = fork();
	if (a->pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (!a->pid) {
		int fd = wfile_create(err, 0644);
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigaddset(&set, SIGHUP);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, &set, NULL);

		dup2(p[0], 0);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* Ctrl-C goes to the command; this one ends when cat does */
		signal(SIGINT, SIG_IGN);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[0]);
	a->fd = p[1];
	return 0;
}

/* Ends the helper; its exit status, 127 when it could not start. */
static int around_end(struct around *a)
{
	int status;

	if (a->pid <= 0)
		return -1;
	close(a->fd);
	while (waitpid(a->pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* DIR/A and DIR/B into the 4200-byte buffers PA and PB */
static void out_paths(const char *dir, const char *a, char *pa, const char *b,
		      char *pb)
{
	snprintf(pa, 4200, "%s/%s", dir, a);
	snprintf(pb, 4200, "%s/%s", dir, b);
}

/* The first line of FILE (a helper's messages), for a note. */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	for (char *p = buf; *p; p++)
		if (!isprint((unsigned char)*p))
			*p = '?';
}

/* "0,1" for the roles' CPUs; "" when one is unpinned (all CPUs). */
static void cpu_list(const struct capture_opts *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < o->nroles; i++) {
		if (o->role[i].cpu < 0) {
			buf[0] = '\0';
			return;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "",
				      o->role[i].cpu);
		if (n >= len)
			n = len - 1;
	}
}

/*
 * Appends PMU's residency events to the -e list in buf (n: its length):
 * 0, -ENODEV when the PMU is absent, -ENODATA when it lists none.
 */
static int perf_events(const char *pmu, char *buf, size_t len, size_t *n)
{
	char names[16][PERFPMU_NAME_LEN];
	int k = perfpmu_list(pmu, "", "-residency", names, 16);

	if (k <= 0)
		return k < 0 ? -ENODEV : -ENODATA;
	for (int i = 0; i < k; i++) {
		size_t need = strlen(pmu) + strlen(names[i]) + 4;

		if (*n + need >= len)
			break;
		*n += (size_t)snprintf(buf + *n, len - *n, "%s%s/%s/", *n ? "," : "", pmu,
				       names[i]);
	}
	return 0;
}

/*
 * perf stat's counts (perf-cstate.csv) as hw-residency.csv, with a note
 * for what it could not say.
 */
static void perf_residency(const char *dir, FILE *notes)
{
	char in[4200], out[4200], err[8800];
	struct hwcstate_row *rows;
	int n, skipped, unknown = 0, ret;

	out_paths(dir, "perf-cstate.csv", in, "hw-residency.csv", out);
	n = hwcstate_parse_perf_stat(in, &rows, &skipped, err, sizeof(err));
	if (n < 0) {
		fprintf(notes, "perf cstate: cannot read its counts: %s\n", err);
		return;
	}
	ret = hwcstate_write_csv(out, rows, n);
	if (ret)
		fprintf(notes, "perf cstate: cannot write %s: %s\n", out, strerror(-ret));
	for (int i = 0; i < n; i++)
		unknown += isnan(rows[i].percent);
	if (skipped)
		fprintf(notes, "perf cstate: %d count%s perf could not take (<not counted>, <not supported>): no row in hw-residency.csv\n",
			skipped, skipped == 1 ? "" : "s");
	if (unknown)
		fprintf(notes, "perf cstate: no msr/tsc/ count of the same CPU for %d count%s: %s percent left empty\n",
			unknown, unknown == 1 ? "" : "s", unknown == 1 ? "its" : "their");
	free(rows);
}

struct irq_ctx {
	struct csv *c;
	const struct role *r;
};

static void irq_row(void *arg, const struct irqstat_row *row, uint64_t delta)
{
	struct irq_ctx *x = arg;

	csv_str(x->c, x->r->name);
	if (x->r->cpu >= 0)
		csv_u64(x->c, (uint64_t)x->r->cpu);
	else
		csv_str(x->c, "all");
	csv_str(x->c, row->label);
	csv_str(x->c, row->desc);
	csv_u64(x->c, delta);
	csv_end_row(x->c);
}

/* The states seen on the roles' CPUs, in first-seen order. */
struct states {
	char name[MAX_STATES][IDLESTATE_NAME_LEN];
	int n;
};

static int state_idx(struct states *st, const char *name, int add)
{
	for (int i = 0; i < st->n; i++)
		if (!strcmp(st->name[i], name))
			return i;
	if (!add || st->n == MAX_STATES)
		return -1;
	snprintf(st->name[st->n], sizeof(st->name[0]), "%s", name);
	return st->n++;
}

static int role_has(const struct role *r, int cpu)
{
	return r->cpu < 0 || r->cpu == cpu;
}

int trace_capture(int argc, char **argv)
{
	struct capture_opts o = { .interrupts = "/proc/interrupts" };
	char **cmd = NULL, path[4096], notes_path[4096], list[256], events[2048];
	char note[512];
	size_t nev = 0;
	struct irqstat ia, ib;
	int have_irq_a, have_irq_b, first, rc, sig = 0;
	int ts_rc = -1, perf_rc = -1, ret, have_perf = 0;
	struct around ts = { -1, -1 }, perf = { -1, -1 };
	struct res_snap a, b;
	struct res_row *rows = NULL;
	int nrows = 0, have_res, res_a, res_b;
	struct states st = { .n = 0 };
	FILE *notes;
	struct csv *c;
	sigset_t stop;

	/*
	 * The stop signals wait, blocked, from here until the files are
	 * written: one that comes while the helpers start goes to the
	 * command (runcmd passes a pending one on), and none cuts the
	 * capture short after the command ended.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	argc = opt_split_command(TRACE_PROG, argc, argv, &cmd);
	first = cli_parse(&trace_capture_cmd, argc, argv, &o);
	if (first < argc)
		opt_usage(TRACE_PROG, "unexpected argument '%s' (a command goes after --)",
			  argv[first]);
	if (!o.out)
		opt_usage(TRACE_PROG, "capture needs --out DIR");
	if (!cmd)
		opt_usage(TRACE_PROG, "capture needs -- COMMAND");
	if (!o.nroles) {
		snprintf(o.role[0].name, sizeof(o.role[0].name), "all");
		o.role[0].cpu = -1;
		o.nroles = 1;
	}
	if (mkdir(o.out, 0755) && errno != EEXIST)
		opt_die(TRACE_PROG, "cannot create %s: %s", o.out, strerror(errno));
	snprintf(notes_path, sizeof(notes_path), "%s/notes.txt", o.out);
	notes = wfile_open(notes_path);	/* its close says a full disk's cause */
	if (!notes)
		opt_die(TRACE_PROG, "cannot write %s: %s", notes_path, strerror(errno));

	/* turbostat and perf first: they measure until the command ends */
	cpu_list(&o, list, sizeof(list));
	{
		char tsout[4200], tserr[4200];
		char *args[16];
		int n = 0;

		out_paths(o.out, "turbostat.txt", tsout, "turbostat.err", tserr);
		args[n++] = "turbostat";
		args[n++] = "--quiet";
		args[n++] = "--out";
		args[n++] = tsout;
		if (list[0]) {
			args[n++] = "--cpu";
			args[n++] = list;
		}
		if (o.show) {
			args[n++] = "--show";
			args[n++] = (char *)o.show;
		}
		if (o.hide) {
			args[n++] = "--hide";
			args[n++] = (char *)o.hide;
		}
		args[n++] = "--";
		args[n++] = "cat";
		args[n] = NULL;
		around_start(&ts, args, tserr);
	}
	/* only this capture's counts: none when perf does not run */
	snprintf(path, sizeof(path), "%s/hw-residency.csv", o.out);
	unlink(path);
	events[0] = '\0';
	for (int p = 0; p < 2; p++) {
		const char *pmu = p ? "cstate_pkg" : "cstate_core";

		ret = perf_events(pmu, events, sizeof(events), &nev);
		if (ret)
			fprintf(notes, "perf %s: %s (%s/bus/event_source/devices/%s)\n", pmu,
				ret == -ENODEV ? "no such PMU on this machine" :
				"the PMU lists no residency events", sysfs_root(), pmu);
		else
			have_perf = 1;
	}
	if (have_perf) {
		/* the TSC beside them: each count's share of the CPU's cycles */
		char tsc[8][PERFPMU_NAME_LEN];
		int k = perfpmu_list("msr", "tsc", "", tsc, 8), found = 0;

		for (int i = 0; i < k; i++)
			found |= !strcmp(tsc[i], "tsc");
		if (found && nev + 10 < sizeof(events))
			snprintf(events + nev, sizeof(events) - nev, ",msr/tsc/");
		else
			fprintf(notes, "perf msr/tsc: no such event here; hw-residency.csv's percents stay empty\n");
	}
	if (have_perf) {
		char pout[4200], perr[4200];
		char *args[16];
		int n = 0;

		out_paths(o.out, "perf-cstate.csv", pout, "perf-cstate.err", perr);
		args[n++] = "perf";
		args[n++] = "stat";
		args[n++] = "-x,";
		args[n++] = "-A";	/* per CPU: each with its own TSC */
		args[n++] = "-o";
		args[n++] = pout;
		args[n++] = "-e";
		args[n++] = events;
		if (list[0]) {
			args[n++] = "-C";
			args[n++] = list;
		} else {
			args[n++] = "-a";
		}
		args[n++] = "--";
		args[n++] = "cat";
		args[n] = NULL;
		around_start(&perf, args, perr);
	}

	have_irq_a = !irqstat_read(o.interrupts, &ia);
	res_a = !residency_snap(&a);
	rc = runcmd_run(cmd, &sig);
	res_b = !residency_snap(&b);
	have_res = res_a && res_b;
	have_irq_b = !irqstat_read(o.interrupts, &ib);

	ts_rc = around_end(&ts);
	perf_rc = around_end(&perf);

	/* turbostat: its table as CSV, or why not */
	snprintf(path, sizeof(path), "%s/turbostat.err", o.out);
	first_line(path, note, sizeof(note));
	if (ts_rc == 127 && !note[0])
		snprintf(note, sizeof(note), "not installed (Debian: linux-cpupower)");
	if (ts_rc != 0) {
		fprintf(notes, "turbostat: cannot run here (exit %d: %s)\n", ts_rc,
			note[0] ? note : "no message");
		snprintf(path, sizeof(path), "%s/turbostat.txt", o.out);
		unlink(path);
		ts_rc = -1;
	} else {
		char txt[4200], err[8600];
		size_t nrows_ts;
		int ncols_ts, ret_ts;

		out_paths(o.out, "turbostat.txt", txt, "turbostat.csv", path);
		/* a table of at most 4 MiB (turbostat around one run) */
		ret_ts = trace_turbostat_csv(txt, path, 4 << 20, &nrows_ts, &ncols_ts,
					     err, sizeof(err));
		if (ret_ts) {
			fprintf(notes, "turbostat: ran, but %s\n", err);
			ts_rc = -1;
		}
	}
	if (have_perf && perf_rc != 0) {
		snprintf(path, sizeof(path), "%s/perf-cstate.err", o.out);
		first_line(path, note, sizeof(note));
		fprintf(notes, "perf cstate: perf stat failed (exit %d: %s)\n",
			perf_rc, note[0] ? note : "no message");
	} else if (have_perf) {
		perf_residency(o.out, notes);
	}

	/* residency per state, and the states seen on the roles' CPUs */
	if (have_res) {
		int max = (a.ncpus > b.ncpus ? a.ncpus : b.ncpus) * (RES_MAX_STATES + 2);

		rows = calloc((size_t)max, sizeof(*rows));
		nrows = rows ? residency_diff(&a, &b, rows, max) : 0;
		for (int i = 0; i < nrows; i++)
			for (int r = 0; r < o.nroles; r++)
				if (role_has(&o.role[r], rows[i].cpu))
					state_idx(&st, rows[i].state, 1);
		if (nrows && strcmp(rows[0].source, "cpuidle"))
			fprintf(notes, "cpuidle: this kernel has no cpuidle states; residency is /proc/stat idle time (one USER_HZ tick resolution), entries unknown\n");
	} else {
		fprintf(notes, "cpuidle: cannot read the idle counters\n");
	}
	if (!have_irq_a || !have_irq_b)
		fprintf(notes, "interrupts: cannot read %s\n", o.interrupts);

	snprintf(path, sizeof(path), "%s/cpuidle.csv", o.out);
	c = csv_open(path);
	if (!c)
		opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
	csv_header(c, "role,cpu,state,percent,usage,time_us,source");
	for (int r = 0; r < o.nroles; r++)
		for (int i = 0; i < nrows; i++) {
			if (!role_has(&o.role[r], rows[i].cpu))
				continue;
			csv_str(c, o.role[r].name);
			csv_u64(c, (uint64_t)rows[i].cpu);
			csv_str(c, rows[i].state);
			csv_double(c, rows[i].percent, 4);
			csv_u64(c, rows[i].usage);
			csv_u64(c, rows[i].time_us);
			csv_str(c, rows[i].source);
			csv_end_row(c);
		}
	if (trace_csv_close(c, path))
		exit(1);

	snprintf(path, sizeof(path), "%s/interrupts.csv", o.out);
	c = csv_open(path);
	if (!c)
		opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
	csv_header(c, "role,cpu,irq,desc,delta");
	for (int r = 0; r < o.nroles && have_irq_a && have_irq_b; r++) {
		struct irq_ctx x = { c, &o.role[r] };

		irqstat_delta(&ia, &ib, o.role[r].cpu, irq_row, &x);
	}
	if (trace_csv_close(c, path))
		exit(1);

	/* capture.csv: one row per role, the columns a sweep takes */
	{
		char hdr[8192], col[IDLESTATE_NAME_LEN];
		size_t n;

		n = (size_t)snprintf(hdr, sizeof(hdr),
				     "role,cpu,window_s,source,irq_delta,turbostat,perf_cstate");
		for (int s = 0; s < st.n; s++) {
			residency_colname(st.name[s], col, sizeof(col));
			n += (size_t)snprintf(hdr + n, sizeof(hdr) - n, ",res_%s_pct", col);
			if (strcmp(st.name[s], "C0"))
				n += (size_t)snprintf(hdr + n, sizeof(hdr) - n,
						      ",entries_%s", col);
			if (n >= sizeof(hdr))
				opt_die(TRACE_PROG, "too many idle states");
		}
		snprintf(path, sizeof(path), "%s/capture.csv", o.out);
		c = csv_open(path);
		if (!c)
			opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
		csv_header(c, hdr);
		for (int r = 0; r < o.nroles; r++) {
			const struct role *ro = &o.role[r];
			double pct[MAX_STATES] = { 0 };
			uint64_t ent[MAX_STATES] = { 0 };
			int cpus = 0, proc = 0, last = -1;

			for (int i = 0; i < nrows; i++) {
				int s = state_idx(&st, rows[i].state, 0);

				if (!role_has(ro, rows[i].cpu))
					continue;
				/* the CPUs that reported (rows come per CPU) */
				if (rows[i].cpu != last)
					cpus++;
				last = rows[i].cpu;
				/* any /proc/stat CPU: entries are unknown */
				proc |= strcmp(rows[i].source, "cpuidle") != 0;
				if (s < 0)
					continue;
				pct[s] += rows[i].percent;
				ent[s] += rows[i].usage;
			}
			csv_str(c, ro->name);
			if (ro->cpu >= 0)
				csv_u64(c, (uint64_t)ro->cpu);
			else
				csv_str(c, "all");
			if (have_res)
				csv_double(c, (b.at_ns - a.at_ns) / 1e9, 6);
			else
				csv_empty(c);
			csv_str(c, !have_res ? "" : proc ? "proc-stat" : "cpuidle");
			if (have_irq_a && have_irq_b &&
			    (ro->cpu < 0 || (irqstat_has_cpu(&ia, ro->cpu) &&
					     irqstat_has_cpu(&ib, ro->cpu))))
				csv_u64(c, irqstat_delta(&ia, &ib, ro->cpu, NULL, NULL));
			else
				csv_empty(c);
			csv_str(c, ts_rc == 0 ? "turbostat.csv" : "");
			csv_str(c, have_perf && perf_rc == 0 ? "perf-cstate.csv" : "");
			for (int s = 0; s < st.n; s++) {
				if (have_res && nrows)
					csv_double(c, pct[s] / (cpus ? cpus : 1), 4);
				else
					csv_empty(c);
				if (!strcmp(st.name[s], "C0"))
					continue;
				if (have_res && nrows && !proc)
					csv_u64(c, ent[s]);
				else
					csv_empty(c);
			}
			csv_end_row(c);
		}
		if (trace_csv_close(c, path))
			exit(1);
	}
	ret = wfile_close(notes);
	if (ret) {
		fprintf(stderr, "%s: cannot write %s: %s\n", TRACE_PROG, notes_path,
			strerror(-ret));
		rc = rc ? rc : 1;
	}
	if (res_a)
		residency_free(&a);
	if (res_b)
		residency_free(&b);
	if (have_irq_a)
		irqstat_free(&ia);
	if (have_irq_b)
		irqstat_free(&ib);
	free(rows);
	return rc;
}
