#!/bin/sh
# Line-level costs (libpprof/lines.h): a .cpuprofile sample's leaf frame is
# on the line where it fell, from its node's positionTicks, split in
# proportion to the ticks; callers keep their function's line.  The goldens
# of the unmapped captures are the independent implementation's
# (fixtures/gen/expected.mjs, t0120); here: the parts add up to the
# function's self value, "functions" output does not change, symbolication
# of the lines, and go tool pprof -list on pprof-convert's output.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/filter-lib.sh"

W=$FIX/worker
NODE=$FIX/profiles/node-lines.cpuprofile

# noticks FILE OUT: FILE without its positionTicks.
noticks() {
	sed 's/,"positionTicks":\[[^]]*\]//g; s/"positionTicks":\[[^]]*\],//g' "$1" >"$2" &&
	! grep -q positionTicks "$2"
}

# leafsum: folded -g lines output with the leaf's ":LINE" dropped, summed
# by stack (the leaves of one function, whatever their lines, as one).
leafsum() {
	sed 's/:[0-9][0-9]* \(-*[0-9][0-9]*\)$/ \1/' |
		awk '{ v = $NF; $NF = ""; s[$0] += v } END { for (k in s) printf "%s%d\n", k, s[k] }' |
		LC_ALL=C sort
}

for f in node-lines workerd-plain workerd-min; do
	P=$FIX/profiles/$f.cpuprofile
	test_expect_success "$f: the per-line values of each leaf add up to its function's self value" '
		noticks "$P" flat.cpuprofile &&
		for i in wall samples; do
			pprof-fold -i $i -g lines "$P" | leafsum >actual &&
			pprof-fold -i $i -g lines flat.cpuprofile | leafsum >expect &&
			test_cmp expect actual || return 1
		done
	'
	test_expect_success "$f: functions and filefunctions output do not change" '
		noticks "$P" flat.cpuprofile &&
		for g in functions filefunctions files; do
			pprof-fold -g $g "$P" >actual &&
			pprof-fold -g $g flat.cpuprofile >expect &&
			test_cmp expect actual || return 1
		done
	'
done

test_expect_success 'node --cpu-prof: leaves on several lines of their function' '
	grep "checksum file:///app/lines.js:[0-9]* " "$FIX/expected/node-lines.lines.folded" |
		sed "s/.*checksum file:..\/app\/lines.js:\([0-9]*\) .*/\1/" | sort -un >lines &&
	test "$(wc -l <lines)" -ge 3
'

# esbuild's unminified build maps each line's indentation to where the
# line before ended: "    }).reduce(function(a, b) {" has a segment at
# column 0 on src/phases.ts:46 and its code from column 4 on line 47.  The
# blanks are no code a sample fell in: the line is 47's.  (The ticks of
# reducePhase are on generated lines 162, 163, 165, 167 and 168, whose code
# trace-mapping puts on lines 42, 43, 45, 47 and 48.)
test_expect_success 'a line whose indentation the map gives to the line before: its code'"'"'s line' '
	N=$FIX/names/esbuild &&
	pprof-fold -i samples -g lines -m "$N/plain" "$N/plain.cpuprofile" >actual 2>err &&
	! test -s err &&
	grep "^main src/main.ts:26;reducePhase src/phases.ts:[0-9]* [0-9]*\$" actual |
		sed "s/.*phases.ts://; s/ .*//" >lines &&
	printf "%s\n" 42 43 45 47 48 >expect &&
	test_cmp expect lines
'

test_expect_success 'a multi-line bundle: the leaves lines are mapped to the TypeScript lines' '
	pprof-fold -g lines -m "$W/plain" "$FIX/profiles/workerd-plain.cpuprofile" >actual 2>err &&
	test_cmp "$EXP/sym-plain.lines.folded" actual &&
	! test -s err &&
	noticks "$FIX/profiles/workerd-plain.cpuprofile" flat.cpuprofile &&
	leafsum <actual >sum &&
	pprof-fold -g lines -m "$W/plain" flat.cpuprofile | leafsum >expect &&
	test_cmp expect sum
'

test_expect_success 'a one-line bundle: the leaves keep their function line, said once' '
	pprof-fold -g lines -m "$W" "$FIX/profiles/workerd-min.cpuprofile" >actual 2>err &&
	test_cmp "$EXP/sym-min.lines.folded" actual &&
	echo "pprof-fold: warning: $W/worker.js.map: sampled lines map to several original lines (a one-line bundle?): those leaves keep their function'"'"'s line" >expect &&
	test_cmp expect err
'

test_expect_success 'pprof-convert writes the leaves lines as Line.line' '
	pprof-convert -o c.pb.gz "$NODE" &&
	pprof-fold -g lines c.pb.gz >actual &&
	pprof-fold -g lines "$NODE" >expect &&
	test_cmp expect actual
'

if ! have_go; then
	test_skip "go tool pprof is not installed"
	test_done
	exit
fi

# listed FUNC: the lines go tool pprof -list FUNC shows a flat value on, and
# the sum of those values, from the sources in ./
listed() {
	go tool pprof -symbolize=none -unit=ns -list "^$1\$" c.pb.gz 2>go.err |
		awk '$1 != "." && $3 ~ /^[0-9]+:/ { sub(/ns$/, "", $1); sub(/:.*/, "", $3); print $3, $1 }'
}
# ours FUNC FOLDED: the same from folded -g lines output.
ours() {
	grep "[; ]$1 [^;]*:[0-9]* [0-9]*\$" "$2" | sed "s/^\(.*;\)*$1 [^ ]*:\([0-9]*\) \([0-9]*\)\$/\2 \3/" |
		awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | sort -n
}

test_expect_success 'go tool pprof -list shows the lines of node --cpu-prof (converted)' '
	mkdir -p file:/app && cp "$FIX/gen/node/lines.js" file:/app/ &&
	pprof-convert -o c.pb.gz "$NODE" &&
	pprof-fold -g lines "$NODE" >folded &&
	for fn in checksum fill primes; do
		listed $fn | sort -n >actual &&
		ours $fn folded >expect &&
		test_cmp expect actual && test "$(wc -l <actual)" -ge 3 || return 1
	done
'

test_expect_success 'go tool pprof -list shows the TypeScript lines of the plain bundle (converted)' '
	mkdir -p src && cp -R "$FIX/gen/src/." src/ &&
	pprof-convert -m "$W/plain" -o c.pb.gz "$FIX/profiles/workerd-plain.cpuprofile" &&
	pprof-fold -g lines -m "$W/plain" "$FIX/profiles/workerd-plain.cpuprofile" >folded &&
	for fn in buildRecord estimateSize; do
		listed $fn | sort -n >actual &&
		ours $fn folded >expect &&
		test_cmp expect actual && test "$(wc -l <actual)" -ge 2 || return 1
	done
'

test_done
