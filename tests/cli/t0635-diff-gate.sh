#!/bin/sh
# The CI gate that does not flap (issue 18): pprof-diff --min-delta=VALUE,
# a floor under which a change never fails --fail-over (the total and each
# function's total, after -n), and --fold-vanished, a function present in
# one capture only counted in its caller, as V8 inlining does.  On the
# Worker's two captures, where buildEvents was inlined into buildRecord.
. "$(dirname "$0")/../lib.sh"

MAP=$FIX/worker/worker.js.map
A=$FIX/profiles/workerd-min.cpuprofile
B=$FIX/profiles/workerd-min-b.cpuprofile

# gate STATUS OPTIONS...: pprof-diff --fail-over=5 exits STATUS.
gate() {
	_want=$1
	shift
	pprof-diff --fail-over=5 -m "$MAP" "$@" "$A" "$B" >out 2>err
	_got=$?
	[ "$_got" = "$_want" ] || { echo "exit $_got, expected $_want"; cat err; return 1; }
}

test_expect_success 'without a floor: two functions over 5%' '
	gate 3 && grep -q "2 functions over, most buildRecord" err
'

test_expect_success '--min-delta: growths under the floor never fail' '
	gate 3 --min-delta=500ms && grep -q "1 function over, most buildRecord" err &&
	gate 0 --min-delta=700ms && ! test -s err &&
	gate 0 --min-delta=700000000 &&
	gate 3 --min-delta=0.6s &&
	gate 0 -n --min-delta=1s
'

test_expect_success '--fold-vanished: buildEvents counts in buildRecord' '
	(cd "$SRC" && pprof-diff --top --fold-vanished -m fixtures/worker/worker.js.map \
		fixtures/profiles/workerd-min.cpuprofile fixtures/profiles/workerd-min-b.cpuprofile) \
		>actual &&
	test_cmp "$EXP/t0635/fold-vanished.top" actual &&
	! grep -q " buildEvents$" actual &&
	pprof-diff --top -m "$MAP" "$A" "$B" >plain &&
	grep -q " buildEvents$" plain
'

test_expect_success '--fold-vanished: the folded lines keep both totals' '
	pprof-diff --fold-vanished -m "$MAP" "$A" "$B" >folded &&
	pprof-diff -m "$MAP" "$A" "$B" >plain &&
	awk "{ b += \$(NF - 1); a += \$NF } END { print b, a }" folded >expect &&
	awk "{ b += \$(NF - 1); a += \$NF } END { print b, a }" plain >actual &&
	test_cmp expect actual &&
	! grep -q "buildEvents" folded
'

test_expect_success 'errors: a bad value, a unit of another kind' '
	test_usage pprof-diff --fail-over=5 --min-delta=abc "$A" "$B" &&
	test_usage pprof-diff --fail-over=5 --min-delta=-5ms "$A" "$B" &&
	test_usage pprof-diff --min-delta=5ms "$A" "$B" &&
	test_fails 1 pprof-diff --fail-over=5 --min-delta=1MiB "$A" "$B" &&
	test "$(cat err)" = "pprof-diff: --min-delta: '"'"'1MiB'"'"' is not a value in nanoseconds"
'

test_expect_success 'bytes: --min-delta=1MiB and 1MB are the same floor' '
	H1=$FIX/profiles/workerd-min.alloc.heapprofile &&
	pprof-diff --fail-over=1 --min-delta=1MiB "$H1" "$H1" >/dev/null &&
	pprof-diff --fail-over=1 --min-delta=1048576 "$H1" "$H1" >/dev/null
'

test_done
