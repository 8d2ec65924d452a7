# Front end and usage errors: one-line reason, exit 2; runtime errors exit 1
# and still write what they have.
. "$(dirname "$0")/lib.sh"
"$WB" --version | grep -q '^wakebench [0-9]' || fail "--version"
"$WB" --help | grep -q 'server' || fail "--help lists commands"
"$WB" nosuchcmd 2>/dev/null; [ $? -eq 2 ] || fail "unknown command exit"
"$WB" client --help | grep -q -- '--prequery\|--dist' || fail "client --help"
"$WB" server --help | grep -q -- '--busy-poll' || fail "server --help"
# Every command listed by --help answers --help with its usage, exit 0.
for c in $("$WB" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	out=$("$WB" $c --help 2>&1) || fail "$c --help exited $?: $out"
	echo "$out" | grep -q "^Usage: wakebench $c" || fail "$c --help: $out"
done

expect_usage() {
	local err rc
	err=$("$WB" "$@" 2>&1 >/dev/null); rc=$?
	[ $rc -eq 2 ] || fail "'$*' exited $rc, want 2"
	echo "$err" | head -1 | grep -q "^wakebench-" || fail "'$*' message: $err"
}
expect_usage client
expect_usage client --server nohostport
expect_usage client --server 127.0.0.1:1 --dist gauss
expect_usage client --server 127.0.0.1:1 --interval-us -5
expect_usage client --server 127.0.0.1:1 --interval-us 10x
# Numbers are decimal: strtod alone read 0x10 as 16 and took inf/nan.
expect_usage client --server 127.0.0.1:1 --interval-us 0x10
expect_usage client --server 127.0.0.1:1 --rate 0x10
expect_usage client --server 127.0.0.1:1 --service-us ' 5'
expect_usage server --max-service-us 0x100
expect_usage client --server 127.0.0.1:1 --dist poisson --interval-us 2.5
expect_usage client --server 127.0.0.1:1 --rate 10 --interval-us 5
expect_usage client --server 127.0.0.1:1 --requests 0
expect_usage client --server 127.0.0.1:1 --wait nap
expect_usage client --server 127.0.0.1:1 --cpu 999
expect_usage client --server 127.0.0.1:1 --proto sctp
expect_usage server --port 70000
expect_usage server --cpu 999
expect_usage server --max-service-us abc
expect_usage server extra-arg

# Server down: clear error, exit 1, outputs written with zero rows.
start_server -q; port=$PORT; stop_server
err=$("$WB" client --server 127.0.0.1:$port --requests 5 --out "$TMP/down" 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "server down: exit $rc"
echo "$err" | grep -q 'cannot connect' || fail "server down message: $err"
[ -s "$TMP/down/summary.json" ] || fail "no summary written when server down"
grep -q '"status": "failed"' "$TMP/down/summary.json" || fail "status not failed"

# Reply timeout: a server that accepts but never answers (stopped process).
start_server -q
kill -STOP $SERVER_PID
err=$("$WB" client --server 127.0.0.1:$PORT --requests 20 --interval-us 1000 \
	--timeout-ms 200 --out "$TMP/to" 2>&1 >/dev/null); rc=$?
kill -CONT $SERVER_PID
[ $rc -eq 1 ] || fail "timeout: exit $rc"
echo "$err" | grep -q 'no reply' || fail "timeout message: $err"
[ "$(($(wc -l < "$TMP/to/requests.csv") - 1))" -ge 1 ] || fail "partial rows missing"
stop_server

# Server killed mid-run: the client reports it and keeps partial results.
start_server -q
"$WB" client --server 127.0.0.1:$PORT --requests 100000 --interval-us 100 \
	--out "$TMP/kill" -q 2>"$TMP/kill.err" &
cpid=$!
sleep 0.5
kill -KILL $SERVER_PID; wait $SERVER_PID 2>/dev/null; SERVER_PID=
wait $cpid; rc=$?
[ $rc -eq 1 ] || fail "killed server: client exit $rc"
grep -q 'closed the connection\|reset the connection\|receive\|send' "$TMP/kill.err" || fail "kill message: $(cat "$TMP/kill.err")"
rows=$(($(wc -l < "$TMP/kill/requests.csv") - 1))
[ $rows -gt 100 ] || fail "killed server: only $rows partial rows"

# SIGINT to the client: partial but complete, parseable outputs.
start_server -q
"$WB" client --server 127.0.0.1:$PORT --requests 100000 --interval-us 100 \
	--out "$TMP/int" -q &
cpid=$!
sleep 0.5
kill -INT $cpid; wait $cpid; rc=$?
[ $rc -eq 1 ] || fail "SIGINT: client exit $rc"
grep -q '"status": "interrupted"' "$TMP/int/summary.json" || fail "interrupted status"
awk -F, 'NR == 1 { n = NF } NR > 1 && NF != n { exit 1 }' "$TMP/int/requests.csv" || fail "ragged CSV after SIGINT"

# Server SIGTERM: log flushed, one-line summary.
stop_server

# Replies that do not match: a clear error, partial results, exit 1.
for mode in wrongseq:"does not match" echoskew:"echoes send time" garbage:"malformed reply" request:"unexpected request"; do
	"$WB_TOOLS/wb-badserver" "$TMP/bport" "${mode%%:*}" &
	bpid=$!
	wait_for "[ -s $TMP/bport ]" || fail "badserver did not start"
	read -r bport < "$TMP/bport"
	rm -f "$TMP/bport"
	err=$("$WB" client --server 127.0.0.1:$bport --requests 5 --interval-us 1000 --out "$TMP/bad-${mode%%:*}" 2>&1 >/dev/null); rc=$?
	kill $bpid 2>/dev/null; wait $bpid 2>/dev/null
	[ $rc -eq 1 ] || fail "${mode%%:*}: client exit $rc"
	echo "$err" | grep -q "${mode#*:}" || fail "${mode%%:*}: message '$err'"
	grep -q '"status": "failed"' "$TMP/bad-${mode%%:*}/summary.json" || fail "${mode%%:*}: summary status"
done
