# Shared helpers for bench scripts (sourced). Benchmarks print tables; they
# are not tests and never run in `make check`.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WB="$top/${O:-build}/bin/wakebench"
[ -x "$WB" ] || { echo "bench: build first (make)" >&2; exit 1; }
STALL="$top/${O:-build}/bench/wb-stall"
[ -x "$STALL" ] || make -s -C "$top" bench-tools >&2 || { echo "bench: make bench-tools failed" >&2; exit 1; }
BTMP=$(mktemp -d /tmp/wbbench.XXXXXX)
bench_pids=()
bench_cleanup() {
	for p in "${bench_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	exec 9>&- 2>/dev/null
	rm -rf "$BTMP"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

SCPU=${SCPU:-$(($(nproc) - 1))}
CCPU=${CCPU:-0}

# wb_server ARGS: start a wakebench server, sets PORT; pid in bench_pids.
wb_server() {
	local pf="$BTMP/port.$RANDOM"
	"$WB" server --port 0 --port-file "$pf" --cpu "$SCPU" -q "$@" 2>>"$BTMP/server.err" &
	bench_pids+=($!)
	for _ in $(seq 200); do [ -s "$pf" ] && break; sleep 0.02; done
	read -r PORT PQPORT < "$pf"
}
stop_all() {
	for p in "${bench_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	bench_pids=()
}

# pmqos_hold / pmqos_release: hold /dev/cpu_dma_latency at 0 on fd 9.
pmqos_hold() { exec 9>/dev/cpu_dma_latency && printf '0' >&9; }
pmqos_release() { exec 9>&-; }

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# csv_col FILE NAME: column NAME of FILE's data rows (scripts/wb-lib.sh)
. "$top/scripts/wb-lib.sh"
