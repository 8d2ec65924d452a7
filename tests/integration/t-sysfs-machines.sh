# cstate and snapshot on the sysfs of real servers: trimmed dumps from
# Intel's pepc (tests/fixtures/sysfs, BSD-3-Clause, see its README) made
# into fake trees by wb-sysfsfake. Granite Rapids (512 CPUs, POLL C1 C1E
# C6 C6P), Cascade Lake 4 sockets (192), Milan (acpi_idle, POLL C1 C2),
# Knights Landing (272, POLL C1 C6), Sierra Forest (224, C6S C6SP): every
# state named as the kernel names it, changes on CPU lists past 64 and
# 256 applied and restored, limit by latency, --persist then restore.
. "$(dirname "$0")/lib.sh"
FIX="$WB_TOP/tests/fixtures/sysfs"
[ -x "$WB_TOOLS/wb-sysfsfake" ] || skip "wb-sysfsfake not built"
# The trees (30 000 files for gnr0) on tmpfs: on this disk (ext4 with
# discard) making one takes 19 s, on /dev/shm 0.7 s.
TREES=$(mktemp -d /dev/shm/wbtest.XXXXXX 2>/dev/null) || TREES="$TMP"
trap 'rm -rf "$TREES"; cleanup' EXIT
export WAKEBENCH_STATE_DIR="$TMP/state" WAKEBENCH_PMQOS_DEV="$TMP/pmqos"
: > "$WAKEBENCH_PMQOS_DEV"

# machine  CPUs  states (cpu0, in order)    a CPU list to change  a state
# packages, whether all ids read, CPU 0's SMT siblings
while IFS='|' read -r m ncpu states cpus deep topo; do
	root="$TREES/$m"
	"$WB_TOOLS/wb-sysfsfake" "$FIX/$m/inlinefiles.txt" "$root" "$FIX/$m/cpuinfo" ||
		fail "$m: wb-sysfsfake"
	export WAKEBENCH_SYSFS="$root"
	cpu_dir() { echo "$root/devices/system/cpu/cpu$1"; }
	# every value of the tree (as sysfs shows it: a final newline or not
	# is the fake's), to compare after all changes were undone
	tree_sum() { (cd "$root" && find . -type f | sort | xargs awk '{ print FILENAME ": " $0 }' | md5sum); }
	before=$(tree_sum)
	# The state index of a name on CPU c, from the tree itself.
	idx() {
		local d
		for d in "$(cpu_dir "$1")"/cpuidle/state*; do
			[ "$(cat "$d/name")" = "$2" ] && { echo "${d##*state}"; return; }
		done
	}

	# list: every CPU, every state, the kernel's names.
	$WB cstate list --json > "$TMP/$m.json" || fail "$m: cstate list --json"
	got=$(python3 - "$TMP/$m.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
cpus = d["cpus"] if isinstance(d, dict) else d
names = {tuple(s["name"] for s in c["states"]) for c in cpus}
print(len(cpus), " ".join(sorted(names)[0]) if len(names) == 1 else names)
EOF
) || fail "$m: list --json is not JSON"
	[ "$got" = "$ncpu $states" ] || fail "$m: list --json gave '$got', want '$ncpu $states'"
	last=$((ncpu - 1))
	$WB cstate list --cpus $last | grep -q "^$last  *0  *POLL" ||
		fail "$m: list --cpus $last: $($WB cstate list --cpus $last | head -3)"

	# disable around a command on CPUs past 64 (and 256 where there are).
	first=${cpus%%[-,]*}
	i=$(idx "$first" "$deep")
	[ -n "$i" ] || fail "$m: no state $deep on cpu$first"
	$WB cstate disable "$deep" --cpus "$cpus" -- sh -c \
		"echo \$(cat $(cpu_dir "$first")/cpuidle/state$i/disable) \$(cat $(cpu_dir $last)/cpuidle/state$i/disable)" \
		> "$TMP/during" || fail "$m: disable $deep --cpus $cpus"
	[ "$(cat "$TMP/during")" = "1 0" ] ||
		fail "$m: during disable: $(cat "$TMP/during") (want 1 on cpu$first, 0 on cpu$last)"
	[ "$(cat "$(cpu_dir "$first")/cpuidle/state$i/disable")" = 0 ] || fail "$m: not restored"

	# limit by exit latency: every state above 5 us off, PM QoS 5, both back.
	$WB cstate limit --max-latency-us 5 --cpus "$first" -- sh -c "
		for d in $(cpu_dir "$first")/cpuidle/state*; do
			echo \$(cat \$d/latency):\$(cat \$d/disable)
		done; cat $(cpu_dir "$first")/power/pm_qos_resume_latency_us" > "$TMP/lim" ||
		fail "$m: limit"
	awk -F: 'NF == 2 && (($1 > 5) != ($2 == 1)) { bad = 1 } END { exit bad }' "$TMP/lim" ||
		fail "$m: limit 5 us: $(tr '\n' ' ' < "$TMP/lim")"
	[ "$(tail -n 1 "$TMP/lim")" = 5 ] || fail "$m: PM QoS during limit: $(tail -n 1 "$TMP/lim")"
	for d in "$(cpu_dir "$first")"/cpuidle/state*; do
		[ "$(cat "$d/disable")" = 0 ] || fail "$m: $d not restored after limit"
	done
	[ "$(cat "$(cpu_dir "$first")/power/pm_qos_resume_latency_us")" = 0 ] ||
		fail "$m: PM QoS not restored"

	# --persist stays; restore puts it back.
	$WB cstate disable "$deep" --cpus $last --persist || fail "$m: --persist"
	[ "$(cat "$(cpu_dir $last)/cpuidle/state$i/disable")" = 1 ] || fail "$m: persist"
	$WB cstate restore > "$TMP/restore" 2>&1 || fail "$m: restore: $(cat "$TMP/restore")"
	[ "$(cat "$(cpu_dir $last)/cpuidle/state$i/disable")" = 0 ] || fail "$m: restore"
	[ -z "$(ls "$WAKEBENCH_STATE_DIR" 2>/dev/null)" ] || fail "$m: state file left"

	# CPU lists are bounded by the tree's possible CPUs (no fixed limit,
	# not this VM's 2): residency on CPUs past 256, one past refused.
	[ "$(cat "$root/devices/system/cpu/possible")" = "0-$last" ] ||
		fail "$m: possible is $(cat "$root/devices/system/cpu/possible")"
	$WB trace residency --cpus "$cpus,$last" --duration 0.01 > "$TMP/res" 2>&1 ||
		fail "$m: residency --cpus $cpus,$last: $(tail -n 2 "$TMP/res")"
	grep -q "^$last  *$deep " "$TMP/res" || fail "$m: residency: no $deep row of cpu$last"
	grep -q "^$first  *C0 " "$TMP/res" || fail "$m: residency: no C0 row of cpu$first"
	! grep -q "^0  *C0 " "$TMP/res" || fail "$m: residency: cpu0 not in --cpus but shown"
	$WB trace residency --cpus "$ncpu" --duration 0.01 > "$TMP/res" 2>&1 &&
		fail "$m: residency --cpus $ncpu accepted"
	grep -q "(CPUs 0-$last)" "$TMP/res" || fail "$m: residency --cpus $ncpu: $(cat "$TMP/res")"

	# capture: the server CPU's residency and governor columns, every
	# state named as the kernel names it
	$WB trace capture --out "$TMP/$m.cap" --cpu server=1 -- sleep 0.05 > /dev/null 2>&1 ||
		fail "$m: trace capture"
	hdr=$(head -1 "$TMP/$m.cap/capture.csv")
	for st in $states; do
		case ",$hdr," in *",res_${st}_pct,"*",above_${st},"*) ;;
		*) fail "$m: capture.csv has no res_${st}_pct / above_${st}: $hdr" ;; esac
	done
	# snapshot: valid JSON, the driver, every CPU and state as named.
	$WB snapshot --out "$TMP/$m.snap.json" || fail "$m: snapshot"
	got=$(python3 - "$TMP/$m.snap.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))["cpuidle"]
names = {tuple(s["name"] for s in c["states"]) for c in d["cpus"]}
print(d["driver"], len(d["cpus"]), " ".join(sorted(names)[0]) if len(names) == 1 else names)
EOF
) || fail "$m: snapshot JSON"
	case $m in milan0) drv=acpi_idle ;; *) drv=intel_idle ;; esac
	[ "$got" = "$drv $ncpu $states" ] || fail "$m: snapshot gave '$got'"
	# where every CPU sits: package, die, core and SMT siblings
	got=$(python3 - "$TMP/$m.snap.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))["topology"]
ok = all(isinstance(c[k], int) for c in t for k in ("package", "die", "core"))
print(len(t), len({c["package"] for c in t}), ok, t[0]["smt_siblings"])
EOF
) || fail "$m: snapshot topology"
	[ "$got" = "$ncpu $topo" ] || fail "$m: snapshot topology gave '$got', want '$ncpu $topo'"
	# the sweep's (and the demo's) default CPUs: one socket, off CPU 0 and
	# its sibling, apart; a given server CPU gets a client off its core
	got=$("$WB_BIN/wakebench-internal" spec | sed -n 's/^\(server\|client\)-cpu = //p' | tr '\n' ' ')
	[ "$got" = "2 1 " ] || fail "$m: default client and server CPUs '$got', want '2 1 '"
	# --placement cross-socket: the client on another package, or refused
	if [ "${topo%% *}" -gt 1 ]; then
		got=$("$WB_BIN/wakebench-internal" spec --placement cross-socket | sed -n 's/^client-cpu = //p')
		[ "$(cat "$(cpu_dir "$got")/topology/physical_package_id")" != 0 ] ||
			fail "$m: cross-socket client $got is on package 0"
		# two CPUs of one package given: not called cross-socket
		"$WB_BIN/wakebench-internal" spec --placement cross-socket --server-cpu 1 \
			--client-cpu 2 > "$TMP/o" 2>&1
		rc=$?
		[ $rc = 2 ] && grep -q 'are on one package' "$TMP/o" ||
			fail "$m: cross-socket on CPUs 1 and 2: rc $rc, $(cat "$TMP/o")"
	else
		"$WB_BIN/wakebench-internal" spec --placement cross-socket > "$TMP/o" 2>&1
		rc=$?
		[ $rc = 2 ] && grep -q 'one package' "$TMP/o" || fail "$m: cross-socket on one package: rc $rc, $(cat "$TMP/o")"
	fi
	sib=$(cat "$(cpu_dir 1)/topology/thread_siblings_list")
	sib=${sib##*,}
	if [ "$sib" != 1 ]; then
		got=$("$WB_BIN/wakebench-internal" spec --server-cpu "$sib" | sed -n 's/^client-cpu = //p')
		[ "$got" = 2 ] || fail "$m: server on $sib (CPU 1's sibling): client $got, want 2"
	fi
	[ "$(tree_sum)" = "$before" ] || fail "$m: a value of the fake tree differs after every change was undone"
	rm -rf "$root"
done <<'EOF'
gnr0|512|POLL C1 C1E C6 C6P|64-66,300,400-401|C6P|2 True 0,256
clx4s0|192|POLL C1 C1E C6|65-70,129|C6|4 True 0,96
milan0|128|POLL C1 C2|65,100-101|C2|2 True 0,64
knl0|272|POLL C1 C6|257-260|C6|1 True 0,68,136,204
srf2|224|POLL C1 C1E C6S C6SP|64,200-201|C6SP|2 True 0
EOF
echo ok
