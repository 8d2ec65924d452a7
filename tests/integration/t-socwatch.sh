# wakebench trace export/import --format socwatch (no kernel needed):
# a recorded trace (tests/fixtures/trace/real) and a synthetic one
# (wb-tracegen: POLL, C1, C1E, C6 on every CPU, a CPU without events)
# exported, imported and read by trace timeline: per CPU and state the
# residency is the same within the rounding (each row's two ends to
# 0.005 ms: |diff| <= 0.01 ms x entries + 0.001 ms) with the same number
# of intervals, and a second export gives the same C-state rows; a
# SocWatch file written by hand in the thesis' style (figures 5.7/5.8)
# gives the residency computed by hand, trace attribute a server log,
# the report its figures; bad files fail with FILE:LINE and leave no
# DIR; FILE and DIR are not replaced without --force.
. "$(dirname "$0")/lib.sh"
FX="$WB_TOP/tests/fixtures/trace/real"
SW="$WB_TOP/tests/fixtures/socwatch"
GEN="$WB_TOOLS/wb-tracegen"
[ -x "$GEN" ] || fail "no $GEN (make tests)"
t() { local s=$1; shift; timeout "$s" "$@"; }

# residency.csv of two traces: same CPU/state rows, time within the bound
same_residency() {
	awk -F, 'NR == FNR { if (FNR > 1) { t[$1 "," $2] = $6; e[$1 "," $2] = $4 }; next }
		FNR == 1 { next }
		{ k = $1 "," $2; n++
		  if (!(k in t)) { print "extra " k; bad = 1; next }
		  d = t[k] - $6; if (d < 0) d = -d
		  if (d > 0.01 * e[k] + 0.001) { print k ": " t[k] " vs " $6; bad = 1 }
		  if (e[k] != $4) { print k ": entries " e[k] " vs " $4; bad = 1 }
		  delete t[k] }
		END { for (k in t) { print "missing " k; bad = 1 }; exit bad }' "$1/residency.csv" "$2/residency.csv"
}

# the C-state rows of an export: every core section, preamble left out
rows() { awk '/^Core C-State - /, /^$/' "$1"; }

round_trip() {	# NAME TRACEDIR
	local n=$1 a=$2 cpus
	t 60 "$WB" trace export "$a" --format socwatch --out "$TMP/$n.csv" > "$TMP/$n.exp" ||
		fail "$n: export"
	t 60 "$WB" trace import "$TMP/$n.csv" --format socwatch --out "$TMP/$n.imp" > "$TMP/$n.out" ||
		fail "$n: import: $(cat "$TMP/$n.out")"
	t 60 "$WB" trace timeline "$a" > /dev/null 2>&1 || fail "$n: timeline of the original"
	t 60 "$WB" trace timeline "$TMP/$n.imp" > /dev/null 2>&1 || fail "$n: timeline of the import"
	same_residency "$a" "$TMP/$n.imp" > "$TMP/$n.diff" ||
		fail "$n: residency differs beyond the rounding: $(head -5 "$TMP/$n.diff")"
	cpus=$(awk '$1 == "ncpus" { print $2 }' "$a/meta.txt")
	[ "$(awk '$1 == "ncpus" { print $2 }' "$TMP/$n.imp/meta.txt")" = "$cpus" ] || fail "$n: ncpus"
	for ((c = 0; c < cpus; c++)); do
		[ "$(wc -l < "$a/cstate-cpu$c.csv")" = "$(wc -l < "$TMP/$n.imp/cstate-cpu$c.csv")" ] ||
			fail "$n: cpu$c: interval counts differ"
		# the same state names in the same order
		cut -d, -f3 "$a/cstate-cpu$c.csv" > "$TMP/$n.s1"
		cut -d, -f3 "$TMP/$n.imp/cstate-cpu$c.csv" > "$TMP/$n.s2"
		cmp -s "$TMP/$n.s1" "$TMP/$n.s2" || fail "$n: cpu$c: states differ"
	done
	[ "$(($(wc -l < "$a/irq.csv")))" = "$(($(wc -l < "$TMP/$n.imp/irq.csv")))" ] || fail "$n: IRQ counts"
	cut -d, -f3,4,6 "$a/irq.csv" | sort > "$TMP/$n.q1"
	cut -d, -f3,4,6 "$TMP/$n.imp/irq.csv" | sort > "$TMP/$n.q2"
	cmp -s "$TMP/$n.q1" "$TMP/$n.q2" || fail "$n: IRQ numbers, names or CPUs differ"
	# export(import(export)) == export: the rows are a fixed point
	t 60 "$WB" trace export "$TMP/$n.imp" --format socwatch --out "$TMP/$n.2.csv" > /dev/null ||
		fail "$n: second export"
	rows "$TMP/$n.csv" > "$TMP/$n.r1"
	rows "$TMP/$n.2.csv" > "$TMP/$n.r2"
	[ -s "$TMP/$n.r1" ] && cmp -s "$TMP/$n.r1" "$TMP/$n.r2" ||
		fail "$n: a second export differs: $(diff "$TMP/$n.r1" "$TMP/$n.r2" | head -5)"
}

# ---- the recorded fixture ---------------------------------------------------
cp -r "$FX" "$TMP/real"
round_trip real "$TMP/real"
f="$TMP/real.csv"
grep -q '^Collection begin timestamp: 3499835238430$' "$f" || fail "begin timestamp"
grep -q '^Collection duration (sec): 0.255930179$' "$f" || fail "duration"
grep -q '^Tool version: wakebench ' "$f" || fail "tool version"
grep -q '^Number of logical processors: 1 (the trace)$' "$f" || fail "logical processors"
grep -q '^wakebench state: 0 1 CC1 default-idle$' "$f" || fail "state line"
grep -qx 'Core C-State - CPU/Package_0/Die_0/Core_0' "$f" || fail "core title"
grep -qx 'Sample #, Continuous Time (ms), C-State, Duration (ms)' "$f" || fail "C-state columns"
grep -qx 'Sample #, Continuous Time (ms), IRQ No, Interface, Duration (ms)' "$f" || fail "IRQ columns"
# right-aligned, two decimals: 12 rows (the unknown start has none)
[ "$(grep -cE '^ +[0-9]+, +[0-9]+\.[0-9]{2}, +CC[01], +[0-9]+\.[0-9]{2}$' "$f")" = 12 ] ||
	fail "C-state rows: $(rows "$f" | head -4)"
grep -qE '^ +2, +221\.03, +41, virtio3-rx, +211\.36$' "$f" || fail "IRQ row: $(tail -2 "$f")"
grep -q '^ *6, *226\.38, *CC0, *209\.46$' "$f" || fail "a C0 row"
grep -q 'the time before each CPU.s first cpu_idle event (15.767 ms' "$TMP/real.exp" || fail "unknown time not said"
grep -q '^Package C-State' "$f" && fail "a package section"

# ---- a synthetic trace: CCn collisions, long gaps, a CPU without events -----
t 60 "$GEN" "$TMP/syn" 3000 3 7 > /dev/null || fail "wb-tracegen"
round_trip syn "$TMP/syn"
for l in '0 0 CC0-POLL POLL' '1 2 CC1-C1E C1E' '2 3 CC6 C6'; do
	grep -qx "wakebench state: $l" "$TMP/syn.csv" || fail "syn: no state line '$l'"
done
grep -qE ', +CC0-POLL, ' "$TMP/syn.csv" && grep -qE ', +CC1-C1E, ' "$TMP/syn.csv" ||
	fail "syn: POLL and C1E rows"
grep -qx 'Core C-State - CPU/Package_0/Die_0/Core_2' "$TMP/syn.csv" || fail "syn: the CPU without events"
grep -q 'state 1 2 C1E' "$TMP/syn.imp/meta.txt" || fail "syn: Linux names not back in meta.txt"

# ---- the thesis' layout, by hand ----------------------------------------------
# Rows are intervals between consecutive ends (7 rows start 0.01 ms off
# the previous end: SoC Watch rounds both); 419 and 427 (CC1, 0.00 ms)
# last 1 ns; 433 (CC1) ends at 1221.01, before the collection (1.230 s):
# no row covers the 8.99 ms after it, unknown (it was C0). By hand:
# unknown 1168.70 + 8.99 (2); CC6 9.54+9.80+9.79+9.55+9.79 = 48.47 (5);
# CC1 0.01+0.01 + 2 ns (4); C0 the rest, 3.819998 (9).
t 20 "$WB" trace import "$SW/hdsearch.csv" --format socwatch --out "$TMP/hd" > "$TMP/hd.out" ||
	fail "import the hand-written file: $(cat "$TMP/hd.out")"
grep -q '1 core section (Core_N as cpuN; 2 CPUs), 18 C-state rows, 10 IRQs' "$TMP/hd.out" ||
	fail "import summary: $(cat "$TMP/hd.out")"
t 20 "$WB" trace timeline "$TMP/hd" > /dev/null 2>&1 || fail "timeline of the hand-written file"
cat > "$TMP/hd.want" <<'EOF'
0,unknown,1,1230.000000
1,unknown,2,1177.690000
1,C0,9,3.819998
1,CC1,4,0.020002
1,CC6,5,48.470000
EOF
cut -d, -f1,2,4,6 "$TMP/hd/residency.csv" | tail -n +2 > "$TMP/hd.got"
cmp -s "$TMP/hd.want" "$TMP/hd.got" || fail "hand-computed residency: $(cat "$TMP/hd.got")"
[ "$(csv_col "$TMP/hd/irq.csv" 'IRQ No' | sort -u)" = 39 ] || fail "IRQ numbers"
[ "$(csv_col "$TMP/hd/irq.csv" Interface | sort -u)" = i40e-enp94s0f0-TxRx-1 ] || fail "IRQ names"
[ "$(csv_col "$TMP/hd/wakeups.csv" detail | head -1)" = i40e-enp94s0f0-TxRx-1 ] ||
	fail "wake causes: $(cat "$TMP/hd/wakeups.csv")"

grep -q 'the core C-state rows cover 52.31 ms of the 1230.00 ms collection (4.3 %)' "$TMP/hd.out" ||
	fail "coverage not said: $(cat "$TMP/hd.out")"

# ---- rows that cover a fifth of the collection, no IRQ section ---------------
# (a real file's rows covered 1118 of 11363 ms and came out 91 % C0: the
# last C0 row stretched to the end). The time no row covers is unknown;
# the import says how much the rows cover (stderr, meta.txt); the first
# row, from the collection's begin, is an entry; no IRQ section: the
# wake causes are unknown, not none.
t 20 "$WB" trace import "$SW/partial.csv" --format socwatch --out "$TMP/part" > "$TMP/part.out" 2> "$TMP/part.err" ||
	fail "import partial.csv: $(cat "$TMP/part.err")"
grep -q 'warning: the core C-state rows cover 2.00 ms of the 10.00 ms collection (20.0 %); the rest is unknown' "$TMP/part.err" ||
	fail "partial: coverage warning: $(cat "$TMP/part.err")"
grep -q 'no IRQ sections: the wake causes are unknown' "$TMP/part.err" || fail "partial: no word of the causes"
grep -q '^note the core C-state rows cover 2.00 ms of the 10.00 ms collection' "$TMP/part/meta.txt" ||
	fail "partial: no note in meta.txt"
grep -qx 'wake_causes unknown' "$TMP/part/meta.txt" || fail "partial: meta.txt wake_causes"
t 20 "$WB" trace timeline "$TMP/part" > /dev/null 2>&1 || fail "timeline of partial.csv"
cat > "$TMP/part.want" <<'EOF2'
0,unknown,1,8.000000
0,C0,2,1.000000
0,CC1,2,0.700000
0,CC6,1,0.300000
EOF2
cut -d, -f1,2,4,6 "$TMP/part/residency.csv" | tail -n +2 > "$TMP/part.got"
cmp -s "$TMP/part.want" "$TMP/part.got" || fail "partial: residency: $(cat "$TMP/part.got")"
[ "$(csv_col "$TMP/part/wakeups.csv" cause | sort -u)" = unknown ] ||
	fail "partial: wake causes: $(cat "$TMP/part/wakeups.csv")"

# trace attribute with a server log on the imported trace
B=2000000000000
{
	echo "seq,type,recv_ns,send_ns,service_ns,conn"
	echo "1,request,$((B + 1178850000)),$((B + 1179300000)),400000,1"
	echo "2,request,$((B + 1189500000)),$((B + 1189900000)),400000,1"
	echo "3,prequery,$((B + 1210000000)),,0,1"
	echo "3,request,$((B + 1210100000)),$((B + 1210600000)),400000,1"
} > "$TMP/srv.csv"
t 20 "$WB" trace attribute "$TMP/hd" --requests "$TMP/srv.csv" --cpu 1 > "$TMP/attr.out" 2>&1 ||
	fail "attribute: $(cat "$TMP/attr.out")"
[ "$(csv_col "$TMP/hd/attribution.csv" state | tr '\n' ' ')" = "CC6 CC6 C0 " ] ||
	fail "states at arrival: $(cat "$TMP/hd/attribution.csv")"
[ "$(csv_col "$TMP/hd/attribution.csv" idle_end_ns | head -1)" = $((B + 1178800000)) ] ||
	fail "idle end: $(cat "$TMP/hd/attribution.csv")"
[ "$(csv_col "$TMP/hd/attribution.csv" prequery | tail -1)" = woke ] || fail "pre-query woke"

# the report draws the imported trace's timeline and residency
if command -v gnuplot > /dev/null; then
	mkdir "$TMP/rep" && cp -r "$TMP/hd" "$TMP/rep/"
	t 120 "$WB" report "$TMP/rep" --window-ms 1165:1225 > "$TMP/rep.out" 2>&1 ||
		fail "report: $(tail -3 "$TMP/rep.out")"
	for fig in fig5-cstate-timeline fig6-residency fig9-latency-by-cstate; do
		[ -s "$TMP/rep/report/$fig.png" ] || fail "report: no $fig"
	done
else
	echo "no gnuplot: the report part left out"
fi

# ---- bad files: FILE:LINE, exit 1, no DIR -------------------------------------
bad() {	# NAME EXPECTED (the file is $TMP/NAME.csv)
	local out rc
	out=$(t 20 "$WB" trace import "$TMP/$1.csv" --format socwatch --out "$TMP/$1.dir" 2>&1); rc=$?
	[ $rc = 1 ] || fail "$1: exit $rc: $out"
	[ "$out" = "wakebench-trace: import: $TMP/$1.csv$2" ] || fail "$1: message: $out"
	[ -e "$TMP/$1.dir" ] && fail "$1: left $TMP/$1.dir"
	return 0
}
head -14 "$SW/hdsearch.csv" > "$TMP/overlap.csv"
echo "     417,        1178.80,      CC6,     9.60" >> "$TMP/overlap.csv"
bad overlap ":15: overlaps the previous row by 0.06 ms (it starts at 1169.20 ms, the previous one ends at 1169.26 ms)"
sed '16s/1179.59/1179.5x/' "$SW/hdsearch.csv" > "$TMP/number.csv"
bad number ":16: Continuous Time: '1179.5x' is not a number (digits and a point)"
sed '17s/1179.59/1170.00/' "$SW/hdsearch.csv" > "$TMP/order.csv"
bad order ":17: Continuous Time 1170.00 ms is before the previous row's 1179.59 ms (rows must be in time order)"
grep -v '^Collection begin' "$SW/hdsearch.csv" > "$TMP/nobegin.csv"
bad nobegin ": no 'Collection begin timestamp' line in the preamble (the rows' times count from it, in ns)"
sed '16s/0.78/-0.78/' "$SW/hdsearch.csv" > "$TMP/negative.csv"
bad negative ":16: Duration: '-0.78' is negative"
printf 'Collection begin timestamp: 1\n\nCore C-State - CPU/Package_0/Die_0/Core_0\nSample #, Continuous Time (ms), C-State\n' > "$TMP/cols.csv"
bad cols ":4: section 'Core C-State - CPU/Package_0/Die_0/Core_0' has a C-State column but no Duration (ms) (Sample #, Continuous Time (ms), C-State, Duration (ms))"
out=$(t 20 "$WB" trace import "$TMP/missing.csv" --format socwatch --out "$TMP/m.dir" 2>&1); rc=$?
[ $rc = 1 ] && [ ! -e "$TMP/m.dir" ] && echo "$out" | grep -q 'missing.csv: No such file' ||
	fail "a missing file: exit $rc: $out"
# CRLF, a BOM and spaces: the same trace
{ printf '\xef\xbb\xbf'; sed 's/$/\r/; s/, */ ,\t/g' "$SW/hdsearch.csv"; } > "$TMP/crlf.csv"
t 20 "$WB" trace import "$TMP/crlf.csv" --format socwatch --out "$TMP/crlf" > /dev/null ||
	fail "CRLF, BOM, tabs"
cmp -s "$TMP/hd/cpu1.raw" "$TMP/crlf/cpu1.raw" || fail "CRLF, BOM, tabs: another trace"

# ---- a corrupt page: an error, or with --skip-corrupt left out ------------------
cp -r "$FX" "$TMP/bad"
printf '\xff\xff\xff\x7f' | dd of="$TMP/bad/cpu0.raw" bs=1 seek=4104 conv=notrunc status=none
out=$(t 20 "$WB" trace export "$TMP/bad" --format socwatch --out "$TMP/bad.csv" 2>&1); rc=$?
[ $rc = 1 ] && [ ! -e "$TMP/bad.csv" ] &&
	echo "$out" | grep -q 'page 1, offset 4104 .*(--skip-corrupt leaves such pages out)' ||
	fail "corrupt page: exit $rc: $out"
out=$(t 20 "$WB" trace export "$TMP/bad" --format socwatch --out "$TMP/bad.csv" --skip-corrupt 2>&1) ||
	fail "--skip-corrupt: $out"
echo "$out" | grep -q 'warning: left out 1 corrupt page' || fail "--skip-corrupt warning: $out"
grep -qx 'Core C-State - CPU/Package_0/Die_0/Core_0' "$TMP/bad.csv" || fail "--skip-corrupt: no file"

# ---- FILE and DIR are kept without --force ----------------------------------------
echo keep > "$TMP/exists.csv"
out=$(t 20 "$WB" trace export "$TMP/real" --format socwatch --out "$TMP/exists.csv" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'exists (--force replaces it)' || fail "existing FILE: exit $rc: $out"
[ "$(cat "$TMP/exists.csv")" = keep ] || fail "existing FILE changed"
t 20 "$WB" trace export "$TMP/real" --format socwatch --out "$TMP/exists.csv" --force > /dev/null ||
	fail "--force export"
rows "$TMP/exists.csv" | cmp -s - "$TMP/real.r1" || fail "--force export: other rows"
ls -a "$TMP" | grep -q 'partial' && fail "a .partial file left: $(ls -a "$TMP")"
out=$(t 20 "$WB" trace export "$TMP/nowhere" --format socwatch --out "$TMP/n.csv" 2>&1); rc=$?
[ $rc = 1 ] && [ ! -e "$TMP/n.csv" ] && echo "$out" | grep -q 'nowhere/meta.txt' ||
	fail "export of no trace: exit $rc: $out"
out=$(t 20 "$WB" trace export "$TMP/real" --out "$TMP/n.csv" 2>&1); rc=$?
[ $rc = 2 ] || fail "export without --format: exit $rc: $out"

# DIR: an imported 3-CPU trace, then a 2-CPU one over it with --force
cp -r "$TMP/syn.imp" "$TMP/dir"
echo mine > "$TMP/dir/notes.txt"
md5=$(cat "$TMP/dir/cpu0.raw" "$TMP/dir/meta.txt" | md5sum)
out=$(t 20 "$WB" trace import "$SW/hdsearch.csv" --format socwatch --out "$TMP/dir" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'is not empty (--force replaces the trace files in it)' ||
	fail "non-empty DIR: exit $rc: $out"
[ "$(cat "$TMP/dir/cpu0.raw" "$TMP/dir/meta.txt" | md5sum)" = "$md5" ] || fail "non-empty DIR changed"
t 20 "$WB" trace import "$SW/hdsearch.csv" --format socwatch --out "$TMP/dir" --force > /dev/null ||
	fail "--force import"
[ -e "$TMP/dir/cpu2.raw" ] && fail "--force: the old cpu2.raw is left"
[ "$(cat "$TMP/dir/notes.txt")" = mine ] || fail "--force: another file touched"
cmp -s "$TMP/dir/cpu1.raw" "$TMP/hd/cpu1.raw" || fail "--force: not the new trace"
t 20 "$WB" trace timeline "$TMP/dir" > /dev/null 2>&1 || fail "timeline after --force"
cmp -s "$TMP/dir/residency.csv" "$TMP/hd/residency.csv" || fail "--force: residency"
exit 0
