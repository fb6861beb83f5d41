/* read_pprof_share.c: the pprof reader's samples of a big input walked in
 * two shares on two threads (moved from read_pprof.c). */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "read_pprof_private.h"

/* ---- the samples of a big input in two shares, on two threads ----
 *
 * The walk into the tree is most of a big profile's read (a random access
 * per new node).  The samples are shared out by the first two frames of
 * their stacks (root side), so that below a node of depth 1 the two
 * shares' trees have nothing in common.  A hash of the two frames gives
 * one of NCLASS classes, and plan_shares() deals the classes out by their
 * bytes among the first samples, so that the two shares are about even
 * (the hash's top bit alone gave them 43% and 57% of the 4x bench pprof's
 * sample bytes, and the lighter one then waited for the other: see
 * share_lag()).  Which share walks a sample does not change the result:
 * each share is walked into a profile of its own (pp_share_new()) on its
 * own thread, with its own copy of the locations' memo, and the two are
 * merged at the end (pp_share_merge()), numbered as one walk in input
 * order would number them, since each share makes its nodes, aggregated
 * samples and label sets in the order of its samples and records at which
 * sample.  An error is the first in input order of the two shares' first
 * errors: each is about one sample (the sums of a node's samples are made
 * in one share, in input order), or about the input itself, found by both;
 * the bound on the frames walked can't be reached (see scan_shares()), the
 * only error that depends on the samples before.  Each thread reads every
 * field and skips the other share's samples: finding a sample's share
 * costs its last two location ids, read from the end. */
size_t pp_share_min = (size_t)16 << 20;
/* A share that gives back the input it read waits while it is a
 * thirty-second of the input (2 MiB at least) ahead of the other: the
 * input is given back behind the slower one, and the faster would
 * otherwise keep a growing stretch of it in memory.  Even shares do not
 * run at one speed on this VM's two cores (one was 15% slower for the
 * whole walk of the 16x bench pprof, either one): at 2 MiB they took turns
 * waiting, 2-3 s of its 20 s walk; 36 MiB there (3% of the input) left
 * 0.1-1.4 s (one run each). */
#define SHARE_LAG_MIN ((size_t)2 << 20)
static size_t share_lag(size_t len)
{
	return len / 32 > SHARE_LAG_MIN ? len / 32 : SHARE_LAG_MIN;
}
/* and gives it back this often (two threads' trees grow at once) */
#define SHARE_RELEASE_STEP ((size_t)1 << 20)

/* Samples a share reads before it walks them: their look-ups overlap (see
 * pp_locwalk_ahead()).  On the 4x bench pprof 64 was no faster than 16;
 * 32 was 3% faster there, as fast at 1x, and within the noise at 16x
 * (medians of 6 alternating runs: 0.6% slower in wall time, 4.5% less
 * CPU; of 4 more: 2.7% faster, 2% more CPU). */
#define BATCH 16

struct share {
	struct rd r; /* the reader's, with scratch of its own */
	struct pp_share ps;
	int which;
	int status; /* its first error, at ERROFF */
	size_t erroff;
	atomic_size_t pos;   /* the input read so far */
	atomic_size_t *stop; /* the first error's offset in either share */
	struct share *other;
	const uint8_t *plan; /* the share of each class */
	bool give_back;
	pthread_t th;
	uint32_t made[3]; /* nodes, aggregated samples, label sets made */
	/* the samples read and not yet walked (see pp_locwalk_ahead()) */
	struct {
		struct pp_locpath path[BATCH];
		size_t locoff[BATCH];
		uint64_t off[BATCH];
		uint32_t idx[BATCH], labelset[BATCH];
		uint32_t *locs; /* their stacks, one after the other */
		size_t nlocs, caplocs;
		int64_t *vals; /* BATCH times the sample types */
		size_t n;
	} batch;
};

/* The location index of id V, or false. */
static bool loc_index(const struct rd *r, uint64_t v, uint32_t *li)
{
	uint32_t i = !r->loc_identity ? idmap_get(&r->locmap, v) : v <= r->nl ? (uint32_t)v : 0;
	if (!i)
		return false;
	*li = i - 1;
	return true;
}

/* The last varint of [B + START, B + END) read from its end into *V and
 * where it starts into *AT; false when there is none that reads. */
static bool last_varint(const unsigned char *b, size_t start, size_t end, uint64_t *v, size_t *at)
{
	if (end <= start || (b[end - 1] & 0x80))
		return false;
	size_t k = end - 1;
	while (k > start && (b[k - 1] & 0x80))
		k--;
	size_t pos = k;
	if (get_varint(b, &pos, end, v) || pos != end)
		return false;
	*at = k;
	return true;
}

#define CLASS_BITS 8
#define NCLASS (1u << CLASS_BITS)

/* The class of sample F (0 .. NCLASS - 1): a hash of the first two frames
 * of its stack (root side); -1 for a sample that does not read (the error
 * is share 0's to find) and an empty stack (share 0's). */
static int sample_class(struct rd *r, const struct field *f)
{
	size_t pos = f->data, end = f->data + f->len;
	uint64_t last = 0, prev = 0;
	int nids = 0; /* up to 2 */
	while (pos < end) {
		struct field g;
		if (next_field(r, &pos, end, &g, "sample"))
			return -1;
		if (g.num != 1)
			continue;
		if (g.wt == WT_VARINT) {
			prev = last;
			last = g.v;
			nids += nids < 2;
		} else if (g.wt == WT_LEN) {
			uint64_t v, w;
			size_t at, at2;
			if (g.len == 0)
				continue;
			if (!last_varint(r->b, g.data, g.data + g.len, &v, &at))
				return -1;
			if (at > g.data) {
				if (!last_varint(r->b, g.data, at, &w, &at2))
					return -1;
				prev = w;
				nids = 2;
			} else {
				prev = last;
				nids += nids < 2;
			}
			last = v;
		} else {
			return -1;
		}
	}
	if (nids == 0)
		return -1;
	uint32_t l1, l2;
	if (!loc_index(r, last, &l1))
		return -1;
	const struct pp_loc *a = &r->locations[l1];
	uint64_t f1 = r->frames[a->off], f2 = 0;
	if (a->n >= 2)
		f2 = r->frames[a->off + 1];
	else if (nids == 2 && loc_index(r, prev, &l2))
		f2 = r->frames[r->locations[l2].off];
	else if (nids == 2)
		return -1;
	uint64_t h = (f1 + 1) * 0x9E3779B97F4A7C15ull ^ (f2 + 1) * 0xC2B2AE3D27D4EB4Full;
	h ^= h >> 29;
	return (int)((h * 0xff51afd7ed558ccdull) >> (64 - CLASS_BITS));
}

/* The first samples read by plan_shares(): a sixty-fourth of the input,
 * within these bounds (the 1x bench pprof: 1.2 MB, about 9,000 samples). */
#define PLAN_MIN ((size_t)1 << 20)
#define PLAN_MAX ((size_t)8 << 20)

static int class_cmp(const void *a, const void *b, void *ctx)
{
	const uint64_t *w = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (w[x] != w[y])
		return w[x] < w[y] ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* The share of each class in PLAN[]: the classes by their bytes among the
 * first samples, heaviest first, each to the share with fewer bytes so far;
 * a class none of them was in goes by its last bit (its samples are few).
 * R reads nothing else: an error stops the count, and is found again
 * where the shares walk. */
static void plan_shares(struct rd *r, uint8_t plan[NCLASS])
{
	uint64_t weight[NCLASS] = {0}, load[2] = {0, 0};
	uint32_t order[NCLASS];
	size_t budget = r->len / 64, pos = 0;
	if (budget < PLAN_MIN)
		budget = PLAN_MIN;
	if (budget > PLAN_MAX)
		budget = PLAN_MAX;
	while (pos < r->len && budget > 0) {
		struct field f;
		if (next_field(r, &pos, r->len, &f, "profile"))
			break;
		if (f.num != F_SAMPLE)
			continue;
		int c = sample_class(r, &f);
		if (c < 0)
			load[0] += f.len;
		else
			weight[c] += f.len;
		budget -= f.len < budget ? f.len : budget;
	}
	for (uint32_t c = 0; c < NCLASS; c++)
		order[c] = c;
	qsort_r(order, NCLASS, sizeof(*order), class_cmp, weight);
	for (uint32_t k = 0; k < NCLASS; k++) {
		uint32_t c = order[k];
		int to = weight[c] ? load[1] < load[0] : (int)(c & 1);
		plan[c] = (uint8_t)to;
		load[to] += weight[c];
	}
}

static void share_fail(struct share *w, int s, size_t off)
{
	w->status = s;
	w->erroff = off;
	size_t cur = atomic_load(w->stop);
	while (off < cur && !atomic_compare_exchange_weak(w->stop, &cur, off))
		;
}

/* Records the share's items of kinds FROM .. TO (0: nodes, 1: aggregated
 * samples, 2: label sets) made at sample IDX, if any. */
static bool share_born(struct share *w, uint32_t idx, int from, int to)
{
	struct pprof_profile *s = w->ps.s;
	uint32_t now[3] = {s->nnodes, s->nentries, s->nlabelsets};
	for (int k = from; k <= to; k++) {
		if (now[k] == w->made[k])
			continue;
		if (!pp_grow((void **)&w->ps.runs[k], &w->ps.capruns[k], w->ps.nruns[k] + 1,
			     sizeof(struct pp_run)))
			return false;
		w->ps.runs[k][w->ps.nruns[k]++] = (struct pp_run){idx, now[k]};
		w->made[k] = now[k];
	}
	return true;
}

/* Reads sample F (the IDX-th of the input) into the batch; its label set
 * is made now, its nodes and aggregated sample when the batch is walked. */
static int batch_add(struct share *w, const struct field *f, uint32_t ntypes, uint32_t idx)
{
	struct rd *r = &w->r;
	size_t nlocs;
	uint32_t labelset;
	int s = read_sample(r, f, ntypes, &nlocs, &labelset);
	if (s)
		return s;
	if (!share_born(w, idx, 2, 2) ||
	    !pp_grow((void **)&w->batch.locs, &w->batch.caplocs, w->batch.nlocs + nlocs,
		     sizeof(*w->batch.locs)) ||
	    (!w->batch.vals && !(w->batch.vals = malloc(BATCH * ntypes * sizeof(int64_t)))))
		return pp_nomem(r->p);
	size_t i = w->batch.n++;
	if (nlocs)
		memcpy(w->batch.locs + w->batch.nlocs, r->locs, nlocs * sizeof(*r->locs));
	w->batch.locoff[i] = w->batch.nlocs;
	w->batch.path[i].n = nlocs;
	w->batch.nlocs += nlocs;
	memcpy(w->batch.vals + i * ntypes, r->vals, ntypes * sizeof(int64_t));
	w->batch.off[i] = f->off;
	w->batch.idx[i] = idx;
	w->batch.labelset[i] = labelset;
	return PPROF_OK;
}

/* Walks the batch's samples into the tree, in their order: PPROF_OK, or
 * the first one's error, at *OFF. */
static int batch_walk(struct share *w, uint32_t ntypes, size_t *off)
{
	struct rd *r = &w->r;
	size_t n = w->batch.n;
	w->batch.n = w->batch.nlocs = 0;
	for (size_t i = 0; i < n; i++) /* no frames in the batch: no array */
		w->batch.path[i].stack = w->batch.locs ? w->batch.locs + w->batch.locoff[i] : NULL;
	pp_locwalk_ahead(r->p, &r->walk, w->batch.path, n);
	for (size_t i = 0; i < n; i++) {
		uint32_t node;
		int s = pp_locwalk_finish(r->p, &r->walk, &w->batch.path[i], w->batch.off[i], &node);
		if (!s)
			s = pp_add_sample(r->p, node, w->batch.labelset[i],
					  w->batch.vals + i * ntypes, w->batch.off[i]);
		if (!s && !share_born(w, w->batch.idx[i], 0, 1))
			s = pp_nomem(r->p);
		if (s) {
			*off = w->batch.off[i];
			return s;
		}
	}
	return PPROF_OK;
}

static void share_walk(struct share *w)
{
	struct rd *r = &w->r;
	uint32_t ntypes = (uint32_t)(r->ntypes2 / 2);
	uint32_t idx = 0;
	size_t pos = 0, off;
	uintptr_t given = 0;
	size_t next_give = SHARE_RELEASE_STEP, lag = share_lag(r->len);
	w->made[0] = w->made[2] = 1;
	while (pos < r->len) {
		size_t at = pos;
		if (at > atomic_load_explicit(w->stop, memory_order_relaxed))
			break;
		/* (the other's pos is SIZE_MAX once it is done) */
		while (w->give_back && pos > lag &&
		       atomic_load_explicit(&w->other->pos, memory_order_acquire) < pos - lag) {
			struct timespec ts = {0, 100000};
			nanosleep(&ts, NULL);
		}
		struct field f;
		int st = next_field(r, &pos, r->len, &f, "profile");
		if (!st && f.num == F_SAMPLE) {
			idx++;
			int c = sample_class(r, &f);
			if ((c < 0 ? 0 : w->plan[c]) == w->which) {
				st = batch_add(w, &f, ntypes, idx);
				if (!st && w->batch.n == BATCH &&
				    (st = batch_walk(w, ntypes, &off))) {
					share_fail(w, st, off);
					break;
				}
			}
		}
		if (st) {
			/* the samples before it come first */
			int sb = batch_walk(w, ntypes, &off);
			if (sb)
				share_fail(w, sb, off);
			else
				share_fail(w, st, at);
			break;
		}
		atomic_store_explicit(&w->pos, pos, memory_order_release);
		if (w->give_back && pos >= next_give) {
			size_t o = atomic_load_explicit(&w->other->pos, memory_order_acquire);
			pp_give_back(r->b, o < pos ? o : pos, &given);
			next_give = pos + SHARE_RELEASE_STEP;
		}
	}
	if (!w->status) {
		int st = batch_walk(w, ntypes, &off);
		if (st)
			share_fail(w, st, off);
	}
	/* past the end: the other share may give back all it read */
	atomic_store_explicit(&w->pos, SIZE_MAX, memory_order_release);
}

static void *share_thread(void *arg)
{
	share_walk(arg);
	return NULL;
}

static void share_release(struct share *w)
{
	free(w->r.locs);
	free(w->r.vals);
	free(w->r.labels);
	free(w->r.prevlabels);
	pp_locwalk_release(&w->r.walk);
	free(w->batch.locs);
	free(w->batch.vals);
	pp_share_free(w->ps.s);
	for (int k = 0; k < 3; k++)
		free(w->ps.runs[k]);
}

/* The samples in two shares (see above): PPROF_OK or the error, set on
 * P, as the walk of scan_samples() would give it; *TRIED false when the
 * input is not for shares (the caller walks it). */
int scan_shares(struct rd *r, bool give_back, bool *tried)
{
	struct pprof_profile *p = r->p;
	*tried = false;
	uint32_t maxn = 0;
	for (size_t i = 0; i < r->nl; i++)
		if (r->locations[i].n > maxn)
			maxn = r->locations[i].n;
	/* Every location id takes a byte at least: the frames walked are at
	 * most LEN * MAXN, within the bound when MAXN <= STEPS_PER_BYTE. */
	if (r->defer || r->drop_re || r->len < pp_share_min || r->len > UINT32_MAX ||
	    maxn > STEPS_PER_BYTE || p->nnodes != 1 || p->nentries != 0)
		return PPROF_OK;
	size_t lb = r->nl * sizeof(struct pp_loc);
	struct pp_loc *locs1 = pp_huge_alloc(&lb);
	struct share *w = calloc(2, sizeof(*w));
	if (!locs1 || !w) {
		free(locs1);
		free(w);
		return PPROF_OK; /* walked as usual */
	}
	memcpy(locs1, r->locations, r->nl * sizeof(*locs1));
	atomic_size_t stop;
	atomic_init(&stop, SIZE_MAX);
	bool ok = true;
	for (int k = 0; k < 2; k++) {
		w[k].r = *r;
		struct rd *c = &w[k].r;
		c->locs = NULL;
		c->caplocs = 0;
		c->vals = NULL;
		c->capvals = 0;
		c->labels = c->prevlabels = NULL;
		c->caplabels = c->capprevlabels = c->nprevlabels = 0;
		c->prevlabelset = 0;
		c->lines = NULL;
		c->caplines = 0;
		c->locations = k == 0 ? r->locations : locs1;
		c->walk = (struct pp_locwalk){0};
		c->walk.locs = c->locations;
		c->walk.frames = r->frames;
		c->walk.maxsteps = r->walk.maxsteps;
		c->walk.inlen = r->walk.inlen;
		w[k].which = k;
		w[k].stop = &stop;
		w[k].other = &w[1 - k];
		w[k].give_back = give_back;
		atomic_init(&w[k].pos, 0);
		if (!(w[k].ps.s = c->p = pp_share_new(p)))
			ok = false;
	}
	int s = PPROF_OK;
	uint8_t plan[NCLASS];
	if (ok) {
		*tried = true;
		plan_shares(&w[0].r, plan);
		w[0].plan = w[1].plan = plan;
		bool threaded = pthread_create(&w[1].th, NULL, share_thread, &w[1]) == 0;
		if (!threaded) /* one after the other: the same result */
			w[0].give_back = w[1].give_back = false;
		share_walk(&w[0]);
		if (threaded)
			pthread_join(w[1].th, NULL);
		else
			share_walk(&w[1]);
		int first = -1;
		for (int k = 0; k < 2; k++)
			if (w[k].status && (first < 0 || w[k].erroff < w[first].erroff))
				first = k;
		if (first >= 0) {
			s = w[first].status;
			const struct pp_buf *e = &w[first].ps.s->error;
			pp_buf_reset(&p->error);
			if (!pp_buf_add(&p->error, e->s, e->len))
				pp_buf_reset(&p->error);
		} else {
			s = pp_share_merge(p, (struct pp_share[2]){w[0].ps, w[1].ps});
		}
	}
	for (int k = 0; k < 2; k++)
		share_release(&w[k]);
	free(locs1);
	free(w);
#ifdef __GLIBC__
	/* what the shares' arrays held, in the thread's malloc arena among
	 * others, back to the system (about 15 MB on the bench profile) */
	if (*tried)
		malloc_trim(0);
#endif
	/* the memo of the locations holds a share's nodes */
	if (*tried)
		for (size_t i = 0; i < r->nl; i++)
			memset(r->locations[i].memo, 0, sizeof(r->locations[i].memo));
	return s;
}
