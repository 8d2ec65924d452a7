# wakebench sweep: every value that is data is checked for its type before
# the first run and never reaches a shell as code (issue 21 §1, §6): a
# hostile --server-addr or spec value fails with exit 2 naming the key
# and runs nothing; the defaults put the server on CPU 0; sweep.csv
# carries the behind-schedule columns. --resume uses the spec the sweep
# recorded and refuses different values (§5); a port held by a stray
# process stops the sweep naming it, instead of measuring that process.
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
	--server-port "$(test_port 0)" --reps 1 --requests 50 > "$TMP/ok.out" 2>&1 ||
	fail "sweep: $(tail -5 "$TMP/ok.out")"
grep -qx 'server-cpu = 0' "$TMP/ok/sweep.spec" || fail "server CPU default: $(cat "$TMP/ok/sweep.spec")"
if [ "$(nproc)" -gt 1 ]; then grep -qx 'client-cpu = 1' "$TMP/ok/sweep.spec" || fail "client CPU default"; fi
head -1 "$TMP/ok/sweep.csv" | grep -q ',dir,behind_schedule,behind_reason,tiers,' || fail "sweep.csv header: $(head -1 "$TMP/ok/sweep.csv")"
[ "$(awk -F, 'NR > 1 && $3 == "ok"' "$TMP/ok/sweep.csv" | wc -l)" = 1 ] || fail "run not ok: $(cat "$TMP/ok/sweep.csv")"
grep -q 'cover' "$TMP/ok.out" || fail "closing table has no coverage column: $(cat "$TMP/ok.out")"
# --client-cpu 0 alone moves the server off it.
"$WB" sweep --out "$TMP/ok2" --client-cpu 0 --server-port "$(test_port 100)" --reps 1 --requests 20 > /dev/null 2>&1 || fail "sweep --client-cpu 0"
if [ "$(nproc)" -gt 1 ]; then grep -qx 'server-cpu = 1' "$TMP/ok2/sweep.spec" || fail "server CPU with --client-cpu 0"; fi

# --resume reads the spec recorded in DIR/sweep.spec (issue 21 §5): with
# no options the resumed run keeps service_us 5 and requests 20; a value
# that differs is refused (exit 2, naming the key and both values) and
# sweep.csv stays as it was.
P=$(test_port 2000)
"$WB" sweep --out "$TMP/r" --prequery "off 20" --reps 1 --requests 20 --interval-us 500 \
	--service-us 5 --server-port $P > "$TMP/r.out" 2>&1 || fail "resume sweep: $(tail -3 "$TMP/r.out")"
rm -rf "$TMP/r/dist-exp_int-500_pq-20_wu-0_cs-on_svc-5/rep-1"
"$WB" sweep --out "$TMP/r" --resume > "$TMP/r2.out" 2>&1 || fail "resume: $(tail -3 "$TMP/r2.out")"
grep -q '2 runs planned: 1 run now, 1 already complete' "$TMP/r2.out" || fail "resume: $(cat "$TMP/r2.out")"
[ "$(csv_col "$TMP/r/sweep.csv" service_us | sort -u)" = 5 ] || fail "resume lost service_us: $(cat "$TMP/r/sweep.csv")"
[ "$(csv_col "$TMP/r/sweep.csv" requests | sort -u)" = 20 ] || fail "resume lost requests: $(cat "$TMP/r/sweep.csv")"
[ "$(csv_col "$TMP/r/sweep.csv" status | sort -u)" = ok ] || fail "resumed runs not ok: $(cat "$TMP/r/sweep.csv")"
[ -s "$TMP/r/dist-exp_int-500_pq-20_wu-0_cs-on_svc-5/rep-1/client/summary.csv" ] || fail "deleted run not redone"
sum=$(md5sum < "$TMP/r/sweep.csv")
out=$("$WB" sweep --out "$TMP/r" --resume --requests 30 2>&1); rc=$?
[ $rc = 2 ] || fail "resume --requests 30: exit $rc: $out"
echo "$out" | grep -q "requests: recorded '20', given '30'" || fail "resume --requests 30: message: $out"
[ "$(md5sum < "$TMP/r/sweep.csv")" = "$sum" ] || fail "refused resume changed sweep.csv"
printf 'service_us = 7\n' > "$TMP/rspec"
out=$("$WB" sweep --out "$TMP/r" --resume --spec "$TMP/rspec" 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "service-us: recorded '5', given '7'" || fail "resume --spec: exit $rc: $out"
# the same values are fine, and a type error is still a type error
"$WB" sweep --out "$TMP/r" --resume --requests 20 --service-us 5 --server-port $P > /dev/null 2>&1 ||
	fail "resume with the recorded values"
out=$("$WB" sweep --out "$TMP/r" --resume --seed 1.5 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "invalid seed '1.5'" || fail "resume --seed 1.5: exit $rc: $out"
[ "$(md5sum < "$TMP/r/sweep.csv")" = "$sum" ] || fail "refused resume changed sweep.csv"
# A plan.txt edited by someone else is data from disk: a line that is not
# one of the recorded spec's runs (a path outside DIR, arithmetic that runs
# a command) is refused before anything is removed or run.
mkdir -p "$TMP/victim/rep-1" && touch "$TMP/victim/rep-1/keep"
cp "$TMP/r/plan.txt" "$TMP/plan.orig"
for bad in "../victim 1 exp 1000 off 0 on 5" \
	"dist-exp_int-1000_pq-off_wu-0_cs-on_svc-5 a[\$(touch $M)] exp 1000 off 0 on 5"; do
	{ cat "$TMP/plan.orig"; echo "$bad"; } > "$TMP/r/plan.txt"
	out=$("$WB" sweep --out "$TMP/r" --resume 2>&1); rc=$?
	[ $rc = 1 ] && echo "$out" | grep -q "is not the plan of" || fail "edited plan '$bad': exit $rc: $out"
	[ -e "$TMP/victim/rep-1/keep" ] || fail "edited plan '$bad' removed a directory outside DIR"
	[ -e "$M" ] && fail "edited plan '$bad' ran a command"
done
cp "$TMP/plan.orig" "$TMP/r/plan.txt"
# nothing to resume: a clear error, nothing run
mkdir -p "$TMP/empty"
out=$("$WB" sweep --out "$TMP/empty" --resume 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'cannot resume .*no sweep.spec and plan.txt' || fail "resume of nothing: exit $rc: $out"
[ -e "$TMP/empty/plan.txt" ] && fail "resume of nothing wrote a plan"

# A stray listener on the request port (a python socket) or on the
# pre-query port (a wakebench server): the sweep stops naming it, reports
# no run ok, and leaves the stray alone (issue 21 §5).
H=$(test_port 4000)
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); time.sleep(120)' $H &
stray=$!
for _ in $(seq 500); do ss -Hltn "sport = :$H" | grep -q . && break; sleep 0.02; done
ss -Hltn "sport = :$H" | grep -q . || fail "stray listener did not start"
out=$("$WB" sweep --out "$TMP/h" --reps 1 --requests 20 --server-port $H 2>&1); rc=$?
[ $rc != 0 ] || fail "sweep measured a stray listener: $out"
echo "$out" | grep -q "127.0.0.1:$H held by python3 (pid $stray)" || fail "holder not named: $out"
[ -e "$TMP/h/sweep.csv" ] && grep -q ',ok,' "$TMP/h/sweep.csv" && fail "a run reported ok: $(cat "$TMP/h/sweep.csv")"
ls "$TMP"/h/*/rep-*/client/summary.csv > /dev/null 2>&1 && fail "a run was measured"
kill -0 $stray 2>/dev/null || fail "the stray listener was stopped"
ss -Hltn "sport = :$H" | grep -q . || fail "the stray listener lost its socket"
kill $stray; wait $stray 2>/dev/null
# the pre-query port (PORT+1) held by another wakebench server
"$WB" server --bind 127.0.0.1 --port $((H + 1)) -q 2>/dev/null &
stray=$!
for _ in $(seq 250); do ss -Hltn "sport = :$((H + 1))" | grep -q . && break; sleep 0.02; done
out=$("$WB" sweep --out "$TMP/h" --resume 2>&1); rc=$?
[ $rc != 0 ] && echo "$out" | grep -q ":$((H + 1)) held by wakebench-serv.* (pid $stray)" || fail "pre-query port holder: exit $rc: $out"
kill -0 $stray 2>/dev/null || fail "the stray server was stopped"
kill $stray; wait $stray 2>/dev/null
# then, the ports free, the same sweep resumes and measures.
"$WB" sweep --out "$TMP/h" --resume > "$TMP/h.out" 2>&1 || fail "sweep on a free port: $(tail -3 "$TMP/h.out")"
[ "$(csv_col "$TMP/h/sweep.csv" status)" = ok ] || fail "sweep on a free port: $(cat "$TMP/h/sweep.csv")"
grep -qx "$H $((H + 1))" "$TMP/h/dist-exp_int-1000_pq-off_wu-0_cs-on_svc-0/rep-1/server.port" || fail "no port file in the run dir"
exit 0
