#!/bin/sh
# completions/pprof-tools.bash: the options each program's --help names are
# offered, option values with fixed sets complete, operands are files.
. "$(dirname "$0")/../lib.sh"

COMP=$SRC/completions/pprof-tools.bash
if ! command -v bash >/dev/null 2>&1; then
	test_skip 'bash is not installed'
	test_done
	exit
fi

# complete WORD...: what TAB offers after the words (the last one is the word
# being completed), one per line, sorted.
cat >"$TRASH/complete.bash" <<'EOT'
. "$1"; shift
compopt() { :; }
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_pprof_tools "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
exit 0
EOT
complete() {
	bash "$TRASH/complete.bash" "$COMP" "$@"
}

for prog in pprof-fold pprof-flame pprof-diff pprof-top pprof-convert sourcemap-lookup; do
	[ -x "$BUILD/$prog" ] || continue
	test_expect_success "$prog: every long option of --help is offered" '
		"$prog" --help | sed -n "s/^ *\(-[a-zA-Z0-9], \)\{0,1\}\(--[a-z][-a-z]*\).*/\2/p" |
			LC_ALL=C sort -u >expect &&
		test -s expect &&
		complete "$prog" -- | sed "s/=\$//" | LC_ALL=C sort -u >offered &&
		LC_ALL=C comm -23 expect offered >missing &&
		test_cmp /dev/null missing
	'
done

test_expect_success 'a long option that takes a value ends in =' '
	echo "--granularity=" >expect &&
	complete pprof-fold --gra >actual && test_cmp expect actual
'

test_expect_success 'values of -g and --granularity=' '
	printf "%s\n" filefunctions files functions >expect &&
	complete pprof-fold -g f >actual && test_cmp expect actual &&
	complete pprof-fold --granularity = f >actual && test_cmp expect actual &&
	printf "%s\n" --granularity=filefunctions --granularity=files --granularity=functions >expect &&
	complete pprof-fold --granularity=f >actual && test_cmp expect actual
'

test_expect_success 'pprof-diff -n takes no value, pprof-top -n does' '
	mkdir d && : >d/cpu.pb.gz && echo cpu.pb.gz >expect &&
	(cd d && complete pprof-diff -n "") >actual && test_cmp expect actual &&
	(cd d && complete pprof-top -n "") >actual && test_cmp /dev/null actual
'

test_expect_success 'sourcemap-lookup: a map first, then nothing' '
	mkdir m && : >m/a.js.map && : >m/b.txt && echo a.js.map >expect &&
	(cd m && complete sourcemap-lookup "") >actual && test_cmp expect actual &&
	(cd m && complete sourcemap-lookup a.js.map "") >actual && test_cmp /dev/null actual
'

test_done
