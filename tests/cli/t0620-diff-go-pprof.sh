#!/bin/sh
# pprof-diff --top on two pprof files gives, function by function, the
# deltas `go tool pprof -top -diff_base=BEFORE AFTER` prints as flat and
# cum, in the same order.
. "$(dirname "$0")/../lib.sh"

if ! command -v go >/dev/null 2>&1; then
	test_skip "go is not installed"
	test_done
	exit
fi

# go_deltas BEFORE AFTER UNIT [OPTIONS]: "name flat cum" rows of go tool
# pprof's -diff_base table, values as integers of UNIT (pprof's -unit).
go_deltas() {
	b=$1 a=$2 u=$3
	shift 3
	go tool pprof -top -nodefraction=0 -symbolize=none -unit="$u" "$@" \
		-diff_base="$b" "$a" >go.out 2>go.err || return 1
	awk '
	started {
		line = $0
		flat = $1; cum = $4
		sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+  /, "", line)
		sub(/ \((partial-)?inline\)$/, "", line)
		gsub(/[^-0-9.]/, "", flat); gsub(/[^-0-9.]/, "", cum)
		printf "%s\t%s\t%s\n", line, flat, cum
	}
	/^ *flat  flat%/ { started = 1 }' go.out
}

# our_deltas BEFORE AFTER [OPTIONS]: the same from pprof-diff.
our_deltas() {
	b=$1 a=$2
	shift 2
	pprof-diff --top --format=tsv "$@" "$b" "$a" >tsv || return 1
	grep -v "^#" tsv | sed 1d | awk -F '\t' '{ printf "%s\t%s\t%s\n", $9, $3, $7 }'
}

P=$FIX/pprof
test_expect_success 'two captures of the Worker: per-function deltas as -diff_base' '
	go_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" ns >expect &&
	our_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" >actual &&
	test_cmp expect actual && test $(wc -l <expect) -gt 20 &&
	go_deltas "$P/workerd-min-b.cpu.nomap.pb.gz" "$P/workerd-min.cpu.nomap.pb.gz" ns -cum >expect &&
	our_deltas "$P/workerd-min-b.cpu.nomap.pb.gz" "$P/workerd-min.cpu.nomap.pb.gz" --cum >actual &&
	test_cmp expect actual
'

test_expect_success 'the same at -lines and with -sample_index' '
	go_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" ns -lines >expect &&
	our_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" -g lines >actual &&
	test_cmp expect actual &&
	go_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" count -sample_index=0 >expect &&
	our_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" -i 0 >actual &&
	test_cmp expect actual
'

if [ -n "$SHARED" ] && [ -d "$SHARED/testdata/google-pprof/proto" ]; then
	D=$SHARED/testdata
	# Go CPU profiles (samples/count, cpu/nanoseconds), inlined frames,
	# 23,000 functions against a hundred.
	test_expect_success 'shared test data: Go CPU profiles, both values' '
		for pair in "google-pprof/proto/sample.cpu.pb.gz google-pprof/proto/large.cpu.pb.gz" \
			"speedscope/pprof/simple.prof google-pprof/proto/sample.cpu.pb.gz" \
			"edge/tiny_cpu.pb speedscope/pprof/simple.prof"; do
			set -- $pair &&
			go_deltas "$D/$1" "$D/$2" ns >expect &&
			our_deltas "$D/$1" "$D/$2" >actual &&
			test_cmp expect actual &&
			go_deltas "$D/$2" "$D/$1" count -sample_index=samples -cum >expect &&
			our_deltas "$D/$2" "$D/$1" -i samples --cum >actual &&
			test_cmp expect actual || exit 1
		done
	'
fi

test_done
	exit
fi

# go_deltas BEFORE AFTER UNIT [OPTIONS]: "name flat cum" rows of go tool
# pprof's -diff_base table, values as integers of UNIT (pprof's -unit).
go_deltas() {
	b=$1 a=$2 u=$3
	shift 3
	go tool pprof -top -nodefraction=0 -symbolize=none -unit="$u" "$@" \
		-diff_base="$b" "$a" >go.out 2>go.err || return 1
	awk '
	started {
		line = $0
		flat = $1; cum = $4
		sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+  /, "", line)
		sub(/ \((partial-)?inline\)$/, "", line)
		gsub(/[^-0-9.]/, "", flat); gsub(/[^-0-9.]/, "", cum)
		printf "%s\t%s\t%s\n", line, flat, cum
	}
	/^ *flat  flat%/ { started = 1 }' go.out
}

# our_deltas BEFORE AFTER [OPTIONS]: the same from pprof-diff.
our_deltas() {
	b=$1 a=$2
	shift 2
	pprof-diff --top --format=tsv "$@" "$b" "$a" >tsv || return 1
	grep -v "^#" tsv | sed 1d | awk -F '\t' '{ printf "%s\t%s\t%s\n", $9, $3, $7 }'
}

P=$FIX/pprof
test_expect_success 'two captures of the Worker: per-function deltas as -diff_base' '
	go_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" ns >expect &&
	our_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" >actual &&
	test_cmp expect actual && test $(wc -l <expect) -gt 20 &&
	go_deltas "$P/workerd-min-b.cpu.nomap.pb.gz" "$P/workerd-min.cpu.nomap.pb.gz" ns -cum >expect &&
	our_deltas "$P/workerd-min-b.cpu.nomap.pb.gz" "$P/workerd-min.cpu.nomap.pb.gz" --cum >actual &&
	test_cmp expect actual
'

test_expect_success 'the same at -lines and with -sample_index' '
	go_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" ns -lines >expect &&
	our_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" -g lines >actual &&
	test_cmp expect actual &&
	go_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" count -sample_index=0 >expect &&
	our_deltas "$P/workerd-min.cpu.nomap.pb.gz" "$P/workerd-min-b.cpu.nomap.pb.gz" -i 0 >actual &&
	test_cmp expect actual
'

if [ -n "$SHARED" ] && [ -d "$SHARED/testdata/google-pprof/derived" ]; then
	D=$SHARED/testdata/google-pprof
	test_expect_success 'shared test data: Go and C++ CPU profiles, a heap profile' '
		go_deltas "$D/derived/gobench.cpu.pb.gz" "$D/derived/go.crc32.cpu.pb.gz" ns >expect &&
		our_deltas "$D/derived/gobench.cpu.pb.gz" "$D/derived/go.crc32.cpu.pb.gz" >actual &&
		test_cmp expect actual &&
		go_deltas "$D/derived/cppbench.cpu.pb.gz" "$D/proto/cppbench.cpu_no_samples_type.pb.gz" ns >expect &&
		our_deltas "$D/derived/cppbench.cpu.pb.gz" "$D/proto/cppbench.cpu_no_samples_type.pb.gz" >actual &&
		test_cmp expect actual &&
		go_deltas "$D/derived/gobench.heap.pb.gz" "$D/derived/cppbench.heap.pb.gz" B >expect &&
		our_deltas "$D/derived/gobench.heap.pb.gz" "$D/derived/cppbench.heap.pb.gz" >actual &&
		test_cmp expect actual
	'
fi

test_done
