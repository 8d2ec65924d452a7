# wakebench cstate on a synthetic sysfs tree: list, disable/enable around
# a command, SIGTERM and SIGKILL then restore, limit, bad input, and the
# client's and server's --cstates. PM QoS 'hold' on the real device (root).
. "$(dirname "$0")/lib.sh"
fake_sysfs
C="$WB cstate"

$C list | grep -q '^1 *2 *C6 *120' || fail "list: $($C list)"
$C list --json | grep -q '"name": "C1"' || fail "list --json"
$C list --cpus 1 | grep -q '^0 ' && fail "list --cpus 1 shows cpu0"

# Around a command: changed during, restored after, exit status passed on.
$C disable C6 1 --cpus 1 -- sh -c "[ \$(cat $FAKE/devices/system/cpu/cpu1/cpuidle/state2/disable) = 1 ] && exit 3"
[ $? -eq 3 ] || fail "command did not see C6 disabled (or exit status lost)"
[ "$(disabled 1 2)$(disabled 1 1)$(disabled 0 2)" = 000 ] || fail "not restored after command"
[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "state file left behind"

# Held until SIGTERM (and SIGINT), then restored.
for sig in TERM INT; do
	$C disable c6 &
	pid=$!
	wait_for '[ "$(disabled 0 2)" = 1 ]' || fail "disable did not apply"
	[ "$(disabled 1 2)" = 1 ] || fail "all CPUs by default"
	kill -$sig $pid; wait $pid
	[ "$(disabled 0 2)$(disabled 1 2)" = 00 ] || fail "SIGTERM: not restored"
done

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

# --persist keeps the change until restore.
$C disable 2 --cpus 0 --persist >/dev/null || fail "persist"
[ "$(disabled 0 2)" = 1 ] || fail "persist not applied"
$C restore >/dev/null; [ "$(disabled 0 2)" = 0 ] || fail "persist restore"

# limit: states over the latency off during the command, PM QoS held at N.
$C limit --max-latency-us 5 -- sh -c "[ \$(cat $FAKE/devices/system/cpu/cpu0/cpuidle/state2/disable)\$(cat $FAKE/devices/system/cpu/cpu0/cpuidle/state1/disable) = 10 ]" \
	|| fail "limit during command"
[ "$(disabled 0 2)" = 0 ] || fail "limit not restored"
[ "$(od -An -td4 -N4 "$WAKEBENCH_PMQOS_DEV" | tr -d ' ')" = 5 ] || fail "limit PM QoS value"

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
expect 2 "needs --latency-us" $C hold
expect 2 "nothing after" $C disable C1 --
for c in 0 1; do for s in 0 1 2; do [ "$(disabled $c $s)" = 0 ] || fail "bad input changed cpu$c state$s"; done; done
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod -R a+rX "$TMP"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$WB" cstate disable C1 2>&1); rc=$?
	[ $rc -eq 1 ] || fail "unprivileged disable exited $rc: $out"
	echo "$out" | grep -q 'needs root' || fail "unprivileged message: $out"
	[ "$(disabled 0 1)$(disabled 1 1)" = 00 ] || fail "unprivileged run changed state"
fi

# Client and server --cstates: applied for the run (seen in the snapshot),
# restored after, also when the server is stopped with SIGTERM.
start_server --cstates off --cpu 1 --log "$TMP/srv.csv"
wait_for '[ "$(disabled 1 2)" = 1 ]' || fail "server --cstates off not applied"
[ "$(disabled 0 2)" = 0 ] || fail "server --cstates touched an unpinned CPU"
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
PY
stop_server
[ "$(disabled 1 2)$(disabled 1 1)" = 00 ] || fail "server --cstates not restored on SIGTERM"
expect 2 "invalid --cstates" "$WB" client --server 127.0.0.1:1 --cstates sometimes
expect 2 "invalid --cstates" "$WB" server --cstates max-latency-us=x
[ -z "$(ls "$WAKEBENCH_STATE_DIR")" ] || fail "state files left: $(ls "$WAKEBENCH_STATE_DIR")"

# PM QoS hold on the real device.
unset WAKEBENCH_PMQOS_DEV
pmqos_now() { od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' '; }
if [ "$(id -u)" = 0 ] && [ -w /dev/cpu_dma_latency ]; then
	before=$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')
	during=$($C hold --latency-us 7 -- od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')
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
	# A real client run with --cstates off: PM QoS 0 during (the
	# snapshot is taken during the run), released after.
	unset WAKEBENCH_SYSFS
	start_server -q
	"$WB" client --server 127.0.0.1:$PORT --cstates off --requests 100 \
		--interval-us 500 --out "$TMP/real" -q || fail "real --cstates off run"
	stop_server
	grep -A2 '"pm_qos"' "$TMP/real/snapshot.json" | grep -q '"cpu_dma_latency_us": 0,' \
		|| fail "PM QoS not 0 during the run: $(grep -A2 pm_qos "$TMP/real/snapshot.json")"
	[ "$(pmqos_now)" = "$before" ] || fail "PM QoS not released after the client"
else
	echo "PM QoS part skipped: needs root and /dev/cpu_dma_latency"
fi

# wakebench snapshot: text and valid JSON of the real host.
unset WAKEBENCH_SYSFS
"$WB" snapshot | grep -q '^  kernel: ' || fail "snapshot text"
"$WB" snapshot --json | python3 -c 'import json, sys; s = json.load(sys.stdin); assert s["cpuidle"]["driver"] and s["kernel"] and s["cpus_online"]' \
	|| fail "snapshot --json"
"$WB" snapshot --out "$TMP/snap.json" --role server && grep -q '"role": "server"' "$TMP/snap.json" || fail "snapshot --out"
"$WB" snapshot --bogus 2>/dev/null; [ $? -eq 2 ] || fail "snapshot usage exit"
