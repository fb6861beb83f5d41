#!/bin/sh
# pprof-flame: whole SVGs against golden files (the embedded script is
# checked once, separately, so that editing it does not touch every golden),
# and every SVG written is well-formed XML (xmllint).
# FLAME_REGEN=1 rewrites the golden files from the current output.
. "$(dirname "$0")/../lib.sh"

IN=$SRC/tests/cli/flame
G=$EXP/t0400

# check_svg FILE: well-formed XML.  xmllint is required (libxml2-utils).
check_svg() {
	if ! command -v xmllint >/dev/null 2>&1; then
		echo "xmllint not found: install libxml2-utils"
		return 1
	fi
	xmllint --noout "$1"
}

# The SVG with its script element replaced by a marker.
noscript() {
	sed '/^<script type="text\/ecmascript"><!\[CDATA\[$/,/^\]\]><\/script>$/c\
<script/>' "$1"
}

# golden NAME ARGS...: pprof-flame ARGS matches $G/NAME.svg.
golden() {
	name=$1
	shift
	pprof-flame "$@" >out.svg && check_svg out.svg && noscript out.svg >actual || return 1
	if [ -n "${FLAME_REGEN:-}" ]; then
		cp actual "$G/$name.svg"
	fi
	test_cmp "$G/$name.svg" actual
}

test_expect_success 'folded stacks, defaults' '
	golden basic "$IN/basic.folded"
'
test_expect_success 'icicle graph' '
	golden basic-inverted --inverted "$IN/basic.folded"
'
test_expect_success 'reversed stacks, titles, sizes' '
	golden basic-reverse --reverse --title "Leaf <first>" --subtitle "a & b" \
		--width 800 --height 20 --fontsize 10 --fontwidth 0.6 --countname ms \
		--nametype "Func:" --notes "n--otes" "$IN/basic.folded"
'
test_expect_success 'flame chart keeps the input order' '
	golden basic-flamechart --flamechart "$IN/basic.folded"
'
test_expect_success 'minwidth as a percentage; mem palette; hash colours' '
	golden basic-minwidth --minwidth 5% --colors mem --hash "$IN/basic.folded"
'
test_expect_success 'callees sorted by width' '
	golden basic-sorted --sort-by-width "$IN/basic.folded"
'
test_expect_success 'narrow callees merged into (other)' '
	golden basic-merged --merge-small --minwidth 4% "$IN/basic.folded"
'
test_expect_success 'several inputs: their lines summed, fractions kept, as their concatenation' '
	golden merged "$IN/basic.folded" "$IN/frac.folded" &&
	cat "$IN/basic.folded" "$IN/frac.folded" >both.folded &&
	pprof-flame both.folded >both.svg &&
	test_cmp both.svg out.svg
'
test_expect_success 'fractional counts; factor' '
	golden frac --factor 2.5 "$IN/frac.folded"
'
test_expect_success 'differential: by the inclusive delta, before, after and delta in titles' '
	golden diff "$IN/diff.folded"
'
test_expect_success 'differential --delta=leaf: flamegraph.pl fills and titles' '
	golden diff-leaf --delta=leaf "$IN/diff.folded"
'
test_expect_success 'differential in units: --count-unit' '
	golden diff-units --count-unit ms "$IN/diff.folded"
'
test_expect_success 'a shrinking frame is never red: handle fell, main fell' '
	pprof-flame "$IN/diff.folded" >out.svg &&
	grep "<title>cache (after 11 samples, 11.58%; before 25, delta -14, -56.00%)</title>" out.svg |
		grep -q "fill=\"#7676ff\""
'
test_expect_success '--count-unit: time and memory in human units, a subtitle' '
	golden count-unit-ms --count-unit ms "$IN/basic.folded" &&
	golden count-unit-bytes --count-unit bytes "$IN/frac.folded" &&
	golden count-unit-samples --count-unit samples "$IN/basic.folded"
'
test_expect_success 'plain folded input: no subtitle, flamegraph.pl numbers' '
	pprof-flame "$IN/basic.folded" >out.svg && ! grep -q "id=\"subtitle\"" out.svg
'
test_expect_success 'a heap profile in KiB/MiB/GiB' '
	golden heap --minwidth 20 "$FIX/pprof/workerd-min.alloc.heap.pb.gz" &&
	golden heapprofile "$FIX/edge/samples.heapprofile"
'
test_expect_success '--countname and --factor: flamegraph.pl numbers even with a unit' '
	golden heapprofile-countname --countname bytes "$FIX/edge/samples.heapprofile" &&
	golden heapprofile-factor --factor 2 "$FIX/edge/samples.heapprofile"
'
test_expect_success '--subtitle "" drops the default subtitle' '
	pprof-flame --subtitle "" "$FIX/edge/samples.heapprofile" >out.svg &&
	! grep -q "id=\"subtitle\"" out.svg
'
test_expect_success '--diff BEFORE AFTER: two profiles, their unit kept' '
	golden diff-profiles --minwidth 20 --diff "$FIX/pprof/workerd-min.cpu.nomap.pb.gz" \
		"$FIX/pprof/workerd-min-b.cpu.nomap.pb.gz"
'
test_expect_success '--diff draws what pprof-diff | pprof-flame draws; folded input takes the unit' '
	pprof-diff "$FIX/pprof/workerd-min.cpu.nomap.pb.gz" "$FIX/pprof/workerd-min-b.cpu.nomap.pb.gz" |
		pprof-flame --count-unit nanoseconds --subtitle s >a.svg &&
	pprof-flame --subtitle s --diff "$FIX/pprof/workerd-min.cpu.nomap.pb.gz" \
		"$FIX/pprof/workerd-min-b.cpu.nomap.pb.gz" >b.svg &&
	test_cmp a.svg b.svg &&
	pprof-fold "$FIX/pprof/workerd-min.cpu.nomap.pb.gz" >a.folded &&
	pprof-flame --subtitle s --diff a.folded "$FIX/pprof/workerd-min-b.cpu.nomap.pb.gz" >c.svg &&
	test_cmp b.svg c.svg
'
test_expect_success 'differential, negated, by inclusive delta, larger width' '
	golden diff-inclusive --negate --delta inclusive --diff-width max "$IN/diff.folded"
'
test_expect_success 'vanished paths: width from before' '
	golden diff-before --diff-width before "$IN/diff.folded"
'
test_expect_success 'a zero-width frame does not hide another of its name' '
	golden zero-width --minwidth 0 "$IN/zero-width.folded"
'
test_expect_success 'CRLF, BOM, comment and invalid lines' '
	pprof-flame "$IN/crlf-bom.folded" >out.svg 2>err && check_svg out.svg &&
	noscript out.svg >actual &&
	{ [ -z "${FLAME_REGEN:-}" ] || cp actual "$G/crlf-bom.svg"; } &&
	test_cmp "$G/crlf-bom.svg" actual &&
	echo "pprof-flame: warning: $IN/crlf-bom.folded: ignored 1 lines with invalid format" >expect &&
	test_cmp expect err
'
test_expect_success 'hostile names: escaped, no script injected' '
	golden hostile --quiet "$IN/hostile.folded" &&
	test "$(grep -c "<script" out.svg)" = 1 &&
	test "$(grep -c "]]>" out.svg)" = 1
'
test_expect_success 'standard input, gzip' '
	gzip -c "$IN/basic.folded" | pprof-flame >out.svg && check_svg out.svg &&
	noscript out.svg >actual && test_cmp "$G/basic.svg" actual
'
test_expect_success '.cpuprofile: counts named by the unit' '
	golden cpuprofile "$FIX/profiles/workerd-min.cpuprofile"
'
test_expect_success '.cpuprofile flame chart: samples in time order, widths in time' '
	golden chart --flamechart "$FIX/edge/neg-deltas.cpuprofile"
'
test_expect_success 'flame chart of the real Worker profile: well-formed, one run per frame at depth 1' '
	pprof-flame --flamechart --colors ts "$FIX/profiles/workerd-min.cpuprofile" >out.svg &&
	check_svg out.svg && grep -q ">Flame Chart</text>" out.svg &&
	test "$(grep -c "<title>" out.svg)" -gt 1000
'
test_expect_success 'pprof, lines granularity, ts palette' '
	golden pprof-lines -g lines --colors ts "$FIX/pprof/workerd-min.cpu.pb.gz"
'
test_expect_success '--colors ts by the source-mapped file: the symbolicated Worker profile' '
	golden ts-worker-mapped --colors ts -m "$FIX/worker" "$FIX/profiles/workerd-min.cpuprofile"
'
test_expect_success '--colors ts: node_modules libraries, the runtime (no file, node:), the user code' '
	golden ts-classes --colors ts "$FIX/edge/ts-classes.cpuprofile" &&
	golden ts-classes-files --colors ts -g filefunctions "$FIX/edge/ts-classes.cpuprofile"
'
test_expect_success '--colors ts: a bundle mapped into node_modules is the libraries blue, not the user code' '
	golden ts-mapped --colors ts -m "$FIX/edge/ts-mapped" "$FIX/edge/ts-mapped/bundle.cpuprofile" &&
	pprof-flame --colors ts "$FIX/edge/ts-mapped/bundle.cpuprofile" >unmapped.svg &&
	grep "<title>d (" unmapped.svg | grep -q "fill=\"#[def]" &&
	grep "<title>dispatch (" out.svg | grep -q "fill=\"#[4-8]"
'
test_expect_success '--colors ts: the classes hues (blue libraries, purple runtime, warm user code)' '
	pprof-flame --colors ts -g filefunctions "$FIX/edge/ts-classes.cpuprofile" >out.svg &&
	sed -n "s/^<g[^>]*><title>\([^ ]*\) \([a-z]*:[^ ]*\) .*fill=\"#\(..\)\(..\)\(..\)\".*/\1 \2 \3 \4 \5/p" out.svg |
	while read -r name file r g b; do
		r=$(printf %d 0x$r) g=$(printf %d 0x$g) b=$(printf %d 0x$b)
		case $file in
		*node_modules/*) cls=lib; test $b -gt $r && test $b -gt $g ;;
		node:*) cls=runtime; test $r -gt $g && test $b -gt $g ;;
		*) cls=user; test $r -gt $b && test $g -gt $b ;;
		esac || { echo "$name $file: $r,$g,$b is not $cls"; exit 1; }
		echo "$cls $name"
	done >classes &&
	sort classes >actual &&
	printf "%s\n" "lib decode" "lib dispatch" "lib parse" "runtime listOnTimeout" \
		"runtime readFileSync" "user handler" "user main" "user parse" >expect &&
	test_cmp expect actual
'
test_expect_success 'flame chart of a trace of several threads: one chart per thread (two of one name in two processes), stacked, titled' '
	golden trace-threads --flamechart "$FIX/trace/trace.json.gz" &&
	test "$(grep -c "^<svg " out.svg)" = 4 &&
	grep -o "id=\"title\"[^<]*" out.svg >actual &&
	printf "%s\n" "id=\"title\" x=\"600.00\" y=\"24\">Flame Chart: CrRendererMain (pid 15569)" \
		"id=\"title\" x=\"600.00\" y=\"24\">Flame Chart: CrRendererMain (pid 15645)" \
		"id=\"title\" x=\"600.00\" y=\"24\">Flame Chart: DedicatedWorker thread" >expect &&
	test_cmp expect actual
'
test_expect_success 'flame chart of a trace, --thread keeping one: one chart, as before' '
	pprof-flame --flamechart --thread=Worker "$FIX/trace/trace.json.gz" >one.svg &&
	check_svg one.svg && test "$(grep -c "^<svg " one.svg)" = 1 &&
	grep -q ">Flame Chart</text>" one.svg &&
	pprof-flame --flamechart --thread="Main|Worker" --title T "$FIX/trace/trace.json.gz" >two.svg &&
	check_svg two.svg && test "$(grep -c "^<svg " two.svg)" = 4 &&
	grep -q ">T: DedicatedWorker thread</text>" two.svg
'
test_expect_success 'flame charts of the threads of a trace: its warnings said once' '
	pprof-flame --flamechart -m "$FIX/trace/bundle" "$FIX/trace/trace-maps.json.gz" >m.svg 2>err &&
	check_svg m.svg && test "$(grep -c "^<svg " m.svg)" = 4 &&
	test "$(grep -c "no source map for pptr:internal " err)" = 1
'
test_expect_success 'the same frames from a profile as from its folded stacks' '
	pprof-fold "$FIX/pprof/workerd-min.cpu.pb.gz" >f.folded &&
	pprof-flame --count-unit nanoseconds --subtitle s f.folded >a.svg &&
	pprof-flame --subtitle s "$FIX/pprof/workerd-min.cpu.pb.gz" >b.svg &&
	check_svg a.svg && check_svg b.svg && test_cmp a.svg b.svg
'
test_expect_success 'the embedded script is flame_script.js without indentation and comment lines' '
	pprof-flame "$IN/basic.folded" >out.svg &&
	sed -n "/^<script type=\"text\/ecmascript\"><!\[CDATA\[$/,/^\]\]><\/script>$/p" out.svg |
		sed "1d;\$d" >actual &&
	sed -e "s/^[[:space:]]*//" -e "/^\$/d" -e "/^\/\//d" "$SRC/libpprof/flame_script.js" >expect &&
	test_cmp expect actual
'
test_expect_success '-o writes the file; --cp reads and writes palette.map' '
	printf "main->rgb(1,2,3)\n" >palette.map &&
	pprof-flame --cp -o g.svg "$IN/basic.folded" && check_svg g.svg &&
	grep -q "fill=\"rgb(1,2,3)\"" g.svg &&
	grep -q "^main->rgb(1,2,3)$" palette.map && grep -q "^compute->rgb(" palette.map
'

test_done
