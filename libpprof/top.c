/* top.c: the tables.  go tool pprof -top's flat/cum table of one profile
 * and the by-function table of a diff (its internal/report), their values
 * labelled by units.c. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "pprof_private.h"

/* measurement.Percentage: at least two significant digits, "100%" near it. */
static void percentage(char *buf, size_t size, int64_t value, int64_t total)
{
	double r = 0;
	if (total != 0)
		r = fabs((double)value / (double)total) * 100;
	if (r >= 99.95 && r <= 100.05)
		snprintf(buf, size, "  100%%");
	else if (r >= 1.0)
		snprintf(buf, size, "%5.2f%%", r);
	else
		snprintf(buf, size, "%5.2g%%", r);
}

int pprof_table_format_parse(const char *name)
{
	if (strcmp(name, "text") == 0)
		return PPROF_TABLE_TEXT;
	if (strcmp(name, "tsv") == 0)
		return PPROF_TABLE_TSV;
	if (strcmp(name, "json") == 0)
		return PPROF_TABLE_JSON;
	return -1;
}

/* ---- output helpers ---- */

/* A JSON string: invalid UTF-8 becomes U+FFFD so the output stays valid. */
static void json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	putc('"', out);
	while (*p) {
		unsigned c = *p;
		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc((int)c, out);
			p++;
		} else if (c < 0x20) {
			fprintf(out, "\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			putc((int)c, out);
			p++;
		} else {
			size_t n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
			size_t k = 1;
			while (n && k < n && (p[k] & 0xc0) == 0x80)
				k++;
			bool ok = n && k == n;
			if (ok && n == 3) {
				/* no overlongs, no surrogates */
				ok = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
			} else if (ok && n == 4) {
				ok = !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90);
			}
			if (ok) {
				fwrite(p, 1, n, out);
				p += n;
			} else {
				fputs("\\ufffd", out);
				p++;
			}
		}
	}
	putc('"', out);
}

/* A TSV field: tabs and line breaks in names become spaces. */
static void tsv_str(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static int finish(FILE *out)
{
	if (ferror(out)) {
		if (!errno)
			errno = EIO;
		return PPROF_EIO;
	}
	return PPROF_OK;
}

static uint64_t mag(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static int name_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	int c = memcmp(a, b, la < lb ? la : lb);
	if (c)
		return c;
	return la < lb ? -1 : la > lb;
}

/* ---- the top table of one profile ---- */

struct fun {
	const char *name;
	uint32_t len;
	int64_t flat, cum;
	uint32_t onpath; /* how many nodes of the current walk's path are it */
	uint32_t kept;   /* row index + 1 when kept in the table, else 0 */
	uint8_t in_inline, in_noinline;
	uint8_t has_inlined; /* some frame of it is an inlined call */
};

struct row {
	uint32_t fun;
	const char *name;
	uint32_t len;
	int64_t flat, cum;
};

static int row_cmp_flat(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	uint64_t x = mag(a->flat), y = mag(b->flat);
	if (x != y)
		return x > y ? -1 : 1;
	int c = name_cmp(a->name, a->len, b->name, b->len);
	if (c)
		return c;
	x = mag(a->cum);
	y = mag(b->cum);
	return x != y ? (x > y ? -1 : 1) : 0;
}

static int row_cmp_cum(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	uint64_t x = mag(a->cum), y = mag(b->cum);
	if (x != y)
		return x > y ? -1 : 1;
	int c = name_cmp(a->name, a->len, b->name, b->len);
	if (c)
		return c;
	x = mag(a->flat);
	y = mag(b->flat);
	return x != y ? (x > y ? -1 : 1) : 0;
}

/* The tree's children lists, and the walk's stack. */
struct walk {
	uint32_t *first; /* children of n: kids[first[n] .. first[n + 1]) */
	uint32_t *kids;
	uint32_t *stack, *cursor;
};

static void walk_release(struct walk *w)
{
	free(w->first);
	free(w->kids);
	free(w->stack);
	free(w->cursor);
}

static bool walk_init(struct walk *w, const struct pprof_profile *p)
{
	uint32_t n = p->nnodes;
	w->first = calloc((size_t)n + 1, sizeof(*w->first));
	w->kids = malloc((size_t)(n ? n : 1) * sizeof(*w->kids));
	w->stack = malloc((size_t)(n ? n : 1) * sizeof(*w->stack));
	w->cursor = malloc((size_t)(n ? n : 1) * sizeof(*w->cursor));
	if (!w->first || !w->kids || !w->stack || !w->cursor)
		return false;
	for (uint32_t i = 1; i < n; i++)
		w->first[p->nodes[i].parent + 1]++;
	for (uint32_t i = 0; i < n; i++)
		w->first[i + 1] += w->first[i];
	/* cursor doubles as the fill position here */
	for (uint32_t i = 0; i < n; i++)
		w->cursor[i] = w->first[i];
	for (uint32_t i = 1; i < n; i++)
		w->kids[w->cursor[p->nodes[i].parent]++] = i;
	return true;
}

/* The edges caller -> callee between kept functions, for pprof's
 * "(inline)" labels: an edge is inline when every call along it was, and
 * it counts only when its weight (the samples through it, once each) is at
 * least pprof's -edgefraction (0.001) of the total. */
struct edges {
	uint64_t *keys;
	int64_t *weight;
	uint32_t *onpath; /* occurrences on the walk's path */
	uint8_t *flags;   /* 1: present, 2: some call not inlined */
	size_t cap, n;
};

static size_t edge_hash(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

/* The slot of the edge FROM -> TO, added when missing; (size_t)-1 when out
 * of memory.  Functions have few callers each, so the table stays small
 * (and in the cache): it grows with the edges, not with the tree. */
static size_t edge_slot(struct edges *e, uint32_t from, uint32_t to)
{
	uint64_t key = ((uint64_t)from << 32) | to;
	size_t i = edge_hash(key, e->cap);
	while (e->flags[i] && e->keys[i] != key)
		i = (i + 1) & (e->cap - 1);
	if (e->flags[i])
		return i;
	if (++e->n * 2 > e->cap) {
		size_t cap = e->cap * 2;
		uint64_t *keys = malloc(cap * sizeof(*keys));
		int64_t *weight = calloc(cap, sizeof(*weight));
		uint32_t *onpath = calloc(cap, sizeof(*onpath));
		uint8_t *flags = calloc(cap, 1);
		if (!keys || !weight || !onpath || !flags) {
			free(keys);
			free(weight);
			free(onpath);
			free(flags);
			return (size_t)-1;
		}
		for (size_t k = 0; k < e->cap; k++) {
			if (!e->flags[k])
				continue;
			size_t j = edge_hash(e->keys[k], cap);
			while (flags[j])
				j = (j + 1) & (cap - 1);
			keys[j] = e->keys[k];
			weight[j] = e->weight[k];
			onpath[j] = e->onpath[k];
			flags[j] = e->flags[k];
		}
		free(e->keys);
		free(e->weight);
		free(e->onpath);
		free(e->flags);
		e->keys = keys;
		e->weight = weight;
		e->onpath = onpath;
		e->flags = flags;
		e->cap = cap;
		i = edge_hash(key, cap);
		while (e->flags[i])
			i = (i + 1) & (cap - 1);
	}
	e->keys[i] = key;
	e->flags[i] = 1;
	return i;
}

static bool edges_init(struct edges *e)
{
	e->cap = 4096;
	e->n = 0;
	e->keys = malloc(e->cap * sizeof(*e->keys));
	e->weight = calloc(e->cap, sizeof(*e->weight));
	e->onpath = calloc(e->cap, sizeof(*e->onpath));
	e->flags = calloc(e->cap, 1);
	return e->keys && e->weight && e->onpath && e->flags;
}

static void edges_release(struct edges *e)
{
	free(e->keys);
	free(e->weight);
	free(e->onpath);
	free(e->flags);
}

/* The labels from the edges: only those of at least -edgefraction of
 * FLAT_ALL count. */
static void edges_label(const struct edges *e, struct fun *fn, int64_t flat_all)
{
	int64_t cutoff = (int64_t)((double)flat_all * 0.001);
	for (size_t i = 0; i < e->cap; i++) {
		if (!e->flags[i] || mag(e->weight[i]) < mag(cutoff))
			continue;
		struct fun *f = &fn[(uint32_t)e->keys[i]];
		if (e->flags[i] & 2)
			f->in_noinline = 1;
		else
			f->in_inline = 1;
	}
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

/* One depth-first walk of the tree.
 * CUM: a sample counts once for each function on its stack, so the value
 * of a node's subtree goes to its function where no ancestor has it.
 * LABELS: pprof labels a row "(inline)" when the calls into it from the
 * nearest kept caller were all inlined, "(partial-inline)" when only some
 * were; a sample counts an edge once, where it first occurs from the root,
 * and edges lighter than -edgefraction (0.001) of FLAT_ALL are dropped. */
static int walk_tree(struct top_work *t, bool cum, bool labels, int64_t flat_all)
{
	struct pprof_profile *p = t->p;
	struct walk *w = &t->w;
	struct edges e = {0};
	size_t nn = p->nnodes ? p->nnodes : 1;
	/* per path level: the nearest kept function at or above it (+1), and
	 * the edge into it (NO_EDGE: none; slots move when the table grows) */
	const uint64_t NO_EDGE = UINT64_MAX;
	uint32_t *near = NULL;
	uint64_t *slot = NULL;
	int s = PPROF_OK;
	if (labels) {
		bool ok = edges_init(&e);
		near = malloc(nn * sizeof(*near));
		slot = malloc(nn * sizeof(*slot));
		if (!ok || !near || !slot) {
			s = pp_nomem(p);
			goto out;
		}
		near[0] = 0;
		slot[0] = NO_EDGE;
	}
	size_t sp = 0;
	w->stack[sp] = 0;
	w->cursor[sp++] = w->first[0];
	while (sp) {
		uint32_t n = w->stack[sp - 1];
		if (w->cursor[sp - 1] == w->first[n + 1]) {
			sp--;
			if (cum && n)
				t->fn[t->nd[n].fun].onpath--;
			if (labels && slot[sp] != NO_EDGE)
				e.onpath[edge_slot(&e, (uint32_t)(slot[sp] >> 32), (uint32_t)slot[sp])]--;
			continue;
		}
		uint32_t c = w->kids[w->cursor[sp - 1]++];
		const struct tnode *nd = &t->nd[c];
		if (!nd->live)
			continue; /* nothing beneath counts */
		struct fun *f = &t->fn[nd->fun];
		if (cum && f->onpath++ == 0 && __builtin_add_overflow(f->cum, nd->sub, &f->cum)) {
			s = pp_error(p, PPROF_EINPUT, "sum of values leaves the 64-bit range");
			goto out;
		}
		if (labels) {
			uint32_t up = near[sp - 1];
			uint64_t key = NO_EDGE;
			if (f->kept) {
				/* only a function inlined somewhere can get a label */
				if (up && up - 1 != nd->fun && f->has_inlined) {
					size_t k = edge_slot(&e, up - 1, nd->fun);
					if (k == (size_t)-1) {
						s = pp_nomem(p);
						goto out;
					}
					if (e.onpath[k]++ == 0) {
						e.weight[k] += nd->sub;
						e.flags[k] |= 1 | (nd->inl ? 0 : 2);
					}
					key = ((uint64_t)(up - 1) << 32) | nd->fun;
				}
				up = nd->fun + 1;
			}
			near[sp] = up;
			slot[sp] = key;
		}
		w->stack[sp] = c;
		w->cursor[sp++] = w->first[c];
	}
	if (labels)
		edges_label(&e, t->fn, flat_all);
out:
	edges_release(&e);
	free(near);
	free(slot);
	return s;
}

static bool has_label(const struct pprof_profile *p, uint32_t set, uint32_t key, const char *val);

/* Totals of the deferred samples' pass. */
struct totals {
	uint64_t total, basetotal; /* magnitudes */
	int64_t flat_all;
};

/* The deferred samples (pp_deferred) in the form their walks read.  A big
 * profile's stacks are tens of millions of frames, so a step touches as
 * few cache lines as it can: location l is the record fr[l * REC ...], a
 * header of HDR elements (its number of frames and its last kept function
 * + 1 or 0; then two memo entries) followed by its frame when it has one,
 * or else the index of its frames in fx[] (most locations are one frame:
 * a record is found from the location alone, and fetched ahead without
 * another load).  A frame has its function (the top bit set for an
 * inlined call) and, with labels, the edge into it.  The edges between
 * kept functions have ids, fixed for the walk: NO_EDGE when there is none,
 * FROM_UP for the first kept frame of a location, whose edge comes from
 * the caller side and is found by the walk, through the location's memo
 * of its last two callers. */
#define LF_INLINED 0x80000000u
#define NO_EDGE 0xffffffffu
#define FROM_UP 0xfffffffeu

struct dframe {
	uint32_t fun;  /* | LF_INLINED; in a header: the number of frames, or
			* in a memo entry the caller side function + 1 */
	uint32_t edge; /* in a header: the last kept function + 1, or 0 */
};
#define HDR 3
#define REC (HDR + 1)

struct dedge {
	int64_t weight;
	uint32_t stamp; /* the last sample that counted it */
	uint32_t flags; /* 1: present, 2: some call not inlined */
};

/* One share of the walk of the deferred samples: the samples [lo, hi).
 * A big profile's walk is split among threads, each with its own copy of
 * what the walk writes (the records' memo entries, the stamps, the sums
 * and the edges), summed into the first share's when all are done: the
 * sums are of integers, so the table is the same however it is split. */
struct dwalk {
	struct dframe *fx; /* shared by the shares; owned by the first */
	struct dframe *fr;
	uint32_t *stamp; /* per function: the last sample that counted it */
	int64_t *cum, *flat;
	struct dedge *edges;
	uint64_t *ekey; /* from << 32 | to */
	size_t nedges, capedges;
	uint32_t *slots; /* id + 1; 0: empty */
	size_t ecap;

	const struct top_work *t;
	uint32_t sel, base;
	bool first, labels;
	size_t lo, hi;
	struct totals tot;
	int err; /* a WALK_* below */
	uint32_t *scratch; /* a packed sample's locations */
	size_t capscratch;
};
enum { WALK_OK, WALK_OVERFLOW, WALK_NOMEM };

static void dwalk_release(struct dwalk *w, bool owner)
{
	if (owner)
		free(w->fx);
	free(w->fr);
	free(w->stamp);
	free(w->cum);
	free(w->flat);
	free(w->edges);
	free(w->ekey);
	free(w->slots);
	free(w->scratch);
}

/* The id of the edge FROM -> TO, added when missing; NO_EDGE when out of
 * memory. */
static uint32_t dwalk_edge(struct dwalk *w, uint32_t from, uint32_t to)
{
	uint64_t key = ((uint64_t)from << 32) | to;
	size_t i = edge_hash(key, w->ecap);
	while (w->slots[i]) {
		if (w->ekey[w->slots[i] - 1] == key)
			return w->slots[i] - 1;
		i = (i + 1) & (w->ecap - 1);
	}
	if (w->nedges >= FROM_UP - 1)
		return NO_EDGE;
	if (w->nedges == w->capedges) {
		size_t cap = w->capedges ? w->capedges * 2 : 1024;
		struct dedge *e = realloc(w->edges, cap * sizeof(*e));
		if (e)
			w->edges = e;
		uint64_t *k = realloc(w->ekey, cap * sizeof(*k));
		if (k)
			w->ekey = k;
		if (!e || !k)
			return NO_EDGE;
		w->capedges = cap;
	}
	uint32_t id = (uint32_t)w->nedges++;
	w->edges[id] = (struct dedge){0, 0, 0};
	w->ekey[id] = key;
	w->slots[i] = id + 1;
	if (w->nedges * 2 > w->ecap) {
		size_t cap = w->ecap * 2;
		uint32_t *slots = calloc(cap, sizeof(*slots));
		if (!slots)
			return NO_EDGE;
		for (uint32_t e = 0; e < w->nedges; e++) {
			size_t j = edge_hash(w->ekey[e], cap);
			while (slots[j])
				j = (j + 1) & (cap - 1);
			slots[j] = e + 1;
		}
		free(w->slots);
		w->slots = slots;
		w->ecap = cap;
	}
	return id;
}

/* The first share: the records of the locations, and the edges within
 * them.  *NFR: the number of elements of the records. */
static bool dwalk_init(struct dwalk *w, const struct top_work *t, bool labels, size_t *nfr)
{
	const struct pprof_profile *p = t->p;
	const struct pp_deferred *d = p->deferred;
	size_t nx = 0, nl = d->nlocs;
	for (size_t l = 0; l < nl; l++)
		if (d->locs[l].n > 1)
			nx += d->locs[l].n;
	if (nx >= UINT32_MAX || nl >= SIZE_MAX / REC / sizeof(*w->fr) || t->nfn >= LF_INLINED)
		return false;
	*nfr = (nl ? nl : 1) * REC;
	w->fx = malloc((nx ? nx : 1) * sizeof(*w->fx));
	w->fr = calloc(*nfr, sizeof(*w->fr));
	w->stamp = calloc(t->nfn ? t->nfn : 1, sizeof(*w->stamp));
	w->cum = calloc(t->nfn ? t->nfn : 1, sizeof(*w->cum));
	w->flat = calloc(t->nfn ? t->nfn : 1, sizeof(*w->flat));
	if (labels) {
		w->ecap = 4096;
		w->slots = calloc(w->ecap, sizeof(*w->slots));
	}
	if (!w->fx || !w->fr || !w->stamp || !w->cum || !w->flat || (labels && !w->slots))
		return false;
	size_t k = 0;
	for (size_t l = 0; l < nl; l++) {
		struct dframe *h = &w->fr[l * REC], *df = h + HDR;
		uint32_t n = d->locs[l].n;
		h->fun = n;
		if (n > 1) {
			df->fun = (uint32_t)k;
			df = &w->fx[k];
			k += n;
		}
		uint32_t up = 0; /* within the location */
		for (uint32_t i = 0; i < n; i++, df++) {
			uint32_t f = d->frames[d->locs[l].off + i];
			uint32_t fun = t->ffun[f];
			df->fun = fun | ((p->frames[f].flags & PP_FRAME_INLINED) ? LF_INLINED : 0);
			df->edge = NO_EDGE;
			if (!labels || !t->fn[fun].kept)
				continue;
			if (!up)
				df->edge = t->fn[fun].has_inlined ? FROM_UP : NO_EDGE;
			else if (up - 1 != fun && t->fn[fun].has_inlined &&
				 (df->edge = dwalk_edge(w, up - 1, fun)) == NO_EDGE)
				return false;
			up = fun + 1;
		}
		h->edge = up;
	}
	return true;
}

/* Another share, from the first before any walk: its own copy of what a
 * walk writes. */
static bool dwalk_clone(struct dwalk *w, const struct dwalk *w0, size_t nfr, uint32_t nfn)
{
	memset(w, 0, sizeof(*w));
	w->fx = w0->fx;
	w->fr = malloc(nfr * sizeof(*w->fr));
	w->stamp = calloc(nfn ? nfn : 1, sizeof(*w->stamp));
	w->cum = calloc(nfn ? nfn : 1, sizeof(*w->cum));
	w->flat = calloc(nfn ? nfn : 1, sizeof(*w->flat));
	if (!w->fr || !w->stamp || !w->cum || !w->flat)
		return false;
	memcpy(w->fr, w0->fr, nfr * sizeof(*w->fr));
	if (w0->slots) {
		size_t ne = w0->capedges ? w0->capedges : 1024;
		w->edges = malloc(ne * sizeof(*w->edges));
		w->ekey = malloc(ne * sizeof(*w->ekey));
		w->slots = malloc(w0->ecap * sizeof(*w->slots));
		if (!w->edges || !w->ekey || !w->slots)
			return false;
		if (w0->nedges) {
			memcpy(w->edges, w0->edges, w0->nedges * sizeof(*w->edges));
			memcpy(w->ekey, w0->ekey, w0->nedges * sizeof(*w->ekey));
		}
		memcpy(w->slots, w0->slots, w0->ecap * sizeof(*w->slots));
		w->nedges = w0->nedges;
		w->capedges = ne;
		w->ecap = w0->ecap;
	}
	return true;
}

/* The walk of one share's samples, for tree_values and walk_tree together:
 * each stack is walked from its list of locations, and a sample counts
 * once for a function (and an edge) on its stack by the number of the
 * last sample that counted it.  FIRST: flat, cum and the totals; LABELS:
 * the edges' weights, between kept functions. */
static int dwalk_share(struct dwalk *w)
{
	const struct top_work *t = w->t;
	const struct pprof_profile *p = t->p;
	const struct pp_deferred *d = p->deferred;
	const bool first = w->first, labels = w->labels;
	struct totals *tot = &w->tot;
	uint32_t stamp = 0;
	for (size_t i = w->lo; i < w->hi; i++) {
		const struct pp_dsample *x = &d->samples[i];
		int64_t v = d->values[i * p->ntypes + w->sel];
		if (v == 0)
			continue;
		if (first) {
			if (__builtin_add_overflow(tot->total, mag(v), &tot->total) ||
			    tot->total > INT64_MAX)
				return WALK_OVERFLOW;
			if (w->base && has_label(p, x->labels, w->base, "true"))
				tot->basetotal += mag(v);
		}
		if (++stamp == 0) {
			memset(w->stamp, 0, t->nfn * sizeof(*w->stamp));
			for (size_t e = 0; e < w->nedges; e++)
				w->edges[e].stamp = 0;
			stamp = 1;
		}
		const uint32_t *stk = pp_dsample_locs(d, x, &w->scratch, &w->capscratch);
		if (!stk)
			return WALK_NOMEM;
		uint32_t up = 0, leaf = UINT32_MAX;
		for (uint32_t j = x->n; j-- > 0;) {
			/* The locations ahead are known: their records are
			 * fetched while this one is counted (the steps are
			 * independent, unlike a tree walk's). */
			if (j >= 4)
				__builtin_prefetch(w->fr + (size_t)stk[j - 4] * REC);
			struct dframe *h = w->fr + (size_t)stk[j] * REC;
			const struct dframe *b = h->fun == 1 ? h + HDR : w->fx + h[HDR].fun;
			const struct dframe *end = b + h->fun;
			if (first) {
				for (const struct dframe *f = b; f < end; f++) {
					uint32_t fun = f->fun & ~LF_INLINED;
					if (w->stamp[fun] != stamp) {
						w->stamp[fun] = stamp;
						if (__builtin_add_overflow(w->cum[fun], v, &w->cum[fun]))
							return WALK_OVERFLOW;
					}
				}
				if (end > b)
					leaf = end[-1].fun & ~LF_INLINED;
			}
			if (!labels)
				continue;
			for (const struct dframe *f = b; f < end; f++) {
				uint32_t id = f->edge;
				if (id == NO_EDGE)
					continue;
				if (id == FROM_UP) {
					if (!up || up - 1 == (f->fun & ~LF_INLINED))
						continue;
					if (h[1].fun == up) {
						id = h[1].edge;
					} else if (h[2].fun == up) {
						id = h[2].edge;
					} else {
						id = dwalk_edge(w, up - 1, f->fun & ~LF_INLINED);
						if (id == NO_EDGE)
							return WALK_NOMEM;
						h[2] = h[1];
						h[1].fun = up;
						h[1].edge = id;
					}
				}
				struct dedge *e = &w->edges[id];
				if (e->stamp != stamp) {
					e->stamp = stamp;
					e->weight += v;
					e->flags |= 1 | ((f->fun & LF_INLINED) ? 0 : 2);
				}
			}
			if (h->edge)
				up = h->edge;
		}
		if (first && leaf != UINT32_MAX) {
			if (__builtin_add_overflow(w->flat[leaf], v, &w->flat[leaf]) ||
			    __builtin_add_overflow(tot->flat_all, v, &tot->flat_all))
				return WALK_OVERFLOW;
		}
	}
	return WALK_OK;
}

static void *dwalk_thread(void *arg)
{
	struct dwalk *w = arg;
	w->err = dwalk_share(w);
	return NULL;
}

/* Adds share W into the first share W0. */
static int dwalk_merge(struct dwalk *w0, const struct dwalk *w, uint32_t nfn)
{
	if (w0->first) {
		struct totals *a = &w0->tot;
		const struct totals *b = &w->tot;
		if (__builtin_add_overflow(a->total, b->total, &a->total) || a->total > INT64_MAX ||
		    __builtin_add_overflow(a->flat_all, b->flat_all, &a->flat_all))
			return WALK_OVERFLOW;
		a->basetotal += b->basetotal; /* <= total */
		for (uint32_t f = 0; f < nfn; f++)
			if (__builtin_add_overflow(w0->cum[f], w->cum[f], &w0->cum[f]) ||
			    __builtin_add_overflow(w0->flat[f], w->flat[f], &w0->flat[f]))
				return WALK_OVERFLOW;
	}
	if (w0->labels)
		for (size_t e = 0; e < w->nedges; e++) {
			if (!w->edges[e].flags)
				continue;
			uint32_t id = dwalk_edge(w0, (uint32_t)(w->ekey[e] >> 32), (uint32_t)w->ekey[e]);
			if (id == NO_EDGE)
				return WALK_NOMEM;
			w0->edges[id].weight += w->edges[e].weight;
			w0->edges[id].flags |= w->edges[e].flags;
		}
	return WALK_OK;
}

/* How many shares the walk of the deferred samples is split in: one for a
 * small profile (a thread costs more than it saves there). */
static unsigned walk_shares(unsigned asked, const struct pp_deferred *d)
{
	unsigned n = asked;
	if (!n) {
		if (d->nsteps < ((uint64_t)1 << 20))
			return 1;
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		n = cores < 1 ? 1 : cores > 8 ? 8 : (unsigned)cores;
	}
	if (n > 64)
		n = 64;
	if (n > d->nsamples)
		n = d->nsamples ? (unsigned)d->nsamples : 1;
	return n;
}

/* The walk of the deferred samples in NSHARES shares (see dwalk_share),
 * summed into T's functions (FIRST) and labels (LABELS), and *TOT. */
static int walk_deferred(struct top_work *t, uint32_t sel, bool first, bool labels,
			 uint32_t base, struct totals *tot, unsigned nshares)
{
	struct pprof_profile *p = t->p;
	const struct pp_deferred *d = p->deferred;
	struct dwalk *w = calloc(nshares, sizeof(*w));
	pthread_t *th = calloc(nshares, sizeof(*th));
	bool *running = calloc(nshares, sizeof(*running));
	size_t nfr = 0;
	int err = WALK_NOMEM;
	if (!w || !th || !running || !dwalk_init(&w[0], t, labels, &nfr))
		goto out;
	for (unsigned k = 1; k < nshares; k++)
		if (!dwalk_clone(&w[k], &w[0], nfr, t->nfn))
			goto out;
	/* The shares split the samples where the location steps before them
	 * pass k / nshares of all. */
	uint64_t steps = 0;
	unsigned sh = 0;
	for (size_t i = 0; i < d->nsamples; i++) {
		while (sh < nshares && steps >= (uint64_t)((double)d->nsteps * sh / nshares))
			w[sh++].lo = i;
		steps += d->samples[i].n;
	}
	while (sh < nshares)
		w[sh++].lo = d->nsamples;
	for (sh = 0; sh < nshares; sh++) {
		w[sh].t = t;
		w[sh].sel = sel;
		w[sh].base = base;
		w[sh].first = first;
		w[sh].labels = labels;
		w[sh].hi = sh + 1 < nshares ? w[sh + 1].lo : d->nsamples;
	}
	for (unsigned k = 1; k < nshares; k++)
		running[k] = pthread_create(&th[k], NULL, dwalk_thread, &w[k]) == 0;
	w[0].err = dwalk_share(&w[0]);
	err = WALK_OK;
	for (unsigned k = 1; k < nshares; k++) {
		if (running[k])
			pthread_join(th[k], NULL);
		else /* no thread: the share is walked here */
			w[k].err = dwalk_share(&w[k]);
	}
	for (unsigned k = 0; k < nshares && !err; k++)
		err = w[k].err;
	for (unsigned k = 1; k < nshares && !err; k++)
		err = dwalk_merge(&w[0], &w[k], t->nfn);
	if (err)
		goto out;
	if (first) {
		*tot = w[0].tot;
		for (uint32_t f = 0; f < t->nfn; f++) {
			t->fn[f].cum = w[0].cum[f];
			t->fn[f].flat = w[0].flat[f];
		}
	}
	if (labels) {
		int64_t cutoff = (int64_t)((double)tot->flat_all * 0.001);
		for (size_t e = 0; e < w[0].nedges; e++) {
			if (mag(w[0].edges[e].weight) < mag(cutoff))
				continue;
			struct fun *f = &t->fn[(uint32_t)w[0].ekey[e]];
			if (w[0].edges[e].flags & 2)
				f->in_noinline = 1;
			else if (w[0].edges[e].flags)
				f->in_inline = 1;
		}
	}
out:
	/* shares never set up are zeroes, and free as they are */
	for (unsigned k = 0; w && k < nshares; k++)
		dwalk_release(&w[k], k == 0);
	free(w);
	free(th);
	free(running);
	if (err == WALK_OVERFLOW)
		return pp_error(p, PPROF_EINPUT, "%s", "sum of values leaves the 64-bit range");
	return err ? pp_nomem(p) : PPROF_OK;
}


/* The string id of KEY among the label keys, or 0. */
static uint32_t label_key(const struct pprof_profile *p, const char *key)
{
	size_t n = strlen(key);
	for (uint32_t i = 0; i < p->nlabels; i++) {
		uint32_t k = p->labels[i].key;
		if (pp_strlen(p, k) == n && memcmp(pp_str(p, k), key, n) == 0)
			return k;
	}
	return 0;
}

static bool has_label(const struct pprof_profile *p, uint32_t set, uint32_t key, const char *val)
{
	if (set == 0 || set >= p->nlabelsets)
		return false;
	size_t n = strlen(val);
	for (uint32_t i = p->labelsets[set]; i < p->labelsets[set + 1]; i++) {
		const struct pp_label *l = &p->labels[i];
		if (l->key == key && l->str && pp_strlen(p, l->str) == n &&
		    memcmp(pp_str(p, l->str), val, n) == 0)
			return true;
	}
	return false;
}

/* The names of the frames at the granularity, and their functions. */
static int top_functions(struct top_work *t, enum pprof_granularity g, bool *any_inline)
{
	struct pprof_profile *p = t->p;
	t->ffun = malloc((size_t)(p->nframes ? p->nframes : 1) * sizeof(*t->ffun));
	if (!t->ffun)
		return pp_nomem(p);
	struct pp_buf b;
	pp_buf_init(&b);
	*any_inline = false;
	t->ffun[0] = 0;
	for (uint32_t i = 1; i < p->nframes; i++) {
		b.len = 0;
		if (!pp_frame_name(p, i, g, &b)) {
			pp_buf_release(&b);
			return pp_nomem(p);
		}
		int s = pp_intern(p, b.s, b.len, &t->ffun[i]);
		if (s != PPROF_OK) {
			pp_buf_release(&b);
			return s;
		}
		if (p->frames[i].flags & PP_FRAME_INLINED)
			*any_inline = true;
	}
	pp_buf_release(&b);
	uint32_t *strfun = malloc((size_t)p->nstrs * sizeof(*strfun));
	t->fn = calloc(p->nframes ? p->nframes : 1, sizeof(*t->fn));
	if (!strfun || !t->fn) {
		free(strfun);
		return pp_nomem(p);
	}
	memset(strfun, 0xff, (size_t)p->nstrs * sizeof(*strfun));
	for (uint32_t i = 1; i < p->nframes; i++) {
		uint32_t s = t->ffun[i];
		if (strfun[s] == UINT32_MAX) {
			strfun[s] = t->nfn;
			t->fn[t->nfn].name = pp_str(p, s);
			t->fn[t->nfn].len = pp_strlen(p, s);
			t->nfn++;
		}
		t->ffun[i] = strfun[s];
		if (p->frames[i].flags & PP_FRAME_INLINED)
			t->fn[t->ffun[i]].has_inlined = 1;
	}
	free(strfun);
	return PPROF_OK;
}

/* The values per node of the tree (their subtrees' sums, and whether some
 * sample beneath is not 0), flat per function, and the totals. */
static int tree_values(struct top_work *t, uint32_t sel, uint32_t base, uint64_t *total,
		       uint64_t *basetotal, int64_t *flat_all)
{
	struct pprof_profile *p = t->p;
	const char *overflow = "sum of values leaves the 64-bit range";
	uint32_t nn = p->nnodes;
	t->nd = calloc(nn ? nn : 1, sizeof(*t->nd));
	if (!t->nd || !walk_init(&t->w, p))
		return pp_nomem(p);
	for (uint32_t e = 0; e < p->nentries; e++) {
		int64_t v = p->values[(size_t)e * p->ntypes + sel];
		uint32_t n = p->entries[e].node;
		if (v == 0)
			continue;
		if (__builtin_add_overflow(t->nd[n].sub, v, &t->nd[n].sub) ||
		    __builtin_add_overflow(*total, mag(v), total) || *total > INT64_MAX)
			return pp_error(p, PPROF_EINPUT, "%s", overflow);
		t->nd[n].live = 1;
		if (base && has_label(p, p->entries[e].labels, base, "true"))
			*basetotal += mag(v);
	}
	/* flat: the node's own value goes to the function of its frame */
	for (uint32_t n = 1; n < nn; n++) {
		uint32_t fr = p->nodes[n].frame;
		t->nd[n].fun = t->ffun[fr];
		t->nd[n].inl = (p->frames[fr].flags & PP_FRAME_INLINED) != 0;
		struct fun *f = &t->fn[t->nd[n].fun];
		if (__builtin_add_overflow(f->flat, t->nd[n].sub, &f->flat) ||
		    __builtin_add_overflow(*flat_all, t->nd[n].sub, flat_all))
			return pp_error(p, PPROF_EINPUT, "%s", overflow);
	}
	/* Parents have smaller ids than their children. */
	for (uint32_t n = nn; n-- > 1;) {
		uint32_t up = p->nodes[n].parent;
		if (__builtin_add_overflow(t->nd[up].sub, t->nd[n].sub, &t->nd[up].sub))
			return pp_error(p, PPROF_EINPUT, "%s", overflow);
		t->nd[up].live |= t->nd[n].live;
	}
	return PPROF_OK;
}

int pp_record_pretotal(struct pprof_profile *p)
{
	uint32_t base = p->nlabelsets > 1 ? label_key(p, "pprof::base") : 0;
	int64_t *t = calloc(p->ntypes ? p->ntypes : 1, sizeof(*t));
	if (!t)
		return pp_nomem(p);
	for (uint32_t k = 0; k < p->ntypes; k++) {
		uint64_t total = 0, basetotal = 0;
		for (uint32_t e = 0; e < p->nentries; e++) {
			int64_t v = p->values[(size_t)e * p->ntypes + k];
			if (v == 0)
				continue;
			if (__builtin_add_overflow(total, mag(v), &total) || total > INT64_MAX) {
				free(t);
				return pp_error(p, PPROF_EINPUT, "sum of values leaves the 64-bit range");
			}
			if (base && has_label(p, p->entries[e].labels, base, "true"))
				basetotal += mag(v);
		}
		t[k] = (int64_t)(basetotal ? basetotal : total);
	}
	p->pretotal = t;
	return PPROF_OK;
}

static size_t top_strsize(const char *s)
{
	return strlen(s) + 1;
}

int pprof_top(struct pprof_profile *p, const struct pprof_top_options *o, struct pprof_top **out)
{
	*out = NULL;
	if (o->sample_index < 0 || (uint32_t)o->sample_index >= p->ntypes)
		return pp_error(p, PPROF_EUSAGE, "no sample type selected");
	uint32_t sel = (uint32_t)o->sample_index;
	struct top_work t;
	memset(&t, 0, sizeof(t));
	t.p = p;
	struct row *rows = NULL;
	struct pprof_top *tab = NULL;
	bool any_inline = false;
	/* Samples still out of the tree are read as they are, unless some are
	 * in the tree too. */
	bool deferred = p->deferred && p->nentries == 0;
	int s = deferred ? PPROF_OK : pp_settle(p);
	if (s == PPROF_OK)
		s = top_functions(&t, o->granularity, &any_inline);
	if (s != PPROF_OK)
		goto out;

	/* pprof's total: the magnitudes of all samples, or of the base
	 * samples only in a -diff_base profile. */
	uint32_t base = p->nlabelsets > 1 ? label_key(p, "pprof::base") : 0;
	uint64_t total = 0, basetotal = 0;
	int64_t flat_all = 0;
	/* Without a row limit every function is kept, and one walk does. */
	if (!o->limit)
		for (uint32_t f = 0; f < t.nfn; f++)
			t.fn[f].kept = 1;
	unsigned nshares = deferred ? walk_shares(o->threads, p->deferred) : 1;
	if (deferred) {
		struct totals tot = {0, 0, 0};
		s = walk_deferred(&t, sel, true, any_inline && !o->limit, base, &tot, nshares);
		total = tot.total;
		basetotal = tot.basetotal;
		flat_all = tot.flat_all;
	} else {
		s = tree_values(&t, sel, base, &total, &basetotal, &flat_all);
		if (s == PPROF_OK)
			s = walk_tree(&t, true, any_inline && !o->limit, flat_all);
	}
	if (s != PPROF_OK)
		goto out;

	size_t nrows = 0;
	rows = malloc((size_t)(t.nfn ? t.nfn : 1) * sizeof(*rows));
	if (!rows) {
		s = pp_nomem(p);
		goto out;
	}
	for (uint32_t f = 0; f < t.nfn; f++)
		if (t.fn[f].flat || t.fn[f].cum)
			rows[nrows++] = (struct row){f, t.fn[f].name, t.fn[f].len, t.fn[f].flat,
						     t.fn[f].cum};
	qsort(rows, nrows, sizeof(*rows), o->cum ? row_cmp_cum : row_cmp_flat);
	size_t keep = o->limit && o->limit < nrows ? o->limit : nrows;
	/* pprof rebuilds its graph on the kept nodes only when some are left
	 * out; the labels then come from the nearest kept callers. */
	if (any_inline && o->limit) {
		if (keep < nrows) {
			for (uint32_t f = 0; f < t.nfn; f++)
				t.fn[f].kept = 0;
			for (size_t i = 0; i < keep; i++)
				t.fn[rows[i].fun].kept = 1;
		} else {
			for (uint32_t f = 0; f < t.nfn; f++)
				t.fn[f].kept = 1;
		}
		struct totals tot = {total, basetotal, flat_all};
		s = deferred ? walk_deferred(&t, sel, false, true, 0, &tot, nshares)
			     : walk_tree(&t, false, true, flat_all);
		if (s != PPROF_OK)
			goto out;
	}

	/* The table owns copies of what it shows. */
	const char *type = pp_str(p, p->types[sel].type), *unit = pp_str(p, p->types[sel].unit);
	size_t size = top_strsize(type) + top_strsize(unit);
	size_t ncom = 0;
	for (uint32_t i = 0; i < p->ncomments; i++) {
		const char *c = pp_str(p, p->comments[i]);
		if (c[0] != '#') {
			size += top_strsize(c);
			ncom++;
		}
	}
	for (size_t i = 0; i < keep; i++)
		size += (size_t)rows[i].len + 1;
	for (size_t i = 0; i < p->nlegend; i++)
		size += top_strsize(p->legend[i]);
	tab = calloc(1, sizeof(*tab));
	if (tab) {
		tab->buf = malloc(size);
		tab->rows = malloc((keep ? keep : 1) * sizeof(*tab->rows));
		tab->comments = malloc((ncom ? ncom : 1) * sizeof(*tab->comments));
		tab->filters = malloc((p->nlegend ? p->nlegend : 1) * sizeof(*tab->filters));
	}
	if (!tab || !tab->buf || !tab->rows || !tab->comments || !tab->filters) {
		s = pp_nomem(p);
		goto out;
	}
	char *at = tab->buf;
#define COPY(dst, src, n)                \
	do {                             \
		memcpy(at, (src), (n));  \
		at[(n)] = '\0';          \
		(dst) = at;              \
		at += (n) + 1;           \
	} while (0)
	COPY(tab->type, type, strlen(type));
	COPY(tab->unit, unit, strlen(unit));
	for (uint32_t i = 0; i < p->ncomments; i++) {
		const char *c = pp_str(p, p->comments[i]);
		if (c[0] != '#')
			COPY(tab->comments[tab->ncomments++], c, strlen(c));
	}
	for (size_t i = 0; i < p->nlegend; i++)
		COPY(tab->filters[tab->nfilters++], p->legend[i], strlen(p->legend[i]));
	for (size_t i = 0; i < keep; i++) {
		const struct fun *f = &t.fn[rows[i].fun];
		struct pprof_top_row *r = &tab->rows[i];
		COPY(r->name, rows[i].name, rows[i].len);
		r->flat = rows[i].flat;
		r->cum = rows[i].cum;
		r->inlined = f->in_inline ? (f->in_noinline ? PPROF_TOP_PARTLY_INLINED : PPROF_TOP_INLINED)
					  : PPROF_TOP_NOT_INLINED;
		tab->flat_sum += r->flat; /* |flat| <= total: no overflow */
	}
#undef COPY
	tab->n = keep;
	tab->nall = nrows;
	tab->total = p->pretotal ? p->pretotal[sel] : (int64_t)(basetotal ? basetotal : total);
	tab->time_nanos = p->time_nanos;
	tab->duration_nanos = p->duration_nanos;
	*out = tab;
	tab = NULL;
out:
	pprof_top_free(tab);
	free(rows);
	free(t.ffun);
	free(t.fn);
	free(t.nd);
	walk_release(&t.w);
	return s;
}

void pprof_top_free(struct pprof_top *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->comments);
	free(t->filters);
	free(t->buf);
	free(t);
}

/* Go's "Jan 2, 2006 at 3:04pm (MST)" in the local time zone. */
static void go_time(char *buf, size_t size, int64_t nanos)
{
	static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	int64_t sec = nanos / 1000000000;
	if (nanos % 1000000000 < 0)
		sec--;
	time_t tt = (time_t)sec;
	struct tm tm;
	if (!localtime_r(&tt, &tm)) {
		snprintf(buf, size, "?");
		return;
	}
	int h = tm.tm_hour % 12;
	snprintf(buf, size, "%s %d, %d at %d:%02d%s (%s)", mon[tm.tm_mon], tm.tm_mday,
		 tm.tm_year + 1900, h ? h : 12, tm.tm_min, tm.tm_hour < 12 ? "am" : "pm",
		 tm.tm_zone ? tm.tm_zone : "UTC");
}

static void top_text(const struct pprof_top *t, FILE *out)
{
	char unit[64], a[160], b[160], c[160], d[32], e[32], f[32];
	int64_t min = 0;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t m = mag(t->rows[i].flat);
		if (m == 0)
			m = mag(t->rows[i].cum);
		if (m > 0 && (min == 0 || m < (uint64_t)min))
			min = (int64_t)m;
	}
	pprof_output_unit(unit, sizeof(unit), min, t->total, t->unit);

	for (size_t i = 0; i < t->ncomments; i++)
		fprintf(out, "%s\n", t->comments[i]);
	fprintf(out, "Type: %s\n", t->type);
	if (t->time_nanos) {
		go_time(a, sizeof(a), t->time_nanos);
		fprintf(out, "Time: %s\n", a);
	}
	if (t->duration_nanos) {
		pprof_value_label(a, sizeof(a), t->duration_nanos, "nanoseconds", "auto");
		pprof_value_label(b, sizeof(b), t->total, t->unit, unit);
		const char *u;
		double ns = pp_unit_scale(t->total, t->unit, "nanoseconds", &u);
		c[0] = '\0';
		if (strcmp(u, "ns") == 0 && ns != 0) {
			percentage(d, sizeof(d), (int64_t)ns, t->duration_nanos);
			snprintf(c, sizeof(c), "(%s)", d);
		}
		fprintf(out, "Duration: %s, Total samples = %s %s\n", a, b, c);
	}
	/* as pprof's legend, cut at 80 bytes */
	if (t->nfilters)
		fputs("Active filters:\n", out);
	for (size_t i = 0; i < t->nfilters; i++) {
		size_t n = strlen(t->filters[i]);
		fprintf(out, "   %.*s%s\n", (int)(n > 80 ? 80 : n), t->filters[i], n > 80 ? "…" : "");
	}
	pprof_value_label(a, sizeof(a), t->flat_sum, t->unit, unit);
	pprof_value_label(b, sizeof(b), t->total, t->unit, unit);
	percentage(d, sizeof(d), t->flat_sum, t->total);
	const char *pct = d;
	while (*pct == ' ')
		pct++;
	fprintf(out, "Showing nodes accounting for %s, %s of %s total\n", a, pct, b);
	if (t->total != 0 && t->n > 0 && t->n < t->nall)
		fprintf(out, "Showing top %zu nodes out of %zu\n", t->n, t->nall);
	fprintf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum");
	int64_t sum = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct pprof_top_row *r = &t->rows[i];
		sum += r->flat;
		pprof_value_label(a, sizeof(a), r->flat, t->unit, unit);
		pprof_value_label(c, sizeof(c), r->cum, t->unit, unit);
		percentage(d, sizeof(d), r->flat, t->total);
		percentage(e, sizeof(e), sum, t->total);
		percentage(f, sizeof(f), r->cum, t->total);
		fprintf(out, "%10s %s %s %10s %s  %s%s\n", a, d, e, c, f, r->name,
			r->inlined == PPROF_TOP_INLINED	       ? " (inline)"
			: r->inlined == PPROF_TOP_PARTLY_INLINED ? " (partial-inline)"
								 : "");
	}
}

static double pct_of(int64_t v, int64_t total)
{
	return total ? (double)v / (double)total * 100 : 0;
}

static const char *inline_name(enum pprof_top_inline i)
{
	return i == PPROF_TOP_INLINED ? "inline" : i == PPROF_TOP_PARTLY_INLINED ? "partial-inline" : "";
}

int pprof_top_write(const struct pprof_top *t, enum pprof_table_format fmt, FILE *out)
{
	errno = 0;
	int64_t sum = 0;
	switch (fmt) {
	case PPROF_TABLE_TEXT:
		top_text(t, out);
		break;
	case PPROF_TABLE_TSV:
		fputs("# type\t", out);
		tsv_str(out, t->type);
		putc('\t', out);
		tsv_str(out, t->unit);
		fprintf(out, "\n# total\t%" PRId64 "\n# rows\t%zu\t%zu\n", t->total, t->n, t->nall);
		fputs("flat\tflat%\tsum%\tcum\tcum%\tfunction\tinline\n", out);
		for (size_t i = 0; i < t->n; i++) {
			const struct pprof_top_row *r = &t->rows[i];
			sum += r->flat;
			fprintf(out, "%" PRId64 "\t%.4f\t%.4f\t%" PRId64 "\t%.4f\t", r->flat,
				pct_of(r->flat, t->total), pct_of(sum, t->total), r->cum,
				pct_of(r->cum, t->total));
			tsv_str(out, r->name);
			fprintf(out, "\t%s\n", inline_name(r->inlined));
		}
		break;
	case PPROF_TABLE_JSON:
		fputs("{\"type\":", out);
		json_str(out, t->type);
		fputs(",\"unit\":", out);
		json_str(out, t->unit);
		fprintf(out, ",\"total\":%" PRId64 ",\"flat_sum\":%" PRId64 ",\"rows_total\":%zu",
			t->total, t->flat_sum, t->nall);
		if (t->time_nanos)
			fprintf(out, ",\"time_nanos\":%" PRId64, t->time_nanos);
		if (t->duration_nanos)
			fprintf(out, ",\"duration_nanos\":%" PRId64, t->duration_nanos);
		if (t->nfilters) {
			fputs(",\"filters\":[", out);
			for (size_t i = 0; i < t->nfilters; i++) {
				if (i)
					putc(',', out);
				json_str(out, t->filters[i]);
			}
			putc(']', out);
		}
		fputs(",\"rows\":[", out);
		for (size_t i = 0; i < t->n; i++) {
			const struct pprof_top_row *r = &t->rows[i];
			sum += r->flat;
			fputs(i ? ",\n{\"function\":" : "\n{\"function\":", out);
			json_str(out, r->name);
			fprintf(out,
				",\"flat\":%" PRId64 ",\"flat_pct\":%.4f,\"sum_pct\":%.4f,\"cum\":%" PRId64
				",\"cum_pct\":%.4f",
				r->flat, pct_of(r->flat, t->total), pct_of(sum, t->total), r->cum,
				pct_of(r->cum, t->total));
			if (r->inlined)
				fprintf(out, ",\"inline\":\"%s\"", inline_name(r->inlined));
			putc('}', out);
		}
		fputs("]}\n", out);
		break;
	}
	return finish(out);
}

/* ---- the table of a diff ---- */

struct dfun {
	const char *name;
	uint32_t len;
	uint64_t hash;
	size_t mark; /* the last line (+1) that counted it in total */
	int64_t sb, sa, tb, ta;
};

struct dtab {
	struct pprof_profile *err;
	struct dfun *fn;
	uint32_t nfn, capfn;
	uint32_t *slots; /* function + 1, 0 = empty */
	size_t cap;
	/* Names come from the input: hashed with a seed it can't know, they
	 * can't be crafted to share one slot (hash flooding). */
	uint64_t seed;
};

static int dtab_find(struct dtab *t, const char *s, size_t n, uint32_t *id)
{
	if (n > UINT32_MAX)
		return pp_error(t->err, PPROF_EINPUT, "frame name longer than 4 GiB");
	uint64_t h = pp_hash_bytes(s, n, t->seed);
	size_t i = (size_t)h & (t->cap - 1);
	while (t->slots[i]) {
		struct dfun *f = &t->fn[t->slots[i] - 1];
		if (f->hash == h && f->len == n && memcmp(f->name, s, n) == 0) {
			*id = t->slots[i] - 1;
			return PPROF_OK;
		}
		i = (i + 1) & (t->cap - 1);
	}
	if (t->nfn == t->capfn) {
		uint32_t cap = t->capfn ? t->capfn * 2 : 1024;
		if (cap < t->capfn)
			return pp_nomem(t->err);
		struct dfun *nf = realloc(t->fn, (size_t)cap * sizeof(*nf));
		if (!nf)
			return pp_nomem(t->err);
		t->fn = nf;
		t->capfn = cap;
	}
	*id = t->nfn;
	t->fn[t->nfn++] = (struct dfun){s, (uint32_t)n, h, 0, 0, 0, 0, 0};
	t->slots[i] = t->nfn;
	if ((size_t)t->nfn * 2 > t->cap) {
		size_t cap = t->cap * 2;
		uint32_t *ns = calloc(cap, sizeof(*ns));
		if (!ns)
			return pp_nomem(t->err);
		for (uint32_t k = 0; k < t->nfn; k++) {
			size_t j = (size_t)t->fn[k].hash & (cap - 1);
			while (ns[j])
				j = (j + 1) & (cap - 1);
			ns[j] = k + 1;
		}
		free(t->slots);
		t->slots = ns;
		t->cap = cap;
	}
	return PPROF_OK;
}

struct drow {
	const struct dfun *f;
	int64_t ds, dt;
};

static int drow_cmp_self(const void *pa, const void *pb)
{
	const struct drow *a = pa, *b = pb;
	uint64_t x = mag(a->ds), y = mag(b->ds);
	if (x != y)
		return x > y ? -1 : 1;
	int c = name_cmp(a->f->name, a->f->len, b->f->name, b->f->len);
	if (c)
		return c;
	x = mag(a->dt);
	y = mag(b->dt);
	return x != y ? (x > y ? -1 : 1) : 0;
}

static int drow_cmp_total(const void *pa, const void *pb)
{
	const struct drow *a = pa, *b = pb;
	uint64_t x = mag(a->dt), y = mag(b->dt);
	if (x != y)
		return x > y ? -1 : 1;
	int c = name_cmp(a->f->name, a->f->len, b->f->name, b->f->len);
	if (c)
		return c;
	x = mag(a->ds);
	y = mag(b->ds);
	return x != y ? (x > y ? -1 : 1) : 0;
}

static bool add_to(int64_t *dst, int64_t v)
{
	return !__builtin_add_overflow(*dst, v, dst);
}

int pprof_diff_table(struct pprof_profile *err, const struct pprof_diff *d, int cum,
		     struct pprof_diff_table **out)
{
	*out = NULL;
	struct dtab t = {err, NULL, 0, 0, NULL, 1024, 0};
	t.seed = (uint64_t)(uintptr_t)&t * 0x9E3779B97F4A7C15ull;
	if (getrandom(&t.seed, sizeof(t.seed), GRND_NONBLOCK) != (ssize_t)sizeof(t.seed))
		t.seed ^= (uint64_t)time(NULL);
	struct drow *rows = NULL;
	struct pprof_diff_table *tab = NULL;
	int s = PPROF_OK;
	t.slots = calloc(t.cap, sizeof(*t.slots));
	if (!t.slots) {
		s = pp_nomem(err);
		goto out;
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct pprof_diff_line *l = &d->lines[i];
		const char *p = l->stack, *end = l->stack + l->len;
		for (;;) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *fe = semi ? semi : end;
			uint32_t id = 0;
			s = dtab_find(&t, p, (size_t)(fe - p), &id);
			if (s != PPROF_OK)
				goto out;
			struct dfun *f = &t.fn[id];
			if (f->mark != i + 1) {
				f->mark = i + 1;
				if (!add_to(&f->tb, l->before) || !add_to(&f->ta, l->after))
					goto overflow;
			}
			if (!semi) {
				if (!add_to(&f->sb, l->before) || !add_to(&f->sa, l->after))
					goto overflow;
				break;
			}
			p = semi + 1;
		}
	}
	rows = malloc((size_t)(t.nfn ? t.nfn : 1) * sizeof(*rows));
	if (!rows) {
		s = pp_nomem(err);
		goto out;
	}
	size_t n = 0, size = 0;
	for (uint32_t k = 0; k < t.nfn; k++) {
		struct dfun *f = &t.fn[k];
		int64_t ds, dt;
		if (__builtin_sub_overflow(f->sa, f->sb, &ds) || __builtin_sub_overflow(f->ta, f->tb, &dt))
			goto overflow;
		if (ds || dt) {
			rows[n++] = (struct drow){f, ds, dt};
			size += (size_t)f->len + 1;
		}
	}
	qsort(rows, n, sizeof(*rows), cum ? drow_cmp_total : drow_cmp_self);
	tab = calloc(1, sizeof(*tab));
	if (tab) {
		tab->rows = malloc((n ? n : 1) * sizeof(*tab->rows));
		tab->buf = malloc(size ? size : 1);
	}
	if (!tab || !tab->rows || !tab->buf) {
		s = pp_nomem(err);
		goto out;
	}
	char *at = tab->buf;
	for (size_t i = 0; i < n; i++) {
		const struct dfun *f = rows[i].f;
		memcpy(at, f->name, f->len);
		at[f->len] = '\0';
		tab->rows[i] = (struct pprof_diff_row){at, f->sb, f->sa, f->tb, f->ta};
		at += f->len + 1;
	}
	tab->n = n;
	*out = tab;
	tab = NULL;
	goto out;
overflow:
	s = pp_error(err, PPROF_EINPUT, "sum of values leaves the 64-bit range");
out:
	pprof_diff_table_free(tab);
	free(rows);
	free(t.fn);
	free(t.slots);
	return s;
}

void pprof_diff_table_free(struct pprof_diff_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->buf);
	free(t);
}

/* A signed label: "+" before growth. */
static void signed_label(char *buf, size_t size, int64_t v, const char *from, const char *unit)
{
	if (v > 0) {
		buf[0] = '+';
		pprof_value_label(buf + 1, size - 1, v, from, unit);
	} else {
		pprof_value_label(buf, size, v, from, unit);
	}
}

static void signed_pct(char *buf, size_t size, int64_t v, int64_t base)
{
	if (base == 0)
		snprintf(buf, size, v ? "n/a" : "0%%");
	else
		snprintf(buf, size, "%+.2f%%", (double)v / (double)base * 100);
}

/* Cells of one text row, for measuring and printing. */
#define DCOLS 8
struct dcells {
	char c[DCOLS][96];
};

static void diff_cells(struct dcells *x, const struct pprof_diff_row *r, const char *from,
		       const char *unit, int64_t base)
{
	int64_t ds = r->self_after - r->self_before, dt = r->total_after - r->total_before;
	pprof_value_label(x->c[0], sizeof(x->c[0]), r->self_before, from, unit);
	pprof_value_label(x->c[1], sizeof(x->c[1]), r->self_after, from, unit);
	signed_label(x->c[2], sizeof(x->c[2]), ds, from, unit);
	signed_pct(x->c[3], sizeof(x->c[3]), ds, base);
	pprof_value_label(x->c[4], sizeof(x->c[4]), r->total_before, from, unit);
	pprof_value_label(x->c[5], sizeof(x->c[5]), r->total_after, from, unit);
	signed_label(x->c[6], sizeof(x->c[6]), dt, from, unit);
	signed_pct(x->c[7], sizeof(x->c[7]), dt, base);
}

static void diff_text(const struct pprof_diff_table *t, const struct pprof_diff *d,
		      const struct pprof_diff_info *info, size_t n, FILE *out)
{
	static const char *const head[DCOLS] = {"before", "after", "delta", "delta%",
						"before", "after", "delta", "delta%"};
	int64_t base = d->total_before_scaled;
	int64_t max = base > d->total_after ? base : d->total_after;
	int64_t min = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pprof_diff_row *r = &t->rows[i];
		uint64_t m = mag(r->self_after - r->self_before);
		if (m == 0)
			m = mag(r->total_after - r->total_before);
		if (m > 0 && (min == 0 || m < (uint64_t)min))
			min = (int64_t)m;
	}
	char unit[64], a[128], pct[64];
	pprof_output_unit(unit, sizeof(unit), min, max, info->unit);

	fprintf(out, "Type: %s (%s)\n", info->type, info->unit);
	pprof_value_label(a, sizeof(a), d->total_before, info->unit, unit);
	fprintf(out, "Before: %s, total %s\n", info->before, a);
	pprof_value_label(a, sizeof(a), d->total_after, info->unit, unit);
	fprintf(out, "After: %s, total %s\n", info->after, a);
	if (d->normalized) {
		pprof_value_label(a, sizeof(a), d->total_before_scaled, info->unit, unit);
		fprintf(out,
			"Normalized: before values x %.6g (after's total / before's), "
			"truncated; before total now %s\n",
			(double)d->total_after / (double)d->total_before, a);
	} else {
		fprintf(out, "Normalized: no\n");
	}
	signed_label(a, sizeof(a), d->total_after - base, info->unit, unit);
	signed_pct(pct, sizeof(pct), d->total_after - base, base);
	fprintf(out, "Total delta: %s (%s of before)\n", a, pct);
	fprintf(out, "Showing %zu of %zu functions that changed; delta%% is of the before total\n",
		n, t->n);

	/* Column widths from the cells. */
	size_t w[DCOLS];
	for (int k = 0; k < DCOLS; k++)
		w[k] = strlen(head[k]);
	struct dcells x;
	for (size_t i = 0; i < n; i++) {
		diff_cells(&x, &t->rows[i], info->unit, unit, base);
		for (int k = 0; k < DCOLS; k++)
			if (strlen(x.c[k]) > w[k])
				w[k] = strlen(x.c[k]);
	}
	/* "self" over the first four columns, "total" over the next four */
	size_t self_w = w[0] + w[1] + w[2] + w[3] + 3 * 2 + 4;
	fprintf(out, "%-*s%s\n", (int)self_w, "self", "total");
	for (int k = 0; k < DCOLS; k++)
		fprintf(out, "%*s%s", (int)w[k], head[k], k == 3 ? "    " : "  ");
	fputs("function\n", out);
	for (size_t i = 0; i < n; i++) {
		diff_cells(&x, &t->rows[i], info->unit, unit, base);
		for (int k = 0; k < DCOLS; k++)
			fprintf(out, "%*s%s", (int)w[k], x.c[k], k == 3 ? "    " : "  ");
		fprintf(out, "%s\n", t->rows[i].name);
	}
}

static void json_side(FILE *out, const char *key, int64_t b, int64_t a, int64_t base)
{
	fprintf(out,
		",\"%s\":{\"before\":%" PRId64 ",\"after\":%" PRId64 ",\"delta\":%" PRId64
		",\"delta_pct\":%.4f}",
		key, b, a, a - b, pct_of(a - b, base));
}

int pprof_diff_table_write(const struct pprof_diff_table *t, const struct pprof_diff *d,
			   const struct pprof_diff_info *info, enum pprof_table_format fmt,
			   size_t limit, FILE *out)
{
	errno = 0;
	size_t n = limit && limit < t->n ? limit : t->n;
	int64_t base = d->total_before_scaled;
	switch (fmt) {
	case PPROF_TABLE_TEXT:
		diff_text(t, d, info, n, out);
		break;
	case PPROF_TABLE_TSV:
		fputs("# type\t", out);
		tsv_str(out, info->type);
		putc('\t', out);
		tsv_str(out, info->unit);
		fputs("\n# before\t", out);
		tsv_str(out, info->before);
		fprintf(out, "\t%" PRId64 "\t%" PRId64 "\n# after\t", d->total_before,
			d->total_before_scaled);
		tsv_str(out, info->after);
		fprintf(out, "\t%" PRId64 "\n# normalized\t%d\n# rows\t%zu\t%zu\n", d->total_after,
			d->normalized ? 1 : 0, n, t->n);
		fputs("self_before\tself_after\tself_delta\tself_delta%\ttotal_before\ttotal_after\t"
		      "total_delta\ttotal_delta%\tfunction\n",
		      out);
		for (size_t i = 0; i < n; i++) {
			const struct pprof_diff_row *r = &t->rows[i];
			int64_t ds = r->self_after - r->self_before, dt = r->total_after - r->total_before;
			fprintf(out,
				"%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%.4f\t%" PRId64 "\t%" PRId64
				"\t%" PRId64 "\t%.4f\t",
				r->self_before, r->self_after, ds, pct_of(ds, base), r->total_before,
				r->total_after, dt, pct_of(dt, base));
			tsv_str(out, r->name);
			putc('\n', out);
		}
		break;
	case PPROF_TABLE_JSON:
		fputs("{\"type\":", out);
		json_str(out, info->type);
		fputs(",\"unit\":", out);
		json_str(out, info->unit);
		fputs(",\"before\":{\"name\":", out);
		json_str(out, info->before);
		fprintf(out, ",\"total\":%" PRId64 ",\"total_scaled\":%" PRId64 "},\"after\":{\"name\":",
			d->total_before, d->total_before_scaled);
		json_str(out, info->after);
		fprintf(out,
			",\"total\":%" PRId64 "},\"normalized\":%s,\"delta\":%" PRId64
			",\"delta_pct\":%.4f,\"rows_total\":%zu,\"rows\":[",
			d->total_after, d->normalized ? "true" : "false", d->total_after - base,
			pct_of(d->total_after - base, base), t->n);
		for (size_t i = 0; i < n; i++) {
			const struct pprof_diff_row *r = &t->rows[i];
			fputs(i ? ",\n{\"function\":" : "\n{\"function\":", out);
			json_str(out, r->name);
			json_side(out, "self", r->self_before, r->self_after, base);
			json_side(out, "total", r->total_before, r->total_after, base);
			putc('}', out);
		}
		fputs("]}\n", out);
		break;
	}
	return finish(out);
}

int pprof_diff_regressed(const struct pprof_diff_table *t, const struct pprof_diff *d,
			 double pct, const struct pprof_diff_row **worst, size_t *nover)
{
	int64_t base = d->total_before_scaled;
	*worst = NULL;
	*nover = 0;
	/* growth > pct% of base, in long double so big values stay exact enough */
	long double limit = (long double)pct / 100 * (long double)base;
	int64_t best = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct pprof_diff_row *r = &t->rows[i];
		int64_t g = r->total_after - r->total_before;
		if (g <= 0)
			continue;
		if (g > best) {
			best = g;
			*worst = r;
		}
		if (base <= 0 || (long double)g > limit)
			(*nover)++;
	}
	int64_t g = d->total_after - base;
	bool total_over = g > 0 && (base <= 0 || (long double)g > limit);
	return total_over || *nover > 0;
}
