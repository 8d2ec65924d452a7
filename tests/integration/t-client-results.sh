# Client results (issue 21): every file of --out is written under a
# temporary name and renamed into place together, summaries last, so a run
# that cannot write its results (full disk, signal) leaves nothing that
# looks finished and says which file and why; the service time the server
# applied (it caps at its --max-service-us) is recorded and a cap warned of.
. "$(dirname "$0")/lib.sh"

# finished DIR: lists the final names and temporaries present in DIR
finished() { (cd "$1" && ls -A | grep -E '^(summary\.(csv|json|txt)|requests\.csv|gaps\.csv|cmdline\.txt|snapshot\.json|prequery-trajectory\.csv)$|\.partial$') || true; }

# ---- --service-us above what any server applies: a usage error.
"$WB" client --server 127.0.0.1:1 --service-us 60000001 2>"$TMP/u.err"; rc=$?
[ $rc -eq 2 ] || fail "--service-us 60000001: exit $rc"
grep -q '0-60000000' "$TMP/u.err" || fail "--service-us message: $(cat "$TMP/u.err")"
"$WB" client --server 127.0.0.1:1 --service-us 60000000 --requests 1 -q 2>/dev/null; rc=$?
[ $rc -ne 2 ] || fail "--service-us 60000000 (the server's maximum) refused"

# ---- the server caps at --max-service-us 100: the client records it.
start_server --max-service-us 100
"$WB" client --server 127.0.0.1:$PORT --requests 200 --warmup 10 --interval-us 1000 \
	--service-us 500 --out "$TMP/cap" -q 2>"$TMP/cap.err" || fail "capped run: $(cat "$TMP/cap.err")"
n=$(csv_col "$TMP/cap/summary.csv" count)
[ "$n" = 200 ] || fail "capped run: count $n"
[ "$(csv_col "$TMP/cap/summary.csv" service_capped)" = 200 ] \
	|| fail "service_capped $(csv_col "$TMP/cap/summary.csv" service_capped), want 200"
# appended after the columns that were there: they keep their places
# (issue 15 appended lat_p95_us and lat_p9999_us after it, issue 16 the
# key-value columns, empty here, issue 17 the energy ones, issue 19
# threads,raw,raw_rows,percentiles_exact,percentile_rel_error, issue 18
# lat_stddev_us,svc_p95_us,svc_p9999_us,svc_stddev_us,pace_p95_us,
# pace_p9999_us,pace_stddev_us, issue 31 the 16 CI bounds lat_p50_lo_us
# ... svc_p999_hi_us, issue 36 rate_profile,arrivals,arrivals_offsets,
# arrivals_scale, taken off first)
hdr=$(head -1 "$TMP/cap/summary.csv")
# issue 35 appended msgs_per_req,bytes_per_req after them
[ "${hdr%,msgs_per_req,bytes_per_req}" != "$hdr" ] ||
	fail "summary.csv does not end with msgs_per_req,bytes_per_req"
hdr=${hdr%,msgs_per_req,bytes_per_req}
[ "${hdr%,rate_profile,arrivals,arrivals_offsets,arrivals_scale}" != "$hdr" ] \
	|| fail "summary.csv does not end with rate_profile,arrivals,arrivals_offsets,arrivals_scale"
[ "$(echo "${hdr%,rate_profile,arrivals,arrivals_offsets,arrivals_scale}" | awk -F, '{ print $(NF - 41), $(NF - 40), $(NF - 39), $(NF - 38), $(NF - 31), $(NF - 28), $(NF - 23), $(NF - 22), $(NF - 16), $(NF - 15), $NF }')" = \
  "service_capped lat_p95_us lat_p9999_us gets key_dist energy_per_request_uj percentile_rel_error lat_stddev_us pace_stddev_us lat_p50_lo_us svc_p999_hi_us" ] \
	|| fail "summary.csv does not end with service_capped,lat_p95_us,lat_p9999_us,gets,...,key_dist,energy_j,power_w,energy_per_request_uj,threads,...,percentile_rel_error,lat_stddev_us,...,pace_stddev_us,lat_p50_lo_us,...,svc_p999_hi_us"
[ "$(csv_col "$TMP/cap/summary.csv" gets)" = "" ] || fail "gets not empty with wakebench's protocol"
grep -q '"service_capped": 200' "$TMP/cap/summary.json" || fail "summary.json service_capped"
grep -q '^service: asked 500.000 us; capped by the server (applied less) in 200 replies' \
	"$TMP/cap/summary.txt" || fail "summary.txt service line: $(grep '^service' "$TMP/cap/summary.txt")"
grep -q 'WARNING: the server capped the service time of 200 replies (asked 500.000 us, applied down to 100.000 us)' \
	"$TMP/cap.err" || fail "no cap warning: $(cat "$TMP/cap.err")"
# requests.csv: the applied service time of every measured request
# (then op,key,miss: issue 16's, empty here)
[ "$(head -1 "$TMP/cap/requests.csv" | awk -F, '{ print $(NF - 3), $(NF - 2), $(NF - 1), $NF }')" = \
  "applied_service_ns op key miss" ] || fail "requests.csv: applied_service_ns,op,key,miss are not the last columns"
[ "$(csv_col "$TMP/cap/requests.csv" applied_service_ns | sort -u)" = 100000 ] \
	|| fail "applied_service_ns: $(csv_col "$TMP/cap/requests.csv" applied_service_ns | sort -u | head -3 | tr '\n' ' ')"
# below the cap: nothing capped, no warning
"$WB" client --server 127.0.0.1:$PORT --requests 200 --interval-us 1000 \
	--service-us 50 --out "$TMP/nocap" -q 2>"$TMP/nocap.err" || fail "uncapped run"
[ "$(csv_col "$TMP/nocap/summary.csv" service_capped)" = 0 ] || fail "uncapped: service_capped not 0"
grep -q 'capped' "$TMP/nocap.err" && fail "uncapped: warning printed: $(cat "$TMP/nocap.err")"
[ "$(csv_col "$TMP/nocap/requests.csv" applied_service_ns | sort -u)" = 50000 ] || fail "uncapped: applied_service_ns"

# ---- a roomy directory: every file, no temporary left (adaptive: the
# trajectory too).
"$WB" client --server 127.0.0.1:$PORT --requests 300 --interval-us 200 --prequery-policy adaptive \
	--window 50 --out "$TMP/full" -q || fail "normal run"
for f in requests.csv gaps.csv summary.txt summary.csv summary.json cmdline.txt \
	prequery-trajectory.csv snapshot.json; do
	[ -s "$TMP/full/$f" ] || fail "normal run: no $f"
done
[ -z "$(ls -A "$TMP/full" | grep '\.partial$')" ] || fail "normal run left $(ls -A "$TMP/full")"
# a killed run's temporaries: refused without --force, removed with it
touch "$TMP/full/.requests.csv.partial" "$TMP/full/.summary.csv.partial"
"$WB" client --server 127.0.0.1:$PORT --requests 10 --out "$TMP/full" -q 2>/dev/null
[ $? -eq 1 ] || fail "a directory holding temporaries taken without --force"
"$WB" client --server 127.0.0.1:$PORT --requests 10 --out "$TMP/full" --force -q || fail "--force over temporaries"
[ -z "$(ls -A "$TMP/full" | grep '\.partial$')" ] || fail "--force left temporaries: $(ls -A "$TMP/full")"

# ---- interrupted on a roomy directory: partial results, status interrupted
"$WB" client --server 127.0.0.1:$PORT --requests 200000 --interval-us 20 --out "$TMP/int" -q 2>/dev/null &
cpid=$!
sleep 0.5
# (TERM: a background job of this shell starts with SIGINT ignored)
kill -TERM $cpid; wait $cpid; rc=$?
[ $rc -eq 1 ] || fail "interrupted run: exit $rc"
[ "$(csv_col "$TMP/int/summary.csv" status)" = interrupted ] || fail "interrupted: status $(csv_col "$TMP/int/summary.csv" status)"
[ -s "$TMP/int/requests.csv" ] || fail "interrupted: no requests.csv"
[ -z "$(ls -A "$TMP/int" | grep '\.partial$')" ] || fail "interrupted run left temporaries"

# ---- a full file system (a 64 KiB tmpfs): nothing that looks finished.
[ "$(id -u)" = 0 ] || { echo "skipped: full-disk cases need root (mount)"; exit 77; }
FS="$TMP/fs"
mkdir "$FS"
mount -t tmpfs -o size=64k,mode=0755 wbtest "$FS" 2>/dev/null || { echo "skipped: full-disk cases: cannot mount a tmpfs"; exit 77; }
# umount before lib.sh's cleanup removes $TMP
trap 'umount "$FS" 2>/dev/null || umount -l "$FS" 2>/dev/null; cleanup' EXIT

"$WB" client --server 127.0.0.1:$PORT --requests 5000 --interval-us 20 --out "$FS/r" -q 2>"$TMP/full.err"; rc=$?
[ $rc -eq 1 ] || fail "full disk: exit $rc"
grep -q "$FS/r/requests.csv: No space left on device" "$TMP/full.err" \
	|| fail "full disk message: $(cat "$TMP/full.err")"
[ -z "$(finished "$FS/r")" ] || fail "full disk left: $(finished "$FS/r" | tr '\n' ' ')"

# --force over a previous run's results, then the disk is full: the old
# summaries must not pass for this run's.
"$WB" client --server 127.0.0.1:$PORT --requests 10 --out "$FS/old" -q || fail "small run on the tmpfs"
[ -s "$FS/old/summary.csv" ] || fail "small run wrote no summary"
"$WB" client --server 127.0.0.1:$PORT --requests 5000 --interval-us 20 --out "$FS/old" --force -q \
	2>"$TMP/force.err"; rc=$?
[ $rc -eq 1 ] || fail "full disk --force: exit $rc"
grep -q 'No space left on device' "$TMP/force.err" || fail "full disk --force message: $(cat "$TMP/force.err")"
[ -z "$(finished "$FS/old")" ] || fail "full disk --force left: $(finished "$FS/old" | tr '\n' ' ')"

# interrupted, and the disk full: the interrupted run's partial results
# cannot be written either; nothing is left under a final name.
"$WB" client --server 127.0.0.1:$PORT --requests 200000 --interval-us 20 --out "$FS/i" -q 2>"$TMP/fint.err" &
cpid=$!
sleep 0.5
kill -HUP $cpid; wait $cpid; rc=$?
[ $rc -eq 1 ] || fail "interrupted on a full disk: exit $rc"
grep -q "$FS/i/requests.csv: No space left on device" "$TMP/fint.err" \
	|| fail "interrupted on a full disk: message $(cat "$TMP/fint.err")"
[ -z "$(finished "$FS/i")" ] || fail "interrupted on a full disk left: $(finished "$FS/i" | tr '\n' ' ')"
# and the space the temporaries took is given back
[ "$(du -sk "$FS" | cut -f1)" -lt 32 ] || fail "temporaries still take $(du -sk "$FS")"
# Through the midtier: the backend's applied service time is passed on.
pf="$TMP/mport"
"$WB" midtier --listen 0 --port-file "$pf" --backend 127.0.0.1:$PORT 2>"$TMP/mid.err" &
mid=$!
wait_for "[ -s $pf ]" || fail "midtier did not start: $(cat "$TMP/mid.err")"
read -r MPORT < "$pf"
"$WB" client --server 127.0.0.1:$MPORT --requests 50 --service-us 50 --out "$TMP/m50" -q ||
	fail "client via the midtier"
[ "$(csv_col "$TMP/m50/summary.csv" service_capped)" = 0 ] || fail "midtier: applied service not passed on"
"$WB" client --server 127.0.0.1:$MPORT --requests 50 --service-us 500 --out "$TMP/m500" -q 2>/dev/null ||
	fail "client via the midtier, 500 us"
[ "$(csv_col "$TMP/m500/summary.csv" service_capped)" = 50 ] || fail "midtier: cap not passed on"
kill -TERM $mid; wait $mid || fail "midtier exit status"
stop_server
exit 0
