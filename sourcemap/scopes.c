/*
 * scopes.c: the "scopes" field (ECMA-426 scopes proposal, "Decoding
 * scopes") and the enclosing original function of a generated position.
 *
 * The field is a comma-separated list of items, each a list of VLQs whose
 * first is a tag: original scope trees first (B start, C end, D variables;
 * A for a source without one), then generated range trees (E start, F end,
 * G/H bindings, I call site); unknown tags are skipped.  Trees are kept
 * flat, in prefix order as the spec numbers them, with parent / first
 * child / next sibling links, and built with an explicit stack: nesting
 * depth is the input's to choose.
 *
 * Decoded on the first question, never at load; a problem is a warning
 * (the proposal's errors are all optional ones).
 */
#include "smap_private.h"

#include <stdlib.h>
#include <string.h>

static const signed char b64v[256] = {
	['A'] = 1,  ['B'] = 2,  ['C'] = 3,  ['D'] = 4,  ['E'] = 5,
	['F'] = 6,  ['G'] = 7,  ['H'] = 8,  ['I'] = 9,  ['J'] = 10,
	['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15,
	['P'] = 16, ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20,
	['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24, ['Y'] = 25,
	['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30,
	['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35,
	['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40,
	['o'] = 41, ['p'] = 42, ['q'] = 43, ['r'] = 44, ['s'] = 45,
	['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49, ['x'] = 50,
	['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55,
	['3'] = 56, ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60,
	['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64,
}; /* digit value + 1; 0 for a non-digit */

enum { T_EMPTY = 0, T_BEGIN = 1, T_END = 2, T_VARS = 3, T_RSTART = 4,
       T_REND = 5, T_BIND = 6, T_SUBBIND = 7, T_CALLSITE = 8 };

static int64_t sval(uint64_t u)
{
	if (u & 1)
		return (u >> 1) ? -(int64_t)(u >> 1) : -(INT64_C(1) << 31);
	return (int64_t)(u >> 1);
}

struct open {
	uint32_t idx;
	uint32_t last_child;
	bool range;
};

struct dec {
	struct smap_map *m;
	struct pp_smap_section *s;
	struct pp_smap_scopes *sc;
	size_t capscopes, capranges;
	struct open *stack;
	size_t depth, capstack;
	uint64_t *vals;
	size_t nvals, capvals;
	bool warned;
};

static bool growv(void *vp, size_t *cap, size_t n, size_t size)
{
	void **v = vp;
	size_t nc;
	void *nv;

	if (n < *cap)
		return true;
	nc = *cap ? *cap * 2 : 16;
	if (nc > SIZE_MAX / size || nc > UINT32_MAX)
		return false;
	nv = realloc(*v, nc * size);
	if (!nv)
		return false;
	*v = nv;
	*cap = nc;
	return true;
}

static void warn_once(struct dec *d, const char *what, size_t at)
{
	if (d->warned)
		return;
	d->warned = true;
	pp_smap_warn(d->m, "scopes: %s (at byte %zu)", what,
		     d->s->sx->at + at);
}

/* An index into names, accumulated as the spec's RelativeName does. */
static const char *rel_name(struct dec *d, int64_t *acc, uint64_t u,
			    size_t at)
{
	*acc += sval(u);
	if (*acc < 0) {
		warn_once(d, "negative name index", at);
		*acc = 0;
	}
	if (*acc >= d->s->nnames) {
		warn_once(d, "name index past the names", at);
		return NULL;
	}
	return d->s->names[*acc];
}

static void accumulate(uint32_t *line, uint32_t *col, uint64_t dl,
		       uint64_t dc)
{
	if (dl == 0) {
		*col += (uint32_t)dc;
	} else {
		*line += (uint32_t)dl;
		*col = (uint32_t)dc;
	}
}

/* Links node IDX under the open node on top of the stack (or as a top-level
 * node when the stack is empty) and opens it. */
static bool open_node(struct dec *d, uint32_t idx, bool range,
		      uint32_t *parent, uint32_t *top_last)
{
	uint32_t *first_child_of_parent = NULL, *sib_of_last = NULL;

	*parent = PP_SMAP_NIL;
	if (d->depth) {
		struct open *o = &d->stack[d->depth - 1];

		*parent = o->idx;
		if (o->last_child == PP_SMAP_NIL) {
			first_child_of_parent = o->range ?
				&d->sc->ranges[o->idx].first_child :
				&d->sc->scopes[o->idx].first_child;
		} else {
			sib_of_last = o->range ?
				&d->sc->ranges[o->last_child].next_sibling :
				&d->sc->scopes[o->last_child].next_sibling;
		}
		o->last_child = idx;
	} else if (top_last) {
		if (*top_last != PP_SMAP_NIL)
			sib_of_last = range ?
				&d->sc->ranges[*top_last].next_sibling :
				&d->sc->scopes[*top_last].next_sibling;
		else if (range)
			first_child_of_parent = &d->sc->first_top_range;
		*top_last = idx;
	}
	if (first_child_of_parent)
		*first_child_of_parent = idx;
	if (sib_of_last)
		*sib_of_last = idx;
	if (!growv(&d->stack, &d->capstack, d->depth, sizeof(*d->stack)))
		return false;
	d->stack[d->depth].idx = idx;
	d->stack[d->depth].last_child = PP_SMAP_NIL;
	d->stack[d->depth].range = range;
	d->depth++;
	return true;
}

int pp_smap_decode_scopes(struct smap_map *m, struct pp_smap_section *s)
{
	struct dec d;
	struct pp_smap_scopes *sc;
	const unsigned char *base, *p, *end;
	uint32_t sl = 0, scol = 0, rl = 0, rcol = 0, src_no = 0;
	uint32_t top_range_last = PP_SMAP_NIL;
	int64_t name_acc = 0, kind_acc = 0, var_acc = 0, def_acc = 0;
	bool ranges_phase = false;
	size_t i;
	int rc = SMAP_OK;

	if (!s->sx || s->sx->tried)
		return SMAP_OK;
	s->sx->tried = true;
	memset(&d, 0, sizeof(d));
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	d.m = m;
	d.s = s;
	d.sc = sc;
	sc->first_top_range = PP_SMAP_NIL;
	sc->nroot = s->nsrc;
	if (s->nsrc) {
		sc->root = malloc(s->nsrc * sizeof(*sc->root));
		if (!sc->root)
			goto nomem;
		for (i = 0; i < s->nsrc; i++)
			sc->root[i] = PP_SMAP_NIL;
	}
	base = (const unsigned char *)s->sx->text;
	p = base;
	end = base + s->sx->len;
	while (p < end) {
		const unsigned char *item = p;
		uint64_t tag;
		size_t n;
		bool bad = false;

		/* the VLQs of one item */
		d.nvals = 0;
		while (p < end && *p != ',') {
			uint64_t u = 0;
			unsigned shift = 0;

			for (;;) {
				int dv = p < end ? b64v[*p] - 1 : -1;

				if (dv < 0) {
					bad = true;
					break;
				}
				p++;
				if (shift < 32)
					u |= (uint64_t)(dv & 31) << shift;
				else if (dv & 31)
					bad = true;
				if (!(dv & 32))
					break;
				shift += 5;
			}
			if (bad || u >= (UINT64_C(1) << 32)) {
				bad = true;
				break;
			}
			if (!growv(&d.vals, &d.capvals, d.nvals, sizeof(*d.vals)))
				goto nomem;
			d.vals[d.nvals++] = u;
		}
		while (p < end && *p != ',')
			p++;
		if (p < end)
			p++;
		if (bad || d.nvals == 0) {
			warn_once(&d, bad ? "invalid base64 VLQ" : "empty item",
				  (size_t)(item - base));
			continue;
		}
		/* Missing trailing values read as 0, so that a short start
		 * item still opens its node and the tree stays balanced. */
		if (!growv(&d.vals, &d.capvals, d.nvals + 8, sizeof(*d.vals)))
			goto nomem;
		n = d.nvals;
		memset(d.vals + n, 0, 8 * sizeof(*d.vals));
		tag = d.vals[0];

		if (d.depth == 0 && !ranges_phase) {
			if (tag == T_EMPTY && n == 1) {
				src_no++;
				continue;
			}
			if (tag != T_BEGIN)
				ranges_phase = true;
		}
		if (tag == T_BEGIN && !ranges_phase &&
		    (d.depth == 0 || !d.stack[d.depth - 1].range)) {
			struct pp_smap_scope *o;
			uint64_t flags = d.vals[1];
			size_t k = 4;
			uint32_t idx = sc->nscopes, parent;

			if (n < 4)
				warn_once(&d, "short scope start", (size_t)(item - base));
			if (!growv(&sc->scopes, &d.capscopes, sc->nscopes,
				   sizeof(*sc->scopes)))
				goto nomem;
			o = &sc->scopes[sc->nscopes++];
			memset(o, 0, sizeof(*o));
			if (d.depth == 0) {
				sl = scol = 0;
				if (src_no < sc->nroot)
					sc->root[src_no] = idx;
				else
					warn_once(&d, "more scope trees than sources",
						  (size_t)(item - base));
			}
			accumulate(&sl, &scol, d.vals[2], d.vals[3]);
			o->sl = o->el = sl;
			o->sc = o->ec = scol;
			if (flags & 1)
				o->name = rel_name(&d, &name_acc, d.vals[k++],
						   (size_t)(item - base));
			if (flags & 2)
				o->kind = rel_name(&d, &kind_acc, d.vals[k++],
						   (size_t)(item - base));
			o->frame = flags & 4;
			o->first_child = o->next_sibling = PP_SMAP_NIL;
			o->source = src_no;
			if (!open_node(&d, idx, false, &parent, NULL))
				goto nomem;
			sc->scopes[idx].parent = parent;
			continue;
		}
		if (d.depth && !d.stack[d.depth - 1].range) {
			struct pp_smap_scope *o = &sc->scopes[d.stack[d.depth - 1].idx];

			if (tag == T_END) {
				accumulate(&sl, &scol, d.vals[1], d.vals[2]);
				o->el = sl;
				o->ec = scol;
				d.depth--;
				if (d.depth == 0)
					src_no++;
			} else if (tag == T_VARS) {
				o->nvars = (uint32_t)(n - 1);
				o->vars = pp_smap_alloc(&m->arena,
							(n ? n : 1) * sizeof(char *));
				if (!o->vars)
					goto nomem;
				for (i = 1; i < n; i++) {
					const char *v = rel_name(&d, &var_acc, d.vals[i],
								 (size_t)(item - base));

					o->vars[i - 1] = v ? v : "";
				}
			} else if (tag == T_RSTART || tag == T_REND) {
				warn_once(&d, "range item inside an original scope",
					  (size_t)(item - base));
			}
			/* other tags: vendor extensions or future items */
			continue;
		}
		if (tag == T_RSTART) {
			struct pp_smap_range *r;
			uint64_t flags = d.vals[1], dl = 0, dc;
			size_t k = 2;
			uint32_t idx = sc->nranges, parent;

			if (!growv(&sc->ranges, &d.capranges, sc->nranges,
				   sizeof(*sc->ranges)))
				goto nomem;
			r = &sc->ranges[sc->nranges++];
			memset(r, 0, sizeof(*r));
			if (flags & 1)
				dl = d.vals[k++];
			dc = d.vals[k++];
			accumulate(&rl, &rcol, dl, dc);
			r->sl = r->el = rl;
			r->sc = r->ec = rcol;
			r->def = PP_SMAP_NIL;
			if (flags & 2) {
				def_acc += sval(d.vals[k++]);
				if (def_acc < 0) {
					warn_once(&d, "negative scope index",
						  (size_t)(item - base));
					def_acc = 0;
				}
				if (def_acc < sc->nscopes)
					r->def = (uint32_t)def_acc;
				else
					warn_once(&d, "scope index past the scopes",
						  (size_t)(item - base));
			}
			r->frame = (flags & 4) ? ((flags & 8) ? 2 : 1) : 0;
			r->first_child = r->next_sibling = PP_SMAP_NIL;
			if (!open_node(&d, idx, true, &parent, &top_range_last))
				goto nomem;
			sc->ranges[idx].parent = parent;
			continue;
		}
		if (d.depth && d.stack[d.depth - 1].range) {
			struct pp_smap_range *r = &sc->ranges[d.stack[d.depth - 1].idx];

			if (tag == T_REND) {
				if (n >= 3)
					accumulate(&rl, &rcol, d.vals[1], d.vals[2]);
				else
					accumulate(&rl, &rcol, 0, d.vals[1]);
				r->el = rl;
				r->ec = rcol;
				d.depth--;
			} else if (tag == T_CALLSITE) {
				r->callsite = true;
				r->cs_src = (uint32_t)d.vals[1];
				r->cs_line = (uint32_t)d.vals[2];
				r->cs_col = (uint32_t)d.vals[3];
			} else if (tag == T_BEGIN || tag == T_END) {
				warn_once(&d, "scope item inside a generated range",
					  (size_t)(item - base));
			}
			continue;
		}
		if (tag != T_BEGIN && tag <= T_CALLSITE)
			warn_once(&d, "item out of place", (size_t)(item - base));
	}
	if (d.depth) {
		/* unclosed nodes reach to the end */
		warn_once(&d, "scope or range left open", s->sx->len);
		while (d.depth) {
			struct open *o = &d.stack[--d.depth];

			if (o->range) {
				sc->ranges[o->idx].el = UINT32_MAX;
				sc->ranges[o->idx].ec = UINT32_MAX;
			} else {
				sc->scopes[o->idx].el = UINT32_MAX;
				sc->scopes[o->idx].ec = UINT32_MAX;
			}
		}
	}
	s->sx->dec = sc;
	goto out;
nomem:
	free(sc->scopes);
	free(sc->ranges);
	free(sc->root);
	free(sc);
	rc = pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
out:
	free(d.stack);
	free(d.vals);
	return rc;
}

static bool before(uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2)
{
	return l1 < l2 || (l1 == l2 && c1 < c2);
}

/* The innermost function among scope X and its ancestors. */
static int frame_of(const struct pp_smap_scopes *sc, uint32_t x,
		    const char **name)
{
	for (; x != PP_SMAP_NIL; x = sc->scopes[x].parent) {
		if (sc->scopes[x].frame) {
			*name = sc->scopes[x].name;
			return SMAP_OK;
		}
	}
	return SMAP_NONE;
}

bool smap_map_has_scopes(struct smap_map *m)
{
	size_t k;

	for (k = 0; k < m->nsec; k++) {
		struct pp_smap_section *s = &m->sec[k];

		if (!s->sx)
			continue;
		if (!s->sx->tried && pp_smap_decode_scopes(m, s))
			return false;
		if (s->sx->dec && (s->sx->dec->nscopes || s->sx->dec->nranges))
			return true;
	}
	return false;
}

int smap_lookup_function(struct smap_map *m, uint32_t line, uint32_t column,
			 const char **name)
{
	struct pp_smap_section *s = NULL;
	struct pp_smap_scopes *sc;
	struct smap_mapping mp;
	size_t lo, hi, k;
	uint32_t rl, rc, x, inner, local;
	int r;

	*name = NULL;
	/* the section of the position */
	lo = 0;
	hi = m->nsec;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (!before(line, column, m->sec[mid].off_line, m->sec[mid].off_col))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		s = &m->sec[lo - 1];
		if ((r = pp_smap_decode_scopes(m, s)))
			return r;
		sc = s->sx ? s->sx->dec : NULL;
		rl = line - s->off_line;
		rc = rl == 0 ? column - s->off_col : column;
		if (sc && sc->nranges) {
			inner = PP_SMAP_NIL;
			x = sc->first_top_range;
			while (x != PP_SMAP_NIL) {
				const struct pp_smap_range *g = &sc->ranges[x];

				if (!before(rl, rc, g->sl, g->sc) &&
				    before(rl, rc, g->el, g->ec)) {
					inner = x;
					x = g->first_child;
				} else {
					x = g->next_sibling;
				}
			}
			for (x = inner; x != PP_SMAP_NIL; x = sc->ranges[x].parent)
				if (sc->ranges[x].def != PP_SMAP_NIL)
					return frame_of(sc, sc->ranges[x].def, name);
		}
	}
	/* No generated range says: the original scopes around the original
	 * position. */
	r = smap_lookup(m, line, column, &mp);
	if (r)
		return r;
	/* the section of the source: sections number their sources one
	 * after the other, so src_base grows with k */
	lo = 0;
	hi = m->nsec;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->sec[mid].src_base <= mp.source_index)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* sections without sources share a src_base: the last of them
	 * comes first, so walk back to the one that has it */
	for (k = lo; k > 0; k--)
		if (mp.source_index < (size_t)m->sec[k - 1].src_base +
					      m->sec[k - 1].nsrc)
			break;
	if (k == 0 || mp.source_index < m->sec[k - 1].src_base)
		return SMAP_NONE;
	s = &m->sec[k - 1];
	if ((r = pp_smap_decode_scopes(m, s)))
		return r;
	sc = s->sx ? s->sx->dec : NULL;
	local = (uint32_t)(mp.source_index - s->src_base);
	if (!sc || local >= sc->nroot || sc->root[local] == PP_SMAP_NIL)
		return SMAP_NONE;
	inner = PP_SMAP_NIL;
	x = sc->root[local];
	{
		const struct pp_smap_scope *o = &sc->scopes[x];

		if (before(mp.line, mp.column, o->sl, o->sc) ||
		    !before(mp.line, mp.column, o->el, o->ec))
			return SMAP_NONE;
		inner = x;
		x = o->first_child;
	}
	while (x != PP_SMAP_NIL) {
		const struct pp_smap_scope *o = &sc->scopes[x];

		if (!before(mp.line, mp.column, o->sl, o->sc) &&
		    before(mp.line, mp.column, o->el, o->ec)) {
			inner = x;
			x = o->first_child;
		} else {
			x = o->next_sibling;
		}
	}
	return frame_of(sc, inner, name);
}
