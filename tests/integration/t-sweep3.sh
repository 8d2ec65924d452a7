# wakebench sweep with the thesis' modes (issue 15): a three-tier sweep of
# 2 midtier delays x 2 reps produces the run tree (server, midtier, client,
# capture), sweep.csv with the midtier's and the capture's columns and
# summary.csv with the thesis' columns; --resume with a larger --reps runs
# only the added repetitions; a two-tier sweep runs the thesis' layout (a
# --prequery-only server on the server's CPU, acknowledged pre-queries,
# a burst warm-up), closed loop and unpinned tiers.
. "$(dirname "$0")/lib.sh"
P=$(test_port 300)
D="$TMP/s3"
SW=("$WB" sweep --out "$D" --tiers 3 --delay "off 50" --work-us 10 --service-us 5
	--reps 2 --requests 100 --interval-us 2000 --wait hybrid --server-port "$P")
"${SW[@]}" > "$TMP/s3.out" 2>&1 || fail "3-tier sweep: $(tail -5 "$TMP/s3.out")"
[ "$(wc -l < "$D/plan.txt")" = 4 ] || fail "plan: $(cat "$D/plan.txt")"
grep -q ' tiers=3 .*prequery=off' "$D/plan.txt" || grep -q 'prequery=off.* tiers=3 ' "$D/plan.txt" ||
	fail "three tiers: the client's pre-query is not collapsed to off: $(head -1 "$D/plan.txt")"
for pt in dist-exp_int-2000_pq-off_wu-0_cs-on_svc-5_tiers-3_delay-off_work-10 \
	  dist-exp_int-2000_pq-off_wu-0_cs-on_svc-5_tiers-3_delay-50_work-10; do
	for r in 1 2; do
		for f in server.csv midtier.csv midtier-summary.csv client/summary.csv \
			 capture/capture.csv capture/cpuidle.csv capture/interrupts.csv capture/notes.txt; do
			[ -s "$D/$pt/rep-$r/$f" ] || fail "$pt rep $r: no $f"
		done
	done
done
S="$D/sweep.csv"
[ "$(csv_col "$S" status | sort -u)" = ok ] || fail "runs not ok: $(cat "$S")"
for c in tiers delay work_us helper_wait mt_requests mt_prequeries_sent mt_prequeries_raced \
	 mt_backend_rtt_p50_us irq_delta mt_irq_delta res_C0_pct lat_p95_us lat_p9999_us; do
	head -1 "$S" | tr , '\n' | grep -qx "$c" || fail "sweep.csv has no $c: $(head -1 "$S")"
done
# every request went through the midtier; delay 50 sent pre-queries, off none
[ "$(csv_col "$S" mt_requests | sort -u)" = 100 ] || fail "mt_requests: $(csv_col "$S" mt_requests)"
paste -d' ' <(csv_col "$S" delay) <(csv_col "$S" mt_prequeries_sent) <(csv_col "$S" mt_delay_us) |
	awk '$1 == "off" && ($2 != 0 || NF != 2) { exit 1 } $1 == 50 && ($2 < 1 || $3 != "50.000") { exit 1 }' ||
	fail "midtier columns: $(paste -d' ' <(csv_col "$S" delay) <(csv_col "$S" mt_prequeries_sent))"
# residency: the kernel's state names (or /proc/stat idle) with numbers;
# interrupts on the server CPU
if [ -d /sys/devices/system/cpu/cpu0/cpuidle/state0 ]; then
	st=$(tr ' ' _ < /sys/devices/system/cpu/cpu0/cpuidle/state0/name)
	for c in "res_${st}_pct" "entries_${st}" "mt_res_${st}_pct"; do
		csv_col "$S" "$c" | grep -qx '[0-9.]*[0-9]' || fail "$c empty or absent: $(head -1 "$S")"
	done
fi
csv_col "$S" irq_delta | awk '!($1 > 0) { exit 1 }' || fail "irq_delta: $(csv_col "$S" irq_delta)"
# absent sources are said so, never zeros
n=$(find "$D" -name notes.txt | xargs grep -l 'turbostat' | wc -l)
[ "$n" = 4 ] || fail "turbostat not in every notes.txt"
if [ ! -d /sys/bus/event_source/devices/cstate_core ]; then
	grep -q 'perf cstate_core: no such PMU' "$D/$pt/rep-1/capture/notes.txt" || fail "no perf note"
	[ ! -e "$D/$pt/rep-1/capture/perf-cstate.csv" ] || fail "perf ran without the PMU"
fi
if [ ! -s "$D/$pt/rep-1/capture/turbostat.csv" ]; then
	grep -q '^turbostat: cannot run here' "$D/$pt/rep-1/capture/notes.txt" || fail "turbostat: no reason"
fi
# summary.csv: the new dimensions, the thesis' columns, delay=off baseline
# (runs behind schedule counted: with three tiers on 2 CPUs the client
# shares the midtier's core and may send late)
"$WB" stats --include-behind "$D" > /dev/null || fail "stats --include-behind"
U="$D/summary.csv"
for c in delay avg_of_avgs_us avg_p99_us max_p99_us p95_median_us p9999_median_us baseline; do
	head -1 "$U" | tr , '\n' | grep -qx "$c" || fail "summary.csv has no $c"
done
[ "$(paste -d' ' <(csv_col "$U" delay) <(csv_col "$U" baseline) | sort | tr '\n' ';')" = "50 delay=off;off ;" ] ||
	fail "baseline: $(paste -d' ' <(csv_col "$U" delay) <(csv_col "$U" baseline))"
# max_p99 is the largest p99 of the point's runs
for d in off 50; do
	want=$(paste -d' ' <(csv_col "$S" delay) <(csv_col "$S" lat_p99_us) | awk -v d=$d '$1 == d { print $2 }' | sort -g | tail -1)
	got=$(paste -d' ' <(csv_col "$U" delay) <(csv_col "$U" max_p99_us) | awk -v d=$d '$1 == d { print $2 }')
	awk -v a="$want" -v b="$got" 'BEGIN { exit !(a == b) }' || fail "max_p99 $d: $got, runs' max $want"
done
# --baseline KEY=VALUE, any dimension; a bad one is a usage error
"$WB" stats --include-behind --baseline delay=50 --out "$TMP/b.csv" "$D" > /dev/null || fail "--baseline delay=50"
[ "$(paste -d' ' <(csv_col "$TMP/b.csv" delay) <(csv_col "$TMP/b.csv" baseline) | sort | tr '\n' ';')" = "50 ;off delay=50;" ] ||
	fail "--baseline delay=50: $(paste -d' ' <(csv_col "$TMP/b.csv" delay) <(csv_col "$TMP/b.csv" baseline))"
"$WB" stats --baseline nokey=1 "$D" > /dev/null 2>&1; [ $? = 2 ] || fail "--baseline nokey=1 accepted"

# --resume with more reps: only the added repetitions run, appended to the plan
cp "$D/plan.txt" "$TMP/plan.before"
cp "$D/sweep.spec" "$TMP/spec.before"
"$WB" sweep --out "$D" --resume --reps 3 > "$TMP/r.out" 2>&1 || fail "resume --reps 3: $(tail -3 "$TMP/r.out")"
grep -q '6 runs planned: 2 run now, 4 already complete' "$TMP/r.out" || fail "resume: $(grep planned "$TMP/r.out")"
[ "$(head -4 "$D/plan.txt")" = "$(cat "$TMP/plan.before")" ] || fail "resume reordered the planned runs"
[ "$(tail -2 "$D/plan.txt" | awk '{ print $2 }' | sort -u)" = 3 ] || fail "added runs are not rep 3"
grep -qx 'reps = 3' "$D/sweep.spec" || fail "sweep.spec keeps reps 2"
[ "$(csv_col "$S" status | grep -c ok)" = 6 ] || fail "sweep.csv after resume: $(csv_col "$S" status)"
"$WB" sweep --out "$D" --resume --reps 2 > "$TMP/r2.out" 2>&1; [ $? = 2 ] || fail "fewer reps accepted"
# stopped between the plan's and the spec's renames: the same command
# finishes it (the plan is already the new spec's)
cp "$TMP/spec.before" "$D/sweep.spec"
"$WB" sweep --out "$D" --resume --reps 3 > "$TMP/r3.out" 2>&1 || fail "resume after a half update: $(tail -3 "$TMP/r3.out")"
grep -q '6 runs planned: 0 run now, 6 already complete' "$TMP/r3.out" || fail "half update: $(grep planned "$TMP/r3.out")"
grep -qx 'reps = 3' "$D/sweep.spec" || fail "half update: sweep.spec not renewed"
ls -A "$D" | grep -q '^\.' && fail "temporary files left in $D: $(ls -A "$D" | grep '^\.')"

# two tiers, the thesis' layout: pre-queries to a --prequery-only server on
# the server's CPU, acknowledged; a burst warm-up; closed loop; unpinned
D2="$TMP/s2"
"$WB" sweep --out "$D2" --prequery 50 --prequery-receiver separate --prequery-ack yes \
	--warmup 10 --warmup-mode burst --closed "no yes" --cpu "pinned none" --reps 1 --requests 50 \
	--interval-us 1000 --server-port "$P" > "$TMP/s2.out" 2>&1 || fail "2-tier sweep: $(tail -5 "$TMP/s2.out")"
[ "$(wc -l < "$D2/plan.txt")" = 4 ] || fail "2-tier plan: $(cat "$D2/plan.txt")"
for rd in "$D2"/*/rep-1; do
	[ -s "$rd/prequery-server.csv" ] || fail "$rd: no pre-query server log"
	n=$(tail -n +2 "$rd/prequery-server.csv" | grep -c . || true)
	sent=$(sed -n 's/.*"prequeries_sent": *\([0-9]*\).*/\1/p' "$rd/client/summary.json" | head -1)
	[ -n "$sent" ] && [ "$sent" -ge 40 ] && [ "$n" = $((sent + 10)) ] ||
		fail "$rd: the pre-query server logged $n messages, the client sent $sent pre-queries + a burst of 10"
	grep -q '"ack": *true' "$rd/client/summary.json" || fail "$rd: pre-query not acknowledged"
	grep -q '"warmup_burst_sent": *10' "$rd/client/summary.json" || fail "$rd: no burst"
	case $rd in
	*cpu-none*) grep -q '^all,\|^server,all' "$rd/capture/capture.csv" || fail "$rd: unpinned capture is not of all CPUs" ;;
	esac
done
[ "$(csv_col "$D2/sweep.csv" closed | sort | tr '\n' ' ')" = "no no yes yes " ] || fail "closed column"
[ "$(csv_col "$D2/sweep.csv" cpu | sort | tr '\n' ' ')" = "none none pinned pinned " ] || fail "cpu column"
ls "$D2" | grep -q '_closed-yes' || fail "point names do not show closed"
# every example spec is valid and plans
for spec in "$WB_TOP"/scripts/examples/*.spec; do
	"$WB" sweep --spec "$spec" --out "$TMP/dry" --dry-run > "$TMP/dry.plan" 2> "$TMP/dry.err" ||
		fail "$spec: $(cat "$TMP/dry.err")"
	[ -s "$TMP/dry.plan" ] || fail "$spec: empty plan"
done
echo ok
