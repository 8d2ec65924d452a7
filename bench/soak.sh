#!/bin/bash
# Soak (issue 21): server + midtier + clients for SECONDS at a high rate,
# the backend server restarted every 30 s, a second client SIGKILLed and
# restarted every 60 s. One client runs the whole time on several
# connections; its requests must all be answered (a reply, or an ERROR
# while the backend was down: never silence), and the midtier's RSS and
# open fds must stay flat.
#   usage: bench/soak.sh [SECONDS] [RATE]       (default 600 s, 5000 req/s)
# SOAK_WAIT=spin|sleep|hybrid sets the clients' pacing (default sleep).
# Prints a table and leaves samples.csv (t_s, midtier rss_kb/fds/threads,
# server pid/rss_kb/fds) in SOAK_KEEP if set.
. "$(dirname "$0")/lib.sh"
SECS=${1:-600}
RATE=${2:-5000}
RESTART=${SOAK_RESTART_S:-30}
KILL=${SOAK_KILL_S:-60}
BASE=${SOAK_BASE_S:-60}	# RSS baseline: after the first minute of warm-up
WAIT=${SOAK_WAIT:-sleep}	# client pacing: sleep leaves the cores to the server and midtier
ncpu=$(nproc)
MCPU=$((ncpu > 1 ? 1 : 0))

sport_file="$BTMP/server.port"
start_server() {	# on the same port each time (the midtier reconnects)
	rm -f "$sport_file"
	"$WB" server --port "${SPORT:-0}" --port-file "$sport_file" --cpu 0 -q 2>>"$BTMP/server.err" &
	spid=$!
	for _ in $(seq 250); do [ -s "$sport_file" ] && break; sleep 0.02; done
	[ -s "$sport_file" ] || { echo "soak: server did not start: $(tail -1 "$BTMP/server.err")" >&2; exit 1; }
	read -r SPORT _ < "$sport_file"
}
start_server
"$WB" midtier --listen 0 --port-file "$BTMP/mid.port" --backend 127.0.0.1:$SPORT \
	--cpu "$MCPU" --prequery-delay-us 50 --backend-timeout-ms 500 -q 2>"$BTMP/mid.err" &
mpid=$!
bench_pids+=($mpid)
for _ in $(seq 250); do [ -s "$BTMP/mid.port" ] && break; sleep 0.02; done
read -r MPORT < "$BTMP/mid.port" || { echo "soak: midtier did not start" >&2; exit 1; }

# The client that lives through everything: 4 connections, the full time.
"$WB" client --server 127.0.0.1:$MPORT --cpu "$MCPU" --connections 4 --rate "$RATE" \
	--duration "$SECS" --timeout-ms 5000 --wait "$WAIT" --out "$BTMP/live" -q 2>"$BTMP/live.err" &
lpid=$!
bench_pids+=($lpid)

kpid=
start_victim() {
	"$WB" client --server 127.0.0.1:$MPORT --cpu "$MCPU" --connections 2 \
		--rate $((RATE / 5)) --duration "$SECS" --wait "$WAIT" -q 2>/dev/null &
	kpid=$!
}
start_victim

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
thr() { awk '/^Threads:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
samples="$BTMP/samples.csv"
echo "t_s,mid_rss_kb,mid_fds,mid_threads,server_pid,server_rss_kb,server_fds" > "$samples"
t0=$(date +%s)
restarts=0 kills=0 last_restart=0 last_kill=0
while kill -0 "$lpid" 2>/dev/null; do
	sleep 1
	t=$(( $(date +%s) - t0 ))
	[ "$t" -ge "$SECS" ] && break
	if [ $((t - last_restart)) -ge "$RESTART" ]; then
		kill -TERM "$spid"; wait "$spid" 2>/dev/null
		start_server
		restarts=$((restarts + 1)) last_restart=$t
	fi
	if [ $((t - last_kill)) -ge "$KILL" ]; then
		kill -KILL "$kpid" 2>/dev/null; wait "$kpid" 2>/dev/null
		start_victim
		kills=$((kills + 1)) last_kill=$t
	fi
	[ $((t % 5)) = 0 ] &&
		echo "$t,$(rss $mpid),$(fds $mpid),$(thr $mpid),$spid,$(rss $spid),$(fds $spid)" >> "$samples"
done
wait "$lpid"; lrc=$?
kill -KILL "$kpid" 2>/dev/null; wait "$kpid" 2>/dev/null
mid_alive=no; kill -0 "$mpid" 2>/dev/null && mid_alive=yes
kill -TERM "$spid" "$mpid" 2>/dev/null; wait "$spid" "$mpid" 2>/dev/null
[ -n "${SOAK_KEEP:-}" ] && { mkdir -p "$SOAK_KEEP"; cp "$samples" "$BTMP/live/summary.csv" "$SOAK_KEEP/" 2>/dev/null; }

s="$BTMP/live/summary.csv"
[ -s "$s" ] || { echo "soak: the live client wrote no summary (exit $lrc): $(tail -2 "$BTMP/live.err")" >&2; exit 1; }
# Flatness after the warm-up minute: the midtier's RSS and fds against
# their first sample at BASE s; the server's RSS per life (it restarts).
flat() {	# column -> "base last min max maxdev%"
	awk -F, -v c="$1" -v base="$BASE" 'NR > 1 && $1 >= base {
		if (b == "") b = $c; if (min == "" || $c < min) min = $c; if ($c > max) max = $c; last = $c }
		END { d = (max - b > b - min ? max - b : b - min); printf "%s %s %s %s %.2f", b, last, min, max, b ? 100 * d / b : 0 }' "$samples"
}
read -r rb rl rmin rmax rdev <<< "$(flat 2)"
read -r fb fl fmin fmax fdev <<< "$(flat 3)"
# fds: the highest count in the last third against the first third after
# the warm-up (the killed client's connections come and go in between)
read -r fd1 fd3 <<< "$(awk -F, -v base="$BASE" -v end="$SECS" 'NR > 1 && $1 >= base {
	third = (end - base) / 3
	if ($1 < base + third && $3 > a) a = $3
	if ($1 >= end - third && $3 > z) z = $3 } END { print a + 0, z + 0 }' "$samples")"
read -r srb srl srmin srmax srdev <<< "$(flat 6)"
echo "Soak: ${SECS}s, live client ${RATE} req/s on 4 connections through the midtier (pre-query delay 50 us)," \
	"backend restarted every ${RESTART}s ($restarts times), a second client SIGKILLed every ${KILL}s ($kills times)"
printf '%-34s %s\n' "live client status" "$(csv_col "$s" status) (exit $lrc)"
printf '%-34s %s\n' "live client requests sent" "$(( $(csv_col "$s" count) + $(csv_col "$s" errors) + $(csv_col "$s" unanswered) ))"
printf '%-34s %s\n' "  answered with a reply" "$(csv_col "$s" count)"
printf '%-34s %s\n' "  answered with ERROR (backend down)" "$(csv_col "$s" errors)"
printf '%-34s %s\n' "  lost (no answer)" "$(csv_col "$s" unanswered)"
printf '%-34s %s\n' "midtier alive at the end" "$mid_alive"
printf '%-34s %s\n' "midtier RSS kB from ${BASE}s: first/last" "$rb / $rl (min $rmin, max $rmax, max deviation $rdev %)"
printf '%-34s %s\n' "midtier open fds: first/last" "$fb / $fl (min $fmin, max $fmax; highest in first/last third $fd1 / $fd3)"
printf '%-34s %s\n' "server RSS kB (all lives)" "first $srb, last $srl, min $srmin, max $srmax"
ok=1
[ "$(csv_col "$s" unanswered)" = 0 ] || ok=0
[ "$mid_alive" = yes ] || ok=0
awk -v d="$rdev" 'BEGIN { exit !(d <= 5) }' || ok=0
[ "$fd3" -le "$fd1" ] || ok=0
[ $ok = 1 ] && echo "verdict: PASS (0 lost, RSS within 5 %, no fd growth)" || { echo "verdict: FAIL"; exit 1; }
