// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench cstate: list, disable, enable and limit CPU idle states, hold
 * PM QoS, restore. Every change is saved before it is made and undone at
 * the end of the command it wraps, on SIGINT/SIGTERM/SIGHUP, or (after a
 * SIGKILL) by `wakebench cstate restore`.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clishared.h"
#include "cpu.h"
#include "json.h"
#include "cpuset.h"
#include "cstate.h"
#include "pmqos.h"
#include "idlestate.h"
#include "cmdline.h"
#include "die.h"
#include "opt.h"
#include "runcmd.h"
#include "sysfs.h"

#define PROG "wakebench-cstate"

struct cmd_opts {
	const char *cpus;	/* --cpus LIST as given */
	struct cpuset *mask;	/* NULL: all CPUs */
	int ncpus;
	int json;
	int persist;
	int force;
	int system;
	int have_latency;
	uint64_t latency_us;
	char **states;
	int nstates;
	char **cmd;		/* after "--", NULL-terminated */
};

#define AT(field) CLI_AT(struct cmd_opts, field)

static const struct cli_opt cstate_options[] = {
	{ .name = "cpus", .short_name = 'c', .kind = CLI_STRING, .arg = "LIST",
	  .help = "the CPUs (0,2-3; default all)", .off = AT(cpus) },
	{ .name = "json", .kind = CLI_FLAG, .help = "list: JSON",
	  .off = AT(json) },
	{ .name = "max-latency-us", .kind = CLI_UINT, .arg = "N",
	  .max = INT32_MAX, .hint = "microseconds",
	  .help = "limit: exit latency bound; hold: the PM QoS value",
	  .off = AT(latency_us), .seen = AT(have_latency) },
	/* hold's old spelling; any verb takes either */
	{ .name = "latency-us", .kind = CLI_UINT, .arg = "N",
	  .max = INT32_MAX, .hint = "microseconds", .hidden = 1,
	  .off = AT(latency_us), .seen = AT(have_latency) },
	{ .name = "system", .kind = CLI_FLAG,
	  .help = "limit, hold: also /dev/cpu_dma_latency (all CPUs)",
	  .off = AT(system) },
	{ .name = "force", .kind = CLI_FLAG,
	  .help = "override another live session's setting",
	  .off = AT(force) },
	{ .name = "persist", .kind = CLI_FLAG,
	  .help = "keep the change after exit ('restore' undoes it)",
	  .off = AT(persist) },
	CLI_OPT_HELP,
	{ .kind = CLI_END }
};

static const struct cli_cmd cstate_cmd = {
	.prog = PROG,
	.usage =
"Usage: wakebench cstate list [--cpus LIST] [--json]\n"
"       wakebench cstate disable STATE... [--cpus LIST] [--force] [--persist] [-- COMMAND...]\n"
"       wakebench cstate enable STATE... [--cpus LIST] [--force] [--persist] [-- COMMAND...]\n"
"       wakebench cstate limit --max-latency-us N [--cpus LIST] [--system] [--force]\n"
"                              [--persist] [-- COMMAND...]\n"
"       wakebench cstate hold --max-latency-us N [--cpus LIST | --system] [--force]\n"
"                             [-- COMMAND...]\n"
"       wakebench cstate governor [NAME] [--force] [--persist] [-- COMMAND...]\n"
"       wakebench cstate haltpoll [NS] [--force] [--persist] [-- COMMAND...]\n"
"       wakebench cstate busy-poll [US] [--force] [--persist] [-- COMMAND...]\n"
"       wakebench cstate restore [STATEFILE...]",
	.about =
"STATE is an index (2) or the kernel's name ('haltpoll idle', C1E;\n"
"case-insensitive, '_' or '-' for a space, or the first word of one name).\n"
"LIST is a CPU list (0,2-3; default all). A change is saved first to\n"
"/run/wakebench/cstate.<pid>.state ($WAKEBENCH_STATE_DIR), then held while\n"
"COMMAND runs, or until SIGINT/SIGTERM/SIGHUP without one, and restored.\n"
"With --persist the change stays; 'restore' undoes it. limit disables\n"
"every state whose exit latency exceeds N us and sets each CPU's\n"
"pm_qos_resume_latency_us to N; --system also holds /dev/cpu_dma_latency\n"
"(all CPUs) at N. hold keeps /dev/cpu_dma_latency at N (0: C-states off\n"
"without sysfs writes), or with --cpus the CPUs' resume latency limit.\n"
"A setting another live session holds at another value is refused unless\n"
"--force. 'restore' with no file undoes every state file left by a dead\n"
"process. governor shows the available and current cpuidle governors, or\n"
"sets NAME (one of them) the same way. haltpoll shows or sets the guest\n"
"haltpoll driver's poll window (module/haltpoll/parameters/\n"
"guest_halt_poll_ns), busy-poll the sysctls net.core.busy_read and\n"
"busy_poll (socket busy polling in us; /proc/sys or $WAKEBENCH_PROCSYS),\n"
"each held and restored the same way. disable, enable, limit, hold and\n"
"governor NAME, haltpoll NS, busy-poll US change the machine: on the\n"
"real /sys (/proc/sys) they need root.\n"
"hold --latency-us is the old spelling of --max-latency-us.\n",
	.footer =
"Exit status: COMMAND's, or 0; 1 on runtime errors; 2 on usage errors.\n",
	.col = 26,
	.max_args = INT_MAX,
	.opts = cstate_options,
};

static void parse(int argc, char **argv, struct cmd_opts *o, const char *verb)
{
	int first;

	memset(o, 0, sizeof(*o));
	o->ncpus = idlestate_cpu_count();
	if (o->ncpus < 1)
		o->ncpus = cpu_count();
	/* Everything after "--" is the COMMAND; options may follow states. */
	argc = opt_split_command(PROG, argc, argv, &o->cmd);
	first = cli_parse(&cstate_cmd, argc, argv, o);
	if (o->cpus)
		o->mask = opt_cpus(PROG, o->cpus, o->ncpus);
	o->states = argv + first;
	o->nstates = argc - first;
	if (o->persist && o->cmd)
		opt_usage(PROG, "%s: --persist and a COMMAND exclude each other",
			  verb);
}

/* "0": no constraint; "n/a": no latency tolerated (the kernel's words). */
static const char *resume_words(const char *v)
{
	if (!strcmp(v, "0"))
		return " (no constraint)";
	if (!strcmp(v, "n/a"))
		return " (no exit latency tolerated)";
	return " us";
}

/*
 * The header: driver, governor, and the PM QoS limits in force beside
 * the states (without a cpuidle driver they are all that can be set,
 * and nothing reads them).
 */
static struct json *list_header(const struct cmd_opts *o)
{
	char drv[64], gov[64];
	struct json *j = NULL;
	int32_t us;
	int have = !cstate_pmqos_read(&us);

	idlestate_driver(drv, sizeof(drv));
	idlestate_governor(gov, sizeof(gov));
	if (o->json) {
		j = json_open("-");
		json_obj_begin(j, NULL);
		json_str(j, "driver", drv);
		json_str(j, "governor", gov);
		json_obj_begin(j, "pm_qos");
		if (have)
			json_u64(j, "cpu_dma_latency_us", (uint64_t)us);
		else
			json_str(j, "cpu_dma_latency_us", NULL);
		json_bool(j, "read_by_governor", strcmp(drv, "none") != 0);
		json_obj_end(j);
		json_arr_begin(j, "cpus");
		return j;
	}
	printf("cpuidle driver: %s, governor: %s\n", drv, gov);
	if (have)
		printf("PM QoS: %s %d us%s%s\n", CSTATE_PMQOS_DEV, (int)us,
		       us == CSTATE_PMQOS_NONE ? " (no constraint)" : "",
		       strcmp(drv, "none") ? "" : "; nothing reads PM QoS without a cpuidle driver");
	else
		printf("PM QoS: %s unreadable%s\n", CSTATE_PMQOS_DEV,
		       strcmp(drv, "none") ? "" : "; nothing reads PM QoS without a cpuidle driver");
	printf("%-4s %-5s %-14s %9s %9s %12s %14s %-8s %-9s %s\n", "cpu",
	       "state", "name", "latency", "residency", "usage",
	       "time_us", "disabled", "resume_us", "description");
	return NULL;
}

static void list_state(struct json *j, int cpu, const struct idlestate *st,
		       const char *resume)
{
	if (!j) {
		printf("%-4d %-5u %-14s %9llu %9llu %12llu %14llu %-8s %-9s %s\n",
		       cpu, st->index, st->name,
		       (unsigned long long)st->latency_us,
		       (unsigned long long)st->residency_us,
		       (unsigned long long)st->usage,
		       (unsigned long long)st->time_us,
		       st->disabled ? "yes" : "no", resume, st->desc);
		return;
	}
	json_obj_begin(j, NULL);
	json_u64(j, "index", st->index);
	json_str(j, "name", st->name);
	json_str(j, "desc", st->desc);
	json_u64(j, "latency_us", st->latency_us);
	json_u64(j, "residency_us", st->residency_us);
	json_u64(j, "usage", st->usage);
	json_u64(j, "time_us", st->time_us);
	json_bool(j, "disabled", st->disabled);
	json_obj_end(j);
}

/* One CPU: its states, its resume latency limit; 1 when it has states. */
static int list_cpu(struct json *j, int cpu)
{
	int n = idlestate_count((unsigned int)cpu), any = 0;
	char resume[32];

	if (cstate_resume_read((unsigned int)cpu, resume, sizeof(resume)))
		snprintf(resume, sizeof(resume), "-");
	if (j) {
		json_obj_begin(j, NULL);
		json_u64(j, "cpu", (uint64_t)cpu);
		json_str(j, "resume_latency_us", strcmp(resume, "-") ? resume : NULL);
		json_arr_begin(j, "states");
	}
	for (int i = 0; i < n; i++) {
		struct idlestate st;

		if (idlestate_get((unsigned int)cpu, (unsigned int)i, &st))
			continue;
		any = 1;
		list_state(j, cpu, &st, resume);
	}
	if (j) {
		json_arr_end(j);
		json_obj_end(j);
	} else if (!any) {
		printf("%-4d %-5s %-14s %9s %9s %12s %14s %-8s %-9s no idle states; resume latency limit %s%s\n",
		       cpu, "-", "(no states)", "-", "-", "-", "-", "-", resume,
		       strcmp(resume, "-") ? resume : "none",
		       strcmp(resume, "-") ? resume_words(resume) : "");
	}
	return any;
}

static int list_states(const struct cmd_opts *o)
{
	struct json *j = list_header(o);
	int any = 0;

	for (int cpu = 0; cpu < o->ncpus; cpu++)
		if (!o->mask || cpuset_test(o->mask, cpu))
			any |= list_cpu(j, cpu);
	if (j) {
		json_arr_end(j);
		json_obj_end(j);
		json_close(j);
	} else if (!any) {
		printf("(no idle states: this kernel has no cpuidle driver; PM QoS "
		       "can be set ('hold', 'limit', --cstates) but nothing reads it)\n");
	}
	return 0;
}

static void report(const char *msg)
{
	printf("restored: %s\n", msg);
}

static void show(void *ctx, const char *text)
{
	(void)ctx;
	printf("%s\n", text);
}

/* A record whose process runs: listed with what it holds, left to it. */
static void left_alone(const char *path)
{
	if (cstate_describe_file(path, show, NULL) >= 0)
		printf("  left alone: its process is running and restores these when it ends (stop it, or wait for it)\n");
}

static int restore_all(char **files, int nfiles)
{
	char path[600], bad[700];
	struct dirent *de;
	DIR *d;
	int rc = 0, found = 0, live = 0;

	for (int i = 0; i < nfiles; i++) {
		int ret = cstate_restore_file(files[i], report);

		if (ret == -EBUSY)
			left_alone(files[i]);
		if (ret < 0) {
			fprintf(stderr, "%s: %s: %s\n", PROG, files[i],
				ret == -EBUSY ? "its process is still running" :
				ret == -EINVAL ? "not a wakebench state file" :
				ret == -EBADMSG ? "lines not understood; moved aside to .bad" :
				strerror(-ret));
			rc = 1;
		}
	}
	if (nfiles)
		return rc;
	d = opendir(cstate_state_dir());
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		int ret;

		if (strncmp(de->d_name, "cstate.", 7) || len < 13 ||
		    strcmp(de->d_name + len - 6, ".state"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", cstate_state_dir(),
			 de->d_name);
		/* whose it is and what restoring it changes, first */
		ret = cstate_describe_file(path, show, NULL);
		if (ret == 1) {
			printf("  left alone: its process is running and restores these when it ends (stop it, or wait for it)\n");
			live++;
			continue;	/* a live session restores itself */
		}
		ret = cstate_restore_file(path, report);
		if (ret == -EBUSY) {
			left_alone(path);
			live++;
			continue;
		}
		found++;
		if (ret == -EINVAL) {
			/* Ours by name, unreadable: aside, not forever. */
			snprintf(bad, sizeof(bad), "%s.bad", path);
			if (!rename(path, bad))
				fprintf(stderr, "%s: %s: not a wakebench state file; moved aside to %s\n",
					PROG, path, bad);
			else
				fprintf(stderr, "%s: %s: not a wakebench state file\n",
					PROG, path);
			rc = 1;
		} else if (ret == -EBADMSG) {
			fprintf(stderr, "%s: %s: lines not understood; moved aside to %s.bad\n",
				PROG, path, path);
			rc = 1;
		} else if (ret < 0) {
			fprintf(stderr, "%s: %s: %s\n", PROG, path,
				strerror(-ret));
			rc = 1;
		}
	}
	if (d)
		closedir(d);
	if (!found && live)
		printf("nothing restored: %d state file%s in %s %s (above), restored by %s when %s\n",
		       live, live == 1 ? "" : "s", cstate_state_dir(),
		       live == 1 ? "belongs to a running process" :
		       "belong to running processes",
		       live == 1 ? "it" : "them", live == 1 ? "it ends" : "they end");
	else if (!found)
		printf("nothing to restore in %s (no state files)\n", cstate_state_dir());
	return rc;
}

/*
 * From before the first change to the restore, SIGINT, SIGTERM and SIGHUP
 * only note themselves (they are taken by sigwait while holding), and
 * SIGPIPE does not kill: a closed stderr must not leave C-states changed.
 * Handlers, not SIG_IGN or a blocked mask, so that COMMAND starts with
 * the default actions.
 */
static volatile sig_atomic_t stop_sig;

static void note_stop(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}

static void no_op(int sig)
{
	(void)sig;
}

static void guard_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = note_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = no_op;
	sigaction(SIGPIPE, &sa, NULL);
}

static struct cstate_session *begin(const struct cmd_opts *o, char *cmdline)
{
	struct cstate_session *s;

	guard_signals();
	s = cstate_begin(cmdline);
	if (!s)
		opt_die(PROG, "out of memory");
	cstate_force(s, o->force);
	cstate_end_at_exit(s);
	return s;
}

/* Holds the session while COMMAND runs or until a signal, then restores. */
static int hold_and_restore(struct cstate_session *s, const struct cmd_opts *o)
{
	int rc = 0, sig = 0, left;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (o->persist && !stop_sig) {
		cstate_detach(s);	/* the state file stays for `restore` */
		printf("%s: left in place; undo with 'wakebench cstate restore'\n",
		       PROG);
		return 0;
	}
	if (stop_sig) {
		/* A signal came while setting up: restore at once. */
		sig = stop_sig;
		rc = runcmd_sig_exit(sig);
	} else if (o->cmd) {
		/* Still blocked: a signal from here on stays pending until
		 * runcmd_run() passes it to COMMAND (unblocking first lost
		 * one that came before the fork to the handler above). */
		rc = runcmd_run(o->cmd, &sig);
	} else {
		fprintf(stderr, "%s: holding; SIGINT, SIGTERM or SIGHUP restores\n",
			PROG);
		sig = runcmd_wait_signal();
	}
	left = cstate_end(s);
	if (left < 0) {
		fprintf(stderr, "%s: restore failed: %s; state file kept for 'wakebench cstate restore'\n",
			PROG, strerror(-left));
		return 1;
	}
	if (left > 0)
		fprintf(stderr, "%s: %d setting(s) changed by someone else since; left as is\n",
			PROG, left);
	if (!o->cmd && sig)
		return 0;
	return rc;
}

static void die_change(struct cstate_session *s, const char *what, int ret)
{
	char msg[600];

	snprintf(msg, sizeof(msg), "%s", ret == -EBUSY ? cstate_error(s) :
		 strerror(-ret));
	cstate_end(s);
	opt_die(PROG, "cannot %s: %s%s; nothing changed", what, msg,
		ret == -EACCES || ret == -EPERM ? " (needs root)" : "");
}

static int change_states(const struct cmd_opts *o, int disable, char *cmdline)
{
	struct cstate_session *s;
	int total = 0;

	if (!o->nstates)
		opt_usage(PROG, "%s: which STATE?", disable ? "disable" : "enable");
	if (o->system)
		opt_usage(PROG, "--system is for limit (and hold)");
	for (int cpu = 0; cpu < o->ncpus; cpu++)
		if (!o->mask || cpuset_test(o->mask, cpu))
			total += idlestate_count((unsigned int)cpu);
	if (!total)
		opt_die(PROG, "no idle states to change: this kernel has no cpuidle driver (current_driver is none); use 'hold' for PM QoS");
	/* Resolve every name on every CPU before changing anything. */
	for (int cpu = 0; cpu < o->ncpus; cpu++) {
		if (o->mask && !cpuset_test(o->mask, cpu))
			continue;
		for (int k = 0; k < o->nstates; k++) {
			int idx = cstate_resolve((unsigned int)cpu, o->states[k]);

			if (idx == -ENOTUNIQ)
				opt_die(PROG, "idle state '%s' is ambiguous on cpu%d: give the full name or the index (see 'wakebench cstate list')",
					o->states[k], cpu);
			if (idx < 0)
				opt_die(PROG, "unknown idle state '%s' on cpu%d", o->states[k], cpu);
		}
	}
	s = begin(o, cmdline);
	for (int cpu = 0; cpu < o->ncpus; cpu++) {
		if (o->mask && !cpuset_test(o->mask, cpu))
			continue;
		for (int k = 0; k < o->nstates; k++) {
			int idx = cstate_resolve((unsigned int)cpu, o->states[k]);
			int ret = cstate_set(s, (unsigned int)cpu, (unsigned int)idx, disable);
			char what[300];

			if (ret) {
				snprintf(what, sizeof(what), "%s cpu%d state %s",
					 disable ? "disable" : "enable", cpu,
					 o->states[k]);
				die_change(s, what, ret);
			}
		}
	}
	return hold_and_restore(s, o);
}

static int run_limit(struct cmd_opts *o, char *cmdline)
{
	struct cstate_spec spec = { CSTATE_MAXLAT, o->latency_us, o->system };
	struct cstate_session *s;
	char err[1024];

	if (!o->have_latency)
		opt_usage(PROG, "limit needs --max-latency-us N");
	if (o->nstates)
		opt_usage(PROG, "limit takes no STATE");
	s = begin(o, cmdline);
	if (cstate_apply(s, &spec, o->mask, err, sizeof(err))) {
		cstate_end(s);
		opt_die(PROG, "%s; nothing changed", err);
	}
	if (cstate_warning(s)[0])
		fprintf(stderr, "%s: warning: %s\n", PROG, cstate_warning(s));
	return hold_and_restore(s, o);
}

/*
 * hold sets PM QoS and nothing else; without a cpuidle driver nothing
 * reads it: said, as for limit (the held value is in what).
 */
static void hold_warning(const struct cmd_opts *o, const char *what)
{
	char drv[64];

	for (int cpu = 0; cpu < o->ncpus; cpu++)
		if ((!o->mask || cpuset_test(o->mask, cpu)) &&
		    idlestate_count((unsigned int)cpu) > 0)
			return;
	idlestate_driver(drv, sizeof(drv));
	fprintf(stderr, "%s: warning: no cpuidle driver (current_driver: %s): %s held, which nothing reads without a cpuidle driver\n",
		PROG, drv, what);
}

static int run_hold(struct cmd_opts *o, char *cmdline)
{
	struct cstate_session *s;
	char val[32], what[128];
	int ret;

	if (!o->have_latency)
		opt_usage(PROG, "hold needs --max-latency-us N");
	if (o->nstates || o->persist)
		opt_usage(PROG, "hold takes only --max-latency-us, --cpus, --system, --force and a COMMAND");
	if (o->mask && o->system)
		opt_usage(PROG, "hold: --cpus (per-CPU resume latency) or --system (/dev/cpu_dma_latency), not both");
	s = begin(o, cmdline);
	if (!o->mask) {
		/* The system-wide hold. */
		ret = cstate_pmqos_hold(s, (int32_t)o->latency_us);
		if (ret) {
			snprintf(what, sizeof(what), "hold %s", CSTATE_PMQOS_DEV);
			die_change(s, what, ret);
		}
		snprintf(what, sizeof(what), "%s at %llu us", CSTATE_PMQOS_DEV,
			 (unsigned long long)o->latency_us);
		hold_warning(o, what);
		return hold_and_restore(s, o);
	}
	/* Per CPU: each CPU's PM QoS resume latency limit. */
	cstate_resume_value(o->latency_us, val, sizeof(val));
	for (int cpu = 0; cpu < o->ncpus; cpu++) {
		if (!cpuset_test(o->mask, cpu))
			continue;
		ret = cstate_set_resume(s, (unsigned int)cpu, val);
		if (ret) {
			snprintf(what, sizeof(what), "set cpu%d pm_qos_resume_latency_us to %s%s",
				 cpu, val, ret == -ENOENT ? " (no such file)" : "");
			die_change(s, what, ret);
		}
	}
	snprintf(what, sizeof(what), "pm_qos_resume_latency_us of CPUs %s at %s",
		 o->cpus, val);
	hold_warning(o, what);
	return hold_and_restore(s, o);
}

/* The governors: available, current, whether it can be switched. */
static int show_governor(const struct cmd_opts *o, const char *avail,
			 const char *cur, int writable)
{
	if (o->json) {
		struct json *j = json_open("-");
		char words[256], *w, *save = NULL;

		json_obj_begin(j, NULL);
		json_str(j, "current", cur);
		json_bool(j, "writable", writable);
		json_arr_begin(j, "available");
		snprintf(words, sizeof(words), "%s", avail);
		for (w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
			json_str(j, NULL, w);
		json_arr_end(j);
		json_obj_end(j);
		return json_close(j) ? 1 : 0;
	}
	printf("current cpuidle governor: %s%s\n", cur,
	       writable ? "" : " (read-only: this kernel has no cpuidle/current_governor)");
	printf("available: %s\n", avail[0] ? avail : "(not listed: no cpuidle/available_governors)");
	return 0;
}

/*
 * governor [NAME]: shows the cpuidle governor, or sets it for the
 * session (held, restored on exit and by 'restore', as the states).
 */
static int run_governor(struct cmd_opts *o, char *cmdline)
{
	char avail[256], cur[64], probe[64];
	struct cstate_session *s;
	int writable, ret;

	if (o->nstates > 1)
		opt_usage(PROG, "governor takes one NAME");
	if (o->cpus || o->system || o->have_latency)
		opt_usage(PROG, "governor is machine-wide: no --cpus, --system or --max-latency-us");
	idlestate_governors(avail, sizeof(avail));
	writable = sysfs_read(probe, sizeof(probe),
			      "devices/system/cpu/cpuidle/current_governor") >= 0;
	idlestate_governor(cur, sizeof(cur));
	if (!o->nstates) {
		if (o->cmd || o->persist)
			opt_usage(PROG, "governor: a COMMAND or --persist needs a NAME");
		return show_governor(o, avail, cur, writable);
	}
	if (!idlestate_governor_listed(avail, o->states[0]))
		opt_usage(PROG, "unknown cpuidle governor '%s' (this kernel has: %s)",
			  o->states[0], avail[0] ? avail : "none listed");
	if (!writable)
		opt_die(PROG, "this kernel cannot switch the cpuidle governor (no %s/devices/system/cpu/cpuidle/current_governor); nothing changed",
			sysfs_root());
	if (geteuid() != 0 && sysfs_is_real())
		opt_die(PROG, "governor changes the machine's idle settings: needs root");
	s = begin(o, cmdline);
	ret = cstate_set_governor(s, o->states[0]);
	if (ret) {
		char what[128];

		snprintf(what, sizeof(what), "set the cpuidle governor to %s", o->states[0]);
		die_change(s, what, ret);
	}
	return hold_and_restore(s, o);
}

/*
 * haltpoll [NS], busy-poll [US]: one machine-wide number, shown, or set
 * for the session (held, restored on exit and by 'restore').
 */
struct number_setting {
	const char *verb, *what, *unit;
	uint64_t max;
	int (*read)(char *buf, size_t len);
	int (*set)(struct cstate_session *s, uint64_t v);
	int (*real)(void);	/* whether it is the real machine's */
	void (*check)(void);	/* warns or dies before a change; NULL: none */
};

static int run_number(struct cmd_opts *o, char *cmdline,
		      const struct number_setting *ns)
{
	char cur[64], what[160];
	struct cstate_session *s;
	uint64_t v;
	int ret;

	if (o->nstates > 1)
		opt_usage(PROG, "%s takes one number", ns->verb);
	if (o->cpus || o->system || o->have_latency)
		opt_usage(PROG, "%s is machine-wide: no --cpus, --system or --max-latency-us",
			  ns->verb);
	ret = ns->read(cur, sizeof(cur));
	if (!o->nstates) {
		if (o->cmd || o->persist)
			opt_usage(PROG, "%s: a COMMAND or --persist needs a value", ns->verb);
		if (ret < 0)
			opt_die(PROG, "%s: %s", ns->what, strerror(-ret));
		printf("%s: %s %s\n", ns->what, cur, ns->unit);
		return 0;
	}
	if (opt_u64(o->states[0], 0, ns->max, &v))
		opt_usage(PROG, "%s: '%s' is not a whole number of %s up to %llu",
			  ns->verb, o->states[0], ns->unit, (unsigned long long)ns->max);
	if (ret < 0)
		opt_die(PROG, "cannot read %s: %s; nothing changed", ns->what, strerror(-ret));
	if (geteuid() != 0 && ns->real())
		opt_die(PROG, "%s changes the machine's settings: needs root", ns->verb);
	if (ns->check)
		ns->check();
	s = begin(o, cmdline);
	ret = ns->set(s, v);
	if (ret) {
		snprintf(what, sizeof(what), "set %s to %s", ns->what, o->states[0]);
		die_change(s, what, ret);
	}
	return hold_and_restore(s, o);
}

static int read_haltpoll(char *buf, size_t len)
{
	return sysfs_read(buf, len, CSTATE_HALTPOLL_FILE);
}

/* The window acts only under the haltpoll cpuidle driver: said, not refused. */
static void check_haltpoll(void)
{
	char drv[64];

	idlestate_driver(drv, sizeof(drv));
	if (strcmp(drv, "haltpoll"))
		fprintf(stderr, "%s: warning: the cpuidle driver is %s, not haltpoll: guest_halt_poll_ns is set but nothing reads it\n",
			PROG, drv);
}

static int read_busy_poll(char *buf, size_t len)
{
	char a[32], b[32];
	int ret = procsys_read(a, sizeof(a), "net/core/busy_read");

	if (ret >= 0)
		ret = procsys_read(b, sizeof(b), "net/core/busy_poll");
	if (ret >= 0)
		snprintf(buf, len, "%s (busy_read), %s (busy_poll)", a, b);
	return ret;
}

static int run_haltpoll(struct cmd_opts *o, char *cmdline)
{
	static const struct number_setting hp = {
		"haltpoll", "guest_halt_poll_ns", "ns", UINT32_MAX, read_haltpoll,
		cstate_set_haltpoll_ns, sysfs_is_real, check_haltpoll,
	};

	return run_number(o, cmdline, &hp);
}

static int run_busy_poll(struct cmd_opts *o, char *cmdline)
{
	static const struct number_setting bp = {
		"busy-poll", "net.core.busy_read and busy_poll", "us", INT32_MAX,
		read_busy_poll, cstate_set_busy_poll, procsys_is_real, NULL,
	};

	return run_number(o, cmdline, &bp);
}

static int run_list(struct cmd_opts *o, char *cmdline)
{
	(void)cmdline;
	if (o->nstates || o->cmd)
		opt_usage(PROG, "list takes no arguments");
	return list_states(o);
}

static int run_disable(struct cmd_opts *o, char *cmdline)
{
	return change_states(o, 1, cmdline);
}

static int run_enable(struct cmd_opts *o, char *cmdline)
{
	return change_states(o, 0, cmdline);
}

static int run_restore(struct cmd_opts *o, char *cmdline)
{
	(void)cmdline;
	return restore_all(o->states, o->nstates);
}

/*
 * The verbs, as cpupower's command table: each with whether it changes
 * the machine (and so needs root on the real /sys).
 */
static const struct cstate_verb {
	const char *name;
	int (*run)(struct cmd_opts *o, char *cmdline);
	int needs_root;
} verbs[] = {
	{ "list", run_list, 0 },
	{ "disable", run_disable, 1 },
	{ "enable", run_enable, 1 },
	{ "limit", run_limit, 1 },
	{ "hold", run_hold, 1 },
	{ "restore", run_restore, 0 },	/* fails where it has work and no right */
	{ "governor", run_governor, 0 },	/* checks root itself: NAME only */
	{ "haltpoll", run_haltpoll, 0 },	/* the same */
	{ "busy-poll", run_busy_poll, 0 },
};

int main(int argc, char **argv)
{
	const struct cstate_verb *v = NULL;
	struct cmd_opts o;
	char *cmdline;
	int rc;

	if (argc < 2)
		opt_usage(PROG, "which command? list, disable, enable, limit, hold, governor or restore");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cli_help(&cstate_cmd, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			v = &verbs[i];
	if (!v)
		opt_usage(PROG, "unknown command '%s'", argv[1]);
	cmdline = opt_cmdline(argc, argv);
	if (!cmdline)
		opt_die(PROG, "out of memory");
	parse(argc - 1, argv + 1, &o, v->name);
	/* Refuse before anything is resolved or saved. */
	if (v->needs_root && geteuid() != 0 && sysfs_is_real())
		opt_die(PROG, "%s changes the machine's idle settings: needs root",
			v->name);
	rc = v->run(&o, cmdline);
	free(cmdline);
	cpuset_free(o.mask);
	return rc;
}
