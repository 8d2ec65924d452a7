#!/bin/bash
# wakebench demo: the built-in default experiment on loopback.
# Server pinned to the last CPU, client to CPU 0, 5 ms exponential gaps,
# 20 us of service: the server core goes idle between requests, so every
# request pays the wake-up. The same schedule runs without pre-query and
# with a pre-query 50 us ahead of each request, and the two are compared.
# Results go to ${WB_DEMO_OUT:-results/demo-<time>}.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
WB="$top/${O:-build}/bin/wakebench"
out=${WB_DEMO_OUT:-$top/results/demo-$(date +%Y%m%d-%H%M%S)}
ncpu=$(nproc)
scpu=$((ncpu - 1))
ccpu=0
REQUESTS=${WB_DEMO_REQUESTS:-2000}
LEAD=${WB_DEMO_LEAD_US:-50}
mkdir -p "$out"
pf="$out/.port"

server_pid=
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
	rm -f "$pf"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_server() {
	rm -f "$pf"
	"$WB" server --port 0 --port-file "$pf" --cpu "$scpu" "$@" 2>>"$out/server.err" &
	server_pid=$!
	for _ in $(seq 200); do [ -s "$pf" ] && break; sleep 0.02; done
	[ -s "$pf" ] || { echo "demo: server did not start: $(cat "$out/server.err")" >&2; exit 1; }
	read -r port _ < "$pf"
}

stop_server() {
	kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=
}

echo "wakebench demo: server on CPU $scpu, client on CPU $ccpu, $REQUESTS requests, exp gaps of 5 ms"
echo "results: $out"
echo
run() {	# run NAME [client pre-query options]
	local name=$1; shift
	start_server --log "$out/server-$name.csv" --prequery-port 0
	"$WB" client --server "127.0.0.1:$port" --cpu "$ccpu" --dist exp --interval-us 5000 \
		--requests "$REQUESTS" --warmup 50 --seed 1 --service-us 20 --out "$out/$name" "$@"
	stop_server
}

echo "== without pre-query =="
run noprequery
echo
echo "== with pre-query, ${LEAD} us ahead of each request =="
run prequery --prequery-lead-us "$LEAD"

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
} > "$out/report.txt"
echo
cat "$out/report.txt"
echo
echo "results and report: $out"