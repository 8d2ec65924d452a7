# A client that talks while it runs (issue 18): the start line at once,
# a line per --report-interval while the run goes (adding up to the run),
# --latency-spectrum's table agreeing with the summary, p95/p99.99/stddev
# in every summary, and an unreachable or silent server said as such,
# never as a table of zeros.
. "$(dirname "$0")/lib.sh"

# lines FILE: the interval lines ("[   1.0 s] sent ...")
lines() { grep -E '^\[ *[0-9]+\.[0-9] s\] sent ' "$1" || true; }
# sent: the sent count of each interval line on stdin
sent() { sed 's/^\[[^]]*\] sent \([0-9]*\).*/\1/'; }

start_server

# ---- a 3 s run reporting every second, read while it runs
"$WB" client --server 127.0.0.1:$PORT --rate 2000 --duration 3 --report-interval 1 \
	--warmup 200 --out "$TMP/r" > "$TMP/r.out" 2> "$TMP/r.err" &
cpid=$!
t0=$(date +%s%N)
wait_for "grep -q '^wakebench client: ' '$TMP/r.out'" || fail "no start line: $(cat "$TMP/r.out" "$TMP/r.err")"
ms=$((($(date +%s%N) - t0) / 1000000))
kill -0 $cpid 2>/dev/null || fail "the start line came only after the run ended"
[ $ms -lt 1000 ] || fail "the start line took $ms ms"
# the first interval line, while the run still goes
wait_for "[ -n \"\$(lines '$TMP/r.out')\" ]" || fail "no interval line within 5 s: $(cat "$TMP/r.out")"
kill -0 $cpid 2>/dev/null || fail "the first interval line came only after the run ended"
wait $cpid || fail "3 s run: exit $?: $(cat "$TMP/r.err")"
head -1 "$TMP/r.out" | grep -q "^wakebench client: tcp 127.0.0.1:$PORT fixed interval=500.000us rate=2000.0/s duration=3s warmup=200 wait=spin seed=1 prequery=off out=$TMP/r\$" \
	|| fail "start line: $(head -1 "$TMP/r.out")"
sed -n 2p "$TMP/r.out" | grep -q '^reporting every 1 s: .*within 0.39 %' || fail "no reporting line: $(sed -n 2p "$TMP/r.out")"
n=$(lines "$TMP/r.out" | wc -l)
[ "$n" -ge 2 ] || fail "$n interval lines in a 3 s run: $(cat "$TMP/r.out")"
# every line before the summary, which follows them
last_iv=$(grep -nE '^\[ *[0-9.]+ s\]' "$TMP/r.out" | tail -1 | cut -d: -f1)
first_sum=$(grep -n '^requests: ' "$TMP/r.out" | cut -d: -f1)
[ "$last_iv" -lt "$first_sum" ] || fail "interval lines after the summary"
# full intervals at about the rate; all of them add up to the run exactly
lines "$TMP/r.out" | head -2 | tail -1 | sent | awk '{ if ($1 < 1000 || $1 > 3000) exit 1 }' \
	|| fail "second interval's count is not about 2000: $(lines "$TMP/r.out" | head -2 | tail -1)"
lines "$TMP/r.out" | grep -q ' p50 [0-9.]* us p99 [0-9.]* us' || fail "interval lines without p50/p99"
sum=$(lines "$TMP/r.out" | sent | awk '{ s += $1 } END { print s }')
ans=$(lines "$TMP/r.out" | sed 's/.* answered \([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s }')
warm=$(lines "$TMP/r.out" | sed -n 's/.* warm-up \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
count=$(csv_col "$TMP/r/summary.csv" count)
[ "$sum" = "$count" ] || fail "interval lines sent $sum, the summary counts $count"
[ "$ans" = "$count" ] || fail "interval lines answered $ans, the summary $count"
[ "$warm" = 200 ] || fail "interval lines' warm-up $warm, not 200"
# the terminal shows no second start line, and no error line on success
[ "$(grep -c '^wakebench client: ' "$TMP/r.out")" = 1 ] || fail "start line printed twice"
head -1 "$TMP/r/summary.txt" | grep -q "^wakebench client: tcp 127.0.0.1:$PORT " || fail "summary.txt starts with $(head -1 "$TMP/r/summary.txt")"

# ---- p95, p99.99 and the standard deviation in every summary
for m in lat svc pace; do
	for c in p95 p9999 stddev; do
		v=$(csv_col "$TMP/r/summary.csv" ${m}_${c}_us) || fail "summary.csv has no ${m}_${c}_us"
		[[ $v =~ ^[0-9]+\.[0-9]{3}$ ]] || fail "${m}_${c}_us is '$v'"
	done
done
# appended after percentile_rel_error: the columns before keep their places
head -1 "$TMP/r/summary.csv" | grep -q ',percentile_rel_error,lat_stddev_us,svc_p95_us,svc_p9999_us,svc_stddev_us,pace_p95_us,pace_p9999_us,pace_stddev_us,lat_p50_lo_us,' \
	|| fail "summary.csv does not end with the stddev columns: $(head -1 "$TMP/r/summary.csv")"
# the standard deviation of the latencies in requests.csv (sample, n - 1)
sd=$(csv_col "$TMP/r/requests.csv" latency_ns | awk '{ n++; d = $1 - m; m += d / n; s += d * ($1 - m) } END { printf "%.3f", sqrt(s / (n - 1)) / 1e3 }')
approx "$sd" "$(csv_col "$TMP/r/summary.csv" lat_stddev_us)" 0.002 || fail "lat_stddev_us $(csv_col "$TMP/r/summary.csv" lat_stddev_us), requests.csv says $sd"
python3 - "$TMP/r/summary.json" <<'EOF' || fail "summary.json: no stddev, p95 or p9999"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("latency_us", "service_latency_us", "pacing_error_us"):
    for s in ("p95", "p9999", "stddev"):
        assert isinstance(d[k][s], (int, float)), (k, s)
EOF
for h in 'p95' 'p99.99' 'stddev'; do
	grep -qE "^\(us\) .* $h( |$)" "$TMP/r/summary.txt" || fail "summary.txt has no $h column"
done
grep -qE '^latency +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$TMP/r/summary.txt" || fail "summary.txt: no latency p95/p99.99/stddev row"

# ---- --threads 2: one line for both threads, adding up
"$WB" client --server 127.0.0.1:$PORT --threads 2 --rate 4000 --requests 5000 \
	--report-interval 0.5 --out "$TMP/t2" > "$TMP/t2.out" || fail "--threads 2 run"
[ "$(lines "$TMP/t2.out" | wc -l)" -ge 2 ] || fail "--threads 2: interval lines: $(cat "$TMP/t2.out")"
[ "$(lines "$TMP/t2.out" | sent | awk '{ s += $1 } END { print s }')" = 5000 ] \
	|| fail "--threads 2: the lines do not add up to 5000: $(lines "$TMP/t2.out")"

# ---- --latency-spectrum: the table, and its p50/p99 are the summary's
"$WB" client --server 127.0.0.1:$PORT --requests 1000 --interval-us 200 --latency-spectrum \
	--out "$TMP/s" > "$TMP/s.out" || fail "--latency-spectrum run"
grep -q '^latency percentile spectrum (us; exact, nearest rank over 1000 samples):$' "$TMP/s.out" \
	|| fail "no spectrum title: $(cat "$TMP/s.out")"
grep -qE '^ +Value +Percentile +TotalCount 1/\(1-Percentile\)$' "$TMP/s.out" || fail "no spectrum header"
# spectrum ROWS: "value percentile totalcount inverse" lines
spec() { awk 'NF == 4 && $2 ~ /^[01]\.[0-9][0-9][0-9][0-9][0-9][0-9]$/' "$1"; }
# min, 2 4 8 10 16 32 64 100 128 256 512 1000, max: 1000 samples support no 1024
[ "$(spec "$TMP/s.out" | wc -l)" = 14 ] || fail "spectrum rows: $(spec "$TMP/s.out" | wc -l), want 14"
spec "$TMP/s.out" | grep -q ' 0\.999023 ' && fail "a p99.9023 row with 1000 samples"
p50=$(spec "$TMP/s.out" | awk '$2 == "0.500000" { print $1, $3 }')
p99=$(spec "$TMP/s.out" | awk '$2 == "0.990000" { print $1, $3 }')
p999=$(spec "$TMP/s.out" | awk '$2 == "0.999000" { print $1 }')
[ "$p50" = "$(csv_col "$TMP/s/summary.csv" lat_p50_us) 500" ] || fail "spectrum p50 '$p50', summary $(csv_col "$TMP/s/summary.csv" lat_p50_us)"
[ "$p99" = "$(csv_col "$TMP/s/summary.csv" lat_p99_us) 990" ] || fail "spectrum p99 '$p99', summary $(csv_col "$TMP/s/summary.csv" lat_p99_us)"
[ "$p999" = "$(csv_col "$TMP/s/summary.csv" lat_p999_us)" ] || fail "spectrum p99.9 $p999"
spec "$TMP/s.out" | tail -1 | grep -qE "^ +$(csv_col "$TMP/s/summary.csv" lat_max_us) +1\.000000 +1000 +inf$" \
	|| fail "spectrum's last row is not the maximum: $(spec "$TMP/s.out" | tail -1)"
grep -q "^#\[Mean    = .*, StdDeviation   = *$(csv_col "$TMP/s/summary.csv" lat_stddev_us)\]$" "$TMP/s.out" \
	|| fail "spectrum's standard deviation is not the summary's"
# into summary.txt too; a short run prints no interval line by default
[ "$(spec "$TMP/s/summary.txt" | wc -l)" = 14 ] || fail "summary.txt has no spectrum"
[ -z "$(lines "$TMP/s.out")" ] || fail "a 0.2 s run printed interval lines"
grep -q '^reporting every' "$TMP/s.out" && fail "a 0.2 s run says it reports"
# -q: only the asked-for table on stdout
"$WB" client --server 127.0.0.1:$PORT --requests 100 --latency-spectrum -q > "$TMP/q.out" || fail "-q --latency-spectrum"
head -1 "$TMP/q.out" | grep -q '^latency percentile spectrum' || fail "-q --latency-spectrum: $(head -3 "$TMP/q.out")"
[ "$(spec "$TMP/q.out" | wc -l)" = 10 ] || fail "100 samples: $(spec "$TMP/q.out" | wc -l) rows, want 10 (min, 2..100, max)"
"$WB" client --server 127.0.0.1:$PORT --requests 100 -q > "$TMP/q2.out" || fail "-q run"
[ -s "$TMP/q2.out" ] && fail "-q printed: $(cat "$TMP/q2.out")"

# ---- the default: a run expected longer than 10 s reports every 10 s
"$WB" client --server 127.0.0.1:$PORT --rate 100 --duration 60 > "$TMP/d.out" 2>&1 &
cpid=$!
wait_for "grep -q '^reporting every' '$TMP/d.out'" || fail "a 60 s run does not report: $(cat "$TMP/d.out")"
kill -TERM $cpid; wait $cpid
grep -q '^reporting every 10 s: ' "$TMP/d.out" || fail "default interval: $(grep '^reporting' "$TMP/d.out")"
# 2000 requests of 10 ms: 20 s expected
"$WB" client --server 127.0.0.1:$PORT --requests 2000 --interval-us 10000 --report-interval 0 > "$TMP/z.out" 2>&1 &
cpid=$!
wait_for "grep -q '^wakebench client: ' '$TMP/z.out'" || fail "no start line"
sleep 0.3
kill -TERM $cpid; wait $cpid
grep -q '^reporting' "$TMP/z.out" && fail "--report-interval 0 reports"
"$WB" client --server 127.0.0.1:$PORT --report-interval 0.05 2>"$TMP/u.err"; rc=$?
[ $rc = 2 ] || fail "--report-interval 0.05: exit $rc"
grep -q 'at least 0.1 s' "$TMP/u.err" || fail "--report-interval 0.05: $(cat "$TMP/u.err")"
stop_server

# ---- an unreachable server: the error, no table of zeros; the summaries say failed
port=$(test_port 7)
"$WB" client --server 127.0.0.1:$port --requests 10 --out "$TMP/x" > "$TMP/x.out" 2> "$TMP/x.err"; rc=$?
[ $rc = 1 ] || fail "unreachable server: exit $rc"
grep -q "cannot connect to 127.0.0.1:$port: Connection refused" "$TMP/x.err" || fail "unreachable: stderr $(cat "$TMP/x.err")"
[ "$(wc -l < "$TMP/x.out")" = 1 ] || fail "unreachable: stdout has more than the start line: $(cat "$TMP/x.out")"
grep -qE '^\(us\)|^latency|p50' "$TMP/x.out" "$TMP/x.err" && fail "unreachable: a table of zeros"
[ "$(csv_col "$TMP/x/summary.csv" status)" = failed ] || fail "unreachable: summary.csv status"
grep -q '^requests: none sent$' "$TMP/x/summary.txt" || fail "unreachable: summary.txt $(cat "$TMP/x/summary.txt")"
grep -q "^error: cannot connect to 127.0.0.1:$port" "$TMP/x/summary.txt" || fail "unreachable: summary.txt has no error"
grep -q 'p50' "$TMP/x/summary.txt" && fail "unreachable: summary.txt has a table"

# bad_listener MODE: a loopback listener in the background (SPID) that
# accepts one connection and then, MODE silent, never answers; trickle,
# reads the requests and sends a space every 4 ms (more often than the
# client polls), never a whole reply. Sets SPORT.
bad_listener() {
	rm -f "$TMP/bad.port"
	python3 - "$TMP/bad.port" "$1" <<'EOF' &
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(4)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
c, _ = s.accept()
if sys.argv[2] == "silent":
    time.sleep(10)
    sys.exit(0)
c.recv(65536)
try:
    for _ in range(2500):
        c.send(b" ")
        time.sleep(0.004)
except OSError:
    pass
EOF
	SPID=$!
	wait_for "[ -s '$TMP/bad.port' ]" || fail "$1 listener did not start"
	read -r SPORT < "$TMP/bad.port"
}

# ---- a server that accepts and never answers: "no replies", no zeros
bad_listener silent
"$WB" client --server 127.0.0.1:$SPORT --requests 20 --timeout-ms 300 --out "$TMP/n" > "$TMP/n.out" 2> "$TMP/n.err"; rc=$?
kill $SPID 2>/dev/null; wait $SPID 2>/dev/null
[ $rc = 1 ] || fail "silent server: exit $rc"
grep -q 'no reply to request 0 within 300 ms' "$TMP/n.err" || fail "silent server: stderr $(cat "$TMP/n.err")"
for f in "$TMP/n.out" "$TMP/n/summary.txt"; do
	grep -q '^latency: no replies (20 measured requests sent, none answered with a reply)$' "$f" \
		|| fail "silent server: $f does not say no replies: $(cat "$f")"
	grep -qE '^\(us\)|p50' "$f" && fail "silent server: a table in $f"
done
# ---- --preload against a memcached that trickles bytes and never
# completes a reply: still "no reply" once the timeout is past (bytes that
# complete nothing do not put the deadline off).
bad_listener trickle
t0=$(date +%s%N)
"$WB" client --server 127.0.0.1:$SPORT --proto memcached --preload --keys 4 --requests 5 \
	--timeout-ms 300 -q > /dev/null 2> "$TMP/t.err"; rc=$?
t1=$(date +%s%N)
kill $SPID 2>/dev/null; wait $SPID 2>/dev/null
[ $rc = 1 ] || fail "trickling server: exit $rc: $(cat "$TMP/t.err")"
grep -q -- '--preload: no reply to the set of key 0 within 300 ms' "$TMP/t.err" ||
	fail "trickling server: stderr $(cat "$TMP/t.err")"
[ $(((t1 - t0) / 1000000)) -lt 3000 ] || fail "trickling server: $(((t1 - t0) / 1000000)) ms to give up"
exit 0
