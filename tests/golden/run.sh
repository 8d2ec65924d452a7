#!/bin/bash
# tests/golden/run.sh DIR: runs every case of tests/golden/cases with the
# build's wakebench ($WB_BIN, default build/bin) and writes DIR/NAME.out.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=${WB_BIN:-$top/${O:-build}/bin}
out=$1
mkdir -p "$out"
while read -r name args; do
	case $name in ''|'#'*) continue ;; esac
	read -r -a words <<< "$args"
	{
		"$bin/wakebench" "${words[@]}" < /dev/null > "$out/$name.stdout" 2> "$out/$name.stderr"
		echo "exit $?"
		echo "--- stdout"
		cat "$out/$name.stdout"
		echo "--- stderr"
		cat "$out/$name.stderr"
	} | sed "s|$bin/|WB_BIN/|g" > "$out/$name.out"
	rm -f "$out/$name.stdout" "$out/$name.stderr"
done < "$here/cases"
