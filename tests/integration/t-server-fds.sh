# Out of file descriptors (issue 21): more connections than the server has
# fds must not make it spin (accept failing with EMFILE while epoll reports
# the listener ready, forever). It refuses what does not fit, counts it,
# and keeps serving the connections it has.
. "$(dirname "$0")/lib.sh"
PEER="python3 $(dirname "$0")/peer.py"

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }	# utime + stime
# check_flood NAME PID PORT N: N connections beyond the first; over 2 s
# the server uses < 10 % of a CPU, and the first connection gets replies.
check_flood() {
	local name=$1 pid=$2 port=$3 n=$4 t0 t1
	$PEER hold "$port" "$n" 2.5 > "$TMP/$name.peer" 2>&1 &
	local hpid=$!
	wait_for "grep -q opened $TMP/$name.peer" || fail "$name: peer: $(cat "$TMP/$name.peer")"
	t0=$(ticks "$pid"); sleep 2; t1=$(ticks "$pid")
	echo "$name: server CPU over 2 s: $((t1 - t0)) ticks"
	[ $((t1 - t0)) -le 20 ] || fail "$name: server spins: $((t1 - t0)) ticks of CPU in 2 s"
	wait $hpid || fail "$name: existing connection not served: $(cat "$TMP/$name.peer")"
	grep -q '^ok$' "$TMP/$name.peer" || fail "$name: no reply on the existing connection"
}
refused() { sed -n 's/.* refused=\([0-9]*\) .*/\1/p' "$1"; }

# ---- started under ulimit -n 64 with the default --max-conns 1024: it
# says so and lowers --max-conns; 100 connections are mostly refused.
pf="$TMP/port.ulimit"
(ulimit -n 64 && exec "$WB" server --cpu 0 --port 0 --port-file "$pf") 2>"$TMP/ulimit.err" &
spid=$!
wait_for "[ -s $pf ]" || fail "server under ulimit -n 64 did not start: $(cat "$TMP/ulimit.err")"
read -r port < "$pf"
check_flood ulimit $spid "$port" 100
kill -TERM $spid; wait $spid || fail "ulimit: server exit status"
r=$(refused "$TMP/ulimit.err")
[ -n "$r" ] && [ "$r" -gt 0 ] || fail "ulimit: refused=$r: $(cat "$TMP/ulimit.err")"
grep -q 'warning: open file limit 64 .*--max-conns lowered from 1024 to 32' "$TMP/ulimit.err" ||
	fail "ulimit: no warning: $(cat "$TMP/ulimit.err")"

# ---- the limit drops under a running server (prlimit), so accept fails
# with EMFILE: the spare fd refuses the connections one by one.
start_server --cpu 0
prlimit --pid "$SERVER_PID" --nofile=24:24 || skip "prlimit failed"
check_flood emfile "$SERVER_PID" "$PORT" 60
stop_server || fail "emfile: server exit status"
r=$(refused "$SERVER_ERR")
[ -n "$r" ] && [ "$r" -gt 0 ] || fail "emfile: refused=$r: $(cat "$SERVER_ERR")"
