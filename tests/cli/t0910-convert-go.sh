#!/bin/sh
# go tool pprof reads every file pprof-convert writes (-raw and -traces),
# shows the same stacks and values as pprof-fold on the input, for every
# sample type, and keeps a pprof input's metadata.  Skipped without `go`.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/filter-lib.sh"

if ! have_go; then
	test_skip "go tool pprof is not installed"
	test_done
	exit
fi

ntypes() {
	pprof-fold -i 999 "$1" 2>&1 >/dev/null |
		sed -n 's/.*out of range: the profile has \([0-9]*\) types.*/\1/p'
}

# same_as_go FILE: for each sample type, go tool pprof on FILE converted
# gives pprof-fold's stacks and values on FILE.
same_as_go() {
	pprof-convert --quiet -o c.pb.gz "$1" || return 1
	n=$(ntypes "$1")
	i=0
	while [ "$i" -lt "$n" ]; do
		GO_INDEX=$i go_folded c.pb.gz >expect || { cat go.err; return 1; }
		pprof-fold --quiet -i "$i" "$1" >actual &&
		test_cmp expect actual || { echo "sample index $i"; return 1; }
		i=$((i + 1))
	done
}

inputs=$(ls "$FIX"/profiles/*.cpuprofile "$FIX"/profiles/*.heapprofile "$FIX"/pprof/*.pb.gz \
	"$FIX"/edge/*.cpuprofile "$FIX"/edge/*.heapprofile "$FIX"/edge/*.pb.gz "$FIX"/edge/*.folded \
	2>/dev/null)
if [ -n "$SHARED" ] && [ -d "$SHARED/testdata" ]; then
	inputs="$inputs $(ls "$SHARED"/testdata/edge/corner.pb.gz "$SHARED"/testdata/edge/tiny_cpu.pb.gz \
		"$SHARED"/testdata/google-pprof/proto/*.pb.gz "$SHARED"/testdata/google-pprof/derived/*.pb.gz \
		"$SHARED"/testdata/speedscope/pprof/simple.prof "$SHARED"/testdata/speedscope/chrome/*.cpuprofile \
		"$SHARED"/testdata/speedscope/heap/*.heapprofile 2>/dev/null)"
fi
for f in $inputs; do
	pprof-fold --quiet "$f" >/dev/null 2>&1 || continue
	case $f in
	*/edge/names.cpuprofile|*/edge/inline.pb.gz)
		# -traces prints a name's line breaks as they are
		test_skip "${f#"$SRC"/}: names with line breaks, which -traces cannot show"
		continue ;;
	esac
	test_expect_success "go tool pprof reads ${f#"$SRC"/} converted, same stacks and values" \
		'same_as_go "$f"'
done

# header FILE: what go tool pprof -raw prints before the samples.
header() {
	go tool pprof -symbolize=none -raw "$1" 2>/dev/null | sed '/^Samples:/q'
}

for f in "$FIX"/pprof/*.pb.gz ${SHARED:+"$SHARED"/testdata/edge/corner.pb.gz} \
	${SHARED:+"$SHARED"/testdata/google-pprof/proto/sample.cpu.pb.gz}; do
	[ -f "$f" ] || continue
	test_expect_success "period, time, duration, comments and types of ${f#"$SRC"/} kept" '
		pprof-convert --quiet -o c.pb.gz "$f" &&
		header "$f" >expect &&
		header c.pb.gz >actual &&
		test_cmp expect actual &&
		go tool pprof -symbolize=none -raw "$f" 2>/dev/null | sed -n "/^Samples:/,\$p" | sed -n "2p" >expect &&
		go tool pprof -symbolize=none -raw c.pb.gz 2>/dev/null | sed -n "/^Samples:/,\$p" | sed -n "2p" >actual &&
		test_cmp expect actual
	'
done

if [ -n "$SHARED" ] && [ -f "$SHARED/testdata/edge/corner.pb.gz" ]; then
	C=$SHARED/testdata/edge/corner.pb.gz
	test_expect_success 'labels are kept: the same tag filters and tag roots' '
		pprof-convert --quiet -o c.pb.gz "$C" &&
		for o in -tagfocus=thread=main -tagfocus=bytes=:1kb -tagroot=thread,bytes -tagleaf=tag; do
			go_folded "$C" "$o" >expect &&
			go_folded c.pb.gz "$o" >actual &&
			test_cmp expect actual || return 1
		done
	'
fi
# go_inuse FILE NAME: the type go tool pprof -sample_index=inuse_NAME picks
# on FILE, and its folded stacks in NAME's column.
go_inuse() {
	go tool pprof -symbolize=none -sample_index="inuse_$2" -top "$1" 2>go.err |
		sed -n "s/^Type: //p" >go.type &&
	echo "$2" >type.expect && test_cmp type.expect go.type &&
	go tool pprof -symbolize=none -sample_index="inuse_$2" -raw "$1" >go.raw 2>go.err &&
	go tool pprof -symbolize=none -sample_index="inuse_$2" -traces "$1" >go.traces 2>>go.err &&
	traces_to_folded go.raw go.traces "$2"
}

for f in "$FIX"/profiles/*.heapprofile ${SHARED:+"$SHARED"/testdata/speedscope/heap/*.heapprofile}; do
	[ -f "$f" ] || continue
	test_expect_success "-i inuse_space on ${f#"$SRC"/} (objects, space) picks space, as go tool pprof -sample_index" '
		pprof-convert --quiet -o c.pb.gz "$f" &&
		for t in space objects; do
			go_inuse c.pb.gz $t >expect &&
			pprof-fold --quiet -i inuse_$t "$f" >actual &&
			test_cmp expect actual &&
			pprof-fold --quiet -i $t "$f" >plain &&
			test_cmp plain actual || return 1
		done
	'
done

test_done
