#!/bin/sh
# Hostile source maps: VLQs past 32 bits, bad segments, JSON nested past the
# depth limit, a million generated lines, a million segments on one line,
# many sections.  sourcemap-lookup --validate refuses them with one line
# naming the byte; the lenient load warns and goes on; everything ends
# within seconds and (outside ASan) 1 GB of address space.
. "$(dirname "$0")/../lib.sh"

limit_mem=1
[ -n "$SANITIZED" ] && limit_mem=
run_bounded() {
	(
		[ -n "$limit_mem" ] && ulimit -v 1048576
		exec timeout $((20 * TSCALE)) "$@"
	)
}

# map MAPPINGS: a one-source map with those mappings.
map() {
	printf '{"version":3,"sources":["a.js"],"names":["n"],"mappings":"%s"}\n' "$1"
}

if ! command -v perl >/dev/null; then
	test_skip "perl absent"
	test_done
	exit
fi

test_expect_success 'a VLQ past 32 bits: --validate refuses it at its byte' '
	map "AAAA;AC//////////////////////////////D" >vlq.map &&
	run_bounded sourcemap-lookup --validate vlq.map >out 2>err;
	test $? = 1 && test ! -s out &&
	echo "sourcemap-lookup: vlq.map: mappings: base64 VLQ value past 32 bits (at byte 65)" >expect &&
	test_cmp expect err
'

test_expect_success 'a VLQ past 32 bits: the lenient load warns and maps the rest' '
	map "AAAA;AC//////////////////////////////D" >vlq.map &&
	run_bounded sourcemap-lookup vlq.map 1:1 2:3 >out 2>err &&
	printf "a.js:1:1\n-\n" >expect && test_cmp expect out &&
	grep -q "^sourcemap-lookup: warning: vlq.map: mappings: base64 VLQ value past 32 bits (at byte 65)$" err
'

test_expect_success 'a segment of 2 fields: --validate refuses it' '
	map "AAgggggggggggggA" >seg.map &&
	run_bounded sourcemap-lookup --validate seg.map >out 2>err;
	test $? = 1 && grep -q "segment with 2 or 3 fields" err && test "$(wc -l <err)" = 1
'

test_expect_success 'a source index past the sources is unmapped' '
	map "AAAA,CSAA" >src.map &&
	run_bounded sourcemap-lookup --quiet src.map 1:1 1:2 >out &&
	printf "a.js:1:1\n-\n" >expect && test_cmp expect out
'

test_expect_success 'a names index past the names gives no name, with a warning' '
	map "AAAAS" >names.map &&
	run_bounded sourcemap-lookup names.map 1:1 >out 2>err &&
	echo "a.js:1:1" >expect && test_cmp expect out &&
	echo "sourcemap-lookup: warning: names.map: mappings: name index past the names (at byte 58)" >expect &&
	test_cmp expect err
'

test_expect_success 'JSON nested 1,000,001 deep in a map is refused with its byte' '
	perl -e "print q({\"version\":3,\"sources\":[],\"mappings\":\"\",\"x\":), q([) x 1000000, q(]) x 1000000, q(})" >deep.map &&
	run_bounded sourcemap-lookup deep.map 1:1 >out 2>err;
	test $? = 1 && test "$(wc -l <err)" = 1 &&
	echo "sourcemap-lookup: deep.map: nesting deeper than the maximum depth (at byte 1000043)" >expect &&
	test_cmp expect err
'

test_expect_success 'a million generated lines: the last one is found at once' '
	perl -e "print q({\"version\":3,\"sources\":[\"a.js\"],\"mappings\":\"), q(;) x 1000000, q(AAUA\"})" >long.map &&
	run_bounded sourcemap-lookup long.map 1000001:1 1:1 >out &&
	printf "a.js:11:1\n-\n" >expect && test_cmp expect out
'

# semis.js.map: 50 MB of ";" (every generated line empty) but for lines 1,
# 25,000,001 and 50,000,001.  Empty lines must cost no memory each: 512 MB
# of address space is plenty (a record per line once took 2.5 GB).
semis_map() {
	perl -e "print q({\"version\":3,\"file\":\"semis.js\",\"sources\":[\"a.js\"],\"mappings\":\"AAAA), q(;) x 25000000, q(AACA), q(;) x 25000000, q(AACA\"})" >semis.js.map
}
run_small() {
	(
		[ -n "$limit_mem" ] && ulimit -v 524288
		exec timeout $((20 * TSCALE)) "$@"
	)
}

test_expect_success '50 MB of ";": look-ups of lines with and without segments' '
	semis_map &&
	run_small sourcemap-lookup semis.js.map 1:1 2:1 25000001:1 25000001:9 30000000:1 \
		50000001:1 50000002:1 >out &&
	printf "a.js:1:1\n-\na.js:2:1\na.js:2:1\n-\na.js:3:1\n-\n" >expect && test_cmp expect out
'

test_expect_success '50 MB of ";": --validate accepts it' '
	semis_map &&
	run_small sourcemap-lookup --validate semis.js.map >out 2>err &&
	test ! -s err
'

test_expect_success '50 MB of ";": a profile folds through it' '
	semis_map &&
	printf "%s\n" "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2]}," \
		"{\"id\":2,\"callFrame\":{\"functionName\":\"f\",\"scriptId\":\"1\",\"url\":\"semis.js\",\"lineNumber\":25000000,\"columnNumber\":0},\"children\":[3]}," \
		"{\"id\":3,\"callFrame\":{\"functionName\":\"g\",\"scriptId\":\"1\",\"url\":\"semis.js\",\"lineNumber\":50000000,\"columnNumber\":0}}]," \
		"\"startTime\":0,\"endTime\":2,\"samples\":[3,3],\"timeDeltas\":[1,1]}" >semis.cpuprofile &&
	run_small pprof-fold -i samples -g lines -m semis.js.map semis.cpuprofile >out 2>err &&
	echo "f a.js:2;g a.js:3 2" >expect && test_cmp expect out
'

test_expect_success 'a million segments on one line' '
	perl -e "print q({\"version\":3,\"sources\":[\"a.js\"],\"mappings\":\"AAAA), q(,CACA) x 1000000, q(\"})" >wide.map &&
	run_bounded sourcemap-lookup wide.map 1:1000001 1:1 >out &&
	printf "a.js:1000001:1\na.js:1:1\n" >expect && test_cmp expect out
'

test_expect_success 'an index map of 100,000 sections' '
	perl -e "print q({\"version\":3,\"sections\":[), join(q(,), map { qq({\"offset\":{\"line\":\$_,\"column\":0},\"map\":{\"version\":3,\"sources\":[\"s\$_.js\"],\"mappings\":\"AAAA\"}}) } 0 .. 99999), q(]})" >index.map &&
	run_bounded sourcemap-lookup index.map 100000:1 1:1 >out &&
	printf "s99999.js:1:1\ns0.js:1:1\n" >expect && test_cmp expect out
'

# Each function's parent and class were looked for among all the functions
# before it: 200,000 side by side took 2 * 10^10 steps (minutes).
test_expect_success 'name recovery in a script of 200,000 functions side by side' '
	perl -e "print q(function a(){}) x 200000, qq(\n)" >wide.js &&
	printf "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAA\"}" >wide.js.map &&
	run_bounded sourcemap-lookup --function wide.js.map 1:11 >out &&
	echo a.js:1:1 >expect && test_cmp expect out
'

# index.js.map: 10^6 sections, 97 MiB (tests/hostile/gen-indexmap.pl).
# Issue 14: one look-up took 8 s and 858 MB while every section was
# gathered whole before it was adopted (now 0.5 s and 143 MB: the pages of
# the file parsed are handed back as the parse goes); 512 MB of address
# space is plenty.
index_map() {
	[ -s index.js.map ] || perl "$SRC/tests/hostile/gen-indexmap.pl" 1000000 >index.js.map
}

test_expect_success '10^6 sections: look-ups at the first, middle and last sections' '
	index_map &&
	run_small sourcemap-lookup index.js.map 1:1 2:1 998:1 500001:1 1000000:1 \
		1000000:7 1000001:1 >out &&
	printf "%s\n" s0.js:1:1 s1.js:2:1 s997.js:1:1 s500000.js:504:1 \
		s999999.js:9:1 s999999.js:9:1 - >expect &&
	test_cmp expect out
'

test_expect_success '10^6 sections: --validate accepts it' '
	index_map &&
	run_small sourcemap-lookup --validate index.js.map >out 2>err &&
	test ! -s err
'

test_expect_success '10^6 sections: a profile folds through it' '
	index_map &&
	printf "%s\n" "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2]}," \
		"{\"id\":2,\"callFrame\":{\"functionName\":\"f\",\"scriptId\":\"1\",\"url\":\"index.js\",\"lineNumber\":500000,\"columnNumber\":0},\"children\":[3]}," \
		"{\"id\":3,\"callFrame\":{\"functionName\":\"g\",\"scriptId\":\"1\",\"url\":\"index.js\",\"lineNumber\":999999,\"columnNumber\":0}}]," \
		"\"startTime\":0,\"endTime\":2,\"samples\":[3,3],\"timeDeltas\":[1,1]}" >index.cpuprofile &&
	run_small pprof-fold -i samples -g lines -m index.js.map index.cpuprofile >out 2>err &&
	echo "f s500000.js:504;g s999999.js:9 2" >expect && test_cmp expect out
'

test_done
