#!/bin/sh
# The filters against go tool pprof itself, when `go` is installed: the
# golden cases are still what go prints, and more cases on the shared test
# data and on the fixtures (converted to pprof), compared with it live.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/filter-lib.sh"

if ! have_go; then
	test_skip "go tool pprof is not installed"
	test_done
	exit
fi
if [ -n "$SHARED" ] && [ -d "$SHARED/testdata" ]; then
	G=$EXP/filter
	while read -r name file opt; do
		case $name in '#'*|'') continue ;; esac
		test_expect_success "golden $name is what go tool pprof prints" '
			go_folded "$SHARED/testdata/$file" "$opt" >expect &&
			test_cmp expect "$G/$name.folded"
		'
	done <"$G/cases"
	L=$SHARED/testdata/google-pprof/proto/large.cpu.pb.gz
	for opt in -hide=runtime -show=main -show_from=main -prune_from=runtime.mallocgc \
		-focus=runtime -ignore=runtime.mallocgc; do
		test_expect_success "large.cpu $opt as go tool pprof" '
			go_folded "$L" "$opt" >expect &&
			pprof-fold --quiet "-$opt" "$L" >actual &&
			test_cmp expect actual
		'
	done
else
	test_skip "no shared test data"
fi

# Fixtures: converted to pprof, then filtered by both.
for f in "$FIX"/profiles/workerd-plain.cpuprofile "$FIX"/profiles/workerd-plain.alloc.heapprofile \
	"$FIX"/pprof/workerd-min.cpu.pb.gz; do
	b=$(basename "$f")
	for opt in -focus=handleCache -ignore=garbage -hide=anonymous -show=^fetch$ \
		-show_from=^handle -prune_from=^handle -hide=^toHex$ "-focus=^$"; do
		test_expect_success "$b $opt as go tool pprof" '
			pprof-convert -o p.pb.gz "$f" &&
			go_folded p.pb.gz "$opt" >expect &&
			pprof-fold --quiet "-$opt" "$f" >actual &&
			test_cmp expect actual
		'
	done
done
test_done
