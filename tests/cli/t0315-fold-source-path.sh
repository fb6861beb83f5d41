#!/bin/sh
# --source-path=DIR: the original sources read from files where a map has
# no sourcesContent, for the names and the fit checks alike.
. "$(dirname "$0")/../lib.sh"

N=$FIX/names

test_expect_success 'maps without sourcesContent and --source-path: the names of the maps with it' '
	for b in esbuild tsc-terser rollup-terser webpack swc vite; do
		[ -d "$N/$b" ] || continue
		pprof-fold -i samples -g lines -m "$N/$b/min" "$N/$b/min.cpuprofile" >expect 2>/dev/null &&
		pprof-fold -i samples -g lines --source-path="$N" -m "$N/$b/min-nosc" \
			"$N/$b/min.cpuprofile" >actual 2>err &&
		test_cmp expect actual &&
		! grep -v "sampled lines map to several original lines (a one-line bundle?)" err ||
		{ echo "$b"; return 1; }
	done
'

test_expect_success 'through an index map too' '
	pprof-fold -i samples -g lines -m "$N/esbuild/min" "$N/esbuild/min.cpuprofile" >expect 2>/dev/null &&
	pprof-fold -i samples -g lines --source-path="$N" -m "$N/esbuild/min-index-nosc" \
		"$N/esbuild/min.cpuprofile" >actual 2>/dev/null &&
	test_cmp expect actual
'

test_expect_success 'a stale map without sourcesContent, its sources at hand: one warning' '
	pprof-fold --source-path="$N" -m "$N/esbuild/stale-nosc" "$N/esbuild/min.cpuprofile" >actual 2>err &&
	pprof-fold "$N/esbuild/min.cpuprofile" >expect &&
	test_cmp expect actual &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^pprof-fold: warning: $N/esbuild/stale-nosc/names.js.map does not fit names.js: " err
'

test_expect_success 'no script and no source under the directory: said once, naming it' '
	mkdir d empty && cp "$N/esbuild/min-nosc/names.js.map" d/ &&
	pprof-fold --source-path=empty -m d "$N/esbuild/min.cpuprofile" >actual 2>err &&
	pprof-fold "$N/esbuild/min.cpuprofile" >expect &&
	test_cmp expect actual &&
	echo "pprof-fold: warning: d/names.js.map: no sourcesContent, no script names.js at hand and none of its sources under empty: names are left as the profile has them" >expect.err &&
	test_cmp expect.err err
'

test_expect_success 'no script, the sources under the directory: names from them' '
	mkdir -p d && cp "$N/esbuild/min-nosc/names.js.map" d/ &&
	printf "1:%s\n" 224 570 1253 3078 >pos &&
	sourcemap-lookup --function --source-path="$N" d/names.js.map <pos >actual &&
	printf "%s\n" "src/work.ts:6:17 mixDeclaration" "src/work.ts:42:30 asyncChecksum" \
		"src/shapes.ts:28:2 #transposeSecret" "src/main.ts:26:16 main" >expect &&
	test_cmp expect actual &&
	sourcemap-lookup --function d/names.js.map <pos >actual &&
	printf "%s\n" src/work.ts:6:17 src/work.ts:42:30 src/shapes.ts:28:2 src/main.ts:26:16 >expect &&
	test_cmp expect actual
'

test_expect_success 'a webpack:// source is found without its scheme and authority' '
	mkdir -p app/src m &&
	printf "export function outer(n: number) {\n\treturn n + 1;\n}\n" >app/src/x.ts &&
	printf "{\"version\":3,\"sources\":[\"webpack://app/./src/x.ts\"],\"names\":[\"outer\",\"n\"],\"mappings\":\"AAAO,SAASA,EAAMC\"}" >m/x.js.map &&
	sourcemap-lookup --function --zero-based m/x.js.map 0:10 >actual &&
	echo "webpack://app/src/x.ts:0:16" >expect && test_cmp expect actual &&
	sourcemap-lookup --function --zero-based --source-path=app m/x.js.map 0:10 >actual &&
	echo "webpack://app/src/x.ts:0:16 outer" >expect && test_cmp expect actual
'

test_done
