# Harness guard (issue 21 §4), sourced: what a test run may leave behind on
# the real machine, recorded before and after so that a leak is caught by
# the harness, not by the next person to measure on this host.
#
#   guard_snapshot FILE         records the state below into FILE
#   guard_compare BEFORE AFTER  prints what changed ("- " gone, "+ " new);
#                               returns 0 when nothing did, 1 otherwise
#
# Recorded, one sorted line each:
#   cpuidle cpuN/stateM disable=V   every CPU's idle states' disable flags
#   pmqos cpuN V                    power/pm_qos_resume_latency_us per CPU
#   cpu_dma_latency held pid=P comm=C   a process holding the PM QoS device
#   tracefs instance NAME           instances under tracefs
#   state FILE                      files in the wakebench state directory
#   listen PROTO ADDR:PORT comm=C pid=P   listening sockets of wakebench
#                                   processes (and the wb-* test tools)
#   proc pid=P comm=C ARGS          wakebench processes still running
#   netns NAME                      network namespaces (ip netns)
#   link KIND NAME                  veth and bridge interfaces
#   sshd pid=P ARGS                 sshd processes (a test's own sshd, or a
#                                   session it left)
# Process lines carry pids, so a process that was restarted shows as a
# change too.
#
# The paths can be pointed elsewhere (the self-test does so to change a
# PM QoS value without touching the machine): GUARD_SYSFS (default /sys),
# GUARD_TRACEFS (default /sys/kernel/tracing, else debugfs's),
# GUARD_STATE_DIR (default /run/wakebench), GUARD_PMQOS_DEV (default
# /dev/cpu_dma_latency). GUARD_SCOPE (run-integration.sh: the build under
# test) limits the process and listening-socket lines to programs under
# that path; the system state lines stay machine-wide.

# processes whose name says they are ours: wakebench, wakebench-*, wb-*
_guard_ours='^(wakebench|wb-)'

_guard_tracefs() {
	if [ -n "${GUARD_TRACEFS:-}" ]; then
		echo "$GUARD_TRACEFS"
	elif [ -d /sys/kernel/tracing/instances ]; then
		echo /sys/kernel/tracing
	else
		echo /sys/kernel/debug/tracing
	fi
}

_guard_collect() {
	local sys=${GUARD_SYSFS:-/sys} state=${GUARD_STATE_DIR:-/run/wakebench}
	local dev=${GUARD_PMQOS_DEV:-/dev/cpu_dma_latency} tr f d cpu p l comm procs
	tr=$(_guard_tracefs)

	for f in "$sys"/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*/disable; do
		[ -r "$f" ] || continue
		d=${f%/disable}
		cpu=${d%/cpuidle/*}
		echo "cpuidle ${cpu##*/}/${d##*/} disable=$(cat "$f" 2>/dev/null)"
	done
	for f in "$sys"/devices/system/cpu/cpu[0-9]*/power/pm_qos_resume_latency_us; do
		[ -r "$f" ] || continue
		cpu=${f%/power/*}
		echo "pmqos ${cpu##*/} $(cat "$f" 2>/dev/null)"
	done
	# Holders of the PM QoS device: any process with it open (one find
	# over every fd, not a readlink each: this runs twice a test).
	find /proc/[0-9]*/fd -maxdepth 1 -lname "$dev" 2>/dev/null | while read -r l; do
		p=${l#/proc/}
		p=${p%%/*}
		comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
		echo "cpu_dma_latency held pid=$p comm=$comm"
	done
	if [ -d "$tr/instances" ]; then
		for d in "$tr"/instances/*; do
			[ -d "$d" ] && echo "tracefs instance ${d##*/}"
		done
	fi
	if [ -d "$state" ]; then
		for f in "$state"/* "$state"/.[!.]*; do
			[ -e "$f" ] && echo "state ${f##*/}"
		done
	fi
	# Our processes: by name, and with GUARD_SCOPE (a path prefix, the
	# build under test) only those whose program lies under it, so that
	# another build's run on the same machine is not taken for a leak.
	procs=$(ps -eo pid=,comm=,args= 2>/dev/null | awk -v ours="$_guard_ours" -v me=$$ \
		-v scope="${GUARD_SCOPE:-}" '
		$2 ~ ours && $1 != me && (scope == "" || index($3, scope) == 1) {
			pid = $1; comm = $2
			sub(/^ *[0-9]+ +[^ ]+ +/, "")
			printf "proc pid=%s comm=%s %s\n", pid, comm, $0
		}')
	# Their listening sockets. ss: "tcp LISTEN 0 1024 127.0.0.1:7000
	# 0.0.0.0:* users:(("wakebench-serve",pid=1,fd=5))"
	ss -Hltunp 2>/dev/null | awk -v ours="$_guard_ours" \
		-v pids=" $(printf '%s\n' "$procs" | sed -n 's/^proc pid=\([0-9]*\) .*/\1/p' | tr '\n' ' ')" '{
		if (!match($0, /users:\(\("[^"]*",pid=[0-9]+/))
			next
		split(substr($0, RSTART + 9, RLENGTH - 9), u, /",pid=/)
		if (u[1] ~ ours && index(pids, " " u[2] " "))
			printf "listen %s %s comm=%s pid=%s\n", $1, $5, u[1], u[2]
	}'
	[ -z "$procs" ] || printf '%s\n' "$procs"
	# a test's network (t-multihost: namespaces, veths, a bridge, sshd)
	ip netns list 2>/dev/null | awk 'NF { print "netns " $1 }'
	for k in veth bridge; do
		ip -o link show type $k 2>/dev/null |
			awk -v k=$k -F': ' '{ sub(/@.*/, "", $2); print "link " k " " $2 }'
	done
	ps -eo pid=,comm=,args= 2>/dev/null | awk '$2 == "sshd" {
		pid = $1; sub(/^ *[0-9]+ +[^ ]+ +/, ""); printf "sshd pid=%s %s\n", pid, $0 }'
}

guard_snapshot() {
	_guard_collect | LC_ALL=C sort > "$1"
}

guard_compare() {
	local out
	out=$(LC_ALL=C diff "$1" "$2" | sed -n 's/^< /- /p; s/^> /+ /p')
	[ -z "$out" ] && return 0
	echo "$out"
	return 1
}
