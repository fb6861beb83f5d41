/* profile.c: the model: interned strings and frames, the call tree, label
 * sets, sample types and aggregated values. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "folded_private.h"
#include "walk_private.h"

/* One open-addressing table serves every intern table: a slot holds a 64-bit
 * key (a hash, or a packed pair of ids) and the id + 1 it leads to (0 =
 * empty).  Equal hashes of different content are told apart by the caller's
 * comparison, so probing goes on past them. */
struct pp_hash {
	uint64_t *keys;
	uint32_t *vals;
	uint32_t cap, n; /* cap is a power of two */
};

/* A table's arrays for CAP slots, zeroed (pp_big_calloc(): from 1 MiB on,
 * mappings of their own, zeroed by the kernel and not again), or false. */
static bool hash_arrays(uint32_t cap, uint64_t **keys, uint32_t **vals)
{
	*keys = pp_big_calloc(cap, sizeof(**keys));
	*vals = pp_big_calloc(cap, sizeof(**vals));
	if (*keys && *vals)
		return true;
	pp_big_free(*keys, cap, sizeof(**keys));
	pp_big_free(*vals, cap, sizeof(**vals));
	return false;
}

static void hash_arrays_free(uint64_t *keys, uint32_t *vals, uint32_t cap)
{
	pp_big_free(keys, cap, sizeof(*keys));
	pp_big_free(vals, cap, sizeof(*vals));
}

static struct pp_hash *hash_new(void)
{
	struct pp_hash *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->cap = 1024;
	if (!hash_arrays(h->cap, &h->keys, &h->vals)) {
		free(h);
		return NULL;
	}
	return h;
}

static void hash_free(struct pp_hash *h)
{
	if (!h)
		return;
	hash_arrays_free(h->keys, h->vals, h->cap);
	free(h);
}

/* The system's page size (4 KiB when it does not say). */
static uintptr_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	return ps > 0 ? (uintptr_t)ps : 4096;
}

void pp_advise_huge(void *ptr, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	/* Whole pages, so that a block of its own mapping (glibc's large
	 * blocks) stays one mapping and realloc() can still move it with
	 * mremap() rather than copy it. */
	if (!ptr || bytes < ((size_t)4 << 20))
		return;
	uintptr_t page = page_size();
	uintptr_t a = (uintptr_t)ptr & ~(page - 1);
	uintptr_t e = ((uintptr_t)ptr + bytes + page - 1) & ~(page - 1);
	(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)ptr;
	(void)bytes;
#endif
}

void pp_give_back(const void *base, size_t upto, uintptr_t *given)
{
#ifdef MADV_DONTNEED
	uintptr_t page = page_size();
	uintptr_t b = ((uintptr_t)base + page - 1) & ~(page - 1);
	uintptr_t e = ((uintptr_t)base + upto) & ~(page - 1);
	if (*given < b)
		*given = b;
	if (e > *given) {
		(void)madvise((void *)*given, e - *given, MADV_DONTNEED);
		*given = e;
	}
#else
	(void)base;
	(void)upto;
	(void)given;
#endif
}

/* A huge page, and BYTES rounded up to whole ones (as they are when too
 * close to SIZE_MAX to round). */
#define HUGE_PAGE ((size_t)2 << 20)

static size_t huge_round(size_t bytes)
{
	return bytes <= SIZE_MAX - HUGE_PAGE ? (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE
					     : bytes;
}

void *pp_huge_alloc(size_t *bytes)
{
#ifdef MADV_HUGEPAGE
	if (*bytes >= HUGE_PAGE / 2 && *bytes <= SIZE_MAX - HUGE_PAGE) {
		size_t b = huge_round(*bytes);
		void *a;
		if (posix_memalign(&a, HUGE_PAGE, b) != 0)
			return NULL;
		(void)madvise(a, b, MADV_HUGEPAGE);
		*bytes = b;
		return a;
	}
#endif
	return malloc(*bytes ? *bytes : 1);
}

/* Blocks of at least this many bytes are mappings of their own, in whole
 * 2 MiB pages (the kernel then starts them at a 2 MiB boundary) with huge
 * pages asked for: a table of 256 KiB written at random takes all of its
 * 64 pages of 4 KiB, a fault each (1 ms on the virtual machines this is
 * measured on), where one huge page is made in a tenth of that; a mapping
 * of another length would leave 4 KiB pages at its ends. */
#define BIG_MIN ((size_t)256 << 10)

/* Blocks from BIG_MIN up to a huge page share huge pages ("slabs"): on the
 * virtual machines this is measured on, a huge page that the host has not
 * backed yet (one the guest gave back, as it does with free memory after a
 * second or two) costs 1-3 ms, not the 0.1 ms of one it has, so a run
 * after a pause pays by the huge page taken.  A fold of the bench
 * .cpuprofile took eight of them for its tables of 160 KiB to 1 MiB
 * (10 ms of its 60 after a pause); carved from shared ones, three.  A slab
 * is carved from the front only (fresh pages are zero) and unmapped when
 * the last block in it is freed; the one being carved stays while it has
 * room, so that a program holds at most one slab it does not use. */
#define SLAB HUGE_PAGE

struct slab {
	char *base;
	size_t used;   /* carved from the front */
	unsigned live; /* blocks not yet freed */
	struct slab *next;
};

static pthread_mutex_t slab_mu = PTHREAD_MUTEX_INITIALIZER;
static struct slab *slabs; /* the first is the one being carved */

/* BYTES (whole huge pages) of zeroed memory of their own, huge pages
 * asked for, or NULL. */
static void *huge_map(size_t bytes)
{
	void *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(a, bytes, MADV_HUGEPAGE);
#endif
	return a;
}

/* Unmaps the slab *SP and takes it out of the list. */
static void slab_drop(struct slab **sp)
{
	struct slab *s = *sp;
	*sp = s->next;
	munmap(s->base, SLAB);
	free(s);
}

static void *slab_alloc(size_t bytes)
{
	uintptr_t page = page_size();
	bytes = (bytes + page - 1) & ~(size_t)(page - 1);
	void *p = NULL;
	pthread_mutex_lock(&slab_mu);
	struct slab *s = slabs;
	if (!s || SLAB - s->used < bytes) {
		struct slab *ns = malloc(sizeof(*ns));
		void *a = ns ? huge_map(SLAB) : NULL;
		if (!a) {
			free(ns);
			goto out;
		}
		*ns = (struct slab){a, 0, 0, s};
		/* the slab left behind goes with its last block */
		if (s && !s->live)
			slab_drop(&ns->next);
		slabs = s = ns;
	}
	p = s->base + s->used;
	s->used += bytes;
	s->live++;
out:
	pthread_mutex_unlock(&slab_mu);
	return p;
}

static void slab_free(void *p)
{
	pthread_mutex_lock(&slab_mu);
	for (struct slab **sp = &slabs; *sp; sp = &(*sp)->next) {
		struct slab *s = *sp;
		if ((char *)p < s->base || (char *)p >= s->base + SLAB)
			continue;
		/* the one being carved stays while it has room for a block */
		if (--s->live == 0 && !(s == slabs && SLAB - s->used >= BIG_MIN))
			slab_drop(sp);
		break;
	}
	pthread_mutex_unlock(&slab_mu);
}

void *pp_big_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	size_t bytes = n * size;
	if (bytes < BIG_MIN)
		return calloc(n ? n : 1, size ? size : 1);
	if (bytes <= SLAB)
		return slab_alloc(bytes);
	return huge_map(huge_round(bytes));
}

/* ---- pages made ahead, on a thread of their own ---- */

#define POPULATE_MIN ((size_t)8 << 20)
#define POPULATE_RANGES 4

struct pp_populate {
	pthread_t th;
	struct {
		unsigned char *from;
		size_t len;
	} r[POPULATE_RANGES];
	int n;
	atomic_bool stop;
};

#ifdef MADV_POPULATE_WRITE
/* A huge page at a time, the stop looked at between them. */
static void *populate_run(void *arg)
{
	struct pp_populate *pg = arg;
	for (int k = 0; k < pg->n; k++)
		for (size_t at = 0; at < pg->r[k].len; at += HUGE_PAGE) {
			if (atomic_load_explicit(&pg->stop, memory_order_relaxed))
				return NULL;
			size_t n = pg->r[k].len - at < HUGE_PAGE ? pg->r[k].len - at : HUGE_PAGE;
			if (madvise(pg->r[k].from + at, n, MADV_POPULATE_WRITE) != 0)
				return NULL;
		}
	return NULL;
}
#endif

struct pp_populate *pp_populate_start(void *const *ptr, const size_t *bytes, int n)
{
#ifndef MADV_POPULATE_WRITE
	(void)ptr;
	(void)bytes;
	(void)n;
	return NULL;
#else
	struct pp_populate *pg = calloc(1, sizeof(*pg));
	if (!pg)
		return NULL;
	uintptr_t page = page_size();
	size_t total = 0;
	for (int k = 0; k < n && pg->n < POPULATE_RANGES; k++) {
		uintptr_t a = ((uintptr_t)ptr[k] + page - 1) & ~(page - 1);
		uintptr_t e = ((uintptr_t)ptr[k] + bytes[k]) & ~(page - 1);
		if (!ptr[k] || e <= a)
			continue;
		pg->r[pg->n].from = (unsigned char *)a;
		pg->r[pg->n].len = e - a;
		pg->n++;
		total += e - a;
	}
	atomic_init(&pg->stop, false);
	if (total < POPULATE_MIN || pthread_create(&pg->th, NULL, populate_run, pg) != 0) {
		free(pg);
		return NULL;
	}
	return pg;
#endif
}

void pp_populate_end(struct pp_populate *pg)
{
	if (!pg)
		return;
	atomic_store_explicit(&pg->stop, true, memory_order_relaxed);
	pthread_join(pg->th, NULL);
	free(pg);
}

void pp_big_free(void *ptr, size_t n, size_t size)
{
	if (!ptr)
		return;
	size_t bytes = n * size;
	if (bytes < BIG_MIN)
		free(ptr);
	else if (bytes <= SLAB)
		slab_free(ptr);
	else
		munmap(ptr, huge_round(bytes));
}

static inline uint32_t hash_slot(uint64_t key, uint32_t cap)
{
	return (uint32_t)pp_hash_mix(key) & (cap - 1);
}

/* Moves H's entries into KEYS and VALS (CAP slots, zeroed), which H then
 * owns. */
static void hash_move(struct pp_hash *h, uint64_t *keys, uint32_t *vals, uint32_t cap)
{
	for (uint32_t i = 0; i < h->cap; i++) {
		if (!h->vals[i])
			continue;
		uint32_t s = hash_slot(h->keys[i], cap);
		while (vals[s])
			s = (s + 1) & (cap - 1);
		keys[s] = h->keys[i];
		vals[s] = h->vals[i];
	}
	hash_arrays_free(h->keys, h->vals, h->cap);
	h->keys = keys;
	h->vals = vals;
	h->cap = cap;
}

/* Grows the table when it is more than half full. */
static bool hash_reserve(struct pp_hash *h)
{
	if (h->n * 2 < h->cap)
		return true;
	if (h->cap > (UINT32_MAX >> 2))
		return false;
	uint32_t cap = h->cap * 2;
	uint64_t *keys;
	uint32_t *vals;
	if (!hash_arrays(cap, &keys, &vals))
		return false;
	hash_move(h, keys, vals, cap);
	return true;
}

uint64_t pp_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (n * 0xff51afd7ed558ccdull);
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9E3779B97F4A7C15ull;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0x9E3779B97F4A7C15ull;
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 32;
	return h;
}

static struct pp_idhash *idhash_new(void)
{
	struct pp_idhash *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->cap = 1024;
	if (!(h->slots = pp_big_calloc(h->cap, sizeof(*h->slots)))) {
		free(h);
		return NULL;
	}
	return h;
}

void pp_idhash_free(struct pp_idhash *h)
{
	if (h)
		pp_big_free(h->slots, h->cap, sizeof(*h->slots));
	free(h);
}

static inline uint64_t node_key(const struct pprof_profile *p, uint32_t id)
{
	return ((uint64_t)p->nodes[id].parent << 32) | p->nodes[id].frame;
}

static inline uint64_t entry_key(const struct pprof_profile *p, uint32_t id)
{
	return ((uint64_t)p->entries[id].node << 32) | p->entries[id].labels;
}

#define MOVE_AHEAD 16
_Static_assert(sizeof(struct pp_node) == 8 && sizeof(struct pp_entry) == 8,
	       "idhash_move() fetches nodes and entries as 8 bytes");

/* Moves H's ids into SLOTS (CAP of them, zeroed, from pp_big_calloc()),
 * which H then owns, re-reading each id's key with KEY. */
static void idhash_move(struct pprof_profile *p, struct pp_idhash *h, uint32_t *slots, uint32_t cap,
			uint64_t (*key)(const struct pprof_profile *, uint32_t))
{
	/* the keys are read at random (a cache miss each on a big profile):
	 * the node or entry MOVE_AHEAD slots on is fetched before use */
	const void *items = key == node_key ? (const void *)p->nodes : (const void *)p->entries;
	for (uint32_t i = 0; i < h->cap; i++) {
		if (i + MOVE_AHEAD < h->cap && h->slots[i + MOVE_AHEAD])
			__builtin_prefetch((const char *)items +
					   8 * ((h->slots[i + MOVE_AHEAD] & (h->cap - 1)) - 1));
		if (!h->slots[i])
			continue;
		uint32_t id1 = h->slots[i] & (h->cap - 1);
		uint64_t mix = pp_hash_mix(key(p, id1 - 1));
		uint32_t s = (uint32_t)mix & (cap - 1);
		while (slots[s])
			s = (s + 1) & (cap - 1);
		slots[s] = id1 | pp_idhash_tag(mix, cap);
	}
	pp_big_free(h->slots, h->cap, sizeof(*h->slots));
	h->slots = slots;
	h->cap = cap;
}

/* Grows H when more than three quarters full, re-reading each slot's key
 * with KEY.  A slot is 4 bytes, but a probe that misses reads the node or
 * entry it names: three quarters keeps a big profile's tree index at
 * 1.33-2.67 slots a node instead of 2-4 (16 MB less on the bench pprof's
 * two shares at the end of their walk) for about one probe more a look-up. */
static bool idhash_reserve(struct pprof_profile *p, struct pp_idhash *h,
			   uint64_t (*key)(const struct pprof_profile *, uint32_t))
{
	if ((uint64_t)h->n * 4 < (uint64_t)h->cap * 3)
		return true;
	if (h->cap > (UINT32_MAX >> 2))
		return false;
	uint32_t cap = h->cap * 2;
	uint32_t *slots = pp_big_calloc(cap, sizeof(*slots));
	if (!slots)
		return false;
	idhash_move(p, h, slots, cap, key);
	return true;
}

/* ---- diagnostics ---- */

static int verror(struct pprof_profile *p, int status, const char *fmt, va_list ap)
{
	char tmp[1024];
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	pp_buf_reset(&p->error);
	if (!pp_buf_add(&p->error, tmp, strlen(tmp)))
		pp_buf_reset(&p->error);
	return status;
}

int pp_error(struct pprof_profile *p, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(p, status, fmt, ap);
	va_end(ap);
	return status;
}

int pp_error_at(struct pprof_profile *p, int status, uint64_t offset,
		const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(p, status, fmt, ap);
	va_end(ap);
	pp_buf_addf(&p->error, " (at byte %llu)", (unsigned long long)offset);
	return status;
}

int pp_nomem(struct pprof_profile *p)
{
	return pp_error(p, PPROF_ENOMEM, "out of memory");
}

#define MAX_WARNINGS 100

void pp_warn(struct pprof_profile *p, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < p->nwarnings; i++)
		if (strcmp(p->warnings[i], tmp) == 0)
			return;
	/* An input can make a distinct warning per item (a script URL per
	 * frame: 50,000 of them took 8 s and as many lines): past
	 * MAX_WARNINGS, one last line says so. */
	if (p->nwarnings > MAX_WARNINGS)
		return;
	if (p->nwarnings == MAX_WARNINGS)
		snprintf(tmp, sizeof(tmp), "more warnings left out");
	char **w = realloc(p->warnings, (p->nwarnings + 1) * sizeof(*w));
	if (!w)
		return;
	p->warnings = w;
	if ((w[p->nwarnings] = strdup(tmp)) != NULL)
		p->nwarnings++;
}

const char *pprof_profile_error(const struct pprof_profile *p)
{
	return p->error.s;
}

size_t pprof_profile_warning_count(const struct pprof_profile *p)
{
	return p->nwarnings;
}

const char *pprof_profile_warning(const struct pprof_profile *p, size_t i)
{
	return i < p->nwarnings ? p->warnings[i] : NULL;
}

/* ---- life cycle ---- */

bool pp_tree_init(struct pprof_profile *p)
{
	p->nodehash = idhash_new();
	p->entryhash = idhash_new();
	p->labelhash = hash_new();
	p->nodes = malloc(sizeof(*p->nodes) * 1024);
	p->labelsets = malloc(sizeof(*p->labelsets) * 2);
	if (!p->nodehash || !p->entryhash || !p->labelhash || !p->nodes || !p->labelsets)
		return false;
	p->capnodes = 1024;
	p->nnodes = 1; /* the root */
	p->nodes[0].parent = 0;
	p->nodes[0].frame = 0;
	p->caplabelsets = 2;
	p->nlabelsets = 1; /* set 0: no labels */
	p->labelsets[0] = 0;
	p->labelsets[1] = 0;
	return true;
}

void pp_tree_release(struct pprof_profile *p)
{
	pp_idhash_free(p->nodehash);
	pp_idhash_free(p->entryhash);
	hash_free(p->labelhash);
	free(p->nodes);
	free(p->labels);
	free(p->labelsets);
	free(p->entries);
	free(p->values);
	pp_buf_release(&p->error);
}

struct pprof_profile *pprof_profile_new(void)
{
	struct pprof_profile *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	pp_arena_init(&p->arena);
	pp_buf_init(&p->error);
	p->default_type = -1;
	/* Names and addresses come from the input: hashed with a seed it can't
	 * know, they can't be crafted to share one slot (80,000 such names in a
	 * folded file took 15 s, quadratically more with more). */
	p->hseed = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
	uint64_t rnd;
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) == (ssize_t)sizeof(rnd))
		p->hseed ^= rnd;
	p->strhash = hash_new();
	p->framehash = hash_new();
	p->frames = malloc(sizeof(*p->frames) * 1024);
	if (!pp_tree_init(p) || !p->strhash || !p->framehash || !p->frames)
		goto fail;
	p->capframes = 1024;
	p->nframes = 1; /* id 0: no frame */
	memset(&p->frames[0], 0, sizeof(p->frames[0]));
	uint32_t empty;
	if (pp_intern(p, "", 0, &empty) != PPROF_OK || empty != 0)
		goto fail;
	return p;
fail:
	pprof_profile_free(p);
	return NULL;
}

static void deferred_free(struct pp_deferred *d);

void pprof_profile_free(struct pprof_profile *p)
{
	if (!p)
		return;
	pp_tree_release(p);
	hash_free(p->strhash);
	hash_free(p->framehash);
	free(p->strs);
	free(p->strlens);
	free(p->frames);
	free(p->types);
	free(p->seq);
	free(p->comments);
	free(p->typemap);
	deferred_free(p->deferred);
	pp_flines_free(p->flines);
	for (size_t i = 0; i < p->nwarnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	pp_arena_release(&p->arena);
	free(p);
}

/* Grows an array of N used elements to hold one more. */
static bool grow(void **arr, uint32_t *cap, uint32_t n, size_t size)
{
	if (n < *cap)
		return true;
	if (*cap >= UINT32_MAX / 2)
		return false;
	uint32_t ncap = *cap ? *cap * 2 : 64;
	void *a = realloc(*arr, (size_t)ncap * size);
	if (!a)
		return false;
	pp_advise_huge(a, (size_t)ncap * size);
	*arr = a;
	*cap = ncap;
	return true;
}

/* ---- strings ---- */

int pp_intern(struct pprof_profile *p, const char *s, size_t len, uint32_t *id)
{
	if (len > UINT32_MAX - 1)
		return pp_error(p, PPROF_EINPUT, "string longer than 4 GiB");
	uint64_t h = pp_hash_bytes(s, len, 0x5bd1e995 ^ p->hseed);
	struct pp_hash *t = p->strhash;
	uint32_t i = hash_slot(h, t->cap);
	while (t->vals[i]) {
		uint32_t cand = t->vals[i] - 1;
		if (t->keys[i] == h && p->strlens[cand] == len &&
		    memcmp(p->strs[cand], s, len) == 0) {
			*id = cand;
			return PPROF_OK;
		}
		i = (i + 1) & (t->cap - 1);
	}
	uint32_t oldcap = p->capstrs;
	if (!grow((void **)&p->strs, &p->capstrs, p->nstrs, sizeof(*p->strs)))
		return pp_nomem(p);
	/* Only when strs grew: a realloc to the same size copies the whole
	 * array under ASan (500,000 names took minutes there). */
	if (p->capstrs != oldcap || !p->strlens) {
		uint32_t *l = realloc(p->strlens, (size_t)p->capstrs * sizeof(*l));
		if (!l)
			return pp_nomem(p);
		p->strlens = l;
	}
	char *copy = pp_arena_alloc(&p->arena, len + 1);
	if (!copy)
		return pp_nomem(p);
	memcpy(copy, s, len);
	copy[len] = '\0';
	uint32_t nid = p->nstrs++;
	p->strs[nid] = copy;
	p->strlens[nid] = (uint32_t)len;
	t->keys[i] = h;
	t->vals[i] = nid + 1;
	t->n++;
	if (!hash_reserve(t))
		return pp_nomem(p);
	*id = nid;
	return PPROF_OK;
}

int pp_intern_cstr(struct pprof_profile *p, const char *s, uint32_t *id)
{
	return pp_intern(p, s, strlen(s), id);
}

/* ---- frames ---- */

static bool frame_eq(const struct pp_frame *a, const struct pp_frame *b)
{
	return a->name == b->name && a->file == b->file && a->mapping == b->mapping &&
	       a->flags == b->flags && a->line == b->line && a->column == b->column &&
	       a->address == b->address && a->at_line == b->at_line;
}

/* F as a key in K (no padding bytes in the hash) and its hash. */
static uint64_t frame_key(const struct pprof_profile *p, const struct pp_frame *f,
			  struct pp_frame *k)
{
	memset(k, 0, sizeof(*k));
	k->name = f->name;
	k->file = f->file;
	k->mapping = f->mapping;
	k->flags = f->flags;
	k->line = f->line;
	k->column = f->column;
	k->address = f->address;
	k->at_line = f->at_line;
	return pp_hash_bytes(k, sizeof(*k), 0x27d4eb2f ^ p->hseed);
}

/* Rebuilds the frame index that pp_drop_frame_index() freed: frames are
 * never changed once interned, so each is in it once, as before. */
static int frame_index(struct pprof_profile *p)
{
	struct pp_hash *t = hash_new();
	if (!t)
		return pp_nomem(p);
	for (uint32_t id = 1; id < p->nframes; id++) {
		struct pp_frame k;
		uint64_t h = frame_key(p, &p->frames[id], &k);
		uint32_t i = hash_slot(h, t->cap);
		while (t->vals[i])
			i = (i + 1) & (t->cap - 1);
		t->keys[i] = h;
		t->vals[i] = id + 1;
		t->n++;
		if (!hash_reserve(t)) {
			hash_free(t);
			return pp_nomem(p);
		}
	}
	p->framehash = t;
	return PPROF_OK;
}

void pp_drop_frame_index(struct pprof_profile *p)
{
	hash_free(p->framehash);
	p->framehash = NULL;
}

int pp_frame_intern(struct pprof_profile *p, const struct pp_frame *f, uint32_t *id)
{
	struct pp_frame k;
	uint64_t h = frame_key(p, f, &k);
	if (!p->framehash && frame_index(p) != PPROF_OK)
		return PPROF_ENOMEM;
	struct pp_hash *t = p->framehash;
	uint32_t i = hash_slot(h, t->cap);
	while (t->vals[i]) {
		uint32_t cand = t->vals[i] - 1;
		if (t->keys[i] == h && frame_eq(&p->frames[cand], &k)) {
			*id = cand;
			return PPROF_OK;
		}
		i = (i + 1) & (t->cap - 1);
	}
	if (!grow((void **)&p->frames, &p->capframes, p->nframes, sizeof(*p->frames)))
		return pp_nomem(p);
	uint32_t nid = p->nframes++;
	p->frames[nid] = k;
	if (k.column)
		p->have_columns = true;
	t->keys[i] = h;
	t->vals[i] = nid + 1;
	t->n++;
	if (!hash_reserve(t))
		return pp_nomem(p);
	*id = nid;
	return PPROF_OK;
}

/* ---- tree ---- */

/* An index of ids [FROM, TO) by KEY, each id stored plus one; NULL when out
 * of memory. */
static struct pp_idhash *index_ids(struct pprof_profile *p, uint32_t from, uint32_t to,
				   uint64_t (*key)(const struct pprof_profile *, uint32_t))
{
	struct pp_idhash *t = idhash_new();
	if (!t)
		return NULL;
	for (uint32_t id = from; id < to; id++) {
		uint64_t mix = pp_hash_mix(key(p, id));
		uint32_t i = (uint32_t)mix & (t->cap - 1);
		while (t->slots[i])
			i = (i + 1) & (t->cap - 1);
		t->slots[i] = (id + 1) | pp_idhash_tag(mix, t->cap);
		t->n++;
		if (!idhash_reserve(p, t, key)) {
			pp_idhash_free(t);
			return NULL;
		}
	}
	return t;
}

/* Rebuilds the node index that pp_drop_node_index() freed. */
static int node_index(struct pprof_profile *p)
{
	if (!(p->nodehash = index_ids(p, 1, p->nnodes, node_key)))
		return pp_nomem(p);
	return PPROF_OK;
}

void pp_drop_node_index(struct pprof_profile *p)
{
	pp_idhash_free(p->nodehash);
	p->nodehash = NULL;
}

int pp_node_child(struct pprof_profile *p, uint32_t parent, uint32_t frame,
		  uint32_t *child)
{
	uint64_t key = ((uint64_t)parent << 32) | frame;
	if (!p->nodehash && node_index(p) != PPROF_OK)
		return PPROF_ENOMEM;
	struct pp_idhash *t = p->nodehash;
	uint64_t mix = pp_hash_mix(key);
	uint32_t mask = t->cap - 1, tag = pp_idhash_tag(mix, t->cap);
	uint32_t i = (uint32_t)mix & mask;
	while (t->slots[i]) {
		uint32_t v = t->slots[i], id = (v & mask) - 1;
		if ((v & ~mask) == tag && p->nodes[id].parent == parent &&
		    p->nodes[id].frame == frame) {
			*child = id;
			return PPROF_OK;
		}
		i = (i + 1) & mask;
	}
	if (!grow((void **)&p->nodes, &p->capnodes, p->nnodes, sizeof(*p->nodes)))
		return pp_nomem(p);
	uint32_t nid = p->nnodes++;
	p->nodes[nid].parent = parent;
	p->nodes[nid].frame = frame;
	t->slots[i] = (nid + 1) | tag;
	t->n++;
	if (!idhash_reserve(p, t, node_key))
		return pp_nomem(p);
	*child = nid;
	return PPROF_OK;
}

/* The string id of KEY among the label keys, or 0. */
uint32_t pp_label_key(const struct pprof_profile *p, const char *key)
{
	size_t n = strlen(key);
	for (uint32_t i = 0; i < p->nlabels; i++) {
		uint32_t k = p->labels[i].key;
		if (pp_strlen(p, k) == n && memcmp(pp_str(p, k), key, n) == 0)
			return k;
	}
	return 0;
}

bool pp_has_label(const struct pprof_profile *p, uint32_t set, uint32_t key, const char *val)
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

static void deferred_free(struct pp_deferred *d)
{
	if (!d)
		return;
	free(d->frames);
	free(d->locs);
	free(d->stack);
	free(d->bytes);
	for (size_t i = 0; i < d->nparts; i++)
		pp_hold_release(&d->parts[i].hold);
	free(d->parts);
	free(d->samples);
	free(d->values);
	free(d->magsum);
	free(d);
}

const uint32_t *pp_dsample_locs(const struct pp_deferred *d, const struct pp_dsample *x,
				uint32_t **scratch, size_t *cap)
{
	if (x->part == PP_DLIST)
		return d->stack + x->stack;
	if (!x->n) /* never NULL (see defer_begin) */
		return d->stack;
	if (x->n > *cap) {
		size_t ncap = *cap ? *cap : 64;
		while (ncap < x->n)
			ncap *= 2;
		uint32_t *a = realloc(*scratch, ncap * sizeof(*a));
		if (!a)
			return NULL;
		*scratch = a;
		*cap = ncap;
	}
	/* The reader checked every id: 1 .. the input's locations. */
	const struct pp_dpart *part = &d->parts[x->part];
	const unsigned char *b = (part->base ? part->base : d->bytes) + x->stack;
	uint32_t base = part->locbase - 1, *out = *scratch;
	for (uint32_t i = 0; i < x->n; i++) {
		uint64_t v = *b & 0x7f;
		for (unsigned shift = 7; *b++ & 0x80; shift += 7)
			if (shift < 64)
				v |= (uint64_t)(*b & 0x7f) << shift;
		out[i] = base + (uint32_t)v;
	}
	return out;
}

int pp_settle(struct pprof_profile *p)
{
	int fs = pp_flines_settle(p);
	if (fs != PPROF_OK)
		return fs;
	struct pp_deferred *d = p->deferred;
	if (!d)
		return PPROF_OK;
	/* The values are in the profile's type order already. */
	uint32_t *typemap = p->typemap;
	p->typemap = NULL;
	struct pp_locwalk w = {
		.locs = d->locs,
		.frames = d->frames,
		.maxsteps = UINT64_MAX, /* each input was bounded when read */
	};
	int s = PPROF_OK;
	uint32_t *scratch = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < d->nsamples && s == PPROF_OK; i++) {
		const struct pp_dsample *x = &d->samples[i];
		const uint32_t *locs = pp_dsample_locs(d, x, &scratch, &cap);
		uint32_t node;
		s = locs ? pp_locwalk_node(p, &w, locs, x->n, x->off, &node) : pp_nomem(p);
		if (s == PPROF_OK)
			s = pp_add_sample(p, node, x->labels, d->values + i * p->ntypes, x->off);
	}
	free(scratch);
	pp_locwalk_release(&w);
	p->typemap = typemap;
	deferred_free(d);
	p->deferred = NULL;
	return s;
}

/* Rebuilds the tree with every frame f replaced by MAP[f] (0: the frame is
 * removed from the stacks it is in); nodes and entries that become equal
 * merge, and the sample sequence follows its nodes. */
int pp_remap_frames(struct pprof_profile *p, const uint32_t *map)
{
	int settled = pp_settle(p);
	if (settled != PPROF_OK)
		return settled;
	struct pp_node *old = p->nodes;
	uint32_t nold = p->nnodes;
	struct pp_entry *oldent = p->entries;
	int64_t *oldval = p->values;
	uint32_t noldent = p->nentries;
	uint32_t *nn = malloc((size_t)nold * sizeof(*nn));
	struct pp_node *fresh = malloc(1024 * sizeof(*fresh));
	struct pp_idhash *fh = idhash_new(), *eh = idhash_new();
	if (!nn || !fresh || !fh || !eh) {
		free(nn);
		free(fresh);
		pp_idhash_free(fh);
		pp_idhash_free(eh);
		return pp_nomem(p);
	}
	pp_idhash_free(p->nodehash);
	pp_idhash_free(p->entryhash);
	p->nodehash = fh;
	p->entryhash = eh;
	p->nodes = fresh;
	p->capnodes = 1024;
	p->nnodes = 1;
	p->nodes[0] = old[0];
	p->entries = NULL;
	p->values = NULL;
	p->nentries = p->capentries = 0;
	uint32_t *typemap = p->typemap;
	p->typemap = NULL;
	int status = PPROF_OK;
	nn[0] = 0;
	/* Parents come before their children in node order. */
	for (uint32_t n = 1; n < nold && status == PPROF_OK; n++) {
		uint32_t np = nn[old[n].parent];
		uint32_t f = map[old[n].frame];
		if (f == 0)
			nn[n] = np;
		else
			status = pp_node_child(p, np, f, &nn[n]);
	}
	for (uint32_t e = 0; e < noldent && status == PPROF_OK; e++) {
		uint32_t node = nn[oldent[e].node];
		status = pp_add_sample(p, node, oldent[e].labels, oldval + (size_t)e * p->ntypes, 0);
	}
	for (size_t i = 0; i < p->nseq && status == PPROF_OK; i++)
		p->seq[i].node = nn[p->seq[i].node];
	p->typemap = typemap;
	free(nn);
	free(old);
	free(oldent);
	free(oldval);
	return status;
}

/* ---- labels ---- */

int pp_labelset_intern(struct pprof_profile *p, const struct pp_label *l,
		       uint32_t n, uint32_t *id)
{
	if (n == 0) {
		*id = 0;
		return PPROF_OK;
	}
	uint64_t h = 0x9ae16a3b2f90404full ^ p->hseed;
	for (uint32_t k = 0; k < n; k++) {
		uint64_t w[3] = {((uint64_t)l[k].key << 32) | l[k].str, (uint64_t)l[k].num,
				 l[k].unit};
		h = pp_hash_bytes(w, sizeof(w), h);
	}
	struct pp_hash *t = p->labelhash;
	uint32_t i = hash_slot(h, t->cap);
	while (t->vals[i]) {
		uint32_t cand = t->vals[i] - 1;
		uint32_t b = p->labelsets[cand], e = p->labelsets[cand + 1];
		if (t->keys[i] == h && e - b == n) {
			uint32_t k = 0;
			for (; k < n; k++) {
				const struct pp_label *x = &p->labels[b + k];
				if (x->key != l[k].key || x->str != l[k].str ||
				    x->num != l[k].num || x->unit != l[k].unit)
					break;
			}
			if (k == n) {
				*id = cand;
				return PPROF_OK;
			}
		}
		i = (i + 1) & (t->cap - 1);
	}
	if (n > UINT32_MAX - p->nlabels)
		return pp_nomem(p);
	while (p->caplabels < p->nlabels + n)
		if (!grow((void **)&p->labels, &p->caplabels, p->caplabels, sizeof(*p->labels)))
			return pp_nomem(p);
	if (!grow((void **)&p->labelsets, &p->caplabelsets, p->nlabelsets + 1,
		  sizeof(*p->labelsets)))
		return pp_nomem(p);
	memcpy(p->labels + p->nlabels, l, n * sizeof(*l));
	p->nlabels += n;
	uint32_t nid = p->nlabelsets++;
	p->labelsets[nid + 1] = p->nlabels;
	t->keys[i] = h;
	t->vals[i] = nid + 1;
	t->n++;
	if (!hash_reserve(t))
		return pp_nomem(p);
	*id = nid;
	return PPROF_OK;
}

/* ---- sample types and values ---- */

void pp_input_times(struct pprof_profile *p, int64_t time_nanos, int64_t duration_nanos,
		    struct pp_sample_type period_type, int64_t period)
{
	if (p->ninputs <= 1 || p->time_nanos == 0 ||
	    (time_nanos != 0 && time_nanos < p->time_nanos))
		p->time_nanos = time_nanos;
	int64_t d = duration_nanos;
	if (p->ninputs > 1 && __builtin_add_overflow(p->duration_nanos, duration_nanos, &d))
		d = INT64_MAX;
	p->duration_nanos = d;
	if (p->ninputs <= 1 || (!p->period_type.type && !p->period_type.unit)) {
		p->period_type = period_type;
		p->period = period;
	}
}

int pp_begin_input(struct pprof_profile *p, const struct pp_sample_type *t,
		   uint32_t n, int default_type)
{
	p->ninputs++;
	free(p->typemap);
	p->typemap = NULL;
	if (p->ninputs == 1 || p->ntypes == 0) {
		free(p->types); /* an earlier input may have had no types */
		p->types = malloc((n ? n : 1) * sizeof(*p->types));
		if (!p->types)
			return pp_nomem(p);
		memcpy(p->types, t, n * sizeof(*t));
		p->ntypes = n;
		p->default_type = default_type;
		if (p->nentries)
			return pp_error(p, PPROF_EINPUT, "incompatible sample types");
		return PPROF_OK;
	}
	if (n != p->ntypes)
		return pp_error(p, PPROF_EINPUT, "incompatible sample types");
	p->typemap = malloc((n ? n : 1) * sizeof(*p->typemap));
	if (!p->typemap)
		return pp_nomem(p);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = 0;
		for (; j < p->ntypes; j++)
			if (p->types[j].type == t[i].type && p->types[j].unit == t[i].unit)
				break;
		if (j == p->ntypes)
			return pp_error(p, PPROF_EINPUT,
					"incompatible sample types: %s/%s is not in the first input",
					pp_str(p, t[i].type), pp_str(p, t[i].unit));
		p->typemap[i] = j;
	}
	return PPROF_OK;
}

/* Rebuilds the index of the aggregated samples that pp_share_merge() left
 * out. */
static int entry_index(struct pprof_profile *p)
{
	if (!(p->entryhash = index_ids(p, 0, p->nentries, entry_key)))
		return pp_nomem(p);
	return PPROF_OK;
}

int pp_add_sample(struct pprof_profile *p, uint32_t node, uint32_t labels,
		  const int64_t *values, uint64_t offset)
{
	uint64_t key = ((uint64_t)node << 32) | labels;
	if (!p->entryhash && entry_index(p) != PPROF_OK)
		return PPROF_ENOMEM;
	struct pp_idhash *t = p->entryhash;
	uint64_t mix = pp_hash_mix(key);
	uint32_t mask = t->cap - 1, tag = pp_idhash_tag(mix, t->cap);
	uint32_t i = (uint32_t)mix & mask;
	uint32_t e;
	for (;;) {
		if (!t->slots[i]) {
			uint32_t cap = p->capentries;
			if (!grow((void **)&p->entries, &p->capentries, p->nentries,
				  sizeof(*p->entries)))
				return pp_nomem(p);
			if (cap != p->capentries || !p->values) {
				size_t nv = (size_t)p->capentries * (p->ntypes ? p->ntypes : 1);
				int64_t *v = realloc(p->values, nv * sizeof(*v));
				if (!v)
					return pp_nomem(p);
				pp_advise_huge(v, nv * sizeof(*v));
				p->values = v;
			}
			e = p->nentries++;
			p->entries[e].node = node;
			p->entries[e].labels = labels;
			memset(p->values + (size_t)e * p->ntypes, 0, p->ntypes * sizeof(int64_t));
			t->slots[i] = (e + 1) | tag;
			t->n++;
			if (!idhash_reserve(p, t, entry_key))
				return pp_nomem(p);
			break;
		}
		uint32_t v = t->slots[i], c = (v & mask) - 1;
		if ((v & ~mask) == tag && p->entries[c].node == node &&
		    p->entries[c].labels == labels) {
			e = c;
			break;
		}
		i = (i + 1) & mask;
	}
	int64_t *v = p->values + (size_t)e * p->ntypes;
	for (uint32_t k = 0; k < p->ntypes; k++) {
		uint32_t dst = p->typemap ? p->typemap[k] : k;
		if (__builtin_add_overflow(v[dst], values[k], &v[dst]))
			return pp_error_at(p, PPROF_EINPUT, offset,
					   "sum of %s values leaves the 64-bit range",
					   pp_str(p, p->types[dst].type));
	}
	return PPROF_OK;
}

int pp_seq_push(struct pprof_profile *p, uint32_t node, int64_t time, int64_t wall)
{
	if (p->nseq == p->capseq) {
		size_t cap = p->capseq ? p->capseq * 2 : 1024;
		struct pp_seq *s = realloc(p->seq, cap * sizeof(*s));
		if (!s)
			return pp_nomem(p);
		p->seq = s;
		p->capseq = cap;
	}
	p->seq[p->nseq].node = node;
	p->seq[p->nseq].time = time;
	p->seq[p->nseq].wall = wall;
	p->nseq++;
	return PPROF_OK;
}

/* ---- public accessors ---- */

enum pprof_format pprof_profile_format(const struct pprof_profile *p)
{
	return p->format;
}

const char *pprof_format_name(enum pprof_format f)
{
	switch (f) {
	case PPROF_FMT_PPROF:
		return "pprof";
	case PPROF_FMT_CPUPROFILE:
		return "cpuprofile";
	case PPROF_FMT_HEAPPROFILE:
		return "heapprofile";
	case PPROF_FMT_FOLDED:
		return "folded";
	case PPROF_FMT_TRACE:
		return "trace";
	case PPROF_FMT_HEAPSNAPSHOT:
		return "heapsnapshot";
	default:
		return "unknown";
	}
}

size_t pprof_sample_type_count(const struct pprof_profile *p)
{
	return p->ntypes;
}

const char *pprof_sample_type_name(const struct pprof_profile *p, size_t i)
{
	return i < p->ntypes ? pp_str(p, p->types[i].type) : NULL;
}

const char *pprof_sample_type_unit(const struct pprof_profile *p, size_t i)
{
	return i < p->ntypes ? pp_str(p, p->types[i].unit) : NULL;
}

int64_t pprof_profile_duration_nanos(const struct pprof_profile *p)
{
	return p->duration_nanos;
}

int pprof_sample_type_select(struct pprof_profile *p, const char *arg)
{
	if (p->ntypes == 0) {
		pp_error(p, PPROF_EUSAGE, "the profile has no sample types");
		return -1;
	}
	if (!arg || !*arg) {
		if (p->default_type >= 0 && (uint32_t)p->default_type < p->ntypes)
			return p->default_type;
		return (int)p->ntypes - 1;
	}
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (*end == '\0' && errno == 0) {
		if (v >= 0 && (unsigned long)v < p->ntypes)
			return (int)v;
		pp_error(p, PPROF_EUSAGE, "sample index %s out of range: the profile has %u types",
			 arg, p->ntypes);
		return -1;
	}
	/* As pprof's SampleIndexByName: the first type named ARG, or ARG
	 * without an inuse_ prefix ("inuse_space" picks "space" of a V8 heap
	 * profile; "space" does not pick "inuse_space"). */
	const char *bare = strncmp(arg, "inuse_", 6) == 0 ? arg + 6 : arg;
	for (uint32_t i = 0; i < p->ntypes; i++) {
		const char *n = pp_str(p, p->types[i].type);
		if (strcmp(n, arg) == 0 || strcmp(n, bare) == 0)
			return (int)i;
	}
	struct pp_buf b;
	pp_buf_init(&b);
	for (uint32_t i = 0; i < p->ntypes; i++)
		pp_buf_addf(&b, "%s%s", i ? " " : "", pp_str(p, p->types[i].type));
	pp_error(p, PPROF_EUSAGE, "sample type %s not found; the profile has: %s", arg, b.s);
	pp_buf_release(&b);
	return -1;
}

int pprof_granularity_parse(const char *name)
{
	static const char *const names[] = {"functions", "filefunctions", "lines", "files",
					    "addresses"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return -1;
}

const char *pprof_version(void)
{
	return PACKAGE_VERSION;
}

/* ---- room ahead (pp_reserve) ---- */

/* The smallest capacity at least CAP whose table stays at most half full
 * with N entries, as hash_reserve() and idhash_reserve() keep them. */
static uint32_t room_cap(uint32_t cap, uint64_t n)
{
	while (cap <= (UINT32_MAX >> 2) && n * 2 >= cap)
		cap *= 2;
	return cap;
}

static bool room_hash(struct pp_hash *h, uint64_t n)
{
	uint32_t cap = room_cap(h->cap, n);
	if (cap == h->cap)
		return true;
	uint64_t *keys;
	uint32_t *vals;
	if (!hash_arrays(cap, &keys, &vals))
		return false;
	hash_move(h, keys, vals, cap);
	return true;
}

static bool room_idhash(struct pprof_profile *p, struct pp_idhash *h, uint64_t n,
			uint64_t (*key)(const struct pprof_profile *, uint32_t))
{
	uint32_t cap = room_cap(h->cap, n);
	if (cap == h->cap)
		return true;
	/* slots are written at random: pp_big_calloc() gives huge pages
	 * from 2 MiB on */
	uint32_t *slots = pp_big_calloc(cap, sizeof(*slots));
	if (!slots)
		return false;
	idhash_move(p, h, slots, cap, key);
	return true;
}

/* Room for N elements of SIZE bytes in *ARR (*CAP allocated, USED in
 * use); from 1 MiB on, whole 2 MiB huge pages aligned to 2 MiB (the pages
 * beyond what is used are never touched).  The block stays one that
 * realloc() and free() take. */
static bool room_array(void **arr, uint32_t *cap, uint64_t n, size_t size, size_t used)
{
	if (n <= *cap)
		return true;
	if (n > UINT32_MAX / 2)
		return false;
#ifdef MADV_HUGEPAGE
	if (n * size >= ((uint64_t)1 << 20) && n * size <= SIZE_MAX / 2) {
		size_t bytes = (size_t)(n * size);
		void *a = pp_huge_alloc(&bytes);
		if (!a)
			return false;
		if (used)
			memcpy(a, *arr, used * size);
		free(*arr);
		*arr = a;
		*cap = (uint32_t)(bytes / size < UINT32_MAX / 2 ? bytes / size : UINT32_MAX / 2);
		return true;
	}
#endif
	void *a = realloc(*arr, (size_t)n * size);
	if (!a)
		return false;
	*arr = a;
	*cap = (uint32_t)n;
	return true;
}

int pp_reserve(struct pprof_profile *p, uint32_t frames, uint32_t nodes, uint32_t entries)
{
	uint64_t nf = (uint64_t)p->nframes + frames, nn = (uint64_t)p->nnodes + nodes;
	uint64_t ne = (uint64_t)p->nentries + entries;

	if (frames && !p->framehash && frame_index(p) != PPROF_OK)
		return PPROF_ENOMEM;
	if (frames &&
	    (!room_array((void **)&p->frames, &p->capframes, nf, sizeof(*p->frames), p->nframes) ||
	     !room_hash(p->framehash, nf)))
		return pp_nomem(p);
	if (nodes &&
	    (!room_array((void **)&p->nodes, &p->capnodes, nn, sizeof(*p->nodes), p->nnodes) ||
	     (p->nodehash && !room_idhash(p, p->nodehash, nn, node_key))))
		return pp_nomem(p);
	if (entries && ne > p->capentries) {
		uint32_t nt = p->ntypes ? p->ntypes : 1;
		if ((uint64_t)ne * nt > UINT32_MAX / 4)
			return PPROF_OK; /* left to grow as it goes */
		uint32_t vcap = p->values ? p->capentries * nt : 0;
		if (!room_array((void **)&p->entries, &p->capentries, ne, sizeof(*p->entries),
				p->nentries))
			return pp_nomem(p);
		/* values keeps capentries * ntypes elements */
		if (!room_array((void **)&p->values, &vcap, (uint64_t)p->capentries * nt,
				sizeof(*p->values), (size_t)p->nentries * nt))
			return pp_nomem(p);
		if (vcap / nt > p->capentries) {
			/* the values' pages rounded up: the entries take as many */
			uint32_t ecap = p->capentries;
			if (!room_array((void **)&p->entries, &ecap, vcap / nt, sizeof(*p->entries),
					p->nentries))
				return pp_nomem(p);
			p->capentries = ecap < vcap / nt ? ecap : vcap / nt;
		}
	}
	if (entries && !room_idhash(p, p->entryhash, ne, entry_key))
		return pp_nomem(p);
	return PPROF_OK;
}
