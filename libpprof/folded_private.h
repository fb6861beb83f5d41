/* folded_private.h: the lines of a folded input as read_folded.c reads
 * them, kept with the profile until something needs its call tree.
 *
 * The folded reader splits each line into its stack and counts, pointing
 * into the input (the file's mapping, or the inflated or decoded buffer the
 * door hands it; a copy only when the buffer is the caller's).  The first
 * folded input of a profile keeps its lines out of the tree: the writers
 * that only need folded lines (pprof_fold(), the flame graph) take them as
 * they are; anything else (a transform, the top table, pprof output)
 * settles them into the tree first through pp_settle(). */
#ifndef FOLDED_PRIVATE_H
#define FOLDED_PRIVATE_H

#include "model_private.h"
#include "read_private.h"

/* A line: KEY[0, KEYLEN) is the line as read (without CR and newline),
 * its stack KEY[0, STACKLEN).  Counts by the reader's mode: rounded to
 * integers (V), or as written (D, pprof_read_options.folded_flamegraph;
 * also named BEFORE and AFTER, as the flame graph takes them over);
 * a 2-column line's count is [1], [0] being 0 (NaN in D). */
struct pp_fline {
	const char *key;
	uint32_t keylen;
	uint32_t stacklen;
	union {
		int64_t v[2];
		double d[2];
		struct {
			double before, after;
		};
	};
};

struct pp_flines {
	struct pp_fline *l;
	size_t n, cap;
	int ncols;        /* 2 or 3 */
	bool flamegraph;  /* flamegraph.pl's grammar, counts as doubles */
	bool clean;       /* each stack is as the tree would fold it again: no
			   * empty frame (";;", a ';' at either end) and no CR */
	bool settled;     /* the lines are in the tree (they stay readable) */
	unsigned fdigits; /* flamegraph: most digits after a point */
	int64_t scale;    /* flamegraph, once settled: tree values are counts
			   * times SCALE (a power of ten) */
	size_t ignored;   /* flamegraph: lines that are not stacks */
	const char *base; /* the input the lines point into */
	struct pp_hold hold; /* that input, when kept */
};

/* Puts the pending lines of P (if any) into the tree; pp_settle() calls
 * it.  The lines stay, for whoever took them before. */
int pp_flines_settle(struct pprof_profile *p);
void pp_flines_free(struct pp_flines *f);
/* P's folded lines when P holds nothing else and no transform has touched
 * it (the lines of its one input, not settled), else NULL. */
const struct pp_flines *pp_flines_pending(const struct pprof_profile *p);
/* pprof_fold()'s shortcut: when P's lines are pending and integer, and the
 * granularity names their frames as they are (every one but "files"),
 * *OUT gets them sorted and merged, pointing into P's input (valid while P
 * is), and *DONE is set.  Otherwise (or on a sum that leaves int64: the
 * tree says where) *DONE is clear and nothing is changed. */
int pp_flines_fold(struct pprof_profile *p, const struct pprof_fold_options *o,
		   struct pprof_folded **out, bool *done);
/* Sorts folded lines bytewise on the stack (unless ORDER is 1: they are
 * already; -1: not known), sums equal stacks and drops zeros; *TOTAL gets
 * the sum.  False when a sum leaves int64. */
bool pp_folded_sort_merge(struct pprof_folded_line *l, size_t *n, int64_t *total, int order);
int pp_folded_line_cmp(const void *a, const void *b);
/* F's lines, rewritten into BUF (LEN bytes), take it as F's buffer (the
 * caller lets the old one go) and are sorted and merged again, F's total
 * with them: an error in ERR when a sum leaves int64. */
int pp_folded_adopt(struct pprof_profile *err, struct pprof_folded *f, char *buf, size_t len);

/* A line split as flamegraph.pl's /^(.*)\s+?(\d+(?:\.\d*)?)$/ splits it
 * (twice for a "stack BEFORE AFTER" line): S[0, STACKLEN) is the stack, the
 * counts are S[NUM1, NUM1 + NUM1LEN) (when DIFF) and S[NUM2, NUM2 + NUM2LEN).
 * False when the line has no count. */
struct pp_fg_parsed {
	size_t stacklen;
	size_t num1, num1len;
	size_t num2, num2len;
	bool diff;
};
bool pp_fg_parse_line(const char *s, size_t n, struct pp_fg_parsed *r);
/* A count that pp_fg_parse_line() found, as a double (NaN when out of
 * memory for a very long one). */
double pp_fg_strtod(const char *s, size_t n);

/* Profiles that fold to at least this many lines are written by
 * pprof_fold_write() on two threads (fold.c); the unit tests change it. */
extern size_t pp_fold_par_min;

#endif /* FOLDED_PRIVATE_H */
