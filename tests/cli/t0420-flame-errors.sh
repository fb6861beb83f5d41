#!/bin/sh
# pprof-flame's errors: usage errors exit 2 with the usage; bad input exits
# 1 with one line naming the file, nothing on standard output, and -o
# leaves no file behind.
. "$(dirname "$0")/../lib.sh"

IN=$SRC/tests/cli/flame

# usage_error MESSAGE ARGS...: exit 2, MESSAGE first on stderr, then the usage.
usage_error() {
	msg=$1
	shift
	pprof-flame "$@" "$IN/basic.folded" >out 2>err
	st=$?
	[ "$st" = 2 ] || { echo "exit status $st"; cat err; return 1; }
	[ ! -s out ] || { echo "stdout not empty"; return 1; }
	[ "$(head -1 err)" = "pprof-flame: $msg" ] || { echo "got: $(head -1 err)"; return 1; }
	[ "$(sed -n 2p err)" = "Try 'pprof-flame --help' for more information." ]
}

test_expect_success 'unknown palette' 'usage_error "--colors: unknown palette '"'"'chain'"'"'" --colors chain'
test_expect_success 'bad minwidth' 'usage_error "--minwidth: invalid value '"'"'1%%'"'"'" --minwidth 1%%'
test_expect_success 'bad width' 'usage_error "--width: invalid number '"'"'12.5'"'"'" --width 12.5'
test_expect_success 'negative font size' 'usage_error "--fontsize: invalid number '"'"'-3'"'"'" --fontsize -3'
test_expect_success 'a font type that would escape its style' \
	'usage_error "--fonttype: letters, digits, spaces and ,'"'"'\"._- only" --fonttype "x;}</style>"'
test_expect_success 'background colour not #rrggbb' \
	'usage_error "--bgcolors: unknown color '"'"'#12345z'"'"'" --bgcolors "#12345z"'
test_expect_success 'bad --delta and --diff-width' '
	usage_error "--delta: leaf or inclusive, not '"'"'self'"'"'" --delta self &&
	usage_error "--diff-width: after, before or max, not '"'"'min'"'"'" --diff-width min
'
test_expect_success 'several inputs whose sample types differ, as pprof-fold says it' '
	test_fails 1 pprof-flame "$IN/basic.folded" "$IN/diff.folded" &&
	echo "pprof-flame: $IN/diff.folded: incompatible sample types" >expect &&
	test_cmp expect err &&
	test_fails 1 pprof-fold "$IN/basic.folded" "$IN/diff.folded" &&
	echo "pprof-fold: $IN/diff.folded: incompatible sample types" >expect &&
	test_cmp expect err
'
test_expect_success '--diff needs two inputs, one of them standard input at most' '
	pprof-flame --diff "$IN/basic.folded" >out 2>err; test $? = 2 &&
	grep -q "^pprof-flame: --diff: two inputs needed, before and after$" err &&
	pprof-flame --diff - - >out 2>err; test $? = 2 &&
	grep -q "^pprof-flame: only one input can be standard input$" err
'
test_expect_success '--diff of two units: one line, exit 1' '
	test_fails 1 pprof-flame --diff "$FIX/pprof/workerd-min.alloc.heap.pb.gz" "$FIX/pprof/workerd-min.cpu.pb.gz" &&
	grep -q "^pprof-flame: incompatible sample types: inuse_space/bytes" err
'
test_expect_success 'bad --count-unit' '
	pprof-flame --count-unit "" "$IN/basic.folded" >out 2>err; test $? = 2 &&
	grep -q "^pprof-flame: --count-unit: invalid unit" err
'
test_expect_success '--help on stdout, exit 0; --version' '
	pprof-flame --help >out && grep -q "^usage: pprof-flame" out &&
	pprof-flame --version >out && test -s out
'

test_expect_success 'nothing to draw: exit 1, one line, no output file' '
	printf "a;b 0\nnot a stack\n" >zero.folded &&
	test_fails 1 pprof-flame --quiet -o g.svg zero.folded &&
	echo "pprof-flame: zero.folded: no stack counts found (1 line with invalid format ignored)" >expect && test_cmp expect err &&
	! test -e g.svg && test -z "$(ls | grep "^g.svg")"
'
test_expect_success 'empty input' '
	: >empty && test_fails 1 pprof-flame empty &&
	echo "pprof-flame: empty: empty input" >expect && test_cmp expect err
'
test_expect_success 'not a profile' '
	printf "hello world\n" >hello && test_fails 1 pprof-flame hello &&
	grep -q "^pprof-flame: hello: unrecognized profile format" err
'
test_expect_success 'missing file' '
	test_fails 1 pprof-flame nosuch.folded &&
	grep -q "^pprof-flame: nosuch.folded: No such file or directory$" err
'
test_expect_success 'a truncated pprof file' '
	head -c 100 "$FIX/pprof/workerd-min.cpu.pb.gz" >t.pb.gz &&
	test_fails 1 pprof-flame t.pb.gz && grep -q "^pprof-flame: t.pb.gz: " err
'
test_expect_success 'unknown sample type' '
	test_fails 1 pprof-flame -i nosuch "$FIX/profiles/workerd-min.cpuprofile" &&
	grep -q "^pprof-flame: " err
'
test_expect_success 'write error names the output' '
	if test -w /dev/full; then
		pprof-flame "$IN/basic.folded" >/dev/full 2>err; test $? = 1 &&
		grep -q "^pprof-flame: <stdout>: write error: No space left on device$" err
	fi
'

test_done
