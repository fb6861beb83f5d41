#!/bin/sh
# pprof-top prints what `go tool pprof -top` prints for the same pprof file:
# against the outputs of go 1.19 kept in the shared test data, and against
# the go tool itself when it is installed (-nodefraction=0, as pprof-top
# keeps every row; sort, row count, granularity and sample index varied).
# pprof's "File:" and "Build ID:" lines are not printed; times are local,
# so both run with TZ=UTC.
. "$(dirname "$0")/../lib.sh"

TZ=UTC
export TZ

# without_file FILE: pprof's output without the lines pprof-top leaves out.
without_file() {
	grep -v '^File: \|^Build ID: ' "$1"
}

if [ -n "$SHARED" ] && [ -d "$SHARED/testdata/expected-go1.19-pprof" ]; then
	T=$SHARED/testdata
	for top in "$T"/expected-go1.19-pprof/*.top; do
		name=$(basename "$top" .top)
		src=
		for d in edge google-pprof/proto google-pprof/derived speedscope/pprof; do
			[ -f "$T/$d/$name" ] && src=$T/$d/$name
		done
		[ -n "$src" ] || continue
		test_expect_success "$name: as go tool pprof 1.19 -top" "
			without_file '$top' >expect &&
			pprof-top '$src' >actual &&
			test_cmp expect actual
		"
	done
else
	test_skip "no shared test data"
fi

if ! command -v go >/dev/null 2>&1; then
	test_skip "go is not installed"
	test_done
	exit
fi

# go_top FILE OPTIONS...: go tool pprof -top, every node.
go_top() {
	f=$1
	shift
	go tool pprof -top -nodefraction=0 -symbolize=none "$@" "$f" >go.out 2>go.err &&
	without_file go.out
}

FILES=
if [ -n "$SHARED" ]; then
	for f in "$SHARED"/testdata/edge/corner.pb "$SHARED"/testdata/edge/tiny_cpu.pb \
		"$SHARED"/testdata/google-pprof/proto/*.pb.gz \
		"$SHARED"/testdata/google-pprof/derived/*.pb.gz \
		"$SHARED"/testdata/speedscope/pprof/simple.prof; do
		[ -f "$f" ] && FILES="$FILES $f"
	done
fi
FILES="$FILES $(ls "$FIX"/pprof/*.pb.gz)"

for f in $FILES; do
	name=$(basename "$f")
	test_expect_success "$name: flat, -cum, -nodecount=3 as go tool pprof" "
		go_top '$f' >expect && pprof-top '$f' >actual && test_cmp expect actual &&
		go_top '$f' -cum >expect && pprof-top --cum '$f' >actual &&
		test_cmp expect actual &&
		go_top '$f' -nodecount=3 >expect && pprof-top -n 3 '$f' >actual &&
		test_cmp expect actual &&
		go_top '$f' -cum -nodecount=2 >expect && pprof-top -n 2 --cum '$f' >actual &&
		test_cmp expect actual
	"
	# pprof keeps a node per file and function start line at -files when
	# names are dropped (corner.pb has two for app/str.h); pprof-top one.
	case $name in corner.pb) gs="lines filefunctions addresses" ;; *) gs="lines files filefunctions addresses" ;; esac
	test_expect_success "$name: granularities as go tool pprof" "
		for g in $gs; do
			go_top '$f' -\$g >expect && pprof-top -g \$g '$f' >actual &&
			test_cmp expect actual || exit 1
		done
	"
done

if [ -n "$SHARED" ]; then
	test_expect_success 'corner.pb: every sample index as go tool pprof' '
		for i in 0 1 2; do
			go_top "$SHARED/testdata/edge/corner.pb" -sample_index=$i >expect &&
			pprof-top -i $i "$SHARED/testdata/edge/corner.pb" >actual &&
			test_cmp expect actual || exit 1
		done
	'
	test_expect_success 'go.nomappings.crash: sample types by name' '
		f=$SHARED/testdata/google-pprof/proto/go.nomappings.crash.pb.gz &&
		for i in alloc_objects alloc_space inuse_objects inuse_space; do
			go_top "$f" -sample_index=$i >expect &&
			pprof-top -i $i "$f" >actual &&
			test_cmp expect actual || exit 1
		done
	'
fi

# A large profile: 23,025 rows, inline labels among them.
if [ -n "$SHARED" ] && [ -f "$SHARED/testdata/google-pprof/proto/large.cpu.pb.gz" ]; then
	test_expect_success 'large.cpu.pb.gz: all 23,025 rows as go tool pprof' '
		f=$SHARED/testdata/google-pprof/proto/large.cpu.pb.gz &&
		go_top "$f" >expect && pprof-top "$f" >actual && test_cmp expect actual &&
		go_top "$f" -cum -nodecount=50 >expect && pprof-top --cum -n 50 "$f" >actual &&
		test_cmp expect actual
	'
fi

# pprof's sample filters apply after the report took its total: the
# percentages stay those of all samples, and the legend names the filters.
test_expect_success 'filters: the total before them and the legend, as go tool pprof' '
	f=$FIX/pprof/workerd-min.cpu.nomap.pb.gz &&
	for o in "-focus=handle" "-ignore=visit -hide=^C\$" "-show=a|b" "-show_from=handle" \
		"-prune_from=b" "-tagfocus=nothing=here" "-focus=visitObject -nodecount=3"; do
		go_top "$f" $o >expect &&
		pprof-top $(echo "$o" | sed "s/-nodecount=/-n /; s/-\([a-z_]*\)=/--\1=/g") "$f" \
			>actual 2>/dev/null &&
		test_cmp expect actual || exit 1
	done &&
	grep -q "^   focus=visitObject$" actual
'

# A -diff_base profile written by go tool pprof: pprof's total is then the
# base samples' alone.
test_expect_success 'a -diff_base output of go tool pprof' '
	go tool pprof -proto -symbolize=none -diff_base="$FIX/pprof/workerd-min.cpu.nomap.pb.gz" \
		"$FIX/pprof/workerd-min-b.cpu.nomap.pb.gz" >d.pb.gz 2>/dev/null &&
	go_top d.pb.gz >expect && pprof-top d.pb.gz >actual && test_cmp expect actual
'

test_done
