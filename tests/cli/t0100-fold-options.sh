#!/bin/sh
# pprof-fold: command line contract (DESIGN.md): help, version, usage errors,
# standard input, gzip, several inputs summed, -o written atomically, -i.
. "$(dirname "$0")/../lib.sh"

printf 'a;b 1\na;c 2\n' >"$TRASH/in1"
printf 'a;c 3\nd 4\n' >"$TRASH/in2"
IN1=$TRASH/in1 IN2=$TRASH/in2

test_expect_success '--help prints usage on stdout and exits 0' '
	pprof-fold --help >out 2>err &&
	grep -q "^usage: pprof-fold" out && ! test -s err
'

test_expect_success '--version names the program' '
	pprof-fold --version >out && grep -q "^pprof-fold (pprof-tools) [0-9]" out
'

test_expect_success 'an unknown option is a usage error: exit 2' '
	test_usage pprof-fold --no-such-option "$IN1" &&
	test "$usage_msg" = "pprof-fold: unrecognized option '"'"'--no-such-option'"'"'"
'

test_expect_success 'a bad granularity is a usage error' '
	pprof-fold -g nonsense "$IN1" >out 2>err
	test $? = 2 && grep -q "unknown granularity" err
'

test_expect_success 'standard input, and - as a file name' '
	printf "a;b 1\na;c 2\n" >expect &&
	pprof-fold <"$IN1" >actual && test_cmp expect actual &&
	pprof-fold - <"$IN1" >actual && test_cmp expect actual
'

test_expect_success 'several inputs are summed' '
	printf "a;b 1\na;c 5\nd 4\n" >expect &&
	pprof-fold "$IN1" "$IN2" >actual && test_cmp expect actual &&
	cat "$IN1" "$IN2" | pprof-fold >actual && test_cmp expect actual
'

test_expect_success 'gzip is detected by its magic bytes, multi-member too' '
	gzip -c "$IN1" >one.gz && gzip -c "$IN2" >two.gz && cat one.gz two.gz >both &&
	printf "a;b 1\na;c 5\nd 4\n" >expect &&
	pprof-fold both >actual && test_cmp expect actual
'

test_expect_success '-o writes the file and nothing on stdout' '
	pprof-fold -o result "$IN1" >out && ! test -s out &&
	printf "a;b 1\na;c 2\n" >expect && test_cmp expect result
'

test_expect_success '-o leaves no file behind when the input is bad' '
	printf "" >empty &&
	test_fails 1 pprof-fold -o result empty &&
	! test -e result && test "$(ls | grep -c tmp)" = 0
'

test_expect_success 'a write error is reported with exit 1' '
	if test -w /dev/full; then
		pprof-fold "$IN1" >/dev/full 2>err
		test $? = 1 && grep -q "write error" err
	fi
'

test_expect_success 'a missing file names the file' '
	test_fails 1 pprof-fold does-not-exist &&
	grep -q "^pprof-fold: does-not-exist: No such file or directory$" err
'

test_expect_success 'one bad input among several aborts with empty stdout' '
	printf "" >empty &&
	test_fails 1 pprof-fold "$IN1" empty &&
	grep -q "^pprof-fold: empty: empty input$" err
'

test_expect_success '-i selects a column of 3-column input by name' '
	printf "a;b 1 2\na;c 3 0\n" >diff.txt &&
	printf "a;b 1\na;c 3\n" >expect &&
	pprof-fold -i before diff.txt >actual && test_cmp expect actual &&
	printf "a;b 2\n" >expect &&
	pprof-fold diff.txt >actual && test_cmp expect actual &&
	test_fails 1 pprof-fold -i nosuch diff.txt &&
	grep -q "sample type nosuch not found; the profile has: before after" err
'

test_expect_success 'fractional counts are rounded with one warning' '
	printf "a 1.5\nb 2.4\nc 0.5\n" >frac &&
	printf "a 2\nb 2\nc 1\n" >expect &&
	pprof-fold frac >actual 2>err && test_cmp expect actual &&
	test "$(grep -c "fractional counts rounded" err)" = 1 &&
	pprof-fold --quiet frac >actual 2>err && ! test -s err
'

test_expect_success '-i inuse_space picks space of a .heapprofile, as pprof matches it' '
	H=$FIX/profiles/workerd-min.alloc.heapprofile &&
	pprof-fold -i inuse_space "$H" >actual &&
	test_cmp "$FIX/expected/workerd-min.alloc.folded" actual &&
	pprof-fold -i inuse_objects "$H" >actual &&
	test_cmp "$FIX/expected/workerd-min.alloc.objects.folded" actual
'

test_expect_success '-i space does not pick inuse_space (pprof strips inuse_ from the asked name only)' '
	test_fails 1 pprof-fold -i space "$FIX/pprof/workerd-min.alloc.heap.pb.gz" &&
	grep -q "sample type space not found" err
'

test_done
