#!/bin/bash
# Rewrites tests/golden/expected from the current build: only for an
# intended change of --help, a usage message or a CSV header.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$here/expected"
"$here/run.sh" "$here/expected"
"$here/headers.sh" > "$here/expected/csv-headers.txt"
echo "tests/golden/expected: $(ls "$here/expected" | wc -l) files"
# CSV columns are only appended: the released headers must start the new
for f in "$here"/released/csv-headers-*.txt; do
	"$here/prefix.sh" "$f" "$here/expected/csv-headers.txt"
done
