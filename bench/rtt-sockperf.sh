#!/bin/bash
# Client RTT overhead: wakebench against sockperf ping-pong on loopback,
# and where the difference goes.
# All: TCP, 56-byte messages, 1 ms fixed gaps, server pinned to $SCPU,
# client to $CCPU, client busy-polling (wakebench --wait spin; sockperf
# --nonblocked, which polls recvfrom without blocking). Three pairs each
# time:
#   sp    sockperf client  -> sockperf server
#   wb    wakebench client -> wakebench server
#   echo  wakebench client -> wb-echo (bench/tools: one recv, one send
#         per request, no epoll, no clock, no log): the client's share
# and three settings of the server core:
#   allowed  C-states allowed (servers block: epoll, wb-echo recv())
#   pmqos=0  the same with /dev/cpu_dma_latency held at 0 (no deeper
#            state than POLL where a cpuidle driver has one; nothing
#            changes without a driver)
#   busy     servers busy-poll (wakebench --busy-poll; sockperf -F r
#            --nonblocked; wb-echo spin): the core never idles, C-states
#            off on any machine
# Runs alternate within a rep (the order rotates between reps). The
# table: median p50 of each pair, and the medians of each rep's own
# ratios with their 95 % CIs from order statistics (bench/tools/wb-median,
# lib/stats): wb/sp the whole overhead, echo/sp the client's part,
# wb/echo the server's part.
#   usage: bench/rtt-sockperf.sh [REPS] [SECONDS]
. "$(dirname "$0")/lib.sh"
REPS=${1:-9}
SECS=${2:-3}
N=$((SECS * 1000))
ECHO="$top/${O:-build}/bench/wb-echo"
MED="$top/${O:-build}/bench/wb-median"
for t in "$ECHO" "$MED"; do
	[ -x "$t" ] || make -s -C "$top" "${t#$top/}" >&2 || exit 1
done
command -v sockperf >/dev/null || { echo "bench: sockperf not installed (make deps)" >&2; exit 1; }
[ -w /dev/cpu_dma_latency ] || echo "note: /dev/cpu_dma_latency not writable: 'pmqos=0' rows are not held" >&2

free_port() { echo $((20000 + RANDOM % 20000)); }
wait_port() { for _ in $(seq 100); do ss -Hltn "sport = :$1" | grep -q . && return; sleep 0.02; done; }

sp_rtt() {	# SETTING: prints "p50 p99" in us
	local port out="$BTMP/sp.txt"
	port=$(free_port)
	if [ "$1" = busy ]; then
		echo "T:127.0.0.1:$port" > "$BTMP/feed"
		taskset -c "$SCPU" sockperf server -f "$BTMP/feed" -F r --nonblocked >/dev/null 2>&1 &
	else
		taskset -c "$SCPU" sockperf server --tcp -i 127.0.0.1 -p $port >/dev/null 2>&1 &
	fi
	bench_pids+=($!)
	wait_port $port
	taskset -c "$CCPU" sockperf ping-pong --tcp -i 127.0.0.1 -p $port -m 56 \
		--mps 1000 -t "$SECS" --full-rtt --nonblocked >"$out" 2>&1
	stop_all
	sed 's/\x1b\[[0-9;]*m//g' "$out" | awk '/percentile 50.000/ { a = $NF } /percentile 99.000/ { b = $NF } END { print a, b }'
}

wb_client() {	# PORT: prints "p50 p99" of service latency (recv - sent) in us
	"$WB" client --server 127.0.0.1:$1 --cpu "$CCPU" --dist fixed --interval-us 1000 \
		--requests $N --warmup 200 --wait spin --payload 0 -q --out "$BTMP/wb" --force || exit 1
	stop_all
	echo "$(csv_col "$BTMP/wb/summary.csv" svc_p50_us) $(csv_col "$BTMP/wb/summary.csv" svc_p99_us)"
}
wb_rtt() {	# SETTING
	if [ "$1" = busy ]; then wb_server --busy-poll; else wb_server; fi
	wb_client "$PORT"
}
echo_rtt() {	# SETTING
	local port
	port=$(free_port)
	"$ECHO" "$SCPU" $port "$([ "$1" = busy ] && echo spin || echo block)" &
	bench_pids+=($!)
	wait_port $port
	wb_client $port
}

: > "$BTMP/rows"
pairs=(sp wb echo)
for rep in $(seq "$REPS"); do
	for set in allowed pmqos=0 busy; do
		[ "$set" = pmqos=0 ] && pmqos_hold
		for i in 0 1 2; do
			tool=${pairs[$(((rep + i) % 3))]}
			read -r a b <<< "$(${tool}_rtt "$set")"
			echo "$set $tool $a $b $rep" >> "$BTMP/rows"
		done
		[ "$set" = pmqos=0 ] && pmqos_release
	done
	echo "rep $rep/$REPS done" >&2
done

echo "$(date -u) cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "RTT on loopback, 1 ms fixed gaps, ${SECS}s per run, $REPS reps; p50/p99: medians (us); ratios: median of the reps' paired p50 ratios [95 % CI]"
printf '%-8s %8s %8s %8s %8s %8s %8s  %-22s %-22s %-22s\n' setting sp_p50 wb_p50 echo_p50 sp_p99 wb_p99 echo_p99 \
	"wb/sp (whole)" "echo/sp (client)" "wb/echo (server)"
for set in allowed pmqos=0 busy; do
	col() { awk -v s=$set -v t=$1 -v c=$2 '$1 == s && $2 == t { print $c }' "$BTMP/rows" | "$MED" | cut -d' ' -f1; }
	ratio() {	# A B: median [lo, hi] of the reps' p50 A / p50 B
		awk -v s=$set -v a=$1 -v b=$2 '$1 == s { v[$5, $2] = $3; r[$5] = 1 }
			END { for (k in r) if (v[k, b] > 0) print v[k, a] / v[k, b] }' "$BTMP/rows" |
			"$MED" | awk '{ printf "%.3f [%.3f, %.3f]", $1, $2, $3 }'
	}
	printf '%-8s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f  %-22s %-22s %-22s\n' "$set" \
		"$(col sp 3)" "$(col wb 3)" "$(col echo 3)" "$(col sp 4)" "$(col wb 4)" "$(col echo 4)" \
		"$(ratio wb sp)" "$(ratio echo sp)" "$(ratio wb echo)"
done
