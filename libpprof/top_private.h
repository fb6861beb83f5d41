/*
 * top_private.h: what the tables share (top.c, top_deferred.c,
 * top_diff.c, top_tree.c): the functions of a top table and the walks
 * that sum them, and the writers' helpers.  Private to libpprof.
 */
#ifndef PP_TOP_PRIVATE_H
#define PP_TOP_PRIVATE_H

#ifndef PPROF_INTERNAL
#error "top_private.h is private to libpprof"
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pprof_private.h"

static inline uint64_t mag(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static inline int name_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	int c = memcmp(a, b, la < lb ? la : lb);
	if (c)
		return c;
	return la < lb ? -1 : la > lb;
}

static inline double pct_of(int64_t v, int64_t total)
{
	return total ? (double)v / (double)total * 100 : 0;
}

/* A function of the table: the frames of one name at the granularity. */
struct fun {
	const char *name;
	uint32_t len;
	int64_t flat, cum;
	uint32_t onpath; /* how many nodes of the current walk's path are it */
	uint32_t kept;   /* row index + 1 when kept in the table, else 0 */
	uint8_t in_inline, in_noinline;
	uint8_t has_inlined; /* some frame of it is an inlined call */
};

/* The tree's children lists, and the walk's stack. */
struct walk {
	uint32_t *first; /* children of n: kids[first[n] .. first[n + 1]) */
	uint32_t *kids;
	uint32_t *stack, *cursor;
};

/* The edges caller -> callee between kept functions, for pprof's
 * "(inline)" labels and its -tree: an edge is inline when every call
 * along it was; its weight is of the samples through it, once each. */
struct edges {
	uint64_t *keys; /* from << 32 | to */
	int64_t *weight;
	uint32_t *onpath; /* occurrences on the walk's path */
	uint8_t *flags;   /* 1: present, 2: some call not inlined */
	size_t cap, n;
};
void pp_edges_release(struct edges *e);

static inline size_t edge_hash(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

/* What the walks read of a node, in one place so that a visit touches one
 * cache line. */
struct tnode {
	int64_t sub;  /* value of the node's subtree */
	uint32_t fun; /* function of its frame */
	uint8_t live; /* a sample with a non-zero value in the subtree */
	uint8_t inl;  /* the frame is an inlined call */
};

struct top_work {
	struct pprof_profile *p;
	uint32_t *ffun; /* frame -> function */
	struct fun *fn;
	uint32_t nfn;
	struct tnode *nd;
	struct walk w;
};

/* The functions of P = T->p at granularity G (the tree settled), with
 * their flat and cum of value SEL, and pprof's total in *TOTAL; release T
 * with pp_top_work_release() whatever it returns. */
int pp_top_sum(struct top_work *t, uint32_t sel, enum pprof_granularity g, int64_t *total);
void pp_top_work_release(struct top_work *t);

/* Totals of the deferred samples' pass. */
struct totals {
	uint64_t total, basetotal; /* magnitudes */
	int64_t flat_all;
};

/* How many shares the walk of the deferred samples D is split in (ASKED:
 * pprof_top_options.threads). */
unsigned pp_top_walk_shares(unsigned asked, const struct pp_deferred *d);
/* The walk of the deferred samples in NSHARES shares, summed into T's
 * functions (FIRST: flat, cum and *TOT) and labels (LABELS: in_inline,
 * in_noinline, from the edges between kept functions).  BASE: the string
 * id of the pprof::base label key, or 0. */
int pp_top_walk_deferred(struct top_work *t, uint32_t sel, bool first, bool labels,
			 uint32_t base, struct totals *tot, unsigned nshares);

/* measurement.Percentage: at least two significant digits, "100%" near it
 * (units.c). */
void pp_percentage(char *buf, size_t size, int64_t value, int64_t total);

/* Writers' helpers (top.c): a JSON string (invalid UTF-8 as U+FFFD), a TSV
 * field (tabs and line breaks as spaces), and the status of a written
 * stream (PPROF_EIO with errno set). */
void pp_json_str(FILE *out, const char *s);
void pp_tsv_str(FILE *out, const char *s);
int pp_write_status(FILE *out);

/* The header lines of pprof's text reports (report.reportLabels), with
 * the values in UNIT; and the unit pprof picks for T (selectOutputUnit)
 * or T's own, into UNIT (SIZE bytes). */
void pp_top_header(const struct pprof_top *t, const char *unit, FILE *out);
void pp_top_unit(const struct pprof_top *t, char *unit, size_t size);
/* The cells of row R of T's text table in UNIT, SUM the flat of the rows
 * up to it: flat, flat%, sum%, cum, cum% (pprof's -top and -tree rows). */
struct pp_top_cells {
	char flat[160], cum[160], flatp[32], sump[32], cump[32];
};
void pp_top_cells(const struct pprof_top *t, const struct pprof_top_row *r, int64_t sum,
		  const char *unit, struct pp_top_cells *c);

/* The calls of tree TAB (top_tree.c) from the edges E between kept
 * functions; ROWOF: a function's row + 1, 0 for none; PEEK as
 * pprof_top_options.peek.  Errors go on P. */
int pp_top_calls(struct pprof_profile *p, struct pprof_top *tab, const struct edges *e,
		 const uint32_t *rowof, const char *peek);
/* Writes tree T as pprof -tree. */
void pp_top_tree_text(const struct pprof_top *t, FILE *out);

#endif /* PP_TOP_PRIVATE_H */
