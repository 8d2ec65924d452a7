# Energy around a client run: RAPL's powercap counters on a fake tree
# ($WAKEBENCH_SYSFS) that a background writer advances, the
# summary's energy_j, power_w and energy_per_request_uj from them; this
# VM's real /sys, which has no RAPL: empty columns and one line saying so.
# The perf power PMU (no powercap): a fake PMU whose counters the kernel
# refuses (one note, empty columns), and one that is really the msr PMU's
# TSC (its type and event=0x00), so the counters open and count through
# perf_event_open as energy-pkg would: TSC cycles x 2^-32 "joules".
. "$(dirname "$0")/lib.sh"
start_server -q
N=300
# this machine: no RAPL (a VM): the columns empty, never zero
"$WB" client --server 127.0.0.1:$PORT --requests 50 --interval-us 1000 --out "$TMP/real" > "$TMP/real.txt" ||
	fail "run without RAPL"
if [ ! -d /sys/class/powercap ] || ! ls /sys/class/powercap | grep -q '^intel-rapl:'; then
	[ "$(csv_col "$TMP/real/summary.csv" energy_j)" = "" ] || fail "energy_j not empty without RAPL"
	[ "$(grep -c '^energy: not measured (no RAPL energy counters here' "$TMP/real.txt")" = 1 ] ||
		fail "no RAPL: not said once: $(grep energy "$TMP/real.txt")"
	grep -q '"energy_j": null' "$TMP/real/summary.json" || fail "summary.json energy_j not null"
	grep -q '"source": "none"' "$TMP/real/summary.json" || fail "summary.json source not none"
	if [ ! -e /sys/bus/event_source/devices/power ]; then
		grep -q '^energy: not measured (no RAPL energy counters here (no /sys/class/powercap; no perf power PMU))$' "$TMP/real.txt" ||
			fail "no powercap, no power PMU: $(grep energy "$TMP/real.txt")"
	fi
fi
# a fake package and dram zone; the writer adds 1000 uJ to the package
# and 10 uJ to dram every 2 ms or so (wraps: test_energy)
F="$TMP/sys/class/powercap"
mkdir -p "$F/intel-rapl:0" "$F/intel-rapl:0:0"
echo package-0 > "$F/intel-rapl:0/name"; echo 262143328850 > "$F/intel-rapl:0/max_energy_range_uj"
echo dram > "$F/intel-rapl:0:0/name"; echo 65712999613 > "$F/intel-rapl:0:0/max_energy_range_uj"
echo 990000 > "$F/intel-rapl:0/energy_uj"; echo 0 > "$F/intel-rapl:0:0/energy_uj"
( p=990000 d=0
  while :; do
	p=$((p + 1000)); d=$((d + 10))
	echo $p > "$F/intel-rapl:0/energy_uj.new" && mv "$F/intel-rapl:0/energy_uj.new" "$F/intel-rapl:0/energy_uj"
	echo $d > "$F/intel-rapl:0:0/energy_uj.new" && mv "$F/intel-rapl:0:0/energy_uj.new" "$F/intel-rapl:0:0/energy_uj"
	sleep 0.002
  done ) &
WPID=$!
WAKEBENCH_SYSFS="$TMP/sys" "$WB" client --server 127.0.0.1:$PORT --requests $N --warmup 50 \
	--interval-us 2000 --out "$TMP/fake" > "$TMP/fake.txt" || fail "run on the fake tree"
kill $WPID; wait $WPID 2>/dev/null
written=$(( $(cat "$F/intel-rapl:0/energy_uj") - 990000 ))
j=$(csv_col "$TMP/fake/summary.csv" energy_j); w=$(csv_col "$TMP/fake/summary.csv" power_w)
per=$(csv_col "$TMP/fake/summary.csv" energy_per_request_uj)
# 0.6 s of measured requests (more when the client falls behind) while
# the writer adds 1000 uJ each round (its pace is the machine's: a loaded
# VM forks slowly): the package's joules only (no dram's 10 uJ steps),
# some but at most what it wrote, over the measured window
awk -v j="$j" -v t="$written" 'BEGIN { exit !(j >= 0.001 && j * 1e6 <= t && (j * 1e6) % 1000 == 0) }' ||
	fail "energy_j $j (the writer added $written uJ)"
awk -v j="$j" -v w="$w" 'BEGIN { exit !(w > 0 && j / w > 0.5 && j / w < 2) }' || fail "power_w $w for $j J"
awk -v j="$j" -v p="$per" -v n=$N 'BEGIN { d = j * 1e6 / n - p; exit !(d < 0.01 && d > -0.01) }' ||
	fail "energy_per_request_uj $per for $j J over $N requests"
grep -q '^energy (RAPL packages, measured requests): ' "$TMP/fake.txt" || fail "text summary energy line"
grep -q '"intel-rapl:0:0": ' "$TMP/fake/summary.json" || fail "summary.json zones"
grep -q '"source": "powercap"' "$TMP/fake/summary.json" || fail "summary.json source powercap"

# perf power PMU, no powercap: counters the kernel does not have (a PMU
# type no kernel gives): said once, columns empty
rm -rf "$TMP/sys/class/powercap"
P="$TMP/sys/bus/event_source/devices/power"
mkdir -p "$P/events"
echo 2147483000 > "$P/type"; echo 0 > "$P/cpumask"
echo event=0x00 > "$P/events/energy-pkg"; echo Joules > "$P/events/energy-pkg.unit"
echo 2.3283064365386962890625e-10 > "$P/events/energy-pkg.scale"
WAKEBENCH_SYSFS="$TMP/sys" "$WB" client --server 127.0.0.1:$PORT --requests 50 \
	--interval-us 1000 --out "$TMP/nopmu" > "$TMP/nopmu.txt" || fail "run with a power PMU that does not open"
[ "$(grep -c '^energy: not measured (no RAPL energy counters here (no .*/class/powercap; perf power/energy-pkg/ on CPU 0: ' "$TMP/nopmu.txt")" = 1 ] ||
	fail "a power PMU that does not open: not said once: $(grep energy "$TMP/nopmu.txt")"
for c in energy_j power_w energy_per_request_uj; do
	[ "$(csv_col "$TMP/nopmu/summary.csv" $c)" = "" ] || fail "$c not empty without counters"
done
grep -q '"source": "none"' "$TMP/nopmu/summary.json" || fail "summary.json source without counters"
# a hostile scale: the error, not a crash, and still no figure
echo 1e999 > "$P/events/energy-pkg.scale"
WAKEBENCH_SYSFS="$TMP/sys" "$WB" client --server 127.0.0.1:$PORT --requests 20 \
	--interval-us 1000 --out "$TMP/badscale" > "$TMP/badscale.txt" || fail "run with a hostile scale"
grep -q "^energy: not measured (perf power PMU: .*energy-pkg.scale: '1e999' is not a scale" "$TMP/badscale.txt" ||
	fail "hostile scale: $(grep energy "$TMP/badscale.txt")"
[ "$(csv_col "$TMP/badscale/summary.csv" energy_j)" = "" ] || fail "energy_j with a hostile scale"

# the msr PMU's TSC standing in for energy-pkg (root: system-wide counters)
M=/sys/bus/event_source/devices/msr
if [ "$(id -u)" = 0 ] && [ -r $M/type ] && [ "$(cat $M/events/tsc 2>/dev/null)" = event=0x00 ]; then
	echo 2.3283064365386962890625e-10 > "$P/events/energy-pkg.scale"
	cat $M/type > "$P/type"
	WAKEBENCH_SYSFS="$TMP/sys" "$WB" client --server 127.0.0.1:$PORT --requests 200 \
		--interval-us 1000 --out "$TMP/perf" > "$TMP/perf.txt" || fail "run on the msr-backed power PMU"
	j=$(csv_col "$TMP/perf/summary.csv" energy_j); w=$(csv_col "$TMP/perf/summary.csv" power_w)
	# TSC at 0.5-8 GHz: 0.12-1.9 "W" over the 0.2 s window
	awk -v j="$j" -v w="$w" 'BEGIN { exit !(w > 0.1 && w < 2 && j > 0.01 && j < 1) }' ||
		fail "perf energy_j $j power_w $w"
	grep -q '^energy (RAPL packages, measured requests, perf power/energy-pkg/): ' "$TMP/perf.txt" ||
		fail "text summary's perf energy line: $(grep energy "$TMP/perf.txt")"
	grep -q '"source": "perf"' "$TMP/perf/summary.json" || fail "summary.json source perf"
	grep -q '"energy-pkg:0": ' "$TMP/perf/summary.json" || fail "summary.json perf zone"
else
	echo "(no root or no msr/tsc: the msr-backed power PMU part not run)"
fi
stop_server
echo ok
