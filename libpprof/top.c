/* top.c: go tool pprof -top's flat/cum table of one profile (its
 * internal/report): the functions, the walk of the call tree that sums
 * them, and the writers.  The walk of samples kept out of the tree is
 * top_deferred.c's; a diff's table is top_diff.c's. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pprof_private.h"
#include "top_private.h"

int pprof_table_format_parse(const char *name)
{
	if (strcmp(name, "text") == 0)
		return PPROF_TABLE_TEXT;
	if (strcmp(name, "tsv") == 0)
		return PPROF_TABLE_TSV;
	if (strcmp(name, "json") == 0)
		return PPROF_TABLE_JSON;
	return -1;
}

/* ---- output helpers ---- */

/* A JSON string: invalid UTF-8 becomes U+FFFD so the output stays valid. */
void pp_json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	putc('"', out);
	while (*p) {
		unsigned c = *p;
		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc((int)c, out);
			p++;
		} else if (c < 0x20) {
			fprintf(out, "\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			putc((int)c, out);
			p++;
		} else {
			size_t n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
			size_t k = 1;
			while (n && k < n && (p[k] & 0xc0) == 0x80)
				k++;
			bool ok = n && k == n;
			if (ok && n == 3) {
				/* no overlongs, no surrogates */
				ok = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
			} else if (ok && n == 4) {
				ok = !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90);
			}
			if (ok) {
				fwrite(p, 1, n, out);
				p += n;
			} else {
				fputs("\\ufffd", out);
				p++;
			}
		}
	}
	putc('"', out);
}

/* A TSV field: tabs and line breaks in names become spaces. */
void pp_tsv_str(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

int pp_write_status(FILE *out)
{
	if (ferror(out)) {
		if (!errno)
			errno = EIO;
		return PPROF_EIO;
	}
	return PPROF_OK;
}

/* ---- the top table of one profile ---- */

/* A row of the table: a function with a value. */
struct row {
	uint32_t fun;
	const char *name;
	uint32_t len;
	int64_t flat, cum;
};

static int row_cmp_flat(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	uint64_t x = mag(a->flat), y = mag(b->flat);
	if (x != y)
		return x > y ? -1 : 1;
	int c = name_cmp(a->name, a->len, b->name, b->len);
	if (c)
		return c;
	x = mag(a->cum);
	y = mag(b->cum);
	return x != y ? (x > y ? -1 : 1) : 0;
}

static int row_cmp_cum(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	uint64_t x = mag(a->cum), y = mag(b->cum);
	if (x != y)
		return x > y ? -1 : 1;
	int c = name_cmp(a->name, a->len, b->name, b->len);
	if (c)
		return c;
	x = mag(a->flat);
	y = mag(b->flat);
	return x != y ? (x > y ? -1 : 1) : 0;
}

static void walk_release(struct walk *w)
{
	free(w->first);
	free(w->kids);
	free(w->stack);
	free(w->cursor);
}

static bool walk_init(struct walk *w, const struct pprof_profile *p)
{
	uint32_t n = p->nnodes;
	w->first = calloc((size_t)n + 1, sizeof(*w->first));
	w->kids = malloc((size_t)(n ? n : 1) * sizeof(*w->kids));
	w->stack = malloc((size_t)(n ? n : 1) * sizeof(*w->stack));
	w->cursor = malloc((size_t)(n ? n : 1) * sizeof(*w->cursor));
	if (!w->first || !w->kids || !w->stack || !w->cursor)
		return false;
	for (uint32_t i = 1; i < n; i++)
		w->first[p->nodes[i].parent + 1]++;
	for (uint32_t i = 0; i < n; i++)
		w->first[i + 1] += w->first[i];
	/* cursor doubles as the fill position here */
	for (uint32_t i = 0; i < n; i++)
		w->cursor[i] = w->first[i];
	for (uint32_t i = 1; i < n; i++)
		w->kids[w->cursor[p->nodes[i].parent]++] = i;
	return true;
}

/* The slot of the edge FROM -> TO, added when missing; (size_t)-1 when out
 * of memory.  Functions have few callers each, so the table stays small
 * (and in the cache): it grows with the edges, not with the tree. */
static size_t edge_slot(struct edges *e, uint32_t from, uint32_t to)
{
	uint64_t key = ((uint64_t)from << 32) | to;
	size_t i = edge_hash(key, e->cap);
	while (e->flags[i] && e->keys[i] != key)
		i = (i + 1) & (e->cap - 1);
	if (e->flags[i])
		return i;
	if (++e->n * 2 > e->cap) {
		size_t cap = e->cap * 2;
		uint64_t *keys = malloc(cap * sizeof(*keys));
		int64_t *weight = calloc(cap, sizeof(*weight));
		uint32_t *onpath = calloc(cap, sizeof(*onpath));
		uint8_t *flags = calloc(cap, 1);
		if (!keys || !weight || !onpath || !flags) {
			free(keys);
			free(weight);
			free(onpath);
			free(flags);
			return (size_t)-1;
		}
		for (size_t k = 0; k < e->cap; k++) {
			if (!e->flags[k])
				continue;
			size_t j = edge_hash(e->keys[k], cap);
			while (flags[j])
				j = (j + 1) & (cap - 1);
			keys[j] = e->keys[k];
			weight[j] = e->weight[k];
			onpath[j] = e->onpath[k];
			flags[j] = e->flags[k];
		}
		free(e->keys);
		free(e->weight);
		free(e->onpath);
		free(e->flags);
		e->keys = keys;
		e->weight = weight;
		e->onpath = onpath;
		e->flags = flags;
		e->cap = cap;
		i = edge_hash(key, cap);
		while (e->flags[i])
			i = (i + 1) & (cap - 1);
	}
	e->keys[i] = key;
	e->flags[i] = 1;
	return i;
}

static bool edges_init(struct edges *e)
{
	e->cap = 4096;
	e->n = 0;
	e->keys = malloc(e->cap * sizeof(*e->keys));
	e->weight = calloc(e->cap, sizeof(*e->weight));
	e->onpath = calloc(e->cap, sizeof(*e->onpath));
	e->flags = calloc(e->cap, 1);
	return e->keys && e->weight && e->onpath && e->flags;
}

void pp_edges_release(struct edges *e)
{
	free(e->keys);
	free(e->weight);
	free(e->onpath);
	free(e->flags);
}

/* The labels from the edges: only those of at least -edgefraction of
 * FLAT_ALL count. */
static void edges_label(const struct edges *e, struct fun *fn, int64_t flat_all)
{
	int64_t cutoff = (int64_t)((double)flat_all * 0.001);
	for (size_t i = 0; i < e->cap; i++) {
		if (!e->flags[i] || mag(e->weight[i]) < mag(cutoff))
			continue;
		struct fun *f = &fn[(uint32_t)e->keys[i]];
		if (e->flags[i] & 2)
			f->in_noinline = 1;
		else
			f->in_inline = 1;
	}
}

/* One depth-first walk of the tree.
 * CUM: a sample counts once for each function on its stack, so the value
 * of a node's subtree goes to its function where no ancestor has it.
 * LABELS: pprof labels a row "(inline)" when the calls into it from the
 * nearest kept caller were all inlined, "(partial-inline)" when only some
 * were; a sample counts an edge once, where it first occurs from the root,
 * and edges lighter than -edgefraction (0.001) of FLAT_ALL are dropped.
 * KEEP (with LABELS; may be NULL): receives every edge between kept
 * functions, for pprof's -tree (the caller releases it). */
static int walk_tree(struct top_work *t, bool cum, bool labels, int64_t flat_all, struct edges *keep)
{
	struct pprof_profile *p = t->p;
	struct walk *w = &t->w;
	struct edges local = {0}, *e = keep ? keep : &local;
	size_t nn = p->nnodes ? p->nnodes : 1;
	/* per path level: the nearest kept function at or above it (+1), and
	 * the edge into it (NO_EDGE: none; slots move when the table grows) */
	const uint64_t NO_EDGE = UINT64_MAX;
	uint32_t *near = NULL;
	uint64_t *slot = NULL;
	int s = PPROF_OK;
	if (labels) {
		bool ok = edges_init(e);
		near = malloc(nn * sizeof(*near));
		slot = malloc(nn * sizeof(*slot));
		if (!ok || !near || !slot) {
			s = pp_nomem(p);
			goto out;
		}
		near[0] = 0;
		slot[0] = NO_EDGE;
	}
	size_t sp = 0;
	w->stack[sp] = 0;
	w->cursor[sp++] = w->first[0];
	while (sp) {
		uint32_t n = w->stack[sp - 1];
		if (w->cursor[sp - 1] == w->first[n + 1]) {
			sp--;
			if (cum && n)
				t->fn[t->nd[n].fun].onpath--;
			if (labels && slot[sp] != NO_EDGE)
				e->onpath[edge_slot(e, (uint32_t)(slot[sp] >> 32),
						    (uint32_t)slot[sp])]--;
			continue;
		}
		uint32_t c = w->kids[w->cursor[sp - 1]++];
		const struct tnode *nd = &t->nd[c];
		if (!nd->live)
			continue; /* nothing beneath counts */
		struct fun *f = &t->fn[nd->fun];
		if (cum && f->onpath++ == 0 && __builtin_add_overflow(f->cum, nd->sub, &f->cum)) {
			s = pp_error(p, PPROF_EINPUT, "sum of values leaves the 64-bit range");
			goto out;
		}
		if (labels) {
			uint32_t up = near[sp - 1];
			uint64_t key = NO_EDGE;
			if (f->kept) {
				/* only a function inlined somewhere can get a label */
				if (up && up - 1 != nd->fun && (keep || f->has_inlined)) {
					size_t k = edge_slot(e, up - 1, nd->fun);
					if (k == (size_t)-1) {
						s = pp_nomem(p);
						goto out;
					}
					if (e->onpath[k]++ == 0) {
						e->weight[k] += nd->sub;
						e->flags[k] |= 1 | (nd->inl ? 0 : 2);
					}
					key = ((uint64_t)(up - 1) << 32) | nd->fun;
				}
				up = nd->fun + 1;
			}
			near[sp] = up;
			slot[sp] = key;
		}
		w->stack[sp] = c;
		w->cursor[sp++] = w->first[c];
	}
	if (labels)
		edges_label(e, t->fn, flat_all);
out:
	pp_edges_release(&local);
	free(near);
	free(slot);
	return s;
}

/* The names of the frames at the granularity, and their functions. */
static int top_functions(struct top_work *t, enum pprof_granularity g, bool *any_inline)
{
	struct pprof_profile *p = t->p;
	t->ffun = malloc((size_t)(p->nframes ? p->nframes : 1) * sizeof(*t->ffun));
	if (!t->ffun)
		return pp_nomem(p);
	*any_inline = false;
	int st = pp_frame_names(p, g, t->ffun);
	if (st != PPROF_OK)
		return st;
	for (uint32_t i = 1; i < p->nframes; i++)
		if (p->frames[i].flags & PP_FRAME_INLINED)
			*any_inline = true;
	uint32_t *strfun = malloc((size_t)p->nstrs * sizeof(*strfun));
	t->fn = calloc(p->nframes ? p->nframes : 1, sizeof(*t->fn));
	if (!strfun || !t->fn) {
		free(strfun);
		return pp_nomem(p);
	}
	memset(strfun, 0xff, (size_t)p->nstrs * sizeof(*strfun));
	for (uint32_t i = 1; i < p->nframes; i++) {
		uint32_t s = t->ffun[i];
		if (strfun[s] == UINT32_MAX) {
			strfun[s] = t->nfn;
			t->fn[t->nfn].name = pp_str(p, s);
			t->fn[t->nfn].len = pp_strlen(p, s);
			t->nfn++;
		}
		t->ffun[i] = strfun[s];
		if (p->frames[i].flags & PP_FRAME_INLINED)
			t->fn[t->ffun[i]].has_inlined = 1;
	}
	free(strfun);
	return PPROF_OK;
}

/* The values per node of the tree (their subtrees' sums, and whether some
 * sample beneath is not 0), flat per function, and the totals. */
static int tree_values(struct top_work *t, uint32_t sel, uint32_t base, uint64_t *total,
		       uint64_t *basetotal, int64_t *flat_all)
{
	struct pprof_profile *p = t->p;
	const char *overflow = "sum of values leaves the 64-bit range";
	uint32_t nn = p->nnodes;
	t->nd = calloc(nn ? nn : 1, sizeof(*t->nd));
	if (!t->nd || !walk_init(&t->w, p))
		return pp_nomem(p);
	for (uint32_t e = 0; e < p->nentries; e++) {
		int64_t v = p->values[(size_t)e * p->ntypes + sel];
		uint32_t n = p->entries[e].node;
		if (v == 0)
			continue;
		if (__builtin_add_overflow(t->nd[n].sub, v, &t->nd[n].sub) ||
		    __builtin_add_overflow(*total, mag(v), total) || *total > INT64_MAX)
			return pp_error(p, PPROF_EINPUT, "%s", overflow);
		t->nd[n].live = 1;
		if (base && pp_has_label(p, p->entries[e].labels, base, "true"))
			*basetotal += mag(v);
	}
	/* flat: the node's own value goes to the function of its frame */
	for (uint32_t n = 1; n < nn; n++) {
		uint32_t fr = p->nodes[n].frame;
		t->nd[n].fun = t->ffun[fr];
		t->nd[n].inl = (p->frames[fr].flags & PP_FRAME_INLINED) != 0;
		struct fun *f = &t->fn[t->nd[n].fun];
		if (__builtin_add_overflow(f->flat, t->nd[n].sub, &f->flat) ||
		    __builtin_add_overflow(*flat_all, t->nd[n].sub, flat_all))
			return pp_error(p, PPROF_EINPUT, "%s", overflow);
	}
	/* Parents have smaller ids than their children. */
	for (uint32_t n = nn; n-- > 1;) {
		uint32_t up = p->nodes[n].parent;
		if (__builtin_add_overflow(t->nd[up].sub, t->nd[n].sub, &t->nd[up].sub))
			return pp_error(p, PPROF_EINPUT, "%s", overflow);
		t->nd[up].live |= t->nd[n].live;
	}
	return PPROF_OK;
}

int pp_top_sum(struct top_work *t, uint32_t sel, enum pprof_granularity g, int64_t *total)
{
	struct pprof_profile *p = t->p;
	bool any_inline;
	uint32_t base = p->nlabelsets > 1 ? pp_label_key(p, "pprof::base") : 0;
	uint64_t all = 0, basetotal = 0;
	int64_t flat_all = 0;
	int s = pp_settle(p);
	if (s == PPROF_OK)
		s = top_functions(t, g, &any_inline);
	if (s == PPROF_OK)
		s = tree_values(t, sel, base, &all, &basetotal, &flat_all);
	for (uint32_t f = 0; s == PPROF_OK && f < t->nfn; f++)
		t->fn[f].kept = 1;
	if (s == PPROF_OK)
		s = walk_tree(t, true, false, flat_all, NULL);
	*total = (int64_t)(basetotal ? basetotal : all);
	return s;
}

void pp_top_work_release(struct top_work *t)
{
	free(t->ffun);
	free(t->fn);
	free(t->nd);
	walk_release(&t->w);
}

static size_t top_strsize(const char *s)
{
	return strlen(s) + 1;
}

int pprof_top(struct pprof_profile *p, const struct pprof_top_options *o, struct pprof_top **out)
{
	*out = NULL;
	if (o->sample_index < 0 || (uint32_t)o->sample_index >= p->ntypes)
		return pp_error(p, PPROF_EUSAGE, "no sample type selected");
	uint32_t sel = (uint32_t)o->sample_index;
	struct top_work t;
	memset(&t, 0, sizeof(t));
	t.p = p;
	struct row *rows = NULL;
	struct pprof_top *tab = NULL;
	bool any_inline = false;
	/* Samples still out of the tree are read as they are, unless some are
	 * in the tree too. */
	bool deferred = p->deferred && p->nentries == 0 && !o->tree;
	/* pprof's -peek keeps every node */
	size_t limit = o->tree && o->peek ? 0 : o->limit;
	struct edges calls = {0};
	int s = deferred ? PPROF_OK : pp_settle(p);
	if (s == PPROF_OK)
		s = top_functions(&t, o->granularity, &any_inline);
	if (s != PPROF_OK)
		goto out;

	/* pprof's total: the magnitudes of all samples, or of the base
	 * samples only in a -diff_base profile. */
	uint32_t base = p->nlabelsets > 1 ? pp_label_key(p, "pprof::base") : 0;
	uint64_t total = 0, basetotal = 0;
	int64_t flat_all = 0;
	/* Without a row limit every function is kept, and one walk does. */
	if (!limit)
		for (uint32_t f = 0; f < t.nfn; f++)
			t.fn[f].kept = 1;
	unsigned nshares = deferred ? pp_top_walk_shares(o->threads, p->deferred) : 1;
	if (deferred) {
		struct totals tot = {0, 0, 0};
		s = pp_top_walk_deferred(&t, sel, true, any_inline && !limit, base, &tot, nshares);
		total = tot.total;
		basetotal = tot.basetotal;
		flat_all = tot.flat_all;
	} else {
		s = tree_values(&t, sel, base, &total, &basetotal, &flat_all);
		if (s == PPROF_OK)
			s = walk_tree(&t, true, any_inline && !limit && !o->tree, flat_all, NULL);
	}
	if (s != PPROF_OK)
		goto out;

	size_t nrows = 0;
	rows = malloc((size_t)(t.nfn ? t.nfn : 1) * sizeof(*rows));
	if (!rows) {
		s = pp_nomem(p);
		goto out;
	}
	for (uint32_t f = 0; f < t.nfn; f++)
		if (t.fn[f].flat || t.fn[f].cum)
			rows[nrows++] = (struct row){f, t.fn[f].name, t.fn[f].len, t.fn[f].flat,
						     t.fn[f].cum};
	qsort(rows, nrows, sizeof(*rows), o->cum ? row_cmp_cum : row_cmp_flat);
	size_t keep = limit && limit < nrows ? limit : nrows;
	/* pprof rebuilds its graph on the kept nodes only when some are left
	 * out; the labels then come from the nearest kept callers. */
	if ((any_inline && limit) || o->tree) {
		if (keep < nrows) {
			for (uint32_t f = 0; f < t.nfn; f++)
				t.fn[f].kept = 0;
			for (size_t i = 0; i < keep; i++)
				t.fn[rows[i].fun].kept = 1;
		} else {
			for (uint32_t f = 0; f < t.nfn; f++)
				t.fn[f].kept = 1;
		}
		struct totals tot = {total, basetotal, flat_all};
		s = deferred ? pp_top_walk_deferred(&t, sel, false, true, 0, &tot, nshares)
			     : walk_tree(&t, false, true, flat_all, o->tree ? &calls : NULL);
		if (s != PPROF_OK)
			goto out;
	}

	/* The table owns copies of what it shows. */
	const char *type = pp_str(p, p->types[sel].type), *unit = pp_str(p, p->types[sel].unit);
	const char *ounit = o->unit && strcmp(o->unit, "minimum") != 0 ? o->unit : NULL;
	size_t size = top_strsize(type) + top_strsize(unit) + (ounit ? top_strsize(ounit) : 0);
	size_t ncom = 0;
	for (uint32_t i = 0; i < p->ncomments; i++) {
		const char *c = pp_str(p, p->comments[i]);
		if (c[0] != '#') {
			size += top_strsize(c);
			ncom++;
		}
	}
	for (size_t i = 0; i < keep; i++)
		size += (size_t)rows[i].len + 1;
	const struct pprof_filter_report *rep = o->report;
	size_t nlegend = rep ? rep->nfilters : 0;
	for (size_t i = 0; i < nlegend; i++)
		size += top_strsize(rep->filters[i]);
	tab = calloc(1, sizeof(*tab));
	if (tab) {
		tab->buf = malloc(size);
		tab->rows = malloc((keep ? keep : 1) * sizeof(*tab->rows));
		tab->comments = malloc((ncom ? ncom : 1) * sizeof(*tab->comments));
		tab->filters = malloc((nlegend ? nlegend : 1) * sizeof(*tab->filters));
	}
	if (!tab || !tab->buf || !tab->rows || !tab->comments || !tab->filters) {
		s = pp_nomem(p);
		goto out;
	}
	char *at = tab->buf;
#define COPY(dst, src, n)                \
	do {                             \
		memcpy(at, (src), (n));  \
		at[(n)] = '\0';          \
		(dst) = at;              \
		at += (n) + 1;           \
	} while (0)
	COPY(tab->type, type, strlen(type));
	COPY(tab->unit, unit, strlen(unit));
	if (ounit)
		COPY(tab->output_unit, ounit, strlen(ounit));
	for (uint32_t i = 0; i < p->ncomments; i++) {
		const char *c = pp_str(p, p->comments[i]);
		if (c[0] != '#')
			COPY(tab->comments[tab->ncomments++], c, strlen(c));
	}
	for (size_t i = 0; i < nlegend; i++)
		COPY(tab->filters[tab->nfilters++], rep->filters[i], strlen(rep->filters[i]));
	for (size_t i = 0; i < keep; i++) {
		const struct fun *f = &t.fn[rows[i].fun];
		struct pprof_top_row *r = &tab->rows[i];
		COPY(r->name, rows[i].name, rows[i].len);
		r->flat = rows[i].flat;
		r->cum = rows[i].cum;
		r->inlined = f->in_inline ? (f->in_noinline ? PPROF_TOP_PARTLY_INLINED : PPROF_TOP_INLINED)
					  : PPROF_TOP_NOT_INLINED;
		tab->flat_sum += r->flat; /* |flat| <= total: no overflow */
	}
#undef COPY
	tab->n = keep;
	tab->nall = nrows;
	if (rep && rep->totals && sel < rep->ntypes)
		tab->total = rep->totals[sel];
	else
		tab->total = (int64_t)(basetotal ? basetotal : total);
	tab->time_nanos = p->time_nanos;
	tab->duration_nanos = p->duration_nanos;
	if (o->tree) {
		uint32_t *rowof = calloc(t.nfn ? t.nfn : 1, sizeof(*rowof));
		if (!rowof) {
			s = pp_nomem(p);
			goto out;
		}
		for (size_t i = 0; i < keep; i++)
			rowof[rows[i].fun] = (uint32_t)i + 1;
		s = pp_top_calls(p, tab, &calls, rowof, o->peek);
		free(rowof);
		if (s != PPROF_OK)
			goto out;
	}
	*out = tab;
	tab = NULL;
out:
	pprof_top_free(tab);
	pp_edges_release(&calls);
	free(rows);
	free(t.ffun);
	free(t.fn);
	free(t.nd);
	walk_release(&t.w);
	return s;
}

void pprof_top_free(struct pprof_top *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->comments);
	free(t->filters);
	free(t->calls);
	free(t->buf);
	free(t);
}

/* Go's "Jan 2, 2006 at 3:04pm (MST)" in the local time zone. */
static void go_time(char *buf, size_t size, int64_t nanos)
{
	static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	int64_t sec = nanos / 1000000000;
	if (nanos % 1000000000 < 0)
		sec--;
	time_t tt = (time_t)sec;
	struct tm tm;
	if (!localtime_r(&tt, &tm)) {
		snprintf(buf, size, "?");
		return;
	}
	int h = tm.tm_hour % 12;
	snprintf(buf, size, "%s %d, %d at %d:%02d%s (%s)", mon[tm.tm_mon], tm.tm_mday,
		 tm.tm_year + 1900, h ? h : 12, tm.tm_min, tm.tm_hour < 12 ? "am" : "pm",
		 tm.tm_zone ? tm.tm_zone : "UTC");
}

void pp_top_unit(const struct pprof_top *t, char *unit, size_t size)
{
	if (t->output_unit) {
		snprintf(unit, size, "%s", t->output_unit);
		return;
	}
	int64_t min = 0;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t m = mag(t->rows[i].flat);
		if (m == 0)
			m = mag(t->rows[i].cum);
		if (m > 0 && (min == 0 || m < (uint64_t)min))
			min = (int64_t)m;
	}
	pprof_output_unit(unit, size, min, t->total, t->unit);
}

void pp_top_header(const struct pprof_top *t, const char *unit, FILE *out)
{
	char a[160], b[160], c[160], d[32];
	for (size_t i = 0; i < t->ncomments; i++)
		fprintf(out, "%s\n", t->comments[i]);
	fprintf(out, "Type: %s\n", t->type);
	if (t->time_nanos) {
		go_time(a, sizeof(a), t->time_nanos);
		fprintf(out, "Time: %s\n", a);
	}
	if (t->duration_nanos) {
		pprof_value_label(a, sizeof(a), t->duration_nanos, "nanoseconds", "auto");
		pprof_value_label(b, sizeof(b), t->total, t->unit, unit);
		const char *u;
		double ns = pp_unit_scale(t->total, t->unit, "nanoseconds", &u);
		c[0] = '\0';
		if (strcmp(u, "ns") == 0 && ns != 0) {
			pp_percentage(d, sizeof(d), (int64_t)ns, t->duration_nanos);
			snprintf(c, sizeof(c), "(%s)", d);
		}
		fprintf(out, "Duration: %s, Total samples = %s %s\n", a, b, c);
	}
	/* as pprof's legend, cut at 80 bytes */
	if (t->nfilters)
		fputs("Active filters:\n", out);
	for (size_t i = 0; i < t->nfilters; i++) {
		size_t n = strlen(t->filters[i]);
		fprintf(out, "   %.*s%s\n", (int)(n > 80 ? 80 : n), t->filters[i], n > 80 ? "…" : "");
	}
	pprof_value_label(a, sizeof(a), t->flat_sum, t->unit, unit);
	pprof_value_label(b, sizeof(b), t->total, t->unit, unit);
	pp_percentage(d, sizeof(d), t->flat_sum, t->total);
	const char *pct = d;
	while (*pct == ' ')
		pct++;
	fprintf(out, "Showing nodes accounting for %s, %s of %s total\n", a, pct, b);
	if (t->total != 0 && t->n > 0 && t->n < t->nall)
		fprintf(out, "Showing top %zu nodes out of %zu\n", t->n, t->nall);
}

void pp_top_cells(const struct pprof_top *t, const struct pprof_top_row *r, int64_t sum,
		  const char *unit, struct pp_top_cells *c)
{
	pprof_value_label(c->flat, sizeof(c->flat), r->flat, t->unit, unit);
	pprof_value_label(c->cum, sizeof(c->cum), r->cum, t->unit, unit);
	pp_percentage(c->flatp, sizeof(c->flatp), r->flat, t->total);
	pp_percentage(c->sump, sizeof(c->sump), sum, t->total);
	pp_percentage(c->cump, sizeof(c->cump), r->cum, t->total);
}

static void top_text(const struct pprof_top *t, FILE *out)
{
	char unit[64];
	struct pp_top_cells c;
	pp_top_unit(t, unit, sizeof(unit));
	pp_top_header(t, unit, out);
	fprintf(out, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum");
	int64_t sum = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct pprof_top_row *r = &t->rows[i];
		sum += r->flat;
		pp_top_cells(t, r, sum, unit, &c);
		fprintf(out, "%10s %s %s %10s %s  %s%s\n", c.flat, c.flatp, c.sump, c.cum, c.cump,
			r->name,
			r->inlined == PPROF_TOP_INLINED	       ? " (inline)"
			: r->inlined == PPROF_TOP_PARTLY_INLINED ? " (partial-inline)"
								 : "");
	}
}

static const char *inline_name(enum pprof_top_inline i)
{
	return i == PPROF_TOP_INLINED ? "inline" : i == PPROF_TOP_PARTLY_INLINED ? "partial-inline" : "";
}

int pprof_top_write(const struct pprof_top *t, enum pprof_table_format fmt, FILE *out)
{
	errno = 0;
	int64_t sum = 0;
	if (t->tree && fmt != PPROF_TABLE_TEXT)
		return PPROF_EUSAGE;
	switch (fmt) {
	case PPROF_TABLE_TEXT:
		if (t->tree)
			pp_top_tree_text(t, out);
		else
			top_text(t, out);
		break;
	case PPROF_TABLE_TSV:
		fputs("# type\t", out);
		pp_tsv_str(out, t->type);
		putc('\t', out);
		pp_tsv_str(out, t->unit);
		fprintf(out, "\n# total\t%" PRId64 "\n# rows\t%zu\t%zu\n", t->total, t->n, t->nall);
		fputs("flat\tflat%\tsum%\tcum\tcum%\tfunction\tinline\n", out);
		for (size_t i = 0; i < t->n; i++) {
			const struct pprof_top_row *r = &t->rows[i];
			sum += r->flat;
			fprintf(out, "%" PRId64 "\t%.4f\t%.4f\t%" PRId64 "\t%.4f\t", r->flat,
				pct_of(r->flat, t->total), pct_of(sum, t->total), r->cum,
				pct_of(r->cum, t->total));
			pp_tsv_str(out, r->name);
			fprintf(out, "\t%s\n", inline_name(r->inlined));
		}
		break;
	case PPROF_TABLE_JSON:
		fputs("{\"type\":", out);
		pp_json_str(out, t->type);
		fputs(",\"unit\":", out);
		pp_json_str(out, t->unit);
		fprintf(out, ",\"total\":%" PRId64 ",\"flat_sum\":%" PRId64 ",\"rows_total\":%zu",
			t->total, t->flat_sum, t->nall);
		if (t->time_nanos)
			fprintf(out, ",\"time_nanos\":%" PRId64, t->time_nanos);
		if (t->duration_nanos)
			fprintf(out, ",\"duration_nanos\":%" PRId64, t->duration_nanos);
		if (t->nfilters) {
			fputs(",\"filters\":[", out);
			for (size_t i = 0; i < t->nfilters; i++) {
				if (i)
					putc(',', out);
				pp_json_str(out, t->filters[i]);
			}
			putc(']', out);
		}
		fputs(",\"rows\":[", out);
		for (size_t i = 0; i < t->n; i++) {
			const struct pprof_top_row *r = &t->rows[i];
			sum += r->flat;
			fputs(i ? ",\n{\"function\":" : "\n{\"function\":", out);
			pp_json_str(out, r->name);
			fprintf(out,
				",\"flat\":%" PRId64 ",\"flat_pct\":%.4f,\"sum_pct\":%.4f,\"cum\":%" PRId64
				",\"cum_pct\":%.4f",
				r->flat, pct_of(r->flat, t->total), pct_of(sum, t->total), r->cum,
				pct_of(r->cum, t->total));
			if (r->inlined)
				fprintf(out, ",\"inline\":\"%s\"", inline_name(r->inlined));
			putc('}', out);
		}
		fputs("]}\n", out);
		break;
	}
	return pp_write_status(out);
}

/* ---- the table of a diff ---- */
