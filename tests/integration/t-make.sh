#!/bin/bash
# The Makefile itself, on a copy of the source tree in $TMP (the real tree
# and its build directories are not touched):
# - header dependencies: after a build, touching one header recompiles
#   exactly the objects whose sources include it (directly or through
#   another header), nothing when nothing changed, and a header that
#   disappeared does not stop make (-MMD -MP);
# - fuzzers: every lib/*/*.c compiled once by clang into
#   libwakebench-fuzz.a, every tests/fuzz/fuzz_*.c linked against it;
# - make install, the installed wakebench runs, make uninstall leaves no
#   file of it and keeps what it did not install.
. "$(dirname "$0")/lib.sh"

src=$TMP/src out=$TMP/out
mkdir -p "$src"
tar -C "$WB_TOP" --exclude=./.git --exclude='./build*' --exclude=./results -cf - . |
	tar -C "$src" -xf - || fail "cannot copy the tree"
# -O0: what is checked is which objects make rebuilds, not the code; an
# unoptimized copy builds in a third of the time
mk() { make --no-print-directory -C "$src" O="$out" CFLAGS="-O0" "$@"; }

# The unit tests and test tools too, where Check is installed.
goals=all
"$src/tools/check-deps.sh" check 2>/dev/null && goals="all tests"
mk -s -j2 $goals >"$TMP/build.log" 2>&1 || fail "build failed: $(tail -20 "$TMP/build.log")"

# The objects a dry run would compile ("-c -o OBJ"), relative to $out/obj.
compiled() {	# [MAKE-ARGS]
	mk -n "$@" $goals 2>&1 | grep -o -- "-c -o $out/obj/[^ ]*" | sed "s#^-c -o $out/obj/##" | sort
}

[ -z "$(compiled)" ] || fail "a fresh build is not up to date: $(compiled | tr '\n' ' ')"

# includers H: the .c and .h files of the copy that include H, directly or
# through headers that do (by basename, as the tree's #include "x.h").
includers() {
	local todo=("$1") seen=" " h f
	while [ ${#todo[@]} -gt 0 ]; do
		h=${todo[0]}; todo=("${todo[@]:1}")
		for f in $(cd "$src" && grep -rlE "^#include \"$(basename "$h")\"" \
				--include='*.c' --include='*.h' lib client server prequery tracing stats internal figdata cstate snapshot wake tests/unit); do
			[[ $seen == *" $f "* ]] && continue
			seen+="$f "
			[[ $f == *.h ]] && todo+=("$f")
		done
	done
	echo $seen | tr ' ' '\n'
}

# Expected: the .o of every built source that includes HEADER (plus the
# header's own .c, which includes it); built = the objects of this build.
expected() {	# HEADER
	local f
	for f in $(includers "$1"); do
		[[ $f == *.c ]] || continue
		[ -e "$out/obj/${f%.c}.o" ] && echo "${f%.c}.o"
	done | sort -u
}

check_header() {	# HEADER [MAKE-ARGS]: compiled set == expected set
	local h=$1 exp got; shift
	exp=$(expected "$h")
	got=$(compiled "$@")
	[ -n "$exp" ] || fail "$h: no object includes it? (test broken)"
	[ "$got" = "$exp" ] || fail "$h modified: recompiles
$(diff <(echo "$exp") <(echo "$got") | sed -n 's/^</  missing: /p; s/^>/  extra:   /p')"
}

# Really modified: stage.h (the issue's example), and tracewrite.h, which
# a test tool and a bench tool include too (they are relinked for real;
# proto.h did the same for three times the objects).
hs="lib/io/stage.h"
[ "$goals" = all ] || hs+=" lib/trace/tracewrite.h"
for h in $hs; do
	sleep 1	# a newer mtime than every object, on any filesystem
	touch "$src/$h"
	check_header "$h"
	mk -s -j2 $goals >"$TMP/build.log" 2>&1 || fail "rebuild failed: $(tail -20 "$TMP/build.log")"
	[ -z "$(compiled)" ] || fail "after rebuilding for $h, still to compile: $(compiled | tr '\n' ' ')"
done
got=$(compiled -W lib/io/stage.h)
grep -qx client/output.o <<<"$got" || fail "lib/io/stage.h: client/output.o not rebuilt"
grep -qx lib/io/stage.o <<<"$got" || fail "lib/io/stage.h: lib/io/stage.o not rebuilt"
grep -qx server/server.o <<<"$got" && fail "lib/io/stage.h: server/server.o rebuilt"
# Others, as if modified (make -W), including headers included only
# through other headers.
hs="lib/core/clock.h client/client.h lib/core/prng.h lib/trace/timeline.h"
[ "$goals" = all ] || hs+=" tests/unit/unit.h"
for h in $hs; do
	check_header "$h" -W "$h"
done

# A header that is gone (renamed, say) does not stop make with "No rule to
# make target": the objects that used it are simply rebuilt.
mv "$src/lib/io/stage.h" "$TMP/stage.h"
mk -n all >"$TMP/n.log" 2>&1 || fail "make -n with lib/io/stage.h gone: $(grep -m1 -i 'no rule' "$TMP/n.log")"
grep -q -- "-c -o $out/obj/lib/io/stage.o" "$TMP/n.log" || fail "lib/io/stage.o not rebuilt after its header went"
mv "$TMP/stage.h" "$src/lib/io/stage.h"

# Fuzzers: a dry run compiles each lib/*/*.c once with clang and the
# fuzzer's coverage, and links each harness (one .c) against the archive.
fz=$TMP/fz
mk -n fuzz FUZZ_O="$fz" FUZZ_CC=clang FUZZ_SECONDS=1 >"$TMP/fz.log" 2>&1 || fail "make -n fuzz: $(tail -5 "$TMP/fz.log")"
[ -z "$(ls "$src"/lib/*.c 2>/dev/null)" ] || fail "sources left at the top of lib/: $(ls "$src"/lib/*.c)"
for c in "$src"/lib/*/*.c; do
	c=${c#"$src"/}
	n=$(grep -c -- "fuzzer-no-link.* -c -o $fz/obj/${c%.c}.o $c\$" "$TMP/fz.log")
	[ "$n" = 1 ] || fail "$c compiled $n times for the fuzz library"
done
grep -q "libwakebench-fuzz.a" "$TMP/fz.log" || fail "no libwakebench-fuzz.a"
for c in "$src"/tests/fuzz/fuzz_*.c; do
	f=$(basename "$c" .c)
	line=$(grep -- "-o $fz/$f " "$TMP/fz.log") || fail "tests/fuzz/$f.c is not built by make fuzz"
	[ "$(grep -o '[^ ]*\.c\b' <<<"$line" | wc -l)" = 1 ] || fail "$f links sources, not the library: $line"
	grep -q -- "-fsanitize=fuzzer," <<<"$line" && grep -q "$fz/libwakebench-fuzz.a" <<<"$line" ||
		fail "$f: not a fuzzer linked against the library: $line"
	grep -qE "for f in (.* )?${f#fuzz_}( .*)?; do" "$TMP/fz.log" || fail "make fuzz does not run $f"
done

# install / uninstall into a staging directory that already holds a file
# of another package (kept, with its directories).
d=$TMP/d
mkdir -p "$d/usr/local/bin" "$d/usr/local/share/man/man1"
echo other > "$d/usr/local/bin/other-tool"
echo other > "$d/usr/local/share/man/man1/other.1"
(cd "$d" && find . -type f | sort) > "$TMP/before"
mk -s install DESTDIR="$d" PREFIX=/usr/local >"$TMP/inst.log" 2>&1 || fail "install: $(tail -5 "$TMP/inst.log")"
(cd "$d" && find . -type f | sort) > "$TMP/installed"
for f in usr/local/bin/wakebench usr/local/libexec/wakebench/wakebench-server \
		usr/local/libexec/wakebench/wakebench-sweep usr/local/share/man/man1/wakebench.1 \
		usr/local/share/wakebench/plots/common.gp usr/local/libexec/wakebench/wb-lib.sh; do
	grep -qx "./$f" "$TMP/installed" || fail "install did not install $f"
done
"$d/usr/local/bin/wakebench" --help >"$TMP/help" 2>&1 || fail "installed wakebench --help: $(cat "$TMP/help")"
grep -q '^  server ' "$TMP/help" || fail "installed wakebench does not find its commands: $(cat "$TMP/help")"
"$d/usr/local/bin/wakebench" server --help >/dev/null 2>&1 || fail "installed wakebench server --help fails"
# the installed report finds its shell library (it stops on a missing
# directory, not on a missing wb-lib.sh)
"$d/usr/local/bin/wakebench" report "$TMP/no-such-dir" >"$TMP/rep" 2>&1
grep -q 'wb-lib.sh' "$TMP/rep" && fail "installed report: $(cat "$TMP/rep")"

mk -s uninstall DESTDIR="$d" PREFIX=/usr/local >"$TMP/un.log" 2>&1 || fail "uninstall: $(cat "$TMP/un.log")"
left=$(cd "$d" && find . -type f | sort | comm -23 - "$TMP/before")
[ -z "$left" ] || fail "uninstall left: $left"
(cd "$d" && find . -type f | sort) | cmp -s - "$TMP/before" || fail "uninstall removed files it did not install"
# Only standard directories remain (empty ones), not the wakebench ones.
for dir in usr/local/libexec/wakebench usr/local/share/wakebench; do
	[ ! -e "$d/$dir" ] || fail "uninstall left the directory $dir"
done
bad=$(cd "$d" && find . -mindepth 1 -type d | grep -vxE '\./usr(/local(/bin|/libexec|/share(/man(/man1)?)?)?)?')
[ -z "$bad" ] || fail "directories left: $bad"
# Twice is harmless.
mk -s uninstall DESTDIR="$d" PREFIX=/usr/local >"$TMP/un.log" 2>&1 || fail "second uninstall: $(cat "$TMP/un.log")"
exit 0
