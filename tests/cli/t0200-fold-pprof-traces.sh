#!/bin/sh
# pprof-fold on the pprof files of the shared test data equals what
# `go tool pprof` 1.19 prints for them (expected-go1.19-pprof/): the stacks
# of `-traces`, with the exact values of `-raw` (-traces rounds them).
. "$(dirname "$0")/../lib.sh"

# traces_to_folded RAW TRACES [TYPE], shared with the filter tests.
. "$(dirname "$0")/filter-lib.sh"

if [ -z "$SHARED" ] || [ ! -d "$SHARED/testdata/expected-go1.19-pprof" ]; then
	test_skip "no shared test data"
	test_done
	exit
fi
T=$SHARED/testdata
GO=$T/expected-go1.19-pprof

# source FILE: the test data file of that name.
source_of() {
	for d in edge google-pprof/proto google-pprof/derived speedscope/pprof; do
		if [ -f "$T/$d/$1" ]; then
			echo "$T/$d/$1"
			return
		fi
	done
	return 1
}

for traces in "$GO"/*.traces; do
	name=$(basename "$traces" .traces)
	src=$(source_of "$name") || continue
	test_expect_success "$name: stacks and values as go tool pprof" "
		traces_to_folded '$GO/$name.raw' '$traces' >expect &&
		test -s expect &&
		pprof-fold '$src' >actual &&
		test_cmp expect actual
	"
done

# The other pprof files, against outputs of go tool pprof 1.19 kept here:
# tests/cli/expected/t0200/NAME.G.folded is traces_to_folded of
# `go tool pprof -symbolize=none -raw FILE` and `... -G -traces FILE`.
for exp in "$EXP"/t0200/*.folded; do
	base=$(basename "$exp" .folded)
	g=${base##*.}
	name=${base%.*}.pb.gz
	src=$(source_of "$name") || continue
	test_expect_success "$name: -g $g as go tool pprof" "
		pprof-fold -g $g '$src' >actual &&
		test_cmp '$exp' actual
	"
done

# large.cpu (20,430 samples, 8.9 MB folded): only its digest is kept.
test_expect_success 'large.cpu.pb.gz: -g functions and -g lines as go tool pprof' '
	src=$(source_of large.cpu.pb.gz) &&
	pprof-fold "$src" | sha256sum >actual &&
	echo "abdb1cf5bc948af2422540dd8d6f5a06841bc9073401bc7e494ec666d1993a0f  -" >expect &&
	test_cmp expect actual &&
	pprof-fold -g lines "$src" | sha256sum >actual &&
	echo "5a97a36f5e50adc0051d0461aeb397f6e667794a86f7ad3eec10dfa2cbfc9ecc  -" >expect &&
	test_cmp expect actual
'

test_expect_success 'corner.pb: -i inuse_space as pprof -sample_index' '
	traces_to_folded "$GO/corner.pb.raw" "$GO/corner.pb.traces-inuse_space" inuse_space >expect &&
	pprof-fold -i inuse_space "$T/edge/corner.pb" >actual &&
	test_cmp expect actual &&
	pprof-fold -i 2 "$T/edge/corner.pb" >actual &&
	test_cmp expect actual
'

test_expect_success 'corner.pb: -g addresses as pprof -addresses' '
	traces_to_folded "$GO/corner.pb.raw" "$GO/corner.pb.traces-addresses" >expect &&
	pprof-fold -g addresses "$T/edge/corner.pb" >actual &&
	test_cmp expect actual
'

test_expect_success 'gzipped, multi-member gzip and plain read alike' '
	pprof-fold "$T/edge/corner.pb" >plain &&
	pprof-fold "$T/edge/corner.pb.gz" >gz &&
	test_cmp plain gz &&
	pprof-fold "$T/edge/tiny_cpu.pb" >plain &&
	pprof-fold "$T/edge/tiny_cpu.multimember.pb.gz" >gz &&
	test_cmp plain gz &&
	pprof-fold <"$T/edge/tiny_cpu.pb.gz" >stdin &&
	test_cmp plain stdin
'

test_expect_success 'two pprof inputs are summed' '
	pprof-fold "$T/edge/tiny_cpu.pb" >one &&
	awk "{ \$NF = 2 * \$NF; print }" one >expect &&
	pprof-fold "$T/edge/tiny_cpu.pb" "$T/edge/tiny_cpu.pb.gz" >actual &&
	test_cmp expect actual
'

# What go tool pprof refuses (expected-go1.19-pprof/*.err) is refused here,
# with what is wrong and where.
expect_error() {
	test_fails 1 pprof-fold "$T/edge/$1" &&
	echo "pprof-fold: $T/edge/$1: $2" >expect &&
	test_cmp expect err
}

test_expect_success 'bad_string0.pb: string_table[0] not empty' '
	expect_error bad_string0.pb "string_table[0] is not empty (at byte 0)"
'
test_expect_success 'bad_truncated.pb: truncated message' '
	expect_error bad_truncated.pb "truncated profile (at byte 246)"
'
test_expect_success 'bad_value_count.pb: values and sample types disagree' '
	expect_error bad_value_count.pb "sample has 2 values for 1 sample types (at byte 6)"
'
test_expect_success 'bad_dangling_location.pb: a missing location' '
	expect_error bad_dangling_location.pb "sample refers to missing location 99 (at byte 8)"
'
test_expect_success 'bad_string_index.pb: a string index past the table' '
	expect_error bad_string_index.pb \
		"string index 77 out of range (the table has 3 strings) (at byte 14)"
'
test_expect_success 'bad_concat.pb: two profiles back to back' '
	expect_error bad_concat.pb "concatenated profiles detected (at byte 1222)"
'

test_done
