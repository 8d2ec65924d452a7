#!/bin/bash
# wakebench demo: the built-in default experiment on loopback.
# Server pinned to the last CPU, client to CPU 0, 5 ms exponential gaps:
# the server core goes idle between requests, so every request pays the
# wake-up. Results go to ${WB_DEMO_OUT:-results/demo-<time>}.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
WB="$top/${O:-build}/bin/wakebench"
out=${WB_DEMO_OUT:-$top/results/demo-$(date +%Y%m%d-%H%M%S)}
ncpu=$(nproc)
scpu=$((ncpu - 1))
ccpu=0
REQUESTS=${WB_DEMO_REQUESTS:-2000}
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
echo "== without pre-query =="
start_server --log "$out/server-noprequery.csv"
"$WB" client --server "127.0.0.1:$port" --cpu "$ccpu" --dist exp --interval-us 5000 \
	--requests "$REQUESTS" --warmup 50 --seed 1 --service-us 20 --out "$out/noprequery"
stop_server
