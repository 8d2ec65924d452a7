#!/bin/bash
# A trace record killed with SIGKILL leaves its instance (tracing on,
# buffers allocated): `trace cleanup` removes it, the next `trace record`
# does the same check when it starts, a live record's instance is left
# alone, and --all removes every wakebench instance. Also: more --events
# than fit are a usage error, not silently dropped.
. "$(dirname "$0")/lib.sh"
need_tracefs

inst_of() { echo "$T/instances/wakebench-$1"; }

# 1. SIGKILLed record: its instance stays, still recording.
"$WB" trace record --out "$TMP/k" --duration 30 2>"$TMP/k.err" & k=$!
wait_for "[ -d $(inst_of $k) ]" || fail "record did not create its instance"
kill -KILL $k; wait $k 2>/dev/null
[ -d "$(inst_of $k)" ] || fail "instance gone after SIGKILL (nothing to test)"
"$WB" trace cleanup 2>"$TMP/c.err" || fail "cleanup failed: $(cat "$TMP/c.err")"
[ ! -d "$(inst_of $k)" ] || fail "cleanup left the dead record's instance"
grep -q "removed tracefs instance wakebench-$k" "$TMP/c.err" || fail "cleanup did not say what it removed"

# 2. The next record removes a dead one by itself; a live one survives both.
"$WB" trace record --out "$TMP/k2" --duration 30 2>/dev/null & k2=$!
wait_for "[ -d $(inst_of $k2) ]" || fail "record did not start"
kill -KILL $k2; wait $k2 2>/dev/null
"$WB" trace record --out "$TMP/live" --duration 30 2>"$TMP/live.err" & live=$!
wait_for "[ -d $(inst_of $live) ]" || fail "live record did not start"
[ ! -d "$(inst_of $k2)" ] || fail "a new record did not remove the dead record's instance"
grep -q "removed tracefs instance wakebench-$k2" "$TMP/live.err" || fail "record did not say what it removed"
"$WB" trace cleanup 2>/dev/null
[ -d "$(inst_of $live)" ] || fail "cleanup removed a live record's instance"
kill -TERM $live; wait $live || fail "live record exit"
[ ! -d "$(inst_of $live)" ] || fail "live record left its instance"

# 3. --all removes every wakebench instance (a made-up one here).
mkdir "$T/instances/wakebench-1" || fail "cannot create a test instance"
"$WB" trace cleanup --all 2>/dev/null
[ ! -d "$T/instances/wakebench-1" ] || { rmdir "$T/instances/wakebench-1"; fail "--all left an instance"; }

# 4. Too many events: a usage error naming the limit.
ev=$(seq 1 30 | sed 's/.*/irq:irq_handler_entry/' | paste -sd,)
"$WB" trace record --out "$TMP/ev" --events "$ev" --duration 1 2>"$TMP/ev.err"; rc=$?
[ $rc -eq 2 ] || fail "30 extra events: exit $rc, want 2"
grep -q "too many --events" "$TMP/ev.err" || fail "no message: $(cat "$TMP/ev.err")"
exit 0
