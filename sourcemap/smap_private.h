/*
 * smap_private.h: the inside of a struct smap_map, shared by the files of
 * libsourcemap (and its unit tests).  Not installed.
 */
#ifndef SMAP_PRIVATE_H
#define SMAP_PRIVATE_H

#if !defined(PPROF_INTERNAL)
#error "smap_private.h is private to libsourcemap"
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jstoken.h"
#include "sourcemap.h"

#define PP_SMAP_NIL UINT32_MAX

/* A bump allocator: everything the map hands out lives here. */
struct pp_smap_chunk;
struct pp_smap_arena {
	struct pp_smap_chunk *head;
	size_t used, cap; /* in head */
};
void *pp_smap_alloc(struct pp_smap_arena *a, size_t n);
/* A NUL-terminated copy, not aligned (strings only). */
char *pp_smap_strndup(struct pp_smap_arena *a, const char *s, size_t n);
/* Gives back what was allocated since the mark, when it is all in the
 * chunk the mark was taken in (else nothing: it stays until the end). */
struct pp_smap_mark {
	struct pp_smap_chunk *head;
	size_t used;
};
struct pp_smap_mark pp_smap_arena_mark(const struct pp_smap_arena *a);
void pp_smap_arena_rewind(struct pp_smap_arena *a, struct pp_smap_mark k);
void pp_smap_arena_release(struct pp_smap_arena *a);

/* One decoded segment of a generated line.  SRC is PP_SMAP_NIL for a
 * segment that maps to nothing (one field, or an invalid original). */
struct pp_smap_seg {
	uint32_t gcol;
	uint32_t src; /* section-local source index */
	uint32_t oline, ocol;
	uint32_t name; /* section-local names index, or PP_SMAP_NIL */
};

/* The relative VLQ fields carried across lines. */
struct pp_smap_state {
	int64_t src, oline, ocol, name;
};

/* One generated line with segments: lines left empty (";;;") get no
 * record, so that a map of 50 MB of ";" costs no memory per line.  Kept in
 * one record so that a look-up on a line not seen before misses the cache
 * once, not once per array. */
struct pp_smap_line {
	uint32_t lno;    /* its generated line, section-relative */
	uint32_t start;  /* offset of its first character in mappings */
	uint32_t end;    /* offset of the ';' or NUL that ends it */
	uint32_t first;  /* into segs; PP_SMAP_NIL while not decoded */
	uint32_t count;
	uint32_t coarse; /* into coarse, or PP_SMAP_NIL for a short line */
	uint32_t ck;     /* into ck: its blocks, or PP_SMAP_NIL */
	uint32_t nseg;   /* its segments, when it has blocks */
	struct pp_smap_state st; /* the state at its start, once passed */
};

/* A long line whose columns only grow, passed without a problem, is cut
 * into blocks of PP_SMAP_BLOCK segments when it is passed (state only): a
 * look-up decodes the one block it lands in, not the whole line (a
 * bundle's line has 100,000 segments, and a profile asks of a few of
 * them).  The VLQ fields are relative across the string, so a block keeps
 * the state before it. */
#define PP_SMAP_BLOCK 64
/* Lines of fewer segments (or fewer than twice as many bytes) are decoded
 * whole; the tests lower it, so that short lines get blocks too. */
extern uint32_t pp_smap_block_min;
struct pp_smap_block {
	uint32_t at;             /* offset of its first segment in mappings */
	uint32_t gcol;           /* the column of its first segment */
	uint32_t prev;           /* the column before it (0 for the first block) */
	uint32_t segs;           /* into segs once decoded, else PP_SMAP_NIL */
	struct pp_smap_state st; /* the state before it */
};

/* A long line (a one-line bundle has millions of segments) also gets the
 * column of every PP_SMAP_STRIDE-th segment in an array of its own, small
 * enough to stay in cache, so that a look-up's binary search misses the
 * cache a few times instead of twenty. */
#define PP_SMAP_STRIDE 32

struct pp_smap_source {
	const char *raw;      /* as in "sources"; NULL for null */
	const char *resolved; /* NULL for null */
	/* its "sourcesContent" entry as the JSON has it (in the input the map
	 * keeps, or a copy), NULL when none; decoded when first needed */
	const char *craw;
	size_t craw_len;
	bool cesc;           /* craw has escapes */
	const char *content; /* decoded, a NUL after it; NULL until then */
	size_t content_len;
	const char *root; /* the map's sourceRoot, NULL when none */
	bool ignored;
};

/* Decoded "scopes" (scopes.c). */
struct pp_smap_scope {
	uint32_t sl, sc, el, ec; /* start (inclusive), end (exclusive) */
	const char *name, *kind; /* NULL when absent */
	bool frame;              /* [[IsStackFrame]] */
	uint32_t parent;         /* PP_SMAP_NIL for a root */
	uint32_t first_child, next_sibling;
	uint32_t source;         /* section-local source index */
	const char **vars;
	uint32_t nvars;
};
struct pp_smap_range {
	uint32_t sl, sc, el, ec;
	uint32_t def;   /* flat original scope index, or PP_SMAP_NIL */
	uint8_t frame;  /* 0 none, 1 original, 2 hidden */
	bool callsite;
	uint32_t cs_src, cs_line, cs_col;
	uint32_t parent, first_child, next_sibling;
};
struct pp_smap_scopes {
	struct pp_smap_scope *scopes; /* flat, in prefix order */
	uint32_t nscopes;
	uint32_t *root; /* per section-local source: root scope or NIL */
	uint32_t nroot;
	struct pp_smap_range *ranges; /* flat, in prefix order */
	uint32_t nranges;
	uint32_t first_top_range;
};

/* A section's "scopes" field (rare: kept out of the section). */
struct pp_smap_sx {
	const char *text; /* in the arena */
	size_t len, at;   /* at: byte offset of its first character */
	struct pp_smap_scopes *dec; /* decoded on first need */
	bool tried;
};

/* The decoding state of a section's mappings (mappings.c), made by
 * pp_smap_index_lines() on the first look-up in the section, so that a
 * section nothing asks about costs only its struct pp_smap_section (an
 * index map may have a million). */
struct pp_smap_lines {
	uint32_t nlines;  /* generated lines, empty ones included */
	uint32_t nrec;    /* lines with segments: the records of line[] */
	uint32_t npassed; /* records decoded once; line[0..npassed].st known */
	struct pp_smap_line *line;     /* nrec, by line */
	struct pp_smap_seg *segs;
	size_t nsegs, segcap;
	uint32_t *coarse;
	size_t ncoarse, coarsecap;
	struct pp_smap_block *ck; /* the blocks of long lines, line by line */
	size_t nck, ckcap;
};

/* A regular map, or one section of an index map: kept small, since an
 * index map may have a million.  Its strings live in the map's arena. */
struct pp_smap_section {
	uint32_t off_line, off_col;
	uint32_t label; /* its index in "sections", for messages */

	uint32_t mlen;           /* of mappings */
	const char *mappings;    /* NUL-terminated (or '"' with minplace), or NULL */
	size_t mat;  /* byte offset of its first character in the input */

	uint32_t src_base; /* first of its sources in map->src */
	uint32_t nsrc;
	const char **names;
	uint32_t nnames;

	bool mexact; /* the string had no escapes: offsets are exact */
	bool minplace; /* mappings is in the input the map keeps, ended by '"' */
	bool has_last;

	struct pp_smap_sx *sx;    /* its "scopes", or NULL */
	struct pp_smap_lines *lz; /* NULL until first needed */

	/* set by the strict check: the greatest generated position */
	uint32_t last_line, last_col;
};

struct smap_map {
	bool parsed;
	bool index;
	unsigned flags;
	const char *file;

	struct pp_smap_section *sec;
	size_t nsec;
	struct pp_smap_source *src;
	size_t nsrc;

	struct pp_smap_arena arena;

	char err[512];
	char *warn_first; /* malloc'd */
	size_t nwarn;
	char *warn_text;  /* malloc'd, rebuilt by smap_map_warning() */

	struct pp_smap_names *names; /* funcname.c: texts tokenized for names */
	/* their arrays, and the sourcesContent decoded (pp_smap_content()) */
	struct pp_js_heap heap;

	/* While smap_map_load_file() parses a file it mapped: the mapping,
	 * and how much of its start was handed back (pp_smap_input_done()).
	 * IN_KEEP: the map points into it (sourcesContent): kept as KEEP_BASE
	 * until the map is freed. */
	const char *in_base;
	size_t in_len, in_dropped;
	bool in_keep;
	void *keep_base;
	size_t keep_len;
};

/* Source I's sourcesContent, decoded on first need (NUL-terminated when NUL;
 * else maybe not), with its length in *LEN; NULL when it has none, or when
 * out of memory. */
const char *pp_smap_content(const struct smap_map *m, size_t i, size_t *len, bool nul);
/* The same, decoded into H: on a thread of its own, where no other thread
 * asks for source I (or any text of M's heap) meanwhile. */
const char *pp_smap_content_in(const struct smap_map *m, size_t i, size_t *len, bool nul,
			       struct pp_js_heap *h);

/* smap_map_prepare_functions() decodes and tokenizes sources on a second
 * thread when they are at least this many bytes in all (tests set 0). */
extern size_t pp_smap_jobs_min;

/* Sets the map's error message; returns CODE. */
int pp_smap_fail(struct smap_map *m, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Notes a skipped part (lenient mode). */
void pp_smap_warn(struct smap_map *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pp_smap_vwarn(struct smap_map *m, const char *fmt, va_list ap);

/* The parser is past byte UPTO of the input (counted as smap_map_parse()
 * counts them): when the input is a file smap_map_load_file() mapped, the
 * pages before it are handed back, so that an index map of a million
 * sections does not hold its whole text besides what it keeps of it.  The
 * bytes stay readable (they are read again from the file if touched). */
void pp_smap_input_done(struct smap_map *m, size_t upto);

/* parse.c: fills an empty map from JSON text. */
int pp_smap_parse_json(struct smap_map *m, const char *buf, size_t len,
		       size_t base, unsigned flags);

/* resolve.c: the length of a URL scheme with its ':' at the start of S,
 * or 0 (one letter is a Windows drive, not a scheme). */
size_t pp_smap_scheme_len(const char *s);
/* resolve.c: the resolved name of SOURCE under ROOT (either may be NULL). */
char *pp_smap_resolve(struct pp_smap_arena *a, const char *root,
		      const char *source);

/* funcname.c: the column (UTF-16) of the first token that starts on
 * generated LINE of the script at hand (tokenizing it first), 0 when none
 * is at hand or no token starts there. */
uint32_t pp_smap_line_code(struct smap_map *m, uint32_t line);

/* mappings.c */
int pp_smap_index_lines(struct smap_map *m, struct pp_smap_section *s);
/* Drops what the look-ups decoded in S (made again when needed). */
void pp_smap_lines_release(struct pp_smap_section *s);
/* The segments of line L of S (0-based, section-relative), sorted by
 * column, decoding it first if needed; NULL with *N = 0 for a line without
 * any (and NULL with *RC set on an error). */
const struct pp_smap_seg *pp_smap_line_segs(struct smap_map *m,
					    struct pp_smap_section *s, uint32_t l,
					    uint32_t *n, int *rc);
/* Passes S's lines (state only) up to the first that has a problem, so
 * that a look-up need not: what it does is unseen but for the time it
 * takes (nothing is told).  SMAP_OK, or SMAP_ENOMEM. */
int pp_smap_pass_clean(struct smap_map *m, struct pp_smap_section *s);
/* Strict check of every segment of S; fails with the first error. */
int pp_smap_check_mappings(struct smap_map *m, struct pp_smap_section *s);
/* The segment at section-relative L:C as the look-up rule finds it, or
 * NULL.  BELOW: the last segment before column C (C itself excluded). */
const struct pp_smap_seg *pp_smap_find_seg(struct smap_map *m,
					   struct pp_smap_section *s,
					   uint32_t l, uint32_t c, bool below,
					   int *rc);

/* funcname.c */
struct pp_smap_names;
void pp_smap_names_free(struct pp_smap_names *n);

/* scopes.c */
int pp_smap_decode_scopes(struct smap_map *m, struct pp_smap_section *s);

#endif /* SMAP_PRIVATE_H */
