#!/bin/sh
# pprof-convert writes what it read: folding its output gives what folding
# the input gave, for every fixture, granularity and sample type; its
# output is deterministic, merged, filtered, and written atomically.
. "$(dirname "$0")/../lib.sh"

# ntypes FILE: how many sample types FILE has (from the message that an
# index out of range prints).
ntypes() {
	pprof-fold -i 999 "$1" 2>&1 >/dev/null |
		sed -n 's/.*out of range: the profile has \([0-9]*\) types.*/\1/p'
}

# roundtrip FILE [GRANULARITIES]: the folded lines of FILE and of FILE
# converted are the same at every granularity and for every sample type.
roundtrip() {
	pprof-convert --quiet -o rt.pb.gz "$1" || return 1
	grans=${2:-functions lines filefunctions files addresses}
	n=$(ntypes "$1")
	test -n "$n" || { echo "no sample types for $1"; return 1; }
	i=0
	while [ "$i" -lt "$n" ]; do
		for g in $grans; do
			pprof-fold --quiet -i "$i" -g "$g" "$1" >expect &&
			pprof-fold --quiet -i "$i" -g "$g" rt.pb.gz >actual &&
			test_cmp expect actual || { echo "-i $i -g $g"; return 1; }
		done
		i=$((i + 1))
	done
	# and the default sample type stays the default
	pprof-fold --quiet "$1" >expect &&
	pprof-fold --quiet rt.pb.gz >actual &&
	test_cmp expect actual
}

inputs=$(ls "$FIX"/profiles/*.cpuprofile "$FIX"/profiles/*.heapprofile "$FIX"/pprof/*.pb.gz \
	"$FIX"/edge/*.cpuprofile "$FIX"/edge/*.heapprofile "$FIX"/edge/*.pb.gz "$FIX"/edge/*.folded \
	2>/dev/null)
if [ -n "$SHARED" ] && [ -d "$SHARED/testdata" ]; then
	inputs="$inputs $(ls "$SHARED"/testdata/edge/corner.pb.gz "$SHARED"/testdata/edge/tiny_cpu.pb.gz \
		"$SHARED"/testdata/google-pprof/proto/*.pb.gz "$SHARED"/testdata/google-pprof/derived/*.pb.gz \
		"$SHARED"/testdata/speedscope/pprof/simple.prof "$SHARED"/testdata/speedscope/chrome/*.cpuprofile \
		"$SHARED"/testdata/speedscope/heap/*.heapprofile "$SHARED"/testdata/speedscope/folded/simple.txt \
		2>/dev/null)"
fi
for f in $inputs; do
	pprof-fold --quiet "$f" >/dev/null 2>&1 || continue # inputs that are errors by design
	case $f in
	*/large.cpu.pb.gz) g="functions addresses" ;; # 20k stacks: a few seconds a run
	*) g="" ;;
	esac
	test_expect_success "round trip of ${f#"$SRC"/}" 'roundtrip "$f" "$g"'
done

W=$FIX/profiles/workerd-plain.cpuprofile
test_expect_success 'the output is gzip, and the same bytes every time' '
	pprof-convert -o a.pb.gz "$W" &&
	pprof-convert -o b.pb.gz "$W" &&
	cmp a.pb.gz b.pb.gz &&
	gzip -t a.pb.gz
'

test_expect_success 'converting a converted profile changes nothing' '
	pprof-convert -o a.pb.gz "$W" &&
	pprof-convert -o b.pb.gz a.pb.gz &&
	pprof-convert -o c.pb.gz b.pb.gz &&
	cmp b.pb.gz c.pb.gz
'

test_expect_success 'standard output when it is not a terminal, and standard input' '
	pprof-convert -o a.pb.gz "$W" &&
	pprof-convert "$W" >b.pb.gz &&
	cmp a.pb.gz b.pb.gz &&
	pprof-convert <"$W" >c.pb.gz &&
	cmp a.pb.gz c.pb.gz
'

test_expect_success 'several inputs are merged' '
	A=$FIX/profiles/workerd-min.cpuprofile &&
	B=$FIX/profiles/workerd-min-b.cpuprofile &&
	pprof-convert -o m.pb.gz "$A" "$B" &&
	pprof-fold "$A" "$B" >expect &&
	pprof-fold m.pb.gz >actual &&
	test_cmp expect actual
'

test_expect_success 'the filters are applied before writing' '
	pprof-convert --drop-idle --hide="^visit" --rules "$SRC/examples/workers.rules.yaml" \
		--quiet -o f.pb.gz "$W" &&
	pprof-fold --drop-idle --hide="^visit" --rules "$SRC/examples/workers.rules.yaml" \
		--quiet "$W" >expect &&
	pprof-fold f.pb.gz >actual &&
	test_cmp expect actual
'

test_expect_success 'inlined frames stay inlined' '
	pprof-convert -o i.pb.gz "$FIX/edge/inline.pb.gz" &&
	pprof-fold -g addresses "$FIX/edge/inline.pb.gz" >expect &&
	pprof-fold -g addresses i.pb.gz >actual &&
	test_cmp expect actual
'

test_expect_success 'a bad input: exit 1, one line, no output file left' '
	printf "not a profile\n\001\002" >bad &&
	test_fails 1 pprof-convert -o out.pb.gz "$W" bad &&
	! test -e out.pb.gz &&
	test -z "$(ls | grep tmp)"
'

test_expect_success 'an unwritable output: exit 1' '
	test_fails 1 pprof-convert -o no-such-dir/out.pb.gz "$W"
'

test_expect_success 'pprof-convert --help and usage errors' '
	pprof-convert --help >out &&
	grep -q "^usage: pprof-convert" out &&
	pprof-convert --no-such-option "$W" >out 2>err
	test $? = 2 && test_cmp /dev/null out
'
test_done
