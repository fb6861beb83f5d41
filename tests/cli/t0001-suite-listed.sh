#!/bin/sh
# Every end-to-end script is its own entry in Makefile.am's TESTS, so that
# make check runs it: a script added without its line would never run.
. "$(dirname "$0")/../lib.sh"

test_expect_success 'each tests/cli/t*.sh has its TESTS line in Makefile.am' '
	(cd "$SRC" && ls tests/cli/t[0-9]*.sh) | sed "s/^/TESTS += /" >expect &&
	grep "^TESTS += tests/cli/t" "$SRC/Makefile.am" >actual &&
	test_cmp expect actual
'
test_done
