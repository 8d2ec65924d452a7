# Pre-query, two-tier (client -> server) and three-tier (client -> midtier
# -> server), fixed and adaptive timing: complete logs, the skip rule
# counted exactly, and the midtier surviving a dead or slow backend.
. "$(dirname "$0")/lib.sh"
N=400 W=20

# ---- two-tier, fixed lead, in-band: skipped exactly when gap < lead.
start_server --log "$TMP/s1.csv" --cpu 1
"$WB" client --server 127.0.0.1:$PORT --cpu 0 --dist exp --interval-us 100 --requests $N \
	--warmup $W --prequery-lead-us 50 --out "$TMP/c1" -q || fail "fixed lead run"
stop_server
sent=$(csv_col "$TMP/c1/summary.csv" prequeries_sent)
skipped=$(csv_col "$TMP/c1/summary.csv" prequeries_skipped)
# Counters are over the measured requests; the warm-up's are apart.
want_skip=$(awk -F, 'NR > 1 && $2 < 50000 && $3 == 0' "$TMP/c1/gaps.csv" | wc -l)
[ "$skipped" -eq "$want_skip" ] || fail "skipped $skipped, gaps shorter than the lead: $want_skip"
[ $((sent + skipped)) -eq $N ] || fail "sent $sent + skipped $skipped != $N"
wsent=$(csv_col "$TMP/c1/summary.csv" warmup_prequeries_sent)
wskip=$(csv_col "$TMP/c1/summary.csv" warmup_prequeries_skipped)
[ "$wskip" -eq "$(awk -F, 'NR > 1 && $2 < 50000 && $3 == 1' "$TMP/c1/gaps.csv" | wc -l)" ] || fail "warm-up skipped $wskip"
[ $((wsent + wskip)) -eq $W ] || fail "warm-up sent $wsent + skipped $wskip != $W"
[ "$(grep -c ',prequery,' "$TMP/s1.csv")" -eq $((sent + wsent)) ] || fail "server saw $(grep -c ',prequery,' "$TMP/s1.csv") pre-queries, client sent $sent + $wsent"
# Per request: prequery_sent_ns set iff its gap >= lead; never earlier than
# intended - lead, never after the request itself.
awk -F, 'NR == FNR { if (FNR > 1) gap[$1] = $2; next }
	FNR > 1 { if ((gap[$1] >= 50000) != ($9 != "")) exit 1
		  if ($9 != "" && ($9 > $3 || $9 < $2 - 50000)) exit 2 }' \
	"$TMP/c1/gaps.csv" "$TMP/c1/requests.csv" || fail "prequery_sent_ns column inconsistent ($?)"
[ "$(csv_col "$TMP/c1/summary.csv" prequery)" = fixed ] || fail "summary prequery policy"

# Lead longer than every gap: all skipped, none sent. Lead equal to the gap: all sent.
start_server
"$WB" client --server 127.0.0.1:$PORT --interval-us 100 --requests 200 --prequery-lead-us 150 \
	--out "$TMP/c2" -q || fail "long lead run"
[ "$(csv_col "$TMP/c2/summary.csv" prequeries_skipped)" = 200 ] || fail "long lead: not all skipped"
[ "$(csv_col "$TMP/c2/summary.csv" prequeries_sent)" = 0 ] || fail "long lead: some sent"
"$WB" client --server 127.0.0.1:$PORT --interval-us 100 --requests 200 --prequery-lead-us 100 \
	--out "$TMP/c3" -q || fail "lead = gap run"
[ "$(csv_col "$TMP/c3/summary.csv" prequeries_sent)" = 200 ] || fail "lead = gap: not all sent"
stop_server

# ---- two-tier, pre-query port: pre-queries arrive on their own connection.
start_server --log "$TMP/s4.csv" --prequery-port 0
"$WB" client --server 127.0.0.1:$PORT --prequery-port "$PQPORT" --prequery-lead-us 20 \
	--interval-us 300 --requests 200 --out "$TMP/c4" -q || fail "pre-query port run"
stop_server
req_conn=$(awk -F, '$2 == "request" { print $6 }' "$TMP/s4.csv" | sort -u)
pq_conn=$(awk -F, '$2 == "prequery" { print $6 }' "$TMP/s4.csv" | sort -u)
[ -n "$pq_conn" ] && [ "$req_conn" != "$pq_conn" ] || fail "pre-queries not on their own connection"
# All sent unless the client fell so far behind that one no longer fitted
# before its request (then skipped: the request never waits for it).
# Falling behind is seen two ways: a late request send, or the client
# reaching a pre-query's planned time too late to send it alone (counted
# as missed: a hiccup of a few us at that moment is enough, while the
# request still leaves on time). No other skip is right on 300 us gaps.
pq_sent=$(csv_col "$TMP/c4/summary.csv" prequeries_sent)
pq_skip=$(csv_col "$TMP/c4/summary.csv" prequeries_skipped)
pq_missed=$(sed -n 's/.*"prequeries_missed": \([0-9][0-9]*\).*/\1/p' "$TMP/c4/summary.json")
[ -n "$pq_missed" ] || fail "summary.json has no prequeries_missed"
[ $((pq_sent + pq_skip)) = 200 ] || fail "pre-query port: sent $pq_sent + skipped $pq_skip"
[ "$pq_missed" -le "$pq_skip" ] || fail "pre-query port: missed $pq_missed of $pq_skip skipped"
[ "$pq_skip" = "$pq_missed" ] || [ "$(csv_col "$TMP/c4/summary.csv" late_sends)" -gt 0 ] ||
	fail "pre-query port: skipped $pq_skip ($pq_missed missed) on schedule"
[ "$(grep -c ',prequery,' "$TMP/s4.csv")" = "$pq_sent" ] || fail "pre-query port count"

# ---- two-tier, adaptive: the trajectory is complete and the lead stays >= 0.
start_server --cpu 1
"$WB" client --server 127.0.0.1:$PORT --cpu 0 --dist exp --interval-us 300 --requests 1000 \
	--prequery-policy adaptive --window 50 --out "$TMP/c5" -q || fail "adaptive run"
stop_server
traj="$TMP/c5/prequery-trajectory.csv"
[ "$(head -1 "$traj")" = "window,value_us,step_us,window_avg_ns,best_us,next_us" ] || fail "trajectory header"
rows=$(($(wc -l < "$traj") - 1))
[ "$rows" -ge 15 ] && [ "$rows" -le 20 ] || fail "trajectory has $rows windows for 1000 replies in windows of 50"
awk -F, 'NR > 1 && ($2 < 0 || $4 <= 0 || $1 != NR - 1) { exit 1 }' "$traj" || fail "trajectory values"
# Row k: the lead used during window k (the first at 0) and the step taken after it.
awk -F, 'NR == 2 && ($2 != 0 || $3 != 100 || $6 != 100) { exit 1 } NR == 3 && ($2 != 100 || $3 != 50) { exit 1 }' "$traj" \
	|| fail "hill climbing steps"
grep -q '"policy": "adaptive"' "$TMP/c5/summary.json" || fail "adaptive summary"
# Each request records the lead in force when it was scheduled.
[ "$(csv_col "$TMP/c5/requests.csv" prequery_lead_us | sort -u | wc -l)" -gt 3 ] || fail "lead did not move"

# ---- three-tier, fixed delay and adaptive.
start_server --log "$TMP/backend.csv" --prequery-port 0 --cpu 1
BPORT=$PORT BPQ=$PQPORT
start_mid() {	# start_mid ARGS: a midtier in front of the backend; sets MPORT
	local pf="$TMP/mport.$RANDOM"
	"$WB" midtier --listen 0 --port-file "$pf" --backend 127.0.0.1:$BPORT "$@" \
		2>"$TMP/mid.err" &
	MID_PID=$!
	wait_for "[ -s $pf ]" || fail "midtier did not start: $(cat "$TMP/mid.err")"
	read -r MPORT < "$pf"
}
stop_mid() { kill -TERM $MID_PID; wait $MID_PID || fail "midtier exit status"; }

start_mid --cpu 0 --helper-cpu 0 --work-us 50 --prequery-delay-us 10 \
	--backend-prequery-port $BPQ --log "$TMP/mid.csv"
"$WB" client --server 127.0.0.1:$MPORT --cpu 0 --wait sleep --dist exp --interval-us 1000 \
	--requests $N --out "$TMP/c6" -q || fail "three-tier run"
stop_mid
[ "$(csv_col "$TMP/c6/summary.csv" count)" = $N ] || fail "three-tier replies"
[ "$(grep -c ',ok,0$' "$TMP/mid.csv")" = $N ] || fail "midtier log rows"
[ "$(head -1 "$TMP/mid.csv")" = "seq,conn,backend_seq,recv_ns,prequery_ns,forward_ns,backend_reply_ns,reply_ns,delay_us,status,backend" ] \
	|| fail "midtier log header"
# Times in order: recv <= forward <= backend reply <= reply.
awk -F, 'NR > 1 && !($4 <= $6 && $6 <= $7 && $7 <= $8) { exit 1 }' "$TMP/mid.csv" || fail "midtier times out of order"
# Every pre-query left after the delay.
awk -F, 'NR > 1 && $5 != "" && $5 - $4 < 10000 { exit 1 }' "$TMP/mid.csv" || fail "pre-query before the delay"
line=$(tail -1 "$TMP/mid.err")
pq=$(echo "$line" | sed 's/.* prequeries=\([0-9]*\).*/\1/')
sk=$(echo "$line" | sed 's/.*prequeries_skipped=\([0-9]*\).*/\1/')
fl=$(echo "$line" | sed 's/.*prequery_failures=\([0-9]*\).*/\1/')
[ $((pq + sk + fl)) -eq $N ] || fail "midtier pre-queries $pq + skipped $sk + failed $fl != $N: $line"
logged=$(awk -F, 'NR > 1 && $5 != ""' "$TMP/mid.csv" | wc -l)
[ "$logged" -eq "$pq" ] || fail "midtier logged $logged pre-queries, counted $pq"
[ "$pq" -gt 0 ] || fail "no pre-query sent with a 10 us delay and 50 us of work"

start_mid --cpu 0 --work-us 30 --prequery-policy adaptive --window 40 --log "$TMP/mida.csv"
"$WB" client --server 127.0.0.1:$MPORT --wait sleep --interval-us 500 --requests 600 \
	--out "$TMP/c7" -q || fail "three-tier adaptive run"
stop_mid
[ -s "$TMP/mida.trajectory.csv" ] || fail "midtier trajectory missing"
rows=$(($(wc -l < "$TMP/mida.trajectory.csv") - 1))
[ "$rows" -ge 12 ] && [ "$rows" -le 15 ] || fail "midtier trajectory has $rows windows"
awk -F, 'NR > 1 && $2 < 0 { exit 1 }' "$TMP/mida.trajectory.csv" || fail "negative delay"
# The same bookkeeping as the client's: row k = the delay used during window k.
[ "$(head -1 "$TMP/mida.trajectory.csv")" = "window,value_us,step_us,window_avg_ns,best_us,next_us" ] \
	|| fail "midtier trajectory header"
awk -F, 'NR == 2 && ($1 != 1 || $2 != 0 || $6 != 100) { exit 1 } NR > 2 && $2 != nv { exit 2 } NR > 1 { nv = $6 }' \
	"$TMP/mida.trajectory.csv" || fail "midtier trajectory bookkeeping"
[ -s "$TMP/mida.snapshot.json" ] || fail "midtier snapshot"
stop_server

# ---- backend down, slow, dying: error replies, the midtier keeps going.
start_mid --prequery-delay-us 5
"$WB" client --server 127.0.0.1:$MPORT --requests 20 --interval-us 1000 --out "$TMP/d1" -q 2>"$TMP/d1.err"
[ $? -eq 1 ] || fail "backend down: client exit status"
[ "$(csv_col "$TMP/d1/summary.csv" errors)" = 20 ] || fail "backend down: error replies"
grep -q 'answered with an error' "$TMP/d1.err" || fail "backend down message"
grep -q 'not reachable' "$TMP/mid.err" || fail "midtier did not say the backend is down"
# The backend comes up on that port: the midtier reconnects.
start_server --port "$BPORT" -q --max-service-us 1000000
"$WB" client --server 127.0.0.1:$MPORT --requests 50 --interval-us 500 -q || fail "after backend came up"
# Too slow: the backend takes 300 ms, the midtier gives up after 100 ms.
stop_mid
start_mid --backend-timeout-ms 100
"$WB" client --server 127.0.0.1:$MPORT --requests 3 --interval-us 1000 --service-us 300000 \
	--timeout-ms 2000 --out "$TMP/d2" -q 2>/dev/null
[ "$(csv_col "$TMP/d2/summary.csv" errors)" = 3 ] || fail "slow backend: errors $(csv_col "$TMP/d2/summary.csv" errors)"
sleep 1	# the late replies arrive and are dropped
# Backend killed mid-run: outstanding and later requests get error replies.
"$WB" client --server 127.0.0.1:$MPORT --requests 4000 --interval-us 250 --out "$TMP/d3" -q 2>/dev/null &
cpid=$!
sleep 0.4
kill -KILL $SERVER_PID; wait $SERVER_PID 2>/dev/null; SERVER_PID=
wait $cpid; [ $? -eq 1 ] || fail "backend killed: client exit status"
ok=$(csv_col "$TMP/d3/summary.csv" count); er=$(csv_col "$TMP/d3/summary.csv" errors)
[ "$ok" -gt 100 ] && [ "$er" -gt 100 ] && [ $((ok + er)) -eq 4000 ] || fail "backend killed: ok $ok errors $er"
kill -0 $MID_PID || fail "midtier died with its backend"
stop_mid
grep -q 'late_replies=3 ' "$TMP/mid.err" || fail "late replies not counted: $(tail -1 "$TMP/mid.err")"

# Usage errors.
"$WB" midtier --backend 127.0.0.1:1 2>/dev/null; [ $? -eq 2 ] || fail "midtier without --listen"
"$WB" midtier --listen 0 --backend x 2>/dev/null; [ $? -eq 2 ] || fail "midtier bad --backend"
"$WB" midtier --listen 0 --backend 127.0.0.1:1 --prequery-delay-us 5 --prequery-adaptive 2>/dev/null
[ $? -eq 2 ] || fail "midtier delay and adaptive (old spelling)"
"$WB" midtier --listen 0 --backend 127.0.0.1:1 --prequery-delay-us 5 --prequery-policy adaptive 2>/dev/null
[ $? -eq 2 ] || fail "midtier delay and adaptive"
"$WB" midtier --listen 0 --backend 127.0.0.1:1 --prequery-policy sometimes 2>/dev/null
[ $? -eq 2 ] || fail "midtier bad policy"
"$WB" client --server 127.0.0.1:1 --prequery-policy sometimes 2>/dev/null; [ $? -eq 2 ] || fail "client bad policy"
"$WB" client --server 127.0.0.1:1 --prequery-port 5 2>/dev/null; [ $? -eq 2 ] || fail "client --prequery-port alone"
