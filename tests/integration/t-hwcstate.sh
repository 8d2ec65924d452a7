# Hardware C-state residency around trace record (lib/hwcstate):
# DIR/hw-residency.csv and meta.txt's hw_residency line. This VM has no
# cstate_core or cstate_pkg PMU: the header alone and one line saying so.
# Then a fake cstate_core PMU ($WAKEBENCH_SYSFS) that is really the msr
# PMU (its type; c6-residency is event=0x00, the TSC): the counters open
# and count through perf_event_open as residency would, against msr/tsc
# (so "C6" is 100 % of the TSC); c7-residency (event=0x07, which the msr
# PMU refuses) is a counter that does not open: no row, said in meta.txt.
. "$(dirname "$0")/lib.sh"
need_tracefs
HDR="scope,cpu,state,percent,count"
D="$TMP/rec"
"$WB" trace record --out "$D" --duration 0.1 2> "$TMP/rec.err" || fail "record: $(cat "$TMP/rec.err")"
[ "$(head -1 "$D/hw-residency.csv")" = "$HDR" ] || fail "hw-residency.csv header: $(head -1 "$D/hw-residency.csv")"
[ "$(grep -c '^hw_residency ' "$D/meta.txt")" = 1 ] || fail "meta.txt: no single hw_residency line"
if [ ! -e /sys/bus/event_source/devices/cstate_core ] && [ ! -e /sys/bus/event_source/devices/cstate_pkg ]; then
	[ "$(cat "$D/hw-residency.csv")" = "$HDR" ] || fail "rows without a cstate PMU: $(cat "$D/hw-residency.csv")"
	grep -qx 'hw_residency none: no cstate_core or cstate_pkg PMU on this machine' "$D/meta.txt" ||
		fail "meta.txt: $(grep hw_res "$D/meta.txt")"
fi
# the timeline still reads the trace (meta.txt's new line is ignored)
"$WB" trace timeline "$D" > /dev/null 2>&1 || fail "trace timeline on a trace with hw_residency"

M=/sys/bus/event_source/devices/msr
if [ ! -r $M/type ] || [ "$(cat $M/events/tsc 2>/dev/null)" != event=0x00 ]; then
	echo ok "(no msr/tsc here: the msr-backed part not run)"
	exit 0
fi
fake_sysfs 3
C="$FAKE/bus/event_source/devices/cstate_core"
mkdir -p "$C/events" "$FAKE/bus/event_source/devices/msr/events"
cat $M/type > "$C/type"; echo 0-1 > "$C/cpumask"
echo event=0x00 > "$C/events/c6-residency"; echo event=0x07 > "$C/events/c7-residency"
cat $M/type > "$FAKE/bus/event_source/devices/msr/type"
echo event=0x00 > "$FAKE/bus/event_source/devices/msr/events/tsc"
"$WB" trace record --out "$D" --duration 0.2 2> "$TMP/rec.err" || fail "record: $(cat "$TMP/rec.err")"
grep -q '^hw_residency 2 counters, TSC msr/tsc; no cstate_pkg PMU on this machine; 2 counters did not open (cstate_core/c7-residency/ on CPU 0: the CPU does not count it' "$D/meta.txt" ||
	fail "meta.txt: $(grep hw_res "$D/meta.txt")"
[ "$(head -1 "$D/hw-residency.csv")" = "$HDR" ] || fail "hw-residency.csv header"
[ "$(grep -c . "$D/hw-residency.csv")" = 3 ] || fail "rows: $(cat "$D/hw-residency.csv")"
for cpu in 0 1; do
	row=$(grep "^core,$cpu,C6," "$D/hw-residency.csv") || fail "no C6 row for CPU $cpu: $(cat "$D/hw-residency.csv")"
	IFS=, read -r _ _ _ pct count <<< "$row"
	# the same TSC twice, read a few microseconds apart; 0.2 s at >= 0.5 GHz
	awk -v p="$pct" -v c="$count" 'BEGIN { exit !(p > 99 && p < 101 && c > 1e8) }' ||
		fail "C6 of CPU $cpu: $row"
done
echo ok
