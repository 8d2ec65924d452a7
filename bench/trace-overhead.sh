#!/bin/bash
# Tracing overhead: client latency of the same loopback experiment
# (server on $WB_TRACE_CPU, default 0; client on the last CPU; fixed 1 ms
# gaps; N requests) plain, under `wakebench trace record`, and under
# `trace record` with --trace-markers on server and client (a
# trace_marker write per send and per receive). The three alternate REPS
# times; the table has median p50/p99 of each and the median of each
# rep's p50 ratio to its own plain run.
#   usage: bench/trace-overhead.sh [REPS] [N]
. "$(dirname "$0")/lib.sh"
REPS=${1:-5} N=${2:-3000}
SCPU=${WB_TRACE_CPU:-0}; CCPU=$(($(nproc) - 1))
one() {	# one plain|traced|markers
	local mk=
	[ "$1" = markers ] && mk=--trace-markers
	if [ "$1" != plain ]; then
		"$WB" trace record --out "$BTMP/tr" -- bash -c "
			\"$WB\" server --port 0 --port-file $BTMP/tport --cpu $SCPU $mk -q &
			while [ ! -s $BTMP/tport ]; do sleep 0.01; done
			read -r p < $BTMP/tport
			\"$WB\" client --server 127.0.0.1:\$p --cpu $CCPU --interval-us 1000 --requests $N --warmup 100 $mk -q --out $BTMP/c --force
			rc=\$?; kill %1; wait; rm -f $BTMP/tport; exit \$rc" 2>/dev/null || exit 1
		rm -rf "$BTMP/tr"
	else
		wb_server
		"$WB" client --server 127.0.0.1:$PORT --cpu "$CCPU" --interval-us 1000 \
			--requests "$N" --warmup 100 -q --out "$BTMP/c" --force || exit 1
		stop_all
	fi
	echo "$r $1 $(csv_col "$BTMP/c/summary.csv" lat_p50_us) $(csv_col "$BTMP/c/summary.csv" lat_p99_us)" >> "$BTMP/rows"
}
for r in $(seq "$REPS"); do
	one plain
	one traced
	one markers
	echo "rep $r/$REPS" >&2
done
echo "Tracing overhead: 1 ms fixed gaps, $N requests, server cpu$SCPU, client cpu$CCPU, median of $REPS (us)"
printf '%-9s %10s %10s %16s\n' run p50 p99 p50_ratio_paired
for k in plain traced markers; do
	printf '%-9s %10.2f %10.2f %16.3f\n' $k "$(awk -v k=$k '$2 == k { print $3 }' "$BTMP/rows" | median)" \
		"$(awk -v k=$k '$2 == k { print $4 }' "$BTMP/rows" | median)" \
		"$(awk -v k=$k '$2 == "plain" { p[$1] = $3 } $2 == k { v[$1] = $3 } END { for (r in v) print v[r] / p[r] }' "$BTMP/rows" | median)"
done
