#!/bin/sh
# One folded reader for every program: on the same folded input, with -i,
# -m (a map directory that maps nothing: folded frames have no script) and
# a filter, pprof-fold, pprof-top, pprof-diff, pprof-flame and
# pprof-convert give the same values; a bad -i fails the same way in each;
# fractional counts give flamegraph.pl's numbers in pprof-flame with or
# without -m and filters, and are rounded (with a warning) elsewhere.
. "$(dirname "$0")/../lib.sh"

FRAMES="$SRC/tests/cli/flame-frames.pl"

# Per function, the value of the stacks it is in (no recursion in these
# inputs, so a flame graph's frames of one name add up to it as well).
fold_cum() {
	awk '{
		match($0, / [^ ]*$/); s = substr($0, 1, RSTART - 1); v = substr($0, RSTART + 1)
		n = split(s, f, ";"); delete seen
		for (i = 1; i <= n; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; c[f[i]] += v }
	} END { for (k in c) print k, c[k] }' "$@" | LC_ALL=C sort
}
top_cum() {
	awk -F '\t' '$1 ~ /^[0-9-]+$/ { print $6, $4 }' "$@" | LC_ALL=C sort
}
flame_cum() {
	sed -n 's/.*<title>\(.*\) (\([0-9.,]*\) samples, [^)]*)<\/title>.*/\1 \2/p' "$@" |
		awk '$1 != "all" { c[$1] += $2 } END { for (k in c) print k, c[k] }' | LC_ALL=C sort
}

# Each test runs in a directory of its own: the inputs, made there.
inputs() {
	printf "r;x;y 3\nr;x;z 5\nr;w 2\nr;x;y 1\n" >in.folded &&
	mkdir maps &&
	printf "r;x;y 4\nr;x;z 5\n" >expect.folded &&
	printf "r 9\nx 9\ny 4\nz 5\n" >expect.cum &&
	printf "a;b 1.5\na;c 2.25\n" >frac.folded &&
	# flamegraph.pl 1.0 on frac.folded (its frames as flame-frames.pl
	# lists them: y, x, width, height, fill, title, label): it shows the
	# counts rounded, and their percentages of the exact total, 3.75.
	tab=$(printf "\t") &&
	sed "s/|/$tab/g" >expect.frames <<-\EOF
	37|10.0|472.0|15.0|rgb(230,117,28)|b (2 samples, 53.33%)|b
	37|482.0|708.0|15.0|rgb(224,87,20)|c (2 samples, 53.33%)|c
	53|10.0|1180.0|15.0|rgb(236,146,35)|a (4 samples, 106.67%)|a
	69|10.0|1180.0|15.0|rgb(213,39,9)|all (4 samples, 100%)|
	EOF
}

for opts in "" "-i samples" "-m maps" "-i samples -m maps"; do
	test_expect_success "every program, ${opts:-no options} --focus x: the same values" '
		inputs &&
		pprof-fold $opts --focus x in.folded >fold.out &&
		test_cmp expect.folded fold.out &&
		pprof-top $opts --focus x --format=tsv in.folded >top.tsv &&
		top_cum top.tsv >top.cum &&
		test_cmp expect.cum top.cum &&
		pprof-diff $opts --focus x in.folded in.folded >diff.out &&
		sed "s/ [0-9]*$//" diff.out >diff.after &&
		test_cmp expect.folded diff.after &&
		pprof-flame $opts --focus x in.folded >g.svg &&
		flame_cum g.svg >flame.cum &&
		test_cmp expect.cum flame.cum &&
		pprof-convert ${opts#-i samples} --focus x in.folded >c.pb.gz &&
		pprof-fold c.pb.gz >convert.out &&
		test_cmp expect.folded convert.out
	'
done

test_expect_success 'no filter: the whole input, the same in each' '
	inputs &&
	printf "r;w 2\nr;x;y 4\nr;x;z 5\n" >expect.all &&
	pprof-fold -m maps in.folded >fold.out &&
	test_cmp expect.all fold.out &&
	pprof-flame -m maps in.folded >g1.svg &&
	pprof-flame in.folded >g2.svg &&
	test_cmp g2.svg g1.svg &&
	flame_cum g1.svg >flame.cum &&
	fold_cum expect.all >expect.allcum &&
	test_cmp expect.allcum flame.cum
'

test_expect_success '-i bogus: exit 1, the same one line in each program' '
	inputs &&
	for prog in pprof-fold pprof-top pprof-flame; do
		test_fails 1 $prog -i bogus in.folded &&
		echo "$prog: in.folded: sample type bogus not found; the profile has: samples" >expect &&
		test_cmp expect err || return 1
	done &&
	test_fails 1 pprof-diff -i bogus in.folded in.folded &&
	echo "pprof-diff: in.folded: sample type bogus not found; the profile has: samples" >expect &&
	test_cmp expect err
'

test_expect_success '3 columns: -i picks a column in each program' '
	inputs &&
	printf "r;x 1 4\nr;y 2 0\n" >three.folded &&
	printf "r;x 1\nr;y 2\n" >expect.before &&
	pprof-fold -i before three.folded >fold.out &&
	test_cmp expect.before fold.out &&
	pprof-diff -i before three.folded three.folded >diff.out &&
	printf "r;x 1 1\nr;y 2 2\n" >expect &&
	test_cmp expect diff.out &&
	test_fails 1 pprof-flame -i bogus three.folded &&
	echo "pprof-flame: three.folded: sample type bogus not found; the profile has: before after" >expect &&
	test_cmp expect err
'

for opts in "" "-m maps" "--focus a" "-m maps --hide zzz" "-i samples -m maps --show ."; do
	test_expect_success "fractions: pprof-flame ${opts:-without options} draws flamegraph.pl's frames" '
		inputs &&
		pprof-flame --quiet $opts frac.folded >g.svg &&
		perl "$FRAMES" g.svg >me.frames &&
		test_cmp expect.frames me.frames
	'
done

if [ -n "${FLAMEGRAPH_PL:-}" ] && [ -f "$FLAMEGRAPH_PL" ]; then
	test_expect_success 'fractions: the golden frames are flamegraph.pl'"'"'s' '
		inputs &&
		perl "$FLAMEGRAPH_PL" frac.folded >fg.svg 2>/dev/null &&
		perl "$FRAMES" fg.svg >fg.frames &&
		test_cmp expect.frames fg.frames
	'
else
	test_skip "FLAMEGRAPH_PL is not set to flamegraph.pl"
fi

test_expect_success 'a differential graph is the same with -m and a filter' '
	inputs &&
	printf "r;x 1 4\nr;y 2 0\nr;x;q 0.5 1.5\n" >three.folded &&
	pprof-flame three.folded >a.svg &&
	perl "$FRAMES" a.svg >a.frames &&
	test "$(wc -l <a.frames)" = 4 &&
	pprof-flame -m maps --focus r three.folded >b.svg &&
	perl "$FRAMES" b.svg >b.frames &&
	test_cmp a.frames b.frames
'

test_expect_success 'fractions elsewhere: rounded half away from zero, one warning' '
	inputs &&
	printf "a;b 2\na;c 2\n" >expect &&
	pprof-fold -m maps frac.folded >fold.out 2>err &&
	test_cmp expect fold.out &&
	echo "pprof-fold: warning: fractional counts rounded half away from zero" >expect.err &&
	test_cmp expect.err err &&
	pprof-top --format=tsv frac.folded >top.tsv 2>err &&
	grep -q "^# total	4$" top.tsv &&
	echo "pprof-top: warning: fractional counts rounded half away from zero" >expect.err &&
	test_cmp expect.err err
'

test_expect_success 'the field before the count: a count only when the whole field is one' '
	inputs &&
	printf "a;b 1-1 34\na;12 5\nc b-1 6\nd e+2 7\n7 8\n" >two.folded &&
	printf "7 8\na;12 5\na;b 1-1 34\nc b-1 6\nd e+2 7\n" >expect &&
	pprof-fold two.folded >out &&
	test_cmp expect out &&
	printf "x 1.5 2\ny\t+2 3\n" >three.folded &&
	printf "x 2\ny 2\n" >expect &&
	pprof-fold -i before three.folded >out 2>err &&
	test_cmp expect out
'

test_done
