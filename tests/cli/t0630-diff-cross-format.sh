#!/bin/sh
# pprof-diff and merging warn once when two inputs' sample types are not
# the same quantity (a V8 wall, the time between samples, against a pprof
# wall that is samples times the period; cpu against wall) and when one
# producer leaves out the (idle) and (program) samples the other keeps.
# Alike inputs give no warning.  In pprof-diff only, the stacks producers
# spell differently (V8's (garbage collector), @datadog/pprof's
# Node.js;Garbage Collection) are matched, in before's spelling.
. "$(dirname "$0")/../lib.sh"

A=$FIX/profiles/workerd-min.cpuprofile
AB=$FIX/profiles/workerd-min-b.cpuprofile
DD=$FIX/pprof/workerd-min-b.cpu.nomap.pb.gz # @datadog/pprof's layout
WALL="wall time measured two ways: a V8 profile's (.cpuprofile, trace) is the time between its samples, a pprof file's its samples times the period; totals differ for the same run"
IDLE_TAIL="(its producer leaves them out): totals differ by them (--drop-idle leaves them out of both)"

# A V8 profile with (idle), and one without whose samples are 1 ms apart:
# converted to pprof, its wall is samples times the period.
I=$TRASH/idle.cpuprofile
R=$TRASH/regular.cpuprofile
cat >"$I" <<\EOF
{"nodes":[
{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},
{"id":2,"callFrame":{"functionName":"main","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}},
{"id":3,"callFrame":{"functionName":"(idle)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}],
"startTime":0,"endTime":4000,"samples":[2,3,2,3],"timeDeltas":[0,1500,700,900]}
EOF
cat >"$R" <<\EOF
{"nodes":[
{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
{"id":2,"callFrame":{"functionName":"main","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}}],
"startTime":0,"endTime":3000,"samples":[2,2,2],"timeDeltas":[0,1000,1000]}
EOF

test_expect_success 'diff of a .cpuprofile and a pprof of samples x period: both warnings, once each' '
	pprof-diff "$A" "$DD" >/dev/null 2>err &&
	{
		echo "pprof-diff: warning: before and after: $WALL"
		echo "pprof-diff: warning: (idle) or (program) samples in before, none in after $IDLE_TAIL"
	} >expect &&
	test_cmp expect err &&
	pprof-diff --top "$DD" "$A" >/dev/null 2>err &&
	{
		echo "pprof-diff: warning: before and after: $WALL"
		echo "pprof-diff: warning: (idle) or (program) samples in after, none in before $IDLE_TAIL"
	} >expect &&
	test_cmp expect err
'

test_expect_success '--drop-idle: only the wall warning' '
	pprof-diff --drop-idle "$A" "$DD" >/dev/null 2>err &&
	echo "pprof-diff: warning: before and after: $WALL" >expect &&
	test_cmp expect err
'

test_expect_success 'alike inputs: no warning (V8 and V8, pprof and pprof, V8 and its conversion)' '
	pprof-convert --quiet -o conv.pb.gz "$AB" &&
	pprof-diff "$A" "$AB" >/dev/null 2>err && test ! -s err &&
	pprof-diff "$FIX/pprof/workerd-min.cpu.pb.gz" "$DD" >/dev/null 2>err && test ! -s err &&
	pprof-diff "$A" conv.pb.gz >/dev/null 2>err && test ! -s err &&
	pprof-diff --quiet "$A" "$DD" >/dev/null 2>err && test ! -s err
'

test_expect_success 'merging a pprof of samples x period with a .cpuprofile warns once each' '
	pprof-convert --quiet -o regular.pb.gz "$R" &&
	for prog in pprof-top pprof-fold; do
		$prog regular.pb.gz "$I" >/dev/null 2>err &&
		{
			echo "$prog: warning: merged inputs: $WALL"
			echo "$prog: warning: (idle) or (program) samples in some inputs, none in the others $IDLE_TAIL"
		} >expect &&
		test_cmp expect err || return 1
	done
'

test_expect_success 'V8 profiles with and without (idle), converted or not: no warning (one producer)' '
	pprof-top "$I" "$R" >/dev/null 2>err &&
	test ! -s err &&
	pprof-convert --quiet -o idle.pb.gz "$I" &&
	pprof-top idle.pb.gz "$R" >/dev/null 2>err &&
	test ! -s err &&
	pprof-diff idle.pb.gz "$R" >/dev/null 2>err &&
	test ! -s err
'

test_expect_success 'synonyms: goldens of a V8 profile against @datadog/pprof (before'"'"'s spelling)' '
	(cd "$FIX" && pprof-diff profiles/workerd-min-b.cpuprofile \
		pprof/workerd-min-b.cpu.nomap.pb.gz) >actual 2>/dev/null &&
	test_cmp "$EXP/t0630/v8-datadog.diff" actual &&
	(cd "$FIX" && pprof-diff --top profiles/workerd-min-b.cpuprofile \
		pprof/workerd-min-b.cpu.nomap.pb.gz) >actual 2>/dev/null &&
	test_cmp "$EXP/t0630/v8-datadog.top" actual &&
	! grep "Garbage Collection" actual
'

test_expect_success 'synonyms: the other way round, @datadog/pprof'"'"'s spelling' '
	pprof-diff "$DD" "$AB" >actual 2>/dev/null &&
	grep "^Node.js;Garbage Collection 241000000 547445000\$" actual &&
	! grep "garbage collector" actual
'

test_expect_success 'synonyms: never in a single profile, nor where a side has both spellings' '
	pprof-fold "$DD" | grep "^Node.js;Garbage Collection " &&
	pprof-fold "$AB" | grep "^(garbage collector) " &&
	printf "(garbage collector) 5\nNode.js;Garbage Collection 2\nf 1\n" >both.folded &&
	printf "Node.js;Garbage Collection 3\nf 1\n" >dd.folded &&
	pprof-diff both.folded dd.folded >actual &&
	printf "(garbage collector) 5 0\nNode.js;Garbage Collection 2 3\nf 1 1\n" >expect &&
	test_cmp expect actual &&
	printf "(garbage collector);x 4\n" >v8.folded &&
	pprof-diff v8.folded dd.folded >actual &&
	printf "(garbage collector) 0 3\n(garbage collector);x 4 0\nf 0 1\n" >expect &&
	test_cmp expect actual
'

test_done
