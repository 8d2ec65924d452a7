# wakebench report: every figure from the fixtures (a sweep summary, a run
# with an adaptive trajectory, two traces with attribution) and from a
# fresh loopback run; valid PNG and SVG files referenced by the index;
# missing data named, the rest still drawn.
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null || skip "gnuplot not installed (make deps)"
FX="$WB_TOP/tests/fixtures/report"

valid() {	# valid REPORTDIR N...: figures N exist, are PNG/SVG, are indexed
	local d=$1 n f; shift
	for n in "$@"; do
		f=$(ls "$d"/fig$n-*.png 2>/dev/null | head -1)
		[ -n "$f" ] || fail "figure $n missing in $d"
		[ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$f is not a PNG"
		[ "$(wc -c < "$f")" -gt 5000 ] || fail "$f is suspiciously small"
		grep -q '<svg' "${f%.png}.svg" || fail "${f%.png}.svg is not SVG"
		grep -q "</svg>" "${f%.png}.svg" || fail "${f%.png}.svg is truncated"
		grep -q "$(basename "$f")" "$d/index.html" || fail "index.html does not show $f"
		grep -q "$(basename "$f")" "$d/index.md" || fail "index.md does not show $f"
	done
	grep -q '</html>' "$d/index.html" || fail "index.html truncated"
}

"$WB" report "$FX" --out "$TMP/fx" > "$TMP/fx.out" 2> "$TMP/fx.err" || fail "report on fixtures: $(cat "$TMP/fx.err")"
grep -q '9 figures' "$TMP/fx.out" || fail "not every figure from the fixtures: $(cat "$TMP/fx.out" "$TMP/fx.err")"
valid "$TMP/fx" 1 2 3 4 5 6 7 8 9
# Figure 9: kernel state names whole (spaces), the pre-query classes
# once each, no prequery_woke rows drawn as a class of their own.
f9=$(ls "$TMP"/fx/fig9-*.svg)
grep -q 'haltpoll idle (n=36)' "$f9" || fail "fig 9: state name with a space not drawn whole"
for c in none woke awake together; do
	grep -q "pre-query:$c (n=" "$f9" || fail "fig 9: pre-query class $c missing"
done
! grep -q 'pre-query-woke' "$f9" || fail "fig 9: prequery_woke rows drawn as a class"
# Every figure has a title and axis labels.
for f in "$TMP"/fx/fig*.svg; do
	[ "$(grep -c '<text' "$f")" -ge 5 ] || fail "$f has too little text (title, labels)"
done
grep -q 'Summaries' "$TMP/fx/index.md" || fail "index.md has no summary tables"
grep -q '<table>' "$TMP/fx/index.html" || fail "index.html has no summary tables"

# A fresh loopback run with adaptive pre-query: figures 3, 4, 8; the
# others named as missing, and why.
start_server -q
"$WB" client --server 127.0.0.1:$PORT --dist exp --interval-us 300 --requests 600 \
	--prequery-policy adaptive --window 50 --out "$TMP/run" -q || fail "loopback run"
stop_server
"$WB" report "$TMP/run" > "$TMP/run.out" 2> "$TMP/run.err" || fail "report on a run: $(cat "$TMP/run.err")"
valid "$TMP/run/report" 3 4 8
grep -q 'figure 5: no trace directory' "$TMP/run.err" || fail "missing trace not named: $(cat "$TMP/run.err")"
grep -q 'figure 7: needs a sweep' "$TMP/run.err" || fail "missing sweep not named"
grep -q 'Not drawn' "$TMP/run/report/index.md" || fail "index does not list what was not drawn"

# Bad input.
"$WB" report "$TMP/nowhere" 2>/dev/null; [ $? = 1 ] || fail "missing DIR"
mkdir "$TMP/empty"
out=$("$WB" report "$TMP/empty" 2>&1); [ $? = 1 ] || fail "empty DIR: exit"
echo "$out" | grep -q 'no client run' || fail "empty DIR: message: $out"
"$WB" report 2>/dev/null; [ $? = 2 ] || fail "no DIR"
"$WB" report "$TMP/empty" --bogus 2>/dev/null; [ $? = 2 ] || fail "bad option"
# A trace directory cut short still gives the figures its files allow.
mkdir -p "$TMP/partial/trace"
cp "$FX/trace/meta.txt" "$FX/trace/residency.csv" "$TMP/partial/trace/"
"$WB" report "$TMP/partial" > /dev/null 2> "$TMP/partial.err"
[ -s "$TMP/partial/report/fig6-residency.png" ] || fail "partial trace: residency not drawn: $(cat "$TMP/partial.err")"

# Hostile directory names (issue 21 §1): a name that is gnuplot code is
# drawn as data, and names with spaces and quotes are found at all.
H="$TMP/hostile"
evil="$H/a'.system(\"touch\\040x\").'"
mkdir -p "$evil" "$H/with space \"q\" 'r'"
cp "$FX"/run/* "$evil/"
cp "$FX"/run/requests.csv "$FX"/run/summary.csv "$H/with space \"q\" 'r'/"
(cd "$H" && "$WB" report "$H" > "$TMP/h.out" 2> "$TMP/h.err") || fail "report on hostile names: $(cat "$TMP/h.err")"
[ -e "$H/x" ] && fail "a directory name ran gnuplot code"
find "$TMP" -name x | grep -q . && fail "a directory name ran gnuplot code: $(find "$TMP" -name x)"
valid "$H/report" 3 8
grep -q 'with_space_"q"_' "$H/report/fig3-latency-cdf.svg" || fail "the run under a name with spaces and quotes is missing from figure 3"
grep -q "system" "$H/report/fig8-adaptive-trajectory.svg" || fail "figure 8 title lost the directory name"
out=$("$WB" report "$H" --out "$TMP/h2" --window-ms '1:system("touch x")' 2>&1); [ $? = 2 ] || fail "--window-ms code accepted: $out"

# A sweep with runs behind schedule: flagged in the figures and index,
# left out of the medians unless --include-behind; the CI is labelled
# with its real coverage.
S="$TMP/bsweep"
mkdir -p "$S"
{
	echo "point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us,requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent,prequeries_skipped,dir"
	for r in 1 2 3 4 5 6; do
		late=0; [ $r = 6 ] && late=400
		echo "off,$r,ok,exp,1000,off,0,on,0,1000,$r,1000,10$r,10$r,120,200,300,1,0.5,$late,0,0,off/rep-$r"
		echo "pq,$r,ok,exp,1000,20,0,on,0,1000,$r,1000,8$r,8$r,90,150,200,1,0.5,0,1000,0,pq/rep-$r"
	done
} > "$S/sweep.csv"
"$WB" stats "$S" > /dev/null || fail "stats on the crafted sweep"
"$WB" report "$S" > /dev/null 2> "$TMP/b.err" || fail "report on the crafted sweep: $(cat "$TMP/b.err")"
grep -q 'Runs behind schedule' "$S/report/index.md" || fail "index does not list the run behind schedule"
grep -q 'off rep 6: 40.0 % of sends late' "$S/report/index.html" || fail "index.html: late run not named"
grep -q '\[!1_behind\]' "$S/report/fig1-latency-bars.svg" || fail "figure 1 does not mark the point"
grep -q '93.8 % CI (min-max of n=5)' "$S/report/fig1-latency-bars.svg" || fail "figure 1 CI label: $(grep -o 'CI[^<]*' "$S/report/fig1-latency-bars.svg" | head -2)"
grep -q '95 % CI' "$S/report/"*.svg && fail "a figure still says 95 % CI"
"$WB" report "$S" --include-behind --out "$TMP/bincl" > /dev/null 2>&1 || fail "report --include-behind"
grep -q '96.9 % CI (min-max of n=6)' "$TMP/bincl/fig1-latency-bars.svg" || fail "--include-behind: not 6 runs"
exit 0
