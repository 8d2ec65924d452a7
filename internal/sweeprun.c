// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-internal sweep-usage, sweep-cmd, run-agents: what
 * scripts/wakebench-sweep runs instead of computing itself. The script
 * only sequences programs (each step's failure is an exit status) and
 * forwards signals; the help text, each run's command lines (lib/sweep/
 * sweepcmd) and the client agents' start and wait are here.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "die.h"
#include "internal.h"
#include "opt.h"
#include "sweepcmd.h"
#include "sweepdim.h"
#include "sweepplan.h"

#define PROG SWEEP_PROG
/* A run's agents file: 64 agents of a few kB each. */
#define MAX_AGENTS_FILE ((size_t)1 << 20)

/* `wakebench sweep --help`, up to its dimensions */
static const char usage_head[] =
	"Usage: wakebench sweep --out DIR [--spec FILE] [options]\n"
	"\n"
	"Runs every point of the matrix of the list options below, REPS times\n"
	"each, in an order shuffled with --seed (or in pairs: --order). Lists\n"
	"are space-separated, in a spec file (`key = v1 v2 v3`, '#' comments,\n"
	"'_' or '-') or on the command line (which wins). Ready-made specs:\n"
	"scripts/examples/.\n"
	"\n"
	"Dimensions (lists):\n"
;

/* then the dimensions, from their table (lib/sweep/sweepdim) */

static const char usage_tail[] =
	"A value that does not apply to a point is collapsed ('-' in plan.txt,\n"
	"empty in sweep.csv), so no run is made twice: the client's pre-query\n"
	"options without a pre-query, the midtier's with two tiers, the client's\n"
	"pre-query with three (the midtier sends them there), helper_wait without\n"
	"a delay, warmup_mode without a warm-up, service_us, prequery_ack and\n"
	"prequery_receiver with memcached or redis (they answer every pre-query,\n"
	"which goes in-band, on the request connection).\n"
	"\n"
	"Single values:\n"
	"  --out DIR              results: DIR/<point>/rep-<n>/, DIR/sweep.csv,\n"
	"                         DIR/summary.csv (wakebench stats), DIR/plan.txt\n"
	"  --spec FILE            spec file; keys are the option names\n"
	"  --window N             adaptive window (default 1000)\n"
	"  --requests N           measured requests per run (default 1000)\n"
	"  --duration S           seconds per run instead of --requests\n"
	"  --warmup-interval-us US, --warmup-dist D   the warm-up's own schedule\n"
	"  --percentile-rule R    nearest-rank floor-index (default nearest-rank)\n"
	"  --reps N               repetitions per point (default 5)\n"
	"  --seed N               order and generator seed base (default 1)\n"
	"  --order O              shuffle: every run in an order shuffled with\n"
	"                         --seed (default); pairs: each repetition's\n"
	"                         points back to back, in matrix order in odd\n"
	"                         repetitions and reversed in even ones (AB BA\n"
	"                         AB ...), for a paired comparison (make demo)\n"
	"  --wait MODE            client pacing: spin sleep hybrid (default spin)\n"
	"  --server-cpu N         (default: 0, or the first CPU that is not\n"
	"                         --client-cpu: see below)\n"
	"  --client-cpu N         (default: the first CPU that is not the server's)\n"
	"  --midtier-cpu N        (default: the client's CPU)\n"
	"  --helper-cpu N         the midtier's helper (default: the midtier's CPU)\n"
	"  --turbostat-show COLS, --turbostat-hide COLS   passed to turbostat\n"
	"  --leaves N             backends behind the midtier, all of --backend's\n"
	"                         kind on the server CPU, on PORT, PORT+3, PORT+4...\n"
	"                         (default 1; tiers 3)\n"
	"  --route R              hash all: the midtier's routing (default hash)\n"
	"  --get-ratio R, --keys N, --key-size B, --value-size B, --key-dist D\n"
	"                         the memcached and redis clients' (defaults 0.9,\n"
	"                         10000, 16, 64, uniform)\n"
	"  --preload yes|no       set every key before each run (default yes)\n"
	"  --server-exec CMD      prefix for the server (and midtier): 'ip netns\n"
	"                         exec srv', 'ssh node0' (the server host must see\n"
	"                         DIR's path)\n"
	"  --client-exec CMD      prefix for the client: 'ip netns exec cli'.\n"
	"                         Given more than once (or words separated by\n"
	"                         ' | ' in a spec file: 'ssh a | ssh b'), one\n"
	"                         client agent each, '' for this host: see\n"
	"                         \"Several client agents\" below\n"
	"                         Both prefixes are COMMANDS, split into words\n"
	"                         and run by the sweep's user (often root): a\n"
	"                         spec file that sets them is trusted like a\n"
	"                         shell script. Every other value is data and\n"
	"                         is checked for its type before anything runs.\n"
	"  --start-margin-ms MS|auto  several agents start together MS after\n"
	"                         the sweep hands out their start time (auto,\n"
	"                         the default: 3 x their prefixes' start-up,\n"
	"                         timed just before each run, + 1 s)\n"
	"  --server-addr ADDR     where the client finds the server (127.0.0.1):\n"
	"                         an IPv4/IPv6 address or a host name\n"
	"  --server-bind ADDR     what the server binds (default: --server-addr)\n"
	"  --server-port PORT     request port; pre-queries use PORT+1, the\n"
	"                         midtier PORT+2 (17000)\n"
	"  --trace                record each run with 'wakebench trace record'\n"
	"                         (this host's kernel: local and namespace\n"
	"                         placements) into rep-<n>/trace, with markers\n"
	"  --resume               finish an interrupted sweep in DIR with the spec\n"
	"                         and plan it recorded (DIR/sweep.spec, plan.txt):\n"
	"                         completed runs are skipped; an option that differs\n"
	"                         from the recorded spec is refused (exit 2), except\n"
	"                         a larger --reps, which plans and runs the added\n"
	"                         repetitions only\n"
	"  --dry-run              print the plan, then (on standard error) the\n"
	"                         number of runs and an estimated duration, and\n"
	"                         exit\n"
	"  -h, --help             this help\n"
	"\n"
	"Progress: a line per finished run on standard error, terminal or not\n"
	"(CI logs, nohup): '[done/total] POINT rep N ok|failed; elapsed, ETA'\n"
	"with the ETA from the runs made so far. The closing table (wakebench\n"
	"stats) shows every point's full name, sorted by the dimensions in the\n"
	"order above (off first, numbers by value).\n"
	"\n"
	"Several client agents (--client-exec given N > 1 times, mutilate's\n"
	"agents): each prefix runs one 'wakebench client' (the same path on that\n"
	"host), all with the point's configuration and together offering its\n"
	"load: each at 1/N of the rate (N times the mean gap), so that the open-\n"
	"loop aggregate is the configured rate; requests and warm-up requests\n"
	"are split among them (the first ones take one more), a --duration\n"
	"applies to each. Agent k (1-based) gets the seed SEED + rep + (k-1) *\n"
	"2^32 and starts at one agreed CLOCK_REALTIME instant (the client's\n"
	"option --start-at: now + --start-margin-ms) plus k-1 configured mean\n"
	"gaps, so fixed gaps interleave. Each agent writes rep-<n>/client-<k>/ (a host\n"
	"that does not see DIR writes the same path there; it is copied back\n"
	"through the prefix with tar and removed there) and its stderr\n"
	"rep-<n>/client-<k>.err; 'wakebench stats --merge' then writes the run's\n"
	"rep-<n>/client/: percentiles recomputed exactly from all the agents'\n"
	"requests.csv rows, counts and rates summed (wakebench-stats(1)). That\n"
	"merged result is what sweep.csv and the medians use. Each agent is\n"
	"pinned to --client-cpu on its host and holds client_cstates there.\n"
	"With --trace, the requests of agents on this host's kernel (no prefix,\n"
	"or 'ip netns exec') are marked; energy columns stay empty (per host).\n"
	"\n"
	"Before each server starts, the request port and PORT+1 must be free on\n"
	"the server side (ss -Hltnup, through --server-exec): a held port stops\n"
	"the sweep naming the process. A tier is ready once it has written\n"
	"its --port-file (rep-<n>/*.port) and is alive.\n"
	"\n"
	"The server CPU defaults to CPU 0 because the server's CPU is the one\n"
	"whose idle states are measured and traced, and on some virtual machines\n"
	"the last CPU never reports entering idle (no power:cpu_idle events), so\n"
	"a trace of it shows no C-states at all. With 2 CPUs the three tiers\n"
	"share cores: server on one, client, midtier and its helper on the other.\n"
	"\n"
	"Every run is wrapped in 'wakebench trace capture' (this host's counters;\n"
	"with --server-exec on another host they are not the server's): rep-<n>/\n"
	"capture/ holds the server CPU's (and midtier's) cpuidle residency and\n"
	"entries per state, the /proc/interrupts delta per IRQ (interrupts.csv),\n"
	"turbostat's table when turbostat can run, perf cstate_core counters\n"
	"when that PMU exists, and notes.txt saying which sources were absent.\n"
	"\n"
	"sweep.csv has one row per run: point,rep,status,dist,interval_us,\n"
	"prequery,warmup,cstates,service_us,requests,seed,count,lat_avg_us,\n"
	"lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,svc_p50_us,pace_p99_us,\n"
	"late_sends,prequeries_sent,prequeries_skipped,dir,behind_schedule,\n"
	"behind_reason, then the other dimensions (tiers ... helper_wait),\n"
	"lat_p95_us, lat_p9999_us, gets, sets, misses, energy_j, power_w,\n"
	"energy_per_request_uj (empty without RAPL), the midtier's mt_requests, mt_prequeries_sent,\n"
	"mt_prequeries_raced (forwarded before the delay ran out),\n"
	"mt_backend_rtt_avg_us, mt_backend_rtt_p50_us, mt_backend_rtt_p99_us,\n"
	"mt_delay_us, the capture's irq_delta and mt_irq_delta, and\n"
	"res_<state>_pct, entries_<state> (server CPU) and mt_res_<state>_pct,\n"
	"mt_entries_<state> (midtier CPU) for every state seen ('haltpoll idle'\n"
	"as haltpoll_idle; res_C0_pct is the rest of the window). An absent\n"
	"source leaves its columns empty: never a made-up zero. Runs that fell\n"
	"behind their schedule are flagged in the closing table and left out of\n"
	"its medians. Ctrl-C stops the sweep cleanly (tiers stopped, C-states\n"
	"restored); --resume continues.\n"
;

int verb_sweep_usage(int nargs, char **args, void *opts)
{
	(void)nargs;
	(void)args;
	(void)opts;
	if (fputs(usage_head, stdout) < 0 || sweepdim_usage(stdout) ||
	    fputs(usage_tail, stdout) < 0 || fflush(stdout))
		return 1;
	return 0;
}

/* The sweep's user, for memcached's -u (what `id -un` says). */
static const char *user_name(char *buf, size_t len)
{
	struct passwd *pw = getpwuid(getuid());

	if (pw && pw->pw_name && *pw->pw_name)
		return pw->pw_name;
	snprintf(buf, len, "%u", (unsigned)getuid());
	return buf;
}

/*
 * sweep-cmd SPEC RUNDIR WAKEBENCH TRACE LINE [MARGIN_MS START_AT]: one
 * run's steps (lib/sweepcmd) as NUL-separated words: the ports, tiers,
 * preloads, capture and client; with MARGIN_MS, each client agent's
 * command instead, the first starting MARGIN_MS from now.
 */
int verb_sweep_cmd(int nargs, char **args, void *opts)
{
	struct sweepspec s;
	struct sweepplan_run r;
	struct sweepcmd c;
	struct sweepcmd_in in = { .s = &s, .r = &r };
	char err[1024], ubuf[32], *line = strdup(args[4]);
	uint64_t margin, start_at;
	int ret;

	(void)opts;
	if (!line)
		opt_die(PROG, "out of memory");
	if (nargs != 5 && nargs != 7)
		opt_usage(PROG, "sweep-cmd: MARGIN_MS needs START_AT");
	internal_read_resolved(&s, args[0], internal_ncpus());
	if (sweepplan_parse_line(line, &r, "plan.txt", 0, err, sizeof(err)))
		opt_die(PROG, "%s", err);
	in.rundir = args[1];
	in.wb = args[2];
	in.trace = !strcmp(args[3], "1");
	in.user = user_name(ubuf, sizeof(ubuf));
	if (nargs == 5) {
		ret = sweepcmd_build(&in, &c, err, sizeof(err));
	} else {
		struct timespec now;

		if (opt_u64(args[5], 0, 3600000, &margin) || opt_u64(args[6], 0, 1, &start_at))
			opt_usage(PROG, "sweep-cmd: invalid MARGIN_MS or START_AT");
		if (clock_gettime(CLOCK_REALTIME, &now))
			opt_die(PROG, "clock_gettime: %s", strerror(errno));
		ret = sweepcmd_agents(&in, (long long)now.tv_sec * 1000000000 + now.tv_nsec,
				      (unsigned long)margin, (int)start_at, &c, err, sizeof(err));
	}
	if (ret)
		opt_die(PROG, "%s rep %lu failed: %s", r.point, r.rep, err);
	if (sweepcmd_write(&c, stdout))
		opt_die(PROG, "writing the commands failed");
	sweepcmd_free(&c);
	sweepspec_free(&s);
	free(line);
	return 0;
}

/* run-agents: the agents started, for the signal handler */
static pid_t agent_pid[SWEEPSPEC_MAX_AGENTS];
static volatile sig_atomic_t nagent_pids;

/* SIGINT, SIGTERM: passed on to the agents (they write what they have) */
static void pass_on(int sig)
{
	int e = errno;

	(void)sig;
	for (sig_atomic_t i = 0; i < nagent_pids; i++)
		kill(agent_pid[i], SIGTERM);
	errno = e;
}

/* Starts agent step S: stdin /dev/null (an ssh would read it), stderr to its file. */
static pid_t start_agent(const struct sweepcmd_step *s, const sigset_t *old)
{
	pid_t pid = fork();
	int in, er;

	if (pid)
		return pid;
	sigprocmask(SIG_SETMASK, old, NULL);
	in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	er = open(s->ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (in < 0 || er < 0 || dup2(in, 0) < 0 || dup2(er, 2) < 0)
		_exit(127);
	execvp(s->argv.w[0], s->argv.w);
	fprintf(stderr, "%s: cannot run %s: %s\n", PROG, s->argv.w[0], strerror(errno));
	_exit(127);
}

/*
 * run-agents FILE: what 'trace capture' runs in a run with several client
 * agents: starts every agent FILE lists (sweep-cmd's agent steps), waits
 * for all of them, exits 1 if any failed. SIGTERM and SIGINT are passed
 * on to the agents.
 */
int verb_run_agents(int nargs, char **args, void *opts)
{
	struct sigaction sa = { .sa_handler = pass_on };
	struct sweepcmd c;
	sigset_t block, old;
	char *text = NULL;
	size_t len = 0;
	int ret, rc = 0;

	(void)nargs;
	(void)opts;
	ret = internal_slurp(args[0], &text, &len, MAX_AGENTS_FILE);
	if (ret)
		opt_die(PROG, "cannot read %s: %s", args[0], strerror(-ret));
	if (sweepcmd_read(text, len, &c))
		opt_die(PROG, "%s: not a list of client agents", args[0]);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (size_t i = 0; i < c.n && nagent_pids < SWEEPSPEC_MAX_AGENTS; i++) {
		pid_t pid;

		if (c.step[i].kind != SWEEPCMD_AGENT || !c.step[i].argv.n)
			continue;
		pid = start_agent(&c.step[i], &old);
		if (pid < 0) {
			rc = 1;
			continue;
		}
		agent_pid[nagent_pids] = pid;
		nagent_pids++;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	for (sig_atomic_t i = 0; i < nagent_pids; i++) {
		int st;

		/* a signal ends waitpid early: wait again until it exits */
		while (waitpid(agent_pid[i], &st, 0) < 0)
			if (errno != EINTR) {
				st = 1;
				break;
			}
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	}
	sweepcmd_free(&c);
	free(text);
	return rc;
}
