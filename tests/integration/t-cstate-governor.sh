# wakebench cstate governor [NAME]: shows the available and current
# cpuidle governor; sets one around a command, until a signal, or with
# --persist until 'cstate restore', like every other change; refuses an
# unknown governor (exit 2) and a kernel that cannot switch (exit 1).
# On the fake tree of a real server (Sierra Forest, ladder menu teo: every
# file as it was afterwards) and, as root where current_governor is
# writable, on this machine.
. "$(dirname "$0")/lib.sh"
FIX="$WB_TOP/tests/fixtures/sysfs"
[ -x "$WB_TOOLS/wb-sysfsfake" ] || skip "wb-sysfsfake not built"
C="$WB cstate"
TREES=$(mktemp -d /dev/shm/wbtest.XXXXXX 2>/dev/null) || TREES="$TMP"
trap 'rm -rf "$TREES"; cleanup' EXIT
export WAKEBENCH_STATE_DIR="$TMP/state" WAKEBENCH_PMQOS_DEV="$TMP/pmqos"
: > "$WAKEBENCH_PMQOS_DEV"
root="$TREES/srf2"
"$WB_TOOLS/wb-sysfsfake" "$FIX/srf2/inlinefiles.txt" "$root" || fail "wb-sysfsfake"
export WAKEBENCH_SYSFS="$root"
gov="$root/devices/system/cpu/cpuidle/current_governor"
now() { echo $(cat "$gov"); }
state_files() { ls "$WAKEBENCH_STATE_DIR" 2>/dev/null; }
# Every file of the tree and its value (as sysfs shows it: a trailing
# newline is not part of it), to compare at the end.
values() {
	python3 -c '
import os, sys
for d, _, fs in sorted(os.walk(sys.argv[1])):
    for f in sorted(fs):
        print(os.path.join(d, f), open(os.path.join(d, f)).read().rstrip("\n"))' "$root"
}
values > "$TMP/tree.before"

# Shown: current and available, as text and JSON.
$C governor > "$TMP/show" || fail "governor: $(cat "$TMP/show")"
grep -q "^current cpuidle governor: menu$" "$TMP/show" || fail "show: $(cat "$TMP/show")"
grep -q "^available: ladder menu teo$" "$TMP/show" || fail "show: $(cat "$TMP/show")"
$C governor --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d == {"current": "menu", "writable": True, "available": ["ladder", "menu", "teo"]}, d' ||
	fail "governor --json"

# Around a command: set during, restored after, exit status passed on.
$C governor teo -- sh -c "[ \$(cat $gov) = teo ] && exit 3"
[ $? -eq 3 ] || fail "command did not see teo (or exit status lost)"
[ "$(now)" = menu ] || fail "not restored after the command: $(now)"
[ -z "$(state_files)" ] || fail "state file left: $(state_files)"

# Held until SIGTERM, SIGINT or SIGHUP, then restored.
for sig in TERM INT HUP; do
	$C governor teo 2>/dev/null &
	pid=$!
	wait_for '[ "$(now)" = teo ]' || fail "governor teo not applied (SIG$sig)"
	grep -q "^governor menu teo$" "$WAKEBENCH_STATE_DIR"/cstate.*.state ||
		fail "not recorded: $(cat "$WAKEBENCH_STATE_DIR"/*)"
	# another session asking for another governor is refused, naming it
	$C governor ladder -- true > "$TMP/busy" 2>&1 && fail "a second governor accepted"
	grep -q "cpuidle governor is held at teo by pid $pid" "$TMP/busy" ||
		fail "conflict message: $(cat "$TMP/busy")"
	kill -$sig $pid
	wait $pid
	[ "$(now)" = menu ] || fail "not restored on SIG$sig: $(now)"
	[ -z "$(state_files)" ] || fail "state file left after SIG$sig"
done

# --persist stays; 'restore' puts it back and says so.
$C governor ladder --persist > "$TMP/out" || fail "--persist: $(cat "$TMP/out")"
[ "$(now)" = ladder ] || fail "--persist did not set ladder"
[ -n "$(state_files)" ] || fail "--persist kept no state file"
$C restore > "$TMP/restore" 2>&1 || fail "restore: $(cat "$TMP/restore")"
grep -q "restored: cpuidle governor menu" "$TMP/restore" || fail "restore said: $(cat "$TMP/restore")"
[ "$(now)" = menu ] || fail "restore: $(now)"
[ -z "$(state_files)" ] || fail "state file left after restore"
# Killed (no chance to restore): 'restore' undoes it.
$C governor teo 2>/dev/null &
pid=$!
wait_for '[ "$(now)" = teo ]' || fail "governor teo not applied (KILL)"
kill -KILL $pid; wait $pid 2>/dev/null
[ "$(now)" = teo ] || fail "KILL: $(now)"
$C restore > "$TMP/restore" 2>&1 || fail "restore after KILL: $(cat "$TMP/restore")"
[ "$(now)" = menu ] || fail "restore after KILL: $(now)"

# Refused: an unknown governor (exit 2, nothing changed), usage errors.
$C governor bogus > "$TMP/err" 2>&1; rc=$?
[ $rc = 2 ] || fail "unknown governor: exit $rc"
grep -q "unknown cpuidle governor 'bogus' (this kernel has: ladder menu teo)" "$TMP/err" ||
	fail "unknown governor: $(cat "$TMP/err")"
$C governor menu teo > /dev/null 2>&1; [ $? = 2 ] || fail "two names accepted"
$C governor teo --cpus 1 > /dev/null 2>&1; [ $? = 2 ] || fail "--cpus accepted"
[ "$(now)" = menu ] && [ -z "$(state_files)" ] || fail "a refused request changed something"
# The same as the current one: nothing to change, nothing recorded.
$C governor menu -- sh -c "ls $WAKEBENCH_STATE_DIR 2>/dev/null" > "$TMP/same" || fail "governor menu"
[ ! -s "$TMP/same" ] || fail "setting the current governor recorded: $(cat "$TMP/same")"
values > "$TMP/tree.after"
cmp -s "$TMP/tree.before" "$TMP/tree.after" ||
	fail "the fake tree is not as it was: $(diff "$TMP/tree.before" "$TMP/tree.after" | head -5)"

# A kernel with only current_governor_ro: shown read-only, set refused.
rm "$gov"
$C governor | grep -q "read-only" || fail "read-only not said: $($C governor)"
$C governor teo > "$TMP/err" 2>&1; rc=$?
[ $rc = 1 ] && grep -q "cannot switch the cpuidle governor" "$TMP/err" ||
	fail "read-only governor: exit $rc: $(cat "$TMP/err")"

# This machine, for real (root, a writable current_governor).
# The host's own state directory, never a private one: the state files
# are the machine's record of who holds what. A private directory on the
# real sysfs takes another holder's value for the original and "restores"
# it after that holder ended (a concurrent 'cstate hold --max-latency-us 0
# --cpus 1' left cpu1 at n/a that way), and a SIGKILL would leave its
# record where 'cstate restore' cannot find it.
unset WAKEBENCH_SYSFS WAKEBENCH_STATE_DIR WAKEBENCH_PMQOS_DEV
real=/sys/devices/system/cpu/cpuidle/current_governor
if [ "$(id -u)" = 0 ] && [ -w "$real" ]; then
	orig=$(cat "$real")
	other=
	for g in $(cat /sys/devices/system/cpu/cpuidle/available_governors); do
		[ "$g" != "$orig" ] && { other=$g; break; }
	done
	[ -n "$other" ] || skip "one governor only here"
	during=$($C governor "$other" -- cat "$real") || fail "real governor $other"
	[ "$during" = "$other" ] || fail "real governor: read '$during' during"
	[ "$(cat "$real")" = "$orig" ] || fail "real governor not restored: $(cat "$real")"
	$C governor "$other" 2>/dev/null &
	pid=$!
	wait_for '[ "$(cat "$real")" = "$other" ]' || fail "real governor not applied"
	kill -TERM $pid; wait $pid
	[ "$(cat "$real")" = "$orig" ] || fail "real governor not restored on SIGTERM"
else
	echo "real part skipped: needs root and a writable $real"
fi
echo ok
