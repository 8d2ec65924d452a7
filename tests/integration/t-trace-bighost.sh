# Traces of many CPUs (issue 30 §13): a stream holds every CPU's cpuN.raw
# open and timeline a CSV per CPU beside it, so a trace of 1100 CPUs
# failed under the usual soft limit of 1024 open files ("cpu1019.raw: Too
# many open files") in timeline, attribute and the exports. The readers
# raise the soft limit as far as the trace needs (up to the hard one).
# No root: a synthetic trace (wb-tracegen).
. "$(dirname "$0")/lib.sh"
GEN="$WB_TOOLS/wb-tracegen"
[ -x "$GEN" ] || fail "no $GEN (make tests)"
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 2400 ] ||
	skip "the hard open file limit is $(ulimit -Hn): too low for this test"
"$GEN" "$TMP/t" 4400 1100 > /dev/null || fail "wb-tracegen"
ulimit -Sn 1024
out=$("$WB" trace timeline "$TMP/t" 2>&1) || fail "timeline of 1100 CPUs: $(echo "$out" | tail -2)"
[ -s "$TMP/t/cstate-cpu1098.csv" ] || fail "no cstate-cpu1098.csv"
out=$("$WB" trace attribute "$TMP/t" --requests markers 2>&1) || fail "attribute of 1100 CPUs: $(echo "$out" | tail -2)"
out=$("$WB" trace export "$TMP/t" --format socwatch --out "$TMP/t.csv" 2>&1) ||
	fail "socwatch export of 1100 CPUs: $(echo "$out" | tail -2)"
# a hard limit the trace does not fit: named, not EMFILE half way
ulimit -n 600
out=$("$WB" trace timeline "$TMP/t" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'needs 1164 open files; the limit is 600 (ulimit -n)' ||
	fail "a limit too low not said (exit $rc): $out"
exit 0
