# The interface users' scripts rely on, fixed before the refactoring of
# issue 14: every --help, the usage error messages (with their exit
# status) and the header of every CSV output (and the summary.json keys)
# equal tests/golden/expected. An intended change regenerates them with
# tests/golden/update.sh. CSV columns are only appended: the headers of a
# release (tests/golden/released) must start today's (prefix.sh).
. "$(dirname "$0")/lib.sh"
G="$WB_TOP/tests/golden"
"$G/run.sh" "$TMP/got" || fail "golden cases did not run"
"$G/headers.sh" > "$TMP/got/csv-headers.txt" 2>"$TMP/headers.err" ||
	fail "headers: $(cat "$TMP/headers.err")"
# columns only appended: every released CSV header (tests/golden/released,
# one csv-headers-<commit>.txt per release) starts today's
for f in "$G"/released/csv-headers-*.txt; do
	"$G/prefix.sh" "$f" "$TMP/got/csv-headers.txt" > "$TMP/prefix" 2>&1 ||
		fail "a CSV column inserted since $(basename "$f"): $(cat "$TMP/prefix")"
done
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
