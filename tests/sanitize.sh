#!/bin/sh
# tests/sanitize.sh: the whole test suite under AddressSanitizer (with
# LeakSanitizer) and UndefinedBehaviorSanitizer, then the libFuzzer
# harnesses (tests/fuzz/run.sh), in one clang build out of the source tree;
# then the tests of the threaded code under ThreadSanitizer, in another.
# Any leak, any undefined behaviour, any fuzzer crash, any data race fails it.
#
#   tests/sanitize.sh [BUILDDIR]     default BUILDDIR: build-sanitize in the
#                                    source tree (ignored by git)
#   FUZZ_SECONDS=N                   seconds per harness (default 30; 0: replay
#                                    the seeds only)
#
# Needs clang and libclang-rt-14-dev (or the runtime of the installed clang).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-sanitize}
mkdir -p "$build"
build=$(cd "$build" && pwd)

command -v clang >/dev/null || { echo "sanitize.sh: clang not found" >&2; exit 1; }

# configure refuses a build beside a source tree that was configured in
# place (as build.sh does); build from a clean copy of it then.
top=$src
if [ -f "$src/config.status" ]; then
	top=$build/src
	rm -rf "$top"
	mkdir -p "$top"
	if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		# Tracked files and new ones not ignored: the work tree as it is.
		(cd "$src" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh |
			tar --null -T - -cf -) | tar -C "$top" -xf -
		(cd "$top" && ./autogen.sh >"$build/autogen.log" 2>&1) ||
			{ cat "$build/autogen.log" >&2; exit 1; }
	else
		# No git (a tarball, or a machine without it): the distribution
		# files, configure included and autogen.sh not.
		(cd "$src" && make -s distdir distdir="$top" >/dev/null)
	fi
fi
obj=$build/obj
mkdir -p "$obj"
cd "$obj"
if [ ! -f Makefile ]; then
	"$top/configure" -q CC=clang --enable-asan --enable-ubsan --enable-fuzzing
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -s -j"$jobs"

ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:disable_coredump=1:strict_string_checks=1:detect_stack_use_after_return=1
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
LSAN_OPTIONS=${LSAN_OPTIONS:-}
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
# The shared test data beside the source, when the copy is elsewhere.
if [ -z "${PPROF_SHARED:-}" ] && [ -d "$src/../shared/testdata" ]; then
	PPROF_SHARED=$(cd "$src/../shared" && pwd)
	export PPROF_SHARED
fi

# make check with ARGS in the current build; when it fails, the end of each
# log with a sanitizer's report (PATTERN) or a failed test, and exit 1.
check_or_show() {
	pat=$1
	shift
	make -s -j"$jobs" check "$@" && return 0
	for f in test-suite.log tests/*.log tests/unit/*.log tests/cli/*.log; do
		[ -f "$f" ] && grep -l -E "$pat|^not ok|^FAIL" "$f" 2>/dev/null
	done | sort -u | while read -r f; do
		echo "== $f" >&2
		tail -60 "$f" >&2
	done
	exit 1
}

echo "== make check under ASan+UBSan ($obj)" >&2
check_or_show 'ERROR: (Address|Leak)Sanitizer|runtime error'

echo "== fuzzers (tests/fuzz/run.sh)" >&2
"$top/tests/fuzz/run.sh" -b "$obj" -t "${FUZZ_SECONDS:-30}"

# ThreadSanitizer, in a build of its own (it cannot be mixed with ASan): the
# tests of the code that runs threads (the .cpuprofile reader's second
# thread, the huge-page slabs, the maps loaded and their scripts and sources
# tokenized beside the profile's reading, pprof shares and walks).
tsan=$build/tsan
mkdir -p "$tsan"
cd "$tsan"
if [ ! -f Makefile ]; then
	"$top/configure" -q CC=clang --enable-tsan
fi
make -s -j"$jobs"
TSAN_OPTIONS=halt_on_error=1:abort_on_error=1:disable_coredump=1
export TSAN_OPTIONS
tsan_tests="tests/unit/test_jstoken tests/unit/test_model tests/unit/test_read_v8"
tsan_tests="$tsan_tests tests/unit/test_read_pprof tests/unit/test_top tests/unit/test_buf"
tsan_tests="$tsan_tests tests/unit/test_flame tests/unit/test_sourcemap"
tsan_tests="$tsan_tests tests/cli/t0300-fold-sourcemap.sh tests/cli/t0310-fold-names.sh"
tsan_tests="$tsan_tests tests/cli/t0320-fold-map-fit.sh tests/cli/t0720-top-deferred.sh"
# TSan of clang 14 cannot start where the kernel randomizes mappings over
# more bits than it expects (vm.mmap_rnd_bits 32; here 28): said, and the
# stage skipped, not failed.
if ! ./pprof-fold --help >/dev/null 2>"$tsan/probe.log" &&
	grep -q ThreadSanitizer "$tsan/probe.log"; then
	echo "sanitize.sh: ThreadSanitizer cannot run here ($(head -c 200 "$tsan/probe.log")): the threaded tests under TSan are skipped" >&2
	exit 0
fi
echo "== threads under TSan ($tsan)" >&2
check_or_show 'ThreadSanitizer' TESTS="$tsan_tests"
