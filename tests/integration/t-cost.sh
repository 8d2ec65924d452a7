# The cost of a run (issue 35): a server that spins a known CPU time per
# request (--service-us 200 busy-waits) costs 200 us of CPU a request.
# trace capture --pid gives it as cpu_us_server, checked against the
# test's own reading of /proc/PID/stat and against 200 us x requests
# (within 10 %); a process that is gone is an empty column and a note.
. "$(dirname "$0")/lib.sh"

N=1500
# utime + stime of PID in microseconds, read here with awk: the command
# name (field 2) may hold spaces, so fields count from the last ')'
cpu_us() {
	local hz
	hz=$(getconf CLK_TCK)
	awk -v hz="$hz" '{ s = $0; sub(/.*\) /, "", s); split(s, f, " ");
		printf "%d\n", (f[12] + f[13]) * 1000000 / hz }' "/proc/$1/stat"
}

start_server
a=$(cpu_us "$SERVER_PID")
"$WB" trace capture --out "$TMP/cap" --cpu server=none --pid server="$SERVER_PID" -- \
	"$WB" client --server 127.0.0.1:"$PORT" --requests $N --interval-us 1000 \
	--service-us 200 -q --out "$TMP/client" 2>"$TMP/cap.err" || fail "capture: $(cat "$TMP/cap.err")"
b=$(cpu_us "$SERVER_PID")
got=$(csv_col "$TMP/cap/capture.csv" cpu_us_server) || fail "no cpu_us_server column"
count=$(csv_col "$TMP/client/summary.csv" count)
[ "$count" = $N ] || fail "client answered $count of $N"
echo "server CPU over the run: capture $got us, this test's /proc/$SERVER_PID/stat $((b - a)) us, expected $((200 * N)) us"
# the test's window is the capture's and a little more (an idle server)
approx "$got" $((b - a)) 30000 || fail "capture's $got us is not the test's $((b - a)) us"
approx "$got" $((200 * N)) $((20 * N)) || fail "$got us is not 200 us x $N requests within 10 %"
grep -q "^cpu time (server): PID $SERVER_PID and its children" "$TMP/cap/notes.txt" ||
	fail "notes.txt: $(cat "$TMP/cap/notes.txt")"
pid=$SERVER_PID
stop_server || fail "server exit status"

# a process that is gone: its column empty, the reason in notes.txt
"$WB" trace capture --out "$TMP/gone" --pid server="$pid" -- true ||
	fail "capture of a process that is gone failed"
[ -z "$(csv_col "$TMP/gone/capture.csv" cpu_us_server)" ] || fail "a made-up CPU time"
grep -q "^cpu time (server): cannot be measured: PID $pid: no such process" \
	"$TMP/gone/notes.txt" || fail "notes.txt: $(cat "$TMP/gone/notes.txt")"
# bad values are usage errors
for bad in server=0 server=x =1 Server=1 server=-1 server; do
	"$WB" trace capture --out "$TMP/bad" --pid "$bad" -- true 2>/dev/null &&
		fail "--pid $bad accepted"
done
"$WB" trace capture --out "$TMP/bad" --pid server=1 --pid server=1 -- true 2>/dev/null &&
	fail "--pid with one role twice accepted"
echo "gone process: empty column and a note; bad --pid refused"
exit 0
