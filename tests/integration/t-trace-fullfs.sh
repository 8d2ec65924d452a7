#!/bin/bash
# trace record on a full file system (issue 21 §4): the error names the
# file and the real cause ("No space left on device", not EIO), the exit
# status is not 0, no meta.txt (0-byte or not) and no partial file is
# left, and the tracefs instance is removed. Cases: the pages do not
# fit (--duration, and with a COMMAND), an earlier trace in the directory,
# and the pages fit but trace.dat or meta.txt does not (a tmpfs with one inode too
# few: meta.txt's temporary is the last file record creates). And the
# other ways out: standard error a broken pipe, SIGQUIT. And trace
# timeline and trace capture whose files do not fit.
. "$(dirname "$0")/lib.sh"
need_tracefs

FS="$TMP/fs"
mkdir "$FS"
unmount() { mountpoint -q "$FS" && umount "$FS"; }
trap 'unmount; cleanup' EXIT
# fs OPTIONS: a fresh tmpfs on $FS
fs() { unmount; mount -t tmpfs -o "$1" wbtest-fullfs "$FS" || skip "cannot mount a tmpfs ($1)"; }
# Many events per second: scheduler events and a process every 10 ms.
EV=sched:sched_switch,sched:sched_wakeup
load() { (for _ in $(seq 300); do sleep 0.01; done) & LOAD=$!; }
# nothing_left DIR: no meta.txt, raw file or temporary anywhere on $FS
nothing_left() {
	[ ! -e "$1/meta.txt" ] || fail "$1/meta.txt left ($(stat -c %s "$1/meta.txt") bytes)"
	local left
	left=$(find "$FS" -name '*.raw' -o -name '*.partial' -o -name meta.txt)
	[ -z "$left" ] || fail "left on the full file system: $left"
	[ "$(instances)" = 0 ] || fail "tracefs instance left: $(ls $T/instances)"
}
# record_fails NAME FILE-RE ARGS...: record into $FS/NAME fails naming a
# file matching FILE-RE and ENOSPC
record_fails() {
	local name=$1 re=$2 rc
	shift 2
	timeout 30 "$WB" trace record --out "$FS/$name" "$@" 2>"$TMP/$name.err"; rc=$?
	[ $rc = 124 ] && fail "$name: record hangs on a full file system"
	[ $rc != 0 ] || fail "$name: exit 0 on a full file system: $(cat "$TMP/$name.err")"
	grep -Eq "$FS/$name/$re: No space left on device" "$TMP/$name.err" ||
		fail "$name: no file name and ENOSPC in: $(cat "$TMP/$name.err")"
	grep -q 'Input/output error' "$TMP/$name.err" && fail "$name: EIO reported: $(cat "$TMP/$name.err")"
	nothing_left "$FS/$name"
}

# The pages are spliced into a temporary file per CPU, then trace.dat.
PAGES='(\.cpu[0-9]+\.raw\.partial|\.?trace\.dat(\.partial)?)'
# 1. The pages do not fit: ENOSPC on a CPU's file or on trace.dat.
fs size=96k
load
record_fails t "$PAGES" --duration 2 --events $EV
kill $LOAD 2>/dev/null; wait $LOAD 2>/dev/null
[ ! -e "$FS/t" ] || fail "the directory record made is left: $(ls -A "$FS/t")"

# 2. An earlier trace in DIR: it does not survive as this run's result.
fs size=96k
mkdir "$FS/old"
echo "wakebench-trace 1" > "$FS/old/meta.txt"
echo old > "$FS/old/cpu0.raw"
load
record_fails old "$PAGES" --duration 2 --events $EV
kill $LOAD 2>/dev/null; wait $LOAD 2>/dev/null
[ -d "$FS/old" ] || fail "a directory record did not make was removed"

# 3. With a COMMAND: it is stopped, the status is the failure's.
fs size=96k
tag="wbfullfs-$$"
record_fails cmd "$PAGES" --events $EV -- \
	sh -c 'for i in $(seq 300); do sleep 0.01; done; exit 0' "$tag"
pgrep -f "$tag" > /dev/null && fail "the command still runs"

# 4. The pages fit, the files that end a record do not. Count the inodes
# a complete record of one CPU uses (the same at its peak: its CPU's
# temporary file goes before meta.txt is made), then allow one fewer.
fs size=4m
"$WB" trace record --out "$FS/m" --cpus 0 --duration 0.3 --events $EV 2>"$TMP/m.err" ||
	fail "record on an empty tmpfs: $(cat "$TMP/m.err")"
[ -s "$FS/m/meta.txt" ] || fail "no meta.txt after a complete record"
n=$(stat -f -c '%c %d' "$FS" | awk '{ print $1 - $2 }')
fs size=4m,nr_inodes=$((n - 1))
record_fails m '(meta\.txt|\.?trace\.dat(\.partial)?)' --cpus 0 --duration 0.3 --events $EV
# ... and with exactly enough inodes it succeeds (the count is right).
fs size=4m,nr_inodes=$n
"$WB" trace record --out "$FS/m" --cpus 0 --duration 0.3 --events $EV 2>"$TMP/m2.err" ||
	fail "record with just enough inodes: $(cat "$TMP/m2.err")"
[ -s "$FS/m/meta.txt" ] && [ -s "$FS/m/trace.dat" ] || fail "complete record: $(ls -A "$FS/m")"
ls -A "$FS/m" | grep -q partial && fail "temporary files after a complete record"
[ "$(instances)" = 0 ] || fail "tracefs instance left after a complete record"

# An earlier trace in DIR: none of its files passes for the new one's,
# not even a CPU the new one leaves out (--cpus).
if [ "$(nproc)" -ge 2 ]; then
	mkdir "$TMP/narrow"
	echo "wakebench-trace 1" > "$TMP/narrow/meta.txt"
	echo old > "$TMP/narrow/cpu0.raw"
	"$WB" trace record --out "$TMP/narrow" --cpus 1 --duration 0.3 2>"$TMP/narrow.err" ||
		fail "record --cpus 1: $(cat "$TMP/narrow.err")"
	[ ! -e "$TMP/narrow/cpu0.raw" ] || fail "the earlier trace's cpu0.raw is left beside a --cpus 1 trace"
	grep -q '^end_ns ' "$TMP/narrow/meta.txt" || fail "--cpus 1: meta.txt not this record's"
fi

# 5. trace timeline whose CSVs do not fit beside the trace (the big ones
# are written by a background thread): the file and ENOSPC are said, the
# status is 1.
unmount
"$WB" trace record --out "$TMP/an" --duration 0.5 --events $EV 2>"$TMP/an.err" ||
	fail "record for timeline: $(cat "$TMP/an.err")"
# the trace's pages (directories take none on tmpfs) and one more
fs size=$(find "$TMP/an" -type f -printf '%s\n' | awk '{ p += int(($1 + 4095) / 4096) } END { print (p + 1) * 4096 }')
cp -r "$TMP/an" "$FS/an" || fail "the trace does not fit its tmpfs"
timeout 30 "$WB" trace timeline "$FS/an" > /dev/null 2>"$TMP/tl.err"; rc=$?
[ $rc = 1 ] || fail "timeline on a full file system: exit $rc: $(cat "$TMP/tl.err")"
grep -Eq "cannot write $FS/an/(cstate-cpu[0-9]+|irq|markers|residency|wakeups)\.csv: No space left on device" "$TMP/tl.err" ||
	fail "timeline on a full file system: no file name and ENOSPC in: $(cat "$TMP/tl.err")"

# trace capture on ever larger file systems until its files fit: each
# run that does not fit names its file and ENOSPC (its CSVs and
# notes.txt were "cannot write PATH" or nothing at all).
sz=4096 fits=0
while [ $sz -le 65536 ]; do
	fs size=$sz
	timeout 60 "$WB" trace capture --out "$FS/c" -- true > /dev/null 2>"$TMP/cap.err"; rc=$?
	[ $rc = 0 ] && { fits=1; break; }
	[ $rc = 1 ] || fail "capture on $sz bytes: exit $rc: $(cat "$TMP/cap.err")"
	grep -Eq "cannot write $FS/c/[a-z-]+\.(csv|txt): No space left on device" "$TMP/cap.err" ||
		fail "capture on $sz bytes: no file name and ENOSPC in: $(cat "$TMP/cap.err")"
	sz=$((sz + 4096))
done
[ $fits = 1 ] || fail "capture does not fit 64 KiB"
[ $sz -gt 4096 ] || fail "capture fitted one page: no full-disk case was tried"

# 6. The other ways out keep the trace and remove the instance: standard
# error a pipe nobody reads (SIGPIPE used to kill record with the instance
# up), and SIGQUIT (stops it like SIGTERM).
unmount
mkfifo "$TMP/pipe"
exec 3<>"$TMP/pipe" 4>"$TMP/pipe"
exec 3<&-                       # no reader left: a write to fd 4 is EPIPE
timeout 30 "$WB" trace record --out "$TMP/pipe.out" --duration 0.3 2>&4; rc=$?
exec 4>&-
[ $rc = 0 ] || fail "record with a closed stderr: exit $rc (141: killed by SIGPIPE)"
[ -s "$TMP/pipe.out/meta.txt" ] || fail "record with a closed stderr: no trace"
[ "$(instances)" = 0 ] || fail "record with a closed stderr left its instance"
# (A job started with & ignores SIGQUIT in a script; a terminal's does not.)
env --default-signal=QUIT "$WB" trace record --out "$TMP/quit" --duration 30 2>"$TMP/quit.err" & q=$!
wait_for "[ -d $T/instances/wakebench-$q ]" || fail "record did not start: $(cat "$TMP/quit.err")"
kill -QUIT $q; wait $q; rc=$?
[ $rc = 0 ] || fail "SIGQUIT: exit $rc: $(cat "$TMP/quit.err")"
[ -s "$TMP/quit/meta.txt" ] || fail "SIGQUIT: no trace"
[ "$(instances)" = 0 ] || fail "SIGQUIT: instance left"
exit 0
