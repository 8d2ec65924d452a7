# A client stopped by a signal in a long run writes the results of what
# it did, promptly: gaps.csv holds the requests the schedule was drawn to
# (the summary's "drawn"), not the whole plan (--duration 9000 at 10 us
# is 900 million rows, minutes of writing); and a second signal while the
# results are written stops that within 1 s, with nothing left under a
# temporary or a final name (issue 30, item 2).
. "$(dirname "$0")/lib.sh"

# A background job of a non-interactive shell starts with SIGINT ignored;
# a terminal's Ctrl-C would deliver it (see t-signals.sh).
dfl=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])')

# gone_within PID MS: waits up to MS for PID to end (then reaps it, RC its
# status); a PID still there is killed and the test fails.
gone_within() {
	local t0 now
	t0=$(date +%s%N)
	while kill -0 "$1" 2>/dev/null; do
		now=$(date +%s%N)
		if [ $(((now - t0) / 1000000)) -gt "$2" ]; then
			kill -KILL "$1" 2>/dev/null
			wait "$1" 2>/dev/null
			return 1
		fi
		sleep 0.01
	done
	wait "$1"
	RC=$?
	MS=$((($(date +%s%N) - t0) / 1000000))
}
json() { python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k]
print("null" if v is None else v)' "$@"; }
rows() { echo $(($(wc -l < "$1") - 1)); }

start_server -q

# ---- (a) SIGINT a second into a 9000 s run of two threads: out within
# 3 s, gaps.csv as long as the schedule the run drew.
"${dfl[@]}" "$WB" client --server 127.0.0.1:$PORT --duration 9000 --interval-us 10 --threads 2 \
	--out "$TMP/a" -q 2>"$TMP/a.err" &
pid=$!
sleep 1
kill -INT $pid
gone_within $pid 3000 || fail "SIGINT in a 9000 s run: still running 3 s later ($(ls -a "$TMP/a" | tr '\n' ' '))"
[ "$RC" = 1 ] || fail "SIGINT in a 9000 s run: exit $RC: $(cat "$TMP/a.err")"
grep -q 'interrupted after' "$TMP/a.err" || fail "SIGINT in a 9000 s run: $(cat "$TMP/a.err")"
[ "$(json "$TMP/a/summary.json" status)" = interrupted ] || fail "status not interrupted"
drawn=$(json "$TMP/a/summary.json" drawn)
n=$(csv_col "$TMP/a/summary.csv" count)
u=$(csv_col "$TMP/a/summary.csv" unanswered)
e=$(csv_col "$TMP/a/summary.csv" errors)
sent=$((n + u + e))
[ "$sent" -gt 1000 ] || fail "only $sent requests sent in a second"
[ "$(rows "$TMP/a/gaps.csv")" = "$drawn" ] ||
	fail "gaps.csv has $(rows "$TMP/a/gaps.csv") rows, the summary says the schedule was drawn to $drawn"
[ "$(rows "$TMP/a/requests.csv")" = "$sent" ] || fail "requests.csv rows vs $sent sent"
# every request sent is in gaps.csv, and not many more (what one thread
# drew while the other, behind, had not sent its share yet)
maxseq=$(awk -F, 'NR > 1 && $1 > m { m = $1 } END { print m + 0 }' "$TMP/a/requests.csv")
[ "$maxseq" -lt "$drawn" ] || fail "request $maxseq sent, the schedule drawn to $drawn"
[ "$drawn" -le $((2 * sent + 1000)) ] || fail "drawn $drawn for $sent sent"
# the whole schedule's size is not counted through for a cut duration
[ "$(json "$TMP/a/summary.json" config.requests)" = null ] ||
	fail "config.requests of a cut --duration: $(json "$TMP/a/summary.json" config.requests)"
grep -q "($drawn requests of the schedule drawn)" "$TMP/a/summary.txt" || fail "summary.txt: $(tail -3 "$TMP/a/summary.txt")"
echo "(a) out in $MS ms: $sent sent, $drawn drawn"

# A count cut short: the plan stays in config, the gaps are the drawn ones.
"${dfl[@]}" "$WB" client --server 127.0.0.1:$PORT --requests 10000000 --warmup 5 --interval-us 20 \
	--out "$TMP/c" -q 2>"$TMP/c.err" &
pid=$!
sleep 0.7
kill -TERM $pid
gone_within $pid 3000 || fail "SIGTERM in a count run: still running 3 s later"
[ "$(json "$TMP/c/summary.json" config.requests)" = 10000000 ] || fail "config.requests of a cut count"
drawn=$(json "$TMP/c/summary.json" drawn)
[ "$(rows "$TMP/c/gaps.csv")" = "$drawn" ] && [ "$drawn" -lt 1000000 ] ||
	fail "count run: gaps.csv $(rows "$TMP/c/gaps.csv") rows, drawn $drawn"
[ "$(awk -F, 'NR > 1 && $3 == 1' "$TMP/c/gaps.csv" | wc -l)" = 5 ] || fail "count run: warm-up rows"

# A run that ends by itself still writes its whole schedule.
"$WB" client --server 127.0.0.1:$PORT --duration 0.2 --interval-us 100 --dist exp --threads 2 \
	--out "$TMP/ok" -q || fail "a short run failed"
drawn=$(json "$TMP/ok/summary.json" drawn)
[ "$drawn" = "$(json "$TMP/ok/summary.json" config.requests)" ] &&
	[ "$(rows "$TMP/ok/gaps.csv")" = "$drawn" ] && [ "$(rows "$TMP/ok/requests.csv")" = "$drawn" ] ||
	fail "a whole run: drawn $drawn, $(rows "$TMP/ok/gaps.csv") gaps, $(rows "$TMP/ok/requests.csv") rows"

# ---- (b) a second signal while the results are written: out within 1 s,
# no temporary file left, no result under a final name, and it says so.
# The client is stopped (SIGSTOP) as soon as it writes, so the second
# signal comes while it writes, however fast this machine writes.
for sig in TERM INT HUP; do
	d="$TMP/b-$sig"
	"${dfl[@]}" "$WB" client --server 127.0.0.1:$PORT --duration 9000 --interval-us 10 \
		--out "$d" -q 2>"$d.err" &
	pid=$!
	sleep 2.5
	kill -INT $pid
	# (the old client counted the whole schedule through first)
	wait_for "ls -A '$d' | grep -q partial" || echo "SIG$sig: no temporary file 5 s after SIGINT"
	kill -STOP $pid
	if [ -e "$d/summary.json" ]; then
		kill -CONT $pid
		wait $pid
		fail "SIG$sig: the results were written before the second signal could come"
	fi
	kill -$sig $pid
	kill -CONT $pid
	gone_within $pid 1000 ||
		fail "SIG$sig while writing: still running 1 s later ($(ls -A "$d" | tr '\n' ' '))"
	[ "$RC" = 1 ] || fail "SIG$sig while writing: exit $RC: $(cat "$d.err")"
	grep -q "interrupted while writing the results to $d: no file written" "$d.err" ||
		fail "SIG$sig while writing: $(cat "$d.err")"
	[ -z "$(ls -A "$d")" ] || fail "SIG$sig while writing: left $(ls -A "$d" | tr '\n' ' ')"
	echo "(b) SIG$sig while writing: out in $MS ms"
done
stop_server || fail "server"
