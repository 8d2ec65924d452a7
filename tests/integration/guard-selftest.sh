#!/bin/bash
# Self-test of guard.sh: guard_compare reports each kind of leftover, and
# nothing for an unchanged state. Not a t-*.sh (run-integration.sh does not
# pick it up by itself); run it alone, or through the harness by name:
#   O=build tests/run-integration.sh tests/integration/guard-selftest.sh
# The real tracefs gets (and loses) one instance of its own; PM QoS values,
# idle-state flags, state files and the PM QoS device are a synthetic copy,
# so other runs on this machine are not disturbed. Other runs may change
# the real machine meanwhile, so each check looks for its own lines only.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/guard.sh"
TMP=$(mktemp -d /tmp/wbguard.XXXXXX)
pids=()
inst=
cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null && wait "${pids[@]}" 2>/dev/null
	[ -n "$inst" ] && rmdir "$inst" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect FILE LINE...: every LINE is a line of FILE
expect() {
	local f=$1 l
	shift
	for l in "$@"; do
		grep -qxF -- "$l" "$f" || fail "guard_compare did not report '$l'; it said: $(cat "$f")"
	done
}

# ---- unchanged: nothing reported, status 0.
guard_snapshot "$TMP/a"
[ -s "$TMP/a" ] || fail "empty snapshot"
guard_compare "$TMP/a" "$TMP/a" > "$TMP/out" || fail "a snapshot differs from itself: $(cat "$TMP/out")"
[ ! -s "$TMP/out" ] || fail "output for no change: $(cat "$TMP/out")"

# ---- a synthetic machine: PM QoS value, idle-state flag, state file, a
# process holding the PM QoS device.
S="$TMP/sys"
for c in 0 1; do
	mkdir -p "$S/devices/system/cpu/cpu$c/power" "$S/devices/system/cpu/cpu$c/cpuidle/state1"
	echo 0 > "$S/devices/system/cpu/cpu$c/power/pm_qos_resume_latency_us"
	echo 0 > "$S/devices/system/cpu/cpu$c/cpuidle/state1/disable"
done
mkdir -p "$TMP/state"
: > "$TMP/pmqos"
export GUARD_SYSFS="$S" GUARD_STATE_DIR="$TMP/state" GUARD_PMQOS_DEV="$TMP/pmqos"
guard_snapshot "$TMP/b"
grep -qx 'pmqos cpu1 0' "$TMP/b" || fail "pm_qos_resume_latency_us not recorded: $(cat "$TMP/b")"
echo 20 > "$S/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us"
guard_snapshot "$TMP/c"
guard_compare "$TMP/b" "$TMP/c" > "$TMP/out" && fail "changed pm_qos_resume_latency_us: status 0"
expect "$TMP/out" '- pmqos cpu1 0' '+ pmqos cpu1 20'
! grep -q 'cpu0' "$TMP/out" || fail "reported an unchanged CPU: $(cat "$TMP/out")"
echo "changed pm_qos_resume_latency_us: caught"

echo 1 > "$S/devices/system/cpu/cpu0/cpuidle/state1/disable"
: > "$TMP/state/cstate.123.state"
sleep 60 9< "$TMP/pmqos" &
pids+=($!)
guard_snapshot "$TMP/d"
guard_compare "$TMP/c" "$TMP/d" > "$TMP/out" && fail "leftovers: status 0"
expect "$TMP/out" '- cpuidle cpu0/state1 disable=0' '+ cpuidle cpu0/state1 disable=1' \
	'+ state cstate.123.state' "+ cpu_dma_latency held pid=${pids[0]} comm=sleep"
echo "disabled idle state, state file, held PM QoS device: caught"
unset GUARD_SYSFS GUARD_STATE_DIR GUARD_PMQOS_DEV

# ---- the real tracefs: a leftover instance.
T=$(_guard_tracefs)
if [ -w "$T/instances" ]; then
	guard_snapshot "$TMP/e"
	inst="$T/instances/wbguard-selftest-$$"
	mkdir "$inst" || fail "cannot create $inst"
	guard_snapshot "$TMP/f"
	guard_compare "$TMP/e" "$TMP/f" > "$TMP/out" && fail "leftover tracefs instance: status 0"
	expect "$TMP/out" "+ tracefs instance wbguard-selftest-$$"
	rmdir "$inst" && inst=
	guard_snapshot "$TMP/g"
	guard_compare "$TMP/f" "$TMP/g" > "$TMP/out"
	expect "$TMP/out" "- tracefs instance wbguard-selftest-$$"
	echo "leftover tracefs instance: caught"
else
	echo "tracefs part skipped: $T/instances not writable (needs root)"
fi

# ---- a wakebench server left running: its process and its port.
if [ -n "${WB_BIN:-}" ] && [ -x "$WB_BIN/wakebench-server" ]; then
	guard_snapshot "$TMP/h"
	"$WB_BIN/wakebench-server" --port 0 --port-file "$TMP/port" -q &
	pids+=($!)
	for _ in $(seq 250); do [ -s "$TMP/port" ] && break; sleep 0.02; done
	read -r port < "$TMP/port" || fail "server did not start"
	guard_snapshot "$TMP/i"
	guard_compare "$TMP/h" "$TMP/i" > "$TMP/out" && fail "leftover server: status 0"
	grep -q "^+ proc pid=${pids[1]} comm=wakebench-serve" "$TMP/out" || fail "server process not reported: $(cat "$TMP/out")"
	expect "$TMP/out" "+ listen tcp 127.0.0.1:$port comm=wakebench-serve pid=${pids[1]}"
	echo "leftover server process and listening port: caught"
	# scoped to its build: still caught; scoped to another build: not ours
	GUARD_SCOPE="$WB_BIN/" guard_snapshot "$TMP/j"
	grep -q "^proc pid=${pids[1]} " "$TMP/j" && grep -q "^listen tcp 127.0.0.1:$port " "$TMP/j" ||
		fail "GUARD_SCOPE of its own build: server not seen: $(cat "$TMP/j")"
	GUARD_SCOPE=/nonexistent-build/ guard_snapshot "$TMP/k"
	grep -q "pid=${pids[1]}" "$TMP/k" && fail "GUARD_SCOPE of another build: server reported"
	echo "GUARD_SCOPE: a build's processes only"
else
	echo "process part skipped: set WB_BIN to a build's bin directory"
fi
# ---- a test's network left behind: a namespace and a veth pair.
if [ "$(id -u)" = 0 ] && ip netns add wbguard$$ 2>/dev/null; then
	guard_snapshot "$TMP/l"
	ip netns del wbguard$$
	ip link add wbg$$a type veth peer name wbg$$b 2>/dev/null
	guard_snapshot "$TMP/m"
	ip link del wbg$$a 2>/dev/null
	guard_compare "$TMP/l" "$TMP/m" > "$TMP/out" && fail "leftover namespace: status 0"
	expect "$TMP/out" "- netns wbguard$$" "+ link veth wbg$$a" "+ link veth wbg$$b"
	echo "leftover network namespace and veth pair: caught"
else
	echo "network part skipped: needs root and ip netns"
fi
echo "guard self-test passed"
