#!/bin/sh
# Chrome traces recorded by headless Chromium (fixtures/trace/gen): a page
# with a minified TypeScript bundle, a Web Worker and a cross-site iframe
# in a second renderer process (two profiles both "0x1").  The expected
# outputs come from the generator's own reading of the events, which agrees
# with DevTools' trace engine (expected.mjs).
. "$(dirname "$0")/../lib.sh"
T=$FIX/trace
E=$EXP/t0150

for in in trace-array.json trace.json.gz; do
	test_expect_success "$in: wall" "
		pprof-fold \"$T/$in\" >actual 2>err && test_cmp \"$E/trace-array.folded\" actual &&
		test ! -s err
	"
	test_expect_success "$in: samples" "
		pprof-fold -i samples \"$T/$in\" >actual &&
		test_cmp \"$E/trace-array.samples.folded\" actual
	"
	test_expect_success "$in: per thread" "
		pprof-fold --tagroot=process,pid,thread,tid \"$T/$in\" >actual &&
		test_cmp \"$E/trace-array.threads.folded\" actual
	"
done

test_expect_success 'per-sample lines (-g lines): each leaf on its sample'"'"'s line' '
	pprof-fold -g lines "$T/trace-array.json" >actual && test_cmp "$E/trace-array.lines.folded" actual &&
	pprof-fold -g lines "$T/trace.json.gz" >actual && test_cmp "$E/trace-array.lines.folded" actual
'
test_expect_success '--no-fix-samples: the samples as V8 wrote them' '
	pprof-fold --no-fix-samples -i samples "$T/trace.json.gz" >actual &&
	test_cmp "$E/trace-array.nofix.samples.folded" actual
'

test_expect_success 'from a pipe, gzipped' '
	pprof-fold <"$T/trace.json.gz" >actual && test_cmp "$E/trace-array.folded" actual
'

test_expect_success 'three threads, two of them CrRendererMain in two processes' '
	pprof-fold --tagroot=pid,thread "$T/trace.json.gz" | cut -d";" -f1,2 | sort -u >actual &&
	test "$(wc -l <actual)" = 3 && test "$(grep -c ";CrRendererMain$" actual)" = 2 &&
	test "$(cut -d";" -f1 actual | sort -u | wc -l)" = 2
'

# names.txt: the TypeScript function that starts on each line (names.mjs).
# Leaf frames of the bundle: their weight on the right name, at least 95%.
pct_right() {
	awk '
	FNR == NR { ok[$2 " " $1] = 1; next }
	{
		v = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		n = split(s, fr, ";"); leaf = fr[n]
		if (leaf ~ / src\/[a-z]+\.ts:[0-9]+$/ ||
		    leaf ~ /http:\/\/(localhost|127\.0\.0\.1):8000\/(main|worker|frame)\.js/) {
			total += v
			if (leaf in ok) right += v
		}
	}
	END { if (total) printf "%d\n", 10000 * right / total; else print 0 }
	' "$T/names.txt" -
}

test_expect_success 'symbolicated: the bundle frames on the right TypeScript names (>= 95%)' '
	pprof-fold -g lines -m "$T/bundle" "$T/trace.json.gz" >lines 2>err &&
	pct=$(pct_right <lines) && echo "wall on the right names: $pct / 10000" &&
	test "$pct" -ge 9500 &&
	pprof-fold -i samples -g lines -m "$T/bundle" "$T/trace.json.gz" | pct_right >pct &&
	echo "samples: $(cat pct) / 10000" && test "$(cat pct)" -ge 9500
'

test_expect_success 'symbolicated: the frames of all three scripts are mapped' '
	pprof-fold -m "$T/bundle" -g files "$T/trace.json.gz" 2>/dev/null >files &&
	grep -q "src/frame.ts" files && grep -q "src/worker.ts" files && grep -q "src/main.ts" files
'
test_expect_success 'a trace carrying its source maps: symbolicated without -m' '
	mkdir maps && cp "$T"/bundle/*.map maps/ &&
	pprof-fold -g lines -m maps "$T/trace.json.gz" >expect 2>/dev/null &&
	pprof-fold -g lines "$T/trace-maps.json.gz" >actual 2>/dev/null &&
	test_cmp expect actual && grep -q "src/worker.ts" actual &&
	pprof-fold -g lines "$T/trace.json.gz" >plain 2>/dev/null && ! grep -q "src/" plain
'
test_done
