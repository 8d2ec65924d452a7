# The thesis' behaviours (issue 15): pre-query timing gap-start and
# sleep-after, pre-query replies (--prequery-ack) and a pre-query-only
# receiver on the same core, the burst warm-up, warm-up gaps of their
# own, the timer slack of the client's sleeps, and the floor-index
# percentile rule. Each is checked on what the run wrote.
. "$(dirname "$0")/lib.sh"

json_num() {	# FILE KEY: a number of summary.json
	sed -n "s/.*\"$2\": \([0-9.][0-9.]*\).*/\1/p" "$1" | head -n 1
}

start_server --log "$TMP/s.csv" --cpu 1

# ---- gap-start: each pre-query leaves right after the previous request
# (within 500 us of it, on 2 ms gaps), so its effective lead is about
# the whole gap; a gap no longer than the lead skips it.
"$WB" client --server 127.0.0.1:$PORT --cpu 0 --interval-us 2000 --requests 100 \
	--prequery-lead-us 50 --prequery-at gap-start --out "$TMP/gs" -q || fail "gap-start run"
[ "$(csv_col "$TMP/gs/summary.csv" prequeries_sent)" = 100 ] || fail "gap-start: not all sent"
# requests.csv: 2 intended_ns, 3 sent_ns, 9 prequery_sent_ns, 13 planned.
# Planned at the previous request's intended time, sent after it and
# before its own request. One the client reached too late to go alone
# (a stall of the host) goes together with its request (sent_ns equal):
# never more than 1 in 20 of them.
awk -F, 'NR == 2 { prev = $2; next }
	NR > 2 { if ($9 == "") exit 1
		 if ($13 != prev) exit 2
		 if ($9 == $3) tog++
		 else if ($9 < $13 || $9 >= $3) exit 3
		 prev = $2 }
	END { if (tog * 20 > NR - 2) exit 4 }' "$TMP/gs/requests.csv" ||
	fail "gap-start: a pre-query not at the start of its gap ($?)"
# so its effective lead is most of the 2 ms gap
lead=$(awk -F, 'NR > 1 { print $3 - $9 }' "$TMP/gs/requests.csv" | sort -n | sed -n 50p)
[ "$lead" -gt 1000000 ] || fail "gap-start: median effective lead $lead ns"
grep -q '"at": "gap-start"' "$TMP/gs/summary.json" || fail "gap-start not in summary.json"
"$WB" client --server 127.0.0.1:$PORT --interval-us 500 --requests 50 \
	--prequery-lead-us 500 --prequery-at gap-start --out "$TMP/gs2" -q || fail "gap-start skip run"
[ "$(csv_col "$TMP/gs2/summary.csv" prequeries_skipped)" = 50 ] ||
	fail "gap-start: gap = lead must skip"

# ---- sleep-after: pre-query, the request L later; L adds to every gap.
"$WB" client --server 127.0.0.1:$PORT --cpu 0 --interval-us 1000 --requests 100 \
	--prequery-lead-us 200 --prequery-at sleep-after --out "$TMP/sa" -q || fail "sleep-after run"
[ "$(csv_col "$TMP/sa/summary.csv" prequeries_sent)" = 100 ] || fail "sleep-after: not all sent"
awk -F, 'NR > 1 && $2 != 1200000 { exit 1 }' "$TMP/sa/gaps.csv" || fail "sleep-after: gaps not 1000 + 200 us"
# planned exactly L before the request's intended time; sent alone, first
awk -F, 'NR > 1 { if ($2 - $13 != 200000 || $9 >= $3) exit 1 }' "$TMP/sa/requests.csv" ||
	fail "sleep-after: pre-query not L before its request"
approx "$(json_num "$TMP/sa/summary.json" rate_target)" 833.333 0.01 || fail "sleep-after: rate target"
"$WB" client --server 127.0.0.1:$PORT --prequery-policy adaptive --prequery-at sleep-after \
	--requests 10 -q 2> "$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q 'sleep-after needs a fixed lead' "$TMP/err" || fail "sleep-after with adaptive: exit $rc"
"$WB" client --server 127.0.0.1:$PORT --prequery-at gap-start --requests 10 -q 2> /dev/null
[ $? = 2 ] || fail "--prequery-at without a pre-query must be a usage error"

# ---- --prequery-ack: the server replies to each pre-query, the client
# reads the reply and drops it (the thesis' receiver replied).
"$WB" client --server 127.0.0.1:$PORT --interval-us 300 --requests 100 \
	--prequery-lead-us 30 --prequery-ack --out "$TMP/ack" -q || fail "ack run"
sent=$(csv_col "$TMP/ack/summary.csv" prequeries_sent)
[ "$(json_num "$TMP/ack/summary.json" prequery_acks)" = "$sent" ] || fail "acks != pre-queries sent ($sent)"
[ "$(csv_col "$TMP/ack/summary.csv" count)" = 100 ] || fail "ack: a pre-query reply taken for a request's"
stop_server
# the server log: the acked pre-queries have a send time, the others none
acked=$(awk -F, '$2 == "prequery" && $4 != ""' "$TMP/s.csv" | wc -l)
[ "$acked" = "$sent" ] || fail "server answered $acked pre-queries, $sent asked for it"
[ -n "$(awk -F, '$2 == "prequery" && $4 == ""' "$TMP/s.csv" | head -n 1)" ] ||
	fail "server log: a pre-query without --prequery-ack was answered"

# ---- the thesis' layout: a second server on the same core serves the
# pre-queries only; a burst warm-up of 50 goes to it first.
start_server --log "$TMP/req.csv" --cpu 1
REQPORT=$PORT
"$WB" server --port 0 --port-file "$TMP/pq.port" --cpu 1 --prequery-only \
	--log "$TMP/pq.csv" -q & PQPID=$!
wait_for "[ -s '$TMP/pq.port' ]" || fail "pre-query server did not start"
PQ=$(cat "$TMP/pq.port")
"$WB" client --server 127.0.0.1:$REQPORT --prequery-port "$PQ" --prequery-lead-us 30 \
	--prequery-ack --warmup 50 --warmup-mode burst --interval-us 500 --requests 100 \
	--out "$TMP/two" -q || fail "two-server run"
"$WB" client --server 127.0.0.1:$PQ --requests 5 -q 2> /dev/null
[ $? = 1 ] || fail "a request to the --prequery-only server must fail"
kill -TERM $PQPID; wait $PQPID
stop_server
[ "$(json_num "$TMP/two/summary.json" warmup_burst_sent)" = 50 ] || fail "burst: not 50 sent"
# no warm-up request in the schedule; 100 measured
[ "$(awk -F, 'NR > 1 && $3 == 1' "$TMP/two/gaps.csv" | wc -l)" = 0 ] || fail "burst: warm-up requests scheduled"
[ "$(csv_col "$TMP/two/summary.csv" count)" = 100 ] || fail "burst: measured count"
[ "$(grep -c ',request,' "$TMP/pq.csv")" = 0 ] || fail "pre-query server logged a request as served"
[ "$(grep -c ',prequery,' "$TMP/req.csv")" = 0 ] || fail "request server got pre-queries"
pqs=$(grep -c ',prequery,' "$TMP/pq.csv")
want=$((50 + $(csv_col "$TMP/two/summary.csv" prequeries_sent)))
[ "$pqs" = "$want" ] || fail "pre-query server saw $pqs, client sent $want (50 burst)"
# The burst went first on the pre-query connection (the log is in its
# order), with seqs after the schedule's last (100-149): none passes for
# a request's pre-query.
awk -F, 'NR > 1 { if ($1 >= 100) { if (NR - 1 != ++b || $1 != 99 + b) exit 1 } }
	END { if (b != 50) exit 2 }' "$TMP/pq.csv" ||
	fail "burst: not the first 50 pre-queries, seqs 100-149 ($?)"

# ---- warm-up gaps of their own; floor-index percentiles; timer slack.
start_server --cpu 1
"$WB" client --server 127.0.0.1:$PORT --interval-us 200 --requests 100 --warmup 20 \
	--warmup-interval-us 3000 --warmup-dist fixed --percentile-rule floor-index \
	--out "$TMP/wu" -q || fail "warm-up interval run"
[ "$(awk -F, 'NR > 1 && $3 == 1 && $2 == 3000000' "$TMP/wu/gaps.csv" | wc -l)" = 20 ] ||
	fail "warm-up gaps not 3 ms"
[ "$(awk -F, 'NR > 1 && $3 == 0 && $2 == 200000' "$TMP/wu/gaps.csv" | wc -l)" = 100 ] ||
	fail "measured gaps changed"
# n = 100: the thesis' p99 is the sorted value at index 99, the maximum
[ "$(csv_col "$TMP/wu/summary.csv" lat_p99_us)" = "$(csv_col "$TMP/wu/summary.csv" lat_max_us)" ] ||
	fail "floor-index p99 is not the max of 100"
"$WB" client --server 127.0.0.1:$PORT --interval-us 200 --requests 100 --out "$TMP/nr" -q ||
	fail "nearest-rank run"
nr=$(awk -F, 'NR > 1 { print $5 }' "$TMP/nr/requests.csv" | sort -n | sed -n 99p)
approx "$(csv_col "$TMP/nr/summary.csv" lat_p99_us)" "$(awk -v v="$nr" 'BEGIN { printf "%.3f", v / 1e3 }')" 0.0001 ||
	fail "nearest-rank p99 is not rank 99 of 100"
# The kernel's default slack (50 us) makes every sleep overshoot: the
# pacing error of sleep pacing grows by tens of us (35 -> 88 us here).
for sl in 1 50000; do
	"$WB" client --server 127.0.0.1:$PORT --cpu 0 --wait sleep --interval-us 1000 \
		--requests 300 --timer-slack-ns $sl --out "$TMP/sl$sl" -q || fail "slack $sl run"
done
stop_server
p1=$(csv_col "$TMP/sl1/summary.csv" pace_p50_us)
p50=$(csv_col "$TMP/sl50000/summary.csv" pace_p50_us)
awk -v a="$p1" -v b="$p50" 'BEGIN { exit !(b > a + 20) }' ||
	fail "timer slack 50000 did not add to the sleeps' overshoot ($p1 -> $p50 us)"
grep -q '"timer_slack_ns": 50000' "$TMP/sl50000/summary.json" || fail "slack not in summary.json"
echo "ok: gap-start, sleep-after, ack, pre-query-only server, burst, warm-up gaps, percentile rule, timer slack ($p1 -> $p50 us)"
