# The trace record example in the form of docs/tracing.md (build/bin is this
# build; t-readme runs the guide's own text), and the example as it once
# was ('kill %1' in sh: no job control, so the server is never
# killed). Either way trace record stops what the command left running,
# removes its tracefs instance, and the port is free again.
. "$(dirname "$0")/lib.sh"
need_tracefs
# Processes whose working directory is $1 (what the example started).
procs_in() { for p in /proc/[0-9]*; do [ "$(readlink "$p/cwd" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"; done; }
listening() { grep -qi ":$(printf '%04X' "$1") 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null; }

mkdir -p "$TMP/ex/build"
ln -s "$WB_BIN" "$TMP/ex/build/bin"
EX="$TMP/ex"
cd "$EX"
# ---- the corrected example, verbatim -------------------------------------
cat > example.sh <<'EXAMPLE'
build/bin/wakebench trace record --out trace-run -- sh -c '
    rm -f srv.port
    build/bin/wakebench server --cpu 0 --port 0 --port-file srv.port --log srv.csv --trace-markers & srv=$!
    while [ ! -s srv.port ]; do sleep 0.1; done
    build/bin/wakebench client --server 127.0.0.1:$(cat srv.port) --requests 2000 --trace-markers --out run; rc=$?
    kill $srv; wait $srv; exit $rc'
EXAMPLE
timeout 120 sh example.sh > ex.out 2> ex.err; rc=$?
cd /	# so that only what the example started has its directory as cwd
[ $rc = 0 ] || fail "the example failed (exit $rc): $(tail -5 "$EX/ex.err")"
grep -q 'No such process' "$EX/ex.err" && fail "the example's kill failed: $(cat "$EX/ex.err")"
grep -q 'left pid' "$EX/ex.err" && fail "the example left a process for trace record to stop: $(cat "$EX/ex.err")"
[ "$(instances)" = 0 ] || fail "instance left behind"
[ -z "$(procs_in "$TMP/ex")" ] || fail "processes left: $(procs_in "$TMP/ex")"
port=$(cat "$EX/srv.port")
listening "$port" && fail "port $port still listening"
cd "$EX"
[ "$(($(wc -l < run/requests.csv) - 1))" = 2000 ] || fail "client rows"
"$WB" trace attribute trace-run --requests srv.csv --cpu 0 --client run/requests.csv > attr.out ||
	fail "attribute on the example's trace"

# ---- the old example: the server outlives the command --------------------
rm -rf trace-run srv.port
timeout 120 "$WB" trace record --out trace-run -- sh -c '
    "$0" server --cpu 0 --port 0 --port-file srv.port --log srv.csv --trace-markers & sleep 1
    "$0" client --server 127.0.0.1:$(cat srv.port) --requests 200 --out run; kill %1' "$WB" > old.out 2> old.err
rc=$?
cd /
[ $rc = 124 ] && fail "record hung on a command that left its server running"
grep -q 'left pid [0-9]* (wakebench-serv' "$EX/old.err" || fail "leftover server not reported: $(cat "$EX/old.err")"
[ "$(instances)" = 0 ] || fail "instance left behind by the old example"
wait_for '[ -z "$(procs_in "$TMP/ex")" ]' || fail "old example: processes left: $(procs_in "$TMP/ex")"
port=$(cat "$EX/srv.port")
listening "$port" && fail "old example: port $port still listening"
"$WB" trace timeline "$EX/trace-run" > /dev/null || fail "old example's trace not readable"
exit 0
