#!/bin/bash
# wakebench trace export --format trace.dat: trace-cmd's data file, written
# by wakebench's lib/datfile and read back by libtracecmd. Part 1 (no root, no tracefs) on copies of the recorded
# fixture (tests/fixtures/trace/real): trace-cmd report reads the file and
# lists as many cpu_idle events as trace timeline counts, and every marker
# text; an existing FILE is refused without --force; a corrupt or cut page
# fails naming the page and leaves nothing, --skip-corrupt leaves it out;
# a missing or garbage DIR fails cleanly; SIGTERM while writing leaves
# nothing. Part 2 (root, tracefs): a real recording of a loopback run with
# markers: trace-cmd report reads the trace.dat record wrote, and its
# export, with the same counts as trace timeline, and its sched_wakeup and
# interrupt events there.
. "$(dirname "$0")/lib.sh"
command -v trace-cmd > /dev/null || skip "no trace-cmd to read the files with (make deps)"
FX="$WB_TOP/tests/fixtures/trace/real"
fresh() { rm -rf "$TMP/$1"; cp -r "$FX" "$TMP/$1"; }
# poke FILE OFFSET HEXBYTES: overwrite bytes in place
poke() { printf "$(echo "$3" | sed 's/../\\x&/g')" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# export DIR FILE [ARGS...]: bounded in time (124: it hung)
export_dat() { local d=$1 f=$2; shift 2; timeout 60 "$WB" trace export "$d" --format trace.dat --out "$f" "$@"; }
# report FILE: trace-cmd's text of it
report() { trace-cmd report -i "$1" 2>/dev/null; }
# idle_of DIR [ARGS]: trace timeline's "cpu_idle events: N"
idle_of() {
	timeout 60 "$WB" trace timeline "$@" > "$TMP/tl.out" 2>/dev/null || fail "timeline $*: $(cat "$TMP/tl.out")"
	sed -n 's/^cpu_idle events: \([0-9]*\)$/\1/p' "$TMP/tl.out"
}
# nothing_left DIR NAME: no NAME, no .NAME.partial, no temporary directory
nothing_left() {
	[ ! -e "$1/$2" ] || fail "$1/$2 left"
	local left
	left=$(ls -A "$1" | grep -F ".$2." || true)
	[ -z "$left" ] || fail "temporary files left in $1: $left"
}

# ---- the fixture: report's counts are timeline's ---------------------------
fresh ok
idle=$(idle_of "$TMP/ok")
[ "${idle:-0}" -gt 0 ] || fail "no cpu_idle count from timeline"
out=$(export_dat "$TMP/ok" "$TMP/ok.dat" 2>&1) || fail "export of the fixture: $out"
echo "$out" | grep -q "^wrote $TMP/ok.dat: 97 events (cpu_idle $idle, markers 81), checked with libtracecmd$" ||
	fail "export's line: $out"
report "$TMP/ok.dat" > "$TMP/ok.txt" || fail "trace-cmd report cannot read the file"
n=$(grep -c ' cpu_idle: ' "$TMP/ok.txt")
[ "$n" = "$idle" ] || fail "trace-cmd report lists $n cpu_idle events, trace timeline $idle"
grep -q ' irq_handler_entry: *irq=41 name=virtio3-rx' "$TMP/ok.txt" || fail "irq events missing from the report"
# every marker text of markers.csv (ts_ns,cpu,text), each as often
tail -n +2 "$TMP/ok/markers.csv" | cut -d, -f3- | sort > "$TMP/want.txt"
[ "$(wc -l < "$TMP/want.txt")" = 81 ] || fail "markers.csv of the fixture: $(wc -l < "$TMP/want.txt") markers"
grep ' print: ' "$TMP/ok.txt" | sed 's/.* print: *[^ ]*: //' | sort > "$TMP/got.txt"
diff "$TMP/want.txt" "$TMP/got.txt" > /dev/null || fail "markers in the report differ: $(diff "$TMP/want.txt" "$TMP/got.txt" | head)"
# the trace clock is the trace's
trace-cmd dump --options -i "$TMP/ok.dat" 2>/dev/null | grep -q '^\[mono\]' || fail "no [mono] trace clock option"
ls -A "$TMP" | grep -q '^\.ok\.dat\.' && fail "temporary files beside ok.dat: $(ls -A "$TMP")"
# A trace with its header_event saved (trace record saves it now): used.
fresh he
printf '# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n\ttime_stamp : type == 31\n\tdata max type_len  == 28\n' \
	> "$TMP/he/formats/header_event"
echo "14916 wbtestproc" > "$TMP/he/saved_cmdlines"	# the markers' writer
out=$(export_dat "$TMP/he" "$TMP/he.dat" 2>&1) || fail "export with header_event: $out"
report "$TMP/he.dat" | grep -q 'wbtestproc-14916 ' || fail "saved_cmdlines not used for process names"

# ---- FILE: refused when it exists, replaced with --force ---------------------
sum=$(md5sum < "$TMP/ok.dat")
out=$(export_dat "$TMP/ok" "$TMP/ok.dat" 2>&1); rc=$?
[ $rc = 1 ] || fail "an existing FILE: exit $rc: $out"
echo "$out" | grep -q "ok.dat exists (--force replaces it)" || fail "existing FILE message: $out"
[ "$(md5sum < "$TMP/ok.dat")" = "$sum" ] || fail "the existing FILE was changed"
out=$(export_dat "$TMP/ok" "$TMP/ok.dat" --force 2>&1) || fail "--force: $out"
out=$(export_dat "$TMP/ok" "$TMP" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "is a directory\|not a file name" || fail "FILE a directory: exit $rc: $out"
out=$(export_dat "$TMP/ok" "$TMP/no/such/dir/x.dat" 2>&1); rc=$?
[ $rc = 1 ] || fail "FILE in a missing directory: exit $rc: $out"

# ---- corrupt and cut pages ----------------------------------------------------
fresh bad
poke "$TMP/bad/cpu0.raw" 4104 ffffff7f00000000      # page 1's commit = 0x7fffffff
out=$(export_dat "$TMP/bad" "$TMP/bad.dat" 2>&1); rc=$?
[ $rc = 1 ] || fail "a corrupt page: exit $rc: $out"
echo "$out" | grep -q "cpu0.raw: CPU 0, page 1, offset 4104 (byte 8 of the page): commit 0x7fffffff" ||
	fail "corrupt page not named: $out"
nothing_left "$TMP" bad.dat
out=$(export_dat "$TMP/bad" "$TMP/bad.dat" --skip-corrupt 2>&1) || fail "--skip-corrupt: $out"
echo "$out" | grep -q "warning: left out 1 corrupt page (--skip-corrupt); the first: .*page 1" ||
	fail "--skip-corrupt warning: $out"
echo "$out" | grep -q "^wrote $TMP/bad.dat: 44 events" || fail "--skip-corrupt kept page 0 only: $out"
bidle=$(idle_of "$TMP/bad" --skip-corrupt)
n=$(report "$TMP/bad.dat" | grep -c ' cpu_idle: ')
[ "$n" = "$bidle" ] && [ "$n" -lt "$idle" ] || fail "--skip-corrupt: report $n cpu_idle, timeline $bidle (all pages: $idle)"
cmp -s "$TMP/bad/cpu0.raw" "$TMP/ok/cpu0.raw" && fail "the test did not corrupt anything"
ls -A "$TMP" | grep -q '^\.bad\.dat\.' && fail "temporary files beside bad.dat: $(ls -A "$TMP")"

fresh trunc
head -c 100 "$FX/cpu0.raw" >> "$TMP/trunc/cpu0.raw"     # a cut third page
out=$(export_dat "$TMP/trunc" "$TMP/trunc.dat" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'page 2, offset 8192: truncated page (100 of 4096 bytes)' ||
	fail "a cut page: exit $rc: $out"
nothing_left "$TMP" trunc.dat
out=$(export_dat "$TMP/trunc" "$TMP/trunc.dat" --skip-corrupt 2>&1) || fail "cut page, --skip-corrupt: $out"
echo "$out" | grep -q "^wrote $TMP/trunc.dat: 97 events (cpu_idle $idle," || fail "cut page left out: $out"

# ---- not a trace ----------------------------------------------------------------
out=$(export_dat "$TMP/missing" "$TMP/m.dat" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "meta.txt" || fail "a missing DIR: exit $rc: $out"
nothing_left "$TMP" m.dat
mkdir "$TMP/garbage"
head -c 5000 /dev/urandom > "$TMP/garbage/meta.txt"
out=$(export_dat "$TMP/garbage" "$TMP/g.dat" 2>&1); rc=$?
[ $rc = 1 ] || fail "a garbage DIR: exit $rc: $out"
nothing_left "$TMP" g.dat
fresh hp
echo garbage > "$TMP/hp/formats/header_page"
out=$(export_dat "$TMP/hp" "$TMP/hp.dat" 2>&1); rc=$?
[ $rc = 1 ] || fail "a garbage header_page: exit $rc: $out"
nothing_left "$TMP" hp.dat
fresh fmt
echo "name: cpu_idle" > "$TMP/fmt/formats/irq/irq_handler_exit/format"
out=$(export_dat "$TMP/fmt" "$TMP/fmt.dat" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "irq_handler_exit/format" || fail "a garbage event format: exit $rc: $out"
nothing_left "$TMP" fmt.dat
fresh rnd
head -c 8192 /dev/urandom > "$TMP/rnd/cpu0.raw"
out=$(export_dat "$TMP/rnd" "$TMP/rnd.dat" 2>&1); rc=$?
[ $rc = 1 ] || [ $rc = 0 ] || fail "random pages: exit $rc (a crash?): $out"
[ $rc = 0 ] || nothing_left "$TMP" rnd.dat

# ---- no root needed ---------------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null &&
   setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$WB_BIN/wakebench-trace"; then
	U=$(mktemp -d /tmp/wbtest-nobody.XXXXXX)
	cp -r "$FX" "$U/tr"
	chmod -R a+rX "$U"
	chmod a+w "$U"
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$WB" trace export "$U/tr" --format trace.dat --out "$U/u.dat" 2>&1); rc=$?
	[ $rc = 0 ] && [ "$(report "$U/u.dat" | grep -c ' cpu_idle: ')" = "$idle" ] || {
		rm -rf "$U"; fail "export as nobody: exit $rc: $out"; }
	rm -rf "$U"
else
	echo "note: not run as nobody (not root, or no setpriv)"
fi

# ---- SIGTERM while writing: nothing left --------------------------------------
# A trace large enough to be caught writing: the fixture's two pages 5000
# times over, a second apart.
fresh big
python3 - "$TMP/big" <<'EOF' || fail "cannot make the large trace"
import struct, sys
d = sys.argv[1]
raw = open(d + '/cpu0.raw', 'rb').read()
pages = [bytearray(raw[i:i + 4096]) for i in range(0, len(raw), 4096)]
base = [struct.unpack_from('<Q', p, 0)[0] for p in pages]
with open(d + '/cpu0.raw', 'wb') as f:
    for k in range(5000):
        for p, t in zip(pages, base):
            struct.pack_into('<Q', p, 0, t + k * 10**9)
            f.write(p)
meta = [l for l in open(d + '/meta.txt') if not l.startswith('end_ns ')]
meta.append('end_ns %d\n' % (base[-1] + 5001 * 10**9))
open(d + '/meta.txt', 'w').writelines(meta)
EOF
caught=0
for _ in 1 2 3; do
	rm -f "$TMP/big.dat"
	"$WB" trace export "$TMP/big" --format trace.dat --out "$TMP/big.dat" > /dev/null 2>&1 &
	pid=$!
	# the partial file appears once the pages are checked
	for _ in $(seq 2000); do
		[ -e "$TMP/.big.dat.partial" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.005
	done
	if [ -e "$TMP/.big.dat.partial" ]; then
		kill -TERM $pid; wait $pid; rc=$?
		[ -e "$TMP/big.dat" ] && continue	# it finished first
		[ $rc = 143 ] || fail "SIGTERM while writing: exit $rc"
		nothing_left "$TMP" big.dat
		caught=1
		break
	fi
	wait $pid
done
[ $caught = 1 ] || echo "note: SIGTERM not checked (the export finished before it was caught writing)"
rm -rf "$TMP/big" "$TMP/big.dat"

# ---- part 2: a real recording ------------------------------------------------
[ "$(id -u)" = 0 ] || { echo "part 2 skipped: a real recording needs root"; exit 0; }
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/events/power/cpu_idle ] || { echo "part 2 skipped: no tracefs with power:cpu_idle here"; exit 0; }
ls $T/instances | grep '^wakebench-' | sort > "$TMP/inst.before"
SCPU=${WB_TRACE_CPU:-0}
CCPU=$(($(nproc) - 1)); [ "$CCPU" = "$SCPU" ] && CCPU=0
N=300
cat > "$TMP/run.sh" <<EOS
"$WB" server --port 0 --port-file "$TMP/port" --cpu $SCPU --trace-markers -q &
spid=\$!
while [ ! -s "$TMP/port" ]; do sleep 0.02; done
read -r port < "$TMP/port"
"$WB" client --server 127.0.0.1:\$port --cpu $CCPU --interval-us 2000 --requests $N \
	--trace-markers --out "$TMP/client" -q; rc=\$?
kill \$spid; wait \$spid
exit \$rc
EOS
"$WB" trace record --out "$TMP/tr" -- bash "$TMP/run.sh" 2> "$TMP/rec.err" || fail "record: $(cat "$TMP/rec.err")"
[ "$(instances)" = 0 ] || fail "instance left behind"
# record writes trace.dat itself: trace-cmd report opens it as it is
[ -s "$TMP/tr/trace.dat" ] || fail "record wrote no trace.dat: $(ls -A "$TMP/tr")"
ls "$TMP/tr" | grep -Eq '^cpu[0-9]+\.raw$|^formats$|^saved_cmdlines$' &&
	fail "record left files of the older layout: $(ls -A "$TMP/tr")"
report "$TMP/tr/trace.dat" > "$TMP/rec.txt" || fail "trace-cmd report cannot read the recording's trace.dat"
ridle=$(idle_of "$TMP/tr")
rev=$(sed -n 's/^events: \([0-9]*\) in the trace.*/\1/p' "$TMP/tl.out")
recv=$(tail -n +2 "$TMP/tr/markers.csv" | grep -c ',wb recv [0-9]*$')
[ "$recv" = $N ] || fail "the trace has $recv wb recv markers for $N requests"
out=$(export_dat "$TMP/tr" "$TMP/tr.dat" 2>&1) || fail "export of a real recording: $out"
echo "$out" | grep -q "^wrote $TMP/tr.dat: $rev events (cpu_idle $ridle, " || fail "export's counts ($rev events, cpu_idle $ridle): $out"
report "$TMP/tr.dat" > "$TMP/tr.txt" || fail "trace-cmd report cannot read the real trace's file"
n=$(grep -c ' cpu_idle: ' "$TMP/tr.txt")
[ "$n" = "$ridle" ] || fail "real trace: trace-cmd report lists $n cpu_idle events, trace timeline $ridle"
n=$(grep -c ' cpu_idle: ' "$TMP/rec.txt")
[ "$n" = "$ridle" ] || fail "the recording's own trace.dat: trace-cmd report lists $n cpu_idle events, trace timeline $ridle"
n=$(grep -c ' print: .*: wb recv [0-9]*$' "$TMP/rec.txt")
[ "$n" = "$N" ] || fail "the recording's own trace.dat: $n wb recv markers in the report for $N requests"
n=$(grep -c ' print: .*: wb recv [0-9]*$' "$TMP/tr.txt")
[ "$n" = "$recv" ] || fail "real trace: $n wb recv markers in the report, $recv in the trace"
grep -q ' sched_wakeup: ' "$TMP/tr.txt" || fail "no sched_wakeup events in the report"
grep -qE ' (irq_handler_entry|softirq_entry|local_timer_entry|call_function_single_entry|reschedule_entry): ' "$TMP/tr.txt" ||
	fail "no interrupt events in the report"
exit 0
