#!/bin/sh
# The habits pprof users bring (issue 18): pprof's one-dash long options
# (-nodecount=5, -sample_index samples, -lines) are the same option as
# their double-dash spelling, in every program; anything else of one dash
# stays short options; usage errors are two lines naming the program.
. "$(dirname "$0")/../lib.sh"

W=$FIX/profiles/workerd-min.cpuprofile
P=$FIX/pprof/workerd-min.cpu.pb.gz


# both 'ARGS1' 'ARGS2' PROGRAM FILES...: the program's output under either
# spelling, compared whole.
both() {
	_a=$1 _b=$2
	shift 2
	_prog=$1
	shift
	# shellcheck disable=SC2086
	$_prog $_a "$@" >a.out 2>a.err || { echo "$_prog $_a failed"; cat a.err; return 1; }
	# shellcheck disable=SC2086
	$_prog $_b "$@" >b.out 2>b.err || { echo "$_prog $_b failed"; cat b.err; return 1; }
	test -s a.out && test_cmp a.out b.out && test_cmp a.err b.err
}

for prog in pprof-fold pprof-top; do
	test_expect_success "$prog: -sample_index=samples is --sample-index=samples" "
		both -sample_index=samples --sample-index=samples $prog \"\$W\"
	"
	test_expect_success "$prog: -sample_index samples (two words, as Go's flag package)" "
		both '-sample_index samples' '-i samples' $prog \"\$W\"
	"
	test_expect_success "$prog: -focus=visit and -ignore=JSON are --focus, --ignore" "
		both '-focus=visit -ignore=JSON' '--focus=visit --ignore=JSON' $prog \"\$P\"
	"
	test_expect_success "$prog: pprof's -lines and -files are -g lines, -g files" "
		both -lines '-g lines' $prog \"\$W\" &&
		both -files '--granularity=files' $prog \"\$W\"
	"
done

test_expect_success 'pprof-top: -nodecount=5 and -nodecount 5 are -n 5' '
	both -nodecount=5 "-n 5" pprof-top "$W" &&
	both "-nodecount 5" "--nodecount=5" pprof-top "$W" &&
	test "$(grep -c "^ *[0-9.]*ms " a.out)" = 5
'

test_expect_success 'pprof-top: -cum is --cum; short options still cluster (-n5)' '
	both "-cum -n5" "--cum --nodecount=5" pprof-top "$W"
'

test_expect_success 'pprof-diff: -sample_index and -focus in pprof spelling' '
	both "-sample_index=samples -focus=visit" "--sample-index=samples --focus=visit" \
		pprof-diff "$W" "$FIX/profiles/workerd-min-b.cpuprofile"
'

test_expect_success 'pprof-flame: -sample_index=samples is --sample-index=samples' '
	both -sample_index=samples --sample-index=samples pprof-flame "$W"
'

test_expect_success 'pprof-convert: -sample_index=samples -output=F is --sample-index --output' '
	pprof-convert -sample_index=samples -output=a.pb.gz "$W" &&
	pprof-convert --sample-index=samples --output=b.pb.gz "$W" &&
	pprof-fold a.pb.gz >a.folded && pprof-fold b.pb.gz >b.folded &&
	test -s a.folded && test_cmp a.folded b.folded
'

test_expect_success 'a one-dash word that names no long option is short options' '
	test_usage pprof-fold -nodecount=5 "$W" &&
	test "$usage_msg" = "pprof-fold: invalid option -- '"'"'n'"'"'" &&
	test_usage pprof-top -bogus "$W" &&
	test "$usage_msg" = "pprof-top: invalid option -- '"'"'b'"'"'"
'

test_expect_success 'the value of an option is never taken for an option' '
	pprof-fold -o -focus=x "$W" &&
	test -s ./-focus=x &&
	pprof-fold "$W" >expect && test_cmp expect ./-focus=x
'

test_expect_success 'after --, words are files' '
	test_fails 1 pprof-fold -- -focus=x &&
	grep -q "^pprof-fold: -focus=x: " err
'

for prog in pprof-fold pprof-top pprof-diff pprof-flame pprof-convert sourcemap-lookup; do
	test_expect_success "$prog: usage errors are two lines naming the program" "
		test_usage $prog --bogus &&
		test \"\$usage_msg\" = \"$prog: unrecognized option '--bogus'\" &&
		test_usage $prog -Z &&
		test \"\$usage_msg\" = \"$prog: invalid option -- 'Z'\" &&
		test_usage $prog --output &&
		test \"\$usage_msg\" = \"$prog: option '--output' requires an argument\" &&
		test_usage $prog --quiet=yes &&
		test \"\$usage_msg\" = \"$prog: option '--quiet' takes no argument\"
	"
done
test_done
