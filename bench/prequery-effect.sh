#!/bin/bash
# The pre-query effect on this machine. Server pinned to $SCPU, client to
# $CCPU; fixed and exponential gaps of 5 ms, N requests (2000), REPS
# repetitions (3) of each: no pre-query, lead 0/20/50/100 us, adaptive
# (window 100, so 2000 requests make 20 windows); all of it once with
# C-states allowed and once with --cstates off on both sides (per CPU:
# idle states and resume latency of their pinned CPUs).
# Runs are interleaved (rep-major) so drift hits every configuration
# alike. Prints median p50/p99 of CO-corrected latency and their ratio to
# no pre-query.
#   usage: bench/prequery-effect.sh [REPS] [N] [SERVICE_US]
. "$(dirname "$0")/lib.sh"
REPS=${1:-3} N=${2:-2000} SVC=${3:-20}
CONFIGS="off lead0 lead20 lead50 lead100 adaptive"

client_args() {
	case $1 in
	off) ;;
	lead*) echo "--prequery-lead-us ${1#lead}" ;;
	adaptive) echo "--prequery-policy adaptive --window 100" ;;
	esac
}

total=$((REPS * 2 * 2 * 6)) done=0
for rep in $(seq "$REPS"); do
	for cs in on off; do
		for dist in fixed exp; do
			wb_server --cstates "$cs"
			for cfg in $CONFIGS; do
				out="$BTMP/$rep-$cs-$dist-$cfg"
				# shellcheck disable=SC2046
				"$WB" client --server 127.0.0.1:$PORT --cpu "$CCPU" --cstates "$cs" \
					--dist $dist --interval-us 5000 --requests "$N" --warmup 20 \
					--service-us "$SVC" --seed "$rep" $(client_args $cfg) -q --out "$out" \
					|| { echo "bench: run $out failed" >&2; exit 1; }
				echo "$cs $dist $cfg $(csv_col "$out/summary.csv" lat_p50_us) $(csv_col "$out/summary.csv" lat_p99_us) $(csv_col "$out/summary.csv" prequery_lead_us | sed "s/^$/-/") $(csv_col "$out/summary.csv" pace_p50_us)" >> "$BTMP/rows"
				done=$((done + 1))
				echo "[$done/$total] $cs $dist $cfg p50 $(csv_col "$out/summary.csv" lat_p50_us)" >&2
			done
			stop_all
		done
	done
done

echo "Pre-query effect: 5 ms gaps, $N requests, service $SVC us, median of $REPS runs (us)"
printf '%-9s %-6s %-9s %9s %9s %9s %9s %9s %s\n' cstates dist prequery p50 p99 p50_ratio p99_ratio pace_p50 note
for cs in on off; do
	for dist in fixed exp; do
		b50=$(awk -v c=$cs -v d=$dist '$1 == c && $2 == d && $3 == "off" { print $4 }' "$BTMP/rows" | median)
		b99=$(awk -v c=$cs -v d=$dist '$1 == c && $2 == d && $3 == "off" { print $5 }' "$BTMP/rows" | median)
		for cfg in $CONFIGS; do
			p50=$(awk -v c=$cs -v d=$dist -v g=$cfg '$1 == c && $2 == d && $3 == g { print $4 }' "$BTMP/rows" | median)
			p99=$(awk -v c=$cs -v d=$dist -v g=$cfg '$1 == c && $2 == d && $3 == g { print $5 }' "$BTMP/rows" | median)
			pace=$(awk -v c=$cs -v d=$dist -v g=$cfg '$1 == c && $2 == d && $3 == g { print $7 }' "$BTMP/rows" | median)
			note=
			[ $cfg = adaptive ] && note="best lead $(awk -v c=$cs -v d=$dist '$1 == c && $2 == d && $3 == "adaptive" { printf "%s ", $6 }' "$BTMP/rows")us"
			printf '%-9s %-6s %-9s %9.1f %9.1f %9.3f %9.3f %9.2f %s\n' $cs $dist $cfg "$p50" "$p99" \
				"$(awk -v a="$p50" -v b="$b50" 'BEGIN { print a / b }')" \
				"$(awk -v a="$p99" -v b="$b99" 'BEGIN { print a / b }')" "$pace" "$note"
		done
	done
done
