# Issue 36 on loopback: every new --dist law runs and names itself in
# the summaries with the mean gap it was given; bad values are usage
# errors naming the parameter; a --rate-profile's sends follow its rate
# per window (Poisson 99.9 % interval) and the same seed gives the same
# gaps.csv; --arrivals replays a trace's gaps exactly into gaps.csv
# (gaps, offsets, a scale), and a bad trace line is an error at FILE:LINE;
# a trace's op and key columns are the requests' against memcached.
. "$(dirname "$0")/lib.sh"
start_server -q
C=("$WB" client --server 127.0.0.1:$PORT -q)
col() { csv_col "$1/summary.csv" "$2"; }

for d in lognormal:1.5 pareto:2.5 gev:0.2,0.3 weibull:0.7 fb-etc onoff:2,3 \
	mmpp:10,1,2,20; do
	out="$TMP/d-${d%%:*}"
	"${C[@]}" --dist "$d" --interval-us 200 --requests 300 --warmup 10 \
		--seed 5 --out "$out" || fail "$d: client failed"
	[ "$(col "$out" dist)" = "$d" ] || fail "$d: summary.csv dist $(col "$out" dist)"
	[ "$(col "$out" count)" = 300 ] || fail "$d: count"
	grep -q "\"dist\": \"$d\"" "$out/summary.json" || fail "$d: summary.json"
	[ "$(($(wc -l < "$out/gaps.csv") - 1))" = 310 ] || fail "$d: gaps.csv rows"
done

for bad in pareto:1 gev:0.5,5 lognormal weibull:0 onoff:0,1 mmpp:0,0,1,1 \
	fb-etc:2 gamma:2; do
	"${C[@]}" --dist "$bad" > /dev/null 2> "$TMP/err" && fail "--dist $bad accepted"
	[ $? = 2 ] || fail "--dist $bad: exit status"
	grep -q "^wakebench-client: --dist " "$TMP/err" || fail "--dist $bad: $(cat "$TMP/err")"
done
"${C[@]}" --dist pareto:0.9 2>&1 | grep -q "ALPHA > 1\|1 < ALPHA" || fail "pareto message"

# A rate profile: 1000/s, 5000/s from 0.4 s, a ramp down to 1000/s at 0.8 s.
printf '# t rate\n0 1000\n0.4 5000 ramp\n0.8 1000 step\n' > "$TMP/prof"
for r in 1 2; do
	"${C[@]}" --rate-profile "$TMP/prof" --dist exp --duration 1.2 --seed 4 \
		--out "$TMP/p$r" || fail "profile run $r"
done
cmp -s "$TMP/p1/gaps.csv" "$TMP/p2/gaps.csv" || fail "profile: same seed, other gaps"
[ "$(col "$TMP/p1" rate_profile)" = "$TMP/prof" ] || fail "profile column"
python3 - "$TMP/p1/gaps.csv" <<'PY' || fail "profile: rate per window"
import csv, math, sys
def count(t):	# the profile's expected requests by t seconds
    if t <= 0.4: return 1000 * t
    if t <= 0.8: d = t - 0.4; return 400 + 5000 * d - 10000 * d * d / 2
    return 400 + 1200 + 1000 * (t - 0.8)
t, cnt = 0, [0] * 12
for r in csv.DictReader(open(sys.argv[1])):
    t += int(r["gap_ns"])
    cnt[min(int(t / 1e8), 11)] += 1
for w in range(12):
    e = count((w + 1) / 10) - count(w / 10)
    if abs(cnt[w] - e) > 3.29 * math.sqrt(e) + 1:
        sys.exit("window %d: %d sent, %.1f expected" % (w, cnt[w], e))
PY
"${C[@]}" --rate-profile "$TMP/prof" --rate 100 2>&1 | grep -q "no --interval-us or --rate" \
	|| fail "profile with --rate"
printf '0 100\n1 x\n' > "$TMP/badprof"
"${C[@]}" --rate-profile "$TMP/badprof" 2>&1 | grep -qF "$TMP/badprof:2: " || fail "profile FILE:LINE"
ln -s "$TMP/prof" "$TMP/proflink"
"${C[@]}" --rate-profile "$TMP/proflink" 2>&1 | grep -q "proflink" || fail "profile link followed"
"${C[@]}" --rate-profile "$TMP/proflink" > /dev/null 2>&1 && fail "profile link accepted"

# Replay: gaps with decimals, then the same as offsets scaled by 2.
printf '# us\n150\n20.5\n0.001\n300\n\n99.999\n1000\n250\n' > "$TMP/gaps"
"${C[@]}" --arrivals "$TMP/gaps" --warmup 2 --out "$TMP/r1" || fail "replay run"
python3 - "$TMP/gaps" "$TMP/r1/gaps.csv" 1 0 <<'PY' || fail "replay: gaps.csv is not the file's"
import csv, sys
want = [round(float(l) * 1000) for l in open(sys.argv[1]) if l.strip() and l[0] != "#"]
got = [int(r["gap_ns"]) for r in csv.DictReader(open(sys.argv[2]))]
if got != want: sys.exit("got %s want %s" % (got, want))
PY
[ "$(col "$TMP/r1" count)" = 5 ] || fail "replay: count (7 lines less 2 warm-up)"
[ "$(col "$TMP/r1" dist)" = replay ] || fail "replay: dist column"
awk '/^[0-9]/ { t += $1; printf "%.3f\n", t }' "$TMP/gaps" > "$TMP/offs"
"${C[@]}" --arrivals "$TMP/offs" --arrivals-offsets --arrivals-scale 2 \
	--out "$TMP/r2" || fail "replay offsets run"
python3 - "$TMP/r1/gaps.csv" "$TMP/r2/gaps.csv" <<'PY' || fail "replay: offsets scaled"
import csv, sys
a = [int(r["gap_ns"]) for r in csv.DictReader(open(sys.argv[1]))]
b = [int(r["gap_ns"]) for r in csv.DictReader(open(sys.argv[2]))]
ta = tb = 0
for x, y in zip(a, b):
    ta += x; tb += y
    if tb != 2 * ta: sys.exit("offset %d, want %d" % (tb, 2 * ta))
PY
[ "$(col "$TMP/r2" arrivals_scale)" = 2.000000 ] || fail "arrivals_scale column"
printf '10\n20 get 1\n' > "$TMP/badgaps"
"${C[@]}" --arrivals "$TMP/badgaps" 2>&1 | grep -qF "$TMP/badgaps:2: " || fail "replay FILE:LINE"
"${C[@]}" --arrivals "$TMP/gaps" --requests 8 2>&1 | grep -q "has 7 gaps" || fail "replay: too many requests"
"${C[@]}" --arrivals "$TMP/gaps" --dist exp 2>&1 | grep -q "no --dist" || fail "replay with --dist"
# only regular files: a FIFO is refused at once (no open that blocks), and
# a line past 64 KiB is an error at its line, not a read without end
mkfifo "$TMP/fifo"
timeout 10 "${C[@]}" --arrivals "$TMP/fifo" 2>&1 | grep -q "$TMP/fifo: a FIFO" \
	|| fail "--arrivals FIFO not refused"
timeout 10 "${C[@]}" --rate-profile "$TMP/fifo" 2>&1 | grep -q "$TMP/fifo: a FIFO" \
	|| fail "--rate-profile FIFO not refused"
{ echo 10; head -c 100000 /dev/zero | tr '\0' 1; echo; } > "$TMP/long"
timeout 10 "${C[@]}" --arrivals "$TMP/long" 2>&1 | grep -qF "$TMP/long:2: line too long" \
	|| fail "long line"
printf '300 get 3\n200 set 3\n250,get,3\n100 get 9\n' > "$TMP/kv"
"${C[@]}" --arrivals "$TMP/kv" 2>&1 | grep -q "need --proto memcached or redis" \
	|| fail "kv trace without a key-value protocol"
stop_server || fail "server exit status"

if command -v memcached > /dev/null; then
	MC=$(test_port 0)
	wb_kv_run memcached $MC 127.0.0.1 > "$TMP/mc.log" 2>&1 &
	wait_for "wb_kv_ready 127.0.0.1 $MC" || fail "memcached did not start"
	"$WB" client --server 127.0.0.1:$MC --proto memcached --arrivals "$TMP/kv" \
		--keys 8 -q 2>&1 | grep -q "has key 9: keys go up to --keys 8" || fail "key past --keys"
	"$WB" client --server 127.0.0.1:$MC --proto memcached --arrivals "$TMP/kv" \
		--keys 10 --out "$TMP/kv1" -q || fail "kv replay run"
	[ "$(csv_col "$TMP/kv1/requests.csv" op | tr '\n' ' ')" = "get set get get " ] \
		|| fail "kv replay ops: $(csv_col "$TMP/kv1/requests.csv" op | tr '\n' ' ')"
	[ "$(csv_col "$TMP/kv1/requests.csv" key | tr '\n' ' ')" = "wb00000000000003 wb00000000000003 wb00000000000003 wb00000000000009 " ] \
		|| fail "kv replay keys: $(csv_col "$TMP/kv1/requests.csv" key | tr '\n' ' ')"
	# the get after the set finds its key: misses are the first get and key 9
	[ "$(col "$TMP/kv1" misses)" = 2 ] || fail "kv replay misses $(col "$TMP/kv1" misses)"
else
	echo "memcached part skipped: no memcached (make deps installs it)"
fi
echo "arrivals ok"
