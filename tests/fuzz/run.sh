#!/bin/sh
# tests/fuzz/run.sh: replay the seed corpus through every libFuzzer harness,
# then fuzz each one for a bounded, deterministic run (fixed -seed, bounded
# -runs), as CI does.  Exit 1 when a harness crashes, leaks, hangs or
# breaks a promise; the reproducer is kept and named.
#
#   tests/fuzz/run.sh [-b BUILDDIR] [-t SECONDS] [-r RUNS] [-k CORPUSDIR] [HARNESS...]
#
#   -b  build tree configured with --enable-fuzzing (default: the current
#       directory, else ../build-fuzz-clang)
#   -t  seconds per harness at most (default 30; 0 replays only)
#   -r  executions per harness at most (default 200000)
#   -k  keep what the fuzzer finds in CORPUSDIR/<harness>/ (long runs)
#
# HARNESS is a name without the fuzz_ prefix (pprof, input, json, ...);
# default: every harness that was built.  Seeds: the fixtures, the shared
# test data when present (../shared beside the checkout, or $PPROF_SHARED),
# and tests/fuzz/corpus/<harness>/ (regression inputs, kept small).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=
seconds=30
runs=200000
keep=
while getopts b:t:r:k: opt; do
	case $opt in
	b) build=$OPTARG ;;
	t) seconds=$OPTARG ;;
	r) runs=$OPTARG ;;
	k) keep=$OPTARG ;;
	*) sed -n '2,20s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -z "$build" ]; then
	if [ -d tests/fuzz ] && [ -f Makefile ]; then build=.; else build=$src/../build-fuzz-clang; fi
fi
build=$(cd "$build" && pwd) || exit 2
shared=${PPROF_SHARED:-}
if [ -z "$shared" ] && [ -d "$src/../shared/testdata" ]; then
	shared=$(cd "$src/../shared" && pwd)
fi

harnesses=${*:-pprof input json cpuprofile heapprofile folded sourcemap jstoken rules flame convert trace heapsnapshot heapsnapshot_leaks}
work=$(mktemp -d "${TMPDIR:-/tmp}/pprof-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# Seed files: every file under the given roots whose name matches a pattern,
# 1 MB at most.
files() {
	pat=$1
	shift
	for d in "$@"; do
		[ -d "$d" ] && find "$d" -type f -size -1024k -name "$pat"
	done 2>/dev/null
}

# copy_seeds DIR: copies stdin's file names into DIR, each under its own
# name made unique by a counter; gunzips when GUNZIP is set.
copy_seeds() {
	mkdir -p "$1"
	i=0
	while IFS= read -r f; do
		i=$((i + 1))
		t="$1/$i-$(basename "$f")"
		if [ -n "${GUNZIP:-}" ]; then
			gzip -dc "$f" >"$t" 2>/dev/null || cp "$f" "$t"
		else
			cp "$f" "$t"
		fi
	done
}

roots="$src/fixtures"
[ -n "$shared" ] && roots="$roots $shared/testdata $shared/real/profiles"
seeds() {
	s=$work/seeds/$1
	case $1 in
	pprof)
		{ files '*.pb.gz' $roots; files '*.prof' $roots; files '*.pb' $roots; } |
			GUNZIP=1 copy_seeds "$s" ;;
	input | convert)
		{ files '*.gz' $roots; files '*.pb' $roots; files '*.prof' $roots
		  files '*.cpuprofile' $roots
		  files '*.heapprofile' $roots; files '*.folded' $roots; files '*.txt' $roots; } |
			copy_seeds "$s" ;;
	json)
		{ files '*.cpuprofile' $roots; files '*.heapprofile' $roots; files '*.json' $roots
		  files '*.map' $roots; files '*.json' "$shared/conformance"; } | copy_seeds "$s" ;;
	cpuprofile) files '*.cpuprofile' $roots | copy_seeds "$s" ;;
	trace)
		files '*.json' "$src/fixtures/trace/edge" | copy_seeds "$s"
		# the start of a real trace, cut: its first events and a chunk
		[ -f "$src/fixtures/trace/trace-array.json" ] &&
			head -c 60000 "$src/fixtures/trace/trace-array.json" >"$s/chromium-head.json" ;;
	heapprofile) files '*.heapprofile' $roots | copy_seeds "$s" ;;
	heapsnapshot | heapsnapshot_leaks)
		{ files '*.heapsnapshot' $roots; files '*.heapsnapshot.gz' $roots; } |
			GUNZIP=1 copy_seeds "$s" ;;
	folded)
		{ files '*.folded' $roots; files '*.txt' "$shared/testdata/speedscope"; } |
			copy_seeds "$s" ;;
	sourcemap)
		{ files '*.map' $roots; files '*.map' "$shared/conformance"
		  files '*.json' "$shared/conformance"; } | copy_seeds "$s" ;;
	jstoken)
		{ files '*.js' $roots; files '*.ts' $roots; } |
			copy_seeds "$s" ;;
	rules) { files '*.yaml' "$src"; files '*.yml' "$src"; } | copy_seeds "$s" ;;
	flame) files '*.folded' $roots | copy_seeds "$s" ;;
	esac
	mkdir -p "$s"
	echo "$s"
}

failed=0
for h in $harnesses; do
	bin=$build/tests/fuzz/fuzz_$h
	if [ ! -x "$bin" ]; then
		case $# in
		0) continue ;; # not built (yet): only those that exist
		*) echo "run.sh: $bin: not built" >&2; failed=1; continue ;;
		esac
	fi
	seeddir=$(seeds "$h")
	regress=$here/corpus/$h
	[ -d "$regress" ] || regress=
	# The convert harness reads what the input harness reads.
	if [ "$h" = convert ] && [ -d "$here/corpus/input" ]; then
		regress="$regress $here/corpus/input"
	fi
	dict=
	[ -f "$here/$h.dict" ] && dict=-dict=$here/$h.dict
	[ "$h" = convert ] && [ -z "$dict" ] && [ -f "$here/input.dict" ] && dict=-dict=$here/input.dict
	out=$work/out/$h
	mkdir -p "$out"
	corpus=$work/corpus/$h
	[ -n "$keep" ] && corpus=$keep/$h
	mkdir -p "$corpus"
	# Text whose every byte is drawn or folded is slow per byte: shorter.
	case $h in flame | folded) maxlen=16384 ;; *) maxlen=65536 ;; esac
	opts="-rss_limit_mb=2048 -timeout=10 -max_len=$maxlen -print_final_stats=1 -artifact_prefix=$out/"
	# 1. Replay: every seed and regression input once.
	# shellcheck disable=SC2086
	if ! "$bin" $opts -runs=0 "$seeddir" $regress >"$out/replay.log" 2>&1; then
		echo "FAIL fuzz_$h: replaying the seeds" >&2
		tail -40 "$out/replay.log" >&2
		ls "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-* 2>/dev/null >&2
		failed=1
		continue
	fi
	[ "$seconds" = 0 ] && { echo "fuzz_$h: seeds replayed"; continue; }
	# 2. Fuzz, deterministically for a given corpus.
	# shellcheck disable=SC2086
	if ! "$bin" $opts $dict -seed=1 -runs="$runs" -max_total_time="$seconds" \
		"$corpus" "$seeddir" $regress >"$out/fuzz.log" 2>&1; then
		echo "FAIL fuzz_$h" >&2
		tail -60 "$out/fuzz.log" >&2
		for a in "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-*; do
			[ -f "$a" ] || continue
			mkdir -p "$build/fuzz-artifacts"
			cp "$a" "$build/fuzz-artifacts/$h-$(basename "$a")"
			echo "reproducer: $build/fuzz-artifacts/$h-$(basename "$a")" >&2
		done
		failed=1
		continue
	fi
	# "#123 DONE cov: 456 ft: 789 corp: ..." and "Done 123 runs in 30 second(s)"
	stats=$(grep -E '^#[0-9]+' "$out/fuzz.log" | tail -1 | sed -E 's/^#([0-9]+)[[:space:]]+[A-Z]+[[:space:]]+/\1 runs, /; s/ exec\/s.*//')
	echo "fuzz_$h: $stats"
done
exit $failed
