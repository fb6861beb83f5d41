/*
 * mappings.c: the "mappings" string, decoded lazily, and look-ups.
 *
 * A 20 MB map is asked a few thousand positions, so nothing is decoded at
 * load.  The first look-up in a section finds its lines with one pass, and
 * keeps a record only for the lines that have segments (a map may be 50 MB
 * of ";").  The VLQ fields other than the generated column are relative
 * across the whole string, so the state at each line's start is kept as a
 * checkpoint: reaching line L decodes lines up to L once without storing
 * their segments ("state only"), and L itself is decoded into segments,
 * sorted by column and cached.  A one-line bundle is decoded whole on the
 * first look-up, which cannot be avoided.
 *
 * Errors follow ECMA-426: a segment that breaks the grammar (bad character,
 * unfinished VLQ, 0, 2, 3 or more than 5 fields, a value past 32 bits) is
 * dropped without touching the state; a value out of range (negative, an
 * index past sources or names) keeps the state, as the spec's decoder
 * does, and leaves the segment unmapped.  Leniently each is a warning;
 * pp_smap_check_mappings() makes the first one an error.
 */
#include "smap_private.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "jstoken.h"

/* Byte classes: a base64 digit's value (0-63), C_COMMA, C_END for the
 * bytes that end a line (';', and the NUL after the last line), C_BAD. */
enum { C_COMMA = 64, C_END = 65, C_BAD = 255 };
static uint8_t cls[256];
/* the same with '"' ending the string too: mappings left in the JSON text
 * (minplace), where no '"' can be inside */
static uint8_t clsq[256];

static void make_tabs(void)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	memset(cls, C_BAD, sizeof(cls));
	for (i = 0; i < 64; i++)
		cls[(unsigned char)digits[i]] = (uint8_t)i;
	cls[','] = C_COMMA;
	cls[';'] = C_END;
	cls[0] = C_END;
	memcpy(clsq, cls, sizeof(cls));
	clsq['"'] = C_END;
}

/* The tables, made once: two threads may index two maps' lines at once
 * (a map loaded ahead while the profile's own is read). */
static void init_tabs(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	(void)pthread_once(&once, make_tabs);
}

int pp_smap_index_lines(struct smap_map *m, struct pp_smap_section *s)
{
	const char *p = s->mappings ? s->mappings : "";
	size_t len = s->mappings ? s->mlen : 0, i, lines = 1, nrec = 0, k;
	struct pp_smap_lines *d;

	if (s->lz)
		return SMAP_OK;
	init_tabs();
	if (len > UINT32_MAX - 1)
		return pp_smap_fail(m, SMAP_ENOMEM, "mappings past 4 GiB");
	/* one pass to count, one to fill: only non-empty lines get a record
	 * (memchr: a bundle's lines are 100 KB long) */
	for (i = 0;;) {
		const char *q = memchr(p + i, ';', len - i);
		size_t e = q ? (size_t)(q - p) : len;

		if (e > i)
			nrec++;
		if (!q)
			break;
		lines++;
		i = e + 1;
	}
	if (lines >= UINT32_MAX)
		return pp_smap_fail(m, SMAP_ENOMEM, "too many generated lines");
	d = calloc(1, sizeof(*d));
	if (!d)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	d->line = malloc((nrec ? nrec : 1) * sizeof(*d->line));
	if (!d->line) {
		free(d);
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	}
	s->lz = d;
	k = 0;
	{
		uint32_t lno = 0;

		i = 0;
		while (i < len) {
			const char *q;

			while (i < len && p[i] == ';') {
				i++;
				lno++;
			}
			if (i >= len)
				break;
			q = memchr(p + i, ';', len - i);
			struct pp_smap_line *r = &s->lz->line[k++];
			r->lno = lno;
			r->start = (uint32_t)i;
			r->end = q ? (uint32_t)(q - p) : (uint32_t)len;
			r->first = PP_SMAP_NIL;
			r->count = 0;
			r->coarse = PP_SMAP_NIL;
			r->ck = PP_SMAP_NIL;
			r->nseg = 0;
			i = r->end;
		}
	}
	memset(&s->lz->line[0].st, 0, sizeof(s->lz->line[0].st));
	s->lz->npassed = 0;
	s->lz->nlines = (uint32_t)lines;
	s->lz->nrec = (uint32_t)nrec;
	return SMAP_OK;
}

void pp_smap_lines_release(struct pp_smap_section *s)
{
	if (!s->lz)
		return;
	free(s->lz->line);
	pp_js_big_free(s->lz->segs, s->lz->segcap * sizeof(*s->lz->segs));
	free(s->lz->coarse);
	free(s->lz->ck);
	free(s->lz);
	s->lz = NULL;
}

/* The record of generated line L, or PP_SMAP_NIL for an empty line. */
static uint32_t rec_of(const struct pp_smap_section *s, uint32_t l)
{
	uint32_t lo = 0, hi = s->lz->nrec;

	if (s->lz->nrec == s->lz->nlines)
		return l < s->lz->nrec ? l : PP_SMAP_NIL; /* no empty line */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->lz->line[mid].lno < l)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->lz->nrec && s->lz->line[lo].lno == l ? lo : PP_SMAP_NIL;
}

enum {
	E_NONE = 0,
	E_CHAR,     /* not a base64 digit */
	E_UNENDED,  /* a continuation digit at the end */
	E_BIG,      /* past 32 bits */
	E_EMPTY,    /* a segment with no field */
	E_FIELDS,   /* 2 or 3 fields */
	E_MANY,     /* more than 5 fields */
};

static const char *const errtext[] = {
	[E_CHAR] = "invalid base64 VLQ character",
	[E_UNENDED] = "base64 VLQ cut short (continuation bit set on its last digit)",
	[E_BIG] = "base64 VLQ value past 32 bits",
	[E_EMPTY] = "empty segment",
	[E_FIELDS] = "segment with 2 or 3 fields (must be 1, 4 or 5)",
	[E_MANY] = "segment with more than 5 fields",
};

/* Problems in the values, found after the grammar. */
enum {
	V_GCOL = 1, V_SRC, V_LINE, V_COL, V_NAME, V_SRC_RANGE, V_NAME_RANGE,
	V_BIG,
};

static const char *const verrtext[] = {
	[V_GCOL] = "negative generated column",
	[V_SRC] = "negative source index",
	[V_LINE] = "negative original line",
	[V_COL] = "negative original column",
	[V_NAME] = "negative name index",
	[V_SRC_RANGE] = "source index past the sources",
	[V_NAME_RANGE] = "name index past the names",
	[V_BIG] = "position past 32 bits",
};

struct problem {
	const char *what;
	size_t at; /* offset in the mappings string */
};

/* Room for one more segment in S's array: at first for as many as its
 * mappings can hold (a segment takes at least a digit and a ',', so the
 * array is seldom grown, and what is not written takes no memory), from
 * huge pages when big (pp_js_big_alloc()): a long line of a bundle has
 * 100,000.  (A long line decoded in blocks and then whole is stored twice:
 * then it grows.)  Under a limit on address space (RLIMIT_AS), or when
 * that much is refused, the array starts at 80 MiB and grows: a
 * reservation of ten times the mappings would leave too little of the
 * limit to what comes after.  It started there for every map: on the bench
 * map at 16 times its size (29M segments) the copies of three doublings
 * into pages never touched before were a fifth of sourcemap-lookup's
 * time. */
#define SEGS_FALLBACK ((size_t)1 << 22)
static bool as_limited(void)
{
	struct rlimit r;
	return getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY;
}

static int seg_room(struct smap_map *m, struct pp_smap_section *s)
{
	struct pp_smap_lines *z = s->lz;
	size_t nc;
	struct pp_smap_seg *ns;

	if (z->nsegs < z->segcap)
		return SMAP_OK;
	nc = z->segcap ? z->segcap * 2 : (size_t)s->mlen / 2 + 64;
	if (!z->segcap && nc > SEGS_FALLBACK && as_limited())
		nc = SEGS_FALLBACK;
	if (nc > SIZE_MAX / sizeof(*ns) || nc > UINT32_MAX)
		return pp_smap_fail(m, SMAP_ENOMEM, "too many segments");
	ns = pp_js_big_realloc(z->segs, z->segcap * sizeof(*ns), nc * sizeof(*ns));
	if (!ns && !z->segcap && nc > SEGS_FALLBACK) {
		nc = SEGS_FALLBACK;
		ns = pp_js_big_realloc(NULL, 0, nc * sizeof(*ns));
	}
	if (!ns)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	z->segs = ns;
	z->segcap = nc;
	return SMAP_OK;
}

/* Decodes the segments of record L of S from state *ST (updated).  STORE:
 * append them to s->lz->segs.  *PB gets the first problem, if any.  MAXCOL and
 * ANY (may be NULL) get the greatest generated column and whether there
 * was a segment.  This is the hot loop of a look-up: one table lookup per
 * character, and a short path for the one-digit VLQs that make up most of
 * a map. */
static int decode(struct smap_map *m, struct pp_smap_section *s, uint32_t l,
		  struct pp_smap_state *st, bool store, struct problem *pb,
		  uint32_t *maxcol, bool *any)
{
	const unsigned char *base = (const unsigned char *)s->mappings;
	const unsigned char *p = base + s->lz->line[l].start;
	const unsigned char *end = base + s->lz->line[l].end;
	const uint8_t *ct = s->minplace ? clsq : cls;
	int64_t gcol = 0;
	int64_t v[6];

	if (p >= end)
		return SMAP_OK;
	for (;;) {
		const unsigned char *seg = p, *errat = NULL;
		int nf = 0, err = E_NONE;
		unsigned c;

		/* the fields of one segment, up to the ',' or the line's end */
		for (;;) {
			c = ct[*p];
			if (c < 32) {
				/* one digit: the sign in bit 0; "-0" is -2^31 */
				v[nf < 5 ? nf : 5] = (c & 1) ?
					((c >> 1) ? -(int64_t)(c >> 1) :
						    -(INT64_C(1) << 31)) :
					(int64_t)(c >> 1);
				p++;
			} else if (c < 64) {
				const unsigned char *fs = p;
				uint64_t u = c & 31;
				unsigned shift = 5;

				p++;
				for (;;) {
					c = ct[*p];
					if (c >= 64) {
						if (!err) {
							err = c == C_BAD ? E_CHAR : E_UNENDED;
							errat = c == C_BAD ? p : p - 1;
						}
						break;
					}
					p++;
					if (shift < 32)
						u |= (uint64_t)(c & 31) << shift;
					else if (c & 31)
						u = UINT64_MAX;
					if (!(c & 32))
						break;
					shift += 5;
				}
				if (c >= 64)
					break; /* cut short */
				if (u >= (UINT64_C(1) << 32)) {
					if (!err) {
						err = E_BIG;
						errat = fs;
					}
				} else {
					v[nf < 5 ? nf : 5] = (u & 1) ?
						((u >> 1) ? -(int64_t)(u >> 1) :
							    -(INT64_C(1) << 31)) :
						(int64_t)(u >> 1);
				}
			} else {
				break;
			}
			nf++;
		}
		if (c == C_BAD) {
			if (!err) {
				err = E_CHAR;
				errat = p;
			}
		} else if (c == C_END && p != end) {
			/* a NUL inside the string (an escaped \u0000) */
			if (!err) {
				err = E_CHAR;
				errat = p;
			}
		}
		if (!err) {
			if (nf == 0) {
				err = E_EMPTY;
				errat = seg;
			} else if (nf == 2 || nf == 3) {
				err = E_FIELDS;
				errat = seg;
			} else if (nf > 5) {
				err = E_MANY;
				errat = seg;
			}
		}
		if (err) {
			if (!pb->what) {
				pb->what = errtext[err];
				pb->at = (size_t)(errat - base);
			}
			/* skip the rest of the bad segment */
			while (p < end && *p != ',')
				p++;
		} else {
			int verr = 0;
			bool mapped = false;

			gcol += v[0];
			if (gcol < 0)
				verr = V_GCOL;
			else if (gcol > UINT32_MAX)
				verr = V_BIG;
			/* ECMA-426 returns before the other fields when the
			 * generated column is negative: they keep their state. */
			if (nf >= 4 && verr != V_GCOL) {
				st->src += v[1];
				st->oline += v[2];
				st->ocol += v[3];
				if (nf == 5)
					st->name += v[4];
				if (verr) {
					/* no mapping at all */
				} else if (st->src < 0) {
					verr = V_SRC;
				} else if (st->src >= s->nsrc) {
					verr = V_SRC_RANGE;
				} else if (st->oline < 0) {
					verr = V_LINE;
				} else if (st->ocol < 0) {
					verr = V_COL;
				} else if (st->oline > UINT32_MAX ||
					   st->ocol > UINT32_MAX) {
					verr = V_BIG;
				} else {
					mapped = true;
				}
				if (nf == 5 && !verr) {
					if (st->name < 0)
						verr = V_NAME;
					else if (st->name >= s->nnames)
						verr = V_NAME_RANGE;
				}
			}
			if (verr && !pb->what) {
				pb->what = verrtext[verr];
				pb->at = (size_t)(seg - base);
			}
			if (gcol >= 0 && gcol <= UINT32_MAX) {
				if (any) {
					*any = true;
					if ((uint32_t)gcol > *maxcol)
						*maxcol = (uint32_t)gcol;
				}
				if (store) {
					struct pp_smap_seg *g;

					int rc = seg_room(m, s);

					if (rc)
						return rc;
					g = &s->lz->segs[s->lz->nsegs++];
					g->gcol = (uint32_t)gcol;
					if (mapped) {
						g->src = (uint32_t)st->src;
						g->oline = (uint32_t)st->oline;
						g->ocol = (uint32_t)st->ocol;
						g->name = nf == 5 && verr == 0 ?
								  (uint32_t)st->name :
								  PP_SMAP_NIL;
					} else {
						g->src = PP_SMAP_NIL;
						g->oline = g->ocol = 0;
						g->name = PP_SMAP_NIL;
					}
				}
			}
		}
		if (p >= end)
			break;
		p++; /* the ',' */
		if (p == end) {
			/* a trailing ',' leaves an empty segment */
			if (!pb->what) {
				pb->what = errtext[E_EMPTY];
				pb->at = (size_t)(p - base);
			}
			break;
		}
	}
	return SMAP_OK;
}

/* "mappings: WHAT (at byte N)", with the section for an index map */
static void describe(struct smap_map *m, struct pp_smap_section *s,
		     const struct problem *pb, char *buf, size_t n)
{
	char sec[40] = "";

	if (m->index)
		snprintf(sec, sizeof(sec), "sections[%u].map.", s->label);
	if (s->mexact)
		snprintf(buf, n, "%smappings: %s (at byte %zu)", sec, pb->what,
			 s->mat + pb->at);
	else
		snprintf(buf, n, "%smappings: %s (at character %zu of mappings)",
			 sec, pb->what, pb->at);
}

static void report(struct smap_map *m, struct pp_smap_section *s,
		   const struct problem *pb)
{
	char buf[256];

	describe(m, s, pb, buf, sizeof(buf));
	pp_smap_warn(m, "%s", buf);
}

/*
 * The fast path of decode(), for well-formed lines: no error bookkeeping,
 * one compare per field to catch anything unusual.  Returns 1 when line L
 * was decoded (state in *ST, segments appended when STORE), 0 when it holds
 * anything decode() would complain about (nothing is changed then: the
 * caller runs decode() on the line), or -1 when out of memory.
 */
static const int64_t one_digit[32] = {
	0, -(INT64_C(1) << 31), 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7,
	8, -8, 9, -9, 10, -10, 11, -11, 12, -12, 13, -13, 14, -14, 15, -15,
};

/* Room for N more segments in S's array. */
static int seg_reserve(struct smap_map *m, struct pp_smap_section *s, size_t n)
{
	struct pp_smap_lines *z = s->lz;

	while (z->segcap - z->nsegs < n) {
		size_t keep = z->nsegs;
		int rc;

		z->nsegs = z->segcap; /* seg_room() grows a full array */
		rc = seg_room(m, s);
		z->nsegs = keep;
		if (rc)
			return rc;
	}
	return SMAP_OK;
}

/* Appends a block to S's blocks; false when out of memory. */
static bool block_push(struct pp_smap_lines *z, const struct pp_smap_block *b)
{
	if (z->nck == z->ckcap) {
		size_t cap = z->ckcap ? z->ckcap * 2 : 256;
		struct pp_smap_block *v;

		if (cap > UINT32_MAX || !(v = realloc(z->ck, cap * sizeof(*v))))
			return false;
		z->ck = v;
		z->ckcap = cap;
	}
	z->ck[z->nck++] = *b;
	return true;
}

/*
 * The segments from P to END (a line, or the rest of it from a block),
 * the column before them GCOL: as fast_line(), and at most MAX of them.
 * *NSEG gets how many were read.  BLOCKS: record a block every
 * PP_SMAP_BLOCK segments in s->lz->ck; *SORTED tells whether the columns
 * only grew.
 */
static int fast_segs(struct smap_map *m, struct pp_smap_section *s, const unsigned char *p,
		     const unsigned char *end, int64_t gcol, struct pp_smap_state *st, bool store,
		     uint32_t max, uint32_t *nseg, bool blocks, bool *sorted)
{
	const unsigned char *base = (const unsigned char *)s->mappings;
	const uint8_t *ct = s->minplace ? clsq : cls;
	int64_t src = st->src, ol = st->oline, oc = st->ocol, nm = st->name;
	size_t first = s->lz->nsegs;
	uint32_t n = 0;
	int64_t last = -1;

	*nseg = 0;
	if (p >= end)
		return 1;
	for (;;) {
		const unsigned char *seg = p;
		int64_t v[5];
		int nf = 0;
		unsigned c;

		for (;;) {
			c = ct[*p];
			if (c < 32) {
				v[nf] = one_digit[c];
				p++;
			} else if (c < 64) {
				uint64_t u = c & 31;
				unsigned shift = 5;

				p++;
				do {
					c = ct[*p++];
					if (c >= 64 || shift > 30)
						goto slow;
					u |= (uint64_t)(c & 31) << shift;
					shift += 5;
				} while (c & 32);
				if (u >= (UINT64_C(1) << 32) || u == 1)
					goto slow;
				v[nf] = (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
			} else {
				break;
			}
			if (++nf == 5) {
				c = ct[*p];
				break;
			}
		}
		if (blocks && n % PP_SMAP_BLOCK == 0) {
			struct pp_smap_block b = {
				(uint32_t)(seg - base), 0, (uint32_t)gcol, PP_SMAP_NIL,
				{src, ol, oc, nm},
			};

			if (!block_push(s->lz, &b))
				return -1;
		}
		gcol += v[0];
		if (nf >= 4) {
			src += v[1];
			ol += v[2];
			oc += v[3];
			if (nf == 5) {
				nm += v[4];
				if ((uint64_t)nm >= s->nnames)
					goto slow;
			}
			if ((uint64_t)src >= s->nsrc || (uint64_t)ol > UINT32_MAX ||
			    (uint64_t)oc > UINT32_MAX)
				goto slow;
		} else if (nf != 1) {
			goto slow;
		}
		if ((uint64_t)gcol > UINT32_MAX)
			goto slow;
		if (blocks && n % PP_SMAP_BLOCK == 0)
			s->lz->ck[s->lz->nck - 1].gcol = (uint32_t)gcol;
		if (gcol < last)
			*sorted = false;
		last = gcol;
		n++;
		if (store) {
			struct pp_smap_seg *g;

			if (s->lz->nsegs == s->lz->segcap && seg_room(m, s))
				return -1;
			g = &s->lz->segs[s->lz->nsegs++];
			g->gcol = (uint32_t)gcol;
			if (nf == 1) {
				g->src = PP_SMAP_NIL;
				g->oline = g->ocol = 0;
				g->name = PP_SMAP_NIL;
			} else {
				g->src = (uint32_t)src;
				g->oline = (uint32_t)ol;
				g->ocol = (uint32_t)oc;
				g->name = nf == 5 ? (uint32_t)nm : PP_SMAP_NIL;
			}
		}
		if (c == C_COMMA) {
			p++;
			if (p >= end)
				goto slow; /* a trailing ',' */
			if (n == max)
				break;
			continue;
		}
		if (c == C_END && p == end)
			break;
		goto slow; /* a bad byte, a sixth field, a NUL inside */
	}
	st->src = src;
	st->oline = ol;
	st->ocol = oc;
	st->name = nm;
	*nseg = n;
	return 1;
slow:
	s->lz->nsegs = first;
	return 0;
}

uint32_t pp_smap_block_min = 4 * PP_SMAP_BLOCK;
#define BLOCK_MIN pp_smap_block_min

static int fast_line(struct smap_map *m, struct pp_smap_section *s, uint32_t l,
		     struct pp_smap_state *st, bool store)
{
	const unsigned char *base = (const unsigned char *)s->mappings;
	struct pp_smap_line *r = &s->lz->line[l];
	/* a segment takes two bytes at least */
	bool blocks = !store && r->ck == PP_SMAP_NIL && r->end - r->start >= 2 * BLOCK_MIN;
	size_t ck0 = s->lz->nck;
	bool sorted = true;
	uint32_t n;
	int rc = fast_segs(m, s, base + r->start, base + r->end, 0, st, store, UINT32_MAX, &n,
			   blocks, &sorted);

	if (blocks && rc == 1 && sorted && n >= BLOCK_MIN) {
		r->ck = (uint32_t)ck0;
		r->nseg = n;
	} else {
		s->lz->nck = ck0;
	}
	return rc;
}

/* Decodes block B of record L (a line with blocks), unless done. */
static int decode_block(struct smap_map *m, struct pp_smap_section *s, uint32_t l, uint32_t b)
{
	const unsigned char *base = (const unsigned char *)s->mappings;
	struct pp_smap_line *r = &s->lz->line[l];
	struct pp_smap_block *k = &s->lz->ck[r->ck + b];
	uint32_t want = r->nseg - b * PP_SMAP_BLOCK, n;
	size_t first = s->lz->nsegs;
	struct pp_smap_state st = k->st;
	bool sorted = true;
	int rc;

	if (k->segs != PP_SMAP_NIL)
		return SMAP_OK;
	if (want > PP_SMAP_BLOCK)
		want = PP_SMAP_BLOCK;
	if ((rc = seg_reserve(m, s, want)))
		return rc;
	rc = fast_segs(m, s, base + k->at, base + r->end, k->prev, &st, true, want, &n, false,
		       &sorted);
	if (rc < 0)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	if (rc == 0 || n != want || s->lz->segs[first].gcol != k->gcol)
		return pp_smap_fail(m, SMAP_EINPUT,
				    "mappings: a block read otherwise"); /* cannot be */
	k->segs = (uint32_t)first;
	return SMAP_OK;
}

/* Passes the records before L (state only), so that the state at L's
 * start is known.  Problems of a line are told when it is first passed. */
static int reach(struct smap_map *m, struct pp_smap_section *s, uint32_t l)
{
	int rc;

	while (s->lz->npassed < l) {
		uint32_t k = s->lz->npassed;
		struct pp_smap_state st = s->lz->line[k].st;
		struct problem pb = { NULL, 0 };

		rc = fast_line(m, s, k, &st, false);
		if (rc < 0)
			return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
		if (rc == 0) {
			if ((rc = decode(m, s, k, &st, false, &pb, NULL, NULL)))
				return rc;
			if (pb.what)
				report(m, s, &pb);
		}
		if (k + 1 < s->lz->nrec)
			s->lz->line[k + 1].st = st;
		s->lz->npassed++;
	}
	return SMAP_OK;
}

int pp_smap_pass_clean(struct smap_map *m, struct pp_smap_section *s)
{
	int rc;

	if (!s->mappings)
		return SMAP_OK;
	if (!s->lz && (rc = pp_smap_index_lines(m, s)))
		return rc;
	init_tabs();
	while (s->lz->npassed < s->lz->nrec) {
		uint32_t k = s->lz->npassed;
		struct pp_smap_state st = s->lz->line[k].st;

		rc = fast_line(m, s, k, &st, false);
		if (rc < 0)
			return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
		if (rc == 0)
			break; /* a problem: told when a look-up passes it */
		if (k + 1 < s->lz->nrec)
			s->lz->line[k + 1].st = st;
		s->lz->npassed++;
	}
	return SMAP_OK;
}

/* A stable sort by column: insertion sort, since unsorted lines are rare
 * and nearly sorted; a merge through a copy when they are long. */
static int sort_segs(struct smap_map *m, struct pp_smap_seg *v, size_t n)
{
	size_t i, j;

	if (n <= 64) {
		for (i = 1; i < n; i++) {
			struct pp_smap_seg x = v[i];

			for (j = i; j > 0 && v[j - 1].gcol > x.gcol; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return SMAP_OK;
	}
	{
		/* bottom-up merge sort, stable */
		struct pp_smap_seg *tmp = malloc(n * sizeof(*tmp)), *a = v,
				   *b = tmp, *t;
		size_t w;

		if (!tmp)
			return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
		for (w = 1; w < n; w *= 2) {
			for (i = 0; i < n; i += 2 * w) {
				size_t lo = i, mid = i + w < n ? i + w : n,
				       hi = i + 2 * w < n ? i + 2 * w : n,
				       x = lo, y = mid, k = lo;

				while (x < mid && y < hi)
					b[k++] = a[y].gcol < a[x].gcol ? a[y++] :
									 a[x++];
				while (x < mid)
					b[k++] = a[x++];
				while (y < hi)
					b[k++] = a[y++];
			}
			t = a;
			a = b;
			b = t;
		}
		if (a != v)
			memcpy(v, a, n * sizeof(*v));
		free(tmp);
	}
	return SMAP_OK;
}

/* Decodes record L of S into segments, unless done. */
static int decode_rec(struct smap_map *m, struct pp_smap_section *s, uint32_t l)
{
	struct pp_smap_state st;
	struct problem pb = { NULL, 0 };
	size_t first, n, i;
	int rc;

	if (s->lz->line[l].first != PP_SMAP_NIL)
		return SMAP_OK;
	if ((rc = reach(m, s, l)))
		return rc;
	st = s->lz->line[l].st;
	first = s->lz->nsegs;
	rc = fast_line(m, s, l, &st, true);
	if (rc < 0)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	if (rc == 0 && (rc = decode(m, s, l, &st, true, &pb, NULL, NULL)))
		return rc;
	if (s->lz->npassed == l) {
		if (pb.what)
			report(m, s, &pb);
		if (l + 1 < s->lz->nrec)
			s->lz->line[l + 1].st = st;
		s->lz->npassed++;
	}
	n = s->lz->nsegs - first;
	for (i = 1; i < n; i++)
		if (s->lz->segs[first + i].gcol < s->lz->segs[first + i - 1].gcol)
			break;
	if (i < n && (rc = sort_segs(m, s->lz->segs + first, n)))
		return rc;
	if (n >= 8 * PP_SMAP_STRIDE) {
		size_t nc = (n + PP_SMAP_STRIDE - 1) / PP_SMAP_STRIDE;

		if (s->lz->ncoarse + nc > s->lz->coarsecap) {
			size_t cap = s->lz->coarsecap * 2 > s->lz->ncoarse + nc ?
					     s->lz->coarsecap * 2 :
					     s->lz->ncoarse + nc;
			uint32_t *v;

			if (cap > UINT32_MAX ||
			    !(v = realloc(s->lz->coarse, cap * sizeof(*v))))
				return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
			s->lz->coarse = v;
			s->lz->coarsecap = cap;
		}
		s->lz->line[l].coarse = (uint32_t)s->lz->ncoarse;
		for (i = 0; i < nc; i++)
			s->lz->coarse[s->lz->ncoarse++] =
				s->lz->segs[first + i * PP_SMAP_STRIDE].gcol;
	}
	s->lz->line[l].first = (uint32_t)first;
	s->lz->line[l].count = (uint32_t)n;
	return SMAP_OK;
}

const struct pp_smap_seg *pp_smap_line_segs(struct smap_map *m,
					    struct pp_smap_section *s, uint32_t l,
					    uint32_t *n, int *rc)
{
	uint32_t k;

	*n = 0;
	*rc = SMAP_OK;
	if (!s->mappings)
		return NULL;
	if (!s->lz && (*rc = pp_smap_index_lines(m, s)))
		return NULL;
	if ((k = rec_of(s, l)) == PP_SMAP_NIL)
		return NULL;
	if ((*rc = decode_rec(m, s, k)))
		return NULL;
	*n = s->lz->line[k].count;
	/* a line whose segments were all dropped may have no array at all */
	return *n ? s->lz->segs + s->lz->line[k].first : NULL;
}

int pp_smap_check_mappings(struct smap_map *m, struct pp_smap_section *s)
{
	uint32_t l;
	int rc;

	if (!s->mappings)
		return SMAP_OK;
	if ((rc = pp_smap_index_lines(m, s)))
		return rc;
	s->has_last = false;
	for (l = 0; l < s->lz->nrec; l++) {
		struct pp_smap_state st = s->lz->line[l].st;
		struct problem pb = { NULL, 0 };
		uint32_t maxcol = 0;
		bool any = false;

		if ((rc = decode(m, s, l, &st, false, &pb, &maxcol, &any)))
			return rc;
		if (pb.what) {
			char buf[256];

			describe(m, s, &pb, buf, sizeof(buf));
			return pp_smap_fail(m, SMAP_EINPUT, "%s", buf);
		}
		if (s->lz->npassed == l) {
			if (l + 1 < s->lz->nrec)
				s->lz->line[l + 1].st = st;
			s->lz->npassed++;
		}
		if (any) {
			s->has_last = true;
			s->last_line = s->lz->line[l].lno;
			s->last_col = maxcol;
		}
	}
	return SMAP_OK;
}

/* pp_smap_find_seg() on record K, a line with blocks: the blocks' first
 * columns find the one block the answer is in, and only that block is
 * decoded (and the ones before it that end on column C, for the first of
 * C's segments). */
static const struct pp_smap_seg *find_in_blocks(struct smap_map *m, struct pp_smap_section *s,
						uint32_t k, uint32_t c, bool below, int *rc)
{
	const struct pp_smap_line *r = &s->lz->line[k];
	const struct pp_smap_block *ck = s->lz->ck + r->ck;
	uint32_t nb = (r->nseg + PP_SMAP_BLOCK - 1) / PP_SMAP_BLOCK, lo = 0, hi = nb, b, n, i;
	const struct pp_smap_seg *v;

	/* the first block starting past C (at or past C: BELOW) */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ck[mid].gcol < c || (!below && ck[mid].gcol == c))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	b = lo - 1;
	if ((*rc = decode_block(m, s, k, b)))
		return NULL;
	n = r->nseg - b * PP_SMAP_BLOCK < PP_SMAP_BLOCK ? r->nseg - b * PP_SMAP_BLOCK
							: PP_SMAP_BLOCK;
	v = s->lz->segs + ck[b].segs;
	/* the first segment past C; the block's first is not */
	lo = 1;
	hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid].gcol < c || (!below && v[mid].gcol == c))
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo - 1;
	if (v[i].gcol != c)
		return &v[i];
	/* An exact column gives the first of its segments, which may be in
	 * a block before */
	for (;;) {
		while (i > 0 && v[i - 1].gcol == c)
			i--;
		/* the block before ends on column C when it is C before B */
		if (i > 0 || b == 0 || ck[b].prev != c)
			break;
		if ((*rc = decode_block(m, s, k, b - 1)))
			return NULL;
		b--;
		v = s->lz->segs + ck[b].segs;
		i = PP_SMAP_BLOCK - 1;
	}
	return &v[i];
}

const struct pp_smap_seg *pp_smap_find_seg(struct smap_map *m,
					   struct pp_smap_section *s,
					   uint32_t l, uint32_t c, bool below,
					   int *rc)
{
	const struct pp_smap_seg *v;
	size_t lo, hi, n;
	uint32_t k;

	*rc = SMAP_OK;
	if (!s->mappings)
		return NULL;
	if (!s->lz && (*rc = pp_smap_index_lines(m, s)))
		return NULL;
	if ((k = rec_of(s, l)) == PP_SMAP_NIL)
		return NULL;
	if (s->lz->line[k].first == PP_SMAP_NIL) {
		/* passed, a long line may have blocks */
		if (s->lz->line[k].end - s->lz->line[k].start >= 2 * BLOCK_MIN &&
		    (*rc = reach(m, s, k + 1)))
			return NULL;
		if (s->lz->line[k].ck != PP_SMAP_NIL)
			return find_in_blocks(m, s, k, c, below, rc);
		if ((*rc = decode_rec(m, s, k)))
			return NULL;
	}
	n = s->lz->line[k].count;
	if (n == 0) /* segs may be NULL: no pointer arithmetic on it */
		return NULL;
	v = s->lz->segs + s->lz->line[k].first;
	/* the first segment with a column past C (at or past C: BELOW) */
	lo = 0;
	hi = n;
	if (s->lz->line[k].coarse != PP_SMAP_NIL) {
		/* narrow [lo, hi) to one stride with the coarse columns */
		const uint32_t *cv = s->lz->coarse + s->lz->line[k].coarse;
		size_t clo = 0, chi = (n + PP_SMAP_STRIDE - 1) / PP_SMAP_STRIDE;

		while (clo < chi) {
			size_t mid = clo + (chi - clo) / 2;

			if (cv[mid] < c || (!below && cv[mid] == c))
				clo = mid + 1;
			else
				chi = mid;
		}
		/* stride CLO starts past C: the answer is in the one before */
		hi = clo * PP_SMAP_STRIDE < n ? clo * PP_SMAP_STRIDE : n;
		lo = clo ? (clo - 1) * PP_SMAP_STRIDE : 0;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].gcol < c || (!below && v[mid].gcol == c))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	lo--;
	/* An exact column gives the first of its segments (trace-mapping's
	 * lowerBound); a smaller one the last, as its binary search does. */
	if (v[lo].gcol == c)
		while (lo > 0 && v[lo - 1].gcol == c)
			lo--;
	return &v[lo];
}
