#!/bin/bash
# Tracing analysis speed: one busy loopback workload recorded at once by
# `wakebench trace record` and into a second tracefs instance with the
# same events (power:cpu_idle, irq:irq_handler_entry/exit) that
# `trace-cmd extract` turns into trace.dat (`trace-cmd record` cannot run
# on this VM: it insists on writing /proc/sys/kernel/ftrace_enabled,
# which is read-only here). Then the time and peak memory of
# `wakebench trace timeline` against `trace-cmd report` on what each
# recorded. REPS analysis runs each, medians. EXTRA adds events to both
# recordings (e.g. EXTRA=sched:sched_switch,sched:sched_wakeup, about 5
# events per server wake-up instead of 2, to reach 10 M events in a few
# minutes); BUF_KB sizes the trace-cmd instance's per-CPU buffer, which
# must hold the whole run (trace-cmd extract reads it at the end).
#   usage: [EXTRA=...] [BUF_KB=N] bench/trace-analysis.sh [SECONDS] [REPS]
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
EXTRA=${EXTRA:-}
echo "${BUF_KB:-65536}" > "$TI/buffer_size_kb" || { echo "bench: cannot size the buffer" >&2; exit 1; }
for e in power:cpu_idle irq:irq_handler_entry irq:irq_handler_exit ${EXTRA//,/ }; do
	echo 1 > "$TI/events/${e/://}/enable" || { echo "bench: no event $e" >&2; exit 1; }
done
"$WB" trace record --out "$BTMP/wb" --buffer-kb 65536 ${EXTRA:+--events "$EXTRA"} \
	--duration "$((SECS + 2))" 2>"$BTMP/rec.err" &
wbpid=$!
for _ in $(seq 500); do grep -q ': recording in instance' "$BTMP/rec.err" && break; sleep 0.02; done
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
tc_events=$(trace-cmd report -i "$BTMP/tc.dat" 2>/dev/null | grep -c -E '^ *[^ ].*\[[0-9]+\] *[0-9.]+: [a-z_]+:')
tc_lost=$(trace-cmd report -i "$BTMP/tc.dat" --stat 2>/dev/null | awk '/overrun:/ { s += $2 } END { print s + 0 }')
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
echo "events: power:cpu_idle, irq:irq_handler_entry/exit${EXTRA:+, ${EXTRA//,/, }}"
echo "events in trace-cmd report: $tc_events (overruns in its buffer: $tc_lost); wakebench: $(du -k "$BTMP/wb" | tail -1 | cut -f1) KB raw ($wb_events pages), $wb_idle C-state intervals on cpu$SCPU, missed: $(awk '$1 == "missed" { s += $3 + $4 } END { print s + 0 }' "$BTMP/wb/meta.txt")"
printf '%-28s %10s %12s\n' tool seconds peak_rss_kb
for t in wb tc; do
	name=$([ $t = wb ] && echo "wakebench trace timeline" || echo "trace-cmd report")
	printf '%-28s %10s %12s\n' "$name" \
		"$(awk -v t=$t '$1 == t { print $2 }' "$BTMP/rows" | median)" \
		"$(awk -v t=$t '$1 == t { print $3 }' "$BTMP/rows" | median)"
done
echo "speed ratio (trace-cmd / wakebench): $(awk -v a="$(awk '$1 == "tc" { print $2 }' "$BTMP/rows" | median)" -v b="$(awk '$1 == "wb" { print $2 }' "$BTMP/rows" | median)" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }')"
