#!/usr/bin/perl
# gen-names-pprof.pl CASE >FILE: a small pprof (uncompressed) whose file
# names pprof prints other than stored, for t0210-fold-pprof-names.sh.
#   clean   file names filepath.Clean changes (//main.py, lib/./x/../y.py,
#           /a//b/, ../up/./z.go), and a function with lines but no file
#   scheme  file names with a scheme, which stay as they are
use strict;
use warnings;
binmode STDOUT;

sub varint {
	my ($v) = @_;
	my $s = '';
	while ($v >= 0x80) {
		$s .= chr(($v & 0x7f) | 0x80);
		$v >>= 7;
	}
	return $s . chr($v);
}
sub key { my ($f, $wt) = @_; return varint(($f << 3) | $wt); }
sub vi  { my ($f, $v) = @_;  return key($f, 0) . varint($v); }
sub ld  { my ($f, $d) = @_;  return key($f, 2) . varint(length $d) . $d; }
sub packed { my ($f, @v) = @_; return ld($f, join('', map { varint($_) } @v)); }

my %files = (
	clean => ['//main.py', 'lib/./x/../y.py', '/a//b/', '../up/./z.go'],
	scheme => ['webpack://app/./src//a.ts', 'file:///app/../x.js', 'node:internal//fs',
		   'C://dir/./c.js'],
);
my $case = $ARGV[0] // '';
die "usage: gen-names-pprof.pl clean|scheme\n" unless $files{$case};
my @str = ('', 'samples', 'count', 'main', 'work', 'noFile', @{$files{$case}});
print map { ld(6, $_) } @str;
print ld(1, vi(1, 1) . vi(2, 2));
# functions [id, name, filename]: string ids above
for ([1, 3, 6], [2, 4, 7], [3, 5, 0], [4, 4, 8], [5, 5, 9]) {
	print ld(5, vi(1, $_->[0]) . vi(2, $_->[1]) . vi(4, $_->[2]));
}
# locations [id, function, line]
for ([1, 1, 10], [2, 2, 20], [3, 3, 74], [4, 3, 75], [5, 4, 5], [6, 5, 0], [7, 3, 0]) {
	print ld(4, vi(1, $_->[0]) . ld(4, vi(1, $_->[1]) . vi(2, $_->[2])));
}
# samples [[location ids, leaf first], value]
for ([[3, 2, 1], 5], [[4, 2, 1], 7], [[5, 1], 3], [[6, 3, 1], 2], [[7, 1], 11], [[2, 1], 1]) {
	print ld(2, packed(1, @{$_->[0]}) . packed(2, $_->[1]));
}
