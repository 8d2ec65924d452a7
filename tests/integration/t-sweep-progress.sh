# wakebench sweep while it runs and when it ends (issue 18): a progress
# line per finished run on standard error without a terminal (done/total,
# the point, elapsed, ETA); --dry-run's number of runs and estimated
# duration (on standard error: standard output stays the plan); the
# closing table's full point names, sorted by the dimensions (off first,
# numbers by value), not in the shuffled order of the runs.
. "$(dirname "$0")/lib.sh"

# --dry-run: 2 x 2 points x 3 reps; each run 500 requests at 2 ms plus a
# warm-up of 100 at 2 ms where there is one, 0.5 s of overhead a run:
# 12 s + 6 x 0.2 s + 6 s = 19.2 s
"$WB" sweep --out "$TMP/dry" --dist "fixed exp" --warmup "0 100" --reps 3 --requests 500 \
	--interval-us 2000 --dry-run > "$TMP/plan" 2> "$TMP/dry.err" || fail "dry run: $(cat "$TMP/dry.err")"
[ "$(wc -l < "$TMP/plan")" = 12 ] || fail "dry-run plan: $(cat "$TMP/plan")"
[ ! -e "$TMP/dry" ] || fail "--dry-run created $TMP/dry"
grep -q '^wakebench-sweep: 12 runs (4 points x 3 reps), estimated 0h00m20s: 12.0 s of measured requests, 1.2 s of warm-up, 6.0 s of per-run overhead (0.5 s a run' "$TMP/dry.err" ||
	fail "dry-run estimate: $(cat "$TMP/dry.err")"
# a duration per run, and several agents' start margin
"$WB" sweep --out "$TMP/dry2" --duration 30 --reps 2 --rate "100 200" --client-exec '' \
	--client-exec '' --start-margin-ms 2500 --dry-run > /dev/null 2> "$TMP/dry2.err" ||
	fail "dry run 2: $(cat "$TMP/dry2.err")"
grep -q '4 runs (2 points x 2 reps), estimated 0h02m12s: 120.0 s of measured requests, 0.0 s of warm-up, 2.0 s of per-run overhead .*, 10.0 s of the 2 client agents'"'"' start margin' "$TMP/dry2.err" ||
	fail "dry-run estimate with agents: $(cat "$TMP/dry2.err")"

# Progress without a terminal: standard error is a file here.
port=$(test_port 50)
"$WB" sweep --out "$TMP/run" --prequery "off 20" --reps 2 --requests 50 --interval-us 500 \
	--server-port "$port" > "$TMP/run.out" 2> "$TMP/run.err" || fail "sweep: $(tail -5 "$TMP/run.err")"
[ "$(grep -c '^wakebench-sweep: \[[1-4]/4\] dist-exp_int-500_pq-\(off\|20\)_wu-0_cs-on_svc-0 rep [12] ok; [0-9]*m[0-9][0-9]s elapsed, ETA [0-9]*m[0-9][0-9]s$' "$TMP/run.err")" = 4 ] ||
	fail "progress lines: $(cat "$TMP/run.err")"
for r in 1 2 3 4; do grep -q "\[$r/4\]" "$TMP/run.err" || fail "no line for run $r"; done
grep -q '\[4/4\] .* ETA 0m00s$' "$TMP/run.err" || fail "last ETA: $(cat "$TMP/run.err")"

# The closing table: names longer than 40 characters in full, sorted by
# dist, then interval_us by value (500 before 1000), prequery off first.
HDR="point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us,requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent,prequeries_skipped,dir"
row() {	# row DIST INTERVAL PQ REP
	local p=dist-$1_int-$2_pq-$3_wu-0_cs-on_svc-0_a-long-tail-of-values-for-the-name
	echo "$p,$4,ok,$1,$2,$3,0,on,0,1000,$4,1000,10,10,10,10,10,1,0.5,0,0,0,$p/rep-$4"
}
mkdir -p "$TMP/tab"
{
	echo "$HDR"
	for r in 1 2 3; do
		row poisson 1000 20 $r; row exp 1000 off $r; row exp 500 20 $r
		row poisson 500 off $r; row exp 500 off $r; row exp 1000 20 $r
	done
} > "$TMP/tab/sweep.csv"
"$WB" stats "$TMP/tab" > "$TMP/tab.out" 2>&1 || fail "stats: $(cat "$TMP/tab.out")"
want="exp-500-off exp-500-20 exp-1000-off exp-1000-20 poisson-500-off poisson-1000-20"
# (the closing table only: the paired section after it names points too)
got=$(sed '/^paired effect/q' "$TMP/tab.out" |
	sed -n 's/^dist-\([a-z]*\)_int-\([0-9]*\)_pq-\([a-z0-9]*\)_wu-0_cs-on_svc-0_a-long-tail-of-values-for-the-name  *3 .*/\1-\2-\3/p' | tr '\n' ' ')
[ "$got" = "$want " ] || fail "closing table order or names: got '$got', want '$want': $(cat "$TMP/tab.out")"
# summary.csv in the same order
[ "$(csv_col "$TMP/tab/summary.csv" point | sed 's/^dist-\([a-z]*\)_int-\([0-9]*\)_pq-\([a-z0-9]*\)_.*/\1-\2-\3/' | tr '\n' ' ')" = "$want " ] ||
	fail "summary.csv order: $(csv_col "$TMP/tab/summary.csv" point)"
exit 0
