#!/bin/sh
# Hostile heap snapshots, made at test time by
# tests/hostile/gen-heapsnapshot.pl: inconsistent counts and indexes are
# refused with one line naming the byte; a 10^6-deep dominator chain, 10^7
# edges on one node and a cycle through the root give their profile; a
# chain of two classes taking turns (stacks quadratic in the input) is
# refused.  Each ends within 60 s and (outside ASan) 1 GB.
. "$(dirname "$0")/../lib.sh"
GEN="perl $SRC/tests/hostile/gen-heapsnapshot.pl"

limit_mem=1
[ -n "$SANITIZED" ] && limit_mem=
run_bounded() {
	(
		[ -n "$limit_mem" ] && ulimit -v 1048576
		exec timeout $((60 * TSCALE)) "$@"
	)
}

# refused CASE MESSAGE: exit 1, empty stdout, the one line MESSAGE.
refused() {
	$GEN "$1" >"$1.heapsnapshot" &&
	run_bounded pprof-fold "$1.heapsnapshot" >out 2>err
	got=$?
	printf '%s\n' "pprof-fold: $1.heapsnapshot: $2" >expect
	[ "$got" = 1 ] && [ ! -s out ] && test_cmp expect err
}

test_expect_success 'an edge to the node after the last' '
	refused past "edge 0: to_node 10 is past the nodes (at byte 464)"
'
test_expect_success 'a node_count that lies' '
	refused lie-nodes "snapshot.node_count is 5, nodes holds 2 (at byte 400)"
'
test_expect_success 'an edge_count that lies' '
	refused lie-edges "snapshot.edge_count is 7, edges holds 1 (at byte 415)"
'
test_expect_success 'edge counts that take the edges past their end' '
	refused lie-sum "node 0: its edge_count takes the edges past the 1 there are (at byte 436)"
'
test_expect_success 'a to_node that is not a multiple of the node fields' '
	refused notmult "edge 0: to_node 6 is not a multiple of 5 node fields (at byte 464)"
'
test_expect_success 'an edge type outside edge_types' '
	refused badtype "edge 0: type 9 is not in snapshot.meta.edge_types (at byte 460)"
'
test_expect_success 'an edge name past the strings' '
	refused badname "edge 0: name 99 is not in strings (at byte 462)"
'
test_expect_success 'a snapshot without snapshot.meta' '
	refused nometa "not a heap snapshot: no snapshot.meta (at byte 12)"
'
test_expect_success 'a truncated snapshot' '
	refused truncated "unexpected end of input (at byte 502)"
'
test_expect_success 'a cycle through the root' '
	$GEN rootcycle >c.heapsnapshot &&
	run_bounded pprof-fold c.heapsnapshot >actual &&
	printf "Node 16\nNode;Leaf 8\n" >expect &&
	test_cmp expect actual
'
test_expect_success 'a dominator chain of 10^6 nodes of one class is one frame' '
	$GEN chain 1000000 >chain.heapsnapshot &&
	run_bounded pprof-fold chain.heapsnapshot >actual &&
	echo "Node 16000000" >expect &&
	test_cmp expect actual
'
test_expect_success '10^7 edges on one node' '
	$GEN wide 10000000 >wide.heapsnapshot &&
	run_bounded pprof-top --format=tsv -i objects wide.heapsnapshot >tsv &&
	sed "1,/^flat/d" tsv | cut -f 1,4,6 >actual &&
	printf "1\t1\tLeaf\n1\t2\tNode\n" >expect &&
	test_cmp expect actual
'
test_expect_success 'a chain of two classes taking turns is refused, not written' '
	$GEN altchain 1000000 >alt.heapsnapshot &&
	run_bounded pprof-fold alt.heapsnapshot >out 2>err;
	test $? = 1 && test ! -s out && test "$(wc -l <err)" = 1 &&
	grep -q "dominator-chain stacks expand to more than" err
'
test_expect_success 'a location whose object_index is no node' '
	refused badloc "location 0: object_index 99 is not a node (at byte 625)"
'
test_expect_success 'a located class: its script through shared -> script -> name' '
	$GEN located >located.heapsnapshot &&
	pprof-fold -g lines located.heapsnapshot >out &&
	grep -qx "C app.js:3 24" out &&
	pprof-fold located.heapsnapshot >out &&
	grep -qx "C 24" out
'

# Gzipped, a snapshot is read as a stream: the errors found once all is
# read name the same byte of the inflated text (looked up again).
for c in lie-sum badname badloc notmult truncated; do
	test_expect_success "gzipped $c: the same one line as plain" "
		\$GEN $c >$c.heapsnapshot &&
		gzip -c $c.heapsnapshot >$c.heapsnapshot.gz &&
		{ pprof-fold $c.heapsnapshot 2>expect; test \$? = 1; } &&
		{ pprof-fold $c.heapsnapshot.gz 2>actual; test \$? = 1; } &&
		sed 's/heapsnapshot: /heapsnapshot.gz: /' expect >expect.gz &&
		test_cmp expect.gz actual
	"
done

test_done
