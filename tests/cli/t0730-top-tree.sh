#!/bin/sh
# pprof-top --tree and --peek=RE (issue 18): pprof's -tree and -peek, with
# pprof-top's defaults (every row, no node or edge trimming).  Goldens on
# the Worker's captures, symbolicated and not; and, when go is installed,
# the whole output equal to go tool pprof -tree|-peek -nodecount=1000000
# -nodefraction=0 -edgefraction=0 (but pprof's File: and Build ID: lines).
. "$(dirname "$0")/../lib.sh"

TZ=UTC
export TZ
A=$FIX/profiles/workerd-min.cpuprofile
MAP=$FIX/worker/worker.js.map
P=$FIX/pprof/workerd-min.cpu.pb.gz

test_expect_success 'goldens: the Worker capture symbolicated, as a tree and peeked' '
	pprof-top --tree -m "$MAP" "$A" >actual &&
	test_cmp "$EXP/t0730/workerd-min.map.tree" actual &&
	pprof-top --peek="^visit" -m "$MAP" "$A" >actual &&
	test_cmp "$EXP/t0730/workerd-min.map.peek" actual &&
	pprof-top --tree "$P" >actual &&
	test_cmp "$EXP/t0730/workerd-min.cpu.tree" actual
'

test_expect_success 'goldens: inlined calls are marked, -n keeps the first rows' '
	pprof-top --tree "$FIX/edge/inline.pb.gz" >actual &&
	test_cmp "$EXP/t0730/inline.tree" actual &&
	pprof-top --tree -n 5 --cum "$FIX/edge/inline.pb.gz" >actual &&
	test_cmp "$EXP/t0730/inline.n5cum.tree" actual &&
	grep -q "|   inlinedInner (inline)$" actual
'

# rows FILE: "flat cum name" of each row of a table or a tree.
rows() {
	grep -v "calls%" "$1" |
		sed -n "s/^ *\([^ ]*\) *[^ ]*% *[^ ]*% *\([^ ]*\) *[^ ]*%  *|* *\(.*\)$/\1 \2 \3/p"
}

test_expect_success 'the rows of the tree are the rows of the table' '
	pprof-top -m "$MAP" "$A" >table &&
	pprof-top --tree -m "$MAP" "$A" >tree &&
	rows table >expect && rows tree >actual &&
	test "$(wc -l <expect)" -gt 20 &&
	test_cmp expect actual
'

test_expect_success 'the callers of a function without recursion sum to its cum' '
	pprof-top --tree --format=text "$FIX/edge/inline.pb.gz" >tree &&
	sed -n "/^ *[0-9]* [ 0-9.]*%  *[ 0-9.]*% *[0-9]* .*| inlinedInner$/p" tree >node &&
	test "$(wc -l <node)" = 1 &&
	test "$(awk "{print \$4}" node)" = 4
'

test_expect_success 'pprof spellings: -tree, -peek=RE' '
	pprof-top -tree "$P" >a && pprof-top --tree "$P" >b && test_cmp a b &&
	pprof-top -peek=fetch "$P" >a && pprof-top --peek=fetch "$P" >b && test_cmp a b
'

test_expect_success 'errors: no match, a bad regex, a format other than text' '
	test_fails 1 pprof-top --peek=nosuchfunction "$P" &&
	test "$(cat err)" = "pprof-top: no matches found for regexp: nosuchfunction" &&
	test_usage pprof-top --peek="(" "$P" &&
	test_usage pprof-top --tree --format=json "$P"
'

if ! command -v go >/dev/null 2>&1; then
	test_skip "go is not installed"
	test_done
	exit
fi

# go_view FILE OPTIONS...: go tool pprof's output with every node and edge.
go_view() {
	f=$1
	shift
	go tool pprof -nodecount=1000000 -nodefraction=0 -edgefraction=0 -symbolize=none \
		"$@" "$f" >go.out 2>go.err &&
	grep -v '^File: \|^Build ID: ' go.out
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
	case $name in cppbench.cpu_no_samples_type*) continue ;; esac
	test_expect_success "$name: -tree, -cum, -lines, -nodecount=7 as go tool pprof" "
		go_view '$f' -tree >expect && pprof-top --tree '$f' >actual &&
		test_cmp expect actual &&
		go_view '$f' -tree -cum >expect && pprof-top --tree --cum '$f' >actual &&
		test_cmp expect actual &&
		go_view '$f' -tree -lines >expect && pprof-top --tree -g lines '$f' >actual &&
		test_cmp expect actual &&
		go tool pprof -tree -nodecount=7 -nodefraction=0 -edgefraction=0 \
			-symbolize=none '$f' 2>/dev/null | grep -v '^File: \|^Build ID: ' >expect &&
		pprof-top --tree -n 7 '$f' >actual && test_cmp expect actual
	"
	test_expect_success "$name: -peek as go tool pprof" "
		for re in main '^[a-m]' 'runtime|visit' '.'; do
			if go_view '$f' -peek=\"\$re\" >expect; then
				pprof-top --peek=\"\$re\" '$f' >actual && test_cmp expect actual || exit 1
			else
				test_fails 1 pprof-top --peek=\"\$re\" '$f' || exit 1
			fi
		done
	"
done

# inline.pb.gz has inlined calls (go prints its name with a newline raw,
# pprof-top as a space: that row is hidden on both sides).
test_expect_success 'inline.pb.gz: inlined calls as go tool pprof' '
	f=$FIX/edge/inline.pb.gz &&
	go_view "$f" -tree -hide=semi >expect && pprof-top --tree --hide=semi "$f" >actual &&
	test_cmp expect actual &&
	go_view "$f" -peek=inlined -hide=semi >expect &&
	pprof-top --peek=inlined --hide=semi "$f" >actual && test_cmp expect actual &&
	grep -q "(inline)$" actual
'

test_expect_success 'filters: the legend and the total before them, as go tool pprof' '
	go_view "$P" -tree -focus=visit -hide=fnv >expect &&
	pprof-top --tree --focus=visit --hide=fnv "$P" >actual 2>/dev/null &&
	test_cmp expect actual &&
	grep -q "^   focus=visit$" actual
'

test_done
