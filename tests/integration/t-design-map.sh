# docs/DESIGN.md's map is the folder tree (issue 32): every folder of
# lib/ has its row in the module table and a README.md; every module of
# lib/ (a .c or .h file's name) is named in the row of its folder's table
# in DESIGN.md and in that folder's README.md; every program folder (a
# top-level folder with a main()) is in DESIGN.md's Layout table; no .c
# file sits in lib/ itself; nothing the map names is missing from the
# tree. All problems are listed before the test fails.
. "$(dirname "$0")/lib.sh"
cd "$WB_TOP" || fail "no $WB_TOP"
D=docs/DESIGN.md
nerr=0
err() { echo "FAIL: $*"; nerr=$((nerr + 1)); }

# the lib/ module table: from "## lib/ modules" to the next "## "
awk '/^## lib\/ modules/ { p = 1; next } /^## / { p = 0 } p' "$D" > "$TMP/libmap"
[ -s "$TMP/libmap" ] || fail "$D has no '## lib/ modules' section"

n=$(find lib -maxdepth 1 -type f -name '*.c' | wc -l)
[ "$n" = 0 ] || err "$n .c files directly in lib/: $(find lib -maxdepth 1 -name '*.c' | head -3)"

# section DIR: the rows of lib/DIR/'s part of the table
section() {
	awk -v h="**\`lib/$1/\`" 'index($0, "| " h) == 1 { p = 1; next }
		/^\| \*\*`lib\// { p = 0 } p' "$TMP/libmap"
}

for dir in lib/*/; do
	dir=${dir%/}; sub=${dir#lib/}
	[ -f "$dir/README.md" ] || err "$dir has no README.md"
	section "$sub" > "$TMP/sec"
	[ -s "$TMP/sec" ] || { err "$D: no rows for $dir/ (a '| **\`$dir/\`' line)"; continue; }
	for m in $(ls "$dir" | sed -n 's/\.[ch]$//p' | sort -u); do
		grep -q "^| [^|]*\`$m\`" "$TMP/sec" || err "$D: module $m ($dir/$m.*) not in $dir/'s rows"
		[ -f "$dir/README.md" ] && ! grep -q "\`$m\`" "$dir/README.md" &&
			err "$dir/README.md does not name module $m"
	done
	# and back: every module the rows name is a file of the folder
	grep -o '^| [^|]*' "$TMP/sec" | grep -o '`[a-z_0-9]*`' | tr -d '`' | sort -u |
	while read -r m; do
		[ -e "$dir/$m.c" ] || [ -e "$dir/$m.h" ] || echo "$m"
	done > "$TMP/gone"
	while read -r m; do err "$D names module $m under $dir/, which has no $m.c or $m.h"; done < "$TMP/gone"
done
# every folder the table has exists
grep -o '^| \*\*`lib/[a-z]*/`' "$TMP/libmap" | grep -o 'lib/[a-z]*' | while read -r dir; do
	[ -d "$dir" ] || echo "$dir"
done > "$TMP/gone"
while read -r d; do err "$D has rows for $d/, which does not exist"; done < "$TMP/gone"

# program folders: top-level folders holding a main()
awk '/^## Layout/ { p = 1; next } /^## / { p = 0 } p' "$D" > "$TMP/layout"
for dir in */; do
	dir=${dir%/}
	case $dir in lib|tests|bench|build*|results|O) continue ;; esac
	ls "$dir"/*.c > /dev/null 2>&1 || continue
	grep -qs '^int main(' "$dir"/*.c || continue
	grep -q "^| \`$dir/\` |" "$TMP/layout" || err "$D Layout: program folder $dir/ missing"
done
grep -o '^| `[a-z-]*/` |' "$TMP/layout" | grep -o '[a-z-]*/' | while read -r dir; do
	[ -d "$dir" ] || echo "$dir"
done > "$TMP/gone"
while read -r d; do err "$D Layout names $d, which does not exist"; done < "$TMP/gone"

[ $nerr = 0 ] || fail "$nerr problems"
echo ok
