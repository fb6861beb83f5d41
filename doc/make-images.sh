#!/bin/sh
# doc/make-images.sh [OUTDIR]: draws the README's pictures, from the top of
# the source tree, with the pprof-* programs found in PATH.  `make
# readme-images` runs it with the built programs and OUTDIR doc; the test
# t1000-docs-examples.sh runs it into a scratch directory and compares.
# The commands are the README's, word for word.
set -eu
out=${1:-doc}

# The Worker's CPU profile (minified bundle), symbolicated with its source map.
pprof-fold -m fixtures/worker fixtures/profiles/workerd-min.cpuprofile |
	pprof-flame --title "Worker CPU (workerd-min.cpuprofile, source-mapped)" \
		--count-unit ns >"$out/worker-flame.svg"

# What changed from capture A to capture B, B's widths, coloured by the change.
pprof-diff -n -m fixtures/worker fixtures/profiles/workerd-min.cpuprofile \
	fixtures/profiles/workerd-min-b.cpuprofile |
	pprof-flame --title "Worker CPU, capture A to B (red: grew, blue: shrank)" \
		--count-unit ns >"$out/worker-diff.svg"
