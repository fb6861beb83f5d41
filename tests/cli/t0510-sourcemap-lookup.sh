#!/bin/sh
# sourcemap-lookup: positions from arguments and standard input, 1-based
# and 0-based, lenient warnings, errors; and the real Worker bundle
# position by position against @jridgewell/trace-mapping (the golden file
# was written by expected/t0510/trace-mapping.mjs).
. "$(dirname "$0")/../lib.sh"

X=$EXP/t0510

# a.js line 0: columns 0 (a.ts 0:0), 4 (a.ts 1:2 "run"), 9 (unmapped);
# line 1: column 0 (b.ts 4:0, on the ignore list)
write_map() {
	cat >m.map <<-'EOF'
	{"version":3,"file":"a.js","sourceRoot":"../..","sources":["src/a.ts","../src/b.ts"],
	 "names":["run"],"mappings":"AAAA,IACEA,K;ACGF","ignoreList":[1]}
	EOF
}

test_expect_success '1-based positions from the arguments' '
	write_map &&
	sourcemap-lookup m.map 1:1 1:5 1:9 1:10 2:1 2:50 3:1 >actual &&
	cat >expect <<-EOF &&
	src/a.ts:1:1
	src/a.ts:2:3 run
	src/a.ts:2:3 run
	-
	src/b.ts:5:1
	src/b.ts:5:1
	-
	EOF
	test_cmp expect actual
'

test_expect_success '--zero-based reads and prints 0-based positions' '
	write_map &&
	sourcemap-lookup --zero-based m.map 0:0 0:4 1:0 >actual &&
	cat >expect <<-EOF &&
	src/a.ts:0:0
	src/a.ts:1:2 run
	src/b.ts:4:0
	EOF
	test_cmp expect actual
'

test_expect_success 'standard input: one line per position, in order' '
	write_map &&
	printf "1:5\n\n  2:1 \r\nworker.js:1:1\n1\n" | sourcemap-lookup m.map >actual &&
	cat >expect <<-EOF &&
	src/a.ts:2:3 run
	src/b.ts:5:1
	src/a.ts:1:1
	-
	EOF
	test_cmp expect actual
'

test_expect_success 'a line alone maps when its segments agree' '
	write_map &&
	sourcemap-lookup m.map 2 a.js:2 >actual &&
	printf "src/b.ts:5:1\nsrc/b.ts:5:1\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a bad position on standard input: "-", a message, exit 1' '
	write_map &&
	printf "1:1\nx:y\n0:0\n1:5\n" >in &&
	expect_code 1 sourcemap-lookup m.map <in >actual 2>err &&
	printf "src/a.ts:1:1\n-\n-\nsrc/a.ts:2:3 run\n" >expect &&
	test_cmp expect actual &&
	grep -q "^sourcemap-lookup: bad position .x:y. (expected LINE:COL, 1-based)$" err &&
	test "$(wc -l <err)" = 2
'

test_expect_success 'a bad position argument: "-", a message, the others still printed, exit 1' '
	write_map &&
	expect_code 1 sourcemap-lookup m.map 1:1 1:x 1:5 >actual 2>err &&
	printf "src/a.ts:1:1\n-\nsrc/a.ts:2:3 run\n" >expect &&
	test_cmp expect actual &&
	echo "sourcemap-lookup: bad position '"'"'1:x'"'"' (expected LINE:COL, 1-based)" >expect &&
	test_cmp expect err
'

test_expect_success 'positions inside stack-trace lines, as arguments and on standard input' '
	write_map &&
	cat >in <<-\EOF &&
	    at run (https://example.com/m.js:1:5)
	    at https://example.com/m.js:1:1
	run@https://example.com/m.js:1:5
	m.js:1:1
	    at broken (m.js:1:x)
	EOF
	expect_code 1 sourcemap-lookup m.map <in >actual 2>err &&
	printf "src/a.ts:2:3 run\nsrc/a.ts:1:1\nsrc/a.ts:2:3 run\nsrc/a.ts:1:1\n-\n" >expect &&
	test_cmp expect actual &&
	test "$(wc -l <err)" = 1 &&
	sourcemap-lookup m.map "at run (m.js:1:5)" "run@m.js:1:5" >actual &&
	printf "src/a.ts:2:3 run\nsrc/a.ts:2:3 run\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'usage errors, --help and --version' '
	expect_code 2 sourcemap-lookup >out 2>err && test ! -s out &&
	grep -q "^sourcemap-lookup: no map named$" err &&
	test_usage sourcemap-lookup --bogus m.map &&
	sourcemap-lookup --help >out && grep -q "^usage: sourcemap-lookup" out &&
	sourcemap-lookup --version >out && grep -q "^sourcemap-lookup (pprof-tools) " out
'

test_expect_success 'a map that cannot be read: exit 1 and one line' '
	test_fails 1 sourcemap-lookup nope.map 1:1 &&
	echo "sourcemap-lookup: nope.map: cannot open: no such file or directory" >expect &&
	test_cmp expect err &&
	printf "{\"version\":3," >bad.map &&
	test_fails 1 sourcemap-lookup bad.map 1:1 &&
	grep -q "^sourcemap-lookup: bad.map: .*(at byte 13)$" err &&
	printf "[]" >arr.map &&
	test_fails 1 sourcemap-lookup arr.map 1:1 &&
	echo "sourcemap-lookup: arr.map: not a source map: the JSON text is an array, not an object" >expect &&
	test_cmp expect err
'

test_expect_success 'a bad part of a map is skipped with one warning' '
	printf "{\"version\":3,\"sources\":[\"a.ts\"],\"names\":[],\"mappings\":\"AAAA,C!AA,EACA;AAC;AACA\"}" >w.map &&
	sourcemap-lookup w.map 1:1 1:3 2:1 3:1 >actual 2>err &&
	printf "a.ts:1:1\na.ts:2:1\n-\na.ts:3:1\n" >expect &&
	test_cmp expect actual &&
	echo "sourcemap-lookup: warning: w.map: mappings: invalid base64 VLQ character (at byte 61) (and 1 more)" >expect &&
	test_cmp expect err &&
	sourcemap-lookup --quiet w.map 1:1 >actual 2>err && test ! -s err &&
	test_fails 1 sourcemap-lookup --validate w.map
'

test_expect_success '--validate alone only checks' '
	write_map &&
	sourcemap-lookup --validate m.map </dev/null >out 2>err &&
	test ! -s out && test ! -s err
'

test_expect_success '-o writes the file' '
	write_map &&
	sourcemap-lookup -o out.txt m.map 1:5 && echo "src/a.ts:2:3 run" >expect &&
	test_cmp expect out.txt
'

# The name of the function that starts at a frame's position: the default
# output keeps the segment's name; --function the function's, from the
# script beside the map, or the one --script names, or without a script
# from sourcesContent alone.
test_expect_success '--function names the function a position starts' '
	sourcemap-lookup "$FIX/worker/worker.js.map" 1:3390 1:3999 >actual &&
	printf "%s\n" "src/cache.ts:32:3" "src/cache.ts:70:17 buildRecord" >expect &&
	test_cmp expect actual &&
	sourcemap-lookup --function "$FIX/worker/worker.js.map" 1:3390 1:3999 >actual &&
	printf "%s\n" "src/cache.ts:32:3 get" "src/cache.ts:70:17 buildRecord" >expect &&
	test_cmp expect actual &&
	cp "$FIX/worker/worker.js.map" w.map &&
	sourcemap-lookup --function --script="$FIX/worker/worker.js" w.map 1:3390 >actual &&
	echo "src/cache.ts:32:3 get" >expect && test_cmp expect actual &&
	sourcemap-lookup --function w.map 1:3390 >actual &&
	test_cmp expect actual
'

test_expect_success '--function: an inline callback is (anonymous), a constructor its class' '
	N=$FIX/names/esbuild/min &&
	sourcemap-lookup --zero-based --function "$N/names.js.map" 0:2215 0:910 0:569 >actual &&
	printf "%s\n" "src/phases.ts:42:19 (anonymous)" "src/shapes.ts:5:1 Matrix" \
		"src/work.ts:41:29 asyncChecksum" >expect &&
	test_cmp expect actual
'

# V8 puts a class's default constructor on its "class" keyword: named by
# the class, as pprof-fold -m names that frame (t0320), with the script
# beside the map and without it
test_expect_success '--function: a default constructor is named by its class' '
	mkdir -p dc &&
	printf "var sv=class extends Y{m(){return 1}};" >dc/names.js &&
	printf "%s" "{\"version\":3,\"file\":\"names.js\",\"sources\":[\"src/p.ts\"],\"sourcesContent\":[\"import { Y } from \\\"./y\\\";\\nexport class Foo extends Y {\\n  m() { return 1 }\\n}\\n\"],\"names\":[],\"mappings\":\"OACA,gBACE\"}" >dc/names.js.map &&
	printf "%s\n" "src/p.ts:2:1 Foo" "src/p.ts:3:3 m" >expect &&
	sourcemap-lookup --function dc/names.js.map 1:8 1:25 >actual &&
	test_cmp expect actual &&
	rm dc/names.js &&
	sourcemap-lookup --function dc/names.js.map 1:8 1:25 >actual &&
	test_cmp expect actual
'

# where the map's segments start inside the script's tokens (fixtures/fit:
# some/ is another build's map at the last two functions), no name, as
# pprof-fold -m leaves those frames as V8 named them (t0320)
test_expect_success '--function: no name where the map is another build'"'"'s' '
	for c in 12 40 68 96 124 152; do echo "1:$c"; done >pos &&
	sourcemap-lookup --function "$FIX/fit/some/names.js.map" <pos >actual &&
	printf "%s\n" "src/p.ts:1:15 alpha" "src/p.ts:2:14 beta" "src/p.ts:3:15 gamma" \
		"src/p.ts:4:15 delta" "src/p.ts:5:15" "src/p.ts:6:15" >expect &&
	test_cmp expect actual &&
	sourcemap-lookup --function "$FIX/fit/right/names.js.map" <pos >actual &&
	sed "5s/\$/ omega/; 6s/\$/ sigma/" expect >expect.right &&
	test_cmp expect.right actual
'

test_expect_success '--script that cannot be read is an error' '
	test_fails 1 sourcemap-lookup --function --script=nope.js "$FIX/worker/worker.js.map" 1:1 &&
	grep -q "nope.js: No such file" err
'

if [ -n "$SHARED" ] && [ -f "$SHARED/real/bundle/worker.js.map" ]; then
	test_expect_success 'the real Worker bundle agrees with trace-mapping' '
		sourcemap-lookup "$SHARED/real/bundle/worker.js.map" \
			<"$X/worker.positions" >actual &&
		test_cmp "$X/worker.trace-mapping" actual
	'
else
	test_skip "no real bundle in ../shared"
fi

test_done
