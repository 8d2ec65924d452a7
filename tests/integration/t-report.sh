# wakebench report: every figure from the fixtures (a sweep summary, a
# crafted sweep with its runs and energy, runs with adaptive trajectories,
# two traces with attribution and breakdown) and from a fresh loopback run;
# the figures' data files exact (wakebench-figdata on the fixtures against
# tests/fixtures/report/expected), each figure's former defect checked,
# valid PNG and SVG files referenced by the index; missing data named, the
# rest still drawn; several directories compared in one report.
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null || skip "gnuplot not installed (make deps)"
FX="$WB_TOP/tests/fixtures/report"
FD="$WB_BIN/wakebench-figdata"

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

# ---- the figures' data, exact ---------------------------------------------
"$WB" stats --out "$TMP/s2.csv" "$FX/sweep2" > /dev/null || fail "stats on the crafted sweep"
mkdir "$TMP/fd"
"$FD" figures --out "$TMP/fd" sweep fx "$TMP/s2.csv" "$FX/sweep2" run fx run "$FX/run" \
	trace fx trace2 "$FX/trace2" trace fx trace "$FX/trace" \
	traj fx run "$FX/run/prequery-trajectory.csv" traj fx run2 "$FX/run2/prequery-trajectory.csv" \
	> "$TMP/fd.out" 2>&1 || fail "figdata: $(cat "$TMP/fd.out")"
[ "$(grep -c ' ok$' "$TMP/fd.out")" = 12 ] || fail "not every figure has data: $(cat "$TMP/fd.out")"
# figure 14, the plane: no CPU time in the crafted sweep, its energy on x
grep -q "^xlabel = 'energy per request" "$TMP/fd/fig14.vars" || fail "figure 14's axis: $(cat "$TMP/fd/fig14.vars")"
diff -r "$FX/expected" "$TMP/fd" > "$TMP/fd.diff" || fail "figure data differ from tests/fixtures/report/expected: $(head -30 "$TMP/fd.diff")"
E=$TMP/fd
# 1: p50 beside avg and p99 (22 fields), labels in words, min-max said
sed 's/"[^"]*"/L/' "$E/fig1.dat" | awk '{ if (NF != 22) exit 1 }' || fail "fig 1: not avg, p50 and p99 with their intervals"
grep -q '^0 "exp 1 ms, lead 50 µs" 2 2 77.975 77.95 78 62.85 ' "$E/fig1.dat" || fail "fig 1: labels in words, medians and intervals"
grep -q "^cilabel = '50.0 % CI (min-max of n=2)'" "$E/fig1.vars" || fail "fig 1: the interval is not called min-max"
# 2: ordered by distribution and mean, overlap flagged
[ "$(awk '{ print $3 }' "$E/fig2.dat" | tr '\n' ' ')" = '1 2 1 2 ' ] || fail "fig 2: not ordered by mean"
grep -q '^2 "fixed 1 ms, lead 50 µs" [0-9. ]* 0 0 1 ' "$E/fig2.dat" || fail "fig 2: overlap of the p99 intervals not flagged"
# 2: then the paired effect; 2 pairs have a ratio but no interval
grep -q '^0 "exp 1 ms, lead 50 µs" .* 0 0 0 1.2407 NaN NaN 1.267 NaN NaN 1.1141 NaN NaN$' "$E/fig2.dat" ||
	fail "fig 2: paired effect: $(head -1 "$E/fig2.dat")"
# 3: every point drawn (the sweep has 18 run directories: the report drew
# the first 8), each curve ending at p = 1 - 1/n
grep -q '^ncurves = 10$' "$E/fig3.vars" || fail "fig 3: not every sweep point and run"
[ "$(awk 'BEGIN { RS = "" } { n = split($0, l, "\n"); split(l[n], f, " "); print f[2] }' "$E/fig3.dat" | sort -u | tr '\n' ' ')" = '0.975 0.9975 ' ] ||
	fail "fig 3: curves do not end at 1 - 1/n"
# 4: measured send gaps: the fixed 1 ms point's sends lag in a cycle, so
# its gaps are 1004 and 972 us (the planned ones are all 1000)
grep -q "^ptitle\[4\] = 'fixed, mean 1 ms: bins of 1 µs'" "$E/fig4.vars" || fail "fig 4: panel per distribution and mean, bin width"
awk 'BEGIN { RS = "" } NR == 10 { for (i = 1; i <= NF; i += 2) if ($i == 1004.5 && $(i + 1) > 0.8) ok = 1 } END { exit !ok }' "$E/fig4.dat" ||
	fail "fig 4: not the measured send gaps"
awk 'BEGIN { RS = "" } NR == 10 { for (i = 1; i <= NF; i += 2) if ($i == 1000.5 && $(i + 1) > 0) bad = 1 } END { exit bad }' "$E/fig4.dat" ||
	fail "fig 4: planned gaps drawn"
# 5: both traces on one axis, wake causes marked, absent series not listed
grep -q "^rowname\[1\] = 'trace2 cpu0'" "$E/fig5.vars" && grep -q "^rowname\[2\] = 'trace cpu0'" "$E/fig5.vars" ||
	fail "fig 5: the traces are not stacked"
grep -q '^kcount\[4\] = 1$' "$E/fig5.vars" || fail "fig 5: no wake cause marked"
grep -q '^kcount\[3\] = 0$' "$E/fig5.vars" || fail "fig 5: an IRQ outside the window counted"
# 6: C0 share and idle entries per second
grep -q '^0 "cpu0" 2.0201 2.2642 420.381 421.424$' "$E/fig6.dat" || fail "fig 6: C0 share and entries per second"
# 7: one series per full configuration: exp and fixed apart at 1000/s
grep -q "^names\[1\] = 'exp, no pre-query'" "$E/fig7.vars" && grep -q "^names\[3\] = 'fixed, no pre-query'" "$E/fig7.vars" ||
	fail "fig 7: distributions mixed in one line"
grep -q '^nseries = 5$' "$E/fig7.vars" || fail "fig 7: series"
# 8: the lead used during each window, old and new trajectory formats
awk 'BEGIN { RS = "" } { split($0, l, "\n"); if (l[2] != (NR == 1 ? "2 100 24.0774 100" : "2 100 31 100")) bad = 1 } END { exit bad }' "$E/fig8.dat" ||
	fail "fig 8: not the lead used during the window"
grep -q '^bestw\[2\] = 4$' "$E/fig8.vars" || fail "fig 8: the best window"
# 9: a panel per trace, p99 left out below 100 requests
grep -q '^npanels = 2$' "$E/fig9.vars" || fail "fig 9: not one panel per trace"
grep -q '"C0, pre-query awake (n=30)" 30 99.5 114.125 NaN$' "$E/fig9.dat" || fail "fig 9: p99 of 30 requests drawn"
grep -q '"C0, pre-query woke (n=120)" 120 94.375 110.625 118.75$' "$E/fig9.dat" || fail "fig 9: p99 of 120 requests hidden"
# 10, 11: the breakdown stacked per trace, energy where measured
grep -q '^1 "haltpoll idle, none (n=108)" 1.2 6.5 24.3 32 108$' "$E/fig10.dat" || fail "fig 10: breakdown"
[ "$(wc -l < "$E/fig11.dat")" = 4 ] || fail "fig 11: energy pairs"

# ---- the report of every fixture -------------------------------------------
"$WB" report "$FX" --out "$TMP/fx" > "$TMP/fx.out" 2> "$TMP/fx.err" || fail "report on fixtures: $(cat "$TMP/fx.err")"
grep -q '12 figures' "$TMP/fx.out" || fail "not every figure from the fixtures: $(cat "$TMP/fx.out" "$TMP/fx.err")"
valid "$TMP/fx" 1 2 3 4 5 6 7 8 9 10 11
f9=$(ls "$TMP"/fx/fig9-*.svg)
grep -q 'haltpoll idle, pre-query none (n=110)' "$f9" || fail "fig 9: state name with a space not drawn whole"
for c in woke awake together; do
	grep -q "pre-query $c (n=" "$f9" || fail "fig 9: pre-query class $c missing"
done
# Every figure has a title and axis labels.
for f in "$TMP"/fx/fig*.svg; do
	[ "$(grep -c '<text' "$f")" -ge 5 ] || fail "$f has too little text (title, labels)"
done
grep -q 'Summaries' "$TMP/fx/index.md" || fail "index.md has no summary tables"
grep -q '<table>' "$TMP/fx/index.html" || fail "index.html has no summary tables"
# provenance, what differs, snapshots; no table cut (the old index cut
# lines at 200 characters and tables at 40 rows)
grep -q '^| run | 0.1.0 | fixture-a | 2026-11-20T10:00:00Z | /usr/local/libexec' "$TMP/fx/index.md" || fail "no provenance of the run"
grep -q '^| snapshot: cpuidle.driver | (absent) | intel_idle | none |' "$TMP/fx/index.md" || fail "no snapshot difference"
grep -q 'Generated by wakebench ' "$TMP/fx/index.html" || fail "no version in index.html"
[ "$(grep -c '^| dist-' "$TMP/fx/index.md")" -ge 9 ] || fail "a summary table cut"
awk 'length > 400 { long = 1 } END { exit !long }' "$TMP/fx/index.md" || fail "wide summary rows cut"

# The traced wake's share in the index, and figure 10's axis not set by a
# few stalled C0 requests (issue 34): a trace whose summary has the
# state_prequery rows and whose C0 bar is 398 us of scheduling.
mkdir -p "$TMP/share"
cp -rp "$FX/trace" "$TMP/share/"
{
	echo "group,value,count,avg_us,p50_us,p90_us,p99_us,exact,uncertain,wake_n,wake_avg_us,wake_share_pct"
	echo "state,C0,120,72.3,67.3,80,90,1,0,120,12.3,17.01"
	echo "state_prequery,C0/none,20,450,80,2000,2100,1,0,20,398.5,88.56"
	echo "state_prequery,haltpoll idle/none,12,57.6,50,60,70,1,0,12,12.5,21.70"
} > "$TMP/share/trace/attribution-summary.csv"
{
	head -1 "$FX/trace/breakdown.csv"
	echo "C0,none,20,20,0,0,0,0.5,0.5,1,398,30,2000,398.5,30,2000,450,80,2100"
	tail -n +2 "$FX/trace/breakdown.csv"
} > "$TMP/share/trace/breakdown.csv"
"$WB" report "$TMP/share" > /dev/null 2> "$TMP/share.err" || fail "report on a trace with shares: $(cat "$TMP/share.err")"
grep -q '^| trace | haltpoll idle | none | 12 | 57.6 | 12 | 12.5 | 21.70 |$' "$TMP/share/report/index.md" ||
	fail "index.md has no wake share table: $(grep -A6 'Traced wake' "$TMP/share/report/index.md")"
grep -q 'cannot see .*inside HLT' "$TMP/share/report/index.html" || fail "index.html does not say what the trace cannot see"
f10=$(ls "$TMP"/share/report/fig10-*.svg)
grep -q 'axis cut at 49.4 µs' "$f10" && grep -q '>398 µs<' "$f10" ||
	fail "fig 10: the stalled C0 bar sets the scale or is not labelled"

# wakebench wake results (issue 34): figure 12 from a real run; figure 13
# needs silent times (none without cpuidle states: said), drawn from a
# crafted result with states
"$WB" wake --cpu 1 --source timer,ipi --count 30 --ldist 0,300 --out "$TMP/wk/real" -q 2>/dev/null ||
	fail "wake run for the report"
"$WB" report "$TMP/wk" > /dev/null 2> "$TMP/wk.err" || fail "report on a wake run: $(cat "$TMP/wk.err")"
valid "$TMP/wk/report" 12
if ! grep -q '"idle_states": *0' "$TMP/wk/real/summary.json"; then
	valid "$TMP/wk/report" 13
else
	grep -q 'figure 13: no datapoint has a silent time' "$TMP/wk.err" || fail "figure 13's absence not said: $(cat "$TMP/wk.err")"
fi
mkdir -p "$TMP/wk2/run"
cp "$TMP/wk/real/summary.json" "$TMP/wk2/run/"
{
	echo "seq,source,state_setting,launch_ns,wake_ns,latency_ns,silent_ns,state,busy"
	awk 'BEGIN { for (i = 0; i < 300; i++) { s = (i * 37) % 4000; st = s < 600 ? "C1" : "C6"
		printf "%d,%s,all,0,0,%d,%d,%s,0\n", i, i % 2 ? "timer" : "packet", (st == "C1" ? 10 : 80) * 1000 + i, s * 1000, st } }'
} > "$TMP/wk2/run/wake.csv"
printf 'source,state_setting,state,kernel_latency_us,kernel_residency_us\ntimer,all,C1,2,2\ntimer,all,C6,170,600\n' > "$TMP/wk2/run/summary.csv"
"$WB" report "$TMP/wk2" > /dev/null 2> "$TMP/wk2.err" || fail "report on a crafted wake result: $(cat "$TMP/wk2.err")"
valid "$TMP/wk2/report" 12 13
grep -q '>C6<' "$TMP"/wk2/report/fig13-*.svg || fail "fig 13: states not in the key"

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

# Two directories compared: a series per directory, what differs.
mkdir -p "$TMP/A" "$TMP/B"
cp -r "$FX/run" "$TMP/A/"
cp -r "$FX/run" "$TMP/B/"
sed -i 's/fixture-a/fixture-c/' "$TMP/B/run/snapshot.json"
sed -i 's/--window 50/--window 80/' "$TMP/B/run/cmdline.txt"
"$WB" report "$TMP/A" "$TMP/B" > /dev/null 2>&1; [ $? = 2 ] || fail "several DIRs without --out"
"$WB" report "$TMP/A" "$TMP/B" --out "$TMP/ab" > /dev/null 2> "$TMP/ab.err" || fail "report A B: $(cat "$TMP/ab.err")"
valid "$TMP/ab" 3 4 8
grep -q "A: run: poisson 200 µs, adaptive lead" "$TMP/ab/fig3-latency-cdf.svg" || fail "A's series missing"
grep -q "B: run: poisson 200 µs, adaptive lead" "$TMP/ab/fig3-latency-cdf.svg" || fail "B's series missing"
grep -q '^| command line: --window | 50 | 80 |' "$TMP/ab/index.md" || fail "command line difference not shown: $(grep -A8 'What differs' "$TMP/ab/index.md")"
grep -q '^| snapshot: hostname | fixture-a | fixture-c |' "$TMP/ab/index.md" || fail "snapshot difference not shown"

# Bad input.
"$WB" report "$TMP/nowhere" 2>/dev/null; [ $? = 1 ] || fail "missing DIR"
mkdir "$TMP/empty"
out=$("$WB" report "$TMP/empty" 2>&1); [ $? = 1 ] || fail "empty DIR: exit"
echo "$out" | grep -q 'no client run' || fail "empty DIR: message: $out"
"$WB" report 2>/dev/null; [ $? = 2 ] || fail "no DIR"
"$WB" report "$TMP/empty" --bogus 2>/dev/null; [ $? = 2 ] || fail "bad option"
# an option without its value (last, or empty): a usage error, not bash's
for o in --reference --out --cpus --window-ms --run; do
	out=$("$WB" report "$TMP/empty" "$o" 2>&1); rc=$?
	[ $rc = 2 ] || fail "$o without a value: exit $rc: $out"
	[ "$out" = "wakebench-report: option '$o' requires an argument
Try 'wakebench-report --help'." ] || fail "$o without a value: $out"
done
"$WB" report "$TMP/empty" --reference "" 2>/dev/null; [ $? = 2 ] || fail "an empty --reference"
# A trace directory cut short still gives the figures its files allow.
mkdir -p "$TMP/partial/trace"
cp "$FX/trace/meta.txt" "$FX/trace/residency.csv" "$TMP/partial/trace/"
"$WB" report "$TMP/partial" > /dev/null 2> "$TMP/partial.err"
[ -s "$TMP/partial/report/fig6-residency.png" ] || fail "partial trace: residency not drawn: $(cat "$TMP/partial.err")"
# A malformed file is named, not drawn around silently.
mkdir -p "$TMP/badtr"
cp -r "$FX/trace" "$TMP/badtr/"
printf 'cpu,state,percent,entries,avg_stay_us,time_ms\n0,C0,x,1,1,1\n' > "$TMP/badtr/trace/residency.csv"
"$WB" report "$TMP/badtr" > /dev/null 2> "$TMP/badtr.err"
grep -q 'figure 6: .*residency.csv:2' "$TMP/badtr.err" || fail "malformed residency not named: $(cat "$TMP/badtr.err")"
"$FD" figures --out "$TMP" run 2>/dev/null; [ $? = 2 ] || fail "figdata: sources not in fours"
"$FD" figures --out "$TMP" --window-ms 3:1 2>/dev/null; [ $? = 2 ] || fail "figdata: reversed window"

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
grep -q "with space \"q\" 'r'" "$H/report/fig3-latency-cdf.svg" || fail "the run under a name with spaces and quotes is missing from figure 3"
grep -q "system" "$H/report/fig8-adaptive-trajectory.svg" || fail "figure 8 lost the directory name"
grep -q '&lt;\|system(' "$H/report/index.html" || fail "index.html lost the directory name"
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
# The paired effect (issue 31): a table in both indexes; 5 pairs (rep 6
# behind) bound no median at 95 %: undecided, no interval drawn.
grep -q '^## Paired effects' "$S/report/index.md" || fail "index.md: no paired effects"
grep -q '^| exp 1 ms, lead 20 µs \[!1_behind\] | 5 |  | 1\.[0-9]* \[-\] undecided at n=5 | ' "$S/report/index.md" ||
	fail "index.md: 5 pairs: $(grep -A4 '^## Paired' "$S/report/index.md")"
grep -q 'paired ratio and CI' "$S/report/fig2-speedup.svg" && fail "figure 2: paired key without an interval"
# 9 pairs, one stalled: the medians' intervals overlap (hatched), the
# paired interval [2.5, 3.125] lies above 1: faster, drawn on figure 2.
P="$TMP/psweep"
mkdir -p "$P"
{
	echo "point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us,requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent,prequeries_skipped,dir"
	r=0
	for v in 40 200 35 38 32 30.303 36 34 33; do
		r=$((r + 1))
		echo "off,$r,ok,exp,1000,off,0,on,0,1000,$r,1000,100,100,120,200,300,1,0.5,0,0,0,off/rep-$r"
		echo "pq,$r,ok,exp,1000,20,0,on,0,1000,$r,1000,$v,$v,90,200,300,1,0.5,0,1000,0,pq/rep-$r"
	done
} > "$P/sweep.csv"
"$WB" report "$P" > /dev/null 2> "$TMP/p.err" || fail "report on the paired sweep: $(cat "$TMP/p.err")"
grep -q '^| exp 1 ms, lead 20 µs | 9 | 0.9609 | 2.857 \[2.500, 3.125\] faster | 2.857 \[2.500, 3.125\] faster | 1.000 \[1.000, 1.000\] undecided at n=9 |$' "$P/report/index.md" ||
	fail "index.md: 9 pairs: $(grep -A4 '^## Paired' "$P/report/index.md")"
grep -q '<h2>Paired effects</h2>' "$P/report/index.html" || fail "index.html: no paired effects"
grep -q '2.857 \[2.500, 3.125\] faster' "$P/report/index.html" || fail "index.html: no paired row"
grep -q 'paired ratio and CI' "$P/report/fig2-speedup.svg" || fail "figure 2: no paired interval drawn"
grep -q 'Within-run' "$P/report/index.md" && fail "index.md: within-run note without within-run CIs"
# Within-run intervals wider than +-10 %: named in both indexes.
awk -F, -v OFS=, 'NR == 1 { print $0, "lat_p50_lo_us,lat_p50_hi_us,lat_p99_lo_us,lat_p99_hi_us"; next }
	{ print $0, $14 * 0.99, $14 * 1.01, ($1 == "pq" ? 100 : 190), ($1 == "pq" ? 300 : 210) }' "$P/sweep.csv" > "$TMP/w.csv"
mv "$TMP/w.csv" "$P/sweep.csv"
"$WB" report "$P" --out "$TMP/pw" > /dev/null 2> "$TMP/pw.err" || fail "report with within-run CIs: $(cat "$TMP/pw.err")"
grep -qx -- '- pq: p99: within-run 95 % CIs are wide (median +-50 %): more requests per run' "$TMP/pw/index.md" ||
	fail "index.md: within-run note: $(grep -A6 'Within-run' "$TMP/pw/index.md")"
grep -q 'off: p99' "$TMP/pw/index.md" && fail "index.md: a narrow point called wide"
grep -q '<li>pq: p99: within-run 95 % CIs are wide (median +-50 %): more requests per run</li>' "$TMP/pw/index.html" ||
	fail "index.html: within-run note"

# Reference speedups (issue 31: the thesis' numbers beside the paired
# CIs): --reference FILE draws them on figure 2 and adds a column to the
# Paired effects table; rows of no point are a note; a bad file stops the
# report naming FILE:LINE; a symbolic link is refused.
printf 'point,metric,value,source\npq,avg,1.967,"thesis table 5.3 (100 ms gaps)"\npq,p99,1.099,thesis table 5.3 (100 ms gaps)\nnosuch,p50,2,somewhere\n' > "$TMP/ref.csv"
"$WB" stats --out "$TMP/ps.csv" "$P" > /dev/null || fail "stats on the paired sweep"
mkdir "$TMP/fdref"
"$FD" figures --out "$TMP/fdref" --reference "$TMP/ref.csv" sweep p "$TMP/ps.csv" "$P" > "$TMP/fdref.out" 2>&1 ||
	fail "figdata --reference: $(cat "$TMP/fdref.out")"
grep -q '^0 "exp 1 ms, lead 20 µs" .* 1.967 NaN 1.099$' "$TMP/fdref/fig2.dat" || fail "fig2.dat: no reference columns: $(cat "$TMP/fdref/fig2.dat")"
grep -q '^nref = 2$' "$TMP/fdref/fig1.vars" && grep -q "^refsrc = 'thesis table 5.3 (100 ms gaps)'$" "$TMP/fdref/fig1.vars" ||
	fail "fig1.vars: no reference variables: $(cat "$TMP/fdref/fig1.vars")"
grep -q "^note reference rows of $TMP/ref.csv that match no point: nosuch: p50 (line 4)$" "$TMP/fdref.out" || fail "figdata: unmatched row not noted: $(cat "$TMP/fdref.out")"
"$WB" report "$P" --out "$TMP/pref" --reference "$TMP/ref.csv" > /dev/null 2> "$TMP/pref.err" || fail "report --reference: $(cat "$TMP/pref.err")"
valid "$TMP/pref" 2
grep -q '^| configuration | pairs | coverage | avg | p50 | p99 | reference |$' "$TMP/pref/index.md" || fail "index.md: no reference column: $(grep -A4 '^## Paired' "$TMP/pref/index.md")"
grep -q '^| exp 1 ms, lead 20 µs | 9 | 0.9609 | .* | avg 1.967, p99 1.099: thesis table 5.3 (100 ms gaps) |$' "$TMP/pref/index.md" ||
	fail "index.md: reference cell: $(grep -A4 '^## Paired' "$TMP/pref/index.md")"
grep -q '<td>avg 1.967, p99 1.099: thesis table 5.3 (100 ms gaps)</td>' "$TMP/pref/index.html" || fail "index.html: no reference cell"
grep -q 'reference rows of .*ref.csv that match no point: nosuch: p50 (line 4)' "$TMP/pref/index.md" || fail "index.md: unmatched reference row not noted"
grep -q 'reference value' "$TMP/pref/fig2-speedup.svg" && grep -q 'reference: thesis table 5.3 (100 ms gaps)' "$TMP/pref/fig2-speedup.svg" ||
	fail "figure 2: no reference key or sources"
grep -q 'reference' "$P/report/fig2-speedup.svg" && fail "figure 2 without --reference names a reference"
# several DIRs: each one's point matched
cp -r "$P" "$TMP/P2"
"$WB" report "$P" "$TMP/P2" --out "$TMP/pref2" --reference "$TMP/ref.csv" > /dev/null 2>&1 || fail "report of two DIRs --reference"
[ "$(grep -c ' | avg 1.967, p99 1.099: thesis table 5.3 (100 ms gaps) |$' "$TMP/pref2/index.md")" = 2 ] ||
	fail "two DIRs: not both points matched: $(grep -A5 '^## Paired' "$TMP/pref2/index.md")"
# a bad row: exit 1, FILE:LINE and the cause
printf 'point,metric,value,source\npq,avg,1.967,x\npq,p50,fast,x\n' > "$TMP/badref.csv"
out=$("$WB" report "$P" --out "$TMP/pbad" --reference "$TMP/badref.csv" 2>&1); [ $? = 1 ] || fail "bad reference file: exit"
echo "$out" | grep -q "$TMP/badref.csv:3: the value is not a number: 'fast'" || fail "bad reference file: message: $out"
ln -s "$TMP/ref.csv" "$TMP/linkref.csv"
out=$("$WB" report "$P" --out "$TMP/plink" --reference "$TMP/linkref.csv" 2>&1); [ $? = 1 ] || fail "symlinked reference file: exit"
echo "$out" | grep -q "linkref.csv: a symbolic link" || fail "symlinked reference file: message: $out"
# the thesis' reference file is well-formed
"$FD" figures --out "$TMP/fdref" --reference "$WB_TOP/scripts/examples/thesis-headline.ref.csv" > "$TMP/th.out" 2>&1 ||
	fail "scripts/examples/thesis-headline.ref.csv: $(cat "$TMP/th.out")"
exit 0
