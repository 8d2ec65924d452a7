# No file wakebench writes follows a link planted at its name (issue 30
# §4): a symbolic link to a victim at every temporary (.NAME.partial) and
# unstaged name of trace export (socwatch, trace.dat), trace import
# --force, stats --merge, stats DIR, trace timeline, client --out, server
# --log and trace record (root and tracefs; skipped without). A link at a
# temporary name is removed and the file made anew; one at a final name
# written in place (timeline's CSVs, server --log and --port-file, stats
# DIR's summary.csv) is refused, naming the file: it may be the user's own
# /dev/stdout, which must not be unlinked. The victim is never touched.
. "$(dirname "$0")/lib.sh"
GEN="$WB_TOOLS/wb-tracegen"
t() { local s=$1; shift; timeout "$s" "$@"; }
V="$TMP/victim"
echo "victim's own text" > "$V"
victim_ok() {	# victim_ok WHAT: the victim is as it was
	[ "$(cat "$V")" = "victim's own text" ] || fail "$1 wrote through a link into the victim"
	[ -f "$V" ] && [ ! -L "$V" ] || fail "$1 replaced the victim"
}
plant() {	# plant DIR NAME...: a link to the victim at each .NAME.partial
	local d=$1; shift
	for n in "$@"; do rm -f "$d/.$n.partial"; ln -s "$V" "$d/.$n.partial"; done
}
regular() {	# regular WHAT FILE...: each a regular file, none a link
	local w=$1; shift
	for f in "$@"; do
		[ -f "$f" ] && [ ! -L "$f" ] || fail "$w: $f is not a regular file: $(ls -la "$f" 2>&1)"
	done
}
refused() {	# refused WHAT FILE CMD...: exit non-zero, FILE named, link kept
	local what=$1 file=$2 out rc
	shift 2
	out=$(timeout 20 "$@" 2>&1 </dev/null); rc=$?
	[ $rc != 0 ] && [ $rc != 124 ] || fail "$what over a link: exit $rc: $out"
	echo "$out" | grep -qF "$file" || fail "$what: the link $file not named: $out"
	[ -L "$file" ] || fail "$what: the link $file was removed"
}
nolinks() {	# nolinks WHAT DIR: no .partial left (the planted ones removed)
	local left
	left=$(find "$2" -maxdepth 1 -name '.*.partial')
	[ -z "$left" ] || fail "$1: left $left"
}

t 30 "$GEN" "$TMP/tr" 2000 2 1 > /dev/null || fail "wb-tracegen"

# ---- trace export: both formats --------------------------------------------
mkdir "$TMP/ex"
plant "$TMP/ex" sw.csv t.dat
t 30 "$WB" trace export "$TMP/tr" --format socwatch --out "$TMP/ex/sw.csv" > "$TMP/o" 2>&1 ||
	fail "export socwatch with a planted link: $(cat "$TMP/o")"
victim_ok "trace export --format socwatch"
t 60 "$WB" trace export "$TMP/tr" --format trace.dat --out "$TMP/ex/t.dat" > "$TMP/o" 2>&1 ||
	fail "export trace.dat with a planted link: $(cat "$TMP/o")"
victim_ok "trace export --format trace.dat"
regular export "$TMP/ex/sw.csv" "$TMP/ex/t.dat"
nolinks export "$TMP/ex"
# a link at the final name, replaced with --force: the link goes, not the victim
ln -sf "$V" "$TMP/ex/final.csv"
t 30 "$WB" trace export "$TMP/tr" --format socwatch --out "$TMP/ex/final.csv" --force > "$TMP/o" 2>&1 ||
	fail "export --force over a link: $(cat "$TMP/o")"
victim_ok "trace export --force over a link"
regular "export --force" "$TMP/ex/final.csv"

# ---- trace import --force -----------------------------------------------------
mkdir "$TMP/imp"
plant "$TMP/imp" cpu0.raw cpu1.raw meta.txt
t 60 "$WB" trace import "$TMP/ex/sw.csv" --format socwatch --out "$TMP/imp" --force > "$TMP/o" 2>&1 ||
	fail "import with planted links: $(cat "$TMP/o")"
victim_ok "trace import --force"
regular import "$TMP/imp/meta.txt" "$TMP/imp/cpu0.raw" "$TMP/imp/cpu1.raw"
nolinks import "$TMP/imp"

# ---- trace timeline: its files are written in place, unstaged -------------------
for n in residency.csv wakeups.csv irq.csv markers.csv cstate-cpu0.csv; do
	rm -rf "$TMP/tl"; cp -r "$TMP/tr" "$TMP/tl"
	ln -s "$V" "$TMP/tl/$n"
	refused "trace timeline, $n" "$TMP/tl/$n" "$WB" trace timeline "$TMP/tl"
	victim_ok "trace timeline, $n"
done

# ---- client --out, server --log, stats --merge, stats DIR --------------------------
mkdir "$TMP/a1" "$TMP/a2"
CLIENT_FILES="requests.csv gaps.csv cmdline.txt snapshot.json summary.txt summary.csv summary.json"
plant "$TMP/a1" $CLIENT_FILES
ln -s "$V" "$TMP/srv.csv"
refused "server --log" "$TMP/srv.csv" "$WB" server --port 0 --log "$TMP/srv.csv"
victim_ok "server --log"
rm "$TMP/srv.csv"
start_server --log "$TMP/srv.csv"
for a in a1 a2; do
	"$WB" client --server 127.0.0.1:$PORT --requests 100 --interval-us 500 --out "$TMP/$a" \
		--force -q 2> "$TMP/o" || fail "client --out $a with planted links: $(cat "$TMP/o")"
done
stop_server || fail "server: $(cat "$SERVER_ERR")"
victim_ok "client --out / server --log"
ln -s "$V" "$TMP/pf"
refused "server --port-file" "$TMP/pf" "$WB" server --port 0 --port-file "$TMP/pf"
victim_ok "server --port-file"
regular client "$TMP/a1/requests.csv" "$TMP/a1/summary.csv" "$TMP/srv.csv"
nolinks client "$TMP/a1"
mkdir "$TMP/m"
plant "$TMP/m" requests.csv agents.csv summary.txt summary.json summary.csv
t 30 "$WB" stats --merge "$TMP/m" "$TMP/a1" "$TMP/a2" > "$TMP/o" 2>&1 ||
	fail "stats --merge with planted links: $(cat "$TMP/o")"
victim_ok "stats --merge"
regular merge "$TMP/m/requests.csv" "$TMP/m/summary.csv" "$TMP/m/agents.csv"
nolinks merge "$TMP/m"
# stats DIR on a sweep.csv: summary.csv and the table written over links
mkdir "$TMP/sw"
echo "point,rep,status,dist,interval_us,prequery,warmup,cstates,service_us,requests,seed,count,lat_avg_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,svc_p50_us,pace_p99_us,late_sends,prequeries_sent,prequeries_skipped,dir" > "$TMP/sw/sweep.csv"
for r in 1 2 3; do echo "p,$r,ok,exp,1000,off,0,on,0,1000,$r,1000,5$r,5$r,5$r,5$r,5$r,1,0.5,0,0,0,p/rep-$r" >> "$TMP/sw/sweep.csv"; done
ln -s "$V" "$TMP/sw/summary.csv"
refused "stats DIR" "$TMP/sw/summary.csv" "$WB" stats "$TMP/sw"
victim_ok "stats DIR"
# a hard link at the final name is replaced, not written through
rm "$TMP/sw/summary.csv"; ln "$V" "$TMP/sw/summary.csv"
t 30 "$WB" stats "$TMP/sw" > "$TMP/o" 2>&1 || fail "stats DIR over a hard link: $(cat "$TMP/o")"
victim_ok "stats DIR over a hard link"
regular stats "$TMP/sw/summary.csv"

# ---- trace record (root and tracefs) ------------------------------------------------
if [ "$(id -u)" = 0 ] && { [ -d /sys/kernel/tracing/events/power/cpu_idle ] ||
	{ mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
	  [ -d /sys/kernel/tracing/events/power/cpu_idle ]; }; }; then
	mkdir "$TMP/rec"
	plant "$TMP/rec" meta.txt trace.dat cpu0.raw cpu1.raw hw-residency.csv
	t 30 "$WB" trace record --out "$TMP/rec" --duration 0.2 > "$TMP/o" 2>&1 ||
		fail "trace record with planted links: $(cat "$TMP/o")"
	victim_ok "trace record"
	regular record "$TMP/rec/meta.txt" "$TMP/rec/trace.dat"
	nolinks record "$TMP/rec"
else
	echo "trace record part skipped: needs root and a tracefs with power:cpu_idle"
fi
exit 0
