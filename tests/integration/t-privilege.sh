# Privilege (run as root, drops to nobody): commands that change system
# state say "needs root" and exit 1 without changing anything; the rest
# run unprivileged and write nothing outside their output directory.
. "$(dirname "$0")/lib.sh"
need_root
command -v setpriv > /dev/null || skip "no setpriv"
fake_sysfs
chmod -R a+rX "$TMP"
chmod a+w "$TMP"
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent "$@"; }
states() { cat "$FAKE"/devices/system/cpu/cpu*/cpuidle/state*/disable | tr -d '\n'; }
before=$(states)

# expect_root CMD...: exit 1 and "needs root", nothing changed.
expect_root() {
	local out rc
	out=$(cd / && asnobody "$@" 2>&1 </dev/null); rc=$?
	[ $rc = 1 ] || fail "unprivileged '$*' exited $rc: $out"
	echo "$out" | grep -q 'needs root' || fail "unprivileged '$*' did not say it needs root: $out"
	[ "$(states)" = "$before" ] || fail "unprivileged '$*' changed C-states"
	[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "unprivileged '$*' left a state file"
}
expect_root "$WB" cstate disable C6
expect_root "$WB" cstate limit --max-latency-us 10
unset WAKEBENCH_PMQOS_DEV	# the real /dev/cpu_dma_latency (root-only)
[ -e /dev/cpu_dma_latency ] && expect_root "$WB" cstate hold --latency-us 0 -- true
# On the real /sys the verbs that change the machine refuse up front
# (their command table says so), before a state is resolved or saved.
real_flags() { cat /sys/devices/system/cpu/cpu*/cpuidle/state*/disable 2>/dev/null | tr -d '\n'; }
real_before=$(real_flags)
gov=$(cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null)
for verb in "disable 1" "enable 1" "limit --max-latency-us 10" "hold --max-latency-us 0 --cpus 0" \
	${gov:+"governor $gov"}; do
	# shellcheck disable=SC2086
	out=$(cd / && env -u WAKEBENCH_SYSFS setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$WB" cstate $verb 2>&1 </dev/null); rc=$?
	[ $rc = 1 ] && echo "$out" | grep -q "needs root" ||
		fail "unprivileged 'cstate $verb' on the real /sys: exit $rc: $out"
done
[ "$(real_flags)" = "$real_before" ] || fail "unprivileged cstate changed the real idle states"
export WAKEBENCH_PMQOS_DEV="$TMP/pmqos"
expect_root "$WB" server --port 0 --cstates off
expect_root "$WB" client --server 127.0.0.1:1 --requests 10 --cstates off --out "$TMP/never"
expect_root "$WB" trace record --out "$TMP/never-trace" --duration 1
expect_root "$WB" sweep --reps 1 --requests 50 --cstates off --out "$TMP/never-sweep"

# Unprivileged work writes only below its --out (and reads the rest).
mkdir "$TMP/out" && chown nobody "$TMP/out"
touch "$TMP/stamp"
sleep 1	# find -newer has whole-second resolution on some filesystems
cd / || fail "cd /"
asnobody "$WB" sweep --dist exp --prequery "off 20" --reps 2 --requests 200 --interval-us 1000 \
	--out "$TMP/out/sweep" > "$TMP/nobody.log" 2>&1 || fail "unprivileged sweep: $(tail -5 "$TMP/nobody.log")"
asnobody "$WB" report "$TMP/out/sweep" --out "$TMP/out/report" >> "$TMP/nobody.log" 2>&1 \
	|| fail "unprivileged report: $(tail -5 "$TMP/nobody.log")"
asnobody "$WB" snapshot --out "$TMP/out/snap.json" || fail "unprivileged snapshot"
asnobody "$WB" cstate list > /dev/null || fail "unprivileged cstate list"
asnobody "$WB" cstate governor > /dev/null || fail "unprivileged cstate governor"
asnobody "$WB" trace residency --duration 0.2 --out "$TMP/out/res.csv" > /dev/null \
	|| fail "unprivileged trace residency"
[ -s "$TMP/out/sweep/summary.csv" ] && [ -s "$TMP/out/report/index.html" ] || fail "outputs missing"
stray=$(find /tmp /var/tmp /dev/shm /run "$TMP" -xdev -newer "$TMP/stamp" -user nobody \
	! -path "$TMP/out" ! -path "$TMP/out/*" 2>/dev/null)
[ -z "$stray" ] || fail "files written outside the output directory: $stray"
