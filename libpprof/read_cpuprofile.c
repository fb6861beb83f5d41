/*
 * read_cpuprofile.c: V8 .cpuprofile (Chrome DevTools Protocol
 * Profiler.Profile), and Node's old format with a nested "head".
 *
 * Sample types: samples/count and wall/nanoseconds, default wall.  A
 * sample's timestamp is startTime plus the running sum of timeDeltas (old
 * format: its entry in "timestamps"); samples are put in timestamp order (a
 * stable sort: deltas can be negative) and each stands for the gap to the
 * next one, the last for the gap to endTime (old format: to the extra
 * timestamp after the last sample, else 0).  Every sample is also kept in
 * time order for flame charts.  A node's positionTicks put its samples'
 * leaf on the lines where they fell (lines.h); the time order keeps the
 * node.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lines.h"
#include "v8.h"

/* A number that may be written with a fraction (old startTime/endTime). */
struct num {
	bool set;
	bool integer;
	int64_t i;
	double d;
};

static int cmp_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The gaps between consecutive samples, for their median (the sampling
 * interval): counted in a histogram up to GAP_HIST microseconds (V8 samples
 * every 50 µs to a few ms), kept in a list above it, so that finding the
 * median takes neither a sort of a million gaps nor their memory.
 */
#define GAP_HIST 16384
struct gaps {
	uint32_t *hist;
	int64_t *big;
	size_t n, nbig, capbig;
};

static inline bool gap_add(struct gaps *g, int64_t d)
{
	g->n++;
	if ((uint64_t)d < GAP_HIST) {
		g->hist[d]++;
		return true;
	}
	if (g->nbig == g->capbig) {
		size_t cap = g->capbig ? g->capbig * 2 : 256;
		int64_t *b = realloc(g->big, cap * sizeof(*b));

		if (!b)
			return false;
		g->big = b;
		g->capbig = cap;
	}
	g->big[g->nbig++] = d;
	return true;
}

/* The K-th smallest gap (from 0). */
static int64_t gap_kth(struct gaps *g, size_t k)
{
	for (size_t d = 0; d < GAP_HIST; d++) {
		if (k < g->hist[d])
			return (int64_t)d;
		k -= g->hist[d];
	}
	qsort(g->big, g->nbig, sizeof(*g->big), cmp_int64);
	return g->big[k];
}

struct stamp {
	int64_t t;
	uint32_t i; /* position before the sort, for a stable sort */
};

static int cmp_stamp(const void *a, const void *b)
{
	const struct stamp *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* TS and NODE in time order, a stable sort by position; false when out of
 * memory. */
static bool stamp_sort(int64_t *ts, uint32_t *node, size_t n)
{
	struct stamp *st = malloc(n * sizeof(*st));
	uint32_t *was = malloc(n * sizeof(*was));

	if (!st || !was) {
		free(st);
		free(was);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		st[i].t = ts[i];
		st[i].i = (uint32_t)i;
	}
	memcpy(was, node, n * sizeof(*was));
	qsort(st, n, sizeof(*st), cmp_stamp);
	for (size_t i = 0; i < n; i++) {
		ts[i] = st[i].t;
		node[i] = was[st[i].i];
	}
	free(st);
	free(was);
	return true;
}

/*
 * Puts the N samples in time order, in place: their timestamps TS and, moved
 * alike, their nodes NODE.  TS[0 .. FROM) is already in order.  A stable
 * sort: ties keep their order.  False when out of memory.
 */
static bool time_order(int64_t *ts, uint32_t *node, size_t n, size_t from)
{
	/* V8 writes a negative delta now and then: the samples are nearly in
	 * order, which insertion sort puts right in O(n + moves).  Past a
	 * budget of moves, qsort, stable by position: the part put in order
	 * so far keeps the file's order among equal times, and so does the
	 * rest. */
	size_t moves = 0, budget = 16 * n, i;

	for (i = from; i < n && moves <= budget; i++) {
		int64_t x = ts[i];
		uint32_t y = node[i];
		size_t j = i;

		while (j > 0 && ts[j - 1] > x && moves++ <= budget) {
			ts[j] = ts[j - 1];
			node[j] = node[j - 1];
			j--;
		}
		ts[j] = x;
		node[j] = y;
	}
	return moves <= budget || stamp_sort(ts, node, n);
}

/*
 * What samples_to_model() makes of samples 0 .. n-2 of V8's usual input,
 * made by the thread once it has read both arrays (ahead_sums()): the
 * count and wall time per node id, the gaps between consecutive samples,
 * the times relative to startTime.  OK only when the samples are in time
 * order, every id is small, and no sum or product leaves int64; the main
 * thread still checks what depends on the rest of the file.
 */
struct sums {
	bool ok;
	int64_t *count, *wall; /* per id, 0 .. nids - 1 */
	size_t nids;
	struct gaps g;
	int64_t first, last; /* the first and last sample's time from startTime */
	uint32_t last_id;    /* the last sample's node id */
};

static void sums_free(struct sums *u)
{
	pp_big_free(u->count, 2 * u->nids, sizeof(*u->count)); /* and wall */
	free(u->g.hist);
	free(u->g.big);
	memset(u, 0, sizeof(*u));
}

/* What sums_stand() found: the start and end (µs), and the last sample's
 * node. */
struct stand {
	int64_t base, endt;
	bool have_end;
	uint32_t k;
};

struct cpu {
	struct pprof_profile *p;
	struct json j;
	struct pp_v8 v;
	const unsigned char *buf;
	size_t len;
	uint32_t max_depth;
	bool have_nodes, have_head, have_samples, have_deltas, have_stamps;
	struct num start, end;
	/* samples' node ids: in 32 bits while they fit (V8's always do), in
	 * 64 (samples) from the first that does not */
	uint32_t *sid;
	int64_t *samples, *deltas, *stamps;
	size_t nsamples, capsamples, ndeltas, capdeltas, nstamps, capstamps;
	/* the offset of timeDeltas' '[' when the thread summed the deltas
	 * without keeping them (DELTAS NULL, NDELTAS counted) */
	size_t deltas_at;
	/* the integer arrays read ahead on another thread (NULL: none) */
	struct ahead *ahead;
	/* both arrays came from the thread, and its sums with them */
	bool took_samples, took_deltas;
	struct sums sums;
	/* the lines of positionTicks are made (pprof_read_options.skip_lines) */
	bool lines;
	/* the tree was built while the thread read on, with this outcome,
	 * which stands after any error of the rest of the text */
	bool built;
	int build_status;
	/* what samples_to_model() found, in nanoseconds (0: not known) */
	int64_t period, duration;
	/* the thread's sums stand for the samples (sums_stand(), asked once
	 * the nodes and samples are read), and what is taken with them */
	bool stands;
	struct stand stand;
};

static int read_num(struct cpu *c, int t, const char *what, struct num *n)
{
	if (t == JSON_ERROR)
		return pp_v8_json_error(c->p, &c->j);
	if (t != JSON_NUMBER)
		return pp_error_at(c->p, PPROF_EINPUT, json_offset(&c->j), "%s is not a number",
				   what);
	n->set = true;
	n->integer = json_int64(&c->j, &n->i);
	if (!n->integer && (!json_double(&c->j, &n->d) || !isfinite(n->d)))
		return pp_error_at(c->p, PPROF_EINPUT, json_offset(&c->j), "%s is out of range",
				   what);
	return PPROF_OK;
}

/* N in microseconds, from a value in SCALE microseconds (1 or 1,000,000). */
static bool num_us(const struct num *n, int64_t scale, int64_t *out)
{
	if (n->integer)
		return !__builtin_mul_overflow(n->i, scale, out);
	{
		double d = n->d * (double)scale;

		/* Well inside int64, so that rounding cannot leave it. */
		if (!(d > -9.2e18 && d < 9.2e18))
			return false;
		*out = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
		return true;
	}
}

static bool grow_to(void **a, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 4096;
	void *b;

	while (c < need)
		c *= 2;
	if (c == *cap)
		return true;
	if (c > SIZE_MAX / size || !(b = realloc(*a, c * size)))
		return false;
	*a = b;
	*cap = c;
	return true;
}

/* The node ids of "samples": in 32 bits while they fit (V8's always do),
 * in 64 (samples) from the first that does not. */
struct ids {
	uint32_t *sid;
	int64_t *samples;
	size_t nsamples, capsamples;
};

/* "samples": node ids, read by J in bulk into c->sid, and into c->samples
 * from the first id that does not fit 32 bits on (all of them moved
 * there).  T is the token of the value; errors are set on P. */
static int read_samples(struct pprof_profile *p, struct json *j, int t, struct ids *c)
{
	int64_t chunk[1024];

	if (t == JSON_ERROR)
		return pp_v8_json_error(p, j);
	if (t != JSON_ARRAY_BEGIN)
		return pp_error_at(p, PPROF_EINPUT, json_offset(j), "samples is not an array");
	for (;;) {
		size_t got = json_ints(j, chunk, sizeof(chunk) / sizeof(*chunk)), k = 0;

		if (got == 0) {
			t = json_next(j);
			if (t == JSON_ARRAY_END)
				return PPROF_OK;
			if (t == JSON_ERROR)
				return pp_v8_json_error(p, j);
			if (t != JSON_NUMBER)
				return pp_error_at(p, PPROF_EINPUT, json_offset(j),
						   "samples holds something other than a number");
			if (!json_int64(j, &chunk[0]))
				return pp_error_at(p, PPROF_EINPUT, json_offset(j),
						   "samples holds a number that is not a 64-bit integer");
			got = 1;
		}
		if (!c->samples) {
			for (; k < got && chunk[k] >= 0 && chunk[k] <= (int64_t)UINT32_MAX; k++)
				;
			if (!grow_to((void **)&c->sid, &c->capsamples, c->nsamples + k,
				     sizeof(*c->sid)))
				return pp_nomem(p);
			for (size_t i = 0; i < k; i++)
				c->sid[c->nsamples + i] = (uint32_t)chunk[i];
			c->nsamples += k;
			if (k < got) {
				/* the rare wide id: every id in 64 bits from here */
				size_t cap = 0;

				if (!grow_to((void **)&c->samples, &cap, c->nsamples + got - k,
					     sizeof(*c->samples)))
					return pp_nomem(p);
				for (size_t i = 0; i < c->nsamples; i++)
					c->samples[i] = c->sid[i];
				free(c->sid);
				c->sid = NULL;
				c->capsamples = cap;
			}
		}
		if (k < got) {
			if (!grow_to((void **)&c->samples, &c->capsamples, c->nsamples + got - k,
				     sizeof(*c->samples)))
				return pp_nomem(p);
			memcpy(c->samples + c->nsamples, chunk + k, (got - k) * sizeof(*chunk));
			c->nsamples += got - k;
		}
	}
}

/*
 * The integer arrays "samples" and "timeDeltas", most of a V8 profile's
 * bytes, are read on a second thread while this one reads the nodes: V8
 * writes them last, as "samples":[...],"timeDeltas":[...]}, so they are
 * found from the end.  What the thread found is a guess until the strict
 * parse of the whole text reaches the same key with its value starting at
 * the same byte: then the thread's parser read the same bytes with the same
 * grammar and the same code, and its arrays are taken as they are; else
 * (a key with white space, nested, inside a string, or the thread failed
 * on anything, an error included) this thread reads the value itself, and
 * its errors are the ones reported.
 */
size_t pp_ahead_min = (size_t)1 << 20;        /* smaller inputs: no thread */
#define AHEAD_QUOTES 256                      /* quotes looked at from the end */

struct ahead_array {
	size_t at;  /* offset of the value's '[', or SIZE_MAX: not found */
	size_t end; /* past its ']' when ok */
	bool ok;
};

struct ahead {
	const unsigned char *buf;
	size_t len;
	uint32_t max_depth;
	pthread_t th;
	bool running;
	struct ahead_array samples, deltas;
	struct ids ids;
	int64_t *deltav;
	size_t ndeltas, capdeltas;
	bool want_sums; /* no time-ordered sequence asked for */
	struct sums sums;
};

/* Where "samples":[ and "timeDeltas":[ are among the last AHEAD_QUOTES
 * quotes of BUF: the offsets of their '['. */
static void ahead_find(struct ahead *a)
{
	static const char ks[] = "\"samples\":[", kd[] = "\"timeDeltas\":[";
	const unsigned char *b = a->buf, *q = b + a->len;

	a->samples.at = a->deltas.at = SIZE_MAX;
	for (int n = 0; n < AHEAD_QUOTES; n++) {
		q = memrchr(b, '"', (size_t)(q - b));
		if (!q)
			break;
		size_t left = a->len - (size_t)(q - b);
		if (a->samples.at == SIZE_MAX && left >= sizeof(ks) - 1 &&
		    memcmp(q, ks, sizeof(ks) - 1) == 0)
			a->samples.at = (size_t)(q - b) + sizeof(ks) - 2;
		if (a->deltas.at == SIZE_MAX && left >= sizeof(kd) - 1 &&
		    memcmp(q, kd, sizeof(kd) - 1) == 0)
			a->deltas.at = (size_t)(q - b) + sizeof(kd) - 2;
		if (a->samples.at != SIZE_MAX && a->deltas.at != SIZE_MAX)
			break;
	}
}

/* J made to read the value at byte AT of BUF (LEN bytes), its offsets
 * counted from BUF's start. */
static void json_from(struct json *j, const unsigned char *buf, size_t len, uint32_t max_depth,
		      size_t at)
{
	json_init(j, buf + at, len - at, max_depth);
	json_set_base(j, at);
}

/* The array at A->at read as the main parse would read it, on a profile of
 * its own for the errors, which are dropped. */
static void ahead_read(struct ahead *a, struct ahead_array *r, struct pprof_profile *p, bool ids)
{
	struct json j;
	int s;

	if (r->at == SIZE_MAX)
		return;
	json_from(&j, a->buf, a->len, a->max_depth, r->at);
	if (ids)
		s = read_samples(p, &j, json_next(&j), &a->ids);
	else
		s = pp_v8_int_array(p, &j, json_next(&j), "timeDeltas", &a->deltav, &a->ndeltas,
				    &a->capdeltas);
	if (s == PPROF_OK) {
		r->ok = true;
		r->end = json_offset(&j) + 1;
	}
	json_release(&j);
}

/* An array for about N elements of SIZE bytes, huge pages asked for: the
 * first guess of what a read fills (it still grows past it). */
static void *ahead_alloc(size_t n, size_t size, size_t *cap)
{
	void *a;

	if (n > ((size_t)64 << 20) / size)
		n = ((size_t)64 << 20) / size;
	if (n < 4096)
		return NULL;
	size_t bytes = n * size;
	if (!(a = pp_huge_alloc(&bytes)))
		return NULL;
	*cap = bytes / size;
	return a;
}

/* The empty tables of the sums of the samples read: false when they
 * cannot be made (the ids spread thinner than the samples, no memory). */
static bool sums_tables(struct ahead *a)
{
	struct sums *u = &a->sums;
	const uint32_t *sid = a->ids.sid;
	size_t n = a->ids.nsamples, i;
	uint32_t maxid = 0;

	for (i = 0; i < n; i++)
		if (sid[i] > maxid)
			maxid = sid[i];
	/* a table per id, as long as the ids are not spread thinner than
	 * the samples */
	if (maxid > n / 2 + 65536)
		return false;
	u->nids = (size_t)maxid + 1;
	/* count and wall in one block, huge pages from 256 KiB on: written
	 * where the samples fall */
	if ((u->count = pp_big_calloc(2 * u->nids, sizeof(*u->count))) != NULL)
		u->wall = u->count + u->nids;
	u->g.hist = calloc(GAP_HIST, sizeof(*u->g.hist));
	return u->count && u->g.hist;
}

/* Sample ID's gap GAP to the next one in time order added to the sums:
 * false when a sum leaves int64. */
static inline bool sum_one(struct sums *u, uint32_t id, int64_t gap)
{
	int64_t wall;

	if (__builtin_mul_overflow(gap, 1000, &wall) ||
	    __builtin_add_overflow(u->wall[id], wall, &u->wall[id]) || !gap_add(&u->g, gap))
		return false;
	u->count[id]++;
	return true;
}

/* The samples of ahead_stream() not yet summed, in time order: a ring of
 * STREAM_WIN, oldest at HEAD.  V8's deltas are now and then negative (its
 * sampler's order; 0.2% of them on the bench profile), by less than the
 * gap before: such a sample moves back a place or two. */
#define STREAM_WIN 64
struct win {
	struct {
		int64_t t;
		uint32_t id;
	} e[STREAM_WIN];
	unsigned head, n;
};

/* Sample ID at time T into W (not full), after those not later. */
static inline void win_put(struct win *w, int64_t t, uint32_t id)
{
	unsigned at = w->n;

	while (at > 0 && w->e[(w->head + at - 1) % STREAM_WIN].t > t) {
		w->e[(w->head + at) % STREAM_WIN] = w->e[(w->head + at - 1) % STREAM_WIN];
		at--;
	}
	w->e[(w->head + at) % STREAM_WIN].t = t;
	w->e[(w->head + at) % STREAM_WIN].id = id;
	w->n++;
}

/* The oldest sample of W summed with its gap to the next: false when a sum
 * leaves int64. */
static inline bool win_pop(struct sums *u, struct win *w)
{
	unsigned a = w->head, b = (a + 1) % STREAM_WIN;
	int64_t gap;

	if (__builtin_sub_overflow(w->e[b].t, w->e[a].t, &gap) || !sum_one(u, w->e[a].id, gap))
		return false;
	w->head = b;
	w->n--;
	return true;
}

/* The sums straight from the text of timeDeltas, the deltas not kept,
 * with the same outcome as ahead_sums()'s (a stable sort of the samples by
 * time, the gaps between neighbours): true when the deltas are plain
 * integers, as many as the samples, no sample goes back before the oldest
 * one not yet summed (STREAM_WIN - 1 back at most), and no sum leaves
 * int64.  A->deltas is then read (A->ndeltas counts them, A->deltav stays
 * NULL); otherwise nothing is kept. */
static bool ahead_stream(struct ahead *a)
{
	struct sums *u = &a->sums;
	struct ahead_array *r = &a->deltas;
	const uint32_t *sid = a->ids.sid;
	size_t n = a->ids.nsamples, i = 0;
	int64_t buf[4096], cum = 0;
	bool popped = false; /* a sample was summed */
	struct win w;
	struct json j;
	bool ok = false;

	if (!a->samples.ok || r->at == SIZE_MAX || a->ids.samples || !sid || n < 2)
		return false;
	if (!sums_tables(a)) {
		sums_free(u);
		return false;
	}
	w.head = w.n = 0;
	json_from(&j, a->buf, a->len, a->max_depth, r->at);
	if (json_next(&j) != JSON_ARRAY_BEGIN)
		goto out;
	for (;;) {
		size_t got = json_ints(&j, buf, sizeof(buf) / sizeof(*buf));

		for (size_t k = 0; k < got; k++, i++) {
			if (i >= n)
				goto out;
			if (!i)
				cum = buf[k];
			else if (__builtin_add_overflow(cum, buf[k], &cum))
				goto out;
			/* before the oldest sample not summed, the gap of the
			 * last one summed would change: the whole sort's way */
			if (popped && cum < w.e[w.head].t)
				goto out;
			win_put(&w, cum, sid[i]);
			if (w.n == STREAM_WIN) {
				if (!popped)
					u->first = w.e[w.head].t;
				popped = true;
				if (!win_pop(u, &w))
					goto out;
			}
		}
		if (got == sizeof(buf) / sizeof(*buf))
			continue;
		if (json_next(&j) != JSON_ARRAY_END)
			goto out; /* another number, an error: read as an array */
		break;
	}
	if (i != n)
		goto out;
	if (!popped)
		u->first = w.e[w.head].t;
	while (w.n > 1)
		if (!win_pop(u, &w))
			goto out;
	u->last = w.e[w.head].t;
	u->last_id = w.e[w.head].id;
	u->ok = true;
	a->ndeltas = n;
	r->ok = true;
	r->end = json_offset(&j) + 1;
	ok = true;
out:
	json_release(&j);
	if (!ok)
		sums_free(u);
	return ok;
}

/* The sums (struct sums) of the arrays read, when they can stand for the
 * samples and ahead_stream() could not make them: on copies put in time
 * order, the arrays being the main thread's to read as they are when the
 * sums cannot be used. */
static void ahead_sums(struct ahead *a)
{
	struct sums *u = &a->sums;
	const uint32_t *sid = a->ids.sid;
	const int64_t *dv = a->deltav;
	size_t n = a->ids.nsamples, i, moves = 0, budget = 16 * n;
	uint32_t *id = NULL;
	int64_t *r = NULL, cum;

	if (!a->samples.ok || !a->deltas.ok || a->ids.samples || !sid || a->ndeltas != n || n < 2)
		return;
	if (!sums_tables(a))
		goto out;
	/* both copies in one block: whole huge pages from 1 MiB on, a fault
	 * per 2 MiB rather than per 4 KiB */
	size_t rbytes = n * (sizeof(*r) + sizeof(*id));
	if ((r = pp_huge_alloc(&rbytes)) != NULL)
		id = (uint32_t *)(r + n);
	if (!r)
		goto out;
	/* the time of sample i from startTime, the sum of deltas 0 .. i, put
	 * in time order as it comes (time_order()'s insertion sort, in the
	 * same pass) */
	r[0] = cum = dv[0];
	id[0] = sid[0];
	for (i = 1; i < n; i++) {
		size_t j = i;

		if (__builtin_add_overflow(cum, dv[i], &cum))
			goto out;
		while (j > 0 && r[j - 1] > cum && moves++ <= budget) {
			r[j] = r[j - 1];
			id[j] = id[j - 1];
			j--;
		}
		r[j] = cum;
		id[j] = sid[i];
		if (moves > budget)
			break;
	}
	if (i < n) {
		/* far out of order: the rest as it comes, then sorted */
		for (i++; i < n; i++) {
			if (__builtin_add_overflow(cum, dv[i], &cum))
				goto out;
			r[i] = cum;
			id[i] = sid[i];
		}
		if (!stamp_sort(r, id, n))
			goto out;
	}
	for (i = 0; i + 1 < n; i++) {
		int64_t gap;

		if (__builtin_sub_overflow(r[i + 1], r[i], &gap) || !sum_one(u, id[i], gap))
			goto out;
	}
	u->first = r[0];
	u->last = r[n - 1];
	u->last_id = id[n - 1];
	u->ok = true;
out:
	free(r);
}

static void *ahead_thread(void *arg)
{
	struct ahead *a = arg;
	struct pprof_profile *p = pprof_profile_new();

	ahead_find(a);
	size_t s = a->samples.at, d = a->deltas.at;

	/* V8 writes a sample's id in 4 to 6 bytes, its delta in 3 to 5 */
	if (s != SIZE_MAX)
		a->ids.sid = ahead_alloc(((d != SIZE_MAX && d > s ? d : a->len) - s) / 4,
					 sizeof(*a->ids.sid), &a->ids.capsamples);

	if (p) {
		ahead_read(a, &a->samples, p, true);
		/* the deltas summed as they are read, else kept and summed */
		if (!(a->want_sums && ahead_stream(a))) {
			if (d != SIZE_MAX)
				a->deltav =
					ahead_alloc(((s != SIZE_MAX && s > d ? s : a->len) - d) / 3,
						    sizeof(*a->deltav), &a->capdeltas);
			ahead_read(a, &a->deltas, p, false);
			if (a->want_sums)
				ahead_sums(a);
		}
	}
	pprof_profile_free(p);
	return NULL;
}

/* Starts the thread when the input is big. */
static void ahead_start(struct cpu *c, bool want_sums)
{
	struct ahead *a;

	if (c->len < pp_ahead_min || !(a = calloc(1, sizeof(*a))))
		return;
	a->want_sums = want_sums;
	a->buf = c->buf;
	a->len = c->len;
	a->max_depth = c->max_depth;
	/* the thread finds the arrays itself (ahead_find(): a look at the
	 * last few megabytes of the text, which this thread reaches last) */
	if (pthread_create(&a->th, NULL, ahead_thread, a) == 0) {
		a->running = true;
		c->ahead = a;
	} else {
		free(a);
	}
}

static void ahead_join(struct ahead *a)
{
	if (a && a->running) {
		pthread_join(a->th, NULL);
		a->running = false;
	}
}

static void ahead_free(struct ahead *a)
{
	if (!a)
		return;
	ahead_join(a);
	free(a->ids.sid);
	free(a->ids.samples);
	free(a->deltav);
	sums_free(&a->sums);
	free(a);
}

/* The value of the current key, whose first token T was just read, when
 * the thread read it (the samples, or with DELTAS the timeDeltas): true,
 * and the parser moved past it. */
static bool ahead_take(struct cpu *c, int t, bool deltas)
{
	if (!c->ahead)
		return false;
	struct ahead_array *r = deltas ? &c->ahead->deltas : &c->ahead->samples;
	if (t != JSON_ARRAY_BEGIN)
		return false;
	ahead_join(c->ahead); /* R is the thread's until then */
	if (json_offset(&c->j) != r->at || !r->ok)
		return false;
	json_value_done(&c->j, c->buf + r->end);
	return true;
}

/* The call tree of the nodes read. */
static int build(struct cpu *c)
{
	size_t nlines = c->lines ? c->v.nticks : 0;

	/* the frames and nodes of the tree and of the lines, at most, sized
	 * at once rather than for the tree and then again for the lines */
	if (c->v.n + nlines < UINT32_MAX / 2)
		c->v.reserve_more = (uint32_t)nlines;
	return pp_v8_build(&c->v);
}

static int top_level(struct cpu *c)
{
	struct json *j = &c->j;
	int t = json_next(j), s = PPROF_OK;

	if (t == JSON_ERROR)
		return pp_v8_json_error(c->p, j);
	if (t != JSON_OBJECT_BEGIN)
		return pp_error_at(c->p, PPROF_EINPUT, json_offset(j),
				   "a cpuprofile is a JSON object");
	for (;;) {
		bool *seen = NULL;
		size_t keypos;

		t = json_next(j);
		if (t == JSON_OBJECT_END)
			break;
		if (t == JSON_ERROR)
			return pp_v8_json_error(c->p, j);
		keypos = json_offset(j);
		if (KEY_IS(j, "nodes")) {
			seen = &c->have_nodes;
		} else if (KEY_IS(j, "head")) {
			seen = &c->have_head;
		} else if (KEY_IS(j, "samples")) {
			seen = &c->have_samples;
		} else if (KEY_IS(j, "timeDeltas")) {
			seen = &c->have_deltas;
		} else if (KEY_IS(j, "timestamps")) {
			seen = &c->have_stamps;
		} else if (KEY_IS(j, "startTime")) {
			if (c->start.set)
				return pp_error_at(c->p, PPROF_EINPUT, keypos,
						   "duplicate key \"startTime\"");
			s = read_num(c, json_next(j), "startTime", &c->start);
		} else if (KEY_IS(j, "endTime")) {
			if (c->end.set)
				return pp_error_at(c->p, PPROF_EINPUT, keypos,
						   "duplicate key \"endTime\"");
			s = read_num(c, json_next(j), "endTime", &c->end);
		} else {
			t = json_next(j);
			if (t == JSON_ERROR || json_skip(j, t) == JSON_ERROR)
				return pp_v8_json_error(c->p, j);
		}
		if (s != PPROF_OK)
			return s;
		if (!seen)
			continue;
		if (*seen)
			return pp_error_at(c->p, PPROF_EINPUT, keypos, "duplicate key \"%.*s\"",
					   (int)j->len, j->str);
		*seen = true;
		if (seen == &c->have_nodes) {
			t = json_next(j);
			if (t == JSON_ERROR)
				return pp_v8_json_error(c->p, j);
			if (t != JSON_ARRAY_BEGIN)
				return pp_error_at(c->p, PPROF_EINPUT, json_offset(j),
						   "nodes is not an array");
			for (;;) {
				bool done;

				/* V8's own layout from the bytes, else token by token */
				s = pp_v8_fast_node(&c->v, &done);
				if (s != PPROF_OK)
					return s;
				if (done)
					continue;
				t = json_next(j);
				if (t == JSON_ARRAY_END)
					break;
				if (t == JSON_ERROR)
					return pp_v8_json_error(c->p, j);
				if (t != JSON_OBJECT_BEGIN)
					return pp_error_at(c->p, PPROF_EINPUT, json_offset(j),
							   "a node is not an object");
				s = pp_v8_read_node(&c->v);
				if (s != PPROF_OK)
					return s;
			}
			/* V8 writes the nodes first: the tree is built while
			 * the thread still reads the samples (nothing else
			 * interns strings before the tree would be built) */
			if (c->ahead) {
				c->built = true;
				c->build_status = build(c);
			}
		} else if (seen == &c->have_head) {
			t = json_next(j);
			if (t == JSON_ERROR)
				return pp_v8_json_error(c->p, j);
			if (t != JSON_OBJECT_BEGIN)
				return pp_error_at(c->p, PPROF_EINPUT, json_offset(j),
						   "head is not an object");
			s = pp_v8_read_node(&c->v);
		} else if (seen == &c->have_samples) {
			struct ids ids = {c->sid, c->samples, c->nsamples, c->capsamples};

			t = json_next(j);
			if (ahead_take(c, t, false)) {
				c->took_samples = true;
				ids = c->ahead->ids;
				memset(&c->ahead->ids, 0, sizeof(c->ahead->ids));
			} else {
				s = read_samples(c->p, j, t, &ids);
			}
			c->sid = ids.sid;
			c->samples = ids.samples;
			c->nsamples = ids.nsamples;
			c->capsamples = ids.capsamples;
		} else if (seen == &c->have_deltas) {
			t = json_next(j);
			if (ahead_take(c, t, true)) {
				c->took_deltas = true;
				c->deltas = c->ahead->deltav;
				c->deltas_at = c->ahead->deltas.at;
				c->ndeltas = c->ahead->ndeltas;
				c->capdeltas = c->ahead->capdeltas;
				c->ahead->deltav = NULL;
			} else {
				s = pp_v8_int_array(c->p, j, t, "timeDeltas", &c->deltas,
						    &c->ndeltas, &c->capdeltas);
			}
		} else {
			s = pp_v8_int_array(c->p, j, json_next(j), "timestamps", &c->stamps,
					    &c->nstamps, &c->capstamps);
		}
		if (s != PPROF_OK)
			return s;
	}
	t = json_next(j);
	if (t != JSON_END)
		return pp_v8_json_error(c->p, j);
	return PPROF_OK;
}

static int range_error(struct cpu *c)
{
	return pp_error(c->p, PPROF_EINPUT, "a time in nanoseconds leaves the 64-bit range");
}

/* Per node of the input: samples and wall time. */
struct acc {
	int64_t count, wall;
};

/* Room for N more time-ordered samples, so that pushing them does not
 * reallocate as it goes. */
static int reserve_seq(struct pprof_profile *p, size_t n)
{
	struct pp_seq *q;

	if (p->capseq - p->nseq >= n)
		return PPROF_OK;
	if (n > SIZE_MAX / sizeof(*q) - p->nseq)
		return pp_nomem(p);
	q = realloc(p->seq, (p->nseq + n) * sizeof(*q));
	if (!q)
		return pp_nomem(p);
	p->seq = q;
	p->capseq = p->nseq + n;
	return PPROF_OK;
}

/* Whether the thread's sums stand for the samples (samples_from_sums()),
 * and what it then takes from them. */
static bool sums_stand(struct cpu *c, struct stand *t)
{
	const struct sums *u = &c->sums;
	size_t n = c->nsamples, id;
	int64_t x;

	t->base = t->endt = 0;
	t->have_end = false;
	if (!u->ok || c->samples || !c->have_nodes || !c->have_deltas || c->ndeltas != n || n < 2 ||
	    n > UINT32_MAX)
		return false;
	/* every sample names a node */
	for (id = 0; id < u->nids; id++)
		if (u->count[id] && pp_v8_find(&c->v, (int64_t)id) == PP_V8_NONE)
			return false;
	if ((t->k = pp_v8_find(&c->v, u->last_id)) == PP_V8_NONE)
		return false;
	if (c->start.set && !num_us(&c->start, 1, &t->base))
		return false;
	if (c->end.set) {
		if (!num_us(&c->end, 1, &t->endt))
			return false;
		t->have_end = true;
	}
	/* the timestamps (startTime plus the sums of the deltas, in order:
	 * the first is the least, the last the largest) stay in int64, and
	 * their times from startTime in nanoseconds too */
	return !__builtin_add_overflow(t->base, u->first, &x) &&
	       !__builtin_add_overflow(t->base, u->last, &x) &&
	       !__builtin_mul_overflow(u->first, 1000, &x) &&
	       !__builtin_mul_overflow(u->last, 1000, &x);
}

/* samples_to_model() from the thread's sums (struct sums), with the same
 * results and errors, when they stand for the samples (c->stands): *DONE
 * false when not (samples_to_model() then reads the samples one by one, and
 * says what is wrong with them in its order). */
static int samples_from_sums(struct cpu *c, struct acc *acc, bool *done)
{
	const struct sums *u = &c->sums;
	size_t n = c->nsamples, id;
	int64_t base = c->stand.base, endt = c->stand.endt, d;
	bool have_end = c->stand.have_end;
	uint32_t k = c->stand.k;

	*done = c->stands;
	if (!c->stands)
		return PPROF_OK;
	for (id = 0; id < u->nids; id++) {
		if (!u->count[id])
			continue;
		uint32_t i = pp_v8_find(&c->v, (int64_t)id);
		acc[i].count = u->count[id];
		acc[i].wall = u->wall[id];
	}
	{
		/* the last sample, as samples_to_model() takes it */
		int64_t t = base + u->last, gap = 0, wall, time;

		if (have_end && endt > t && __builtin_sub_overflow(endt, t, &gap))
			return range_error(c);
		if (__builtin_mul_overflow(gap, 1000, &wall) ||
		    __builtin_sub_overflow(t, base, &time) ||
		    __builtin_mul_overflow(time, 1000, &time))
			return range_error(c);
		if (__builtin_add_overflow(acc[k].wall, wall, &acc[k].wall))
			return pp_error(c->p, PPROF_EINPUT,
					"sum of wall values leaves the 64-bit range");
		acc[k].count++;
	}
	d = gap_kth((struct gaps *)&u->g, (n - 2) / 2);
	if (d > 0 && !__builtin_mul_overflow(d, 1000, &d))
		c->period = d;
	if (!__builtin_sub_overflow(have_end ? endt : base + u->last, base, &d) && d > 0 &&
	    !__builtin_mul_overflow(d, 1000, &d))
		c->duration = d;
	return PPROF_OK;
}

/* The deltas the thread summed without keeping them, read again when the
 * sums cannot stand for the samples after all. */
static int deltas_again(struct cpu *c)
{
	struct json j;
	size_t n = 0;
	int s;

	json_from(&j, c->buf, c->len, c->max_depth, c->deltas_at);
	s = pp_v8_int_array(c->p, &j, json_next(&j), "timeDeltas", &c->deltas, &n, &c->capdeltas);
	json_release(&j);
	if (s == PPROF_OK && n != c->ndeltas)
		s = pp_error(c->p, PPROF_EINPUT, "timeDeltas read twice differ");
	return s;
}

/*
 * The samples' values per node (ACC) and, unless the caller asked to skip
 * it, the time-ordered sequence.  c->period and c->duration (ns) are the
 * sampling interval and the duration: the median gap between consecutive
 * samples in time order (the lower one of an even count), V8's own interval
 * being nowhere in the file; the end (endTime, or the old format's extra
 * timestamp; else the last sample) minus the start (startTime; else the
 * first sample).  0 where they cannot be told, or leave int64.
 */
static int samples_to_model(struct cpu *c, struct acc *acc, bool want_seq)
{
	size_t n = c->nsamples, i;
	bool old = !c->have_nodes;
	int64_t *ts = NULL;      /* timestamps in µs, file order; NULL: none */
	uint32_t *node = c->sid; /* the node indexes, from the ids */
	int64_t base = 0, endt = 0;
	bool have_end = false;
	struct gaps g = { NULL, NULL, 0, 0, 0 };
	int s = PPROF_OK;

	if (n > UINT32_MAX)
		return pp_error(c->p, PPROF_ENOMEM, "more than 2^32 samples");
	if (!want_seq) {
		bool done;

		if ((s = samples_from_sums(c, acc, &done)) != PPROF_OK || done)
			return s;
	}
	if (c->samples && !(node = c->sid = malloc((n ? n : 1) * sizeof(*node))))
		return pp_nomem(c->p);
	/* From here on sid[] holds node indexes. */
	for (i = 0; i < n; i++) {
		int64_t id = c->samples ? c->samples[i] : node[i];
		uint32_t k = pp_v8_find(&c->v, id);

		if (k == PP_V8_NONE)
			return pp_error_at(c->p, PPROF_EINPUT,
					   pp_v8_element_offset(c->buf, c->len, c->max_depth,
								"samples", i),
					   "sample %zu: node %lld does not exist", i,
					   (long long)id);
		node[i] = k;
	}

	if (!old && c->have_deltas && c->ndeltas != n)
		return pp_error(c->p, PPROF_EINPUT, "samples has %zu entries but timeDeltas %zu",
				n, c->ndeltas);
	if (old && c->have_stamps && c->nstamps != n && c->nstamps != n + 1)
		return pp_error(c->p, PPROF_EINPUT, "samples has %zu entries but timestamps %zu",
				n, c->nstamps);
	if (old) {
		/* startTime and endTime are in seconds there; the timestamps in
		 * microseconds. */
		if (c->start.set && !num_us(&c->start, 1000000, &base))
			return range_error(c);
		if (c->have_stamps) {
			ts = c->stamps;
			if (c->nstamps == n + 1) {
				have_end = true;
				endt = c->stamps[n];
			}
			/* Whole seconds can lie after the first timestamp. */
			for (i = 0; i < n; i++)
				if ((!c->start.set && i == 0) || ts[i] < base)
					base = ts[i];
		}
	} else {
		if (c->start.set && !num_us(&c->start, 1, &base))
			return range_error(c);
		if (c->end.set) {
			if (!num_us(&c->end, 1, &endt))
				return range_error(c);
			have_end = true;
		}
		if (c->have_deltas && !c->deltas && c->ndeltas && (s = deltas_again(c)) != PPROF_OK)
			return s;
		if (c->have_deltas) {
			/* The deltas become timestamps in place. */
			int64_t cum = base;

			ts = c->deltas;
			for (i = 0; i < n; i++) {
				if (__builtin_add_overflow(cum, ts[i], &cum))
					return pp_error_at(
						c->p, PPROF_EINPUT,
						pp_v8_element_offset(c->buf, c->len, c->max_depth,
								     "timeDeltas", i),
						"timestamp leaves the 64-bit range");
				ts[i] = cum;
			}
		}
	}
	if (!ts && n)
		pp_warn(c->p, "no %s: wall times are 0", old ? "timestamps" : "timeDeltas");

	/* Usually already in order. */
	for (i = 1; ts && i < n; i++)
		if (ts[i] < ts[i - 1])
			break;
	if (ts && i < n && !time_order(ts, node, n, i))
		return pp_nomem(c->p);

	if (want_seq && (s = reserve_seq(c->p, n)) != PPROF_OK)
		return s;
	if (ts && n >= 2) {
		g.hist = calloc(GAP_HIST, sizeof(*g.hist));
		if (!g.hist)
			return pp_nomem(c->p);
	}
	for (i = 0; i < n; i++) {
		uint32_t k = node[i];
		int64_t t = ts ? ts[i] : base, next = 0, gap = 0, wall, time;
		bool has_next = i + 1 < n || have_end;

		if (i + 1 < n)
			next = ts ? ts[i + 1] : base;
		else if (have_end)
			next = endt;
		if (ts && has_next && next > t && __builtin_sub_overflow(next, t, &gap)) {
			s = range_error(c);
			break;
		}
		if (__builtin_mul_overflow(gap, 1000, &wall) ||
		    __builtin_sub_overflow(t, base, &time) ||
		    __builtin_mul_overflow(time, 1000, &time)) {
			s = range_error(c);
			break;
		}
		if (__builtin_add_overflow(acc[k].wall, wall, &acc[k].wall)) {
			s = pp_error(c->p, PPROF_EINPUT,
				     "sum of wall values leaves the 64-bit range");
			break;
		}
		acc[k].count++;
		/* in time order the gap to the next sample is never negative */
		if (g.hist && i + 1 < n && !gap_add(&g, gap)) {
			s = pp_nomem(c->p);
			break;
		}
		if (want_seq && (s = pp_seq_push(c->p, c->v.nodes[k].model, time, wall)) !=
				       PPROF_OK)
			break;
	}
	if (s == PPROF_OK && ts) {
		int64_t d;

		if (g.hist) {
			d = gap_kth(&g, (n - 2) / 2);
			if (d > 0 && !__builtin_mul_overflow(d, 1000, &d))
				c->period = d;
		}
		if ((n || have_end) &&
		    !__builtin_sub_overflow(have_end ? endt : ts[n - 1], base, &d) && d > 0 &&
		    !__builtin_mul_overflow(d, 1000, &d))
			c->duration = d;
	}
	free(g.hist);
	free(g.big);
	return s;
}

/* The positionTicks of every node, grouped by node: node i's are
 * t->lt[t->first[i] .. t->first[i + 1]). */
struct ticks {
	uint32_t *first;
	struct pp_line_ticks *lt;
};

static int group_ticks(struct cpu *c, struct ticks *t)
{
	const struct pp_v8 *v = &c->v;
	uint32_t *fill;

	if (!v->nticks)
		return PPROF_OK;
	t->first = calloc((size_t)v->n + 2, sizeof(*t->first));
	t->lt = malloc(v->nticks * sizeof(*t->lt));
	fill = malloc(((size_t)v->n + 1) * sizeof(*fill));
	if (!t->first || !t->lt || !fill) {
		free(fill);
		return pp_nomem(c->p);
	}
	for (size_t k = 0; k < v->nticks; k++)
		t->first[v->ticks[k].node + 1]++;
	for (uint32_t i = 0; i < v->n; i++)
		t->first[i + 1] += t->first[i];
	memcpy(fill, t->first, ((size_t)v->n + 1) * sizeof(*fill));
	for (size_t k = 0; k < v->nticks; k++) {
		const struct pp_v8_tick *x = &v->ticks[k];
		t->lt[fill[x->node]++] = (struct pp_line_ticks){ x->line, x->ticks };
	}
	free(fill);
	return PPROF_OK;
}

/* Node I's values, on the lines where its samples fell when it has
 * positionTicks (lines.h).  A frame outside any script (a native, url "")
 * has no lines to put them on. */
static int add_node(struct cpu *c, struct ticks *t, uint32_t i, const int64_t *vals)
{
	const struct pp_v8_node *d = &c->v.nodes[i];

	if (t->first && t->first[i + 1] > t->first[i] && d->url)
		return pp_add_sample_lines(c->p, d->model, vals, t->lt + t->first[i],
					   t->first[i + 1] - t->first[i], d->offset);
	return pp_add_sample(c->p, d->model, 0, vals, d->offset);
}

/*
 * pprof_read_options.skip_lines: the node's values on its own frame, as
 * pp_add_sample_lines() puts them when no line ticked.  That gives the same
 * sums as the lines' parts, but one entry's sum where the lines had several:
 * taken only when no sum can leave int64 either way (the values of this
 * input together fit; all of them are 0 or more), so that the errors are
 * the same too.
 */
static bool values_fit(const struct cpu *c, const struct acc *acc)
{
	int64_t count = 0, wall = 0;

	for (uint32_t i = 0; i < c->v.n; i++)
		if (acc[i].count < 0 || acc[i].wall < 0 ||
		    __builtin_add_overflow(count, acc[i].count, &count) ||
		    __builtin_add_overflow(wall, acc[i].wall, &wall))
			return false;
	return true;
}

/* The check pp_add_sample_lines() makes of the lines left out: a node's
 * ticks, added up, stay in int64 (their sums made as they were read, -1
 * once past it; in node order, where add_node() says so first). */
static int ticks_fit(struct cpu *c, const struct acc *acc)
{
	const struct pp_v8 *v = &c->v;

	for (uint32_t i = 0; v->ticksum && i < v->n; i++) {
		const struct pp_v8_node *d = &v->nodes[i];

		if (v->ticksum[i] < 0 && d->model != 0 && (acc[i].count || acc[i].wall) && d->url)
			return pp_error_at(c->p, PPROF_EINPUT, d->offset,
					   "the positionTicks of a node leave the 64-bit range");
	}
	return PPROF_OK;
}

static int cpu_read(struct pprof_profile *p, const unsigned char *buf, size_t len,
		    const struct pprof_read_options *o)
{
	struct cpu c;
	struct pp_sample_type types[2];
	struct acc *acc = NULL;
	struct ticks ticks = { NULL, NULL };
	int s, default_type = 1;
	uint32_t i;
	size_t nlines;

	memset(&c, 0, sizeof(c));
	/* the lines are left out only for the first input: later ones add to
	 * entries whose sums could leave int64 as a whole and not in parts */
	c.lines = !(o && o->skip_lines) || p->nentries != 0;
	c.p = p;
	c.buf = buf;
	c.len = len;
	c.max_depth = o ? o->max_depth : 0;
	json_init(&c.j, buf, len, c.max_depth);
	pp_v8_init(&c.v, p, &c.j);
	pp_v8_size_hint(&c.v, len);
	/* without lines, the positionTicks are only checked (ticks_fit()),
	 * and read again when they are wanted after all */
	c.v.sum_ticks = !c.lines;
	ahead_start(&c, o && o->skip_sequence);

	s = top_level(&c);
	if (c.ahead && c.took_samples && c.took_deltas) {
		c.sums = c.ahead->sums;
		memset(&c.ahead->sums, 0, sizeof(c.ahead->sums));
	}
	ahead_free(c.ahead);
	c.ahead = NULL;
	if (s != PPROF_OK)
		goto out;
	if (c.have_nodes && c.have_head) {
		s = pp_error(p, PPROF_EINPUT, "a cpuprofile with both nodes and head");
		goto out;
	}
	if (!c.have_nodes && !c.have_head) {
		s = pp_error(p, PPROF_EINPUT, "not a cpuprofile: no nodes");
		goto out;
	}
	/* the lines are left out only for the first input: later ones add to
	 * entries whose sums could leave int64 as a whole and not in parts */
	nlines = c.lines ? c.v.nticks : 0;
	s = c.built ? c.build_status : build(&c);
	if (s != PPROF_OK)
		goto out;

	/*
	 * Without a samples array there is nothing to time: the counts come
	 * from hitCount, wall is 0 throughout, and samples becomes the default
	 * type so that the profile does not read as empty.
	 */
	if (!c.have_samples)
		default_type = 0;
	if ((s = pp_intern_cstr(p, "samples", &types[0].type)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "count", &types[0].unit)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "wall", &types[1].type)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "nanoseconds", &types[1].unit)) != PPROF_OK ||
	    (s = pp_begin_input(p, types, 2, default_type)) != PPROF_OK)
		goto out;

	/* The samples' ids are not needed when the thread's sums stand for
	 * them: their pages, given back, take ACC's place (memory the process
	 * freed a moment ago costs far less than fresh pages). */
	if (c.have_samples && o && o->skip_sequence)
		c.stands = sums_stand(&c, &c.stand);
	if (c.stands) {
		free(c.sid);
		c.sid = NULL;
	}
	/* written where the samples fall: huge pages once it is big enough */
	acc = pp_big_calloc((size_t)c.v.n + 1, sizeof(*acc));
	if (!acc) {
		s = pp_nomem(p);
		goto out;
	}
	if (c.have_samples) {
		s = samples_to_model(&c, acc, !(o && o->skip_sequence));
		if (s != PPROF_OK)
			goto out;
	} else {
		for (i = 0; i < c.v.n; i++)
			acc[i].count = c.v.nodes[i].hitcount;
	}
	{
		/* A .cpuprofile's clock is monotonic, not a date: no time_nanos. */
		struct pp_sample_type pt = { 0, 0 };

		if (c.period && ((s = pp_intern_cstr(p, "wall", &pt.type)) != PPROF_OK ||
				 (s = pp_intern_cstr(p, "nanoseconds", &pt.unit)) != PPROF_OK))
			goto out;
		pp_input_times(p, 0, c.duration, pt, c.period);
	}
	if (!c.lines && !values_fit(&c, acc)) {
		c.lines = true;
		if ((s = pp_v8_reread_ticks(&c.v, buf, len, c.max_depth)) != PPROF_OK)
			goto out;
		nlines = c.v.nticks;
	}
	s = c.lines ? group_ticks(&c, &ticks) : ticks_fit(&c, acc);
	if (s != PPROF_OK)
		goto out;
	{
		/* at most an entry per node, and a frame, a node and an entry
		 * per line of positionTicks */
		uint64_t used = 0;

		for (i = 0; i < c.v.n; i++)
			used += c.v.nodes[i].model != 0 && (acc[i].count || acc[i].wall);
		if (used + nlines < UINT32_MAX / 2 &&
		    (s = pp_reserve(p, (uint32_t)nlines, (uint32_t)nlines,
				    (uint32_t)(used + nlines))) != PPROF_OK)
			goto out;
	}
	/* A sample at the (root) node itself has an empty stack: left out of
	 * the tree (it stays in the time sequence). */
	for (i = 0; i < c.v.n; i++) {
		int64_t vals[2] = { acc[i].count, acc[i].wall };

		if (c.v.nodes[i].model == 0 || (vals[0] == 0 && vals[1] == 0))
			continue;
		s = add_node(&c, &ticks, i, vals);
		if (s != PPROF_OK)
			goto out;
	}
	s = PPROF_OK;
out:
	ahead_free(c.ahead);
	sums_free(&c.sums);
	free(ticks.first);
	free(ticks.lt);
	pp_big_free(acc, (size_t)c.v.n + 1, sizeof(*acc));
	free(c.sid);
	free(c.samples);
	free(c.deltas);
	free(c.stamps);
	pp_v8_release(&c.v);
	json_release(&c.j);
	return s;
}

static int cpu_bid(const unsigned char *buf, size_t len)
{
	unsigned k = pp_v8_sniff(buf, len);

	if (!(k & PP_V8_OBJECT))
		return 0;
	if (k & PP_V8_CPU)
		return k & PP_V8_HEAP ? 40 : 60;
	/* A V8-looking object without the telling keys (in the first 64
	 * KiB): the heap reader bids a little higher. */
	if (k & PP_V8_ANY)
		return 25;
	return 0;
}

const struct pp_reader pp_reader_cpuprofile = {
	.format = PPROF_FMT_CPUPROFILE,
	.name = "cpuprofile",
	.bid = cpu_bid,
	.read = cpu_read,
};
