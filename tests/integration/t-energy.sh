# Energy around a client run: RAPL's powercap counters on a fake tree
# ($WAKEBENCH_SYSFS) that a background writer advances, the
# summary's energy_j, power_w and energy_per_request_uj from them; this
# VM's real /sys, which has no RAPL: empty columns and one line saying so.
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
j=$(csv_col "$TMP/fake/summary.csv" energy_j); w=$(csv_col "$TMP/fake/summary.csv" power_w)
per=$(csv_col "$TMP/fake/summary.csv" energy_per_request_uj)
# 0.6 s of measured requests at up to 0.5 J/s (1000 uJ per 2 ms at the
# writer's pace): the package's joules only, over the measured window
awk -v j="$j" 'BEGIN { exit !(j > 0.05 && j < 0.99) }' || fail "energy_j $j"
awk -v j="$j" -v w="$w" 'BEGIN { exit !(w > 0.05 && w < 1.5 && j / w > 0.5 && j / w < 0.75) }' || fail "power_w $w for $j J"
awk -v j="$j" -v p="$per" -v n=$N 'BEGIN { d = j * 1e6 / n - p; exit !(d < 0.01 && d > -0.01) }' ||
	fail "energy_per_request_uj $per for $j J over $N requests"
grep -q '^energy (RAPL packages, measured requests): ' "$TMP/fake.txt" || fail "text summary energy line"
grep -q '"source": "rapl"' "$TMP/fake/summary.json" || fail "summary.json source"
grep -q '"intel-rapl:0:0": ' "$TMP/fake/summary.json" || fail "summary.json zones"
stop_server
echo ok
