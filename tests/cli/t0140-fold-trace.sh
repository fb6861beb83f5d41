#!/bin/sh
# Chrome traces (doc/trace-format.md): hand-made traces whose outputs were
# worked out by hand from DevTools' rules (fixtures/trace/README.md), in both
# layouts, gzipped, from a pipe, merged; the errors and the warnings.
. "$(dirname "$0")/../lib.sh"
T=$FIX/trace/edge
E=$EXP/t0140

test_expect_success 'object layout: wall, repaired (program) samples' '
	pprof-fold "$T/basic.json" >actual 2>err && test_cmp "$E/basic.folded" actual &&
	test ! -s err
'
test_expect_success 'samples' '
	pprof-fold -i samples "$T/basic.json" >actual && test_cmp "$E/basic.samples.folded" actual
'
test_expect_success 'lines: 0-based V8 positions printed 1-based' '
	pprof-fold -g lines "$T/basic.json" >actual && test_cmp "$E/basic.lines.folded" actual
'
test_expect_success 'per-sample lines: each sample on its own line, exact' '
	pprof-fold -g lines "$T/lines.json" >actual 2>err && test_cmp "$E/lines.lines.folded" actual &&
	test ! -s err
'
test_expect_success 'per-sample lines: functions granularity unchanged' '
	pprof-fold "$T/lines.json" >actual && test_cmp "$E/lines.folded" actual
'
test_expect_success 'per-sample lines: pprof-convert writes them, read back' '
	pprof-convert -o lines.pb.gz "$T/lines.json" && pprof-fold -g lines lines.pb.gz >actual &&
	test_cmp "$E/lines.lines.folded" actual
'
test_expect_success 'per-sample lines: gzipped, from a pipe' '
	gzip -c "$T/lines.json" | pprof-fold -g lines >actual && test_cmp "$E/lines.lines.folded" actual
'
test_expect_success 'lines that do not match a chunk'"'"'s samples are left out, one warning' '
	pprof-fold -i samples -g lines "$T/lines-mismatch.json" >actual 2>err &&
	printf "%s\n" "f u.js:1 3" "f u.js:5 1" "f u.js:6 1" >expect && test_cmp expect actual &&
	test "$(grep -c "lines do not match its samples" err)" = 1
'
test_expect_success 'time (metadata.startTime), duration and period' '
	pprof-top --format=json "$T/times.json" >top.json &&
	grep -q "\"time_nanos\":1709251198250000000,\"duration_nanos\":850000" top.json &&
	pprof-convert -o times.pb.gz "$T/times.json" && pprof-top --format=json times.pb.gz >top2.json &&
	grep -q "\"time_nanos\":1709251198250000000,\"duration_nanos\":850000" top2.json &&
	if command -v go >/dev/null; then
		go tool pprof -raw times.pb.gz 2>/dev/null >raw &&
		grep -qx "PeriodType: wall nanoseconds" raw && grep -qx "Period: 250000" raw
	fi
'
test_expect_success 'metadata.startTime with an offset; a date that does not exist is no time' '
	sed "s/2024-02-29T23:59:58.250Z/2024-03-01T01:59:58.25+02:00/" "$T/times.json" >off.json &&
	pprof-top --format=json off.json | grep -q "\"time_nanos\":1709251198250000000," &&
	sed "s/2024-02-29T/2023-02-29T/" "$T/times.json" >bad.json &&
	pprof-top --format=json bad.json >top.json && ! grep -q time_nanos top.json &&
	grep -q "\"duration_nanos\":850000" top.json
'
test_expect_success 'cut inside a number: whole and gzipped (a stream), the same reading' '
	{ head -n 5 "$T/basic.json"; printf "{\"pid\":1e,"; } >cut.json &&
	pprof-fold cut.json >expect 2>err1 && gzip -c cut.json >cut.json.gz &&
	pprof-fold cut.json.gz >actual 2>err2 && test_cmp expect actual &&
	sed s/cut.json.gz/cut.json/ err2 >err2b && test_cmp err1 err2b &&
	grep -q "truncated trace" err1
'
test_expect_success 'a gzipped trace cut short: the gzip error, as when inflated whole' '
	gzip -c "$T/basic.json" | head -c 300 >cutgz.json.gz &&
	! pprof-fold cutgz.json.gz >out 2>err && test ! -s out &&
	grep -q "^pprof-fold: cutgz.json.gz: truncated gzip stream (at byte [0-9]*)$" err
'
test_expect_success 'labels pid, tid, process, thread' '
	pprof-fold --tagroot=process,pid,thread,tid "$T/basic.json" >actual &&
	test_cmp "$E/basic.tagroot.folded" actual
'
test_expect_success 'bare array on one line, keys in another order' '
	pprof-fold "$T/basic-array.json" >actual && test_cmp "$E/basic.folded" actual
'
test_expect_success 'gzipped, from a pipe' '
	gzip -c "$T/basic-array.json" | pprof-fold >actual && test_cmp "$E/basic.folded" actual
'
test_expect_success 'merged with another input' '
	pprof-fold -i samples "$T/basic.json" "$T/basic-array.json" >actual &&
	sed "s/ \([0-9]*\)$/ \1 \1/" "$E/basic.samples.folded" |
		awk "{ print \$1, \$2 + \$3 }" >expect && test_cmp expect actual
'
test_expect_success 'two processes whose profiles are both 0x1' '
	pprof-fold --tagroot=thread,pid "$T/two-processes.json" >actual &&
	test_cmp "$E/two-processes.folded" actual
'
test_expect_success '--tagfocus on the thread name' '
	pprof-fold --tagfocus=thread=DedicatedWorker "$T/two-processes.json" >actual &&
	grep "^DedicatedWorker thread;20;" "$E/two-processes.folded" |
		sed "s/^DedicatedWorker thread;20;//" >expect && test_cmp expect actual
'
test_expect_success '--no-fix-samples: the (program) samples stay' '
	pprof-fold --no-fix-samples "$T/basic.json" >actual &&
	printf "%s\n" "(program) 250000" "main 192857" "main;work 200000" \
		"main;work;(anonymous) 100000" >expect && test_cmp expect actual
'
test_expect_success '--thread: only the threads whose name matches' '
	pprof-fold --thread=^Dedicated --tagroot=thread,pid "$T/two-processes.json" >actual &&
	grep "^DedicatedWorker thread;20;" "$E/two-processes.folded" >expect && test_cmp expect actual
'
test_expect_success '--thread with a bad regex is a usage error' '
	pprof-fold --thread="(" "$T/basic.json" >out 2>err; test $? = 2 && test ! -s out &&
	grep -q "^pprof-fold: bad tagfocus regular expression" err
'
test_expect_success 'flame chart: the thread with the most samples, the first of equals' '
	pprof-flame --flamechart "$T/two-processes.json" >chart.svg &&
	grep -c "<title>(anonymous) (200.00 µs" chart.svg >n && test "$(cat n)" = 1
'
test_expect_success 'flame chart of the thread --thread selects' '
	pprof-flame --flamechart --thread=Dedicated "$T/two-processes.json" >chart.svg &&
	! grep -q "<title>(anonymous)" chart.svg &&
	grep -q "<title>work (550.00 µs" chart.svg
'
test_expect_success 'several profiles on one thread: the last, with one warning' '
	pprof-fold "$T/two-profiles.json" >actual 2>err &&
	test_cmp "$E/two-profiles.folded" actual &&
	echo "pprof-fold: warning: several profiles on one thread: the last one is read, as DevTools does" >expect &&
	test_cmp expect err
'
test_expect_success 'a truncated trace: up to the last complete event, one warning' '
	pprof-fold "$T/truncated.json" >actual 2>err &&
	test_cmp "$E/truncated.folded" actual &&
	echo "pprof-fold: warning: truncated trace: read up to the last complete event (at byte 1034)" >expect &&
	test_cmp expect err
'
test_expect_success 'JSON events without a Profile: refused in one line' '
	printf "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1}]" >x.json &&
	test_fails 1 pprof-fold x.json &&
	echo "pprof-fold: x.json: not a trace with a CPU profile: no Profile events" >expect &&
	test_cmp expect err
'
test_expect_success 'an object with an empty traceEvents: refused' '
	printf "{\"traceEvents\":[]}" >e.json &&
	test_fails 1 pprof-fold e.json &&
	echo "pprof-fold: e.json: not a trace with a CPU profile: no events" >expect &&
	test_cmp expect err
'
test_expect_success 'a JSON array of numbers: refused' '
	printf "[1,2]" | test_fails 1 pprof-fold &&
	echo "pprof-fold: <stdin>: not a trace with a CPU profile: no Profile events" >expect &&
	test_cmp expect err
'
test_done
