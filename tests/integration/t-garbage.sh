# Malformed frames (every bad field, truncated header and payload, random
# bytes) hit the server while a valid client runs: the valid client gets
# every reply, each bad connection is closed and counted.
. "$(dirname "$0")/lib.sh"
start_server --log "$TMP/server.csv"
"$WB" client --server 127.0.0.1:$PORT --interval-us 500 --requests 3000 \
	--dist exp --out "$TMP/c" -q &
cpid=$!
"$WB_TOOLS/wb-garbage" 127.0.0.1 $PORT 20 || fail "server kept bad connections"
"$WB_TOOLS/wb-garbage" 127.0.0.1 $PORT 5 udp >/dev/null 2>&1 || true
wait $cpid || fail "valid client failed: $(cat "$TMP/c/summary.txt")"
[ "$(csv_col "$TMP/c/summary.csv" count)" = 3000 ] || fail "client lost replies"
[ "$(csv_col "$TMP/c/summary.csv" unanswered)" = 0 ] || fail "unanswered requests"
stop_server || fail "server exit status"
grep -q 'rejected=200 ' "$SERVER_ERR" || fail "rejected count: $(cat "$SERVER_ERR")"

# UDP: garbage datagrams are dropped and counted, valid ones served.
start_server --proto udp
"$WB_TOOLS/wb-garbage" 127.0.0.1 $PORT 3 udp || fail "udp garbage tool"
"$WB" client --server 127.0.0.1:$PORT --proto udp --requests 200 \
	--interval-us 200 -q --out "$TMP/u" || fail "udp client"
[ "$(csv_col "$TMP/u/summary.csv" count)" = 200 ] || fail "udp replies"
stop_server
grep -q 'rejected=30 ' "$SERVER_ERR" || fail "udp rejected count: $(cat "$SERVER_ERR")"
