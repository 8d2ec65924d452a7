#!/bin/bash
# Client RTT overhead: wakebench client vs sockperf ping-pong on loopback.
# Both: TCP, 56-byte messages, 1 ms fixed gaps, server pinned to $SCPU,
# client to $CCPU, client busy-polling (wakebench --wait spin; sockperf
# --nonblocked, which polls recvfrom without blocking). Once with C-states allowed, once holding
# /dev/cpu_dma_latency at 0. Runs alternate, REPS times; the table has the
# median p50/p99 RTT of each, the ratio of the median p50s, and the median
# of each rep's own ratio (the two runs of a rep are back to back, and
# which goes first alternates between reps).
#   usage: bench/rtt-sockperf.sh [REPS] [SECONDS]
. "$(dirname "$0")/lib.sh"
REPS=${1:-5}
SECS=${2:-3}
N=$((SECS * 1000))
command -v sockperf >/dev/null || { echo "bench: sockperf not installed (make deps)" >&2; exit 1; }
[ -w /dev/cpu_dma_latency ] || echo "note: /dev/cpu_dma_latency not writable: 'pmqos=0' rows are not held" >&2

sockperf_rtt() {	# prints "p50 p99" in us
	local port=$((20000 + RANDOM % 20000)) out="$BTMP/sp.txt"
	taskset -c "$SCPU" sockperf server --tcp -i 127.0.0.1 -p $port >/dev/null 2>&1 &
	bench_pids+=($!)
	sleep 0.3
	taskset -c "$CCPU" sockperf ping-pong --tcp -i 127.0.0.1 -p $port -m 56 \
		--mps 1000 -t "$SECS" --full-rtt --nonblocked >"$out" 2>&1
	stop_all
	local p50 p99
	p50=$(sed 's/\x1b\[[0-9;]*m//g' "$out" | awk '/percentile 50.000/ { print $NF }')
	p99=$(sed 's/\x1b\[[0-9;]*m//g' "$out" | awk '/percentile 99.000/ { print $NF }')
	echo "$p50 $p99"
}

wakebench_rtt() {	# prints "p50 p99" of service latency (recv - sent) in us
	wb_server
	"$WB" client --server 127.0.0.1:$PORT --cpu "$CCPU" --dist fixed --interval-us 1000 \
		--requests $N --warmup 200 --wait spin --payload 0 -q --out "$BTMP/wb" --force || exit 1
	stop_all
	echo "$(csv_col "$BTMP/wb/summary.csv" svc_p50_us) $(csv_col "$BTMP/wb/summary.csv" svc_p99_us)"
}

for rep in $(seq "$REPS"); do
	for pm in on 0; do
		[ "$pm" = 0 ] && pmqos_hold
		# alternate which tool goes first so drift within a rep cancels
		if [ $((rep % 2)) = 1 ]; then order="wakebench sockperf"; else order="sockperf wakebench"; fi
		for tool in $order; do
			read -r a b <<< "$(${tool}_rtt)"; echo "$pm $tool $a $b $rep" >> "$BTMP/rows"
		done
		[ "$pm" = 0 ] && pmqos_release
	done
	echo "rep $rep/$REPS done" >&2
done

echo "RTT on loopback, 1 ms fixed gaps, ${SECS}s per run, median of $REPS runs (us)"
printf '%-12s %12s %12s %12s %12s %10s %12s\n' "C-states" "wb_p50" "sockperf_p50" "wb_p99" "sockperf_p99" "p50_ratio" "paired_ratio"
for pm in on 0; do
	wp50=$(awk -v pm=$pm '$1 == pm && $2 == "wakebench" { print $3 }' "$BTMP/rows" | median)
	wp99=$(awk -v pm=$pm '$1 == pm && $2 == "wakebench" { print $4 }' "$BTMP/rows" | median)
	sp50=$(awk -v pm=$pm '$1 == pm && $2 == "sockperf" { print $3 }' "$BTMP/rows" | median)
	sp99=$(awk -v pm=$pm '$1 == pm && $2 == "sockperf" { print $4 }' "$BTMP/rows" | median)
	# each rep's wakebench p50 over the sockperf p50 measured next to it
	paired=$(awk -v pm=$pm '$1 == pm { v[$5, $2] = $3; r[$5] = 1 }
		END { for (k in r) print v[k, "wakebench"] / v[k, "sockperf"] }' "$BTMP/rows" | median)
	label=$([ $pm = on ] && echo "allowed" || echo "pmqos=0")
	printf '%-12s %12.2f %12.2f %12.2f %12.2f %10.3f %12.3f\n' "$label" "$wp50" "$sp50" "$wp99" "$sp99" \
		"$(awk -v a="$wp50" -v b="$sp50" 'BEGIN { print a / b }')" "$paired"
done
