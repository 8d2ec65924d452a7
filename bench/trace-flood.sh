#!/bin/bash
# Can the recorder keep up? `wakebench trace record --cpus CPU` around a
# writer that floods the instance's trace_marker from that CPU as fast as
# it can for SECONDS (ftrace:print events, 56 bytes each with the ring
# buffer's header), for per-CPU buffers of 64 KB to 1 MB and one sized by
# --event-rate from the rate the first run reached. written: markers the
# writer wrote; recorded: events trace timeline reads back; lost: the
# kernel's overrun + dropped counters (meta.txt). A recorder that drains
# too late loses events once its buffer is full: the old one (a thread
# copying every CPU every 50 ms) lost 89 % at 64 KB and 46-54 % at
# 256 KB on this 2-vCPU VM (load 9 from other work), the per-CPU splice
# recorder 10-17 % and 0.2-0.7 %; neither lost any at 1 MB.
#   usage: [CPU=0] bench/trace-flood.sh [SECONDS]
. "$(dirname "$0")/lib.sh"
SECS=${1:-3}
CPU=${CPU:-0}
cat > "$BTMP/flood.py" <<'PY'
import os, sys, time
fd = os.open("/sys/kernel/tracing/instances/%s/trace_marker"
             % os.environ["WAKEBENCH_TRACE_INSTANCE"], os.O_WRONLY)
os.sched_setaffinity(0, {int(sys.argv[2])})
end, n, msg = time.time() + float(sys.argv[1]), 0, b"wb flood 0123456789"
while time.time() < end:
    for _ in range(1000):
        os.write(fd, msg)
    n += 1000
print(n, file=sys.stderr)
PY
one() {	# one ARGS...: prints "written recorded lost"
	rm -rf "$BTMP/tr"
	"$WB" trace record --out "$BTMP/tr" --cpus "$CPU" --no-wake-causes "$@" -- \
		python3 "$BTMP/flood.py" "$SECS" "$CPU" 2> "$BTMP/err" || { cat "$BTMP/err" >&2; exit 1; }
	echo "$(grep -E '^[0-9]+$' "$BTMP/err" | tail -1)" \
		"$("$WB" trace timeline "$BTMP/tr" 2>/dev/null | sed -n 's/^events: \([0-9]*\) in the trace.*/\1/p')" \
		"$(awk '$1 == "missed" { s += $3 + $4 } END { print s + 0 }' "$BTMP/tr/meta.txt")"
}
echo "$(date -u) load $(cut -d' ' -f1-3 /proc/loadavg); markers flooded from cpu$CPU for $SECS s"
printf '%-30s %10s %10s %10s %9s\n' buffer written recorded lost lost_pct
row() { printf '%-30s %10s %10s %10s %9.3f\n' "$1" "$2" "$3" "$4" "$(awk -v r="$3" -v l="$4" 'BEGIN { print (r + l) ? 100 * l / (r + l) : 0 }')"; }
rate=0
for kb in 64 256 1024; do
	read -r w r l <<< "$(one --buffer-kb $kb)"
	row "$kb KB" "$w" "$r" "$l"
	[ "$rate" = 0 ] && rate=$((w / SECS))
done
read -r w r l <<< "$(one --event-rate "$rate")"
row "--event-rate $rate ($(sed -n 's/^buffer_kb //p' "$BTMP/tr/meta.txt") KB)" "$w" "$r" "$l"
