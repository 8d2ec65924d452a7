# A trace of a big host as it is measured (issue 33): 512 CPUs, one busy
# (the measured one), 510 idle with a few timer and IRQ wakes each, one
# without events. trace timeline, attribute, export --format socwatch and
# the report take it whole (every CPU with events in every table, each
# CPU's residency summing to 100 %), and their peak RSS is not much more
# than on a 2-CPU trace of as many events: memory grows with the CPUs
# recorded by a few KB each, not by buffers of 64 KB each (before: the
# timeline 8x the 2-CPU trace's RSS, attribute 2.6x, the export 1.6x; the
# report's figure 5 failed, 38000 pixels high). No root: wb-tracegen.
. "$(dirname "$0")/lib.sh"
GEN="$WB_TOOLS/wb-tracegen"
PEAK="$WB_TOP/${O:-build}/bench/wb-peakrss"
[ -x "$GEN" ] || fail "no $GEN (make tests)"
[ -x "$PEAK" ] || fail "no $PEAK (make tests)"
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 700 ] ||
	skip "the hard open file limit is $(ulimit -Hn): too low for 512 CPUs"
N=200000
"$GEN" "$TMP/c2" $N 2 1 > /dev/null || fail "wb-tracegen, 2 CPUs"
"$GEN" --busy 300 "$TMP/c512" $N 512 1 > "$TMP/gen.out" || fail "wb-tracegen, 512 CPUs"
ls "$TMP/c512"/cpu511.raw > /dev/null || fail "no cpu511.raw"

# rss NAME CMD...: runs CMD under wb-peakrss, sets rss_NAME (KB)
rss() {
	local name=$1
	shift
	"$PEAK" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err" ||
		fail "$name: $* failed: $(grep -v peak_rss "$TMP/$name.err" | tail -2)"
	eval "rss_$name=$(sed -n 's/^peak_rss_kb //p' "$TMP/$name.err")"
}
for c in 2 512; do
	rss tl$c "$WB" trace timeline "$TMP/c$c"
	rss at$c "$WB" trace attribute "$TMP/c$c" --requests markers
	rss sw$c "$WB" trace export "$TMP/c$c" --format socwatch --out "$TMP/c$c.sw.csv"
done

# ---- every CPU with events is in the tables
d="$TMP/c512"
for cpu in 0 1 299 300 301 510; do
	[ "$(grep -c . "$d/cstate-cpu$cpu.csv")" -gt 10 ] || fail "cstate-cpu$cpu.csv: few rows"
done
[ "$(ls "$d"/cstate-cpu*.csv | wc -l)" = 512 ] || fail "not 512 cstate-cpuN.csv"
# each CPU's residency sums to 100 % of the trace; 512 CPUs, cpu511's
# unknown throughout
awk -F, 'NR > 1 { s[$1] += $3 } END {
	for (c in s) { n++; if (s[c] < 99.99 || s[c] > 100.01) { print "cpu" c ": " s[c] " %"; exit 1 } }
	if (n != 512) { print n " CPUs"; exit 1 } }' "$d/residency.csv" > "$TMP/sum.out" ||
	fail "residency.csv: $(cat "$TMP/sum.out")"
grep -q '^511,unknown,100.0000,1,.*,no cpu_idle events recorded for this CPU$' "$d/residency.csv" ||
	fail "residency.csv: cpu511 not unknown throughout"
# an idle CPU: woken by its timer and its IRQs, every exit counted
awk -F, '$1 == 7 { n += $4; c[$2] = 1 } END { exit !(n >= 1 && ("timer" in c)) }' "$d/wakeups.csv" ||
	fail "wakeups.csv: cpu7 not woken by its timer"
[ "$(cut -d, -f1 "$d/wakeups.csv" | sort -u | grep -c '^[0-9]')" = 511 ] ||
	fail "wakeups.csv: not the 511 CPUs with events"
grep -q "^warning: cpu511\|cpu511: no cpu_idle events" "$TMP/tl512.out" "$TMP/tl512.err" ||
	fail "timeline: cpu511 without events not warned about"
# attribute: the busy CPU's requests found
[ -s "$d/attribution.csv" ] && [ "$(grep -c . "$d/attribution.csv")" -gt 1000 ] ||
	fail "attribution.csv: few rows"
# the export: a section per CPU
[ "$(grep -c '^Core C-State - ' "$TMP/c512.sw.csv")" = 512 ] || fail "socwatch: not 512 core sections"

# ---- peak RSS against the 2-CPU trace (here 2026-11-27: timeline 1.8x,
# attribute 1.25x, export 1.04x; before 8x, 2.6x, 1.6x)
echo "peak RSS (KB) 2 / 512 CPUs: timeline $rss_tl2 / $rss_tl512, attribute $rss_at2 / $rss_at512, socwatch export $rss_sw2 / $rss_sw512"
[ "$rss_tl512" -le $((rss_tl2 * 3)) ] || fail "timeline: 512 CPUs $rss_tl512 KB, over 3x the 2-CPU $rss_tl2 KB"
[ "$rss_at512" -le $((rss_at2 * 2)) ] || fail "attribute: 512 CPUs $rss_at512 KB, over 2x the 2-CPU $rss_at2 KB"
[ "$rss_sw512" -le $((rss_sw2 * 13 / 10)) ] ||
	fail "socwatch export: 512 CPUs $rss_sw512 KB, over 1.3x the 2-CPU $rss_sw2 KB"

# ---- the report draws figures 5 and 6 of it (5 failed: too high for cairo)
command -v gnuplot > /dev/null || { echo "report part skipped: no gnuplot"; exit 0; }
"$WB" report "$d" --out "$TMP/rep" > "$TMP/rep.out" 2>&1 || fail "report: $(tail -3 "$TMP/rep.out")"
for f in fig5-cstate-timeline fig6-residency; do
	[ -s "$TMP/rep/$f.png" ] && [ -s "$TMP/rep/$f.svg" ] || fail "report: no $f ($(grep 'figure [56]' "$TMP/rep.out"))"
done
exit 0
