// SPDX-License-Identifier: GPL-2.0
/*
 * wakebench-internal sweep-usage, sweep-cmd, run-agents,
 * sweep-agents-done: what
 * scripts/wakebench-sweep runs instead of computing itself. The script
 * only sequences programs (each step's failure is an exit status) and
 * forwards signals; the help text, each run's command lines (lib/sweep/
 * sweepcmd) and the client agents' start and wait are here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "die.h"
#include "internal.h"
#include "opt.h"
#include "portheld.h"
#include "sweepcmd.h"
#include "sweepdim.h"
#include "sweepmerge.h"
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
	"  --server-cpu N         (default: placed by topology, see below)\n"
	"  --client-cpu N         (default: placed by topology, see below)\n"
	"  --placement P          socket cross-socket: where the default CPUs go\n"
	"                         on a host of several packages (default socket)\n"
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
	"  --search EXPR          the highest rate that meets a target,\n"
	"                         METRIC<=VALUE[ns|us|ms] ('p99<=500us', quoted for\n"
	"                         the shell), METRIC p50 p95 p99 p99.9 p99.99: a\n"
	"                         bisection on the rate, each probe a point of the\n"
	"                         sweep with its --reps, met when the upper bound\n"
	"                         of its CI is at or below VALUE (DIR/search.csv;\n"
	"                         one configuration: other lists take one value)\n"
	"  --search-range LO,HI   the rates searched, requests per second (or the\n"
	"                         lowest and highest of --rate or --interval-us)\n"
	"  --search-tol PCT       stop when the highest rate that met and the\n"
	"                         lowest that did not are within PCT % (default 2)\n"
	"  --resume               finish an interrupted sweep in DIR with the spec\n"
	"                         and plan it recorded (DIR/sweep.spec, plan.txt):\n"
	"                         completed runs are skipped; an option that differs\n"
	"                         from the recorded spec is refused (exit 2), except\n"
	"                         a larger --reps, which plans and runs the added\n"
	"                         repetitions only\n"
	"  --dry-run              print the plan, then (on standard error) the\n"
	"                         number of runs and an estimated duration, and\n"
	"                         exit\n"
	"  --skip-unsupported     a point with a value this machine cannot apply\n"
	"                         (a governor its kernel lacks, haltpoll_ns off a\n"
	"                         haltpoll guest, so_busy_poll without the right\n"
	"                         to set it) is skipped, said on standard error\n"
	"                         and noted in DIR/plan.txt ('# unsupported POINT:\n"
	"                         why'), instead of refusing the sweep before\n"
	"                         anything runs\n"
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
	"The server and client CPUs, where not given: on a host of more than 4\n"
	"CPUs or of several packages (sockets), both on CPU 0's package, the\n"
	"server off CPU 0 (housekeeping interrupts) and its SMT sibling, the\n"
	"client on another core (--placement cross-socket: on another package);\n"
	"on a smaller host the server on CPU 0 and the client on the first other\n"
	"CPU. Not the last CPU for the server: its CPU is the one whose idle\n"
	"states are measured and traced, and on some virtual machines the last\n"
	"CPU never reports entering idle (no power:cpu_idle events), so a trace\n"
	"of it shows no C-states at all. With 2 CPUs the three tiers share\n"
	"cores: server on one, client, midtier and its helper on the other.\n"
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

/* The --server-exec prefix of spec S, as words (exits when out of memory). */
static void server_exec(const struct sweepspec *s, struct sweepcmd_words *w)
{
	if (sweepcmd_split(s->val[SK_SERVER_EXEC], w))
		opt_die(PROG, "out of memory");
}

static void words_free(struct sweepcmd_words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->w[i]);
	free(w->w);
}

static int output(char **argv, int both, char *buf, size_t len);
static void die_with_parent(void);
static char **prefixed(const struct sweepcmd_words *prefix, const char *const *rest);

/*
 * The real server's version, asked through --server-exec, for its
 * snapshot: "memcached 1.6.18", "redis 7.0.15".
 */
static void kv_version(const struct sweepspec *s, const char *kind, char *buf, size_t len)
{
	static char out[1 << 16];
	const char *mc[] = { "memcached", "-V", NULL };
	const char *rd[] = { "redis-server", "--version", NULL };
	struct sweepcmd_words pre = { 0 };
	int redis = !strcmp(kind, "redis");
	char **argv;

	server_exec(s, &pre);
	argv = prefixed(&pre, redis ? rd : mc);
	output(argv, 0, out, sizeof(out));
	buf[0] = '\0';
	if (!redis) {
		snprintf(buf, len, "%.*s", (int)strcspn(out, "\n"), out);
	} else {
		const char *v = strstr(out, "Redis server v=");

		if (v && (v == out || v[-1] == '\n'))
			snprintf(buf, len, "redis %.*s", (int)strcspn(v + 15, " \n"), v + 15);
	}
	if (!*buf)
		snprintf(buf, len, "%s (version unknown)", kind);
	free(argv);
	words_free(&pre);
}

/* A snapshot step's software and file: the version asked now. */
static void complete_snapshots(const struct sweepspec *s, struct sweepcmd *c)
{
	char ver[512];

	for (size_t i = 0; i < c->n; i++) {
		struct sweepcmd_step *st = &c->step[i];

		if (st->kind != SWEEPCMD_SNAPSHOT)
			continue;
		kv_version(s, st->want, ver, sizeof(ver));
		if (sweepcmd_add(&st->argv, ver) || sweepcmd_add(&st->argv, "--out") ||
		    sweepcmd_add(&st->argv, st->ready))
			opt_die(PROG, "out of memory");
	}
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

static pid_t spawn(char **argv, int in, int out, int err);
static int exited_ok(pid_t pid);
static void pathf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The client agents' start margin in ms: the spec's, or with auto 3
 * times their prefixes' start-up, timed now (a loaded host or network is
 * slower) + 1 s. Every prefix runs a command, in parallel: `true`, or,
 * where its host does not see DIR (SHARED's digit 0), removing its
 * earlier results there.
 */
static unsigned long agents_margin(const struct sweepspec *s, const char *rundir,
				   const char *shared)
{
	const char *tru[] = { "true", NULL };
	pid_t pid[SWEEPSPEC_MAX_AGENTS];
	char text[4096], dir[4200];
	struct timespec t0, t1;
	int n = sweepspec_agents(s), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int k = 0; k < n; k++) {
		struct sweepcmd_words pre = { 0 };
		const char *rm[] = { "rm", "-rf", "--", dir, NULL };
		char **argv;

		pid[k] = -1;
		pathf(dir, sizeof(dir), "%s/client-%d", rundir, k + 1);
		if (sweepspec_agent_exec(s, k, text, sizeof(text)) || sweepcmd_split(text, &pre))
			opt_die(PROG, "out of memory");
		if (pre.n) {
			argv = prefixed(&pre, shared[k] == '1' ? tru : rm);
			pid[k] = spawn(argv, -1, null, -1);
			free(argv);
		}
		words_free(&pre);
	}
	for (int k = 0; k < n; k++)
		if (pid[k] > 0)
			exited_ok(pid[k]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (null >= 0)
		close(null);
	if (strcmp(s->val[SK_START_MARGIN_MS], "auto"))
		return strtoul(s->val[SK_START_MARGIN_MS], NULL, 10);
	return (unsigned long)(3 * ((t1.tv_sec - t0.tv_sec) * 1000000000LL +
				    (t1.tv_nsec - t0.tv_nsec)) / 1000000 + 1000);
}

/*
 * sweep-cmd SPEC RUNDIR WAKEBENCH TRACE LINE [SHARED START_AT]: one
 * run's steps (lib/sweepcmd) as NUL-separated words: the ports, tiers,
 * the real server's snapshot (its version asked through --server-exec
 * now), preloads, capture and client; with SHARED (sweep-agents' digits)
 * each client agent's command instead, the first starting the start
 * margin from now (agents_margin).
 */
int verb_sweep_cmd(int nargs, char **args, void *opts)
{
	struct sweepspec s;
	struct sweepplan_run r;
	struct sweepcmd c;
	struct sweepcmd_in in = { .s = &s, .r = &r };
	char err[1024], ubuf[32], *line = strdup(args[4]);
	uint64_t start_at;
	int ret;

	(void)opts;
	if (!line)
		opt_die(PROG, "out of memory");
	if (nargs != 5 && nargs != 7)
		opt_usage(PROG, "sweep-cmd: SHARED needs START_AT");
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

		unsigned long margin;

		if ((int)strlen(args[5]) != sweepspec_agents(&s) || opt_u64(args[6], 0, 1, &start_at))
			opt_usage(PROG, "sweep-cmd: invalid SHARED or START_AT");
		margin = agents_margin(&s, in.rundir, args[5]);
		if (clock_gettime(CLOCK_REALTIME, &now))
			opt_die(PROG, "clock_gettime: %s", strerror(errno));
		ret = sweepcmd_agents(&in, (long long)now.tv_sec * 1000000000 + now.tv_nsec,
				      margin, (int)start_at, &c, err, sizeof(err));
	}
	if (ret)
		opt_die(PROG, "%s rep %lu failed: %s", r.point, r.rep, err);
	complete_snapshots(&s, &c);
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

/*
 * Runs ARGV with stdin IN, stdout OUT and stderr ERR (-1: /dev/null, or
 * inherited for OUT); the child's pid, or -1.
 */
static pid_t spawn(char **argv, int in, int out, int err)
{
	pid_t pid = fork();
	int null;

	if (pid)
		return pid;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(in >= 0 ? in : null, 0) < 0 ||
	    (out >= 0 && dup2(out, 1) < 0) || dup2(err >= 0 ? err : null, 2) < 0)
		_exit(127);
	execvp(argv[0], argv);
	_exit(127);
}

/* Whether PID exited 0 (waited for; a signal's EINTR waits again). */
static int exited_ok(pid_t pid)
{
	int st;

	if (pid < 0)
		return 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(st) && !WEXITSTATUS(st);
}

/* PREFIX's words followed by the words of the NULL-terminated REST. */
static char **prefixed(const struct sweepcmd_words *prefix, const char *const *rest)
{
	size_t n = 0;
	char **v;

	while (rest[n])
		n++;
	v = calloc(prefix->n + n + 1, sizeof(*v));
	if (!v)
		opt_die(PROG, "out of memory");
	for (size_t i = 0; i < prefix->n; i++)
		v[i] = prefix->w[i];
	for (size_t i = 0; i < n; i++)
		v[prefix->n + i] = (char *)rest[i];
	return v;
}

/*
 * Agent DIR's results back from a host that does not see the sweep's
 * DIR: PREFIX tar -C DIR -cf - . | tar -C DIR -xf - (their errors to
 * ERRF), then the remote copy removed. 0 or -1.
 */
static int copy_back(const struct sweepcmd_words *prefix, const char *dir, const char *errf)
{
	const char *src[] = { "tar", "-C", dir, "-cf", "-", ".", NULL };
	const char *dst[] = { "tar", "-C", dir, "-xf", "-", NULL };
	const char *rm[] = { "rm", "-rf", "--", dir, NULL };
	char **a = prefixed(prefix, src), **r = prefixed(prefix, rm);
	int p[2], err, ok = 0;
	pid_t w = -1, x = -1;

	err = open(errf, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (err >= 0 && (!mkdir(dir, 0777) || errno == EEXIST) && !pipe2(p, O_CLOEXEC)) {
		w = spawn(a, -1, p[1], err);
		x = spawn((char **)dst, p[0], -1, err);
		close(p[0]);
		close(p[1]);
		/* the pipeline's status is the last tar's, as in a shell */
		exited_ok(w);
		ok = exited_ok(x);
	}
	if (err >= 0)
		close(err);
	exited_ok(spawn(r, -1, -1, -1));
	free(a);
	free(r);
	return ok ? 0 : -1;
}

/* Agent K's (1-based) error, one line, from RUNDIR/client-K.err. */
static void agent_err(const char *rundir, int k, char *buf, size_t len)
{
	char path[4096], *text = NULL;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/client-%d.err", rundir, k);
	if (internal_slurp(path, &text, &n, 1 << 20))
		n = 0;
	sweepcmd_agent_err(text ? text : "", n, buf, len);
	free(text);
}

/* A path into BUF (LEN bytes); exits when it does not fit. */
static void __attribute__((format(printf, 3, 4)))
pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		opt_die(PROG, "a path longer than %zu bytes", len - 1);
}

/* Whether FILE exists with something in it (test -s). */
static int nonempty(const char *path)
{
	struct stat st;

	return !stat(path, &st) && st.st_size > 0;
}

/*
 * sweep-agents-done SPEC RUNDIR POINT REP RC SHARED: after a run of
 * several client agents (RC its exit status; SHARED one digit per agent,
 * 1 when the agent's host sees the sweep's DIR): copies back the results
 * of the others, checks every agent left a summary, merges them into
 * RUNDIR/client (lib/sweepmerge) and says what failed. Exit 1 when the
 * run failed.
 */
int verb_sweep_agents_done(int nargs, char **args, void *opts)
{
	const char *rundir = args[1], *pt = args[2], *rep = args[3], *shared = args[5];
	struct sweepmerge_opts mo = { 0 };
	struct sweepspec s;
	char dir[SWEEPSPEC_MAX_AGENTS][4096], *dirs[SWEEPSPEC_MAX_AGENTS];
	char pre[4096], path[4200], err[1024];
	int n, ret, rc = strcmp(args[4], "0") != 0;
	FILE *f;

	(void)nargs;
	(void)opts;
	internal_read_resolved(&s, args[0], internal_ncpus());
	n = sweepspec_agents(&s);
	if ((int)strlen(shared) != n || strspn(shared, "01") != strlen(shared))
		opt_usage(PROG, "sweep-agents-done: SHARED must be %d digits 0 or 1", n);
	for (int k = 0; k < n; k++) {
		struct sweepcmd_words w = { 0 };

		pathf(dir[k], sizeof(dir[k]), "%s/client-%d", rundir, k + 1);
		dirs[k] = dir[k];
		if (shared[k] == '1')
			continue;
		if (sweepspec_agent_exec(&s, k, pre, sizeof(pre)) || sweepcmd_split(pre, &w))
			opt_die(PROG, "out of memory");
		pathf(path, sizeof(path), "%s.err", dir[k]);
		if (copy_back(&w, dir[k], path))
			fprintf(stderr, "%s: %s rep %s: cannot copy client agent %d's results back through '%s'\n",
				PROG, pt, rep, k + 1, pre);
		words_free(&w);
	}
	for (int k = 0; k < n; k++) {
		pathf(path, sizeof(path), "%s/summary.csv", dir[k]);
		if (nonempty(path))
			continue;
		agent_err(rundir, k + 1, err, sizeof(err));
		fprintf(stderr, "%s: %s rep %s failed: client agent %d: %s\n", PROG, pt, rep, k + 1, err);
		return 1;
	}
	/* merge.err: what 'wakebench stats --merge' said, as runs always had */
	pathf(path, sizeof(path), "%s/merge.err", rundir);
	f = fopen(path, "w");
	mo.rule = strcmp(s.val[SK_PERCENTILE_RULE], "floor-index") ? HIST_NEAREST_RANK :
								      HIST_FLOOR_INDEX;
	pathf(path, sizeof(path), "%s/client", rundir);
	ret = sweepmerge_dirs(path, (const char *const *)dirs, (size_t)n, &mo, err, sizeof(err));
	if (ret && f)
		fprintf(f, "merge: %s\n", err);
	if (f)
		fclose(f);
	if (ret) {
		fprintf(stderr, "%s: %s rep %s failed: merge: %s\n", PROG, pt, rep, err);
		return 1;
	}
	for (int k = 0; rc && k < n; k++) {
		pathf(path, sizeof(path), "%s.err", dir[k]);
		if (!nonempty(path))
			continue;
		agent_err(rundir, k + 1, err, sizeof(err));
		fprintf(stderr, "%s: %s rep %s failed: client agent %d: %s\n", PROG, pt, rep, k + 1, err);
	}
	sweepspec_free(&s);
	return rc;
}

/*
 * Runs ARGV (stdin /dev/null) and reads its standard output (and its
 * standard error with BOTH) into BUF, NUL-terminated, trailing newlines
 * dropped as a shell's $(...) does. Whether it exited 0.
 */
static int output(char **argv, int both, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t got;
	int p[2], ok;
	pid_t pid;

	buf[0] = '\0';
	if (pipe2(p, O_CLOEXEC))
		return 0;
	pid = spawn(argv, -1, p[1], both ? p[1] : -1);
	close(p[1]);
	while ((got = read(p[0], buf + n, len - 1 - n)) > 0 || (got < 0 && errno == EINTR)) {
		if (got > 0)
			n += (size_t)got;
		if (n == len - 1) {
			/* the end is what counts: keep reading, keep the last half */
			memmove(buf, buf + len / 2, n - len / 2);
			n -= len / 2;
		}
	}
	close(p[0]);
	ok = exited_ok(pid);
	while (n && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return ok;
}

/*
 * Client agent K (0-based) with PREFIX: whether it can run WB's client
 * (dies naming it if not) and has --start-at, and whether its host sees
 * the token file TOK holding TOKEN (then the sweep's DIR is shared).
 */
static void check_agent(const struct sweepcmd_words *prefix, const char *text, int k,
			const char *wb, const char *tok, const char *token,
			int *start_at, char *shared)
{
	static char out[1 << 16];
	const char *help[] = { wb, "client", "--help", NULL };
	const char *cat[] = { "cat", tok, NULL };
	char **h = prefixed(prefix, help), **c = prefixed(prefix, cat);
	const char *last;

	if (!output(h, 1, out, sizeof(out))) {
		unlink(tok);
		last = strrchr(out, '\n');
		opt_die(PROG, "client agent %d ('%s'): cannot run %s client there: %s", k + 1,
			text, wb, last ? last + 1 : out);
	}
	if (!strstr(out, "--start-at"))
		*start_at = 0;
	*shared = '1';
	if (prefix->n && (!output(c, 0, out, sizeof(out)) || strcmp(out, token)))
		*shared = '0';
	free(h);
	free(c);
}

/*
 * sweep-agents SPEC OUT WAKEBENCH: the sweep's client agents, as
 * NUL-separated words: START_AT (1 when every agent's client has
 * --start-at), SHARED (a digit per agent, 1 when its host sees OUT: a
 * namespace, a shared file system), then each agent's command prefix
 * ("" for this host). With several agents each prefix is tried here,
 * once per sweep: an agent that cannot run the client stops the sweep.
 */
int verb_sweep_agents(int nargs, char **args, void *opts)
{
	const char *out = args[1], *wb = args[2];
	char text[SWEEPSPEC_MAX_AGENTS][4096], shared[SWEEPSPEC_MAX_AGENTS + 1];
	char tok[4096], token[128];
	struct sweepspec s;
	struct timespec now;
	int n, start_at = 1;
	FILE *f;

	(void)nargs;
	(void)opts;
	internal_read_resolved(&s, args[0], internal_ncpus());
	n = sweepspec_agents(&s);
	for (int k = 0; k < n; k++) {
		if (sweepspec_agent_exec(&s, k, text[k], sizeof(text[k])))
			opt_die(PROG, "client agent %d's prefix is too long", k + 1);
		shared[k] = '1';
	}
	shared[n] = '\0';
	if (n > 1) {
		clock_gettime(CLOCK_REALTIME, &now);
		snprintf(token, sizeof(token), "wakebench-sweep %d %lld %ld", (int)getppid(),
			 (long long)now.tv_sec * 1000000000 + now.tv_nsec, random() % 32768);
		pathf(tok, sizeof(tok), "%s/.agent-path-check", out);
		f = fopen(tok, "w");
		if (!f || fprintf(f, "%s\n", token) < 0 || fclose(f))
			opt_die(PROG, "cannot write %s", tok);
		for (int k = 0; k < n; k++) {
			struct sweepcmd_words w = { 0 };

			if (sweepcmd_split(text[k], &w))
				opt_die(PROG, "out of memory");
			check_agent(&w, text[k], k, wb, tok, token, &start_at, &shared[k]);
			words_free(&w);
		}
		unlink(tok);
		if (!strcmp(s.val[SK_START_MARGIN_MS], "auto"))
			fprintf(stderr, "%s: %d client agents; start margin: 3 x their prefixes' start-up, timed before each run, + 1 s\n",
				PROG, n);
		else
			fprintf(stderr, "%s: %d client agents; start margin %s ms\n", PROG, n,
				s.val[SK_START_MARGIN_MS]);
		if (!start_at)
			fprintf(stderr, "%s: warning: a client agent's 'wakebench client' has no --start-at: the %d agents start as their prefixes reach them, not at one agreed time\n",
				PROG, n);
	}
	printf("%d%c%s%c", start_at, '\0', shared, '\0');
	for (int k = 0; k < n; k++)
		printf("%s%c", text[k], '\0');
	sweepspec_free(&s);
	return fflush(stdout) ? 1 : 0;
}

/*
 * sweep-ports SPEC POINT REP PORT...: waits up to 3 s until no socket on
 * the server side (ss -Hltnup through --server-exec) holds a PORT: a
 * stray server from an earlier run would be measured instead of ours.
 * Exit 1 naming the holders, or when ss cannot run.
 */
int verb_sweep_ports(int nargs, char **args, void *opts)
{
	static char text[1 << 20];
	const char *ss[] = { "ss", "-Hltnup", NULL };
	char held[2048], who[512];
	struct sweepcmd_words pre = { 0 };
	struct sweepspec s;
	uint64_t port;
	char **argv;

	(void)opts;
	die_with_parent();
	internal_read_resolved(&s, args[0], internal_ncpus());
	server_exec(&s, &pre);
	argv = prefixed(&pre, ss);
	for (int i = 3; i < nargs; i++)
		if (opt_u64(args[i], 1, 65535, &port))
			opt_usage(PROG, "sweep-ports: invalid port '%s'", args[i]);
	for (int t = 0; t < 30; t++) {
		size_t n = 0;

		if (!output(argv, 1, text, sizeof(text))) {
			const char *last = strrchr(text, '\n');

			opt_die(PROG, "cannot list the server side's sockets with ss -Hltnup: %s",
				last ? last + 1 : text);
		}
		held[0] = '\0';
		for (int i = 3; i < nargs; i++) {
			opt_u64(args[i], 1, 65535, &port);
			if (portheld_find(text, (unsigned)port, who, sizeof(who))) {
				int m = snprintf(held + n, sizeof(held) - n, "%s%s",
						 n ? "; " : "", who);

				if (m > 0)
					n = n + (size_t)m < sizeof(held) ? n + (size_t)m : sizeof(held) - 1;
			}
		}
		if (!held[0])
			goto out;
		usleep(100000);
	}
	fprintf(stderr, "%s: the server side's port is not free: %s\n", PROG, held);
	fprintf(stderr, "%s: stop that process or choose another --server-port (nothing was measured for %s rep %s; --resume finishes the sweep)\n",
		PROG, args[1], args[2]);
	return 1;
out:
	free(argv);
	words_free(&pre);
	sweepspec_free(&s);
	return 0;
}

/*
 * The sweep script waits for its helpers in the background (a shell
 * defers a trap until a foreground command ends): one it left behind
 * when a signal stopped it ends with it.
 */
static void die_with_parent(void)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		exit(1);
}

/* Whether the first line of file PATH is WANT. */
static int holds(const char *path, const char *want)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return 0;
	ok = fgets(line, sizeof(line), f) && (line[strcspn(line, "\n")] = '\0', !strcmp(line, want));
	fclose(f);
	return ok;
}

/* Whether file PATH holds TEXT. */
static int contains(const char *path, const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	int ok = !internal_slurp(path, &buf, &len, 1 << 20) && strstr(buf, text);

	free(buf);
	return ok;
}

/*
 * sweep-ready SPEC PID KIND NAME READY WANT POINT REP ERRFILE: waits up
 * to 10 s until tier PID is ready: a wakebench tier (tier) once its
 * --port-file READY holds WANT, its ports; memcached or redis-server (kv,
 * WANT) once the server side lists port READY as listening (ss through
 * --server-exec). Exit 1 naming it, with its last error line, when it
 * exited or did not get ready. A recording (trace) is ready once its
 * stderr READY says WANT; it exits 1 silently only when PID exited.
 */
int verb_sweep_ready(int nargs, char **args, void *opts)
{
	static char text[1 << 16];
	const char *kind = args[2], *name = args[3], *ready = args[4], *want = args[5];
	struct sweepcmd_words pre = { 0 };
	char sport[64], *err = NULL, **argv = NULL;
	struct sweepspec s;
	uint64_t pid;
	size_t len = 0;
	int kv = !strcmp(kind, "kv"), trace = !strcmp(kind, "trace"), ret = 1;

	(void)nargs;
	(void)opts;
	die_with_parent();
	if (opt_u64(args[1], 1, INT32_MAX, &pid))
		opt_usage(PROG, "sweep-ready: invalid PID '%s'", args[1]);
	internal_read_resolved(&s, args[0], internal_ncpus());
	if (kv) {
		const char *ss[] = { "ss", "-Hltn", sport, NULL };

		snprintf(sport, sizeof(sport), "sport = :%s", ready);
		server_exec(&s, &pre);
		argv = prefixed(&pre, ss);
	}
	for (int t = 0; t < 500; t++) {
		if (trace && contains(ready, want)) {
			ret = 0;
			goto out;
		}
		if (kill((pid_t)pid, 0))
			break;
		if (!trace && (kv ? (output(argv, 0, text, sizeof(text)), *text != '\0') :
				    holds(ready, want) && !kill((pid_t)pid, 0))) {
			ret = 0;
			goto out;
		}
		usleep(20000);
	}
	/* a recording that has not said so in 10 s is used as it is */
	if (trace) {
		ret = kill((pid_t)pid, 0) ? 1 : 0;
		goto out;
	}
	if (internal_slurp(args[8], &err, &len, 1 << 20))
		len = 0;
	while (len && err[len - 1] == '\n')
		len--;
	{
		size_t b = len;

		while (b && err[b - 1] != '\n')
			b--;
		fprintf(stderr, "%s: %s%s%s%s for %s rep %s did not start: %.*s\n", PROG, name,
			kv ? " (" : "", kv ? want : "", kv ? ")" : "", args[6], args[7],
			(int)(len - b), err ? err + b : "");
	}
out:
	free(err);
	free(argv);
	words_free(&pre);
	sweepspec_free(&s);
	return ret;
}

/*
 * Runs VERB with ARGS in a child whose standard output is file PATH (the
 * plan verbs print; their errors exit): its exit status, -1 when PATH
 * cannot be written.
 */
static int verb_into(int (*verb)(int, char **, void *), int n, char **a, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666), st;
	pid_t pid;

	if (fd < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		if (dup2(fd, 1) < 0)
			_exit(1);
		exit(verb(n, a, NULL));
	}
	close(fd);
	if (pid < 0)
		return 1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* File PATH whole (a plan: up to 1 GiB); exits when it cannot be read. */
static char *slurp_or_die(const char *path, size_t *len)
{
	char *text = NULL;
	int ret = internal_slurp(path, &text, len, (size_t)1 << 30);

	if (ret)
		opt_die(PROG, "cannot read %s: %s", path, strerror(-ret));
	return text;
}

/* TEXT without its '#' comment lines (a spec's date line). */
static void drop_comments(char *text)
{
	char *w = text;

	for (char *l = text; *l;) {
		size_t n = strcspn(l, "\n");

		n += l[n] == '\n';
		if (*l != '#') {
			memmove(w, l, n);
			w += n;
		}
		l += n;
	}
	*w = '\0';
}

/* TEXT (LEN bytes) into PATH through PATH.new renamed into place. */
static int write_renamed(const char *dir, const char *name, const char *text, size_t len)
{
	char tmp[4200], path[4200];
	FILE *f;

	pathf(tmp, sizeof(tmp), "%s/.%s.new", dir, name);
	pathf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(tmp, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * sweep-plan OUT SPEC: OUT/plan.txt and OUT/sweep.spec for the resolved
 * SPEC. A new sweep gets SPEC's plan (verb plan). A resumed one's plan,
 * read back from disk, names directories the sweep removes and values it
 * runs with: it must be exactly the recorded spec's runs, in any order
 * (verb plan-update), and a larger --reps appends the added repetitions.
 * Each file is renamed into place, the plan first: a plan that is
 * already the new spec's is accepted, so a stop between the two renames
 * is finished by the same command again.
 */
int verb_sweep_plan(int nargs, char **args, void *opts)
{
	const char *out = args[0], *spec = args[1];
	char plan[4200], tmp[4200], rec[4200], *a, *b;
	char *upd[] = { rec, (char *)spec, plan, NULL };
	size_t alen, blen;
	int resume, ret;

	(void)nargs;
	(void)opts;
	pathf(plan, sizeof(plan), "%s/plan.txt", out);
	pathf(tmp, sizeof(tmp), "%s/.plan.txt.new", out);
	pathf(rec, sizeof(rec), "%s/sweep.spec", out);
	resume = nonempty(plan);
	ret = resume ? verb_into(verb_plan_update, 3, upd, tmp) :
		       verb_into(verb_plan, 1, (char **)&args[1], tmp);
	if (ret) {
		unlink(tmp);
		if (ret < 0)
			opt_die(PROG, "cannot write %s", tmp);
		return resume ? 1 : ret;
	}
	a = slurp_or_die(tmp, &alen);
	b = resume ? slurp_or_die(plan, &blen) : NULL;
	if (resume && alen == blen && !memcmp(a, b, alen))
		unlink(tmp);
	else if (rename(tmp, plan))
		opt_die(PROG, "cannot %s %s", resume ? "update" : "write", plan);
	free(a);
	free(b);
	/* the resolved spec: what --resume reads back */
	a = slurp_or_die(spec, &alen);
	b = resume ? slurp_or_die(rec, &blen) : NULL;
	if (b) {
		char *ca = strdup(a);

		if (!ca)
			opt_die(PROG, "out of memory");
		drop_comments(ca);
		drop_comments(b);
		resume = !strcmp(ca, b);
		free(ca);
	}
	if (!resume && write_renamed(out, "sweep.spec", a, alen))
		opt_die(PROG, "cannot %s %s", b ? "update" : "write", rec);
	free(a);
	free(b);
	return 0;
}

/* Whether DIR is a plain path: what a remote shell passes on as it is. */
static int plain_path(const char *dir)
{
	return *dir && strspn(dir, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			      "0123456789._/+=@:-") == strlen(dir);
}

/*
 * sweep-exec SPEC OUT: the --server-exec prefix of SPEC as NUL-separated
 * words. A prefix such as ssh hands the command line to a remote shell,
 * which re-parses it: with a server or client prefix, OUT must be a plain
 * path (a usage error, exit 2, otherwise).
 */
int verb_sweep_exec(int nargs, char **args, void *opts)
{
	struct sweepcmd_words pre = { 0 };
	struct sweepspec s;

	(void)nargs;
	(void)opts;
	internal_read_resolved(&s, args[0], internal_ncpus());
	server_exec(&s, &pre);
	if ((pre.n || *s.val[SK_CLIENT_EXEC]) && !plain_path(args[1]))
		opt_usage(PROG, "with --server-exec/--client-exec, --out must be a plain path (letters, digits, . _ / + = @ : -): '%s'",
			  args[1]);
	for (size_t i = 0; i < pre.n; i++)
		printf("%s%c", pre.w[i], '\0');
	words_free(&pre);
	sweepspec_free(&s);
	return fflush(stdout) ? 1 : 0;
}
