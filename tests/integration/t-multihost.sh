# wakebench sweep with two client agents started over ssh (issue 19):
# two network namespaces joined to this host by veth pairs on a bridge,
# each running its own sshd (Debian openssh-server) on its veth address
# with a host key and a login key made here; the server on this host.
# Namespace 2's sshd has a tmpfs over the sweep directory, so its agent
# does not see DIR and its results come back through ssh (tar); namespace
# 1's sees DIR. Checked: the merged run (count = the agents' sum, every
# percentile recomputed here from the agents' requests.csv), the agents'
# shares (gap, requests, seeds), their start together (with client
# --start-at), progress lines, an unreachable agent refused up front, and
# everything removed afterwards, whatever way the test exits (the guard
# checks namespaces, links and sshd processes too).
. "$(dirname "$0")/lib.sh"
need_root
for t in ip ssh ssh-keygen unshare tar; do
	command -v $t > /dev/null || skip "needs $t (make deps: iproute2, openssh-server)"
done
[ -x /usr/sbin/sshd ] || skip "needs /usr/sbin/sshd (make deps: openssh-server)"
ip netns list > /dev/null 2>&1 || skip "ip netns unavailable here"

ns=wbmh$$
br=${ns}b
net=169.254.83
SSHD_PIDS=() MADE_RUNSSHD=0 NS_MADE=()
teardown() {
	local n p
	for p in "${SSHD_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	# every process left in a namespace (ssh sessions, agents)
	for n in "${NS_MADE[@]}"; do
		p=$(ip netns pids "$n" 2>/dev/null)
		[ -n "$p" ] && kill -TERM $p 2>/dev/null
	done
	for p in "${SSHD_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	for n in "${NS_MADE[@]}"; do
		for _ in $(seq 20); do [ -z "$(ip netns pids "$n" 2>/dev/null)" ] && break; sleep 0.1; done
		p=$(ip netns pids "$n" 2>/dev/null)
		[ -n "$p" ] && kill -KILL $p 2>/dev/null
		ip netns del "$n" 2>/dev/null
	done
	ip link del "$br" 2>/dev/null
	[ $MADE_RUNSSHD = 1 ] && rmdir /run/sshd 2>/dev/null
	SSHD_PIDS=() NS_MADE=() MADE_RUNSSHD=0
	cleanup
}
trap teardown EXIT
trap 'exit 130' INT TERM HUP

# keys: the sshds' host key and the login key, private to this test
K="$TMP/ssh"
mkdir -m 700 "$K"
ssh-keygen -q -t ed25519 -N '' -C wakebench-test-host -f "$K/host" || fail "ssh-keygen host key"
ssh-keygen -q -t ed25519 -N '' -C wakebench-test-login -f "$K/login" || fail "ssh-keygen login key"
cp "$K/login.pub" "$K/authorized_keys"
chmod 600 "$K/authorized_keys"
# Debian's sshd needs its privilege separation directory
if [ ! -d /run/sshd ]; then
	mkdir -m 755 /run/sshd && MADE_RUNSSHD=1
fi

ip link add "$br" type bridge || fail "bridge"
ip addr add $net.1/24 dev "$br"
ip link set "$br" up
SW="$TMP/sw"
mkdir -p "$SW"
for i in 1 2; do
	n=${ns}n$i
	ip netns add "$n" || fail "netns $n"
	NS_MADE+=("$n")
	ip link add ${ns}h$i type veth peer name ${ns}p$i || fail "veth"
	ip link set ${ns}p$i netns "$n"
	ip link set ${ns}h$i master "$br" up
	ip -n "$n" addr add $net.1$i/24 dev ${ns}p$i
	ip -n "$n" link set ${ns}p$i up
	ip -n "$n" link set lo up
	cat > "$K/sshd$i.conf" <<EOF
ListenAddress $net.1$i
Port 22
HostKey $K/host
PidFile $K/sshd$i.pid
AuthorizedKeysFile $K/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
UseDNS no
LogLevel ERROR
EOF
	if [ $i = 1 ]; then
		ip netns exec "$n" /usr/sbin/sshd -D -e -f "$K/sshd$i.conf" -h "$K/host" \
			2> "$TMP/sshd$i.log" &
	else
		# its own mount namespace, a tmpfs over the sweep directory:
		# a host that does not see DIR
		ip netns exec "$n" unshare -m --propagation private sh -c \
			'mount -t tmpfs wakebench-test "$1" && exec /usr/sbin/sshd -D -e -f "$2" -h "$3"' \
			sh "$SW" "$K/sshd$i.conf" "$K/host" 2> "$TMP/sshd$i.log" &
	fi
	SSHD_PIDS+=($!)
done
SSH=(ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
	-o LogLevel=ERROR -o ConnectTimeout=10 -i "$K/login")
for i in 1 2; do
	up=0
	for _ in $(seq 100); do
		"${SSH[@]}" root@$net.1$i true 2>/dev/null && { up=1; break; }
		kill -0 "${SSHD_PIDS[i - 1]}" 2>/dev/null || break
		sleep 0.2
	done
	[ $up = 1 ] || fail "sshd $i did not take a login: $(tail -3 "$TMP/sshd$i.log")"
done
# the tmpfs is there for agent 2 only
"${SSH[@]}" root@$net.12 test -d "$SW" || fail "namespace 2 sees no $SW"
touch "$SW/seen"
"${SSH[@]}" root@$net.11 test -e "$SW/seen" || fail "namespace 1 does not see $SW"
"${SSH[@]}" root@$net.12 test -e "$SW/seen" && fail "namespace 2 sees $SW (no private mount)"
rm -f "$SW/seen"

A1="${SSH[*]} root@$net.11"
A2="${SSH[*]} root@$net.12"
port=$(test_port 40)
OUT="$SW/out"
"$WB" sweep --out "$OUT" --client-exec "$A1" --client-exec "$A2" \
	--server-addr $net.1 --server-port "$port" --server-cpu 0 --client-cpu 1 \
	--dist fixed --interval-us 1000 --requests 401 --prequery "off 50" --reps 1 --wait sleep \
	> "$TMP/sweep.out" 2> "$TMP/sweep.err" ||
	fail "sweep: $(tail -5 "$TMP/sweep.err"; tail -n 3 "$OUT"/*/rep-*/client-*.err)"

[ "$(awk -F, 'NR > 1 && $3 == "ok"' "$OUT/sweep.csv" | wc -l)" = 2 ] ||
	fail "runs not ok: $(cat "$OUT/sweep.csv") $(tail -5 "$TMP/sweep.err")"
for r in 1 2; do
	grep -q "^wakebench-sweep: \[$r/2\] .* rep 1 ok; .* elapsed, ETA " "$TMP/sweep.err" ||
		fail "no progress line $r/2: $(cat "$TMP/sweep.err")"
done
grep -q "2 client agents; start margin: 3 x " "$TMP/sweep.err" || fail "no start margin line"

start_at=0
"$WB" client --help | grep -q -- '--start-at' && start_at=1
for d in "$OUT"/*/rep-*; do
	rep=${d##*rep-}
	for k in 1 2; do
		for f in summary.csv requests.csv snapshot.json; do
			[ -s "$d/client-$k/$f" ] || fail "$d/client-$k/$f missing (agent $k's results not back)"
		done
	done
	# agent 2's copy on its host was removed after the copy back
	"${SSH[@]}" root@$net.12 test -e "$d/client-2" && fail "agent 2's $d/client-2 left on its host"
	# each agent: half the requests at half the rate, its own seed
	for k in 1 2; do
		[ "$(csv_col "$d/client-$k/summary.csv" interval_us)" = 2000.000 ] ||
			fail "agent $k's gap: $(csv_col "$d/client-$k/summary.csv" interval_us)"
	done
	grep -q -- '--requests 201 ' "$d/client-1/cmdline.txt" || fail "agent 1 requests: $(cat "$d/client-1/cmdline.txt")"
	grep -q -- '--requests 200 ' "$d/client-2/cmdline.txt" || fail "agent 2 requests: $(cat "$d/client-2/cmdline.txt")"
	[ "$(csv_col "$d/client-1/summary.csv" seed)" = $((1 + rep)) ] || fail "agent 1 seed"
	[ "$(csv_col "$d/client-2/summary.csv" seed)" = $((1 + rep + 4294967296)) ] || fail "agent 2 seed"
	# the merged run: counts summed
	m="$d/client/summary.csv"
	[ "$(csv_col "$m" agents)" = 2 ] || fail "$m: agents"
	c1=$(csv_col "$d/client-1/summary.csv" count) c2=$(csv_col "$d/client-2/summary.csv" count)
	[ "$(csv_col "$m" count)" = $((c1 + c2)) ] || fail "$m: count $(csv_col "$m" count) != $c1 + $c2"
	for c in errors unanswered late_sends prequeries_sent; do
		s=$(( $(csv_col "$d/client-1/summary.csv" $c) + $(csv_col "$d/client-2/summary.csv" $c) ))
		[ "$(csv_col "$m" $c)" = $s ] || fail "$m: $c $(csv_col "$m" $c) != $s"
	done
	[ "$(csv_col "$m" interval_us)" = 1000.000 ] || fail "$m: aggregate gap $(csv_col "$m" interval_us)"
	[ "$(csv_col "$m" rate_target)" = 1000.000 ] || fail "$m: aggregate rate $(csv_col "$m" rate_target)"
	[ "$(($(wc -l < "$d/client/requests.csv") - 1))" = 401 ] || fail "merged requests.csv rows"
	# every percentile, min, max and the average recomputed here from the
	# agents' rows (nearest rank: the value at rank ceil(p*n))
	for k in 1 2; do
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
			$h["status"] == "ok" { print $h["latency_ns"] }' "$d/client-$k/requests.csv"
	done | sort -n > "$TMP/lat"
	n=$(wc -l < "$TMP/lat")
	[ "$n" = "$(csv_col "$m" count)" ] || fail "ok rows $n != merged count"
	for pc in p50:0.5 p90:0.9 p99:0.99 p999:0.999 p95:0.95 p9999:0.9999; do
		rank=$(awk -v p=${pc#*:} -v n=$n 'BEGIN { r = p * n; c = int(r); if (c < r - 1e-9) c++; if (c < 1) c = 1; print c }')
		want=$(sed -n "${rank}p" "$TMP/lat" | awk '{ printf "%.3f", $1 / 1000 }')
		got=$(csv_col "$m" lat_${pc%%:*}_us)
		[ "$got" = "$want" ] || fail "$m: lat_${pc%%:*}_us $got, recomputed $want (rank $rank of $n)"
	done
	[ "$(csv_col "$m" lat_min_us)" = "$(head -1 "$TMP/lat" | awk '{ printf "%.3f", $1 / 1000 }')" ] || fail "$m: min"
	[ "$(csv_col "$m" lat_max_us)" = "$(tail -1 "$TMP/lat" | awk '{ printf "%.3f", $1 / 1000 }')" ] || fail "$m: max"
	approx "$(csv_col "$m" lat_avg_us)" "$(awk '{ s += $1 } END { printf "%.6f", s / NR / 1000 }' "$TMP/lat")" 0.002 ||
		fail "$m: avg"
	# one agreed start: the namespaces share this host's CLOCK_MONOTONIC,
	# so with fixed gaps agent 2's first intended send is one configured
	# gap after agent 1's (their schedules interleave), within 0.5 ms
	if [ $start_at = 1 ]; then
		f1=$(csv_col "$d/client-1/requests.csv" intended_ns | head -1)
		f2=$(csv_col "$d/client-2/requests.csv" intended_ns | head -1)
		approx $((f2 - f1)) 1000000 500000 || fail "agents did not start together: $((f2 - f1)) ns apart"
	fi
done
# sweep.csv is the merged rows', the medians too
[ "$(awk -F, 'NR > 1 { s += $12 } END { print s }' "$OUT/sweep.csv")" = 802 ] ||
	fail "sweep.csv counts: $(cut -d, -f1-12 "$OUT/sweep.csv")"
[ -s "$OUT/summary.csv" ] || fail "no summary.csv"
[ $start_at = 1 ] || echo "note: this client has no --start-at yet: the common start was not checked"

# an agent that cannot be reached: refused before any run, named
"$WB" sweep --out "$SW/bad" --client-exec "$A1" \
	--client-exec "${SSH[*]} -o ConnectTimeout=2 root@$net.99" --server-addr $net.1 \
	--server-port "$port" --requests 10 --reps 1 > /dev/null 2> "$TMP/bad.err"
[ $? = 1 ] || fail "an unreachable agent was not refused"
grep -q "client agent 2 (.*$net.99')" "$TMP/bad.err" || fail "unreachable agent not named: $(cat "$TMP/bad.err")"
[ -z "$(ls "$SW/bad" | grep -v -e plan.txt -e sweep.spec -e cmdline.txt)" ] || fail "a run was made with an unreachable agent"

# everything goes, checked here before the guard does
teardown
trap - EXIT
for i in 1 2; do ip netns list | grep -q "^${ns}n$i\\b" && fail "namespace $i left"; done
ip link show "$br" > /dev/null 2>&1 && fail "bridge left"
pgrep -f "sshd.*$K" > /dev/null && fail "sshd left"
[ -e "$TMP" ] && fail "keys left in $TMP"
exit 0
