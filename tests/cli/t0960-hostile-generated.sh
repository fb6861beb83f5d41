#!/bin/sh
# Hostile inputs too big to commit, made at test time by tests/hostile/gen.pl
# and gzip: stacks 100,000 frames deep in every format (they must fold, with
# no recursion in our code), JSON nested past the depth limit, gzip bombs.
# Each must end within seconds and (outside ASan) 1 GB of address space.
. "$(dirname "$0")/../lib.sh"
GEN="perl $SRC/tests/hostile/gen.pl"

limit_mem=1
[ -n "$SANITIZED" ] && limit_mem=
run_bounded() {
	(
		[ -n "$limit_mem" ] && ulimit -v 1048576
		exec timeout $((60 * TSCALE)) "$@"
	)
}

# bounded_fails STATUS CMD...: test_fails under run_bounded.
bounded_fails() {
	want=$1
	shift
	run_bounded "$@" >out 2>err
	got=$?
	if [ "$got" != "$want" ]; then
		echo "exit status $got, expected $want"
		head -5 err
		return 1
	fi
	if [ -s out ] || [ "$(wc -l <err)" != 1 ]; then
		echo "stdout not empty or stderr not one line:"
		head -5 err
		return 1
	fi
}

# deep_line N NAME VALUE: the one folded line of a stack of N frames NAME.
deep_line() {
	perl -e 'print join(";", ($ARGV[1]) x $ARGV[0]), " $ARGV[2]\n"' "$@"
}

if ! command -v perl >/dev/null; then
	test_skip "perl absent"
	test_done
	exit
fi

test_expect_success 'a pprof sample 100,000 locations deep folds' '
	$GEN deep.pb 100000 >deep.pb &&
	run_bounded pprof-fold deep.pb >actual &&
	deep_line 100000 f 1 >expect &&
	test_cmp expect actual
'

test_expect_success 'a .cpuprofile node chain 100,000 deep folds' '
	$GEN deep.cpuprofile 100000 >deep.cpuprofile &&
	run_bounded pprof-fold deep.cpuprofile >actual &&
	deep_line 100000 f 99000 >expect &&
	test_cmp expect actual
'

test_expect_success 'a .cpuprofile nested 100,000 deep whose lines are read again folds' '
	$GEN deep-lines.cpuprofile 100000 >deep.cpuprofile &&
	run_bounded pprof-fold deep.cpuprofile >actual &&
	deep_line 100000 f -1 >expect &&
	test_cmp expect actual
'

test_expect_success 'a .heapprofile nested 100,000 deep folds' '
	$GEN deep.heapprofile 100000 >deep.heapprofile &&
	run_bounded pprof-fold deep.heapprofile >actual &&
	deep_line 100000 f 7 >expect &&
	test_cmp expect actual
'

test_expect_success 'a folded stack of 100,000 equal frames folds unchanged' '
	$GEN deep.folded 100000 >deep.folded &&
	run_bounded pprof-fold deep.folded >actual &&
	test_cmp deep.folded actual
'

test_expect_success 'a folded stack of 100,000 distinct frames folds unchanged' '
	$GEN deep-distinct.folded 100000 >deep.folded &&
	run_bounded pprof-fold deep.folded >actual &&
	test_cmp deep.folded actual
'

test_expect_success 'deep stacks also go through pprof-top, pprof-flame, pprof-convert' '
	$GEN deep.pb 100000 >deep.pb &&
	for p in pprof-top pprof-flame; do
		[ ! -x "$BUILD/$p" ] || run_bounded $p deep.pb >/dev/null || return 1
	done &&
	if [ -x "$BUILD/pprof-convert" ]; then
		run_bounded pprof-convert deep.pb -o deep2.pb.gz &&
		run_bounded pprof-fold deep2.pb.gz >actual &&
		deep_line 100000 f 1 >expect &&
		test_cmp expect actual
	fi
'

test_expect_success 'JSON nested 1,000,000 deep is within the limit' '
	$GEN deep-json.cpuprofile 1000000 >ok.cpuprofile &&
	run_bounded pprof-fold ok.cpuprofile >actual &&
	test_cmp /dev/null actual
'

test_expect_success 'JSON nested 1,000,001 deep is refused at the byte past the limit' '
	$GEN deep-json.cpuprofile 1000001 >deep.cpuprofile &&
	bounded_fails 1 pprof-fold deep.cpuprofile &&
	echo "pprof-fold: deep.cpuprofile: nesting deeper than the maximum depth (at byte 1000191)" >expect &&
	test_cmp expect err
'

test_expect_success 'a drop_frames that backtracks exponentially is stopped' '
	$GEN redos.pb 1000 >redos.pb &&
	bounded_fails 1 pprof-fold redos.pb &&
	grep -q "^pprof-fold: redos.pb: drop_frames or keep_frames on function 1: match limit exceeded (at byte [0-9]*)$" err
'

# Ids that all fell into one slot of the readers' hash tables before they
# were seeded took 20 s or more (quadratic); now well under a second.
test_expect_success 'pprof location ids crafted to collide (400,000) read fast' '
	$GEN flood.pb 400000 >flood.pb &&
	( [ -n "$limit_mem" ] && ulimit -v 1048576; exec timeout $((10 * TSCALE)) pprof-fold flood.pb ) >actual &&
	deep_line 100 f 1 >expect &&
	test_cmp expect actual
'

test_expect_success '.cpuprofile node ids crafted to collide (200,000) read fast' '
	$GEN flood.cpuprofile 200000 >flood.cpuprofile &&
	( [ -n "$limit_mem" ] && ulimit -v 1048576; exec timeout $((10 * TSCALE)) pprof-fold flood.cpuprofile ) >actual &&
	echo "f 99000" >expect &&
	test_cmp expect actual
'

test_expect_success 'folded names crafted to collide in the string table (200,000) read fast' '
	$GEN flood.folded 200000 >flood.folded &&
	( [ -n "$limit_mem" ] && ulimit -v 1048576; exec timeout $((10 * TSCALE)) pprof-fold flood.folded ) >actual &&
	sort flood.folded >expect &&
	test_cmp expect actual
'

test_expect_success 'pprof-diff --top on function names crafted to collide (100,000) is fast' '
	[ ! -x "$BUILD/pprof-diff" ] || {
		$GEN flood-top.folded 100000 >flood.folded &&
		( [ -n "$limit_mem" ] && ulimit -v 1048576
		  exec timeout $((10 * TSCALE)) pprof-diff --top flood.folded flood.folded ) >actual &&
		test -s actual
	}
'

# Found by fuzz_input: the second input's sample types leaked when the first
# had none (seen under ASan, tests/sanitize.sh).
test_expect_success 'a pprof without sample types, read twice' '
	printf "\062\000" >notypes.pb &&
	bounded_fails 1 pprof-fold notypes.pb notypes.pb &&
	echo "pprof-fold: notypes.pb: the profile has no sample types" >expect &&
	test_cmp expect err
'

test_expect_success 'a pprof whose inlined lines times repeated locations explode is refused' '
	$GEN inline-bomb.pb 10000 >bomb.pb &&
	bounded_fails 1 pprof-fold bomb.pb &&
	grep -q "^pprof-fold: bomb.pb: stacks expand to more than [0-9]* frames (inlined lines times repeated locations), too many for [0-9]* bytes (at byte [0-9]*)$" err
'

test_expect_success 'the same at a size that is fine folds' '
	$GEN inline-bomb.pb 1000 >ok.pb &&
	run_bounded pprof-fold ok.pb >actual &&
	deep_line 1000000 f 1 >expect &&
	test_cmp expect actual
'

test_expect_success 'a warning per script URL (50,000 URLs without maps) stops at 100' '
	perl -e "
		print q({\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[),
			join(q(,), 2 .. 50001), q(]});
		print qq(,{\"id\":\$_,\"callFrame\":{\"functionName\":\"f\",\"scriptId\":\"1\",\"url\":\"https://x/\$_.js\",\"lineNumber\":0,\"columnNumber\":0}}) for 2 .. 50001;
		print q(],\"startTime\":0,\"endTime\":10,\"samples\":[2],\"timeDeltas\":[1]});
	" >urls.cpuprofile &&
	mkdir maps &&
	( [ -n "$limit_mem" ] && ulimit -v 1048576; exec timeout $((10 * TSCALE)) pprof-fold -m maps urls.cpuprofile ) >actual 2>err &&
	echo "f 9000" >expect && test_cmp expect actual &&
	test "$(wc -l <err)" = 101 &&
	tail -1 err | grep -q "^pprof-fold: warning: more warnings left out$"
'

test_expect_success 'a rules file nested 200,000 deep is refused at once' '
	perl -e "print qq(version: 1\nrename: ), q([) x 200000, q(]) x 200000, qq(\n)" >deep.yaml &&
	bounded_fails 1 pprof-fold --rules deep.yaml "$SRC/tests/hostile/ok.pb" &&
	echo "pprof-fold: deep.yaml: nested deeper than 64 levels (at line 2, column 72)" >expect &&
	test_cmp expect err
'

test_expect_success 'pprof-flame on 131,072 names crafted to collide in the old FNV map' '
	[ ! -x "$BUILD/pprof-flame" ] || {
		$GEN flood-fnv.cpuprofile 17 >fnv.cpuprofile &&
		( [ -n "$limit_mem" ] && ulimit -v 1048576
		  exec timeout $((10 * TSCALE)) pprof-flame fnv.cpuprofile ) >out.svg &&
		if command -v xmllint >/dev/null; then xmllint --noout out.svg; fi
	}
'

# Zero bytes are refused at once (t0962); an endless line of text may still
# end as a folded stack.
test_expect_success 'an endless pipe stops at --max-input' '
	yes f | tr -d "\n" | bounded_fails 1 pprof-fold --max-input=1m &&
	echo "pprof-fold: <stdin>: input larger than the limit (1 MiB; raise it with --max-input)" >expect &&
	test_cmp expect err
'

# A gzip member of 16 MiB of zeros is 16 KiB; 320 of them inflate to 5 GiB.
make_bomb() {
	head -c 16777216 /dev/zero | gzip -9 -c >member.gz &&
	: >bomb.gz &&
	i=0 && while [ $i -lt 320 ]; do cat member.gz; i=$((i + 1)); done >bomb.gz
}

test_expect_success 'a multi-member gzip bomb (5 GiB from 5 MB) is refused quickly' '
	make_bomb &&
	bounded_fails 1 pprof-fold bomb.gz &&
	grep -q "^pprof-fold: bomb.gz: gzip input inflates past the limit ([0-9]* MiB; raise it with --max-input) (at byte [0-9]*)$" err
'

test_expect_success 'the bomb on standard input, after a valid member' '
	make_bomb &&
	printf "a;b 1\n" | gzip -c >lead.gz && cat lead.gz bomb.gz >bomb2.gz &&
	bounded_fails 1 pprof-fold <bomb2.gz &&
	grep -q "^pprof-fold: <stdin>: gzip input inflates past the limit" err
'

test_expect_success 'pprof-top, pprof-flame and pprof-convert refuse the bomb too' '
	make_bomb &&
	for p in pprof-top pprof-flame; do
		[ ! -x "$BUILD/$p" ] || { bounded_fails 1 $p bomb.gz &&
			grep -q "^$p: bomb.gz: gzip input inflates past the limit" err; } || return 1
	done &&
	if [ -x "$BUILD/pprof-convert" ]; then
		bounded_fails 1 pprof-convert bomb.gz -o out.pb.gz &&
		grep -q "^pprof-convert: bomb.gz: gzip input inflates past the limit" err &&
		! ls out.pb.gz* 2>/dev/null
	fi
'

test_expect_success '--max-input bounds gzipped and plain input alike' '
	deep_line 100 frame 1 >line &&
	i=0 && while [ $i -lt 2000 ]; do cat line; i=$((i + 1)); done >big.folded &&
	gzip -c big.folded >big.folded.gz &&
	bounded_fails 1 pprof-fold --max-input=1m big.folded.gz &&
	grep -q "^pprof-fold: big.folded.gz: gzip input inflates past the limit (1 MiB; raise it with --max-input) (at byte [0-9]*)$" err &&
	bounded_fails 1 pprof-fold --max-input=1m big.folded &&
	grep -q "^pprof-fold: big.folded: input larger than the limit (1 MiB; raise it with --max-input)$" err &&
	run_bounded pprof-fold --max-input=2m big.folded.gz >actual &&
	deep_line 100 frame 2000 >expect &&
	test_cmp expect actual
'

test_done
