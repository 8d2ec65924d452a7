#!/bin/bash
# Runs every tests/integration/*.sh (or those named) and prints the plain
# closing line "N passed, N failed, N skipped". A test exits 0 to pass,
# 77 to skip (after printing why), anything else to fail.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export O=${O:-build}
export WB_TOP=$(cd "$here/.." && pwd)
export WB_BIN="$WB_TOP/$O/bin"
export WB_TOOLS="$WB_TOP/$O/tests"
# Every test runs between two snapshots of what it could leave changed on
# the machine (guard.sh); a difference fails the test.
. "$here/integration/guard.sh"
# Processes and ports count when they are this build's (another build on
# the same machine, a helper's or a benchmark's, is not this run's leak);
# idle states, PM QoS, tracefs and state files stay machine-wide.
export GUARD_SCOPE=${GUARD_SCOPE-$WB_TOP/$O/}
guard_dir=$(mktemp -d)
pass=0 fail=0 skip=0 failed=()
tests=("$@")
[ ${#tests[@]} -eq 0 ] && tests=("$here"/integration/t-*.sh)
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	log=$(mktemp)
	start=$(date +%s.%N)
	guard_snapshot "$guard_dir/before"
	bash "$t" >"$log" 2>&1
	rc=$?
	# A test must not leave wakebench processes behind (allow 2 s for
	# the ones it just signalled to exit).
	for _ in $(seq 20); do
		left=$(pgrep -f "^$WB_BIN/wakebench-" || true)
		[ -z "$left" ] && break
		sleep 0.1
	done
	if [ -n "$left" ]; then
		echo "left running: $(ps -o args= -p $left | tr '\n' ';')" >> "$log"
		kill $left 2>/dev/null
		[ $rc -eq 0 ] && rc=1
	fi
	# Nor anything else on the machine: idle states, PM QoS, tracefs
	# instances, state files, listening ports (guard.sh).
	guard_snapshot "$guard_dir/after"
	if ! guard_compare "$guard_dir/before" "$guard_dir/after" > "$guard_dir/diff"; then
		{ echo "left behind on the machine:"; cat "$guard_dir/diff"; } >> "$log"
		[ $rc -eq 0 ] && rc=1
	fi
	secs=$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo "?")
	case $rc in
	0)  pass=$((pass + 1)); printf 'PASS %-28s %6.1fs\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); printf 'SKIP %-28s %s\n' "$name" "$(tail -n 1 "$log")" ;;
	*)  fail=$((fail + 1)); failed+=("$name")
	    printf 'FAIL %-28s (exit %d)\n' "$name" "$rc"
	    sed 's/^/    | /' "$log" | tail -n 40 ;;
	esac
	rm -f "$log"
done
rm -rf "$guard_dir"
echo "integration: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
