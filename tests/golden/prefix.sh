#!/bin/bash
# tests/golden/prefix.sh RELEASED NOW: CSV columns are only ever appended,
# never inserted, reordered or removed: users' scripts index them by
# position. RELEASED and NOW are csv-headers.txt files (headers.sh): every
# CSV header of RELEASED (the .json key lists are left out: read by name)
# must be, column for column, the start of NOW's header of the same file.
# Prints each that is not, with the first column that moved; exit 1 then.
# t-golden checks every tests/golden/released/csv-headers-<commit>.txt (a
# release's: git show <commit>:tests/golden/expected/csv-headers.txt)
# against today's headers; a new release adds its file there.
set -u
[ $# = 2 ] || { echo "usage: prefix.sh RELEASED NOW" >&2; exit 2; }
for f in "$1" "$2"; do
	[ -r "$f" ] || { echo "prefix.sh: cannot read $f" >&2; exit 2; }
done
awk -v rel="$1" '
	function label(line) { return substr(line, 1, index(line, ": ") - 1) }
	function cols(line) { return substr(line, index(line, ": ") + 2) }
	NR == FNR { if (index($0, ": ")) now[label($0)] = cols($0); next }
	!index($0, ": ") || label($0) ~ /\.json$/ { next }
	{
		name = label($0)
		if (!(name in now)) {
			printf "%s: %s is gone\n", rel, name
			bad = 1
			next
		}
		n = split(cols($0), o, ",")
		m = split(now[name], c, ",")
		for (i = 1; i <= n; i++)
			if (i > m || o[i] != c[i]) {
				printf "%s: column %d was %s, is now %s: insert or reorder, only append\n",
				       name, i, o[i], (i > m ? "gone" : c[i])
				bad = 1
				break
			}
	}
	END { exit bad }
' "$2" "$1"
