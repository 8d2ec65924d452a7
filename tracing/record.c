// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench trace record: its own tracefs instance (never the top-level
 * buffer), trace_clock mono, power:cpu_idle + irq handler events + user
 * markers. As trace-cmd records: a recorder thread per CPU splices that
 * CPU's ring-buffer pages into a temporary file as they fill
 * (lib/cpurec); at the end the event formats, the process names and the
 * pages become DIR/trace.dat (lib/datfile), which trace-cmd report and
 * KernelShark open as it is. The instance is destroyed on every way out:
 * normal end, SIGINT/SIGTERM/SIGHUP/SIGQUIT, a failing command, an error
 * (exit() included: atexit). trace.dat is written under a temporary name
 * (lib/stage) and put in place with meta.txt, last, only when the
 * recording succeeded: a trace directory with a meta.txt is complete, and
 * a failed record (a full disk) keeps nothing that looks like a trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "clock.h"
#include "cmdline.h"
#include "cpu.h"
#include "cpurec.h"
#include "cpuset.h"
#include "datfile.h"
#include "die.h"
#include "hwcstate.h"
#include "idlestate.h"
#include "stage.h"
#include "trace.h"
#include "traceout.h"
#include "wbinst.h"
#include "wfile.h"

struct rec {
	struct tracefs_instance *inst;
	char name[64];
	int ncpus;
	struct cpurec *cr;	/* the recorders, one per recorded CPU */
	int *fds;		/* each recorded CPU's pages, written */
	char **cpu_tmp;		/* and their temporary files' names */
	int subbuf;
	uint64_t pages;
	struct datfile_hdr h;	/* trace.dat's formats and process names */
	/* The files: trace.dat and meta.txt under temporary names until the
	 * end (st), the CPUs' pages in temporary files that are never kept
	 * (cpust), and DIR itself when this record made it. */
	const char *out;
	struct stage *st, *cpust;
	int made_out;
	int kept;	/* committed: the trace is in place */
	char hw_line[700];	/* meta.txt's hw_residency line (hwres_end) */
};

static struct rec *live;	/* for the exit and signal paths */

static void destroy_instance(void)
{
	if (!live || !live->inst)
		return;
	tracefs_trace_off(live->inst);
	/* An open trace_pipe_raw keeps the instance busy: the recorders
	 * close theirs first. */
	cpurec_free(live->cr);
	live->cr = NULL;
	/* So does a trace_marker a child still holds: give it a moment. */
	for (int i = 0; i < 50 && tracefs_instance_destroy(live->inst); i++)
		usleep(20000);
	if (tracefs_instance_exists(live->name))
		fprintf(stderr, "%s: instance %s is still in use; remove it with 'rmdir %s/instances/%s'\n",
			TRACE_PROG, live->name, tracefs_tracing_dir(), live->name);
	tracefs_instance_free(live->inst);
	live->inst = NULL;
}

/*
 * The CPUs' temporary files always go (stage_free of cpust); a record
 * that did not finish keeps nothing that looks like a trace: the
 * temporary trace.dat and meta.txt go, and DIR when this record made it
 * (only when empty).
 */
static void discard_files(void)
{
	if (!live)
		return;
	for (int cpu = 0; live->fds && cpu < live->ncpus; cpu++) {
		if (live->fds[cpu] >= 0)
			close(live->fds[cpu]);
		live->fds[cpu] = -1;
	}
	stage_free(live->cpust);
	live->cpust = NULL;
	stage_free(live->st);
	live->st = NULL;
	if (live->kept || !live->out)
		return;
	if (live->made_out) {
		rmdir(live->out);
		live->made_out = 0;
	}
}

/* Every way out of record (exit() on an error included). */
static void record_exit(void)
{
	destroy_instance();
	discard_files();
}

/*
 * Our children: processes whose parent is us. As a child subreaper we
 * inherit what the command left running (a server started with '&'),
 * so this lists the command's leftovers once it has exited. Fills pids
 * (room for max) and returns how many.
 */
static int children(pid_t *pids, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t me = getpid();
	int n = 0;

	if (!d)
		return 0;
	while (n < max && (e = readdir(d))) {
		char path[64], buf[512], *p;
		long pid = strtol(e->d_name, &p, 10);
		FILE *f;
		int ppid;

		if (*p || pid <= 0 || pid == me)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		/* "pid (comm) S ppid ...": comm may hold anything but ')' ends it */
		if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == me)
			pids[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/*
 * Stops what the command left behind: SIGTERM to each of our children
 * (the command itself too if it still runs), up to 3 s for them to go
 * (their own orphans come to us and get the same), then SIGKILL. The
 * tracefs instance can be removed only when no process holds its
 * trace_marker. Returns the number of processes stopped.
 */
static int stop_leftovers(pid_t command)
{
	pid_t pids[256];
	int total = 0, n;
	uint64_t deadline = clock_now_ns() + 3000000000ull;

	reap();
	while ((n = children(pids, 256)) > 0) {
		int killing = clock_now_ns() >= deadline;

		for (int i = 0; i < n; i++) {
			char path[64], comm[64] = "?";
			FILE *f;

			if (kill(pids[i], 0))
				continue;
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)pids[i]);
			f = fopen(path, "r");
			if (f) {
				if (fgets(comm, sizeof(comm), f))
					comm[strcspn(comm, "\n")] = '\0';
				fclose(f);
			}
			if (kill(pids[i], killing ? SIGKILL : SIGTERM))
				continue;
			if (pids[i] != command || killing)
				fprintf(stderr, "%s: the command left pid %d (%s) running: sent it %s\n",
					TRACE_PROG, (int)pids[i], comm,
					killing ? "SIGKILL" : "SIGTERM");
			total++;
		}
		/* Give them time to exit, reaping as they do. */
		for (int i = 0; i < 20; i++) {
			reap();
			usleep(10000);
		}
		if (killing)
			deadline = UINT64_MAX;	/* one SIGKILL round is enough */
	}
	reap();
	return total;
}

static const char *const default_events[] = {
	"power:cpu_idle", "irq:irq_handler_entry", "irq:irq_handler_exit", NULL,
};

/*
 * What else can wake an idle CPU (trace timeline's wake causes), and the
 * wakeup of the server's thread (trace attribute's breakdown of a wake):
 * recorded by default where the kernel has them (irq_vectors is x86's),
 * left out with --no-wake-causes. On loopback the server's core is woken
 * by an IPI or a softirq, never a NIC interrupt. With them the governor's
 * misses (power:cpu_idle_miss, kernel 6.1+; at most one per idle exit):
 * trace attribute's idle_miss.
 */
static const char *const wake_events[] = {
	"irq:softirq_entry", "sched:sched_wakeup", "irq_vectors:reschedule_entry",
	"irq_vectors:call_function_entry",
	"irq_vectors:call_function_single_entry",
	"irq_vectors:irq_work_entry", "irq_vectors:local_timer_entry",
	"power:cpu_idle_miss", NULL,
};

/*
 * meta.txt's text, built in memory (so that the file is written by one
 * checked write, whose errno is the real cause). NULL when out of memory.
 */
static char *meta_text(struct rec *r, uint64_t start, uint64_t end,
		       char **events, int nevents, const char *cmdline,
		       int buffer_kb, size_t *len)
{
	char drv[64], *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	idlestate_driver(drv, sizeof(drv));
	fprintf(f, "wakebench-trace 1\nversion %s\nclock mono\nncpus %d\n"
		"start_ns %llu\nend_ns %llu\nsubbuf_size %d\nbuffer_kb %d\n"
		"instance %s\nidle_driver %s\npages %llu\n", WB_VERSION,
		r->ncpus, (unsigned long long)start, (unsigned long long)end,
		r->subbuf, buffer_kb, r->name, drv,
		(unsigned long long)r->pages);
	fprintf(f, "events");
	for (int i = 0; i < nevents; i++)
		fprintf(f, " %s", events[i]);
	fprintf(f, " ftrace:print\ncommand %s\n", cmdline);
	if (r->hw_line[0])
		fprintf(f, "hw_residency %s\n", r->hw_line);
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		int n = idlestate_count((unsigned int)cpu);
		char stats_name[64], *stats;
		unsigned long long overrun = 0, dropped = 0;

		for (int i = 0; i < n; i++) {
			struct idlestate st;

			if (!idlestate_get((unsigned int)cpu, (unsigned int)i, &st))
				fprintf(f, "state %d %d %s\n", cpu, i, st.name);
		}
		/* No cpuidle driver: the kernel's default idle reports state 1. */
		if (!n)
			fprintf(f, "state %d 1 default-idle\n", cpu);
		snprintf(stats_name, sizeof(stats_name), "per_cpu/cpu%d/stats", cpu);
		stats = r->inst ? tracefs_instance_file_read(r->inst, stats_name, NULL) :
			NULL;
		if (stats) {
			char *p = strstr(stats, "overrun:");

			if (p)
				overrun = strtoull(p + 8, NULL, 10);
			p = strstr(stats, "dropped events:");
			if (p)
				dropped = strtoull(p + 15, NULL, 10);
			free(stats);
		}
		fprintf(f, "missed %d %llu %llu\n", cpu, overrun, dropped);
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}


/*
 * Removes the wakebench instances whose owner is gone (wbinst_stale), or
 * every wakebench instance with all. Says what it removed. Returns the
 * number that could not be removed.
 */
static int remove_stale(int all, pid_t self)
{
	const char *tdir = tracefs_tracing_dir();
	char path[512];
	struct dirent *e;
	int failed = 0;
	DIR *d;

	if (!tdir)
		return 0;
	snprintf(path, sizeof(path), "%s/instances", tdir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct tracefs_instance *inst;

		if (wbinst_pid(e->d_name) < 0)
			continue;
		if (!all && !wbinst_stale(e->d_name, "/proc", self))
			continue;
		inst = tracefs_instance_alloc(NULL, e->d_name);
		if (inst) {
			/* Stop it first: a stale instance may still be
			 * recording into its buffers. */
			tracefs_instance_file_write(inst, "tracing_on", "0");
			if (!tracefs_instance_destroy(inst)) {
				fprintf(stderr, "%s: removed tracefs instance %s (%s)\n",
					TRACE_PROG, e->d_name,
					all ? "--all" : "its trace record is gone");
			} else {
				fprintf(stderr, "%s: cannot remove tracefs instance %s: %s\n",
					TRACE_PROG, e->d_name, strerror(errno));
				failed++;
			}
			tracefs_instance_free(inst);
		}
	}
	closedir(d);
	return failed;
}

static void need_tracefs(const char *what)
{
	if (getuid() != 0 && geteuid() != 0)
		opt_die(TRACE_PROG, "%s needs root (tracefs instances are root-only)", what);
	/* Mount tracefs where it is not (tracefs_tracing_dir_is_mounted()
	 * would do it too, but leaks the path it finds). */
	if (access("/sys/kernel/tracing/instances", F_OK) &&
	    access("/sys/kernel/debug/tracing/instances", F_OK))
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (!tracefs_tracing_dir())
		opt_die(TRACE_PROG, "tracefs is not mounted and could not be mounted");
}

struct cleanup_opts {
	int all;
};

static const struct cli_opt cleanup_options[] = {
	{ .name = "all", .kind = CLI_FLAG,
	  .help = "every wakebench instance, not only the stale ones",
	  .off = CLI_AT(struct cleanup_opts, all) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

const struct cli_cmd trace_cleanup_cmd = {
	.prog = TRACE_PROG,
	.usage = "Usage: wakebench trace cleanup [--all]",
	.about =
"Removes the tracefs instances (wakebench-PID) a trace record left behind\n"
"when it was killed (its PID no longer runs wakebench-trace). Every trace\n"
"record does the same check when it starts. Needs root.\n",
	.col = 20,
	.opts = cleanup_options,
};

int trace_cleanup(int argc, char **argv)
{
	struct cleanup_opts o = { 0 };

	signal(SIGPIPE, SIG_IGN);	/* a closed stderr does not stop it half way */
	cli_parse(&trace_cleanup_cmd, argc, argv, &o);
	need_tracefs("cleanup");
	return remove_stale(o.all, 0) ? 1 : 0;
}

struct record_opts {
	const char *out;
	struct cpuset *mask;
	char *events;
	int buffer_kb;
	double event_rate;
	double duration;
	int no_wake;
};

static const struct cli_opt record_options[] = {
	{ .name = "out", .short_name = 'o', .kind = CLI_STRING, .arg = "DIR",
	  .help = "write the trace here (created): trace.dat (what\n"
		  "trace-cmd report opens), meta.txt, hw-residency.csv",
	  .off = CLI_AT(struct record_opts, out) },
	{ .name = "cpus", .short_name = 'c', .kind = CLI_CPUS, .arg = "LIST",
	  .help = "record these CPUs only (default: all)",
	  .off = CLI_AT(struct record_opts, mask) },
	{ .name = "events", .kind = CLI_STRING, .arg = "LIST",
	  .help = "more SYSTEM:EVENT names, comma-separated, besides\n"
		  "the default ones (e.g. sched:sched_switch,\n"
		  "net:netif_receive_skb)",
	  .off = CLI_AT(struct record_opts, events) },
	{ .name = "no-wake-causes", .kind = CLI_FLAG,
	  .help = "record only the default events, not the softirq,\n"
		  "IPI and local timer ones wake causes need, nor\n"
		  "sched_wakeup (the breakdown of a wake)",
	  .off = CLI_AT(struct record_opts, no_wake) },
	{ .name = "buffer-kb", .kind = CLI_UINT, .store = CLI_INT, .arg = "N",
	  .min = 4, .max = 1 << 22,
	  .help = "ring buffer per CPU (default: from --event-rate,\n"
		  "else 4096)",
	  .off = CLI_AT(struct record_opts, buffer_kb) },
	{ .name = "event-rate", .kind = CLI_REAL, .store = CLI_DOUBLE,
	  .arg = "N", .min = 1, .max = 1e9, .hint = "events per second",
	  .help = "events a second expected on the busiest CPU: the\n"
		  "buffer holds 1 s of them at 32 bytes each (the\n"
		  "kernel wakes a recorder at half full), at least\n"
		  "1024 KB",
	  .off = CLI_AT(struct record_opts, event_rate) },
	{ .name = "duration", .short_name = 'D', .kind = CLI_REAL,
	  .store = CLI_DOUBLE, .arg = "S", .min = 0.001, .max = 1e6,
	  .hint = "seconds",
	  .help = "record this long (or around -- COMMAND...)",
	  .off = CLI_AT(struct record_opts, duration) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

const struct cli_cmd trace_record_cmd = {
	.prog = TRACE_PROG,
	.usage =
"Usage: wakebench trace record --out DIR [options]\n"
"                              (--duration S | -- COMMAND...)",
	.about =
"A tracefs instance of its own with trace_clock mono, events power:cpu_idle,\n"
"irq:irq_handler_entry/exit, user markers and, where the kernel has them,\n"
"irq:softirq_entry and the irq_vectors IPI and local timer entries (wake\n"
"causes) and sched:sched_wakeup (the breakdown of a wake; none of these\n"
"with --no-wake-causes), plus --events; a recorder thread per CPU splices\n"
"its ring buffer to disk, and DIR/trace.dat (trace-cmd's file) holds them\n"
"at the end. The COMMAND gets WAKEBENCH_TRACE_INSTANCE so servers and\n"
"clients started with --trace-markers mark each request. The\n"
"instance is removed on exit, SIGINT/SIGTERM/SIGHUP/SIGQUIT and when the\n"
"command fails; processes the command leaves running are stopped (SIGTERM,\n"
"named on stderr) before. The files take their names (meta.txt last) only\n"
"when the recording succeeded: a failure (e.g. a full disk: the file and the\n"
"cause are named) keeps no trace. Once events are recorded it prints\n"
"\"wakebench-trace: recording in instance NAME into DIR\" on standard error:\n"
"a load started beside it should wait for that line. Needs root.\n",
	.col = 24,
	.max_args = 1000000,	/* checked below, with a hint about -- */
	.opts = record_options,
};

/*
 * The hardware's own C-state residency over the recording (lib/hwcstate:
 * perf cstate_core/cstate_pkg against the TSC), beside the idle states
 * the kernel asked for in the trace: DIR/hw-residency.csv (the header
 * alone when there are no counters) and meta.txt's hw_residency line,
 * "N counters, TSC SOURCE" or "none: why". Not reading them is no
 * reason to fail a recording; writing the file is (a full disk).
 */
struct hwres {
	struct hwcstate *hw;
	char note[600];
	char tmp[4096];		/* hw-residency.csv's temporary name */
};

static void hwres_begin(struct hwres *h)
{
	if (hwcstate_open(&h->hw, h->note, sizeof(h->note)) > 0 &&
	    hwcstate_start(h->hw, h->note, sizeof(h->note))) {
		hwcstate_close(h->hw);
		h->hw = NULL;
	}
}

/* Reads the counters again and writes the file; -errno when it cannot. */
static int hwres_end(struct hwres *h, struct rec *r)
{
	struct hwcstate_row rows[1024];
	int n = 0, ret;

	if (h->hw && hwcstate_stop(h->hw, h->note, sizeof(h->note))) {
		hwcstate_close(h->hw);
		h->hw = NULL;
	}
	if (h->hw) {
		n = hwcstate_rows(h->hw, rows, 1024);
		snprintf(r->hw_line, sizeof(r->hw_line), "%d counters, TSC %s%s%.500s", n,
			 hwcstate_tsc_source(h->hw), hwcstate_note(h->hw)[0] ? "; " : "",
			 hwcstate_note(h->hw));
		hwcstate_close(h->hw);
		h->hw = NULL;
	} else {
		snprintf(r->hw_line, sizeof(r->hw_line), "none: %.600s", h->note);
	}
	ret = hwcstate_write_csv(h->tmp, rows, n);
	if (ret)
		fprintf(stderr, "%s: cannot write %s/hw-residency.csv: %s\n", TRACE_PROG,
			r->out, strerror(-ret));
	return ret;
}

/*
 * --cpus into the instance's tracing_cpumask, as the kernel's text of
 * 32-bit groups (lib/cpu): one 64-bit word dropped CPUs from 64 on, and
 * from 32 on the kernel refused its 9+ digits without a comma (EOVERFLOW)
 * while the write went unchecked: every CPU was traced. The write is
 * checked and the mask read back; a failure exits, and the exit removes
 * the instance (record_exit).
 */
static void set_cpumask(struct rec *r, const struct cpuset *mask)
{
	size_t len = cpuset_mask_len(r->ncpus);
	struct cpuset *want = cpuset_new(r->ncpus), *got = NULL;
	char *text = malloc(len), *back;
	int size = 0, n = 0, same = 1, ret;

	if (!text || !want)
		opt_die(TRACE_PROG, "out of memory");
	for (int c = cpuset_next(mask, 0); c >= 0; c = cpuset_next(mask, c + 1))
		cpuset_set(want, c);
	if (cpuset_format_mask(want, text, len) < 0)
		opt_die(TRACE_PROG, "out of memory");
	errno = 0;
	ret = tracefs_instance_file_write(r->inst, "tracing_cpumask", text);
	if (ret != (int)strlen(text))
		opt_die(TRACE_PROG, "cannot write '%s' to %s/instances/%s/tracing_cpumask: %s",
			text, tracefs_tracing_dir(), r->name,
			ret < 0 && errno ? strerror(errno) : "short write");
	/* what the kernel took: the same CPUs, none beyond */
	back = tracefs_instance_file_read(r->inst, "tracing_cpumask", &size);
	if (back) {
		for (int i = 0; i < size; i++)
			n += back[i] == ',';
		got = cpuset_new((n + 1) * 32);
	}
	if (!back || !got || cpuset_parse_mask(got, back) < 0)
		same = 0;
	for (int c = 0; same && c < (n + 1) * 32; c++)
		same &= cpuset_test(got, c) == cpuset_test(want, c);
	for (int c = (n + 1) * 32; same && c < r->ncpus; c++)
		same &= !cpuset_test(want, c);
	if (!same)
		opt_die(TRACE_PROG, "%s/instances/%s/tracing_cpumask reads '%.*s' after '%s' was written",
			tracefs_tracing_dir(), r->name,
			back ? (int)strcspn(back, "\n") : 1, back ? back : "?", text);
	cpuset_free(got);
	cpuset_free(want);
	free(back);
	free(text);
}

/*
 * Seven open files a CPU (its trace_pipe_raw, the recorder's two pipes,
 * its temporary file, and at the end that file read back): the usual
 * soft limit of 1024 failed the opens (EMFILE) past about 140 CPUs.
 * Raised as far as that needs, up to the hard limit, for this process
 * only.
 */
static void files_for_cpus(int ncpus)
{
	rlim_t need = 7 * (rlim_t)ncpus + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		opt_die(TRACE_PROG, "recording %d CPUs needs %llu open files; the limit is %llu (ulimit -n)",
			ncpus, (unsigned long long)need, (unsigned long long)rl.rlim_max);
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		opt_die(TRACE_PROG, "cannot raise the open file limit to %llu: %s",
			(unsigned long long)need, strerror(errno));
}

/*
 * One recording, from the command line to the files put in place: what
 * the steps of trace_record() share.
 */
struct recording {
	struct hwres hw;
	struct record_opts o;
	struct rec r;
	char *events[48];
	int nevents;
	char **cmd;		/* -- COMMAND..., NULL for --duration */
	char *cmdline;		/* the whole command line, for meta.txt */
	pid_t child;
	sigset_t stopset, old;	/* the stop signals, blocked; the mask before */
	uint64_t start, end;
	int rc, sig, failed;
	char err[4400], meta_tmp[4096], dat_tmp[4096];
};

/* The options, the command after -- and the events to enable. */
static void record_parse(struct recording *s, int argc, char **argv,
			 int full_argc, char **full_argv)
{
	int first;

	/* The command line is taken whole before "--" is cut off. */
	s->cmdline = opt_cmdline(full_argc, full_argv);
	argc = opt_split_command(TRACE_PROG, argc, argv, &s->cmd);
	/* the running kernel's CPUs, whatever sysfs tree a test fakes */
	s->r.ncpus = cpuset_kernel_possible();
	first = cli_parse(&trace_record_cmd, argc, argv, &s->o);
	if (s->o.mask && cpuset_next(s->o.mask, s->r.ncpus) >= 0)
		opt_usage(TRACE_PROG, "invalid --cpus: CPU %d (this kernel has CPUs 0-%d)",
			  cpuset_next(s->o.mask, s->r.ncpus), s->r.ncpus - 1);
	if (!s->o.out)
		opt_usage(TRACE_PROG, "record needs --out DIR");
	if (first < argc)
		opt_usage(TRACE_PROG, "unexpected argument '%s' (a command goes after --)",
			  argv[first]);
	/* sized for the rate: 0.5 s of events while a recorder is held up */
	if (!s->o.buffer_kb)
		s->o.buffer_kb = s->o.event_rate > 0 ?
			(int)cpurec_buffer_kb(s->o.event_rate, 0.5) : 4096;
	if ((s->o.duration > 0) == (s->cmd != NULL))
		opt_usage(TRACE_PROG, "record needs --duration S or -- COMMAND (one of them)");
	for (int i = 0; default_events[i]; i++)
		s->events[s->nevents++] = (char *)default_events[i];
	if (s->o.events) {
		/* Extra events, e.g. irq:softirq_entry,sched:sched_wakeup. */
		for (char *tok = strtok(s->o.events, ","); tok;
		     tok = strtok(NULL, ",")) {
			if (!strchr(tok, ':'))
				opt_usage(TRACE_PROG, "invalid event '%s' (SYSTEM:EVENT)", tok);
			if (s->nevents >= 30)
				opt_usage(TRACE_PROG, "too many --events: at most %d besides the %d default ones",
					  30 - (int)(sizeof(default_events) / sizeof(default_events[0]) - 1),
					  (int)(sizeof(default_events) / sizeof(default_events[0]) - 1));
			s->events[s->nevents++] = tok;
		}
	}
}

/* DIR, made when it is not there; a stale instance of ours removed. */
static void record_make_out(struct recording *s)
{
	const char *out = s->o.out;
	struct stat sb;

	need_tracefs("record");
	/* What a killed record left behind (and a stale one in our name). */
	remove_stale(0, getpid());
	s->r.out = out;
	if (!mkdir(out, 0755))
		s->r.made_out = 1;
	else if (errno != EEXIST)
		opt_die(TRACE_PROG, "cannot create %s: %s", out, strerror(errno));
	else if (stat(out, &sb) || !S_ISDIR(sb.st_mode))
		opt_die(TRACE_PROG, "%s exists and is not a directory", out);
}

/* The instance with its clock, buffers, CPUs and events (trace off). */
static void record_setup_instance(struct recording *s)
{
	struct rec *r = &s->r;

	snprintf(r->name, sizeof(r->name), "wakebench-%d", (int)getpid());
	live = r;
	atexit(record_exit);
	/*
	 * SIGINT/SIGTERM/SIGHUP/SIGQUIT stay blocked from before the instance
	 * exists: one that comes during set-up waits for the recording loop,
	 * which stops cleanly; errors on the way exit through record_exit().
	 */
	sigemptyset(&s->stopset);
	sigaddset(&s->stopset, SIGINT);
	sigaddset(&s->stopset, SIGTERM);
	sigaddset(&s->stopset, SIGHUP);
	sigaddset(&s->stopset, SIGQUIT);
	sigaddset(&s->stopset, SIGCHLD);
	sigprocmask(SIG_BLOCK, &s->stopset, &s->old);
	r->inst = tracefs_instance_create(r->name);
	if (!r->inst)
		opt_die(TRACE_PROG, "cannot create tracefs instance %s: %s", r->name,
			strerror(errno));
	if (tracefs_instance_file_write(r->inst, "trace_clock", "mono") < 0)
		opt_die(TRACE_PROG, "this kernel has no 'mono' trace clock");
	tracefs_trace_off(r->inst);
	if (tracefs_instance_set_buffer_size(r->inst, (size_t)s->o.buffer_kb, -1) < 0)
		opt_die(TRACE_PROG, "cannot set the buffer to %d KB per CPU", s->o.buffer_kb);
	/* the recorders wake at half full, as --event-rate's sizing takes
	 * (the kernel's default; older kernels have no such file) */
	tracefs_instance_file_write(r->inst, "buffer_percent", "50");
	if (s->o.mask)
		set_cpumask(r, s->o.mask);
	for (int i = 0; i < s->nevents; i++) {
		char sys[64], name[64];

		sscanf(s->events[i], "%63[^:]:%63s", sys, name);
		if (tracefs_event_enable(r->inst, sys, name))
			opt_die(TRACE_PROG, "no event %s on this kernel", s->events[i]);
	}
	/* the wake-cause events this kernel has, unless given already */
	for (int i = 0; !s->o.no_wake && wake_events[i]; i++) {
		char sys[64], name[64];
		int dup = 0;

		for (int k = 0; k < s->nevents; k++)
			dup |= !strcmp(s->events[k], wake_events[i]);
		sscanf(wake_events[i], "%63[^:]:%63s", sys, name);
		if (!dup && !tracefs_event_enable(r->inst, sys, name))
			s->events[s->nevents++] = (char *)wake_events[i];
	}
}

/*
 * An older trace's formats/ (SYS/EVENT/format under it, and the two
 * headers): only those files and directories, so that anything else
 * someone put there stays (and its rmdir fails: an error).
 */
static int remove_formats(const char *out)
{
	char path[4096];
	struct dirent *se, *ee;
	DIR *sd, *ed;

	snprintf(path, sizeof(path), "%s/formats", out);
	sd = opendir(path);
	if (!sd)
		return errno == ENOENT ? 0 : -1;
	while ((se = readdir(sd))) {
		if (se->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/formats/%s", out, se->d_name);
		if (!strcmp(se->d_name, "header_page") || !strcmp(se->d_name, "header_event")) {
			unlink(path);
			continue;
		}
		ed = opendir(path);
		while (ed && (ee = readdir(ed))) {
			char ev[4400];

			if (ee->d_name[0] == '.')
				continue;
			snprintf(ev, sizeof(ev), "%s/%s/format", path, ee->d_name);
			unlink(ev);
			snprintf(ev, sizeof(ev), "%s/%s", path, ee->d_name);
			rmdir(ev);
		}
		if (ed)
			closedir(ed);
		rmdir(path);
	}
	closedir(sd);
	snprintf(path, sizeof(path), "%s/formats", out);
	return rmdir(path) && errno != ENOENT ? -1 : 0;
}

/* An earlier trace in DIR, and what was made from it, removed. */
static void record_clear_earlier(struct recording *s)
{
	const char *out = s->o.out;
	int held = traceout_held_trace(out);

	/*
	 * An earlier trace in DIR is replaced from here on: its meta.txt goes
	 * first (it is no longer complete), then its trace.dat, and the files
	 * of the older layout (saved_cmdlines, cpuN.raw, formats/), none of
	 * which may pass for this one's. The new ones take their final names
	 * only when the recording has succeeded.
	 */
	for (int cpu = -3; cpu < s->r.ncpus; cpu++) {
		char path[4096];

		if (cpu < 0)
			snprintf(path, sizeof(path), "%s/%s", out,
				 cpu == -3 ? "meta.txt" : cpu == -2 ? "trace.dat" :
				 "saved_cmdlines");
		else
			snprintf(path, sizeof(path), "%s/cpu%d.raw", out, cpu);
		if (unlink(path) && errno != ENOENT)
			opt_die(TRACE_PROG, "cannot remove the earlier %s: %s", path,
				strerror(errno));
	}
	if (held && remove_formats(out))
		opt_die(TRACE_PROG, "cannot remove the earlier %s/formats: %s", out,
			strerror(errno));
	/* and what was made from it (timeline, attribute): a report would
	 * draw it as this trace's */
	if (held && traceout_remove(out, s->err, sizeof(s->err)) < 0)
		opt_die(TRACE_PROG, "%s", s->err);
}

/*
 * trace.dat's header from the live tracefs: header_page, header_event and
 * the format of each recorded event (ftrace:print carries the markers).
 */
static void record_formats(struct recording *s)
{
	const char *only[50];
	char dir[4096];
	int n = 0;

	for (int i = 0; i < s->nevents; i++)
		only[n++] = s->events[i];
	only[n++] = "ftrace:print";
	only[n] = NULL;
	snprintf(dir, sizeof(dir), "%s/events", tracefs_tracing_dir());
	if (datfile_hdr_load(&s->r.h, dir, NULL, only, s->err, sizeof(s->err)))
		opt_die(TRACE_PROG, "cannot read the event formats: %s", s->err);
	s->r.subbuf = datfile_hdr_subbuf(&s->r.h);
	if (s->r.subbuf <= 0)
		opt_die(TRACE_PROG, "%s/header_page: no sub-buffer size in it", dir);
	s->r.h.page_size = (uint32_t)s->r.subbuf;
	s->r.h.ncpus = (uint32_t)s->r.ncpus;
	snprintf(s->r.h.clock, sizeof(s->r.h.clock), "mono");
}

/*
 * A temporary file for each traced CPU's pages (cpust: removed on every
 * way out); hw-residency.csv, trace.dat and meta.txt staged in DIR.
 */
static void record_open_files(struct recording *s)
{
	struct rec *r = &s->r;
	const char *out = s->o.out;
	int ret;

	files_for_cpus(r->ncpus);
	r->fds = malloc((size_t)r->ncpus * sizeof(*r->fds));
	r->cpu_tmp = calloc((size_t)r->ncpus, sizeof(*r->cpu_tmp));
	r->st = stage_new(out);
	r->cpust = stage_new(out);
	if (!r->fds || !r->cpu_tmp || !r->st || !r->cpust)
		opt_die(TRACE_PROG, "out of memory");
	for (int cpu = 0; cpu < r->ncpus; cpu++)
		r->fds[cpu] = -1;
	ret = stage_add(r->st, "hw-residency.csv", s->hw.tmp, sizeof(s->hw.tmp));
	if (ret)
		opt_die(TRACE_PROG, "%s/hw-residency.csv: %s", out, strerror(-ret));
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		char name[32], tmp[4096];

		if (s->o.mask && !cpuset_test(s->o.mask, cpu))
			continue;
		snprintf(name, sizeof(name), "cpu%d.raw", cpu);
		ret = stage_add(r->cpust, name, tmp, sizeof(tmp));
		if (ret)
			opt_die(TRACE_PROG, "%s/%s: %s", out, name, strerror(-ret));
		r->fds[cpu] = wfile_create(tmp, 0600);
		r->cpu_tmp[cpu] = strdup(tmp);
		if (r->fds[cpu] < 0)
			opt_die(TRACE_PROG, "cannot create %s: %s", tmp, strerror(-r->fds[cpu]));
		if (!r->cpu_tmp[cpu])
			opt_die(TRACE_PROG, "out of memory");
	}
	ret = stage_add(r->st, "trace.dat", s->dat_tmp, sizeof(s->dat_tmp));
	if (ret)
		opt_die(TRACE_PROG, "%s/trace.dat: %s", out, strerror(-ret));
	/* Added last, so renamed last: a meta.txt means a complete trace. */
	ret = stage_add(r->st, "meta.txt", s->meta_tmp, sizeof(s->meta_tmp));
	if (ret)
		opt_die(TRACE_PROG, "%s/meta.txt: %s", out, strerror(-ret));
	/* the recorders wait in the kernel until tracing is on */
	if (cpurec_start(r->inst, r->ncpus, r->fds, r->subbuf, &r->cr, s->err,
			 sizeof(s->err)))
		opt_die(TRACE_PROG, "%s", s->err);
}

/* Tracing on, the line scripts wait for, and the command started. */
static void record_start(struct recording *s)
{
	hwres_begin(&s->hw);
	s->start = clock_now_ns();
	tracefs_trace_on(s->r.inst);
	/* Scripts that start their load beside a recording wait for this
	 * line: events before it are not recorded. */
	fprintf(stderr, "%s: recording in instance %s into %s\n", TRACE_PROG,
		s->r.name, s->o.out);
	if (!s->cmd)
		return;
	/* What the command leaves running comes to us (see stop_leftovers). */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	s->child = fork();
	if (s->child == 0) {
		/* The command (and the servers it starts) find the instance
		 * for their markers here. */
		setenv("WAKEBENCH_TRACE_INSTANCE", s->r.name, 1);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &s->old, NULL);
		execvp(s->cmd[0], s->cmd);
		fprintf(stderr, "%s: cannot run %s: %s\n", TRACE_PROG,
			s->cmd[0], strerror(errno));
		_exit(127);
	}
}

/*
 * The recorders run on their own until the duration is over, the command
 * has exited or a stop signal came (passed on to the command): looked at
 * every 50 ms.
 */
static void record_loop(struct recording *s)
{
	s->rc = 0;
	for (;;) {
		struct timespec ts = { 0, 50000000 };
		int sig = sigtimedwait(&s->stopset, NULL, &ts);
		int status, bad = 0, ret = cpurec_error(s->r.cr, &bad);

		if (ret) {
			/* A full disk: the cause is the write's errno. */
			fprintf(stderr, "%s: cannot write %s: %s\n", TRACE_PROG,
				s->r.cpu_tmp[bad], strerror(-ret));
			s->failed = 1;
			break;
		}
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT) {
			s->sig = sig;
			if (s->child > 0) {
				kill(s->child, sig);
				continue;	/* stop when the command has */
			}
			break;
		}
		if (s->child > 0 && waitpid(s->child, &status, WNOHANG) == s->child) {
			s->rc = WIFEXITED(status) ? WEXITSTATUS(status) :
				128 + WTERMSIG(status);
			break;
		}
		if (!s->cmd && clock_now_ns() - s->start >= (uint64_t)(s->o.duration * 1e9))
			break;
	}
}

/* The command's leftovers stopped, tracing off, the last pages drained. */
static void record_stop(struct recording *s)
{
	struct rec *r = &s->r;
	int bad = 0, ret;

	if (s->cmd) {
		/* The command has exited (or recording failed): what it left
		 * running, or the command itself, is stopped before the
		 * instance goes. */
		int left;

		if (s->child > 0 && waitpid(s->child, NULL, WNOHANG) == 0)
			kill(s->child, SIGTERM);
		left = stop_leftovers(s->child);
		if (left)
			fprintf(stderr, "%s: stopped %d process%s the command left running\n",
				TRACE_PROG, left, left == 1 ? "" : "es");
	}
	tracefs_trace_off(r->inst);
	s->end = clock_now_ns();
	if (hwres_end(&s->hw, r))
		s->failed = 1;
	/* each recorder drains its CPU and stops: a full disk is named */
	ret = cpurec_stop(r->cr, &bad, s->err, sizeof(s->err));
	if (ret && !s->failed)
		fprintf(stderr, "%s: cannot write %s: %s\n", TRACE_PROG,
			r->cpu_tmp[bad], strerror(-ret));
	s->failed |= ret != 0;
	r->pages = cpurec_bytes(r->cr) / (uint64_t)r->subbuf;
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		if (r->fds[cpu] >= 0 && close(r->fds[cpu]) && !s->failed) {
			fprintf(stderr, "%s: cannot write %s: %s\n", TRACE_PROG,
				r->cpu_tmp[cpu], strerror(errno));
			s->failed = 1;
		}
		r->fds[cpu] = -1;
	}
}

/* The CPUs' pages, read back from their temporary files, into trace.dat. */
static int record_write_dat(struct recording *s)
{
	struct rec *r = &s->r;
	int *in = malloc((size_t)r->ncpus * sizeof(*in)), fd, ret = 0;

	if (!in) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		in[cpu] = r->cpu_tmp[cpu] ? open(r->cpu_tmp[cpu], O_RDONLY | O_CLOEXEC) : -1;
		if (r->cpu_tmp[cpu] && in[cpu] < 0 && !ret) {
			ret = -errno;
			snprintf(s->err, sizeof(s->err), "%s: %s", r->cpu_tmp[cpu],
				 strerror(errno));
		}
	}
	fd = ret ? -1 : wfile_create(s->dat_tmp, 0644);
	if (!ret && fd < 0) {
		ret = fd;
		snprintf(s->err, sizeof(s->err), "%s: %s", s->dat_tmp, strerror(-fd));
	}
	if (!ret)
		ret = datfile_write(fd, &r->h, in, NULL, s->dat_tmp, s->err, sizeof(s->err));
	if (fd >= 0 && close(fd) && !ret) {
		ret = -errno;
		snprintf(s->err, sizeof(s->err), "%s: %s", s->dat_tmp, strerror(errno));
	}
	for (int cpu = 0; cpu < r->ncpus; cpu++)
		if (in[cpu] >= 0)
			close(in[cpu]);
	free(in);
	return ret;
}

/*
 * trace.dat and meta.txt written, then every file put in place; -errno
 * (named on stderr) when one of them cannot be.
 */
static int record_commit(struct recording *s)
{
	/*
	 * The kernel's pid -> name table (top level: instances share it),
	 * trace.dat's process names; none when it cannot be read.
	 */
	int size = 0, ret;
	char *names = tracefs_instance_file_read(NULL, "saved_cmdlines", &size);
	size_t len = 0;
	char *text;

	s->r.h.cmdlines = names;
	s->r.h.cmdlines_len = names && size > 0 ? (size_t)size : 0;
	ret = record_write_dat(s);
	if (ret) {
		fprintf(stderr, "%s: cannot write %s/trace.dat: %s\n", TRACE_PROG,
			s->o.out, s->err);
		return ret;
	}
	/* the pages are in trace.dat: their temporary files go now */
	stage_free(s->r.cpust);
	s->r.cpust = NULL;
	/* meta.txt last: its temporary, then every file fsynced and renamed
	 * into place, meta.txt after the raw files. */
	text = meta_text(&s->r, s->start, s->end, s->events, s->nevents, s->cmdline,
			 s->o.buffer_kb, &len);
	ret = text ? wfile_write_new(s->meta_tmp, text, len) : -ENOMEM;
	free(text);
	if (ret)
		fprintf(stderr, "%s: cannot write %s/meta.txt: %s\n", TRACE_PROG,
			s->o.out, strerror(-ret));
	else if ((ret = stage_commit(s->r.st, s->err, sizeof(s->err))))
		fprintf(stderr, "%s: cannot put the trace in place: %s\n",
			TRACE_PROG, s->err);
	return ret;
}

/* The instance and any unkept file removed, the outcome said, freed. */
static int record_finish(struct recording *s)
{
	struct rec *r = &s->r;

	destroy_instance();
	discard_files();
	sigprocmask(SIG_SETMASK, &s->old, NULL);
	if (r->kept)
		fprintf(stderr, "%s: %llu pages (%d KB each) in %s, %.3f s%s\n",
			TRACE_PROG, (unsigned long long)r->pages, r->subbuf / 1024, s->o.out,
			(s->end - s->start) / 1e9, s->sig ? " (interrupted)" : "");
	else
		fprintf(stderr, "%s: recording failed after %.3f s; no trace kept in %s (the %llu pages written and their temporary files are removed)\n",
			TRACE_PROG, (s->end - s->start) / 1e9, s->o.out,
			(unsigned long long)r->pages);
	for (int cpu = 0; r->cpu_tmp && cpu < r->ncpus; cpu++)
		free(r->cpu_tmp[cpu]);
	free(r->cpu_tmp);
	free(r->fds);
	datfile_hdr_free(&r->h);
	cpuset_free(s->o.mask);
	free(s->cmdline);
	live = NULL;
	if (s->failed)
		return s->rc ? s->rc : 1;
	if (s->sig && !s->cmd)
		return 0;	/* Ctrl-C is how a duration-less user stops early */
	return s->rc;
}

int trace_record(int argc, char **argv, int full_argc, char **full_argv)
{
	struct recording s = { .child = -1, .rc = 1 };

	/* A closed standard error (a pipe whose reader is gone) is no reason
	 * to die with the instance up or the files half written. */
	signal(SIGPIPE, SIG_IGN);
	record_parse(&s, argc, argv, full_argc, full_argv);
	record_make_out(&s);
	record_setup_instance(&s);
	record_clear_earlier(&s);
	record_formats(&s);
	record_open_files(&s);
	record_start(&s);
	record_loop(&s);
	record_stop(&s);
	if (!s.failed) {
		if (record_commit(&s))
			s.failed = 1;
		else
			s.r.kept = 1;
	}
	return record_finish(&s);
}
