#!/bin/sh
# Names on every bundler: one TypeScript program with every style of
# function (fixtures/names/src), built by each bundler minified and not,
# profiled with node --cpu-prof (fixtures/names/README.md).  The expected
# frames (BUNDLER/expected.folded) come from the oracle in the generator:
# trace-mapping for the positions, and the name V8 gave the same function in
# the unminified run.  Per bundler, the symbolicated frames of the minified
# run must carry at least 95% of the bundle's sample weight on the oracle's
# names and files (a frame counts once per sample whose stack holds it).
# At -g lines the one warning allowed is the one-line bundle's: its
# sampled lines can't be mapped (positionTicks carry no column).
. "$(dirname "$0")/../lib.sh"

N=$FIX/names
SCORE=$SRC/tests/cli/names-score.awk

# score BUNDLER VARIANT [pprof-fold options]: "RIGHT TOTAL PERCENT" in
# $S/BUNDLER.VARIANT.score (kept for the table and later tests)
S=$TRASH/scores
mkdir -p "$S"
score() {
	_b=$1 _v=$2
	shift 2
	pprof-fold -i samples -g lines -m "$N/$_b/$_v" "$@" "$N/$_b/min.cpuprofile" \
		>"$_b.$_v.folded" 2>"$_b.$_v.err" &&
	awk -f "$SCORE" "$N/$_b/expected.folded" "$_b.$_v.folded" >"$S/$_b.$_v.score"
}

# at least PCT percent (one decimal) in FILE's third column
at_least() {
	awk -v want="$1" '{ exit !($3 + 0 >= want) }' "$2"
}

# has_frames TAG PATTERN...: every bundler's frames of program TAG (as
# program_scores keeps them) match each PATTERN
has_frames() {
	_t=$1
	shift
	for b in esbuild tsc-terser rollup-terser webpack swc vite; do
		for _p in "$@"; do
			grep -q "$_p" "$S/$b.$_t.folded" || { echo "$b: no $_p"; return 1; }
		done
	done
}

# program_scores DIR TAG ORDINAL: another program's runs, 95% of each
# bundle's weight on the oracle's names and files; the frames kept in
# $S/BUNDLER.TAG.folded for the tests after
program_scores() {
	_d=$1 _t=$2 _o=$3
	for b in esbuild tsc-terser rollup-terser webpack swc vite; do
		[ -f "$_d/$b/min.cpuprofile" ] || continue
		test_expect_success "$_o program, $b: 95% of the weight on the right names and files" '
			pprof-fold -i samples -g lines -m "$_d/$b/min" "$_d/$b/min.cpuprofile" \
				>"$S/$b.$_t.folded" 2>$b.$_t.err &&
			awk -f "$SCORE" "$_d/$b/expected.folded" "$S/$b.$_t.folded" >"$S/$b.$_t.score" &&
			at_least 95 "$S/$b.$_t.score" &&
			! grep -v "sampled lines map to several original lines (a one-line bundle?)" $b.$_t.err
		'
		echo "# names, $_o program, $b: $(cat "$S/$b.$_t.score" 2>/dev/null) (right, total, %)"
	done
}

test_expect_success 'the score fails a wrong name and a merged frame' '
	printf "%s\n" "a x.ts:1;b x.ts:2 3" "a x.ts:1;c x.ts:3 1" >e &&
	printf "%s\n" "a x.ts:1;b x.ts:2 3" "a x.ts:1;b x.ts:3 1" >a &&
	awk -f "$SCORE" e a >s && echo "7 8 87.5" >expect && test_cmp expect s &&
	printf "%s\n" "a x.ts:1;a x.ts:1 4" >a &&
	awk -f "$SCORE" e a >s && echo "4 8 50.0" >expect && test_cmp expect s
'

for b in esbuild tsc-terser rollup-terser webpack swc vite; do
	[ -f "$N/$b/min.cpuprofile" ] || continue
	test_expect_success "$b: 95% of the weight on the right names and files" '
		score $b min && at_least 95 "$S/$b.min.score" &&
		! grep -v "sampled lines map to several original lines (a one-line bundle?)" $b.min.err
	'
	echo "# names $b with sourcesContent: $(cat "$S/$b.min.score" 2>/dev/null) (right, total, %)"
	# from the script and the map's names alone: 92.7% (tsc-terser) to
	# 98.1% (esbuild) today; 13.0% for tsc-terser before a function
	# terser inlined at its one call and exports.f were named
	test_expect_success "$b without sourcesContent: 90% from the script and the map's names" '
		score $b min-nosc && at_least 90 "$S/$b.min-nosc.score"
	'
	echo "# names $b without sourcesContent: $(cat "$S/$b.min-nosc.score" 2>/dev/null)"
done

# An allocation profile of the same program (capture.mjs --heap: V8's
# sampling heap profiler, collected objects kept; the oracle from the same
# unminified runs, weighted by selfSize as pprof-fold's default space).
# The capture's own wrapper script has no map: the one warning allowed.
for b in esbuild tsc-terser rollup-terser webpack swc vite; do
	[ -f "$N/$b/min.heapprofile" ] || continue
	test_expect_success "$b heap profile: 95% of the space on the right names and files" '
		pprof-fold -g lines -m "$N/$b/min" "$N/$b/min.heapprofile" >$b.heap.folded 2>$b.heap.err &&
		awk -f "$SCORE" "$N/$b/expected.heap.folded" $b.heap.folded >"$S/$b.heap.score" &&
		at_least 95 "$S/$b.heap.score" &&
		! grep -v "no source map for heap-capture.cjs in " $b.heap.err
	'
	echo "# names $b heap profile: $(cat "$S/$b.heap.score" 2>/dev/null) (right, total, %)"
done

test_expect_success 'the heap profile unmapped: its names are not the oracle'"'"'s' '
	pprof-fold -g lines "$N/esbuild/min.heapprofile" >unmapped 2>/dev/null &&
	awk -f "$SCORE" "$N/esbuild/expected.heap.folded" unmapped >s &&
	! at_least 95 s
'

test_expect_success 'esbuild without sourcesContent: 95% from the script alone' '
	at_least 95 "$S/esbuild.min-nosc.score"
'

# esbuild --minify --keep-names (wrangler's default keeps names): each
# function is handed to a helper that sets its .name, o(()=>{...},"f"),
# and V8 calls the arrows anonymous.  Without sourcesContent the helper's
# string names them: 89.6% before, 100% now.
for v in min min-nosc; do
	test_expect_success "esbuild --keep-names, $v: 95% of the weight on the right names and files" '
		score esbuild-keep-names $v && at_least 95 "$S/esbuild-keep-names.$v.score" &&
		! grep -v "sampled lines map to several original lines (a one-line bundle?)" \
			esbuild-keep-names.$v.err
	'
	echo "# names esbuild --keep-names, $v: $(cat "$S/esbuild-keep-names.$v.score" 2>/dev/null)"
done

# A second program (fixtures/names2), written apart from the first and
# after the rules were: a router with an abstract class and an IIFE module,
# a cache with a computed-key generator, events, a state machine, a
# namespace's exported const; built and captured the same way, with the
# same oracle.  The same 95% on every bundler.
program_scores "$FIX/names2" p2 second

# *[Symbol.iterator]() in "export default class LruCache": V8 names a
# member with a computed key by the binding of its class expression, none
# in a class declaration.  esbuild, swc and vite make the class an
# expression (var LruCache = class), tsc and webpack keep the declaration:
# each build's frame is named as V8 names it in that build unminified.
test_expect_success 'second program: a computed key, named as its bundle binds the class' '
	for b in esbuild swc vite; do
		grep -q "LruCache src/cache.ts:27" "$S/$b.p2.folded" || return 1
	done &&
	grep -q "(anonymous) src/cache.ts:27" "$S/tsc-terser.p2.folded" &&
	grep -q "(anonymous) webpack:///src/cache.ts:27" "$S/webpack.p2.folded" &&
	! grep -q "LruCache [^ ]*cache.ts:27" "$S/tsc-terser.p2.folded" "$S/webpack.p2.folded"
'

# export const mean = in namespace Stats: TypeScript makes it Stats.mean =
# and V8 says Stats.mean (Stats2.mean on esbuild's and swc's unminified
# builds, _Stats.mean on vite's: their own renames of the namespace).
test_expect_success 'second program: a namespace'"'"'s exported const is NS.name' '
	for b in esbuild tsc-terser rollup-terser swc vite; do
		grep -q "Stats.mean src/events.ts:47" "$S/$b.p2.folded" || return 1
	done
'

# A third program (fixtures/names3), written as an application is: a
# store with middleware in an array, models with a mixin and a class with
# no constructor of its own, async pipelines, default exports.  The same
# 95% on every bundler.
program_scores "$FIX/names3" p3 third

# const middleware = [function logger() {}, (a, next) => {}]: V8 names
# the named function expression by its name, the arrow by the array's
# binding; the default constructor of class User (no constructor of its
# own) is User on every bundler, the mixin's class extends Base anonymous.
test_expect_success 'third program: array elements and default constructors' '
	has_frames p3 "logger [^ ]*src/app/store.ts:28" "middleware [^ ]*src/app/store.ts:3[23]" \
		";User [^ ]*src/app/models.ts:28;Entity " ";(anonymous) [^ ]*src/app/models.ts:20;User "
'

# A fourth program (fixtures/names4), heavy in TypeScript's own syntax:
# function types in annotations, type lists closed by ">>>", satisfies,
# overloads; services with promises and listeners.  The same 95%.
program_scores "$FIX/names4" p4 fourth

# Array.prototype.sumBy = function <T>(this: T[], f: (x: T) => number):
# the parameter's function type is no function named f; lookup = <K, V =
# Map<K, Array<number>>>(k: K) => keeps its binding past the ">>>".
test_expect_success 'fourth program: function types and >>> name nothing' '
	for b in esbuild tsc-terser rollup-terser webpack swc vite; do
		f="$S/$b.p4.folded" &&
		grep -q ";Array.sumBy [^ ]*src/async.ts:74 " "$f" &&
		grep -q ";lookup [^ ]*src/types.ts:29 " "$f" &&
		! grep -q ";f [^ ]*src/async.ts" "$f" || return 1
	done
'

# A fifth program (fixtures/names5), written as a user would bring it,
# after every rule before it: a router (a string-keyed method, computed
# enum keys, a curried arrow, a default parameter holding a function,
# middleware composed by reduceRight), events (a Proxy trap, methods put on
# with Object.assign, a class static block, a class expression stored in a
# registry object) and scheduling (async generator methods, promise
# chains, a private arrow field, a function declared in a block, new
# Promise(…) in a field and a returned property).  The same 95% on every
# bundler.
program_scores "$FIX/names5" p5 fifth

# registry.Codec = class { constructor() }: V8 names the constructor by
# the whole binding (it was Codec); { [Verb.Get]: (n) => } by the
# object's binding; f = (x) => as a default parameter by the parameter.
test_expect_success 'fifth program: a class bound to a member, computed keys, a default' '
	has_frames p5 ";registry.Codec [^ ]*src/app/bus.ts:67[ ;]" \
		";table [^ ]*src/app/router.ts:38[ ;]" ";table [^ ]*src/app/router.ts:39[ ;]" \
		";apply [^ ]*src/app/router.ts:50;f [^ ]*src/app/router.ts:50[ ;]" \
		";handle-request [^ ]*src/app/router.ts:26[ ;]" ";get [^ ]*src/app/bus.ts:58[ ;]"
'

# What new's arguments hold: class Conn { ready = new Promise((resolve)
# => ) } is ready where the bundle keeps the class declared, Conn.ready
# where it binds it (var Conn = class: esbuild, swc, vite); return { p:
# new Promise(...) } is p.
test_expect_success 'fifth program: new X(() => ) in a field and a property' '
	for b in esbuild tsc-terser rollup-terser webpack swc vite; do
		f="$S/$b.p5.folded" &&
		case $b in
		esbuild | swc | vite) want="Conn.ready" ;;
		*) want="ready" ;;
		esac &&
		grep -q ";$want [^ ]*src/app/sched.ts:89[ ;]" "$f" &&
		grep -q ";p [^ ]*src/app/sched.ts:98[ ;]" "$f" || return 1
	done
'

# A sixth program (fixtures/names6): components in .tsx files, JSX text
# with quotes and slashes, handlers in attributes, a render prop, a class
# component, a higher-order component, fragments, a generic arrow <T,>.
# The same 95% on every bundler.
program_scores "$FIX/names6" p6 sixth

# Names only the .tsx sources keep (the tokenizer reads JSX): function
# hovered in onMouseOver={...} and function Bordered returned by a
# higher-order component, whose names every minifier drops; a function
# that is an attribute's whole value, named by the attribute.
test_expect_success 'sixth program: names in .tsx sources' '
	has_frames p6 ";hovered [^ ]*src/ui/table.tsx:34[ ;]" \
		";Bordered [^ ]*src/ui/widgets.tsx:27[ ;]" ";onClick [^ ]*src/ui/table.tsx:21[ ;]" \
		";data-on-render [^ ]*src/ui/widgets.tsx:49[ ;]"
'

# A seventh program (fixtures/names7): Vue single-file components built by
# Vite and @vitejs/plugin-vue, <script setup lang="ts"> and the options
# API, vue itself left in node_modules (its scripts have no map: one
# warning each, as for any script without one).  Their sourcesContent is
# the whole component, its template and style around the scripts.
test_expect_success 'seventh program, vite: Vue components on the right names and files' '
	d="$FIX/names7/vite" &&
	pprof-fold -i samples -g lines -m "$d/min" "$d/min.cpuprofile" >"$S/vite.p7.folded" 2>p7.err &&
	awk -f "$SCORE" "$d/expected.folded" "$S/vite.p7.folded" >"$S/vite.p7.score" &&
	at_least 95 "$S/vite.p7.score" &&
	! grep -v -e "no source map for node_modules/" -e "sampled lines map to several" p7.err &&
	for p in ";weighRow [^ ]*src/ui/Board.vue:31[ ;]" ";rowsOf [^ ]*src/ui/Board.vue:19[ ;]" \
		";caption [^ ]*src/ui/Board.vue:25[ ;]" ";show [^ ]*src/ui/Cell.vue:21[ ;]" \
		";heavy [^ ]*src/ui/Cell.vue:16[ ;]" ";summary [^ ]*src/ui/Board.vue:35[ ;]"; do
		grep -q "$p" "$S/vite.p7.folded" || { echo "no $p"; return 1; }
	done
'
echo "# names, seventh program, vite: $(cat "$S/vite.p7.score" 2>/dev/null) (right, total, %)"

# An eighth program (fixtures/names8): what V8's name inferrer keeps from
# the code around a function, as in React's development builds (an IIFE
# after a condition, its exports assigned to members), a function assigned
# inside the expression that tests its binding, and arrays of handlers as
# an object literal's property's value.  The same 95% on every bundler.
program_scores "$FIX/names8" p8 eighth

# The names only V8's inference gives (each was devApi.render, hook.warm,
# or anonymous): the condition's names first, the whole expression's, the
# object's binding and the key.
test_expect_success 'eighth program: the names V8 infers from the code around' '
	has_frames p8 ";globalThis.setTimeout.devApi.render [^ ]*src/dev.ts:18[ ;]" \
		";globalThis.setTimeout.devApi.measure [^ ]*src/dev.ts:21[ ;]" \
		";globalThis.setTimeout.devApi.flush [^ ]*src/dev.ts:24[ ;]" \
		";hook.warm.hook.warm [^ ]*src/dev.ts:32[ ;]" ";routes.list [^ ]*src/dev.ts:38[ ;]" \
		";routes.nested.deep [^ ]*src/dev.ts:39[ ;]" ";items [^ ]*src/dev.ts:43[ ;]"
'

# A ninth program (fixtures/names9): functions an object literal's key
# holds through a conditional or a logical operator, and functions in
# parentheses, which V8 takes to be called at once.  The same 95% on every
# bundler.
program_scores "$FIX/names9" p9 ninth

# Each was the key alone, anonymous, or a name V8 does not give: the
# object's binding and the key, the callee's, the class's in its
# constructor; "(function" after an operator anonymous.
test_expect_success 'ninth program: keys through operators, functions in parentheses' '
	has_frames p9 ";handlers.run [^ ]*src/keys.ts:15[ ;]" ";handlers.stop [^ ]*src/keys.ts:16[ ;]" \
		";handlers.either [^ ]*src/keys.ts:19[ ;]" \
		";handlers.nested.deep [^ ]*src/keys.ts:20[ ;]" ";own [^ ]*src/keys.ts:21[ ;]" \
		";made [^ ]*src/keys.ts:28[ ;]" ";configure.hook [^ ]*src/keys.ts:34[ ;]" \
		";(anonymous) [^ ]*src/keys.ts:38[ ;]" ";(anonymous) [^ ]*src/keys.ts:41[ ;]" \
		";Store.x.get [^ ]*src/keys.ts:52[ ;]"
'

# A tenth program (fixtures/names10): functions whose return type holds
# type arguments with a comma or a function type (Map<string, number>,
# Promise<Map<K, Array<V>>>).  The finder found none of them in the
# sources: the map was said not to fit and not used on every bundler.
program_scores "$FIX/names10" p10 tenth

test_expect_success 'tenth program: return types with type arguments' '
	has_frames p10 ";tally [^ ]*src/typed.ts:9[ ;]" ";generic [^ ]*src/typed.ts:15[ ;]" \
		";fetchAll [^ ]*src/typed.ts:20[ ;]" ";pairs [^ ]*src/typed.ts:24[ ;]" \
		";callbacks [^ ]*src/typed.ts:28[ ;]" ";entries [^ ]*src/typed.ts:3[79][ ;]" \
		";get size [^ ]*src/typed.ts:44[ ;]" ";of [^ ]*src/typed.ts:48[ ;]" \
		";settle [^ ]*src/typed.ts:55[ ;]" ";lookup [^ ]*src/typed.ts:61[ ;]" \
		";convert [^ ]*src/typed.ts:64[ ;]" ";paired [^ ]*src/typed.ts:69[ ;]"
'

# With sourcesContent and no script at hand, the names are those the
# script gives (the sources' functions at the mapped positions).  0:0 is
# the script's top level, whatever function the map puts there: vite's
# bundle starts with a function's code, and its top level took that
# function's name (mixDeclaration on every stack).
test_expect_success 'the maps alone, with sourcesContent: the names the script gives' '
	for b in esbuild tsc-terser rollup-terser webpack swc vite; do
		[ -f "$N/$b/min.cpuprofile" ] || continue
		rm -rf alone && mkdir alone &&
		(cd "$N/$b/min" && find . -name "*.map") >maps &&
		while read -r f; do
			mkdir -p "alone/${f%/*}" && cp "$N/$b/min/$f" "alone/$f" || return 1
		done <maps &&
		pprof-fold -m "$N/$b/min" "$N/$b/min.cpuprofile" >with 2>/dev/null &&
		pprof-fold -m alone "$N/$b/min.cpuprofile" >without 2>err &&
		test_cmp with without && test ! -s err || { echo "$b:"; cat err; return 1; }
	done
'

# An index map (fixtures/names/index-map.mjs: esbuild's map cut into
# sections, each listing the sources it uses): the same names and files as
# the regular map, with and without sourcesContent.
test_expect_success 'esbuild as an index map: the same frames as its regular map' '
	for v in min min-nosc; do
		pprof-fold -i samples -g lines -m "$N/esbuild/$v" "$N/esbuild/min.cpuprofile" >regular 2>/dev/null &&
		pprof-fold -i samples -g lines -m "$N/esbuild/${v%-nosc}-index${v#min}" \
			"$N/esbuild/min.cpuprofile" >index 2>err &&
		test_cmp regular index &&
		! grep -v "sampled lines map to several original lines (a one-line bundle?)" err || return 1
	done
'

test_expect_success 'esbuild as an index map: sourcemap-lookup --function agrees' '
	for c in 223 569 1252 1349 2060 2338 2404 2797 3077; do echo "1:$((c + 1))"; done >pos &&
	sourcemap-lookup --function --script="$N/esbuild/min/names.js" \
		"$N/esbuild/min/names.js.map" <pos >regular &&
	sourcemap-lookup --function --script="$N/esbuild/min-index/names.js" \
		"$N/esbuild/min-index/names.js.map" <pos >index &&
	test_cmp regular index &&
	test "$(grep -c " " index)" = 9
'

test_done
