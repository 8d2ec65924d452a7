# Server + client on loopback for every distribution; outputs are checked
# against each other: row counts, monotonic schedule, latencies > 0, and
# every summary number recomputed from requests.csv.
. "$(dirname "$0")/lib.sh"
N=400 W=20
for dist in fixed exp poisson; do
	start_server --log "$TMP/server-$dist.csv" --cpu 0 -q
	out="$TMP/$dist"
	"$WB" client --server 127.0.0.1:$PORT --dist $dist --interval-us 200 \
		--requests $N --warmup $W --seed 7 --service-us 5 --out "$out" -q \
		|| fail "$dist: client failed"
	stop_server || fail "$dist: server exit status"
	for f in requests.csv gaps.csv summary.txt summary.csv summary.json cmdline.txt snapshot.json; do
		[ -s "$out/$f" ] || fail "$dist: $f missing"
	done
	rows=$(($(wc -l < "$out/requests.csv") - 1))
	[ "$rows" -eq $N ] || fail "$dist: requests.csv has $rows rows, want $N"
	gaps=$(($(wc -l < "$out/gaps.csv") - 1))
	[ "$gaps" -eq $((N + W)) ] || fail "$dist: gaps.csv has $gaps rows"
	head -1 "$out/requests.csv" | grep -q '^seq,intended_ns,sent_ns,recv_ns,latency_ns,service_ns,server_recv_ns,server_send_ns' \
		|| fail "$dist: requests.csv header"
	csv_col "$out/requests.csv" intended_ns | awk 'NR > 1 && $1 < prev { exit 1 } { prev = $1 }' \
		|| fail "$dist: intended times not monotonic"
	csv_col "$out/requests.csv" latency_ns | awk '$1 <= 0 { exit 1 }' || fail "$dist: latency <= 0"
	# latency = recv - intended, service = recv - sent, server times inside.
	awk -F, 'NR > 1 && ($5 != $4 - $2 || $6 != $4 - $3 || $7 < $3 || $8 < $7 || $4 < $8) { exit 1 }' \
		"$out/requests.csv" || fail "$dist: inconsistent timestamps"
	# Summary against the CSV: count, avg, min, max, nearest-rank p50/p99.
	sorted="$TMP/lat-$dist"
	csv_col "$out/requests.csv" latency_ns | sort -n > "$sorted"
	n=$(wc -l < "$sorted")
	[ "$(csv_col "$out/summary.csv" count)" = "$n" ] || fail "$dist: count"
	avg=$(awk '{ s += $1 } END { printf "%.3f", s / NR / 1000 }' "$sorted")
	approx "$avg" "$(csv_col "$out/summary.csv" lat_avg_us)" 0.0011 || fail "$dist: avg $avg"
	for p in 50:p50 99:p99 99.9:p999; do
		rank=$(awk -v p="${p%%:*}" -v n="$n" 'BEGIN { r = p * n / 100; c = int(r); if (c < r) c++; print c }')
		want=$(sed -n "${rank}p" "$sorted" | awk '{ printf "%.3f", $1 / 1000 }')
		got=$(csv_col "$out/summary.csv" "lat_${p##*:}_us")
		approx "$want" "$got" 0.0011 || fail "$dist: ${p##*:} $got, CSV says $want"
	done
	approx "$(head -1 "$sorted" | awk '{ printf "%.3f", $1 / 1000 }')" "$(csv_col "$out/summary.csv" lat_min_us)" 0.0011 || fail "$dist: min"
	approx "$(tail -1 "$sorted" | awk '{ printf "%.3f", $1 / 1000 }')" "$(csv_col "$out/summary.csv" lat_max_us)" 0.0011 || fail "$dist: max"
	grep -q "\"dist\": \"$dist\"" "$out/summary.json" || fail "$dist: summary.json"
	grep -q "^latency " "$out/summary.txt" || fail "$dist: summary.txt"
	# Server log: every request (warm-up too) with the wire sequence.
	reqs=$(grep -c ',request,' "$TMP/server-$dist.csv")
	[ "$reqs" -eq $((N + W)) ] || fail "$dist: server logged $reqs requests"
	echo "$dist ok: p50 $(csv_col "$out/summary.csv" lat_p50_us) us"
done
