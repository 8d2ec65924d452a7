# The demo's report is computed in C (issue 32: shell scripts sequence
# programs, numbers are computed in C): 'wakebench internal demo-report'
# on two recorded demos prints exactly what scripts/demo.sh's awk
# printed on them (tests/fixtures/demo/*/report.expected, made by the
# former script): the Bonferroni level, the WARNINGs and notes with their
# p-values, the drift notes wrapped at 96, each side's medians, the
# within-run notes, the paired effect with the pairs behind counted, the
# states the traced pair found; and the pairs behind and the point of a
# side, the two answers the script asks. demo.sh itself computes nothing.
. "$(dirname "$0")/lib.sh"
FX="$WB_TOP/tests/fixtures/demo"

# report NAME PAIRS REQUESTS ARGS...: the fixture's report, the date line
# dropped, its directory written DIR
report() {
	local name=$1 pairs=$2 req=$3 out
	shift 3
	cp -r "$FX/$name" "$TMP/$name"
	out=$("$WB" internal demo-report --pairs "$pairs" --requests "$req" --lead 100 --seed 1 \
		--server-cpu 0 --client-cpu 1 "$@" "$TMP/$name") || fail "$name: exit $?: $out"
	[[ $out == "wakebench demo report: "20[0-9][0-9]-*Z$'\n'* ]] || fail "$name: no dated first line: ${out%%$'\n'*}"
	printf '%s\n' "$out" | sed 1d | sed "s|$TMP/$name|DIR|g" > "$TMP/$name.out"
	diff "$FX/$name/report.expected" "$TMP/$name.out" > "$TMP/$name.diff" ||
		fail "$name: differs from the former script's report: $(head -20 "$TMP/$name.diff")"
}
report behind 10 180 --included "$TMP/behind/summary-include-behind.csv"
report failed 4 100

# what the script asks before the report
[ "$("$WB" internal demo-behind --lead 100 "$TMP/behind")" = 2 ] || fail "demo-behind: not 2"
[ "$("$WB" internal demo-behind --lead 100 "$TMP/failed")" = 0 ] || fail "demo-behind: not 0"
[ "$("$WB" internal demo-point "$TMP/behind" off)" = dist-exp_int-5000_pq-off_wu-20_cs-on_svc-20 ] ||
	fail "demo-point off: $("$WB" internal demo-point "$TMP/behind" off)"
[ -z "$("$WB" internal demo-point "$TMP/behind" 7)" ] || fail "demo-point of no side"
# a directory without a sweep: one line naming the file, exit 1
out=$("$WB" internal demo-report "$TMP/none" 2>&1); rc=$?
[ $rc = 1 ] && [[ $out == *"$TMP/none/sweep.csv"* ]] || fail "no sweep: exit $rc: $out"
"$WB" internal demo-report --pairs 0 "$TMP/behind" 2>/dev/null; [ $? = 2 ] || fail "--pairs 0"

# the script only sequences programs: no statistics or lookups in awk
grep -nE '\bawk\b|csv_col' "$WB_TOP/scripts/demo.sh" > "$TMP/calc" &&
	fail "scripts/demo.sh computes: $(head -3 "$TMP/calc")"
exit 0
