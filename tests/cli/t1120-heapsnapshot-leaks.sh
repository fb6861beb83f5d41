#!/bin/sh
# The leak set between three heap snapshots of the leaking Durable Object
# cache (fixtures/heapsnap, memlab's method: the objects of FINAL whose id
# is in TARGET and not in BASELINE): pprof-top per class equals DevTools'
# Summary with the set as its node filter, pprof-fold the set along the
# dominator chains and along the shortest retainer paths, all as DevTools'
# own model computed them (oracle/leaks.mjs); snapshots that cannot be of
# one process are refused with one line.
. "$(dirname "$0")/../lib.sh"

HS=$FIX/heapsnap
S=$HS/snapshots

# summary_of ARGS...: "name count shallow retained" per class, from pprof-top.
summary_of() {
	pprof-top --format=tsv -i objects "$@" >objects.tsv &&
	pprof-top --format=tsv -i space "$@" >space.tsv &&
	sed '1,/^flat/d' objects.tsv | awk -F '\t' '{ print $6 "\t" $1 }' | LC_ALL=C sort >c &&
	sed '1,/^flat/d' space.tsv | awk -F '\t' '{ print $6 "\t" $1 "\t" $4 }' | LC_ALL=C sort >s &&
	LC_ALL=C join -t "$(printf '\t')" c s | LC_ALL=C sort
}

for p in node workerd chromium; do
	set -- "--since=$S/$p-baseline.heapsnapshot.gz" "--until=$S/$p-target.heapsnapshot.gz" \
		"$S/$p-final.heapsnapshot.gz"
	x=$HS/expected/$p.leaks
	test_expect_success "$p: pprof-top on the leak set equals DevTools' Summary filtered by it" "
		grep -v '^#' '$x.summary.tsv' | cut -f 1-4 | LC_ALL=C sort >expect &&
		summary_of $* | grep -v '^(retained, not in the set)	' >actual &&
		test_cmp expect actual
	"
	test_expect_success "$p: pprof-fold gives the set along the dominator chains" "
		pprof-fold $* >actual &&
		test_cmp '$x.folded' actual &&
		pprof-fold -i objects --paths=dominators $* >actual &&
		test_cmp '$x.objects.folded' actual
	"
	test_expect_success "$p: --paths=retainers gives the shortest retainer paths" "
		pprof-fold --paths=retainers $* >actual &&
		test_cmp '$x.paths.folded' actual &&
		pprof-fold --paths=retainers -i objects $* >actual &&
		test_cmp '$x.paths.objects.folded' actual
	"
	test_expect_success "$p: pprof-top --paths=retainers ranks the paths' leaves: the set's classes" "
		grep -v '^#' '$x.summary.tsv' | cut -f 1,3 | LC_ALL=C sort >expect &&
		pprof-top --format=tsv --paths=retainers $* >tsv &&
		sed '1,/^flat/d' tsv | awk -F '\t' '\$1 != 0 { print \$6 \"\t\" \$1 }' | LC_ALL=C sort >actual &&
		test_cmp expect actual
	"
done

# Node's and workerd's ids are sequential: the set is DevTools' "objects
# allocated between" the two snapshots; Chromium's Blink nodes are not.
test_expect_success "the id rule is DevTools' id range where ids are sequential" "
	grep -x '#range	same' '$HS/expected/node.leaks.summary.tsv' &&
	grep -x '#range	same' '$HS/expected/workerd.leaks.summary.tsv' &&
	grep '^#range	differs' '$HS/expected/chromium.leaks.summary.tsv'
"

test_expect_success 'the cache holds the leak: its Map, the bus its listeners' "
	pprof-fold --paths=retainers --since=$S/workerd-baseline.heapsnapshot.gz \
		--until=$S/workerd-target.heapsnapshot.gz $S/workerd-final.heapsnapshot.gz >paths &&
	grep -q '^(GC roots);(Global handles);h;cache;c;entries;Map;table;(array);u;value;Uint8Array ' paths &&
	grep -q '^(GC roots);(Global handles);h;bus;o;listeners;Array;Function ' paths
"

test_expect_success '--since alone: the objects of FINAL not in BASELINE' "
	pprof-fold --since=$S/node-baseline.heapsnapshot.gz --until=$S/node-final.heapsnapshot.gz \
		$S/node-final.heapsnapshot.gz >expect &&
	pprof-fold --since=$S/node-baseline.heapsnapshot.gz $S/node-final.heapsnapshot.gz >actual &&
	test_cmp expect actual &&
	test -s actual
"

test_expect_success 'every program takes the options: pprof-flame, pprof-convert, pprof-diff' "
	pprof-flame --since=$S/workerd-baseline.heapsnapshot.gz $S/workerd-final.heapsnapshot.gz >f.svg &&
	grep -q '<svg' f.svg &&
	pprof-convert --since=$S/workerd-baseline.heapsnapshot.gz -o leak.pb.gz \
		$S/workerd-final.heapsnapshot.gz &&
	pprof-fold --since=$S/workerd-baseline.heapsnapshot.gz $S/workerd-final.heapsnapshot.gz >expect &&
	pprof-fold leak.pb.gz >actual &&
	test_cmp expect actual &&
	pprof-diff --since=$S/workerd-baseline.heapsnapshot.gz $S/workerd-target.heapsnapshot.gz \
		$S/workerd-final.heapsnapshot.gz >diff &&
	test -s diff
"

# refused ARGS...: exit 1, empty stdout, one line on stderr (./err).
refused() {
	test_fails 1 pprof-top "$@"
}

test_expect_success 'a BASELINE of another process is refused with one line' "
	refused --since=$S/node-baseline.heapsnapshot.gz $S/workerd-final.heapsnapshot.gz &&
	grep -q 'name the same object: a snapshot of another process\$' err &&
	refused --since=$S/workerd-baseline.heapsnapshot.gz --until=$S/chromium-target.heapsnapshot.gz \
		$S/workerd-final.heapsnapshot.gz &&
	grep -q '^pprof-top: .*workerd-final.heapsnapshot.gz: --until=.*chromium-target.heapsnapshot.gz: ' err
"

test_expect_success 'FINAL whose ids all lie below BASELINE is refused' "
	refused --since=$S/workerd-final.heapsnapshot.gz $S/workerd-baseline.heapsnapshot.gz &&
	grep -q 'this snapshot.s all below (.*): taken after it, or in another process\$' err
"

test_expect_success 'TARGET taken before BASELINE is refused' "
	refused --since=$S/workerd-target.heapsnapshot.gz --until=$S/workerd-baseline.heapsnapshot.gz \
		$S/workerd-final.heapsnapshot.gz &&
	grep -q 'taken before it, or in another process\$' err
"

test_expect_success 'a BASELINE that is no snapshot is refused, named' "
	echo '{}' >nosnap.json &&
	refused --since=nosnap.json $S/workerd-final.heapsnapshot.gz &&
	grep -q ': --since=nosnap.json: ' err &&
	refused --since=missing.heapsnapshot $S/workerd-final.heapsnapshot.gz &&
	grep -q ': --since=missing.heapsnapshot: ' err &&
	perl '$SRC/tests/hostile/gen-heapsnapshot.pl' lie-nodes >lie.heapsnapshot &&
	refused --since=lie.heapsnapshot $S/workerd-final.heapsnapshot.gz &&
	grep -q ': --since=lie.heapsnapshot: snapshot.node_count is 5, nodes holds 2 (at byte [0-9]*)\$' err
"

test_expect_success '--until without --since, a bad --paths: usage errors' '
	test_usage pprof-top --until=x y &&
	grep -q "^pprof-top: --until needs --since" err &&
	test_usage pprof-fold --paths=callers y &&
	grep -q "^pprof-fold: unknown --paths .callers." err
'

test_expect_success 'on a profile that is no snapshot the options are warned of' '
	pprof-fold --since=x "$FIX/profiles/workerd-min.cpuprofile" >actual 2>err &&
	pprof-fold "$FIX/profiles/workerd-min.cpuprofile" >expect &&
	test_cmp expect actual &&
	grep -q "^pprof-fold: warning: --since, --until and --paths apply to heap snapshots only\$" err
'

# Hostile: a 10^6-long chain.  Its retainer paths are quadratic in the
# input (every object's path holds all before it): refused by the frames
# bound; along the dominator chain it is one frame.
GEN="perl $SRC/tests/hostile/gen-heapsnapshot.pl"
test_expect_success 'a 10^6-long chain: one frame by dominators, retainer paths refused' '
	$GEN chain 10 >small.heapsnapshot &&
	$GEN chain 1000000 >chain.heapsnapshot &&
	timeout $((60 * TSCALE)) pprof-fold --since=small.heapsnapshot chain.heapsnapshot >actual &&
	echo "Node 15999840" >expect &&
	test_cmp expect actual &&
	timeout $((60 * TSCALE)) pprof-fold --paths=retainers chain.heapsnapshot >out 2>err;
	test $? = 1 && test ! -s out && test "$(wc -l <err)" = 1 &&
	grep -q "stacks expand to more than" err
'

test_done
