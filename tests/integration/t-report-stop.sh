# wakebench report stopped by a signal stops the program it runs too
# (wakebench-figdata, gnuplot) and exits at once, 128 + the signal: none
# is left running on its own (issue 30, item 11).
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null || skip "gnuplot not installed (make deps)"
FX="$WB_TOP/tests/fixtures/report"

# A background job of a non-interactive shell starts with SIGINT ignored
# (a shell cannot trap it then); a terminal's Ctrl-C would deliver it.
dfl=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])')

# gone_within PID MS: true once PID has ended, within MS
gone_within() {
	local i
	for ((i = 0; i < $2 / 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.01
	done
	! kill -0 "$1" 2>/dev/null
}
# child_of PID NAME: the PID of PID's child named NAME (empty: none)
child_of() { pgrep -P "$1" -x "$2" | head -1; }

# ---- SIGTERM while wakebench-figdata reads a million requests.
mkdir -p "$TMP/big/run"
cp "$FX/run/cmdline.txt" "$FX/run/snapshot.json" "$FX/run/summary.csv" "$TMP/big/run/"
awk 'BEGIN {
	print "seq,intended_ns,sent_ns,recv_ns,latency_ns,service_ns,server_recv_ns,server_send_ns,prequery_sent_ns,status,prequery_lead_us"
	t = 1000000000
	for (i = 0; i < 1000000; i++) {
		t += 1000 + (i * 7919) % 997
		printf "%d,%d,%d,%d,%d,%d,%d,%d,,ok,\n", i, t, t + 50, t + 5000 + i % 1000, 4950 + i % 1000, 4950 + i % 1000, t + 1000, t + 2000
	}
}' > "$TMP/big/run/requests.csv"
for sig in TERM INT; do
	"${dfl[@]}" "$WB" report "$TMP/big" --out "$TMP/rep-$sig" > "$TMP/rep-$sig.out" 2>&1 &
	pid=$!
	fd=
	wait_for '[ -n "$(child_of $pid wakebench-figda)" ]' || fail "SIG$sig: figdata never seen running ($(cat "$TMP/rep-$sig.out"))"
	fd=$(child_of $pid wakebench-figda)
	kill -$sig $pid
	gone_within $pid 1000 || fail "SIG$sig: the report still runs 1 s later"
	wait $pid
	rc=$?
	gone_within "$fd" 1000 || { kill "$fd"; fail "SIG$sig: wakebench-figdata $fd left running: $(ps -o args= -p "$fd")"; }
	[ "$rc" = $((128 + $(kill -l $sig))) ] || fail "SIG$sig: exit $rc: $(cat "$TMP/rep-$sig.out")"
	grep -q "interrupted by SIG$sig" "$TMP/rep-$sig.out" || fail "SIG$sig: $(cat "$TMP/rep-$sig.out")"
done

# ---- SIGTERM while gnuplot draws (a gnuplot that takes its time, first
# on PATH, saying its pid: it is the real one's place in the script).
mkdir "$TMP/gp"
cat > "$TMP/gp/gnuplot" <<EOF
#!/bin/bash
echo \$\$ > "$TMP/gp.pid"
exec sleep 60
EOF
chmod +x "$TMP/gp/gnuplot"
PATH="$TMP/gp:$PATH" "$WB" report "$FX/run" --out "$TMP/rep-gp" > "$TMP/rep-gp.out" 2>&1 &
pid=$!
wait_for "[ -s '$TMP/gp.pid' ]" || fail "gnuplot never started: $(cat "$TMP/rep-gp.out")"
gp=$(cat "$TMP/gp.pid")
kill -TERM $pid
gone_within $pid 1000 || fail "SIGTERM in gnuplot: the report still runs 1 s later"
wait $pid
rc=$?
gone_within "$gp" 1000 || { kill "$gp"; fail "SIGTERM in gnuplot: gnuplot $gp left running"; }
[ "$rc" = 143 ] || fail "SIGTERM in gnuplot: exit $rc: $(cat "$TMP/rep-gp.out")"
