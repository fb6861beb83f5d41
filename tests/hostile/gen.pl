#!/usr/bin/perl
# tests/hostile/gen.pl: writes hostile inputs.
#
#   gen.pl CASE [N] >FILE
#
# The small cases are committed next to this script (tests/hostile/*.pb ...,
# regenerate them with `gen.pl CASE >CASE-FILE`); the big ones are made at
# test time by tests/cli/t0960-hostile-generated.sh, never committed.  Only
# perl-base is needed (Debian's essential perl), so no modules.
use strict;
use warnings;
no warnings "portable";

binmode STDOUT;

# ---- protobuf wire format (profile.proto field numbers, FORMATS.md) ----
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

# String table from a list (index 0 must be "").
sub strings { return join('', map { ld(6, $_) } @_); }
sub sample_type { my ($t, $u) = @_; return ld(1, vi(1, $t) . vi(2, $u)); }
sub function { my ($id, $name) = @_; return ld(5, vi(1, $id) . vi(2, $name)); }
sub location {
	my ($id, @fns) = @_;
	return ld(4, vi(1, $id) . join('', map { ld(4, vi(1, $_)) } @fns));
}
# A location of one function at a line.
sub location_line {
	my ($id, $fn, $line) = @_;
	return ld(4, vi(1, $id) . ld(4, vi(1, $fn) . vi(2, $line)));
}
sub sample {
	my ($locs, $vals) = @_;
	return ld(2, packed(1, @$locs) . packed(2, @$vals));
}

# A valid profile: strings "", samples, count, main, f; main -> f.
sub base {
	return strings('', 'samples', 'count', 'main', 'f') . sample_type(1, 2)
	    . function(1, 3) . function(2, 4) . location(1, 1) . location(2, 2);
}

my $INT64_MAX = 9223372036854775807;

my %small = (
	# a valid profile, for the outcomes that succeed
	'ok.pb' => sub { base() . sample([2, 1], [5]) },
	# a varint of eleven bytes
	'varint-overflow.pb' => sub {
		strings('') . key(9, 0) . ("\xff" x 10) . "\x01"
	},
	# a varint cut by the end of the input
	'varint-truncated.pb' => sub { strings('') . key(9, 0) . "\xff\xff" },
	# a length-delimited field longer than the input
	'length-overflow.pb' => sub {
		strings('') . key(2, 2) . varint(0x7fffffffffffffff) . 'x'
	},
	'wire-type.pb' => sub { strings('') . key(5, 7) . 'x' },
	'string-index.pb' => sub { base() . ld(1, vi(1, 77) . vi(2, 2)) . sample([1], [1]) },
	'string-index-huge.pb' => sub {
		base() . ld(5, vi(1, 9) . vi(2, 0xffffffffffffffff)) . sample([2, 1], [1])
	},
	'string0.pb' => sub { strings('x', 'samples') . sample_type(1, 1) },
	'no-strings.pb' => sub { sample_type(0, 0) },
	'dangling-location.pb' => sub { base() . sample([99], [1]) },
	'dangling-function.pb' => sub { base() . location(3, 42) . sample([3], [1]) },
	'dangling-mapping.pb' => sub {
		base() . ld(4, vi(1, 3) . vi(2, 5)) . sample([3], [1])
	},
	'duplicate-location.pb' => sub { base() . location(1, 2) . sample([1], [1]) },
	'location-id0.pb' => sub { base() . location(0, 1) . sample([1], [1]) },
	'value-count.pb' => sub { base() . sample([1], [1, 2]) },
	'no-sample-type.pb' => sub {
		strings('', 'f') . function(1, 1) . location(1, 1) . sample([1], [1])
	},
	# two samples on one stack whose sum leaves int64
	'sum-overflow.pb' => sub {
		base() . sample([2, 1], [$INT64_MAX]) . sample([2, 1], [1])
	},
	# the same on two stacks that only fold into one line at the
	# functions granularity: two functions f, of files a.go and b.go (a
	# reader that merges one function's lines keeps them apart)
	'fold-overflow.pb' => sub {
		base() . strings('a.go', 'b.go')
		    . ld(5, vi(1, 3) . vi(2, 4) . vi(4, 5)) . ld(5, vi(1, 4) . vi(2, 4) . vi(4, 6))
		    . location_line(3, 3, 7) . location_line(4, 4, 8)
		    . sample([3, 1], [$INT64_MAX]) . sample([4, 1], [$INT64_MAX])
	},
	# two profiles back to back (protobuf merges them field by field)
	'concat.pb' => sub {
		my $p = base() . vi(9, 1000) . sample([2, 1], [1]);
		$p . $p
	},
	'drop-frames-regex.pb' => sub {
		strings('', 'samples', 'count', 'main', '(') . sample_type(1, 2)
		    . function(1, 3) . location(1, 1) . vi(7, 4) . sample([1], [1])
	},
	# a location that lists itself through a sample many times: no cycle
	# is possible in pprof, but a stack may repeat one location
	'repeat-location.pb' => sub { base() . sample([(1) x 1000], [1]) },
);

# ---- JSON (V8) ----
sub cpu_node {
	my ($id, $name, @kids) = @_;
	my $k = @kids ? ',"children":[' . join(',', @kids) . ']' : '';
	return qq({"id":$id,"callFrame":{"functionName":"$name","scriptId":"1","url":"a.js",)
	    . qq("lineNumber":0,"columnNumber":0},"hitCount":0$k});
}
sub cpuprofile {
	my ($nodes, $samples, $deltas) = @_;
	return '{"nodes":[' . join(',', @$nodes) . '],"startTime":0,"endTime":100,'
	    . '"samples":[' . join(',', @$samples) . '],"timeDeltas":['
	    . join(',', @$deltas) . "]}\n";
}

$small{'cycle.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 2), cpu_node(2, 'f', 3), cpu_node(3, 'g', 2)],
		   [3], [1])
};
$small{'self-child.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 1)], [1], [1])
};
$small{'dangling-child.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 7)], [1], [1])
};
$small{'two-parents.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 2, 3), cpu_node(2, 'f', 3), cpu_node(3, 'g')], [3], [1])
};
$small{'duplicate-id.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 2), cpu_node(2, 'f'), cpu_node(2, 'g')], [2], [1])
};
$small{'dangling-sample.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 2), cpu_node(2, 'f')], [9], [1])
};
$small{'delta-overflow.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 2), cpu_node(2, 'f')], [2, 2, 2],
		   [$INT64_MAX, $INT64_MAX, 5])
};
$small{'id-exponent.cpuprofile'} = sub {
	cpuprofile([cpu_node('1e400', '(root)', 2), cpu_node(2, 'f')], [2], [1])
};
$small{'bad-utf8.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 2), cpu_node(2, "f\xff\xfe")], [2], [1])
};
$small{'lone-surrogate.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 2), cpu_node(2, '\\ud800x')], [2], [1])
};
$small{'truncated.cpuprofile'} = sub {
	my $s = cpuprofile([cpu_node(1, '(root)', 2), cpu_node(2, 'f')], [2], [1]);
	substr($s, 0, length($s) - 20)
};
$small{'trailing.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 2), cpu_node(2, 'f')], [2], [1]) . "{}\n"
};
# names that would break a folded line or an SVG
$small{'names.cpuprofile'} = sub {
	cpuprofile([cpu_node(1, '(root)', 2), cpu_node(2, 'a;b\\nc\\r<d>&\\"e\\u0000', 3),
		    cpu_node(3, '<\/text><script>x</script>')], [3], [1])
};

sub heap_node {
	my ($id, $name, $self, @kids) = @_;
	return qq({"callFrame":{"functionName":"$name","scriptId":"1","url":"a.js","lineNumber":0,)
	    . qq("columnNumber":0},"selfSize":$self,"id":$id,"children":[) . join(',', @kids) . ']}';
}
$small{'self-overflow.heapprofile'} = sub {
	'{"head":' . heap_node(1, '(root)', 0, heap_node(2, 'f', $INT64_MAX), heap_node(3, 'f', 1))
	    . ',"samples":[]}' . "\n"
};
# V8 never writes a negative selfSize; summed, it would hide allocations
$small{'negative-self.heapprofile'} = sub {
	'{"head":' . heap_node(1, '(root)', 0, heap_node(2, 'f', 10), heap_node(3, 'g', -4))
	    . ',"samples":[]}' . "\n"
};
$small{'duplicate-id.heapprofile'} = sub {
	'{"head":' . heap_node(1, '(root)', 0, heap_node(2, 'f', 1), heap_node(2, 'g', 1))
	    . ',"samples":[{"size":1,"nodeId":2,"ordinal":1}]}' . "\n"
};

# ---- folded ----
$small{'count-overflow.folded'} = sub { "a;b 9223372036854775807\na;b 1\n" };
$small{'count-too-big.folded'} = sub { "a;b 9223372036854775808\n" };
# past int64 in a later line, and in the BEFORE column of a 3-column line
$small{'count-range-line2.folded'} = sub { "a;b 1\na;c 99999999999999999999\n" };
$small{'before-too-big.folded'} = sub { "a;b 1 2\na;c 18446744073709551616 1\n" };
$small{'columns.folded'} = sub { "a;b 1\na;c 1 2\n" };
$small{'no-count.folded'} = sub { "a;b\nc;d\n" };
# a count of 1e38 (pprof-flame's frame width once overflowed int64 there)
$small{'huge-count.folded'} = sub { "a;b 1" . ('0' x 38) . "\nc;d 1000\n" };
$small{'nul.folded'} = sub { "a\0b;c 1\n" };
$small{'utf16-odd.folded'} = sub { "\xff\xfea\0 \x001\0\n" };
$small{'utf16-surrogate.folded'} = sub { "\xff\xfe\x00\xd8 \x001\0" };

# ---- gzip (by hand: a stored block, so no zlib is needed) ----
sub gzip_stored {
	my ($data, $crc) = @_;
	my $n = length $data;
	return "\x1f\x8b\x08\x00\0\0\0\0\0\x03" . "\x01" . pack('v', $n) . pack('v', ~$n & 0xffff)
	    . $data . pack('V', $crc) . pack('V', $n);
}
$small{'bad-crc.folded.gz'} = sub { gzip_stored("a;b 1\n", 0x12345678) };
$small{'empty.gz'} = sub { gzip_stored('', 0) };
$small{'truncated-header.gz'} = sub { "\x1f\x8b\x08\x00\0\0" };

# ---- big ones, made at test time ----
sub deep_pprof {
	my ($n) = @_;
	my $s = strings('', 'samples', 'count', 'f') . sample_type(1, 2) . function(1, 3);
	$s .= location($_, 1) for 1 .. $n;
	return $s . sample([reverse 1 .. $n], [1]);
}
sub deep_cpuprofile {
	my ($n) = @_;
	my @nodes = (cpu_node(1, '(root)', 2));
	push @nodes, cpu_node($_, 'f', $_ < $n + 1 ? ($_ + 1) : ()) for 2 .. $n + 1;
	return cpuprofile(\@nodes, [$n + 1], [1]);
}
# N nodes nested under HEAD (ending in "children":[), node I made by
# NODE->(I, I is the leaf), closed, then TAIL
sub nested {
	my ($n, $head, $node, $tail) = @_;
	return $head . join('', map { $node->($_, $_ == $n + 1) } 2 .. $n + 1)
	    . (']}' x ($n + 1)) . $tail;
}
sub deep_heapprofile {
	my ($n) = @_;
	my $node = '{"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":0,'
	    . '"columnNumber":0},"selfSize":%d,"id":%d,"children":[';
	return nested($n, '{"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"",'
	    . '"lineNumber":-1,"columnNumber":-1},"selfSize":0,"id":1,"children":[',
	    sub { sprintf($node, $_[1] ? 7 : 0, $_[0]) }, ',"samples":[]}' . "\n");
}
# Node's old layout nested N deep, a line ticked in every node, and a
# hitCount of -1 at the leaf: the lines left out at first (pprof-fold's
# default) are wanted after all, and read again in one pass
sub deep_lines_cpuprofile {
	my ($n) = @_;
	my $node = '{"functionName":"f","url":"a.js","lineNumber":0,"id":%d,"hitCount":%d,'
	    . '"positionTicks":[{"line":2,"ticks":1}],"children":[';
	return nested($n, '{"head":{"functionName":"(root)","url":"","lineNumber":-1,"id":1,'
	    . '"hitCount":0,"children":[', sub { sprintf($node, $_[0], $_[1] ? -1 : 0) },
	    ',"startTime":0,"endTime":1}' . "\n");
}
sub deep_folded {
	my ($n) = @_;
	return join(';', ('f') x $n) . " 1\n";
}
# JSON nested N deep in a field of a .cpuprofile the reader skips (the
# default depth limit is 1,000,000; the object around it is level 1)
sub deep_json {
	my ($n) = @_;
	return '{"nodes":[' . cpu_node(1, '(root)') . '],"startTime":0,"endTime":1,'
	    . '"samples":[1],"timeDeltas":[1],"x":' . ('[' x ($n - 1)) . (']' x ($n - 1)) . "}\n";
}
# a stack whose frames differ, so nothing can share a name
sub deep_folded_distinct {
	my ($n) = @_;
	return join(';', map { "f$_" } 1 .. $n) . " 1\n";
}
# drop_frames that backtracks exponentially on N function names
sub redos_pprof {
	my ($n) = @_;
	my @names = map { ('a' x 40) . "!$_" } 1 .. $n;
	my $s = strings('', 'samples', 'count', '(a+)+$', @names) . sample_type(1, 2) . vi(7, 3);
	$s .= function($_, 3 + $_) . location($_, $_) for 1 .. $n;
	return $s . sample([1 .. $n], [1]);
}
# ---- ids chosen to collide in an unseeded hash table (hash flooding) ----
# 64-bit arithmetic with 16-bit limbs, exact in perl's doubles and integers.
sub limbs { my ($v) = @_; return map { ($v >> (16 * $_)) & 0xffff } 0 .. 3; }
sub mul64 {
	my @a = limbs($_[0]);
	my @b = limbs($_[1]);
	my @r = (0, 0, 0, 0);
	for my $i (0 .. 3) {
		my $carry = 0;
		for my $j (0 .. 3 - $i) {
			my $t = $r[$i + $j] + $a[$i] * $b[$j] + $carry;
			$r[$i + $j] = $t & 0xffff;
			$carry = int($t / 65536);
		}
	}
	return $r[0] | ($r[1] << 16) | ($r[2] << 32) | ($r[3] << 48);
}
# The pprof reader's old slot: fmix(id) & mask; ids whose fmix is J << 24.
sub pprof_flood_id {
	my ($j) = @_;
	my $t = $j << 24;
	my $x = $t ^ ($t >> 33);
	$x = mul64($x, 0x4f74430c22a54005);
	return $x ^ ($x >> 33);
}
sub flood_pprof {
	my ($n) = @_;
	my @ids = map { pprof_flood_id($_) } 1 .. $n;
	my $s = strings('', 'samples', 'count', 'f') . sample_type(1, 2) . function(1, 3);
	$s .= ld(4, vi(1, $_) . ld(4, vi(1, 1))) for @ids;
	return $s . sample([@ids[0 .. 99]], [1]);
}
# The V8 readers' old slot: (id * golden) >> 32; ids whose product is J.
sub flood_cpuprofile {
	my ($n) = @_;
	my @ids = map {
		my $u = mul64($_, 0xf1de83e19937733d);
		$u >= 2**63 ? sprintf('-%u', (~$u & 0xffffffffffffffff) + 1) : sprintf('%u', $u)
	} 1 .. $n;
	my @nodes = (cpu_node($ids[0], '(root)', @ids[1 .. $#ids]));
	push @nodes, cpu_node($_, 'f') for @ids[1 .. $#ids];
	return cpuprofile(\@nodes, [$ids[1]], [1]);
}

# Folded names of 16 bytes whose hash in the model's old unseeded string
# table (profile.c) was the same: the second 8-byte word undoes the first.
sub flood_folded {
	my ($n) = @_;
	my $g = 0x9e3779b97f4a7c15;
	my $h0 = 0x5bd1e995 ^ mul64(16, 0xff51afd7ed558ccd);
	my $w2base = mul64(0x0123456789abcdef, 0xf1de83e19937733d);
	my $out = '';
	for (my ($i, $k) = (0, 0); $k < $n; $i++) {
		my $w1b = sprintf('%08x', $i);
		my $h = mul64($h0 ^ unpack('Q<', $w1b), $g);
		$h ^= $h >> 32;
		my $w2b = pack('Q<', $w2base ^ $h);
		next if $w2b =~ /[\x00-\x20;#\x7f]/;
		$out .= "$w1b$w2b 1\n";
		$k++;
	}
	return $out;
}

# The same for the function table of pprof-diff --top (top.c's old hash).
sub flood_top_folded {
	my ($n) = @_;
	my $c1 = 0xff51afd7ed558ccd;
	my $h0 = 0x9E3779B97F4A7C15 ^ 16;
	my $w2base = mul64(0x0123456789abcdef, 0x4f74430c22a54005);
	my $out = '';
	for (my ($i, $k) = (0, 0); $k < $n; $i++) {
		my $w1b = sprintf('%08x', $i);
		my $h = mul64($h0 ^ unpack('Q<', $w1b), $c1);
		$h ^= $h >> 32;
		my $w2b = pack('Q<', $w2base ^ $h);
		next if $w2b =~ /[\x00-\x20;#\x7f]/;
		$out .= "$w1b$w2b 1\n";
		$k++;
	}
	return $out;
}

# One location of N inlined lines, repeated N times by a sample: N * N
# frames from a few N bytes.
sub inline_bomb {
	my ($n) = @_;
	my $s = strings('', 'samples', 'count', 'f') . sample_type(1, 2) . function(1, 3);
	$s .= ld(4, vi(1, 1) . join('', map { ld(4, vi(1, 1)) } 1 .. $n));
	return $s . sample([(1) x $n], [1]);
}

# Frame names whose FNV-1a hashes agree in their low 20 bits (pprof-flame's
# old name map): a name is N 4-byte blocks, each a choice of two that lead
# to the same low state, so 2^N names collide.  The low 20 bits of FNV-1a
# depend only on the low 20 bits of the state, the bytes and the prime.
sub fnv_names {
	my ($levels) = @_;
	my @alpha = ('a' .. 'z', 'A' .. 'Z', '0' .. '9', '_');
	my $state = 0xcbf29ce484222325 & 0xfffff;
	my @pairs;
	my $rnd = 1;
	for (1 .. $levels) {
		my %seen;
		for (;;) {
			my $blk = '';
			for (1 .. 4) {
				$rnd = ($rnd * 1103515245 + 12345) % 2147483648;
				$blk .= $alpha[($rnd >> 16) % @alpha];
			}
			my $st = $state;
			$st = (($st ^ ord($_)) * 0x1b3) & 0xfffff for split //, $blk;
			if (defined $seen{$st} && $seen{$st} ne $blk) {
				push @pairs, [$seen{$st}, $blk];
				$state = $st;
				last;
			}
			$seen{$st} = $blk;
		}
	}
	my @names = ('');
	for my $p (@pairs) {
		@names = map { my $n = $_; map { $n . $_ } @$p } @names;
	}
	return @names;
}
sub flood_fnv_cpuprofile {
	my ($levels) = @_;
	my @names = fnv_names($levels);
	my @ids = (2 .. @names + 1);
	my @nodes = (cpu_node(1, '(root)', @ids));
	push @nodes, cpu_node($ids[$_], $names[$_]) for 0 .. $#names;
	return cpuprofile(\@nodes, [@ids], [(1) x @ids]);
}

my %big = (
	'flood-fnv.cpuprofile' => \&flood_fnv_cpuprofile,
	'inline-bomb.pb' => \&inline_bomb,
	'flood-top.folded' => \&flood_top_folded,
	'flood.folded' => \&flood_folded,
	'flood.pb' => \&flood_pprof,
	'flood.cpuprofile' => \&flood_cpuprofile,
	'redos.pb' => \&redos_pprof,
	'deep.pb' => \&deep_pprof,
	'deep.cpuprofile' => \&deep_cpuprofile,
	'deep.heapprofile' => \&deep_heapprofile,
	'deep-lines.cpuprofile' => \&deep_lines_cpuprofile,
	'deep.folded' => \&deep_folded,
	'deep-distinct.folded' => \&deep_folded_distinct,
	'deep-json.cpuprofile' => \&deep_json,
);

my $case = shift @ARGV or die "usage: gen.pl CASE [N] >FILE\n";
if ($case eq '--list') {
	print "$_\n" for sort keys %small;
	exit 0;
}
if ($small{$case}) {
	print $small{$case}->();
} elsif ($big{$case}) {
	print $big{$case}->($ARGV[0] // 100000);
} else {
	die "gen.pl: no case '$case'\n";
}
