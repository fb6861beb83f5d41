#!/bin/sh
# Source-mapped class names of heap snapshots: a class's location is its
# constructor's (the snapshot's "locations"), its script's URL the Script's
# name; -m puts workerd's minified classes (h, c, u, l, o) back on the
# TypeScript ones, in the leak set as DevTools' own model with the same map
# names them (oracle/leaks.mjs --map), and -g lines adds file and line.
. "$(dirname "$0")/../lib.sh"

HS=$FIX/heapsnap
S=$HS/snapshots
M=$HS/dist/worker.js.map
set -- "--since=$S/workerd-baseline.heapsnapshot.gz" "--until=$S/workerd-target.heapsnapshot.gz" \
	"$S/workerd-final.heapsnapshot.gz"
x=$HS/expected/workerd.leaks.mapped

summary_of() {
	pprof-top --format=tsv -i objects "$@" >objects.tsv &&
	pprof-top --format=tsv -i space "$@" >space.tsv &&
	sed '1,/^flat/d' objects.tsv | awk -F '\t' '{ print $6 "\t" $1 }' | LC_ALL=C sort >c &&
	sed '1,/^flat/d' space.tsv | awk -F '\t' '{ print $6 "\t" $1 "\t" $4 }' | LC_ALL=C sort >s &&
	LC_ALL=C join -t "$(printf '\t')" c s | LC_ALL=C sort
}

test_expect_success 'pprof-top -m on the leak set: DevTools Summary with the mapped names' "
	grep -v '^#' '$x.summary.tsv' | cut -f 1-4 | LC_ALL=C sort >expect &&
	summary_of -m '$M' $* 2>err | grep -v '^(retained, not in the set)	' >actual &&
	test_cmp expect actual &&
	test ! -s err
"
test_expect_success 'pprof-fold -m: the set along the dominator chains, mapped' "
	pprof-fold -m '$M' $* >actual &&
	test_cmp '$x.folded' actual
"
test_expect_success 'pprof-fold -m --paths=retainers: the retainer paths, mapped' "
	pprof-fold -m '$M' --paths=retainers $* >actual &&
	test_cmp '$x.paths.folded' actual &&
	grep -q '^(GC roots);(Global handles);CacheObject;cache;SessionCache;entries;Map;table;(array);CacheEntry;value;Uint8Array ' actual &&
	grep -q '^(GC roots);(Global handles);CacheObject;bus;EventBus;listeners;Array;Function ' actual
"
test_expect_success '-g lines: the original file and line of the constructor' "
	pprof-fold -m '$M' -g lines --paths=retainers $* >actual &&
	grep -q ';SessionCache src/cache.ts:30;sessions;Array;SessionState src/cache.ts:24 ' actual &&
	grep -q '^(GC roots);(Global handles);CacheObject src/do.ts:5;bus;EventBus src/cache.ts:9;' actual
"
test_expect_success 'without -m, -g lines gives the bundle position' "
	pprof-fold -g lines $S/workerd-final.heapsnapshot.gz >actual &&
	grep -q '^h worker.js:1;(string) ' actual &&
	pprof-fold $S/workerd-final.heapsnapshot.gz >actual &&
	test_cmp '$HS/expected/workerd-final.folded' actual
"
test_expect_success '-m on the whole snapshot: the same stacks, five classes renamed' "
	pprof-fold -m '$M' $S/workerd-final.heapsnapshot.gz >mapped &&
	sed -e 's/;/;;/g' -e 's/^/;/' -e 's/ \([0-9]*\)\$/; \1/' \
		-e 's/;h;/;CacheObject;/g' -e 's/;c;/;SessionCache;/g' -e 's/;u;/;CacheEntry;/g' \
		-e 's/;l;/;SessionState;/g' -e 's/;o;/;EventBus;/g' \
		-e 's/;;/;/g' -e 's/^;//' -e 's/; \([0-9]*\)\$/ \1/' \
		'$HS/expected/workerd-final.folded' | LC_ALL=C sort >expect &&
	LC_ALL=C sort mapped >actual &&
	test_cmp expect actual
"
test_expect_success 'a Generator (its location is its function) keeps its name' "
	pprof-fold -m '$HS/dist/worker.min.js.map' $S/node-final.heapsnapshot.gz >actual &&
	grep -q 'Generator' actual &&
	grep -q 'EventBus' actual
"

# Node's: the bundle's map with the script beside it (-m dist/worker.min.js.map
# finds dist/worker.min.js): SessionState and SessionCache have their
# constructors after class fields, with TypeScript parameter properties
# (their bodies map into the parameter lists); DevTools' model with the same
# map names all five (expected/node.leaks.mapped.*, capture.sh leaks).
NM=$HS/dist/worker.min.js.map
nx=$HS/expected/node.leaks.mapped
node_set="--since=$S/node-baseline.heapsnapshot.gz --until=$S/node-target.heapsnapshot.gz $S/node-final.heapsnapshot.gz"
test_expect_success 'Node, -m with the script beside the map: DevTools Summary, mapped' "
	grep -v '^#' '$nx.summary.tsv' | cut -f 1-4 | LC_ALL=C sort >expect &&
	summary_of -m '$NM' $node_set 2>err | grep -v '^(retained, not in the set)	' >actual &&
	test_cmp expect actual &&
	test ! -s err &&
	grep -q '^SessionState	' actual && grep -q '^CacheEntry	' actual
"
test_expect_success 'Node, pprof-fold -m: dominator chains and retainer paths, mapped' "
	pprof-fold -m '$NM' $node_set >actual &&
	test_cmp '$nx.folded' actual &&
	pprof-fold -m '$NM' --paths=retainers $node_set >actual &&
	test_cmp '$nx.paths.folded' actual &&
	grep -q ';SessionCache;sessions;Array;SessionState ' actual
"
test_expect_success 'Node, -g lines: the constructors after class fields have their lines' "
	pprof-fold -m '$NM' -g lines --paths=retainers $node_set >actual &&
	grep -q ';SessionCache src/cache.ts:30;sessions;Array;SessionState src/cache.ts:24 ' actual
"

test_expect_success 'a map of another worker.js: the fit warning, the classes left minified' "
	pprof-fold -m '$FIX/worker/worker.js.map' $S/workerd-final.heapsnapshot.gz >actual 2>err &&
	grep -q 'warning: .*worker.js.map does not fit worker.js: 5 of 5 function positions' err &&
	test_cmp '$HS/expected/workerd-final.folded' actual
"

test_done
