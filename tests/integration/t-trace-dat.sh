#!/bin/bash
# Traces as trace.dat (issue 33, "Recordings that keep up"): a trace
# directory whose pages are in trace.dat (what trace record writes now)
# gives trace timeline and trace attribute exactly the results its older
# form (cpuN.raw beside formats/) gives: the recorded fixture and a
# synthetic trace of 3 CPUs with one left out, each turned into trace.dat
# by trace export. trace-cmd report reads the same number of events. With
# root and tracefs: trace record writes trace.dat that trace-cmd report
# reads, sizes its buffers from --event-rate, leaves out the CPUs --cpus
# does not name, and stops within a second of SIGINT, SIGTERM and SIGHUP
# with its instance removed.
. "$(dirname "$0")/lib.sh"
command -v trace-cmd > /dev/null || skip "no trace-cmd to read the files with (make deps)"
GEN="$WB_TOOLS/wb-tracegen"
FX="$WB_TOP/tests/fixtures/trace/real"

# as_dat OLD NEW: NEW holds OLD's meta.txt and its pages as trace.dat
as_dat() {
	mkdir "$2" && cp "$1/meta.txt" "$2/" || fail "cannot make $2"
	timeout 60 "$WB" trace export "$1" --format trace.dat --out "$2/trace.dat" > "$TMP/x.out" 2>&1 ||
		fail "export of $1: $(cat "$TMP/x.out")"
}
# same_analysis A B ARGS...: timeline (and attribute with ARGS) of A and B
# print the same and write the same files
same_analysis() {
	local a=$1 b=$2 f
	shift 2
	for d in "$a" "$b"; do
		timeout 60 "$WB" trace timeline "$d" > "$d.tl" 2>&1 || fail "timeline $d: $(cat "$d.tl")"
		sed -i "s|$d|DIR|g" "$d.tl"
		if [ $# -gt 0 ]; then
			timeout 60 "$WB" trace attribute "$d" "$@" > "$d.at" 2>&1 ||
				fail "attribute $d: $(cat "$d.at")"
			sed -i "s|$d|DIR|g" "$d.at"
		fi
	done
	diff "$a.tl" "$b.tl" > /dev/null || fail "timeline prints differ: $(diff "$a.tl" "$b.tl" | head)"
	[ $# = 0 ] || diff "$a.at" "$b.at" > /dev/null || fail "attribute prints differ: $(diff "$a.at" "$b.at" | head)"
	for f in $(cd "$a" && ls *.csv); do
		cmp -s "$a/$f" "$b/$f" || fail "$f differs between $a and its trace.dat: $(diff "$a/$f" "$b/$f" | head -5)"
	done
	[ "$(cd "$a" && ls *.csv)" = "$(cd "$b" && ls *.csv)" ] ||
		fail "not the same files: $(cd "$a" && ls *.csv) / $(cd "$b" && ls *.csv)"
}
# events_of DIR: the events trace-cmd report lists from DIR/trace.dat
events_of() { trace-cmd report -i "$1/trace.dat" 2>/dev/null | grep -c '^ .*\[[0-9][0-9]*\] '; }

# ---- the recorded fixture -----------------------------------------------------
cp -r "$FX" "$TMP/fx"
as_dat "$TMP/fx" "$TMP/fxd"
[ ! -e "$TMP/fxd/cpu0.raw" ] && [ ! -e "$TMP/fxd/formats" ] || fail "the trace.dat copy has old files"
same_analysis "$TMP/fx" "$TMP/fxd" --requests markers
grep -q '^events: 97 in the trace' "$TMP/fxd.tl" || fail "fixture as trace.dat: $(cat "$TMP/fxd.tl")"
[ "$(events_of "$TMP/fxd")" = 97 ] || fail "trace-cmd report lists $(events_of "$TMP/fxd") events, not 97"

# ---- 3 CPUs, cpu1 not recorded (--cpus) --------------------------------------
"$GEN" "$TMP/g" 3000 3 7 > /dev/null || fail "wb-tracegen"
rm "$TMP/g/cpu1.raw"
as_dat "$TMP/g" "$TMP/gd"
same_analysis "$TMP/g" "$TMP/gd"
grep -q '^recorded CPUs: 0,2 of 3' "$TMP/gd.tl" || fail "cpu1 not said to be left out: $(head -3 "$TMP/gd.tl")"
n=$(sed -n 's/^events: \([0-9]*\) in the trace.*/\1/p' "$TMP/gd.tl")
[ "$(events_of "$TMP/gd")" = "$n" ] || fail "trace-cmd report lists $(events_of "$TMP/gd") events, timeline $n"
# a cut trace.dat: an error naming it, not a crash
truncate -s -5000 "$TMP/gd/trace.dat"
"$WB" trace timeline "$TMP/gd" > "$TMP/cut.out" 2>&1; rc=$?
[ $rc = 1 ] && grep -q 'trace.dat.*truncated' "$TMP/cut.out" || fail "a cut trace.dat: exit $rc: $(cat "$TMP/cut.out")"

# ---- trace record (root, tracefs) ------------------------------------------------
[ "$(id -u)" = 0 ] || { echo "record part skipped: needs root"; exit 0; }
T=/sys/kernel/tracing
[ -d $T/events/power/cpu_idle ] || { echo "record part skipped: no tracefs with power:cpu_idle"; exit 0; }
ls $T/instances | grep '^wakebench-' | sort > "$TMP/inst.before"
"$WB" trace record --out "$TMP/r" --duration 0.5 --event-rate 100000 2> "$TMP/r.err" ||
	fail "record: $(cat "$TMP/r.err")"
[ "$(instances)" = 0 ] || fail "instance left behind"
[ -s "$TMP/r/trace.dat" ] || fail "no trace.dat: $(ls -A "$TMP/r")"
# 100000 events/s x 32 bytes = 1 s of them: 3125 KB
grep -q '^buffer_kb 3125$' "$TMP/r/meta.txt" || fail "--event-rate 100000: $(grep buffer_kb "$TMP/r/meta.txt")"
timeout 60 "$WB" trace timeline "$TMP/r" > "$TMP/r.tl" 2>&1 || fail "timeline of a recording: $(cat "$TMP/r.tl")"
n=$(sed -n 's/^events: \([0-9]*\) in the trace.*/\1/p' "$TMP/r.tl")
[ "$(events_of "$TMP/r")" = "$n" ] || fail "recording: trace-cmd report lists $(events_of "$TMP/r") events, timeline $n"
# --cpus: the CPUs left out have no data in trace.dat, and say so
if [ "$(nproc)" -ge 2 ]; then
	"$WB" trace record --out "$TMP/c0" --cpus 0 --duration 0.3 2> "$TMP/c0.err" ||
		fail "record --cpus 0: $(cat "$TMP/c0.err")"
	"$WB" trace timeline "$TMP/c0" > "$TMP/c0.tl" 2>&1 || fail "timeline --cpus 0: $(cat "$TMP/c0.tl")"
	grep -q "^recorded CPUs: 0 of $(nproc)" "$TMP/c0.tl" || fail "--cpus 0 not said: $(head -3 "$TMP/c0.tl")"
	trace-cmd report -i "$TMP/c0/trace.dat" 2>/dev/null | grep -q '\[001\]' &&
		fail "--cpus 0: events of cpu1 in trace.dat"
	[ "$(instances)" = 0 ] || fail "--cpus 0: instance left behind"
fi
# a synthetic trace whose pages end in a padding too short for a length
# word (180000 events on 2 CPUs have one at the end of a mapping): the
# padding stays out of the page's commit, as the kernel leaves it, or
# libtraceevent's kbuffer reads past the page (it crashed the export's
# read-back check)
if [ -x "$WB_TOOLS/wb-tracegen" ]; then
	"$WB_TOOLS/wb-tracegen" "$TMP/gen" 200000 2 > /dev/null || fail "wb-tracegen"
	"$WB" trace export "$TMP/gen" --format trace.dat --out "$TMP/gen.dat" > "$TMP/gen.out" 2>&1 ||
		fail "export of a synthetic trace: $(tail -2 "$TMP/gen.out")"
	n=$(trace-cmd report -i "$TMP/gen.dat" 2>/dev/null | grep -c 'cpu_idle:')
	[ "$n" = 200000 ] || fail "trace-cmd report of the synthetic trace: $n cpu_idle events, want 200000"
fi
for sig in INT TERM HUP; do
	"$WB" trace record --out "$TMP/s$sig" --duration 60 2> "$TMP/s.err" &
	pid=$!
	for _ in $(seq 200); do grep -q 'recording in instance' "$TMP/s.err" && break; sleep 0.05; done
	t0=$(date +%s%N)
	kill -$sig $pid
	wait $pid; rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ $ms -lt 1000 ] || fail "SIG$sig: record took $ms ms to stop"
	[ "$(instances)" = 0 ] || fail "SIG$sig: instance left behind"
	[ $rc = 0 ] && [ -s "$TMP/s$sig/trace.dat" ] && trace-cmd report -i "$TMP/s$sig/trace.dat" > /dev/null 2>&1 ||
		fail "SIG$sig: exit $rc, no readable trace.dat: $(cat "$TMP/s.err")"
done
echo "ok"
exit 0
