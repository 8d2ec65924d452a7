# The client's memory does not grow with the run (issue 19): the schedule
# is drawn as the run goes and gives the gaps, ops and keys the
# array-based client drew (fixtures recorded from it); rows stream to disk
# (--raw all|sample:K|none); percentiles are exact up to --exact-samples
# and within the stated error past it; --threads N splits the one schedule
# and merges exactly; --start-at starts at an agreed time; peak RSS of a
# run four times longer stays flat.
. "$(dirname "$0")/lib.sh"
FIX="$WB_TOP/tests/fixtures/client-schedule"
CL="$WB_BIN/wakebench-client"
PEAK="$WB_TOP/$O/bench/wb-peakrss"
NCPU=$(nproc)

# pcts DIR [TOL]: the summary's min, percentiles and max of latency,
# service latency and pacing error against those recomputed (nearest
# rank) from DIR/requests.csv: equal to the printed 0.001 us, or within
# the relative error TOL (plus that rounding). Also checks seq order.
pcts() {
	python3 - "$1" "${2:-0}" <<'EOF'
import csv, math, sys
d, tol = sys.argv[1], float(sys.argv[2])
rows = list(csv.DictReader(open(d + '/requests.csv')))
s = next(csv.DictReader(open(d + '/summary.csv')))
seqs = [int(r['seq']) for r in rows]
if seqs != sorted(seqs) or len(set(seqs)) != len(seqs):
    sys.exit('requests.csv not in seq order, or a seq twice')
def rank(p, n):
    return max(1, min(n, -(-round(p * 1e9) * n // 10**9)))
ok = [r for r in rows if r['status'] == 'ok']
dist = {
    'lat': sorted(int(r['latency_ns']) for r in ok),
    'svc': sorted(int(r['service_ns']) for r in ok),
    'pace': sorted(int(r['sent_ns']) - int(r['intended_ns']) for r in rows),
}
bad = []
for name, v in dist.items():
    want = {'min': v[0], 'max': v[-1]}
    for p, col in ((0.5, 'p50'), (0.9, 'p90'), (0.99, 'p99'), (0.999, 'p999')):
        want[col] = v[rank(p, len(v)) - 1]
    for col, x in want.items():
        got = float(s['%s_%s_us' % (name, col)]) * 1e3
        lim = 0.5 if col in ('min', 'max') or tol == 0 else x * tol + 0.5
        if abs(got - x) > lim:
            bad.append('%s_%s: summary %.0f ns, requests.csv %d ns' % (name, col, got, x))
if bad:
    sys.exit('; '.join(bad))
EOF
}

start_server -q
S=127.0.0.1:$PORT

# ---- the same seed gives the same schedule as the array-based client:
# gaps.csv byte for byte (exp by count; poisson by duration with a warm-up
# generator of its own and sleep-after adding the lead to every gap), one
# thread and two; intended times step by the gaps.
for thr in 1 2; do
	"$CL" --server $S --dist exp --rate 20000 --requests 1500 --warmup 100 --seed 42 \
		--threads $thr -q --out "$TMP/a$thr" || fail "exp run, $thr threads"
	cmp -s "$TMP/a$thr/gaps.csv" "$FIX/exp-count.gaps.csv" || fail "exp gaps differ ($thr threads)"
	"$CL" --server $S --dist poisson --interval-us 100 --duration 0.08 --warmup 50 \
		--warmup-interval-us 300 --warmup-dist exp --seed 9 --prequery-lead-us 20 \
		--prequery-at sleep-after --threads $thr -q --out "$TMP/b$thr" || fail "poisson run, $thr threads"
	cmp -s "$TMP/b$thr/gaps.csv" "$FIX/poisson-duration.gaps.csv" || fail "poisson gaps differ ($thr threads)"
	python3 - "$TMP/a$thr" <<'EOF' || fail "intended times do not step by the gaps ($thr threads)"
import csv, sys
d = sys.argv[1]
gaps = [int(r['gap_ns']) for r in csv.DictReader(open(d + '/gaps.csv'))]
t = [int(r['intended_ns']) for r in csv.DictReader(open(d + '/requests.csv'))]
if len(t) != 1500 or any(t[i] - t[i - 1] != gaps[100 + i] for i in range(1, len(t))):
    sys.exit(1)
EOF
done
# key-value: every request's op and key (memcached, when installed)
if command -v memcached >/dev/null; then
	MC=$(test_port 0)
	wb_kv_run memcached $MC 127.0.0.1 >"$TMP/mc.log" 2>&1 &
	wait_for "wb_kv_ready 127.0.0.1 $MC" || fail "memcached did not start: $(cat "$TMP/mc.log")"
	for thr in 1 2; do
		"$CL" --server 127.0.0.1:$MC --proto memcached --dist exp --rate 20000 --requests 800 \
			--warmup 40 --get-ratio 0.7 --keys 500 --key-dist zipf:0.9 --seed 5 \
			--threads $thr -q --out "$TMP/mc$thr" || fail "memcached run, $thr threads"
		cmp -s "$TMP/mc$thr/gaps.csv" "$FIX/memcached.gaps.csv" || fail "memcached gaps differ ($thr threads)"
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print "seq,op,key"; next }
			{ print $c["seq"] "," $c["op"] "," $c["key"] }' "$TMP/mc$thr/requests.csv" |
			cmp -s - "$FIX/memcached.ops.csv" || fail "memcached ops or keys differ ($thr threads)"
	done
else
	echo "memcached part skipped: no memcached"
fi

# ---- --raw: every K-th measured row (seq = warm-up + j K), or no file;
# the summaries count every request either way.
"$CL" --server $S --rate 20000 --requests 1000 --warmup 30 --raw sample:7 -q --out "$TMP/s7" \
	|| fail "--raw sample:7"
[ "$(($(wc -l < "$TMP/s7/requests.csv") - 1))" = 143 ] || fail "--raw sample:7: $(($(wc -l < "$TMP/s7/requests.csv") - 1)) rows, want ceil(1000/7) = 143"
[ "$(csv_col "$TMP/s7/requests.csv" seq | awk '($1 - 30) % 7 { bad = 1 } END { print !bad }')" = 1 ] \
	|| fail "--raw sample:7: a seq not 30 + 7 j"
[ "$(csv_col "$TMP/s7/requests.csv" seq | head -1)" = 30 ] || fail "--raw sample:7: the first measured row is not kept"
[ "$(csv_col "$TMP/s7/summary.csv" count)" = 1000 ] || fail "--raw sample:7: summary count"
[ "$(csv_col "$TMP/s7/summary.csv" raw)" = sample:7 ] && [ "$(csv_col "$TMP/s7/summary.csv" raw_rows)" = 143 ] \
	|| fail "--raw sample:7: summary raw, raw_rows"
grep -q '"raw": "sample:7"' "$TMP/s7/summary.json" || fail "summary.json config.raw"
"$CL" --server $S --rate 20000 --requests 500 --raw sample:1 -q --out "$TMP/s1" || fail "--raw sample:1"
[ "$(($(wc -l < "$TMP/s1/requests.csv") - 1))" = 500 ] || fail "--raw sample:1 is every row"
"$CL" --server $S --rate 20000 --requests 500 --raw none -q --out "$TMP/none" || fail "--raw none"
[ ! -e "$TMP/none/requests.csv" ] || fail "--raw none wrote requests.csv"
[ -s "$TMP/none/gaps.csv" ] && [ -s "$TMP/none/summary.json" ] || fail "--raw none: the other files"
[ "$(csv_col "$TMP/none/summary.csv" count)" = 500 ] && [ "$(csv_col "$TMP/none/summary.csv" raw_rows)" = 0 ] \
	|| fail "--raw none: summary"
grep -q '^requests.csv: not written (--raw none)' "$TMP/none/summary.txt" || fail "--raw none: summary.txt line"
# --force over a run with requests.csv, now none: the old file is gone
"$CL" --server $S --requests 20 --raw none -q --out "$TMP/s7" --force || fail "--raw none --force"
[ ! -e "$TMP/s7/requests.csv" ] || fail "--raw none --force left the previous requests.csv"
for bad in sample:0 sample: sample:x some all:3; do
	"$CL" --server $S --raw $bad 2>"$TMP/raw.err"; rc=$?
	[ $rc = 2 ] && grep -q "invalid --raw '$bad' (all, sample:K (K >= 1) or none)" "$TMP/raw.err" \
		|| fail "--raw $bad: exit $rc: $(cat "$TMP/raw.err")"
done

# A sampled requests.csv joins a trace like a whole one, for its rows:
# trace attribute says how many requests it has no latency for.
cp -r "$WB_TOP/tests/fixtures/trace/real" "$TMP/tr"
"$WB" trace timeline "$TMP/tr" > /dev/null 2>&1 || fail "trace timeline of the fixture"
awk -F, 'NR > 1 && $3 ~ /^wb recv / { split($3, a, " "); print a[3], $1 }' "$TMP/tr/markers.csv" > "$TMP/recv.txt"
{
	echo "seq,intended_ns,sent_ns,recv_ns,latency_ns,service_ns,server_recv_ns,server_send_ns,prequery_sent_ns,status,prequery_lead_us"
	awk '{ printf "%d,1,2,3,%d,5,%.0f,%.0f,,ok,0\n", $1, 50000 + $1, $2 - 500, $2 + 9000 }' "$TMP/recv.txt" |
		awk -F, 'NR % 4 == 1'
} > "$TMP/sampled.csv"
nrows=$(($(wc -l < "$TMP/sampled.csv") - 1)); nreq=$(wc -l < "$TMP/recv.txt")
"$WB" trace attribute "$TMP/tr" --requests markers --client "$TMP/sampled.csv" > "$TMP/attr.out" 2> "$TMP/attr.err" \
	|| fail "attribute with a sampled requests.csv: $(cat "$TMP/attr.err")"
[ "$(awk -F, 'NR > 1 && $7 != "" { n++ } END { print n + 0 }' "$TMP/tr/attribution.csv")" = "$nrows" ] \
	|| fail "attribute joined $(awk -F, 'NR > 1 && $7 != ""' "$TMP/tr/attribution.csv" | wc -l) latencies of $nrows sampled rows"
grep -q "$((nreq - nrows)) of $nreq requests without a latency" "$TMP/attr.err" \
	|| fail "attribute did not say what the sampled file lacks: $(cat "$TMP/attr.err")"

# ---- past --exact-samples the percentiles come from the histogram, within
# the error the summary states; under it they are exact.
"$CL" --server $S --dist exp --rate 20000 --requests 20000 --exact-samples 500 -q --out "$TMP/h" \
	|| fail "--exact-samples 500 run"
[ "$(csv_col "$TMP/h/summary.csv" percentiles_exact)" = 0 ] || fail "past the bound: percentiles_exact not 0"
err=$(csv_col "$TMP/h/summary.csv" percentile_rel_error)
[ "$err" = 0.00390625 ] || fail "past the bound: percentile_rel_error $err"
grep -q '^percentiles: from the histogram (more than 500 samples), within 0.39 % of the exact value' \
	"$TMP/h/summary.txt" || fail "summary.txt does not say the percentiles are approximate"
grep -q '"exact": false' "$TMP/h/summary.json" || fail "summary.json percentiles.exact"
out=$(pcts "$TMP/h" "$err") || fail "histogram percentiles beyond their stated error: $out"
# and they are not all exact (the test would pass on exact ones too)
pcts "$TMP/h" 0 > /dev/null 2>&1 && fail "past the bound, yet every percentile exact: the bound is not applied"
out=$(pcts "$TMP/a1") || fail "exact percentiles differ from requests.csv's: $out"
[ "$(csv_col "$TMP/a1/summary.csv" percentiles_exact)" = 1 ] || fail "under the bound: not exact"
grep -q '^percentiles: exact (nearest rank over every sample)' "$TMP/a1/summary.txt" || fail "summary.txt exact line"

# ---- --threads 2: thread k sends requests k, k+2, ... on its own
# connections (pinned to --cpu 0,1), one summary whose percentiles are
# exactly those of the merged requests.csv; pre-queries per thread.
cpus=""; [ "$NCPU" -ge 2 ] && cpus="--cpu 0,1"
stop_server
start_server -q
S=127.0.0.1:$PORT
"$CL" --server $S --dist exp --rate 20000 --requests 6000 --warmup 200 --threads 2 $cpus \
	--connections 2 --prequery-lead-us 30 -q --out "$TMP/t2" || fail "--threads 2 run"
out=$(pcts "$TMP/t2") || fail "--threads 2: merged percentiles differ: $out"
[ "$(csv_col "$TMP/t2/summary.csv" threads)" = 2 ] || fail "--threads 2: threads column"
[ "$(($(wc -l < "$TMP/t2/requests.csv") - 1))" = 6000 ] || fail "--threads 2: rows"
[ "$(csv_col "$TMP/t2/requests.csv" seq | awk '$1 != 200 + NR - 1 { bad = 1 } END { print !bad }')" = 1 ] \
	|| fail "--threads 2: requests.csv is not every seq in order"
ps=$(csv_col "$TMP/t2/summary.csv" prequeries_sent); pk=$(csv_col "$TMP/t2/summary.csv" prequeries_skipped)
[ $((ps + pk)) = 6000 ] && [ "$ps" -gt 3000 ] || fail "--threads 2: pre-queries sent $ps skipped $pk"
grep -q 'threads=2' "$TMP/t2/summary.txt" || fail "--threads 2: summary.txt header"
grep -q '"cpus": "0,1"' "$TMP/t2/summary.json" || [ -z "$cpus" ] || fail "--threads 2: summary.json cpus"
# the server saw every pre-query, on 2 connections of each thread
wps=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["warmup_prequeries_sent"])' "$TMP/t2/summary.json")
stop_server
grep -q "requests=6200 prequeries=$((ps + wps)) .*connections=4 " "$SERVER_ERR" \
	|| fail "--threads 2: the server saw $(cat "$SERVER_ERR"), the client sent $((ps + wps)) pre-queries"
start_server -q
S=127.0.0.1:$PORT
# modes that cannot be split, and CPU lists that do not fit: refused
for args in "--threads 2 --closed" "--threads 2 --prequery-policy adaptive" \
	"--cpu 0,1" "--threads 2 --cpu 0" "--threads 3 --cpu 0,1" "--threads 0" "--cpu x"; do
	"$CL" --server $S $args 2>"$TMP/thr.err"; rc=$?
	[ $rc = 2 ] || fail "$args: exit $rc: $(cat "$TMP/thr.err")"
done
"$CL" --server $S --threads 2 --closed 2>&1 | grep -q -- '--closed is one outstanding request: it takes no --threads' \
	|| fail "--threads --closed message"
"$CL" --server $S --threads 2 --prequery-policy adaptive 2>&1 | grep -q 'adaptive is one controller' \
	|| fail "--threads adaptive message"

# ---- --start-at: the schedule starts at that CLOCK_REALTIME time (its
# first request one gap later), threads and all; past or more than a day
# ahead, a usage error.
now=$(date +%s%N)
"$CL" --server $S --start-at $((now - 1000000000)) 2>"$TMP/at.err"; rc=$?
[ $rc = 2 ] && grep -q 'in the past' "$TMP/at.err" || fail "--start-at in the past: exit $rc: $(cat "$TMP/at.err")"
"$CL" --server $S --start-at $((now + 90000 * 1000000000)) 2>"$TMP/at.err"; rc=$?
[ $rc = 2 ] && grep -q 'more than a day' "$TMP/at.err" || fail "--start-at in 25 h: exit $rc: $(cat "$TMP/at.err")"
for thr in 1 2; do
	off=$(python3 -c 'import time; print(time.time_ns() - time.clock_gettime_ns(time.CLOCK_MONOTONIC))')
	at=$(($(date +%s%N) + 2000000000))
	"$CL" --server $S --start-at $at --dist fixed --interval-us 1000 --requests 50 --threads $thr \
		-q --out "$TMP/at$thr" || fail "--start-at run, $thr threads"
	first=$(csv_col "$TMP/at$thr/requests.csv" intended_ns | head -1)
	# the start is one gap (1 ms) before the first request; the two
	# clocks' offset read apart from the client's: 2 ms
	approx "$((first - 1000000 + off))" "$at" 2000000 \
		|| fail "--start-at $at, $thr threads: the schedule started at $((first - 1000000 + off))"
	grep -q "\"start_at_ns\": $at" "$TMP/at$thr/summary.json" || fail "summary.json start_at_ns"
done

# ---- memory: a run four times longer, past --exact-samples, streaming
# every row, peaks at the same RSS (the array-based client: 7 MB against
# 22 MB here).
if [ -x "$PEAK" ]; then
	for d in 1 4; do
		"$PEAK" "$CL" --server $S --rate 20000 --duration $d --exact-samples 5000 -q \
			--out "$TMP/mem$d" 2>"$TMP/mem$d.err" || fail "memory run $d s: $(cat "$TMP/mem$d.err")"
		eval "rss$d=$(sed -n 's/^peak_rss_kb //p' "$TMP/mem$d.err")"
		[ "$(csv_col "$TMP/mem$d/summary.csv" count)" = $((20000 * d)) ] || fail "memory run $d s: count"
	done
	echo "peak RSS: 1 s $rss1 KB, 4 s $rss4 KB"
	[ "$rss4" -le $((rss1 * 5 / 4 + 1024)) ] || fail "peak RSS grows with the run: 1 s $rss1 KB, 4 s $rss4 KB"
else
	echo "memory part skipped: no $PEAK (make tests builds it)"
fi
stop_server
exit 0
