#!/bin/sh
# pprof-fold on bad input: exit 1, nothing on stdout, one line on stderr
# naming the file and what is wrong.
. "$(dirname "$0")/../lib.sh"

# expect_error FILE MESSAGE: pprof-fold FILE fails with exactly
# "pprof-fold: FILE: MESSAGE".
expect_error() {
	test_fails 1 pprof-fold "$1" &&
	echo "pprof-fold: $1: $2" >expect &&
	test_cmp expect err
}

test_expect_success 'empty input' '
	: >empty && expect_error empty "empty input"
'

test_expect_success 'empty gzip' '
	: | gzip -c >empty.gz && expect_error empty.gz "empty input"
'

test_expect_success 'truncated gzip stream' '
	printf "a;b 1\n" | gzip -c >t.gz && head -c 12 t.gz >trunc.gz &&
	test_fails 1 pprof-fold trunc.gz &&
	grep -q "^pprof-fold: trunc.gz: truncated gzip stream (at byte [0-9]*)$" err
'

test_expect_success 'corrupt gzip data' '
	printf "\037\213\010\000\000\000\000\000\000\003garbage-garbage" >bad.gz &&
	test_fails 1 pprof-fold bad.gz && grep -q "^pprof-fold: bad.gz: bad gzip data" err
'

test_expect_success 'trailing garbage after a gzip member' '
	printf "a 1\n" | gzip -c >g.gz && printf "junk" >>g.gz &&
	expect_error g.gz "trailing garbage after gzip stream (at byte 4)"
'

test_expect_success 'unrecognised format' '
	printf "hello world\n" >hello &&
	expect_error hello "unrecognized profile format (not pprof, V8 JSON or folded stacks) (at byte 0)"
'

test_expect_success 'a gzip bomb is refused under the default limit' '
	head -c 300000000 /dev/zero | gzip -1 -c >bomb.gz &&
	test_fails 1 pprof-fold bomb.gz &&
	grep -q "^pprof-fold: bomb.gz: gzip input inflates past the limit" err
'

test_expect_success '--max-input lowers the limit' '
	printf "a;b 1\n" | gzip -c >small.gz &&
	test_fails 1 pprof-fold --max-input=3 small.gz &&
	grep -q "inflates past the limit" err
'

test_expect_success 'invalid JSON names the byte' '
	printf "{\"nodes\":[{\"id\":1,}]}" >bad.cpuprofile &&
	test_fails 1 pprof-fold bad.cpuprofile && grep -q "(at byte [0-9]*)$" err
'

test_expect_success 'a .cpuprofile whose children point to a missing id' '
	printf "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[7]}],\"startTime\":0,\"endTime\":10,\"samples\":[1],\"timeDeltas\":[1]}" >dangling.cpuprofile &&
	test_fails 1 pprof-fold dangling.cpuprofile && grep -q "7" err
'

test_expect_success 'a .cpuprofile whose nodes form a cycle' '
	printf "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"f\",\"scriptId\":\"1\",\"url\":\"\",\"lineNumber\":0,\"columnNumber\":0},\"children\":[3]},{\"id\":3,\"callFrame\":{\"functionName\":\"g\",\"scriptId\":\"1\",\"url\":\"\",\"lineNumber\":0,\"columnNumber\":0},\"children\":[2]}],\"startTime\":0,\"endTime\":10,\"samples\":[3],\"timeDeltas\":[1]}" >cycle.cpuprofile &&
	test_fails 1 pprof-fold cycle.cpuprofile && grep -qi "cycle\|parent" err
'

test_expect_success 'a bad protobuf' '
	printf "\012\005abc" >bad.pb &&
	test_fails 1 pprof-fold bad.pb && grep -q "^pprof-fold: bad.pb: " err
'

# The malformed pprof files of the shared test data, with what go tool pprof
# says of them in expected-go1.19-pprof/*.err.
if [ -n "$SHARED" ] && [ -d "$SHARED/testdata/edge" ]; then
	for f in bad_concat bad_dangling_location bad_string0 bad_string_index \
		 bad_truncated bad_value_count empty; do
		test_expect_success "shared testdata edge/$f.pb is refused" "
			test_fails 1 pprof-fold \"\$SHARED/testdata/edge/$f.pb\"
		"
	done
else
	test_skip "shared testdata absent"
fi

test_done
