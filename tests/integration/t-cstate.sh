# wakebench cstate on a synthetic sysfs tree: list, disable/enable around
# a command, SIGTERM/SIGHUP and SIGKILL then restore, limit, bad input,
# the client's and server's --cstates (per CPU, never the system-wide
# device unless asked), names with spaces, reused PIDs, unreadable state
# files, two sessions at once. PM QoS 'hold' and the per-CPU resume
# latency on the real machine (root).
. "$(dirname "$0")/lib.sh"
fake_sysfs
C="$WB cstate"
# Each fake CPU's PM QoS resume latency limit ("0": no constraint).
for c in 0 1; do
	mkdir -p "$FAKE/devices/system/cpu/cpu$c/power"
	echo 0 > "$FAKE/devices/system/cpu/cpu$c/power/pm_qos_resume_latency_us"
done
resume() { cat "$FAKE/devices/system/cpu/cpu$1/power/pm_qos_resume_latency_us"; }
state_files() { ls "$WAKEBENCH_STATE_DIR" 2>/dev/null; }

$C list | grep -q '^1 *2 *C6 *120' || fail "list: $($C list)"
$C list --json | grep -q '"name": "C1"' || fail "list --json"
$C list --cpus 1 | grep -q '^0 ' && fail "list --cpus 1 shows cpu0"

# Around a command: changed during, restored after, exit status passed on.
$C disable C6 1 --cpus 1 -- sh -c "[ \$(cat $FAKE/devices/system/cpu/cpu1/cpuidle/state2/disable) = 1 ] && exit 3"
[ $? -eq 3 ] || fail "command did not see C6 disabled (or exit status lost)"
[ "$(disabled 1 2)$(disabled 1 1)$(disabled 0 2)" = 000 ] || fail "not restored after command"
[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "state file left behind"

# Held until SIGTERM (and SIGINT, SIGHUP), then restored.
for sig in TERM INT HUP; do
	$C disable c6 &
	pid=$!
	wait_for '[ "$(disabled 0 2)" = 1 ]' || fail "disable did not apply"
	[ "$(disabled 1 2)" = 1 ] || fail "all CPUs by default"
	kill -$sig $pid; wait $pid
	[ "$(disabled 0 2)$(disabled 1 2)" = 00 ] || fail "SIG$sig: not restored"
	[ -z "$(state_files)" ] || fail "SIG$sig: state file left"
done
# SIGHUP while a COMMAND runs: forwarded, then restored.
$C disable c6 --cpus 1 -- sleep 20 &
pid=$!
wait_for '[ "$(disabled 1 2)" = 1 ]' || fail "disable -- sleep did not apply"
kill -HUP $pid; wait $pid
[ "$(disabled 1 2)" = 0 ] || fail "SIGHUP during COMMAND: not restored"
# A closed stderr (SIGPIPE on the 'holding' line) does not kill the hold.
{ $C disable c6 --cpus 0 2>&1 | true; } &
wait_for '[ -n "$(state_files)" ]' || fail "SIGPIPE: disable did not apply"
sleep 0.3
pid=$(state_files | sed -n 's/^cstate\.\([0-9]*\)\.state$/\1/p')
kill -0 "$pid" 2>/dev/null || fail "killed by SIGPIPE with C6 left disabled"
kill -TERM "$pid"; wait
[ "$(disabled 0 2)" = 0 ] || fail "SIGPIPE case: not restored"

# SIGKILL leaves the change and its state file; restore undoes it.
echo 1 > "$FAKE/devices/system/cpu/cpu0/cpuidle/state1/disable"
$C enable C1 --cpus 0 &
pid=$!
wait_for '[ "$(disabled 0 1)" = 0 ]' || fail "enable did not apply"
kill -KILL $pid; wait $pid 2>/dev/null
[ "$(disabled 0 1)" = 0 ] || fail "SIGKILL: changed back?"
ls "$WAKEBENCH_STATE_DIR"/cstate.$pid.state >/dev/null || fail "no state file after SIGKILL"
$C restore | grep -q 'restored: cpu0 state1 disabled' || fail "restore output"
[ "$(disabled 0 1)" = 1 ] || fail "restore did not bring back the original"
[ -z "$(ls "$WAKEBENCH_STATE_DIR")" ] || fail "state file left after restore"
$C restore | grep -q 'nothing to restore' || fail "second restore"
echo 0 > "$FAKE/devices/system/cpu/cpu0/cpuidle/state1/disable"

# restore names every record: a running holder's (PID, command, what it
# holds) is listed and left alone, saying why (it was "nothing to
# restore" while the setting was in force); a dead one's says what
# restoring it changes, then restores it.
$C limit --max-latency-us 5 --cpus 1 -- sleep 30 > /dev/null 2>&1 &
live=$!
wait_for '[ "$(resume 1)" = 5 ] && [ "$(disabled 1 2)" = 1 ]' || fail "live holder did not apply"
out=$($C restore 2>&1) || fail "restore beside a live holder: $out"
echo "$out" | grep -q "cstate\.$live\.state: pid $live (.*limit --max-latency-us 5 --cpus 1 -- sleep 30), running$" ||
	fail "restore does not name the live record and its PID: $out"
echo "$out" | grep -qx '  cpu1 state2 (C6) disable 1 -> 0' || fail "live record: the C6 setting: $out"
echo "$out" | grep -qx '  cpu1 pm_qos_resume_latency_us 5 -> 0' || fail "live record: the resume latency: $out"
echo "$out" | grep -q 'left alone: its process is running' || fail "live record: not said why it is left: $out"
echo "$out" | grep -q 'nothing to restore' && fail "'nothing to restore' beside a live record: $out"
[ "$(resume 1)$(disabled 1 2)" = 51 ] || fail "restore changed a live holder's settings"
child=$(pgrep -P "$live")
kill -KILL "$live"; wait "$live" 2>/dev/null
[ -n "$child" ] && kill "$child" 2>/dev/null
out=$($C restore 2>&1) || fail "restore of a dead holder: $out"
echo "$out" | grep -q "cstate\.$live\.state: pid $live (.*sleep 30), not running$" || fail "dead record not named: $out"
echo "$out" | grep -qx '  cpu1 pm_qos_resume_latency_us 5 -> 0' || fail "dead record: what restoring changes: $out"
echo "$out" | grep -q 'restored: cpu1 pm_qos_resume_latency_us 0' || fail "dead record not restored: $out"
[ "$(resume 1)$(disabled 1 2)" = 00 ] && [ -z "$(state_files)" ] || fail "dead holder's settings not restored"

# --persist keeps the change until restore.
$C disable 2 --cpus 0 --persist >/dev/null || fail "persist"
[ "$(disabled 0 2)" = 1 ] || fail "persist not applied"
$C restore >/dev/null; [ "$(disabled 0 2)" = 0 ] || fail "persist restore"

# limit: states over the latency off during the command, each CPU's
# resume latency limit at N; the system-wide device only with --system.
R0=$FAKE/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us
R1=$FAKE/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us
$C limit --max-latency-us 5 -- sh -c "[ \$(cat $FAKE/devices/system/cpu/cpu0/cpuidle/state2/disable)\$(cat $FAKE/devices/system/cpu/cpu0/cpuidle/state1/disable) = 10 ] && [ \$(cat $R0),\$(cat $R1) = 5,5 ]" \
	|| fail "limit during command"
[ "$(disabled 0 2)$(resume 0)$(resume 1)" = 000 ] || fail "limit not restored"
[ ! -s "$WAKEBENCH_PMQOS_DEV" ] || fail "limit without --system wrote the system-wide PM QoS device"
$C limit --max-latency-us 5 --cpus 1 -- sh -c "[ \$(cat $R0),\$(cat $R1) = 0,5 ]" || fail "limit --cpus 1 touched cpu0"
[ ! -s "$WAKEBENCH_PMQOS_DEV" ] || fail "limit --cpus wrote the system-wide PM QoS device"
$C limit --max-latency-us 0 --cpus 1 -- sh -c "[ \$(cat $R1) = n/a ]" || fail "limit 0: resume latency not n/a"
$C limit --max-latency-us 5 --system -- true || fail "limit --system"
[ "$(od -An -td4 -N4 "$WAKEBENCH_PMQOS_DEV" | tr -d ' ')" = 5 ] || fail "limit --system PM QoS value"
: > "$WAKEBENCH_PMQOS_DEV"
# hold --cpus: the CPUs' resume latency, not the device; SIGHUP restores.
$C hold --max-latency-us 0 --cpus 0 &
pid=$!
wait_for '[ "$(resume 0)" = n/a ]' || fail "hold --cpus 0 not applied"
[ "$(resume 1)" = 0 ] && [ ! -s "$WAKEBENCH_PMQOS_DEV" ] || fail "hold --cpus 0 went beyond cpu0"
kill -HUP $pid; wait $pid
[ "$(resume 0)" = 0 ] || fail "hold --cpus: not restored on SIGHUP"

# Bad input: clear message, non-zero exit, nothing changed.
expect() {	# expect RC PATTERN CMD...
	local want=$1 pat=$2 out rc; shift 2
	out=$("$@" 2>&1); rc=$?
	[ $rc -eq "$want" ] || fail "'$*' exited $rc, want $want: $out"
	echo "$out" | grep -q "$pat" || fail "'$*' said: $out"
}
expect 1 "unknown idle state 'C9'" $C disable C1 C9
expect 1 "unknown idle state '7'" $C disable 7
expect 2 "invalid --cpus" $C disable C1 --cpus 5
expect 2 "invalid --cpus" $C list --cpus x
expect 2 "which STATE" $C disable
expect 2 "unknown command" $C frobnicate
expect 2 "needs --max-latency-us" $C limit
expect 2 "needs --max-latency-us" $C hold
expect 2 "nothing after" $C disable C1 --
expect 2 "not both" $C hold --latency-us 0 --cpus 0 --system
expect 2 "invalid --cstates" "$WB" server --cstates off,system
for c in 0 1; do for s in 0 1 2; do [ "$(disabled $c $s)" = 0 ] || fail "bad input changed cpu$c state$s"; done; done
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod -R a+rX "$TMP"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$WB" cstate disable C1 2>&1); rc=$?
	[ $rc -eq 1 ] || fail "unprivileged disable exited $rc: $out"
	echo "$out" | grep -q 'needs root' || fail "unprivileged message: $out"
	[ "$(disabled 0 1)$(disabled 1 1)" = 00 ] || fail "unprivileged run changed state"
fi

# Client and server --cstates: applied for the run (seen in the snapshot),
# restored after, also when the server is stopped with SIGTERM. Per CPU
# only: the system-wide device does not even exist here (issue 13).
export WAKEBENCH_PMQOS_DEV="$TMP/no-such-pmqos"
start_server --cstates off --cpu 1 --log "$TMP/srv.csv"
wait_for '[ "$(disabled 1 2)" = 1 ]' || fail "server --cstates off not applied"
[ "$(disabled 0 2)" = 0 ] || fail "server --cstates touched an unpinned CPU"
[ "$(resume 1)" = n/a ] || fail "server --cstates off: cpu1 resume latency $(resume 1)"
[ "$(resume 0)" = 0 ] || fail "server --cstates off --cpu 1 changed cpu0's resume latency"
[ ! -e "$WAKEBENCH_PMQOS_DEV" ] || fail "server --cpu 1 used the system-wide device"
grep -q '"disabled": true' "$TMP/srv.snapshot.json" || fail "server snapshot"
"$WB" client --server 127.0.0.1:$PORT --cstates max-latency-us=50 --cpu 0 \
	--requests 50 --interval-us 200 --out "$TMP/c" -q || fail "client --cstates"
[ "$(disabled 0 2)" = 0 ] || fail "client --cstates not restored"
grep -q '"cstates": "max-latency-us=50"' "$TMP/c/summary.json" || fail "summary cstates"
python3 - "$TMP/c/snapshot.json" <<'PY' || fail "client snapshot content"
import json, sys
s = json.load(open(sys.argv[1]))
cpu0 = s["cpuidle"]["cpus"][0]["states"]
assert [x["disabled"] for x in cpu0] == [False, False, True], cpu0
assert s["role"] == "client" and "--cstates" in s["command"]
r = {x["cpu"]: x["value"] for x in s["pm_qos"]["resume_latency_us"]}
assert r == {0: "50", 1: "n/a"}, r
PY
stop_server
[ "$(disabled 1 2)$(disabled 1 1)$(resume 1)" = 000 ] || fail "server --cstates not restored on SIGTERM"
# SIGHUP (the terminal closed) stops the server like SIGTERM: restored.
start_server --cstates off --cpu 1
wait_for '[ "$(resume 1)" = n/a ]' || fail "server --cstates off (HUP case) not applied"
kill -HUP "$SERVER_PID"
for _ in $(seq 250); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.02; done
kill -0 "$SERVER_PID" 2>/dev/null && fail "server still running after SIGHUP"
wait "$SERVER_PID"; SERVER_PID=
[ "$(disabled 1 2)$(resume 1)" = 00 ] || fail "server --cstates not restored on SIGHUP"
[ -z "$(state_files)" ] || fail "server SIGHUP: state file left"
export WAKEBENCH_PMQOS_DEV="$TMP/pmqos"
expect 2 "invalid --cstates" "$WB" client --server 127.0.0.1:1 --cstates sometimes
expect 2 "invalid --cstates" "$WB" server --cstates max-latency-us=x
[ -z "$(ls "$WAKEBENCH_STATE_DIR")" ] || fail "state files left: $(ls "$WAKEBENCH_STATE_DIR")"

# The kernel's names, spaces and all (haltpoll's "haltpoll idle").
for c in 0 1; do echo "haltpoll idle" > "$FAKE/devices/system/cpu/cpu$c/cpuidle/state1/name"; done
$C list | grep -q '^0 *1 *haltpoll idle  *2 ' || fail "list with a spaced name: $($C list)"
$C disable 'haltpoll idle' --cpus 0 -- sh -c "[ \$(cat $FAKE/devices/system/cpu/cpu0/cpuidle/state1/disable) = 1 ]" \
	|| fail "disable 'haltpoll idle'"
$C disable haltpoll --cpus 1 --persist >/dev/null || fail "disable haltpoll (first word)"
grep -qx 'state 1 1 0 1 haltpoll idle' "$WAKEBENCH_STATE_DIR"/cstate.*.state || fail "name not in the state file: $(cat "$WAKEBENCH_STATE_DIR"/*)"
$C restore | grep -q 'restored: cpu1 state1 enabled (haltpoll idle)' || fail "restore of a spaced name"
[ "$(disabled 1 1)" = 0 ] || fail "haltpoll idle not restored"
$C enable HALTPOLL_IDLE -- true || fail "enable HALTPOLL_IDLE"
for c in 0 1; do echo C1 > "$FAKE/devices/system/cpu/cpu$c/cpuidle/state1/name"; done

# A state file whose PID now belongs to an unrelated live process (this
# shell, started at another time) is a dead session's: restored.
mkdir -p "$WAKEBENCH_STATE_DIR"
printf 'wakebench-cstate 1\npid %d start 1\ncommand old run\nstate 0 2 0 1 C6\n' $$ \
	> "$WAKEBENCH_STATE_DIR/cstate.$$.state"
echo 1 > "$FAKE/devices/system/cpu/cpu0/cpuidle/state2/disable"
$C restore | grep -q 'restored: cpu0 state2 enabled (C6)' || fail "reused PID: not restored"
[ "$(disabled 0 2)" = 0 ] && [ -z "$(state_files)" ] || fail "reused PID: state left"
# A line restore cannot read: reported, the file moved aside (not forever).
printf 'wakebench-cstate 1\npid 999999\nstate 0 2 0 1 C6\nstate ? ?\n' > "$WAKEBENCH_STATE_DIR/cstate.999999.state"
expect 1 "moved aside" $C restore
[ -e "$WAKEBENCH_STATE_DIR/cstate.999999.state.bad" ] || fail "bad state file not moved aside"
$C restore | grep -q 'nothing to restore' || fail "bad file restored again"
rm -f "$WAKEBENCH_STATE_DIR"/*.bad

# Two sessions at once: the first to end leaves C6 to the one still
# holding it; a conflicting request is refused naming the holder.
$C disable C6 --cpus 0 2>/dev/null &
A=$!
wait_for '[ "$(disabled 0 2)" = 1 ]' || fail "session A"
expect 1 "held at disabled by pid $A (.*disable C6" $C enable C6 --cpus 0 -- true
[ "$(disabled 0 2)" = 1 ] || fail "refused request changed C6"
$C enable C6 --cpus 0 --force -- sh -c "[ \$(cat $FAKE/devices/system/cpu/cpu0/cpuidle/state2/disable) = 0 ]" \
	|| fail "--force did not override"
[ "$(disabled 0 2)" = 1 ] || fail "after a forced session A's value did not come back"
$C disable C6 --cpus 0 2>/dev/null &
B=$!
wait_for '[ $(state_files | wc -l) = 2 ]' || fail "session B"
kill -TERM $A; wait $A
[ "$(disabled 0 2)" = 1 ] || fail "A's exit re-enabled C6 under B's running experiment"
kill -TERM $B; wait $B
[ "$(disabled 0 2)" = 0 ] || fail "last holder did not restore"
[ -z "$(state_files)" ] || fail "state files left after two sessions"

# PM QoS hold on the real device.
unset WAKEBENCH_PMQOS_DEV
pmqos_now() { od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' '; }
if [ "$(id -u)" = 0 ] && [ -w /dev/cpu_dma_latency ]; then
	before=$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')
	during=$($C hold --max-latency-us 7 -- od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')
	after=$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')
	[ "$during" = 7 ] || fail "hold: device read $during during the command"
	[ "$after" = "$before" ] || fail "hold: $after after, $before before"
	$C hold --latency-us 0 &
	pid=$!
	wait_for '[ "$(pmqos_now)" = 0 ]' || fail "hold without command"
	kill -TERM $pid; wait $pid
	[ "$(pmqos_now)" = "$before" ] || fail "hold not released on SIGTERM"
	$C hold --latency-us 0 & pid=$!
	wait_for '[ "$(pmqos_now)" = 0 ]' || fail "hold"
	kill -KILL $pid; wait $pid 2>/dev/null
	wait_for '[ "$(pmqos_now)" = "$before" ]' || fail "hold not released on SIGKILL"
	# Its state file (kept for other sessions' conflict check) goes with restore.
	$C restore >/dev/null; [ -z "$(state_files)" ] || fail "killed hold's state file stays"
	# A real client run with --cstates system-off: PM QoS 0 during (the
	# snapshot is taken during the run), released after.
	unset WAKEBENCH_SYSFS
	start_server -q
	"$WB" client --server 127.0.0.1:$PORT --cstates system-off --requests 100 \
		--interval-us 500 --out "$TMP/real" -q || fail "real --cstates system-off run"
	grep -A2 '"pm_qos"' "$TMP/real/snapshot.json" | grep -q '"cpu_dma_latency_us": 0,' \
		|| fail "PM QoS not 0 during the run: $(grep -A2 pm_qos "$TMP/real/snapshot.json")"
	[ "$(pmqos_now)" = "$before" ] || fail "PM QoS not released after the client"
	# --cstates off --cpu 0: never the system-wide device.
	"$WB" client --server 127.0.0.1:$PORT --cstates off --cpu 0 --requests 100 \
		--interval-us 500 --out "$TMP/real2" -q || fail "real --cstates off --cpu 0 run"
	stop_server
	grep -A2 '"pm_qos"' "$TMP/real2/snapshot.json" | grep -q "\"cpu_dma_latency_us\": $before," \
		|| fail "--cpu 0 --cstates off held the system-wide device: $(grep -A2 pm_qos "$TMP/real2/snapshot.json")"
else
	echo "PM QoS part skipped: needs root and /dev/cpu_dma_latency"
fi

# The real per-CPU resume latency limit (this machine: cpuidle driver
# "none", so these files are all there is): changed during, restored after.
unset WAKEBENCH_SYSFS
real0=/sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us
real1=/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us
if [ "$(id -u)" = 0 ] && [ -w "$real0" ]; then
	b0=$(cat "$real0"); b1=$(cat "$real1" 2>/dev/null)
	during=$($C hold --cpus 0 --latency-us 0 -- cat "$real0")
	[ "$during" = n/a ] || fail "real hold --cpus 0: read '$during' during"
	[ "$(cat "$real0")" = "$b0" ] || fail "real resume latency not restored after the command: $(cat "$real0") $(ls $WAKEBENCH_STATE_DIR; cat $WAKEBENCH_STATE_DIR/*)"
	for sig in TERM HUP; do
		$C limit --max-latency-us 20 --cpus 0 2>/dev/null &
		pid=$!
		wait_for '[ "$(cat "$real0")" = 20 ]' || fail "real limit --cpus 0 not applied"
		[ "$(cat "$real1" 2>/dev/null)" = "$b1" ] || fail "real limit --cpus 0 changed cpu1"
		kill -$sig $pid; wait $pid
		[ "$(cat "$real0")" = "$b0" ] || fail "real resume latency not restored on SIG$sig"
	done
	# The server, pinned: cpu0 only, and restored on SIGTERM.
	start_server -q --cstates off --cpu 0
	wait_for '[ "$(cat "$real0")" = n/a ]' || fail "real server --cstates off --cpu 0"
	[ "$(cat "$real1" 2>/dev/null)" = "$b1" ] || fail "real server --cpu 0 changed cpu1"
	stop_server
	[ "$(cat "$real0")" = "$b0" ] || fail "real server: resume latency not restored"
	[ -z "$(state_files)" ] || fail "real runs left state files: $(state_files; cat $WAKEBENCH_STATE_DIR/*)"
else
	echo "per-CPU resume latency part skipped: needs root and $real0"
fi

# wakebench snapshot: text and valid JSON of the real host.
unset WAKEBENCH_SYSFS
"$WB" snapshot | grep -q '^  kernel: ' || fail "snapshot text"
"$WB" snapshot --json | python3 -c 'import json, sys; s = json.load(sys.stdin); assert s["cpuidle"]["driver"] and s["kernel"] and s["cpus_online"]' \
	|| fail "snapshot --json"
"$WB" snapshot --out "$TMP/snap.json" --role server && grep -q '"role": "server"' "$TMP/snap.json" || fail "snapshot --out"
"$WB" snapshot --bogus 2>/dev/null; [ $? -eq 2 ] || fail "snapshot usage exit"
