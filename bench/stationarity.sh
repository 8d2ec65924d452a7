#!/bin/bash
# Does latency drift within one run on this machine, and by how much?
# RUNS runs (5) of the demo's experiment (server pinned to $SCPU, client
# to $CCPU, exponential gaps of 5 ms, 20 us of service, N requests, 2000)
# without pre-query, back to back, each with a seed of its own. Prints
# each run's workload tests as the client wrote them in summary.txt: the
# Kruskal-Wallis stationarity test over 10 windows with the lowest and
# highest window median, and the gap and independence tests beside it.
#   usage: bench/stationarity.sh [RUNS] [N]
. "$(dirname "$0")/lib.sh"
RUNS=${1:-5} N=${2:-2000}

echo "stationarity of latency within a run: $RUNS runs of $N requests, exp 5 ms gaps, 20 us service"
echo "server CPU $SCPU, client CPU $CCPU, cpuidle driver $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none), $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
wb_server
for r in $(seq "$RUNS"); do
	out="$BTMP/run$r"
	"$WB" client --server "127.0.0.1:$PORT" --cpu "$CCPU" --dist exp --interval-us 5000 \
		--requests "$N" --warmup 50 --service-us 20 --seed "$r" -q --out "$out" ||
		{ echo "bench: run $r failed" >&2; exit 1; }
	echo "run $r (seed $r), p50 $(csv_col "$out/summary.csv" lat_p50_us) us:"
	grep -E '^test (gaps|independence|stationarity)' "$out/summary.txt" | sed 's/^/  /'
done
stop_all
