#!/usr/bin/perl
# flame-frames.pl SVG: prints the frames of a flame graph written by
# pprof-flame or by flamegraph.pl, one per line, sorted, as
#   y <tab> x <tab> width <tab> height <tab> fill <tab> title <tab> label
# with entities decoded and colours as rgb(R,G,B), so that the two
# programs' outputs can be compared frame by frame with diff.
use strict;
use warnings;

local $/;
my $svg = <>;
$svg =~ s/<script.*?<\/script>//s;
$svg =~ /<g id="frames"[^>]*>(.*)<\/g>\s*(?:<\/svg>|$)/s or die "no frames group\n";
my $frames = $1;

sub decode {
	my $s = shift;
	$s =~ s/&lt;/</g;
	$s =~ s/&gt;/>/g;
	$s =~ s/&quot;/"/g;
	$s =~ s/&#(\d+);/chr($1)/ge;
	$s =~ s/&amp;/&/g;
	return $s;
}

sub colour {
	my $c = shift;
	return sprintf("rgb(%d,%d,%d)", hex($1), hex($2), hex($3))
		if $c =~ /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i;
	$c =~ s/\s+//g;
	return $c;
}

my @out;
while ($frames =~ /<(?:g|a)\b[^>]*>\s*<title>(.*?)<\/title>\s*<rect\b([^>]*?)\/?>\s*(?:<text\b[^>]*>(.*?)<\/text>)?\s*<\/(?:g|a)>/sg) {
	my ($title, $attrs, $label) = ($1, $2, $3);
	my %a;
	$a{$1} = $2 while $attrs =~ /([\w:-]+)="([^"]*)"/g;
	$label = "" unless defined $label;
	push @out, join("\t", $a{y}, $a{x}, $a{width}, $a{height}, colour($a{fill}),
		decode($title), decode($label));
}
print "$_\n" for sort @out;
