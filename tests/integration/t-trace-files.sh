# wakebench trace timeline/attribute on recorded trace files, no kernel
# needed: corrupt and truncated pages (issue 21 §2), bad request files
# (issue 21 §3), kernel state names with spaces and commas, CPUs without
# cpu_idle events, attribution ties, --cpu with markers, and the client
# join behind a midtier (issue 13). Fixture: two pages recorded on this
# VM (tests/fixtures/trace/real: 40 request markers on cpu0).
. "$(dirname "$0")/lib.sh"
FX="$WB_TOP/tests/fixtures/trace/real"
fresh() { rm -rf "$TMP/$1"; cp -r "$FX" "$TMP/$1"; }
# poke FILE OFFSET HEXBYTES: overwrite bytes in place
poke() { printf "$(echo "$3" | sed 's/../\\x&/g')" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# t SECONDS CMD...: the command bounded in time; 124 means it hung
t() { local s=$1; shift; timeout "$s" "$@"; }

fresh ok
t 20 "$WB" trace timeline "$TMP/ok" > "$TMP/ok.out" || fail "timeline on the fixture"
grep -q '^events: 97 in the trace' "$TMP/ok.out" || fail "fixture events: $(cat "$TMP/ok.out")"

# ---- corrupt pages: an error naming file, CPU, page and offset ----------
fresh bad
poke "$TMP/bad/cpu0.raw" 4104 ffffff7f00000000      # page 1's commit = 0x7fffffff
for cmd in "timeline" "attribute --requests markers"; do
	out=$(t 20 "$WB" trace $cmd "$TMP/bad" 2>&1 >/dev/null); rc=$?
	[ $rc = 1 ] || fail "$cmd on a corrupt commit: exit $rc (139 is the old segfault): $out"
	echo "$out" | grep -q "cpu0.raw: CPU 0, page 1, offset 4104 (byte 8 of the page): commit 0x7fffffff" ||
		fail "$cmd: corrupt page message: $out"
done
out=$(t 20 "$WB" trace timeline --skip-corrupt "$TMP/bad" 2>&1) || fail "--skip-corrupt: $out"
echo "$out" | grep -q 'warning: skipped 1 corrupt page (--skip-corrupt); the first: .*page 1' ||
	fail "--skip-corrupt warning: $out"
echo "$out" | grep -q '^events: 44 in the trace' || fail "--skip-corrupt kept page 0: $out"
fresh trunc
head -c 100 "$FX/cpu0.raw" >> "$TMP/trunc/cpu0.raw"     # a cut third page
out=$(t 20 "$WB" trace timeline "$TMP/trunc" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'page 2, offset 8192: truncated page (100 of 4096 bytes)' ||
	fail "truncated page not reported (exit $rc): $out"
out=$(t 20 "$WB" trace timeline "$TMP/trunc" --skip-corrupt 2>&1) || fail "truncated with --skip-corrupt: $out"
echo "$out" | grep -q 'skipped 1 corrupt page' || fail "truncated page not counted: $out"

# ---- kernel state names, quoted where CSV needs it ------------------------
fresh names
sed -i 's/^state 0 1 .*/state 0 1 haltpoll idle/' "$TMP/names/meta.txt"
t 20 "$WB" trace timeline "$TMP/names" > "$TMP/names.out" || fail "timeline with a spaced name"
grep -q '^0,haltpoll idle,' "$TMP/names/residency.csv" || fail "residency name: $(cat "$TMP/names/residency.csv")"
grep -q ',haltpoll idle,' "$TMP/names/cstate-cpu0.csv" || fail "C-state CSV name"
grep -q ' haltpoll idle ' "$TMP/names.out" || fail "printed name"
sed -i 's/^state 0 1 .*/state 0 1 deep, "odd" idle/' "$TMP/names/meta.txt"
t 20 "$WB" trace timeline "$TMP/names" > /dev/null || fail "timeline with a comma in a name"
grep -q '^0,"deep, ""odd"" idle",' "$TMP/names/residency.csv" || fail "quoted name: $(cat "$TMP/names/residency.csv")"
grep -q ',"deep, ""odd"" idle",' "$TMP/names/cstate-cpu0.csv" || fail "quoted name in cstate-cpu0.csv"
t 20 "$WB" trace attribute "$TMP/names" --requests markers > /dev/null || fail "attribute with a comma in a name"

# ---- a CPU without cpu_idle events: warned, not silently "unknown" -------
fresh noidle
sed -i 's/^ncpus 1/ncpus 2/' "$TMP/noidle/meta.txt"
echo "state 1 1 default-idle" >> "$TMP/noidle/meta.txt"
: > "$TMP/noidle/cpu1.raw"	# recorded, no events (without it: not recorded)
t 20 "$WB" trace timeline "$TMP/noidle" > "$TMP/noidle.out" 2> "$TMP/noidle.err" || fail "timeline, 2 CPUs"
msg='cpu1: no cpu_idle events recorded for it'
grep -q "$msg" "$TMP/noidle.err" || fail "no warning on stderr: $(cat "$TMP/noidle.err")"
grep -q "$msg" "$TMP/noidle.out" || fail "no warning in the output"
grep -q "cpu0: no cpu_idle" "$TMP/noidle.err" && fail "warned about cpu0, which has idle events"
grep -q '^1,unknown,100.0000,.*,no cpu_idle events recorded for this CPU$' "$TMP/noidle/residency.csv" ||
	fail "residency.csv note: $(cat "$TMP/noidle/residency.csv")"

# ---- --cpu with markers: only that CPU's markers -------------------------
fresh two
sed -i 's/^ncpus 1/ncpus 2/' "$TMP/two/meta.txt"
cp "$TMP/two/cpu0.raw" "$TMP/two/cpu1.raw"            # the same markers on cpu1
t 20 "$WB" trace attribute "$TMP/two" --requests markers --cpu 1 > "$TMP/two.out" 2> "$TMP/two.err" ||
	fail "attribute --cpu 1: $(cat "$TMP/two.err")"
[ "$(($(wc -l < "$TMP/two/attribution.csv") - 1))" = 40 ] || fail "--cpu 1 took markers of other CPUs"
grep -q '81 request markers from CPUs other than cpu1 left out' "$TMP/two.err" || fail "left-out markers not counted"
grep -q 'on cpu1;' "$TMP/two.out" || fail "not attributed on cpu1"
t 20 "$WB" trace attribute "$TMP/two" --requests markers > /dev/null 2>&1 || fail "attribute markers, no --cpu"
[ "$(($(wc -l < "$TMP/two/attribution.csv") - 1))" = 40 ] || fail "markers of two CPUs mixed"

# ---- the client join: on shared server times, never on a renumbered seq --
fresh join
t 20 "$WB" trace timeline "$TMP/join" > /dev/null
# Requests as the backend of a midtier saw them: its own seq (client seq
# + 1000), and the client's file with the backend's times passed through.
awk -F, 'NR > 1 && $3 ~ /^wb (pq)?recv / { split($3, a, " "); print a[3], $1, (a[2] == "pqrecv") }' \
	"$TMP/join/markers.csv" > "$TMP/recv.txt"
{
	echo "seq,type,recv_ns,send_ns,service_ns,conn"
	awk '{ printf "%d,%s,%.0f,%s,0,1\n", $1 + 1000, $3 ? "prequery" : "request", $2 - 500, $3 ? "" : sprintf("%.0f", $2 + 9000) }' "$TMP/recv.txt"
} > "$TMP/backend.csv"
hdr="seq,intended_ns,sent_ns,recv_ns,latency_ns,service_ns,server_recv_ns,server_send_ns,prequery_sent_ns,status,prequery_lead_us"
{
	echo "$hdr"
	awk '!$3 { printf "%d,1,2,3,%d,5,%.0f,%.0f,,ok,0\n", $1, 50000 + $1, $2 - 500, $2 + 9000 }' "$TMP/recv.txt"
} > "$TMP/client.csv"
t 20 "$WB" trace attribute "$TMP/join" --requests "$TMP/backend.csv" --cpu 0 --client "$TMP/client.csv" \
	> "$TMP/join.out" 2> "$TMP/join.err" || fail "join behind a midtier: $(cat "$TMP/join.err")"
awk -F, 'NR > 1 && $7 != "" && $7 * 1000 == 50000 + $1 - 1000 { ok++ } END { exit ok != 40 }' \
	"$TMP/join/attribution.csv" || fail "latencies not joined on server times: $(head -3 "$TMP/join/attribution.csv")"
# Markers carry the backend's seq: joining them on the client's seq
# would pair the wrong requests, so it is refused.
{
	echo "$hdr"
	awk '!$3 { printf "%d,1,2,3,%d,5,%.0f,%.0f,,ok,0\n", $1 - 1, 50000 + $1, $2 - 500, $2 + 9000 }' "$TMP/recv.txt"
} > "$TMP/client-renum.csv"
out=$(t 20 "$WB" trace attribute "$TMP/join" --requests markers --client "$TMP/client-renum.csv" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'the seqs are not the client' || fail "renumbered join not refused (exit $rc): $out"
t 20 "$WB" trace attribute "$TMP/join" --requests markers --client "$TMP/client.csv" > "$TMP/mj.out" 2>&1 ||
	fail "markers joined with the right client file"
awk -F, 'NR > 1 && $7 != "" { ok++ } END { exit ok != 40 }' "$TMP/join/attribution.csv" ||
	fail "marker join lost latencies"
# the traced wake's share of the latency per state and pre-query class
# (issue 34): rows of their own, appended columns, the share the means'
# ratio, and the table printed with what the trace cannot see
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$1 == "state_prequery" && $(c["wake_n"]) == $3 && $(c["wake_share_pct"]) != "" {
		d = $(c["wake_share_pct"]) - 100 * $(c["wake_avg_us"]) / $4
		if (d < 0) d = -d; if (d > 0.1) bad++; ok++ }
	$1 == "prequery" && $(c["wake_share_pct"]) != "" { pq++ }
	END { exit !(ok > 0 && !bad && pq > 0) }' "$TMP/join/attribution-summary.csv" ||
	fail "wake share rows: $(cat "$TMP/join/attribution-summary.csv")"
grep -q '^traced wake per state and pre-query class' "$TMP/mj.out" &&
	grep -q 'cannot see the hardware.s exit inside HLT' "$TMP/mj.out" || fail "wake share table not printed: $(cat "$TMP/mj.out")"
out=$(t 20 "$WB" trace attribute "$TMP/join" --requests "$TMP/backend.csv" --cpu 0 \
	--client "$TMP/client-renum.csv" 2>&1) || fail "server-log join with the renumbered file: $out"

# ---- attribution ties: a pre-query and its request in one read ----------
{
	echo "seq,type,recv_ns,send_ns,service_ns,conn"
	awk '!$3 { printf "%d,prequery,%s,,0,1\n%d,request,%s,%.0f,0,1\n", $1, $2, $1, $2, $2 + 9000 }' "$TMP/recv.txt"
} > "$TMP/tied.csv"
t 20 "$WB" trace attribute "$TMP/join" --requests "$TMP/tied.csv" --cpu 0 > /dev/null || fail "tied log"
awk -F, 'NR > 1 && $6 == 0 && $8 == "together" { ok++ } END { exit ok != 40 }' "$TMP/join/attribution.csv" ||
	fail "tied pre-queries not 'together': $(head -3 "$TMP/join/attribution.csv")"
grep -q '^prequery,together,40,' "$TMP/join/attribution-summary.csv" || fail "summary has no together row"

# attribute on a CPU without cpu_idle events says so too
t 20 "$WB" trace attribute "$TMP/noidle" --requests "$TMP/tied.csv" --cpu 1 > "$TMP/ni.out" 2> "$TMP/ni.err" ||
	fail "attribute on cpu1 without idle events: $(cat "$TMP/ni.err")"
grep -q 'cpu1: no cpu_idle events recorded for it' "$TMP/ni.err" || fail "attribute: no warning on stderr"
grep -q 'cpu1: no cpu_idle events recorded for it' "$TMP/ni.out" || fail "attribute: no warning in the output"

# ---- bad rows in the request files: FILE:LINE, bounded in time -----------
for seq in -1 -2147483648 abc; do
	{ echo "$hdr"; echo "0,1,2,3,4,5,6,7,,ok,0"; echo "$seq,1,2,3,4,5,6,7,,ok,0"; } > "$TMP/badseq.csv"
	out=$(t 10 "$WB" trace attribute "$TMP/ok" --requests markers --client "$TMP/badseq.csv" 2>&1); rc=$?
	[ $rc = 124 ] && fail "--client with seq $seq hangs"
	[ $rc = 1 ] && echo "$out" | grep -q "badseq.csv:3: column 'seq': '$seq' is not an unsigned integer" ||
		fail "--client with seq $seq: exit $rc: $out"
done
{ echo "$hdr"; echo "4294967295,1,2,3,4,5,6,7,,ok,0"; } > "$TMP/bigseq.csv"
out=$(t 10 "$WB" trace attribute "$TMP/ok" --requests markers --client "$TMP/bigseq.csv" 2>&1); rc=$?
[ $rc = 0 ] || fail "--client with seq 4294967295: exit $rc: $out"
{ echo "seq,type,recv_ns,send_ns,service_ns,conn"; echo "1,request,x,5,0,1"; } > "$TMP/badlog.csv"
out=$(t 10 "$WB" trace attribute "$TMP/ok" --requests "$TMP/badlog.csv" --cpu 0 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "badlog.csv:2: column 'recv_ns': 'x' is not an unsigned integer" ||
	fail "bad server log row: exit $rc: $out"

# ---- hardware residency beside the OS one (trace record's hw-residency.csv)
fresh hw
printf 'scope,cpu,state,percent,count\ncore,0,C6,55.250,999999\npackage,0,PC6,,77\n' > "$TMP/hw/hw-residency.csv"
t 20 "$WB" trace timeline "$TMP/hw" > "$TMP/hw.out" || fail "timeline with hw-residency.csv"
grep -q '^hardware residency over the recording' "$TMP/hw.out" || fail "hardware residency not printed: $(cat "$TMP/hw.out")"
grep -Eq '^core +0 +C6 +55.250 +999999$' "$TMP/hw.out" || fail "core C6 row: $(cat "$TMP/hw.out")"
grep -Eq '^package +0 +PC6 +- +77$' "$TMP/hw.out" || fail "unknown percent not shown as -: $(cat "$TMP/hw.out")"
printf 'scope,cpu,state,percent,count\n' > "$TMP/hw/hw-residency.csv"
t 20 "$WB" trace timeline "$TMP/hw" | grep -q '^hardware residency: none counted' || fail "no counters not said"
printf 'scope,cpu,state,percent,count\ncore,x,C6,1,2\n' > "$TMP/hw/hw-residency.csv"
out=$(t 20 "$WB" trace timeline "$TMP/hw" 2>&1 >/dev/null) || fail "a bad hw-residency.csv stops the timeline"
echo "$out" | grep -q 'hw-residency.csv:2' || fail "bad hw-residency.csv not named: $out"
exit 0
