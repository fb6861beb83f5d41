#!/bin/sh
# pprof-fold on every fixture: the whole output equals the expected folded
# file computed by an independent implementation (fixtures/README.md), or
# written by hand for fixtures/edge.
#
# expected/BASE[.VARIANT].folded is the output for the input named BASE,
# with VARIANT selecting the options: lines (-g lines), or a sample type.
. "$(dirname "$0")/../lib.sh"

input_for() {
	dir=$1 base=$2
	for f in "$dir/$base" "$dir/$base.cpuprofile" "$dir/$base.heapprofile" \
		 "$dir/$base.pb.gz" "$dir/$base.pb" \
		 "$FIX/profiles/$base.cpuprofile" "$FIX/profiles/$base.heapprofile" \
		 "$FIX/pprof/$base.pb.gz"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

check_dir() {
	dir=$1 expdir=$2
	for exp in "$expdir"/*.folded; do
		name=$(basename "$exp" .folded)
		base=$name variant=
		if ! input_for "$dir" "$base" >/dev/null; then
			base=${name%.*} variant=${name##*.}
		fi
		if ! in=$(input_for "$dir" "$base"); then
			test_expect_success "an input for $exp" 'false'
			continue
		fi
		case $variant in
		"") opts= ;;
		lines) opts="-g lines" ;;
		*) opts="-i $variant" ;;
		esac
		test_expect_success "pprof-fold $opts $(basename "$in") = $(basename "$exp")" "
			pprof-fold $opts \"$in\" >actual &&
			test_cmp \"$exp\" actual
		"
	done
}

check_dir "$FIX/edge" "$FIX/edge"
check_dir "$FIX/profiles" "$FIX/expected"

# Node 20's --heap-prof names nodes that are not in the tree: those
# samples count nowhere, and one warning says how many.
test_expect_success 'a real Node --heap-prof capture: one warning for the samples naming no node' '
	pprof-fold -i objects "$FIX/profiles/node-heap.heapprofile" >actual 2>err &&
	test_cmp "$FIX/expected/node-heap.objects.folded" actual &&
	echo "pprof-fold: warning: 19 of 100 samples name a node that is not in the tree: counted nowhere" >expect &&
	test_cmp expect err
'

test_done
