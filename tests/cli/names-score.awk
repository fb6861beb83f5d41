# names-score.awk EXPECTED ACTUAL: the share of EXPECTED's frame weight that
# ACTUAL carries on the same frames ("NAME FILE:LINE"): a frame counts once
# per sample whose stack holds it; per frame, the smaller of the two weights
# is right (so a frame given another's name loses its weight).  Prints
# "RIGHT TOTAL PERCENT"; with VERBOSE=1 also the frames that differ.
function add(w, stack, n,    k, parts, i, seen) {
	k = split(stack, parts, ";")
	delete seen
	for (i = 1; i <= k; i++)
		if (!(parts[i] in seen)) {
			seen[parts[i]] = 1
			w[parts[i]] += n
		}
}
{
	n = $NF
	stack = substr($0, 1, length($0) - length(n) - 1)
	if (FILENAME == ARGV[1])
		add(E, stack, n)
	else
		add(A, stack, n)
}
END {
	for (f in E) {
		total += E[f]
		a = (f in A) ? A[f] : 0
		right += a < E[f] ? a : E[f]
		if (VERBOSE && a < E[f])
			printf("missing %d of %d: %s\n", E[f] - a, E[f], f) > "/dev/stderr"
	}
	if (VERBOSE)
		for (f in A)
			if (!(f in E) && f ~ /\.ts:/)
				printf("unexpected %d: %s\n", A[f], f) > "/dev/stderr"
	printf("%d %d %.1f\n", right, total, total ? 100 * right / total : 0)
}
