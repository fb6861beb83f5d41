#!/bin/sh
# sourcemap-lookup on the ECMA-426 conformance suite (../shared): --validate
# accepts exactly the valid maps and rejects the invalid ones with one line
# naming the map; every checkMapping and checkMappingTransitive action
# gives the expected position.  The expected files were written from the
# suite's source-map-spec-tests.json, not from this tool.
. "$(dirname "$0")/../lib.sh"

SUITE=${SHARED:+$SHARED/conformance/source-map-tests}
if [ -z "$SUITE" ] || [ ! -f "$SUITE/source-map-spec-tests.json" ]; then
	test_skip "no conformance suite in ../shared"
	test_done
	exit
fi
R=$SUITE/resources
X=$EXP/t0500

test_expect_success '--validate accepts exactly the valid maps' '
	while read -r map want; do
		if sourcemap-lookup --validate "$R/$map" >/dev/null 2>&1; then
			echo "$map valid"
		else
			echo "$map invalid"
		fi
	done <"$X/validity.txt" >actual &&
	test_cmp "$X/validity.txt" actual
'

test_expect_success 'an invalid map: exit 1, nothing on stdout, the reason on one line' '
	grep " invalid$" "$X/validity.txt" | while read -r map want; do
		test_fails 1 sourcemap-lookup --validate "$R/$map" &&
		grep -q "^sourcemap-lookup: $R/$map: [a-z]" err || {
			echo "$map"; cat err; exit 1; }
	done
'

test_expect_success 'the reason names the place' '
	test_fails 1 sourcemap-lookup --validate "$R/invalid-vlq-non-base64-char.js.map" &&
	echo "sourcemap-lookup: $R/invalid-vlq-non-base64-char.js.map: mappings: invalid base64 VLQ character (at byte 67)" >expect &&
	test_cmp expect err &&
	test_fails 1 sourcemap-lookup --validate "$R/index-map-invalid-sub-map.js.map" &&
	echo "sourcemap-lookup: $R/index-map-invalid-sub-map.js.map: sections[0].map.mappings is a number, not a string (at byte 185)" >expect &&
	test_cmp expect err
'

# lookup MAPS POS: the original position through each map in turn (the
# checkMappingTransitive chain), 0-based
lookup() {
	_maps=$1 _pos=$2 _out=
	for _m in $(echo "$_maps" | tr , " "); do
		_out=$(sourcemap-lookup --zero-based "$R/$_m" "$_pos") || return 1
		[ "$_out" = - ] && break
		_loc=${_out%% *}
		_pos=${_loc#*:}
	done
	echo "$_out"
}

test_expect_success 'every checkMapping action gives the expected position' '
	while read -r maps pos want; do
		echo "$maps $pos $(lookup "$maps" "$pos")"
	done <"$X/mappings.txt" >actual &&
	test_cmp "$X/mappings.txt" actual
'

test_expect_success 'the valid maps give the same answers leniently and after --validate' '
	while read -r maps pos want; do
		case $maps in *,*) continue ;; esac
		a=$(sourcemap-lookup --zero-based "$R/$maps" "$pos") &&
		b=$(sourcemap-lookup --validate --zero-based "$R/$maps" "$pos") &&
		test "$a" = "$b" || { echo "$maps $pos: $a / $b"; exit 1; }
	done <"$X/mappings.txt"
'

test_done
