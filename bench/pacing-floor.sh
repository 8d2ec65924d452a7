#!/bin/bash
# Pacing against the machine's floor: the share of sends more than 10 us
# late (late_sends / requests) of the client in spin and hybrid mode at
# 10k and 100k req/s (fixed gaps, a busy-poll server on $SCPU so replies
# never make the client late), beside the share of time build/bench/
# wb-stall loses to stalls over 10 us on the client's CPU ($CCPU): no
# pacer on that CPU can do better than the floor. Each client run is
# paired with a wb-stall run of the same length just before or after it
# (the order alternates), in the same invocation; a rep runs every
# cell. The table: the medians of late %, floor % and of each pair's
# ratio late/floor with its 95 % CI from order statistics
# (bench/tools/wb-median). Target: ratio <= 1.2.
#   usage: bench/pacing-floor.sh [REPS] [SECONDS]
. "$(dirname "$0")/lib.sh"
REPS=${1:-9}
SECS=${2:-3}
MED="$top/${O:-build}/bench/wb-median"
[ -x "$MED" ] || make -s -C "$top" "${MED#$top/}" >&2 || exit 1

: > "$BTMP/rows"
wb_server --busy-poll
stall() { "$STALL" "$CCPU" "$SECS" | sed -n 's/.*lost_pct_10us \([0-9.]*\).*/\1/p'; }
client() {	# RATE WAIT: prints late %
	"$WB" client --server 127.0.0.1:$PORT --cpu "$CCPU" --dist fixed --rate "$1" \
		--duration "$SECS" --warmup 100 --wait "$2" -q --out "$BTMP/c" --force \
		--timeout-ms 5000 || exit 1
	awk -v l="$(csv_col "$BTMP/c/summary.csv" late_sends)" -v n="$(csv_col "$BTMP/c/summary.csv" count)" \
		'BEGIN { printf "%.4f\n", (n > 0 ? 100 * l / n : 0) }'
}
k=0
for rep in $(seq "$REPS"); do
	for rate in 10000 100000; do
		for wait in spin hybrid; do
			k=$((k + 1))
			if [ $((k % 2)) = 1 ]; then
				f=$(stall); l=$(client $rate $wait)
			else
				l=$(client $rate $wait); f=$(stall)
			fi
			echo "$rate $wait $l $f" >> "$BTMP/rows"
		done
	done
	echo "rep $rep/$REPS done" >&2
done
stop_all
[ -n "${PACING_ROWS:-}" ] && cp "$BTMP/rows" "$PACING_ROWS"

echo "$(date -u) cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Sends > 10 us late vs time lost to stalls > 10 us (wb-stall, same CPU), fixed gaps, ${SECS}s per run, $REPS reps"
echo "late_pct, floor_pct: medians; ratio: median of the pairs' late/floor [95 % CI]"
printf '%-8s %-7s %9s %9s  %s\n' rate wait late_pct floor_pct "ratio"
for rate in 10000 100000; do
	for wait in spin hybrid; do
		sel() { awk -v r=$rate -v w=$wait -v c="$1" '$1 == r && $2 == w { print $c }' "$BTMP/rows" | "$MED" | cut -d' ' -f1; }
		ratio=$(awk -v r=$rate -v w=$wait '$1 == r && $2 == w && $4 > 0 { print $3 / $4 }' "$BTMP/rows" |
			"$MED" 2>/dev/null | awk '{ printf "%.2f [%.2f, %.2f]", $1, $2, $3 }')
		printf '%-8s %-7s %9.3f %9.3f  %s\n' $rate $wait "$(sel 3)" "$(sel 4)" "${ratio:-- (no stalls over 10 us)}"
	done
done
