#!/bin/bash
# How many demo-like runs each behind-schedule rule flags on this machine
# (issue 31). The demo's runs (as scripts/demo.sh runs them): server on CPU $SCPU
# (0) with a pre-query port, client on CPU $CCPU (1), exponential gaps of
# 5 ms, N requests (2000) after 50 of warm-up, 20 us of service; REPS
# repetitions (3) without a pre-query and with --prequery-lead-us 100,
# interleaved, seed = rep. Then bench/tools/behind-count over them: the
# legacy rule (recomputed), the client's behind_schedule (the current
# rule) and its causes, for each side and both.
#   usage: bench/behind-rules.sh [REPS] [N] [OUTDIR]
# With OUTDIR the runs are kept there (OUTDIR/off/rep-K, OUTDIR/pq100/rep-K)
# for `behind-count -v OUTDIR` later; else they go with the temp dir.
export SCPU=${SCPU:-0} CCPU=${CCPU:-1}
. "$(dirname "$0")/lib.sh"
REPS=${1:-3} N=${2:-2000} OUT=${3:-$BTMP/runs}
COUNT="$top/${O:-build}/bench/behind-count"
[ -x "$COUNT" ] || make -s -C "$top" bench-tools >&2 || { echo "bench: make bench-tools failed" >&2; exit 1; }
mkdir -p "$OUT" || exit 1

total=$((REPS * 2)) done=0
for rep in $(seq "$REPS"); do
	for side in off pq100; do
		args=()
		[ $side = pq100 ] && args=(--prequery-lead-us 100)
		out="$OUT/$side/rep-$rep"
		wb_server --prequery-port 0
		"$WB" client --server 127.0.0.1:$PORT --cpu "$CCPU" --dist exp --interval-us 5000 \
			--requests "$N" --warmup 50 --seed "$rep" --service-us 20 "${args[@]}" \
			--out "$out" --force -q || echo "bench: run $out failed (counted apart: not ok)" >&2
		stop_all
		done=$((done + 1))
		[ -s "$out/summary.csv" ] || { echo "bench: $out: no summary.csv" >&2; exit 1; }
		echo "[$done/$total] $side rep $rep: $(csv_col "$out/summary.csv" status), behind_schedule $(csv_col "$out/summary.csv" behind_schedule) $(csv_col "$out/summary.csv" behind_reason)" >&2
	done
done

echo "Behind-schedule rules on demo-like runs: exp 5 ms gaps, $N requests, 20 us service, server CPU $SCPU, client CPU $CCPU, $REPS reps a side"
for side in off pq100; do
	[ $side = off ] && echo "== without pre-query" || echo "== pre-query lead 100 us"
	"$COUNT" "$OUT/$side" || exit 1
done
echo "== both"
"$COUNT" -v "$OUT" || exit 1
