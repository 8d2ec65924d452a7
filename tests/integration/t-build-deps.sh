#!/bin/bash
# A library pkg-config cannot find stops the build before anything is
# compiled, with the Debian package to install; the flags are asked when a
# recipe needs them, not when the Makefile is read (so `make deps demo`
# works on a machine that has none of the -dev packages yet).
. "$(dirname "$0")/lib.sh"
command -v pkg-config >/dev/null || skip "pkg-config not installed"

out=$TMP/build
# No .pc file anywhere: as on a fresh machine before `make deps`.
if PKG_CONFIG_LIBDIR=$TMP/none make -s -C "$WB_TOP" O="$out" all >"$TMP/log" 2>&1; then
	fail "build succeeded without libtracefs"
fi
grep -q "missing build dependencies:.*libtracefs-dev" "$TMP/log" ||
	fail "no message naming libtracefs-dev: $(cat "$TMP/log")"
grep -q "libtraceevent-dev" "$TMP/log" || fail "libtraceevent-dev not named"
[ -z "$(find "$out" -name '*.o' 2>/dev/null)" ] || fail "objects compiled without the library's flags"

# The unit tests name the check package the same way.
PKG_CONFIG_LIBDIR=$TMP/none "$WB_TOP/tools/check-deps.sh" check >"$TMP/log" 2>&1 &&
	fail "check-deps check passed without check.pc"
grep -q "check" "$TMP/log" || fail "check package not named"

# Reading the Makefile runs no pkg-config: a PATH whose pkg-config logs its
# calls sees none for a dry run of a target that needs no flags.
mkdir -p "$TMP/bin"
printf '#!/bin/sh\necho "$@" >> %s/calls\nexit 1\n' "$TMP" > "$TMP/bin/pkg-config"
chmod +x "$TMP/bin/pkg-config"
PATH=$TMP/bin:$PATH make -s -n -C "$WB_TOP" O="$out" clean >/dev/null 2>&1
[ ! -s "$TMP/calls" ] || fail "pkg-config ran while the Makefile was read: $(cat "$TMP/calls")"
# With the real one, the deps check passes on this machine.
"$WB_TOP/tools/check-deps.sh" build || fail "check-deps build fails here"
exit 0
