#!/bin/sh
# Maps without sourcesContent: the original sources read where the map
# says they are (relative to the map file), when they are the text the map
# was made from; a file edited since the build is not read, with one
# warning per map.
. "$(dirname "$0")/../lib.sh"

N=$FIX/names

# The layout the fixtures were built in: out/BUNDLER/min-nosc/names.js.map
# names its sources ../../../src/NAME.ts.
lay_out() {
	rm -rf out src && mkdir out && cp -R "$N/src" src &&
	for b in esbuild tsc-terser rollup-terser webpack swc vite; do
		mkdir -p "out/$b" && cp -R "$N/$b/min-nosc" "out/$b/" || return 1
	done
}

test_expect_success 'sources beside the map: the names of the map with sourcesContent' '
	lay_out &&
	for b in esbuild tsc-terser rollup-terser swc vite; do
		pprof-fold -i samples -g lines -m "$N/$b/min" "$N/$b/min.cpuprofile" >expect 2>/dev/null &&
		pprof-fold -i samples -g lines -m "out/$b/min-nosc" "$N/$b/min.cpuprofile" \
			>actual 2>err &&
		test_cmp expect actual &&
		! grep -v "sampled lines map to several original lines (a one-line bundle?)" err ||
		{ echo "$b"; return 1; }
	done
'

test_expect_success 'webpack:// names no file: the script alone, as before' '
	lay_out &&
	pprof-fold -i samples -g lines -m "$N/webpack/min-nosc" "$N/webpack/min.cpuprofile" \
		>expect 2>/dev/null &&
	pprof-fold -i samples -g lines -m out/webpack/min-nosc "$N/webpack/min.cpuprofile" \
		>actual 2>/dev/null &&
	test_cmp expect actual
'

test_expect_success 'a source edited since the build is not read: as if absent, one warning' '
	lay_out &&
	{ sed -n "1,20p" "$N/src/work.ts" && echo "// a line added" &&
	  sed "1,20d" "$N/src/work.ts"; } >src/work.ts &&
	m=out/rollup-terser/min-nosc &&
	pprof-fold -g lines -m $m "$N/rollup-terser/min.cpuprofile" >actual 2>err &&
	mv src/work.ts work.ts.edited &&
	pprof-fold -g lines -m $m "$N/rollup-terser/min.cpuprofile" >absent 2>/dev/null &&
	pprof-fold -g lines -m "$N/rollup-terser/min" "$N/rollup-terser/min.cpuprofile" \
		>right 2>/dev/null &&
	test_cmp absent actual &&
	! cmp -s right actual &&
	echo "pprof-fold: warning: $m/names.js.map: $m/../../../src/work.ts is not the source it was made from (113 of 188 positions map onto white space or into a word; edited since the build?): not read for names" >expect.err &&
	grep -v "sampled lines map to several original lines" err >err.other &&
	test_cmp expect.err err.other
'

# lib_profile FILE: a .cpuprofile of lib.min.js's function o (its "(" at
# 1:11), four samples
lib_profile() {
	echo "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"o\",\"scriptId\":\"1\",\"url\":\"file:///app/out/lib.min.js\",\"lineNumber\":0,\"columnNumber\":10},\"hitCount\":4}],\"startTime\":0,\"endTime\":4000,\"samples\":[2,2,2,2],\"timeDeltas\":[1000,1000,1000,1000]}" >"$1"
}

# A map chained through a library's own (babel's, rollup's) puts many a
# statement on the first column of its line, in the indentation: no sign
# of an edited file.  Here 4 of the 10 positions are so; the file is read.
test_expect_success 'a chained map: the first column of an indented line is no sign of an edit' '
	rm -rf chain && mkdir -p chain/src chain/out &&
	printf "%s\n" "function outer(a) {" "  let s = 0;" "  for (let i = 0; i < a; i++) {" \
		"    s += i;" "  }" "  return s;" "}" "outer(3);" >chain/src/lib.js &&
	echo "function o(n){let e=0;for(let t=0;t<n;t++)e+=t;return e}o(3);" >chain/out/lib.min.js &&
	echo "{\"version\":3,\"file\":\"lib.min.js\",\"sources\":[\"../src/lib.js\"],\"names\":[],\"mappings\":\"AAAA,SAAS,IAAK,IACd,IAAM,IACN,IAAO,gBACP,KAEA,SAEA\"}" \
		>chain/out/lib.min.js.map &&
	lib_profile chain/prof.cpuprofile &&
	pprof-fold -g lines -m chain/out chain/prof.cpuprofile >actual 2>err &&
	echo "outer src/lib.js:1 3000000" >expect &&
	test_cmp expect actual &&
	! test -s err
'

# Those positions tell nothing, so they cannot be most of them: a file
# edited on top whose one position now lies just past a token is still
# told (it was 0 of 0 counted, and the file read).
test_expect_success 'a file whose positions all tell nothing is not taken as fitting' '
	rm -rf lone && mkdir -p lone/src lone/out &&
	printf "%s\n" "var abc = 1, xy;" "function outer(a) {" "  return a;" "}" >lone/src/lib.js &&
	echo "function o(n){return n}o(3);" >lone/out/lib.min.js &&
	echo "{\"version\":3,\"file\":\"lib.min.js\",\"sources\":[\"../src/lib.js\"],\"names\":[\"outer\"],\"mappings\":\"SAASA\"}" \
		>lone/out/lib.min.js.map &&
	lib_profile prof.cpuprofile &&
	pprof-fold -g lines -m lone/out prof.cpuprofile >actual 2>err &&
	echo "outer src/lib.js:1 3000000" >expect &&
	test_cmp expect actual &&
	echo "pprof-fold: warning: lone/out/lib.min.js.map: lone/out/../src/lib.js is not the source it was made from (1 of 1 positions map onto white space or into a word; edited since the build?): not read for names" >expect.err &&
	test_cmp expect.err err
'

test_expect_success 'every source edited: names as without any, one warning naming the first' '
	lay_out &&
	mkdir -p alone && cp -R "$N/esbuild/min-nosc" alone/ &&
	pprof-fold -m alone/min-nosc "$N/esbuild/min.cpuprofile" >nosrc 2>/dev/null &&
	for f in $(cd "$N/src" && find . -name "*.ts"); do
		{ echo "// a first line" && cat "$N/src/$f"; } >"src/$f" || return 1
	done &&
	pprof-fold -m out/esbuild/min-nosc "$N/esbuild/min.cpuprofile" >actual 2>err &&
	test_cmp nosrc actual &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^pprof-fold: warning: out/esbuild/min-nosc/names.js.map: 8 of its sources beside it are not the text it was made from (out/esbuild/min-nosc/../../../src/work.ts: [0-9]* of [0-9]* positions map onto white space or into a word; edited since the build?): not read for names\$" err
'

test_expect_success '--source-path comes first: its fresh copies serve, the stale ones beside are not read' '
	lay_out &&
	for f in $(cd "$N/src" && find . -name "*.ts"); do
		{ echo "// a first line" && cat "$N/src/$f"; } >"src/$f" || return 1
	done &&
	pprof-fold -m "$N/esbuild/min" "$N/esbuild/min.cpuprofile" >right 2>/dev/null &&
	mkdir -p fresh && cp -R "$N/src" fresh/ &&
	pprof-fold -m out/esbuild/min-nosc --source-path=fresh "$N/esbuild/min.cpuprofile" \
		>actual 2>err &&
	test_cmp right actual &&
	test ! -s err
'

test_expect_success 'sourcemap-lookup --function reads them too, and says when it does not' '
	lay_out &&
	rm out/esbuild/min-nosc/names.js &&
	printf "1:%s\n" 224 570 1253 3078 >pos &&
	sourcemap-lookup --function out/esbuild/min-nosc/names.js.map <pos >actual 2>err &&
	printf "%s\n" "src/work.ts:6:17 mixDeclaration" "src/work.ts:42:30 asyncChecksum" \
		"src/shapes.ts:28:2 #transposeSecret" "src/main.ts:26:16 main" >expect &&
	test_cmp expect actual &&
	test ! -s err &&
	{ echo "// a first line" && cat "$N/src/work.ts"; } >src/work.ts &&
	sourcemap-lookup --function out/esbuild/min-nosc/names.js.map <pos >actual 2>err &&
	printf "%s\n" src/work.ts:6:17 src/work.ts:42:30 "src/shapes.ts:28:2 #transposeSecret" \
		"src/main.ts:26:16 main" >expect &&
	test_cmp expect actual &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^sourcemap-lookup: warning: out/esbuild/min-nosc/names.js.map: out/esbuild/min-nosc/../../../src/work.ts is not the source it was made from ([0-9]* of [0-9]* positions map onto white space or into a word; edited since the build?): not read for names\$" err
'

test_done
