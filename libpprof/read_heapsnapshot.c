/*
 * read_heapsnapshot.c: V8 heap snapshots (.heapsnapshot, as DevTools' Memory
 * panel, Node's v8.writeHeapSnapshot() and HeapProfiler.takeHeapSnapshot
 * write them).
 *
 * {"snapshot": {"meta": {...}, "node_count": N, "edge_count": E, ...},
 *  "nodes": [...], "edges": [...], ..., "strings": [...]}
 *
 * snapshot.meta says what the flat integer arrays hold: node_fields names
 * the fields of one node (node_types[i] the enum of field i, where it is
 * one), edge_fields and edge_types the same for edges.  Nothing here assumes
 * an order of the fields.  An edge's to_node is an index into "nodes" (the
 * node's ordinal times the number of node fields).  Nodes list their edges
 * in order: node k's edges follow node k-1's, edge_count of them.
 *
 * The snapshot header comes first, as every producer writes it and
 * DevTools' loader requires; the arrays are read into one array per field
 * that is used.  The profile: see doc/heapsnapshot.md and pprof_read.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heapsnap.h"
#include "v8.h"

struct hsread {
	struct pprof_profile *p;
	struct json j;
	const unsigned char *buf; /* the whole input, or NULL: STREAM */
	size_t len;               /* its length (a stream's: a bound for first_cap) */
	struct pp_stream *stream;
	const struct pprof_read_options *o;
	uint32_t max_depth;
	bool ids_only;      /* pp_hs_parse_ids(): the nodes alone, edges skipped */
	bool mapped;        /* BUF is a file's mapping: read pages may go */
	uint64_t dropped;   /* bytes of it let go so far */
	struct pp_hs *h;
	/* meta */
	bool have_meta, have_nodes, have_edges, have_strings;
	char **nfields, **efields, **lfields;
	uint32_t nnf, nef, nlf;
	int l_node, l_script, l_sobj, l_line, l_col; /* location field offsets */
	uint64_t locs_at;
	int f_type, f_name, f_id, f_self, f_ecount, f_detached; /* node field offsets */
	int g_type, g_name, g_to;                               /* edge field offsets */
	int64_t node_count, edge_count, root_index;
	uint64_t node_count_at, edge_count_at, root_index_at, nodes_at, edges_at;
	uint64_t nodes_end, edges_end;
	/* arrays while they grow */
	uint32_t *ecount;
	size_t ncap, ecap, scap, blobcap;
	uint64_t bloblen;
};

static void free_list(char **l, uint32_t n)
{
	if (!l)
		return;
	for (uint32_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

void pp_hs_release(struct pp_hs *h)
{
	free(h->type);
	free(h->name);
	free(h->id);
	free(h->self);
	free(h->detached);
	free(h->first);
	free(h->etype);
	free(h->ename);
	free(h->to);
	free(h->essential);
	free(h->loc);
	free_list(h->node_types, h->nnode_types);
	free_list(h->edge_types, h->nedge_types);
	free(h->blob);
	free(h->soff);
	free(h->dom);
	free(h->order);
	free(h->retained);
	memset(h, 0, sizeof(*h));
}

/* A mapped file's pages before the parser's position go back to the
 * page cache while the arrays grow: the peak is the arrays, not the arrays
 * and the file.  They fault in again from the file if an error's offset is
 * looked for. */
static void drop_read(struct hsread *r)
{
	static long page;
	if (!r->mapped)
		return;
	if (!page)
		page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
	uint64_t at = json_offset(&r->j);
	uint64_t end = at - at % (uint64_t)page;
	if (end > r->dropped + ((uint64_t)8 << 20)) {
		madvise((void *)(uintptr_t)(r->buf + r->dropped), (size_t)(end - r->dropped),
			MADV_DONTNEED);
		r->dropped = end;
	}
}

static int jerr(struct hsread *r)
{
	/* the stream's own error (gzip) is on P already */
	if (r->stream && json_read_failed(&r->j))
		return pp_stream_status(r->stream) ? pp_stream_status(r->stream) : PPROF_EINPUT;
	return pp_v8_json_error(r->p, &r->j);
}

/* The byte where element INDEX of the top-level array KEY starts, for an
 * error found once all is read: looked up again in the input (a stream
 * is read again from its start; 0 when that fails). */
static uint64_t elem_at(struct hsread *r, const char *key, size_t index)
{
	if (r->buf)
		return pp_v8_element_offset(r->buf, r->len, r->max_depth, key, index);
	struct pp_stream *s = pp_stream_again(r->stream, r->o);
	if (!s)
		return 0;
	struct json j;
	json_init_chunked(&j, pp_stream_json_more, s, r->max_depth);
	uint64_t off = pp_v8_json_element_offset(&j, key, index);
	json_release(&j);
	pp_stream_free(s);
	return off;
}

static int next(struct hsread *r)
{
	return json_next(&r->j);
}

static int skip_value(struct hsread *r)
{
	int t = next(r);
	if (t == JSON_ERROR || json_skip(&r->j, t) == JSON_ERROR)
		return jerr(r);
	return PPROF_OK;
}

/* An array of strings, as a malloc'd list of C strings. */
static int string_list(struct hsread *r, int t, const char *what, char ***out, uint32_t *n)
{
	struct json *j = &r->j;
	char **l = NULL;
	uint32_t k = 0, cap = 0;

	if (t == JSON_ERROR)
		return jerr(r);
	if (t != JSON_ARRAY_BEGIN)
		return pp_error_at(r->p, PPROF_EINPUT, json_offset(j), "%s is not an array", what);
	for (;;) {
		t = next(r);
		if (t == JSON_ARRAY_END)
			break;
		if (t == JSON_ERROR) {
			free_list(l, k);
			return jerr(r);
		}
		if (t != JSON_STRING) {
			free_list(l, k);
			return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
					   "%s holds something other than a string", what);
		}
		if (k == cap) {
			uint32_t c = cap ? cap * 2 : 16;
			char **b = c > (1u << 20) ? NULL : realloc(l, c * sizeof(*b));
			if (!b) {
				free_list(l, k);
				return pp_nomem(r->p);
			}
			l = b;
			cap = c;
		}
		l[k] = malloc(j->len + 1);
		if (!l[k]) {
			free_list(l, k);
			return pp_nomem(r->p);
		}
		memcpy(l[k], j->str, j->len);
		l[k][j->len] = 0;
		k++;
	}
	*out = l;
	*n = k;
	return PPROF_OK;
}

/* node_types / edge_types: [[enum...], "string", ...]: the enum of field
 * WANT (an index into the fields) is kept, the rest skipped. */
static int types_list(struct hsread *r, const char *what, int want, char ***out, uint32_t *n,
		      uint64_t *at)
{
	struct json *j = &r->j;
	int t = next(r);
	uint32_t i = 0;
	int s;

	if (t == JSON_ERROR)
		return jerr(r);
	*at = json_offset(j);
	if (t != JSON_ARRAY_BEGIN)
		return pp_error_at(r->p, PPROF_EINPUT, json_offset(j), "%s is not an array", what);
	for (;; i++) {
		t = next(r);
		if (t == JSON_ARRAY_END)
			break;
		if (t == JSON_ERROR)
			return jerr(r);
		if ((int)i == want && t == JSON_ARRAY_BEGIN && !*out) {
			s = string_list(r, t, what, out, n);
			if (s != PPROF_OK)
				return s;
		} else if (json_skip(j, t) == JSON_ERROR) {
			return jerr(r);
		}
	}
	return PPROF_OK;
}

static int field_index(char **l, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(l[i], name) == 0)
			return (int)i;
	return -1;
}

static uint32_t type_index(char **l, uint32_t n, const char *name)
{
	int k = field_index(l, n, name);
	return k < 0 ? PP_HS_NONE : (uint32_t)k;
}

/* "meta": the field lists must come before their types (V8's order), so
 * that the types can be picked by field. */
static int read_meta(struct hsread *r)
{
	struct json *j = &r->j;
	struct pp_hs *h = r->h;
	uint64_t meta_at = json_offset(j), nt_at = 0, et_at = 0;
	bool have_nt = false, have_et = false;
	char **ntypes_pending = NULL;
	int t, s;

	(void)ntypes_pending;
	for (;;) {
		t = next(r);
		if (t == JSON_OBJECT_END)
			break;
		if (t == JSON_ERROR)
			return jerr(r);
		if (KEY_IS(j, "node_fields") && !r->nfields) {
			s = string_list(r, next(r), "snapshot.meta.node_fields", &r->nfields, &r->nnf);
		} else if (KEY_IS(j, "location_fields") && !r->lfields) {
			s = string_list(r, next(r), "snapshot.meta.location_fields", &r->lfields,
					&r->nlf);
		} else if (KEY_IS(j, "edge_fields") && !r->efields) {
			s = string_list(r, next(r), "snapshot.meta.edge_fields", &r->efields, &r->nef);
		} else if (KEY_IS(j, "node_types") && !have_nt) {
			if (!r->nfields)
				return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
						   "snapshot.meta.node_types before node_fields");
			have_nt = true;
			s = types_list(r, "snapshot.meta.node_types",
				       field_index(r->nfields, r->nnf, "type"), &h->node_types,
				       &h->nnode_types, &nt_at);
		} else if (KEY_IS(j, "edge_types") && !have_et) {
			if (!r->efields)
				return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
						   "snapshot.meta.edge_types before edge_fields");
			have_et = true;
			s = types_list(r, "snapshot.meta.edge_types",
				       field_index(r->efields, r->nef, "type"), &h->edge_types,
				       &h->nedge_types, &et_at);
		} else {
			s = skip_value(r);
		}
		if (s != PPROF_OK)
			return s;
	}
	if (!r->nfields || !r->efields)
		return pp_error_at(r->p, PPROF_EINPUT, meta_at,
				   "snapshot.meta without node_fields or edge_fields");
	static const char *const need_n[] = {"type", "name", "id", "self_size", "edge_count"};
	static const char *const need_e[] = {"type", "name_or_index", "to_node"};
	for (size_t i = 0; i < 5; i++)
		if (field_index(r->nfields, r->nnf, need_n[i]) < 0)
			return pp_error_at(r->p, PPROF_EINPUT, meta_at,
					   "snapshot.meta.node_fields has no \"%s\"", need_n[i]);
	for (size_t i = 0; i < 3; i++)
		if (field_index(r->efields, r->nef, need_e[i]) < 0)
			return pp_error_at(r->p, PPROF_EINPUT, meta_at,
					   "snapshot.meta.edge_fields has no \"%s\"", need_e[i]);
	if (!h->node_types)
		return pp_error_at(r->p, PPROF_EINPUT, have_nt ? nt_at : meta_at,
				   "snapshot.meta.node_types has no list of node types");
	if (!h->edge_types)
		return pp_error_at(r->p, PPROF_EINPUT, have_et ? et_at : meta_at,
				   "snapshot.meta.edge_types has no list of edge types");
	if (h->nnode_types > 255 || h->nedge_types > 255)
		return pp_error_at(r->p, PPROF_EINPUT, meta_at, "more than 255 node or edge types");
	r->f_type = field_index(r->nfields, r->nnf, "type");
	r->f_name = field_index(r->nfields, r->nnf, "name");
	r->f_id = field_index(r->nfields, r->nnf, "id");
	r->f_self = field_index(r->nfields, r->nnf, "self_size");
	r->f_ecount = field_index(r->nfields, r->nnf, "edge_count");
	r->f_detached = field_index(r->nfields, r->nnf, "detachedness");
	r->l_node = field_index(r->lfields, r->nlf, "object_index");
	r->l_script = field_index(r->lfields, r->nlf, "script_id");
	r->l_sobj = field_index(r->lfields, r->nlf, "script_object_index");
	r->l_line = field_index(r->lfields, r->nlf, "line");
	r->l_col = field_index(r->lfields, r->nlf, "column");
	r->g_type = field_index(r->efields, r->nef, "type");
	r->g_name = field_index(r->efields, r->nef, "name_or_index");
	r->g_to = field_index(r->efields, r->nef, "to_node");
	char **nt = h->node_types, **et = h->edge_types;
	uint32_t nn = h->nnode_types, ne = h->nedge_types;
	h->t_hidden = type_index(nt, nn, "hidden");
	h->t_array = type_index(nt, nn, "array");
	h->t_string = type_index(nt, nn, "string");
	h->t_object = type_index(nt, nn, "object");
	h->t_code = type_index(nt, nn, "code");
	h->t_closure = type_index(nt, nn, "closure");
	h->t_regexp = type_index(nt, nn, "regexp");
	h->t_number = type_index(nt, nn, "number");
	h->t_native = type_index(nt, nn, "native");
	h->t_synthetic = type_index(nt, nn, "synthetic");
	h->et_element = type_index(et, ne, "element");
	h->et_hidden = type_index(et, ne, "hidden");
	h->et_internal = type_index(et, ne, "internal");
	h->et_shortcut = type_index(et, ne, "shortcut");
	h->et_weak = type_index(et, ne, "weak");
	h->et_property = type_index(et, ne, "property");
	h->et_context = type_index(et, ne, "context");
	r->have_meta = true;
	return PPROF_OK;
}

static int header_int(struct hsread *r, const char *what, int64_t *v, uint64_t *at)
{
	int t = next(r);
	if (t == JSON_ERROR)
		return jerr(r);
	*at = json_offset(&r->j);
	if (t != JSON_NUMBER || !json_int64(&r->j, v) || *v < 0)
		return pp_error_at(r->p, PPROF_EINPUT, *at, "%s is not a count", what);
	return PPROF_OK;
}

static int read_header(struct hsread *r)
{
	struct json *j = &r->j;
	int t = next(r), s;

	if (t == JSON_ERROR)
		return jerr(r);
	uint64_t at = json_offset(j);
	if (t != JSON_OBJECT_BEGIN)
		return pp_error_at(r->p, PPROF_EINPUT, at, "snapshot is not an object");
	for (;;) {
		t = next(r);
		if (t == JSON_OBJECT_END)
			break;
		if (t == JSON_ERROR)
			return jerr(r);
		if (KEY_IS(j, "meta") && !r->have_meta) {
			t = next(r);
			if (t == JSON_ERROR)
				return jerr(r);
			if (t != JSON_OBJECT_BEGIN)
				return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
						   "snapshot.meta is not an object");
			s = read_meta(r);
		} else if (KEY_IS(j, "node_count")) {
			s = header_int(r, "snapshot.node_count", &r->node_count, &r->node_count_at);
		} else if (KEY_IS(j, "edge_count")) {
			s = header_int(r, "snapshot.edge_count", &r->edge_count, &r->edge_count_at);
		} else if (KEY_IS(j, "root_index")) {
			s = header_int(r, "snapshot.root_index", &r->root_index, &r->root_index_at);
		} else {
			s = skip_value(r);
		}
		if (s != PPROF_OK)
			return s;
	}
	if (!r->have_meta)
		return pp_error_at(r->p, PPROF_EINPUT, at, "not a heap snapshot: no snapshot.meta");
	return PPROF_OK;
}

/* The current number as a uint32 (V8's fields are unsigned 32-bit). */
static inline int u32(struct hsread *r, const char *what, uint32_t *out)
{
	const struct json *j = &r->j;
	const char *s = j->str;
	size_t n = j->len;
	uint64_t v = 0;

	if (n > 0 && n <= 10) {
		size_t i;
		for (i = 0; i < n; i++) {
			unsigned d = (unsigned char)s[i] - '0';
			if (d > 9)
				break;
			v = v * 10 + d;
		}
		if (i == n && v <= UINT32_MAX) {
			*out = (uint32_t)v;
			return PPROF_OK;
		}
	}
	int64_t w;
	if (!json_int64(&r->j, &w) || w < 0 || w > UINT32_MAX)
		return pp_error_at(r->p, PPROF_EINPUT, json_offset(&r->j),
				   "%s is not an unsigned 32-bit integer", what);
	*out = (uint32_t)w;
	return PPROF_OK;
}

static bool grow32(uint32_t **a, size_t need, size_t *cap, size_t newcap)
{
	uint32_t *b = realloc(*a, newcap * sizeof(*b));
	(void)need;
	if (!b)
		return false;
	*a = b;
	*cap = newcap;
	return true;
}

/* A first capacity from a header count that may lie: never more than the
 * input can hold (each value takes at least two bytes). */
static size_t first_cap(int64_t count, size_t len, uint32_t fields)
{
	uint64_t most = len / 2 / (fields ? fields : 1) + 1;
	uint64_t c = count > 0 ? (uint64_t)count : 1024;
	return (size_t)(c < most ? c : most) + 1;
}

static int read_nodes(struct hsread *r)
{
	struct json *j = &r->j;
	struct pp_hs *h = r->h;
	uint32_t nf = r->nnf, k = 0, n = 0, v = 0;
	int t = next(r), s;

	if (t == JSON_ERROR)
		return jerr(r);
	r->nodes_at = json_offset(j);
	if (t != JSON_ARRAY_BEGIN)
		return pp_error_at(r->p, PPROF_EINPUT, json_offset(j), "nodes is not an array");
	r->ncap = 0;
	size_t c0 = first_cap(r->node_count, r->len, nf);
	if (!grow32(&h->name, 0, &r->ncap, c0) || !grow32(&h->id, 0, &r->ncap, c0) ||
	    !grow32(&h->self, 0, &r->ncap, c0) || !grow32(&r->ecount, 0, &r->ncap, c0) ||
	    !(h->type = malloc(c0)))
		return pp_nomem(r->p);
	if (r->f_detached >= 0 && !(h->detached = malloc(c0)))
		return pp_nomem(r->p);
	for (;;) {
		bool fast;
		t = json_next_u32(j, &v, &fast);
		if (t == JSON_ARRAY_END)
			break;
		if (t == JSON_ERROR)
			return jerr(r);
		if (t != JSON_NUMBER)
			return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
					   "nodes holds something other than a number");
		if (!fast && (s = u32(r, "a node field", &v)) != PPROF_OK)
			return s;
		if (k == 0 && (n & 0xffff) == 0)
			drop_read(r);
		if (k == 0 && n == r->ncap) {
			size_t c = r->ncap * 2, c2 = r->ncap;
			if (n == UINT32_MAX - 1)
				return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
						   "more than 2^32 - 2 nodes");
			if (c > UINT32_MAX)
				c = UINT32_MAX;
			if (!grow32(&h->name, 0, &c2, c) || !grow32(&h->id, 0, &c2, c) ||
			    !grow32(&h->self, 0, &c2, c) || !grow32(&r->ecount, 0, &c2, c))
				return pp_nomem(r->p);
			uint8_t *ty = realloc(h->type, c);
			if (!ty)
				return pp_nomem(r->p);
			h->type = ty;
			if (h->detached) {
				uint8_t *d = realloc(h->detached, c);
				if (!d)
					return pp_nomem(r->p);
				h->detached = d;
			}
			r->ncap = c;
		}
		if ((int)k == r->f_type) {
			if (v >= h->nnode_types)
				return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
						   "node %u: type %u is not in snapshot.meta.node_types",
						   n, v);
			h->type[n] = (uint8_t)v;
		} else if ((int)k == r->f_name) {
			h->name[n] = v;
		} else if ((int)k == r->f_id) {
			h->id[n] = v;
		} else if ((int)k == r->f_self) {
			h->self[n] = v;
		} else if ((int)k == r->f_ecount) {
			r->ecount[n] = v;
		} else if ((int)k == r->f_detached) {
			h->detached[n] = v <= 2 ? (uint8_t)v : 0;
		}
		if (++k == nf) {
			k = 0;
			n++;
		}
	}
	r->nodes_end = json_offset(j);
	if (k != 0)
		return pp_error_at(r->p, PPROF_EINPUT, r->nodes_end,
				   "nodes holds %u values after its last whole node of %u fields", k,
				   nf);
	h->n = n;
	r->have_nodes = true;
	return PPROF_OK;
}

static int read_edges(struct hsread *r)
{
	struct json *j = &r->j;
	struct pp_hs *h = r->h;
	uint32_t ef = r->nef, nf = r->nnf, k = 0, v = 0;
	uint64_t e = 0, limit = r->have_nodes ? (uint64_t)h->n * nf : UINT64_MAX;
	int t = next(r), s;

	if (t == JSON_ERROR)
		return jerr(r);
	r->edges_at = json_offset(j);
	if (t != JSON_ARRAY_BEGIN)
		return pp_error_at(r->p, PPROF_EINPUT, json_offset(j), "edges is not an array");
	size_t c0 = first_cap(r->edge_count, r->len, ef), c1 = 0;
	uint8_t *ty = malloc(c0);
	h->etype = NULL;
	if (!ty || !grow32(&h->ename, 0, &c1, c0) || !grow32(&h->to, 0, &c1, c0)) {
		free(ty);
		return pp_nomem(r->p);
	}
	r->ecap = c0;
	for (;;) {
		bool fast;
		t = json_next_u32(j, &v, &fast);
		if (t == JSON_ARRAY_END)
			break;
		if (t == JSON_ERROR) {
			free(ty);
			return jerr(r);
		}
		if (t != JSON_NUMBER) {
			free(ty);
			return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
					   "edges holds something other than a number");
		}
		if (!fast && (s = u32(r, "an edge field", &v)) != PPROF_OK) {
			free(ty);
			return s;
		}
		if (k == 0 && (e & 0xffff) == 0)
			drop_read(r);
		if (k == 0 && e == r->ecap) {
			size_t c = r->ecap * 2, c2 = r->ecap;
			if (e >= UINT32_MAX - 1) {
				free(ty);
				return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
						   "more than 2^32 - 2 edges");
			}
			if (c > UINT32_MAX)
				c = UINT32_MAX;
			uint8_t *t2 = realloc(ty, c);
			if (!t2) {
				free(ty);
				return pp_nomem(r->p);
			}
			ty = t2;
			if (!grow32(&h->ename, 0, &c2, c) || !grow32(&h->to, 0, &c2, c)) {
				free(ty);
				return pp_nomem(r->p);
			}
			r->ecap = c;
		}
		if ((int)k == r->g_type) {
			if (v >= h->nedge_types) {
				free(ty);
				return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
						   "edge %llu: type %u is not in snapshot.meta.edge_types",
						   (unsigned long long)e, v);
			}
			ty[e] = (uint8_t)v;
		} else if ((int)k == r->g_name) {
			h->ename[e] = v;
		} else if ((int)k == r->g_to) {
			if (v % nf != 0 || v >= limit) {
				free(ty);
				return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
						   v % nf ? "edge %llu: to_node %u is not a multiple of %u node fields"
							  : "edge %llu: to_node %u is past the nodes",
						   (unsigned long long)e, v, nf);
			}
			h->to[e] = v / nf;
		}
		if (++k == ef) {
			k = 0;
			e++;
		}
	}
	r->edges_end = json_offset(j);
	h->etype = ty;
	if (k != 0)
		return pp_error_at(r->p, PPROF_EINPUT, r->edges_end,
				   "edges holds %u values after its last whole edge of %u fields", k,
				   ef);
	h->e = (uint32_t)e;
	r->have_edges = true;
	return PPROF_OK;
}

/* "locations": kept as the 5 fields of heapsnap.h's loc when meta names
 * the 4 V8 has always written; checked against the nodes in check(). */
static int read_locations(struct hsread *r)
{
	struct json *j = &r->j;
	struct pp_hs *h = r->h;
	uint32_t lf = r->nlf, k = 0, v = 0, row[5] = {0};
	size_t n = 0, cap = 0;
	int t = next(r), s;

	if (t == JSON_ERROR)
		return jerr(r);
	if (t != JSON_ARRAY_BEGIN)
		return pp_error_at(r->p, PPROF_EINPUT, json_offset(j), "locations is not an array");
	r->locs_at = json_offset(j);
	bool keep = !r->ids_only && lf > 0 && r->l_node >= 0 && r->l_script >= 0 &&
		    r->l_line >= 0 && r->l_col >= 0;
	for (;;) {
		bool fast;
		t = json_next_u32(j, &v, &fast);
		if (t == JSON_ARRAY_END)
			break;
		if (t == JSON_ERROR)
			return jerr(r);
		if (t != JSON_NUMBER)
			return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
					   "locations holds something other than a number");
		if (!keep)
			continue;
		if (!fast && (s = u32(r, "a location field", &v)) != PPROF_OK)
			return s;
		if ((int)k == r->l_node)
			row[0] = v;
		else if ((int)k == r->l_script)
			row[1] = v;
		else if ((int)k == r->l_sobj)
			row[2] = v;
		else if ((int)k == r->l_line)
			row[3] = v;
		else if ((int)k == r->l_col)
			row[4] = v;
		if (++k < lf)
			continue;
		k = 0;
		if (r->l_sobj < 0)
			row[2] = PP_HS_NONE;
		if (n + 5 > cap) {
			if (n / 5 >= UINT32_MAX - 1)
				return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
						   "more than 2^32 - 2 locations");
			size_t c = cap ? cap * 2 : 5 * 1024;
			uint32_t *b = realloc(h->loc, c * sizeof(*b));
			if (!b)
				return pp_nomem(r->p);
			h->loc = b;
			cap = c;
		}
		memcpy(h->loc + n, row, sizeof(row));
		n += 5;
	}
	if (keep && k != 0)
		return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
				   "locations holds %u values after its last whole location of %u "
				   "fields", k, lf);
	h->nloc = (uint32_t)(n / 5);
	return PPROF_OK;
}

static int read_strings(struct hsread *r)
{
	struct json *j = &r->j;
	struct pp_hs *h = r->h;
	int t = next(r);
	uint32_t n = 0;

	if (t == JSON_ERROR)
		return jerr(r);
	if (t != JSON_ARRAY_BEGIN)
		return pp_error_at(r->p, PPROF_EINPUT, json_offset(j), "strings is not an array");
	r->scap = 1024;
	r->blobcap = 1 << 16;
	h->soff = malloc(r->scap * sizeof(*h->soff));
	h->blob = malloc(r->blobcap);
	if (!h->soff || !h->blob)
		return pp_nomem(r->p);
	h->soff[0] = 0;
	for (;;) {
		t = next(r);
		if (t == JSON_ARRAY_END)
			break;
		if (t == JSON_ERROR)
			return jerr(r);
		if (t != JSON_STRING)
			return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
					   "strings holds something other than a string");
		if (n + 2 > r->scap) {
			if (n >= UINT32_MAX - 2)
				return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
						   "more than 2^32 - 2 strings");
			size_t c = r->scap * 2;
			uint64_t *b = realloc(h->soff, c * sizeof(*b));
			if (!b)
				return pp_nomem(r->p);
			h->soff = b;
			r->scap = c;
		}
		if (r->bloblen + j->len > r->blobcap) {
			size_t c = r->blobcap;
			while (c < r->bloblen + j->len)
				c *= 2;
			char *b = realloc(h->blob, c);
			if (!b)
				return pp_nomem(r->p);
			h->blob = b;
			r->blobcap = c;
		}
		memcpy(h->blob + r->bloblen, j->str, j->len);
		r->bloblen += j->len;
		h->soff[++n] = r->bloblen;
		if ((n & 0xffff) == 0)
			drop_read(r);
	}
	h->nstrings = n;
	r->have_strings = true;
	return PPROF_OK;
}

static int top_level(struct hsread *r)
{
	struct json *j = &r->j;
	bool have_header = false;
	int t = next(r), s;

	if (t == JSON_ERROR)
		return jerr(r);
	if (t != JSON_OBJECT_BEGIN)
		return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
				   "a heap snapshot is a JSON object");
	for (;;) {
		t = next(r);
		if (t == JSON_OBJECT_END)
			break;
		if (t == JSON_ERROR)
			return jerr(r);
		uint64_t at = json_offset(j);
		bool arr = KEY_IS(j, "nodes") || KEY_IS(j, "edges") || KEY_IS(j, "strings");
		if (arr && !have_header)
			return pp_error_at(r->p, PPROF_EINPUT, at,
					   "%.*s before the snapshot header (snapshot.meta)",
					   (int)j->len, j->str);
		if (KEY_IS(j, "snapshot")) {
			if (have_header)
				return pp_error_at(r->p, PPROF_EINPUT, at,
						   "duplicate key \"snapshot\"");
			have_header = true;
			s = read_header(r);
		} else if (KEY_IS(j, "nodes")) {
			if (r->have_nodes)
				return pp_error_at(r->p, PPROF_EINPUT, at, "duplicate key \"nodes\"");
			s = read_nodes(r);
		} else if (KEY_IS(j, "edges")) {
			if (r->have_edges)
				return pp_error_at(r->p, PPROF_EINPUT, at, "duplicate key \"edges\"");
			if (r->ids_only) {
				s = skip_value(r);
				r->have_edges = true;
			} else {
				s = read_edges(r);
			}
		} else if (KEY_IS(j, "strings")) {
			if (r->have_strings)
				return pp_error_at(r->p, PPROF_EINPUT, at,
						   "duplicate key \"strings\"");
			s = read_strings(r);
		} else if (KEY_IS(j, "locations") && !r->locs_at) {
			s = read_locations(r);
		} else {
			s = skip_value(r);
		}
		if (s != PPROF_OK)
			return s;
	}
	t = next(r);
	if (t != JSON_END)
		return jerr(r);
	if (!have_header)
		return pp_error(r->p, PPROF_EINPUT, "not a heap snapshot: no snapshot.meta");
	if (!r->have_nodes || !r->have_edges || !r->have_strings)
		return pp_error_at(r->p, PPROF_EINPUT, json_offset(j),
				   "a heap snapshot without %s",
				   !r->have_nodes ? "nodes" : !r->have_edges ? "edges" : "strings");
	return PPROF_OK;
}

/* What the arrays must agree on, once all are read. */
static int check(struct hsread *r)
{
	struct pp_hs *h = r->h;
	uint32_t nf = r->nnf;

	if (h->n == 0)
		return pp_error_at(r->p, PPROF_EINPUT, r->nodes_at, "a heap snapshot without nodes");
	if (r->node_count_at && (uint64_t)r->node_count != h->n)
		return pp_error_at(r->p, PPROF_EINPUT, r->node_count_at,
				   "snapshot.node_count is %lld, nodes holds %u",
				   (long long)r->node_count, h->n);
	if (r->ids_only) {
		for (uint32_t i = 0; i < h->n; i++)
			if (h->name[i] >= h->nstrings)
				return pp_error_at(r->p, PPROF_EINPUT,
						   elem_at(r, "nodes",
									(size_t)i * nf + r->f_name),
						   "node %u: name %u is not in strings", i, h->name[i]);
		return PPROF_OK;
	}
	if (r->edge_count_at && (uint64_t)r->edge_count != h->e)
		return pp_error_at(r->p, PPROF_EINPUT, r->edge_count_at,
				   "snapshot.edge_count is %lld, edges holds %u",
				   (long long)r->edge_count, h->e);
	/* Edges read before the nodes were not checked against them. */
	for (uint32_t e = 0; e < h->e; e++)
		if (h->to[e] >= h->n)
			return pp_error_at(r->p, PPROF_EINPUT,
					   elem_at(r, "edges",
								(size_t)e * r->nef + r->g_to),
					   "edge %u: to_node %llu is past the nodes", e,
					   (unsigned long long)h->to[e] * nf);
	if (r->root_index_at) {
		if (r->root_index % nf != 0 || (uint64_t)r->root_index / nf >= h->n)
			return pp_error_at(r->p, PPROF_EINPUT, r->root_index_at,
					   "snapshot.root_index %lld is not a node",
					   (long long)r->root_index);
		h->root = (uint32_t)(r->root_index / nf);
	}
	h->first = malloc(((size_t)h->n + 1) * sizeof(*h->first));
	if (!h->first)
		return pp_nomem(r->p);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < h->n; i++) {
		h->first[i] = (uint32_t)sum;
		sum += r->ecount[i];
		if (sum > h->e)
			return pp_error_at(r->p, PPROF_EINPUT,
					   elem_at(r, "nodes",
								(size_t)i * nf + r->f_ecount),
					   "node %u: its edge_count takes the edges past the %u there are",
					   i, h->e);
		if (h->name[i] >= h->nstrings)
			return pp_error_at(r->p, PPROF_EINPUT,
					   elem_at(r, "nodes",
								(size_t)i * nf + r->f_name),
					   "node %u: name %u is not in strings", i, h->name[i]);
	}
	h->first[h->n] = (uint32_t)sum;
	if (sum != h->e)
		return pp_error_at(r->p, PPROF_EINPUT, r->nodes_end,
				   "the nodes' edge counts add up to %llu, edges holds %u",
				   (unsigned long long)sum, h->e);
	const uint8_t *ty = h->etype;
	for (uint32_t e = 0; e < h->e; e++) {
		if (ty[e] == h->et_element || ty[e] == h->et_hidden)
			continue;
		if (h->ename[e] >= h->nstrings)
			return pp_error_at(r->p, PPROF_EINPUT,
					   elem_at(r, "edges",
								(size_t)e * r->nef + r->g_name),
					   "edge %u: name %u is not in strings", e, h->ename[e]);
	}
	for (uint32_t i = 0; i < h->nloc; i++) {
		uint32_t *l = h->loc + (size_t)i * 5;
		for (int f = 0; f < 3; f += 2) {
			if (f == 2 && l[2] == PP_HS_NONE)
				continue;
			if (l[f] % nf != 0 || l[f] / nf >= h->n)
				return pp_error_at(r->p, PPROF_EINPUT,
						   elem_at(r, "locations",
									(size_t)i * r->nlf +
										(f ? r->l_sobj : r->l_node)),
						   "location %u: %s %u is not a node", i,
						   f ? "script_object_index" : "object_index", l[f]);
			l[f] /= nf;
		}
	}
	free(r->ecount);
	r->ecount = NULL;
	return PPROF_OK;
}

int pp_hs_begin_types(struct pprof_profile *p)
{
	struct pp_sample_type types[2];
	int s;
	if ((s = pp_intern_cstr(p, "objects", &types[0].type)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "count", &types[0].unit)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "space", &types[1].type)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "bytes", &types[1].unit)) != PPROF_OK)
		return s;
	return pp_begin_input(p, types, 2, 1);
}

/* The profile: each node of self size > 0 is a sample whose stack is the
 * class names of the nodes of self size > 0 on its dominator chain below
 * the root, a run of one class being one frame. */
static int build_profile(struct pprof_profile *p, struct pp_hs *h, size_t inlen)
{
	uint32_t *cls = malloc((size_t)h->n * sizeof(*cls));
	uint32_t *model = malloc((size_t)h->n * sizeof(*model));
	uint32_t *framecache = NULL, *depth = NULL, npos = 0;
	struct pp_hs_pos *pos = NULL;
	size_t capdepth = 0;
	/* The folded output is as long as the stacks' frames together: a
	 * chain of classes taking turns would make it quadratic in the input.
	 * The bound is the pprof reader's for inlined stacks. */
	uint64_t frames = 0, maxframes = ((uint64_t)1 << 22) + 16 * (uint64_t)inlen;
	int s = PPROF_OK;

	if (!cls || !model) {
		s = pp_nomem(p);
		goto out;
	}
	if ((s = pp_hs_class_names(p, h, cls)) != PPROF_OK ||
	    (s = pp_hs_class_positions(p, h, cls, &pos, &npos)) != PPROF_OK)
		goto out;
	/* class string id -> frame id */
	framecache = calloc(p->nstrs, sizeof(*framecache));
	if (!framecache) {
		s = pp_nomem(p);
		goto out;
	}
	if ((s = pp_hs_begin_types(p)) != PPROF_OK)
		goto out;
	model[h->root] = 0;
	/* the depths of the nodes earlier inputs made (a parent comes first) */
	{
		void *d = depth;
		if (!pp_grow(&d, &capdepth, (size_t)p->nnodes + 1, sizeof(*depth))) {
			s = pp_nomem(p);
			goto out;
		}
		depth = d;
		depth[0] = 0;
		for (uint32_t i = 1; i < p->nnodes; i++)
			depth[i] = depth[p->nodes[i].parent] + 1;
	}
	for (uint32_t k = 0; k < h->n; k++) {
		uint32_t v = h->order[k];
		if (v == h->root)
			continue;
		uint32_t up = model[h->dom[v]];
		if (h->self[v] == 0) {
			model[v] = up;
			continue;
		}
		uint32_t f = framecache[cls[v]];
		if (!f) {
			struct pp_frame fr;
			memset(&fr, 0, sizeof(fr));
			fr.name = cls[v];
			if (cls[v] < npos && pos[cls[v]].file) {
				fr.file = pos[cls[v]].file;
				fr.line = pos[cls[v]].line;
				fr.column = pos[cls[v]].column;
			}
			if ((s = pp_frame_intern(p, &fr, &f)) != PPROF_OK)
				goto out;
			framecache[cls[v]] = f;
		}
		if (up != 0 && p->nodes[up].frame == f) {
			model[v] = up;
		} else {
			uint32_t before = p->nnodes;
			if ((s = pp_node_child(p, up, f, &model[v])) != PPROF_OK)
				goto out;
			if (p->nnodes != before) {
				void *d = depth;
				if (!pp_grow(&d, &capdepth, p->nnodes, sizeof(*depth))) {
					s = pp_nomem(p);
					goto out;
				}
				depth = d;
				depth[model[v]] = depth[up] + 1;
				frames += depth[model[v]];
				if (frames > maxframes) {
					s = pp_error(p, PPROF_EINPUT,
						     "dominator-chain stacks expand to more than %llu "
						     "frames, too many for %zu bytes",
						     (unsigned long long)maxframes, inlen);
					goto out;
				}
			}
		}
		int64_t vals[2] = {1, h->self[v]};
		if ((s = pp_add_sample(p, model[v], 0, vals, 0)) != PPROF_OK)
			goto out;
	}
out:
	free(pos);
	free(framecache);
	free(depth);
	free(cls);
	free(model);
	return s;
}

/* BUF (LEN bytes), or the stream S when BUF is NULL. */
static int parse(struct pprof_profile *p, const unsigned char *buf, size_t len,
		 struct pp_stream *st, const struct pprof_read_options *o, struct pp_hs *h,
		 bool ids_only)
{
	struct hsread r;
	int s;

	memset(&r, 0, sizeof(r));
	r.ids_only = ids_only;
	r.p = p;
	r.h = h;
	r.buf = buf;
	r.len = len;
	r.stream = st;
	r.o = o;
	r.max_depth = o ? o->max_depth : 0;
	if (buf) {
		r.mapped = p->hold && p->hold->ptr == (const void *)buf && p->hold->mapped;
		json_init(&r.j, buf, len, r.max_depth);
	} else {
		/* no length to bound the arrays' first room by: 4 MiB's worth */
		r.len = (size_t)4 << 20;
		json_init_chunked(&r.j, pp_stream_json_more, st, r.max_depth);
	}
	s = top_level(&r);
	if (s == PPROF_OK)
		s = check(&r);
	json_release(&r.j);
	free(r.ecount);
	free_list(r.nfields, r.nnf);
	free_list(r.efields, r.nef);
	free_list(r.lfields, r.nlf);
	return s;
}

int pp_hs_parse(struct pprof_profile *p, const unsigned char *buf, size_t len,
		const struct pprof_read_options *o, struct pp_hs *h)
{
	return parse(p, buf, len, NULL, o, h, false);
}

int pp_hs_parse_ids(struct pprof_profile *p, const unsigned char *buf, size_t len,
		    const struct pprof_read_options *o, struct pp_hs *h)
{
	return parse(p, buf, len, NULL, o, h, true);
}

int pp_hs_parse_stream(struct pprof_profile *p, struct pp_stream *st,
		       const struct pprof_read_options *o, struct pp_hs *h, bool ids_only)
{
	return parse(p, NULL, 0, st, o, h, ids_only);
}

/* BUF (LEN bytes) or, when BUF is NULL, the stream ST. */
static int hs_run(struct pprof_profile *p, const unsigned char *buf, size_t len,
		  struct pp_stream *st, const struct pprof_read_options *o)
{
	struct pp_hs h;
	struct pp_hs_ids ids;
	bool leaks = o && (o->heap_since || o->heap_until || o->heap_retainers);
	int s = PPROF_OK;

	memset(&h, 0, sizeof(h));
	memset(&ids, 0, sizeof(ids));
	/* BASELINE's and TARGET's ids first: only they stay while FINAL is read */
	if (leaks)
		s = pp_hs_load_ids(p, o, &ids);
	if (s == PPROF_OK)
		s = buf ? pp_hs_parse(p, buf, len, o, &h) : pp_hs_parse_stream(p, st, o, &h, false);
	if (!buf)
		len = (size_t)pp_stream_offset(st);
	/* The arrays hold all that is used: the input goes before the
	 * dominators' own arrays come (the peak is then the larger of the two
	 * steps, not their sum). */
	if (s == PPROF_OK && p->hold && (!buf || p->hold->ptr == (const void *)buf))
		pp_hold_release(p->hold);
	if (s == PPROF_OK)
		s = pp_hs_dominators(p, &h);
	if (s == PPROF_OK)
		s = leaks ? pp_hs_leaks_profile(p, &h, &ids, len, o) : build_profile(p, &h, len);
	pp_hs_ids_release(&ids);
	pp_hs_release(&h);
	return s;
}

static int hs_read(struct pprof_profile *p, const unsigned char *buf, size_t len,
		   const struct pprof_read_options *o)
{
	return hs_run(p, buf, len, NULL, o);
}

/* Gzip (or UTF-16) input chunk by chunk: the inflated text is never whole
 * in memory.  Plain input in memory is read whole, as before: its mapped
 * pages go as the parser passes them. */
static int hs_read_stream(struct pprof_profile *p, struct pp_stream *st,
			  const struct pprof_read_options *o)
{
	size_t len;
	const unsigned char *buf = pp_stream_plain(st, &len);
	if (buf)
		return hs_run(p, buf, len, NULL, o);
	return hs_run(p, NULL, 0, st, o);
}

/* {"snapshot": first (after a BOM and whitespace): the key every producer
 * writes first.  Bids over the other V8 readers, whose keys ("nodes",
 * "samples") a snapshot also has. */
static int hs_bid(const unsigned char *buf, size_t len)
{
	const unsigned char *p = buf, *e = buf + len;
	if (e - p >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		p += 3;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (p >= e || *p++ != '{')
		return 0;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	static const char key[] = "\"snapshot\"";
	size_t n = sizeof(key) - 1;
	if ((size_t)(e - p) < n)
		return memcmp(p, key, (size_t)(e - p)) == 0 ? -1 : 0;
	return memcmp(p, key, n) == 0 ? 90 : 0;
}

const struct pp_reader pp_reader_heapsnapshot = {
	.format = PPROF_FMT_HEAPSNAPSHOT,
	.name = "heapsnapshot",
	.bid = hs_bid,
	.read = hs_read,
	.read_stream = hs_read_stream,
};
