#!/bin/sh
# Heap snapshots of the leaking Durable Object cache (fixtures/heapsnap),
# from each producer: pprof-top gives DevTools' Summary per class (count
# with -i objects, shallow size as flat, retained size as cum) and
# pprof-fold the dominator-chain stacks, both as DevTools' own HeapSnapshot
# model computed them when the fixtures were captured.
. "$(dirname "$0")/../lib.sh"

HS=$FIX/heapsnap

# summary_of FILE: "name count shallow retained" per class, from pprof-top.
summary_of() {
	pprof-top --format=tsv -i objects "$1" >objects.tsv &&
	pprof-top --format=tsv -i space "$1" >space.tsv &&
	sed '1,/^flat/d' objects.tsv | awk -F '\t' '{ print $6 "\t" $1 }' | LC_ALL=C sort >c &&
	sed '1,/^flat/d' space.tsv | awk -F '\t' '{ print $6 "\t" $1 "\t" $4 }' | LC_ALL=C sort >s &&
	LC_ALL=C join -t "$(printf '\t')" c s | LC_ALL=C sort
}

for f in "$HS"/snapshots/*.heapsnapshot.gz; do
	name=$(basename "$f" .heapsnapshot.gz)
	test_expect_success "$name: pprof-top per class equals DevTools' Summary" "
		grep -v '^#' '$HS/expected/$name.summary.tsv' | cut -f 1-4 | LC_ALL=C sort >expect &&
		summary_of '$f' >actual &&
		test_cmp expect actual
	"
	test_expect_success "$name: the total is DevTools' total minus extra native bytes" "
		sed -n 's/^#total	\([0-9]*\)	\([0-9]*\)$/\1 \2/p' '$HS/expected/$name.summary.tsv' |
			awk '{ print \$1 - \$2 }' >expect &&
		pprof-top --format=tsv '$f' | sed -n 's/^# total	//p' >actual &&
		test_cmp expect actual
	"
	test_expect_success "$name: pprof-fold gives the dominator-chain stacks" "
		pprof-fold '$f' >actual &&
		test_cmp '$HS/expected/$name.folded' actual &&
		pprof-fold -i objects '$f' >actual &&
		test_cmp '$HS/expected/$name.objects.folded' actual
	"
done

test_expect_success 'a snapshot on standard input, not gzipped' "
	gzip -dc '$HS/snapshots/node-final.heapsnapshot.gz' | pprof-fold >actual &&
	test_cmp '$HS/expected/node-final.folded' actual
"

test_done
