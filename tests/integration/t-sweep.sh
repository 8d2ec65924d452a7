# wakebench sweep + stats: a small matrix (2 distributions x 2 leads incl.
# off x 3 repetitions, 300 requests) locally and across two network
# namespaces joined by a veth pair; --resume after Ctrl-C finishes only
# the missing runs and the C-states come back.
. "$(dirname "$0")/lib.sh"
SW=("$WB" sweep --dist "fixed exp" --prequery "off 20" --reps 3 --requests 300 --interval-us 1000)

check_tree() {	# check_tree DIR
	local d=$1
	[ "$(($(wc -l < "$d/sweep.csv") - 1))" = 12 ] || fail "$d: sweep.csv rows"
	[ "$(awk -F, 'NR > 1 && $3 == "ok"' "$d/sweep.csv" | wc -l)" = 12 ] || fail "$d: runs not ok: $(cat "$d/sweep.csv")"
	[ "$(($(wc -l < "$d/summary.csv") - 1))" = 4 ] || fail "$d: summary.csv rows"
	for pt in dist-fixed_int-1000_pq-off_wu-0_cs-on_svc-0 dist-exp_int-1000_pq-20_wu-0_cs-on_svc-0; do
		for r in 1 2 3; do
			for f in client/requests.csv client/summary.json client/snapshot.json server.csv server.snapshot.json; do
				[ -s "$d/$pt/rep-$r/$f" ] || fail "$d: $pt/rep-$r/$f missing"
			done
		done
	done
	# Every pre-query point has a speedup against its off point, unless
	# runs behind schedule (a loaded machine) left one of them empty;
	# every run is either in the medians or counted as behind.
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ k = $h["dist"]; n[k, $h["prequery"]] = $h["n"]; sp[k] = sp[k] $h["speedup_p50"] }
		$h["n"] + $h["n_behind"] != 3 { exit 1 }
		END { for (k in sp) if (n[k, "20"] > 0 && n[k, "off"] > 0 && sp[k] == "") exit 1 }' "$d/summary.csv" ||
		fail "$d: summary columns: $(cat "$d/summary.csv")"
}

"${SW[@]}" --out "$TMP/local" > "$TMP/local.out" 2>&1 || fail "local sweep: $(tail -5 "$TMP/local.out")"
check_tree "$TMP/local"
# Randomised but seeded: the same seed gives the same order.
"$WB" sweep --out "$TMP/x" --dist "fixed exp" --prequery "off 20" --reps 3 --dry-run > "$TMP/plan1"
cmp -s "$TMP/plan1" "$TMP/local/plan.txt" || fail "dry-run plan differs from the sweep's"
sort "$TMP/plan1" | cmp -s - "$TMP/plan1" && fail "plan is not shuffled"
"${SW[@]}" --out "$TMP/local" > /dev/null 2>&1; [ $? = 1 ] || fail "reusing a sweep dir without --resume"

# Spec file and bad input.
cat > "$TMP/spec" <<'EOS'
# a comment
dist = fixed
interval_us = 500
prequery = off adaptive
reps = 2
requests = 100
window = 20
EOS
"$WB" sweep --out "$TMP/spec-run" --spec "$TMP/spec" > /dev/null 2>&1 || fail "spec sweep"
[ "$(awk -F, 'NR > 1 && $3 == "ok"' "$TMP/spec-run/sweep.csv" | wc -l)" = 4 ] || fail "spec sweep rows"
echo "bogus = 1" > "$TMP/badspec"
"$WB" sweep --out "$TMP/b" --spec "$TMP/badspec" 2>/dev/null; [ $? = 2 ] || fail "bad spec key"
"$WB" sweep --out "$TMP/b" --dist gauss 2>/dev/null; [ $? = 2 ] || fail "bad dist"
"$WB" sweep --out "$TMP/b" --prequery soon 2>/dev/null; [ $? = 2 ] || fail "bad prequery"
"$WB" sweep --dist exp 2>/dev/null; [ $? = 2 ] || fail "no --out"
"$WB" stats "$TMP/nothing" 2>/dev/null; [ $? = 1 ] || fail "stats without sweep.csv"

# --trace: every run recorded, with markers, instances removed.
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/power/cpu_idle ]; then
	# instances of other (concurrent or crashed) recordings are not ours
	inst_before=$(ls /sys/kernel/tracing/instances | grep '^wakebench-')
	"$WB" sweep --out "$TMP/tr" --prequery "off 20" --reps 1 --requests 100 --trace \
		--server-cpu 0 --client-cpu 1 > "$TMP/tr.out" 2>&1 || fail "traced sweep: $(tail -3 "$TMP/tr.out")"
	for d in "$TMP"/tr/*/rep-1; do
		[ -s "$d/trace/meta.txt" ] || fail "no trace in $d"
		"$WB" trace timeline "$d/trace" > /dev/null || fail "trace of $d unreadable"
		[ "$(grep -c 'wb recv ' "$d/trace/markers.csv")" -ge 100 ] || fail "no request markers in $d"
	done
	left=$(ls /sys/kernel/tracing/instances | grep '^wakebench-' | grep -vxF "${inst_before:-/}")
	[ -z "$left" ] || fail "traced sweep left an instance: $left"
fi

# Ctrl-C mid-sweep, then --resume: only the missing runs run, and the
# C-states the runs changed (a synthetic sysfs here) are back.
fake_sysfs
"${SW[@]}" --out "$TMP/res" --cstates off --server-cpu 1 --client-cpu 0 > "$TMP/res1.out" 2>&1 &
pid=$!
wait_for "[ \$(ls -d $TMP/res/*/rep-*/client 2>/dev/null | wc -l) -ge 4 ]" || fail "sweep did not progress"
# SIGTERM: a background job's SIGINT is ignored by bash; Ctrl-C at a
# terminal reaches the whole process group and takes the same path.
kill -TERM $pid; wait $pid; [ $? = 130 ] || fail "interrupted sweep exit status"
grep -q 'resume' "$TMP/res1.out" || fail "no resume hint"
for c in 0 1; do for s in 1 2; do [ "$(disabled $c $s)" = 0 ] || fail "cpu$c state$s not restored after Ctrl-C"; done; done
[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "state files left after Ctrl-C"
done_before=$(for d in "$TMP"/res/*/rep-*; do [ -s "$d/client/summary.csv" ] && awk -F, 'NR == 2 && $1 == "ok"' "$d/client/summary.csv"; done | wc -l)
"${SW[@]}" --out "$TMP/res" --cstates off --server-cpu 1 --client-cpu 0 --resume > "$TMP/res2.out" 2>&1 || fail "resume: $(tail -3 "$TMP/res2.out")"
grep -q "12 runs planned: $((12 - done_before)) run now, $done_before already complete" "$TMP/res2.out" \
	|| fail "resume did not skip the $done_before completed runs: $(grep planned "$TMP/res2.out")"
[ "$(awk -F, 'NR > 1 && $3 == "ok"' "$TMP/res/sweep.csv" | wc -l)" = 12 ] || fail "resumed sweep incomplete"
unset WAKEBENCH_SYSFS WAKEBENCH_STATE_DIR WAKEBENCH_PMQOS_DEV

# Server and client in two network namespaces joined by a veth pair
# (link-local addresses, made and removed here).
[ "$(id -u)" = 0 ] || { echo "namespace part skipped: needs root"; exit 0; }
ns=wb$$
if ! ip netns add ${ns}s 2>/dev/null; then echo "namespace part skipped: ip netns unavailable"; exit 0; fi
ip netns add ${ns}c
trap 'ip netns del ${ns}s 2>/dev/null; ip netns del ${ns}c 2>/dev/null; cleanup' EXIT
ip link add ${ns}a type veth peer name ${ns}b || fail "veth"
ip link set ${ns}a netns ${ns}s
ip link set ${ns}b netns ${ns}c
ip -n ${ns}s addr add 169.254.77.1/24 dev ${ns}a
ip -n ${ns}c addr add 169.254.77.2/24 dev ${ns}b
for n in s c; do ip -n ${ns}$n link set lo up; done
ip -n ${ns}s link set ${ns}a up
ip -n ${ns}c link set ${ns}b up
"${SW[@]}" --out "$TMP/ns" --server-exec "ip netns exec ${ns}s" --client-exec "ip netns exec ${ns}c" \
	--server-addr 169.254.77.1 > "$TMP/ns.out" 2>&1 || fail "namespace sweep: $(tail -5 "$TMP/ns.out")"
check_tree "$TMP/ns"
grep -q '"server": "169.254.77.1"' "$TMP/ns/dist-exp_int-1000_pq-off_wu-0_cs-on_svc-0/rep-1/client/summary.json" \
	|| fail "namespace run did not go to the server namespace"
