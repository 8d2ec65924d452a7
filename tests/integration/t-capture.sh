# wakebench trace capture (issue 15): around a command, the role CPUs'
# cpuidle residency and entries per state (sysfs deltas, the kernel's
# names), the /proc/interrupts delta per IRQ, turbostat's table with
# --show/--hide passed through, and the perf cstate_core and cstate_pkg
# counters with msr/tsc when those PMUs exist, parsed into
# hw-residency.csv; an absent or failing source leaves its columns empty
# and says why in notes.txt. turbostat and perf are stand-ins here (this
# VM has no MSR access for turbostat and no cstate PMU); the idle
# counters are a synthetic sysfs tree the command itself advances.
. "$(dirname "$0")/lib.sh"
fake_sysfs 3
ev="$FAKE/bus/event_source/devices/cstate_core/events"
pev="$FAKE/bus/event_source/devices/cstate_pkg/events"
mev="$FAKE/bus/event_source/devices/msr/events"
mkdir -p "$ev" "$pev" "$mev" "$TMP/bin"
echo "event=0x01" > "$ev/c1-residency"; echo "event=0x03" > "$ev/c6-residency"
echo "format" > "$ev/not-an-event"
echo "event=0x00" > "$pev/c2-residency"; echo "event=0x06" > "$pev/c10-residency"
echo "event=0x00" > "$mev/tsc"

# turbostat and perf stand-ins: record their arguments, write their
# output file, and measure until the command after '--' (cat) ends
cat > "$TMP/bin/turbostat" <<'EOS'
#!/bin/bash
printf '%s\n' "$@" > "$STANDIN_DIR/turbostat.args"
[ -n "${TURBOSTAT_FAIL:-}" ] && { echo "turbostat: $TURBOSTAT_FAIL" >&2; exit 1; }
while [ $# -gt 0 ]; do case $1 in --out) out=$2; shift 2 ;; --) shift; break ;; *) shift ;; esac; done
"$@"
printf 'Core\tCPU\tBusy%%\tCPU%%c1\n-\t-\t1.50\t98.50\n0\t0\t1.50\t98.50\n' > "$out"
EOS
# perf: what perf stat -x, -A prints (tests/fixtures/perf), one count
# "<not counted>", CPU 1 without a TSC count
cat > "$TMP/bin/perf" <<'EOS'
#!/bin/bash
printf '%s\n' "$@" > "$STANDIN_DIR/perf.args"
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift 2 ;; --) shift; break ;; *) shift ;; esac; done
"$@"
printf '%s\n' '# started on Mon Nov 23 10:12:01 2026' '' \
	'CPU0,500,,cstate_core/c6-residency/,1001862011,100.00,,' \
	'CPU1,300,,cstate_core/c6-residency/,1001862011,100.00,,' \
	'CPU0,<not counted>,,cstate_pkg/c2-residency/,0,0.00,,' \
	'CPU0,250,,cstate_pkg/c10-residency/,1001862011,100.00,,' \
	'CPU0,1000,,msr/tsc/,1001862011,100.00,,' > "$out"
EOS
chmod +x "$TMP/bin/turbostat" "$TMP/bin/perf"
export STANDIN_DIR="$TMP" PATH="$TMP/bin:$PATH"

# the command advances CPU 0's C6 counters: 20 entries, 50 ms
s2="$FAKE/devices/system/cpu/cpu0/cpuidle/state2"
D="$TMP/cap"
"$WB" trace capture --out "$D" --cpu server=0 --cpu midtier=1 --turbostat-show 'Busy%,CPU%c1' \
	--turbostat-hide IRQ -- sh -c "sleep 0.1; echo 30 > $s2/usage; echo 50100 > $s2/time; exit 3"
rc=$?
[ $rc = 3 ] || fail "exit status $rc, not the command's 3"
for f in capture.csv cpuidle.csv interrupts.csv notes.txt turbostat.txt turbostat.csv perf-cstate.csv hw-residency.csv; do
	[ -s "$D/$f" ] || [ "$f" = notes.txt ] || fail "no $f"
done
hdr=$(head -1 "$D/capture.csv")
# the governor's counters of each state appended (issue 33)
gov=usage_POLL,time_us_POLL,above_POLL,below_POLL,rejected_POLL,usage_C1,time_us_C1,above_C1,below_C1,rejected_C1,usage_C6,time_us_C6,above_C6,below_C6,rejected_C6
[ "$hdr" = "role,cpu,window_s,source,irq_delta,turbostat,perf_cstate,res_POLL_pct,entries_POLL,res_C1_pct,entries_C1,res_C6_pct,entries_C6,res_C0_pct,$gov" ] ||
	fail "capture.csv header: $hdr"
row=$(grep '^server,0,' "$D/capture.csv") || fail "no server row: $(cat "$D/capture.csv")"
IFS=, read -r role cpu win src irq ts pf rp ep r1 e1 r6 e6 r0 rest <<< "$row"
[ "$src" = cpuidle ] && [ "$ts" = turbostat.csv ] && [ "$pf" = perf-cstate.csv ] || fail "sources: $row"
[ "$e6" = 20 ] && [ "$ep" = 0 ] || fail "entries: $row"
# 50 ms of C6 in a window of 0.1-1 s
awk -v r="$r6" -v w="$win" 'BEGIN { exit !(r > 0 && r <= 50.1 && w >= 0.1 && w < 1 && (r - 5 / w) ^ 2 < 0.01) }' ||
	fail "res_C6_pct $r6 over $win s"
# the governor's view of the server CPU: C6 entered 20 times more
[ "$(csv_col "$D/capture.csv" usage_C6 | sed -n 1p)" = 20 ] ||
	fail "usage_C6 of the server: $(csv_col "$D/capture.csv" usage_C6 | tr '\n' ' ')"
# (the fake tree has no above, below or rejected files: unknown, empty)
grep -q '^midtier,1,.*,0.0000,0,0.0000,0,0.0000,0,100.0000,0,0,,,,0,0,,,,0,0,,,$' "$D/capture.csv" ||
	fail "midtier row (nothing changed on CPU 1): $(grep midtier "$D/capture.csv")"
grep -q '^server,0,C6,' "$D/cpuidle.csv" || fail "cpuidle.csv: $(cat "$D/cpuidle.csv")"
case $irq in ''|*[!0-9]*) fail "irq_delta '$irq'" ;; esac
[ "$irq" = "$(awk -F, '$1 == "server" { s += $5 } END { print s + 0 }' "$D/interrupts.csv")" ] ||
	fail "irq_delta $irq is not the sum of interrupts.csv's server rows"
# turbostat got the roles' CPUs and --show/--hide; its table became CSV
tr '\n' ' ' < "$TMP/turbostat.args" | grep -q -- '--quiet --out .*--cpu 0,1 --show Busy%,CPU%c1 --hide IRQ -- cat' ||
	fail "turbostat args: $(tr '\n' ' ' < "$TMP/turbostat.args")"
grep -q 'CPU%c1' "$D/turbostat.csv" || fail "turbostat.csv: $(cat "$D/turbostat.csv")"
# perf: every *-residency event of both PMUs and msr/tsc, per CPU (-A),
# on the roles' CPUs
pa=$(tr '\n' ' ' < "$TMP/perf.args")
echo "$pa" | grep -q -- "-x, -A -o $D/perf-cstate.csv -e cstate_core/c1-residency/,cstate_core/c6-residency/,cstate_pkg/c2-residency/,cstate_pkg/c10-residency/,msr/tsc/ -C 0,1 -- cat" ||
	fail "perf args: $pa"
echo "$pa" | grep -q 'not-an-event' && fail "perf got a non-residency event: $pa"
# hw-residency.csv: each count's share of its CPU's TSC (none for CPU 1)
[ "$(cat "$D/hw-residency.csv")" = "scope,cpu,state,percent,count
core,0,C6,50.0000,500
core,1,C6,,300
package,0,PC10,25.0000,250" ] || fail "hw-residency.csv: $(cat "$D/hw-residency.csv")"
grep -q 'turbostat' "$D/notes.txt" && fail "notes for sources that ran: $(cat "$D/notes.txt")"
[ "$(grep -c perf "$D/notes.txt")" = 2 ] &&
	grep -q '^perf cstate: 1 count perf could not take (<not counted>, <not supported>)' "$D/notes.txt" &&
	grep -q '^perf cstate: no msr/tsc/ count of the same CPU for 1 count: its percent left empty' "$D/notes.txt" ||
	fail "perf notes: $(cat "$D/notes.txt")"

# a turbostat that fails, no PMU: empty columns, the reasons in notes.txt
rm -rf "$FAKE/bus" "$D"
TURBOSTAT_FAIL="Failed to set rlimit" "$WB" trace capture --out "$D" --cpu server=none -- true ||
	fail "capture with a failing turbostat"
grep -q '^turbostat: cannot run here (exit 1: turbostat: Failed to set rlimit)' "$D/notes.txt" ||
	fail "turbostat note: $(cat "$D/notes.txt")"
grep -q '^perf cstate_core: no such PMU on this machine' "$D/notes.txt" || fail "perf note: $(cat "$D/notes.txt")"
grep -q '^perf cstate_pkg: no such PMU on this machine' "$D/notes.txt" || fail "perf note: $(cat "$D/notes.txt")"
[ ! -e "$D/turbostat.csv" ] && [ ! -e "$D/turbostat.txt" ] || fail "a failed turbostat left a table"
grep -q '^server,all,[0-9.]*,cpuidle,[0-9]*,,,' "$D/capture.csv" || fail "unpinned row: $(cat "$D/capture.csv")"
echo stale > "$D/hw-residency.csv"
"$WB" trace capture --out "$D" --cpu server=none -- true || fail "capture without a PMU"
[ ! -e "$D/hw-residency.csv" ] || fail "an earlier capture's hw-residency.csv left in place"

# bad values are usage errors, before anything runs
for bad in "--cpu server=0;touch $TMP/m" "--cpu =0" "--cpu a=99" "--turbostat-show a;b" "--turbostat-hide \$(x)"; do
	"$WB" trace capture --out "$TMP/bad" ${bad%% *} "${bad#* }" -- touch "$TMP/m" > /dev/null 2>&1
	[ $? = 2 ] || fail "accepted $bad"
	[ -e "$TMP/m" ] && fail "$bad ran the command"
done
"$WB" trace capture --out "$TMP/bad" --cpu a=0 --cpu a=1 -- true > /dev/null 2>&1; [ $? = 2 ] || fail "a role twice"
"$WB" trace capture --out "$TMP/bad" > /dev/null 2>&1; [ $? = 2 ] || fail "no command"

# a SIGINT at once (while the helpers start) still reaches the command,
# as a background job of a shell gets it (SIGINT ignored there)
# (SIGINT ignored there): from the moment capture has begun (notes.txt)
( trap '' INT; exec "$WB_BIN/wakebench-trace" capture --out "$TMP/int0" --cpu server=0 -- sleep 10 ) & cp=$!
wait_for "[ -e '$TMP/int0/notes.txt' ]" || fail "capture did not start"
kill -INT $cp
for _ in $(seq 60); do kill -0 $cp 2>/dev/null || break; sleep 0.05; done
kill -0 $cp 2>/dev/null && fail "an early SIGINT was lost: capture still running after 3 s"
wait $cp
[ -s "$TMP/int0/capture.csv" ] || fail "no capture.csv after an early SIGINT"
# a SIGTERM at any time, even before capture blocks it, is not lost
# (what the sweep sends)
"$WB_BIN/wakebench-trace" capture --out "$TMP/term0" --cpu server=0 -- sleep 10 & cp=$!
# (once it is capture: the shell's forked child would run this test's
# EXIT trap on a TERM)
wait_for "[ \"\$(readlink /proc/$cp/exe)\" = '$WB_BIN/wakebench-trace' ]" || fail "capture did not start"
kill -TERM $cp
for _ in $(seq 60); do kill -0 $cp 2>/dev/null || break; sleep 0.05; done
kill -0 $cp 2>/dev/null && fail "an early SIGTERM was lost: capture still running after 3 s"
wait $cp

# SIGINT goes to the command; the capture is still written
"$WB" trace capture --out "$TMP/int" --cpu server=0 -- sleep 10 & cp=$!
wait_for "[ -e '$TMP/int/notes.txt' ]" || fail "capture did not start"
sleep 0.2
kill -INT $cp
for _ in $(seq 50); do kill -0 $cp 2>/dev/null || break; sleep 0.05; done
kill -0 $cp 2>/dev/null && fail "capture still running 2.5 s after SIGINT"
wait $cp
[ -s "$TMP/int/capture.csv" ] || fail "no capture.csv after SIGINT"
echo ok
