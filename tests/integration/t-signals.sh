# SIGINT, SIGTERM and SIGHUP (the terminal closed) to every long-running
# command (client, server, midtier, trace record, cstate, sweep) in the
# middle of its work: each
# exits promptly with its documented status, leaves complete, parseable
# outputs, and puts back the system state it changed (a synthetic sysfs
# and PM QoS file here; the real tracefs for trace record, as root).
. "$(dirname "$0")/lib.sh"

# A background job of a non-interactive shell starts with SIGINT ignored;
# a terminal's Ctrl-C would deliver it, so give it back its default.
# (An array, not a function: a function run with & is a subshell whose
# pid is not the command's.)
dfl=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])')

# csv_ok FILE: a header and rows with as many fields as the header.
csv_ok() {
	[ -s "$1" ] || return 1
	awk -F, 'NR == 1 { n = NF; next } NF != n { exit 1 }' "$1"
}
# json_ok FILE: parses as JSON.
json_ok() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
# sig_wait PID SIG: send SIG and wait (at most 5 s) for PID; sets RC.
sig_wait() {
	kill -"$2" "$1"
	for _ in $(seq 250); do kill -0 "$1" 2>/dev/null || break; sleep 0.02; done
	if kill -0 "$1" 2>/dev/null; then
		grep Sig "/proc/$1/status" >&2
		kill -KILL "$1"
		fail "$(ps -o args= -p "$1") still running 5 s after SIG$2"
	fi
	wait "$1"
	RC=$?
}
cstates_clean() {	# every synthetic state enabled, no state file left
	for c in 0 1; do for s in 0 1 2; do
		[ "$(disabled $c $s)" = 0 ] || return 1
	done; done
	[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ]
}
fake_sysfs

# SIGPIPE never stops the server.
start_server -q
kill -PIPE "$SERVER_PID"
sleep 0.1
kill -0 "$SERVER_PID" 2>/dev/null || fail "server died of SIGPIPE"
# A client whose stdout is a closed pipe (| head) still exits 0 with its
# files written.
"$WB" client --server 127.0.0.1:$PORT --requests 50 --interval-us 200 \
	--out "$TMP/pipe" | (exec true)
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "client with a closed stdout: exit $rc"
[ -s "$TMP/pipe/summary.csv" ] || fail "client with a closed stdout: no summary"
stop_server || fail "server after SIGPIPE"

# ---- client signalled while it counts a long schedule (C-states already
# off): out within 1 s, C-states restored, nothing that looks like a run.
# (The schedule is drawn as the run goes; a burst warm-up by a duration
# counts it through first, for the burst's sequence numbers.)
for sig in TERM HUP INT; do
	"${dfl[@]}" "$WB" client --server 127.0.0.1:1 --duration 900 --interval-us 1 --dist exp \
		--warmup 1 --warmup-mode burst \
		--cstates off --out "$TMP/draw-$sig" -q 2>"$TMP/draw-$sig.err" &
	pid=$!
	wait_for "[ \"\$(disabled 1 2)\" = 1 ]" || fail "client --cstates off not applied"
	sleep 0.1
	t0=$(date +%s%N)
	sig_wait $pid $sig; rc=$RC
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$rc" = 1 ] || fail "client SIG$sig while drawing: exit $rc: $(cat "$TMP/draw-$sig.err")"
	[ "$ms" -le 1000 ] || fail "client SIG$sig while drawing: took $ms ms to exit"
	grep -q 'interrupted while drawing the schedule' "$TMP/draw-$sig.err" ||
		fail "client SIG$sig while drawing: $(cat "$TMP/draw-$sig.err")"
	cstates_clean || fail "client SIG$sig while drawing: C-states not restored"
	[ -z "$(ls -A "$TMP/draw-$sig")" ] || fail "client SIG$sig while drawing: left $(ls -A "$TMP/draw-$sig")"
done
# the same without --cstates: the signal still waits for the drawing to
# notice it (exit 1 with the message, not death by the signal)
"$WB" client --server 127.0.0.1:1 --duration 900 --interval-us 1 --dist exp --warmup 1 \
	--warmup-mode burst --out "$TMP/draw-plain" -q 2>"$TMP/draw-plain.err" &
pid=$!
sleep 0.3
sig_wait $pid TERM; rc=$RC
[ "$rc" = 1 ] && grep -q 'interrupted while drawing the schedule' "$TMP/draw-plain.err" ||
	fail "client SIGTERM while drawing, no --cstates: exit $rc: $(cat "$TMP/draw-plain.err")"

# ---- client signalled while it waits for --start-at (connected, C-states
# off): out within 1 s, C-states restored, nothing sent, nothing written.
start_server -q
for sig in TERM HUP INT; do
	"${dfl[@]}" "$WB" client --server 127.0.0.1:$PORT --requests 100 --cstates off \
		--start-at $(($(date +%s%N) + 60000000000)) --out "$TMP/at-$sig" -q 2>"$TMP/at-$sig.err" &
	pid=$!
	wait_for "[ \"\$(disabled 1 2)\" = 1 ]" || fail "client --cstates off not applied"
	sleep 0.3
	t0=$(date +%s%N)
	sig_wait $pid $sig; rc=$RC
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$rc" = 1 ] || fail "client SIG$sig while waiting for --start-at: exit $rc: $(cat "$TMP/at-$sig.err")"
	[ "$ms" -le 1000 ] || fail "client SIG$sig while waiting for --start-at: took $ms ms to exit"
	grep -q 'interrupted while waiting for --start-at' "$TMP/at-$sig.err" ||
		fail "client SIG$sig while waiting for --start-at: $(cat "$TMP/at-$sig.err")"
	cstates_clean || fail "client SIG$sig while waiting for --start-at: C-states not restored"
	[ -z "$(ls -A "$TMP/at-$sig")" ] || fail "client SIG$sig while waiting for --start-at: left $(ls -A "$TMP/at-$sig")"
done
stop_server || fail "server after the --start-at cases"

for sig in INT TERM HUP; do
	# ---- client, with --cstates off: partial outputs, status interrupted.
	start_server -q
	# (20 s of requests: the C-states change before the schedule is
	# drawn, so the wait below covers drawing it too, slow under ASan)
	"${dfl[@]}" "$WB" client --server 127.0.0.1:$PORT --requests 200000 --interval-us 100 \
		--cstates off --out "$TMP/c-$sig" -q 2>"$TMP/c-$sig.err" &
	pid=$!
	wait_for "[ \"\$(disabled 1 2)\" = 1 ]" || fail "client --cstates off not applied"
	sleep 0.8
	sig_wait $pid $sig; rc=$RC
	[ "$rc" = 1 ] || fail "client SIG$sig: exit $rc"
	for f in requests.csv summary.csv gaps.csv; do
		csv_ok "$TMP/c-$sig/$f" || fail "client SIG$sig: $f incomplete"
	done
	json_ok "$TMP/c-$sig/summary.json" || fail "client SIG$sig: summary.json"
	json_ok "$TMP/c-$sig/snapshot.json" || fail "client SIG$sig: snapshot.json"
	[ -s "$TMP/c-$sig/cmdline.txt" ] || fail "client SIG$sig: cmdline.txt"
	grep -q '"status": "interrupted"' "$TMP/c-$sig/summary.json" || fail "client SIG$sig: status"
	# every request sent is a row; the summary counts the answered ones
	# and those the signal left unanswered
	n=$(csv_col "$TMP/c-$sig/summary.csv" count)
	u=$(csv_col "$TMP/c-$sig/summary.csv" unanswered)
	[ "$n" -gt 100 ] && [ $((n + u)) = "$(($(wc -l < "$TMP/c-$sig/requests.csv") - 1))" ] \
		|| fail "client SIG$sig: summary count $n + $u unanswered vs the CSV"
	[ "$u" -le 100 ] || fail "client SIG$sig: $u unanswered at 10k req/s"
	cstates_clean || fail "client SIG$sig: C-states not restored"
	stop_server || fail "server after client SIG$sig"

	# ---- server under load, with --log and --cstates off.
	start_server --log "$TMP/s-$sig.csv" --cstates off
	SPID=$SERVER_PID
	"$WB" client --server 127.0.0.1:$PORT --requests 200000 --interval-us 100 \
		-q 2>/dev/null &
	cpid=$!
	sleep 0.5
	# (start_server leaves SIGINT ignored at exec: the server installs
	# its own handlers, which this checks too.)
	sig_wait $SPID $sig; rc=$RC
	SERVER_PID=
	[ "$rc" = 0 ] || fail "server SIG$sig: exit $rc"
	wait $cpid
	csv_ok "$TMP/s-$sig.csv" || fail "server SIG$sig: log incomplete"
	[ "$(($(wc -l < "$TMP/s-$sig.csv") - 1))" -gt 100 ] || fail "server SIG$sig: log rows"
	grep -q '^wakebench-server: requests=[0-9]* ' "$SERVER_ERR" || fail "server SIG$sig: no summary line"
	n=$(sed -n 's/.*requests=\([0-9]*\) .*/\1/p' "$SERVER_ERR")
	[ "$n" = "$(($(wc -l < "$TMP/s-$sig.csv") - 1))" ] || fail "server SIG$sig: summary $n vs log"
	cstates_clean || fail "server SIG$sig: C-states not restored"

	# ---- midtier under load, with --cstates off: its log complete, its
	# summary printed, C-states applied once it listens and restored.
	start_server -q
	pf="$TMP/mport-$sig"
	"${dfl[@]}" "$WB" midtier --listen 0 --port-file "$pf" --backend 127.0.0.1:$PORT \
		--cstates off --log "$TMP/m-$sig.csv" 2>"$TMP/m-$sig.err" &
	mpid=$!
	wait_for "[ -s $pf ]" || fail "midtier did not start: $(cat "$TMP/m-$sig.err")"
	[ "$(disabled 1 2)" = 1 ] || fail "midtier --cstates off not applied when listening"
	read -r mport < "$pf"
	"$WB" client --server 127.0.0.1:$mport --requests 100000 --interval-us 200 -q 2>/dev/null &
	cpid=$!
	sleep 0.5
	sig_wait $mpid $sig; rc=$RC
	[ "$rc" = 0 ] || fail "midtier SIG$sig: exit $rc: $(tail -20 "$TMP/m-$sig.err")"
	wait $cpid
	csv_ok "$TMP/m-$sig.csv" || fail "midtier SIG$sig: log incomplete"
	[ "$(($(wc -l < "$TMP/m-$sig.csv") - 1))" -gt 100 ] || fail "midtier SIG$sig: log rows"
	grep -q 'requests=' "$TMP/m-$sig.err" || fail "midtier SIG$sig: no summary: $(cat "$TMP/m-$sig.err")"
	stop_server || fail "backend after midtier SIG$sig"
	cstates_clean || fail "midtier SIG$sig: C-states not restored"

	# ---- cstate: a held disable and a held PM QoS request.
	"${dfl[@]}" "$WB" cstate disable C6 C1 &
	pid=$!
	wait_for "[ \"\$(disabled 0 2)\$(disabled 1 1)\" = 11 ]" || fail "cstate disable not applied"
	sig_wait $pid $sig; rc=$RC
	[ "$rc" = 0 ] || fail "cstate disable SIG$sig: exit $rc"
	cstates_clean || fail "cstate SIG$sig: not restored"
	"${dfl[@]}" "$WB" cstate limit --max-latency-us 5 -- sleep 60 &
	pid=$!
	wait_for "[ \"\$(disabled 0 2)\" = 1 ]" || fail "cstate limit not applied"
	sig_wait $pid $sig; rc=$RC
	# the signal goes on to the command; its status comes back shell-style
	[ "$rc" = $((128 + $(kill -l $sig))) ] || fail "cstate limit SIG$sig: exit $rc"
	cstates_clean || fail "cstate limit SIG$sig: not restored"

	# ---- sweep, with --cstates off: partial sweep.csv, resume hint, exit 130.
	"${dfl[@]}" "$WB" sweep --dist exp --prequery "off 20" --reps 4 --requests 400 --interval-us 1000 \
		--cstates off --server-cpu 1 --client-cpu 0 --out "$TMP/sw-$sig" > "$TMP/sw-$sig.out" 2>&1 &
	pid=$!
	wait_for "[ \$(ls -d $TMP/sw-$sig/*/rep-*/client 2>/dev/null | wc -l) -ge 2 ]" || fail "sweep did not progress"
	sig_wait $pid $sig; rc=$RC
	[ "$rc" = 130 ] || fail "sweep SIG$sig: exit $rc"
	grep -q -- '--resume' "$TMP/sw-$sig.out" || fail "sweep SIG$sig: no resume hint"
	for f in "$TMP/sw-$sig"/*/rep-*/client/summary.json; do
		json_ok "$f" || fail "sweep SIG$sig: $f"
	done
	[ ! -e "$TMP/sw-$sig/sweep.csv" ] || csv_ok "$TMP/sw-$sig/sweep.csv" || fail "sweep SIG$sig: sweep.csv"
	cstates_clean || fail "sweep SIG$sig: C-states not restored"
done
[ -z "$(pgrep -f "^$WB_BIN/wakebench-")" ] || fail "processes left: $(pgrep -af "^$WB_BIN/wakebench-")"

# ---- trace record on the real tracefs (root).
T=/sys/kernel/tracing
[ "$(id -u)" = 0 ] && [ ! -d $T/instances ] && mount -t tracefs nodev $T 2>/dev/null
if [ "$(id -u)" != 0 ] || [ ! -d $T/events/power/cpu_idle ]; then
	echo "trace record part skipped: needs root and tracefs with power:cpu_idle"
	exit 0
fi
# the instance of the record process PID (other runs may have their own)
instance() { [ -d "$T/instances/wakebench-$1" ]; }
for sig in INT TERM HUP; do
	"${dfl[@]}" "$WB" trace record --out "$TMP/tr-$sig" -- sleep 61 2>"$TMP/tr-$sig.err" &
	pid=$!
	wait_for "instance $pid" || fail "trace instance not created"
	sleep 0.3
	sig_wait $pid $sig; rc=$RC
	[ "$rc" = $((128 + $(kill -l $sig))) ] || fail "trace SIG$sig: exit $rc"
	! instance $pid || fail "trace SIG$sig: instance left"
	grep -q '^end_ns ' "$TMP/tr-$sig/meta.txt" || fail "trace SIG$sig: meta.txt incomplete (exit $rc)"
	"$WB" trace timeline "$TMP/tr-$sig" > /dev/null || fail "trace SIG$sig: not readable"
	wait_for '! pgrep -x -f "sleep 61" > /dev/null' || fail "trace SIG$sig: its command still runs"
done
