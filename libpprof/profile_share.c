/*
 * profile_share.c: shares of a reader's samples (walk_private.h).  A
 * share is a profile of its own that borrows the strings and types of the
 * one it will be merged into, so that two threads can each build a tree
 * of half the samples; pp_share_merge() then makes the two trees one.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "walk_private.h"

struct pprof_profile *pp_share_new(const struct pprof_profile *p)
{
	struct pprof_profile *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pp_buf_init(&s->error);
	s->default_type = -1;
	s->hseed = p->hseed;
	/* borrowed, read only: for pp_add_sample() and its messages */
	s->strs = p->strs;
	s->strlens = p->strlens;
	s->nstrs = p->nstrs;
	s->types = p->types;
	s->ntypes = p->ntypes;
	s->typemap = p->typemap;
	if (!pp_tree_init(s)) {
		pp_share_free(s);
		return NULL;
	}
	return s;
}

void pp_share_free(struct pprof_profile *s)
{
	if (!s)
		return;
	pp_tree_release(s);
	free(s);
}

/* Walks the runs of kind K (struct pp_run) of two shares in the order of
 * their samples: *SH the share of the next item, *ITEM its index there;
 * false when both are done.  CUR[] and RUN[] (zeroed, CUR[] set to the
 * first items) are the walk's state. */
static bool share_next(struct pp_share sh[2], int k, uint32_t cur[2], size_t run[2], int *which,
		       uint32_t *item)
{
	for (int x = 0; x < 2; x++)
		while (run[x] < sh[x].nruns[k] && cur[x] >= sh[x].runs[k][run[x]].end)
			run[x]++;
	bool a = run[0] < sh[0].nruns[k], b = run[1] < sh[1].nruns[k];
	if (!a && !b)
		return false;
	int x = !a ? 1 : !b ? 0 : sh[1].runs[k][run[1]].sample < sh[0].runs[k][run[0]].sample;
	*which = x;
	*item = cur[x]++;
	return true;
}

#define MERGE_AHEAD 16
int pp_share_merge(struct pprof_profile *p, struct pp_share sh[2])
{
	/* P is fresh (the tree is the root, no aggregated samples): the
	 * shares' items are made in P in the order of the samples that made
	 * them, as one walk of all the samples would have made them. */
	uint32_t *lmap[2] = {NULL, NULL}, *nmap[2] = {NULL, NULL}, *depth1 = NULL;
	int status = PPROF_OK;
	/* the shares' indexes are not read here: given back first */
	for (int k = 0; k < 2; k++) {
		pp_idhash_free(sh[k].s->nodehash);
		pp_idhash_free(sh[k].s->entryhash);
		sh[k].s->nodehash = sh[k].s->entryhash = NULL;
	}
	for (int k = 0; k < 2; k++) {
		lmap[k] = malloc((size_t)sh[k].s->nlabelsets * sizeof(*lmap[k]));
		nmap[k] = pp_big_calloc(sh[k].s->nnodes, sizeof(*nmap[k]));
		if (!lmap[k] || !nmap[k]) {
			status = pp_nomem(p);
			goto out;
		}
		lmap[k][0] = 0;
		nmap[k][0] = 0;
	}
	depth1 = calloc(p->nframes ? p->nframes : 1, sizeof(*depth1));
	if (!depth1) {
		status = pp_nomem(p);
		goto out;
	}

	/* label sets */
	{
		uint32_t cur[2] = {1, 1}, it;
		size_t run[2] = {0, 0};
		int k;
		while (share_next(sh, 2, cur, run, &k, &it)) {
			const struct pprof_profile *s = sh[k].s;
			uint32_t b = s->labelsets[it], e = s->labelsets[it + 1];
			if ((status = pp_labelset_intern(p, s->labels + b, e - b, &lmap[k][it])))
				goto out;
		}
	}

	/* nodes: below a node of depth 1 the shares' trees are apart (the
	 * reader shares out the samples by their first two frames) */
	{
		uint64_t total = (uint64_t)sh[0].s->nnodes + sh[1].s->nnodes - 1;
		if (total > UINT32_MAX / 2) {
			status = pp_nomem(p);
			goto out;
		}
		size_t nb = (size_t)total * sizeof(struct pp_node);
		struct pp_node *nodes = pp_huge_alloc(&nb);
		if (!nodes) {
			status = pp_nomem(p);
			goto out;
		}
		pp_advise_huge(nodes, (size_t)total * sizeof(*nodes));
		nodes[0] = p->nodes[0];
		uint32_t nn = 1;
		uint32_t cur[2] = {1, 1}, it;
		size_t run[2] = {0, 0};
		uintptr_t given[2] = {0, 0};
		int k;
		while (share_next(sh, 0, cur, run, &k, &it)) {
			const struct pp_node *x = &sh[k].s->nodes[it];
			/* nmap[k][x->parent] is read at random (a cache miss
			 * each on a big profile, half of the merge's time):
			 * fetched for the node MERGE_AHEAD further on in the
			 * same share, a hint (that entry may not be written
			 * yet) */
			if (it + MERGE_AHEAD < sh[k].s->nnodes)
				__builtin_prefetch(&nmap[k][x[MERGE_AHEAD].parent]);
			/* the shares' nodes are read once, in order: the pages
			 * behind are given back, 4 MiB at a time, as the merged
			 * tree grows */
			if ((it & 0x7ffff) == 0)
				pp_give_back(sh[k].s->nodes, (size_t)it * sizeof(*x), &given[k]);
			if (x->parent == 0 && depth1[x->frame]) {
				nmap[k][it] = depth1[x->frame];
				continue;
			}
			nodes[nn].parent = nmap[k][x->parent];
			nodes[nn].frame = x->frame;
			if (x->parent == 0)
				depth1[x->frame] = nn;
			nmap[k][it] = nn++;
		}
		free(p->nodes);
		p->nodes = nodes;
		p->nnodes = nn;
		p->capnodes = (uint32_t)total;
		/* the shares' trees are not read again */
		for (int x = 0; x < 2; x++) {
			free(sh[x].s->nodes);
			sh[x].s->nodes = NULL;
		}
		/* rebuilt when asked (pp_node_child()) */
		pp_drop_node_index(p);
	}

	/* aggregated samples, the values in P's type order already; no two
	 * shares' are alike (their samples end at different nodes): their
	 * index is rebuilt when asked (pp_add_sample()) */
	{
		uint64_t total = (uint64_t)sh[0].s->nentries + sh[1].s->nentries;
		size_t nt = p->ntypes ? p->ntypes : 1;
		if (total > UINT32_MAX / 2) {
			status = pp_nomem(p);
			goto out;
		}
		uint32_t cap = total ? (uint32_t)total : 1;
		struct pp_entry *entries = malloc((size_t)cap * sizeof(*entries));
		int64_t *values = malloc((size_t)cap * nt * sizeof(*values));
		if (!entries || !values) {
			free(entries);
			free(values);
			status = pp_nomem(p);
			goto out;
		}
		uint32_t cur[2] = {0, 0}, it;
		size_t run[2] = {0, 0};
		uint32_t ne = 0;
		int k;
		while (share_next(sh, 1, cur, run, &k, &it)) {
			const struct pprof_profile *s = sh[k].s;
			const struct pp_entry *x = &s->entries[it];
			entries[ne].node = nmap[k][x->node];
			entries[ne].labels = lmap[k][x->labels];
			memcpy(values + (size_t)ne * nt, s->values + (size_t)it * s->ntypes,
			       p->ntypes * sizeof(*values));
			ne++;
		}
		free(p->entries);
		free(p->values);
		p->entries = entries;
		p->values = values;
		p->nentries = ne;
		p->capentries = cap;
		pp_idhash_free(p->entryhash);
		p->entryhash = NULL;
	}
out:
	for (int k = 0; k < 2; k++) {
		free(lmap[k]);
		pp_big_free(nmap[k], sh[k].s->nnodes, sizeof(*nmap[k]));
	}
	free(depth1);
	return status;
}
