#!/bin/bash
# One demo experiment (scripts/demo.sh runs it, traced when it can):
# a server on $scpu and a client on $ccpu, with trace markers when a
# trace instance is there. Usage: demo-run.sh NAME [client options]
set -euo pipefail
name=$1; shift
markers=()
[ -n "${WAKEBENCH_TRACE_INSTANCE:-}" ] && markers=(--trace-markers)
pf="$out/.port-$name"
rm -f "$pf"
"$WB" server --port 0 --port-file "$pf" --cpu "$scpu" --log "$out/server-$name.csv" \
	--prequery-port 0 "${markers[@]}" 2>>"$out/server.err" &
spid=$!
trap 'kill $spid 2>/dev/null; wait $spid 2>/dev/null; rm -f "$pf"' EXIT
for _ in $(seq 200); do [ -s "$pf" ] && break; sleep 0.02; done
[ -s "$pf" ] || { echo "demo: server did not start: $(cat "$out/server.err")" >&2; exit 1; }
read -r port _ < "$pf"
"$WB" client --server "127.0.0.1:$port" --cpu "$ccpu" --dist exp --interval-us 5000 \
	--requests "$REQUESTS" --warmup 50 --seed 1 --service-us 20 "${markers[@]}" \
	--out "$out/$name" --force "$@"
