#!/bin/sh
# pprof-top reads pprof samples as lists of locations, without the call
# tree (pprof_read_options.defer_tree): the tree is built only when a
# transform needs it.  The same tables either way, and the same bound on
# stacks that expand to too many frames.
. "$(dirname "$0")/../lib.sh"

GEN="perl $SRC/tests/hostile/gen.pl"
A=$FIX/pprof/workerd-min.cpu.nomap.pb.gz
B=$FIX/pprof/workerd-min-b.cpu.nomap.pb.gz

# The transforms build the tree; a focus that every sample passes leaves
# the table as it is, but for pprof's legend of the filters.
without_legend() {
	grep -v "^Active filters:\$\|^   focus=\.\$" "$1"
}
test_expect_success 'with and without the tree, the same table' '
	pprof-top "$A" "$B" >deferred &&
	pprof-top --focus="." "$A" "$B" >tree &&
	without_legend tree >tree.table &&
	test_cmp deferred tree.table &&
	pprof-top -n 3 --cum "$A" >deferred &&
	pprof-top -n 3 --cum --focus="." "$A" >tree &&
	without_legend tree >tree.table &&
	test_cmp deferred tree.table &&
	test $(wc -l <tree) = $(($(wc -l <deferred) + 2))
'

# The labels of inlined calls with a row limit take a second walk.  (The
# tables without a limit are compared with the tree's in test_top, and
# with go in t0700; this fixture has a name with a newline, which go
# prints as it is.)
if command -v go >/dev/null 2>&1; then
	test_expect_success 'inlined lines: the labels under a row limit, as go tool pprof' '
		for o in "-nodecount=1" "-nodecount=2" "-nodecount=2 -cum"; do
			TZ=UTC go tool pprof -top -nodefraction=0 -symbolize=none $o \
				"$FIX/edge/inline.pb.gz" 2>/dev/null |
				grep -v "^File: \|^Build ID: " >expect &&
			TZ=UTC pprof-top $(echo "$o" | sed "s/-nodecount=/-n /; s/-cum/--cum/") \
				"$FIX/edge/inline.pb.gz" >actual &&
			test_cmp expect actual || exit 1
		done &&
		grep -q "(inline)" actual
	'
else
	test_skip "go is not installed"
fi

test_expect_success 'a pprof whose stacks explode is refused by pprof-top too' '
	$GEN inline-bomb.pb 10000 >bomb.pb &&
	test_fails 1 timeout $((60 * TSCALE)) pprof-top bomb.pb &&
	grep -q "^pprof-top: bomb.pb: stacks expand to more than [0-9]* frames (inlined lines times repeated locations), too many for [0-9]* bytes (at byte [0-9]*)$" err
'

test_expect_success 'the same at a size that is fine: one function, on every frame' '
	$GEN inline-bomb.pb 1000 >ok.pb &&
	pprof-top --format=tsv ok.pb >actual &&
	pprof-top --format=tsv --focus=. ok.pb >expect &&
	test_cmp expect actual &&
	grep -q "^# rows	1	1$" actual
'

test_done
