#!/bin/bash
# wakebench demo: the built-in default experiment on loopback.
# Server pinned to CPU 0, client to the last CPU, 5 ms exponential gaps,
# 20 us of service: the server core goes idle between requests, so every
# request pays the wake-up. The same schedule runs without pre-query and
# with a pre-query 100 us ahead of each request (more than a pre-query's
# own send() costs on this VM, 40-80 us, so it leaves alone and the
# request stays on time). As root, each run is
# traced (power:cpu_idle, IRQs, request markers) and the demo prints the
# server core's residency and which C-state each request found it in.
# Results go to ${WB_DEMO_OUT:-results/demo-<time>}.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export WB="$top/${O:-build}/bin/wakebench"
export out=${WB_DEMO_OUT:-$top/results/demo-$(date +%Y%m%d-%H%M%S)}
export scpu=${WB_DEMO_SERVER_CPU:-0}
export ccpu=$(($(nproc) - 1))
[ "$ccpu" = "$scpu" ] && ccpu=$(( (scpu + 1) % $(nproc) ))
export REQUESTS=${WB_DEMO_REQUESTS:-2000}
LEAD=${WB_DEMO_LEAD_US:-100}
mkdir -p "$out"
trap 'exit 130' INT TERM HUP

trace=0
if [ "$(id -u)" = 0 ] && { [ -d /sys/kernel/tracing/events/power/cpu_idle ] ||
	{ mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && [ -d /sys/kernel/tracing/events/power/cpu_idle ]; }; }; then
	trace=1
fi

run() {	# run NAME [client options]
	local name=$1
	if [ $trace = 1 ]; then
		"$WB" trace record --out "$out/trace-$name" -- "$top/scripts/demo-run.sh" "$@" 2>>"$out/trace.err"
	else
		"$top/scripts/demo-run.sh" "$@"
	fi
}

analyse() {	# analyse NAME
	local name=$1
	[ $trace = 1 ] || return 0
	echo "-- server cpu$scpu residency during the run:"
	"$WB" trace timeline "$out/trace-$name" --cpus "$scpu" | grep -E "^(cpu|$scpu )"
	echo "-- C-state the server core was in when each request arrived:"
	"$WB" trace attribute "$out/trace-$name" --requests "$out/server-$name.csv" --cpu "$scpu" \
		--client "$out/$name/requests.csv" | grep -v '^[0-9]* requests attributed'
}

echo "wakebench demo: server on CPU $scpu, client on CPU $ccpu, $REQUESTS requests, exp gaps of 5 ms"
[ $trace = 1 ] || echo "(not root or no tracefs: runs are not traced)"
echo "results: $out"
echo
echo "== without pre-query =="
run noprequery
analyse noprequery
echo
echo "== with pre-query, ${LEAD} us ahead of each request =="
run prequery --prequery-lead-us "$LEAD"
analyse prequery

col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
{
	echo "wakebench demo report: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "exp gaps of 5 ms, $REQUESTS requests, 20 us service, server CPU $scpu, client CPU $ccpu"
	printf '%-22s %10s %10s %10s %10s\n' "" "avg_us" "p50_us" "p99_us" "p99.9_us"
	for n in noprequery prequery; do
		printf '%-22s %10s %10s %10s %10s\n' "$n" "$(col "$out/$n/summary.csv" lat_avg_us)" \
			"$(col "$out/$n/summary.csv" lat_p50_us)" "$(col "$out/$n/summary.csv" lat_p99_us)" \
			"$(col "$out/$n/summary.csv" lat_p999_us)"
	done
	for m in avg p50 p99; do
		printf 'speedup %s (without / with pre-query): %s\n' $m \
			"$(awk -v a="$(col "$out/noprequery/summary.csv" lat_${m}_us)" \
			       -v b="$(col "$out/prequery/summary.csv" lat_${m}_us)" 'BEGIN { printf "%.3f", a / b }')"
	done
	if [ $trace = 1 ]; then
		for n in noprequery prequery; do
			# Measured requests only: the ones with a client latency.
			printf 'requests that found cpu%s idle (%s): %s of %s\n' "$scpu" "$n" \
				"$(awk -F, 'NR > 1 && $7 != "" && $3 != "C0"' "$out/trace-$n/attribution.csv" | wc -l)" \
				"$(awk -F, 'NR > 1 && $7 != ""' "$out/trace-$n/attribution.csv" | wc -l)"
		done
		# The core a pre-query woke is still waking when its request
		# lands: the pair is read together but the wake began early.
		printf 'requests whose pre-query woke cpu%s: %s of %s\n' "$scpu" \
			"$(awk -F, 'NR > 1 && $7 != "" && $8 == "woke"' "$out/trace-prequery/attribution.csv" | wc -l)" \
			"$(awk -F, 'NR > 1 && $7 != ""' "$out/trace-prequery/attribution.csv" | wc -l)"
	fi
} > "$out/report.txt"
echo
cat "$out/report.txt"
echo
"$WB" report "$out" 2>>"$out/report.err" >/dev/null || echo "demo: figures could not be drawn: $(tail -1 "$out/report.err")"
echo "results: $out"
echo "report:  $out/report/index.html (figures: $out/report/fig*.png, summary: $out/report.txt)"
