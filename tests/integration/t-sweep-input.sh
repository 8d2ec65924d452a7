# wakebench sweep: every value that is data is checked for its type before
# the first run and never reaches a shell as code (issue 21 §1, §6): a
# hostile --server-addr or spec value fails with exit 2 naming the key
# and runs nothing; the defaults put the server on CPU 0; sweep.csv
# carries the behind-schedule columns.
. "$(dirname "$0")/lib.sh"
M="$TMP/marker"
hostile=(
	"--server-addr=127.0.0.1/1;touch $M;#"
	"--server-addr=\$(touch $M)"
	"--server-bind=127.0.0.1;touch $M"
	"--server-port=17000;touch $M"
	"--seed=a[\$(touch $M)]"
	"--seed=1.5"
	"--seed=010"
	"--reps=0"
	"--requests=1e3"
	"--window=-1"
	"--wait=spin;touch $M"
	"--cstates=max-latency-us=1;touch $M"
	"--client-cpu=99"
	"--server-cpu=0;touch $M"
	"--server-port=65535"
	"--interval-us=*"
	"--rate=0"
	"--warmup=1.5"
	"--dist="
	"--prequery= "
)
for h in "${hostile[@]}"; do
	key=${h%%=*} val=${h#*=}
	out=$("$WB" sweep --out "$TMP/s" --reps 1 --requests 20 "$key" "$val" 2>&1); rc=$?
	[ $rc = 2 ] || fail "$key '$val': exit $rc: $out"
	k=${key#--}
	echo "$out" | grep -q "invalid ${k//-/_} '" || fail "$key '$val': message does not name the key: $out"
	[ -e "$M" ] && fail "$key '$val' ran a command"
	[ -e "$TMP/s/plan.txt" ] && fail "$key '$val': a plan was written"
done
# The same through a spec file, and an empty list there.
for line in "server-addr = 127.0.0.1/1;touch $M;#" "seed = 1.5" "dist =" "reps = 2 3"; do
	printf '%s\n' "requests = 20" "$line" > "$TMP/spec"
	out=$("$WB" sweep --out "$TMP/s" --spec "$TMP/spec" 2>&1); rc=$?
	[ $rc = 2 ] || fail "spec '$line': exit $rc: $out"
	k=${line%% *}
	echo "$out" | grep -q "invalid ${k//-/_} '" || fail "spec '$line': message: $out"
	[ -e "$M" ] && fail "spec '$line' ran a command"
done
# A remote-capable prefix: DIR must be a plain path then.
out=$("$WB" sweep --out "$TMP/a;touch $M" --server-exec env --reps 1 2>&1); rc=$?
[ $rc = 2 ] && [ ! -e "$M" ] || fail "--server-exec with a hostile --out: exit $rc: $out"

# A real (small) sweep with a host name: it runs, the server is on CPU 0
# and the client on another, and sweep.csv has the behind columns.
"$WB" sweep --out "$TMP/ok" --server-addr localhost --server-bind 127.0.0.1 \
	--server-port $((20000 + $$ % 20000)) --reps 1 --requests 50 > "$TMP/ok.out" 2>&1 ||
	fail "sweep: $(tail -5 "$TMP/ok.out")"
grep -qx 'server-cpu = 0' "$TMP/ok/sweep.spec" || fail "server CPU default: $(cat "$TMP/ok/sweep.spec")"
if [ "$(nproc)" -gt 1 ]; then grep -qx 'client-cpu = 1' "$TMP/ok/sweep.spec" || fail "client CPU default"; fi
head -1 "$TMP/ok/sweep.csv" | grep -q ',dir,behind_schedule,behind_reason$' || fail "sweep.csv header: $(head -1 "$TMP/ok/sweep.csv")"
[ "$(awk -F, 'NR > 1 && $3 == "ok"' "$TMP/ok/sweep.csv" | wc -l)" = 1 ] || fail "run not ok: $(cat "$TMP/ok/sweep.csv")"
grep -q 'cover' "$TMP/ok.out" || fail "closing table has no coverage column: $(cat "$TMP/ok.out")"
# --client-cpu 0 alone moves the server off it.
"$WB" sweep --out "$TMP/ok2" --client-cpu 0 --server-port $((20100 + $$ % 20000)) --reps 1 --requests 20 > /dev/null 2>&1 || fail "sweep --client-cpu 0"
if [ "$(nproc)" -gt 1 ]; then grep -qx 'server-cpu = 1' "$TMP/ok2/sweep.spec" || fail "server CPU with --client-cpu 0"; fi
exit 0
