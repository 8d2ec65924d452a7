# wakebench wake --netns (issue 34): the packet sender in a network
# namespace of its own over a veth pair steered to the measured CPU; the
# namespace and both veth ends are gone after a normal run, after SIGINT
# and after SIGTERM; after SIGKILL the next --netns run removes them and
# says so; with --trace the NET_RX softirq shows on the measured CPU;
# --netns without the packet source is a usage error.
. "$(dirname "$0")/lib.sh"

[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (a sender beside the measured CPU)"
"$WB" wake --netns --source timer --count 1 2>/dev/null; [ $? = 2 ] || fail "--netns without packet: not a usage error"
need_root
command -v ip > /dev/null || skip "no ip(8) (iproute2)"
ip netns add "wbwprobe$$" 2>/dev/null || skip "cannot make network namespaces here"
ip netns del "wbwprobe$$"
dfl=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])')
# left PID: namespaces or links of the run with that PID
left() { { ip netns list; ip -o link; } | grep -c "wbw$1[hn: @]" || true; }

"$WB" wake --cpu 1 --sender-cpu 0 --source packet --netns --count 30 --ldist 50,500 \
	--out "$TMP/n" -q 2> "$TMP/n.err" || fail "wake --netns: $(cat "$TMP/n.err")"
[ "$(csv_col "$TMP/n/wake.csv" source | grep -cx packet)" = 30 ] || fail "not 30 packet datapoints"
grep -q -- '--netns' "$TMP/n/cmdline.txt" || fail "cmdline.txt"
[ "$({ ip netns list; ip -o link; } | grep -c 'wbw[0-9]')" = 0 ] || fail "left behind: $(ip netns list; ip -o link | grep wbw)"

# SIGINT and SIGTERM: the run stops, the namespace goes
for sig in INT TERM; do
	"${dfl[@]}" "$WB" wake --cpu 1 --sender-cpu 0 --source packet --netns --duration 60 \
		--ldist 50,500 -q 2>/dev/null &
	pid=$!
	for _ in $(seq 50); do [ "$(left $pid)" -gt 0 ] && break; sleep 0.1; done
	[ "$(left $pid)" -gt 0 ] || fail "SIG$sig: no namespace seen while running"
	sleep 0.3
	kill -$sig $pid
	wait $pid
	[ "$(left $pid)" = 0 ] || fail "SIG$sig: left: $(ip netns list; ip -o link | grep wbw)"
done

# SIGKILL leaves them; the next run removes them and names them
"$WB" wake --cpu 1 --sender-cpu 0 --source packet --netns --duration 60 --ldist 50,500 -q 2>/dev/null &
pid=$!
for _ in $(seq 50); do [ "$(left $pid)" -gt 0 ] && break; sleep 0.1; done
kill -KILL $pid
wait $pid 2>/dev/null
[ "$(left $pid)" -gt 0 ] || fail "SIGKILL: nothing left to clean (the test proves nothing)"
"$WB" wake --cpu 1 --sender-cpu 0 --source packet --netns --count 5 --ldist 50,500 -q 2> "$TMP/k.err" ||
	fail "the run after SIGKILL: $(cat "$TMP/k.err")"
grep -q "removed the namespaces of killed runs: wbw$pid" "$TMP/k.err" || fail "stale namespace not named: $(cat "$TMP/k.err")"
[ "$({ ip netns list; ip -o link; } | grep -c 'wbw[0-9]')" = 0 ] || fail "left after the cleanup: $(ip netns list; ip -o link | grep wbw)"

# traced: the device's NET_RX softirq runs on the measured CPU
if [ -d /sys/kernel/tracing/events/irq/softirq_entry ]; then
	need_tracefs
	"$WB" wake --cpu 1 --sender-cpu 0 --source packet --netns --count 30 --ldist 50,500 \
		--trace --out "$TMP/nt" -q 2> "$TMP/nt.err" || fail "--netns --trace: $(cat "$TMP/nt.err")"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$(c["softirq_ns"]) > 0 { n++ } END { exit n < 15 }' "$TMP/nt/wake.csv" ||
		fail "no NET_RX softirq on the measured CPU: $(head -5 "$TMP/nt/wake.csv")"
	[ "$(instances)" = 0 ] || fail "a tracefs instance left"
fi
exit 0
