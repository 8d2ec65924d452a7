# Server log, pre-query port and busy-poll: every message logged with
# consistent times; SIGTERM flushes the log and prints the summary line.
. "$(dirname "$0")/lib.sh"
for mode in "" --busy-poll; do
	start_server --log "$TMP/log.csv" --prequery-port 0 --max-service-us 50 $mode
	"$WB" client --server 127.0.0.1:$PORT --requests 300 --interval-us 300 \
		--service-us 1000 --out "$TMP/c" --force -q || fail "client $mode"
	stop_server || fail "server exit $mode"
	grep -q '^wakebench-server: requests=300 prequeries=0 rejected=0 connections=1' "$SERVER_ERR" \
		|| fail "summary line: $(cat "$SERVER_ERR")"
	[ "$(head -1 "$TMP/log.csv")" = "seq,type,recv_ns,send_ns,service_ns,conn" ] || fail "log header"
	[ "$(grep -c ',request,' "$TMP/log.csv")" = 300 ] || fail "log rows"
	# Service time capped by --max-service-us 50: 50000 ns, send - recv >= it.
	awk -F, 'NR > 1 && ($5 != 50000 || $4 - $3 < 50000) { exit 1 }' "$TMP/log.csv" \
		|| fail "service cap not applied $mode"
	# The client sees the capped service inside its service latency.
	awk -F, 'NR > 1 && $6 < 50000 { exit 1 }' "$TMP/c/requests.csv" || fail "client service latency"
done

# --max-conns: the connection over the limit is closed and counted.
start_server --max-conns 2
err=$("$WB" client --server 127.0.0.1:$PORT --connections 3 --requests 30 \
	--interval-us 100 -q 2>&1); rc=$?
[ $rc -eq 1 ] || fail "over --max-conns: client exit $rc"
echo "$err" | grep -q 'closed the connection\|reset the connection\|receive\|send' || fail "over max-conns message: $err"
"$WB" client --server 127.0.0.1:$PORT --connections 2 --requests 30 --interval-us 100 -q \
	|| fail "within --max-conns"
stop_server
grep -q 'refused=1 ' "$SERVER_ERR" || fail "refused count: $(cat "$SERVER_ERR")"

# --idle-timeout-ms: an idle connection is closed, an active one is not.
start_server --idle-timeout-ms 200
exec 5<>/dev/tcp/127.0.0.1/$PORT
"$WB" client --server 127.0.0.1:$PORT --requests 400 --interval-us 1000 -q \
	|| fail "active client closed by idle timeout"
exec 5>&-
stop_server
grep -q 'idle_closed=1$' "$SERVER_ERR" || fail "idle count: $(cat "$SERVER_ERR")"

# --max-payload: a request with a larger payload is rejected (connection
# closed, counted), one within the limit is served.
start_server --max-payload 100
"$WB" client --server 127.0.0.1:$PORT --payload 100 --requests 20 --interval-us 100 -q \
	|| fail "payload at --max-payload refused"
err=$("$WB" client --server 127.0.0.1:$PORT --payload 101 --requests 20 \
	--interval-us 100 -q 2>&1); rc=$?
[ $rc -eq 1 ] || fail "over --max-payload: client exit $rc"
echo "$err" | grep -q 'closed the connection\|reset the connection\|receive\|send' || fail "over max-payload message: $err"
stop_server
grep -q 'rejected=1 ' "$SERVER_ERR" || fail "rejected count: $(cat "$SERVER_ERR")"
