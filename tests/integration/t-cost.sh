# The cost of a run (issue 35): a server that spins a known CPU time per
# request (--service-us 1000 busy-waits) costs 1000 us of CPU a request.
# trace capture --pid gives it as cpu_us_server, checked against the
# test's own reading of /proc/PID/stat (ticks: within two, 20 ms) and
# against 1000 us x requests (within 10 %); a process that is gone is an empty column and a note.
. "$(dirname "$0")/lib.sh"

N=500
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
	"$WB" client --server 127.0.0.1:"$PORT" --requests $N --interval-us 2000 \
	--service-us 1000 --timeout-ms 10000 -q --out "$TMP/client" 2>"$TMP/cap.err" || fail "capture: $(cat "$TMP/cap.err")"
b=$(cpu_us "$SERVER_PID")
got=$(csv_col "$TMP/cap/capture.csv" cpu_us_server) || fail "no cpu_us_server column"
count=$(csv_col "$TMP/client/summary.csv" count)
[ "$count" = $N ] || fail "client answered $count of $N"
echo "server CPU over the run: capture $got us, this test's /proc/$SERVER_PID/stat $((b - a)) us, expected $((1000 * N)) us"
# the test's window is the capture's and a little more (an idle server)
approx "$got" $((b - a)) 30000 || fail "capture's $got us is not the test's $((b - a)) us"
# a spin counts wall time: preempted on a loaded machine it uses less
# CPU, never more than 10 % over (the server's own work per request)
[ "$got" -le $((1100 * N)) ] && [ "$got" -ge $((500 * N)) ] ||
	fail "$got us for 1000 us x $N requests"
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

# a sweep passes every tier's PID: sweep.csv's cost_cpu_us_per_req
# against this test's own reading of the server's /proc/PID/stat (the
# last sample while it ran: its whole life, the window and a little
# start-up), and against the 1000 us it spins a request (a spin counts
# wall time: on a loaded machine a preempted spin uses less CPU, never
# more, so 1000 is an upper bound within 10 %); stats gives its median
HZ=$(getconf CLK_TCK)
# ticks_of PID: utime + stime in ticks, read by bash alone (no fork: the
# sampler must not load the machine it measures)
ticks_of() {
	local l f
	read -r l < "/proc/$1/stat" || return 1
	l=${l##*) }
	read -r -a f <<< "$l"
	echo $((f[11] + f[12]))
}
sample() {
	local pid= last=
	for _ in $(seq 600); do
		[ -f "$TMP/sw.done" ] && break
		[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && { echo $((last * 1000000 / HZ)) >> "$TMP/own"; pid=; }
		[ -z "$pid" ] && pid=$(pgrep -f "wakebench-server .*--port-file $TMP/sw/" | head -1)
		[ -n "$pid" ] && last=$(ticks_of "$pid" 2>/dev/null || echo "$last")
		sleep 0.05
	done
}
sample &
"$WB" sweep --out "$TMP/sw" --server-port "$(test_port 0)" --dist fixed --prequery off --reps 2 --requests 300 \
	--interval-us 2000 --service-us 1000 > "$TMP/sw.out" 2>&1 || fail "sweep: $(cat "$TMP/sw.out")"
touch "$TMP/sw.done"
wait
k=0
for c in $(csv_col "$TMP/sw/sweep.csv" cost_cpu_us_per_req); do
	k=$((k + 1))
	own=$(sed -n "${k}p" "$TMP/own")
	echo "sweep run $k: cost_cpu_us_per_req $c (spins 1000; this test read $own us over 300 requests)"
	[ -n "$own" ] && { approx "$c" "$(awk -v o="$own" 'BEGIN { print o / 300 }')" \
		"$(awk -v o="$own" 'BEGIN { print 0.1 * o / 300 + 70 }')" ||
		fail "cost_cpu_us_per_req $c is not this test's $own us / 300"; }
	awk -v c="$c" 'BEGIN { exit !(c <= 1100 && c >= 500) }' || fail "cost_cpu_us_per_req $c for 1000 us spins"
done
[ $k = 2 ] || fail "$k runs with a cost, not 2"
grep -q "^cpu time (server): PID [0-9]* and its children" "$TMP"/sw/*/rep-1/capture/notes.txt ||
	fail "the sweep's capture had no --pid"
"$WB" stats --include-behind "$TMP/sw" > /dev/null 2>&1 || fail "stats"
m=$(csv_col "$TMP/sw/summary.csv" cost_cpu_per_req_median_us)
echo "stats: cost_cpu_per_req_median_us $m"
awk -v m="$m" 'BEGIN { exit !(m <= 1100 && m >= 500) }' || fail "stats median $m"

# messages and bytes per request: the request, its reply, the pre-query
# (56-byte wakebench headers, a 100-byte payload on the request)
start_server --prequery-port 0
"$WB" client --server 127.0.0.1:"$PORT" --prequery-port "$PQPORT" --prequery-lead-us 20 \
	--payload 100 --requests 300 --interval-us 500 -q --out "$TMP/wire" 2>/dev/null ||
	fail "client with pre-queries"
stop_server || fail "server exit status"
n=$(csv_col "$TMP/wire/summary.csv" count)
pq=$(csv_col "$TMP/wire/summary.csv" prequeries_sent)
want=$(awk -v n="$n" -v p="$pq" 'BEGIN { printf "%.3f %.3f", (2 * n + p) / n, (156 * n + 56 * n + 56 * p) / n }')
got="$(csv_col "$TMP/wire/summary.csv" msgs_per_req) $(csv_col "$TMP/wire/summary.csv" bytes_per_req)"
echo "on the wire: $got per request ($n requests, $pq pre-queries; expected $want)"
[ "$got" = "$want" ] || fail "msgs_per_req bytes_per_req $got, expected $want"
grep -q "^on the wire per request: " "$TMP/wire/summary.txt" || fail "summary.txt has no wire line"
# and the sweep's runs carry theirs into sweep.csv (no pre-query: 2, 112)
[ "$(csv_col "$TMP/sw/sweep.csv" cost_msgs_per_req | sort -u)" = 2.000 ] ||
	fail "sweep.csv cost_msgs_per_req: $(csv_col "$TMP/sw/sweep.csv" cost_msgs_per_req)"
[ "$(csv_col "$TMP/sw/sweep.csv" cost_bytes_per_req | sort -u)" = 112.000 ] ||
	fail "sweep.csv cost_bytes_per_req: $(csv_col "$TMP/sw/sweep.csv" cost_bytes_per_req)"
exit 0
