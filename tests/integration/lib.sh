# Shared helpers for integration tests (sourced).
set -u
WB="$WB_BIN/wakebench"
TMP=$(mktemp -d /tmp/wbtest.XXXXXX)
SERVER_PID=
cleanup() {
	# Every background job of the test (servers, midtiers, clients), even
	# when a check failed halfway.
	local pids
	pids=$(jobs -p)
	[ -n "$pids" ] && kill $pids 2>/dev/null && wait $pids 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
# can_stall: strace is there and may trace and delay a system call (not
# where ptrace is refused, as in some containers); for the stall cases.
can_stall() {
	command -v strace > /dev/null &&
		strace -o /dev/null -e trace=openat -e inject=openat:delay_exit=1 true 2>/dev/null
}

# start_server ARGS...: starts a server on a free port, sets PORT (and
# PQPORT with --prequery-port 0), SERVER_PID, SERVER_ERR.
start_server() {
	local pf="$TMP/port.$$.$RANDOM"
	SERVER_ERR="$TMP/server.err"
	"$WB" server --port 0 --port-file "$pf" "$@" 2>"$SERVER_ERR" &
	SERVER_PID=$!
	for _ in $(seq 200); do
		[ -s "$pf" ] && break
		kill -0 "$SERVER_PID" 2>/dev/null || fail "server died: $(cat "$SERVER_ERR")"
		sleep 0.02
	done
	[ -s "$pf" ] || fail "server did not start"
	read -r PORT PQPORT < "$pf"
}

stop_server() {
	kill -TERM "$SERVER_PID"
	wait "$SERVER_PID"
	local rc=$?
	SERVER_PID=
	return $rc
}

# need_tracefs: root and a tracefs with power:cpu_idle (mounted if it is
# not), else skip; sets T to it and records the wakebench instances that
# exist now, so `instances` counts only the ones made since (another test
# or session may be recording beside this one).
need_tracefs() {
	need_root
	T=/sys/kernel/tracing
	[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null
	[ -d $T/events/power/cpu_idle ] || skip "no tracefs with power:cpu_idle here"
	ls $T/instances | grep '^wakebench-' | sort > "$TMP/inst.before"
}
# instances: how many wakebench tracefs instances appeared since need_tracefs
instances() { ls $T/instances | grep '^wakebench-' | sort | comm -13 "$TMP/inst.before" - | grep -c . || true; }

# csv_col FILE NAME: prints column NAME of FILE (header row dropped; exit
# 3 without that column): the one in scripts/wb-lib.sh.
. "$WB_TOP/scripts/wb-lib.sh"
# test_port: fixed ports below the ephemeral range
. "$WB_TOP/tests/ports.sh"

# approx A B TOL: |A - B| <= TOL
approx() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

# fake_sysfs [NSTATES]: a synthetic machine with 2 CPUs and states POLL,
# C1 (2 us), C6 (120 us); points wakebench at it and at a private state
# directory and PM QoS file.
fake_sysfs() {
	local n=${1:-3} names=(POLL C1 C6) lat=(0 2 120) cpu s d
	FAKE="$TMP/sys"
	mkdir -p "$FAKE/devices/system/cpu/cpuidle"
	[ "$n" -gt 0 ] && echo fake_idle > "$FAKE/devices/system/cpu/cpuidle/current_driver"
	echo menu > "$FAKE/devices/system/cpu/cpuidle/current_governor_ro"
	for cpu in 0 1; do
		mkdir -p "$FAKE/devices/system/cpu/cpu$cpu"
		for ((s = 0; s < n; s++)); do
			d="$FAKE/devices/system/cpu/cpu$cpu/cpuidle/state$s"
			mkdir -p "$d"
			echo "${names[$s]}" > "$d/name"; echo "fake" > "$d/desc"
			echo "${lat[$s]}" > "$d/latency"; echo "${lat[$s]}" > "$d/residency"
			echo 10 > "$d/usage"; echo 100 > "$d/time"; echo 0 > "$d/disable"
		done
	done
	export WAKEBENCH_SYSFS="$FAKE" WAKEBENCH_STATE_DIR="$TMP/state"
	export WAKEBENCH_PMQOS_DEV="$TMP/pmqos"
	: > "$WAKEBENCH_PMQOS_DEV"
}
# disabled CPU STATE: the fake state's disable flag
disabled() { cat "$FAKE/devices/system/cpu/cpu$1/cpuidle/state$2/disable"; }
# wait_for "SHELL TEST": evaluate it every 20 ms for up to 5 s until it holds
wait_for() { for _ in $(seq 250); do eval "$1" && return 0; sleep 0.02; done; return 1; }
