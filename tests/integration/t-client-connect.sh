# Connects with a deadline that a signal interrupts (issue 30): against a
# listener whose accept queue is full (SYNs dropped: a blocking connect()
# sat out the kernel's SYN retries, minutes, with SIGINT and SIGTERM
# pending), the client gives up after --connect-timeout-ms (default: its
# --timeout-ms) with a message that says so and exit 1, and a signal
# during the connect stops it within 1 s.
. "$(dirname "$0")/lib.sh"
PEER="$WB_TOOLS/wb-midpeer"

"$PEER" stuck "$TMP/stuck.port" & STUCK=$!
wait_for "[ -s $TMP/stuck.port ]" || fail "stuck listener"
read -r SPORT < "$TMP/stuck.port"

# exits_within MS PID: the process is gone within MS (then reaped, its
# status in $rc); else it is killed and the test fails
exits_within() {
	local end=$(($(date +%s%N) + $1 * 1000000))
	while kill -0 "$2" 2>/dev/null; do
		if [ "$(date +%s%N)" -gt $end ]; then
			kill -KILL "$2" 2>/dev/null; wait "$2" 2>/dev/null
			return 1
		fi
		sleep 0.02
	done
	wait "$2"; rc=$?
	return 0
}

# (a) the deadline, given and by default (--timeout-ms)
for args in "--connect-timeout-ms 300:300" "--timeout-ms 700:700"; do
	opt=${args%:*} ms=${args##*:}
	t0=$(date +%s%N)
	"$WB" client --server 127.0.0.1:$SPORT --requests 10 $opt -q 2>"$TMP/c.err" &
	exits_within 3000 $! || fail "client $opt: still connecting after 3 s"
	took=$((($(date +%s%N) - t0) / 1000000))
	echo "client $opt against a full accept queue: exit $rc after $took ms: $(cat "$TMP/c.err")"
	[ $rc -eq 1 ] || fail "client $opt: exit $rc (want 1)"
	grep -q "cannot connect to 127.0.0.1:$SPORT: no connection within $ms ms (--connect-timeout-ms)" "$TMP/c.err" ||
		fail "client $opt: message: $(cat "$TMP/c.err")"
	[ $took -ge $ms ] || fail "client $opt gave up after $took ms"
done

# The pre-query port's connect too (its own connection).
start_server -q
"$WB" client --server 127.0.0.1:$PORT --prequery-lead-us 100 --prequery-port $SPORT \
	--requests 10 --connect-timeout-ms 300 -q 2>"$TMP/c.err" &
exits_within 3000 $! || fail "pre-query port connect: still connecting after 3 s"
[ $rc -eq 1 ] || fail "pre-query port connect: exit $rc"
grep -q "cannot connect to the pre-query port 127.0.0.1:$SPORT: no connection within 300 ms" "$TMP/c.err" ||
	fail "pre-query port connect: message: $(cat "$TMP/c.err")"
stop_server || fail "server exit status"

# (b) a signal during a connect that would wait a minute: out within 1 s,
# the run interrupted (exit 1), several threads or one
for sig in INT TERM; do
	for threads in "" "--threads 2 --cpu 0,1"; do
		"$WB" client --server 127.0.0.1:$SPORT --requests 10 --timeout-ms 60000 \
			$threads -q 2>"$TMP/c.err" &
		pid=$!
		sleep 0.3
		t0=$(date +%s%N)
		kill -$sig $pid
		exits_within 1000 $pid || fail "SIG$sig during a connect${threads:+ ($threads)}: still running after 1 s"
		echo "SIG$sig during a connect${threads:+ ($threads)}: exit $rc after $((($(date +%s%N) - t0) / 1000000)) ms: $(cat "$TMP/c.err")"
		[ $rc -eq 1 ] || fail "SIG$sig during a connect: exit $rc"
		grep -q interrupted "$TMP/c.err" || fail "SIG$sig during a connect: $(cat "$TMP/c.err")"
	done
done
kill $STUCK; wait $STUCK 2>/dev/null

# A refused connect still says why at once.
"$WB" client --server 127.0.0.1:$SPORT --requests 1 -q 2>"$TMP/c.err"
[ $? -eq 1 ] && grep -q "Connection refused" "$TMP/c.err" || fail "refused connect: $(cat "$TMP/c.err")"
# A client that is itself stalled for 1.5 s (strace delays one system
# call; LeakSanitizer cannot run under ptrace) is not failed by its own
# stall: a connect that completed meanwhile is connected, not timed out,
# and a reply waiting in the socket is read, not called lost (both
# timeouts are 1 s).
if can_stall; then
	start_server -q
	for call in connect sendto; do
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -o /dev/null -e trace=$call \
			-e inject=$call:delay_exit=1500000:when=1 \
			"$WB" client --server 127.0.0.1:$PORT --requests 3 \
			--interval-us 1000 -q --out "$TMP/stall-$call" 2>"$TMP/stall.err" ||
			fail "client stalled in its first $call: $(cat "$TMP/stall.err")"
		[ "$(csv_col "$TMP/stall-$call/summary.csv" count)" = 3 ] ||
			fail "client stalled in $call: not 3 replies"
	done
	stop_server
else
	echo "skip: no strace that may trace here, stalls of the client are not tested (make deps installs it)"
fi

for bad in 0 abc 3600001; do
	"$WB" client --server 127.0.0.1:1 --connect-timeout-ms $bad 2>/dev/null
	[ $? -eq 2 ] || fail "--connect-timeout-ms $bad: want exit 2"
done
exit 0
