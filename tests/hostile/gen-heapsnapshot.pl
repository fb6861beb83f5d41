#!/usr/bin/perl
# tests/hostile/gen-heapsnapshot.pl: writes hostile heap snapshots, made at
# test time by tests/cli/t1110-heapsnapshot-hostile.sh (perl-base only).
#
#   gen-heapsnapshot.pl CASE [N] >FILE
#
# CASE: chain (a dominator chain of N objects of one class), altchain (the
# same with two classes taking turns), wide (one node with N edges),
# rootcycle (root -> a -> b -> root), past (an edge to the node after the
# last), lie-nodes, lie-edges (header counts that are wrong), lie-sum (edge
# counts that do not add up), notmult (a to_node not a multiple of the
# node fields), badtype, badname, nometa, truncated, badloc (a location's
# object_index past the nodes), located (a class C whose constructor
# closure's shared -> script -> name is app.js, with locations).
use strict;
use warnings;

binmode STDOUT;
my ($case, $n) = @ARGV;
$n //= 10;

# node: [type, name, id, self, edges...]; edges [type, name, to ordinal]
my @types = qw(hidden array string object code closure regexp number native synthetic);
my %t = map { $types[$_] => $_ } 0 .. $#types;
my @strings = ('', '(GC roots)', 'Node', 'Leaf', 'next', 'x');
my $nf = 5;

sub header {
	my ($nodes, $edges, $loc) = @_;
	return '{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],'
	  . ($loc ? '"location_fields":["object_index","script_id","line","column"],' : '')
	  . '"node_types":[[' . join(',', map {"\"$_\""} @types) . '],"string","number","number","number"],'
	  . '"edge_fields":["type","name_or_index","to_node"],'
	  . '"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],'
	  . '"string_or_number","node"]},' . "\"node_count\":$nodes,\"edge_count\":$edges},\n";
}
sub strings { return '"strings":[' . join(',', map {"\"$_\""} @strings) . "]}\n"; }

if ($case eq 'nometa') {
	print '{"snapshot":{"node_count":0},"nodes":[],"edges":[],"strings":[]}', "\n";
	exit;
}
if ($case eq 'badloc' || $case eq 'located') {
	# root -> C (object) -> C (closure) -shared-> SFI -script-> Script -name-> "app.js"
	push @strings, 'C', 'shared', 'script', 'app.js', 'c', 'name';
	print header(6, 6, 1);
	print '"nodes":[', "$t{synthetic},1,1,0,2,$t{object},6,3,24,1,$t{closure},6,5,32,1,",
	  "$t{hidden},0,7,8,1,$t{code},0,9,8,1,$t{string},9,11,16,0],\n";
	print '"edges":[2,4,5,2,10,10,2,10,10,3,7,15,3,8,20,3,11,25],', "\n";
	print '"locations":[', ($case eq 'badloc' ? 99 : 5), ',3,2,6,10,3,2,6],', "\n";
	print strings();
	exit;
}
if ($case eq 'chain' || $case eq 'altchain') {
	# root (synthetic) -> 1 -> 2 -> ... -> n, each an object of 16 bytes
	print header($n + 1, $n);
	print '"nodes":[', "$t{synthetic},1,1,0,1";
	for my $i (1 .. $n) {
		my $name = $case eq 'altchain' && $i % 2 ? 3 : 2;
		print ",\n$t{object},$name,", 2 * $i + 1, ',16,', ($i < $n ? 1 : 0);
	}
	print "],\n", '"edges":[';
	for my $i (0 .. $n - 1) {
		print ',' if $i;
		print "2,4,", ($i + 1) * $nf;
	}
	print "],\n", strings();
	exit;
}
if ($case eq 'wide') {
	# root -> hub, hub -> leaf N times
	print header(3, $n + 1);
	print '"nodes":[', "$t{synthetic},1,1,0,1,$t{object},2,3,32,$n,$t{object},3,5,8,0],\n";
	print '"edges":[2,5,', $nf;
	my $e = ",1,0," . 2 * $nf;
	my $chunk = $e x 1000;
	my $k = $n;
	while ($k >= 1000) {
		print $chunk;
		$k -= 1000;
	}
	print $e x $k, "],\n", strings();
	exit;
}
my %bad = (
	rootcycle => [3, 3, '2,4,5', '2,4,10', '2,4,0', ''],
	past => [2, 1, '2,4,10', ''],
	'lie-nodes' => [5, 1, '2,4,5', ''],
	'lie-edges' => [2, 7, '2,4,5', ''],
	'lie-sum' => [2, 1, '2,4,5', 'sum'],
	notmult => [2, 1, '2,4,6', ''],
	badtype => [2, 1, '9,4,5', ''],
	badname => [2, 1, '2,99,5', ''],
	truncated => [2, 1, '2,4,5', 'trunc'],
);
my $b = $bad{$case} or die "gen-heapsnapshot.pl: unknown case $case\n";
my ($count, $ecount, @edges) = @$b;
my $how = pop @edges;
my $nodes = $case eq 'rootcycle'
  ? "$t{synthetic},1,1,0,1,$t{object},2,3,16,1,$t{object},3,5,8,1"
  : "$t{synthetic},1,1,0," . ($how eq 'sum' ? 2 : 1) . ",$t{object},2,3,16,0";
my $out = header($count, $ecount) . "\"nodes\":[$nodes],\n\"edges\":[" . join(',', @edges) . "],\n" . strings();
$out = substr($out, 0, length($out) - 20) if $how eq 'trunc';
print $out;
