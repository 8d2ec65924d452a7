#!/bin/bash
# Missed events at high event rates: `wakebench trace record` around a
# loopback load whose server (blocking, on $WB_TRACE_CPU, default 0) is
# woken at rising rates, with the scheduler events added to cpu_idle and
# IRQs (about 5 events per wake-up), for several per-CPU buffer sizes.
# Each CPU's recorder is woken when its buffer is half full; a buffer
# whose other half fills before the recorder has drained overruns. Prints events/s recorded and events
# lost (the kernel's overrun + dropped counters, from meta.txt).
#   usage: bench/trace-missed.sh [SECONDS]
. "$(dirname "$0")/lib.sh"
SECS=${1:-4}
SCPU=${WB_TRACE_CPU:-0}; CCPU=$(($(nproc) - 1))
EV=sched:sched_switch,sched:sched_wakeup
printf '%-10s %-12s %12s %12s %10s\n' buffer_kb interval_us events_per_s lost lost_pct
for kb in 64 256 4096; do
	for iv in 1000 100 20; do
		rm -rf "$BTMP/tr"
		"$WB" trace record --out "$BTMP/tr" --buffer-kb $kb --events $EV -- bash -c "
			\"$WB\" server --port 0 --port-file $BTMP/tport --cpu $SCPU -q &
			while [ ! -s $BTMP/tport ]; do sleep 0.01; done
			read -r p < $BTMP/tport
			\"$WB\" client --server 127.0.0.1:\$p --cpu $CCPU --dist exp --interval-us $iv \
				--duration $SECS --timeout-ms 5000 -q
			rc=\$?; kill %1; wait; rm -f $BTMP/tport; exit \$rc" 2>/dev/null || exit 1
		lost=$(awk '$1 == "missed" { s += $3 + $4 } END { print s + 0 }' "$BTMP/tr/meta.txt")
		ev=$("$WB" trace timeline "$BTMP/tr" 2>/dev/null | sed -n 's/^events: \([0-9]*\) in the trace.*/\1/p')
		secs=$(awk '$1 == "start_ns" { s = $2 } $1 == "end_ns" { e = $2 } END { print (e - s) / 1e9 }' "$BTMP/tr/meta.txt")
		printf '%-10s %-12s %12.0f %12s %10.3f\n' $kb $iv "$(awk -v n="${ev:-0}" -v s="$secs" 'BEGIN { print n / s }')" \
			"$lost" "$(awk -v n="${ev:-0}" -v l="$lost" 'BEGIN { print (n + l) ? 100 * l / (n + l) : 0 }')"
	done
done
