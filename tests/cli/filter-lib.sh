# filter-lib.sh: helpers of the filter and convert tests (t08NN, t09NN),
# sourced after lib.sh.

# traces_to_folded RAW TRACES [TYPE]: folded stacks from `go tool pprof`'s
# -raw and -traces outputs.  -raw lists the samples (values, then location
# ids) in the order -traces prints them, and -traces leaves out samples
# without a stack, so the Nth trace takes the value of the Nth raw sample
# with locations: exact integers, where -traces rounds.  The value is
# TYPE's column (a name, or a 0-based index), or the default ([dflt],
# else the last).
traces_to_folded() {
	awk -v type="${3-}" '
	FNR == NR {
		if ($0 == "Samples:") { insamples = 1; hdr = 1; next }
		if (!insamples) next
		if (hdr) {
			col = NF
			for (i = 1; i <= NF; i++)
				if ($i ~ /\[dflt\]$/) col = i
			if (type ~ /^[0-9]+$/)
				col = type + 1
			else if (type != "")
				for (i = 1; i <= NF; i++)
					if (index($i, type "/") == 1) col = i
			hdr = 0
			next
		}
		if ($0 ~ /^Locations/) { insamples = 0; next }
		if ($0 ~ /:\[/ || $0 !~ /:/) next
		split($0, half, ":")
		split(half[1], v, " ")
		if (split(half[2], ids, " ") > 0) val[++ns] = v[col]
		next
	}
	/^-----------\+/ { flush(); inblock = 1; next }
	!inblock { next }
	$1 ~ /:$/ && $0 !~ /^             / { next }
	{
		f = $0
		if (f ~ /^             /) sub(/^             /, "", f)
		else sub(/^ *[^ ]+   /, "", f)
		sub(/ \(inline\)$/, "", f)
		gsub(/;/, ":", f)
		fr[++nf] = f
	}
	function flush(   s, i) {
		if (nf == 0) return
		nb++
		s = fr[nf]
		for (i = nf - 1; i >= 1; i--) s = s ";" fr[i]
		sum[s] += val[nb]
		nf = 0
	}
	END {
		flush()
		if (nb != ns) {
			print "-traces has " nb " stacks, -raw " ns > "/dev/stderr"
			exit 1
		}
		for (s in sum)
			if (sum[s] != 0) printf "%s %.0f\n", s, sum[s]
	}' "$1" "$2" | sort
}

# go_folded FILE [GO-OPTIONS...]: what go tool pprof makes of FILE with
# the options, as folded stacks (on stdout); needs `go`.  With GO_INDEX
# set, of that sample type.
go_folded() {
	gf=$1
	shift
	if [ -n "${GO_INDEX:-}" ]; then
		set -- -sample_index="$GO_INDEX" "$@"
	fi
	go tool pprof -symbolize=none -raw "$@" "$gf" >go.raw 2>go.err &&
		go tool pprof -symbolize=none -traces "$@" "$gf" >go.traces 2>>go.err &&
		traces_to_folded go.raw go.traces "${GO_INDEX:-}"
}

have_go() {
	command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1
}
