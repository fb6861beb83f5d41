#!/bin/sh
# File names as pprof prints them (DESIGN, "Output and naming"): through
# Go's filepath.Clean unless they start with a scheme, and "NAME :LINE" for
# a frame with a line and no file, at -g lines, files and filefunctions, for
# pprof and V8 inputs alike.  The pprof files are written by
# gen-names-pprof.pl; the expected outputs (expected/t0210/) were checked
# against go tool pprof 1.19, and are again when go is installed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/filter-lib.sh"
GEN="perl $SRC/tests/cli/gen-names-pprof.pl"

for g in lines files filefunctions functions; do
	test_expect_success "cleaned file names and :LINE at -g $g" "
		$GEN clean >names.pb &&
		pprof-fold -g $g names.pb >actual &&
		test_cmp '$EXP/t0210/clean.$g.folded' actual
	"
done

for g in lines files; do
	test_expect_success "file names with a scheme stay as they are at -g $g" "
		$GEN scheme >names.pb &&
		pprof-fold -g $g names.pb >actual &&
		test_cmp '$EXP/t0210/scheme.$g.folded' actual
	"
done

for g in lines files filefunctions; do
	test_expect_success ".cpuprofile: URLs cleaned, :LINE without a URL at -g $g" "
		pprof-fold -i samples -g $g '$FIX/edge/names-files.cpuprofile' >actual &&
		test_cmp '$EXP/t0210/cpuprofile.$g.folded' actual
	"
done

test_expect_success 'pprof-top names the rows alike' '
	$GEN clean >names.pb &&
	pprof-top -g lines names.pb >top &&
	grep -q " noFile :74$" top && grep -q " main /main.py:10$" top &&
	! grep -q "//main.py" top
'

if ! command -v go >/dev/null 2>&1; then
	test_skip "go is not installed"
	test_done
	exit
fi

for g in lines files filefunctions functions; do
	test_expect_success "-g $g as go tool pprof -traces and -raw" "
		$GEN clean >names.pb &&
		go tool pprof -symbolize=none -raw names.pb >raw 2>err &&
		go tool pprof -symbolize=none -$g -traces names.pb >traces 2>err &&
		traces_to_folded raw traces >expect &&
		test -s expect &&
		pprof-fold -g $g names.pb >actual &&
		test_cmp expect actual
	"
done
test_done
