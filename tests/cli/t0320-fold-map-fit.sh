#!/bin/sh
# A map that does not fit the profile is said once and not used: the
# script's frames stay as V8 named them, never a wrong name.  And when no
# map serves a script, the warning says where it was looked for.
. "$(dirname "$0")/../lib.sh"

W=$FIX/worker
N=$FIX/names/esbuild

test_expect_success "another build's map: one warning naming it, frames unmapped" '
	pprof-fold -m "$W/plain/worker.js.map" "$FIX/profiles/workerd-min.cpuprofile" >actual 2>err &&
	pprof-fold "$FIX/profiles/workerd-min.cpuprofile" >expect &&
	test_cmp expect actual &&
	echo "pprof-fold: warning: $W/plain/worker.js.map does not fit worker.js: 31 of 31 function positions are not function starts in the script and its sources (a map of another build?); the script'"'"'s frames are left unmapped" >expect.err &&
	test_cmp expect.err err
'

test_expect_success 'a stale map beside the script (the previous revision): one warning' '
	pprof-fold -m "$N/stale" "$N/min.cpuprofile" >actual 2>err &&
	pprof-fold "$N/min.cpuprofile" >expect &&
	test_cmp expect actual &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^pprof-fold: warning: $N/stale/names.js.map does not fit names.js: [0-9]* of [0-9]* function positions are not function starts" err
'

# The fit check without sourcesContent: the map's segments must start at
# the script's tokens around each function position (a stale map's start
# where the previous build's tokens were).
test_expect_success 'a stale map without sourcesContent beside the script: one warning' '
	pprof-fold -m "$N/stale-nosc" "$N/min.cpuprofile" >actual 2>err &&
	pprof-fold "$N/min.cpuprofile" >expect &&
	test_cmp expect actual &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^pprof-fold: warning: $N/stale-nosc/names.js.map does not fit names.js: [0-9]* of [0-9]* function positions are not function starts" err
'

test_expect_success 'the maps without sourcesContent that fit give no warning' '
	for b in esbuild tsc-terser rollup-terser webpack swc vite; do
		[ -d "$FIX/names/$b" ] || continue
		pprof-fold -m "$FIX/names/$b/min-nosc" "$FIX/names/$b/min.cpuprofile" >/dev/null 2>err &&
		test ! -s err || { echo "$b:"; cat err; return 1; }
	done
'

test_expect_success 'a map without sourcesContent and no script: names left, said once' '
	mkdir d && cp "$N/min-nosc/names.js.map" d/ &&
	pprof-fold -g lines -m d "$N/min.cpuprofile" >actual 2>err &&
	echo "pprof-fold: warning: d/names.js.map: no sourcesContent and no script names.js at hand: names are left as the profile has them" >expect.err &&
	echo "pprof-fold: warning: d/names.js.map: sampled lines map to several original lines (a one-line bundle?): those leaves keep their function'"'"'s line" >>expect.err &&
	test_cmp expect.err err &&
	pprof-fold "$N/min.cpuprofile" | sed "s/ [0-9]*\$//" | tr ";" "\n" | sort -u >v8 &&
	sed "s/ [0-9]*\$//" actual | tr ";" "\n" | sed "s/ [^ ]*:[0-9]*\$//" | sort -u >names &&
	comm -13 v8 names >renamed && test ! -s renamed
'

test_expect_success 'a directory without the script'"'"'s map: where it was looked for' '
	mkdir other && cp "$FIX/names/tsc-terser/min/main.js" "$FIX/names/tsc-terser/min/main.js.map" other/ &&
	pprof-fold -m other "$N/min.cpuprofile" >actual 2>err &&
	pprof-fold "$N/min.cpuprofile" >expect &&
	test_cmp expect actual &&
	echo "pprof-fold: warning: no source map for names.js in other (looked for names.js with a sourceMappingURL and for names.js.map)" >expect.err &&
	test_cmp expect.err err
'

# The script and map of another build than the profile's where that
# build's code moved (fixtures/fit, made by its gen.mjs): the script starts
# no function, or another, at V8's position, or the map's segments start
# inside the script's tokens at 4 or more of a function's first 16 (a map
# made for other tokens).  At a few functions those frames are left
# unmapped, said once; at a twentieth of the functions and three at least,
# the whole map is not used.
F=$FIX/fit
other="the script starts no function or another, or the map's segments start inside its tokens (a build other than the profile's?)"
test_expect_success 'a map another build'"'"'s at two functions: those frames unmapped, said once' '
	pprof-fold -g lines -m "$F/right" "$F/names.cpuprofile" >right 2>err &&
	test ! -s err &&
	pprof-fold -g lines -m "$F/some" "$F/names.cpuprofile" >actual 2>err &&
	sed "/^omega /d; /^sigma /d" right >expect &&
	printf "ii names.js:1 1000000\nkk names.js:1 1000000\n" >>expect &&
	test_cmp expect actual &&
	echo "pprof-fold: warning: $F/some/names.js.map: at 2 functions of names.js (ii, ...) $other: left unmapped" >expect.err &&
	test_cmp expect.err err
'

test_expect_success 'the script and map of a build made since: the moved functions unmapped' '
	pprof-fold -g lines -m "$F/right" "$F/names.cpuprofile" | sed "/^omega /d; /^sigma /d" >expect &&
	printf "ii names.js:1 1000000\nkk names.js:1 1000000\n" >>expect &&
	pprof-fold -g lines -m "$F/later" "$F/names.cpuprofile" >actual 2>err &&
	test_cmp expect actual &&
	echo "pprof-fold: warning: $F/later/names.js.map: at 2 functions of names.js (ii, ...) $other: left unmapped" >expect.err &&
	test_cmp expect.err err
'

# A function the map puts off every head in the sources, two of its first
# tokens with a segment inside: where a later build's code moved, when the
# map's segments start at the tokens elsewhere; not on a map like swc's,
# whose segments often start inside tokens (offhead-noisy: one inside each
# other function's tokens), where it is named as before.
test_expect_success 'a function off every head with segments inside its tokens: unmapped, said once' '
	pprof-fold -g lines -m "$F/right" "$F/names.cpuprofile" | sed "/^sigma /d" >expect &&
	echo "kk names.js:1 1000000" >>expect && sort -o expect expect &&
	pprof-fold -g lines -m "$F/offhead" "$F/names.cpuprofile" >actual 2>err &&
	test_cmp expect actual &&
	echo "pprof-fold: warning: $F/offhead/names.js.map: at 1 function of names.js (kk) $other: left unmapped" >expect.err &&
	test_cmp expect.err err
'

test_expect_success 'the same on a map whose segments often start inside tokens: named' '
	pprof-fold -g lines -m "$F/right" "$F/names.cpuprofile" >expect &&
	pprof-fold -g lines -m "$F/offhead-noisy" "$F/names.cpuprofile" >actual 2>err &&
	test_cmp expect actual && test ! -s err
'

test_expect_success 'a map another build'"'"'s at half the functions: not used, one warning' '
	pprof-fold -g lines -m "$F/half" "$F/names.cpuprofile" >actual 2>err &&
	pprof-fold -g lines "$F/names.cpuprofile" >expect &&
	test_cmp expect actual &&
	echo "pprof-fold: warning: $F/half/names.js.map does not fit names.js: at 3 of 6 function positions $other; the script'"'"'s frames are left unmapped" >expect.err &&
	test_cmp expect.err err
'

# V8 puts the default constructor of a class without one of its own on the
# "class" keyword, where no function starts: not counted against the map
# (its only position here), and named by the class when the source has
# "class NAME" there, an "export" before it included (vite's maps point
# at the export)
test_expect_success 'a default constructor: named by its class, not counted against the map' '
	mkdir -p dc &&
	printf "var sv=class extends Y{m(){return 1}};" >dc/names.js &&
	printf "%s" "{\"version\":3,\"file\":\"names.js\",\"sources\":[\"src/p.ts\"],\"sourcesContent\":[\"import { Y } from \\\"./y\\\";\\nexport class Foo extends Y {\\n  m() { return 1 }\\n}\\n\"],\"names\":[],\"mappings\":\"OACA,gBACE\"}" >dc/names.js.map &&
	printf "%s" "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"sv\",\"scriptId\":\"1\",\"url\":\"names.js\",\"lineNumber\":0,\"columnNumber\":7},\"hitCount\":2}],\"startTime\":0,\"endTime\":2000,\"samples\":[2,2],\"timeDeltas\":[1000,1000]}" >dc.cpuprofile &&
	echo "Foo src/p.ts:2 1000000" >expect &&
	pprof-fold -g lines -m dc dc.cpuprofile >actual 2>err &&
	test_cmp expect actual && test ! -s err &&
	mv dc/names.js dc-names.js &&
	pprof-fold -g lines -m dc/names.js.map dc.cpuprofile >actual 2>err &&
	test_cmp expect actual && test ! -s err
'

# swc (rspack's minifier) maps the text after each substitution of a
# template, inside the script's template pieces: those are not counted as
# another build's segments (four of them made a right map's function
# another build's: 20 of 22,746 functions of a real rspack bundle)
test_expect_success 'segments inside template pieces: not another build'"'"'s' '
	mkdir -p tpl &&
	printf "%s" "function aa(e){return\`x.\${e}.y.\${e}.z.\${e}.w\`}" >tpl/names.js &&
	printf "%s" "{\"version\":3,\"file\":\"names.js\",\"sources\":[\"src/p.ts\"],\"sourcesContent\":[\"function alpha(e: string) {\\n  return \`x.\${e}.y.\${e}.z.\${e}.w\`;\\n}\\n\"],\"names\":[\"alpha\"],\"mappings\":\"AAAA,SAASA,EAAK,CAAC,GACb,MAAO,CAAC,IAAI,EAAE,KAAK,EAAE,KAAK,EAAE,GAC9B\"}" >tpl/names.js.map &&
	printf "%s" "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"aa\",\"scriptId\":\"1\",\"url\":\"names.js\",\"lineNumber\":0,\"columnNumber\":11},\"hitCount\":2}],\"startTime\":0,\"endTime\":2000,\"samples\":[2,2],\"timeDeltas\":[1000,1000]}" >tpl.cpuprofile &&
	echo "alpha src/p.ts:1 1000000" >expect &&
	pprof-fold -g lines -m tpl tpl.cpuprofile >actual 2>err &&
	test_cmp expect actual && test ! -s err
'

test_expect_success 'the maps that fit give no warning' '
	for b in esbuild tsc-terser rollup-terser webpack swc vite; do
		[ -d "$FIX/names/$b" ] || continue
		pprof-fold -m "$FIX/names/$b/min" "$FIX/names/$b/min.cpuprofile" >/dev/null 2>err &&
		test ! -s err || { echo "$b:"; cat err; return 1; }
	done &&
	pprof-fold -m "$W" "$FIX/profiles/workerd-min.cpuprofile" >/dev/null 2>err && test ! -s err
'

# The map of a build made since, beside the profile's own script
# (fixtures/names and names4: BUNDLER/later, made by build.mjs later: a
# function bound to a global right before main.ts's first function): it
# fits but where main's code moved.  There the map puts V8's position on
# no function's head in the sources while its segments start inside two
# or more of the script's tokens, or the script's function is async and
# the original's it maps into is not.  Those frames are left unmapped,
# said once, and no name carries more of the weight than with the right
# map, V8's own aside (before, main took the name checksum on every
# stack); where all the script's positions are such (tsc + terser's
# main.js of names4), the map is not used.  swc's later maps move nothing
# V8 ran there: no warning.
# weight_gain RIGHT V8 ACTUAL: the frames (once per stack) of ACTUAL
# with more weight than in RIGHT, V8's names aside
weight_gain() {
	awk '
		FNR == 1 { f++ }
		{
			v = $NF; sub(/ [0-9]+$/, "")
			n = split($0, fr, ";"); delete once
			for (i = 1; i <= n; i++) {
				if (fr[i] in once) continue
				once[fr[i]] = 1; w[f, fr[i]] += v; seen[fr[i]] = 1
			}
		}
		END {
			for (x in seen)
				if (w[3, x] > w[1, x] && w[2, x] == 0) print x, w[1, x] + 0, w[3, x]
		}
	' "$@"
}
test_expect_success 'the map of a build made since beside the script: the moved functions unmapped, said once' '
	for p in names names4; do
		for b in esbuild tsc-terser rollup-terser webpack swc vite; do
			B=$FIX/$p/$b
			pprof-fold -m "$B/min" "$B/min.cpuprofile" >right 2>/dev/null &&
			pprof-fold "$B/min.cpuprofile" >v8 &&
			pprof-fold -m "$B/later" "$B/min.cpuprofile" >actual 2>err &&
			weight_gain right v8 actual >gained &&
			test ! -s gained &&
			if [ $b = swc ]; then
				test ! -s err
			else
				test "$(wc -l <err)" = 1 &&
				{ grep -q "^pprof-fold: warning: $B/later/[a-z]*\.js\.map: at [0-9]* functions\{0,1\} of [a-z]*\.js (.*) $other: left unmapped\$" err ||
				  grep -q "^pprof-fold: warning: $B/later/[a-z]*\.js\.map does not fit [a-z]*\.js: " err; }
			fi || { echo "$p $b:"; cat err gained; return 1; }
		done
	done
'

test_expect_success 'the score of weight gained fails a frame renamed wrongly' '
	printf "%s\n" "m;a 3" "m;b 1" >right &&
	printf "%s\n" "X;Y 3" "X;Z 1" >v8 &&
	printf "%s\n" "m;b 3" "m;b 1" >actual &&
	weight_gain right v8 actual >gained &&
	echo "b 1 4" >expect && test_cmp expect gained &&
	printf "%s\n" "X;a 3" "m;b 1" >actual &&
	weight_gain right v8 actual >gained && test ! -s gained
'

# A directory whose top holds one map has it loaded ahead, while the
# profile is read; it serves the script only when the directory's search
# pairs them.  Here the script names the right map in a subdirectory and
# the map at the top is another build's.
test_expect_success 'the script names its map below: not the other build'"'"'s at the top' '
	mkdir -p named/sub && cp "$W/worker.js.map" named/sub/ &&
	cp "$W/plain/worker.js.map" named/ &&
	sed "s|sourceMappingURL=.*|sourceMappingURL=sub/worker.js.map|" "$W/worker.js" >named/worker.js &&
	pprof-fold -m named "$FIX/profiles/workerd-min.cpuprofile" >actual 2>err &&
	pprof-fold -m "$W" "$FIX/profiles/workerd-min.cpuprofile" >expect &&
	test_cmp expect actual &&
	test ! -s err
'

test_done
