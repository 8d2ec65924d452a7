# Readers take regular files only, and lines are bounded before they are
# held (issue 30 §5, §6). A link to /dev/zero and a FIFO at cpuN.raw,
# meta.txt and requests.csv: trace timeline, trace export (both formats),
# stats --merge and report each exit non-zero within seconds, naming the
# file (the old readers spun on /dev/zero and blocked on the FIFO; timeout
# turns a hang into a failure). A 1 MB line in requests.csv: stats --merge
# names FILE:LINE at once, in bounded memory.
. "$(dirname "$0")/lib.sh"
GEN="$WB_TOOLS/wb-tracegen"
t() { local s=$1; shift; timeout "$s" "$@"; }

t 30 "$GEN" "$TMP/tr" 2000 2 1 > /dev/null || fail "wb-tracegen"
start_server
for a in a1 a2; do
	"$WB" client --server 127.0.0.1:$PORT --requests 100 --interval-us 500 --out "$TMP/$a" -q \
		2> "$TMP/o" || fail "client: $(cat "$TMP/o")"
done
stop_server || fail "server: $(cat "$SERVER_ERR")"

# expect_refused WHAT FILE CMD...: exit non-zero in 10 s, FILE named
expect_refused() {
	local what=$1 file=$2 out rc start end
	shift 2
	start=$(date +%s)
	out=$(timeout 10 "$@" 2>&1 </dev/null); rc=$?
	end=$(date +%s)
	[ $rc = 124 ] && fail "$what: hung (killed after 10 s)"
	[ $rc != 0 ] || fail "$what: exit 0: $out"
	[ $((end - start)) -le 5 ] || fail "$what: took $((end - start)) s"
	echo "$out" | grep -qF "$file" || fail "$what: message does not name $file: $out"
	echo "$out" | grep -qE 'symbolic link|FIFO|not a regular file' ||
		fail "$what: message does not say why: $out"
}

for kind in zero fifo; do
	plantin() {	# plantin DIR NAME: /dev/zero link or FIFO at DIR/NAME
		rm -f "$1/$2"
		if [ $kind = zero ]; then ln -s /dev/zero "$1/$2"; else mkfifo "$1/$2"; fi
	}
	for f in cpu0.raw meta.txt; do
		d="$TMP/tr-$kind-${f%%.*}"
		rm -rf "$d"; cp -r "$TMP/tr" "$d"
		plantin "$d" $f
		expect_refused "timeline, $f $kind" "$d/$f" "$WB" trace timeline "$d"
		expect_refused "export socwatch, $f $kind" "$d/$f" \
			"$WB" trace export "$d" --format socwatch --out "$TMP/x-$kind.csv" --force
		expect_refused "export trace.dat, $f $kind" "$d/$f" \
			"$WB" trace export "$d" --format trace.dat --out "$TMP/x-$kind.dat" --force
		[ -e "$TMP/x-$kind.csv" ] || [ -e "$TMP/x-$kind.dat" ] && fail "$f $kind: an export was written"
		# report: the trace is not drawn and the file is named
		expect_refused "report, $f $kind" "$d/$f" "$WB" report "$d"
	done
	d="$TMP/a-$kind"
	rm -rf "$d"; cp -r "$TMP/a1" "$d"
	plantin "$d" requests.csv
	expect_refused "stats --merge, requests.csv $kind" "$d/requests.csv" \
		"$WB" stats --merge "$TMP/m-$kind" "$TMP/a2" "$d"
	expect_refused "report, requests.csv $kind" "$d/requests.csv" "$WB" report "$d"
done

# ---- a line of 1 MB: FILE:LINE at once, memory bounded ------------------------
rm -rf "$TMP/big"; cp -r "$TMP/a1" "$TMP/big"
{ head -3 "$TMP/a1/requests.csv"; head -c 1048576 /dev/zero | tr '\0' 1; echo; tail -n +4 "$TMP/a1/requests.csv"; } \
	> "$TMP/big/requests.csv"
if [ -x /usr/bin/time ]; then
	out=$(timeout 10 /usr/bin/time -f 'maxrss %M' "$WB" stats --merge "$TMP/mb" "$TMP/a2" "$TMP/big" 2>&1); rc=$?
	kb=$(echo "$out" | sed -n 's/^maxrss //p')
	[ -n "$kb" ] && [ "$kb" -lt 102400 ] || fail "1 MB line: max RSS ${kb:-?} KB: $out"
else
	out=$(timeout 10 "$WB" stats --merge "$TMP/mb" "$TMP/a2" "$TMP/big" 2>&1); rc=$?
fi
[ $rc = 1 ] || fail "1 MB line: exit $rc: $out"
echo "$out" | grep -qF "$TMP/big/requests.csv:4: a line longer than 64 KiB" || fail "1 MB line: $out"
# stats DIR on a sweep.csv with such a line
mkdir "$TMP/sw"
{ echo "point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us,requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent,prequeries_skipped,dir"
  echo "p,1,ok,exp,1000,off,0,on,0,1000,1,1000,51,51,51,51,51,1,0.5,0,0,0,p/rep-1"
  head -c 1048576 /dev/zero | tr '\0' x; echo; } > "$TMP/sw/sweep.csv"
out=$(timeout 10 "$WB" stats "$TMP/sw" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -qF "$TMP/sw/sweep.csv:3: a line longer than 64 KiB" ||
	fail "stats DIR, 1 MB line (exit $rc): $out"
# a trace's meta.txt with such a line: every trace command names it
rm -rf "$TMP/ml"; cp -r "$TMP/tr" "$TMP/ml"
{ head -1 "$TMP/tr/meta.txt"; printf 'note '; head -c 1048576 /dev/zero | tr '\0' n; echo
  tail -n +2 "$TMP/tr/meta.txt"; } > "$TMP/ml/meta.txt"
out=$(timeout 10 "$WB" trace timeline "$TMP/ml" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -qF "$TMP/ml/meta.txt:2: a line longer than 64 KiB" ||
	fail "timeline, 1 MB line in meta.txt (exit $rc): $out"
# the report's readers of requests.csv bound their lines too
out=$(timeout 20 "$WB" report "$TMP/big" --out "$TMP/big-report" 2>&1)
echo "$out" | grep -qF "$TMP/big/requests.csv:4: a line longer than 64 KiB" || fail "report, 1 MB line: $out"
exit 0
