#!/bin/bash
# Tracing analysis speed: one busy loopback workload recorded at once by
# `wakebench trace record` and into a second tracefs instance with the
# same events (power:cpu_idle, irq:irq_handler_entry/exit) that
# `trace-cmd extract` turns into trace.dat (`trace-cmd record` cannot run
# on this VM: it insists on writing /proc/sys/kernel/ftrace_enabled,
# which is read-only here). Then the time and peak memory of
# `wakebench trace timeline` against `trace-cmd report` on what each
# recorded. REPS analysis runs each, medians.
#   usage: bench/trace-analysis.sh [SECONDS] [REPS]
. "$(dirname "$0")/lib.sh"
SECS=${1:-10} REPS=${2:-3}
command -v trace-cmd >/dev/null || { echo "bench: trace-cmd not installed (make deps)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time not installed (make deps)" >&2; exit 1; }
SCPU=${WB_TRACE_CPU:-0}; CCPU=$(($(nproc) - 1))
TI=/sys/kernel/tracing/instances/wbbench-tc
rmdir "$TI" 2>/dev/null
mkdir "$TI" || { echo "bench: cannot create $TI" >&2; exit 1; }
trap 'rmdir "$TI" 2>/dev/null; bench_cleanup' EXIT
echo mono > "$TI/trace_clock"
echo 65536 > "$TI/buffer_size_kb"
for e in power/cpu_idle irq/irq_handler_entry irq/irq_handler_exit; do echo 1 > "$TI/events/$e/enable"; done
"$WB" trace record --out "$BTMP/wb" --buffer-kb 65536 --duration "$((SECS + 2))" 2>/dev/null &
wbpid=$!
sleep 1
# The load: a blocking server on $SCPU woken ~20000 times a second.
wb_server
"$WB" client --server 127.0.0.1:$PORT --cpu "$CCPU" --dist exp --interval-us 50 \
	--duration "$SECS" -q --timeout-ms 5000 || true
stop_all
wait $wbpid
echo 0 > "$TI/tracing_on"
(cd "$BTMP" && trace-cmd extract -B wbbench-tc -o tc.dat >/dev/null 2>&1) || { echo "bench: trace-cmd extract failed" >&2; exit 1; }
rmdir "$TI" 2>/dev/null

wb_events=$(awk '$1 == "pages" { print $2 }' "$BTMP/wb/meta.txt")
tc_events=$(trace-cmd report -i "$BTMP/tc.dat" 2>/dev/null | grep -c -E 'cpu_idle:|irq_handler_')
measure() {	# measure CMD...: prints "seconds peak_kb"
	/usr/bin/time -f '%e %M' -o "$BTMP/time" "$@" >/dev/null 2>&1
	cat "$BTMP/time"
}
for r in $(seq "$REPS"); do
	read -r s m <<< "$(measure "$WB" trace timeline "$BTMP/wb")"; echo "wb $s $m" >> "$BTMP/rows"
	read -r s m <<< "$(measure trace-cmd report -i "$BTMP/tc.dat")"; echo "tc $s $m" >> "$BTMP/rows"
done
wb_idle=$(awk -F, 'NR > 1' "$BTMP/wb/cstate-cpu$SCPU.csv" | wc -l)
echo "Trace analysis, ${SECS}s busy loopback workload, median of $REPS runs"
echo "events seen by trace-cmd report: $tc_events; wakebench: $(du -k "$BTMP/wb" | tail -1 | cut -f1) KB raw, $wb_idle C-state intervals on cpu$SCPU ($wb_events pages)"
printf '%-28s %10s %12s\n' tool seconds peak_rss_kb
for t in wb tc; do
	name=$([ $t = wb ] && echo "wakebench trace timeline" || echo "trace-cmd report")
	printf '%-28s %10s %12s\n' "$name" \
		"$(awk -v t=$t '$1 == t { print $2 }' "$BTMP/rows" | median)" \
		"$(awk -v t=$t '$1 == t { print $3 }' "$BTMP/rows" | median)"
done
echo "speed ratio (trace-cmd / wakebench): $(awk -v a="$(awk '$1 == "tc" { print $2 }' "$BTMP/rows" | median)" -v b="$(awk '$1 == "wb" { print $2 }' "$BTMP/rows" | median)" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }')"
