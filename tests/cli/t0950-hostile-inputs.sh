#!/bin/sh
# The hostile inputs of tests/hostile/: each ends as tests/hostile/expect
# says, within seconds and (outside ASan) 1 GB of address space: exit 1,
# nothing on stdout and one line on stderr naming the file, what is wrong
# and where; or exit 0 with the expected output.  The other programs that
# read profiles must fail on them the same way.
. "$(dirname "$0")/../lib.sh"
H=$SRC/tests/hostile

# ASan reserves terabytes of address space: no memory bound under it.
limit_mem=1
[ -n "$SANITIZED" ] && limit_mem=
run_bounded() {
	(
		[ -n "$limit_mem" ] && ulimit -v 1048576
		exec timeout $((20 * TSCALE)) "$@"
	)
}

# check_one PROG FILE STATUS MESSAGE [ARGS...]
check_one() {
	prog=$1 f=$2 st=$3 m=$4
	shift 4
	run_bounded "$prog" "$@" "$H/$f" >out 2>err
	got=$?
	if [ "$got" != "$st" ]; then
		echo "$prog $f: exit status $got, expected $st"
		head -5 err
		return 1
	fi
	if [ "$st" = 0 ]; then
		[ "$prog" != pprof-fold ] || test_cmp "$H/expected/$f" out
		return
	fi
	if [ -s out ]; then
		echo "$prog $f: stdout not empty"
		return 1
	fi
	if [ "$(wc -l <err)" != 1 ]; then
		echo "$prog $f: stderr is not one line:"
		head -5 err
		return 1
	fi
	case $m in
	"pprof-fold: "*)
		# An error of the whole run: other programs may word it alike.
		[ "$prog" = pprof-fold ] || return 0
		want="$m" ;;
	*) want="$prog: $H/$f: $m" ;;
	esac
	line=$(cat err)
	case $line in
	"$want"*) ;;
	*)
		echo "expected: $want"
		echo "got:      $line"
		return 1 ;;
	esac
}

# Every input has its outcome, and every outcome its input.
test_expect_success 'tests/hostile/expect lists every input' '
	(cd "$H" && ls | grep -v "^gen.pl$\|^gen-[a-z]*.pl$\|^expect$\|^expected$") >have &&
	grep -v "^#" "$H/expect" | cut -f1 | sort >listed &&
	test_cmp listed have
'

# pprof-flame reads folded text as flamegraph.pl does (its own lenient
# reader): there it must only end cleanly, with well-formed SVG on success.
flame_folded() {
	f=$1
	run_bounded pprof-flame "$H/$f" >out 2>err
	got=$?
	case $got in
	0)
		if command -v xmllint >/dev/null; then xmllint --noout out || return 1; fi ;;
	1)
		tail -1 err | grep -q "^pprof-flame: $H/$f: " || { cat err; return 1; } ;;
	*)
		echo "pprof-flame $f: exit status $got"
		head -5 err
		return 1 ;;
	esac
}

tab=$(printf '\t')
while IFS=$tab read -r f st m; do
	case $f in '' | '#'*) continue ;; esac
	test_expect_success "pprof-fold $f: exit $st${m:+: $m}" '
		check_one pprof-fold "$f" "$st" "$m"
	'
	# Errors of the whole run (a sum by function name) are pprof-fold's
	# and pprof-top's: pprof-convert keeps the frames apart.
	if [ -x "$BUILD/pprof-top" ]; then
		test_expect_success "pprof-top $f: exit $st" '
			check_one pprof-top "$f" "$st" "$m"
		'
	fi
	case $m in "pprof-fold: "*) continue ;; esac
	if [ -x "$BUILD/pprof-convert" ]; then
		test_expect_success "pprof-convert $f: exit $st" '
			check_one pprof-convert "$f" "$st" "$m" -o out.pb.gz &&
			if [ "$st" != 0 ]; then ! ls out.pb.gz* 2>/dev/null; fi
		'
	fi
	if [ -x "$BUILD/pprof-flame" ]; then
		case $f in
		*.folded | *.folded.gz)
			test_expect_success "pprof-flame $f: ends cleanly" '
				flame_folded "$f"
			' ;;
		*)
			test_expect_success "pprof-flame $f: exit $st" '
				check_one pprof-flame "$f" "$st" "$m" &&
				if [ "$st" = 0 ] && command -v xmllint >/dev/null; then
					xmllint --noout out
				fi
			' ;;
		esac
	fi
done <"$H/expect"

test_done
