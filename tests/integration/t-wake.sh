# wakebench wake (issue 34): each source measured for real on this
# machine, the floor (--states none), the usage errors, --states each
# refused where there are no cpuidle states, --states each on a fake
# sysfs (one state enabled at a time, every flag restored, also after a
# signal, and by `cstate restore` after SIGKILL), and SIGINT within 1 s
# keeping what was measured.
. "$(dirname "$0")/lib.sh"

[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (a sender beside the measured CPU)"
# A background job of a non-interactive shell starts with SIGINT ignored;
# a terminal's Ctrl-C would deliver it, so give it back its default.
dfl=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])')
json_status() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["status"])' "$1"; }
N=200

# ---- default CPUs among those the process may use (taskset, a cgroup's
# cpuset): allowed only the last CPU (which no placement rule picks
# first), the measured CPU is that one (the sweep's default server CPU
# likewise).
last=$(($(nproc) - 1))
if taskset -c $last true 2>/dev/null; then
	taskset -c $last "$WB" wake --source timer --count 5 --ldist 100,200 \
		--out "$TMP/usable" -q 2> "$TMP/usable.err" ||
		fail "wake under taskset -c $last: exit $?: $(cat "$TMP/usable.err")"
	got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cpu"])' "$TMP/usable/summary.json")
	[ "$got" = $last ] || fail "wake under taskset -c $last measured CPU $got"
	got=$(taskset -c $last "$WB_BIN/wakebench-internal" spec | sed -n 's/^server-cpu = //p')
	[ "$got" = $last ] || fail "sweep under taskset -c $last: server CPU $got"
else
	echo "skip: taskset -c $last is not allowed here, the placement by affinity is not tested"
fi

# ---- every source, interleaved: N datapoints each, plausible latencies
"$WB" wake --cpu 1 --sender-cpu 0 --source timer,ipi,packet --count $N \
	--ldist 100,2000 --out "$TMP/all" -q 2> "$TMP/all.err" ||
	fail "wake with every source: exit $?: $(cat "$TMP/all.err")"
for f in wake.csv summary.csv summary.json summary.txt snapshot.json cmdline.txt; do
	[ -s "$TMP/all/$f" ] || fail "no $f"
done
[ "$(head -1 "$TMP/all/wake.csv")" = "seq,source,state_setting,launch_ns,wake_ns,latency_ns,silent_ns,state,busy,split_known,traced_idle,cause,launch_exit_ns,hw_exit_ns,kernel_ns,softirq_ns,sched_ns,to_user_ns" ] ||
	fail "wake.csv header: $(head -1 "$TMP/all/wake.csv")"
for s in timer ipi packet; do
	n=$(csv_col "$TMP/all/wake.csv" source | grep -cx "$s")
	[ "$n" = $N ] || fail "wake.csv: $n $s rows, not $N"
	grep -q "^$s,all," "$TMP/all/summary.csv" || fail "summary.csv: no $s row"
done
csv_col "$TMP/all/wake.csv" latency_ns | awk '$1 <= 0 || $1 >= 1e8 { bad++ } END { exit bad > 0 }' ||
	fail "a latency outside (0, 100 ms): $(csv_col "$TMP/all/wake.csv" latency_ns | sort -n | sed -n '1p;$p' | tr '\n' ' ')"
# the launch comes after the previous wake, by at least --ldist's minimum
awk -F, 'NR > 2 && $4 < prev + 100000 { bad++ } NR > 1 { prev = $5 } END { exit bad > 0 }' "$TMP/all/wake.csv" ||
	fail "a launch closer than 100 us to the previous wake"
# seqs 0..3N-1 in order
[ "$(csv_col "$TMP/all/wake.csv" seq | awk '$1 != NR - 1 { bad++ } END { print NR, bad + 0 }')" = "$((3 * N)) 0" ] ||
	fail "wake.csv seqs are not 0..$((3 * N - 1))"
[ "$(json_status "$TMP/all/summary.json")" = complete ] || fail "status not complete"
grep -q 'wakebench wake' "$TMP/all/cmdline.txt" || grep -q 'wakebench-wake' "$TMP/all/cmdline.txt" ||
	fail "cmdline.txt: $(cat "$TMP/all/cmdline.txt")"
# the same seed draws the same sources in the same order
"$WB" wake --cpu 1 --source timer,ipi,packet --count 20 --ldist 0,100 --seed 7 \
	--out "$TMP/s1" -q 2>/dev/null || fail "seeded run 1"
"$WB" wake --cpu 1 --source timer,ipi,packet --count 20 --ldist 0,100 --seed 7 \
	--out "$TMP/s2" -q 2>/dev/null || fail "seeded run 2"
[ "$(csv_col "$TMP/s1/wake.csv" source | md5sum)" = "$(csv_col "$TMP/s2/wake.csv" source | md5sum)" ] ||
	fail "--seed 7 twice: different source orders"

nstates=$(ls -d /sys/devices/system/cpu/cpu1/cpuidle/state* 2>/dev/null | wc -l)
if [ "$nstates" = 0 ]; then
	# no cpuidle driver: the state cannot be told, said once, kept
	grep -q 'no cpuidle states' "$TMP/all.err" || fail "no note on stderr: $(cat "$TMP/all.err")"
	grep -q 'no cpuidle states' "$TMP/all/summary.txt" || fail "no note in summary.txt"
	[ "$(csv_col "$TMP/all/wake.csv" state | sort -u)" = unknown ] || fail "state not unknown"
	# --states each refused before anything runs
	"$WB" wake --cpu 1 --states each --out "$TMP/each" > "$TMP/each.out" 2>&1
	rc=$?
	[ $rc = 2 ] || fail "--states each without cpuidle states: exit $rc"
	grep -q 'no cpuidle states to enable one at a time' "$TMP/each.out" ||
		fail "--states each: $(cat "$TMP/each.out")"
	[ -z "$(ls -A "$TMP/each" 2>/dev/null)" ] || fail "--states each refused but wrote $(ls "$TMP/each")"
fi

# ---- the floor beside the machine as it is: a cost per source
"$WB" wake --cpu 1 --source timer,ipi --count $N --ldist 100,2000 --states all,none \
	--out "$TMP/floor" -q 2>/dev/null || fail "--states all,none: exit $?"
for s in timer ipi; do
	grep -q "^$s,none,none,$N," "$TMP/floor/summary.csv" || fail "no $s floor row of $N"
	grep "^$s,all," "$TMP/floor/summary.csv" > "$TMP/row" || fail "no $s all row"
	cost=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cost_p50_us") c = i; next }
		$1 == s && $2 == "all" { print $c }' s=$s "$TMP/floor/summary.csv")
	[ -n "$cost" ] || fail "$s: no cost_p50_us against the floor"
done
grep -q '^none' "$TMP/floor/summary.txt" && fail "summary.txt malformed"
grep -qE '^timer +none +none' "$TMP/floor/summary.txt" || fail "summary.txt has no floor row"

# ---- usage errors: exit 2, one line, nothing run
usage() {
	"$WB" wake "$@" --out "$TMP/u" > "$TMP/u.out" 2>&1
	rc=$?
	[ $rc = 2 ] || fail "wake $*: exit $rc, not 2"
	grep -q "$pat" "$TMP/u.out" || fail "wake $*: $(cat "$TMP/u.out")"
	[ ! -e "$TMP/u" ] || fail "wake $*: made --out"
}
pat='is the measured CPU' usage --cpu 1 --sender-cpu 1 --source ipi
pat='is the measured CPU' usage --cpu 0 --sender-cpu 0 --source timer,packet
pat="invalid --cpu" usage --cpu 4096
pat="invalid --sender-cpu" usage --sender-cpu 4096 --source ipi
pat='exclude each other' usage --count 10 --duration 1
pat='invalid --ldist' usage --ldist 3,2
pat='invalid --ldist' usage --ldist 0,600000
pat='invalid --source' usage --source timer,bogus
pat='invalid --states' usage --states all,all
pat='invalid --priority' usage --priority 100
mkdir -p "$TMP/full" && touch "$TMP/full/x"
"$WB" wake --count 5 --out "$TMP/full" > "$TMP/u.out" 2>&1
[ $? = 2 ] || fail "a non-empty --out taken"

# ---- SIGINT: out within 1 s, what was measured kept, status interrupted
"${dfl[@]}" "$WB" wake --cpu 1 --source timer,ipi,packet --count 1000000 \
	--out "$TMP/int" -q 2> "$TMP/int.err" &
pid=$!
sleep 1.5
t0=$(date +%s%N)
kill -INT $pid
for _ in $(seq 150); do kill -0 $pid 2>/dev/null || break; sleep 0.01; done
kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "still running 1.5 s after SIGINT"; }
wait $pid
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc = 1 ] || fail "after SIGINT: exit $rc, not 1"
[ $ms -le 1000 ] || fail "SIGINT took $ms ms"
[ "$(json_status "$TMP/int/summary.json")" = interrupted ] || fail "summary not marked interrupted"
rows=$(($(wc -l < "$TMP/int/wake.csv") - 1))
[ $rows -gt 10 ] || fail "only $rows datapoints kept after SIGINT"
grep -q interrupted "$TMP/int/summary.txt" || fail "summary.txt not marked interrupted"

# ---- --states each on a fake sysfs: one state at a time, CPU 1 only,
# every flag back after; the datapoints grouped per setting. (The fake
# counters never move: every datapoint is busy there, which is what a
# CPU that never idled looks like.)
fake_sysfs
flags() { echo "$(disabled 0 0)$(disabled 0 1)$(disabled 0 2) $(disabled 1 0)$(disabled 1 1)$(disabled 1 2)"; }
echo 1 > "$FAKE/devices/system/cpu/cpu1/cpuidle/state2/disable"	# an original to keep
"$WB" wake --cpu 1 --source timer,packet --count 20 --ldist 0,200 --states each,none \
	--out "$TMP/fe" -q 2> "$TMP/fe.err" || fail "--states each on a fake sysfs: $(cat "$TMP/fe.err")"
[ "$(flags)" = "000 001" ] || fail "flags after --states each: $(flags)"
[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "a state file left: $(ls "$WAKEBENCH_STATE_DIR")"
[ "$(csv_col "$TMP/fe/wake.csv" state_setting | uniq -c | awk '{ print $2 ":" $1 }' | tr '\n' ' ')" = \
  "only:POLL:40 only:C1:40 only:C6:40 none:40 " ] ||
	fail "phases: $(csv_col "$TMP/fe/wake.csv" state_setting | uniq -c | tr '\n' ' ')"
for set in only:POLL only:C1 only:C6; do
	grep -q "^timer,$set,,0,20," "$TMP/fe/summary.csv" || fail "summary: no busy row of $set"
done
grep -q "^packet,none,none,20,0," "$TMP/fe/summary.csv" || fail "summary: no floor row"
# during the run: watch the flags of CPU 1 go 011, 101, 110; CPU 0 untouched
"${dfl[@]}" "$WB" wake --cpu 1 --count 200 --ldist 2000,2000 --states each \
	--out "$TMP/fe2" -q 2> "$TMP/fe2.err" &
pid=$!
wait_for '[ "$(flags)" = "000 011" ]' || fail "first phase: flags $(flags)"
wait_for '[ "$(flags)" = "000 101" ]' || fail "second phase: flags $(flags)"
kill -INT $pid
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.01; done
kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "--states each: still running 1 s after SIGINT"; }
wait $pid
rc=$?
[ $rc = 1 ] || fail "--states each after SIGINT: exit $rc"
[ "$(flags)" = "000 001" ] || fail "flags after SIGINT: $(flags)"
[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "a state file left after SIGINT"
[ "$(json_status "$TMP/fe2/summary.json")" = interrupted ] || fail "fake each: not interrupted"
# SIGTERM and SIGHUP the same
for sig in TERM HUP; do
	"$WB" wake --cpu 1 --count 200 --ldist 2000,2000 --states each --out "$TMP/fe-$sig" -q 2>/dev/null &
	pid=$!
	wait_for '[ "$(flags)" = "000 011" ]' || fail "SIG$sig: first phase: flags $(flags)"
	kill -$sig $pid
	for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.01; done
	kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "still running 1 s after SIG$sig"; }
	wait $pid
	[ "$(flags)" = "000 001" ] || fail "flags after SIG$sig: $(flags)"
done
# SIGKILL leaves the state file: `cstate restore` puts every flag back
"$WB" wake --cpu 1 --count 200 --ldist 2000,2000 --states each --out "$TMP/fe-kill" -q 2>/dev/null &
pid=$!
wait_for '[ "$(flags)" = "000 011" ]' || fail "SIGKILL: first phase: flags $(flags)"
kill -KILL $pid
wait $pid 2>/dev/null
[ "$(flags)" = "000 011" ] || fail "after SIGKILL: flags $(flags)"
[ -n "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "SIGKILL left no state file"
"$WB" cstate restore > "$TMP/restore.out" 2>&1 || fail "cstate restore: $(cat "$TMP/restore.out")"
[ "$(flags)" = "000 001" ] || fail "after SIGKILL + cstate restore: flags $(flags)"
[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "a state file left after cstate restore"
[ ! -e "$TMP/fe-kill/summary.csv" ] || fail "SIGKILL: a summary under a final name"

# ---- --floor disable|pmqos on the fake sysfs: the floor without a
# spinner, its setting on CPU 1 during the phase and back after (also
# after SIGINT); the floor's rows as with the spinner
pmq="$FAKE/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us"
mkdir -p "${pmq%/*}" && echo 0 > "$pmq"
"$WB" wake --cpu 1 --source timer --count 20 --ldist 0,200 --states none --floor disable \
	--out "$TMP/fd" -q 2> "$TMP/fd.err" || fail "--floor disable: $(cat "$TMP/fd.err")"
[ "$(flags)" = "000 001" ] || fail "flags after --floor disable: $(flags)"
grep -q "^timer,none,none,20,0," "$TMP/fd/summary.csv" || fail "--floor disable: no floor row: $(cat "$TMP/fd/summary.csv")"
grep -q '"floor": *"disable"' "$TMP/fd/summary.json" || fail "summary.json: floor not named"
"${dfl[@]}" "$WB" wake --cpu 1 --count 200 --ldist 2000,2000 --states none --floor disable -q 2>/dev/null &
pid=$!
wait_for '[ "$(flags)" = "000 111" ]' || fail "--floor disable: flags during the floor $(flags)"
kill -INT $pid; wait $pid
[ "$(flags)" = "000 001" ] || fail "flags after --floor disable and SIGINT: $(flags)"
"${dfl[@]}" "$WB" wake --cpu 1 --count 200 --ldist 2000,2000 --states none --floor pmqos -q 2>/dev/null &
pid=$!
wait_for '[ "$(cat "$pmq")" = n/a ]' || fail "--floor pmqos: resume latency during the floor $(cat "$pmq")"
[ "$(flags)" = "000 001" ] || fail "--floor pmqos changed flags: $(flags)"
kill -INT $pid; wait $pid
[ "$(cat "$pmq")" = 0 ] || fail "--floor pmqos: resume latency after: $(cat "$pmq")"
[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "--floor: a state file left"
"$WB" wake --floor bogus 2>/dev/null; [ $? = 2 ] || fail "--floor bogus: not a usage error"
echo "ok"
