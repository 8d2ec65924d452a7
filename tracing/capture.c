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
#include "cpuset.h"
#include "csv.h"
#include "die.h"
#include "govstat.h"
#include "hwcstate.h"
#include "irqstat.h"
#include "opt.h"
#include "perfpmu.h"
#include "proccpu.h"
#include "residency.h"
#include "runcmd.h"
#include "sysfs.h"
#include "trace.h"
#include "wfile.h"

#define MAX_ROLES 4
#define MAX_STATES 32
#define MAX_PIDS 80	/* a midtier, 64 leaves, a pre-query receiver */

struct role {
	char name[17];
	int cpu;		/* -1: unpinned, all CPUs */
};

/* --pid ROLE=PID: a process whose CPU time the window costs */
struct pidrole {
	char name[17];
	int pid;
};

struct capture_opts {
	const char *out;
	struct role role[MAX_ROLES];
	int nroles;
	const char *show, *hide;
	const char *interrupts;	/* /proc/interrupts, or a test's file */
	struct pidrole pid[MAX_PIDS];
	int npids;
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

/* --pid ROLE=PID: a role name as --cpu's, a running process's PID */
static int parse_pid(const char *arg, void *dest)
{
	struct capture_opts *o = (struct capture_opts *)((char *)dest -
				 offsetof(struct capture_opts, pid));
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;
	struct pidrole *r;
	uint64_t v;

	if (!eq || !n || n >= sizeof(r->name) || o->npids == MAX_PIDS ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_-") != n ||
	    opt_u64(eq + 1, 1, 0x7fffffff, &v))
		return 1;
	r = &o->pid[o->npids];
	memcpy(r->name, arg, n);
	r->name[n] = '\0';
	r->pid = (int)v;
	for (int i = 0; i < o->npids; i++)
		if (!strcmp(o->pid[i].name, r->name))
			return 1;
	o->npids++;
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
	{ .name = "pid", .kind = CLI_CUSTOM, .arg = "ROLE=PID",
	  .parse = parse_pid,
	  .hint = "a role name (a-z 0-9 _ -), '=', a process ID; at most 80, each role once",
	  .help = "a process (a server tier) whose CPU time over the\n"
		  "command, utime + stime of it and its children from\n"
		  "/proc/PID/stat, is capture.csv's cpu_us_ROLE.\n"
		  "Repeat for each process",
	  .off = AT(pid) },
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
	.usage = "Usage: wakebench trace capture --out DIR [--cpu ROLE=N]... [--pid ROLE=PID]... -- COMMAND...",
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

/* One capture, from the command line to the files: what its steps share. */
struct capture {
	struct capture_opts o;
	char **cmd;
	int rc, sig;		/* the command's exit status; its stop signal */
	FILE *notes;		/* notes.txt: why a source is absent */
	char notes_path[4096];
	char list[256];		/* the roles' CPUs, "" for all */
	char events[2048];	/* perf's -e list */
	size_t nev;
	struct around ts, perf;	/* turbostat, perf stat */
	int ts_rc, perf_rc, have_perf;
	struct irqstat ia, ib;	/* /proc/interrupts before and after */
	int have_irq_a, have_irq_b;
	struct res_snap a, b;	/* the idle counters before and after */
	int res_a, res_b, have_res;
	struct res_row *rows;	/* their difference */
	int nrows;
	struct states st;
	/* the governor's counters on the roles' CPUs (lib/govstat): each
	 * role's delta, and the union of their states for the columns */
	struct govstat_snap ga, gb;
	struct govstat_delta gd[MAX_ROLES], gu;
	/* the --pid processes' CPU ticks at the command's edges */
	uint64_t ticks_a[MAX_PIDS], ticks_b[MAX_PIDS];
	uint64_t ns_a[MAX_PIDS], ns_b[MAX_PIDS];	/* UINT64_MAX: unknown */
	int nproc_a[MAX_PIDS], nproc_b[MAX_PIDS];
	int pid_ok[MAX_PIDS];
	char pid_err[MAX_PIDS][128];
};

/* The options and the command; the stop signals blocked from here on. */
static void capture_parse(struct capture *s, int argc, char **argv)
{
	sigset_t stop;
	int first;

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
	argc = opt_split_command(TRACE_PROG, argc, argv, &s->cmd);
	first = cli_parse(&trace_capture_cmd, argc, argv, &s->o);
	if (first < argc)
		opt_usage(TRACE_PROG, "unexpected argument '%s' (a command goes after --)",
			  argv[first]);
	if (!s->o.out)
		opt_usage(TRACE_PROG, "capture needs --out DIR");
	if (!s->cmd)
		opt_usage(TRACE_PROG, "capture needs -- COMMAND");
	if (!s->o.nroles) {
		snprintf(s->o.role[0].name, sizeof(s->o.role[0].name), "all");
		s->o.role[0].cpu = -1;
		s->o.nroles = 1;
	}
}

/* DIR and its notes.txt. */
static void capture_open_notes(struct capture *s)
{
	if (mkdir(s->o.out, 0755) && errno != EEXIST)
		opt_die(TRACE_PROG, "cannot create %s: %s", s->o.out, strerror(errno));
	snprintf(s->notes_path, sizeof(s->notes_path), "%s/notes.txt", s->o.out);
	s->notes = wfile_open(s->notes_path);	/* its close says a full disk's cause */
	if (!s->notes)
		opt_die(TRACE_PROG, "cannot write %s: %s", s->notes_path, strerror(errno));
}

/* turbostat around cat, measuring until the command ends. */
static void capture_start_turbostat(struct capture *s)
{
	char tsout[4200], tserr[4200];
	char *args[16];
	int n = 0;

	out_paths(s->o.out, "turbostat.txt", tsout, "turbostat.err", tserr);
	args[n++] = "turbostat";
	args[n++] = "--quiet";
	args[n++] = "--out";
	args[n++] = tsout;
	if (s->list[0]) {
		args[n++] = "--cpu";
		args[n++] = s->list;
	}
	if (s->o.show) {
		args[n++] = "--show";
		args[n++] = (char *)s->o.show;
	}
	if (s->o.hide) {
		args[n++] = "--hide";
		args[n++] = (char *)s->o.hide;
	}
	args[n++] = "--";
	args[n++] = "cat";
	args[n] = NULL;
	around_start(&s->ts, args, tserr);
}

/* perf's -e list: the cstate PMUs' residency events and msr/tsc. */
static void capture_perf_events(struct capture *s)
{
	char path[4096];
	int ret;

	/* only this capture's counts: none when perf does not run */
	snprintf(path, sizeof(path), "%s/hw-residency.csv", s->o.out);
	unlink(path);
	s->events[0] = '\0';
	for (int p = 0; p < 2; p++) {
		const char *pmu = p ? "cstate_pkg" : "cstate_core";

		ret = perf_events(pmu, s->events, sizeof(s->events), &s->nev);
		if (ret)
			fprintf(s->notes, "perf %s: %s (%s/bus/event_source/devices/%s)\n", pmu,
				ret == -ENODEV ? "no such PMU on this machine" :
				"the PMU lists no residency events", sysfs_root(), pmu);
		else
			s->have_perf = 1;
	}
	if (s->have_perf) {
		/* the TSC beside them: each count's share of the CPU's cycles */
		char tsc[8][PERFPMU_NAME_LEN];
		int k = perfpmu_list("msr", "tsc", "", tsc, 8), found = 0;

		for (int i = 0; i < k; i++)
			found |= !strcmp(tsc[i], "tsc");
		if (found && s->nev + 10 < sizeof(s->events))
			snprintf(s->events + s->nev, sizeof(s->events) - s->nev, ",msr/tsc/");
		else
			fprintf(s->notes, "perf msr/tsc: no such event here; hw-residency.csv's percents stay empty\n");
	}
}

/* perf stat around cat, when there are events to count. */
static void capture_start_perf(struct capture *s)
{
	char pout[4200], perr[4200];
	char *args[16];
	int n = 0;

	if (!s->have_perf)
		return;
	out_paths(s->o.out, "perf-cstate.csv", pout, "perf-cstate.err", perr);
	args[n++] = "perf";
	args[n++] = "stat";
	args[n++] = "-x,";
	args[n++] = "-A";	/* per CPU: each with its own TSC */
	args[n++] = "-o";
	args[n++] = pout;
	args[n++] = "-e";
	args[n++] = s->events;
	if (s->list[0]) {
		args[n++] = "-C";
		args[n++] = s->list;
	} else {
		args[n++] = "-a";
	}
	args[n++] = "--";
	args[n++] = "cat";
	args[n] = NULL;
	around_start(&s->perf, args, perr);
}

/*
 * The governor's counters of the roles' CPUs (all of them when a role is
 * unpinned); an empty snapshot whose note says why when they cannot be
 * read.
 */
static void gov_snap(const struct capture *s, struct govstat_snap *g)
{
	struct cpuset *cs = NULL;
	int max = -1, all = 0;

	for (int r = 0; r < s->o.nroles; r++) {
		all |= s->o.role[r].cpu < 0;
		if (s->o.role[r].cpu > max)
			max = s->o.role[r].cpu;
	}
	if (!all && max >= 0) {
		cs = cpuset_new(max + 1);
		for (int r = 0; cs && r < s->o.nroles; r++)
			cpuset_set(cs, s->o.role[r].cpu);
	}
	if ((!all && !cs) || govstat_snap(g, cs))
		snprintf(g->note, sizeof(g->note), "governor counters: out of memory");
	cpuset_free(cs);
}

/*
 * Each role's delta of the governor's counters, the union of the states
 * (capture.csv's columns, in first-seen order), and in notes.txt why a
 * role has none or only some.
 */
static void capture_governor(struct capture *s)
{
	struct govstat_delta *u = &s->gu;

	memset(u, 0, sizeof(*u));
	for (int r = 0; r < s->o.nroles; r++) {
		struct govstat_delta *d = &s->gd[r];

		govstat_delta(&s->ga, &s->gb, s->o.role[r].cpu, d);
		if (d->note[0])
			fprintf(s->notes, "governor counters (%s): %s\n", s->o.role[r].name,
				d->note);
		for (int i = 0; i < d->nstates; i++) {
			int k;

			for (k = 0; k < u->nstates && strcmp(u->st[k].name, d->st[i].name); k++)
				;
			if (k == u->nstates && k < GOVSTAT_MAX_STATES)
				u->st[u->nstates++] = (struct govstat_state){ .have = 0 };
			/* a copy between two states of one struct (the union
			 * and a role's): memcpy, which -Wrestrict can see through */
			if (k < GOVSTAT_MAX_STATES) {
				memcpy(u->st[k].name, d->st[i].name, sizeof(u->st[k].name));
				u->st[k].name[sizeof(u->st[k].name) - 1] = '\0';
			}
		}
	}
}

/* A role's counters in the union's order, empty where it lacks a state. */
static void gov_row(const struct capture *s, struct csv *c, int r)
{
	struct govstat_delta x = s->gu;

	for (int k = 0; k < x.nstates; k++) {
		x.st[k].have = 0;
		for (int i = 0; i < s->gd[r].nstates; i++)
			if (!strcmp(s->gd[r].st[i].name, x.st[k].name))
				x.st[k] = s->gd[r].st[i];
	}
	govstat_csv_row(c, &x);
}

/* Each --pid process tree's CPU ticks, at the start or the end (END). */
static void pid_snap(struct capture *s, int end)
{
	struct proccpu_table t;
	int tret = s->o.npids ? proccpu_table_read(&t) : 0;

	for (int i = 0; i < s->o.npids && tret; i++) {
		snprintf(s->pid_err[i], sizeof(s->pid_err[i]), "reading /proc: %s",
			 strerror(-tret));
		s->pid_ok[i] = 0;
	}
	for (int i = 0; i < s->o.npids && !tret; i++) {
		uint64_t *tk = end ? &s->ticks_b[i] : &s->ticks_a[i];
		uint64_t *ns = end ? &s->ns_b[i] : &s->ns_a[i];
		int *n = end ? &s->nproc_b[i] : &s->nproc_a[i];
		int ret = proccpu_tree_in(&t, s->o.pid[i].pid, tk, ns, n, s->pid_err[i],
					  sizeof(s->pid_err[i]));

		if (!end)
			s->pid_ok[i] = !ret;
		else if (ret)
			s->pid_ok[i] = 0;
	}
	if (s->o.npids && !tret)
		proccpu_table_free(&t);
}

/* The command between two snapshots of the counters; the helpers ended. */
static void capture_run(struct capture *s)
{
	s->have_irq_a = !irqstat_read(s->o.interrupts, &s->ia);
	s->res_a = !residency_snap(&s->a);
	gov_snap(s, &s->ga);
	pid_snap(s, 0);
	s->rc = runcmd_run(s->cmd, &s->sig);
	pid_snap(s, 1);
	gov_snap(s, &s->gb);
	s->res_b = !residency_snap(&s->b);
	s->have_res = s->res_a && s->res_b;
	s->have_irq_b = !irqstat_read(s->o.interrupts, &s->ib);

	s->ts_rc = around_end(&s->ts);
	s->perf_rc = around_end(&s->perf);
}

/* turbostat's table as CSV and perf's counts as hw-residency.csv, or why not. */
static void capture_helpers_results(struct capture *s)
{
	char path[4200], note[512];

	snprintf(path, sizeof(path), "%s/turbostat.err", s->o.out);
	first_line(path, note, sizeof(note));
	if (s->ts_rc == 127 && !note[0])
		snprintf(note, sizeof(note), "not installed (Debian: linux-cpupower)");
	if (s->ts_rc != 0) {
		fprintf(s->notes, "turbostat: cannot run here (exit %d: %s)\n", s->ts_rc,
			note[0] ? note : "no message");
		snprintf(path, sizeof(path), "%s/turbostat.txt", s->o.out);
		unlink(path);
		s->ts_rc = -1;
	} else {
		char txt[4200], err[8600];
		size_t nrows_ts;
		int ncols_ts, ret_ts;

		out_paths(s->o.out, "turbostat.txt", txt, "turbostat.csv", path);
		/* a table of at most 4 MiB (turbostat around one run) */
		ret_ts = trace_turbostat_csv(txt, path, 4 << 20, &nrows_ts, &ncols_ts,
					     err, sizeof(err));
		if (ret_ts) {
			fprintf(s->notes, "turbostat: ran, but %s\n", err);
			s->ts_rc = -1;
		}
	}
	if (s->have_perf && s->perf_rc != 0) {
		snprintf(path, sizeof(path), "%s/perf-cstate.err", s->o.out);
		first_line(path, note, sizeof(note));
		fprintf(s->notes, "perf cstate: perf stat failed (exit %d: %s)\n",
			s->perf_rc, note[0] ? note : "no message");
	} else if (s->have_perf) {
		perf_residency(s->o.out, s->notes);
	}
}

/* Residency per state, and the states seen on the roles' CPUs. */
static void capture_residency(struct capture *s)
{
	if (s->have_res) {
		int max = (s->a.ncpus > s->b.ncpus ? s->a.ncpus : s->b.ncpus) *
			  (RES_MAX_STATES + 2);

		s->rows = calloc((size_t)max, sizeof(*s->rows));
		s->nrows = s->rows ? residency_diff(&s->a, &s->b, s->rows, max) : 0;
		for (int i = 0; i < s->nrows; i++)
			for (int r = 0; r < s->o.nroles; r++)
				if (role_has(&s->o.role[r], s->rows[i].cpu))
					state_idx(&s->st, s->rows[i].state, 1);
		if (s->nrows && strcmp(s->rows[0].source, "cpuidle"))
			fprintf(s->notes, "cpuidle: this kernel has no cpuidle states; residency is /proc/stat idle time (one USER_HZ tick resolution), entries unknown\n");
	} else {
		fprintf(s->notes, "cpuidle: cannot read the idle counters\n");
	}
	if (!s->have_irq_a || !s->have_irq_b)
		fprintf(s->notes, "interrupts: cannot read %s\n", s->o.interrupts);
}

/* DIR/NAME as a CSV file with header HDR; exits when it cannot be made. */
static struct csv *capture_csv_open(const struct capture *s, const char *name,
				    const char *hdr, char *path, size_t len)
{
	struct csv *c;

	snprintf(path, len, "%s/%s", s->o.out, name);
	c = csv_open(path);
	if (!c)
		opt_die(TRACE_PROG, "cannot write %s: %s", path, strerror(errno));
	csv_header(c, hdr);
	return c;
}

/* cpuidle.csv: each role's CPUs' rows. */
static void capture_write_cpuidle(const struct capture *s)
{
	char path[4096];
	struct csv *c = capture_csv_open(s, "cpuidle.csv",
					 "role,cpu,state,percent,usage,time_us,source",
					 path, sizeof(path));

	for (int r = 0; r < s->o.nroles; r++)
		for (int i = 0; i < s->nrows; i++) {
			const struct res_row *row = &s->rows[i];

			if (!role_has(&s->o.role[r], row->cpu))
				continue;
			csv_str(c, s->o.role[r].name);
			csv_u64(c, (uint64_t)row->cpu);
			csv_str(c, row->state);
			csv_double(c, row->percent, 4);
			csv_u64(c, row->usage);
			csv_u64(c, row->time_us);
			csv_str(c, row->source);
			csv_end_row(c);
		}
	if (trace_csv_close(c, path))
		exit(1);
}

/* interrupts.csv: each role's delta per IRQ. */
static void capture_write_interrupts(struct capture *s)
{
	char path[4096];
	struct csv *c = capture_csv_open(s, "interrupts.csv", "role,cpu,irq,desc,delta",
					 path, sizeof(path));

	for (int r = 0; r < s->o.nroles && s->have_irq_a && s->have_irq_b; r++) {
		struct irq_ctx x = { c, &s->o.role[r] };

		irqstat_delta(&s->ia, &s->ib, s->o.role[r].cpu, irq_row, &x);
	}
	if (trace_csv_close(c, path))
		exit(1);
}

/* capture.csv's header: the fixed columns, then two per state seen. */
static void capture_summary_header(const struct capture *s, char *hdr, size_t len)
{
	char col[IDLESTATE_NAME_LEN];
	size_t n;

	n = (size_t)snprintf(hdr, len,
			     "role,cpu,window_s,source,irq_delta,turbostat,perf_cstate");
	for (int k = 0; k < s->st.n; k++) {
		residency_colname(s->st.name[k], col, sizeof(col));
		n += (size_t)snprintf(hdr + n, len - n, ",res_%s_pct", col);
		if (strcmp(s->st.name[k], "C0"))
			n += (size_t)snprintf(hdr + n, len - n, ",entries_%s", col);
		if (n >= len)
			opt_die(TRACE_PROG, "too many idle states");
	}
	/* appended (issue 33): the governor's counters per state */
	if (govstat_csv_header(&s->gu, hdr + n, len - n))
		opt_die(TRACE_PROG, "too many idle states");
	/* appended (issue 35): each --pid process's CPU time */
	n += strlen(hdr + n);
	for (int i = 0; i < s->o.npids && n < len; i++) {
		char role[32];

		snprintf(role, sizeof(role), "%s", s->o.pid[i].name);
		for (char *p = role; *p; p++)
			if (*p == '-')
				*p = '_';
		n += (size_t)snprintf(hdr + n, len - n, ",cpu_us_%s", role);
	}
	if (n >= len)
		opt_die(TRACE_PROG, "too many idle states");
}

/*
 * Process I's CPU microseconds over the command: its threads' schedstat
 * nanoseconds where they agree with the ticks of /proc/PID/stat (within
 * two ticks: a thread that ended takes its nanoseconds with it), else the
 * ticks. *EXACT says which.
 */
static double pid_us(const struct capture *s, int i, int *exact)
{
	double tick = proccpu_ticks_us(1);
	double t = proccpu_ticks_us(s->ticks_b[i] - s->ticks_a[i]), ns;

	*exact = 0;
	if (s->ns_a[i] == UINT64_MAX || s->ns_b[i] == UINT64_MAX ||
	    s->ns_b[i] < s->ns_a[i])
		return t;
	ns = (double)(s->ns_b[i] - s->ns_a[i]) / 1e3;
	if (!(fabs(ns - t) <= 2 * tick))
		return t;
	*exact = 1;
	return ns;
}

/*
 * notes.txt: how each --pid process was measured, or why its column is
 * empty; a tree that lost CPU time (a child that ended) is not a count.
 */
static void capture_pids(struct capture *s)
{
	for (int i = 0; i < s->o.npids; i++) {
		const struct pidrole *p = &s->o.pid[i];
		int exact;

		if (s->pid_ok[i] && s->ticks_b[i] < s->ticks_a[i]) {
			s->pid_ok[i] = 0;
			snprintf(s->pid_err[i], sizeof(s->pid_err[i]),
				 "PID %d: a process of its tree ended during the command", p->pid);
		}
		if (!s->pid_ok[i])
			fprintf(s->notes, "cpu time (%s): cannot be measured: %s\n", p->name,
				s->pid_err[i]);
		else if (pid_us(s, i, &exact) >= 0 && exact)
			fprintf(s->notes, "cpu time (%s): PID %d and its children (%d then %d processes), their threads' run time from /proc/PID/task/*/schedstat in ns (utime + stime of /proc/PID/stat agree within two ticks of %.0f us)\n",
				p->name, p->pid, s->nproc_a[i], s->nproc_b[i],
				proccpu_ticks_us(1));
		else
			fprintf(s->notes, "cpu time (%s): PID %d and its children (%d then %d processes), utime + stime from /proc/PID/stat in ticks of %.0f us (no schedstat that agrees: a thread ended, or this kernel has none)\n",
				p->name, p->pid, s->nproc_a[i], s->nproc_b[i],
				proccpu_ticks_us(1));
	}
}

/* the --pid columns: CPU microseconds over the command, or empty */
static void pid_row(const struct capture *s, struct csv *c)
{
	for (int i = 0; i < s->o.npids; i++) {
		int exact;

		if (s->pid_ok[i])
			csv_double(c, pid_us(s, i, &exact), 0);
		else
			csv_empty(c);
	}
}

/* capture.csv's row for one role: its CPUs' residency summed per state. */
static void capture_summary_row(struct capture *s, struct csv *c,
				const struct role *ro, int r)
{
	double pct[MAX_STATES] = { 0 };
	uint64_t ent[MAX_STATES] = { 0 };
	int cpus = 0, proc = 0, last = -1;

	for (int i = 0; i < s->nrows; i++) {
		const struct res_row *row = &s->rows[i];
		int k = state_idx(&s->st, row->state, 0);

		if (!role_has(ro, row->cpu))
			continue;
		/* the CPUs that reported (rows come per CPU) */
		if (row->cpu != last)
			cpus++;
		last = row->cpu;
		/* any /proc/stat CPU: entries are unknown */
		proc |= strcmp(row->source, "cpuidle") != 0;
		if (k < 0)
			continue;
		pct[k] += row->percent;
		ent[k] += row->usage;
	}
	csv_str(c, ro->name);
	if (ro->cpu >= 0)
		csv_u64(c, (uint64_t)ro->cpu);
	else
		csv_str(c, "all");
	if (s->have_res)
		csv_double(c, (s->b.at_ns - s->a.at_ns) / 1e9, 6);
	else
		csv_empty(c);
	csv_str(c, !s->have_res ? "" : proc ? "proc-stat" : "cpuidle");
	if (s->have_irq_a && s->have_irq_b &&
	    (ro->cpu < 0 || (irqstat_has_cpu(&s->ia, ro->cpu) &&
			     irqstat_has_cpu(&s->ib, ro->cpu))))
		csv_u64(c, irqstat_delta(&s->ia, &s->ib, ro->cpu, NULL, NULL));
	else
		csv_empty(c);
	csv_str(c, s->ts_rc == 0 ? "turbostat.csv" : "");
	csv_str(c, s->have_perf && s->perf_rc == 0 ? "perf-cstate.csv" : "");
	for (int k = 0; k < s->st.n; k++) {
		if (s->have_res && s->nrows)
			csv_double(c, pct[k] / (cpus ? cpus : 1), 4);
		else
			csv_empty(c);
		if (!strcmp(s->st.name[k], "C0"))
			continue;
		if (s->have_res && s->nrows && !proc)
			csv_u64(c, ent[k]);
		else
			csv_empty(c);
	}
	gov_row(s, c, r);
	pid_row(s, c);
	csv_end_row(c);
}

/* capture.csv: one row per role, the columns a sweep takes. */
static void capture_write_summary(struct capture *s)
{
	char hdr[8192], path[4096];
	struct csv *c;

	capture_summary_header(s, hdr, sizeof(hdr));
	c = capture_csv_open(s, "capture.csv", hdr, path, sizeof(path));
	for (int r = 0; r < s->o.nroles; r++)
		capture_summary_row(s, c, &s->o.role[r], r);
	if (trace_csv_close(c, path))
		exit(1);
}

/* notes.txt closed (a full disk fails the capture), the snapshots freed. */
static int capture_finish(struct capture *s)
{
	int ret = wfile_close(s->notes);

	if (ret) {
		fprintf(stderr, "%s: cannot write %s: %s\n", TRACE_PROG, s->notes_path,
			strerror(-ret));
		s->rc = s->rc ? s->rc : 1;
	}
	if (s->res_a)
		residency_free(&s->a);
	if (s->res_b)
		residency_free(&s->b);
	if (s->have_irq_a)
		irqstat_free(&s->ia);
	if (s->have_irq_b)
		irqstat_free(&s->ib);
	govstat_free(&s->ga);
	govstat_free(&s->gb);
	free(s->rows);
	return s->rc;
}

int trace_capture(int argc, char **argv)
{
	struct capture s = {
		.o = { .interrupts = "/proc/interrupts" },
		.ts = { -1, -1 }, .perf = { -1, -1 },
		.ts_rc = -1, .perf_rc = -1,
	};

	capture_parse(&s, argc, argv);
	capture_open_notes(&s);
	/* turbostat and perf first: they measure until the command ends */
	cpu_list(&s.o, s.list, sizeof(s.list));
	capture_start_turbostat(&s);
	capture_perf_events(&s);
	capture_start_perf(&s);
	capture_run(&s);
	capture_helpers_results(&s);
	capture_residency(&s);
	capture_governor(&s);
	capture_pids(&s);
	capture_write_cpuidle(&s);
	capture_write_interrupts(&s);
	capture_write_summary(&s);
	return capture_finish(&s);
}
