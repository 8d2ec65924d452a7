# wakebench wake --states each on the sysfs of a real Xeon: Granite
# Rapids (pepc's gnr0, 512 CPUs, POLL C1 C1E C6 C6P; tests/fixtures/sysfs)
# made into a fake tree by wb-sysfsfake. The per-state plan as a user's
# server would see it: one phase per state in the kernel's order, in each
# exactly that state enabled on the measured CPU and every other state
# disabled, no other CPU touched, every flag as before at the end, after
# SIGTERM in a phase, and after SIGKILL + `cstate restore`.
. "$(dirname "$0")/lib.sh"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the main thread beside the measured CPU)"
FIX="$WB_TOP/tests/fixtures/sysfs"
[ -x "$WB_TOOLS/wb-sysfsfake" ] || skip "wb-sysfsfake not built"
# 30 000 files: on tmpfs 0.7 s, on this disk 19 s (t-sysfs-machines.sh)
TREES=$(mktemp -d /dev/shm/wbtest.XXXXXX 2>/dev/null) || TREES="$TMP"
trap 'rm -rf "$TREES"; cleanup' EXIT
root="$TREES/gnr0"
"$WB_TOOLS/wb-sysfsfake" "$FIX/gnr0/inlinefiles.txt" "$root" "$FIX/gnr0/cpuinfo" ||
	fail "wb-sysfsfake gnr0"
export WAKEBENCH_SYSFS="$root" WAKEBENCH_STATE_DIR="$TMP/state" WAKEBENCH_PMQOS_DEV="$TMP/pmqos"
: > "$WAKEBENCH_PMQOS_DEV"
# what wake may write: every disable flag and PM QoS file of every CPU
tree_sum() { (cd "$root" && find . -type f \( -name disable -o -name pm_qos_resume_latency_us \) |
	sort | xargs grep -H '' | md5sum); }
before=$(tree_sum)
cpuidle() { echo "$root/devices/system/cpu/cpu$1/cpuidle"; }
[ "$(cat "$(cpuidle 1)"/state{0..4}/name | tr '\n' ' ')" = "POLL C1 C1E C6 C6P " ] ||
	fail "gnr0's cpu1 states: $(cat "$(cpuidle 1)"/state*/name | tr '\n' ' ')"
# one state disabled by the machine's owner: kept out of nothing, put back
echo 1 > "$(cpuidle 1)/state2/disable"
before=$(tree_sum)

# flags: CPU 1's disable flags state0..4, then CPU 0's and CPU 511's
flags() {
	local c s out=
	for c in 1 0 511; do
		for s in 0 1 2 3 4; do out+=$(< "$(cpuidle $c)/state$s/disable"); done
		out+=" "
	done
	echo "${out% }"
}
# sample FILE: the flags every few ms until FILE.stop exists; each change
# once
sample() {
	local last= f
	while [ ! -e "$1.stop" ]; do
		f=$(flags)
		[ "$f" != "$last" ] && echo "$f" >> "$1"
		last=$f
		sleep 0.005
	done
}

# ---- a whole run: the phases in order, each with its one state
sample "$TMP/seq" &
spid=$!
"$WB" wake --cpu 1 --sender-cpu 0 --source timer --count 60 --ldist 3000,3000 \
	--states each --out "$TMP/each" -q 2> "$TMP/each.err" ||
	fail "--states each on gnr0: $(cat "$TMP/each.err")"
touch "$TMP/seq.stop"; wait $spid
# the samples where CPU 1 had exactly one state enabled, in order
got=$(awk '{ n = gsub(/0/, "0", $1) } n == 1 { print $1 }' "$TMP/seq" | uniq | tr '\n' ' ')
[ "$got" = "01111 10111 11011 11101 11110 " ] ||
	fail "phases' flags on cpu1: '$got' (all samples: $(tr '\n' ';' < "$TMP/seq"))"
# no other CPU touched at any time
awk '$2 != "00000" || $3 != "00000" { bad++ } END { exit bad > 0 }' "$TMP/seq" ||
	fail "another CPU's flags changed: $(tr '\n' ';' < "$TMP/seq")"
[ "$(flags)" = "00100 00000 00000" ] || fail "flags after the run: $(flags)"
[ "$(tree_sum)" = "$before" ] || fail "the tree differs after the run"
[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "a state file left: $(ls "$WAKEBENCH_STATE_DIR")"
[ "$(csv_col "$TMP/each/wake.csv" state_setting | uniq -c | awk '{ print $2 ":" $1 }' | tr '\n' ' ')" = \
  "only:POLL:60 only:C1:60 only:C1E:60 only:C6:60 only:C6P:60 " ] ||
	fail "phases in wake.csv: $(csv_col "$TMP/each/wake.csv" state_setting | uniq -c | tr '\n' ' ')"
# a row per phase (the fake counters never move: every datapoint busy)
for set in POLL C1 C1E C6 C6P; do
	grep -q "^timer,only:$set,,0,60," "$TMP/each/summary.csv" ||
		fail "summary.csv: no busy row of only:$set: $(cat "$TMP/each/summary.csv")"
done

# ---- SIGTERM in the third phase: every flag back
"$WB" wake --cpu 1 --sender-cpu 0 --source timer --count 300 --ldist 3000,3000 --states each -q 2>/dev/null &
pid=$!
wait_for '[ "$(flags)" = "11011 00000 00000" ]' || fail "SIGTERM: third phase not seen: $(flags)"
kill -TERM $pid
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.01; done
kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "still running 1 s after SIGTERM"; }
wait $pid
[ "$(tree_sum)" = "$before" ] || fail "after SIGTERM the tree differs: flags $(flags)"

# ---- SIGKILL in the fourth phase: `cstate restore` puts every flag back
"$WB" wake --cpu 1 --sender-cpu 0 --source timer --count 300 --ldist 3000,3000 --states each -q 2>/dev/null &
pid=$!
wait_for '[ "$(flags)" = "11101 00000 00000" ]' || fail "SIGKILL: fourth phase not seen: $(flags)"
kill -KILL $pid
wait $pid 2>/dev/null
[ "$(flags)" = "11101 00000 00000" ] || fail "after SIGKILL: flags $(flags)"
"$WB" cstate restore > "$TMP/restore.out" 2>&1 || fail "cstate restore: $(cat "$TMP/restore.out")"
[ "$(tree_sum)" = "$before" ] || fail "after SIGKILL + cstate restore the tree differs: flags $(flags)"
[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "a state file left after cstate restore"
echo "ok"
