# A trace of some CPUs only (trace record --cpus 0,2 leaves cpu1.raw
# out): trace timeline has no rows for the CPU not recorded (it was
# reported as 100 % unknown, a cstate-cpu1.csv and residency rows of a CPU
# nothing is known of) and says which CPUs were recorded.
. "$(dirname "$0")/lib.sh"
GEN="$WB_TOOLS/wb-tracegen"

"$GEN" "$TMP/tr" 2000 3 5 > /dev/null || fail "wb-tracegen"
rm "$TMP/tr/cpu1.raw"
"$WB" trace timeline "$TMP/tr" > "$TMP/out" 2> "$TMP/err" || fail "timeline: $(cat "$TMP/err")"
[ ! -e "$TMP/tr/cstate-cpu1.csv" ] || fail "a C-state file for cpu1, not recorded"
[ -s "$TMP/tr/cstate-cpu0.csv" ] && [ -s "$TMP/tr/cstate-cpu2.csv" ] || fail "recorded CPUs' C-state files missing"
! awk -F, 'NR > 1 && $1 == 1' "$TMP/tr/residency.csv" | grep -q . ||
	fail "residency rows for cpu1: $(cat "$TMP/tr/residency.csv")"
awk -F, 'NR > 1 && $1 == 0' "$TMP/tr/residency.csv" | grep -q . || fail "no residency rows for cpu0"
! grep -q '^1,' "$TMP/tr/wakeups.csv" || fail "wakeups.csv rows for cpu1"
grep -q '^recorded CPUs: 0,2 of 3' "$TMP/out" || fail "the recorded CPUs not said: $(head -3 "$TMP/out")"
! grep -q '^1 ' "$TMP/out" || fail "cpu1 in the printed table"
! grep -q 'cpu1' "$TMP/err" || fail "a warning about cpu1: $(cat "$TMP/err")"
# --cpus naming a CPU not recorded: left out, with a word
"$WB" trace timeline "$TMP/tr" --cpus 0-1 > /dev/null 2> "$TMP/err" || fail "timeline --cpus 0-1"
grep -q 'cpu1 was not recorded' "$TMP/err" || fail "--cpus 0-1: nothing said of cpu1: $(cat "$TMP/err")"
[ ! -e "$TMP/tr/cstate-cpu1.csv" ] || fail "--cpus 0-1: a C-state file for cpu1"
# every CPU recorded: no such line
"$GEN" "$TMP/all" 500 2 5 > /dev/null || fail "wb-tracegen (2)"
"$WB" trace timeline "$TMP/all" > "$TMP/out" 2>/dev/null || fail "timeline (all)"
! grep -q '^recorded CPUs' "$TMP/out" || fail "a full trace said to be partial"
echo "ok"
exit 0
