#!/bin/sh
# pprof-top --list=RE (issue 18): pprof's -list, flat and cum per source
# line beside the source text.  Goldens on V8 input whose source comes from
# the maps' sourcesContent.  A small Go program is built and profiled,
# so the test has its source; its listing must equal go tool pprof -list,
# with the source found from the current directory, under --source-path,
# and the errors of a file that cannot be found.  Skipped without go.
. "$(dirname "$0")/../lib.sh"

P=$FIX/pprof/workerd-min.cpu.pb.gz

test_expect_success 'a function without a file; a file that cannot be found' '
	pprof-top --list="^Garbage Collection\$" "$P" >actual &&
	printf "Total: 2.41s\nNo source information for Garbage Collection\n" >expect &&
	test_cmp expect actual &&
	pprof-top --list="^fetch\$" --source-path=/nonexistent "$P" >actual &&
	cat >expect <<-\EOF &&
	Total: 2.41s
	ROUTINE ======================== fetch in src/cache.ts
	      16ms      2.22s (flat, cum) 92.20% of Total
	 Error: could not find file src/cache.ts on path /nonexistent
	EOF
	test_cmp expect actual
'

test_expect_success 'goldens: the TypeScript lines from the sourcesContent of -m maps' '
	pprof-top --list="^visit" -m "$FIX/worker/worker.js.map" \
		"$FIX/profiles/workerd-min.cpuprofile" >actual &&
	test_cmp "$EXP/t0760/workerd-min.map.list" actual
'

test_expect_success 'goldens: ... and of the maps found under a -m directory' '
	pprof-top --list="^visit" -m "$FIX/worker" \
		"$FIX/profiles/workerd-min.cpuprofile" >actual &&
	test_cmp "$EXP/t0760/workerd-min.map.list" actual
'

test_expect_success 'goldens: ... and of a map the rules file associates' '
	mkdir -p rmaps && cp "$FIX/worker/worker.js.map" rmaps/bundle.map &&
	printf "version: 1\nsourcemaps:\n  - url: worker.js\n    map: rmaps/bundle.map\n" >r.yaml &&
	pprof-top --list="^visit" --rules r.yaml \
		"$FIX/profiles/workerd-min.cpuprofile" >actual &&
	test_cmp "$EXP/t0760/workerd-min.map.list" actual
'

test_expect_success 'goldens: ... and of the maps a trace carries' '
	pprof-top --list="^(sortBySize|shapeArea|totalArea|makeShapes)\$" \
		--source-path=/nonexistent "$FIX/trace/trace-maps.json.gz" >actual 2>/dev/null &&
	test_cmp "$EXP/t0760/trace-maps.list" actual
'

test_expect_success 'a source that is no regular file is not read (/dev/zero)' '
	cat >z.cpuprofile <<-\EOF &&
	{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"",
	"lineNumber":-1,"columnNumber":-1},"children":[2]},{"id":2,"callFrame":
	{"functionName":"f","scriptId":"1","url":"/dev/zero","lineNumber":3,"columnNumber":1}}],
	"startTime":0,"endTime":100,"samples":[2,2],"timeDeltas":[10,10]}
	EOF
	pprof-top --list=f z.cpuprofile >actual &&
	test "$(tail -1 actual)" = " Error: open /dev/zero: not a regular file"
'

test_expect_success 'errors: no match, a bad regex, with --tree' '
	test_fails 1 pprof-top --list=nosuchfunction "$P" &&
	test "$(cat err)" = "pprof-top: no matches found for regexp: nosuchfunction" &&
	test_usage pprof-top --list="(" "$P" &&
	test_usage pprof-top --list=a --tree "$P"
'

if ! command -v go >/dev/null 2>&1; then
	test_skip "go is not installed"
	test_done
	exit
fi

# The program: two functions that burn time, one called from two lines.
# It lives in the scratch area of the whole script ($TRASH, lib.sh).
G=$TRASH/go
mkdir -p "$G/prog"
cat >"$G/prog/main.go" <<'EOG'
package main

import (
	"os"
	"runtime/pprof"
)

var sink int

func leaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}

func middle(n int) int {
	a := leaf(n)
	b := leaf(n / 2)
	return a + b
}

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	for i := 0; i < 300; i++ {
		sink += middle(1000000)
		sink += leaf(300000)
	}
	pprof.StopCPUProfile()
	f.Close()
}
EOG

test_expect_success 'build and profile the Go program' '
	cd "$G" && (cd prog && GOPATH="$PWD/../gopath" GOCACHE="$PWD/../gocache" GO111MODULE=off GOFLAGS= \
		go build -o prog main.go && ./prog ../cpu.pb.gz) &&
	test -s cpu.pb.gz
'

test_expect_success 'as go tool pprof -list, the source found from the current directory' '
	cd "$G" &&
	(cd prog &&
	for re in "main\\." leaf "middle|leaf" . ; do
		go tool pprof -list="$re" ../cpu.pb.gz >../expect 2>/dev/null &&
		pprof-top --list="$re" ../cpu.pb.gz >../actual &&
		test_cmp ../expect ../actual || exit 1
	done) &&
	grep -q "^ *[0-9.]*m*s *[0-9.]*m*s *13:		s += i \\* i$" actual
'

test_expect_success 'as go tool pprof -list -source_path, from elsewhere' '
	cd "$G" &&
	for sp in "$PWD/prog" "$PWD" /nonexistent; do
		go tool pprof -list=main -source_path="$sp" cpu.pb.gz >expect 2>/dev/null &&
		pprof-top --list=main --source-path="$sp" cpu.pb.gz >actual &&
		test_cmp expect actual || exit 1
	done &&
	go tool pprof -list=main -source_path="$PWD" cpu.pb.gz >expect 2>/dev/null &&
	pprof-top -list=main -source_path="$PWD" cpu.pb.gz >actual &&
	test_cmp expect actual
'

test_expect_success 'with -unit and a filter, as go tool pprof' '
	cd "$G" &&
	(cd prog &&
	go tool pprof -list=leaf -unit=s -focus=middle ../cpu.pb.gz >../expect 2>/dev/null &&
	pprof-top --list=leaf --unit=s --focus=middle ../cpu.pb.gz >../actual 2>/dev/null) &&
	test_cmp expect actual
'

test_expect_success 'the per-line sums are the function'"'"'s flat and cum' '
	cd "$G" &&
	(cd prog && pprof-top --list=leaf --unit=ns ../cpu.pb.gz) >list &&
	sed -n 3p list | awk "{ print \$1, \$2 }" >expect &&
	awk "NR > 3 { f += \$1; c += \$2 } END { printf \"%dns %dns\\n\", f, c }" list >actual &&
	test_cmp expect actual
'

test_done
