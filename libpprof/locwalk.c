/* locwalk.c: the walks that add stacks given as lists of locations
 * (pprof's samples) to the call tree (see walk_private.h). */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "walk_private.h"

#define LOC_AHEAD 8
static inline void prefetch_loc(const struct pp_loc *l)
{
	__builtin_prefetch(l);
	__builtin_prefetch((const char *)(l + 1) - 1);
}

/* The step PARENT -> TO, in slot M of LOC's memo, first; the M steps
 * before it one down. */
static inline void memo_front(struct pp_loc *loc, unsigned m, uint32_t parent, uint32_t to)
{
	memmove(loc->memo[1], loc->memo[0], m * sizeof(loc->memo[0]));
	loc->memo[0][0] = parent;
	loc->memo[0][1] = to;
}

/* The step PARENT -> TO made or found by a look-up, in LOC's memo: in the
 * last slot, in place of the least recently used step, where it stays
 * until it is used again (memo_find() then moves it to the front).  A
 * step taken once, as most are on a big profile of distinct stacks,
 * then never pushes out the steps used more than once.  Put first, it
 * left 18% more look-ups that find a node at 16x the bench pprof (46.9M
 * against 39.8M), 15% more at 4x, as many at 1x. */
static inline void memo_last(struct pp_loc *loc, uint32_t parent, uint32_t to)
{
	loc->memo[PP_MEMO - 1][0] = parent;
	loc->memo[PP_MEMO - 1][1] = to;
}

/* N more frames walked: false past the bound. */
static inline bool count_steps(struct pp_locwalk *w, uint64_t n)
{
	w->steps += n;
	return w->steps <= w->maxsteps;
}

/* The node a step from NODE through LOC ends at, as LOC's memo remembers
 * it, moved to the front (the step replaced later is then the least
 * recently used, not the oldest made); 0 when it does not. */
static inline uint32_t memo_find(struct pp_loc *loc, uint32_t node)
{
	for (unsigned m = 0; m < PP_MEMO; m++)
		if (loc->memo[m][0] == node && loc->memo[m][1]) {
			uint32_t to = loc->memo[m][1];
			if (m)
				memo_front(loc, m, node, to);
			return to;
		}
	return 0;
}

int pp_locwalk_node(struct pprof_profile *p, struct pp_locwalk *w, const uint32_t *stack, size_t n,
		    uint64_t offset, uint32_t *out)
{
	if (!pp_grow((void **)&w->prev, &w->capprev, n, sizeof(*w->prev)))
		return pp_nomem(p);
	size_t d = 0;
	uint32_t node = 0;
	while (d < n && d < w->prevn && w->prev[d].loc == stack[n - 1 - d]) {
		node = w->prev[d].node;
		d++;
	}
	/* The locations are read at random (a cache miss each on a big
	 * profile) but known ahead: fetched LOC_AHEAD steps before use. */
	for (size_t k = d; k < n && k < d + LOC_AHEAD; k++)
		prefetch_loc(&w->locs[stack[n - 1 - k]]);
	for (; d < n; d++) {
		uint32_t li = stack[n - 1 - d];
		struct pp_loc *loc = &w->locs[li];
		if (d + LOC_AHEAD < n)
			prefetch_loc(&w->locs[stack[n - 1 - d - LOC_AHEAD]]);
		uint32_t to = memo_find(loc, node);
		if (to) {
			node = to;
		} else {
			uint32_t parent = node;
			if (!count_steps(w, loc->n))
				return pp_steps_exceeded(p, offset, w->maxsteps, w->inlen);
			for (uint32_t k = 0; k < loc->n; k++) {
				int s = pp_node_child(p, node, w->frames[loc->off + k], &node);
				if (s != PPROF_OK)
					return s;
			}
			memo_last(loc, parent, node);
		}
		w->prev[d].loc = li;
		w->prev[d].node = node;
	}
	w->prevn = n;
	*out = node;
	return PPROF_OK;
}

/* Path PS on to its next location, the one LOC_AHEAD - 1 further fetched
 * (pp_locwalk_ahead() fetched the first LOC_AHEAD). */
static inline void path_next(const struct pp_locwalk *w, struct pp_locpath *ps)
{
	ps->d++;
	if (ps->d + LOC_AHEAD - 1 < ps->n)
		prefetch_loc(&w->locs[ps->stack[ps->n - ps->d - LOC_AHEAD]]);
}

/* Path PS ahead until it waits for memory it asked for, or is done (see
 * pp_locwalk_ahead()). */
static void ahead_step(struct pprof_profile *p, const struct pp_idhash *t, struct pp_locwalk *w,
		       struct pp_locpath *ps)
{
	uint32_t mask = t->cap - 1;
	for (;;) {
		if (ps->d == ps->n) {
			ps->done = true;
			return;
		}
		struct pp_loc *loc = &w->locs[ps->stack[ps->n - 1 - ps->d]];
		if (ps->stage == 0 && !ps->counted) {
			uint32_t to = memo_find(loc, ps->node);
			if (to) {
				ps->node = to;
				path_next(w, ps);
				continue;
			}
			ps->from = ps->node;
			ps->steps += loc->n;
			ps->counted = true;
			ps->k = 0;
		}
		if (ps->stage == 0 && ps->k == loc->n) {
			memo_last(loc, ps->from, ps->node);
			ps->counted = false;
			ps->k = 0;
			path_next(w, ps);
			continue;
		}
		uint32_t frame = w->frames[loc->off + ps->k];
		uint64_t mix = pp_hash_mix(((uint64_t)ps->node << 32) | frame);
		if (ps->stage == 0) {
			ps->slot = (uint32_t)mix & mask;
			ps->stage = 1;
			__builtin_prefetch(&t->slots[ps->slot]);
			return;
		}
		uint32_t tag = pp_idhash_tag(mix, t->cap);
		if (ps->stage == 2) {
			const struct pp_node *nd = &p->nodes[(t->slots[ps->slot] & mask) - 1];
			if (nd->parent == ps->node && nd->frame == frame) {
				ps->node = (uint32_t)(nd - p->nodes);
				ps->k++;
				ps->stage = 0;
				continue;
			}
			ps->slot = (ps->slot + 1) & mask;
			ps->stage = 1;
		}
		uint32_t v;
		while ((v = t->slots[ps->slot]) && (v & ~mask) != tag)
			ps->slot = (ps->slot + 1) & mask;
		if (!v) { /* not in the tree: the rest is to make */
			ps->stage = 0;
			ps->done = true;
			return;
		}
		ps->stage = 2;
		__builtin_prefetch(&p->nodes[(v & mask) - 1]);
		return;
	}
}

void pp_locwalk_ahead(struct pprof_profile *p, struct pp_locwalk *w, struct pp_locpath *ps, size_t n)
{
	const struct pp_idhash *t = p->nodehash;
	size_t active = 0;
	for (size_t i = 0; i < n; i++) {
		struct pp_locpath *x = &ps[i];
		x->d = x->k = x->node = x->from = x->slot = 0;
		x->stage = 0;
		x->counted = false;
		x->steps = 0;
		/* without the index (built at the first look-up) the finish
		 * does all */
		x->done = !t || !x->n;
		active += !x->done;
		for (size_t k = 0; k < x->n && k < LOC_AHEAD; k++)
			prefetch_loc(&w->locs[x->stack[x->n - 1 - k]]);
	}
	while (active)
		for (size_t i = 0; i < n; i++)
			if (!ps[i].done) {
				ahead_step(p, t, w, &ps[i]);
				active -= ps[i].done;
			}
}

#define FRESH_AHEAD 8
/* The frame at frame *K of location *D of PS, and *D, *K moved past it;
 * false past the stack's end. */
static inline bool next_frame(const struct pp_locwalk *w, const struct pp_locpath *ps, size_t *d,
			      uint32_t *k, uint32_t *frame)
{
	for (; *d < ps->n; (*d)++, *k = 0) {
		const struct pp_loc *loc = &w->locs[ps->stack[ps->n - 1 - *d]];
		if (*k < loc->n) {
			*frame = w->frames[loc->off + (*k)++];
			return true;
		}
	}
	return false;
}

int pp_locwalk_finish(struct pprof_profile *p, struct pp_locwalk *w, struct pp_locpath *ps,
		      uint64_t offset, uint32_t *out)
{
	if (!count_steps(w, ps->steps))
		return pp_steps_exceeded(p, offset, w->maxsteps, w->inlen);
	uint32_t node = ps->node, from = ps->from, k = ps->k;
	bool counted = ps->counted;
	/* Once a node is made, every step after it makes one (a new node
	 * has no children): the keys of those steps are known ahead, the
	 * node made at each the one made before, and their slots are
	 * fetched FRESH_AHEAD steps before use.  The frames fetched for are
	 * those of location D2 from frame K2, AHEAD steps on. */
	bool fresh = false;
	size_t d2 = 0;
	uint32_t k2 = 0, ahead = 0;
	for (size_t d = ps->d; d < ps->n; d++) {
		struct pp_loc *loc = &w->locs[ps->stack[ps->n - 1 - d]];
		if (!counted) {
			/* (a new node is in no memo) */
			uint32_t to = fresh ? 0 : memo_find(loc, node);
			if (to) {
				node = to;
				continue;
			}
			from = node;
			k = 0;
			if (!count_steps(w, loc->n))
				return pp_steps_exceeded(p, offset, w->maxsteps, w->inlen);
		}
		for (; k < loc->n; k++) {
			uint32_t made = p->nnodes, f2;
			int s = pp_node_child(p, node, w->frames[loc->off + k], &node);
			if (s != PPROF_OK)
				return s;
			if (fresh) {
				ahead -= ahead > 0;
			} else if (p->nnodes != made) {
				fresh = true;
				d2 = d;
				k2 = k + 1;
			}
			while (fresh && ahead < FRESH_AHEAD && next_frame(w, ps, &d2, &k2, &f2)) {
				const struct pp_idhash *t = p->nodehash;
				uint64_t key = ((uint64_t)(p->nnodes - 1 + ahead) << 32) | f2;
				__builtin_prefetch(&t->slots[pp_hash_mix(key) & (t->cap - 1)]);
				ahead++;
			}
		}
		memo_last(loc, from, node);
		counted = false;
	}
	*out = node;
	return PPROF_OK;
}

int pp_steps_exceeded(struct pprof_profile *p, uint64_t offset, uint64_t maxsteps, size_t inlen)
{
	return pp_error_at(p, PPROF_EINPUT, offset,
			   "stacks expand to more than %llu frames (inlined lines "
			   "times repeated locations), too many for %zu bytes",
			   (unsigned long long)maxsteps, inlen);
}

void pp_locwalk_release(struct pp_locwalk *w)
{
	free(w->prev);
	w->prev = NULL;
	w->prevn = w->capprev = 0;
}
