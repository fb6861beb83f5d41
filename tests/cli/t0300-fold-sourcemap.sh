#!/bin/sh
# Symbolication: frames of the minified Worker bundle put back on the
# TypeScript that was written.  The goldens were checked against a profile
# of the unminified bundle (workerd-plain), whose names are V8's own: every
# symbolicated name and file:line below is a function of src/*.ts there,
# except frames V8 inlined in one run and not the other.
. "$(dirname "$0")/../lib.sh"

W=$FIX/worker

test_expect_success '-m DIR finds worker.js.map through worker.js' '
	pprof-fold -m "$W" "$FIX/profiles/workerd-min.cpuprofile" >actual &&
	test_cmp "$EXP/sym-min.folded" actual
'

test_expect_success '-m FILE.map serves the script it is named after' '
	pprof-fold -m "$W/worker.js.map" "$FIX/profiles/workerd-min.cpuprofile" >actual &&
	test_cmp "$EXP/sym-min.folded" actual
'

test_expect_success '-g lines prints the original file and 1-based line' '
	pprof-fold -g lines -m "$W" "$FIX/profiles/workerd-min.cpuprofile" >actual &&
	test_cmp "$EXP/sym-min.lines.folded" actual
'

# (at the lines where the functions start: the plain bundle's leaves are
# on the lines their positionTicks give, the one-line bundle's cannot be)
test_expect_success 'the names are the functions of the unminified bundle' '
	pprof-fold -g lines -m "$W" "$FIX/profiles/workerd-min.cpuprofile" |
		sed "s/ [0-9]*\$//" | tr ";" "\n" | sort -u >min &&
	sed "s/,\"positionTicks\":\[[^]]*\]//g" "$FIX/profiles/workerd-plain.cpuprofile" >noticks &&
	pprof-fold -g lines -m "$W/plain" noticks |
		sed "s/ [0-9]*\$//" | tr ";" "\n" | sort -u >plain &&
	comm -23 min plain >only-min &&
	# inlined into their callers in the plain run, so absent from it:
	printf "%s\n" "(anonymous) src/transform.ts:26" "camelCase src/transform.ts:127" \
		"combineHash src/util/hash.ts:17" "escapeHtml src/index.ts:49" \
		"normaliseString src/transform.ts:131" "roundTo src/transform.ts:140" >expect &&
	test_cmp expect only-min
'

test_expect_success 'a parameter name at the function start is not taken as its name' '
	! grep -E "(^|;)(input|text|key|n|e|t) " "$EXP/sym-min.folded"
'

test_expect_success 'heap profiles are symbolicated too' '
	pprof-fold -m "$W" "$FIX/profiles/workerd-min.alloc.heapprofile" >actual &&
	test_cmp "$EXP/sym-min.alloc.folded" actual
'

test_expect_success 'pprof Line.column is used' '
	pprof-fold -g lines -m "$W" "$FIX/pprof/workerd-min.cpu.columns.pb.gz" >actual 2>err &&
	test_cmp "$EXP/sym-min.columns.lines.folded" actual && ! test -s err
'

# @datadog/pprof writes no columns, but an anonymous function's name
# (anonymous:L#1:C#2446) holds its column in the bundle: those frames map
# as the same capture converted with Line.column does (the columns fixture);
# the others stay as they are, with one warning.
test_expect_success 'pprof without columns: one warning, frames left as they are but datadog anonymous ones' '
	pprof-fold -g lines -m "$W" "$FIX/pprof/workerd-min.cpu.nomap.pb.gz" >actual 2>err &&
	test_cmp "$EXP/sym-min.nomap.lines.folded" actual &&
	test "$(wc -l <err)" = 1 && grep -q "the profile has no columns" err &&
	! grep -q "(anonymous:L#" actual &&
	tr ";" "\n" <actual | sed "s/ [0-9]*\$//" | sort -u >frames &&
	pprof-fold -g lines -m "$W" "$FIX/pprof/workerd-min.cpu.columns.pb.gz" |
		tr ";" "\n" | sed "s/ [0-9]*\$//" | sort -u >mapped &&
	pprof-fold -g lines "$FIX/pprof/workerd-min.cpu.nomap.pb.gz" |
		tr ";" "\n" | sed "s/ [0-9]*\$//" | sort -u >unmapped &&
	comm -23 frames mapped | comm -23 - unmapped >neither &&
	test_cmp /dev/null neither &&
	grep -q "^(anonymous) src/transform.ts:128\$" frames &&
	grep -q "^(anonymous) src/transform.ts:26\$" frames
'

test_expect_success 'a URL with no map: one warning, the frames stay' '
	mkdir empty-dir &&
	pprof-fold -m empty-dir "$FIX/profiles/workerd-min.cpuprofile" >actual 2>err &&
	pprof-fold "$FIX/profiles/workerd-min.cpuprofile" >expect &&
	test_cmp expect actual &&
	echo "pprof-fold: warning: no source map for worker.js in empty-dir (looked for worker.js with a sourceMappingURL and for worker.js.map)" >expect.err &&
	test_cmp expect.err err
'

test_expect_success 'a bad map warns and the profile still folds' '
	mkdir bad && cp "$W/worker.js" bad/ && printf "{\"version\":3,\"mappings\":" >bad/worker.js.map &&
	pprof-fold -m bad "$FIX/profiles/workerd-min.cpuprofile" >actual 2>err &&
	pprof-fold "$FIX/profiles/workerd-min.cpuprofile" >expect &&
	test_cmp expect actual && grep -q "source map not used" err
'

test_expect_success 'a rules file associates a script URL with its map' '
	mkdir maps && cp "$W/worker.js.map" maps/bundle.map &&
	printf "version: 1\nsourcemaps:\n  - url: worker.js\n    map: maps/bundle.map\n" >r.yaml &&
	pprof-fold --rules r.yaml "$FIX/profiles/workerd-min.cpuprofile" >actual &&
	test_cmp "$EXP/sym-min.folded" actual
'

test_expect_success 'a rules association by regex, with the map alone (names from sourcesContent)' '
	mkdir maps && cp "$W/worker.js.map" maps/worker.map &&
	cat >r.yaml <<-\EOF &&
	version: 1
	sourcemaps:
	  - url-regex: '"'"'^(worker)\.js$'"'"'
	    map: maps/$1.map
	EOF
	pprof-fold --rules r.yaml "$FIX/profiles/workerd-min.cpuprofile" >actual &&
	test_cmp "$EXP/sym-min.folded" actual
'

test_expect_success 'a -m path that does not exist is an error' '
	test_fails 1 pprof-fold -m no-such-dir "$FIX/profiles/workerd-min.cpuprofile" &&
	grep -q "no-such-dir: No such file or directory" err
'

test_done
