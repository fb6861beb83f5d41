#!/bin/sh
# Each filter of pprof-fold on the shared test data equals what go tool
# pprof 1.19 prints with the same option (expected/filter/cases: the goldens
# are its -raw and -traces outputs as folded stacks).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/filter-lib.sh"

if [ -z "$SHARED" ] || [ ! -d "$SHARED/testdata" ]; then
	test_skip "no shared test data"
	test_done
	exit
fi
G=$EXP/filter
while read -r name file opt; do
	case $name in '#'*|'') continue ;; esac
	# The body is evaluated at once: it reads the loop's variables.
	test_expect_success "$name: $opt on $file as go tool pprof" '
		pprof-fold --quiet "-$opt" "$SHARED/testdata/$file" >actual &&
		test_cmp "$G/$name.folded" actual
	'
done <"$G/cases"
test_done
