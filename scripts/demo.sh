#!/bin/bash
# wakebench demo: the built-in default experiment on loopback (make demo).
#
# Server and client on the sweep's default CPUs (on a small host the
# server on CPU 0, the client on CPU 1; on a big one both on one socket,
# off CPU 0, not SMT siblings), 5 ms exponential gaps, no service time
# (the client's and the sweep's default): the server core goes idle
# between requests, so every request pays the wake-up. The question: does a pre-query 100 us ahead
# of each request (more than a pre-query's own send() costs on this VM,
# 40-80 us, so it leaves alone and the request stays on time) make the
# requests faster?
#
# One run per side can state the opposite of the truth on a disturbed
# machine, so the demo runs short pairs: a run without and a run with
# the pre-query on one seed (the same schedule), a new seed per pair,
# with 'wakebench sweep --order pairs': the order within a pair
# alternates (without first in odd pairs, with first in even ones), so
# that whatever the place in a pair does, or a drift over the demo,
# weighs on both sides alike and cancels in the pairs' median. It
# prints, from 'wakebench stats', the paired effect (without / with: the
# median over the pairs of the two runs' ratio) of avg, p50 and p99 with
# its distribution-free 95 % CI over the pairs and a verdict (faster,
# slower, undecided at this n); never a single run's ratio. It says which
# runs the machine disturbed, from the workload tests each client run
# writes (summary.txt "test ..." lines; behind_schedule): a WARNING names
# the run, the test and its numbers. Each test of each of the N runs
# is at alpha 0.01, so by chance alone about one run in 50 fails the gap
# or the independence test; the demo warns only when one of them fails
# below 0.01 / 2N (Bonferroni over its runs: a chance WARNING in under
# 1 % of demos) or when the client's rule finds that the pacing error
# moved a reported percentile outside its CI (behind schedule), and
# lists the other failures as notes, a drifting latency (the
# stationarity test, which on a VM describes the machine) among them.
# A run behind schedule is left out of the paired effect, as wakebench
# stats does; then the effect with it counted is said too.
#
# As root (tracefs with power:cpu_idle) the first pair is traced (power:cpu_idle, IRQs, request markers: sweep
# --trace with one repetition, the others added untraced by --resume),
# and the demo prints the server core's residency during each of its
# two runs and which C-state each request found it in.
#
# Results go to ${WB_DEMO_OUT:-results/demo-<time>}, a sweep directory
# (wakebench-sweep(1)): cmdline.txt, sweep.spec, plan.txt, sweep.csv,
# summary.csv (wakebench stats, with the paired columns), each run's
# POINT/rep-N/ (client/ with its summaries, requests.csv, snapshot.json
# and cmdline.txt; server.csv; capture/; trace/ in pair 1 as root),
# demo.txt (the demo's settings and the sweep commands it ran), sweep.log
# (the sweeps' own output), report.txt (what the demo printed last) and
# report/ (wakebench report's figures).
#
# Environment:
#   WB_DEMO_PAIRS       pairs of runs (default 10; at least 6 bound a
#                       median at 95 %, 9 or more leave out the most
#                       extreme pair on each side)
#   WB_DEMO_REQUESTS    measured requests per run (default 180)
#   WB_DEMO_LEAD_US     the pre-query's lead (default 100)
#   WB_DEMO_SERVER_CPU  the server's CPU (default: the sweep's)
#   WB_DEMO_SEED        seed base: pair N runs seed SEED + N (default 1)
#   WB_DEMO_PORT        the server's port, PORT+1 its pre-query port
#                       (default: the first free pair from 17600)
#   WB_DEMO_OUT         the result directory
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
WB="$top/${O:-build}/bin/wakebench"
out=${WB_DEMO_OUT:-$top/results/demo-$(date +%Y%m%d-%H%M%S)}
INT="$top/${O:-build}/bin/wakebench-internal"
PAIRS=${WB_DEMO_PAIRS:-10}
REQUESTS=${WB_DEMO_REQUESTS:-180}
LEAD=${WB_DEMO_LEAD_US:-100}
SEED=${WB_DEMO_SEED:-1}
WARMUP=20
trap 'exit 130' INT TERM HUP

die() { echo "demo: $*" >&2; exit 1; }
[ -x "$WB" ] || die "no $WB: build first (make)"
# the CPUs: the sweep's defaults (lib/sys/topology), or around WB_DEMO_SERVER_CPU
cpus=$("$INT" spec ${WB_DEMO_SERVER_CPU:+--server-cpu "$WB_DEMO_SERVER_CPU"}) || exit 1
scpu=$(sed -n 's/^server-cpu = //p' <<< "$cpus")
ccpu=$(sed -n 's/^client-cpu = //p' <<< "$cpus")
if [ -e "$out/plan.txt" ]; then die "$out already holds a demo or sweep: choose another WB_DEMO_OUT"; fi

trace=()
if [ "$(id -u)" = 0 ] && { [ -d /sys/kernel/tracing/events/power/cpu_idle ] ||
	{ mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && [ -d /sys/kernel/tracing/events/power/cpu_idle ]; }; }; then
	trace=(--trace)
fi

# free_port: the first port from 17600 that is free with its successor
# (not the sweep's default 17000, which other sweeps take meanwhile)
free_port() {
	local p
	for ((p = 17600; p < 18000; p += 2)); do
		[ -z "$(ss -Hltnu "( sport = :$p or sport = :$((p + 1)) )" 2>/dev/null)" ] && { echo $p; return; }
	done
	die "no free port pair from 17600 to 17999: set WB_DEMO_PORT"
}
port=${WB_DEMO_PORT:-$(free_port)}
sargs=(--order pairs --requests "$REQUESTS" --warmup "$WARMUP" --dist exp --interval-us 5000
	--prequery "off $LEAD" --server-cpu "$scpu" --client-cpu "$ccpu"
	--server-port "$port" --seed "$SEED")

# side POINT-PREQUERY: the side a run is on, in words
side() { if [ "$1" = off ]; then echo "without pre-query"; else echo "with pre-query"; fi; }

# progress: the sweep's per-run lines on stdin, as pairs and sides;
# other lines (a failed run's error) as they are. Everything to sweep.log.
progress() {
	local l
	while IFS= read -r l; do
		printf '%s\n' "$l" >> "$out/sweep.log"
		if [[ $l =~ \[([0-9]+)/([0-9]+)\]\ [^\ ]*_pq-([^_]+)_[^\ ]*\ rep\ ([0-9]+)\ ([a-z]+)\; ]]; then
			# the total of all pairs: the traced first pair is a sweep of its own
			printf 'run %2d/%d: pair %2d, %-18s %s\n' "${BASH_REMATCH[1]}" $((2 * PAIRS)) \
				"${BASH_REMATCH[4]}" "$(side "${BASH_REMATCH[3]}"):" "${BASH_REMATCH[5]}"
		elif [[ $l == *" failed"* || $l == *"cannot"* || $l == *"not free"* ]]; then
			printf '%s\n' "$l"
		fi
	done
}

# sweep ARGS...: one wakebench sweep into $out, its progress shown, its
# output into sweep.log, the command into demo.txt
sweep() {
	local rc=0
	printf '%q ' "$WB" sweep --out "$out" "$@" >> "$out/demo.txt"; echo >> "$out/demo.txt"
	"$WB" sweep --out "$out" "$@" 2> >(progress) >> "$out/sweep.log" || rc=$?
	wait	# the progress filter
	return $rc
}

# run_pairs: the pairs, as one sweep; as root the first pair is traced
# (--trace, request markers on) and the others are added by --resume
# with more repetitions, which continues the alternation untraced
run_pairs() {
	local rc=0
	mkdir -p "$out"
	{
		echo "# wakebench demo $(date -u +%Y-%m-%dT%H:%M:%SZ): $PAIRS pairs, $REQUESTS requests a run, lead $LEAD us"
		printf '%q\n' "$0"
		env | { grep '^WB_DEMO_' || true; } | sort
		echo "# the sweeps it ran:"
	} > "$out/demo.txt"
	if [ ${#trace[@]} -gt 0 ]; then
		sweep "${sargs[@]}" --reps 1 --trace || rc=$?
		if [ "$PAIRS" -gt 1 ] && [ -s "$out/plan.txt" ]; then
			sweep --resume --reps "$PAIRS" || rc=$?
		fi
	else
		sweep "${sargs[@]}" --reps "$PAIRS" || rc=$?
	fi
	[ -s "$out/summary.csv" ] || die "the sweep wrote no summary (exit $rc): $(tail -3 "$out/sweep.log")"
}

# point SIDE-PREQUERY: the directory name of the point (from sweep.csv)
point() { "$WB" internal demo-point "$out" "$1"; }

# analyse PREQUERY: the traced first pair's run of that side
analyse() {
	local pq=$1 d
	d="$out/$(point "$pq")/rep-1"
	if [ ! -s "$d/trace/meta.txt" ]; then
		echo "== pair 1, $(side "$pq"): not traced: $(tail -1 "$d/trace.err" 2>/dev/null || echo "no trace")"
		return 0
	fi
	echo "== pair 1 (traced), $(side "$pq")$([ "$pq" = off ] || echo ", $pq us ahead of each request") =="
	echo "-- server cpu$scpu residency during the run:"
	"$WB" trace timeline "$d/trace" --cpus "$scpu" 2>>"$out/trace.err" | grep -E "^(cpu|$scpu )" || true
	echo "-- C-state the server core was in when each request arrived:"
	"$WB" trace attribute "$d/trace" --requests "$d/server.csv" --cpu "$scpu" \
		--client "$d/client/requests.csv" 2>>"$out/trace.err" | grep -v '^[0-9]* requests attributed' || true
}

# demo_report: what the runs showed, computed in C from the sweep's files
# by 'wakebench internal demo-report': the workload tests' WARNINGs and
# notes (each test at alpha 0.01, a WARNING below 0.01 / 2N), each side's
# medians, the within-run CIs stats found wide, the paired effect, and
# the states the traced pair's requests found. When pairs were left out
# as behind schedule, 'stats --include-behind' first gives the effect
# with them counted, said beside the headline.
demo_report() {
	local all= opts=(--pairs "$PAIRS" --lead "$LEAD" --requests "$REQUESTS" --seed "$SEED"
		--server-cpu "$scpu" --client-cpu "$ccpu")
	if [ "$("$WB" internal demo-behind "${opts[@]}" "$out")" != 0 ]; then
		all=$out/summary-include-behind.csv
		"$WB" stats --include-behind --out "$all" "$out" > /dev/null 2>&1 || all=
	fi
	"$WB" internal demo-report "${opts[@]}" ${all:+--included "$all"} "$out"
}

echo "wakebench demo: server on CPU $scpu, client on CPU $ccpu; $PAIRS pairs of runs without and"
echo "with a pre-query ${LEAD} us ahead, $REQUESTS requests a run at exp gaps of 5 ms, no service time"
[ ${#trace[@]} -gt 0 ] || echo "(not root or no tracefs: runs are not traced)"
echo "results: $out"
echo
run_pairs
if [ ${#trace[@]} -gt 0 ]; then
	echo
	analyse off
	echo
	analyse "$LEAD"
fi
demo_report > "$out/report.txt"
echo
cat "$out/report.txt"
echo
"$WB" report "$out" 2>>"$out/report.err" >/dev/null || echo "demo: figures could not be drawn: $(tail -1 "$out/report.err")"
echo "results: $out"
echo "report:  $out/report/index.html (figures: $out/report/fig*.png, summary: $out/report.txt)"
