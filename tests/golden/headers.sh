#!/bin/bash
# tests/golden/headers.sh: the header line of every CSV file the commands
# write (and the keys of the JSON summaries), from a small loopback run and
# the fixtures, one "FILE: HEADER" line each, on stdout. Sweep scripts
# read these columns by name; a change is an interface change.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=${WB_BIN:-$top/${O:-build}/bin}
WB=$bin/wakebench
T=$(mktemp -d /tmp/wb-golden.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
die() { echo "headers.sh: $*" >&2; exit 1; }
waitfile() { for _ in $(seq 250); do [ -s "$1" ] && return 0; sleep 0.02; done; return 1; }
hdr() { printf '%s: %s\n' "$1" "$(head -1 "$2")"; }
keys() {	# JSON object keys, nested ones as a.b, in file order
	python3 -c 'import json, sys
def walk(o, p):
    for k, v in o.items():
        print(p + k)
        if isinstance(v, dict):
            walk(v, p + k + ".")
walk(json.load(open(sys.argv[1])), "")' "$2" | tr '\n' ' ' | sed 's/ $//;s/^/'"$1"': /'
	echo
}

"$WB" server --port 0 --prequery-port 0 --port-file "$T/s.port" --log "$T/server.csv" -q 2>"$T/s.err" &
spid=$!; pids+=($spid)
waitfile "$T/s.port" || die "server: $(cat "$T/s.err")"
read -r port pqport < "$T/s.port"
"$WB" client --server 127.0.0.1:$port --requests 30 --interval-us 300 --out "$T/c" -q ||
	die "client failed"
"$WB" client --server 127.0.0.1:$port --requests 40 --interval-us 300 --prequery-policy adaptive \
	--window 10 --prequery-port "$pqport" --out "$T/a" -q || die "adaptive client failed"
"$WB" midtier --listen 0 --port-file "$T/m.port" --backend 127.0.0.1:$port \
	--prequery-delay-us 20 --log "$T/midtier.csv" --summary "$T/msum.csv" -q 2>"$T/m.err" &
mpid=$!; pids+=($mpid)
waitfile "$T/m.port" || die "midtier: $(cat "$T/m.err")"
read -r mport < "$T/m.port"
"$WB" client --server 127.0.0.1:$mport --requests 20 --interval-us 300 --out "$T/mc" -q ||
	die "client through the midtier failed"
kill -TERM "$mpid" "$spid"; wait "$mpid" "$spid" 2>/dev/null
pids=()

for f in requests.csv gaps.csv; do hdr "client $f" "$T/c/$f"; done
# The governor's usage_/time_us_/above_/below_/rejected_<state> columns
# end the header where there are idle states, named after this machine's
sed -e '1s/,\(usage\|time_us\|above\|below\|rejected\)_[A-Za-z0-9_]*//g' "$T/c/summary.csv" > "$T/c-fixed.csv"
hdr "client summary.csv" "$T/c-fixed.csv"
hdr "client prequery-trajectory.csv" "$T/a/prequery-trajectory.csv"
keys "client summary.json" "$T/c/summary.json"
hdr "server --log" "$T/server.csv"
hdr "midtier --log" "$T/midtier.csv"
hdr "midtier --summary" "$T/msum.csv"

cp -r "$top/tests/fixtures/trace/real" "$T/tr"
"$WB" trace timeline "$T/tr" > /dev/null 2>&1 || die "trace timeline failed"
for f in cstate-cpu0.csv irq.csv markers.csv; do hdr "trace timeline $f" "$T/tr/$f"; done
"$WB" trace attribute "$T/tr" --requests markers > /dev/null 2>&1 || die "trace attribute failed"
for f in attribution.csv attribution-summary.csv; do hdr "trace attribute $f" "$T/tr/$f"; done
"$WB" trace residency --duration 0.1 --out "$T/res.csv" > /dev/null 2>&1 || die "trace residency failed"
hdr "trace residency" "$T/res.csv"
"$WB" trace capture --out "$T/cap" --cpu server=0 -- true > /dev/null 2>&1 || die "trace capture failed"
for f in cpuidle.csv interrupts.csv; do hdr "trace capture $f" "$T/cap/$f"; done
# capture.csv: its fixed columns (the per-state ones name this machine's)
sed -e '1s/,\(res\|entries\|usage\|time_us\|above\|below\|rejected\)_[A-Za-z0-9_]*//g' "$T/cap/capture.csv" > "$T/cap-fixed.csv"
hdr "trace capture capture.csv (without the per-state columns)" "$T/cap-fixed.csv"

. "$top/tests/ports.sh"
"$WB" sweep --out "$T/sweep" --reps 1 --requests 20 --server-port "$(test_port 0)" \
	> "$T/sweep.out" 2>&1 || die "sweep failed: $(tail -n 3 "$T/sweep.out")"
# The capture's res_<state>_pct/entries_<state> columns end the header
# and name this machine's idle states: the fixed part is the interface.
sed -e '1s/,\(mt_\)\{0,1\}\(res\|entries\|usage\|time_us\|above\|below\|rejected\)_[A-Za-z0-9_]*//g' "$T/sweep/sweep.csv" > "$T/sweep-fixed.csv"
hdr "sweep sweep.csv (without the per-state columns)" "$T/sweep-fixed.csv"
hdr "stats summary.csv" "$T/sweep/summary.csv"
"$WB" wake --count 5 --ldist 0,100 --states all,none --out "$T/w" -q 2>/dev/null || die "wake failed"
for f in wake.csv summary.csv; do hdr "wake $f" "$T/w/$f"; done
keys "wake summary.json" "$T/w/summary.json"
