#!/bin/bash
# Generator capacity: the highest open-loop rate one client core sustains
# against a busy-poll server on the other core, with < 1 % late sends
# (> 10 us behind schedule), every request answered and the achieved rate
# within 1 % of the target. Fixed gaps, --wait spin, one connection (and
# 2 connections as a second row), rates stepped up until a rate fails.
# The result is the median over REPS sweeps. Target: >= 200k req/s.
#   usage: bench/capacity.sh [REPS] [SECONDS]
. "$(dirname "$0")/lib.sh"
REPS=${1:-3}
SECS=${2:-1}
RATES="50000 100000 150000 200000 250000 300000 350000 400000 450000 500000 600000 700000 800000 1000000"
wb_server --busy-poll
: > "$BTMP/rows"
for conns in 1 2; do
	for rep in $(seq "$REPS"); do
		best=0
		for rate in $RATES; do
			"$WB" client --server 127.0.0.1:$PORT --cpu "$CCPU" --dist fixed --rate $rate \
				--duration "$SECS" --warmup 1000 --wait spin --connections $conns \
				--timeout-ms 5000 -q --out "$BTMP/c" 2>/dev/null
			s="$BTMP/c/summary.csv"
			ok=$(awk -F, -v r=$rate 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				{ late = $c["late_sends"] / $c["count"]; a = $c["rate_achieved"]
				  print ($c["status"] == "ok" && $c["unanswered"] == 0 && late < 0.01 &&
					 a >= 0.99 * r) ? 1 : 0
				  printf "%d %.2f %.0f %s\n", r, 100 * late, a, $c["pace_p99_us"] > "/dev/stderr" }' \
				"$s" 2>>"$BTMP/detail.$conns")
			[ "$ok" = 1 ] || break
			best=$rate
		done
		echo "$conns $best" >> "$BTMP/rows"
		echo "connections $conns rep $rep/$REPS: $best req/s" >&2
	done
done
stop_all
echo "Generator capacity: highest rate with < 1 % late sends, all answered, achieved >= 99 %;"
echo "fixed gaps, --wait spin, busy-poll server on cpu $SCPU, client on cpu $CCPU, ${SECS}s runs, median of $REPS"
printf '%-12s %14s\n' connections max_req_per_s
for conns in 1 2; do
	printf '%-12s %14s\n' $conns "$(awk -v c=$conns '$1 == c { print $2 }' "$BTMP/rows" | median)"
done
echo "the step that failed (rate late_pct achieved pace_p99_us), last sweep:"
for conns in 1 2; do tail -1 "$BTMP/detail.$conns" | sed "s/^/  $conns conn: /"; done
