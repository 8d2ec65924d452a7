# The latency-cost plane (issue 35): stats' cost_ratio_cpu (the paired
# ratio of the CPU cost per request, this / baseline, with its CI),
# cost_extra_cpu_us (the difference of the medians) and the Pareto marks
# over (cost, p50) and (cost, p99), on a crafted sweep.csv whose front is
# known; a point without a CPU time is left out with a note.
. "$(dirname "$0")/lib.sh"
HDR="point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us,requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent,prequeries_skipped,dir,cost_cpu_us_per_req"
row() {	# row POINT REP PQ P50 P99 COST
	echo "$1,$2,ok,exp,1000,$3,0,on,0,1000,$2,1000,$4,$4,$4,$5,$5,1,0.5,0,0,0,$1/rep-$2,$6"
}
mkdir -p "$TMP/a"
# off: the cheapest (front on both); pq20: fastest p50 (front p50, and
# p99: 900 < 1000); pq50: best p99 but beaten on p50 by pq20; pq100:
# beaten on both; pq200: no CPU time, left out.
{
	echo "$HDR"
	for r in 1 2 3 4 5 6; do
		row off $r off $((100 + r)) $((1000 + r)) 30
		row pq20 $r 20 $((40 + r)) $((900 + r)) $((50 + r % 2))
		row pq50 $r 50 $((45 + r)) $((500 + r)) 60
		row pq100 $r 100 $((50 + r)) $((950 + r)) 70
		row pq200 $r 200 $((10 + r)) $((100 + r)) ""
	done
} > "$TMP/a/sweep.csv"
"$WB" stats "$TMP/a" > "$TMP/a.out" 2>&1 || fail "stats: $(cat "$TMP/a.out")"
S="$TMP/a/summary.csv"
pcol() { csv_col "$S" "$2" | sed -n "$(csv_col "$S" point | grep -nx "$1" | cut -d: -f1)p"; }
# appended: the plane's columns after the costs, then only the dimensions
# added in the same round (lib/sweep/sweepdim.h's SWEEPDIM_ADDED)
head -1 "$S" | grep -q ',cost_ratio_cpu,cost_ratio_cpu_lo,cost_ratio_cpu_hi,cost_extra_cpu_us,pareto_p50,pareto_p99,server_busy_poll,so_busy_poll,governor,haltpoll_ns$' ||
	fail "plane and added dimensions' columns not last: $(head -1 "$S")"
for want in "off yes yes" "pq20 yes yes" "pq50 no yes" "pq100 no no" "pq200  "; do
	set -- $want
	got="$(pcol "$1" pareto_p50) $(pcol "$1" pareto_p99)"
	[ "$got" = "${2:-} ${3:-}" ] || fail "$1: pareto $got, want ${2:-} ${3:-}"
done
# pq20's cost: 50 or 51 against 30 in every pair -> median 50.5/30
[ "$(pcol pq20 cost_ratio_cpu)" = 1.6833 ] || fail "cost ratio: $(pcol pq20 cost_ratio_cpu)"
[ "$(pcol pq20 cost_ratio_cpu_lo) $(pcol pq20 cost_ratio_cpu_hi)" = "1.6667 1.7000" ] ||
	fail "cost ratio CI: $(pcol pq20 cost_ratio_cpu_lo) $(pcol pq20 cost_ratio_cpu_hi)"
[ "$(pcol pq50 cost_extra_cpu_us)" = 30.000 ] || fail "cost extra: $(pcol pq50 cost_extra_cpu_us)"
[ -z "$(pcol off cost_ratio_cpu)$(pcol pq200 cost_ratio_cpu)$(pcol pq200 cost_extra_cpu_us)" ] ||
	fail "baseline or no-cost point has a ratio: $(cat "$S")"
grep -q '^latency-cost plane:' "$TMP/a.out" || fail "no plane table: $(cat "$TMP/a.out")"
grep -qE '^pq50 +60\.0 \[60\.0, 60\.0\] +2\.000 \[2\.000, 2\.000\] +48\.5 +503\.5 p99$' "$TMP/a.out" ||
	fail "plane row: $(cat "$TMP/a.out")"
grep -q '^1 point without runs in the medians or a CPU time (no cost_cpu_us_per_req) left out of the front$' "$TMP/a.out" ||
	fail "no note on the left-out point: $(cat "$TMP/a.out")"
# a sweep without any CPU time: marks empty, no plane table
{ echo "$HDR"; for r in 1 2 3; do row off $r off 10 20 ""; done; } > "$TMP/a/sweep.csv"
"$WB" stats "$TMP/a" > "$TMP/b.out" 2>&1 || fail "stats without cost: $(cat "$TMP/b.out")"
[ -z "$(pcol off pareto_p50)$(pcol off pareto_p99)" ] || fail "a mark without a cost"
grep -q 'latency-cost plane' "$TMP/b.out" && fail "plane table without a cost"
exit 0
