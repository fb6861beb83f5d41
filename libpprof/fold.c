/* fold.c: the profile as folded stacks, in bytewise order, without building
 * the lines first.
 *
 * Frames are named at the chosen granularity and the tree is rebuilt on the
 * names (so frames that print alike merge).  Lines then come out of one
 * depth-first walk: at each node, a child contributes two items, its own line
 * (key NAME) and its descendants' lines (key "NAME;"); sorting the items
 * bytewise orders every line below the node, because names hold no ';'. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "folded_private.h"

struct dnode {
	uint32_t name;   /* string id of the printed name */
	uint32_t first;  /* index of the first child in the children array */
	uint32_t count;  /* number of children */
	uint32_t parent; /* its parent display node (in the padding) */
	int64_t value;
};

struct item {
	uint32_t node;
	uint32_t desc; /* 0: the node's own line; 1: its descendants */
};

struct folder {
	struct pprof_profile *p;
	struct dnode *dn;
	uint32_t ndn;
	uint32_t *children;
	size_t capdn, nchildren; /* the sizes dn and children were made with */
};

/* Bytewise order of NAME (desc 0) or NAME";" (desc 1). */
static int item_cmp_ctx(const struct item *a, const struct item *b, const struct folder *f)
{
	const struct pprof_profile *p = f->p;
	uint32_t na = f->dn[a->node].name, nb = f->dn[b->node].name;
	size_t la = pp_strlen(p, na), lb = pp_strlen(p, nb);
	size_t m = la < lb ? la : lb;
	int c = memcmp(pp_str(p, na), pp_str(p, nb), m);
	if (c)
		return c;
	/* One name is a prefix of the other (or they are equal): compare the
	 * next byte, which is ';' for a descendants item and "end" otherwise. */
	int ca = la > m ? (unsigned char)pp_str(p, na)[m] : (a->desc ? ';' : -1);
	int cb = lb > m ? (unsigned char)pp_str(p, nb)[m] : (b->desc ? ';' : -1);
	if (ca == cb) /* equal names: only one node's own and descendants items */
		return a->node != b->node ? (a->node < b->node ? -1 : 1) : (int)a->desc - (int)b->desc;
	return ca < cb ? -1 : 1;
}

/* qsort has no context argument in C11: the folder of the thread's walk. */
static _Thread_local const struct folder *sort_ctx;
static int item_cmp(const void *a, const void *b)
{
	return item_cmp_ctx(a, b, sort_ctx);
}

/* An open-addressing map from (parent, name) to a display node: a slot
 * holds the node + 1 (0 = empty), its key is read back from the node, so a
 * slot is 4 bytes (a profile of millions of nodes has as many slots).  It
 * holds only the children of parents with two or more: most parents of a
 * call tree have one child, found without the map (build()). */
struct dmap {
	uint32_t *slots;
	uint32_t cap;
};

/* Where (DP, NAME) is first looked for in M. */
static inline uint32_t dmap_home(const struct dmap *m, uint32_t dp, uint32_t name)
{
	uint64_t key = ((uint64_t)dp << 32) | name;
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 32) & (m->cap - 1);
}

/* The slot of (DP, NAME) in M: its node's, or the empty one where it goes. */
static inline uint32_t dmap_slot(const struct dmap *m, const struct dnode *dn, uint32_t dp,
				 uint32_t name)
{
	uint32_t s = dmap_home(m, dp, name);
	for (;;) {
		uint32_t v = m->slots[s];
		if (!v || (dn[v - 1].name == name && dn[v - 1].parent == dp))
			return s;
		s = (s + 1) & (m->cap - 1);
	}
}

/* Puts display node D, not in M, into M. */
static inline void dmap_put(struct dmap *m, const struct dnode *dn, uint32_t d)
{
	m->slots[dmap_slot(m, dn, dn[d].parent, dn[d].name)] = d + 1;
}

/* The selected value of the entry in the low half of K. */
static inline int64_t entry_value(const struct pprof_profile *p, uint64_t k, int sel)
{
	return p->values[(size_t)(uint32_t)k * p->ntypes + (uint32_t)sel];
}

/* Sorts K[0 .. n) by their high halves (node ids), keeping the order of
 * equal ones: two passes of a radix sort on 16 bits each. */
static int sort_by_node(struct pprof_profile *p, uint64_t *k, size_t n)
{
	if (n < 2)
		return PPROF_OK;
	uint64_t *t = pp_big_calloc(n, sizeof(*t));
	size_t *count = calloc((size_t)1 << 16, sizeof(*count));
	if (!t || !count) {
		pp_big_free(t, n, sizeof(*t));
		free(count);
		return pp_nomem(p);
	}
	uint64_t *from = k, *to = t;
	for (unsigned shift = 32; shift < 64; shift += 16) {
		memset(count, 0, ((size_t)1 << 16) * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[(from[i] >> shift) & 0xffff]++;
		size_t sum = 0;
		for (size_t c = 0; c < ((size_t)1 << 16); c++) {
			size_t x = count[c];
			count[c] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++)
			to[count[(from[i] >> shift) & 0xffff]++] = from[i];
		uint64_t *sw = from;
		from = to;
		to = sw;
	}
	/* two passes: the sorted keys are back in K */
	pp_big_free(t, n, sizeof(*t));
	free(count);
	return PPROF_OK;
}

/* How many nodes ahead build() fetches what a node will read. */
#define FETCH_AHEAD 8

/* A new display node NAME, child of DP, and DP's newest child until
 * build()'s step 4 makes FIRST the start of its list. */
static inline uint32_t dnode_add(struct folder *f, uint32_t name, uint32_t dp)
{
	uint32_t d = f->ndn++;
	f->dn[d] = (struct dnode){name, 0, 0, dp, 0};
	f->dn[dp].first = d;
	f->dn[dp].count++;
	return d;
}

static int build(struct folder *f, const struct pprof_fold_options *o)
{
	struct pprof_profile *p = f->p;
	int sel = o->sample_index;
	int status = PPROF_OK;
	/* Only walks follow: the child index is not needed while folding. */
	pp_drop_node_index(p);
	uint32_t *fname = malloc((size_t)p->nframes * sizeof(*fname));
	/* The arrays of millions of entries are mappings of their own: they
	 * go back to the system when freed, before the next ones are made. */
	size_t nn = p->nnodes;
	size_t ne = p->nentries;
	uint64_t *byn = pp_big_calloc(ne, sizeof(*byn));
	uint32_t *dof = pp_big_calloc(nn, sizeof(*dof));
	struct dmap m = {0};
	struct pp_populate *pg = NULL;
	f->dn = pp_big_calloc(nn, sizeof(*f->dn));
	f->capdn = nn;
	if (!fname || !byn || !dof || !f->dn) {
		status = pp_nomem(p);
		goto out;
	}

	/* 1. Printed names of the frames, interned in the profile's strings. */
	status = pp_frame_names(p, o->granularity, fname);
	if (status != PPROF_OK)
		goto out;

	/* 2. The entries in node order (entry order among a node's): a node's
	 * value is then summed as step 3 reaches it, from a list of the
	 * entries (a few per sample) rather than an array of every node. */
	for (size_t e = 0; e < ne; e++)
		byn[e] = (uint64_t)p->entries[e].node << 32 | e;
	status = sort_by_node(p, byn, ne);
	if (status != PPROF_OK)
		goto out;
	size_t at_e = 0;
	int64_t rootval = 0; /* the root's own value is not printed, but summed */
	for (; at_e < ne && (byn[at_e] >> 32) == 0; at_e++)
		if (__builtin_add_overflow(rootval, entry_value(p, byn[at_e], sel), &rootval)) {
			status = pp_error(p, PPROF_EINPUT, "sum of values leaves the 64-bit range");
			goto out;
		}

	/* 3. The tree on printed names; a parent always has a smaller id than
	 * its children, so one pass in id order suffices.  When no two frames
	 * print alike (folded input, most V8 profiles at -g lines), it is the
	 * tree itself and needs no map. */
	bool injective = true;
	{
		uint8_t *seen = calloc(p->nstrs, 1);
		if (!seen) {
			status = pp_nomem(p);
			goto out;
		}
		for (uint32_t i = 1; i < p->nframes && injective; i++) {
			if (seen[fname[i]])
				injective = false;
			seen[fname[i]] = 1;
		}
		free(seen);
	}
	f->ndn = 1;
	f->dn[0] = (struct dnode){0, 0, 0, 0, 0};
	dof[0] = 0;
	if (!injective) {
		m.cap = 1024;
		while (m.cap < nn + nn / 4 + 1 && m.cap < (1u << 31))
			m.cap *= 2;
		m.slots = pp_big_calloc(m.cap, sizeof(*m.slots));
		if (!m.slots) {
			status = pp_nomem(p);
			goto out;
		}
	}
	/* the map's pages first (touched anywhere), then the display nodes'
	 * and DOF's (touched in order, from their start) */
	pg = pp_populate_start((void *[]){m.slots, f->dn, dof},
			       (size_t[]){m.cap * sizeof(*m.slots), nn * sizeof(*f->dn),
					  nn * sizeof(*dof)},
			       3);
	/* While the tree is made, a display node's FIRST is its newest child
	 * (step 4 sets it): a parent of one child needs no map, and the
	 * newest child is tried first, since frames that print alike
	 * often follow one another under a parent (two lines of a function). */
	const struct pp_node *nodes = p->nodes;
	for (uint32_t n = 1; n < p->nnodes; n++) {
		/* A parent is read at random, a cache miss on a big tree: its
		 * display node, and that one's newest child, are fetched ahead
		 * (a parent made since is near, in the cache anyway). */
		if (n + 3 * FETCH_AHEAD < p->nnodes)
			__builtin_prefetch(&dof[nodes[n + 3 * FETCH_AHEAD].parent]);
		if (n + 2 * FETCH_AHEAD < p->nnodes)
			__builtin_prefetch(&f->dn[dof[nodes[n + 2 * FETCH_AHEAD].parent]]);
		if (n + FETCH_AHEAD < p->nnodes) {
			const struct pp_node *x = &nodes[n + FETCH_AHEAD];
			uint32_t xp = dof[x->parent];
			const struct dnode *a = &f->dn[xp];
			__builtin_prefetch(&f->dn[a->first]);
			if (!injective && a->count)
				__builtin_prefetch(&m.slots[dmap_home(&m, xp, fname[x->frame])]);
		}
		uint32_t dp = dof[nodes[n].parent];
		uint32_t name = fname[nodes[n].frame];
		uint32_t d, count = f->dn[dp].count, newest = f->dn[dp].first;
		if (!injective && count && f->dn[newest].name == name) {
			d = newest;
		} else if (injective || count < 2) {
			d = dnode_add(f, name, dp);
			if (!injective && count == 1) { /* the second: both in the map */
				dmap_put(&m, f->dn, newest);
				dmap_put(&m, f->dn, d);
			}
		} else {
			uint32_t s = dmap_slot(&m, f->dn, dp, name);
			if (m.slots[s]) {
				d = m.slots[s] - 1;
			} else {
				d = dnode_add(f, name, dp);
				m.slots[s] = d + 1;
			}
		}
		dof[n] = d;
		int64_t nval = 0;
		for (; at_e < ne && (byn[at_e] >> 32) == n; at_e++)
			if (__builtin_add_overflow(nval, entry_value(p, byn[at_e], sel), &nval)) {
				status = pp_error(p, PPROF_EINPUT,
						  "sum of values leaves the 64-bit range");
				goto out;
			}
		if (__builtin_add_overflow(f->dn[d].value, nval, &f->dn[d].value)) {
			status = pp_error(p, PPROF_EINPUT, "sum of values leaves the 64-bit range");
			goto out;
		}
	}
	pp_populate_end(pg);
	pg = NULL;
	pp_big_free(byn, ne, sizeof(*byn));
	byn = NULL;
	pp_big_free(m.slots, m.cap, sizeof(*m.slots));
	m.slots = NULL;

	/* 4. Children lists (CSR).  Display nodes were also made parent first. */
	f->nchildren = f->ndn ? f->ndn : 1;
	f->children = pp_big_calloc(f->nchildren, sizeof(*f->children));
	if (!f->children) {
		status = pp_nomem(p);
		goto out;
	}
	uint32_t at = 0;
	for (uint32_t d = 0; d < f->ndn; d++) {
		f->dn[d].first = at;
		at += f->dn[d].count;
		f->dn[d].count = 0;
	}
	/* Display nodes were made parent first: in id order, each goes to the
	 * end of its parent's list (the parent fetched ahead). */
	for (uint32_t d = 1; d < f->ndn; d++) {
		if (d + FETCH_AHEAD < f->ndn)
			__builtin_prefetch(&f->dn[f->dn[d + FETCH_AHEAD].parent]);
		uint32_t dp = f->dn[d].parent;
		f->children[f->dn[dp].first + f->dn[dp].count++] = d;
	}
out:
	pp_populate_end(pg);
	free(fname);
	pp_big_free(byn, ne, sizeof(*byn));
	pp_big_free(dof, nn, sizeof(*dof));
	pp_big_free(m.slots, m.cap, sizeof(*m.slots));
	return status;
}

/* The depth-first walk of the display tree: per level, where its items
 * start, the next one, and the length of the path string at that level. */
struct level {
	size_t begin, next, end, pathlen;
	uint32_t node;
};

struct walker {
	struct folder *f;
	struct item *items;
	size_t nitems, capitems;
	struct level *lv;
	size_t nlv, caplv;
	struct pp_buf path;
};

static void walker_release(struct walker *w)
{
	pp_buf_release(&w->path);
	free(w->items);
	free(w->lv);
}

static bool walker_room(struct walker *w, size_t need)
{
	if (need > w->capitems) {
		size_t cap = w->capitems ? w->capitems : 256;
		while (cap < need)
			cap *= 2;
		struct item *ni = realloc(w->items, cap * sizeof(*ni));
		if (!ni)
			return false;
		w->items = ni;
		w->capitems = cap;
	}
	if (w->nlv == w->caplv) {
		size_t cap = w->caplv ? w->caplv * 2 : 64;
		struct level *nl = realloc(w->lv, cap * sizeof(*nl));
		if (!nl)
			return false;
		w->lv = nl;
		w->caplv = cap;
	}
	return true;
}

/* Items sorted in place, without qsort()'s calls, up to this many. */
#define SMALL_SORT 16

/* Enters NODE, whose path is w->path: a level of its children's items,
 * sorted. */
static bool walker_enter(struct walker *w, uint32_t node)
{
	const struct folder *f = w->f;
	const struct dnode *d = &f->dn[node];
	if (!walker_room(w, w->nitems + 2 * (size_t)d->count))
		return false;
	size_t begin = w->nitems;
	for (uint32_t k = 0; k < d->count; k++) {
		uint32_t c = f->children[d->first + k];
		if (f->dn[c].value != 0)
			w->items[w->nitems++] = (struct item){c, 0};
		if (f->dn[c].count) {
			w->items[w->nitems++] = (struct item){c, 1};
			/* entered soon: its children's list fetched meanwhile */
			__builtin_prefetch(&f->children[f->dn[c].first]);
		}
	}
	/* one child: its own line, then its descendants', already in order (and
	 * no child: W->items may still be NULL, not to be offset) */
	size_t n = w->nitems - begin;
	if (d->count > 1 && n > SMALL_SORT) {
		sort_ctx = f;
		qsort(w->items + begin, n, sizeof(*w->items), item_cmp);
	} else if (d->count > 1) {
		struct item *a = w->items + begin;
		for (size_t i = 1; i < n; i++) { /* insertion */
			struct item x = a[i];
			size_t j = i;
			for (; j > 0 && item_cmp_ctx(&x, &a[j - 1], f) < 0; j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
	}
	w->lv[w->nlv++] = (struct level){begin, begin, w->nitems, w->path.len, node};
	return true;
}

/* Appends the name of display node C to the path, after a ';' unless it
 * is the first. */
static bool walker_step(struct walker *w, const struct dnode *c)
{
	const struct pprof_profile *p = w->f->p;
	return (!w->path.len || pp_buf_addc(&w->path, ';')) &&
	       pp_buf_add(&w->path, pp_str(p, c->name), pp_strlen(p, c->name));
}

/* Takes the items of the levels entered, innermost first, until none is
 * left: a node's own line is emitted, its descendants entered.  Out of
 * memory is PPROF_ENOMEM without a message (the walk may run on a thread
 * of its own): the caller sets it. */
static int walker_run(struct walker *w,
		      int (*emit)(void *ctx, const char *stack, size_t len, int64_t value),
		      void *ctx)
{
	struct folder *f = w->f;
	while (w->nlv) {
		struct level *l = &w->lv[w->nlv - 1];
		if (l->next == l->end) {
			w->nitems = l->begin;
			w->nlv--;
			continue;
		}
		struct item it = w->items[l->next++];
		const struct dnode *c = &f->dn[it.node];
		w->path.len = l->pathlen;
		if (!walker_step(w, c))
			return PPROF_ENOMEM;
		if (it.desc == 0) {
			int s = emit(ctx, w->path.s, w->path.len, c->value);
			if (s != PPROF_OK)
				return s;
		} else if (!walker_enter(w, it.node)) {
			return PPROF_ENOMEM;
		}
	}
	return PPROF_OK;
}

/* The display tree, built, into F; *DONE when the lines were those of
 * folded text, given to EMIT already. */
static int fold_begin(struct pprof_profile *p, const struct pprof_fold_options *o,
		      int (*emit)(void *ctx, const char *stack, size_t len, int64_t value),
		      void *ctx, struct folder *f, bool *done)
{
	*done = false;
	if (o->sample_index < 0 || (uint32_t)o->sample_index >= p->ntypes)
		return pp_error(p, PPROF_EUSAGE, "no sample type selected");
	/* Folded text nothing has changed: its lines as they are. */
	struct pprof_folded *lines;
	int s = pp_flines_fold(p, o, &lines, done);
	if (s != PPROF_OK || *done) {
		for (size_t i = 0; s == PPROF_OK && *done && i < lines->n; i++)
			s = emit(ctx, lines->lines[i].stack, lines->lines[i].len, lines->lines[i].value);
		if (*done)
			pprof_folded_free(lines);
		return s;
	}
	int settled = pp_settle(p);
	if (settled != PPROF_OK)
		return settled;
	*f = (struct folder){p, NULL, 0, NULL, 0, 0};
	return build(f, o);
}

static void folder_release(struct folder *f)
{
	pp_big_free(f->dn, f->capdn, sizeof(*f->dn));
	pp_big_free(f->children, f->nchildren, sizeof(*f->children));
}

int pprof_fold_each(struct pprof_profile *p, const struct pprof_fold_options *o,
		    int (*emit)(void *ctx, const char *stack, size_t len, int64_t value), void *ctx)
{
	struct folder f = {p, NULL, 0, NULL, 0, 0};
	bool done;
	int status = fold_begin(p, o, emit, ctx, &f, &done);
	if (status != PPROF_OK || done) {
		folder_release(&f);
		return status;
	}
	struct walker w = {&f, NULL, 0, 0, NULL, 0, 0, PP_BUF_INIT};
	status = walker_enter(&w, 0) ? walker_run(&w, emit, ctx) : PPROF_ENOMEM;
	if (status == PPROF_ENOMEM)
		status = pp_nomem(p);
	walker_release(&w);
	folder_release(&f);
	return status;
}

/* ---- folded lines in memory ---- */

struct collect {
	struct pprof_profile *p;
	struct pprof_folded *f;
	size_t cap, bufcap;
};

static int collect_line(void *ctx, const char *stack, size_t len, int64_t value)
{
	struct collect *c = ctx;
	struct pprof_folded *f = c->f;
	if (f->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct pprof_folded_line *l = realloc(f->lines, cap * sizeof(*l));
		if (!l)
			return pp_nomem(c->p);
		f->lines = l;
		c->cap = cap;
	}
	if (f->buflen + len > c->bufcap) {
		size_t cap = c->bufcap ? c->bufcap : 65536;
		while (cap < f->buflen + len)
			cap *= 2;
		char *b = realloc(f->buf, cap);
		if (!b)
			return pp_nomem(c->p);
		f->buf = b;
		c->bufcap = cap;
	}
	memcpy(f->buf + f->buflen, stack, len);
	/* Offsets for now: the buffer moves while it grows. */
	f->lines[f->n].stack = (const char *)(uintptr_t)f->buflen;
	f->lines[f->n].len = len;
	f->lines[f->n].value = value;
	f->buflen += len;
	f->n++;
	if (__builtin_add_overflow(f->total, value, &f->total))
		return pp_error(c->p, PPROF_EINPUT, "sum of values leaves the 64-bit range");
	return PPROF_OK;
}

int pprof_fold(struct pprof_profile *p, const struct pprof_fold_options *o,
	       struct pprof_folded **out)
{
	/* Folded text nothing has changed: its lines, not copied. */
	if (o->sample_index >= 0 && (uint32_t)o->sample_index < p->ntypes) {
		bool done;
		int s = pp_flines_fold(p, o, out, &done);
		if (s != PPROF_OK || done)
			return s;
	}
	struct pprof_folded *f = calloc(1, sizeof(*f));
	if (!f)
		return pp_nomem(p);
	struct collect c = {p, f, 0, 0};
	int s = pprof_fold_each(p, o, collect_line, &c);
	if (s != PPROF_OK) {
		pprof_folded_free(f);
		return s;
	}
	for (size_t i = 0; i < f->n; i++)
		f->lines[i].stack = f->buf + (uintptr_t)f->lines[i].stack;
	*out = f;
	return PPROF_OK;
}

void pprof_folded_free(struct pprof_folded *f)
{
	if (!f)
		return;
	free(f->lines);
	free(f->buf);
	free(f);
}

/* Folded lines go out through a buffer of their own, 1 MiB at a time: one
 * fwrite() per line (two with its value) cost as much as the walk on a
 * profile that folds to gigabytes of text. */
#define WBUF_SIZE ((size_t)1 << 20)

struct writer {
	struct pprof_profile *p;
	FILE *out;
	char *buf;
	size_t len;
};

static int writer_flush(struct writer *w)
{
	if (w->len && fwrite(w->buf, 1, w->len, w->out) != w->len)
		return PPROF_EIO;
	w->len = 0;
	return PPROF_OK;
}

/* " VALUE\n" into D (at least 22 bytes); its length. */
static size_t format_value(char *d, int64_t value)
{
	char t[24];
	size_t n = 0;
	uint64_t u = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
	do {
		t[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	size_t k = 0;
	d[k++] = ' ';
	if (value < 0)
		d[k++] = '-';
	while (n)
		d[k++] = t[--n];
	d[k++] = '\n';
	return k;
}

static int write_line(struct writer *w, const char *stack, size_t len, int64_t value)
{
	if (w->len + len + 24 > WBUF_SIZE) {
		if (writer_flush(w) != PPROF_OK)
			return PPROF_EIO;
		if (len + 24 > WBUF_SIZE) { /* a stack longer than the buffer */
			if (fwrite(stack, 1, len, w->out) != len)
				return PPROF_EIO;
			len = 0;
		}
	}
	memcpy(w->buf + w->len, stack, len);
	w->len += len;
	w->len += format_value(w->buf + w->len, value);
	return PPROF_OK;
}

int pprof_folded_write(const struct pprof_folded *f, FILE *out)
{
	for (size_t i = 0; i < f->n; i++) {
		char num[24];
		size_t n = format_value(num, f->lines[i].value);
		if (fwrite(f->lines[i].stack, 1, f->lines[i].len, out) != f->lines[i].len ||
		    fwrite(num, 1, n, out) != n)
			return PPROF_EIO;
	}
	return PPROF_OK;
}

static int write_emit(void *ctx, const char *stack, size_t len, int64_t value)
{
	struct writer *w = ctx;
	if (write_line(w, stack, len, value) != PPROF_OK)
		return pp_error(w->p, PPROF_EIO, "write error: %s", strerror(errno));
	return PPROF_OK;
}

/* ---- folded text on two threads ----
 *
 * A big profile folds to gigabytes of text (2 GB in 476k lines on the
 * bench profile): the walk and the copies are shared by two threads.  The
 * lines are cut into tasks in output order, each a run of items of one
 * display node's level of at most about 1/PAR_TASKS of the lines, and of
 * lines whose text would about half fill a buffer at their mean length
 * (par_limit()), found by a walk of the upper tree (an item whose lines
 * are too many for one task is entered instead).  Each thread takes the
 * next task, renders it into a buffer of its own and hands it over;
 * whichever thread finds the next task in output order ready writes it,
 * and those ready after it.  A thread takes no new task while PAR_AHEAD
 * tasks wait to be written (a thread that is not scheduled holds the other
 * back), and a task whose text fills its buffer (PAR_BUF bytes) waits for
 * its turn and then writes as it goes, so that memory stays bounded
 * whatever the lines.
 * The buffers are reused: fresh pages cost a fault each, and a buffer per
 * task faulted in the 2 GB three times over. */
size_t pp_fold_par_min = (size_t)1 << 15;
#define PAR_TASKS 512
#define PAR_BUF ((size_t)4 << 20)
#define PAR_AHEAD 3
/* a worker that stopped because the other failed */
#define PAR_STOPPED (-1)

struct task {
	uint32_t node;     /* the level's node */
	size_t begin, end; /* its items, par.items[begin .. end) */
	char *text;        /* rendered, waiting to be written */
	size_t len;
};

struct par {
	struct folder *f;
	FILE *out;
	struct item *items;
	size_t nitems, capitems;
	struct task *tasks;
	size_t ntasks, captasks;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next;    /* the next task to take */
	size_t turn;    /* the task whose text goes out next */
	size_t waiting; /* tasks rendered, not yet written */
	bool writing;   /* a thread writes (outside the lock) */
	bool failed;
	int status, err;           /* the first failure, and errno of a failed write */
	char *pool[PAR_AHEAD + 1]; /* buffers written, for the next tasks */
	int npool;
};

struct pworker {
	struct par *par;
	size_t task; /* the task being rendered */
	bool myturn; /* it is written as it goes */
	char *buf;   /* PAR_BUF bytes */
	size_t len;
	struct walker w;
	uint32_t *chain; /* a task's node and its ancestors */
	size_t capchain;
	int err;
	pthread_t th;
};

/* The number of lines of each display node's subtree, its own included
 * (saturated); NULL when out of memory.  Freed with pp_big_free(). */
static uint32_t *par_lines(const struct folder *f)
{
	uint32_t *n = pp_big_calloc(f->ndn, sizeof(*n));
	if (!n)
		return NULL;
	/* children have larger ids than their parents */
	for (uint32_t d = f->ndn; d-- > 1;) {
		uint32_t v = n[d] + (f->dn[d].value != 0 && n[d] < UINT32_MAX);
		n[d] = v;
		uint32_t *up = &n[f->dn[d].parent];
		*up = *up > UINT32_MAX - v ? UINT32_MAX : *up + v;
	}
	return n;
}

/* The lines a task may take (see above), of the TOTAL lines that LINES
 * counts.  Each name is in as many lines as its display node's subtree
 * holds, so their text's length is known without a walk.  Only the lines
 * count was the bound before: the tasks of the bench pprof at 16 times its
 * size were 70 MB of text, so a thread that filled its buffer waited for
 * the other's whole task to go out, and the text took 4.06 s on two
 * threads against 2.29 s with tasks of about a buffer (0.20 s at 1x). */
static uint64_t par_limit(const struct folder *f, const uint32_t *lines, uint64_t total)
{
	const struct pprof_profile *p = f->p;
	if (!total)
		return 1;
	uint64_t bytes = 24 * total; /* a value, its ' ' and newline at most */
	for (uint32_t d = 1; d < f->ndn; d++) {
		uint64_t b;
		if (__builtin_mul_overflow(pp_strlen(p, f->dn[d].name) + 1, (uint64_t)lines[d], &b) ||
		    __builtin_add_overflow(bytes, b, &bytes))
			bytes = UINT64_MAX;
	}
	uint64_t limit = total / PAR_TASKS ? total / PAR_TASKS : 1;
	uint64_t fit = PAR_BUF / 2 / (bytes / total ? bytes / total : 1);
	fit = fit ? fit : 1;
	return fit < limit ? fit : limit;
}

/* The tasks (see above), each of at most LIMIT lines unless it is one
 * item. */
static int par_plan(struct par *pr, const uint32_t *lines, uint64_t limit)
{
	const struct folder *f = pr->f;
	struct walker w = {pr->f, NULL, 0, 0, NULL, 0, 0, PP_BUF_INIT};
	int s = walker_enter(&w, 0) ? PPROF_OK : PPROF_ENOMEM;
	bool open = false; /* the last task takes more items of this level */
	uint64_t n = 0;    /* its lines */
	while (s == PPROF_OK && w.nlv) {
		struct level *l = &w.lv[w.nlv - 1];
		if (l->next == l->end) {
			w.nitems = l->begin;
			w.nlv--;
			open = false;
			continue;
		}
		struct item it = w.items[l->next++];
		const struct dnode *c = &f->dn[it.node];
		uint64_t weight = it.desc ? lines[it.node] - (c->value != 0) : 1;
		if (it.desc && weight > limit) {
			open = false;
			if (!walker_enter(&w, it.node))
				s = PPROF_ENOMEM;
			continue;
		}
		if (!open || n + weight > limit) {
			if (!pp_grow((void **)&pr->tasks, &pr->captasks, pr->ntasks + 1,
				     sizeof(*pr->tasks))) {
				s = PPROF_ENOMEM;
				break;
			}
			pr->tasks[pr->ntasks++] =
				(struct task){l->node, pr->nitems, pr->nitems, NULL, 0};
			open = true;
			n = 0;
		}
		if (!pp_grow((void **)&pr->items, &pr->capitems, pr->nitems + 1,
			     sizeof(*pr->items))) {
			s = PPROF_ENOMEM;
			break;
		}
		pr->items[pr->nitems++] = it;
		pr->tasks[pr->ntasks - 1].end = pr->nitems;
		n += weight;
	}
	walker_release(&w);
	return s;
}

static void par_fail(struct par *pr, int status, int err)
{
	pthread_mutex_lock(&pr->mu);
	if (!pr->failed) {
		pr->failed = true;
		pr->status = status;
		pr->err = err;
	}
	pthread_cond_broadcast(&pr->cv);
	pthread_mutex_unlock(&pr->mu);
}

static int par_fwrite(struct pworker *k, const char *s, size_t n)
{
	if (n && fwrite(s, 1, n, k->par->out) != n) {
		k->err = errno;
		return PPROF_EIO;
	}
	return PPROF_OK;
}

/* With the lock held and pr->writing set by the caller: writes the tasks
 * ready from pr->turn on, the lock let go meanwhile. */
static int par_drain(struct pworker *k)
{
	struct par *pr = k->par;
	int s = PPROF_OK;
	while (s == PPROF_OK && pr->turn < pr->ntasks && pr->tasks[pr->turn].text) {
		struct task *t = &pr->tasks[pr->turn];
		char *text = t->text;
		size_t len = t->len;
		pthread_mutex_unlock(&pr->mu);
		s = par_fwrite(k, text, len);
		pthread_mutex_lock(&pr->mu);
		if (pr->npool < (int)(sizeof(pr->pool) / sizeof(pr->pool[0])))
			pr->pool[pr->npool++] = text;
		else
			free(text);
		t->text = NULL;
		pr->waiting--;
		pr->turn++;
		pthread_cond_broadcast(&pr->cv);
	}
	return s;
}

/* Waits until task I is the next to go out and no one writes, then
 * writes from here on (pr->writing); false when a thread failed. */
static bool par_take_turn(struct par *pr, size_t i)
{
	pthread_mutex_lock(&pr->mu);
	while ((pr->turn != i || pr->writing) && !pr->failed)
		pthread_cond_wait(&pr->cv, &pr->mu);
	bool ok = !pr->failed;
	if (ok)
		pr->writing = true;
	pthread_mutex_unlock(&pr->mu);
	return ok;
}

/* A buffer of PAR_BUF bytes for K, from the pool when it has one, else
 * huge pages asked for; false when out of memory. */
static bool par_buf(struct pworker *k)
{
	struct par *pr = k->par;
	k->len = 0;
	if (k->buf)
		return true;
	pthread_mutex_lock(&pr->mu);
	if (pr->npool)
		k->buf = pr->pool[--pr->npool];
	pthread_mutex_unlock(&pr->mu);
	if (k->buf)
		return true;
	void *a;
	if (posix_memalign(&a, (size_t)2 << 20, PAR_BUF) != 0)
		return false;
#ifdef MADV_HUGEPAGE
	(void)madvise(a, PAR_BUF, MADV_HUGEPAGE);
#endif
	k->buf = a;
	return true;
}

/* The rest of the task is written as it goes: its turn waited for. */
static int par_stream(struct pworker *k)
{
	if (!k->myturn) {
		if (!par_take_turn(k->par, k->task))
			return PAR_STOPPED;
		k->myturn = true;
	}
	int s = par_fwrite(k, k->buf, k->len);
	k->len = 0;
	return s;
}

static int par_emit(void *ctx, const char *stack, size_t len, int64_t value)
{
	struct pworker *k = ctx;
	int s;
	if (len + 24 > PAR_BUF - k->len) {
		if ((s = par_stream(k)) != PPROF_OK)
			return s;
		if (len + 24 > PAR_BUF) { /* a line longer than the buffer */
			char num[24];
			if ((s = par_fwrite(k, stack, len)) != PPROF_OK)
				return s;
			return par_fwrite(k, num, format_value(num, value));
		}
	}
	memcpy(k->buf + k->len, stack, len);
	k->len += len;
	k->len += format_value(k->buf + k->len, value);
	return PPROF_OK;
}

/* Renders task I through par_emit(): the path of its node, then its
 * items. */
static int par_render(struct pworker *k, size_t i)
{
	const struct par *pr = k->par;
	const struct folder *f = pr->f;
	const struct task *t = &pr->tasks[i];
	struct walker *w = &k->w;
	size_t depth = 0;
	for (uint32_t d = t->node; d != 0; d = f->dn[d].parent) {
		if (!pp_grow((void **)&k->chain, &k->capchain, depth + 1, sizeof(*k->chain)))
			return PPROF_ENOMEM;
		k->chain[depth++] = d;
	}
	pp_buf_setlen(&w->path, 0);
	while (depth)
		if (!walker_step(w, &f->dn[k->chain[--depth]]))
			return PPROF_ENOMEM;
	size_t n = t->end - t->begin;
	w->nitems = 0;
	w->nlv = 0;
	if (!walker_room(w, n))
		return PPROF_ENOMEM;
	memcpy(w->items, pr->items + t->begin, n * sizeof(*w->items));
	w->nitems = n;
	w->lv[w->nlv++] = (struct level){0, 0, n, w->path.len, t->node};
	return walker_run(w, par_emit, k);
}

/* Task I rendered (k->buf, or written as it went): written now when its
 * turn has come and no one writes, else left for the thread that writes. */
static int par_done(struct pworker *k, size_t i)
{
	struct par *pr = k->par;
	int s = PPROF_OK;
	if (k->myturn) {
		s = par_fwrite(k, k->buf, k->len);
		pthread_mutex_lock(&pr->mu);
		pr->turn = i + 1;
		pthread_cond_broadcast(&pr->cv);
	} else {
		/* the buffer goes with the task */
		pthread_mutex_lock(&pr->mu);
		pr->tasks[i].text = k->buf;
		pr->tasks[i].len = k->len;
		k->buf = NULL;
		pr->waiting++;
		if (pr->writing || pr->turn != i) {
			pthread_mutex_unlock(&pr->mu);
			return PPROF_OK;
		}
		pr->writing = true;
	}
	if (s == PPROF_OK)
		s = par_drain(k);
	pr->writing = false;
	pthread_cond_broadcast(&pr->cv);
	pthread_mutex_unlock(&pr->mu);
	return s;
}

static void *par_work(void *arg)
{
	struct pworker *k = arg;
	struct par *pr = k->par;
	for (;;) {
		pthread_mutex_lock(&pr->mu);
		while (!pr->failed && pr->waiting >= PAR_AHEAD && pr->next != pr->turn)
			pthread_cond_wait(&pr->cv, &pr->mu);
		size_t i = pr->next;
		bool stop = pr->failed || i >= pr->ntasks;
		if (!stop)
			pr->next++;
		pthread_mutex_unlock(&pr->mu);
		if (stop)
			break;
		k->task = i;
		k->myturn = false;
		int s = par_buf(k) ? par_render(k, i) : PPROF_ENOMEM;
		if (s == PPROF_OK)
			s = par_done(k, i);
		if (s != PPROF_OK) {
			if (s != PAR_STOPPED)
				par_fail(pr, s, k->err);
			break;
		}
	}
	return NULL;
}

/* The lines of F to OUT on two threads, when there are enough of them
 * (*TAKEN); PPROF_OK or the error, set on F's profile. */
static int par_write(struct folder *f, FILE *out, bool *taken)
{
	struct pprof_profile *p = f->p;
	*taken = false;
	uint32_t *lines = par_lines(f);
	if (!lines)
		return pp_nomem(p);
	uint64_t total = lines[0];
	if (total < pp_fold_par_min) {
		pp_big_free(lines, f->ndn, sizeof(*lines));
		return PPROF_OK;
	}
	*taken = true;
	struct par pr = {.f = f, .out = out};
	int s = par_plan(&pr, lines, par_limit(f, lines, total));
	pp_big_free(lines, f->ndn, sizeof(*lines));
	if (s == PPROF_OK) {
		for (size_t i = 0; i < pr.ntasks; i++) {
			pr.tasks[i].text = NULL;
			pr.tasks[i].len = 0;
		}
		pthread_mutex_init(&pr.mu, NULL);
		pthread_cond_init(&pr.cv, NULL);
		struct pworker k[2];
		memset(k, 0, sizeof(k));
		for (int j = 0; j < 2; j++) {
			k[j].par = &pr;
			k[j].w.f = f;
			pp_buf_init(&k[j].w.path);
		}
		/* without a second thread, one takes all the tasks */
		bool threaded = pthread_create(&k[1].th, NULL, par_work, &k[1]) == 0;
		par_work(&k[0]);
		if (threaded)
			pthread_join(k[1].th, NULL);
		for (int j = 0; j < 2; j++) {
			free(k[j].buf);
			free(k[j].chain);
			walker_release(&k[j].w);
		}
		for (size_t i = 0; i < pr.ntasks; i++)
			free(pr.tasks[i].text);
		for (int j = 0; j < pr.npool; j++)
			free(pr.pool[j]);
		pthread_cond_destroy(&pr.cv);
		pthread_mutex_destroy(&pr.mu);
		if (pr.failed)
			s = pr.status;
	}
	free(pr.items);
	free(pr.tasks);
	if (s == PPROF_EIO)
		return pp_error(p, PPROF_EIO, "write error: %s", strerror(pr.err));
	return s == PPROF_OK ? PPROF_OK : pp_nomem(p);
}

int pprof_fold_write(struct pprof_profile *p, const struct pprof_fold_options *o, FILE *out)
{
	struct writer wr = {p, out, malloc(WBUF_SIZE), 0};
	if (!wr.buf)
		return pp_nomem(p);
	struct folder f = {p, NULL, 0, NULL, 0, 0};
	bool done, taken = false;
	int s = fold_begin(p, o, write_emit, &wr, &f, &done);
	if (s == PPROF_OK && !done)
		s = par_write(&f, out, &taken);
	if (s == PPROF_OK && !done && !taken) {
		struct walker w = {&f, NULL, 0, 0, NULL, 0, 0, PP_BUF_INIT};
		s = walker_enter(&w, 0) ? walker_run(&w, write_emit, &wr) : PPROF_ENOMEM;
		if (s == PPROF_ENOMEM)
			s = pp_nomem(p);
		walker_release(&w);
	}
	folder_release(&f);
	if (s == PPROF_OK && writer_flush(&wr) != PPROF_OK)
		s = pp_error(p, PPROF_EIO, "write error: %s", strerror(errno));
	free(wr.buf);
	return s;
}
