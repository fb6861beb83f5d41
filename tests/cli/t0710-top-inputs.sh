#!/bin/sh
# pprof-top on every kind of input: flat and cum computed here again from
# the folded stacks (cum once per stack, however often a function recurs),
# goldens of the Worker's captures, the TSV and JSON formats, row limits
# and errors.
. "$(dirname "$0")/../lib.sh"

A=$FIX/profiles/workerd-min.cpuprofile

# top_of FOLDED: "name flat cum" per function, sorted by name.
top_of() {
	awk '
	{
		match($0, / [^ ]*$/)
		s = substr($0, 1, RSTART - 1); v = substr($0, RSTART + 1)
		k = split(s, fr, ";")
		delete once
		for (i = 1; i <= k; i++)
			if (!(fr[i] in once)) { cum[fr[i]] += v; once[fr[i]] = 1 }
		flat[fr[k]] += v
	}
	END { for (f in cum) printf "%s\t%.0f\t%.0f\n", f, flat[f], cum[f] }' "$1" | LC_ALL=C sort
}

# rows_of TSV: the same from pprof-top --format=tsv.
rows_of() {
	grep -v "^#" "$1" | sed 1d | awk -F '\t' '{ printf "%s\t%s\t%s\n", $6, $1, $4 }' | LC_ALL=C sort
}

for f in "$A" "$FIX/profiles/workerd-min-b.cpuprofile" "$FIX/profiles/workerd-min.alloc.heapprofile" \
	"$FIX/profiles/workerd-plain.cpuprofile" "$FIX/pprof/workerd-min.alloc.heap.pb.gz"; do
	name=$(basename "$f")
	test_expect_success "$name: flat and cum as computed from its folded stacks" "
		pprof-fold '$f' >folded && top_of folded >expect &&
		pprof-top --format=tsv '$f' >tsv && rows_of tsv >actual &&
		test_cmp expect actual &&
		pprof-fold -g lines '$f' >folded && top_of folded >expect &&
		pprof-top -g lines --format=tsv '$f' >tsv && rows_of tsv >actual &&
		test_cmp expect actual
	"
done

test_expect_success 'folded input, recursion: once per stack' '
	printf "main;f;f;f 4\nmain;f;g 2\nmain 1\ng;f 3\n" >in &&
	pprof-top in >actual &&
	cat >expect <<-EOF &&
	Type: samples
	Showing nodes accounting for 10, 100% of 10 total
	      flat  flat%   sum%        cum   cum%
	         7 70.00% 70.00%          9 90.00%  f
	         2 20.00% 90.00%          5 50.00%  g
	         1 10.00%   100%          7 70.00%  main
	EOF
	test_cmp expect actual
'

test_expect_success 'goldens: the Worker capture, symbolicated; heap; -n, --cum' '
	pprof-top -m "$FIX/worker/worker.js.map" "$A" >actual &&
	test_cmp "$EXP/t0700/workerd-min.map.top" actual &&
	pprof-top -n 5 --cum "$A" >actual &&
	test_cmp "$EXP/t0700/workerd-min.n5cum.top" actual &&
	pprof-top "$FIX/profiles/workerd-min.alloc.heapprofile" >actual &&
	test_cmp "$EXP/t0700/workerd-min.alloc.top" actual
'

test_expect_success 'tsv and json goldens' '
	pprof-top -n 4 --format=tsv "$A" >actual &&
	test_cmp "$EXP/t0700/workerd-min.n4.tsv" actual &&
	pprof-top -n 4 --format=json -i samples "$A" >actual &&
	test_cmp "$EXP/t0700/workerd-min.n4.json" actual
'

test_expect_success '-n N keeps the first N rows of the whole table' '
	pprof-top "$A" >all &&
	pprof-top -n 6 "$A" >six &&
	sed -n "/^ *flat  flat%/,\$p" all | head -7 >expect &&
	sed -n "/^ *flat  flat%/,\$p" six >actual &&
	test_cmp expect actual &&
	grep -q "^Showing top 6 nodes out of " six &&
	pprof-top -n 0 "$A" >zero && test_cmp all zero &&
	pprof-top --nodecount=6 "$A" >actual && test_cmp six actual
'

test_expect_success 'several inputs are summed' '
	pprof-top --format=tsv "$A" >one &&
	pprof-top --format=tsv "$A" "$A" >two &&
	rows_of one | awk -F "\t" "{ printf \"%s\t%.0f\t%.0f\n\", \$1, 2 * \$2, 2 * \$3 }" >expect &&
	rows_of two >actual &&
	test_cmp expect actual
'

test_expect_success 'filters apply before the table (--focus)' '
	pprof-fold --focus=visitObject "$A" >folded && top_of folded >expect &&
	pprof-top --focus=visitObject --format=tsv "$A" >tsv && rows_of tsv >actual &&
	test_cmp expect actual
'

test_expect_success 'errors: usage exits 2, bad input 1' '
	pprof-top -n x "$A" >out 2>err; test $? = 2 && test ! -s out &&
	pprof-top --format=csv "$A" >out 2>err; test $? = 2 && test ! -s out &&
	test_fails 1 pprof-top nosuch &&
	echo "pprof-top: nosuch: No such file or directory" >expect && test_cmp expect err &&
	test_fails 1 pprof-top -i nosuchtype "$A" &&
	grep -q "^pprof-top: " err
'

test_done
