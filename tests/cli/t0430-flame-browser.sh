#!/bin/sh
# pprof-flame's SVG in a real browser: headless Chromium driven over the
# DevTools protocol (tests/cli/flame-browser.mjs, Node, no npm package):
# zoom on click, details on hover, regex search and its matched percentage,
# Ctrl-I, the state kept in the URL, the readable controls (computed
# opacity and colour), the load time of a large graph; a flame chart's time
# axis and its tooltips' start and duration; the before, after and delta in
# the tooltip of a differential graph's shrinking frame; the charts of a
# trace's threads, stacked, each zoomed on its own.
# Skipped when chromium or node is missing (CI installs chromium, nodejs).
. "$(dirname "$0")/../lib.sh"

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null 2>&1; then
	test_skip "chromium or node not installed"
	test_done
	exit 0
fi

test_expect_success 'the real Worker profile in Chromium' '
	pprof-fold "$FIX/profiles/workerd-min.cpuprofile" >w.folded &&
	pprof-flame --minwidth 0 "$FIX/profiles/workerd-min.cpuprofile" >w.svg &&
	awk "BEGIN { srand(3); for (i = 0; i < 30000; i++) {
		s = \"root\"; d = 3 + int(rand() * 12);
		for (j = 0; j < d; j++) s = s \";fn\" int(rand() * (j < 2 ? 3 : 12));
		print s, 1 + int(rand() * 100) } }" >big.folded &&
	pprof-flame --minwidth 0.06 big.folded >big.svg &&
	pprof-flame --flamechart --minwidth 0 "$FIX/profiles/workerd-min.cpuprofile" >chart.svg &&
	pprof-diff "$FIX/pprof/workerd-min.cpu.nomap.pb.gz" "$FIX/pprof/workerd-min-b.cpu.nomap.pb.gz" >d.folded &&
	pprof-flame --minwidth 0 --diff "$FIX/pprof/workerd-min.cpu.nomap.pb.gz" \
		"$FIX/pprof/workerd-min-b.cpu.nomap.pb.gz" >d.svg &&
	pprof-flame --flamechart "$FIX/trace/trace.json.gz" >threads.svg &&
	node "$SRC/tests/cli/flame-browser.mjs" "$CHROMIUM" w.svg w.folded big.svg \
		chart.svg d.svg d.folded threads.svg >log 2>&1;
	st=$?; cat log; test $st = 0 && ! grep -q "^not ok" log
'
# The timings, as TAP comments.
grep "^# " "$TRASH/$test_count/log" 2>/dev/null

test_done
