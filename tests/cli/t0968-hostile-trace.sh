#!/bin/sh
# Hostile Chrome traces, made at test time: a million chunks, a million
# profiles, a node whose parent is missing or forms a cycle, deltas that
# overflow, an ignored event nested a million deep.  Each ends within seconds and (outside ASan) 1 GB
# of address space, with one line on stderr.
. "$(dirname "$0")/../lib.sh"

limit_mem=1
[ -n "$SANITIZED" ] && limit_mem=
run_bounded() {
	(
		[ -n "$limit_mem" ] && ulimit -v 1048576
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
if ! command -v perl >/dev/null; then
	test_skip "perl absent"
	test_done
	exit
fi

PROFILE='{"ph":"P","name":"Profile","id":"0x1","pid":1,"tid":1,"args":{"data":{"startTime":0}}}'
NODES='{"callFrame":{"functionName":"(root)"},"id":1},{"callFrame":{"functionName":"f"},"id":2,"parent":1}'
chunk() { # chunk NODES SAMPLES DELTAS
	printf '{"ph":"P","name":"ProfileChunk","id":"0x1","pid":1,"tid":9,"args":{"data":{"cpuProfile":{"nodes":[%s],"samples":[%s]},"timeDeltas":[%s]}}}' "$1" "$2" "$3"
}

test_expect_success 'a million chunks of one sample each' '
	{ printf "[%s,\n" "$PROFILE"; chunk "$NODES" 2 1; printf ",\n";
	  perl -e "print qq({\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":1,\"args\":{\"data\":{\"cpuProfile\":{\"samples\":[2]},\"timeDeltas\":[1]}}},\n) x 1000000";
	  printf "{}]\n"; } >many.json &&
	run_bounded pprof-fold -i samples many.json >actual &&
	echo "f 1000001" >expect && test_cmp expect actual
'

test_expect_success 'a million chunks of as many profiles without a Profile event' '
	{ printf "[%s,\n" "$PROFILE"; chunk "$NODES" 2 1; printf ",\n";
	  perl -e "for (1..1000000) { print qq({\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x\$_\",\"pid\":2,\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1}],\"samples\":[1]},\"timeDeltas\":[1]}}},\n) }";
	  printf "{}]\n"; } >orphans.json &&
	run_bounded pprof-fold -i samples orphans.json >actual &&
	echo "f 1" >expect && test_cmp expect actual
'

test_expect_success 'a million profiles, each on a thread of its own, gzipped' '
	perl -e "print qq([\n); for (1..1000000) { print qq({\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x1\",\"pid\":\$_,\"tid\":\$_,\"args\":{}},\n{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":\$_,\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"callFrame\":{\"functionName\":\"f\"},\"id\":1}],\"samples\":[1]},\"timeDeltas\":[1]}}},\n) } print qq({}]\n)" |
		gzip -1 >profiles.json.gz &&
	run_bounded pprof-fold --max-input=8G -i samples profiles.json.gz >actual &&
	echo "f 1000000" >expect && test_cmp expect actual &&
	run_bounded pprof-fold --max-input=8G --tagroot=pid -i samples profiles.json.gz >actual &&
	test "$(wc -l <actual)" = 1000000 && grep -qx "1000000;f 1" actual && grep -qx "1;f 1" actual
'

test_expect_success 'a gzipped trace is read as a stream: 124 MB inflated in 60 MB' '
	{ printf "[%s,\n" "$PROFILE"; chunk "$NODES" 2 1; printf ",\n";
	  perl -e "print qq({\"ph\":\"X\",\"name\":\"Other\",\"pid\":1,\"args\":{\"data\":{\"x\":[1,2,3]}}},\n) x 2000000";
	  printf "{}]\n"; } | gzip -1 >ignored.json.gz &&
	(
		[ -n "$limit_mem" ] && ulimit -v 60000
		exec timeout $((60 * TSCALE)) pprof-fold --max-input=8G -i samples ignored.json.gz
	) >actual && echo "f 1" >expect && test_cmp expect actual
'

test_expect_success 'a node whose parent does not exist' '
	{ printf "[%s," "$PROFILE"; chunk "$NODES,{\"callFrame\":{\"functionName\":\"g\"},\"id\":3,\"parent\":7}" 3 1; printf "]"; } >orphan.json &&
	bounded_fails 1 pprof-fold orphan.json &&
	grep -q "^pprof-fold: orphan.json: node 3: parent 7 does not exist (at byte [0-9]*)$" err
'

test_expect_success 'nodes whose parents form a cycle' '
	{ printf "[%s," "$PROFILE";
	  chunk "$NODES,{\"callFrame\":{\"functionName\":\"g\"},\"id\":3,\"parent\":4},{\"callFrame\":{\"functionName\":\"h\"},\"id\":4,\"parent\":3}" 3 1;
	  printf "]"; } >cycle.json &&
	bounded_fails 1 pprof-fold cycle.json &&
	grep -q "^pprof-fold: cycle.json: node graph has a cycle through node [34] (at byte [0-9]*)$" err
'

test_expect_success 'a node that is its own parent' '
	{ printf "[%s," "$PROFILE"; chunk "$NODES,{\"callFrame\":{\"functionName\":\"g\"},\"id\":3,\"parent\":3}" 3 1; printf "]"; } >self.json &&
	bounded_fails 1 pprof-fold self.json && grep -q "cycle through node 3" err
'

test_expect_success 'deltas whose sum leaves int64' '
	{ printf "[%s," "$PROFILE"; chunk "$NODES" 2,2 9223372036854775807,1; printf "]"; } >over.json &&
	bounded_fails 1 pprof-fold over.json &&
	grep -q "^pprof-fold: over.json: timestamp leaves the 64-bit range (at byte [0-9]*)$" err
'

test_expect_success 'gaps whose nanoseconds leave int64' '
	{ printf "[%s," "$PROFILE"; chunk "$NODES" 2,2 0,9223372036854776; printf "]"; } >gap.json &&
	bounded_fails 1 pprof-fold gap.json &&
	grep -q "^pprof-fold: gap.json: a time in nanoseconds leaves the 64-bit range$" err
'

test_expect_success 'an ignored event nested a million deep' '
	{ printf "[%s," "$PROFILE"; chunk "$NODES" 2 1;
	  perl -e "print q(,{\"ph\":\"X\",\"args\":), q([) x 1000000, q(]) x 1000000, q(}])"; } >deep.json &&
	bounded_fails 1 pprof-fold deep.json &&
	grep -q "^pprof-fold: deep.json: nesting deeper than the maximum depth (at byte [0-9]*)$" err
'

test_expect_success 'an ignored event nested just under the limit is skipped' '
	{ printf "[%s," "$PROFILE"; chunk "$NODES" 2 1;
	  perl -e "print q(,{\"ph\":\"X\",\"args\":), q([) x 999990, q(]) x 999990, q(}])"; } >deep2.json &&
	run_bounded pprof-fold -i samples deep2.json >actual && echo "f 1" >expect && test_cmp expect actual
'

test_expect_success 'a sample of a node that does not exist' '
	{ printf "[%s," "$PROFILE"; chunk "$NODES" 2,5 1,1; printf "]"; } >dangling.json &&
	bounded_fails 1 pprof-fold dangling.json &&
	grep -q "^pprof-fold: dangling.json: sample 1: node 5 does not exist (at byte [0-9]*)$" err
'

test_expect_success 'a chunk with more samples than deltas' '
	{ printf "[%s," "$PROFILE"; chunk "$NODES" 2,2 1; printf "]"; } >short.json &&
	bounded_fails 1 pprof-fold short.json &&
	grep -q "^pprof-fold: short.json: ProfileChunk has 2 samples but 1 timeDeltas (at byte [0-9]*)$" err
'
test_done
