# stats --merge refuses an OUTDIR that is one of its agents and an agent
# given twice (issue 30 §7), compared by device and inode: a1, ./a1, a1/
# and a link to a1 are the same directory. Exit 1, a message naming both,
# and the agents' own files untouched.
. "$(dirname "$0")/lib.sh"
start_server
for a in a1 a2; do
	"$WB" client --server 127.0.0.1:$PORT --requests 100 --interval-us 500 --out "$TMP/$a" -q \
		2> "$TMP/o" || fail "client: $(cat "$TMP/o")"
done
stop_server || fail "server: $(cat "$SERVER_ERR")"
ln -s a1 "$TMP/link1"
cd "$TMP" || fail "cd"
sum1=$(cat a1/*.csv a1/summary.* | md5sum)
# refused CASE WANT ARGS...: exit 1, WANT in the message, a1 unchanged
refused() {
	local what=$1 want=$2 out rc
	shift 2
	out=$("$WB" stats --merge "$@" 2>&1); rc=$?
	[ $rc = 1 ] || fail "$what: exit $rc: $out"
	echo "$out" | grep -qF -- "$want" || fail "$what: message: $out"
	[ "$(cat a1/*.csv a1/summary.* | md5sum)" = "$sum1" ] || fail "$what: a1's files changed"
	[ ! -e a1/agents.csv ] || fail "$what: a merge was written into a1"
}
refused "OUTDIR = agent" "OUTDIR a1 is agent 1 (a1)" a1 a1 a2
refused "OUTDIR = agent 2" "OUTDIR a1 is agent 2 (a1)" a1 a2 a1
refused "OUTDIR ./a1/" "OUTDIR ./a1/ is agent 1 (a1)" ./a1/ a1 a2
refused "OUTDIR a link" "OUTDIR link1 is agent 2 (a1)" link1 a2 a1
refused "agent twice" "agent 2 (a1) is agent 1 (a1) again" m a1 a1
refused "agent ./a1" "agent 3 (./a1) is agent 1 (a1) again" m a1 a2 ./a1
refused "agent by a link" "agent 2 (link1) is agent 1 (a1) again" m a1 link1
[ ! -e m ] || fail "a refused merge made its OUTDIR"
# the same agents, once each: merged, counts not doubled
"$WB" stats --merge m a1 a2 > o 2>&1 || fail "a plain merge: $(cat o)"
[ "$(csv_col m/summary.csv count)" = 200 ] || fail "merged count: $(csv_col m/summary.csv count)"
exit 0
