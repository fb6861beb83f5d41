/*
 * heapsnap_leaks.c: the leak set between heap snapshots, and retainer paths
 * (doc/heapsnapshot.md, "Leaks between snapshots").
 *
 * memlab's three snapshots: V8 gives an object its id the first time a
 * snapshot sees it and keeps it for the object's life in one process (ids
 * grow: HeapObjectsMap), so the objects of FINAL whose id is in TARGET and
 * not in BASELINE were allocated between the two and are still alive.
 * Only the ids of BASELINE and TARGET are kept, sorted, while FINAL is read.
 *
 * The profile of the set, along dominator chains: each object of the set of
 * self size > 0 is a sample whose stack is the class names of the set's
 * objects of self size > 0 on its dominator chain (a run of one class one
 * frame, as read_heapsnapshot.c does for a whole snapshot).  What such an
 * object retains beyond the set is one more sample per node under the
 * frame of its nearest set dominator, in the frame RETAINED: so a class's
 * cum is DevTools' retained size of the class with the set as its filter
 * (the retained sizes of its objects not dominated by another of them,
 * calculateClassesRetainedSize), its flat the set's shallow size.
 *
 * Retainer paths: breadth-first from the root over the edges that count for
 * dominators, in edge order, the first edge reaching a node is its path's
 * last step; a path prints as class names with the names of the edges
 * between them (element and hidden edges have none), the root left out.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "heapsnap.h"
#include "read_private.h"

#define BIT_GET(v, i) (((v)[(i) >> 6] >> ((i)&63)) & 1)

/* The frame a set object's dominated nodes that are not in the set add
 * to. */
#define RETAINED "(retained, not in the set)"
/* The frame above an object that no path over the counted edges reaches. */
#define UNREACHABLE "(unreachable)"

void pp_hs_ids_release(struct pp_hs_ids *ids)
{
	free(ids->since);
	free(ids->until);
	memset(ids, 0, sizeof(*ids));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The entry of ID in KEYS, or NULL. */
static const uint64_t *find_id(const uint64_t *keys, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uint32_t)(keys[mid] >> 32) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && (uint32_t)(keys[lo] >> 32) == id ? &keys[lo] : NULL;
}

/* KEYS cut in buckets by their id's high bits, so that a look-up of a
 * million of FINAL's ids searches a few entries each. */
struct id_index {
	const uint64_t *keys;
	size_t n;
	uint32_t lo, hi, nb;
	unsigned shift;
	uint32_t *start; /* nb + 1 entries: the first key of each bucket */
};

static bool index_ids(struct id_index *x, const uint64_t *keys, size_t n)
{
	memset(x, 0, sizeof(*x));
	x->keys = keys;
	x->n = n;
	if (!keys || n == 0 || n > UINT32_MAX)
		return true;
	x->lo = (uint32_t)(keys[0] >> 32);
	x->hi = (uint32_t)(keys[n - 1] >> 32);
	uint64_t range = (uint64_t)(x->hi - x->lo) + 1;
	while ((range >> x->shift) > n / 2 + 1)
		x->shift++;
	x->nb = (uint32_t)(((range - 1) >> x->shift) + 1);
	if (!(x->start = malloc(((size_t)x->nb + 1) * sizeof(*x->start))))
		return false;
	size_t k = 0;
	for (uint32_t b = 0; b <= x->nb; b++) {
		while (k < n && (((uint32_t)(keys[k] >> 32) - x->lo) >> x->shift) < b)
			k++;
		x->start[b] = (uint32_t)k;
	}
	return true;
}

/* The entry of ID, or NULL: find_id() within its bucket. */
static const uint64_t *lookup_id(const struct id_index *x, uint32_t id)
{
	if (!x->start) {
		return x->keys ? find_id(x->keys, x->n, id) : NULL;
	}
	if (id < x->lo || id > x->hi)
		return NULL;
	uint32_t b = (id - x->lo) >> x->shift, a = x->start[b];
	const uint64_t *k = find_id(x->keys + a, x->start[b + 1] - a, id);
	return k;
}

/* What node V looks like: its type's and name's hash. */
static uint32_t look(const struct pp_hs *h, uint32_t v)
{
	size_t len;
	const char *name = pp_hs_str(h, h->name[v], &len);
	const char *type = h->node_types[h->type[v]];
	return (uint32_t)pp_hash_bytes(name, len, pp_hash_bytes(type, strlen(type), 0));
}

/* The ids of the objects of snapshot PATH (the synthetic nodes, which every
 * snapshot has with the same small ids, left out), sorted. */
static int load_one(struct pprof_profile *p, const char *opt, const char *path,
		    const struct pprof_read_options *o, uint64_t **out, size_t *nout, uint32_t *max)
{
	struct pprof_profile *q = pprof_profile_new();
	struct pprof_read_options qo;
	struct pp_hs h;
	unsigned char *buf = NULL;
	size_t len = 0;
	bool mapped = false;
	int s;

	if (!q)
		return pp_nomem(p);
	memset(&h, 0, sizeof(h));
	qo = *o;
	qo.progress = NULL;
	/* The door's decoding: gzip inflated (and UTF-16 made UTF-8) as a
	 * stream, so that the text is never whole in memory; a BOM skipped. */
	s = pp_input_load_raw(q, path, &qo, &buf, &len, &mapped);
	if (s == PPROF_OK) {
		struct pp_hold hold = {buf, len, mapped};
		if (pp_is_gzip(buf, len) || pp_is_utf16(buf, len)) {
			struct pp_stream *st = pp_stream_open(q, buf, len, &qo);
			s = st ? pp_hs_parse_stream(q, st, &qo, &h, true) : PPROF_ENOMEM;
			pp_stream_free(st);
		} else {
			size_t bom = pp_utf8_bom(buf, len);
			s = pp_hs_parse_ids(q, buf + bom, len - bom, &qo, &h);
		}
		pp_hold_release(&hold);
	}
	if (s != PPROF_OK) {
		s = pp_error(p, s, "%s=%s: %s", opt, path, pprof_profile_error(q));
		pprof_profile_free(q);
		pp_hs_release(&h);
		return s;
	}
	pprof_profile_free(q);
	uint64_t *keys = malloc(((size_t)h.n + 1) * sizeof(*keys));
	if (!keys) {
		pp_hs_release(&h);
		return pp_nomem(p);
	}
	size_t k = 0;
	uint32_t m = 0;
	for (uint32_t i = 0; i < h.n; i++) {
		if (h.type[i] == h.t_synthetic)
			continue;
		keys[k++] = (uint64_t)h.id[i] << 32 | look(&h, i);
		if ((h.id[i] & 1) && h.id[i] > m) /* JavaScript's ids are odd (maxJsNodeId) */
			m = h.id[i];
	}
	pp_hs_release(&h);
	qsort(keys, k, sizeof(*keys), cmp_u64);
	*out = keys;
	*nout = k;
	*max = m;
	return PPROF_OK;
}

int pp_hs_load_ids(struct pprof_profile *p, const struct pprof_read_options *o,
		   struct pp_hs_ids *ids)
{
	int s = PPROF_OK;
	if (o->heap_until && !o->heap_since)
		return pp_error(p, PPROF_EINPUT, "--until=%s without --since", o->heap_until);
	if (o->heap_since)
		s = load_one(p, "--since", o->heap_since, o, &ids->since, &ids->nsince,
			     &ids->since_max);
	if (s == PPROF_OK && o->heap_until)
		s = load_one(p, "--until", o->heap_until, o, &ids->until, &ids->nuntil,
			     &ids->until_max);
	if (s == PPROF_OK && ids->until && ids->until_max < ids->since_max)
		s = pp_error(p, PPROF_EINPUT,
			     "--until=%s: its ids end (%u) below those of --since=%s (%u): "
			     "taken before it, or in another process",
			     o->heap_until, ids->until_max, o->heap_since, ids->since_max);
	return s;
}

/* The set's checks against FINAL: ids that cannot be of one process. */
/* HIT[v] gets 1 when node V's id is BASELINE's, 2 when TARGET's (0 for
 * synthetic nodes). */
static int check_ids(struct pprof_profile *p, const struct pp_hs *h, const struct pp_hs_ids *ids,
		     const struct pprof_read_options *o, uint8_t *hit)
{
	size_t in_since = 0, in_until = 0, same_since = 0, same_until = 0;
	uint32_t m = 0;
	const uint64_t *k;
	struct id_index xs, xu;
	memset(hit, 0, h->n);
	if (!ids->since && !ids->until)
		return PPROF_OK;
	if (!index_ids(&xs, ids->since, ids->nsince) ||
	    !index_ids(&xu, ids->until, ids->until ? ids->nuntil : 0)) {
		free(xs.start);
		return pp_nomem(p);
	}
	for (uint32_t v = 0; v < h->n; v++) {
		if (h->type[v] == h->t_synthetic)
			continue;
		if ((h->id[v] & 1) && h->id[v] > m)
			m = h->id[v];
		if ((k = lookup_id(&xs, h->id[v]))) {
			hit[v] |= 1;
			in_since++;
			same_since += (uint32_t)*k == look(h, v);
		}
		if (ids->until && (k = lookup_id(&xu, h->id[v]))) {
			hit[v] |= 2;
			in_until++;
			same_until += (uint32_t)*k == look(h, v);
		}
	}
	free(xs.start);
	free(xu.start);
	if (!ids->since)
		return PPROF_OK;
	/* One object keeps its id, type and name: ids shared by objects that
	 * differ are of another process, when most do. */
	if (same_since * 2 <= in_since)
		return pp_error(p, PPROF_EINPUT,
				"--since=%s: of the %zu ids it shares with this snapshot, %zu name "
				"the same object: a snapshot of another process",
				o->heap_since, in_since, same_since);
	if (ids->until && same_until * 2 <= in_until)
		return pp_error(p, PPROF_EINPUT,
				"--until=%s: of the %zu ids it shares with this snapshot, %zu name "
				"the same object: a snapshot of another process",
				o->heap_until, in_until, same_until);
	if (m < ids->since_max)
		return pp_error(p, PPROF_EINPUT,
				"--since=%s: its ids go up to %u, this snapshot's all below (%u): "
				"taken after it, or in another process",
				o->heap_since, ids->since_max, m);
	return PPROF_OK;
}

/* Profile tree nodes and their depths, bounded as read_heapsnapshot.c
 * bounds its stacks: the folded output is as long as the frames of all
 * stacks together. */
struct tree {
	struct pprof_profile *p;
	uint32_t *depth;
	size_t cap;
	uint64_t frames, maxframes;
	size_t inlen;
	uint32_t *framecache; /* profile string id -> frame id + 0 */
	size_t nframecache;
	struct pp_hs_pos *pos; /* the class names' positions (source maps) */
	uint32_t npos;
};

static int tree_init(struct tree *t, struct pprof_profile *p, size_t inlen)
{
	memset(t, 0, sizeof(*t));
	t->p = p;
	t->inlen = inlen;
	t->maxframes = ((uint64_t)1 << 22) + 16 * (uint64_t)inlen;
	void *d = NULL;
	if (!pp_grow(&d, &t->cap, (size_t)p->nnodes + 1, sizeof(*t->depth)))
		return pp_nomem(p);
	t->depth = d;
	t->depth[0] = 0;
	for (uint32_t i = 1; i < p->nnodes; i++)
		t->depth[i] = t->depth[p->nodes[i].parent] + 1;
	return PPROF_OK;
}

static void tree_release(struct tree *t)
{
	free(t->depth);
	free(t->framecache);
	free(t->pos);
}

/* The frame of profile string NAME: a class's, with its position when it
 * has one; an edge's (PLAIN) a name alone, though a class of that name may
 * be located (a minified class's variable in a context). */
static int frame_of(struct tree *t, uint32_t name, bool plain, uint32_t *f)
{
	struct pprof_profile *p = t->p;
	if (plain && name < t->npos && t->pos[name].file) {
		struct pp_frame fr;
		memset(&fr, 0, sizeof(fr));
		fr.name = name;
		return pp_frame_intern(p, &fr, f);
	}
	if (name >= t->nframecache) {
		size_t n = p->nstrs > name ? p->nstrs : (size_t)name + 1;
		uint32_t *c = realloc(t->framecache, (n + 1024) * sizeof(*c));
		if (!c)
			return pp_nomem(p);
		memset(c + t->nframecache, 0, (n + 1024 - t->nframecache) * sizeof(*c));
		t->framecache = c;
		t->nframecache = n + 1024;
	}
	if (!t->framecache[name]) {
		struct pp_frame fr;
		memset(&fr, 0, sizeof(fr));
		fr.name = name;
		if (name < t->npos && t->pos[name].file) {
			fr.file = t->pos[name].file;
			fr.line = t->pos[name].line;
			fr.column = t->pos[name].column;
		}
		int s = pp_frame_intern(p, &fr, &t->framecache[name]);
		if (s != PPROF_OK)
			return s;
	}
	*f = t->framecache[name];
	return PPROF_OK;
}

static int child_frame(struct tree *t, uint32_t up, uint32_t name, bool plain, uint32_t *out)
{
	struct pprof_profile *p = t->p;
	uint32_t f, before = p->nnodes;
	int s = frame_of(t, name, plain, &f);
	if (s != PPROF_OK || (s = pp_node_child(p, up, f, out)) != PPROF_OK)
		return s;
	if (p->nnodes == before)
		return PPROF_OK;
	void *d = t->depth;
	if (!pp_grow(&d, &t->cap, p->nnodes, sizeof(*t->depth)))
		return pp_nomem(p);
	t->depth = d;
	t->depth[*out] = t->depth[up] + 1;
	t->frames += t->depth[*out];
	if (t->frames > t->maxframes)
		return pp_error(p, PPROF_EINPUT,
				"the stacks expand to more than %llu frames, too many for %zu bytes",
				(unsigned long long)t->maxframes, t->inlen);
	return PPROF_OK;
}

static int child(struct tree *t, uint32_t up, uint32_t name, uint32_t *out)
{
	return child_frame(t, up, name, false, out);
}

static int sample(struct pprof_profile *p, uint32_t node, uint32_t self)
{
	int64_t vals[2] = {1, self};
	return pp_add_sample(p, node, 0, vals, 0);
}

/* Along dominator chains. */
static int dominator_profile(struct tree *t, const struct pp_hs *h, const uint8_t *inset,
			     const uint32_t *cls)
{
	struct pprof_profile *p = t->p;
	uint32_t *model = malloc((size_t)h->n * sizeof(*model));
	uint8_t *under = calloc(h->n, 1);
	uint32_t retained;
	int s;

	if (!model || !under) {
		s = pp_nomem(p);
		goto out;
	}
	if ((s = pp_intern_cstr(p, RETAINED, &retained)) != PPROF_OK)
		goto out;
	model[h->root] = 0;
	for (uint32_t k = 0; k < h->n; k++) {
		uint32_t v = h->order[k], d = h->dom[v];
		if (v == h->root)
			continue;
		uint32_t up = model[d];
		model[v] = up;
		under[v] = under[d];
		if (h->self[v] == 0)
			continue;
		if (inset[v]) {
			under[v] = 1;
			uint32_t f;
			if ((s = frame_of(t, cls[v], false, &f)) != PPROF_OK)
				goto out;
			if (up == 0 || p->nodes[up].frame != f)
				if ((s = child(t, up, cls[v], &model[v])) != PPROF_OK)
					goto out;
			s = sample(p, model[v], h->self[v]);
		} else if (under[v]) {
			uint32_t leaf;
			if ((s = child(t, up, retained, &leaf)) == PPROF_OK)
				s = sample(p, leaf, h->self[v]);
		}
		if (s != PPROF_OK)
			goto out;
	}
out:
	free(model);
	free(under);
	return s;
}

/* Whether edge E prints its name on a path: not element and hidden edges,
 * nor those whose name is an index all the same (the slots of V8's hash
 * tables, internal edges named "0", "1", ...), so that equal paths sum;
 * nor empty names. */
static bool named_edge(const struct pp_hs *h, uint32_t e)
{
	uint8_t et = h->etype[e];
	size_t len;
	if (et == h->et_element || et == h->et_hidden)
		return false;
	const char *s = pp_hs_str(h, h->ename[e], &len);
	size_t i = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	return i < len;
}

/* Snapshot string SN as a profile string, through the cache IDS. */
static int string_of(struct pprof_profile *p, const struct pp_hs *h, uint32_t *ids, uint32_t sn,
		     uint32_t *out)
{
	if (!ids[sn]) {
		size_t len;
		const char *str = pp_hs_str(h, sn, &len);
		int s = pp_intern(p, str, len, &ids[sn]);
		if (s != PPROF_OK)
			return s;
		ids[sn]++;
	}
	*out = ids[sn] - 1;
	return PPROF_OK;
}

/* Along the shortest retainer paths. */
static int retainer_profile(struct tree *t, const struct pp_hs *h, const uint8_t *inset,
			    const uint32_t *cls)
{
	struct pprof_profile *p = t->p;
	uint32_t *queue = malloc((size_t)h->n * sizeof(*queue));
	uint32_t *pedge = malloc((size_t)h->n * sizeof(*pedge)); /* the path's last edge */
	uint32_t *from = malloc((size_t)h->n * sizeof(*from));   /* that edge's source */
	uint32_t *mnode = malloc((size_t)h->n * sizeof(*mnode)); /* the profile's node */
	uint32_t *ename = NULL; /* snapshot string -> profile string id + 1 */
	uint8_t *need = calloc(h->n, 1);
	uint32_t nq = 0, unreachable = 0, name;
	int s = PPROF_OK;

	if (!queue || !pedge || !from || !mnode || !need ||
	    !(ename = calloc((size_t)h->nstrings + 1, sizeof(*ename)))) {
		s = pp_nomem(p);
		goto out;
	}
	memset(pedge, 0xff, (size_t)h->n * sizeof(*pedge));
	/* breadth-first from the root, in edge order */
	queue[nq++] = h->root;
	pedge[h->root] = h->e;
	from[h->root] = h->root;
	for (uint32_t qi = 0; qi < nq; qi++) {
		uint32_t v = queue[qi];
		for (uint32_t e = h->first[v]; e < h->first[v + 1]; e++) {
			uint32_t w = h->to[e];
			if (pedge[w] != PP_HS_NONE || !BIT_GET(h->essential, e))
				continue;
			pedge[w] = e;
			from[w] = v;
			queue[nq++] = w;
		}
	}
	/* the nodes on the paths to the samples */
	for (uint32_t v = 0; v < h->n; v++) {
		if (!inset[v] || h->self[v] == 0 || pedge[v] == PP_HS_NONE)
			continue;
		for (uint32_t w = v; w != h->root && !need[w]; w = from[w])
			need[w] = 1;
	}
	/* their stacks, a path's nodes before it */
	mnode[h->root] = 0;
	for (uint32_t qi = 1; qi < nq; qi++) {
		uint32_t v = queue[qi];
		if (!need[v])
			continue;
		uint32_t e = pedge[v], m = mnode[from[v]];
		if (named_edge(h, e)) {
			if ((s = string_of(p, h, ename, h->ename[e], &name)) != PPROF_OK ||
			    (s = child_frame(t, m, name, true, &m)) != PPROF_OK)
				goto out;
		}
		/* synthetic nodes by their names: (GC roots), (Global handles) */
		name = cls[v];
		if (h->type[v] == h->t_synthetic &&
		    (s = string_of(p, h, ename, h->name[v], &name)) != PPROF_OK)
			goto out;
		if ((s = child_frame(t, m, name, h->type[v] == h->t_synthetic, &mnode[v])) !=
		    PPROF_OK)
			goto out;
		if (inset[v] && h->self[v] && (s = sample(p, mnode[v], h->self[v])) != PPROF_OK)
			goto out;
	}
	/* the set's objects no path reaches */
	for (uint32_t v = 0; v < h->n; v++) {
		if (!inset[v] || h->self[v] == 0 || pedge[v] != PP_HS_NONE)
			continue;
		uint32_t m;
		if (!unreachable && (s = pp_intern_cstr(p, UNREACHABLE, &unreachable)) != PPROF_OK)
			goto out;
		if ((s = child(t, 0, unreachable, &m)) != PPROF_OK ||
		    (s = child(t, m, cls[v], &m)) != PPROF_OK ||
		    (s = sample(p, m, h->self[v])) != PPROF_OK)
			goto out;
	}
out:
	free(queue);
	free(pedge);
	free(from);
	free(mnode);
	free(ename);
	free(need);
	return s;
}

int pp_hs_leaks_profile(struct pprof_profile *p, struct pp_hs *h, const struct pp_hs_ids *ids,
			size_t inlen, const struct pprof_read_options *o)
{
	uint32_t *cls = malloc((size_t)h->n * sizeof(*cls));
	uint8_t *inset = malloc(h->n);
	struct tree t;
	int s;

	memset(&t, 0, sizeof(t));
	if (!cls || !inset) {
		s = pp_nomem(p);
		goto out;
	}
	if ((s = check_ids(p, h, ids, o, inset)) != PPROF_OK)
		goto out;
	for (uint32_t v = 0; v < h->n; v++) {
		/* synthetic nodes are no objects (BASELINE's ids leave them out) */
		bool in = v != h->root && h->type[v] != h->t_synthetic;
		if (in && ids->since)
			in = !(inset[v] & 1);
		if (in && ids->until)
			in = (inset[v] & 2) != 0;
		inset[v] = in;
	}
	if ((s = pp_hs_class_names(p, h, cls)) != PPROF_OK ||
	    (s = pp_hs_begin_types(p)) != PPROF_OK || (s = tree_init(&t, p, inlen)) != PPROF_OK ||
	    (s = pp_hs_class_positions(p, h, cls, &t.pos, &t.npos)) != PPROF_OK)
		goto out;
	s = o->heap_retainers ? retainer_profile(&t, h, inset, cls)
			      : dominator_profile(&t, h, inset, cls);
out:
	tree_release(&t);
	free(cls);
	free(inset);
	return s;
}
