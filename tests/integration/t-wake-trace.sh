# wakebench wake --trace (issue 34): the run recorded by 'wakebench trace
# record' and each wake split from the trace: the split's columns in
# wake.csv add up to the latency (they partition launch .. wake), the
# summary has their means per source, the trace is kept in --out/trace
# and no tracefs instance or recorder is left; --trace without --out is
# a usage error, and so is --trace for an unprivileged user.
. "$(dirname "$0")/lib.sh"

[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (a sender beside the measured CPU)"
"$WB" wake --trace --count 1 2>/dev/null; [ $? = 2 ] || fail "--trace without --out: not a usage error"
# an unprivileged user is refused before anything is written
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$WB" wake --trace --count 1 \
		--out "$TMP/np" 2>&1); rc=$?
	[ $rc = 2 ] && echo "$out" | grep -q 'it needs root' || fail "--trace unprivileged: exit $rc: $out"
	[ ! -e "$TMP/np" ] || fail "--trace unprivileged: --out made"
fi
need_tracefs
N=40
# the default CPUs (the sweep's server and client: CPU 0 and 1 here): on
# this VM the last CPU's idle loop records no switch from idle, which the
# split's return-to-user segment needs
"$WB" wake --source timer,ipi,packet --count $N \
	--ldist 100,1000 --trace --out "$TMP/w" -q 2> "$TMP/w.err" ||
	fail "wake --trace: exit $?: $(cat "$TMP/w.err")"
[ -s "$TMP/w/trace/meta.txt" ] || fail "no trace in --out/trace: $(ls "$TMP/w")"
pgrep -f "wakebench-trace record --out $TMP/w/trace" > /dev/null && fail "the recorder is left running"
[ "$(instances)" = 0 ] || fail "a tracefs instance left: $(ls /sys/kernel/tracing/instances)"
# every datapoint split; where the switch was recorded the segments sum
# to the latency exactly
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ rows++ }
	$(c["split_known"]) == 1 { known++ }
	$(c["split_known"]) == 1 && $(c["to_user_ns"]) != "" {
		s = $(c["launch_exit_ns"]) + $(c["hw_exit_ns"]) + $(c["kernel_ns"]) + $(c["sched_ns"]) + $(c["to_user_ns"])
		if (s != $(c["latency_ns"])) { bad++; print "seq " $1 ": " s " != " $(c["latency_ns"]) > "/dev/stderr" }
		if ($(c["softirq_ns"]) > $(c["kernel_ns"])) bad++
		full++ }
	END { if (rows != 3 * n || known < rows * 0.9 || full < 1 || bad) {
		print rows, known, full, bad > "/dev/stderr"; exit 1 } }' n=$N "$TMP/w/wake.csv" ||
	fail "wake.csv's split: $(head -3 "$TMP/w/wake.csv")"
for s in timer ipi packet; do
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == s && $(c["split_n"]) > 0 && $(c["sched_us"]) != "" { ok = 1 }
		END { exit !ok }' s=$s "$TMP/w/summary.csv" || fail "summary.csv: no split means for $s"
done
grep -q '^wake split (means, us' "$TMP/w/summary.txt" || fail "summary.txt: no split table"
python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert all("kernel_us" in r and r["split_n"] > 0 for r in rows), rows' "$TMP/w/summary.json" ||
	fail "summary.json: no split"
# the same run without --trace: the columns are there, empty
"$WB" wake --cpu 1 --count 5 --ldist 0,100 --out "$TMP/nt" -q 2>/dev/null || fail "wake without --trace"
awk -F, 'NR > 1 && $10 != "" { bad = 1 } END { exit bad }' "$TMP/nt/wake.csv" || fail "split columns filled without --trace"
[ ! -e "$TMP/nt/trace" ] || fail "a trace without --trace"
exit 0
