/*
 * v8.h: what the .cpuprofile and .heapprofile readers share.  Private to
 * libpprof.
 *
 * V8 writes profile nodes either flat (an array of nodes, children listed
 * by id: .cpuprofile) or nested (a "head" node whose "children" are node
 * objects: .heapprofile and Node's old .cpuprofile).  Both are read into one
 * list of nodes; pp_v8_build() then links children to parents, checks that
 * the result is a forest, and creates the model's call tree, all without
 * recursion (a chain may be 100,000 nodes deep).
 */
#ifndef PP_V8_H
#define PP_V8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "pprof_private.h"

#define PP_V8_NONE UINT32_MAX

/* The current key or string of parser J is the literal LIT (json_is()
 * without its strlen(), for the keys read once per node or sample). */
#define KEY_IS(j, lit) \
	((j)->len == sizeof(lit) - 1 && memcmp((j)->str, lit, sizeof(lit) - 1) == 0)

struct pp_v8_node {
	int64_t id;        /* valid when has_id */
	uint64_t offset;   /* byte offset of the node's '{' */
	int64_t line;      /* lineNumber, 0-based; -1 when none */
	int64_t column;    /* columnNumber, 0-based; -1 when none */
	int64_t hitcount;  /* hitCount, 0 when absent */
	int64_t selfsize;  /* selfSize, 0 when absent */
	int64_t parent_id; /* "parent": the parent's id (traces), valid when has_parent */
	uint32_t name;     /* string id of functionName ("" when absent) */
	uint32_t url;      /* string id of url ("" when absent) */
	uint32_t parent;   /* index of the parent node, or PP_V8_NONE */
	uint32_t model;    /* the model's node, set by pp_v8_build() */
	bool has_id;
	bool has_parent;
};

/* A "positionTicks" entry {line, ticks} of node NODE (an index): LINE is
 * 1-based, TICKS >= 0 (lines.h says what they become). */
struct pp_v8_tick {
	uint32_t node;
	int64_t line, ticks;
};

/* A child named by id: "children": [ID, ...] of node PARENT. */
struct pp_v8_kid {
	int64_t id;
	uint64_t offset;
	uint32_t parent;
};

struct pp_v8 {
	struct pprof_profile *p;
	struct json *j;
	struct pp_v8_node *nodes;
	uint32_t n, cap;
	struct pp_v8_kid *kids;
	size_t nkids, capkids;
	struct pp_v8_tick *ticks; /* in file order */
	size_t nticks, capticks;
	/* id -> index + 1, open addressing */
	int64_t *hkeys;
	uint32_t *hvals;
	uint32_t hcap;
	uint64_t hseed; /* ids are hashed with it (see v8.c) */
	/* ids from 0 to a small multiple of the count (V8 numbers its nodes
	 * 1, 2, 3...): id -> index + 1 in a table instead of the hash */
	uint32_t *direct;
	uint32_t ndirect;
	int64_t last_id; /* the last look-up, as samples repeat their node */
	uint32_t last_idx;
	/* first sizes of nodes, kids and ticks when the input's size tells
	 * them (0: from 1, 256, 256) */
	size_t hint_nodes, hint_kids, hint_ticks;
	/* frames and nodes pp_v8_build() reserves in the model beyond one
	 * per node (a reader's lines) */
	uint32_t reserve_more;
	/* positionTicks checked and summed per node, not kept (no lines
	 * asked for): TICKSUM[i] is node i's sum, -1 once it leaves int64 */
	bool sum_ticks;
	int64_t *ticksum;
};

/* .cpuprofile inputs of at least this many bytes have their samples and
 * deltas read ahead on a second thread (read_cpuprofile.c); the unit tests
 * and the fuzzer put every input through it (0). */
extern size_t pp_ahead_min;

void pp_v8_init(struct pp_v8 *v, struct pprof_profile *p, struct json *j);
/* Sizes the arrays of nodes, kids and ticks for an input of LEN bytes of
 * V8's flat layout before they fill (an estimate: they still grow past
 * it), with huge pages asked for: on a big input, growing them step by
 * step from nothing costs copies and a page fault every 4 KiB. */
void pp_v8_size_hint(struct pp_v8 *v, size_t len);
void pp_v8_release(struct pp_v8 *v);

/* Reads one node object and everything nested in it; the OBJECT_BEGIN of
 * the node was the last token read.  The node has no parent. */
int pp_v8_read_node(struct pp_v8 *v);

/* The next element of the current array (a flat "nodes" array) when it is
 * a node as V8 writes it: without white space, "id", then "callFrame" with
 * "functionName", "scriptId", "url", "lineNumber" and "columnNumber" in
 * this order, strings without escapes or bytes >= 0x80, then any of
 * "hitCount", "children" (ids) and "positionTicks" (compact {"line",
 * "ticks"} entries, lines >= 1), numbers plain integers.  Such a node is
 * read whole, as json_next() and pp_v8_read_node() would read it, and *DONE
 * is true; otherwise nothing is read (*DONE false) and the caller reads the
 * element as always, errors included. */
int pp_v8_fast_node(struct pp_v8 *v, bool *done);

/* The positionTicks of every node read again from the text (BUF, LEN
 * bytes, the nodes' offsets from its start; MAX_DEPTH as the first read
 * had it), when V->sum_ticks left them out and they are wanted after all:
 * V->ticks as they would have been kept, in the text's order.  Linear in
 * the text, however deep the nodes nest. */
int pp_v8_reread_ticks(struct pp_v8 *v, const unsigned char *buf, size_t len, uint32_t max_depth);

/* Links children to their parents (listed by id in a parent's "children",
 * or named by a child's "parent" as in Chrome traces), checks for missing
 * children and parents, second parents and cycles, and creates the model's nodes: a parentless node
 * named "(root)" is the model's root, any other node a frame under its
 * parent's model node.  The list of children is freed once linked, before
 * the model grows: its pages are the model's (not fresh ones). */
int pp_v8_build(struct pp_v8 *v);

/* The index of the node with ID (after pp_v8_build()), or PP_V8_NONE. */
uint32_t pp_v8_find(struct pp_v8 *v, int64_t id);

/* Sets the parser's error on P. */
int pp_v8_json_error(struct pprof_profile *p, const struct json *j);

/* Reads the current number as an int64; an error naming WHAT otherwise. */
int pp_v8_int(struct pprof_profile *p, struct json *j, const char *what,
	      int64_t *out);

/* Appends the integers of the array that starts at the current token
 * (which must be ARRAY_BEGIN; T is that token) to *A (malloc'd, *N used,
 * *CAP allocated). */
int pp_v8_int_array(struct pprof_profile *p, struct json *j, int t,
		    const char *what, int64_t **a, size_t *n, size_t *cap);

/* The byte offset of element INDEX of the array under top-level key KEY, or
 * 0 when it can't be found: for messages, after the fact. */
uint64_t pp_v8_element_offset(const unsigned char *buf, size_t len,
			      uint32_t max_depth, const char *key, size_t index);
/* The same, read by J from its start (a parser just initialized, whole or
 * chunked); J is left wherever the look-up stopped. */
uint64_t pp_v8_json_element_offset(struct json *j, const char *key, size_t index);

/* What the input looks like: a JSON object, and which keys appear in its
 * first and last 64 KiB. */
enum {
	PP_V8_OBJECT = 1u << 0, /* starts with '{' (after a BOM and whitespace) */
	PP_V8_CPU = 1u << 1,    /* "timeDeltas", "hitCount", "timestamps", "nodes",
				   "startTime", "endTime", or "functionName"
				   without "callFrame" (Node's old format) */
	PP_V8_HEAP = 1u << 2,   /* "selfSize" */
	PP_V8_ANY = 1u << 3,    /* "head", "samples", "callFrame" or "functionName" */
};
unsigned pp_v8_sniff(const unsigned char *buf, size_t len);

#endif /* PP_V8_H */
