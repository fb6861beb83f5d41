#!/bin/sh
# pprof-top --tags (issue 18): pprof's -tags, the labels of the samples and
# the share of each value.  Goldens on a Chrome trace (its pid, tid and
# thread labels); against go tool pprof -tags, when go is installed, on
# the same trace converted to pprof and on the shared pprof files (string
# and numeric labels, units, -unit, filters).
. "$(dirname "$0")/../lib.sh"

TR=$FIX/trace/trace.json.gz

test_expect_success 'goldens: a trace'"'"'s labels, by wall time and by samples' '
	pprof-top --tags "$TR" >actual &&
	test_cmp "$EXP/t0750/trace.tags" actual &&
	pprof-top --tags -i samples --unit=auto "$TR" >actual &&
	test_cmp "$EXP/t0750/trace.samples.tags" actual
'

test_expect_success 'a profile without labels prints nothing; -tags is --tags' '
	pprof-top --tags "$FIX/pprof/workerd-min.cpu.pb.gz" >actual &&
	! test -s actual &&
	pprof-top -tags "$TR" >a && pprof-top --tags "$TR" >b && test_cmp a b
'

test_expect_success 'errors: --tags with --tree, or in another format than text' '
	test_usage pprof-top --tags --tree "$TR" &&
	test_usage pprof-top --tags --format=json "$TR"
'

if ! command -v go >/dev/null 2>&1; then
	test_skip "go is not installed"
	test_done
	exit
fi

test_expect_success 'the trace converted to pprof: as go tool pprof -tags' '
	pprof-convert -o t.pb.gz "$TR" &&
	go tool pprof -tags t.pb.gz >expect 2>/dev/null &&
	pprof-top --tags t.pb.gz >actual && test_cmp expect actual &&
	test_cmp "$EXP/t0750/trace.tags" actual
'

FILES=
if [ -n "$SHARED" ]; then
	for f in "$SHARED"/testdata/edge/corner.pb \
		"$SHARED"/testdata/google-pprof/derived/*.pb.gz; do
		[ -f "$f" ] && FILES="$FILES $f"
	done
fi
for f in $FILES; do
	name=$(basename "$f")
	test_expect_success "$name: -tags as go tool pprof" "
		for o in '' -unit=MB -unit=ms -sample_index=0 -focus=a; do
			go tool pprof -tags -symbolize=none \$o '$f' >expect 2>/dev/null &&
			pprof-top --tags \$(echo \"\$o\" | sed 's/^-/--/; s/sample_index/sample-index/') \
				'$f' >actual 2>/dev/null &&
			test_cmp expect actual || exit 1
		done
	"
done

test_done
