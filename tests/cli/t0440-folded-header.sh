#!/bin/sh
# --header on pprof-fold and pprof-diff: one "# sample_type=TYPE/UNIT" line
# before the folded lines, off by default (the output byte for byte what it
# was), read back by pprof-flame, pprof-diff and pprof-top, which then know
# the unit of folded text.
. "$(dirname "$0")/../lib.sh"

P=$FIX/pprof

test_expect_success 'pprof-fold --header: one comment line, then the lines as without it' '
	pprof-fold "$P/workerd-min.cpu.pb.gz" >plain.folded &&
	pprof-fold --header "$P/workerd-min.cpu.pb.gz" >head.folded &&
	echo "# sample_type=wall/nanoseconds" >expect &&
	head -1 head.folded >actual && test_cmp expect actual &&
	sed 1d head.folded >rest && cmp plain.folded rest &&
	! grep -q "^#" plain.folded
'
test_expect_success 'pprof-fold --header of folded text: samples/count' '
	printf "a;b 3\na 1\n" | pprof-fold --header >actual &&
	printf "# sample_type=samples/count\na 1\na;b 3\n" >expect &&
	test_cmp expect actual
'
test_expect_success 'pprof-flame reads the header: units and subtitle, as from the profile' '
	pprof-fold --header "$P/workerd-min.cpu.pb.gz" >head.folded &&
	pprof-flame --subtitle s head.folded >a.svg &&
	pprof-flame --subtitle s "$P/workerd-min.cpu.pb.gz" >b.svg &&
	cmp a.svg b.svg &&
	pprof-flame head.folded >c.svg && xmllint --noout c.svg &&
	grep -q "<text id=\"subtitle\" x=\"600.00\" y=\"48\">head.folded — wall (nanoseconds), total 2.41 s</text>" c.svg
'
test_expect_success 'gzipped and piped, the header still read' '
	pprof-fold --header "$P/workerd-min.cpu.pb.gz" | gzip | pprof-flame --subtitle s >a.svg &&
	pprof-flame --subtitle s "$P/workerd-min.cpu.pb.gz" >b.svg && cmp a.svg b.svg
'
test_expect_success 'pprof-diff --header | pprof-flame: the unit is not lost' '
	pprof-diff "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" >plain.diff &&
	pprof-diff --header "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" >head.diff &&
	echo "# sample_type=wall/nanoseconds" >expect &&
	head -1 head.diff >actual && test_cmp expect actual &&
	sed 1d head.diff >rest && cmp plain.diff rest &&
	pprof-flame --subtitle s head.diff >a.svg &&
	pprof-flame --subtitle s --diff "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" >b.svg &&
	cmp a.svg b.svg
'
test_expect_success 'pprof-diff --header with --top is a usage error' '
	test_usage pprof-diff --header --top "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz"
'
test_expect_success 'pprof-diff: a folded side with a header must match the other unit' '
	printf "# sample_type=space/bytes\na 1\n" >bytes.folded &&
	test_fails 1 pprof-diff bytes.folded "$P/workerd-min.cpu.nomap.pb.gz" &&
	grep -q "incompatible sample types: space/bytes" err &&
	pprof-fold --header "$P/workerd-min.cpu.nomap.pb.gz" >head.folded &&
	pprof-diff head.folded "$P/workerd-min-b.cpu.nomap.pb.gz" >actual &&
	pprof-diff "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" >expect &&
	test_cmp expect actual
'
test_expect_success 'pprof-top of folded text with a header: its type and unit' '
	pprof-fold --header "$P/workerd-min.cpu.pb.gz" >head.folded &&
	pprof-top head.folded >actual &&
	grep -q "^Type: wall$" actual &&
	grep -q "of 2410ms total" actual
'
test_expect_success 'several folded inputs: one header types them all; two different ones are refused' '
	printf "# sample_type=wall/nanoseconds\na;b 1\n" >h.folded &&
	printf "a 1\n" >n.folded &&
	pprof-fold h.folded h.folded n.folded >actual &&
	printf "a 1\na;b 2\n" >expect && test_cmp expect actual &&
	pprof-top n.folded h.folded >top && grep -q "^Type: wall$" top &&
	printf "# sample_type=space/bytes\na 1\n" >b.folded &&
	test_fails 1 pprof-fold h.folded b.folded &&
	grep -q "incompatible sample types: space/bytes is not in the first input" err
'
test_expect_success 'a header that does not parse is only a comment' '
	printf "# sample_type=nounit\na 1\n" | pprof-flame >out.svg &&
	! grep -q "id=\"subtitle\"" out.svg &&
	grep -q "<title>a (1 samples, 100.00%)</title>" out.svg
'

test_done
