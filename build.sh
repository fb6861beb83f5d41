#!/bin/sh
# build.sh: set up, build and run on a fresh Debian machine.
#
#   ./build.sh demo    install what the build needs, build, and fold a real
#                      Worker profile from fixtures/ (the main job)
#   ./build.sh check   the same set-up, then every test (what CI runs): make
#                      check, make distcheck, and the suite and the fuzzers
#                      under sanitizers
#   ./build.sh         set-up and build only
#   ./build.sh sanitize  every test under ASan+UBSan (clang, out of tree in
#                      build-sanitize/), then each fuzzer for 30 s
#
# As root, missing Debian packages are installed with apt-get; otherwise
# they are named and the script stops.
set -eu
cd "$(dirname "$0")"

PACKAGES="autoconf automake libtool pkg-config make gcc protobuf-c-compiler
libprotobuf-c-dev zlib1g-dev libdeflate-dev libyaml-dev libpcre2-dev libcmocka-dev"
# Tests compare with go tool pprof, check SVG with xmllint, drive the flame
# graph in headless Chromium (with node), and fuzz and sanitize with clang.
CHECK_PACKAGES="golang-go libxml2-utils clang libclang-rt-14-dev chromium nodejs strace"

need_packages() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "build.sh: installing:$missing" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	else
		echo "build.sh: missing Debian packages:$missing" >&2
		echo "build.sh: install them with: sudo apt-get install$missing" >&2
		exit 1
	fi
}

build() {
	need_packages $PACKAGES
	[ -x configure ] || ./autogen.sh >/dev/null
	[ -f Makefile ] || ./configure -q
	make -s -j"$(nproc 2>/dev/null || echo 2)"
}

case "${1:-build}" in
build)
	build
	;;
demo)
	build
	# A real Worker's CPU profile (workerd, minified bundle), put back on
	# its TypeScript through the bundle's source map.
	echo "== ./pprof-fold -m fixtures/worker fixtures/profiles/workerd-min.cpuprofile" >&2
	./pprof-fold -m fixtures/worker fixtures/profiles/workerd-min.cpuprofile
	echo "== ./pprof-flame -m fixtures/worker fixtures/profiles/workerd-min.cpuprofile -o worker-flame.svg" >&2
	./pprof-flame -m fixtures/worker fixtures/profiles/workerd-min.cpuprofile -o worker-flame.svg
	echo "== worker-flame.svg written: open it in a browser" >&2
	;;
check)
	need_packages $CHECK_PACKAGES
	build
	make -s check || { cat test-suite.log 2>/dev/null | tail -100; exit 1; }
	# The tarball builds, passes its tests, installs and uninstalls cleanly.
	make -s distcheck
	# Once more under ASan+LSan+UBSan, then each fuzzer briefly (fixed
	# seeds, bounded runs: tests/fuzz/run.sh).
	FUZZ_SECONDS=${FUZZ_SECONDS:-20} tests/sanitize.sh
	;;
sanitize)
	# The whole suite under ASan+LSan+UBSan (clang), then the fuzzers.
	need_packages $PACKAGES $CHECK_PACKAGES
	[ -x configure ] || ./autogen.sh >/dev/null
	tests/sanitize.sh
	;;
*)
	echo "usage: ./build.sh [build|demo|check|sanitize]" >&2
	exit 2
	;;
esac
