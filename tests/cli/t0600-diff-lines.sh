#!/bin/sh
# pprof-diff BEFORE AFTER: "stack BEFORE AFTER" lines for every stack in
# either input, bytewise sorted (difffolded.pl's output), checked against a
# join of the inputs' folded stacks computed here, against difffolded.pl
# itself when DIFFFOLDED_PL names it, and the fast path for plain folded
# text against the reader (gzipped input takes the reader's way).
. "$(dirname "$0")/../lib.sh"

A=$FIX/profiles/workerd-min.cpuprofile
B=$FIX/profiles/workerd-min-b.cpuprofile
MAP=$FIX/worker/worker.js.map

# join_folded A B [normalize]: the diff of two folded files, in awk.  With
# normalize, A's values become int(v * totalB / totalA) as difffolded -n
# computes them (in doubles; exact for these magnitudes).
join_folded() {
	awk -v norm="${3-}" '
	{
		match($0, / [^ ]*$/)
		s = substr($0, 1, RSTART - 1)
		v = substr($0, RSTART + 1)
		if (FILENAME == ARGV[1]) { a[s] += v; ta += v } else { b[s] += v; tb += v }
		seen[s] = 1
	}
	END {
		for (s in seen) {
			x = a[s] + 0
			if (norm != "" && ta != tb && ta != 0) x = int(x * tb / ta)
			printf "%s\t%.0f\t%.0f\n", s, x, b[s] + 0
		}
	}' "$1" "$2" | LC_ALL=C sort -t "$(printf '\t')" -k1,1 | tr '\t' ' '
}

test_expect_success 'two .cpuprofile captures: the join of their folded stacks' '
	join_folded "$FIX/expected/workerd-min.folded" "$FIX/expected/workerd-min-b.folded" >expect &&
	pprof-diff "$A" "$B" >actual &&
	test_cmp expect actual
'

test_expect_success 'golden: the captures, symbolicated, plain and -n' '
	pprof-diff -m "$MAP" "$A" "$B" >actual &&
	test_cmp "$EXP/t0600/workerd-min.map.diff" actual &&
	pprof-diff -n -m "$MAP" "$A" "$B" >actual &&
	test_cmp "$EXP/t0600/workerd-min.map.n.diff" actual
'

test_expect_success '-n scales BEFORE to AFTER total, truncated as difffolded' '
	pprof-fold "$A" >a.folded && pprof-fold "$B" >b.folded &&
	join_folded a.folded b.folded n >expect &&
	pprof-diff -n "$A" "$B" >actual &&
	test_cmp expect actual &&
	pprof-diff --normalize a.folded b.folded >actual2 &&
	test_cmp expect actual2
'

test_expect_success 'folded, pprof and .cpuprofile inputs mix; lines as from their folds' '
	pprof-fold "$FIX/pprof/workerd-min.cpu.nomap.pb.gz" >a.folded &&
	# after'"'"'s (garbage collector) in before'"'"'s spelling (pprof-diff(1), synonyms)
	pprof-fold "$B" | sed "s/^(garbage collector)/Node.js;Garbage Collection/" >b.folded &&
	join_folded a.folded b.folded >expect &&
	pprof-diff "$FIX/pprof/workerd-min.cpu.nomap.pb.gz" "$B" >actual &&
	test_cmp expect actual &&
	pprof-diff a.folded "$B" >actual &&
	test_cmp expect actual
'

test_expect_success '-g lines and -i samples apply to both sides' '
	pprof-fold -g lines -i samples "$A" >a.folded &&
	pprof-fold -g lines -i samples "$B" >b.folded &&
	join_folded a.folded b.folded >expect &&
	pprof-diff -g lines -i samples "$A" "$B" >actual &&
	test_cmp expect actual
'

# Inputs that the fast path takes, and some it leaves to the reader.
make_inputs() {
	printf "main;a 3\nmain;b 2\nmain 1\n" >p1
	printf "main;b 2\nmain;a 4\nmain;a 1\nz 0\n" >p2
	printf "main;a 3\r\nmain;c 7\r\n" >crlf
	printf "# a comment\n\nmain;a b;c d 4\n  main;a 1  \n" >spaces
	printf "\357\273\277main;a 2\n" >bom
	printf "main;;a 2\nmain;a; 1\n" >empty-frames
	printf "main;a 2.5\nmain 1\n" >fraction
	printf "main;a 2\nnot a count\n" >invalid
	printf "main;0x7f00;a 1\nmain;0xABC;a 2\n" >hex
}

test_expect_success 'plain folded text and its gzip (the reader) give the same lines' '
	make_inputs &&
	for x in p1 p2 crlf spaces bom empty-frames fraction invalid hex; do
		gzip -c $x >$x.gz || exit 1
	done &&
	for x in p1 crlf spaces bom empty-frames fraction invalid hex; do
		for y in p2 hex; do
			pprof-diff --quiet $x $y >fast &&
			pprof-diff --quiet $x.gz $y.gz >slow &&
			test_cmp slow fast || exit 1
		done
	done &&
	pprof-diff p1 p2 >actual &&
	printf "main 1 0\nmain;a 3 5\nmain;b 2 2\n" >expect &&
	test_cmp expect actual
'

if [ -n "$SHARED" ] && [ -d "$SHARED/testdata/speedscope/folded" ]; then
	test_expect_success 'speedscope folded files: fast path as the reader' '
		d=$SHARED/testdata/speedscope/folded &&
		for x in "$d"/*.txt; do
			gzip -c "$x" >x.gz &&
			pprof-diff --quiet "$x" "$d/perf-vertx-stacks-01-collapsed-all.txt" >fast &&
			pprof-diff --quiet x.gz "$d/perf-vertx-stacks-01-collapsed-all.txt" >slow &&
			test_cmp slow fast || exit 1
		done
	'
fi

test_expect_success '-s turns 0x<hex> into 0x... and merges' '
	make_inputs && gzip -c hex >hex.gz &&
	pprof-diff -s hex p1 >actual &&
	printf "main 0 1\nmain;0x...;a 3 0\nmain;a 0 3\nmain;b 0 2\n" >expect &&
	test_cmp expect actual &&
	pprof-diff --strip-hex hex.gz p1 >actual &&
	test_cmp expect actual
'

test_expect_success 'one input from standard input' '
	pprof-diff "$A" "$B" >expect &&
	pprof-diff - "$B" <"$A" >actual && test_cmp expect actual &&
	pprof-diff "$A" - <"$B" >actual && test_cmp expect actual &&
	pprof-fold "$A" | pprof-diff - "$B" >actual && test_cmp expect actual
'

test_expect_success '-o writes the file, nothing on standard output' '
	pprof-diff "$A" "$B" >expect &&
	pprof-diff -o out.diff "$A" "$B" >stdout &&
	test_cmp expect out.diff && test ! -s stdout
'

if [ -x "$BUILD/pprof-flame" ]; then
	test_expect_success 'the lines feed pprof-flame (a differential graph)' '
		pprof-diff -n "$A" "$B" | pprof-flame >diff.svg &&
		grep -q "</svg>" diff.svg
	'
fi

if [ -n "${DIFFFOLDED_PL:-}" ] && [ -f "$DIFFFOLDED_PL" ]; then
	# difffolded.pl prints in hash order: compare the lines as sets.  (It
# also prints stacks whose count is 0 in both inputs, which pprof-diff
# leaves out as every folded output does: no such input here.)
	test_expect_success 'difffolded.pl: the same lines, plain, -n and -s' '
		pprof-fold "$A" >a.folded && pprof-fold "$B" >b.folded && make_inputs &&
		grep -v " 0\$" p2 >p2nz &&
		for args in "a.folded b.folded" "b.folded a.folded" "p1 p2nz" "hex p2nz" "p2nz hex"; do
			for o in "" -n -s; do
				perl "$DIFFFOLDED_PL" $o $args | LC_ALL=C sort >expect &&
				pprof-diff $o $args | LC_ALL=C sort >actual &&
				test_cmp expect actual || exit 1
			done
		done
	'
else
	test_skip "DIFFFOLDED_PL is not set"
fi

# Errors: usage (2), bad input (1): nothing on stdout, one line on stderr.
test_expect_success 'usage errors exit 2' '
	test_must_usage() { pprof-diff "$@" >out 2>err; test $? = 2 && test ! -s out; } &&
	test_must_usage "$A" &&
	test_must_usage "$A" "$B" "$B" &&
	test_must_usage --top=x "$A" "$B" &&
	test_must_usage --top=0 "$A" "$B" &&
	test_must_usage --format=xml "$A" "$B" &&
	test_must_usage --fail-over=abc "$A" "$B" &&
	test_must_usage --fail-over=-1 "$A" "$B" &&
	test_must_usage --cum "$A" "$B" &&
	test_must_usage - - &&
	test_must_usage --no-such-option "$A" "$B"
'

test_expect_success 'a missing input: exit 1, its name and why' '
	test_fails 1 pprof-diff "$A" nosuch &&
	echo "pprof-diff: nosuch: No such file or directory" >expect &&
	test_cmp expect err &&
	test_fails 1 pprof-diff nosuch.folded "$A" &&
	echo "pprof-diff: nosuch.folded: No such file or directory" >expect &&
	test_cmp expect err
'

test_expect_success 'a bad input: exit 1, the reader message' '
	: >empty &&
	test_fails 1 pprof-diff "$A" empty &&
	echo "pprof-diff: empty: empty input" >expect &&
	test_cmp expect err
'

test_expect_success 'values of different units are not compared' '
	test_fails 1 pprof-diff "$A" "$FIX/profiles/workerd-min.alloc.heapprofile" &&
	grep -q "^pprof-diff: incompatible sample types: wall/nanoseconds" err
'

test_done
