#!/bin/sh
# pprof-diff --top: the table by function (self and total, before, after,
# delta, delta%), computed here again from the diff lines; its formats,
# row limit and sort; and the --fail-over regression gate (exit 3).
. "$(dirname "$0")/../lib.sh"

A=$FIX/profiles/workerd-min.cpuprofile
B=$FIX/profiles/workerd-min-b.cpuprofile
MAP=$FIX/worker/worker.js.map

# table_of DIFF: per function "name self_before self_after total_before
# total_after" for the functions that changed, from "stack before after"
# lines; total counts a function once per stack.
table_of() {
	awk '
	{
		n = split($0, w, " ")
		bv = w[n - 1]; av = w[n]
		s = substr($0, 1, length($0) - length(bv) - length(av) - 2)
		k = split(s, fr, ";")
		delete once
		for (i = 1; i <= k; i++) {
			if (!(fr[i] in once)) { tb[fr[i]] += bv; ta[fr[i]] += av; once[fr[i]] = 1 }
		}
		sb[fr[k]] += bv; sa[fr[k]] += av
		seen[fr[k]] = 1
		for (i = 1; i <= k; i++) seen[fr[i]] = 1
	}
	END {
		for (f in seen)
			if (sb[f] != sa[f] || tb[f] != ta[f])
				printf "%s\t%.0f\t%.0f\t%.0f\t%.0f\n", f, sb[f], sa[f], tb[f], ta[f]
	}' "$1" | LC_ALL=C sort
}

# rows_of TSV: the same columns from pprof-diff --format=tsv.
rows_of() {
	grep -v "^#" "$1" | sed 1d |
	awk -F '\t' '{ printf "%s\t%s\t%s\t%s\t%s\n", $9, $1, $2, $5, $6 }' | LC_ALL=C sort
}

test_expect_success 'the table equals one computed from the diff lines' '
	pprof-diff -m "$MAP" "$A" "$B" >diff &&
	table_of diff >expect &&
	pprof-diff -m "$MAP" --top --format=tsv "$A" "$B" >tsv &&
	rows_of tsv >actual &&
	test_cmp expect actual &&
	test $(wc -l <expect) -gt 20
'

test_expect_success 'the same with -n: the table of the normalized lines' '
	pprof-diff -n "$A" "$B" >diff &&
	table_of diff >expect &&
	pprof-diff -n --top --format=tsv "$A" "$B" >tsv &&
	rows_of tsv >actual &&
	test_cmp expect actual &&
	grep -q "^# normalized	1$" tsv
'

test_expect_success 'recursion counts once per stack in total' '
	printf "m;r;r;r 5\nm;x 1\n" >before &&
	printf "m;r 2\nm;x 1\n" >after &&
	pprof-diff --top --format=tsv before after >tsv &&
	grep -v "^#" tsv | sed 1d | cut -f 1,2,5,6,9 >actual &&
	printf "5\t2\t5\t2\tr\n0\t0\t6\t3\tm\n" >expect &&
	test_cmp expect actual
'

# (run in fixtures/ so that the inputs' names in the header are relative)
test_expect_success 'golden: text, tsv and json' '
	a=profiles/workerd-min.cpuprofile && b=profiles/workerd-min-b.cpuprofile &&
	m=worker/worker.js.map &&
	(cd "$FIX" && pprof-diff -m $m --top $a $b) >actual &&
	test_cmp "$EXP/t0600/workerd-min.top.txt" actual &&
	(cd "$FIX" && pprof-diff -m $m --top=10 --cum --format=tsv $a $b) >actual &&
	test_cmp "$EXP/t0600/workerd-min.top10cum.tsv" actual &&
	(cd "$FIX" && pprof-diff -m $m -n --top=5 --format=json $a $b) >actual &&
	test_cmp "$EXP/t0600/workerd-min.top5n.json" actual
'

test_expect_success '--top=N keeps the first N rows; --cum sorts by |total delta|' '
	pprof-diff --top --format=tsv "$A" "$B" | grep -v "^#" | sed 1d >all &&
	pprof-diff --top=7 --format=tsv "$A" "$B" | grep -v "^#" | sed 1d >seven &&
	head -7 all >expect && test_cmp expect seven &&
	pprof-diff --top --cum --format=tsv "$A" "$B" | grep -v "^#" | sed 1d >cum &&
	awk -F "\t" "{ d = \$7 < 0 ? -\$7 : \$7; print d }" cum >deltas &&
	sort -rn deltas >sorted && test_cmp sorted deltas &&
	awk -F "\t" "{ d = \$3 < 0 ? -\$3 : \$3; print d }" all >deltas &&
	sort -rn deltas >sorted && test_cmp sorted deltas
'

# A strict JSON parser reads it: node (which ./build.sh check installs), or
# python3.
json_rows() {
	if command -v node >/dev/null 2>&1; then
		node -e '
const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
for (const r of d.rows)
	console.log([r.function, r.self.before, r.self.after,
		r.total.before, r.total.after].join("\t"));
' "$1"
	else
		python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    print("%s\t%d\t%d\t%d\t%d" % (r["function"], r["self"]["before"], r["self"]["after"], r["total"]["before"], r["total"]["after"]))
' "$1"
	fi
}

if command -v node >/dev/null 2>&1 || command -v python3 >/dev/null 2>&1; then
	test_expect_success 'json is valid, its rows as the tsv rows' '
		pprof-diff --top --format=json "$A" "$B" >j &&
		json_rows j | LC_ALL=C sort >actual &&
		pprof-diff --top --format=tsv "$A" "$B" >tsv && rows_of tsv >expect &&
		test_cmp expect actual
	'
else
	test_skip "neither node nor python3 to parse the json"
fi

# The gate: the total fell 1.85% but buildRecord's total grew by 16.47% of
# BEFORE's total.
test_expect_success '--fail-over: exit 3 past the threshold, the output still written' '
	pprof-diff -m "$MAP" "$A" "$B" >expect &&
	pprof-diff -m "$MAP" --fail-over=10 "$A" "$B" >actual 2>err; test $? = 3 &&
	test_cmp expect actual &&
	echo "pprof-diff: regression over 10%: total -1.85%; 1 function over, most buildRecord (+16.47% of before'"'"'s total)" >expect.err &&
	# (the one-line bundle warning of positionTicks lines, t0130, aside)
	grep -v "warning: .*sampled lines map to several original lines" err >err.gate &&
	test_cmp expect.err err.gate &&
	pprof-diff -m "$MAP" --fail-over=16.5 "$A" "$B" >actual 2>err &&
	test_cmp expect actual &&
	grep -v "warning: .*sampled lines map to several original lines" err >err.gate;
	test ! -s err.gate
'

test_expect_success '--fail-over on the total, after -n, and in percent' '
	printf "a 10\nb 10\n" >before && printf "a 10\nb 13\n" >after &&
	pprof-diff --fail-over=14 before after >/dev/null 2>err; test $? = 3 &&
	grep -q "total +15.00%" err &&
	pprof-diff --fail-over=15% before after >/dev/null 2>err &&
	printf "a 20\nb 20\n" >big &&
	pprof-diff -n --fail-over=5 big after >/dev/null 2>err; test $? = 3 &&
	grep -q "total +4.55%; 1 function over, most b (+9.09%" err &&
	pprof-diff -n --fail-over=10 big after >/dev/null 2>err &&
	pprof-diff --top --fail-over=50 before after >/dev/null
'

test_done
