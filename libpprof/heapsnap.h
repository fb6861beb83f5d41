/*
 * heapsnap.h: a V8 heap snapshot (.heapsnapshot) as compact integer arrays,
 * and the graph computations DevTools makes on it (HeapSnapshot.ts of
 * devtools-frontend; doc/heapsnapshot.md says what is followed where).
 * Private to libpprof.
 *
 * Nodes and edges keep their ordinals (node k is the k-th node of the file,
 * edge e the e-th edge; node ids are kept as V8 wrote them), so that a later
 * pass (the leak set between snapshots, retainer paths) can work on the same
 * arrays: ESSENTIAL marks the edges that count for dominators.
 */
#ifndef PP_HEAPSNAP_H
#define PP_HEAPSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pprof_private.h"

#define PP_HS_NONE UINT32_MAX

struct pp_hs {
	uint32_t n;         /* nodes */
	uint32_t e;         /* edges */
	uint32_t root;      /* the root's ordinal */
	/* per node */
	uint8_t *type;      /* index into the node types */
	uint32_t *name;     /* string index (after "Detached " names: see dname) */
	uint32_t *id;
	uint32_t *self;     /* self size (after DevTools' reassignment) */
	uint8_t *detached;  /* the detachedness field, propagated (0 unknown, 1, 2) */
	uint32_t *first;    /* n + 1: node k's edges are first[k] .. first[k + 1] */
	/* per edge */
	uint8_t *etype;
	uint32_t *ename;    /* string index, or the index of element/hidden edges */
	uint32_t *to;       /* the target's ordinal */
	uint64_t *essential; /* bit per edge: counts for dominators */
	/* the types V8 declares (PP_HS_NONE: not declared) */
	uint32_t t_hidden, t_array, t_string, t_object, t_code, t_closure, t_regexp,
		t_number, t_native, t_synthetic;
	uint32_t et_element, et_hidden, et_internal, et_shortcut, et_weak, et_property,
		et_context;
	char **node_types;  /* names of the node types */
	uint32_t nnode_types;
	char **edge_types;
	uint32_t nedge_types;
	/* strings: string i is blob[soff[i] .. soff[i + 1]) */
	char *blob;
	uint64_t *soff;
	uint32_t nstrings;
	bool user_roots;    /* the root has an edge to a user root */
	/* "locations" (closures', and objects' constructors'): nloc entries of
	 * node ordinal, script id, the Script's node ordinal (PP_HS_NONE: not
	 * written), line, column (0-based, as V8 writes them) */
	uint32_t *loc;
	uint32_t nloc;
	/* results */
	uint32_t *dom;      /* immediate dominator's ordinal (the root's is itself) */
	uint32_t *order;    /* the nodes in preorder of the dominator tree */
	int64_t *retained;
};

void pp_hs_release(struct pp_hs *h);

/* The string S of H, and its length. */
static inline const char *pp_hs_str(const struct pp_hs *h, uint32_t s, size_t *len)
{
	*len = (size_t)(h->soff[s + 1] - h->soff[s]);
	return h->blob + h->soff[s];
}

/* DevTools' passes, in its order: the DOM state, page-owned flags and the
 * edges that count; the shallow sizes moved to their single owner (when the
 * snapshot has user roots); dominators (Lengauer-Tarjan, iterative) and
 * retained sizes.  Returns PPROF_OK, or an error set on P. */
int pp_hs_dominators(struct pprof_profile *p, struct pp_hs *h);

/* The class name DevTools' Summary shows for every node, as string ids of
 * P (interned): CLS[n]. */
int pp_hs_class_names(struct pprof_profile *p, const struct pp_hs *h, uint32_t *cls);

/* The source positions of the class names CLS, for source maps: (*POS)[c]
 * for a string id c of P below *NPOS is the frame's file (the script's URL,
 * a string id of P), 1-based line and column when the objects of class c
 * have one constructor location, one where a closure of the object's own
 * name starts (not a generator's function); file 0: none.  The URL is the
 * Script's "name" (script_object_index, else the closure's shared ->
 * script or script_or_debug_info edges; V8's ExtractScriptReferences). */
struct pp_hs_pos {
	uint32_t file;
	int64_t line, column;
};
int pp_hs_class_positions(struct pprof_profile *p, const struct pp_hs *h, const uint32_t *cls,
			  struct pp_hs_pos **pos, uint32_t *npos);

/* The snapshot in BUF parsed into H (no dominators yet): the reader's
 * parsing and checks.  H is released by the caller, on failure too. */
int pp_hs_parse(struct pprof_profile *p, const unsigned char *buf, size_t len,
		const struct pprof_read_options *o, struct pp_hs *h);

/* The input's sample types, objects (count) and space (bytes, the
 * default), begun in P: what every profile of a snapshot has. */
int pp_hs_begin_types(struct pprof_profile *p);

/* The same for the nodes and strings alone: edges are skipped (H->e is
 * 0, H->first NULL), nor checked beyond JSON; for the ids of a baseline. */
int pp_hs_parse_ids(struct pprof_profile *p, const unsigned char *buf, size_t len,
		    const struct pprof_read_options *o, struct pp_hs *h);

/* The same from a stream of the door (read_private.h), IDS_ONLY as
 * pp_hs_parse_ids(). */
struct pp_stream;
int pp_hs_parse_stream(struct pprof_profile *p, struct pp_stream *st,
		       const struct pprof_read_options *o, struct pp_hs *h, bool ids_only);

/* heapsnap_leaks.c: the leak set between snapshots and retainer paths. */
struct pp_hs_ids {
	/* sorted by id: id << 32 | a hash of the node's type and name (how
	 * one object looks in two snapshots); NULL: not given */
	uint64_t *since, *until;
	size_t nsince, nuntil;
	uint32_t since_max, until_max;
};
/* Loads the ids of O's heap_since / heap_until snapshots. */
int pp_hs_load_ids(struct pprof_profile *p, const struct pprof_read_options *o,
		   struct pp_hs_ids *ids);
void pp_hs_ids_release(struct pp_hs_ids *ids);
/* The profile of H (dominators done) restricted to the leak set IDS, along
 * dominator chains or, with O's heap_retainers, retainer paths. */
int pp_hs_leaks_profile(struct pprof_profile *p, struct pp_hs *h, const struct pp_hs_ids *ids,
			size_t inlen, const struct pprof_read_options *o);

#endif /* PP_HEAPSNAP_H */
