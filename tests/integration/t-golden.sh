# The interface users' scripts rely on, fixed before the refactoring of
# issue 14: every --help, the usage error messages (with their exit
# status) and the header of every CSV output (and the summary.json keys)
# equal tests/golden/expected. An intended change regenerates them with
# tests/golden/update.sh.
. "$(dirname "$0")/lib.sh"
G="$WB_TOP/tests/golden"
"$G/run.sh" "$TMP/got" || fail "golden cases did not run"
"$G/headers.sh" > "$TMP/got/csv-headers.txt" 2>"$TMP/headers.err" ||
	fail "headers: $(cat "$TMP/headers.err")"
n=0
for f in "$G"/expected/*.out "$G"/expected/csv-headers.txt; do
	name=$(basename "$f")
	[ -f "$TMP/got/$name" ] || fail "no output for $name"
	if ! diff -u "$f" "$TMP/got/$name" > "$TMP/diff"; then
		head -40 "$TMP/diff" >&2
		fail "$name differs from tests/golden/expected (tests/golden/update.sh if intended)"
	fi
	n=$((n + 1))
done
# every case has its expected file
[ "$(ls "$TMP/got" | wc -l)" = "$(ls "$G/expected" | wc -l)" ] ||
	fail "cases without expected output: $(cd "$TMP/got" && ls | grep -vxFf <(ls "$G/expected"))"
echo "$n golden outputs equal"
