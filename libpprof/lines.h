/*
 * lines.h: line-level costs.  Private to libpprof.
 *
 * A V8 frame's position is where its function starts.  Where the input says
 * on which line inside the function a sample fell, the sample's LEAF frame
 * carries that line: a frame equal to the function's frame but for its
 * at_line (pprof_private.h), so that
 *   - at "functions" (and "filefunctions", "files") granularity it prints
 *     exactly as the function's frame does and its stacks merge with the
 *     others of that function: those outputs do not change;
 *   - at "lines" (and "addresses") it prints FILE:AT_LINE, and pprof output
 *     writes AT_LINE as the Line's line (without a column) of a Location
 *     whose Function is the function's own (start_line = the function's);
 *   - callers keep the line where their function starts;
 *   - symbolication maps the function's position as always and AT_LINE on
 *     its own (symbolicate.c), since a line without a column means something
 *     only where the generated line maps to one original line.
 *
 * Two sources feed it:
 *   - .cpuprofile positionTicks, [{line, ticks}] per node (1-based lines of
 *     the script): the node's aggregated values are split over its lines in
 *     proportion to the ticks (pp_add_sample_lines());
 *   - a trace's per-sample lines (issue 19): one exact line per sample, no
 *     split: the reader adds each sample to pp_node_at_line(node, line).
 *
 * The time-ordered sample sequence (p->seq, flame charts) is not split:
 * positionTicks are totals per node, not per sample, so a .cpuprofile's
 * samples stay on the node whose leaf is the function's frame and a flame
 * chart shows the function's line at "lines" granularity.  A reader that
 * knows each sample's line (a trace) pushes the at-line node instead.
 */
#ifndef PP_LINES_H
#define PP_LINES_H

#include "pprof_private.h"

/* The node for the samples of NODE that fell on line LINE (1-based) inside
 * its frame's function: the child of NODE's parent whose frame is NODE's
 * frame with at_line = LINE, created when missing.  *OUT = NODE when LINE
 * is 0 or NODE is the root. */
int pp_node_at_line(struct pprof_profile *p, uint32_t node, int64_t line, uint32_t *out);

/* How many ticks of a node fell on LINE (1-based). */
struct pp_line_ticks {
	int64_t line;
	int64_t ticks;
};

/* Adds VALUES (the current input's types, as pp_add_sample()) of NODE's
 * samples split over the lines of T[0 .. n): each value v gives line i
 * floor(v * ticks_i / total) and the rest, one each, to the lines with the
 * largest remainders (ties: the smaller line), so the parts add up to v
 * exactly.  Entries of one line are summed first, entries with no ticks
 * count nowhere; with no ticks at all (n == 0 or all zero) the values go to
 * NODE itself.  T is sorted in place.  Lines must be >= 1 and ticks >= 0;
 * PPROF_EINPUT when the total leaves int64 (OFFSET is for the message). */
int pp_add_sample_lines(struct pprof_profile *p, uint32_t node, const int64_t *values,
			struct pp_line_ticks *t, size_t n, uint64_t offset);

#endif /* PP_LINES_H */
