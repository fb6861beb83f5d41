/*
 * names_private.h: what funcname.c (the names of functions) and srcfile.c
 * (the texts of a map's sources) share: the texts a map keeps for naming,
 * tokenized once, and where its sources' files were found.
 */
#ifndef SMAP_NAMES_PRIVATE_H
#define SMAP_NAMES_PRIVATE_H

#include <stdlib.h>

#include "jstoken.h"
#include "smap_private.h"

/* A token's line and column (0-based, UTF-16) are where a walk over the
 * text from its start is when it reaches the token's first byte.  The walk's
 * state is kept at every CK-th token only, and a token's position is walked
 * to from there: 2 bytes per token instead of 8, most of which no look-up
 * asks for. */
#define CK 8

struct text {
	bool tried, ok;
	/* a text with markup (JSX elements, a component's template): its
	 * compiler may make functions of what is no function there */
	bool markup;
	const char *s;
	size_t len;
	struct pp_js_toks toks;
	struct pp_js_funcs funcs;
	struct pp_js_walk *ck; /* at tokens 0, CK, 2 CK, ... */
	size_t cur_i;          /* the last token walked to, and the state there */
	struct pp_js_walk cur;
};

struct pp_smap_names {
	char *script;
	size_t slen;
	bool smapped; /* script is a mapping of its file (slen bytes) */
	struct text gen;
	struct text *src; /* per source, by global index */
	size_t nsrc;
	/* each source's first index of the same resolved name (an index
	 * map's sections each list the files they use: one file, one text) */
	uint32_t *canon;
	bool canon_tried;
	/* the binding of esbuild's keepNames helper in the script (NIL:
	 * none), once looked for */
	uint32_t keep_names;
	bool keep_names_tried;
	char *srcdir;            /* smap_map_set_source_dir() */
	char *location;          /* smap_map_set_location() */
	char **files;            /* per source: its file's text read from srcdir */
	struct located *located; /* per source: a file found from location */
	/* the arrays of the texts smap_map_prepare_functions() had tokenized
	 * on its second thread */
	struct pp_js_heap heap2;
	/* the generated script's arrays: smap_map_prepare_script() fills
	 * them on one thread while another prepares the sources */
	struct pp_js_heap heapg;
	/* smap_function_at()'s answers by position: a profile asks of each
	 * of its functions twice (whether the map fits, then the name) */
	struct memo *memo;
	size_t nmemo, memocap; /* memocap: 0 or a power of two */
};

/* A source's file found from the map's location (smap_map_source_file()) */
struct located {
	char *path; /* NULL when none was found */
	bool stale; /* found, but not the text the map was made from */
	unsigned bad, named;
};

static inline struct pp_smap_names *pp_smap_names_of(struct smap_map *m)
{
	if (!m->names)
		m->names = calloc(1, sizeof(*m->names));
	return m->names;
}

/* The canonical index of source I (srcfile.c). */
size_t pp_smap_canon(struct smap_map *m, size_t i);
/* Source I's text from a file: under the source directory first, else
 * found from the map's location when it fits (srcfile.c); NULL when none. */
const char *pp_smap_source_file(struct smap_map *m, struct pp_smap_names *n, size_t i, size_t *len);

#endif /* SMAP_NAMES_PRIVATE_H */
