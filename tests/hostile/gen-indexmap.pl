#!/usr/bin/perl
# tests/hostile/gen-indexmap.pl: writes an index source map of N sections.
#
#   gen-indexmap.pl N >FILE
#
# Section I starts at generated line I, column 0, and is a map of one
# source "sI.js" whose one segment maps generated column 0 to line
# I mod 997, column 0 of it (so that every section answers something of
# its own).  With N = 1,000,000 the file is 97 MiB, the index map of
# issue 14, which once took 8 s and 858 MB for one look-up.  Made at test
# time by tests/cli/t0955-hostile-sourcemap.sh, never committed; only
# perl-base is needed.
use strict;
use warnings;

my $n = shift // die "usage: gen-indexmap.pl N\n";
binmode STDOUT;

# One base64 VLQ.
sub vlq {
	my ($v) = @_;
	my $u = $v < 0 ? ((-$v) << 1) | 1 : $v << 1;
	my $b64 = join '', 'A' .. 'Z', 'a' .. 'z', '0' .. '9', '+', '/';
	my $s = '';
	do {
		my $d = $u & 31;
		$u >>= 5;
		$d |= 32 if $u;
		$s .= substr($b64, $d, 1);
	} while ($u);
	return $s;
}

print '{"version":3,"sections":[';
for my $i (0 .. $n - 1) {
	print ',' if $i;
	print qq({"offset":{"line":$i,"column":0},"map":{"version":3,),
	    qq("sources":["s$i.js"],"mappings":"AA), vlq($i % 997), qq(A"}});
}
print "]}\n";
