/* read.c: the one door for bytes.  It owns the table of readers and the
 * whole decoding of an input: gzip members inflated under DESIGN's bound
 * (judged as the output grows), UTF-16 text with a byte order mark made
 * UTF-8, then the bids on the decoded bytes, never a file name.  A reader
 * gets the decoded input whole (`read`) or as a stream of chunks
 * (`read_stream`); see read_private.h.
 *
 * gzip is inflated member by member.  A member that cannot take the output
 * past the bound (the bound where it starts, since the bound only grows with
 * the compressed bytes read) is inflated by libdeflate in one call, about
 * three times zlib's speed; any other member, or anything libdeflate does
 * not inflate cleanly, goes to zlib, one MiB of output at a time, the bound
 * judged after each: a bomb is refused after at most 64 MiB of output, at
 * the byte where it was judged.  Both give the same bytes and the same
 * verdict, since zlib is called the same way on both paths. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>

#include "json.h"
#include "model_private.h"
#include "read_private.h"

/* The one table of readers: a new reader is one line here. */
static const struct pp_reader *const readers[] = {
	&pp_reader_pprof,
	&pp_reader_cpuprofile,
	&pp_reader_heapprofile,
	&pp_reader_heapsnapshot,
	&pp_reader_folded,
	&pp_reader_trace,
};
#define NREADERS (sizeof(readers) / sizeof(readers[0]))

#define DEFAULT_MAX_INPUT ((uint64_t)4 << 30)
#define RATIO_FLOOR ((uint64_t)64 << 20)
#define RATIO_MAX 100
/* zlib is called for at most this much output: the bound is judged after
 * each call, at the multiples of STEP (and at each member's end). */
#define STEP ((size_t)1 << 20)
/* zlib's counters are 32 bits wide: at most this much input per call. */
#define ZIN_MAX ((size_t)1 << 30)

#define UNRECOGNIZED "unrecognized profile format (not pprof, V8 JSON or folded stacks)"

bool pp_is_gzip(const unsigned char *buf, size_t len)
{
	return len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;
}

bool pp_is_utf16(const unsigned char *b, size_t len)
{
	return len >= 2 && ((b[0] == 0xff && b[1] == 0xfe) || (b[0] == 0xfe && b[1] == 0xff));
}

size_t pp_utf8_bom(const unsigned char *b, size_t len)
{
	return len >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0;
}

void pp_hold_release(struct pp_hold *h)
{
	if (h->ptr && h->mapped)
		munmap(h->ptr, h->len);
	else
		free(h->ptr);
	h->ptr = NULL;
}

/* ---- the bound ---- */

struct bound {
	uint64_t max;
	bool ratio; /* the ratio rule applies (the cap was not raised) */
};

static struct bound bound_of(const struct pprof_read_options *o)
{
	struct bound b = {DEFAULT_MAX_INPUT, true};
	if (o && o->max_input) {
		b.max = o->max_input;
		b.ratio = o->max_input <= DEFAULT_MAX_INPUT;
	}
	return b;
}

/* The most output allowed once IN compressed bytes were read. */
static uint64_t bound_at(const struct bound *b, uint64_t in)
{
	if (!b->ratio)
		return b->max;
	uint64_t r = in < UINT64_MAX / RATIO_MAX ? in * RATIO_MAX : UINT64_MAX;
	if (r < RATIO_FLOOR)
		r = RATIO_FLOOR;
	return r < b->max ? r : b->max;
}

static int bomb(struct pprof_profile *p, uint64_t out, uint64_t limit)
{
	return pp_error_at(p, PPROF_ENOMEM, out,
			   "gzip input inflates past the limit (%llu MiB; raise it with --max-input)",
			   (unsigned long long)(limit >> 20));
}

/* ---- zlib, member after member, over compressed bytes in memory ---- */

struct zin {
	z_stream z;
	bool init, open; /* zlib set up; inside a member */
	bool prefix;     /* IN is the start of a longer input: its end is no error */
	const unsigned char *in;
	size_t inlen, pos; /* compressed bytes, and how many were read */
	uint64_t out;      /* bytes made */
	struct bound b;
	const struct pprof_read_options *o;
};

enum { Z_MADE, Z_DONE }; /* zstep(): *MADE bytes (maybe 0), or the input is over */

/* One call of inflate() into DST (at least STEP - out % STEP bytes of room):
 * Z_MADE with *MADE, Z_DONE at the end of the input, or -status (error set
 * on P). */
static int zstep(struct pprof_profile *p, struct zin *z, unsigned char *dst, size_t *made)
{
	*made = 0;
	if (!z->open) {
		if (z->pos == z->inlen)
			return Z_DONE;
		if (z->prefix && z->inlen - z->pos == 1 && z->in[z->pos] == 0x1f)
			return Z_DONE; /* the next member may follow */
		/* (the first member is zlib's to judge) */
		if (z->pos > 0 && !pp_is_gzip(z->in + z->pos, z->inlen - z->pos))
			return -pp_error_at(p, PPROF_EINPUT, z->out, "trailing garbage after gzip stream");
		if (!z->init) {
			memset(&z->z, 0, sizeof(z->z));
			if (inflateInit2(&z->z, 16 + MAX_WBITS) != Z_OK)
				return -pp_nomem(p);
			z->init = true;
		} else {
			inflateReset(&z->z);
		}
		z->open = true;
	}
	size_t room = STEP - (size_t)(z->out % STEP);
	size_t chunk_in = z->inlen - z->pos > ZIN_MAX ? ZIN_MAX : z->inlen - z->pos;
	z->z.next_in = (unsigned char *)z->in + z->pos;
	z->z.avail_in = (uInt)chunk_in;
	z->z.next_out = dst;
	z->z.avail_out = (uInt)room;
	int r = inflate(&z->z, Z_NO_FLUSH);
	z->pos += chunk_in - z->z.avail_in;
	*made = room - z->z.avail_out;
	z->out += *made;
	if (z->o && z->o->progress)
		z->o->progress(z->o->progress_ctx, z->pos, z->prefix ? 0 : z->inlen);
	uint64_t limit = bound_at(&z->b, z->pos);
	if (z->out > limit)
		return -bomb(p, z->out, limit);
	if (r == Z_STREAM_END) {
		z->open = false;
		return Z_MADE;
	}
	if (r == Z_OK || (r == Z_BUF_ERROR && z->z.avail_out == 0))
		return Z_MADE;
	if (r == Z_BUF_ERROR) {
		if (z->prefix)
			return Z_DONE;
		return -pp_error_at(p, PPROF_EINPUT, z->out, "truncated gzip stream");
	}
	return -pp_error_at(p, PPROF_EINPUT, z->out, "bad gzip data: %s",
			    z->z.msg ? z->z.msg : "inflate failed");
}

static void zin_init(struct zin *z, const unsigned char *in, size_t len,
		     const struct pprof_read_options *o, bool prefix)
{
	memset(z, 0, sizeof(*z));
	z->in = in;
	z->inlen = len;
	z->b = bound_of(o);
	z->o = o;
	z->prefix = prefix;
}

static void zin_end(struct zin *z)
{
	if (z->init)
		inflateEnd(&z->z);
	z->init = false;
}

/* ---- the whole input at once ---- */

static bool reserve(unsigned char **b, size_t *cap, size_t need)
{
	if (need <= *cap)
		return true;
	size_t n = *cap ? *cap : 4096;
	while (n < need)
		n = n > SIZE_MAX / 2 ? need : n * 2;
	/* the first block (most often the only one: a gzip member says
	 * its size) from a 2 MiB boundary */
	unsigned char *nb;
	if (!*b)
		nb = pp_huge_alloc(&n);
	else if ((nb = realloc(*b, n)) != NULL)
		pp_advise_huge(nb, n);
	if (!nb)
		return false;
	*b = nb;
	*cap = n;
	return true;
}

/* The member at z->pos by libdeflate, when it fits within ROOM: true with
 * the member appended to *B; false to leave it to zlib (nothing changed
 * but the buffer's size; false with *NOMEM when out of memory). */
static bool member_fast(struct zin *z, struct libdeflate_decompressor *d, unsigned char **b,
			size_t *cap, uint64_t room, bool *nomem)
{
	const unsigned char *in = z->in + z->pos;
	size_t inlen = z->inlen - z->pos;
	/* libdeflate skips a header CRC without checking it */
	if (!d || inlen < 18 || (in[3] & 0x02) || room == 0)
		return false;
	/* A first guess: the size the last member's trailer gives (exact for
	 * one member; a lie only costs a retry). */
	uint64_t guess = (uint64_t)in[inlen - 4] | (uint64_t)in[inlen - 3] << 8 |
			 (uint64_t)in[inlen - 2] << 16 | (uint64_t)in[inlen - 1] << 24;
	if (guess < 4096)
		guess = 4096;
	for (;;) {
		uint64_t want = guess < room ? guess : room;
		if (want > SIZE_MAX - (size_t)z->out || !reserve(b, cap, (size_t)(z->out + want))) {
			*nomem = true;
			return false;
		}
		size_t avail = *cap - (size_t)z->out;
		if (avail > room)
			avail = (size_t)room;
		size_t used = 0, made = 0;
		/* libdeflate writes fresh pages: made ahead of it on the other
		 * core, as far as the size the member says it has */
		void *at = *b + z->out;
		size_t ahead = avail < want ? avail : (size_t)want;
		struct pp_populate *pg = pp_populate_start(&at, &ahead, 1);
		enum libdeflate_result r = libdeflate_gzip_decompress_ex(
			d, in, inlen, *b + z->out, avail, &used, &made);
		pp_populate_end(pg);
		if (r == LIBDEFLATE_SUCCESS) {
			z->pos += used;
			z->out += made;
			return true;
		}
		if (r != LIBDEFLATE_INSUFFICIENT_SPACE || avail >= room)
			return false;
		guess = (uint64_t)avail * 2;
	}
}

/* ---- zlib's verdict on a member libdeflate inflated ----
 *
 * A member whose output passes the bound where it starts may still be
 * within the bound all along (the bound grows with the compressed bytes
 * read): only zlib, called as zstep() calls it, tells where a stream
 * passes it.  Such a member is inflated by libdeflate all the same, and
 * zlib runs over it on a thread of its own, its output thrown away, while
 * the reader goes on with libdeflate's bytes; the read waits for the
 * verdict before it says anything (verdict_join()).  zlib's error, if it
 * finds one, is the read's, as when zlib inflated the member alone.  The
 * guess is bounded (SPECULATE_*), so that a bomb costs no more memory
 * than before.
 *
 * zlib stops as soon as the bound where it is reaches the member's end as
 * libdeflate made it: the bound only grows with the bytes read, so no
 * later judgement could fail.  On a profile a few times smaller gzipped,
 * that is its first MiB or so, not the whole member: the second core is
 * then free for the walk rather than inflating the input a second time. */

/* Output libdeflate may make before zlib's verdict: the largest of the
 * bound where the member starts, SPECULATE_MIN, and SPECULATE_RATIO times
 * the compressed bytes left (never past the bound at the input's end). */
#define SPECULATE_MIN ((uint64_t)256 << 20)
#define SPECULATE_RATIO 16

struct zverdict {
	pthread_t th;
	struct zin z;              /* at the member's start; zlib runs on */
	uint64_t end;              /* the output at its end, as libdeflate made it */
	struct pprof_profile sink; /* its error, if any (error only) */
	int status;
	struct pp_hold hold; /* the compressed input (mapped), let go once joined */
};

/* Compressed bytes of a mapped input given back behind zlib this often. */
#define VERDICT_RELEASE ((size_t)4 << 20)

static void *verdict_run(void *arg)
{
	struct zverdict *v = arg;
	unsigned char *scratch = malloc(STEP);
	if (!scratch) {
		v->status = pp_nomem(&v->sink);
		return NULL;
	}
	uintptr_t given = 0;
	size_t next = v->z.pos + VERDICT_RELEASE;
	v->status = PPROF_OK;
	do {
		size_t made;
		int r = zstep(&v->sink, &v->z, scratch, &made);
		if (r < 0) {
			v->status = -r;
			break;
		}
		if (r == Z_DONE || bound_at(&v->z.b, v->z.pos) >= v->end)
			break;
		if (v->hold.mapped && v->z.pos >= next) {
			pp_give_back(v->z.in, v->z.pos, &given);
			next = v->z.pos + VERDICT_RELEASE;
		}
	} while (v->z.open);
	zin_end(&v->z);
	free(scratch);
	/* the reader may still be reading it (later members): only given
	 * back to the page cache; unmapped once joined */
	if (v->hold.ptr)
		(void)madvise(v->hold.ptr, v->hold.len, MADV_DONTNEED);
	return NULL;
}

/* Waits for V's verdict (NULL: none) and frees it: PPROF_OK, or zlib's
 * error, set on P. */
static int verdict_join(struct pprof_profile *p, struct zverdict *v)
{
	if (!v)
		return PPROF_OK;
	pthread_join(v->th, NULL);
	pp_hold_release(&v->hold);
	int s = v->status;
	if (s != PPROF_OK)
		pp_error(p, s, "%s", v->sink.error.s);
	pp_buf_release(&v->sink.error);
	free(v);
	return s;
}

/* Starts zlib's verdict on the member that Z (before it) begins, which
 * libdeflate made up to output END; HOLD (or NULL) is IN's buffer, which
 * the verdict then owns when it is mapped (a buffer of the heap can't be
 * given back a piece at a time: no verdict is left pending on it).  NULL
 * when no thread could start: the caller asks zlib itself. */
static struct zverdict *verdict_start(const struct zin *z, uint64_t end, struct pp_hold *hold)
{
	if (hold && hold->ptr && !hold->mapped)
		return NULL;
	struct zverdict *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->z = *z;
	v->end = end;
	v->z.init = false; /* a zlib state of its own */
	v->z.o = NULL;     /* no progress from the thread (none is shown here) */
	pp_buf_init(&v->sink.error);
	if (hold && hold->ptr) {
		v->hold = *hold;
		/* zlib reads it again from the page cache, and gives it back
		 * behind itself */
		if (v->hold.mapped)
			(void)madvise(v->hold.ptr, v->hold.len, MADV_DONTNEED);
	}
	if (pthread_create(&v->th, NULL, verdict_run, v) != 0) {
		pp_buf_release(&v->sink.error);
		free(v);
		return NULL;
	}
	if (hold)
		hold->ptr = NULL;
	return v;
}

/* pp_gunzip(); with PENDING, a member past the bound where it starts may
 * be left to zlib's verdict on a thread (*PENDING, for verdict_join()),
 * HOLD then given to it. */
static int gunzip(struct pprof_profile *p, const unsigned char *in, size_t inlen,
		  const struct pprof_read_options *o, unsigned char **out, size_t *outlen,
		  struct zverdict **pending, struct pp_hold *hold)
{
	struct zin z;
	zin_init(&z, in, inlen, o, false);
	/* Someone shows the progress: zlib alone, which can report it. */
	struct libdeflate_decompressor *d =
		o && o->progress ? NULL : libdeflate_alloc_decompressor();
	unsigned char *b = NULL;
	size_t cap = 0;
	int status = PPROF_OK;
	for (;;) {
		if (!z.open && z.pos < z.inlen && pp_is_gzip(in + z.pos, inlen - z.pos)) {
			uint64_t limit = bound_at(&z.b, z.pos);
			/* Past the bound where it starts, a member may still be
			 * inflated by libdeflate, up to SPEC, with zlib's
			 * verdict on a thread. */
			uint64_t most = bound_at(&z.b, z.inlen), spec = limit;
			if (spec < SPECULATE_MIN)
				spec = SPECULATE_MIN;
			if ((z.inlen - z.pos) <= UINT64_MAX / SPECULATE_RATIO &&
			    spec < (uint64_t)(z.inlen - z.pos) * SPECULATE_RATIO)
				spec = (uint64_t)(z.inlen - z.pos) * SPECULATE_RATIO;
			if (spec > most)
				spec = most;
			if (!pending || *pending || spec < limit ||
			    (hold && hold->ptr && !hold->mapped))
				spec = limit;
			struct zin before = z;
			bool nomem = false;
			if (member_fast(&z, d, &b, &cap, spec > z.out ? spec - z.out : 0, &nomem)) {
				if (z.out <= limit)
					continue;
				if ((*pending = verdict_start(&before, z.out, hold)) != NULL)
					continue;
				z = before; /* no thread: zlib here, as before */
			}
			if (nomem) {
				status = pp_nomem(p);
				break;
			}
		}
		if (!reserve(&b, &cap, (size_t)z.out + STEP)) {
			status = pp_nomem(p);
			break;
		}
		size_t made;
		int r = zstep(p, &z, b + z.out, &made);
		if (r < 0) {
			status = -r;
			break;
		}
		if (r == Z_DONE)
			break;
	}
	zin_end(&z);
	libdeflate_free_decompressor(d);
	if (status != PPROF_OK) {
		free(b);
		*out = NULL;
		return status;
	}
	if (o && o->progress)
		o->progress(o->progress_ctx, inlen, inlen);
	*out = b;
	*outlen = (size_t)z.out;
	return PPROF_OK;
}

int pp_gunzip(struct pprof_profile *p, const unsigned char *in, size_t inlen,
	      const struct pprof_read_options *o, unsigned char **out, size_t *outlen)
{
	/* the verdict, when one is asked, runs beside libdeflate's output
	 * being handed back; it is waited for here */
	struct zverdict *v = NULL;
	int s = gunzip(p, in, inlen, o, out, outlen, &v, NULL);
	int sv = verdict_join(p, v);
	if (sv != PPROF_OK) { /* the earlier in the stream */
		if (s == PPROF_OK)
			free(*out);
		*out = NULL;
		s = sv;
	}
	return s;
}

/* ---- UTF-16 ---- */

/* UTF-16 units to UTF-8, a piece at a time: a unit cut in two or a high
 * surrogate at the end of a piece waits for the next. */
struct u16 {
	bool be;
	uint64_t off;     /* bytes of UTF-16 taken in, the mark included */
	int half;         /* the first byte of a cut unit, or -1 */
	uint32_t hi;      /* a high surrogate waiting for its low half, or 0 */
	uint64_t hioff;   /* its offset */
};

static void put_utf8(unsigned char *o, size_t *n, uint32_t c)
{
	size_t k = *n;
	if (c < 0x80) {
		o[k++] = (unsigned char)c;
	} else if (c < 0x800) {
		o[k++] = (unsigned char)(0xc0 | c >> 6);
		o[k++] = (unsigned char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		o[k++] = (unsigned char)(0xe0 | c >> 12);
		o[k++] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		o[k++] = (unsigned char)(0x80 | (c & 0x3f));
	} else {
		o[k++] = (unsigned char)(0xf0 | c >> 18);
		o[k++] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
		o[k++] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		o[k++] = (unsigned char)(0x80 | (c & 0x3f));
	}
	*n = k;
}

/* The most UTF-8 that N more bytes of UTF-16 can make. */
static size_t u16_room(size_t n)
{
	return (n / 2 + 2) * 3 + 4;
}

/* IN[0 .. N) (the mark already skipped by the caller, counted in u->off)
 * into OUT (u16_room(n) bytes), *OUTLEN made; END: no more input follows
 * (PREFIX: the input stops here but is longer). */
static int u16_step(struct pprof_profile *p, struct u16 *u, const unsigned char *in, size_t n,
		    unsigned char *out, size_t *outlen, bool end, bool prefix)
{
	size_t k = 0, i = 0;
	for (;;) {
		unsigned a, b;
		uint64_t at;
		if (u->half >= 0) {
			if (i == n)
				break;
			a = (unsigned)u->half;
			b = in[i++];
			u->half = -1;
			at = u->off - 1;
			u->off++;
		} else {
			if (i == n)
				break;
			if (n - i == 1) {
				u->half = in[i++];
				u->off++;
				break;
			}
			a = in[i];
			b = in[i + 1];
			i += 2;
			at = u->off;
			u->off += 2;
		}
		uint32_t c = u->be ? (uint32_t)(a << 8 | b) : (uint32_t)(b << 8 | a);
		if (u->hi) {
			if (c >= 0xdc00 && c < 0xe000) {
				put_utf8(out, &k, 0x10000 + ((u->hi - 0xd800) << 10) + (c - 0xdc00));
				u->hi = 0;
				continue;
			}
			return pp_error_at(p, PPROF_EINPUT, u->hioff, "invalid UTF-16 surrogate");
		}
		if (c >= 0xd800 && c < 0xdc00) {
			u->hi = c;
			u->hioff = at;
			continue;
		}
		if (c >= 0xdc00 && c < 0xe000)
			return pp_error_at(p, PPROF_EINPUT, at, "invalid UTF-16 surrogate");
		put_utf8(out, &k, c);
	}
	*outlen = k;
	if (end && !prefix) {
		if (u->half >= 0)
			return pp_error_at(p, PPROF_EINPUT, u->off - 1,
					   "UTF-16 text with an odd number of bytes");
		if (u->hi)
			return pp_error_at(p, PPROF_EINPUT, u->hioff, "invalid UTF-16 surrogate");
	}
	return PPROF_OK;
}

int pp_utf16_to_utf8(struct pprof_profile *p, const unsigned char *in, size_t len,
		     unsigned char **out, size_t *outlen)
{
	/* An odd length is said at its last byte, after any error before it,
	 * as the stream says it (u16_step). */
	unsigned char *o = malloc(u16_room(len));
	if (!o)
		return pp_nomem(p);
	struct u16 u = {in[0] == 0xfe, 2, -1, 0, 0};
	int s = u16_step(p, &u, in + 2, len - 2, o, outlen, true, false);
	if (s != PPROF_OK) {
		free(o);
		return s;
	}
	*out = o;
	return PPROF_OK;
}

/* ---- decoding whole ---- */

/* IN decoded: gzip inflated (at most LEVELS times, nested), then UTF-16.
 * *OUT is IN, or a buffer held in *HELD. */
static int decode(struct pprof_profile *p, const unsigned char *in, size_t len,
		  const struct pprof_read_options *o, int levels, const unsigned char **out,
		  size_t *outlen, struct pp_hold *held, struct zverdict **pending,
		  struct pp_hold *outer)
{
	*held = (struct pp_hold){NULL, 0, false};
	for (int l = 0; l < levels && pp_is_gzip(in, len); l++) {
		unsigned char *b;
		size_t n;
		/* the first level's verdict may be left pending (its input
		 * stays the caller's, or OUTER goes with it); a nested level's
		 * input is HELD, let go below: waited for */
		struct zverdict *v = NULL;
		int s = gunzip(p, in, len, o, &b, &n, &v, l == 0 ? outer : NULL);
		if (l == 0 && pending) {
			*pending = v;
		} else {
			int sv = verdict_join(p, v);
			if (sv != PPROF_OK) {
				if (s == PPROF_OK)
					free(b);
				s = sv;
			}
		}
		if (s != PPROF_OK) {
			pp_hold_release(held);
			return s;
		}
		pp_hold_release(held);
		*held = (struct pp_hold){b, n, false};
		in = b;
		len = n;
	}
	if (pp_is_utf16(in, len)) {
		unsigned char *b;
		size_t n;
		int s = pp_utf16_to_utf8(p, in, len, &b, &n);
		pp_hold_release(held);
		if (s != PPROF_OK)
			return s;
		*held = (struct pp_hold){b, n, false};
		in = b;
		len = n;
	}
	*out = in;
	*outlen = len;
	return PPROF_OK;
}

int pp_decode(struct pprof_profile *p, const unsigned char *in, size_t len,
	      const struct pprof_read_options *o, const unsigned char **out, size_t *outlen,
	      struct pp_hold *held)
{
	return decode(p, in, len, o, 1, out, outlen, held, NULL, NULL);
}

/* ---- the stream ---- */

struct pp_stream {
	struct pprof_profile *p;
	const unsigned char *in;
	size_t inlen, inpos; /* plain input: how much was handed on */
	bool gz, prefix, started;
	struct zin z;
	unsigned char *zbuf; /* one step of zlib's output */
	size_t zlen;
	int text;            /* 0 undecided, 1 as it is, 2 UTF-16 */
	struct u16 u;
	unsigned char *ubuf; /* UTF-8 of the last piece of UTF-16 */
	bool eof;
	int status;
	uint64_t off; /* decoded bytes handed out */
	/* replayed before anything else (the bids' look at the start) */
	unsigned char *replay;
	size_t nreplay;
};

/* DECODE false: IN is handed on as it is (it was decoded already). */
static struct pp_stream *stream_open(struct pprof_profile *p, const unsigned char *in, size_t len,
				     const struct pprof_read_options *o, bool decode);

struct pp_stream *pp_stream_open(struct pprof_profile *p, const unsigned char *in, size_t len,
				 const struct pprof_read_options *o)
{
	return stream_open(p, in, len, o, true);
}

static struct pp_stream *stream_open(struct pprof_profile *p, const unsigned char *in, size_t len,
				     const struct pprof_read_options *o, bool decode)
{
	struct pp_stream *s = calloc(1, sizeof(*s));
	if (!s) {
		pp_nomem(p);
		return NULL;
	}
	s->p = p;
	s->in = in;
	s->inlen = len;
	s->gz = decode && pp_is_gzip(in, len);
	zin_init(&s->z, in, len, o, false);
	if (s->gz && !(s->zbuf = malloc(STEP))) {
		free(s);
		pp_nomem(p);
		return NULL;
	}
	if (!s->gz) {
		s->text = decode && pp_is_utf16(in, len) ? 2 : 1;
		if (s->text == 2) {
			s->u = (struct u16){in[0] == 0xfe, 2, -1, 0, 0};
			s->inpos = 2;
		}
	}
	return s;
}

void pp_stream_free(struct pp_stream *s)
{
	if (!s)
		return;
	zin_end(&s->z);
	free(s->zbuf);
	free(s->ubuf);
	free(s->replay);
	free(s);
}

uint64_t pp_stream_offset(const struct pp_stream *s)
{
	return s->off;
}

int pp_stream_status(const struct pp_stream *s)
{
	return s->status;
}

struct pp_stream *pp_stream_again(const struct pp_stream *s, const struct pprof_read_options *o)
{
	return stream_open(s->p, s->in, s->inlen, o, s->gz || s->text == 2);
}

const unsigned char *pp_stream_plain(const struct pp_stream *s, size_t *len)
{
	if (s->gz || s->text != 1 || s->inpos || s->off || s->nreplay)
		return NULL;
	*len = s->inlen;
	return s->in;
}

/* The next piece below the UTF-16 step: gzip's output (AT_LEAST bytes
 * unless it ends first), or the plain input (whole, or in pieces of STEP
 * when it is UTF-16).  *N 0 at the end. */
static int raw_next(struct pp_stream *s, const unsigned char **b, size_t *n, size_t at_least)
{
	if (!s->gz) {
		size_t left = s->inlen - s->inpos;
		if (s->text == 2 && left > STEP)
			left = STEP;
		*b = s->in + s->inpos;
		*n = left;
		s->inpos += left;
		return PPROF_OK;
	}
	/* AT_LEAST is 2 only for the first piece, where all of the output
	 * is in zbuf: the room zstep() wants is there. */
	s->zlen = 0;
	for (;;) {
		size_t made;
		int r = zstep(s->p, &s->z, s->zbuf + s->zlen, &made);
		if (r < 0)
			return -r;
		s->zlen += made;
		if (r == Z_DONE || s->zlen >= at_least)
			break;
	}
	*b = s->zbuf;
	*n = s->zlen;
	return PPROF_OK;
}

int pp_stream_next(struct pp_stream *s, const unsigned char **buf, size_t *len)
{
	*buf = (const unsigned char *)"";
	*len = 0;
	if (s->status != PPROF_OK)
		return s->status;
	if (s->nreplay) {
		*buf = s->replay;
		*len = s->nreplay;
		s->nreplay = 0;
		s->off += *len;
		return PPROF_OK;
	}
	if (s->eof)
		return PPROF_OK;
	const unsigned char *b;
	size_t n;
	/* The first piece: two bytes at least, for the byte order mark. */
	int st = raw_next(s, &b, &n, s->text ? 1 : 2);
	if (st != PPROF_OK)
		return s->status = st;
	if (!s->text) {
		s->text = pp_is_utf16(b, n) ? 2 : 1;
		if (s->text == 2) {
			s->u = (struct u16){b[0] == 0xfe, 2, -1, 0, 0};
			b += 2;
			n -= 2;
		}
	}
	if (s->text == 1) {
		if (n == 0)
			s->eof = true;
		*buf = b;
		*len = n;
		s->off += n;
		return PPROF_OK;
	}
	/* UTF-16: pieces until one makes some UTF-8, or the end */
	for (;;) {
		unsigned char *u = realloc(s->ubuf, u16_room(n));
		if (!u)
			return s->status = pp_nomem(s->p);
		s->ubuf = u;
		size_t k;
		st = u16_step(s->p, &s->u, b, n, u, &k, n == 0, false);
		if (st != PPROF_OK)
			return s->status = st;
		if (n == 0)
			s->eof = true;
		if (k || n == 0) {
			*buf = u;
			*len = k;
			s->off += k;
			return PPROF_OK;
		}
		if ((st = raw_next(s, &b, &n, 1)) != PPROF_OK)
			return s->status = st;
	}
}

bool pp_stream_json_more(void *ctx, const void **buf, size_t *len)
{
	const unsigned char *b;
	int s = pp_stream_next(ctx, &b, len);
	*buf = b;
	return s == PPROF_OK;
}

/* The first PP_BID_PREFIX bytes (or all) of S, kept to be handed out again
 * by pp_stream_next(): *B, *N. */
static int stream_peek(struct pp_stream *s, size_t want, const unsigned char **b, size_t *n)
{
	size_t have = 0, cap = 0;
	unsigned char *r = NULL;
	for (;;) {
		const unsigned char *c;
		size_t k;
		int st = pp_stream_next(s, &c, &k);
		if (st != PPROF_OK) {
			free(r);
			return st;
		}
		if (k == 0)
			break;
		if (!reserve(&r, &cap, have + k)) {
			free(r);
			return s->status = pp_nomem(s->p);
		}
		memcpy(r + have, c, k);
		have += k;
		if (have >= want)
			break;
	}
	s->replay = r;
	s->nreplay = have;
	s->off = 0;
	*b = r ? r : (const unsigned char *)"";
	*n = have;
	return PPROF_OK;
}

/* ---- the bids ---- */

static const struct pp_reader *best_of(const struct pp_reader *const *table, size_t nt,
				       const unsigned char *b, size_t len, int *bid)
{
	const struct pp_reader *best = NULL;
	int bestbid = 0;
	for (size_t i = 0; i < nt; i++) {
		int v = table[i]->bid(b, len);
		if (v > bestbid) {
			bestbid = v;
			best = table[i];
		}
	}
	if (bid)
		*bid = bestbid;
	return best;
}

const struct pp_reader *pp_best_reader(const unsigned char *b, size_t len, int *bid)
{
	return best_of(readers, NREADERS, b, len, bid);
}

/* R reads the stream over IN. */
/* ---- the folded header (pprof-fold --header) ---- */

/* The first line of folded text when it is PPROF_FOLDED_HEADER's, kept
 * before the reader consumes it. */
struct folded_header {
	char type[128], unit[128];
	bool set;
};

static void header_grab(struct folded_header *h, const struct pp_reader *r,
			const unsigned char *b, size_t n)
{
	h->set = false;
	size_t pl = sizeof(PPROF_FOLDED_HEADER) - 1;
	if (!r || r->format != PPROF_FMT_FOLDED || n < pl || memcmp(b, PPROF_FOLDED_HEADER, pl) != 0)
		return;
	const unsigned char *nl = memchr(b, '\n', n);
	size_t e = nl ? (size_t)(nl - b) : n;
	if (e > pl && b[e - 1] == '\r')
		e--;
	const unsigned char *v = b + pl;
	size_t vn = e - pl, slash = vn;
	for (size_t i = 0; i < vn; i++)
		if (v[i] == '/')
			slash = i;
	if (slash == 0 || slash >= vn - 1 || slash >= sizeof(h->type) || vn - slash > sizeof(h->unit))
		return;
	memcpy(h->type, v, slash);
	h->type[slash] = '\0';
	memcpy(h->unit, v + slash + 1, vn - slash - 1);
	h->unit[vn - slash - 1] = '\0';
	h->set = true;
}

/* Before a folded read: the types as the folded reader declares them, so
 * that a second folded input matches them. */
static void header_prepare(struct pprof_profile *p, const struct pp_reader *r)
{
	if (!p->hdr || !r || r->format != PPROF_FMT_FOLDED)
		return;
	for (uint32_t i = 0; i < p->ntypes && i < 2; i++)
		p->types[i] = p->hdr_orig[i];
}

/* After it: the header's type and unit for the folded lines'
 * "samples/count", or its unit for a differential file's "before" and
 * "after"; an input without a header takes the one read before it. */
static int header_apply(struct pprof_profile *p, const struct folded_header *h, int status)
{
	if (status != PPROF_OK || p->format != PPROF_FMT_FOLDED || (!h->set && !p->hdr))
		return status;
	if (h->set) {
		uint32_t type, unit;
		if ((status = pp_intern_cstr(p, h->type, &type)) ||
		    (status = pp_intern_cstr(p, h->unit, &unit)))
			return status;
		if (p->hdr && (type != p->hdr_type || unit != p->hdr_unit))
			return pp_error(p, PPROF_EINPUT,
					"incompatible sample types: %s/%s is not in the first input",
					h->type, h->unit);
		p->hdr_type = type;
		p->hdr_unit = unit;
	}
	if (!p->hdr)
		for (uint32_t i = 0; i < p->ntypes && i < 2; i++)
			p->hdr_orig[i] = p->types[i];
	p->hdr = true;
	if (p->ntypes == 1)
		p->types[0].type = p->hdr_type;
	for (uint32_t i = 0; i < p->ntypes; i++)
		p->types[i].unit = p->hdr_unit;
	return PPROF_OK;
}

static int read_stream(struct pprof_profile *p, const struct pp_reader *r,
		       struct pp_stream *s, const struct pprof_read_options *o)
{
	p->format = r->format;
	return r->read_stream(p, s, o);
}

/* A stream reader of TABLE on the stream over IN: true when one took it
 * (its status in *STATUS), false when the whole input is to be decoded. */
static bool try_stream(struct pprof_profile *p, const struct pp_reader *const *table, size_t nt,
		       const unsigned char *in, size_t len, const struct pprof_read_options *o,
		       struct pp_hold *outer, int *status)
{
	bool plain = !pp_is_gzip(in, len) && !pp_is_utf16(in, len);
	const struct pp_reader *r = NULL;
	/* plain input is looked at whole, as by the other readers; it is in
	 * memory already, so a reader that also reads whole (READ) gets it
	 * whole, as the buffer it may let go of behind it (p->hold) */
	if (plain && (!(r = best_of(table, nt, in, len, NULL)) || !r->read_stream || r->read))
		return false;
	struct pp_stream *s = pp_stream_open(p, in, len, o);
	if (!s) {
		*status = PPROF_ENOMEM;
		return true;
	}
	bool took = true;
	struct folded_header h;
	/* IN is the reader's to let go once it has read the stream */
	p->hold = outer;
	if (plain) {
		header_grab(&h, r, in, len);
		header_prepare(p, r);
		*status = header_apply(p, &h, read_stream(p, r, s, o));
	} else {
		const unsigned char *b = NULL;
		size_t n = 0;
		*status = stream_peek(s, PP_BID_PREFIX, &b, &n);
		if (*status == PPROF_OK) {
			r = n > 0 && !pp_is_gzip(b, n) ? best_of(table, nt, b, n, NULL) : NULL;
			header_grab(&h, r, b, n);
			header_prepare(p, r);
			if (r && r->read_stream)
				*status = header_apply(p, &h, read_stream(p, r, s, o));
			else
				took = false;
		}
	}
	p->hold = NULL;
	pp_stream_free(s);
	return took;
}

/* IN read by the best reader of TABLE, decoded first (LEVELS of gzip).
 * OUTER: IN as a buffer the reader may keep, or NULL (the caller's); it is
 * let go as soon as IN was decoded into another buffer. */
static int read_input(struct pprof_profile *p, const struct pp_reader *const *table, size_t nt,
		      const unsigned char *in, size_t len, const struct pprof_read_options *o,
		      int levels, struct pp_hold *outer)
{
	int status;
	bool streams = false;
	for (size_t i = 0; i < nt; i++)
		streams |= table[i]->read_stream != NULL;
	if (streams && len > 0 && try_stream(p, table, nt, in, len, o, outer, &status))
		return status;
	struct pp_hold inner;
	const unsigned char *b;
	/* zlib's verdict on the input may still be coming while it is read:
	 * it is waited for before the read says anything */
	struct zverdict *v = NULL;
	status = decode(p, in, len, o, levels, &b, &len, &inner, &v, outer);
	if (status != PPROF_OK) {
		int sv = verdict_join(p, v);
		return sv != PPROF_OK ? sv : status;
	}
	struct pp_hold *h = outer;
	if (inner.ptr) {
		h = &inner;
		if (outer)
			pp_hold_release(outer);
	}
	if (len == 0) {
		status = pp_error(p, PPROF_EINPUT, "empty input");
		goto out;
	}
	const struct pp_reader *best = best_of(table, nt, b, len, NULL);
	if (!best) {
		status = pp_error_at(p, PPROF_EINPUT, 0, UNRECOGNIZED);
		goto out;
	}
	struct folded_header fh;
	header_grab(&fh, best, b, len);
	header_prepare(p, best);
	if (!best->read) {
		/* a stream reader on what a whole look found (inside a nested
		 * gzip): the decoded bytes as they are */
		struct pp_stream *s = stream_open(p, b, len, o, false);
		status = s ? header_apply(p, &fh, read_stream(p, best, s, o)) : PPROF_ENOMEM;
		pp_stream_free(s);
		goto out;
	}
	p->format = best->format;
	p->hold = h;
	status = header_apply(p, &fh, best->read(p, b, len, o));
	p->hold = NULL;
out:
	pp_hold_release(&inner);
	{
		int sv = verdict_join(p, v);
		if (sv != PPROF_OK) /* the error earlier in the input */
			status = sv;
	}
	return status;
}

int pp_read_with(struct pprof_profile *p, const struct pp_reader *const *table, size_t n,
		 const void *buf, size_t len, const struct pprof_read_options *o)
{
	return read_input(p, table, n, buf, len, o, 1, NULL);
}

int pprof_read_buffer(struct pprof_profile *p, const void *buf, size_t len,
		      const struct pprof_read_options *o)
{
	pp_input_start(p);
	int s = read_input(p, readers, NREADERS, buf, len, o, 1, NULL);
	if (s == PPROF_OK)
		pp_input_done(p);
	return s;
}

int pprof_read_file(struct pprof_profile *p, const char *path,
		    const struct pprof_read_options *o)
{
	unsigned char *buf;
	size_t len;
	bool mapped;
	int s = pp_input_load_raw(p, path, o, &buf, &len, &mapped);
	if (s != PPROF_OK)
		return s;
	if (mapped && pp_is_gzip(buf, len))
		madvise(buf, len, MADV_SEQUENTIAL);
	struct pp_hold h = {buf, len, mapped};
	pp_input_start(p);
	/* a file may be gzipped twice (a .pb.gz gzipped again) */
	s = read_input(p, readers, NREADERS, buf, len, o, 2, &h);
	pp_hold_release(&h);
	if (s == PPROF_OK)
		pp_input_done(p);
	return s;
}

/* ---- is the start of a pipe a profile? ---- */

/* The most inflated for a look, however long the stream's first line. */
#define CLAIM_GZIP_MAX ((size_t)64 << 20)

/* The bytes after the last newline are UTF-8, a sequence cut at the end
 * allowed.  The folded bid waits for the end of a long first line; binary
 * garbage without a newline or a control byte (`tr '\0' '\377'`) would
 * keep it waiting, while a folded line that long is text. */
static bool last_line_is_utf8(const unsigned char *b, size_t len)
{
	size_t i = len;
	while (i > 0 && b[i - 1] != '\n')
		i--;
	while (i < len) {
		unsigned c = b[i];
		size_t n = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 :
			   c >= 0xf0 && c < 0xf5 ? 3 : 9;
		if (n == 9)
			return false;
		for (size_t k = 1; k <= n; k++)
			if (i + k < len && (b[i + k] & 0xc0) != 0x80)
				return false;
		i += n + 1;
	}
	return true;
}

/* A JSON text or the start of one: a JSON reader may claim it once its
 * telling keys are in.  Told by parsing, not by the first byte. */
static bool may_be_json(const unsigned char *b, size_t len)
{
	size_t i = pp_utf8_bom(b, len);
	while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	return i < len && json_is_prefix(b, len, NULL);
}

static int claims(struct pprof_profile *p, const unsigned char *b, size_t len,
		  const struct pprof_read_options *o, int level);

/* The start of a gzip stream inflated (as much as its length, within
 * CLAIM_GZIP_MAX), decoded as the whole read decodes it, and looked at. */
static int claims_gzip(struct pprof_profile *p, const unsigned char *in, size_t len,
		       const struct pprof_read_options *o, int level)
{
	size_t cap = len < PP_BID_PREFIX ? PP_BID_PREFIX : len;
	if (cap > CLAIM_GZIP_MAX)
		cap = CLAIM_GZIP_MAX;
	struct zin z;
	zin_init(&z, in, len, o, true);
	z.o = NULL; /* no progress for a look */
	unsigned char *b = NULL;
	size_t bcap = 0;
	int r = PP_MORE, st = 0;
	while (z.out < cap) {
		size_t made;
		/* Out of memory here is met again by the read, which says so. */
		if (!reserve(&b, &bcap, (size_t)z.out + STEP))
			goto out;
		st = zstep(p, &z, b + z.out, &made);
		if (st < 0) {
			r = PP_REFUSED;
			goto out;
		}
		if (st == Z_DONE)
			break;
	}
	/* Too little to judge (a long gzip header, or small members): more. */
	if (z.out >= PP_BID_PREFIX)
		r = claims(p, b, (size_t)z.out, o, level + 1);
out:
	zin_end(&z);
	free(b);
	return r;
}

/* Would a reader claim the input that starts with [B, LEN)?  Read as the
 * door reads: gzip inflated (twice at most), UTF-16 as text, then the bids;
 * the folded bid's -1 says it needs more of a long line. */
static int claims(struct pprof_profile *p, const unsigned char *b, size_t len,
		  const struct pprof_read_options *o, int level)
{
	if (level < 2 && pp_is_gzip(b, len))
		return claims_gzip(p, b, len, o, level);
	unsigned char *text = NULL;
	if (pp_is_utf16(b, len)) {
		text = malloc(u16_room(len));
		if (!text)
			return PP_MORE;
		struct u16 u = {b[0] == 0xfe, 2, -1, 0, 0};
		size_t n;
		if (u16_step(p, &u, b + 2, len - 2, text, &n, true, true) != PPROF_OK) {
			free(text);
			return PP_REFUSED;
		}
		b = text;
		len = n;
	}
	int r = PP_REFUSED;
	for (size_t i = 0; i < NREADERS; i++) {
		int bid = readers[i]->bid(b, len);
		if (bid > 0) {
			r = PP_CLAIMED;
			break;
		}
		if (bid < 0 && last_line_is_utf8(b, len))
			r = PP_MORE;
	}
	if (r == PP_REFUSED && may_be_json(b, len))
		r = PP_MORE;
	if (r == PP_REFUSED)
		pp_error_at(p, PPROF_EINPUT, 0, UNRECOGNIZED);
	free(text);
	return r;
}

int pp_claims(struct pprof_profile *p, const unsigned char *b, size_t len,
	      const struct pprof_read_options *o)
{
	return claims(p, b, len, o, 0);
}
