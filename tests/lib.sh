# tests/lib.sh: a small git-style harness for the end-to-end tests, emitting
# TAP.  A test script sources it, then calls test_expect_success, and ends
# with test_done.
#
#   test_expect_success "what it checks" '
#           pprof-fold "$FIX/x.pb.gz" >actual &&
#           test_cmp "$EXP/x.folded" actual
#   '
#
# Environment: $SRC (source tree), $BUILD (build tree, programs in it),
# $SHARED (the shared data beside the checkout, or empty), $FIX (fixtures),
# $EXP (tests/cli/expected).  Each test runs in a fresh scratch directory.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
SRC=$(cd "$top_srcdir" && pwd)
BUILD=$(cd "$top_builddir" && pwd)
FIX=$SRC/fixtures
EXP=$SRC/tests/cli/expected
# Shared test data lives beside the checkout (../shared) when present.
SHARED=${PPROF_SHARED:-}
if [ -z "$SHARED" ] && [ -d "$SRC/../shared/testdata" ]; then
	SHARED=$(cd "$SRC/../shared" && pwd)
fi
PATH=$BUILD:$PATH
# Under AddressSanitizer or ThreadSanitizer (tests/sanitize.sh) the
# programs run 3-10 times slower and reserve terabytes of shadow memory: the
# hostile tests lift their address-space caps there and scale their hang
# bounds by TSCALE (timeout $((60 * TSCALE)) ...), which are set for the
# plain build.
SANITIZED=
TSCALE=1
if grep -q '^SAN_CFLAGS = .*-fsanitize=\(address\|thread\)' "$BUILD/Makefile" 2>/dev/null; then
	SANITIZED=1
	TSCALE=10
fi
LC_ALL=C
export PATH LC_ALL SRC BUILD FIX EXP SHARED

test_count=0
test_failed=0
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/pprof-test.XXXXXX")
trap 'rm -rf "$TRASH"' EXIT

test_expect_success() {
	test_count=$((test_count + 1))
	_t_desc=$1
	_t_dir=$TRASH/$test_count
	mkdir -p "$_t_dir"
	if (cd "$_t_dir" && eval "$2") >"$TRASH/out.$test_count" 2>&1; then
		echo "ok $test_count - $_t_desc"
	else
		echo "not ok $test_count - $_t_desc"
		sed 's/^/# /' "$TRASH/out.$test_count"
		test_failed=$((test_failed + 1))
	fi
}

test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # SKIP $1"
}

# test_cmp EXPECTED ACTUAL: whole-file comparison, showing a diff on failure.
test_cmp() {
	diff -u "$1" "$2"
}

# test_fails STATUS CMD...: CMD exits with STATUS, prints nothing on stdout
# and exactly one line on stderr (kept in ./err).
test_fails() {
	_t_want=$1
	shift
	"$@" >out 2>err
	_t_got=$?
	if [ "$_t_got" != "$_t_want" ]; then
		echo "exit status $_t_got, expected $_t_want"
		cat err
		return 1
	fi
	if [ -s out ]; then
		echo "stdout not empty:"
		head -5 out
		return 1
	fi
	if [ "$(wc -l <err)" != 1 ]; then
		echo "stderr is not one line:"
		cat err
		return 1
	fi
}

# expect_code STATUS CMD...: CMD exits with STATUS (its output left as it is).
expect_code() {
	_t_want=$1
	shift
	"$@"
	_t_got=$?
	[ "$_t_got" = "$_t_want" ] || { echo "exit status $_t_got, expected $_t_want"; return 1; }
}

# test_usage PROGRAM ARGS...: a usage error (DESIGN.md): exit 2, empty
# stdout, and two lines on stderr: "PROGRAM: what is wrong" and
# "Try 'PROGRAM --help' for more information." (the program as named,
# never a build path).  The first line is left in usage_msg.
test_usage() {
	_t_prog=$1
	"$@" >out 2>err
	_t_got=$?
	if [ "$_t_got" != 2 ]; then
		echo "exit status $_t_got, expected 2"
		cat err
		return 1
	fi
	if [ -s out ]; then
		echo "stdout not empty:"
		head -5 out
		return 1
	fi
	usage_msg=$(head -1 err)
	if [ "$(wc -l <err)" != 2 ] ||
		[ "$(sed -n 2p err)" != "Try '$_t_prog --help' for more information." ] ||
		[ "${usage_msg#"$_t_prog: "}" = "$usage_msg" ]; then
		echo "not a two-line usage error:"
		cat err
		return 1
	fi
}

test_done() {
	echo "1..$test_count"
	[ "$test_failed" = 0 ]
}
