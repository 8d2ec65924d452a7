# Client modes: --duration, --rate, --closed, --connections, sleep and
# hybrid pacing, payloads, UDP, warm-up exclusion, seeds.
. "$(dirname "$0")/lib.sh"
start_server --log "$TMP/log.csv" -q

# --duration with --rate: about rate x duration measured requests.
"$WB" client --server 127.0.0.1:$PORT --rate 2000 --duration 0.5 --dist exp \
	--out "$TMP/dur" -q || fail "duration run"
n=$(csv_col "$TMP/dur/summary.csv" count)
[ "$n" -gt 850 ] && [ "$n" -lt 1150 ] || fail "--duration 0.5 at 2000/s gave $n requests"
approx "$(csv_col "$TMP/dur/summary.csv" interval_us)" 500 0.001 || fail "--rate to interval"
# The schedule spans at most the duration.
span=$(awk -F, 'NR == 2 { a = $2 } END { print ($2 - a) / 1e9 }' "$TMP/dur/requests.csv")
approx "$span" 0.25 0.25 || fail "schedule span $span s"

# --closed: one request outstanding, intended = sent.
"$WB" client --server 127.0.0.1:$PORT --closed --interval-us 100 --requests 200 \
	--service-us 50 --out "$TMP/closed" -q || fail "closed run"
awk -F, 'NR > 1 && $2 != $3 { exit 1 }' "$TMP/closed/requests.csv" || fail "closed: intended != sent"
# ... and the next request leaves only after the previous reply plus the gap.
awk -F, 'NR > 2 && $3 < prev + 100000 { exit 1 } NR > 1 { prev = $4 }' "$TMP/closed/requests.csv" \
	|| fail "closed: overlapping requests"

# --connections 3: round-robin over three connections.
"$WB" client --server 127.0.0.1:$PORT --connections 3 --requests 300 --interval-us 50 \
	--out "$TMP/conns" -q || fail "connections run"
for wait in sleep hybrid; do
	"$WB" client --server 127.0.0.1:$PORT --wait $wait --requests 200 --interval-us 300 \
		--dist exp --out "$TMP/$wait" -q || fail "$wait run"
	[ "$(csv_col "$TMP/$wait/summary.csv" count)" = 200 ] || fail "$wait count"
	# Never sent early, whatever the mode.
	awk -F, 'NR > 1 && $3 < $2 { exit 1 }' "$TMP/$wait/requests.csv" || fail "$wait sent early"
done
"$WB" client --server 127.0.0.1:$PORT --payload 3000 --requests 100 --interval-us 100 \
	--out "$TMP/pay" -q || fail "payload run"

# Seeds: same seed, same gaps; another seed, other gaps.
"$WB" client --server 127.0.0.1:$PORT --dist exp --seed 5 --requests 50 --interval-us 100 --out "$TMP/s1" -q
"$WB" client --server 127.0.0.1:$PORT --dist exp --seed 5 --requests 50 --interval-us 100 --out "$TMP/s2" -q
"$WB" client --server 127.0.0.1:$PORT --dist exp --seed 6 --requests 50 --interval-us 100 --out "$TMP/s3" -q
cmp -s "$TMP/s1/gaps.csv" "$TMP/s2/gaps.csv" || fail "same seed, different gaps"
cmp -s "$TMP/s1/gaps.csv" "$TMP/s3/gaps.csv" && fail "different seeds, same gaps"
stop_server

conns=$(awk -F, 'NR > 1 { print $6 }' "$TMP/log.csv" | sort -u | wc -l)
# dur, closed, 3 conns, sleep, hybrid, payload, 3 seeds = 11 connections
[ "$conns" -eq 11 ] || fail "server saw $conns connections, want 11"

# UDP end to end, with warm-up excluded from the CSV but logged by the server.
start_server --proto udp --log "$TMP/udp.csv" -q
"$WB" client --server 127.0.0.1:$PORT --proto udp --requests 300 --warmup 25 \
	--interval-us 200 --out "$TMP/udp" -q || fail "udp run"
stop_server
[ "$(($(wc -l < "$TMP/udp/requests.csv") - 1))" = 300 ] || fail "udp rows"
[ "$(grep -c ',request,' "$TMP/udp.csv")" = 325 ] || fail "udp server log"
[ "$(awk -F, 'NR == 2 { print $1 }' "$TMP/udp/requests.csv")" = 25 ] || fail "first measured seq"
