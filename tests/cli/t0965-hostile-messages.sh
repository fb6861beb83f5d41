#!/bin/sh
# Errors of hostile inputs that need more than one file or a second
# program: each is one line naming the file (and the byte, when there is
# one), exit 1, nothing on standard output.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'a folded count past int64 is an error at its byte, not a skipped line' '
	printf "a;b 1\na;c 99999999999999999999\n" >big.folded &&
	for prog in pprof-fold pprof-top pprof-convert; do
		test_fails 1 $prog big.folded &&
		echo "$prog: big.folded: line 2: count leaves the 64-bit range (at byte 10)" >expect &&
		test_cmp expect err || return 1
	done
'

test_expect_success 'a negative folded count past int64 too' '
	printf "a;b -9223372036854775809\n" >neg.folded &&
	test_fails 1 pprof-fold neg.folded &&
	echo "pprof-fold: neg.folded: line 1: count leaves the 64-bit range (at byte 4)" >expect &&
	test_cmp expect err
'

test_expect_success 'the smallest int64 count still reads' '
	printf "a;b -9223372036854775808\n" >min.folded &&
	pprof-fold min.folded >actual &&
	test_cmp min.folded actual
'

test_expect_success 'two folded files whose sum overflows: the second is named, at its line' '
	printf "a;b 9223372036854775807\n" >one.folded &&
	printf "x 1\na;b 1\n" >two.folded &&
	test_fails 1 pprof-fold one.folded two.folded &&
	echo "pprof-fold: two.folded: sum of samples values leaves the 64-bit range (at byte 4)" >expect &&
	test_cmp expect err
'

test_expect_success 'pprof-flame with no valid line: one error line, no warning' '
	printf "a;b 0\nnot a stack\n" >zero.folded &&
	test_fails 1 pprof-flame zero.folded &&
	echo "pprof-flame: zero.folded: no stack counts found (1 line with invalid format ignored)" >expect &&
	test_cmp expect err
'

# Decoded by the one door, then bid on as any input: every program says the
# same (pprof-flame once took any UTF-16 text for folded stacks).
test_expect_success 'UTF-16 text with no valid line: one error line, the same in each program' '
	printf "\377\376a\000b\000\n\000" >u16.txt &&
	for prog in pprof-flame pprof-fold pprof-top; do
		test_fails 1 $prog u16.txt &&
		echo "$prog: u16.txt: unrecognized profile format (not pprof, V8 JSON or folded stacks) (at byte 0)" >expect &&
		test_cmp expect err || return 1
	done
'

test_expect_success 'pprof-flame still warns of ignored lines when it draws' '
	printf "a;b 1\nnot a stack\n" >some.folded &&
	pprof-flame some.folded >g.svg 2>err &&
	echo "pprof-flame: warning: some.folded: ignored 1 lines with invalid format" >expect &&
	test_cmp expect err
'

# A pprof with an empty string table and nothing else.
test_expect_success 'a profile without sample types: the file is named' '
	printf "\062\000" >notypes.pb &&
	for prog in pprof-fold pprof-top pprof-flame; do
		test_fails 1 $prog notypes.pb &&
		echo "$prog: notypes.pb: the profile has no sample types" >expect &&
		test_cmp expect err || return 1
	done &&
	test_fails 1 pprof-diff notypes.pb notypes.pb &&
	echo "pprof-diff: notypes.pb: the profile has no sample types" >expect &&
	test_cmp expect err &&
	test_fails 1 pprof-fold <notypes.pb &&
	echo "pprof-fold: <stdin>: the profile has no sample types" >expect &&
	test_cmp expect err
'

test_expect_success 'an unknown -i names the file too' '
	printf "a;b 1\n" >one.folded &&
	test_fails 1 pprof-fold -i nosuch one.folded &&
	echo "pprof-fold: one.folded: sample type nosuch not found; the profile has: samples" >expect &&
	test_cmp expect err
'

test_done
