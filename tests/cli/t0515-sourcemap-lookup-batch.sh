#!/bin/sh
# sourcemap-lookup reads standard input in batches and looks them up in
# the order of the map: many positions in a shuffled order (a column
# before the first segment, past the last line, duplicates, lines alone,
# bad positions) print as one by one, in the order read; the goldens were
# written one position at a time.
. "$(dirname "$0")/../lib.sh"

X=$EXP/t0515
W=$FIX/worker/worker.js.map
I=$FIX/names/esbuild/min-index/names.js.map

test_expect_success 'shuffled positions on standard input, as one by one' '
	expect_code 1 sourcemap-lookup "$W" <"$X/positions" >actual 2>err &&
	test_cmp "$X/expect" actual &&
	test_cmp "$X/expect.err" err
'

test_expect_success '--zero-based and --function' '
	expect_code 1 sourcemap-lookup --zero-based "$W" <"$X/positions" >actual 2>err &&
	test_cmp "$X/expect.zero" actual &&
	test_cmp "$X/expect.zero.err" err &&
	expect_code 1 sourcemap-lookup --function "$W" <"$X/positions" >actual 2>err &&
	test_cmp "$X/expect.function" actual &&
	test_cmp "$X/expect.function.err" err
'

test_expect_success 'an index map, with lines alone among the columns' '
	sourcemap-lookup "$I" <"$X/index.positions" >actual &&
	test_cmp "$X/index.expect" actual &&
	sourcemap-lookup --function "$I" <"$X/index.positions" >actual &&
	test_cmp "$X/index.expect.function" actual
'

# 380 copies: more than a batch (1,048,576 positions), which ends inside a
# copy
test_expect_success 'more positions than a batch' '
	i=0 &&
	while [ $i -lt 380 ]; do
		cat "$X/positions" >&3 &&
		cat "$X/expect" >&4 &&
		cat "$X/expect.err" >&5 &&
		i=$((i + 1)) || return 1
	done 3>in 4>expect 5>expect.err &&
	expect_code 1 sourcemap-lookup "$W" <in >actual 2>err &&
	test_cmp expect actual &&
	test_cmp expect.err err
'

test_done
