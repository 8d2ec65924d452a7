# A signal mid-export or mid-import leaves no temporary file (issue 30
# §10): SIGTERM, SIGINT and SIGHUP while trace export --format socwatch
# writes a large .FILE.partial, while trace export --format trace.dat
# works, and while trace import writes its .cpuN.raw.partial files. The
# command dies of the signal, no .partial remains, and a rerun works
# (the import's DIR is not left "not empty").
. "$(dirname "$0")/lib.sh"
GEN="$WB_TOOLS/wb-tracegen"
t() { local s=$1; shift; timeout "$s" "$@"; }

t 120 "$GEN" "$TMP/big" 1500000 3 1 > /dev/null || fail "wb-tracegen"
t 120 "$WB" trace export "$TMP/big" --format socwatch --out "$TMP/big.csv" > /dev/null 2>&1 ||
	fail "export of the big trace"
partials() { find "$1" -maxdepth 1 -name '.*.partial*' -o -maxdepth 1 -name '.*.tdat-*' | grep -c . || true; }
# A background job of a script starts with SIGINT ignored (bash): DFL
# runs it with the signals' default actions, as a terminal would (a
# command, not a function: $! must be the command's own PID).
DFL="env --default-signal=INT,QUIT"
# wait_file GLOB: until a file matching appears (5 s)
wait_file() { for _ in $(seq 500); do compgen -G "$1" > /dev/null && return 0; sleep 0.01; done; return 1; }

for sig in TERM INT HUP; do
	# ---- export, SocWatch: the .partial grows to ~250 MB ----
	mkdir -p "$TMP/ex"
	$DFL "$WB" trace export "$TMP/big" --format socwatch --out "$TMP/ex/s.csv" > /dev/null 2>&1 &
	p=$!
	wait_file "$TMP/ex/.s.csv.partial" || fail "SIG$sig: export made no .partial"
	sleep 0.1
	kill -$sig $p
	wait $p; rc=$?
	[ $rc -gt 128 ] || fail "SIG$sig export: exit $rc (finished before the signal?)"
	[ "$(partials "$TMP/ex")" = 0 ] || fail "SIG$sig export left: $(ls -a "$TMP/ex")"
	[ ! -e "$TMP/ex/s.csv" ] || fail "SIG$sig export: s.csv written"

	# ---- import: DIR with .cpuN.raw.partial ----
	rm -rf "$TMP/imp"
	$DFL "$WB" trace import "$TMP/big.csv" --format socwatch --out "$TMP/imp" > /dev/null 2>&1 &
	p=$!
	wait_file "$TMP/imp/.cpu0.raw.partial" || fail "SIG$sig: import made no .cpu0.raw.partial"
	sleep 0.1
	kill -$sig $p
	wait $p; rc=$?
	[ $rc -gt 128 ] || fail "SIG$sig import: exit $rc (finished before the signal?)"
	[ "$(partials "$TMP/imp")" = 0 ] || fail "SIG$sig import left: $(ls -a "$TMP/imp")"
	[ ! -e "$TMP/imp/meta.txt" ] || fail "SIG$sig import: meta.txt written"
done
# reruns work: the import's DIR is not "not empty", the export has no leftover
t 120 "$WB" trace import "$TMP/big.csv" --format socwatch --out "$TMP/imp" > "$TMP/o" 2>&1 ||
	fail "import rerun: $(cat "$TMP/o")"
t 120 "$WB" trace export "$TMP/big" --format socwatch --out "$TMP/ex/s.csv" > "$TMP/o" 2>&1 ||
	fail "export rerun: $(cat "$TMP/o")"

# ---- export, trace.dat (its own cleanup, kept) ----
"$WB" trace export "$TMP/big" --format trace.dat --out "$TMP/ex/t.dat" > /dev/null 2>&1 &
p=$!
wait_file "$TMP/ex/.t.dat.tdat-*" || wait_file "$TMP/ex/.t.dat.partial" || fail "trace.dat export made no temporary"
sleep 0.2
kill -TERM $p
wait $p
[ "$(partials "$TMP/ex")" = 0 ] || fail "SIGTERM trace.dat export left: $(ls -a "$TMP/ex")"
exit 0
