# Flood: for a few seconds, many connections send garbage, many more sit
# idle or open and close, and valid clients send thousands of requests,
# all at once on loopback. Every valid request gets its reply, the server
# keeps serving afterwards, and its memory stays flat.
. "$(dirname "$0")/lib.sh"
start_server --max-conns 300 --idle-timeout-ms 2000 --cpu 0
rss() { awk '/^VmRSS/ { print $2 }' /proc/$SERVER_PID/status; }
"$WB" client --server 127.0.0.1:$PORT --requests 500 --interval-us 100 -q || fail "warm-up"
rss0=$(rss)

# Memory sampler for the whole flood.
( while kill -0 $SERVER_PID 2>/dev/null; do rss >> "$TMP/rss"; sleep 0.2; done ) &
sampler=$!
# Garbage from 6 parallel senders (each round: 10 malformed connections).
for i in 1 2 3 4 5 6; do
	"$WB_TOOLS/wb-garbage" 127.0.0.1 $PORT 60 > "$TMP/g$i.out" 2>&1 &
	garbage+=($!)
done
# 150 connections that connect and say nothing (some beyond --max-conns
# when added to the rest: refused, not crashed).
for i in $(seq 150); do exec {fd}<>/dev/tcp/127.0.0.1/$PORT 2>/dev/null && idle_fds+=($fd); done
# Valid load: 4 clients x 4 connections, exp gaps at 10 000 req/s each.
for i in 1 2 3 4; do
	"$WB" client --server 127.0.0.1:$PORT --connections 4 --dist exp --rate 10000 \
		--requests 20000 --timeout-ms 5000 --seed $i --out "$TMP/c$i" -q 2>"$TMP/c$i.err" &
	clients+=($!)
done
for p in "${clients[@]}"; do wait "$p" || fail "a valid client failed: $(cat "$TMP"/c*.err)"; done
for i in 1 2 3 4; do
	[ "$(csv_col "$TMP/c$i/summary.csv" count)" = 20000 ] || fail "client $i: $(csv_col "$TMP/c$i/summary.csv" count) replies of 20000"
	[ "$(csv_col "$TMP/c$i/summary.csv" unanswered)" = 0 ] || fail "client $i: unanswered requests"
done
for p in "${garbage[@]}"; do wait "$p" || fail "wb-garbage: $(cat "$TMP"/g*.out | tail -3)"; done
for fd in "${idle_fds[@]}"; do exec {fd}>&-; done
# Still serving, memory flat (max over the flood within 8 MB of the start).
"$WB" client --server 127.0.0.1:$PORT --requests 500 --interval-us 100 -q || fail "server not serving after the flood"
max=$(sort -n "$TMP/rss" | tail -1)
echo "server RSS: $rss0 kB at start, $max kB at most during the flood"
[ $((max - rss0)) -lt 8192 ] || fail "server RSS grew from $rss0 to $max kB"
kill $sampler 2>/dev/null
stop_server || fail "server exit status after the flood"
grep -q 'rejected=[1-9]' "$SERVER_ERR" || fail "no garbage was rejected: $(cat "$SERVER_ERR")"
echo "$(cat "$SERVER_ERR")"
