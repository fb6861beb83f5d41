#!/bin/sh
# pprof-flame against flamegraph.pl, frame by frame: the same set of
# (y, x, width, height, fill, title, label) for the same folded input and
# options.  Runs when FLAMEGRAPH_PL names flamegraph.pl (never committed:
# fetch it from github.com/brendangregg/FlameGraph); skipped otherwise.
. "$(dirname "$0")/../lib.sh"

IN=$SRC/tests/cli/flame
FRAMES="$SRC/tests/cli/flame-frames.pl"

if [ -z "${FLAMEGRAPH_PL:-}" ] || ! [ -f "$FLAMEGRAPH_PL" ] || ! command -v perl >/dev/null 2>&1; then
	test_skip "FLAMEGRAPH_PL is not set to flamegraph.pl"
	test_done
	exit 0
fi

# same INPUT ARGS...: both programs draw the same frames.
same() {
	in=$1
	shift
	perl "$FLAMEGRAPH_PL" "$@" "$in" >fg.svg 2>/dev/null
	# --delta=leaf: flamegraph.pl's differential fills and titles.
	pprof-flame --quiet --delta=leaf "$@" "$in" >me.svg || return 1
	xmllint --noout me.svg || return 1
	perl "$FRAMES" fg.svg >fg.frames && perl "$FRAMES" me.svg >me.frames || return 1
	test -s fg.frames && test_cmp fg.frames me.frames
}

# Random folded files: integer, fractional and differential counts, names
# with markup characters, spaces, multibyte characters, perf annotations,
# "-" and "--", a trailing ";", tabs before the count.  No zero counts (see
# the last test), no CRLF (flamegraph.pl ignores such lines).
gen() {
	awk -v seed="$1" -v mode="$2" 'BEGIN {
		srand(seed);
		split("main foo bar baz a<b> x&y q\"t JSON.stringify caf\303\251\303\251\303\251\303\251\303\251\303\251\303\251 \346\227\245\346\234\254\350\252\236\346\227\245\346\234\254\350\252\236 veryLongFunctionNameThatGoesOnAndOn java/lang/Thread.run foo::bar k_[k] j_[j] with\040space (program) - --", names, " ");
		n = 0; for (k in names) n++;
		split("1 1 2 3 5 10 100 1000 12345", ints, " ");
		split("0.5 1.25 3. 7 0.1 2.333333", fracs, " ");
		split("0 1 5 10 100", bef, " ");
		split("1 5 10 100 1000", aft, " ");
		lines = 5 + int(rand() * 300);
		for (i = 0; i < lines; i++) {
			d = int(rand() * 12);
			s = "";
			for (j = 0; j < d; j++)
				s = s (j ? ";" : "") names[1 + int(rand() * (rand() < 0.7 ? 12 : n))];
			if (rand() < 0.05) s = s ";";
			if (mode == "int") v = ints[1 + int(rand() * 9)];
			else if (mode == "frac") v = fracs[1 + int(rand() * 6)];
			else v = bef[1 + int(rand() * 5)] " " aft[1 + int(rand() * 5)];
			print s (rand() < 0.2 ? "\t" : " ") v;
		}
	}'
}

for seed in 1 2 3 4 5 6; do
	for mode in int frac diff; do
		gen $seed $mode >"$TRASH/gen-$seed-$mode.folded"
	done
done

for f in basic frac diff unicode-space; do
	test_expect_success "fixture $f.folded" 'same "$IN/$f.folded"'
done
for seed in 1 2 3 4 5 6; do
	for mode in int frac diff; do
		test_expect_success "generated $mode $seed" 'same "$TRASH/gen-$seed-$mode.folded"'
	done
done

OPTIONS="--inverted|--reverse|--flamechart|--minwidth 0|--minwidth 1%|--minwidth 3|--width 800|--height 20|--fontsize 10.5|--fontwidth 0.7|--factor 2.5|--negate|--hash|--colors mem|--colors io|--colors java|--colors js|--colors perl|--colors wakeup|--colors red|--colors green|--colors blue|--colors aqua|--colors yellow|--colors purple|--colors orange|--countname bytes|--total 100000|--subtitle sub|--title T --nametype Fn:|--reverse --flamechart|--inverted --reverse --minwidth 0.5|--bgcolors blue|--cp"
IFS='|'
for opts in $OPTIONS; do
	unset IFS
	for input in "$IN/basic.folded" "$TRASH/gen-1-int.folded" "$TRASH/gen-2-frac.folded" "$TRASH/gen-3-diff.folded"; do
		# shellcheck disable=SC2086
		test_expect_success "$(basename "$input") $opts" "same \"$input\" $opts"
	done
	IFS='|'
done
unset IFS

if [ -n "$SHARED" ] && [ -d "$SHARED/testdata/speedscope/folded" ]; then
	for f in simple recursion alternating tall simple-with-invalids perf-vertx-stacks-01-collapsed-all; do
		test_expect_success "speedscope $f.txt" 'same "$SHARED/testdata/speedscope/folded/$f.txt"'
	done
	test_expect_success "perf-vertx --colors java --minwidth 0" \
		'same "$SHARED/testdata/speedscope/folded/perf-vertx-stacks-01-collapsed-all.txt" --colors java --minwidth 0'
else
	test_skip "no shared test data"
fi

# flamegraph.pl keys frames by name, depth and end time: the "b" under x
# (3 samples) is lost when the zero-width "b" under y ends at the same time.
# pprof-flame keeps it: that frame is the only difference.
test_expect_success 'a zero-width frame: flamegraph.pl loses a frame, pprof-flame does not' '
	! same "$IN/zero-width.folded" --minwidth 0 >/dev/null &&
	diff fg.frames me.frames | grep "^[<>]" >d &&
	printf "> 37\t10.0\t885.0\t15.0\trgb(230,117,28)\tb (3 samples, 75.00%%)\tb\n" >expect &&
	test_cmp expect d
'

test_done
