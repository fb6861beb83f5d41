/*
 * flame_layout.c: where each frame goes, with flamegraph.pl's geometry:
 * the lines sorted as Perl sorts them, reversed for --reverse, merged into
 * frames (x, width, depth) with those narrower than minwidth left out, and
 * packed again from their caller's start for --sort-width and
 * --merge-small.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame_private.h"

/* ---- layout ---- */

struct fl_open {
	const char *name;
	uint32_t len;
	uint32_t off; /* where the frame starts in the stack text */
	double stime;
	double delta;
	double dsum; /* running delta sum when opened */
	double bsum, asum; /* running before and after sums when opened */
	double sb, sa;     /* self: before and after of the lines ending here */
	double other;
};

static bool fl_node_push(struct fl_layout *L, const struct fl_node *n)
{
	if (L->n == L->cap) {
		size_t cap = L->cap ? L->cap * 2 : 4096;
		struct fl_node *nn = realloc(L->nodes, cap * sizeof(*nn));
		if (!nn)
			return false;
		L->nodes = nn;
		L->cap = cap;
	}
	L->nodes[L->n++] = *n;
	return true;
}

/* flamegraph.pl keys a frame by "name;depth;END" and reads END back from
 * that text: an end that is not an integer is the time printed as Perl
 * prints numbers ("%.15g"). */
static double fl_perl_end(double t)
{
	if (t >= 0 && t < 1e15 && t == fl_floor(t))
		return t;
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%.15g", t);
	return strtod(tmp, NULL);
}

/* Closes the open frames above depth KEEP at the current time. */
bool fl_close(struct fl_layout *L, size_t keep)
{
	while (L->nopen > keep) {
		struct fl_open *o = &L->open[--L->nopen];
		double end = fl_perl_end(L->time);
		double w = end - o->stime;
		if (w < L->minwidth_time) {
			if (L->keep_other && L->nopen > 0)
				L->open[L->nopen - 1].other += w;
			continue;
		}
		struct fl_node n = {
			.name = o->name,
			.len = o->len,
			.depth = (uint32_t)L->nopen,
			.start = o->stime,
			.end = end,
			.delta = o->delta,
			.incl = L->dsum - o->dsum,
			.ib = L->bsum - o->bsum,
			.ia = L->asum - o->asum,
			.sb = o->sb,
			.sa = o->sa,
			.other = o->other,
		};
		if (!fl_node_push(L, &n))
			return false;
	}
	return true;
}

static bool fl_open_push(struct fl_layout *L, const char *name, size_t len, size_t off,
			 double delta)
{
	if (L->nopen == L->capopen) {
		size_t cap = L->capopen ? L->capopen * 2 : 256;
		struct fl_open *no = realloc(L->open, cap * sizeof(*no));
		if (!no)
			return false;
		L->open = no;
		L->capopen = cap;
	}
	struct fl_open *o = &L->open[L->nopen++];
	o->name = name;
	o->len = (uint32_t)len;
	o->off = (uint32_t)off;
	o->stime = L->time;
	o->delta = delta;
	o->dsum = L->dsum;
	o->bsum = L->bsum;
	o->asum = L->asum;
	o->sb = o->sa = 0;
	o->other = 0;
	return true;
}

/* Merges one line into the open frames: those it shares with the previous
 * line stay open, the others close, and its own open.  A frame starts at
 * the same offset in every line that shares the frames before it, so the
 * shared frames are found by comparing the line with the previous one. */
__attribute__((noinline)) bool fl_flow(struct fl_layout *L, const char *stack,
				       size_t stacklen, double before, double after,
				       double width)
{
	double d = fl_isnan(before) ? fl_nan() : after - before;
	/* flamegraph.pl splits on ';' and drops trailing empty fields. */
	while (stacklen > 0 && stack[stacklen - 1] == ';')
		stacklen--;
	if (L->nopen == 0) {
		/* The root, shared by every line. */
		double rd = fl_isnan(d) ? fl_nan() : (stacklen == 0 ? d : 0);
		if (!fl_open_push(L, "", 0, 0, rd))
			return false;
		L->prev = stack;
		L->prevlen = 0;
	}
	/* The first byte where this stack and the previous one differ. */
	size_t lim = stacklen < L->prevlen ? stacklen : L->prevlen, m = 0;
	while (m + 8 <= lim) {
		uint64_t a, b;
		memcpy(&a, stack + m, 8);
		memcpy(&b, L->prev + m, 8);
		if (a != b)
			break;
		m += 8;
	}
	while (m < lim && stack[m] == L->prev[m])
		m++;
	/* The open frames that end before it, or at it where this stack has
	 * a frame boundary too, are shared. */
	size_t depth = 1;
	while (depth < L->nopen) {
		const struct fl_open *o = &L->open[depth];
		size_t end = (size_t)o->off + o->len;
		if (end > m || (end == m && m < stacklen && stack[m] != ';') ||
		    (end == m && stacklen == 0))
			break;
		depth++;
	}
	if (!fl_close(L, depth))
		return false;
	size_t pos = depth == 1 ? 0 : (size_t)L->open[depth - 1].off + L->open[depth - 1].len + 1;
	if (stacklen > 0 && pos <= stacklen) {
		for (;;) {
			const char *semi = memchr(stack + pos, ';', stacklen - pos);
			size_t e = semi ? (size_t)(semi - stack) : stacklen;
			bool leaf = !semi;
			double fd = fl_isnan(d) ? fl_nan() : (leaf ? d : 0);
			if (!fl_open_push(L, stack + pos, e - pos, pos, fd))
				return false;
			if (leaf)
				break;
			pos = e + 1;
		}
	}
	L->prev = stack;
	L->prevlen = stacklen;
	L->time += width;
	if (!fl_isnan(d)) {
		L->dsum += d;
		L->bsum += before;
		/* The line's own frame is the last one open. */
		L->open[L->nopen - 1].sb += before;
	}
	L->asum += after;
	L->open[L->nopen - 1].sa += after;
	return true;
}

/* ---- sorting lines ---- */

/* Lines sort bytewise on their key, a prefix first, as Perl's sort does.
 * A three-way radix quicksort on 8-byte words: each record caches the
 * big-endian word of its key at the range's offset; a range is split into
 * smaller, equal and larger words, and only the equal part moves on to the
 * next word (after skipping whatever prefix all its keys share, usually
 * the root frames).  The keys are scattered over the input, so they are
 * fetched ahead of use. */
struct fl_skey {
	uint64_t w;
	uint32_t rem; /* bytes left from this offset, capped at 9 */
	uint32_t idx;
};

static uint64_t fl_load_be(const char *s, size_t n)
{
	uint64_t v = 0;
	if (n >= 8) {
		memcpy(&v, s, 8);
		return __builtin_bswap64(v);
	}
	unsigned char b[8] = {0};
	memcpy(b, s, n);
	memcpy(&v, b, 8);
	return __builtin_bswap64(v);
}

/* -1, 0, 1 on the cached word, then on how many bytes are left. */
static int fl_skey_cmp(const struct fl_skey *x, const struct fl_skey *y)
{
	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	if (x->rem != y->rem)
		return x->rem < y->rem ? -1 : 1;
	return 0;
}

struct fl_range {
	size_t lo, hi, off;
	bool loaded; /* the records hold the words at off */
};

#define FL_AHEAD 12 /* lines fetched ahead of use */

/* Full comparison of two keys from byte OFF on. */
static int fl_key_cmp(const struct pp_fline *a, const struct pp_fline *b, size_t off)
{
	size_t na = a->keylen - off, nb = b->keylen - off;
	int c = memcmp(a->key + off, b->key + off, na < nb ? na : nb);
	if (c)
		return c;
	return na < nb ? -1 : na > nb;
}

static void fl_load_range(const struct pp_fline *lines, struct fl_skey *k, struct fl_range *r)
{
	/* Skip the prefix every key of the range shares. */
	const struct pp_fline *first = &lines[k[r->lo].idx];
	size_t lcp = first->keylen > r->off ? first->keylen - r->off : 0;
	for (size_t i = r->lo + 1; i < r->hi && lcp > 0; i++) {
		if (i + FL_AHEAD < r->hi)
			__builtin_prefetch(lines[k[i + FL_AHEAD].idx].key + r->off);
		const struct pp_fline *l = &lines[k[i].idx];
		size_t m = l->keylen > r->off ? l->keylen - r->off : 0;
		if (m < lcp)
			lcp = m;
		const char *a = first->key + r->off, *b = l->key + r->off;
		size_t j = 0;
		while (j + 8 <= lcp && memcmp(a + j, b + j, 8) == 0)
			j += 8;
		while (j < lcp && a[j] == b[j])
			j++;
		lcp = j;
	}
	r->off += lcp;
	for (size_t i = r->lo; i < r->hi; i++) {
		if (i + FL_AHEAD < r->hi)
			__builtin_prefetch(lines[k[i + FL_AHEAD].idx].key + r->off);
		const struct pp_fline *l = &lines[k[i].idx];
		size_t rem = l->keylen > r->off ? l->keylen - r->off : 0;
		k[i].w = fl_load_be(l->key + r->off, rem);
		k[i].rem = rem > 8 ? 9 : (uint32_t)rem;
	}
	r->loaded = true;
}

bool fl_lines_sorted(const struct pp_fline *lines, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (fl_key_cmp(&lines[i - 1], &lines[i], 0) > 0)
			return false;
	return true;
}

__attribute__((noinline)) bool fl_sort_lines(struct pp_fline *lines, size_t n)
{
	struct fl_skey *k = malloc(n * sizeof(*k));
	size_t capstack = 256, nstack = 0;
	struct fl_range *stack = malloc(capstack * sizeof(*stack));
	if (!k || !stack)
		goto fail;
	for (size_t i = 0; i < n; i++)
		k[i].idx = (uint32_t)i;
	stack[nstack++] = (struct fl_range){0, n, 0, false};
	while (nstack) {
		struct fl_range r = stack[--nstack];
		if (r.hi - r.lo < 2)
			continue;
		if (r.hi - r.lo <= 16) {
			/* Short ranges: insertion sort on whole keys. */
			for (size_t i = r.lo + 1; i < r.hi; i++) {
				struct fl_skey t = k[i];
				size_t j = i;
				while (j > r.lo && fl_key_cmp(&lines[t.idx], &lines[k[j - 1].idx], r.off) < 0) {
					k[j] = k[j - 1];
					j--;
				}
				k[j] = t;
			}
			continue;
		}
		if (!r.loaded)
			fl_load_range(lines, k, &r);
		/* Median of three as the pivot. */
		struct fl_skey *a = &k[r.lo], *b = &k[r.lo + (r.hi - r.lo) / 2], *c = &k[r.hi - 1];
		struct fl_skey pivot = *b;
		if (fl_skey_cmp(a, b) > 0)
			pivot = fl_skey_cmp(a, c) < 0 ? *a : fl_skey_cmp(b, c) > 0 ? *b : *c;
		else if (fl_skey_cmp(b, c) > 0)
			pivot = fl_skey_cmp(a, c) > 0 ? *a : *c;
		/* [lo, lt) smaller, [lt, i) equal, (gt, hi) larger. */
		size_t lt = r.lo, i = r.lo, gt = r.hi;
		while (i < gt) {
			int cmp = fl_skey_cmp(&k[i], &pivot);
			if (cmp < 0) {
				struct fl_skey t = k[lt];
				k[lt++] = k[i];
				k[i++] = t;
			} else if (cmp > 0) {
				struct fl_skey t = k[--gt];
				k[gt] = k[i];
				k[i] = t;
			} else {
				i++;
			}
		}
		if (nstack + 3 > capstack) {
			struct fl_range *ns = realloc(stack, 2 * capstack * sizeof(*ns));
			if (!ns)
				goto fail;
			stack = ns;
			capstack *= 2;
		}
		stack[nstack++] = (struct fl_range){r.lo, lt, r.off, true};
		stack[nstack++] = (struct fl_range){gt, r.hi, r.off, true};
		if (pivot.rem == 9)
			stack[nstack++] = (struct fl_range){lt, gt, r.off + 8, false};
	}
	/* Apply the order in place, cycle by cycle (idx marks what is done). */
	for (size_t i = 0; i < n; i++) {
		if (k[i].idx == (uint32_t)i || k[i].idx == UINT32_MAX)
			continue;
		struct pp_fline t = lines[i];
		size_t j = i;
		for (;;) {
			size_t from = k[j].idx;
			k[j].idx = UINT32_MAX;
			if (from == i) {
				lines[j] = t;
				break;
			}
			lines[j] = lines[from];
			j = from;
		}
	}
	free(k);
	free(stack);
	return true;
fail:
	free(k);
	free(stack);
	return false;
}

/* ---- reversed stacks (--reverse) ---- */

/* Rewrites every line as flamegraph.pl does for --reverse: the frames in
 * the other order, then the number(s) as read, then the line read again
 * (a frame name ending in a number may now read as a count). */
int fl_reverse(struct pprof_flame *f)
{
	if (fl_own_lines(f) != PPROF_OK)
		return PPROF_ENOMEM;
	size_t total = 0;
	for (size_t i = 0; i < f->nlines; i++)
		total += f->lines[i].keylen + 2;
	char *buf = malloc(total ? total : 1);
	if (!buf)
		return fl_nomem(f);
	if (fl_keep(f, buf, total, false) != PPROF_OK) {
		free(buf);
		return PPROF_ENOMEM;
	}
	char *w = buf;
	size_t out = 0;
	for (size_t i = 0; i < f->nlines; i++) {
		struct pp_fline l = f->lines[i];
		bool model = (l.stacklen & FL_MODEL_BIT) != 0;
		size_t stacklen = l.stacklen & ~FL_MODEL_BIT;
		const char *s = l.key;
		char *start = w;
		size_t end = stacklen;
		while (end > 0 && s[end - 1] == ';')
			end--;
		/* Fields from the last to the first. */
		size_t e = end;
		bool first = true;
		while (end > 0) {
			size_t b = e;
			while (b > 0 && s[b - 1] != ';')
				b--;
			if (!first)
				*w++ = ';';
			first = false;
			memcpy(w, s + b, e - b);
			w += e - b;
			if (b == 0)
				break;
			e = b - 1;
		}
		size_t newstack = (size_t)(w - start);
		if (model) {
			memcpy(w, s + stacklen, l.keylen - stacklen);
			w += l.keylen - stacklen;
			l.key = start;
			l.keylen = (uint32_t)(w - start);
			l.stacklen = (uint32_t)newstack | FL_MODEL_BIT;
			f->lines[out++] = l;
			continue;
		}
		struct pp_fg_parsed r;
		pp_fg_parse_line(s, l.keylen, &r);
		if (r.diff) {
			*w++ = ' ';
			memcpy(w, s + r.num1, r.num1len);
			w += r.num1len;
		}
		*w++ = ' ';
		memcpy(w, s + r.num2, r.num2len);
		w += r.num2len;
		size_t n = (size_t)(w - start);
		if (!pp_fg_parse_line(start, n, &r)) {
			f->ignored++;
			continue;
		}
		l.key = start;
		l.keylen = (uint32_t)n;
		l.stacklen = (uint32_t)r.stacklen;
		l.after = pp_fg_strtod(start + r.num2, r.num2len);
		l.before = r.diff ? pp_fg_strtod(start + r.num1, r.num1len) : fl_nan();
		f->lines[out++] = l;
	}
	f->nlines = out;
	return PPROF_OK;
}

/* ---- relayout: callees packed from their caller's start ---- */

static int fl_cmp_width(const void *a, const void *b, void *ctx)
{
	const struct fl_node *nodes = ctx;
	const struct fl_node *x = &nodes[*(const uint32_t *)a];
	const struct fl_node *y = &nodes[*(const uint32_t *)b];
	double wx = x->end - x->start, wy = y->end - y->start;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	return ia < ib ? -1 : ia > ib;
}

const char fl_other_name[] = "(other)";

bool fl_relayout(struct fl_layout *L, bool by_width, bool others)
{
	size_t n = L->n;
	/* Room for one "(other)" per node. */
	if (others) {
		size_t cap = n * 2 + 1;
		struct fl_node *nn = realloc(L->nodes, cap * sizeof(*nn));
		if (!nn)
			return false;
		L->nodes = nn;
		L->cap = cap;
	}
	uint32_t *kids = malloc((2 * n + 1) * sizeof(*kids));
	uint32_t *stack = malloc((n + 1) * sizeof(*stack));
	if (!kids || !stack) {
		free(kids);
		free(stack);
		return false;
	}
	size_t nkids = 0, nstack = 0;
	for (size_t i = 0; i < n; i++) {
		struct fl_node *nd = &L->nodes[i];
		size_t top = nstack;
		while (top > 0 && L->nodes[stack[top - 1]].depth > nd->depth)
			top--;
		nd->kid0 = (uint32_t)nkids;
		for (size_t j = top; j < nstack; j++)
			kids[nkids++] = stack[j];
		nstack = top;
		if (others && nd->other > 0 && nd->other >= L->minwidth_time) {
			struct fl_node o = {
				.name = fl_other_name,
				.len = sizeof(fl_other_name) - 1,
				.depth = nd->depth + 1,
				.start = 0,
				.end = nd->other,
				.delta = fl_nan(),
				.incl = 0,
				.ib = fl_nan(),
				.other = 0,
			};
			kids[nkids++] = (uint32_t)L->n;
			L->nodes[L->n++] = o;
		}
		nd->nkids = (uint32_t)(nkids - nd->kid0);
		stack[nstack++] = (uint32_t)i;
	}
	/* Pre-order from the roots (normally the one root, last). */
	size_t nroots = nstack;
	for (size_t r = 0; r < nroots; r++) {
		size_t sp = 0;
		uint32_t root = stack[r];
		uint32_t *todo = malloc((L->n + 1) * sizeof(*todo));
		if (!todo) {
			free(kids);
			free(stack);
			return false;
		}
		todo[sp++] = root;
		while (sp) {
			struct fl_node *p = &L->nodes[todo[--sp]];
			uint32_t *k = kids + p->kid0;
			size_t nk = p->nkids;
			bool last_other = others && nk > 0 && L->nodes[k[nk - 1]].name == fl_other_name;
			if (by_width)
				qsort_r(k, nk - last_other, sizeof(*k), fl_cmp_width, L->nodes);
			double x = p->start;
			for (size_t j = 0; j < nk; j++) {
				struct fl_node *c = &L->nodes[k[j]];
				double w = c->end - c->start;
				c->start = x;
				c->end = x + w;
				x += w;
				todo[sp++] = k[j];
			}
		}
		free(todo);
	}
	free(kids);
	free(stack);
	return true;
}
