# wakebench trace on the real kernel (root, tracefs): a loopback run of
# server + client with markers, checked against the timeline; residency
# from the trace against /proc/stat or cpuidle counters over the same
# window; the instance removed on every way out.
. "$(dirname "$0")/lib.sh"
need_tracefs
# The server CPU must be one whose idle loop emits power:cpu_idle (on this
# VM only CPU 0 does); WB_TRACE_CPU overrides.
SCPU=${WB_TRACE_CPU:-0}
CCPU=$(($(nproc) - 1)); [ "$CCPU" = "$SCPU" ] && CCPU=0
N=1500

cat > "$TMP/run.sh" <<EOS
"$WB" server --port 0 --port-file "$TMP/port" --cpu $SCPU --trace-markers --log "$TMP/server.csv" -q &
spid=\$!
echo \$spid > "$TMP/server.pid"
while [ ! -s "$TMP/port" ]; do sleep 0.02; done
read -r port < "$TMP/port"
# A lead above what a pre-query's own send costs here (10-40 us on
# loopback, waking the server included), so the pre-query leaves on its own
# and can wake the core; a shorter one leaves with its request (together).
"$WB" client --server 127.0.0.1:\$port --cpu $CCPU --interval-us 2000 --requests $N \
	--prequery-lead-us 80 --trace-markers --out "$TMP/client" -q &
cpid=\$!
sleep 0.5
"$WB" trace residency --duration 2 --out "$TMP/res.csv" > /dev/null
wait \$cpid; rc=\$?
kill \$spid; wait \$spid
exit \$rc
EOS
"$WB" trace record --out "$TMP/tr" -- bash "$TMP/run.sh" || fail "record around the run"
[ "$(instances)" = 0 ] || fail "instance left behind"
grep -q '^clock mono' "$TMP/tr/meta.txt" || fail "meta.txt clock"
grep -q "^state $SCPU " "$TMP/tr/meta.txt" || fail "meta.txt idle state names"
"$WB" trace timeline "$TMP/tr" > "$TMP/timeline.out" || fail "timeline"
cs="$TMP/tr/cstate-cpu$SCPU.csv"
[ "$(head -1 "$cs")" = "Sample #,Continuous Time (ms),C-State,Duration (ms),Wake Cause" ] || fail "C-state CSV header"
# Wake causes: on loopback the server's core is woken by an IPI or a
# softirq (the client's send runs the receive path on the client's core
# and wakes the server thread with an IPI), never by a NIC IRQ.
grep -q '^events .*irq_vectors:reschedule_entry' "$TMP/tr/meta.txt" || fail "wake-cause events not recorded"
[ "$(head -1 "$TMP/tr/wakeups.csv")" = "cpu,cause,detail,count,percent" ] || fail "wakeups.csv header"
ipi=$(awk -F, -v c="$SCPU" '$1 == c && ($2 == "ipi" || $2 == "softirq") { s += $4 } END { print s + 0 }' "$TMP/tr/wakeups.csv")
exits=$(awk -F, -v c="$SCPU" 'NR > 1 && $1 == c { s += $4 } END { print s + 0 }' "$TMP/tr/wakeups.csv")
[ "$ipi" -ge $((N / 2)) ] || fail "only $ipi of $exits wakes of cpu$SCPU by an IPI or softirq for $N requests: $(cat "$TMP/tr/wakeups.csv")"
# the shares add up, and every idle stay of the C-state CSV names its wake
awk -F, -v c="$SCPU" '$1 == c { s += $5 } END { exit !(s > 99.9 && s < 100.1) }' "$TMP/tr/wakeups.csv" \
	|| fail "wake shares of cpu$SCPU do not sum to 100"
[ "$(awk -F, 'NR > 1 && $3 != "C0" && $5 != ""' "$cs" | wc -l)" -ge $((exits - 1)) ] || fail "C-state CSV: idle stays without a wake cause"
grep -q "cpu $SCPU: [0-9]* idle exits woken by" "$TMP/timeline.out" || fail "timeline does not print the wake causes"
[ "$(head -1 "$TMP/tr/irq.csv")" = "Sample #,Continuous Time (ms),IRQ No,Interface,Duration (ms),CPU,Handler (ms)" ] \
	|| fail "IRQ CSV header"
# Idle intervals between requests on the server CPU.
idle=$(awk -F, 'NR > 1 && $3 != "C0" && $3 != "unknown"' "$cs" | wc -l)
# Every interval after the first begins with a cpu_idle event, every
# marker is an event: the trace holds at least that many.
nev=$(sed -n 's/^events: \([0-9]*\) in the trace, \([0-9]*\) lost$/\1/p' "$TMP/timeline.out")
[ -n "$nev" ] || fail "no events line: $(tail -3 "$TMP/timeline.out")"
min=$(( $(wc -l < "$cs") - 2 + $(wc -l < "$TMP/tr/markers.csv") - 1 ))
[ "$nev" -ge "$min" ] || fail "events: $nev in the trace, fewer than the $min intervals and markers"
[ "$idle" -ge $((N / 2)) ] || fail "only $idle idle intervals on cpu$SCPU for $N requests"
# Residency sums to 100 % per CPU.
awk -F, 'NR > 1 { s[$1] += $3 } END { for (c in s) if (s[c] < 99.99 || s[c] > 100.01) exit 1 }' \
	"$TMP/tr/residency.csv" || fail "residency does not sum to 100"
# Every request marker ("wb recv SEQ") falls inside C0 on the server CPU.
start=$(awk '$1 == "start_ns" { print $2 }' "$TMP/tr/meta.txt")
awk -F, -v start="$start" -v cpu="$SCPU" '
	FNR == 1 { file++; next }
	file == 1 { n++; e[n] = $2 * 1e6; d[n] = $4 * 1e6; st[n] = $3; next }
	$3 ~ /^wb recv / && $2 == cpu {
		t = $1 - start; lo = 1; hi = n
		while (lo < hi) { mid = int((lo + hi) / 2); if (e[mid] <= t) lo = mid + 1; else hi = mid }
		if (st[lo] != "C0") { bad++; printf("marker at %.0f ns in %s\n", t, st[lo]) > "/dev/stderr" }
		m++
	}
	END { if (m < '$N' || bad) exit 1 }' "$cs" "$TMP/tr/markers.csv" || fail "request markers outside C0 (or missing)"
grep -c 'wb send ' "$TMP/tr/markers.csv" | grep -q "^$N$" || fail "client send markers"
# Residency from the trace and from counters over the same window.
from=$(awk -F, 'NR == 2 { print $7 }' "$TMP/res.csv")
to=$(awk -F, 'NR == 2 { print $8 }' "$TMP/res.csv")
"$WB" trace timeline "$TMP/tr" --cpus $SCPU --from-ns "$from" --to-ns "$to" > /dev/null || fail "windowed timeline"
trace_c0=$(awk -F, -v c=$SCPU 'NR > 1 && $1 == c && $2 == "C0" { print $3 }' "$TMP/tr/residency.csv")
count_c0=$(awk -F, -v c=$SCPU 'NR > 1 && $1 == c && $2 == "C0" { print $3 }' "$TMP/res.csv")
echo "C0 on cpu$SCPU over the same window: trace $trace_c0 %, counters $count_c0 %"
approx "$trace_c0" "$count_c0" 2 || fail "trace C0 $trace_c0 % vs counters $count_c0 %: more than 2 points apart"
# Attribution from the server log and from the markers.
"$WB" trace attribute "$TMP/tr" --requests "$TMP/server.csv" --cpu $SCPU \
	--client "$TMP/client/requests.csv" > "$TMP/attr.out" 2> "$TMP/attr.err" || fail "attribute: $(cat "$TMP/attr.err")"
[ "$(($(wc -l < "$TMP/tr/attribution.csv") - 1))" = $N ] || fail "attribution rows"
grep -q '^state,' "$TMP/tr/attribution-summary.csv" || fail "attribution summary"
grep -q '^prequery_woke,yes' "$TMP/tr/attribution-summary.csv" || fail "no request counted as woken by its pre-query"
"$WB" trace attribute "$TMP/tr" --requests markers > /dev/null || fail "attribute from markers"
# The breakdown of every wake: with the server thread's pid (from its
# markers, or --pid) and sched_wakeup recorded by default, every request
# with a known state has its three segments, which add up to its wake;
# an idle one names its cause and the wakeup.
grep -q '^events .*sched:sched_wakeup' "$TMP/tr/meta.txt" || fail "sched_wakeup not recorded by default"
"$WB" trace attribute "$TMP/tr" --requests "$TMP/server.csv" --cpu $SCPU \
	--pid "$(cat "$TMP/server.pid")" --client "$TMP/client/requests.csv" > "$TMP/attr-pid.out" || fail "attribute --pid"
# idle_miss is appended where the kernel has power:cpu_idle_miss (issue 33)
head -1 "$TMP/tr/attribution.csv" | grep -Eq ',cause,cause_ns,wakeup_ns,switch_ns,netrx_ns,hw_exit_us,kernel_us,sched_us,wake_us,uncertain(,idle_miss)?$' \
	|| fail "attribution.csv columns: $(head -1 "$TMP/tr/attribution.csv")"
awk -F, 'NR > 1 && $3 != "unknown" {
		known++
		if ($14 == "" || $15 == "" || $16 == "" || $17 == "") { bad++; if (bad < 4) print "incomplete: " $0 > "/dev/stderr"; next }
		d = $14 + $15 + $16 - $17; if (d < -0.004 || d > 0.004) { sum++; print "sum: " $0 > "/dev/stderr" }
		if ($3 != "C0") { idle++; if ($9 == "" || $11 == "") { noc++; if (noc < 4) print "no cause/wakeup: " $0 > "/dev/stderr" } }
	}
	END { printf "breakdown: %d requests of known state, %d found the core idle\n", known, idle
	      exit !(known > 0 && idle > 0 && !bad && !sum && !noc) }' "$TMP/tr/attribution.csv" \
	|| fail "incomplete breakdown (see above)"
head -1 "$TMP/tr/breakdown.csv" | grep -q '^state,prequery,count,complete,hw_exit_avg_us,' || fail "breakdown.csv header"
grep -q 'wake breakdown' "$TMP/attr-pid.out" || fail "attribute does not print the breakdown"
! grep -q "the server's thread is unknown" "$TMP/attr.err" || fail "the server thread was not found from its markers"

# SIGINT ends a --duration recording cleanly; a failing command's status
# comes back; both remove the instance.
"$WB" trace record --out "$TMP/int" --duration 30 2>/dev/null &
pid=$!
wait_for '[ "$(instances)" = 1 ]' || fail "instance not created"
sleep 0.3
kill -INT $pid; wait $pid || fail "SIGINT: exit $?"
[ "$(instances)" = 0 ] || fail "SIGINT left the instance"
grep -q '^end_ns ' "$TMP/int/meta.txt" || fail "SIGINT: meta.txt incomplete"
"$WB" trace timeline "$TMP/int" > /dev/null || fail "SIGINT: trace not readable"
"$WB" trace record --out "$TMP/fail" -- sh -c 'exit 7' 2>/dev/null
[ $? = 7 ] || fail "failing command's status not passed on"
[ "$(instances)" = 0 ] || fail "failing command left the instance"
"$WB" trace record --out "$TMP/term" -- sleep 30 2>/dev/null &
pid=$!
wait_for '[ "$(instances)" = 1 ]' || fail "instance not created (2)"
kill -TERM $pid; wait $pid
[ "$(instances)" = 0 ] || fail "SIGTERM left the instance"

# Bad input.
"$WB" trace record --duration 1 2>/dev/null; [ $? = 2 ] || fail "record without --out"
"$WB" trace record --out "$TMP/x" 2>/dev/null; [ $? = 2 ] || fail "record without duration or command"
"$WB" trace record --out "$TMP/x" --events nocolon --duration 1 2>/dev/null; [ $? = 2 ] || fail "bad --events"
out=$("$WB" trace timeline "$TMP" 2>&1); [ $? = 1 ] || fail "timeline on a non-trace dir"
echo "$out" | grep -q 'meta.txt' || fail "timeline error message: $out"
"$WB" trace attribute "$TMP/tr" --requests "$TMP/server.csv" 2>/dev/null; [ $? = 2 ] || fail "attribute without --cpu"
"$WB" trace bogus 2>/dev/null; [ $? = 2 ] || fail "unknown trace command"
if command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$WB" trace record --out /tmp/wb-nobody --duration 1 2>&1)
	[ $? = 1 ] && echo "$out" | grep -q 'needs root' || fail "unprivileged record: $out"
fi
[ "$(instances)" = 0 ] || fail "instances left at the end"

# turbostat: runs where it can, otherwise says why and falls back.
out=$("$WB" trace turbostat --out "$TMP/ts" --duration 0.3 2>&1) || fail "turbostat wrapper: $out"
if [ -s "$TMP/ts/turbostat.csv" ]; then
	head -1 "$TMP/ts/turbostat.csv" | grep -q '^sample,' || fail "turbostat.csv header"
else
	echo "$out" | grep -q 'turbostat cannot run here' || fail "no fallback message: $out"
	[ -s "$TMP/ts/residency.csv" ] || fail "no fallback residency"
fi
