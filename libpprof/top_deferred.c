/* top_deferred.c: the top table's walk of samples kept out of the tree
 * (pp_deferred): the stacks as lists of locations, split among threads
 * for a big profile. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pprof_private.h"
#include "top_private.h"

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
			if (w->base && pp_has_label(p, x->labels, w->base, "true"))
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
unsigned pp_top_walk_shares(unsigned asked, const struct pp_deferred *d)
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
int pp_top_walk_deferred(struct top_work *t, uint32_t sel, bool first, bool labels,
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
