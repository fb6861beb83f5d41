#!/bin/sh
# Folded lines whose first character is '[' are folded stacks when they end
# in a count: "[unknown];foo 1", perf's "[kernel.kallsyms];...", inferno's
# vtune collapse "[Unknown]`Total;ntdll.dll!... 31".  JSON is told apart by
# parsing, not by its first byte: a JSON text stays a JSON reader's.
. "$(dirname "$0")/../lib.sh"
D="$SRC/tests/cli/expected/t0975"

for f in unknown perf vtune; do
	test_expect_success "$f.folded from a file" "
		pprof-fold \"$D/$f.folded\" >actual &&
		test_cmp \"$D/$f.expected\" actual
	"
	test_expect_success "$f.folded from a pipe, and gzipped" "
		pprof-fold <\"$D/$f.folded\" >actual &&
		test_cmp \"$D/$f.expected\" actual &&
		gzip -c \"$D/$f.folded\" | pprof-fold >actual &&
		test_cmp \"$D/$f.expected\" actual
	"
done

test_expect_success 'pprof-top and pprof-flame read them too' '
	pprof-top "$D/unknown.folded" >top &&
	grep -q "\[unknown\]" top &&
	pprof-flame "$D/perf.folded" >out.svg &&
	grep -q "kernel.kallsyms" out.svg
'

test_expect_success 'JSON that no reader claims is still refused' '
	printf "[1, 2,\n 3]\n" >a.json &&
	test_fails 1 pprof-fold a.json &&
	echo "pprof-fold: a.json: not a trace with a CPU profile: no Profile events" >expect &&
	test_cmp expect err &&
	printf "{\"a\": [1,\n 2]}\n" | test_fails 1 pprof-fold &&
	grep -q "unrecognized profile format" err
'

test_done
