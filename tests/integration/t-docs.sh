# The documentation lists what the programs take (issue 14): for every
# command, every long option its --help names (any --word in the help
# text, usage lines included) is in its man page, man/wakebench-CMD.1
# (troff escapes undone); every "-x, --long" pair of the help is on one
# line of the man page. The man pages are the option reference: the
# README and the guides in docs/ explain and point at them, and no
# longer list every option (issue 32), so they are not checked here. Every
# command's page has an EXIT STATUS section, and wakebench(1)'s SEE ALSO
# names every man/wakebench-*.1 page there is.
#
# The pages format without a troff warning (man --warnings at 80 and 60
# columns, groff -man -z -ww), and no word is hyphenated when rendered:
# a rendered line that ends in "WORD-" must join the next line's word
# into a hyphenated word the page really has (so "pre-" + "query_woke",
# a CSV column cut by hyphenation, fails; "wakebench-" + "cstate(1)"
# does not). Without man or groff that part is skipped with a message
# (Debian: man-db, groff-base), the rest still runs.
#
# MANDIR=DIR checks other man pages (default $WB_TOP/man).
# All problems are listed before the test fails.
. "$(dirname "$0")/lib.sh"

MANDIR=${MANDIR:-$WB_TOP/man}
CMDS="server client midtier cstate snapshot trace stats sweep report wake"
export LC_ALL=C
nerr=0
err() { echo "FAIL: $*"; nerr=$((nerr + 1)); }

# roff_text FILE: the page's source with the escapes that hide an option
# name undone (\- \% \: \& \fB \f(CW \f[..] \(aq \(dq \e).
roff_text() {
	sed -e 's/\\f[BIRPC]//g' -e 's/\\f([A-Z][A-Z]//g' -e 's/\\f\[[^]]*\]//g' \
	    -e 's/\\[%:&]//g' -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' \
	    -e 's/\\(dq/"/g' -e 's/\\(en/-/g' -e 's/\\e/\\/g' "$1"
}

# has_opt TEXTFILE OPT: OPT as a whole option name (--window is not
# --window-ms).
has_opt() { grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|\$)" "$1"; }

# help_opts: every --long name in the help text on stdin, once.
help_opts() { grep -oE -- '--[a-z][a-z0-9-]*[a-z0-9]' | sort -u; }

# help_pairs: "-x --long" for every "  -x, --long" line of the help.
help_pairs() { sed -nE 's/^ +(-[A-Za-z0-9]), (--[a-z][a-z0-9-]*).*/\1 \2/p'; }

for c in $CMDS; do
	page=$MANDIR/wakebench-$c.1
	help=$("$WB" "$c" --help 2>&1) || { err "wakebench $c --help exited $?"; continue; }
	opts=$(echo "$help" | help_opts)
	[ -n "$opts" ] || err "wakebench $c --help names no --option (extraction broken?)"
	if [ ! -f "$page" ]; then
		err "no man page $page for wakebench $c"
		continue
	fi
	roff_text "$page" > "$TMP/page.txt"
	missing=
	for o in $opts; do
		has_opt "$TMP/page.txt" "$o" || missing="$missing $o"
	done
	[ -z "$missing" ] || err "man/wakebench-$c.1 lacks$missing"
	while read -r s l; do
		[ -n "$s" ] || continue
		grep -E -- "(^|[^A-Za-z0-9-])$s([^A-Za-z0-9-]|\$)" "$TMP/page.txt" |
			grep -qE -- "(^|[^A-Za-z0-9-])$l([^A-Za-z0-9-]|\$)" ||
			err "man/wakebench-$c.1 has no line with both $s and $l"
	done < <(echo "$help" | help_pairs)
	grep -qE '^\.SH +"?EXIT STATUS"?' "$page" ||
		err "man/wakebench-$c.1 has no EXIT STATUS section"
done

# The front end's own page: its options, and a SEE ALSO naming every page.
roff_text "$MANDIR/wakebench.1" > "$TMP/page.txt"
for o in $("$WB" --help | help_opts); do
	has_opt "$TMP/page.txt" "$o" || err "man/wakebench.1 lacks $o"
done
awk '/^\.SH/ { on = ($0 ~ /SEE ALSO/); next } on' "$MANDIR/wakebench.1" |
	roff_text /dev/stdin > "$TMP/seealso.txt"
for p in "$MANDIR"/wakebench-*.1; do
	n=$(basename "$p" .1)
	grep -qE "(^|[^a-z-])$n *\(1\)" "$TMP/seealso.txt" ||
		err "man/wakebench.1 SEE ALSO does not name $n(1)"
done

# Formatting: no troff warning, no hyphenated word.
if ! command -v man > /dev/null || ! command -v groff > /dev/null || ! command -v col > /dev/null; then
	echo "skipped: troff warning and hyphenation checks (need man, groff, col: Debian man-db, groff-base, bsdextrautils)"
else
	for p in "$MANDIR"/*.1; do
		n=man/$(basename "$p")
		w=$(groff -man -z -ww "$p" 2>&1)
		[ -z "$w" ] || err "$n: groff -man -z -ww: $(echo "$w" | head -3)"
		roff_text "$p" | tr -s ' \n' '  ' > "$TMP/flat.txt"
		for width in 80 60; do
			MANWIDTH=$width man --warnings -l "$p" 2> "$TMP/warn.txt" | col -b > "$TMP/render.txt"
			[ ! -s "$TMP/warn.txt" ] ||
				err "$n: MANWIDTH=$width man --warnings: $(head -3 "$TMP/warn.txt")"
			# "WORD-" at a line's end and the next line's first word.
			awk '{ sub(/[ \t]+$/, "") }
			     prev != "" { n = $0; sub(/^[ \t]+/, "", n); sub(/[^A-Za-z0-9_].*/, "", n)
			                  print NR - 1 "\t" prev n; prev = "" }
			     /[A-Za-z0-9_]-$/ { p = $0; sub(/.*[ \t(\[\"/,]/, "", p); prev = p }' \
				"$TMP/render.txt" > "$TMP/joins.txt"
			while IFS=$'\t' read -r line word; do
				grep -qF -- "$word" "$TMP/flat.txt" ||
					err "$n: hyphenated at MANWIDTH=$width, rendered line $line: \"$word\" is not a word of the page"
			done < "$TMP/joins.txt"
		done
	done
fi

[ $nerr -eq 0 ] || fail "$nerr documentation problems (listed above)"
echo "docs: every --help option in its man page; man pages clean"
