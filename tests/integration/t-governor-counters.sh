# The governor's counters in the client's summaries (issue 33): on a
# fake KVM guest with haltpoll (POLL and "haltpoll idle") the change of
# usage, time, above, below and rejected per state over the run, summed
# over the CPUs, in summary.txt, appended to summary.csv (usage_<state>,
# time_us_<state>, above_<state>, below_<state>, rejected_<state>, the
# name with '_' for other characters) and in summary.json, in trace
# capture's capture.csv per role and in sweep.csv; without a cpuidle
# driver (as on most VMs) no columns and a note saying why. And
# power:cpu_idle_miss per request in trace attribute.
. "$(dirname "$0")/lib.sh"
[ -x "$WB_TOOLS/wb-sysfsfake" ] || skip "wb-sysfsfake not built"
start_server -q

# The haltpoll tree, in pepc's dump format.
{
	echo "rw|/sys/devices/system/cpu/cpuidle/current_driver|haltpoll"
	echo "rw|/sys/devices/system/cpu/cpuidle/current_governor|haltpoll"
	echo "rw|/sys/devices/system/cpu/cpuidle/available_governors|ladder menu teo haltpoll"
	echo "rw|/sys/devices/system/cpu/possible|0-1"
	echo "rw|/sys/devices/system/cpu/present|0-1"
	echo "rw|/sys/devices/system/cpu/online|0-1"
	for c in 0 1; do
		for s in 0 1; do
			n=POLL; [ $s = 1 ] && n="haltpoll idle"
			for f in "name|$n" "desc|x" "latency|$s" "residency|$s" "disable|0" \
				 "usage|1000" "time|5000" "above|10" "below|20" "rejected|0"; do
				echo "rw|/sys/devices/system/cpu/cpu$c/cpuidle/state$s/$f"
			done
		done
		echo "rw|/sys/devices/system/cpu/cpu$c/power/pm_qos_resume_latency_us|0"
	done
} > "$TMP/hp.txt"
"$WB_TOOLS/wb-sysfsfake" "$TMP/hp.txt" "$TMP/hp" || fail "wb-sysfsfake"
st="$TMP/hp/devices/system/cpu"

# The counters move while the run waits for its start (--start-at, 2 s
# ahead): the client read them before, and reads them again after.
start=$(( $(date +%s%N) + 2000000000 ))
WAKEBENCH_SYSFS="$TMP/hp" $WB client --server 127.0.0.1:$PORT --requests 20 --interval-us 300 \
	--start-at $start --out "$TMP/c" -q 2>"$TMP/c.err" &
cpid=$!
sleep 1
echo 1300 > "$st/cpu1/cpuidle/state1/usage"	# +300
echo 5100 > "$st/cpu0/cpuidle/state1/time"	# +100 us
echo 13 > "$st/cpu0/cpuidle/state1/above"	# +3 too deep
echo 12 > "$st/cpu1/cpuidle/state1/above"	# +2
echo 27 > "$st/cpu1/cpuidle/state1/below"	# +7 too shallow
wait $cpid || fail "client on the haltpoll tree: $(cat "$TMP/c.err")"
grep -q "^governor counters (haltpoll, haltpoll; 2 CPUs, whole run): POLL usage 0 time_us 0 above 0 below 0 rejected 0, haltpoll idle usage 300 time_us 100 above 5 below 7 rejected 0$" \
	"$TMP/c/summary.txt" || fail "summary.txt: $(grep governor "$TMP/c/summary.txt")"
[ "$(csv_col "$TMP/c/summary.csv" usage_haltpoll_idle)" = 300 ] || fail "usage_haltpoll_idle"
[ "$(csv_col "$TMP/c/summary.csv" above_haltpoll_idle)" = 5 ] || fail "above_haltpoll_idle"
[ "$(csv_col "$TMP/c/summary.csv" below_haltpoll_idle)" = 7 ] || fail "below_haltpoll_idle"
[ "$(csv_col "$TMP/c/summary.csv" time_us_haltpoll_idle)" = 100 ] || fail "time_us_haltpoll_idle"
[ "$(csv_col "$TMP/c/summary.csv" rejected_POLL)" = 0 ] || fail "rejected_POLL"
# appended: the columns before them as they were
head -1 "$TMP/c/summary.csv" | grep -q ',svc_p999_hi_us,usage_POLL,time_us_POLL,above_POLL,below_POLL,rejected_POLL,usage_haltpoll_idle,' ||
	fail "summary.csv header: $(head -1 "$TMP/c/summary.csv")"
python3 - "$TMP/c/summary.json" <<'EOF' || fail "summary.json"
import json, sys
g = json.load(open(sys.argv[1]))["governor_counters"]
assert g["driver"] == "haltpoll" and g["governor"] == "haltpoll", g
assert g["cpus"] == "all" and g["cpus_counted"] == 2 and g["note"] is None, g
assert [s["name"] for s in g["states"]] == ["POLL", "haltpoll idle"], g
h = g["states"][1]
assert (h["usage"], h["time_us"], h["above"], h["below"], h["rejected"]) == (300, 100, 5, 7, 0), h
EOF

# A counter that goes backwards (the CPU was offlined) is left empty.
WAKEBENCH_SYSFS="$TMP/hp" $WB client --server 127.0.0.1:$PORT --requests 20 --interval-us 300 \
	--start-at $(( $(date +%s%N) + 2000000000 )) --out "$TMP/b" -q 2>"$TMP/b.err" &
cpid=$!
sleep 1
echo 5 > "$st/cpu0/cpuidle/state1/usage"
wait $cpid || fail "client (backwards): $(cat "$TMP/b.err")"
[ -z "$(csv_col "$TMP/b/summary.csv" usage_haltpoll_idle)" ] || fail "backwards: not empty"
[ "$(csv_col "$TMP/b/summary.csv" usage_POLL)" = 0 ] || fail "backwards: POLL"
grep -q "^governor counters: cpu0 haltpoll idle usage went backwards" "$TMP/b/summary.txt" ||
	fail "backwards: $(grep governor "$TMP/b/summary.txt")"

# trace capture: each role's CPUs, columns appended to capture.csv after
# the res_/entries_ ones; the counters move during the command.
WAKEBENCH_SYSFS="$TMP/hp" $WB trace capture --out "$TMP/cap" --cpu server=1 --cpu all=none -- \
	sh -c "echo 1500 > '$st/cpu1/cpuidle/state1/usage'; echo 19 > '$st/cpu0/cpuidle/state1/above'" \
	> /dev/null 2>&1 || fail "capture on the haltpoll tree"
head -1 "$TMP/cap/capture.csv" | grep -q ',res_C0_pct,usage_POLL,time_us_POLL,above_POLL,below_POLL,rejected_POLL,usage_haltpoll_idle,time_us_haltpoll_idle,above_haltpoll_idle,below_haltpoll_idle,rejected_haltpoll_idle$' ||
	fail "capture.csv header: $(head -1 "$TMP/cap/capture.csv")"
row() { grep "^$1," "$TMP/cap/capture.csv" | awk -F, -v n="$2" 'NR == 1 {print $n}'; }
ucol=$(head -1 "$TMP/cap/capture.csv" | tr , '\n' | grep -n '^usage_haltpoll_idle$' | cut -d: -f1)
acol=$(head -1 "$TMP/cap/capture.csv" | tr , '\n' | grep -n '^above_haltpoll_idle$' | cut -d: -f1)
[ "$(row server "$ucol")" = 200 ] || fail "capture: server usage $(row server "$ucol")"
[ "$(row server "$acol")" = 0 ] || fail "capture: server above $(row server "$acol")"
[ "$(row all "$acol")" = 6 ] || fail "capture: all above $(row all "$acol")"

# sweep.csv: the server's capture columns, at the end of the header.
WAKEBENCH_SYSFS="$TMP/hp" $WB sweep --out "$TMP/sw" --reps 1 --requests 20 \
	--server-port "$(test_port 0)" > "$TMP/sw.out" 2>&1 || fail "sweep: $(tail -3 "$TMP/sw.out")"
for c in usage_POLL time_us_POLL above_POLL below_POLL rejected_POLL usage_haltpoll_idle \
	 time_us_haltpoll_idle above_haltpoll_idle below_haltpoll_idle rejected_haltpoll_idle; do
	v=$(csv_col "$TMP/sw/sweep.csv" $c) || fail "sweep.csv has no $c"
	[[ $v =~ ^[0-9]+$ ]] || fail "sweep.csv $c: '$v'"
done

# No cpuidle driver: no columns, the note in summary.txt and .json.
fake_sysfs 0
$WB client --server 127.0.0.1:$PORT --requests 20 --interval-us 300 --out "$TMP/n" -q 2>"$TMP/n.err" ||
	fail "client without a driver: $(cat "$TMP/n.err")"
grep -q "^governor counters: none (no cpuidle driver: governor counters unavailable)$" \
	"$TMP/n/summary.txt" || fail "no driver: summary.txt"
# (issue 36's columns follow, with or without a driver)
head -1 "$TMP/n/summary.csv" | grep -q ',svc_p999_hi_us,rate_profile,' || fail "no driver: columns appended"
$WB trace capture --out "$TMP/ncap" --cpu server=0 -- true > /dev/null 2>&1 || fail "capture without a driver"
grep -q "^governor counters (server): no cpuidle driver: governor counters unavailable$" "$TMP/ncap/notes.txt" ||
	fail "no driver: capture notes: $(cat "$TMP/ncap/notes.txt")"
! head -1 "$TMP/ncap/capture.csv" | grep -q 'usage_\|above_' || fail "no driver: capture columns"
python3 - "$TMP/n/summary.json" <<'EOF' || fail "no driver: summary.json"
import json, sys
g = json.load(open(sys.argv[1]))["governor_counters"]
assert g["driver"] == "none" and g["states"] == [], g
assert g["note"] == "no cpuidle driver: governor counters unavailable", g
EOF
stop_server || fail "server exit"

# power:cpu_idle_miss in a trace: each request gets the miss of its
# core's last idle before it (attribution.csv's appended idle_miss:
# above, below, none, or empty when unknown), counted in the summary;
# a trace without the event has no such column and says so.
"$WB_TOOLS/wb-tracegen" --idle-miss "$TMP/tm" 2000 2 1 > /dev/null || fail "wb-tracegen --idle-miss"
$WB trace timeline "$TMP/tm" > /dev/null 2>&1 || fail "timeline on a trace with cpu_idle_miss"
$WB trace attribute "$TMP/tm" --requests markers > "$TMP/tm.out" 2>/dev/null || fail "attribute"
head -1 "$TMP/tm/attribution.csv" | grep -q ',uncertain,idle_miss$' || fail "no idle_miss column"
col=$(csv_col "$TMP/tm/attribution.csv" idle_miss)
above=$(grep -c '^above$' <<< "$col"); below=$(grep -c '^below$' <<< "$col")
none=$(grep -c '^none$' <<< "$col")
[ "$above" -gt 0 ] && [ "$below" -gt 0 ] && [ "$none" -gt 0 ] || fail "idle_miss: $above above $below below $none none"
grep -q "^governor misses (power:cpu_idle_miss of the core's last idle before each request): $above above (too deep), $below below (too shallow), $none none, 0 unknown$" \
	"$TMP/tm.out" || fail "summary line: $(grep miss "$TMP/tm.out")"
grep -q "^idle_miss,above,$above," "$TMP/tm/attribution-summary.csv" || fail "summary rows"
"$WB_TOOLS/wb-tracegen" "$TMP/tn" 2000 2 1 > /dev/null || fail "wb-tracegen"
$WB trace attribute "$TMP/tn" --requests markers > "$TMP/tn.out" 2>/dev/null || fail "attribute (no miss)"
head -1 "$TMP/tn/attribution.csv" | grep -q ',uncertain$' || fail "idle_miss column without the event"
grep -q "^governor misses: not recorded (no power:cpu_idle_miss in the trace)$" "$TMP/tn.out" ||
	fail "no miss: $(grep miss "$TMP/tn.out")"
! grep -q "^idle_miss," "$TMP/tn/attribution-summary.csv" || fail "idle_miss rows without the event"
exit 0
