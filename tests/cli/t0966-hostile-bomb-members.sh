#!/bin/sh
# A gzip bomb of many members (136 members of 64 MiB of zeros: 8.8 MB that
# inflate to 8.5 GiB) is refused while it inflates, after about 64 MiB of
# output (DESIGN.md: past 64 MiB while more than 100 times the compressed
# bytes read so far), with the byte where it was judged: on a file, on
# standard input, after a valid pprof member, as pprof-diff's AFTER, and
# with -o (no output file).  The bombs are made here, not committed.
. "$(dirname "$0")/../lib.sh"

limit_mem=1
[ -n "$SANITIZED" ] && limit_mem=

# At most 512 MiB of address space (outside ASan) and 60 s.
run_bounded() {
	(
		[ -n "$limit_mem" ] && ulimit -v 524288
		exec timeout $((60 * TSCALE)) "$@"
	)
}

bounded_fails() {
	want=$1
	shift
	run_bounded "$@" >out 2>err
	got=$?
	if [ "$got" != "$want" ]; then
		echo "exit status $got, expected $want"
		head -5 err
		return 1
	fi
	if [ -s out ] || [ "$(wc -l <err)" != 1 ]; then
		echo "stdout not empty or stderr not one line:"
		head -5 err
		return 1
	fi
}

# The message names the program, the input, the limit and the byte.
refused() {
	grep -q "^$1: $2: gzip input inflates past the limit (64 MiB; raise it with --max-input) (at byte [0-9]*)$" err || {
		cat err
		return 1
	}
	# judged within a few MiB past 64 MiB
	n=$(sed 's/.*(at byte \([0-9]*\))$/\1/' err) &&
	[ "$n" -gt 67108864 ] && [ "$n" -le 71303168 ] || {
		echo "judged at byte $n"
		return 1
	}
}

# Made once, in the trash directory the tests' directories are in.
head -c 67108864 /dev/zero | gzip -9 -c >"$TRASH/member.gz"
i=0 && while [ $i -lt 136 ]; do cat "$TRASH/member.gz"; i=$((i + 1)); done >"$TRASH/bomb.gz"

test_expect_success 'the bomb: 136 members, 8 to 10 MB' '
	cp "$TRASH/bomb.gz" bomb.gz &&
	size=$(wc -c <bomb.gz) &&
	[ "$size" -gt 8000000 ] && [ "$size" -lt 10000000 ]
'

test_expect_success 'the bomb on a file' '
	cp "$TRASH/bomb.gz" bomb.gz &&
	bounded_fails 1 pprof-fold bomb.gz &&
	refused pprof-fold bomb.gz
'

test_expect_success 'the bomb on standard input' '
	cp "$TRASH/bomb.gz" bomb.gz &&
	bounded_fails 1 pprof-fold <bomb.gz &&
	refused pprof-fold "<stdin>"
'

test_expect_success 'the bomb after a valid pprof member' '
	cp "$TRASH/bomb.gz" bomb.gz &&
	cat "$SRC/fixtures/pprof/workerd-min.cpu.pb.gz" bomb.gz >prefixed.gz &&
	bounded_fails 1 pprof-fold prefixed.gz &&
	refused pprof-fold prefixed.gz &&
	bounded_fails 1 pprof-top prefixed.gz &&
	refused pprof-top prefixed.gz
'

test_expect_success 'the bomb as pprof-diff AFTER' '
	cp "$TRASH/bomb.gz" bomb.gz &&
	bounded_fails 1 pprof-diff "$SRC/fixtures/pprof/workerd-min.cpu.pb.gz" bomb.gz &&
	refused pprof-diff bomb.gz
'

test_expect_success 'the bomb with -o: no output file' '
	cp "$TRASH/bomb.gz" bomb.gz &&
	bounded_fails 1 pprof-fold -o out.folded bomb.gz &&
	refused pprof-fold bomb.gz &&
	! ls out.folded* 2>/dev/null &&
	bounded_fails 1 pprof-convert -o out.pb.gz bomb.gz &&
	refused pprof-convert bomb.gz &&
	! ls out.pb.gz* 2>/dev/null &&
	bounded_fails 1 pprof-flame -o out.svg bomb.gz &&
	refused pprof-flame bomb.gz &&
	! ls out.svg* 2>/dev/null
'

test_done
