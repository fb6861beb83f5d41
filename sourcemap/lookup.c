/*
 * lookup.c: generated position -> original position, over the sections of
 * a map.
 *
 * An index map is looked up as if its sections were concatenated into one
 * list of mappings (ECMA-426 DecodeIndexSourceMap, and what trace-mapping
 * does): a section's segments stop where the next section starts, and on
 * the first line of a section, a column before its first segment falls to
 * the last segment of the section before it on that line.
 */
#include "smap_private.h"

#include <stdlib.h>
#include <string.h>

/* The last section in [0, KMAX) that starts at or before LINE:COL, or -1. */
static long find_section(const struct smap_map *m, size_t kmax, uint32_t line,
			 uint32_t col)
{
	size_t lo = 0, hi = kmax;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pp_smap_section *s = &m->sec[mid];

		if (s->off_line < line ||
		    (s->off_line == line && s->off_col <= col))
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

static void fill(const struct smap_map *m, const struct pp_smap_section *s,
		 const struct pp_smap_seg *g, uint32_t gline,
		 struct smap_mapping *out)
{
	size_t i = s->src_base + g->src;

	out->source = m->src[i].resolved;
	out->source_index = i;
	out->line = g->oline;
	out->column = g->ocol;
	out->name = g->name != PP_SMAP_NIL ? s->names[g->name] : NULL;
	if (out->name && !out->name[0])
		out->name = NULL; /* "" stands in for a names entry that was not a string */
	out->ignored = m->src[i].ignored;
	out->generated_line = gline;
	/* a column past 32 bits cannot be asked for, so it is clamped */
	out->generated_column = gline == s->off_line ?
		(uint32_t)((uint64_t)g->gcol + s->off_col > UINT32_MAX ?
				   UINT32_MAX : g->gcol + s->off_col) :
		g->gcol;
}

int smap_lookup(struct smap_map *m, uint32_t line, uint32_t column,
		struct smap_mapping *out)
{
	size_t kmax = m->nsec;
	uint32_t c = column;
	bool below = false;
	const struct pp_smap_seg *g;
	struct pp_smap_section *s;
	int rc;

	memset(out, 0, sizeof(*out));
	out->source_index = SIZE_MAX;
	for (;;) {
		long k = below ? find_section(m, kmax, line, c - 1) :
				 find_section(m, kmax, line, c);
		uint32_t rl, rcol;

		if (k < 0)
			return SMAP_NONE;
		s = &m->sec[k];
		rl = line - s->off_line;
		rcol = rl == 0 ? c - s->off_col : c;
		g = pp_smap_find_seg(m, s, rl, rcol, below, &rc);
		if (rc)
			return rc;
		if (g)
			break;
		if (rl != 0 || s->off_col == 0)
			return SMAP_NONE;
		/* the concatenated line: what the earlier section has before
		 * this one starts (never an exact hit, so the last of a run) */
		c = s->off_col;
		below = true;
		kmax = (size_t)k;
	}
	if (g->src == PP_SMAP_NIL)
		return SMAP_NONE;
	fill(m, s, g, line, out);
	return SMAP_OK;
}

int smap_lookup_line(struct smap_map *m, uint32_t line,
		     struct smap_mapping *out)
{
	long k0 = find_section(m, m->nsec, line, 0);
	size_t k, first_k = 0;
	const struct pp_smap_seg *first = NULL;
	uint64_t first_abs = 0;
	bool disagree = false;
	int rc;
	/* where the line's code starts, once a segment has one after it: a
	 * segment that ends before it maps only the indentation (bun maps each
	 * line's leading blanks to where the statement before ended), not
	 * code a sample could fall in */
	uint32_t code = 0;
	bool code_known = false;

	memset(out, 0, sizeof(*out));
	out->source_index = SIZE_MAX;
	/* the sections with a part on LINE: k0, and those starting on it */
	for (k = k0 < 0 ? 0 : (size_t)k0; k < m->nsec; k++) {
		struct pp_smap_section *s = &m->sec[k];
		uint32_t rl, stop = UINT32_MAX, i, n;
		const struct pp_smap_seg *v;

		if (s->off_line > line)
			break;
		if ((long)k != k0 && s->off_line != line)
			continue;
		if (k + 1 < m->nsec && m->sec[k + 1].off_line == line)
			stop = m->sec[k + 1].off_col;
		rl = line - s->off_line;
		if (!s->mappings)
			continue;
		v = pp_smap_line_segs(m, s, rl, &n, &rc);
		if (rc)
			return rc;
		for (i = 0; i < n; i++) {
			uint64_t abs = rl == 0 ? (uint64_t)v[i].gcol + s->off_col :
						 v[i].gcol;

			if (abs >= stop)
				break;
			if (v[i].src == PP_SMAP_NIL)
				continue;
			if (i + 1 < n) {
				if (!code_known) {
					code = pp_smap_line_code(m, line);
					code_known = true;
				}
				if ((rl == 0 ? (uint64_t)v[i + 1].gcol + s->off_col
					     : v[i + 1].gcol) <= code)
					continue;
			}
			if (!first) {
				first = &v[i];
				first_k = k;
				first_abs = abs;
				continue;
			}
			if (s->src_base + v[i].src !=
				    m->sec[first_k].src_base + first->src ||
			    v[i].oline != first->oline)
				disagree = true;
		}
	}
	if (!first || disagree)
		return SMAP_NONE;
	fill(m, &m->sec[first_k], first, line, out);
	out->name = NULL;
	out->generated_column = first_abs > UINT32_MAX ? UINT32_MAX :
							 (uint32_t)first_abs;
	return SMAP_OK;
}

/* The order of the N positions LINES:COLS by (line, column), the caller's
 * order among equal ones: an LSD radix sort of the keys line << 32 |
 * column, a byte at a time over the bytes that vary (qsort costs ten times
 * as much).  SCRATCH (20 N bytes) holds the keys meanwhile.  NULL when out
 * of memory. */
static uint32_t *sort_positions(size_t n, const uint32_t *lines, const uint32_t *cols, void *scratch)
{
	_Static_assert(sizeof(struct smap_mapping) >= 2 * sizeof(uint64_t) + sizeof(uint32_t),
		       "a look-up's result holds a key, its copy and an index while sorting");
	size_t cnt[8][256], i, b;
	uint64_t *key = scratch, *key2 = key + n, diff = 0;
	uint32_t *own, *ord, *ord2 = (uint32_t *)(key2 + n);
	bool sorted = true;

	if (n > UINT32_MAX || !(own = malloc(n * sizeof(*own))))
		return NULL;
	ord = own;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++) {
		uint64_t k = (uint64_t)lines[i] << 32 | cols[i];

		key[i] = k;
		ord[i] = (uint32_t)i;
		diff |= k ^ key[0];
		if (i > 0 && k < key[i - 1])
			sorted = false;
		for (b = 0; b < 8; b++)
			cnt[b][(k >> (8 * b)) & 0xff]++;
	}
	for (b = 0; b < 8 && !sorted; b++) {
		size_t at = 0, c;
		uint64_t *tk;
		uint32_t *to;

		if (!((diff >> (8 * b)) & 0xff))
			continue; /* the same byte in every key */
		for (c = 0; c < 256; c++) {
			size_t k = cnt[b][c];

			cnt[b][c] = at;
			at += k;
		}
		for (i = 0; i < n; i++) {
			size_t d = cnt[b][(key[i] >> (8 * b)) & 0xff]++;

			key2[d] = key[i];
			ord2[d] = ord[i];
		}
		tk = key;
		key = key2;
		key2 = tk;
		to = ord;
		ord = ord2;
		ord2 = to;
	}
	if (ord != own)
		memcpy(own, ord, n * sizeof(*own));
	return own;
}

/* How many look-ups ahead smap_lookup_many() fetches the caller's slots. */
#define MANY_AHEAD 16

int smap_lookup_many(struct smap_map *m, size_t n, const uint32_t *lines, const uint32_t *cols,
		     struct smap_mapping *out, int *rc)
{
	uint32_t *ord = NULL;
	size_t i, j;

	/* The first problem a look-up meets is the warning.  Within a
	 * section the lines are passed in order whatever the order of the
	 * look-ups, but across an index map's sections the first met
	 * depends on it, until there is one. */
	if (n > 1 && (m->nsec <= 1 || (m->flags & SMAP_STRICT) || m->nwarn > 0))
		ord = sort_positions(n, lines, cols, out); /* written later */
	for (j = 0; j < n; j++) {
		if (ord && j + MANY_AHEAD < n) {
			/* in the map's order, the caller's arrays are read and
			 * written at random: a cache miss each, fetched ahead */
			size_t a = ord[j + MANY_AHEAD];

			__builtin_prefetch(&lines[a]);
			__builtin_prefetch(&cols[a]);
			__builtin_prefetch(&out[a], 1);
			__builtin_prefetch(&rc[a], 1);
		}
		i = ord ? ord[j] : j;
		rc[i] = smap_lookup(m, lines[i], cols[i], &out[i]);
	}
	free(ord);
	for (i = 0; i < n; i++)
		if (rc[i] != SMAP_OK && rc[i] != SMAP_NONE)
			return rc[i];
	return SMAP_OK;
}
