# Bash completion (scripts/completion/wakebench), sourced with Debian's
# bash-completion framework and driven as bash drives it on TAB: the
# commands, a command's options, trace's subcommands and their options,
# an option's values, '--' followed by a command; options come from the
# programs' --help (a program with a new option gets it completed); make
# install puts the file in share/bash-completion/completions, uninstall
# takes it away.
. "$(dirname "$0")/lib.sh"
FW=/usr/share/bash-completion/bash_completion
[ -r "$FW" ] || skip "needs bash-completion (make deps)"
COMPL="$WB_TOP/scripts/completion/wakebench"

# complete LINE [BIN]: what TAB offers at the end of LINE, one per line,
# sorted ("wakebench" found in BIN, default the build's)
complete_line() {
	bash --norc --noprofile -c '
		. "$1" || exit 1
		. "$2" || exit 1
		PATH="$3:$PATH"
		COMP_LINE=$4
		COMP_POINT=${#COMP_LINE}
		read -r -a COMP_WORDS <<< "$COMP_LINE"
		[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		_wakebench wakebench "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$FW" "${COMPL_FILE:-$COMPL}" "${2:-$WB_BIN}" "$1" | grep . | sort
}
# words LIST...: the words, sorted, one per line
words() { printf '%s\n' "$@" | sort; }

got=$(complete_line "wakebench ")
[ "$got" = "$(words client cstate midtier report server snapshot stats sweep trace wake)" ] ||
	fail "wakebench <TAB>: $got"
[ "$(complete_line "wakebench sw")" = sweep ] || fail "wakebench sw<TAB>: $(complete_line "wakebench sw")"
# wake: its options and the values of --states and --source, from its help
[ "$(complete_line "wakebench wake --st")" = --states ] ||
	fail "wakebench wake --st<TAB>: $(complete_line "wakebench wake --st")"
[ "$(complete_line "wakebench wake --states ")" = "$(words all each none)" ] ||
	fail "wakebench wake --states <TAB>: $(complete_line "wakebench wake --states ")"
[ "$(complete_line "wakebench wake --source ")" = "$(words ipi packet timer)" ] ||
	fail "wakebench wake --source <TAB>: $(complete_line "wakebench wake --source ")"

got=$(complete_line "wakebench client --pre")
want=$("$WB" client --help | grep -oE -- '--pre[a-z-]+' | sort -u)
[ -n "$want" ] && [ "$got" = "$want" ] || fail "client --pre<TAB>: '$got', its help has '$want'"
[ "$got" = "$(words --preload --prequery-ack --prequery-at --prequery-lead-us --prequery-policy --prequery-port)" ] ||
	fail "client --pre<TAB>: $got"

got=$(complete_line "wakebench trace ")
[ "$got" = "$(words attribute capture cleanup export import record residency timeline turbostat)" ] ||
	fail "trace <TAB>: $got"

got=$(complete_line "wakebench trace attribute --")
[ "$got" = "$(words --client --cpu --help --pid --requests --skip-corrupt)" ] ||
	fail "trace attribute --<TAB>: $got"
# a subcommand's options are its own, not another's
complete_line "wakebench trace record --" | grep -qx -- --duration || fail "trace record --<TAB>: no --duration"
complete_line "wakebench trace attribute --" | grep -qx -- --duration && fail "trace attribute offers record's --duration"

# values of an option with a fixed set; directories for a DIR
[ "$(complete_line "wakebench client --dist ")" = "$(words exp fixed poisson)" ] ||
	fail "client --dist <TAB>: $(complete_line "wakebench client --dist ")"
[ "$(complete_line "wakebench client --dist=e")" = exp ] || fail "client --dist=e<TAB>"
[ "$(complete_line "wakebench trace export x --format ")" = "$(words socwatch trace.dat)" ] ||
	fail "trace export --format <TAB>: $(complete_line "wakebench trace export x --format ")"
[ "$(complete_line "wakebench cstate ")" = "$(words busy-poll disable enable governor haltpoll hold limit list restore)" ] ||
	fail "cstate <TAB>: $(complete_line "wakebench cstate ")"
mkdir -p "$TMP/cd/sub-dir"
touch "$TMP/cd/file"
[ "$(cd "$TMP/cd" && complete_line "wakebench client --out s")" = sub-dir ] || fail "client --out DIR<TAB>"
[ "$(cd "$TMP/cd" && complete_line "wakebench client --out f")" = "" ] || fail "client --out offered a file"
# the sweep (a shell script's help) and stats' new modes
complete_line "wakebench sweep --client" | grep -qx -- --client-exec || fail "sweep --client<TAB>"
complete_line "wakebench sweep --" | grep -qx -- --dry-run || fail "sweep --<TAB>: no --dry-run"
complete_line "wakebench stats --" | grep -qx -- --merge || fail "stats --<TAB>: no --merge"
# after '--' a command line of its own
complete_line "wakebench trace record --out x -- bas" | grep -qx bash || fail "after --: no command"

# From the program, not from a list here: a client that gains an option
# has it completed.
mkdir "$TMP/fake"
cp "$WB_BIN/wakebench" "$TMP/fake/wakebench"
cat > "$TMP/fake/wakebench-client" <<'EOF'
#!/bin/sh
cat <<'EOT'
Usage: wakebench client [options]

  -s, --server HOST:PORT  server
      --brand-new-option N
                          an option this test invented
      --mode fast|slow    how
EOT
EOF
chmod +x "$TMP/fake/wakebench-client"
[ "$(complete_line "wakebench client --br" "$TMP/fake")" = --brand-new-option ] ||
	fail "a program's new option is not completed: $(complete_line "wakebench client --br" "$TMP/fake")"
[ "$(complete_line "wakebench client --mode " "$TMP/fake")" = "$(words fast slow)" ] || fail "fake --mode values"
[ "$(complete_line "wakebench " "$TMP/fake")" = client ] || fail "fake commands: $(complete_line "wakebench " "$TMP/fake")"

# make install / uninstall under a DESTDIR
d=$TMP/dest
make --no-print-directory -C "$WB_TOP" O="$O" -s install DESTDIR="$d" PREFIX=/usr > "$TMP/inst.log" 2>&1 ||
	fail "make install: $(tail -5 "$TMP/inst.log")"
f=$d/usr/share/bash-completion/completions/wakebench
[ -f "$f" ] || fail "make install did not put $f: $(cd "$d" && find . -name '*compl*')"
cmp -s "$f" "$COMPL" || fail "installed completion differs from the source"
[ "$(stat -c %a "$f")" = 644 ] || fail "installed completion mode $(stat -c %a "$f")"
# the installed file works with the installed wakebench
[ "$(COMPL_FILE=$f complete_line "wakebench client --prequery-l" "$d/usr/bin")" = --prequery-lead-us ] ||
	fail "installed completion"
make --no-print-directory -C "$WB_TOP" O="$O" -s uninstall DESTDIR="$d" PREFIX=/usr > "$TMP/un.log" 2>&1 ||
	fail "make uninstall: $(cat "$TMP/un.log")"
[ -e "$f" ] && fail "make uninstall left $f"
[ -e "$d/usr/share/bash-completion" ] && fail "make uninstall left the empty bash-completion directories"
# a completions directory holding other files stays
mkdir -p "$d/usr/share/bash-completion/completions"
echo other > "$d/usr/share/bash-completion/completions/other"
make --no-print-directory -C "$WB_TOP" O="$O" -s install DESTDIR="$d" PREFIX=/usr > "$TMP/inst.log" 2>&1 ||
	fail "make install 2"
make --no-print-directory -C "$WB_TOP" O="$O" -s uninstall DESTDIR="$d" PREFIX=/usr > "$TMP/un.log" 2>&1 ||
	fail "make uninstall 2"
[ -f "$d/usr/share/bash-completion/completions/other" ] || fail "uninstall removed another package's completion"
[ -e "$f" ] && fail "make uninstall 2 left $f"
exit 0
