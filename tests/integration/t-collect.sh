# wakebench-internal collect, run-ok and pairs (issue 14: the sweep's
# and the report's CSV work in C): sweep.csv from a real small sweep is
# byte for byte what the sweep's former awk loop (kept below as the
# oracle) writes, also with missing runs; a malformed run summary stops
# collect with FILE:LINE and leaves sweep.csv as it was; pairs gives
# the report's figure 1-2 data of the fixtures exactly as the former awk.
# The verbs are parsed by lib/cli's verb table (issue 32): an unknown
# verb, a wrong count or an option a verb lacks is a usage error, exit 2
# naming the verb; stats no longer has them as options.
. "$(dirname "$0")/lib.sh"
FX="$WB_TOP/tests/fixtures/report"

# The sweep's sweep.csv loop before issue 14 (scripts/wakebench-sweep),
# reading today's plan lines (POINT REP key=value...); it gives the first
# 25 columns, which must stay what they were (issue 15 appended more).
old_collect() {	# old_collect DIR > sweep.csv
	local out=$1 plan="$1/plan.txt" l pt rep d i p w c s rd sf st vals beh why k rest kv
	declare -A S=() P=()
	while IFS= read -r l; do [[ $l == *' = '* ]] && S[${l%% = *}]=${l#* = }; done < "$out/sweep.spec"
	col() { awk -F, -v name="$2" 'NR == 1 { for (k = 1; k <= NF; k++) if ($k == name) c = k; next } NR == 2 && c { print $c }' "$1"; }
	echo "point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us,requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent,prequeries_skipped,dir,behind_schedule,behind_reason"
	while read -r pt rep rest; do
		P=()
		for kv in $rest; do P[${kv%%=*}]=${kv#*=}; done
		d=${P[dist]} i=${P[interval_us]} p=${P[prequery]} w=${P[warmup]} c=${P[cstates]} s=${P[service_us]}
		rd="$out/$pt/rep-$rep"
		sf="$rd/client/summary.csv"
		if [ -s "$sf" ]; then
			st=$(col "$sf" status)
			vals=
			for k in count lat_avg_us lat_p50_us lat_p90_us lat_p99_us lat_p999_us svc_p50_us pace_p99_us late_sends prequeries_sent prequeries_skipped; do
				vals+=",$(col "$sf" $k)"
			done
			beh=$(col "$sf" behind_schedule)
			why=$(col "$sf" behind_reason | tr -d '"' | tr ',' ';')
		else
			st=missing vals=",,,,,,,,,,," beh= why=
		fi
		echo "$pt,$rep,$st,$d,$i,$p,$w,$c,$s,${S[requests]},$((S[seed] + rep))$vals,$pt/rep-$rep,$beh,$why"
	done < "$plan"
}

# A real sweep on a port of its own; the seed is not the default, so
# seed + rep is checked too.
port=$(test_port 0)
"$WB" sweep --out "$TMP/sw" --dist "fixed exp" --prequery "off 20" --reps 2 --requests 100 \
	--seed 41 --server-port "$port" > "$TMP/sw.out" 2>&1
# exit 1: a run failed (a loaded machine); its row is still collected
[ $? -le 1 ] && [ -s "$TMP/sw/sweep.csv" ] || fail "sweep: $(tail -3 "$TMP/sw.out")"
old_collect "$TMP/sw" > "$TMP/old.csv"
cut -d, -f1-25 "$TMP/sw/sweep.csv" > "$TMP/new25.csv"
cmp "$TMP/old.csv" "$TMP/new25.csv" || fail "sweep.csv differs from the awk loop's: $(diff "$TMP/old.csv" "$TMP/new25.csv")"
[ "$(csv_col "$TMP/sw/sweep.csv" seed | sort -u | tr '\n' ' ')" = "42 43 " ] || fail "seed + rep"

# Missing runs (no directory, no summary, an empty summary).
# runs, the ok ones last: the first three are made missing below, the
# last is ok (runs can fail on a loaded machine)
pts=($(awk -F, 'NR > 1 { print ($3 == "ok") "/" $1 "/rep-" $2 }' "$TMP/sw/sweep.csv" | sort -s -t/ -k1,1 | cut -d/ -f2-))
okrun=${pts[${#pts[@]} - 1]}
[ "$(awk -F, -v r="$okrun" 'NR > 1 && ($1 "/rep-" $2) == r { print $3 }' "$TMP/sw/sweep.csv")" = ok ] ||
	fail "no ok run: $(cat "$TMP/sw/sweep.csv")"
rm -rf "$TMP/sw/${pts[0]}"
rm -f "$TMP/sw/${pts[1]}/client/summary.csv"
: > "$TMP/sw/${pts[2]}/client/summary.csv"
"$WB" internal collect "$TMP/sw" || fail "--collect with missing runs"
old_collect "$TMP/sw" > "$TMP/old.csv"
cut -d, -f1-25 "$TMP/sw/sweep.csv" > "$TMP/new25.csv"
cmp "$TMP/old.csv" "$TMP/new25.csv" || fail "missing runs: $(diff "$TMP/old.csv" "$TMP/new25.csv")"
[ "$(grep -c ',missing,' "$TMP/sw/sweep.csv")" -ge 3 ] || fail "missing rows"
# --run-ok: what --resume skips
"$WB" internal run-ok "$TMP/sw/$okrun" || fail "--run-ok on an ok run"
for k in 0 1 2; do
	"$WB" internal run-ok "$TMP/sw/${pts[$k]}" && fail "--run-ok on missing run $k"
done

# A malformed summary: FILE:LINE, exit 1, sweep.csv untouched, no temp file.
cp "$TMP/sw/sweep.csv" "$TMP/before.csv"
sed -i '2s/,[^,]*$//' "$TMP/sw/$okrun/client/summary.csv"
out=$("$WB" internal collect "$TMP/sw" 2>&1); rc=$?
[ $rc = 1 ] || fail "malformed summary: exit $rc"
echo "$out" | grep -q "$okrun/client/summary.csv:2: .* fields, the header has" || fail "malformed summary: $out"
cmp -s "$TMP/before.csv" "$TMP/sw/sweep.csv" || fail "a failed --collect changed sweep.csv"
[ -z "$(ls -A "$TMP/sw" | grep partial)" ] || fail "temporary file left"
out=$("$WB" internal run-ok "$TMP/sw/$okrun" 2>&1) && fail "--run-ok on a malformed summary"
echo "$out" | grep -q 'summary.csv:2:' || fail "--run-ok: malformed summary not named: $out"
# The sweep itself fails the same way (and says why).
"$WB" internal collect "$TMP/nowhere" 2>/dev/null; [ $? = 1 ] || fail "--collect without a sweep"
"$WB" internal collect "$TMP/sw" extra 2>/dev/null; [ $? = 2 ] || fail "--collect with an extra argument"
"$WB" internal collect "$TMP/sw" --run-ok x 2>/dev/null; [ $? = 2 ] || fail "two modes"

# The verb table's usage errors: exit 2, the verb named, the hint to its --help.
usage_err() {	# usage_err WHAT PATTERN ARGS...: exit 2, PATTERN and a Try line on stderr
	local what=$1 pat=$2 out rc
	shift 2
	out=$("$WB_BIN/wakebench-internal" "$@" 2>&1 >/dev/null); rc=$?
	[ $rc = 2 ] || fail "$what: exit $rc, not 2: $out"
	echo "$out" | grep -q -- "$pat" || fail "$what: no '$pat' in: $out"
	echo "$out" | grep -q "^Try 'wakebench-internal.* --help'\.\$" || fail "$what: no Try line: $out"
}
usage_err "no verb" "wakebench-internal: give a verb"
usage_err "unknown verb" "wakebench-internal: unknown verb 'colect'" colect "$TMP/sw"
usage_err "collect without DIR" "wakebench-internal collect: missing arguments: give DIR" collect
usage_err "plan-update with two" "plan-update: missing arguments: give OLDSPEC NEWSPEC PLAN" plan-update a b
usage_err "agents with eight" "agents: unexpected argument '8'" agents 1 2 3 4 5 6 7 8
usage_err "an option run-ok lacks" "run-ok: unrecognized option '--bogus'" run-ok --bogus x
"$WB_BIN/wakebench-internal" run-ok --help | grep -q "^Usage: wakebench-internal run-ok RUNDIR" || fail "run-ok --help"
"$WB_BIN/wakebench-internal" --help | grep -q "^  collect " || fail "wakebench-internal --help lists no collect"
"$WB" --help | grep -qw internal && fail "wakebench --help lists the internal helper"
# the former stats options are gone from stats (a usage error)
for o in --collect --run-ok --pairs; do
	"$WB" stats "$o" "$TMP/sw" 2>/dev/null; [ $? = 2 ] || fail "stats $o still accepted"
done

# --pairs on the fixtures' sweep summary: figure 1-2 data as the awk had it.
mkdir "$TMP/p"
# (the fixture's sweep.csv has no ok rows: the report draws its summary.csv)
"$WB" internal pairs "$TMP/p" "$FX/sweep/summary.csv" || fail "--pairs"
for f in bars.dat speedup.dat; do
	sort "$TMP/p/$f" | cmp - "$FX/pairs/$f" || fail "--pairs $f differs: $(sort "$TMP/p/$f" | diff - "$FX/pairs/$f" | head -5)"
done
"$WB" internal pairs "$TMP/p" "$TMP/none.csv" 2>/dev/null; [ $? = 1 ] || fail "--pairs on a missing file"
"$WB" internal pairs "$TMP/p" 2>/dev/null; [ $? = 2 ] || fail "--pairs without a summary"

# csv_col (scripts/wb-lib.sh): quoted fields whole, exit 3 without the column.
printf 'a,b,c\n1,"x,y ""q""",3\n4,5,6\n' > "$TMP/q.csv"
[ "$(csv_col "$TMP/q.csv" b | tr '\n' '|')" = 'x,y "q"|5|' ] || fail "csv_col quoted: $(csv_col "$TMP/q.csv" b)"
[ "$(csv_col "$TMP/q.csv" c | tr '\n' '|')" = '3|6|' ] || fail "csv_col after a quoted comma"
csv_col "$TMP/q.csv" zz > /dev/null; [ $? = 3 ] || fail "csv_col without the column"
exit 0
