#!/bin/sh
# Every program has a man page, and its SYNOPSIS reads exactly as the usage
# lines of the program's --help (whitespace aside), as OpenBSD keeps them.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/cli/docs-lib.sh"

for prog in pprof-fold pprof-flame pprof-diff pprof-top pprof-convert sourcemap-lookup; do
	if ! [ -x "$BUILD/$prog" ]; then
		test_skip "$prog is not built"
		continue
	fi
	page=$SRC/man/$prog.1
	test_expect_success "$prog has a man page with SYNOPSIS, EXIT STATUS and EXAMPLES" '
		test -f "$page" &&
		grep -q "^\.Sh SYNOPSIS" "$page" &&
		grep -q "^\.Sh EXIT STATUS" "$page" &&
		grep -q "^\.Sh EXAMPLES" "$page"
	'
	test_expect_success "man/$prog.1 SYNOPSIS equals $prog --help usage" '
		test -f "$page" &&
		man_synopsis "$page" >man &&
		usage_synopsis "$prog" >usage &&
		test -s usage &&
		test_cmp usage man
	'
done

# The reading of mdoc that the test above relies on.
test_expect_success 'man_synopsis reads Op, Fl, Ar, Ns, Oo/Oc and delimiters' '
	cat >t.1 <<-\EOT &&
	.Sh NAME
	.Nm prog
	.Nd test
	.Sh SYNOPSIS
	.Nm
	.Op Fl ns
	.Op Fl i Ar sample
	.Op Fl -top Ns Op = Ns Ar N
	.Op Fl -format Ns = Ns Ar text|tsv|json
	.Oo Fl -a Oc
	.Op Ar filter options
	.Ar before after
	.Op Ar
	.Sh DESCRIPTION
	EOT
	man_synopsis t.1 >actual &&
	echo "prog [-ns] [-i sample] [--top[=N]] [--format=text|tsv|json] [--a] [filter options] before after [file ...]" >expect &&
	test_cmp expect actual
'

test_done
