# A new trace in a directory takes the old trace's analysis with it
# (issue 30 §8): trace import --force and trace record remove every file
# trace timeline and trace attribute write (lib/traceout's table), and
# record's own files an import has none of; report refuses a timeline
# older than the trace it describes, naming the file and what to run.
# Before, a 2-CPU trace imported over an older one kept its residency.csv
# and the report drew "cpu4095". Import and report need no root; the
# record part skips without root and tracefs.
. "$(dirname "$0")/lib.sh"
FX="$WB_TOP/tests/fixtures"

# plant DIR: an earlier trace's analysis, and files of trace record
plant() {
	printf 'cpu,state,percent,entries,avg_stay_us,time_ms,note\n4095,C6,100,1,1,1,\n' > "$1/residency.csv"
	for f in wakeups.csv irq.csv markers.csv attribution.csv attribution-summary.csv \
		breakdown.csv cstate-cpu0.csv cstate-cpu4095.csv; do
		echo old > "$1/$f"
	done
	echo keep > "$1/notes-of-mine.txt"
	echo keep > "$1/cstate-cpux.csv"	# not a name timeline writes
}
# gone DIR: none of the planted analysis files is left; the rest stay
gone() {
	local f
	for f in residency.csv wakeups.csv irq.csv markers.csv attribution.csv \
		attribution-summary.csv breakdown.csv cstate-cpu0.csv cstate-cpu4095.csv; do
		[ ! -e "$1/$f" ] || fail "$2: the earlier $f is still in $1"
	done
	[ -s "$1/notes-of-mine.txt" ] && [ -s "$1/cstate-cpux.csv" ] ||
		fail "$2: removed a file that is not the analysis'"
}

# ---- import --force over an older trace and its analysis ------------------
D="$TMP/imp"
"$WB" trace import "$FX/socwatch/hdsearch.csv" --format socwatch --out "$D" > /dev/null ||
	fail "first import"
echo old > "$D/saved_cmdlines"
printf 'cpu,state,residency_pct\n' > "$D/hw-residency.csv"
# a recording's trace.dat is read before cpuN.raw: it must not outlive it
echo old > "$D/trace.dat"
plant "$D"
"$WB" trace import "$FX/socwatch/hdsearch.csv" --format socwatch --out "$D" --force > "$TMP/imp.out" 2>&1 ||
	fail "import --force: $(cat "$TMP/imp.out")"
gone "$D" "import --force"
[ ! -e "$D/saved_cmdlines" ] && [ ! -e "$D/hw-residency.csv" ] && [ ! -e "$D/trace.dat" ] ||
	fail "import --force kept the earlier recording's saved_cmdlines, hw-residency.csv or trace.dat"
"$WB" trace timeline "$D" > /dev/null 2>&1 || fail "timeline of the import"
grep -q '^4095,' "$D/residency.csv" && fail "a cpu4095 row after a new timeline"
# a directory that never held a trace keeps its user's files of those names
mkdir "$TMP/mine"
echo mine > "$TMP/mine/irq.csv"
"$WB" trace import "$FX/socwatch/hdsearch.csv" --format socwatch --out "$TMP/mine" --force > /dev/null 2>&1 ||
	fail "import --force into a directory without a trace"
[ "$(cat "$TMP/mine/irq.csv")" = mine ] || fail "import removed irq.csv from a directory that held no trace"

# ---- report: an older timeline is refused, a fresh one drawn --------------
if command -v gnuplot > /dev/null; then
	R="$TMP/rep"
	mkdir -p "$R"
	cp -r "$FX/report/trace" "$R/"
	touch -d '-1 hour' "$R/trace/residency.csv"
	out=$("$WB" report "$R" 2>&1); rc=$?
	[ $rc = 1 ] || fail "report drew an older residency.csv (exit $rc): $out"
	echo "$out" | grep -q "$R/trace/residency.csv is older than $R/trace/meta.txt" &&
		echo "$out" | grep -q "run 'wakebench trace timeline $R/trace' again" ||
		fail "the older file or the command not named: $out"
	touch -d '-1 hour' "$R/trace/meta.txt"
	"$WB" report "$R" > /dev/null 2> "$TMP/rep.err" || fail "report, the timeline newer: $(cat "$TMP/rep.err")"
	# an attribution left from an earlier trace: attribute named
	touch -d '-2 hour' "$R/trace/breakdown.csv"
	out=$("$WB" report "$R" 2>&1); rc=$?
	[ $rc = 1 ] && echo "$out" | grep -q "breakdown.csv is older.*wakebench trace attribute $R/trace" ||
		fail "older breakdown.csv not refused (exit $rc): $out"
else
	echo "report part skipped: gnuplot not installed"
fi

# ---- record over an older trace (root, tracefs) ---------------------------
[ "$(id -u)" = 0 ] || skip "record part needs root (import and report passed)"
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/events/power/cpu_idle ] || skip "record part: no tracefs with power:cpu_idle (import and report passed)"
plant "$D"
"$WB" trace record --out "$D" --duration 0.2 > "$TMP/rec.out" 2>&1 || fail "record: $(cat "$TMP/rec.out")"
gone "$D" "record"
[ -s "$D/meta.txt" ] || fail "record wrote no meta.txt"
mkdir "$TMP/mine2"
echo mine > "$TMP/mine2/irq.csv"
"$WB" trace record --out "$TMP/mine2" --duration 0.1 > "$TMP/rec.out" 2>&1 || fail "record: $(cat "$TMP/rec.out")"
[ "$(cat "$TMP/mine2/irq.csv")" = mine ] || fail "record removed irq.csv from a directory that held no trace"
exit 0
