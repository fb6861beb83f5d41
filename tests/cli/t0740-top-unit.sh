#!/bin/sh
# --unit=UNIT (issue 18): pprof's -unit, the unit of the printed values, in
# pprof-top (table and tree) and pprof-diff --top.  Against go tool pprof
# when it is installed, and goldens.
. "$(dirname "$0")/../lib.sh"

TZ=UTC
export TZ
P=$FIX/pprof/workerd-min.cpu.pb.gz
B=$FIX/pprof/workerd-min-b.cpu.nomap.pb.gz
H=$FIX/pprof/workerd-min.alloc.heap.pb.gz

test_expect_success 'goldens: pprof-top --unit=MB, pprof-diff --unit=s' '
	pprof-top --unit=MB "$FIX/profiles/workerd-min.alloc.heapprofile" >actual &&
	test_cmp "$EXP/t0740/alloc.MB.top" actual &&
	(cd "$SRC" && pprof-diff --unit=s fixtures/pprof/workerd-min.cpu.pb.gz \
		fixtures/pprof/workerd-min-b.cpu.nomap.pb.gz) >actual &&
	test_cmp "$EXP/t0740/diff.s.top" actual
'

test_expect_success '--unit=minimum is the default; -unit=ms is --unit=ms' '
	pprof-top "$P" >a && pprof-top --unit=minimum "$P" >b && test_cmp a b &&
	pprof-top -unit=ms "$P" >a && pprof-top --unit=ms "$P" >b && test_cmp a b &&
	pprof-diff --top "$P" "$B" >a && pprof-diff --unit=minimum "$P" "$B" >b && test_cmp a b
'

test_expect_success '--unit leaves the raw values of tsv and json as they are' '
	pprof-top --format=tsv "$P" >a && pprof-top --unit=s --format=tsv "$P" >b &&
	test_cmp a b
'

test_expect_success 'an empty --unit is a usage error' '
	test_usage pprof-top --unit= "$P" &&
	test_usage pprof-diff --unit= "$P" "$B"
'

if ! command -v go >/dev/null 2>&1; then
	test_skip "go is not installed"
	test_done
	exit
fi

# go_pprof OPTIONS...: go tool pprof's output but its File: and Build ID:.
go_pprof() {
	go tool pprof -nodefraction=0 -symbolize=none "$@" >go.out 2>go.err &&
	grep -v '^File: \|^Build ID: ' go.out
}

for f in "$P" "$H"; do
	name=$(basename "$f")
	test_expect_success "$name: -top and -tree with -unit as go tool pprof" "
		for u in ns us ms s hrs B kb MB gb auto minimum bogus; do
			go_pprof -top -unit=\$u '$f' >expect &&
			pprof-top --unit=\$u '$f' >actual && test_cmp expect actual &&
			go_pprof -tree -nodecount=1000000 -edgefraction=0 -unit=\$u '$f' >expect &&
			pprof-top --tree --unit=\$u '$f' >actual && test_cmp expect actual || exit 1
		done
	"
done

test_done
