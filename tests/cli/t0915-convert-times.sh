#!/bin/sh
# pprof-convert writes a V8 profile's sampling interval (the median gap
# between its samples) as period_type wall/nanoseconds and period, its
# duration (end - start) as duration_nanos, and no time_nanos (V8's clock
# is monotonic, not a date); go tool pprof -raw shows them.  Merged inputs
# sum their durations and keep the first period.  Skipped without `go`.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/filter-lib.sh"

if ! have_go; then
	test_skip "go tool pprof is not installed"
	test_done
	exit
fi

# header FILE: what go tool pprof -raw prints before the samples.
header() {
	go tool pprof -symbolize=none -raw "$1" 2>/dev/null | sed '/^Samples:/q'
}

test_expect_success 'the whole -raw output of a converted .cpuprofile (deltas out of order)' '
	pprof-convert --quiet -o c.pb.gz "$FIX/edge/neg-deltas.cpuprofile" &&
	go tool pprof -symbolize=none -raw c.pb.gz >actual 2>/dev/null &&
	test_cmp "$EXP/t0915/neg-deltas.raw" actual
'

test_expect_success 'period and duration of every .cpuprofile fixture (new and old formats)' '
	for f in edge/neg-deltas edge/reverse-nodes edge/old-node edge/old-node-noend \
		profiles/workerd-min profiles/workerd-min-b profiles/node-lines; do
		pprof-convert --quiet -o c.pb.gz "$FIX/$f.cpuprofile" &&
		echo "== $f" &&
		header c.pb.gz || return 1
	done >actual &&
	test_cmp "$EXP/t0915/headers.txt" actual
'

# median_gap FILE: the median of the gaps between the sorted timestamps of
# a .cpuprofile's samples (startTime plus the running sum of timeDeltas),
# in nanoseconds, computed here again.
median_gap() {
	tr -d " \n" <"$1" | sed 's/.*"timeDeltas":\[\([^]]*\)\].*/\1/' | tr , "\n" |
	awk "{ t += \$1; print t }" | sort -n |
	awk "NR > 1 { print \$1 - p } { p = \$1 }" | sort -n |
	awk "{ g[NR] = \$1 } END { print g[int((NR + 1) / 2)] * 1000 }"
}

test_expect_success 'the period is the median gap between samples' '
	for f in "$FIX/profiles/workerd-min.cpuprofile" "$FIX/profiles/workerd-min-b.cpuprofile"; do
		pprof-convert --quiet -o c.pb.gz "$f" &&
		median_gap "$f" >expect &&
		header c.pb.gz | sed -n "s/^Period: //p" >actual &&
		test_cmp expect actual || return 1
	done
'

test_expect_success 'no Time: line: a .cpuprofile has no date' '
	pprof-convert --quiet -o c.pb.gz "$FIX/profiles/workerd-min.cpuprofile" &&
	header c.pb.gz >h &&
	! grep "^Time:" h
'

test_expect_success 'merged inputs: durations summed, the first period' '
	pprof-convert --quiet -o c.pb.gz "$FIX/edge/neg-deltas.cpuprofile" \
		"$FIX/edge/reverse-nodes.cpuprofile" &&
	header c.pb.gz >actual &&
	cat >expect <<-\EOF &&
	PeriodType: wall nanoseconds
	Period: 10000
	Duration: 150µ
	Samples:
	EOF
	test_cmp expect actual
'

test_expect_success 'a pprof input keeps its own period, date and duration' '
	pprof-convert --quiet -o c.pb.gz "$FIX/pprof/workerd-min.cpu.pb.gz" &&
	header "$FIX/pprof/workerd-min.cpu.pb.gz" >expect &&
	header c.pb.gz >actual &&
	test_cmp expect actual
'

test_expect_success 'pprof-top prints the duration as go tool pprof does on the converted file' '
	pprof-convert --quiet -o c.pb.gz "$FIX/profiles/workerd-min.cpuprofile" &&
	go tool pprof -top c.pb.gz 2>/dev/null | sed -n "s/^Duration: //p" >expect &&
	pprof-top "$FIX/profiles/workerd-min.cpuprofile" | sed -n "s/^Duration: //p" >actual &&
	test_cmp expect actual
'

test_done
