#!/bin/bash
# Tracing overhead: client latency with and without `wakebench trace
# record` running around the same loopback experiment (server on
# $WB_TRACE_CPU, default 0, the CPU of this VM that emits cpu_idle events;
# client on the last CPU; fixed 1 ms gaps; N requests), alternating REPS
# times. Prints median p50/p99 of each and the p50 ratio.
#   usage: bench/trace-overhead.sh [REPS] [N]
. "$(dirname "$0")/lib.sh"
REPS=${1:-5} N=${2:-3000}
SCPU=${WB_TRACE_CPU:-0}; CCPU=$(($(nproc) - 1))
one() {	# one traced|plain
	if [ "$1" = traced ]; then
		"$WB" trace record --out "$BTMP/tr" -- bash -c "
			\"$WB\" server --port 0 --port-file $BTMP/tport --cpu $SCPU --trace-markers -q &
			while [ ! -s $BTMP/tport ]; do sleep 0.01; done
			read -r p < $BTMP/tport
			\"$WB\" client --server 127.0.0.1:\$p --cpu $CCPU --interval-us 1000 --requests $N --warmup 100 --trace-markers -q --out $BTMP/c
			rc=\$?; kill %1; wait; rm -f $BTMP/tport; exit \$rc" 2>/dev/null || exit 1
	else
		wb_server
		"$WB" client --server 127.0.0.1:$PORT --cpu "$CCPU" --interval-us 1000 \
			--requests "$N" --warmup 100 -q --out "$BTMP/c" || exit 1
		stop_all
	fi
	echo "$1 $(csv_col "$BTMP/c/summary.csv" lat_p50_us) $(csv_col "$BTMP/c/summary.csv" lat_p99_us)" >> "$BTMP/rows"
}
for r in $(seq "$REPS"); do
	one plain
	one traced
	echo "rep $r/$REPS" >&2
done
echo "Tracing overhead: 1 ms fixed gaps, $N requests, server cpu$SCPU, client cpu$CCPU, median of $REPS (us)"
printf '%-8s %10s %10s\n' run p50 p99
for k in plain traced; do
	printf '%-8s %10.2f %10.2f\n' $k "$(awk -v k=$k '$1 == k { print $2 }' "$BTMP/rows" | median)" \
		"$(awk -v k=$k '$1 == k { print $3 }' "$BTMP/rows" | median)"
done
echo "p50 ratio traced/plain: $(awk -v a="$(awk '$1 == "traced" { print $2 }' "$BTMP/rows" | median)" -v b="$(awk '$1 == "plain" { print $2 }' "$BTMP/rows" | median)" 'BEGIN { printf "%.3f", a / b }')"
