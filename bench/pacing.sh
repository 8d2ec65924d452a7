#!/bin/bash
# Pacing accuracy: |sent - intended| of every request (the client's
# pace_* summary) for --wait spin, sleep and hybrid at 1k, 10k and 100k
# req/s, fixed gaps, against a busy-poll server (so replies never make the
# client late). Each cell is the median over REPS runs of the run's p50,
# p99 and max pacing error, plus the share of late sends (> 10 us).
# Target: spin at 10k req/s, p99 <= 1 us.
#   usage: bench/pacing.sh [REPS] [SECONDS]
. "$(dirname "$0")/lib.sh"
REPS=${1:-5}
SECS=${2:-2}
: > "$BTMP/rows"
wb_server --busy-poll
for rep in $(seq "$REPS"); do
	for rate in 1000 10000 100000; do
		for wait in spin sleep hybrid; do
			"$WB" client --server 127.0.0.1:$PORT --cpu "$CCPU" --dist fixed --rate $rate \
				--duration "$SECS" --warmup 100 --wait $wait -q --out "$BTMP/c" --force \
				--timeout-ms 5000 || exit 1
			s="$BTMP/c/summary.csv"
			echo "$rate $wait $(csv_col $s pace_p50_us) $(csv_col $s pace_p99_us)" \
				"$(csv_col $s pace_max_us) $(csv_col $s late_sends) $(csv_col $s count)" >> "$BTMP/rows"
		done
	done
	echo "rep $rep/$REPS done" >&2
done
stop_all

echo "Pacing error |sent - intended|, fixed gaps, ${SECS}s per run, busy-poll server, median of $REPS runs (us)"
printf '%-8s %-7s %9s %9s %9s %9s\n' rate wait p50_us p99_us max_us late_pct
for rate in 1000 10000 100000; do
	for wait in spin sleep hybrid; do
		sel() { awk -v r=$rate -v w=$wait -v c="$1" '$1 == r && $2 == w { print $c }' "$BTMP/rows" | median; }
		late=$(awk -v r=$rate -v w=$wait '$1 == r && $2 == w { print 100 * $6 / $7 }' "$BTMP/rows" | median)
		printf '%-8s %-7s %9.3f %9.3f %9.1f %9.3f\n' $rate $wait "$(sel 3)" "$(sel 4)" "$(sel 5)" "$late"
	done
done
