#!/bin/sh
# Runs every end-to-end test script tests/cli/t*.sh and merges their TAP
# output into one stream, numbering the tests anew.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=.}"
export top_srcdir top_builddir
n=0
failed=0
for t in "$top_srcdir"/tests/cli/t[0-9]*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	out=$(sh "$t" 2>&1)
	status=$?
	while IFS= read -r line; do
		case $line in
		"ok "*|"not ok "*)
			n=$((n + 1))
			verdict=${line%% [0-9]*}
			rest=${line#"$verdict" }
			rest=${rest#* }
			echo "$verdict $n $name: $rest"
			;;
		"1.."*) ;;
		*) echo "$line" ;;
		esac
	done <<EOT
$out
EOT
	if [ "$status" != 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
		n=$((n + 1))
		echo "not ok $n $name: script failed with status $status"
	fi
done
echo "1..$n"
