# Issue 35's machine-wide mitigations held like C-states: 'cstate
# busy-poll US' (net.core.busy_read and busy_poll) and 'cstate haltpoll
# NS' (guest_halt_poll_ns) set while a command runs, restored after it,
# after a SIGTERM, and by 'cstate restore' after a SIGKILL; so_busy_poll
# for memcached through those sysctls, read back in each run's snapshot;
# the haltpoll_ns dimension on a fake haltpoll guest; and --skip-unsupported,
# which skips a point this machine cannot apply and says so in plan.txt.
. "$(dirname "$0")/lib.sh"
need_root
export WAKEBENCH_STATE_DIR="$TMP/state"
S=/proc/sys/net/core
[ -w $S/busy_read ] && [ -w $S/busy_poll ] || skip "no writable net.core.busy_read/busy_poll"
orig_br=$(cat $S/busy_read) orig_bp=$(cat $S/busy_poll)
restored() { [ "$(cat $S/busy_read) $(cat $S/busy_poll)" = "$orig_br $orig_bp" ]; }

# --- cstate busy-poll: during, after, SIGTERM, SIGKILL + restore ---
got=$("$WB" cstate busy-poll 37 -- sh -c "cat $S/busy_read $S/busy_poll" | tr '\n' ' ')
[ "$got" = "37 37 " ] || fail "busy-poll 37 while the command ran: $got"
restored || fail "busy-poll not restored: $(cat $S/busy_read) $(cat $S/busy_poll)"
"$WB" cstate busy-poll 38 2>/dev/null &
h=$!
wait_for '[ "$(cat $S/busy_read)" = 38 ]' || fail "busy-poll 38 never held"
kill -TERM $h
wait $h
restored || fail "after SIGTERM: $(cat $S/busy_read) $(cat $S/busy_poll)"
"$WB" cstate busy-poll 39 2>/dev/null &
h=$!
wait_for '[ "$(cat $S/busy_poll)" = 39 ]' || fail "busy-poll 39 never held"
kill -KILL $h
wait $h 2>/dev/null
[ "$(cat $S/busy_read)" = 39 ] || fail "SIGKILL restored busy_read: nothing to test"
"$WB" cstate restore > "$TMP/restore.out" || fail "cstate restore: $(cat "$TMP/restore.out")"
restored || fail "cstate restore left $(cat $S/busy_read) $(cat $S/busy_poll)"
grep -q "sysctl net.core.busy_poll $orig_bp" "$TMP/restore.out" || fail "restore said: $(cat "$TMP/restore.out")"
echo "cstate busy-poll: held, restored on exit, SIGTERM, and by restore after SIGKILL"

# --- cstate haltpoll, where the module's parameter exists ---
H=/sys/module/haltpoll/parameters/guest_halt_poll_ns
if [ -w $H ]; then
	orig_hp=$(cat $H)
	got=$("$WB" cstate haltpoll 123456 -- cat $H 2>"$TMP/hp.err")
	[ "$got" = 123456 ] || fail "haltpoll 123456 while the command ran: $got"
	[ "$(cat $H)" = "$orig_hp" ] || fail "haltpoll not restored: $(cat $H)"
	[ "$(cat /sys/devices/system/cpu/cpuidle/current_driver)" = haltpoll ] ||
		grep -q "warning: the cpuidle driver is .*, not haltpoll" "$TMP/hp.err" ||
		fail "no warning of a driver that does not read it: $(cat "$TMP/hp.err")"
	"$WB" cstate haltpoll 7 2>/dev/null &
	h=$!
	wait_for '[ "$(cat $H)" = 7 ]' || fail "haltpoll 7 never held"
	kill -TERM $h
	wait $h
	[ "$(cat $H)" = "$orig_hp" ] || fail "haltpoll after SIGTERM: $(cat $H)"
	echo "cstate haltpoll: held and restored ($orig_hp)"
fi

# --- so_busy_poll for memcached: the sysctls around each run ---
if command -v memcached > /dev/null; then
	sport=$(test_port 0)
	"$WB" sweep --out "$TMP/kv" --server-port "$sport" --backend memcached --reps 1 \
		--requests 200 --interval-us 500 --so-busy-poll "0 50" > "$TMP/kv.out" 2>&1 ||
		fail "memcached sweep: $(tail -5 "$TMP/kv.out")"
	restored || fail "after the sweep: $(cat $S/busy_read) $(cat $S/busy_poll)"
	for v in 0 50; do
		d=$(echo "$TMP"/kv/*_sobp-$v/rep-1)
		[ -d "$d" ] || fail "no run of so_busy_poll $v: $(ls "$TMP/kv")"
		want=$v
		[ $v = 0 ] && want=$orig_br
		grep -q "\"net_core_busy_read_us\": \"$want\"" "$d/server.snapshot.json" ||
			fail "so_busy_poll $v run's snapshot: $(grep -A2 '"busy_poll"' "$d/server.snapshot.json")"
	done
	[ "$(csv_col "$TMP/kv/sweep.csv" so_busy_poll | sort | tr '\n' ' ')" = "0 50 " ] ||
		fail "sweep.csv so_busy_poll: $(csv_col "$TMP/kv/sweep.csv" so_busy_poll)"
	echo "memcached so_busy_poll 0 50: each run's snapshot read the sysctls, restored after"
	# a SIGTERM to the sweep in the middle of the run
	"$WB" sweep --out "$TMP/kvint" --server-port "$sport" --backend memcached --reps 1 \
		--requests 40000 --interval-us 200 --so-busy-poll 50 > "$TMP/kvint.out" 2>&1 &
	sw=$!
	wait_for '[ "$(cat $S/busy_read)" = 50 ]' || fail "the run never set busy_read"
	sleep 0.3
	kill -TERM $sw
	wait $sw
	restored || fail "after SIGTERM to the sweep: $(cat $S/busy_read) $(cat $S/busy_poll)"
	echo "SIGTERM during a memcached so_busy_poll=50 run: restored"
else
	echo "skipped the memcached part: no memcached"
fi

# --- --skip-unsupported: a haltpoll window on a machine that is not a
# haltpoll guest is refused, or skipped and noted in plan.txt ---
sport=$(test_port 2)
if [ "$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)" != haltpoll ]; then
	"$WB" sweep --out "$TMP/no" --server-port "$sport" --reps 1 --requests 50 \
		--haltpoll-ns "- 100000" > "$TMP/no.out" 2>&1 && fail "an unsupported haltpoll_ns was swept"
	grep -q "point [a-z0-9_-]*_hpns-100000: haltpoll_ns 100000 cannot be applied here: the cpuidle driver is .*, not haltpoll (refused before anything ran; --skip-unsupported skips such points)" \
		"$TMP/no.out" || fail "refusal: $(cat "$TMP/no.out")"
	[ ! -e "$TMP/no/plan.txt" ] || fail "a refused sweep wrote a plan"
	"$WB" sweep --out "$TMP/skip" --server-port "$sport" --reps 2 --requests 50 \
		--haltpoll-ns "- 100000" --skip-unsupported > "$TMP/skip.out" 2>&1 ||
		fail "--skip-unsupported: $(tail -5 "$TMP/skip.out")"
	grep -q "^# unsupported [a-z0-9_-]*_hpns-100000: haltpoll_ns 100000 cannot be applied here" \
		"$TMP/skip/plan.txt" || fail "plan.txt: $(cat "$TMP/skip/plan.txt")"
	grep -q "point [a-z0-9_-]*_hpns-100000 skipped (--skip-unsupported)" "$TMP/skip.out" ||
		fail "not said: $(cat "$TMP/skip.out")"
	[ "$(csv_col "$TMP/skip/sweep.csv" haltpoll_ns | sort -u)" = "" ] &&
	[ "$(csv_col "$TMP/skip/sweep.csv" status | tr '\n' ' ')" = "ok ok " ] ||
		fail "sweep.csv: $(cat "$TMP/skip/sweep.csv")"
	grep -q "2 runs planned: 2 run now" "$TMP/skip.out" || fail "summary: $(tail -3 "$TMP/skip.out")"
	ls -d "$TMP"/skip/*hpns* 2>/dev/null && fail "a skipped point ran"
	# resumed with more repetitions: the skipped point stays skipped
	"$WB" sweep --out "$TMP/skip" --resume --reps 3 > "$TMP/skip2.out" 2>&1 ||
		fail "resume: $(tail -3 "$TMP/skip2.out")"
	grep -q "3 runs planned: 1 run now, 2 already complete" "$TMP/skip2.out" ||
		fail "resume: $(tail -3 "$TMP/skip2.out")"
	echo "haltpoll_ns here (driver $(cat /sys/devices/system/cpu/cpuidle/current_driver)): refused, or skipped and noted"
fi

# --- the haltpoll_ns dimension on a fake haltpoll guest ---
fake_sysfs
echo haltpoll > "$FAKE/devices/system/cpu/cpuidle/current_driver"
mkdir -p "$FAKE/module/haltpoll/parameters"
FH="$FAKE/module/haltpoll/parameters/guest_halt_poll_ns"
echo 200000 > "$FH"
"$WB" sweep --out "$TMP/hp" --server-port "$sport" --reps 1 --requests 50 \
	--haltpoll-ns "- 100000" > "$TMP/hp.out" 2>&1 || fail "haltpoll sweep: $(tail -5 "$TMP/hp.out")"
[ "$(cat "$FH")" = 200000 ] || fail "guest_halt_poll_ns left at $(cat "$FH")"
d=$(echo "$TMP"/hp/*_hpns-100000/rep-1)
grep -q '"guest_halt_poll_ns": "100000"' "$d/server.snapshot.json" ||
	fail "the run's snapshot: $(grep guest_halt "$d/server.snapshot.json")"
[ "$(csv_col "$TMP/hp/sweep.csv" haltpoll_ns | sort | tr '\n' ' ')" = " 100000 " ] ||
	fail "sweep.csv haltpoll_ns: $(csv_col "$TMP/hp/sweep.csv" haltpoll_ns)"
"$WB" sweep --out "$TMP/hpint" --server-port "$sport" --reps 1 --requests 20000 \
	--interval-us 200 --haltpoll-ns 100000 > "$TMP/hpint.out" 2>&1 &
sw=$!
wait_for '[ "$(cat "$FH")" = 100000 ]' || fail "the run never set the window"
sleep 0.3
kill -TERM $sw
wait $sw
[ "$(cat "$FH")" = 200000 ] || fail "after SIGTERM the window is $(cat "$FH")"
echo "haltpoll_ns - 100000 on a fake haltpoll guest: set in its run, restored (after SIGTERM too)"
exit 0
