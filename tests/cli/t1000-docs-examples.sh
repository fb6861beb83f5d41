#!/bin/sh
# The documentation runs: every .Bd -literal block under .Sh EXAMPLES of
# every man page, and every ```sh block of README.md, with the built
# programs first in PATH, from a copy of the top of the source tree (links
# to its files, so what an example writes stays in the scratch directory).
# Each must exit 0 with no error message from our programs; where README
# shows the output (a ```text block right after), it must be exactly that.
#
# Not run, and reported as SKIP with the reason (CONTRIBUTING.md,
# "Documentation"): build and install commands, commands that are not
# installed here (GNU parallel, go), and examples that read files which do
# not exist, such as the reader's own captures/*.pb.gz.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/cli/docs-lib.sh"

# tree DIR: DIR made to look like the top of the source tree.
tree() {
	mkdir -p "$1" &&
	for f in "$SRC"/* "$SRC"/.[!.]*; do
		[ -e "$f" ] && ln -s "$f" "$1/${f##*/}"
	done
	return 0
}

# run_example BLOCK TREE: runs BLOCK in TREE; checks status, errors, output.
run_example() {
	(cd "$2" && sh -e "$1") >out 2>err
	status=$?
	if [ "$status" != 0 ]; then
		echo "exit status $status from:"
		cat "$1"
		cat err
		return 1
	fi
	if grep -E '^(pprof-[a-z]+|sourcemap-lookup): ' err | grep -v ': warning: ' | grep -q .; then
		echo "error messages from:"
		cat "$1"
		cat err
		return 1
	fi
	if [ -f "${1%.sh}.out" ]; then
		test_cmp "${1%.sh}.out" out || return 1
	fi
	return 0
}

# examples DIR LABEL TREE: a test (or a skip) per DIR/N.sh.
examples() {
	for ex in $(ls "$1" | sed -n 's/\.sh$//p' | sort -n); do
		block=$1/$ex.sh
		what="$2 example $ex: $(grep -v '^[[:space:]]*$' "$block" | head -1 | tr -d '\\' | cut -c1-60)"
		why=$(cd "$3" && example_skip "$block")
		if [ -n "$why" ]; then
			test_skip "$what: $why"
			continue
		fi
		test_expect_success "$what" "run_example '$block' '$3'"
	done
}

# The harness itself: an example that fails, prints an error of ours, or
# prints other than the output shown must fail its test.
test_expect_success 'a failing example, an error message or other output is caught' '
	mkdir t && echo false >t/1.sh && ! run_example "$PWD/t/1.sh" "$PWD" &&
	echo "pprof-fold /nonexistent/x || true" >t/2.sh && ! run_example "$PWD/t/2.sh" "$PWD" &&
	echo "echo a" >t/3.sh && echo b >t/3.out && ! run_example "$PWD/t/3.sh" "$PWD" &&
	echo a >t/3.out && run_example "$PWD/t/3.sh" "$PWD"
'

test_expect_success 'what an example needs: inputs, outputs, commands, build steps' '
	cat >ex.sh <<-\EOT &&
	pprof-fold -o a.folded fixtures/x.pb.gz &&
	  pprof-fold a.folded > b.folded   # reads what it wrote
	ls captures/*.pb.gz | parallel "pprof-fold {}"
	EOT
	example_words ex.sh >actual &&
	printf "%s\n" "cmd pprof-fold" "out a.folded" "in fixtures/x.pb.gz" "cmd pprof-fold" \
		"in a.folded" "out b.folded" "cmd ls" "in captures/*.pb.gz" "cmd parallel" >expect &&
	test_cmp expect actual &&
	echo "needs fixtures/x.pb.gz, which does not exist here" >expect &&
	example_skip ex.sh >actual && test_cmp expect actual &&
	echo "./configure && make" >b.sh && example_skip b.sh | grep -q "build or install" &&
	echo "no-such-command-here x" >c.sh && example_skip c.sh | grep -q "not installed" &&
	echo "pprof-fold README.md" >d.sh && test -z "$(cd "$SRC" && example_skip "$OLDPWD/d.sh")"
'

pages=0
for page in "$SRC"/man/*.1; do
	[ -f "$page" ] || continue
	name=${page##*/}
	dir=$TRASH/man-$name
	man_examples "$page" "$dir"
	if [ -z "$(ls "$dir")" ]; then
		test_expect_success "$name has EXAMPLES" 'false'
		continue
	fi
	pages=$((pages + 1))
	tree "$dir.tree"
	examples "$dir" "$name" "$dir.tree"
done

test_expect_success 'there are man pages with examples' 'test "$pages" -gt 0'

# README: one tree for all blocks, in order, as a reader follows along.
readme_examples "$SRC/README.md" "$TRASH/readme"
tree "$TRASH/readme.tree"
examples "$TRASH/readme" README.md "$TRASH/readme.tree"

# The aggregation README describes, on two real captures: folding each
# (map) and then the folded files (reduce) equals folding both at once.
test_expect_success 'map-reduce of folded stacks equals folding everything at once' '
	for f in workerd-min workerd-min-b; do
		pprof-fold "$FIX/profiles/$f.cpuprofile" >"$f.folded" || exit 1
	done &&
	pprof-fold workerd-min.folded workerd-min-b.folded >reduced &&
	pprof-fold "$FIX/profiles/workerd-min.cpuprofile" "$FIX/profiles/workerd-min-b.cpuprofile" >all &&
	test_cmp all reduced &&
	test -s all
'

test_expect_success 'map-reduce by granularity lines and with source maps too' '
	for f in workerd-min workerd-min-b; do
		pprof-fold -g lines -m "$FIX/worker" "$FIX/profiles/$f.cpuprofile" >"$f.folded" ||
			return 1
	done &&
	cat workerd-min.folded workerd-min-b.folded | pprof-fold >reduced &&
	pprof-fold -g lines -m "$FIX/worker" "$FIX/profiles/workerd-min.cpuprofile" \
		"$FIX/profiles/workerd-min-b.cpuprofile" >all &&
	test_cmp all reduced
'

# The README's pictures are what the programs draw today (make readme-images
# refreshes them).  The embedded script is left out of the comparison: it
# only runs in a browser (not in a README), and it changes more often than
# the drawing does.
drawing() {
	sed '/<script/,/<\/script>/d' "$1"
}
for svg in "$SRC"/doc/*.svg; do
	[ -f "$svg" ] || continue
	test_expect_success "doc/${svg##*/} is up to date (else: make readme-images)" '
		(cd "$SRC" && sh doc/make-images.sh "$OLDPWD") >/dev/null &&
		drawing "$svg" >expect && drawing "${svg##*/}" >actual &&
		test -s actual && test_cmp expect actual
	'
done

test_done
