#!/bin/bash
# Issue 36: client --hdr-log writes an HdrHistogram interval log that
# HdrHistogram's own HistogramLogProcessor (Debian's libhdrhistogram-java)
# reads: per tag (lat, svc) its total count is the summary's and its
# p50/p99 lie in the summary's 95 % CI of them (widened by 1 %: the log's
# histograms come from the interval histograms, within 0.4 %, and HdrHistogram
# takes a percentile's rank rounded, not ceiled). One line per
# --report-interval and tag, or one per tag for the whole run without it;
# an unwritable FILE is an error naming it, before anything runs.
. "$(dirname "$0")/lib.sh"
JAR=/usr/share/java/hdrhistogram.jar
command -v java > /dev/null || skip "no java (apt-get install default-jre-headless)"
[ -r "$JAR" ] || skip "no $JAR (apt-get install libhdrhistogram-java)"
start_server -q
C=("$WB" client --server 127.0.0.1:$PORT -q --interval-us 500 --seed 3)
col() { csv_col "$1/summary.csv" "$2"; }

"${C[@]}" --hdr-log "$TMP/no/such/dir/x.hlog" --requests 10 2> "$TMP/err" &&
	fail "an unwritable --hdr-log accepted"
grep -q "^wakebench-client: --hdr-log $TMP/no/such/dir/x.hlog: " "$TMP/err" ||
	fail "unwritable: $(cat "$TMP/err")"

# processor LOG TAG: HistogramLogProcessor's percentile table of TAG, in us,
# with a row at exactly p99 (25 ticks per half distance reach it)
processor() {
	timeout 120 java -cp "$JAR" org.HdrHistogram.HistogramLogProcessor \
		-i "$1" -tag "$2" -outputValueUnitRatio 1000 \
		-percentilesOutputTicksPerHalf 25 > "$TMP/$2.out" 2> "$TMP/$2.err" ||
		fail "HistogramLogProcessor $2: $(cat "$TMP/$2.err")"
}
# pct TAG P: the table's value at percentile P
pct() {
	awk -v p="$2" '$2 ~ /^[0-9.]+$/ && $2 - p < 1e-9 && p - $2 < 1e-9 { print $1; exit }' \
		"$TMP/$1.out"
}
# check OUT LOG: both tags against OUT's summary
check() {
	local n tag q v lo hi
	n=$(col "$1" count)
	[ "$(col "$1" errors)" = 0 ] && [ "$(col "$1" unanswered)" = 0 ] ||
		fail "errors or unanswered on loopback"
	for tag in lat svc; do
		processor "$2" $tag
		grep -q "Total count *= *$n\]" "$TMP/$tag.out" ||
			fail "$tag: count not $n: $(grep Total "$TMP/$tag.out")"
		for q in 50 99; do
			v=$(pct $tag "0.$q")
			[ -n "$v" ] || fail "$tag: no p$q row"
			lo=$(col "$1" ${tag}_p${q}_lo_us)
			hi=$(col "$1" ${tag}_p${q}_hi_us)
			awk -v v="$v" -v lo="$lo" -v hi="$hi" \
				'BEGIN { exit !(v >= lo * 0.99 && v <= hi * 1.01) }' ||
				fail "$tag p$q: log $v us, summary CI $lo-$hi us"
		done
	done
}

# Intervals: one line per interval and tag, starts 0.5 s apart.
"${C[@]}" --duration 1.5 --report-interval 0.5 --hdr-log "$TMP/iv.hlog" \
	--out "$TMP/iv" > /dev/null || fail "client with intervals"
grep -q '^#\[StartTime: [0-9.]* (seconds since epoch)' "$TMP/iv.hlog" || fail "no StartTime"
grep -q '^#\[BaseTime: [0-9.]* (seconds since epoch)\]' "$TMP/iv.hlog" || fail "no BaseTime"
grep -qx '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"' \
	"$TMP/iv.hlog" || fail "no legend"
for tag in lat svc; do
	starts=$(grep "^Tag=$tag,HIST\|^Tag=$tag," "$TMP/iv.hlog" | cut -d, -f2 | head -3 | tr '\n' ' ')
	[ "$starts" = "0.000 0.500 1.000 " ] || fail "$tag interval starts: $starts"
done
grep -q '^Tag=lat,[0-9.]*,[0-9.]*,[0-9.]*,HISTFAAA' "$TMP/iv.hlog" || fail "not V2 compressed"
check "$TMP/iv" "$TMP/iv.hlog"

# No interval: the whole run, one line per tag.
"${C[@]}" --requests 2000 --report-interval 0 --hdr-log "$TMP/all.hlog" \
	--out "$TMP/all" > /dev/null || fail "client for the whole run"
[ "$(grep -c '^Tag=' "$TMP/all.hlog")" = 2 ] || fail "whole run: $(grep -c '^Tag=' "$TMP/all.hlog") lines"
check "$TMP/all" "$TMP/all.hlog"
stop_server || fail "server exit status"
exit 0
