#!/bin/bash
# wakebench demo: the built-in default experiment on loopback (make demo).
#
# Server pinned to CPU 0, client to the last CPU, 5 ms exponential gaps,
# 20 us of service: the server core goes idle between requests, so every
# request pays the wake-up. The question: does a pre-query 100 us ahead
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
#   WB_DEMO_SERVER_CPU  the server's CPU (default 0)
#   WB_DEMO_SEED        seed base: pair N runs seed SEED + N (default 1)
#   WB_DEMO_PORT        the server's port, PORT+1 its pre-query port
#                       (default: the first free pair from 17600)
#   WB_DEMO_OUT         the result directory
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
WB="$top/${O:-build}/bin/wakebench"
. "$top/scripts/wb-lib.sh"
out=${WB_DEMO_OUT:-$top/results/demo-$(date +%Y%m%d-%H%M%S)}
scpu=${WB_DEMO_SERVER_CPU:-0}
ccpu=$(($(nproc) - 1))
[ "$ccpu" = "$scpu" ] && ccpu=$(( (scpu + 1) % $(nproc) ))
PAIRS=${WB_DEMO_PAIRS:-10}
REQUESTS=${WB_DEMO_REQUESTS:-180}
LEAD=${WB_DEMO_LEAD_US:-100}
SEED=${WB_DEMO_SEED:-1}
WARMUP=20
ALPHA=0.01
trap 'exit 130' INT TERM HUP

die() { echo "demo: $*" >&2; exit 1; }
[ -x "$WB" ] || die "no $WB: build first (make)"
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
	--service-us 20 --prequery "off $LEAD" --server-cpu "$scpu" --client-cpu "$ccpu"
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
point() {
	paste -d' ' <(csv_col "$out/sweep.csv" prequery) <(csv_col "$out/sweep.csv" point) |
		awk -v pq="$1" '$1 == pq { print $2; exit }'
}

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

# run_tests DIR: the failed workload tests of run DIR, one a line:
# "NAME<TAB>P<TAB>TEXT" (P empty for a test without a p-value)
run_tests() {
	awk '/^test / && $3 ~ /^(misfits|fails|drifts)$/ {
		text = $0; sub(/^test +[a-z]+ +[a-z]+ +/, "", text)
		p = ""
		if (match(text, /\(p [^)]*\)/)) p = substr(text, RSTART + 3, RLENGTH - 4)
		printf "%s\t%s\t%s\n", $2, p, text
	}' "$1/client/summary.txt" 2>/dev/null
}

# judge PREQUERY REP STATUS DIR BEHIND REASON: one WARNING or note line
# for a run that failed, failed a workload test or fell behind, and a
# "drift<TAB>..." line when its latency drifted; nothing for a run that
# passed. $thr: the level below which a test warns.
judge() {
	local pq=$1 rep=$2 st=$3 dir=$4 behind=$5 reason=$6 warn=0 items=() name p text what
	if [ "$st" != ok ]; then
		text=$(tail -1 "$out/$dir/client.err" 2>/dev/null || true)
		case $st in failed) ;; missing) st="is missing" ;; *) st="was $st" ;; esac
		echo "WARNING: pair $rep, $(side "$pq"): the run $st: ${text:-see $out/sweep.log}"
		return
	fi
	while IFS=$'\t' read -r name p text; do
		case $name in
		gaps) what="gap test failed" ;;
		# the latency of the system moved within the run: on a VM the
		# wake cost itself drifts over seconds (lib/core/validity.h), so this
		# describes the machine, not the run's workload: a note
		# a note of its own, all runs on one line: "drift<TAB>..."
		stationarity)
			printf 'drift\tpair %s %s (p %s%s)\n' "$rep" "$([ "$pq" = off ] && echo without || echo with)" \
				"$p" "$([[ $text == *"window medians "* ]] && echo ", ${text##*window medians }")"
			continue ;;
		*) what="$name test failed" ;;
		esac
		items+=("$what ($text)")
		# no p-value (fixed gaps: their spread against a bound): no chance level
		if [ -z "$p" ] || awk -v p="$p" -v t="$thr" 'BEGIN { exit !(p < t) }'; then warn=1; fi
	done < <(run_tests "$out/$dir")
	if [ "$behind" = 1 ]; then
		if [[ $reason == "gap test:"* && $reason != *"pacing moves"* ]]; then
			items+=("behind schedule by the gap test: left out of the paired effect")
		else
			# the pacing error moved a percentile (or an older rule's
			# reason): not a matter of chance
			[[ $reason == "gap test:"*"; pacing moves"* ]] && reason="pacing moves${reason#*; pacing moves}"
			items+=("behind schedule: $reason: left out of the paired effect")
			warn=1
		fi
	fi
	[ ${#items[@]} -gt 0 ] || return 0
	text=$(printf '%s; ' "${items[@]}")
	if [ $warn = 1 ]; then echo "WARNING: pair $rep, $(side "$pq"): ${text%; }"
	else echo "note: pair $rep, $(side "$pq"): ${text%; }"; fi
}

# workload_tests: what the machine did to the runs, in the order they ran
workload_tests() {
	local n lines pq rep st dir behind reason drift
	n=$(csv_col "$out/sweep.csv" point | wc -l)
	# N runs x 2 tests that warn, at ALPHA each: by chance alone some
	# fail; below ALPHA / (2 N) one does in fewer than ALPHA of the demos
	thr=$(awk -v a=$ALPHA -v n="$n" 'BEGIN { printf "%.2g", a / (2 * n) }')
	lines=$(paste <(csv_col "$out/sweep.csv" prequery) <(csv_col "$out/sweep.csv" rep) \
		<(csv_col "$out/sweep.csv" status) <(csv_col "$out/sweep.csv" dir) \
		<(csv_col "$out/sweep.csv" behind_schedule) <(csv_col "$out/sweep.csv" behind_reason) |
		while IFS=$'\t' read -r pq rep st dir behind reason; do
			judge "$pq" "$rep" "$st" "$dir" "$behind" "$reason"
		done)
	if [ -z "$lines" ]; then
		echo "workload tests: all $n runs passed (send gaps fit exp, gaps independent, latency stationary; alpha $ALPHA) and kept their schedule"
		return
	fi
	echo "workload tests of the $n runs, alpha $ALPHA a test; the demo warns when the gaps or their"
	echo "independence fail below $ALPHA / $((2 * n)) = $thr (by chance in under 1 % of demos) or the pacing"
	echo "error moves a reported percentile outside its CI (behind schedule), and notes the rest:"
	printf '%s\n' "$lines" | { grep -v '^drift' || true; } | sed 's/^/  /'
	drift=$(printf '%s\n' "$lines" | { grep '^drift' || true; } | cut -f2)
	[ -n "$drift" ] || return 0
	# the VM's wake cost moves over seconds (lib/core/validity.h): the machine,
	# not the run's workload; the paired design holds the sides to the
	# same stretch of time
	echo "  note: latency drifts within $(printf '%s\n' "$drift" | wc -l) of the $n runs (stationarity test, window medians):"
	printf '%s\n' "$drift" | paste -sd';' | sed 's/;/; /g' | fold -s -w 96 | sed 's/ *$//; s/^/    /'
}

# paired M FILE: "M  ratio  [lo, hi]  verdict" from the paired columns
# of stats' summary FILE
paired() {
	local m=$1 f=$2 r lo hi v n
	r=$(sel "paired_speedup_$m" "$LEAD" "$f") lo=$(sel "paired_speedup_${m}_lo" "$LEAD" "$f")
	hi=$(sel "paired_speedup_${m}_hi" "$LEAD" "$f") v=$(sel "paired_verdict_$m" "$LEAD" "$f")
	n=$(sel paired_n "$LEAD" "$f")
	# no verdict: the point has no row (none of its runs is ok)
	[ "${v:-undecided}" = undecided ] && v="undecided at n=${n:-0}"
	if [ -n "$lo" ]; then printf '  %-4s %9s  [%s, %s]  %s\n' "$m" "${r:--}" "$lo" "$hi" "$v"
	else printf '  %-4s %9s  [-]  %s\n' "$m" "${r:--}" "$v"; fi
}

# sel COLUMN [PREQUERY] [FILE]: COLUMN of the point with that prequery
# (default: the pre-query's) in stats' summary.csv (or FILE)
sel() {
	local f=${3:-$out/summary.csv}
	paste -d'\t' <(csv_col "$f" prequery) <(csv_col "$f" "$1") |
		awk -F'\t' -v pq="${2:-$LEAD}" '$1 == pq { print $2; exit }'
}

# effect_of FILE: the paired effect's three lines from stats' summary FILE
effect_of() {
	local f=$1 cov=
	# a coverage only where there is an interval
	[ -z "$(sel paired_speedup_p50_lo "$LEAD" "$f")" ] || cov=$(sel paired_ci_coverage "$LEAD" "$f")
	echo "[its distribution-free 95 % CI over the pairs${cov:+, exact coverage $cov}] (wakebench stats):"
	paired avg "$f"; paired p50 "$f"; paired p99 "$f"
	[ -n "$(sel paired_speedup_p50_lo "$LEAD" "$f")" ] || echo "  ([-]: fewer than 6 pairs cannot bound a median at 95 %)"
}

# effect: the headline, computed by wakebench stats: the pairs whose runs
# kept their schedule; when some did not, the effect with them counted
# follows (what they would change, said beside the headline)
effect() {
	local n behind all=$out/summary-include-behind.csv
	head -1 "$out/summary.csv" | grep -q ',paired_n,' ||
		die "$out/summary.csv has no paired columns: this wakebench stats is too old"
	n=$(sel paired_n) behind=$(sel paired_n_behind)
	n=${n:-0}
	echo "paired effect, without / with pre-query: the median over $n pairs of the two runs' ratio"
	effect_of "$out/summary.csv"
	# the pairs neither kept nor left out as behind: a run of theirs failed
	[ $((PAIRS - n - ${behind:-0})) = 0 ] || echo "  ($((PAIRS - n - ${behind:-0})) pairs with a failed run left out)"
	[ -n "$behind" ] && [ "$behind" != 0 ] || return 0
	"$WB" stats --include-behind --out "$all" "$out" > /dev/null 2>&1 || return 0
	echo "$behind pairs with a run behind schedule were left out; counting them too, the median over $(sel paired_n "$LEAD" "$all") pairs"
	effect_of "$all"
}

# within: wakebench stats' notes on the runs' own CIs (a percentile that
# n requests bound only loosely, or not at all), from the last stats
# output of the sweeps, with sides for point names
within() {
	local l
	l=$(awk '/ runs -> /{ n = 0 } /: within-run 95 % CIs/ { l[++n] = $0 }
		 END { for (i = 1; i <= n; i++) print l[i] }' "$out/sweep.log" |
		sed -E 's/^[^:]*_pq-off_[^:]*:/  without pre-query:/; s/^[^:]*_pq-[^:]*:/  with pre-query:/')
	[ -n "$l" ] || return 0
	echo "within each run (wakebench stats; a run bounds its p99 at 95 % from 299 requests on):"
	printf '%s\n' "$l"
}

# ci PREFIX PREQUERY: "median [lo, hi]" of PREFIX (avg, p50, p99) for
# that side, "-" without runs
ci() {
	local m
	m=$(sel "$1_median_us" "$2")
	if [ -n "$m" ]; then echo "$m [$(sel "$1_ci_lo_us" "$2"), $(sel "$1_ci_hi_us" "$2")]"; else echo -; fi
}

# sides: each side's latency, the median over its runs (wakebench stats)
sides() {
	local pq
	printf '%-30s %28s %28s %28s\n' "latency (us): median of the runs [95 % CI]" avg p50 p99
	for pq in off "$LEAD"; do
		printf '  %-28s %28s %28s %28s\n' "$(side "$pq"), n $(sel n "$pq" | grep . || echo 0)" \
			"$(ci avg "$pq")" "$(ci p50 "$pq")" "$(ci p99 "$pq")"
	done
}

# found: which state the traced pair's requests found the server core in
# (counted from attribution.csv by column name; measured requests only,
# the ones with a client latency)
found() {
	local pq a
	for pq in off "$LEAD"; do
		a="$out/$(point "$pq")/rep-1/trace/attribution.csv"
		[ -s "$a" ] || return 0
		paste -d, <(csv_col "$a" state) <(csv_col "$a" latency_us) <(csv_col "$a" prequery) |
			awk -F, -v cpu="$scpu" -v side="$(side "$pq")" -v pq="$pq" '
			$2 == "" { next }
			{ n++ } $1 != "C0" && $1 != "unknown" { idle++ } $1 == "unknown" { unk++ }
			$3 == "woke" { woke++ }
			END {
				printf "requests that found cpu%s idle (pair 1, %s): %d of %d%s\n", cpu, side,
					idle, n, unk ? sprintf(" (%d found it in no known state: no idle events)", unk) : ""
				# The core a pre-query woke is still waking when its
				# request lands: the pair is read together but the
				# wake began early.
				if (pq != "off")
					printf "requests whose pre-query woke cpu%s (pair 1): %d of %d\n", cpu, woke, n
			}'
	done
}

demo_report() {
	echo "wakebench demo report: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "$PAIRS pairs without / with a pre-query $LEAD us ahead (seeds $((SEED + 1))-$((SEED + PAIRS)), one a pair; order"
	echo "alternating), $REQUESTS requests a run, exp gaps of 5 ms, 20 us service, server CPU $scpu, client CPU $ccpu"
	workload_tests
	sides
	within
	effect
	found
}

echo "wakebench demo: server on CPU $scpu, client on CPU $ccpu; $PAIRS pairs of runs without and"
echo "with a pre-query ${LEAD} us ahead, $REQUESTS requests a run at exp gaps of 5 ms, 20 us service"
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
