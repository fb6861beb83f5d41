/*
 * walk_private.h: the stack walks that read_pprof.c, profile.c,
 * profile_share.c and top.c share: stacks given as lists of locations
 * (pprof's samples), the walks that add them to the call tree (locwalk.c), and the
 * samples kept out of the tree until something needs it.  Not installed; not for the tools.
 */
#ifndef PPROF_WALK_PRIVATE_H
#define PPROF_WALK_PRIVATE_H

#ifndef PPROF_INTERNAL
#error "walk_private.h is private to libpprof"
#endif

#include <stddef.h>
#include <stdint.h>

#include "model_private.h"
#include "read_private.h"

/* ---- stacks given as lists of locations (pprof's samples) ---- */
/* A location: its frames are FRAMES[off .. off + n), root side first.
 * MEMO holds the last PP_MEMO steps of the tree walk through it, from node
 * memo[k][0] to node memo[k][1] (0: none; a step never ends at the root),
 * the most recently used first, a new one last (see memo_last() in
 * locwalk.c).  On the 500k-stack bench profile (samples
 * shuffled, as Go writes them) 4 steps leave 3.12M look-ups of the tree to
 * do (2.14M of them make the nodes; 3.48M when a step found stays where it
 * is), 8 leave 2.63M.  At four times that input 4 steps leave 15.2M
 * (8.17M make nodes): a location is reached under more parents.  With a
 * function's lines read as one frame (skip_lines), the memo misses that
 * find the node ahead are 1.47M, 7.81M and 39.8M at 1x, 4x and 16x that
 * input: the part of the walk's time that grows faster than the input.
 * 8 steps made them 0.98M, 6.91M and 39.2M (against 1.47M, 8.96M and
 * 46.9M with 4, both with a new step first), but the bigger locations
 * cost as much as that saves: 4x was 8% faster, 1x 2% slower, 16x no
 * faster (medians of 6 and 16 alternating runs).
 * FLAGS are the reader's own. */
#define PP_MEMO 4
struct pp_loc {
	uint32_t memo[PP_MEMO][2];
	uint32_t off;
	uint32_t n : 30;
	uint32_t flags : 2;
};

/* The walk that adds such stacks to the tree.  The tree look-ups are what
 * costs (a random access each), so the previous stack's path is reused as
 * far as it is the same, and each location's last PP_MEMO steps are
 * remembered (see PP_MEMO for how many look-ups that saves).  STEPS
 * counts the frames actually walked; past MAXSTEPS the input (of INLEN
 * bytes) is refused as an inline bomb. */
struct pp_locwalk {
	struct pp_loc *locs;
	const uint32_t *frames;
	struct pp_locstep {
		uint32_t loc, node;
	} *prev; /* the previous path, root first */
	size_t prevn, capprev;
	uint64_t steps, maxsteps;
	size_t inlen;
};
/* The node of the stack STACK[0 .. n) (location indexes, leaf first);
 * OFFSET is for the message. */
int pp_locwalk_node(struct pprof_profile *p, struct pp_locwalk *w, const uint32_t *stack,
		    size_t n, uint64_t offset, uint32_t *node);
void pp_locwalk_release(struct pp_locwalk *w);
/* The same walk in two parts, for several stacks at once: most of a big
 * profile's look-ups find nodes that are there, each a cache miss or two
 * that the next step waits for.  pp_locwalk_ahead() takes N stacks as far
 * as the tree already holds them, a step of each in turn, so that their
 * look-ups' misses overlap instead of following one another; it makes
 * nothing.  pp_locwalk_finish() then walks each stack on from there, in
 * the stacks' order, making the nodes that are missing: the nodes made
 * and their order are those pp_locwalk_node() gives the stacks one after
 * the other.  The previous stack's path is not used; STEPS counts each
 * location of a stack at most once, as pp_locwalk_node() does (the memo
 * answers differently, so the count may differ). */
struct pp_locpath {
	const uint32_t *stack; /* location indexes, leaf first */
	size_t n;
	size_t d;       /* locations walked, from the root */
	uint32_t k;     /* frames of location d walked */
	uint32_t node;  /* where the walk is */
	uint32_t from;  /* the node location d started from */
	uint32_t slot;  /* the look-up under way: its slot */
	uint8_t stage;  /* 0: next step, 1: read the slot, 2: read the node */
	bool counted;   /* location d's frames are in STEPS */
	bool done;      /* the tree ends here: the rest is to make */
	uint64_t steps; /* frames counted ahead, added by the finish */
};
void pp_locwalk_ahead(struct pprof_profile *p, struct pp_locwalk *w, struct pp_locpath *ps,
		      size_t n);
int pp_locwalk_finish(struct pprof_profile *p, struct pp_locwalk *w, struct pp_locpath *ps,
		      uint64_t offset, uint32_t *node);
/* The error of stacks that expand past MAXSTEPS frames in an input of
 * INLEN bytes (an inline bomb), at OFFSET. */
int pp_steps_exceeded(struct pprof_profile *p, uint64_t offset, uint64_t maxsteps,
		      size_t inlen);

/* Inputs of at least this many bytes have their samples walked in two
 * shares on two threads (read_pprof.c); the unit tests change it. */
extern size_t pp_share_min;
/* Shares of one input's samples walked on threads, each into a profile
 * of its own (a share), merged into the reader's profile at the end.  A
 * share borrows P's strings and sample types and holds its own tree,
 * aggregated samples and label sets. */
struct pprof_profile *pp_share_new(const struct pprof_profile *p);
void pp_share_free(struct pprof_profile *s);
/* A share and, for its nodes, aggregated samples and label sets, runs of
 * those made at one sample (its index in the input, ascending): run k
 * made the items from the previous run's END (nodes and label sets from
 * 1, aggregated samples from 0) to its END. */
struct pp_run {
	uint32_t sample, end;
};
struct pp_share {
	struct pprof_profile *s;
	struct pp_run *runs[3]; /* nodes, aggregated samples, label sets */
	size_t nruns[3], capruns[3];
};
int pp_share_merge(struct pprof_profile *p, struct pp_share sh[2]);

/* Samples kept out of the tree (pprof_read_options.defer_tree): each is a
 * list of location indexes, leaf first, over the locations of all deferred
 * inputs.  A sample whose locations are one packed field of ids 1 .. n in
 * order (as every writer we know makes them) keeps that field's bytes as
 * they are: in its input's buffer when the reader may keep it, else copied
 * to BYTES.  pprof_top() reads them as they are; anything else that needs
 * the tree calls pp_settle() first. */
struct pp_deferred {
	uint32_t *frames; /* the locations' frames */
	size_t nframes, capframes;
	struct pp_loc *locs;
	size_t nlocs, caplocs;
	uint32_t *stack; /* the lists of the samples that are not packed */
	size_t nstack, capstack;
	unsigned char *bytes; /* packed ids copied from buffers not kept */
	size_t nbytes, capbytes;
	struct pp_dpart {
		const unsigned char *base; /* its packed ids' buffer; NULL: BYTES */
		uint32_t locbase;          /* its first location */
		struct pp_hold hold;       /* its buffer, when kept */
	} *parts;                          /* one per input */
	size_t nparts, capparts;
	struct pp_dsample {
		uint64_t stack;  /* its locations: stack[stack .. stack + n),
				  * or packed: their ids at byte STACK of its
				  * part's buffer */
		uint64_t off;    /* byte offset in its input, for messages */
		uint32_t n;      /* how many */
		uint32_t labels; /* label set */
		uint32_t part;   /* PP_DLIST, or its input: parts[part] */
	} *samples;
	size_t nsamples, capsamples;
	uint64_t nsteps;  /* the locations of all samples */
	int64_t *values; /* ntypes per sample, in the profile's type order */
	size_t capvalues;
	/* per type, the sum of the values' magnitudes: kept within int64, so
	 * that no sum of deferred values can leave it */
	uint64_t *magsum;
};
#define PP_DLIST UINT32_MAX
/* The locations of deferred sample X, leaf first: in d->stack, or decoded
 * into *SCRATCH (grown to *CAP entries).  NULL when out of memory. */
const uint32_t *pp_dsample_locs(const struct pp_deferred *d, const struct pp_dsample *x,
				uint32_t **scratch, size_t *cap);

#endif /* PPROF_WALK_PRIVATE_H */
