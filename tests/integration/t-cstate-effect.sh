# Settings that cannot act say so: without a cpuidle driver `cstate
# limit` and `--cstates off` change only PM QoS, which nothing reads; they
# warn once (what was and was not changed), the run's snapshot records
# "cstates_effect", and `cstate list` shows the PM QoS values in force
# beside the states. On a fake tree with driver none, one with
# intel_idle, and (root, driver none) this machine.
. "$(dirname "$0")/lib.sh"
C="$WB cstate"

# tree DRIVER NSTATES: a fake machine of 2 CPUs with resume latency files.
tree() {
	fake_sysfs "$2"
	echo "$1" > "$FAKE/devices/system/cpu/cpuidle/current_driver"
	for c in 0 1; do
		mkdir -p "$FAKE/devices/system/cpu/cpu$c/power"
		echo 0 > "$FAKE/devices/system/cpu/cpu$c/power/pm_qos_resume_latency_us"
	done
}
resume() { cat "$FAKE/devices/system/cpu/cpu$1/power/pm_qos_resume_latency_us"; }
effect() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("cstates_effect", "-"))' "$1"
}

# --- no cpuidle driver ------------------------------------------------
tree none 0
$C list > "$TMP/list" || fail "list"
grep -q "^PM QoS: /dev/cpu_dma_latency" "$TMP/list" || fail "list: no PM QoS line: $(cat "$TMP/list")"
grep -q "nothing reads PM QoS without a cpuidle driver" "$TMP/list" || fail "list: $(cat "$TMP/list")"
grep -q "^1  *-  *(no states) .* 0  *no idle states; resume latency limit 0 (no constraint)" "$TMP/list" ||
	fail "list: cpu1's resume latency: $(cat "$TMP/list")"
$C list --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["pm_qos"]["read_by_governor"] is False, d
assert [c["resume_latency_us"] for c in d["cpus"]] == ["0", "0"], d' || fail "list --json"

# limit: PM QoS set (and shown by list during), one warning naming it all.
$C limit --max-latency-us 5 --cpus 1 -- sh -c "echo \$(cat $FAKE/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us); $C list --cpus 1" \
	> "$TMP/during" 2> "$TMP/err" || fail "limit: $(cat "$TMP/err")"
[ "$(head -n 1 "$TMP/during")" = 5 ] || fail "limit did not set PM QoS: $(cat "$TMP/during")"
grep -q "^1  *-  *(no states) .* 5  *no idle states; resume latency limit 5 us" "$TMP/during" ||
	fail "list during limit: $(cat "$TMP/during")"
[ "$(grep -c warning "$TMP/err")" = 1 ] || fail "limit: not one warning: $(cat "$TMP/err")"
grep -q "warning: no cpuidle driver (current_driver: none): no idle state was disabled; only PM QoS changed (pm_qos_resume_latency_us of CPUs 1 to 5), which nothing reads without a cpuidle driver" "$TMP/err" ||
	fail "limit warning: $(cat "$TMP/err")"
[ "$(resume 1)" = 0 ] || fail "limit not restored"
# hold: PM QoS by design, inert here all the same: said once.
$C hold --max-latency-us 3 --cpus 0-1 -- true 2> "$TMP/err" || fail "hold: $(cat "$TMP/err")"
[ "$(grep -c warning "$TMP/err")" = 1 ] &&
	grep -q "warning: no cpuidle driver (current_driver: none): pm_qos_resume_latency_us of CPUs 0-1 at 3 held, which nothing reads" "$TMP/err" ||
	fail "hold warning: $(cat "$TMP/err")"

# --cstates off (and system-off) of a client and a server: warned once,
# recorded in the snapshots.
start_server -q --cpu 0 --cstates off --log "$TMP/srv.csv"
"$WB" client --server 127.0.0.1:$PORT --cpu 1 --cstates system-off --requests 20 \
	--interval-us 500 --out "$TMP/run" -q 2> "$TMP/cerr" || fail "client: $(cat "$TMP/cerr")"
stop_server || fail "server exit"
[ "$(grep -c warning "$TMP/cerr")" = 1 ] || fail "client: not one warning: $(cat "$TMP/cerr")"
grep -q "warning: --cstates: no cpuidle driver (current_driver: none): no idle state was disabled; only PM QoS changed (pm_qos_resume_latency_us of CPUs 1 to n/a, /dev/cpu_dma_latency held at 0 us)" "$TMP/cerr" ||
	fail "client warning: $(cat "$TMP/cerr")"
[ "$(grep -c warning "$SERVER_ERR")" = 1 ] || fail "server: not one warning: $(cat "$SERVER_ERR")"
grep -q "pm_qos_resume_latency_us of CPUs 0 to n/a" "$SERVER_ERR" || fail "server warning: $(cat "$SERVER_ERR")"
[ "$(effect "$TMP/run/snapshot.json")" = "pm_qos_only: no cpuidle driver" ] ||
	fail "client snapshot: cstates_effect $(effect "$TMP/run/snapshot.json")"
[ "$(effect "$TMP/srv.snapshot.json")" = "pm_qos_only: no cpuidle driver" ] ||
	fail "server snapshot: cstates_effect $(effect "$TMP/srv.snapshot.json")"
[ "$(resume 0)$(resume 1)" = 00 ] || fail "not restored after the run"
# --cstates on: nothing to warn about, nothing recorded.
start_server -q
"$WB" client --server 127.0.0.1:$PORT --cpu 1 --cstates on --requests 5 \
	--interval-us 500 --out "$TMP/on" -q 2> "$TMP/cerr" || fail "client on: $(cat "$TMP/cerr")"
stop_server || fail "server exit"
grep -q warning "$TMP/cerr" && fail "--cstates on warned: $(cat "$TMP/cerr")"
[ "$(effect "$TMP/on/snapshot.json")" = - ] || fail "--cstates on: $(effect "$TMP/on/snapshot.json")"
rm -rf "$FAKE" "$TMP/state"

# --- intel_idle: the states change, no warning -------------------------
tree intel_idle 3
$C list > "$TMP/list" || fail "list (intel_idle)"
grep -q "^1  *2  *C6  *120 .* no  *0  *fake" "$TMP/list" || fail "list (intel_idle): $(cat "$TMP/list")"
grep -q "nothing reads" "$TMP/list" && fail "list (intel_idle) says nothing reads PM QoS"
$C limit --max-latency-us 5 --cpus 1 -- cat "$FAKE/devices/system/cpu/cpu1/cpuidle/state2/disable" \
	> "$TMP/during" 2> "$TMP/err" || fail "limit (intel_idle)"
[ "$(cat "$TMP/during")" = 1 ] || fail "limit (intel_idle): C6 not disabled"
grep -q warning "$TMP/err" && fail "limit (intel_idle) warned: $(cat "$TMP/err")"
$C hold --max-latency-us 3 --cpus 1 -- true 2> "$TMP/err" || fail "hold (intel_idle)"
grep -q warning "$TMP/err" && fail "hold (intel_idle) warned: $(cat "$TMP/err")"
start_server -q
"$WB" client --server 127.0.0.1:$PORT --cpu 1 --cstates off --requests 5 \
	--interval-us 500 --out "$TMP/idle" -q 2> "$TMP/cerr" || fail "client (intel_idle)"
stop_server || fail "server exit"
grep -q warning "$TMP/cerr" && fail "client (intel_idle) warned: $(cat "$TMP/cerr")"
[ "$(effect "$TMP/idle/snapshot.json")" = idle_states_and_pm_qos ] ||
	fail "intel_idle snapshot: $(effect "$TMP/idle/snapshot.json")"
[ "$(disabled 1 2)$(resume 1)" = 00 ] || fail "not restored (intel_idle)"

# --- this machine, for real (root, no cpuidle driver) -----------------
# The host's own state directory, never a private one: the state files
# are the machine's record of who holds what. A private directory on the
# real sysfs takes another holder's value for the original and "restores"
# it after that holder ended (a concurrent 'cstate hold --max-latency-us 0
# --cpus 1' left cpu1 at n/a that way), and a SIGKILL would leave its
# record where 'cstate restore' cannot find it.
unset WAKEBENCH_SYSFS WAKEBENCH_STATE_DIR WAKEBENCH_PMQOS_DEV
real1=/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us
drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
if [ "$(id -u)" = 0 ] && [ "$drv" = none ] && [ -w "$real1" ]; then
	b1=$(cat "$real1")
	$C limit --max-latency-us 7 --cpus 1 -- cat "$real1" > "$TMP/during" 2> "$TMP/err" ||
		fail "real limit: $(cat "$TMP/err")"
	[ "$(cat "$TMP/during")" = 7 ] || fail "real limit: read $(cat "$TMP/during") during"
	[ "$(grep -c warning "$TMP/err")" = 1 ] &&
		grep -q "only PM QoS changed (pm_qos_resume_latency_us of CPUs 1 to 7)" "$TMP/err" ||
		fail "real limit warning: $(cat "$TMP/err")"
	[ "$(cat "$real1")" = "$b1" ] || fail "real resume latency not restored"
	$C list --cpus 1 | grep -q "^1  *-  *(no states)" || fail "real list: $($C list --cpus 1)"
else
	echo "real part skipped: needs root and a kernel without a cpuidle driver (driver: $drv)"
fi
echo ok
