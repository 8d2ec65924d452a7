#!/bin/bash
# Memory of long runs (issue 19): peak RSS (VmHWM) of the client, of the
# midtier with --log and of the server with --log, for a run of LONG
# seconds against runs of SHORT seconds, at RATE req/s (exp gaps, --wait
# spin, one TCP connection): client on CCPU -> midtier --log -> server
# --log, both on SCPU. The client writes every row (--raw all) and keeps
# its default --exact-samples (1000000: a 10 s run at 100k req/s is at
# the bound). The client's peak comes from wb-peakrss (wait4's
# ru_maxrss), the midtier's and the server's from /proc/PID/status just
# before they are stopped. Short runs: REPS of them, around the long one
# (S L S S ...); the table gives their median and the long run's ratio to
# it. Target: the long run within 10 % of the short one and under 64 MB.
# Needs the disk for the long run's rows (~100 B per request for each of
# the three files, and the client's spool while it runs: ~20 GB at 600 s
# and 100k req/s); each run's files are removed after it.
#   usage: bench/memory-growth.sh [LONG_S] [SHORT_S] [RATE] [REPS]
. "$(dirname "$0")/lib.sh"
LONG=${1:-600}
SHORT=${2:-10}
RATE=${3:-100000}
REPS=${4:-3}
PEAK="$top/${O:-build}/bench/wb-peakrss"
[ -x "$PEAK" ] || make -s -C "$top" bench-tools >&2 || { echo "bench: make bench-tools failed" >&2; exit 1; }
CLIENT="$top/${O:-build}/bin/wakebench-client"

hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

# run DUR: one run; appends "DUR client_kb midtier_kb server_kb count status"
run() {
	local d=$1 pf="$BTMP/p.$RANDOM" mf="$BTMP/m.$RANDOM" spid mpid mport ckb
	rm -rf "$BTMP/run"
	mkdir -p "$BTMP/run"
	"$WB" server --port 0 --port-file "$pf" --cpu "$SCPU" --log "$BTMP/run/server.csv" -q \
		2>>"$BTMP/server.err" &
	spid=$!
	bench_pids+=($spid)
	for _ in $(seq 200); do [ -s "$pf" ] && break; sleep 0.02; done
	read -r PORT _ < "$pf"
	"$WB" midtier --listen 0 --port-file "$mf" --backend 127.0.0.1:$PORT --cpu "$SCPU" \
		--log "$BTMP/run/midtier.csv" -q 2>>"$BTMP/midtier.err" &
	mpid=$!
	bench_pids+=($mpid)
	for _ in $(seq 200); do [ -s "$mf" ] && break; sleep 0.02; done
	read -r mport < "$mf"
	"$PEAK" "$CLIENT" --server 127.0.0.1:$mport --cpu "$CCPU" --dist exp --rate "$RATE" \
		--duration "$d" --wait spin --timeout-ms 5000 -q --out "$BTMP/run/c" \
		2>"$BTMP/client.err" >/dev/null
	ckb=$(sed -n 's/^peak_rss_kb //p' "$BTMP/client.err")
	echo "$d ${ckb:-0} $(hwm $mpid) $(hwm $spid) $(csv_col "$BTMP/run/c/summary.csv" count) $(csv_col "$BTMP/run/c/summary.csv" status) $(du -sm "$BTMP/run" | cut -f1)" >> "$BTMP/rows"
	stop_all
	rm -rf "$BTMP/run"
	echo "run ${d}s done: $(tail -1 "$BTMP/rows")" >&2
}

: > "$BTMP/rows"
run "$SHORT"
run "$LONG"
for _ in $(seq 2 "$REPS"); do run "$SHORT"; done

col() { awk -v d=$1 -v c=$2 '$1 == d { print $c }' "$BTMP/rows" | median; }
echo "Memory of long runs: client (cpu $CCPU) -> midtier --log -> server --log (cpu $SCPU), exp gaps,"
echo "$RATE req/s, --raw all; peak RSS in MB; short: median of $REPS ${SHORT}s runs, long: one ${LONG}s run"
printf '%-10s %10s %10s %8s %8s\n' process short_MB long_MB ratio target
for c in 2:client 3:midtier 4:server; do
	s=$(col "$SHORT" "${c%%:*}") l=$(col "$LONG" "${c%%:*}")
	awk -v n="${c#*:}" -v s="$s" -v l="$l" 'BEGIN {
		r = l / s; ok = (r <= 1.10 && l / 1024 < 64) ? "met" : "MISSED"
		printf "%-10s %10.1f %10.1f %8.3f %8s\n", n, s / 1024, l / 1024, r, ok }'
done
echo "runs (duration_s client_kb midtier_kb server_kb count status disk_MB):"
sed 's/^/  /' "$BTMP/rows"
