#!/bin/sh
# check-deps.sh build|check: stop with the Debian package to install when a
# library the build needs is missing (pkg-config or its header cannot be
# found), rather than compile on without its flags.
set -u
missing=
need_pc() {	# need_pc MODULE DEBIAN-PACKAGE
	pkg-config --exists "$1" 2>/dev/null || missing="$missing $2"
}
need_hdr() {	# need_hdr HEADER DEBIAN-PACKAGE
	printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1 ||
		missing="$missing $2"
}
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
case ${1:-build} in
build)
	need_pc libtracefs libtracefs-dev
	need_pc libtraceevent libtraceevent-dev
	need_pc libtracecmd libtracecmd-dev
	need_hdr cpuidle.h libcpupower-dev
	need_hdr zlib.h zlib1g-dev ;;
check)
	need_pc check check
	need_pc libsubunit libsubunit-dev ;;
esac
[ -z "$missing" ] && exit 0
echo "wakebench: missing build dependencies:$missing" >&2
echo "  install them with 'make deps' (as root), or: apt-get install -y$missing" >&2
exit 1
