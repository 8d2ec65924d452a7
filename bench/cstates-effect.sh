#!/bin/bash
# What switching C-states off does to loopback latency on this machine.
# Configurations, run alternately REPS times (median of each column):
#   on         default idle states, blocking server
#   off        server and client --cstates system-off (states but POLL
#              disabled on their CPUs and the system-wide PM QoS held at 0,
#              as the published table was measured; plain `off` now acts on
#              the pinned CPUs only)
#   busy-poll  blocking server replaced by --busy-poll: the core never idles
# Client: fixed gaps of INTERVAL us, spin wait, N requests, service 0.
#   usage: bench/cstates-effect.sh [REPS] [N] [INTERVAL_US]
. "$(dirname "$0")/lib.sh"
REPS=${1:-3} N=${2:-1000} INTERVAL=${3:-2000}
run() {	# run NAME SERVER_ARGS -- CLIENT_ARGS
	local name=$1; shift
	local sargs=() cargs=()
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done; shift
	cargs=("$@")
	wb_server "${sargs[@]}"
	"$WB" client --server 127.0.0.1:$PORT --cpu "$CCPU" --interval-us "$INTERVAL" \
		--requests "$N" --warmup 50 "${cargs[@]}" -q --out "$BTMP/$name" --force || exit 1
	stop_all
	echo "$name $(csv_col "$BTMP/$name/summary.csv" lat_p50_us) $(csv_col "$BTMP/$name/summary.csv" lat_p99_us) $(csv_col "$BTMP/$name/summary.csv" lat_avg_us)" >> "$BTMP/rows"
}
for rep in $(seq "$REPS"); do
	run on --
	run off --cstates system-off -- --cstates system-off
	run busy-poll --busy-poll --
	echo "rep $rep/$REPS done" >&2
done
echo "loopback latency by C-state setting: fixed ${INTERVAL} us gaps, $N requests, median of $REPS runs (us)"
printf '%-10s %10s %10s %10s\n' config p50 p99 avg
for c in on off busy-poll; do
	printf '%-10s %10.2f %10.2f %10.2f\n' $c \
		"$(awk -v c=$c '$1 == c { print $2 }' "$BTMP/rows" | median)" \
		"$(awk -v c=$c '$1 == c { print $3 }' "$BTMP/rows" | median)" \
		"$(awk -v c=$c '$1 == c { print $4 }' "$BTMP/rows" | median)"
done
